"""Which of gitmem's targets each AI client reads, as data: so compile can tell when one client would get the same
memory twice (from two rules files), and init can leave out a target whose client already reads another.

Figures marked *measured* come from tests/clients (the client run against a fake model server, its requests
recorded); the others from the client's documentation (``doc``). See docs/clients.md.
"""

from __future__ import annotations

from collections.abc import Collection
from dataclasses import dataclass


@dataclass(frozen=True)
class Reader:
    client: str
    own: str
    """The target made for this client: a duplicate is reported only while it is configured (a team that does not
    compile for a client is not told about that client)."""
    reads: tuple[str, ...]
    """Targets whose files the client reads."""
    fallbacks: tuple[tuple[str, str], ...] = ()
    """``(target, unless)``: the client reads ``target`` only where ``unless``'s root file does not exist."""
    source: str = ""
    imports: tuple[str, ...] = ()
    """Targets whose files' ``@path`` imports the client follows (Gemini CLI in GEMINI.md, Claude Code and the
    Copilot CLI in CLAUDE.md; measured): ``delivery`` bridges such a file to AGENTS.md with one."""
    imports_above: bool = True
    """The client follows the imports of the files above the folder it starts in too (Claude Code does not: it asks
    to approve such "external" imports, and in ``-p`` mode skips them; measured)."""
    private: str = ""
    """A file this client reads in each folder that the other clients do not (Claude Code's ``.claude/CLAUDE.md``,
    which the Copilot CLI does not read: measured): where its copy goes when another client in use reads its usual
    file beside AGENTS.md (``delivery``)."""
    chain: bool = True
    """Started in a subfolder, the client loads the files of the root and of every folder down to it; ``False``:
    only those of the folder it starts in (Cline, aider: measured)."""
    key: str = ""
    """Its short name (``gitmem explain --client``); default: the client's name in lower case."""

    @property
    def name(self) -> str:
        return self.key or self.client.lower().split()[0]


READERS: tuple[Reader, ...] = (
    Reader(
        "Claude Code",
        "claude",
        ("claude",),
        (("agents", "claude"),),
        "measured: Claude Code 2.1.332 (AGENTS.md only without a CLAUDE.md: https://code.claude.com/docs/en/memory)",
        imports=("claude",),
        imports_above=False,
        private=".claude/CLAUDE.md",
    ),
    Reader("opencode", "agents", ("agents",), (("claude", "agents"),), "measured: opencode 1.18.33"),
    Reader("Codex", "agents", ("agents",), (), "measured: Codex 0.171.0"),
    Reader("Gemini CLI", "gemini", ("gemini",), (), "measured: Gemini CLI 0.61.0", imports=("gemini",)),
    Reader("Qwen Code", "agents", ("agents",), (), "measured: Qwen Code 0.24.4 (it reads QWEN.md too)"),
    Reader(
        "GitHub Copilot CLI",
        "copilot",
        ("copilot", "agents", "gemini", "claude"),
        (),
        "measured: Copilot CLI 1.0.102 (CLAUDE.md and .claude/rules, its imports followed; GEMINI.md's not)",
        imports=("claude",),
        key="copilot",
    ),
    Reader(
        "Cline", "cline", ("cline", "agents"), (), "measured: Cline CLI 3.0.65 (https://docs.cline.bot)", chain=False
    ),
    Reader("Cursor", "cursor", ("cursor", "agents"), (), "https://cursor.com/docs/context/rules"),
    Reader("Windsurf", "windsurf", ("windsurf", "agents"), (), "https://docs.windsurf.com/windsurf/cascade/agents-md"),
    Reader("Kiro", "kiro", ("kiro", "agents"), (), "https://kiro.dev/docs/steering/"),
    # Roo Code reads AGENTS.md beside .roo/rules (https://docs.roocode.com/features/custom-instructions).
    Reader("Roo Code", "roo", ("roo", "agents"), (), "https://docs.roocode.com/features/custom-instructions"),
    # Augment loads CLAUDE.md, AGENTS.md and the .augment/rules files (https://docs.augmentcode.com/cli/rules).
    Reader("Augment Code", "augment", ("augment", "claude", "agents"), (), "https://docs.augmentcode.com/cli/rules"),
    # Junie reads one guidelines file (.junie/guidelines.md, or AGENTS.md when its settings say so); Trae reads
    # AGENTS.md and CLAUDE.md only when they are switched on in its settings: neither by default.
    Reader("Junie", "junie", ("junie",), (), "https://www.jetbrains.com/help/junie/customize-guidelines.html"),
    Reader("Trae", "trae", ("trae",), (), "https://www.w3cschool.cn/traeworkdocs/traework-rules.html"),
    # Warp reads AGENTS.md where a directory has no WARP.md (a WARP.md shadows it): like Claude Code's fallback.
    Reader("Warp", "warp", ("warp",), (("agents", "warp"),), "https://github.com/warpdotdev/warp/pull/9325"),
    # aider reads what .aider.conf.yml's `read:` names, resolved from the folder it starts in: from a subfolder, none.
    Reader("aider", "aider", ("aider",), (), "measured: aider 0.86.2", chain=False),
)


@dataclass(frozen=True)
class Duplicate:
    client: str
    targets: tuple[str, ...]  # the configured targets the client reads, two or more
    droppable: tuple[str, ...]  # those of them that no other client in use reads
    needed: dict[str, tuple[str, ...]]  # the others: the clients that read each

    def describe(self, files: dict[str, str]) -> str:
        names = " and ".join(files.get(target, target) for target in self.targets)
        head = f"{self.client} reads {names}, so it gets the same memories {len(self.targets)} times"
        drop = " and ".join(f"`{target}`" for target in self.droppable)
        if self.droppable and len(self.targets) - len(self.droppable) <= 1:
            return f"{head}: remove {drop} from `targets` in .memory/config.yaml"
        kept = "; ".join(f"{files.get(t, t)} for {', '.join(clients)}" for t, clients in self.needed.items())
        if self.droppable:
            return f"{head}: remove {drop} from `targets` in .memory/config.yaml; the others are needed ({kept})"
        return f"{head}; each is needed by another client ({kept}): drop the one your team needs least"


def read_by(reader: Reader, configured: Collection[str], scoped_claude: bool = True) -> tuple[str, ...]:
    """The configured targets ``reader`` reads."""
    out = [name for name in reader.reads if name in configured]
    for target, unless in reader.fallbacks:
        if target in configured and unless not in configured:
            out.append(target)
    return tuple(dict.fromkeys(out))


def duplicates(configured: Collection[str], scoped_claude: bool = True) -> list[Duplicate]:
    """Clients whose own target is configured that read two or more configured targets."""
    found = []
    for reader in READERS:
        if reader.own not in configured:
            continue
        read = read_by(reader, configured, scoped_claude)
        if len(read) < 2:
            continue
        needed = {target: _others(target, configured, reader) for target in read}
        droppable = tuple(target for target in read if not needed[target])
        if len(droppable) == len(read):  # nobody else needs any: keep the client's own
            droppable = tuple(target for target in read if target != reader.own)
        found.append(
            Duplicate(
                reader.client, read, droppable, {t: clients for t, clients in needed.items() if t not in droppable}
            )
        )
    return found


def _others(target: str, configured: Collection[str], duplicated: Reader) -> tuple[str, ...]:
    """The other clients in use (their own target is configured) that read ``target``."""
    return tuple(
        reader.client
        for reader in READERS
        if reader is not duplicated and reader.own in configured and target in read_by(reader, configured, True)
    )


def covered(target: str, chosen: Collection[str]) -> Reader | None:
    """For ``gitmem init``: the client of ``target`` when the target cannot scope (no per-directory or per-glob files)
    and the client already reads one of the ``chosen`` targets: adding ``target`` would only feed it every memory
    twice. None otherwise."""
    from gitmem.compile.targets import BY_NAME

    spec = BY_NAME.get(target)
    if spec is None or spec.scoped_dir or spec.dir_file:
        return None
    for reader in READERS:
        if reader.own == target and target not in chosen and any(name in chosen for name in reader.reads):
            return reader
    return None
