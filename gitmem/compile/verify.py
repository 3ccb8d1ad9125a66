"""Whether what each client reads on the disk is what compile meant it to get (``compile.reading``):
the check that keeps gitmem from being right by its own account and wrong on the disk.

For every client gitmem serves (its own target configured), started at the root and in every folder
a memory is scoped to (``web/**``: ``web``): every memory for it in scope there arrives exactly
once, in full or as an index line (a memory the budget left out of every file and every index
reaches it on demand only, and is not counted); no memory arrives twice; no file it reads is past a
hard size limit; and every file it relies on for a memory is tracked by git (a file git ignores, or
one not yet committed, is missing in a fresh clone, a cloud agent and code review).
Each difference is one ``Miss``, one line naming the client, the memory or file, and the command
that fixes it.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from enum import Enum
from functools import lru_cache
from typing import TYPE_CHECKING, NamedTuple

from gitmem.compile import delivery, reading
from gitmem.compile.reading import Disk, FileRead, Tracked
from gitmem.compile.scoping import directory_of

if TYPE_CHECKING:
    from gitmem.compile.changes import Report
    from gitmem.compile.plan import TargetPlan
    from gitmem.compile.readers import Reader
    from gitmem.memory.model import Memory
    from gitmem.project import Project


class Fault(Enum):
    MISSING = "does not reach it"
    # it reaches the client started at the root; started in a folder, the client follows none of the
    # root's settings or imports (Claude Code and `@AGENTS.md`, Gemini CLI and `context.fileName`,
    # measured): no placement gives it there without a second copy at the root, so this is the
    # client's limit, said but not failed
    ROOT_ONLY = "reaches it only when started at the root"
    TWICE = "reaches it more than once"
    OVER = "is past a hard size limit"
    IGNORED = "is ignored by git"
    UNTRACKED = "is not committed"
    OUTSIDE = "leads out of the repository"


class Miss(NamedTuple):
    """One difference between what a client should get and what it reads."""

    client: str  # its title
    name: str  # its record's name (``gitmem explain --client``)
    fault: Fault
    subject: str  # a memory id, or a file
    folder: str  # where the session started ("" for the root)
    fix: str  # the command that fixes it

    def line(self) -> str:
        where = f" started in {self.folder}/" if self.folder else ""
        what = f"memory {self.subject}" if self.fault in _OF_MEMORY else self.subject
        return f"{self.client}{where}: {what} {self.fault.value}: {self.fix}"

    @property
    def fails(self) -> bool:
        """Whether `gitmem check` fails on it (a client's own limit is said, not failed)."""
        return self.fault is not Fault.ROOT_ONLY


_OF_MEMORY = (Fault.MISSING, Fault.TWICE, Fault.ROOT_ONLY)


def notes(misses: Iterable[Miss]) -> list[str]:
    """The misses `gitmem check` does not fail on, one line per client and folder
    (``Fault.ROOT_ONLY``)."""
    grouped: dict[tuple[str, str], list[Miss]] = {}
    for miss in misses:
        if not miss.fails:
            grouped.setdefault((miss.client, miss.folder), []).append(miss)
    return [
        f"{client} started in {folder}/: {len(found)} of its memories reach it only when "
        f"started at the root: {found[0].fix}"
        for (client, folder), found in grouped.items()
    ]


def folders_of(memories: Iterable[Memory]) -> list[str]:
    """The root, and every folder a memory is scoped to (a glob's folder part before its first
    wildcard)."""
    out = {""}
    for memory in memories:
        for glob in memory.paths:
            out.add(_folder(glob))
    return sorted(out)


def _folder(glob: str) -> str:
    parts = []
    for part in glob.split("/")[:-1]:
        if any(char in part for char in "*?[{"):
            break
        parts.append(part)
    return "/".join(parts)


@lru_cache(maxsize=4096)
def _scope(paths: tuple[str, ...]) -> tuple[str, ...] | None:
    """The folders a memory of ``paths`` is for when all its globs are directory globs
    (``web/**``); () for the whole project; None for other globs (they reach a client when it
    works on a matching file, not at the start).
    """
    if not paths:
        return ()
    folders = [directory_of(glob) for glob in paths]
    if not all(folders):
        return None
    return tuple(folder for folder in folders if folder)


def _in_scope(scope: tuple[str, ...], folder: str) -> bool:
    return not scope or any(folder == d or folder.startswith(d + "/") for d in scope)


def verify(
    project: Project,
    report: Report,
    memories: Sequence[Memory],
    disk: Disk | None = None,
    committed: bool = True,
) -> list[Miss]:
    """Every difference, for the clients whose target ``report`` compiled, between what they should
    get of ``memories`` (the live ones compiled) and what they read on the disk. Without
    ``committed`` (right after compile wrote, before the files are committed), the readers of what
    git tracks only (code review) are left out.
    """
    disk = disk or Disk(project)
    plans = {plan.target.name: plan for plan in report.plans}
    readers = [r for r in delivery.in_use(plans, report.readers) if committed or not r.tracked_only]
    folders = folders_of(memories)
    misses: list[Miss] = []
    for reader in readers:
        misses += _client(disk, reader, plans, memories, folders)
    return _grouped(misses)


def _client(
    disk: Disk,
    reader: Reader,
    plans: Mapping[str, TargetPlan],
    memories: Sequence[Memory],
    folders: Sequence[str],
) -> list[Miss]:
    """The misses of one client, started at the root and (a client that reads the folders on the
    way) in each of ``folders`` (the root first: ``folders_of``)."""
    on_demand = _on_demand(reader, plans)
    wanted = [
        m for m in memories if m.is_for(reader.own) and not m.on_demand and m.id not in on_demand
    ]
    by_path = _by_path(disk, reader, plans)
    at_root: set[str] = set()
    out: list[Miss] = []
    for folder in folders if reader.chain else [""]:
        seen = reading.read(disk, reader, folder)
        at_root = at_root if folder else set(seen.arrivals())
        out += _session(reader, seen, wanted, by_path, at_root)
    return out


def _on_demand(reader: Reader, plans: Mapping[str, TargetPlan]) -> set[str]:
    """What the budget left out, and out of the index, of the files ``reader`` reads: it reaches
    the client on demand only (recall, the prompt hook)."""
    out: set[str] = set()
    for name in _read_targets(reader, plans):
        plan = plans[name]
        out |= set(plan.omitted) - {i for fp in plan.files.values() for i in fp.listed}
    return out


def _by_path(disk: Disk, reader: Reader, plans: Mapping[str, TargetPlan]) -> set[str]:
    """The memories of the client's own path-scoped files on the disk (they reach it when it works
    on a matching file)."""
    own = plans.get(reader.own)
    globbed = [path for path, fp in own.files.items() if fp.spec.globs] if own is not None else []
    return {i for item in reading.files_of(disk, globbed, reader.own) for i in item.ids}


def _grouped(misses: list[Miss]) -> list[Miss]:
    """One line per memory fault as found, and one per file fault naming every client (and the
    first folder)."""
    out: list[Miss] = []
    files: dict[tuple[Fault, str], int] = {}
    for miss in dict.fromkeys(misses):
        if miss.fault in _OF_MEMORY:
            out.append(miss)
            continue
        at = files.get((miss.fault, miss.subject))
        if at is None:
            files[(miss.fault, miss.subject)] = len(out)
            out.append(miss)
        elif miss.client not in out[at].client.split(", "):
            out[at] = out[at]._replace(client=f"{out[at].client}, {miss.client}", folder="")
        else:
            out[at] = out[at]._replace(folder="")
    return out


def _read_targets(reader: Reader, plans: Mapping[str, TargetPlan]) -> list[str]:
    """The compiled targets whose files ``reader`` may read: its own, those it reads, falls back to
    or imports, and those its own plan says it gets memories from (a root file linked to another's).
    """
    own = plans.get(reader.own)
    names = [reader.own, *reader.reads, *(name for name, _ in reader.fallbacks), *reader.imports]
    names += list(own.delivered) if own is not None else []
    return [name for name in dict.fromkeys(names) if name in plans]


def _session(
    reader: Reader,
    seen: reading.Reading,
    wanted: Sequence[Memory],
    by_path: set[str],
    at_root: set[str],
) -> list[Miss]:
    """The misses of one session; ``by_path``: the memories of the client's own path-scoped files on
    the disk (they reach it when it works on a matching file: a memory of a folder there is not
    missed at the folder's start); ``at_root``: what reaches the client started at the root (missed
    in a folder only, compiling fixes nothing).
    """
    out: list[Miss] = []
    counts = seen.arrivals()
    folder = seen.folder

    def miss(fault: Fault, subject: str, fix: str) -> None:
        out.append(Miss(reader.client, reader.name, fault, subject, folder, fix))

    for memory in wanted:
        scope = _scope(memory.paths)
        count = counts.get(memory.id, 0)
        if (
            scope is not None
            and _in_scope(scope, folder)
            and count == 0
            and memory.id not in by_path
        ):
            root_only = bool(folder) and memory.id in at_root
            fault = Fault.ROOT_ONLY if root_only else Fault.MISSING
            miss(fault, memory.id, _missing_fix(reader, folder, root_only))
    for memory_id, count in counts.items():
        if count > 1:
            paths = ", ".join(
                item.path for item in seen.files if memory_id in (*item.ids, *item.listed)
            )
            miss(
                Fault.TWICE,
                memory_id,
                f"it reads {paths}; see `gitmem explain {folder or '.'} --client {reader.name}`",
            )
    for item in seen.files:
        out += [
            Miss(reader.client, reader.name, f[0], f[1], folder, fix)
            for f, fix in _file_faults(item)
        ]
    return out


def _missing_fix(reader: Reader, folder: str, at_root: bool) -> str:
    explain = f"`gitmem explain {folder or '.'} --client {reader.name}`"
    if folder and at_root:
        return (
            "started here it follows none of the root's settings or imports, and a second copy "
            f"at the root would reach it twice there; start it at the root ({explain})"
        )
    return f"run `gitmem compile` (then {explain})"


def _file_faults(item: FileRead) -> list[tuple[tuple[Fault, str], str]]:
    out = []
    relied = bool(item.ids or item.listed)
    if item.tracked is Tracked.OUTSIDE:
        out.append(
            (
                (Fault.OUTSIDE, item.path),
                "make it a file of the repository (gitmem does not follow it)",
            )
        )
    elif relied and item.tracked is Tracked.IGNORED:
        out.append(((Fault.IGNORED, item.path), f"add `!{item.real}` at the end of .gitignore"))
    elif relied and item.tracked is Tracked.NEW:
        names = " ".join(dict.fromkeys((item.path, item.real)))
        out.append(((Fault.UNTRACKED, item.path), f"commit it: `git add {names}`"))
    for limit in item.over:
        out.append(((Fault.OVER, f"{item.path} ({limit.reason})"), _over_fix(item)))
    return out


def _over_fix(item: FileRead) -> str:
    if item.hand_chars > item.chars:
        return (
            "shorten its hand-written text: `gitmem import --accept --move --left-out "
            f"{item.real}` moves its list rules into memories (headings, prose and code stay)"
        )
    return "lower the target's budget in .memory/config.yaml, then run `gitmem compile`"
