"""Where each memory goes so that every configured client receives it once: placement only (the text of the files is
``render``'s; the files of one target are ``plan``'s).

Clients read each other's files (``readers.READERS``): the Copilot CLI reads ``AGENTS.md``, ``GEMINI.md`` and
``CLAUDE.md`` beside its own file, Cline ``AGENTS.md`` beside ``.clinerules``. Copying every memory into every
target's file therefore feeds those clients each memory two or three times. Instead ``AGENTS.md`` (and the nested
``AGENTS.md`` files) is the hub when the ``agents`` target is configured, and every other target is laid out from
what its client reads:

- a client that reads ``AGENTS.md`` itself (Copilot CLI, Cline, Cursor, ...): its target's files carry only the
  memories it gets from no other file it reads (those whose ``targets`` leave the hub out);
- where another client in use reads both the hub and a target's files (the Copilot CLI reads ``GEMINI.md`` and
  ``CLAUDE.md``), that target is bridged to the hub (otherwise its full copy reaches each client once):
- a client that can import a file (Gemini CLI's ``@AGENTS.md``): its files are bridges, one beside each file of the
  hub, importing it, and carrying only what the hub does not;
- a client that reads ``AGENTS.md`` where the project has no file of its own (Claude Code without a ``CLAUDE.md``):
  gitmem writes no such file, and the memories only it needs go to a file of its own rules folder
  (``.claude/rules/gitmem.md``, which Claude Code reads in every session: measured, 2.1.332); a hand-written
  ``CLAUDE.md`` keeps the full copy (Claude Code then reads no ``AGENTS.md``), unless it imports ``@AGENTS.md``
  itself;
- any other client reads only its own files: a full copy, as without the hub.

Without the ``agents`` target the same rule applies to the files clients do read (the Copilot CLI reading
``GEMINI.md``): what a client gets from another target's files is left out of its own.
"""

from __future__ import annotations

import re
from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING

from gitmem.compile.readers import READERS, Reader
from gitmem.compile.scoping import FileSpec
from gitmem.compile.targets import WHOLE_PREFIX, Target

if TYPE_CHECKING:
    from gitmem.compile.plan import TargetPlan

HUB = "agents"
HUB_FILE = "AGENTS.md"
IMPORTS_AGENTS = re.compile(r"(?m)^[ \t]*@(?:\./)?AGENTS\.md[ \t]*$")


@dataclass(frozen=True)
class Layout:
    """A target's place in the delivery: the target as compiled (a variant when bridged), how its client reaches the
    hub, and the other configured targets whose files that client reads (their memories are left out here)."""

    target: Target
    bridge: str = ""  # "" (none), "native", "import", "fallback" or "own-import" (a hand-written @AGENTS.md)
    reads: tuple[str, ...] = ()

    @property
    def name(self) -> str:
        return self.target.name


def readers_of(name: str) -> list[Reader]:
    return [reader for reader in READERS if reader.own == name]


def layouts(targets: Sequence[Target], hand_written: Mapping[str, str] | None = None) -> list[Layout]:
    """How each of ``targets`` (the configured ones compiled) is laid out, in the order their plans must be made (a
    target after those whose files its client reads). ``hand_written``: target name -> the hand-written text of its
    root file (outside gitmem's block), for the targets whose root file has some."""
    hand_written = hand_written or {}
    names = {target.name for target in targets}
    hub = HUB in names
    out = []
    for target in targets:
        reads: list[str] = []
        bridge = ""
        for reader in readers_of(target.name):
            reads += [name for name in reader.reads if name in names and name != target.name]
        if hub and target.name != HUB:
            fallback = falls_back(target)
            importer = any(target.name in reader.imports and reader.imports_above for reader in readers_of(target.name))
            if HUB in reads:
                bridge = "native"
            elif fallback and IMPORTS_AGENTS.search(hand_written.get(target.name, "")):
                bridge = "own-import"  # its hand-written file imports the hub: the block holds only what it lacks
            elif not _read_beside_hub(target.name, names):
                pass  # no client in use reads both: the full copy reaches each of them once
            elif fallback and target.scoped_dir and target.name not in hand_written:
                bridge = "fallback"
                own = f"{target.scoped_dir}/{WHOLE_PREFIX}{target.scoped_suffix}"
                target = replace(target, root_file=own, root_whole=True, root_frontmatter=(), dir_file=None)
            elif importer and not _followed_by_others(target.name, names):
                bridge = "import"
                target = replace(target, imports=HUB_FILE)
            if bridge and HUB not in reads:
                reads.append(HUB)
        out.append(Layout(target, bridge, tuple(dict.fromkeys(reads))))
    return _ordered(out)


def falls_back(target: Target) -> bool:
    """Whether ``target``'s client reads the hub where the project has no root file of its own: whether that root
    file holds hand-written text decides its layout (``layouts``' ``hand_written``)."""
    return any(t == HUB for reader in readers_of(target.name) for t, _ in reader.fallbacks)


def _read_beside_hub(name: str, configured: Collection[str]) -> bool:
    """Whether a client in use (its own target configured) reads both the hub and ``name``'s files."""
    return any(
        reader.own in configured and reader.own != name and HUB in reader.reads and name in reader.reads
        for reader in READERS
    )


def _followed_by_others(name: str, configured: Collection[str]) -> bool:
    """Whether a client in use that reads the hub itself also reads ``name``'s files and follows their imports: a
    bridge importing the hub would feed it the hub twice."""
    return any(
        reader.own in configured and reader.own != name and HUB in reader.reads and name in reader.imports
        for reader in READERS
    )


def _ordered(items: list[Layout]) -> list[Layout]:
    """Each layout after those it reads (a cycle, which no client makes, is broken by taking the next as it is)."""
    done: list[Layout] = []
    placed: set[str] = set()
    waiting = list(items)
    while waiting:
        ready = [item for item in waiting if all(name in placed for name in item.reads)] or waiting[:1]
        for item in ready:
            done.append(item)
            placed.add(item.name)
            waiting.remove(item)
    return done


def standalone(targets: Sequence[Target]) -> list[Layout]:
    """Every target a full copy of its memories (``compile --user``: each user-level file is read alone)."""
    return [Layout(target) for target in targets]


def excluded(layout: Layout, candidates: Mapping[str, Collection[str]]) -> set[str]:
    """The memories ``layout``'s client gets from the other targets' files it reads."""
    out: set[str] = set()
    for name in layout.reads:
        out.update(candidates.get(name, ()))
    return out


# -- what a client receives: the check that every memory arrives once, and `gitmem explain` -------------------------


@dataclass(frozen=True)
class Loaded:
    """A file of gitmem's that a client loads, and the memories it brings (through an import too)."""

    path: str
    target: str
    ids: tuple[str, ...]
    chars: int  # what gitmem writes in it (its block or the whole file)
    via: str = ""  # the file that imports it, for a file reached through an import


def in_use(plans: Mapping[str, TargetPlan]) -> list[Reader]:
    """The clients whose own target is compiled."""
    return [reader for reader in READERS if reader.own in plans]


def loads(reader: Reader, plans: Mapping[str, TargetPlan], folder: str = "") -> list[Loaded]:
    """The files of gitmem's that ``reader`` loads in a session started in ``folder`` ("" for the root), as the
    records say it reads them (``readers.READERS``: measured where the client is installable)."""
    names = [name for name in reader.reads if name in plans]
    for name, unless in reader.fallbacks:
        if name in plans and name not in names and (unless not in plans or plans[unless].bridge == "fallback"):
            names.append(name)
    out: list[Loaded] = []
    for name in names:
        plan = plans[name]
        for path, file_plan in plan.files.items():
            spec = file_plan.spec
            if spec.globs or not _on_the_way(spec, folder, reader.chain):
                continue
            ids = tuple(entry.id for entry in file_plan.entries)
            out.append(Loaded(path, name, ids, len(file_plan.text())))
            imported = spec.imports or (spec.root and plan.bridge == "own-import" and HUB_FILE)
            if imported and name in reader.imports and (reader.imports_above or _directory(spec) == folder):
                hub = plans.get(HUB)
                target = f"{spec.directory}/{imported}" if spec.directory else imported
                if hub is not None and target in hub.files:
                    hub_plan = hub.files[target]
                    hub_ids = tuple(entry.id for entry in hub_plan.entries)
                    out.append(Loaded(target, HUB, hub_ids, len(hub_plan.text()), via=path))
    return out


def _directory(spec: FileSpec) -> str:
    return spec.directory if not spec.root else ""


def _on_the_way(spec: FileSpec, folder: str, chain: bool) -> bool:
    """Whether a client started in ``folder`` loads ``spec``: the root's files and those of the folders down to it
    (``chain``), or only those of ``folder`` itself."""
    directory = _directory(spec)
    if not chain:
        return directory == folder
    return directory == "" or folder == directory or folder.startswith(directory + "/")


def twice(plans: Mapping[str, TargetPlan]) -> list[str]:
    """Every client in use that would receive a memory more than once, in any folder gitmem writes to: one line
    each. Compile keeps it empty by construction; hand-written imports can still make it so."""
    folders = sorted({"", *(fp.spec.directory for plan in plans.values() for fp in plan.files.values())})
    found = []
    for reader in in_use(plans):
        for folder in folders:
            files = loads(reader, plans, folder)
            counts: dict[str, int] = {}
            for item in files:
                for memory_id in item.ids:
                    counts[memory_id] = counts.get(memory_id, 0) + 1
            repeated = sorted(memory_id for memory_id, count in counts.items() if count > 1)
            if repeated:
                where = f" started in {folder}/" if folder else ""
                names = " and ".join(dict.fromkeys(item.path for item in files if set(item.ids) & set(repeated)))
                noun = "memory" if len(repeated) == 1 else "memories"
                found.append(
                    f"{reader.client}{where} reads {names}, so it gets {len(repeated)} {noun} more than once "
                    f"({', '.join(repeated[:3])}{', …' if len(repeated) > 3 else ''})"
                )
                break
    return found
