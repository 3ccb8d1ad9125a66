"""What one AI client reads of the repository, walked on the disk as the client walks it: the one
reader model that compile's verification, ``gitmem explain``, ``gitmem stats`` and ``gitmem check``
share.

A client is a ``readers.Reader`` (from its record in ``gitmem/tools.py``, with the project's
settings applied: ``delivery.with_settings``). ``read`` starts it in a folder and returns a
``Reading``: every file it loads there, in the order it loads them, each a ``FileRead`` saying how
it was reached (``How``), where it really is (links followed to their targets inside the repository;
a file reached twice, e.g. ``CLAUDE.md -> AGENTS.md`` read as both, counts once), whether git tracks
it (``Tracked``: what a fresh clone, a cloud agent and code review see), what gitmem wrote in it
(the memories in full, those named as index lines) and what the team wrote (hand-written
characters), and the hard size limits it is past. Nothing here decides where a memory goes
(``delivery``); this says what arrives.

Cheap to import (the session hooks may ask it): records and enums, no subprocess until git is
asked.
"""

from __future__ import annotations

import os
import shlex
from collections import Counter
from collections.abc import Callable, Collection, Iterable, Iterator, Mapping, Sequence
from enum import Enum
from functools import cached_property
from itertools import dropwhile
from typing import TYPE_CHECKING, TypeVar

from gitmem import gateway, gitcommand
from gitmem.compile import block, budget
from gitmem.compile.readers import Reader, follows, imported
from gitmem.errors import GitmemError
from gitmem.records import Record
from gitmem.scan.lazyre import lazy
from gitmem.tools import MEASURES, TARGET_BY_NAME, Limit, Target

if TYPE_CHECKING:
    from pathlib import Path

    from gitmem.project import Project

__all__ = ["Disk", "FileRead", "GitView", "How", "Reading", "Tracked", "chain", "files_of", "read"]


class Tracked(Enum):
    """What git knows of a file a client reads (a link: the worse of the link and the file it
    leads to)."""

    TRACKED = "tracked"  # in git's index: a fresh clone, a cloud agent and code review read it too
    NEW = "untracked"  # neither tracked nor ignored: read here until it is committed (`git add`)
    IGNORED = "ignored"  # git ignores it: never committed, read on this machine only
    OUTSIDE = "outside"  # a link out of the repository: gitmem neither follows nor reads it


class How(Enum):
    """How the client reached a file."""

    ROOT = "root"  # a target's root file, at the start
    NESTED = "nested"  # a target's per-folder file, in a folder on the way to the start folder
    PRIVATE = (
        "private"  # the client's own file no other client reads (Claude Code's .claude/CLAUDE.md)
    )
    # read because the file the client prefers is missing there (AGENTS.md without CLAUDE.md)
    FALLBACK = "fallback"
    # named by the project's settings (Gemini CLI's context.fileName), at the root only
    SETTING = "setting"
    IMPORT = "import"  # through an ``@FILE`` of a file it read (``readers.imported``)
    RULES = "rules"  # a file of its own target's rules folder whose frontmatter loads it always
    TOUCHED = "touched"  # a file of a folder it loads once it touches a file there (``touches``)


class FileRead(Record):
    """One file a client loads, as it is on the disk."""

    path: str  # as the client names it, relative to the repository root
    real: str  # where it really is (``path`` unless a link leads elsewhere in the repository)
    target: str  # the gitmem target whose file name it is (for an import: the imported file's)
    how: How
    tracked: Tracked
    chars: int  # of gitmem's block (or whole file)
    hand_chars: int  # the rest: what the team wrote, which the client reads too
    ids: tuple[str, ...] = ()  # memories in full
    listed: tuple[str, ...] = ()  # memories named by a line of the index of left-out ones
    via: str = ""  # the file whose ``@`` line imported it
    over: tuple[
        Limit, ...
    ] = ()  # hard size limits it is past (for ``chain_bytes``: with the files above it)
    size: int = 0  # its bytes
    alone: tuple[Limit, ...] = ()  # of ``over``, the ones its hand-written text alone is past
    # of the files a ``chain_bytes`` limit counts with it, the one with the most hand-written text
    heaviest: str = ""

    @property
    def tokens(self) -> int:
        return budget.tokens(self.chars)

    @property
    def hand_tokens(self) -> int:
        return budget.tokens(self.hand_chars)

    @property
    def linked(self) -> bool:
        return self.real != self.path


class Reading(Record):
    """Everything one client loads in a session started in ``folder``."""

    client: Reader
    folder: str
    files: tuple[FileRead, ...]
    touching: str = ""  # the folder of a file it has touched (``read``'s ``touching``)

    def arrivals(self) -> dict[str, int]:
        """How many times each memory reaches the client (in full, or as an index line)."""
        counts: Counter[str] = Counter()
        for item in self.files:
            counts.update(item.ids)
            counts.update(item.listed)
        return counts

    @property
    def tokens(self) -> int:
        """gitmem's tokens in what it loads (each file's count summed, as ``FileRead.tokens``)."""
        return sum(item.tokens for item in self.files)

    @property
    def hand_tokens(self) -> int:
        return sum(item.hand_tokens for item in self.files)


class _Text(Record):
    real: str
    tracked: Tracked
    text: str | None  # None: missing, unreadable or outside
    size: int


class GitView:
    """What git says of the work tree, asked once however many steps ask (compile's, and the
    verification after it writes): the files it tracks and those it would add (untracked, not
    ignored), from one ``git ls-files``. Whether another path is ignored (not written yet, or past a
    link) is asked of ``git check-ignore``, all of one question's paths at once, each once.
    """

    def __init__(self, root: Path) -> None:
        self.root = root
        self._asked: set[str] = set()  # of ``git check-ignore``
        self._ignored: set[str] = set()
        self._fixes: dict[str, str] = {}

    @cached_property
    def files(self) -> tuple[frozenset[str], frozenset[str]]:
        """The files git lists (tracked, or untracked and not ignored), and those it tracks;
        ``GitFailed`` outside a repository."""
        out = gitcommand.git(
            self.root, "ls-files", "-z", "-t", "--cached", "--others", "--exclude-standard"
        )
        entries = out.decode("utf-8", "surrogateescape").split("\0")[:-1]  # each ends with NUL
        listed = frozenset(entry[2:] for entry in entries)
        return listed, listed - {entry[2:] for entry in entries if entry[:1] == "?"}

    def named(self, names: Collection[str]) -> list[str]:
        """The files git lists called one of ``names`` (``AGENTS.md``, ``.claude/CLAUDE.md``), at
        the root or in a folder, sorted; git is not asked for none."""
        if not names:
            return []
        listed, _ = self.files
        ends = tuple(f"/{name}" for name in names)
        return sorted(listed.intersection(names).union(filter(lambda p: p.endswith(ends), listed)))

    def ignored(self, paths: Iterable[str]) -> list[str]:
        """Those of ``paths`` git ignores and does not track (never committed), sorted."""
        asked = set(paths) - {""}
        listed, _ = self.files
        unknown = asked - listed - self._asked
        if unknown:
            self._asked |= unknown
            self._ignored.update(gitcommand.ignored(self.root, sorted(unknown)))
        return sorted(asked & self._ignored)

    def ignored_fix(self, path: str) -> str:
        """How to let git track ``path``, which it ignores: lines for the end of the .gitignore
        whose pattern ignores it (the root's, for git's own exclude file or the user's). Git never
        looks inside a folder it ignores, so a `!` line cannot bring back a file in one (`.claude/`
        ignored: `!.claude/CLAUDE.md` changes nothing); the lines let in each folder from the
        outermost one git ignores down, keep out the rest of what it holds, then let in the file."""
        return _once(self._fixes, path, lambda: self._fix(path))

    def _fix(self, path: str) -> str:
        folders = [path[: i + 1] for i, char in enumerate(path) if char == "/"]  # a/b/c: a/, a/b/
        sources = gitcommand.ignore_sources(self.root, [*folders, path])
        down = list(dropwhile(lambda name: name not in sources, folders))  # outermost ignored on
        asked = down[0] if down else path
        base = sources.get(asked, "").removesuffix(".gitignore")  # web/ for web/.gitignore
        cut = len(base) if path.startswith(base) else 0  # else the root's, after git's own files
        lines = [f"`!/{_literal(name[cut:])}`, `/{_literal(name[cut:])}*`" for name in down]
        last = f"`!/{_literal(path[cut:])}`"
        fix = f"add {_listed([*lines, last])} at the end of {path[:cut]}.gitignore"
        if down:
            fix = (
                f"git never looks inside {asked}, which it ignores: {fix}, which keeps the rest of "
                f"{asked} ignored"
            )
        return (
            f"{fix} (or remove the pattern that ignores {asked}: "
            f"`git check-ignore -v {shlex.quote(asked)}` names it)"
        )


_GLOB_RE = lazy(r"[\\*?\[]| $")  # what a .gitignore line reads as a pattern, and a last space


def _literal(path: str) -> str:
    """``path`` as a .gitignore line names it, and nothing else: ``docs \\[v2]/``."""
    return _GLOB_RE.sub(lambda found: "\\" + found[0], path)


def _listed(items: Sequence[str]) -> str:
    """``a``, ``a and b``, ``a, b and c``."""
    return " and ".join(filter(None, (", ".join(items[:-1]), items[-1])))


class Disk:
    """The repository's files as clients read them, each read once, and git's view of them
    (``git``: asked once, shared with the compile that wrote them)."""

    def __init__(self, project: Project, git: GitView | None = None) -> None:
        self.project = project
        self.git = git or GitView(project.root)
        self._root = os.path.realpath(project.root)
        self._texts: dict[str, _Text] = {}
        self._names: dict[str, list[str]] = {}
        self._arriving: dict[str, frozenset[str]] = {}
        self._exists: dict[str, bool] = {}
        self._parsed: dict[str, tuple[int, int, tuple[str, ...], tuple[str, ...]]] = {}

    def exists(self, path: str) -> bool:
        return _once(self._exists, path, lambda: (self.project.root / path).is_file())

    def get(self, path: str) -> _Text:
        return _once(self._texts, path, lambda: self._load(path))

    def _load(self, path: str) -> _Text:
        full = self.project.root / path
        try:
            real_path = os.fspath(gateway.resolve(self.project, full, path))
            real = os.path.relpath(real_path, self._root).replace(os.sep, "/")
        except (gateway.OutsideRoot, ValueError):
            return _Text(path, Tracked.OUTSIDE, None, 0)
        if not os.path.isfile(real_path):
            return _Text(real, Tracked.NEW, None, 0)
        try:
            raw = gateway.read_bytes(self.project, full, limit=gateway.RULES_LIMIT, display=path)
        except (OSError, GitmemError):
            return _Text(real, self.tracked(path, real), None, 0)
        return _Text(real, self.tracked(path, real), raw.decode("utf-8", "replace"), len(raw))

    def names(self, folder: str) -> list[str]:
        """The names in ``folder``, sorted (none when it is not one), listed once."""
        return _once(self._names, folder, lambda: _sorted_names(self.project.root / folder))

    def arriving(self, item: FileRead) -> frozenset[str]:
        """The memories ``item`` brings (in full, or as index lines), made once a file."""
        return _once(self._arriving, item.real, lambda: frozenset((*item.ids, *item.listed)))

    def contents(self, path: str, text: str) -> tuple[int, int, tuple[str, ...], tuple[str, ...]]:
        """``_contents`` of a file's text, parsed once however many readings load it."""
        return _once(self._parsed, path, lambda: _contents(text))

    def tracked(self, *paths: str) -> Tracked:
        """The worst state of ``paths`` (a link and the file it leads to)."""
        try:
            untracked = set(paths) - self.git.files[1]
            # each asked alone: git refuses a whole question for one path past a link
            ignored = any(self.git.ignored([path]) for path in untracked)
        except (GitmemError, OSError):  # not a repository: nothing is tracked, nothing ignored
            untracked, ignored = set(paths), False
        if ignored:
            return Tracked.IGNORED
        return Tracked.NEW if untracked else Tracked.TRACKED


_K = TypeVar("_K")
_V = TypeVar("_V")


def _once(known: dict[_K, _V], key: _K, make: Callable[[], _V]) -> _V:
    """``known[key]``, made (by ``make``) the first time it is asked: ``Disk`` reads each once."""
    if key not in known:
        known[key] = make()
    return known[key]


def _sorted_names(folder: Path) -> list[str]:
    try:
        return sorted(gateway.names_in(folder))
    except OSError:  # unreadable
        return []


def chain(folder: str) -> list[str]:
    """The folders from the root down to ``folder`` ("" is the root)."""
    parts = [part for part in folder.split("/") if part]
    return ["", *("/".join(parts[: depth + 1]) for depth in range(len(parts)))]


def _in(folder: str, name: str) -> str:
    return f"{folder}/{name}" if folder else name


def _file_of(target: Target, folder: str) -> str | None:
    """The file of ``target`` a client reads in ``folder``: its root file at the root, its
    per-folder file below."""
    if not folder:
        return target.root_file
    return _in(folder, target.dir_file) if target.dir_file else None


def read(
    disk: Disk, reader: Reader, folder: str = "", touching: str = "", globbed: Sequence[str] = ()
) -> Reading:
    """What ``reader`` loads in a session started in ``folder`` ("" for the root), read from
    ``disk``; with ``touching`` (a folder), once it has touched a file there too: the files of the
    folders down to it whose path in their folder is one of ``Reader.touches`` (measured: the
    Copilot CLI started at the root loads web/.claude/CLAUDE.md then, which it does not read at the
    start), and ``globbed``, its own target's path-scoped files whose globs match that file."""
    folders = chain(folder) if reader.chain else [folder]
    walk = _Walk(disk, reader, folder)
    own = TARGET_BY_NAME.get(reader.own)
    if own is not None and own.scoped_dir and own.always_frontmatter is not None:
        for path in _rules_files(disk, own, own.scoped_dir, own.always_frontmatter):
            walk.add(path, own.name, How.RULES)
    for where in folders:
        _in_folder(walk, reader, where, folder)
    for where in chain(touching)[1:]:
        for name in reader.touches:
            walk.add(_in(where, name), _target_named(_in(where, name)), How.TOUCHED)
    for path in globbed:
        walk.add(path, reader.own, How.TOUCHED)
    return Reading(reader, folder, tuple(walk.limited()), touching)


def _in_folder(walk: _Walk, reader: Reader, where: str, folder: str) -> None:
    """The files ``reader`` loads in ``where``, one of the folders on the way to ``folder`` (its
    start), in the order it loads them: each kind of file in ``_LOADS``."""
    for loads in _LOADS:
        for path, target, how in loads(walk.disk, reader, where, folder):
            walk.add(path, target, how)


_Loads = Iterator[tuple[str, str, How]]


def _named(disk: Disk, reader: Reader, where: str, folder: str) -> _Loads:
    """The files of the targets it reads (a whole-file target's at the root only), but those the
    project's settings name (``_from_settings``)."""
    for name in reader.reads:
        target = TARGET_BY_NAME.get(name)
        if target is None or name in reader.at_root or (where and target.root_whole):
            continue
        path = _file_of(target, where)
        if path is not None:
            yield path, name, How.NESTED if where else How.ROOT


def _fallbacks(disk: Disk, reader: Reader, where: str, folder: str) -> _Loads:
    """Another target's file, only where the root file it prefers is missing (measured: Claude Code
    reads no web/AGENTS.md then)."""
    for name, unless in reader.fallbacks:
        target, other = TARGET_BY_NAME.get(name), TARGET_BY_NAME.get(unless)
        if target is None or other is None or name in reader.reads or _prefers(disk, other, reader):
            continue
        path = _file_of(target, where)
        if path is not None:
            yield path, name, How.FALLBACK


def _private(disk: Disk, reader: Reader, where: str, folder: str) -> _Loads:
    """The client's own file no other client reads (at the root, or in each folder of a chain)."""
    if reader.private and (not where or reader.chain):
        yield _in(where, reader.private), reader.own, How.PRIVATE


def _from_settings(disk: Disk, reader: Reader, where: str, folder: str) -> _Loads:
    """The root files the project's settings name, for a session started at the root only (started
    in a subfolder, it reads no settings of the root's: measured, Gemini CLI)."""
    if where or folder:
        return
    for name in reader.at_root:
        target = TARGET_BY_NAME.get(name)
        if target is not None:
            yield target.root_file, name, How.SETTING


_LOADS = (_named, _fallbacks, _private, _from_settings)


def _prefers(disk: Disk, other: Target, reader: Reader) -> bool:
    """Whether the file a fallback gives way to is there: ``other``'s root file, or the client's
    private one."""
    return disk.exists(other.root_file) or bool(reader.private and disk.exists(reader.private))


def _rules_files(disk: Disk, target: Target, rules: str, always: tuple[str, ...]) -> list[str]:
    """The files of ``target``'s rules folder (``rules``, at the root, two levels deep) that its
    client loads at every start: their frontmatter has the target's always-on lines (``always``),
    or, without any, none of its path-scoping key (Claude Code: no ``paths``).
    """
    key = target.scoped_frontmatter[0].split(":", 1)[0] + ":" if target.scoped_frontmatter else ""
    out = []
    for folder in (rules, *(f"{rules}/{name}" for name in disk.names(rules))):
        for name in disk.names(folder):
            path = f"{folder}/{name}"
            if not name.endswith(target.scoped_suffix) or not disk.exists(path):
                continue
            head = _frontmatter(disk.get(path).text or "")
            if all(line in head for line in always) if always else key not in head:
                out.append(path)
    return out


def _frontmatter(text: str) -> str:
    """The frontmatter of a file (without its --- lines), "" when it has none; its keys at the
    start of lines."""
    if not text.startswith("---"):
        return ""
    end = text.find("\n---", 3)
    return "\n".join(line.strip() for line in text[3 : end if end > 0 else 0].splitlines())


def files_of(disk: Disk, paths: Iterable[str], target: str) -> list[FileRead]:
    """The files ``paths`` of ``target`` as they are on the disk, each real file once (``gitmem
    stats``)."""
    walk = _Walk(disk, None)
    for path in paths:
        walk.add(path, target, How.NESTED if "/" in path else How.ROOT)
    return list(walk.limited())


class _Walk:
    """The files one reading has loaded so far, each real file once (for a client that reads its
    imports apart, ``Reader.imports_apart``: once among those it reads itself, once among those
    imported; for one that reads a file under each of its names, ``Reader.links_apart``: each name
    it reads itself once)."""

    def __init__(self, disk: Disk, reader: Reader | None, folder: str = "") -> None:
        self.disk = disk
        self.folder = folder
        self.reader = reader
        self.files: list[FileRead] = []
        self.read: set[str] = set()
        self.imported = self.read if reader is None or not reader.imports_apart else set()
        # each name once (a client that follows no imports: Codex, opencode), else each real file
        self.by_name = reader is not None and reader.links_apart
        self.texts: dict[str, str] = {}

    def add(self, path: str, target: str, how: How, via: str = "", depth: int = 0) -> None:
        found = self.disk.get(path)
        seen = self.imported if how is How.IMPORT else self.read
        key = path if self.by_name else found.real
        if key in seen:
            if seen is not self.imported and found.text is not None:  # read already, imports apart
                self._follow(path, target, how, found.text, depth)  # (the Copilot CLI: measured)
            return
        if found.tracked is Tracked.OUTSIDE:  # its real path is its own
            seen.add(path)
            self.files.append(FileRead(path, path, target, how, Tracked.OUTSIDE, 0, 0, via=via))
            return
        if found.text is None:
            return
        tracked = found.tracked  # of the path and the file it leads to (Disk._load)
        if self.reader is not None and self.reader.tracked_only and tracked is not Tracked.TRACKED:
            return  # it reads the tree git tracks (code review on GitHub): this file is not there
        seen.add(key)
        self.texts[path] = found.text
        chars, hand, ids, listed = self.disk.contents(path, found.text)
        item = FileRead(
            path, found.real, target, how, tracked, chars, hand, ids, listed, via, (), found.size
        )
        self.files.append(item)
        self._follow(path, target, how, found.text, depth)

    def _follow(self, via: str, target: str, how: How, text: str, depth: int) -> None:
        """Load, right after the file ``via`` (``target``'s, reached ``how``), the files its
        ``@FILE`` imports name, where the client follows them (those of folders above the start one
        only where it does: ``Reader.imports_above``), 3 levels deep.
        """
        reader = self.reader
        if reader is None or depth > 3:
            return
        directory = via.rpartition("/")[0]
        followed = follows(reader, target, directory, self.folder)
        if how is not How.IMPORT and not followed:  # an imported file's imports are followed
            return
        for name in _imported(text):
            path = os.path.normpath(_in(directory, name)).replace(os.sep, "/")
            if path.split("/", 1)[0] != "..":  # not above the repository's root
                self.add(path, _target_named(path), How.IMPORT, via=via, depth=depth + 1)

    def _has(self, limit: Limit) -> bool:
        """Whether the client of this reading is cut by ``limit`` (every client, without one)."""
        return not limit.client or self.reader is None or limit.client == self.reader.name

    def limited(self) -> Iterable[FileRead]:
        """The files, each with the hard limits it is past (``chain_bytes``: summed over a target's
        files of the folders on the way, root first)."""
        chains: dict[str, tuple[int, int]] = {}  # a target's chain so far: bytes, hand-written
        heaviest: dict[str, tuple[int, str]] = {}
        for item in self.files:
            target = TARGET_BY_NAME.get(item.target)
            limits = target.limits if target is not None else ()
            text = self.texts.get(item.path, "")
            written = _hand_written(text, block.found_in(text)) if limits else ""
            over, alone = [], []
            for limit in limits:
                if not limit.hard or not self._has(limit):
                    continue
                measure = MEASURES[limit.measure]
                used, hand = measure.count(text), measure.count(written)
                if measure.chain:
                    size, before = chains.get(item.target, (0, 0))
                    used, hand = size + item.size, before + hand
                    chains[item.target] = used, hand
                    mine = (hand - before, item.real)
                    heaviest[item.target] = max(heaviest.get(item.target, mine), mine)
                if used > limit.value:
                    over.append(limit)
                    alone += [limit] if hand > limit.value else []
            top = heaviest.get(item.target, (0, ""))[1]
            yield item._replace(over=tuple(over), alone=tuple(alone), heaviest=top)


def _hand_written(text: str, found: block.Found | None) -> str:
    """What the team wrote of a file's ``text``, ``found`` its block (``block.found_in``): all of it
    but gitmem's block (all of it where the markers are unreadable; none of a file gitmem writes
    whole)."""
    if found is None:
        return text
    return "" if found.kind == "file-hash" else text.replace(found.block, "", 1)


def _target_named(path: str) -> str:
    """The target whose root or per-folder file ``path`` is by its name ("" when none)."""
    name = path.rsplit("/", 1)[-1]
    for target_name, target in TARGET_BY_NAME.items():
        if path == target.root_file or name == target.dir_file:
            return target_name
    return ""


def _imported(text: str) -> list[str]:
    """The files a text imports (``readers.imported``: the one rule compile's placement uses too),
    not from above the file system's root or the home folder."""
    return [name for name in imported(text) if not name.startswith(("/", "~"))]


def _contents(text: str) -> tuple[int, int, tuple[str, ...], tuple[str, ...]]:
    """gitmem's characters, the hand-written ones, the memories in full and those named as index
    lines."""
    found = block.found_in(text)
    hand = len(_hand_written(text, found))
    if found is None:
        return 0, hand, (), ()
    parsed = block.split(found.body)
    listed = tuple(_index_ids(parsed.footer))
    return len(text) - hand, hand, tuple(entry.id for entry in parsed.entries), listed


def _index_ids(footer: str) -> Iterable[str]:
    """The ids of the index lines (``leftout.line``: ``- TITLE: `ID```) of a block's footer."""
    for line in footer.splitlines():
        if line.startswith("- ") and line.endswith("`") and ": `" in line:
            yield line.rsplit(": `", 1)[1][:-1]


def by_name(readers: Sequence[Reader]) -> Mapping[str, Reader]:
    return {reader.name: reader for reader in readers}
