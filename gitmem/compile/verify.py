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

import posixpath
from collections.abc import Callable, Collection, Iterable, Mapping, Sequence
from enum import Enum
from functools import lru_cache
from itertools import combinations
from typing import TYPE_CHECKING

from gitmem import gateway
from gitmem.compile import delivery, reading
from gitmem.compile.changes import linked_document, shorten_fix
from gitmem.compile.readers import READERS
from gitmem.compile.reading import Disk, FileRead, GitView, Tracked
from gitmem.compile.scoping import directory_of
from gitmem.records import Record
from gitmem.tools import MEASURES, TARGET_BY_NAME, Limit

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
    # it reaches the client twice because a hand-written file imports one it reads itself (a
    # CLAUDE.md of `@AGENTS.md`, which the Copilot CLI follows apart: measured): no placement of
    # gitmem's avoids it (the team's own text arrives twice too), so it is said, with the fix, and
    # not failed
    IMPORTED = "reaches it twice, through a hand-written import"
    # it reaches the client twice because the team made one rules file two of the files it reads,
    # through a link (a root AGENTS.md -> web/AGENTS.md, which Codex started in web/ reads under
    # both names: measured): no placement of gitmem's avoids it either
    LINKED = "reaches it twice, through a link"
    OVER = "is past a hard size limit"
    IGNORED = "is ignored by git"
    UNTRACKED = "is not committed"
    OUTSIDE = "leads out of the repository"


class Miss(Record):
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
        """Whether `gitmem check` fails on it (what no placement avoids is said, not failed)."""
        return self.fault not in _NOTED


_OF_MEMORY = (Fault.MISSING, Fault.TWICE, Fault.ROOT_ONLY, Fault.IMPORTED, Fault.LINKED)
_NOTED = {  # the faults said, not failed, and how a note on those of one session reads
    Fault.ROOT_ONLY: "of its memories reach it only when started at the root",
    Fault.IMPORTED: "of its memories reach it twice, through a hand-written import",
    Fault.LINKED: "of its memories reach it twice, through a link",
}


def notes(misses: Iterable[Miss]) -> list[str]:
    """The misses `gitmem check` does not fail on (``_NOTED``), one line per client, folder and
    fault."""
    grouped: dict[tuple[str, str, Fault], list[Miss]] = {}
    for miss in misses:
        if not miss.fails:
            grouped.setdefault((miss.client, miss.folder, miss.fault), []).append(miss)
    return [
        f"{client}{f' started in {folder}/' if folder else ''}: {len(found)} {_NOTED[fault]}: "
        f"{found[0].fix}"
        for (client, folder, fault), found in grouped.items()
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
    return tuple(filter(None, folders))  # each a folder (filter(None) only tells mypy so)


def _in_scope(scope: tuple[str, ...], folder: str) -> bool:
    return not scope or any(f"{folder}/".startswith(f"{d}/") for d in scope)  # d or below it


def verify(
    project: Project,
    report: Report,
    memories: Sequence[Memory],
    committed: bool = True,
) -> list[Miss]:
    """Every difference, for the clients whose target ``report`` compiled, between what they should
    get of ``memories`` (the live ones compiled) and what they read on the disk. Without
    ``committed`` (right after compile wrote, before the files are committed), the readers of what
    git tracks only (code review) are left out.
    """
    disk = Disk(project, report.git)  # the git view compile asked
    plans = {plan.target.name: plan for plan in report.plans}
    readers = [r for r in delivery.in_use(plans, report.readers) if committed or not r.tracked_only]
    scoped = _scoped(memories)
    misses: list[Miss] = []
    for reader in readers:
        misses += _client(disk, reader, plans, scoped, not committed)
    return _grouped(misses)


class _Scope(Record):
    """The memories that reach a client started in one folder (their ids), and every memory by id,
    in order (to name the missing ones in it)."""

    ids: frozenset[str]
    memories: Mapping[str, Memory]


def _scoped(memories: Sequence[Memory]) -> dict[str, _Scope]:
    """For the root and every folder a memory is scoped to (``folders_of``, the root first): the
    memories that reach a client started there (none on demand; their globs all directory globs
    covering the folder, or none)."""
    by_id = {memory.id: memory for memory in memories}
    by_scope: dict[tuple[str, ...], set[str]] = {}
    for memory in memories:
        scope = _scope(memory.paths)
        if scope is not None and not memory.on_demand:
            by_scope.setdefault(scope, set()).add(memory.id)
    return {
        folder: _Scope(frozenset().union(*_covering(by_scope, folder)), by_id)
        for folder in folders_of(memories)
    }


def _covering(by_scope: dict[tuple[str, ...], set[str]], folder: str) -> list[set[str]]:
    return [ids for scope, ids in by_scope.items() if _in_scope(scope, folder)]


def _client(
    disk: Disk,
    reader: Reader,
    plans: Mapping[str, TargetPlan],
    scoped: dict[str, _Scope],
    written: bool = False,
) -> list[Miss]:
    """The misses of one client, started at the root and (a client that reads the folders on the
    way) in each folder of ``scoped``: a memory for it in scope there misses it when no file it
    reads holds it, unless it reaches it on demand only or by a path-scoped file of its own."""
    passed = _on_demand(reader, plans) | _by_path(disk, reader, plans)
    # where compile gives the client no root file of its own: none in its layout, or its own is a
    # link compile does not write through (gotenberg's AGENTS.md -> CONTRIBUTING.md)
    own = plans[reader.own].target.root_file
    link = _link(disk, reader, written) if not own or linked_document(disk.project, own) else ""
    at_root: frozenset[str] = frozenset()
    out: list[Miss] = []
    for folder in scoped if reader.chain else [""]:
        seen = reading.read(disk, reader, folder)
        at_root = at_root if folder else frozenset().union(*map(disk.arriving, seen.files))
        out += _session(reader, seen, scoped[folder], passed, at_root, disk, link)
    nothing = _Scope(frozenset(), {})  # what reaches it there is the root's: only twice is new
    for folder in list(scoped)[1:] if reader.touches else []:
        globbed = delivery.globbed(reader, plans, f"{folder}/file")
        seen = reading.read(disk, reader, "", folder, globbed)
        out += _session(reader, seen, nothing, (), (), disk)
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
    own = plans[reader.own]  # a client in use: its own target is compiled
    globbed = [path for path, fp in own.files.items() if fp.spec.globs]
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
    names = [reader.own, *reader.reads, *(name for name, _ in reader.fallbacks), *reader.imports]
    names += plans[reader.own].delivered  # a client in use: its own target is compiled
    return [name for name in dict.fromkeys(names) if name in plans]


def _session(
    reader: Reader,
    seen: reading.Reading,
    scope: _Scope,
    passed: Collection[str],
    at_root: Collection[str],
    disk: Disk,
    link: str = "",
) -> list[Miss]:
    """The misses of one session: a memory of ``scope`` for the client that no file it reads holds,
    but those ``passed`` (on demand only, or in a path-scoped file of its own); those of
    ``at_root`` (what reaches it started at the root) are missed in a folder only, and compiling
    fixes nothing. Then the memories that arrive twice, and the faults of the files it reads."""
    folder, files = seen.folder, [disk.arriving(item) for item in seen.files]
    most, *others = sorted([*files, passed], key=len, reverse=True)  # the most first: no copy
    absent = scope.ids.difference(most).difference(*others)
    found = (
        [
            _missing(reader, folder, memory_id, memory_id in at_root, link)
            for memory_id, memory in scope.memories.items()
            if memory_id in absent and memory.is_for(reader.own)
        ]
        if absent
        else []
    )
    if _any_twice(seen.files, files):  # then named in the order they arrive
        counts = seen.arrivals()
        found += [
            _twice(reader, seen, memory_id, disk.git)
            for memory_id in counts
            if counts[memory_id] > 1
        ]
    found += [fault for item in seen.files for fault in _file_faults(item, disk.git)]
    return [Miss(reader.client, reader.name, *fault[:2], folder, fault[2]) for fault in found]


def _any_twice(items: Sequence[FileRead], files: Sequence[frozenset[str]]) -> bool:
    """Whether a memory arrives twice: in one file twice, or in two files."""
    once = sum(map(len, files)) == sum(len(item.ids) + len(item.listed) for item in items)
    return not once or not all(a.isdisjoint(b) for a, b in combinations(files, 2))


_Found = tuple[Fault, str, str]  # a fault, its subject (a memory id, or a file), and its fix


def _link(disk: Disk, reader: Reader, written: bool) -> str:
    """Where compile gives the client no file of its own: its own root file is a link to another
    (``.junie/guidelines.md`` to ``AGENTS.md``), or the file only it reads is (pyairtable's
    ``.claude/CLAUDE.md`` to ``AGENTS.md``), or git ignores that file (Claude Code's
    ``.claude/CLAUDE.md``, beside a Copilot CLI that reads any ``CLAUDE.md``). What the hub
    lacks reaches it from none; the fix is letting git track the ignored file, or else a copy for
    the link (not both: where git ignores the private file, compile keeps the client's copy in the
    copy, and a client that reads it too, the Copilot CLI, would get the hub's memories twice:
    ragflow's ``CLAUDE.md -> AGENTS.md`` beside ``.claude/`` ignored); "" where neither holds. Right
    after compile ``written`` them, that is the cause; later, compiling may be all it takes."""
    root = TARGET_BY_NAME[reader.own].root_file
    real = disk.get(root).real if root and disk.exists(root) else root
    private = disk.git.ignored([reader.private])  # its own file, which git ignores
    own = disk.get(reader.private).real if disk.exists(reader.private) else reader.private
    if own != reader.private:  # that file is another through a link: pyairtable's
        root, real = reader.private, own  # .claude/CLAUDE.md -> ../AGENTS.md
    if real == root and not private:
        return ""
    track = "".join(f"let git track {path}: {disk.git.ignored_fix(path)}" for path in private)
    linked = "" if real == root else f"{root} is a link to {real}, and "
    fix = track or f"make {root} a copy (`rm {root} && cp {real} {root}`)"
    clause = f"{linked}no file of its own holds it: {fix}"
    return clause if written else f"if `gitmem compile` does not bring it, {clause}"


def _missing(reader: Reader, folder: str, memory_id: str, at_root: bool, link: str) -> _Found:
    explain = f"`gitmem explain {folder or '.'} --client {reader.name}`"
    if folder and at_root:
        return (
            Fault.ROOT_ONLY,
            memory_id,
            "started here it follows none of the root's settings or imports, and a second copy "
            f"at the root would reach it twice there; start it at the root ({explain})",
        )
    fix = f"{link}, then run `gitmem compile`" if link else "run `gitmem compile`"
    return Fault.MISSING, memory_id, f"{fix} (then {explain})"


def _twice(reader: Reader, seen: reading.Reading, memory_id: str, git: GitView) -> _Found:
    """The files that bring ``memory_id`` more than once. Where they are one file read under two
    names (a link the team made, ``Reader.links_apart``), the fix is the team's. Where they are one
    file, read and imported too (compile writes each memory once, and never such an import: the
    team wrote it), the fix is the team's too: a link reads once what an import reads again. Where
    one is another client's root file, which keeps that client's copy because git ignores the file
    only it reads (rustfs' ``CLAUDE.md`` beside an ignored ``.claude/``, read by the Copilot CLI
    too), the fix is to let git track that file."""
    items = [item for item in seen.files if memory_id in (*item.ids, *item.listed)]
    said, explain = _reads(reader, seen, items)
    via = next((item for item in items if item.via), None)
    one = len({item.real for item in items}) == 1
    if via is None and one:  # one file, under two names
        return _through_link(items, said, memory_id, explain)
    if via is None:  # copies compile placed
        fix = _copies_fix([item.path for item in items], git)
        return Fault.TWICE, memory_id, f"{said}{fix}; see {explain}"
    # the link is named from its own folder (`ln -sf AGENTS.md web/CLAUDE.md`)
    target = posixpath.relpath(via.path, posixpath.dirname(via.via) or ".")
    fix = (
        f"{said}: make {via.via} a link to {via.path} instead of importing it "
        f"(`ln -sf {target} {via.via}`: a file read under two names arrives once), or drop the "
        f"import; see {explain}"
    )
    if not one:
        # a copy beside the import: compile writes none beside an import of the hub's file of the
        # importing file's own folder (``Layout.imported``), so this one is an older compile's
        # (gone once compiled again) or beside an import of another folder's file; it fails
        return Fault.TWICE, memory_id, fix
    return Fault.IMPORTED, memory_id, fix


def _reads(reader: Reader, seen: reading.Reading, items: Sequence[FileRead]) -> tuple[str, str]:
    """What a session reads that brings a memory more than once (``items``), and the command that
    shows it."""
    paths = ", ".join(
        item.path + (f" (imported by {item.via})" if item.via else "") for item in items
    )
    when = f" once it touches a file in {seen.touching}/" if seen.touching else ""
    explain = f"`gitmem explain {seen.touching or seen.folder or '.'} --client {reader.name}`"
    return f"it reads {paths}{when}", explain


def _through_link(items: Sequence[FileRead], said: str, memory_id: str, explain: str) -> _Found:
    """A memory read twice in one file under two names, a link's and its own (``items``): the fix
    is to make the link a file of its own, or to drop it."""
    link = next(item for item in items if item.path != item.real)
    copy = f"`rm {link.path} && cp {link.real} {link.path}`"
    fix = f"{said}, one file through a link: make {link.path} a file of its own ({copy}), or drop"
    return Fault.LINKED, memory_id, f"{fix} the link; see {explain}"


def _copies_fix(paths: Sequence[str], git: GitView) -> str:
    """The fix for two copies compile placed (``paths``): where one is a client's root file that
    keeps its copy because git ignores the private file compile would move it to
    (``.claude/CLAUDE.md``), letting git track that file; else (``_PLACED``) compiling, which
    removes an older layout's copy, and then reporting it, gitmem's own mistake."""
    for owner in READERS:
        root = TARGET_BY_NAME[owner.own].root_file
        if owner.private and root in paths and git.ignored([owner.private]):
            return (
                f": {root} keeps {owner.client}'s copy because git ignores {owner.private}, the "
                f"file only it reads: let git track {owner.private}: "
                f"{git.ignored_fix(owner.private)}, then run `gitmem compile`"
            )
    return _PLACED


_PLACED = (
    ": if `gitmem compile` does not remove one (an older layout's copy), gitmem placed both, "
    "which it should not: please report it, with what the command below prints"
)


# What git's view of a file a client reads makes of it: the fault, its fix, and whether it is one
# only where the client relies on the file for a memory.
_TRACKED: dict[Tracked, tuple[Fault, Callable[[FileRead, GitView], str], bool]] = {
    Tracked.OUTSIDE: (
        Fault.OUTSIDE,
        lambda item, git: f"gitmem does not follow it: {gateway.OUTSIDE_FIX}",
        False,
    ),
    Tracked.IGNORED: (
        Fault.IGNORED,
        lambda item, git: git.ignored_fix(item.real),
        True,
    ),
    Tracked.NEW: (
        Fault.UNTRACKED,
        lambda item, git: f"commit it: `git add {' '.join(dict.fromkeys((item.path, item.real)))}`",
        True,
    ),
}


def _file_faults(item: FileRead, git: GitView) -> list[_Found]:
    out = [
        (Fault.OVER, f"{item.path} ({limit.reason})", _over_fix(item, limit)) for limit in item.over
    ]
    known = _TRACKED.get(item.tracked)
    if known is not None and (item.ids or item.listed or not known[2]):
        out.insert(0, (known[0], item.path, known[1](item, git)))
    return out


def _over_fix(item: FileRead, limit: Limit) -> str:
    """What mends a file past a hard size limit: where the hand-written text alone is past it (a
    chain's, with the files above: shortened where most of it is), shortening it; else compiling,
    which fits gitmem's block beside it (``budget.fitted``: a block an older compile wrote)."""
    if limit not in item.alone:
        return "run `gitmem compile`, which fits gitmem's block beside the hand-written text"
    return shorten_fix(item.heaviest if MEASURES[limit.measure].chain else item.real)
