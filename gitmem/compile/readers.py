"""Which of gitmem's targets each AI client reads, and how, as data: compile places each memory from it so that every
client in use receives it once (``delivery``), and ``gitmem explain`` says what each client loads.

Figures marked *measured* come from tests/clients (the client run against a fake model server, its requests
recorded); the others from the client's documentation (``doc``). See docs/clients.md.
"""

from __future__ import annotations

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
