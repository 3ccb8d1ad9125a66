"""The one gateway to the file system: every file gitmem reads or writes goes through this module.

A repository is untrusted content: a pull request can commit a symbolic link anywhere, to a file or
to a folder (``.claude -> ~/.claude``, ``GEMINI.md -> /etc/passwd``, ``.memory/config.yaml ->
/dev/zero``), and a memory can name any glob (``paths: [.git/hooks/**]``). So no module of gitmem
opens, writes, renames or removes a file itself (``tests/test_gateway.py`` parses the package and
fails on any that does); each asks this module, which:

- **resolves** the path, every part of it (``os.path.realpath``: each folder on the way, then the
  file itself, links followed as the system would follow them), and requires the result to be inside
  the area it is given: the repository's root (and gitmem's cache, which a worktree keeps in the
  main clone's git folder), or, for the user's scope (``--user``), their home, config folder,
  personal store and cache. A write goes to the resolved file: a user's own dotfile link (stow,
  chezmoi, home-manager) is written through and kept, never replaced by a file;
- **refuses ``.git/``**: no part of the resolved path may be named ``.git``, except gitmem's own
  cache (``.git/gitmem/``); the two files gitmem legitimately edits there (``info/exclude`` and a
  hook script) have their own entry points (``read_git_file``, ``write_git_file``), so no other
  caller can reach them by a glob;
- **bounds every read**: a file is opened without blocking, must be a regular file (not
  ``/dev/zero``, a FIFO or a folder), and is read only up to its limit, which the error names;
- **writes atomically**: a temporary file in the same folder, fsync, then rename (or link, never
  clobbering).

A refusal is one line naming the path as the user would type it (never a link's target: that is
repository content and may be anything), with exit code 1 ("a check found something"): the content
is at fault, exactly as a secret in a memory is, and ``gitmem check`` in CI must fail on it.

The temporary file is named ``.NAME.XXXXXXXX.gitmem.tmp``: a write killed half-way (``kill -9``,
power loss) can leave one behind, so ``gitmem init`` has git ignore the pattern (``TEMP_PATTERN``)
and the store removes stale ones.

This module is on the pre-commit and prompt hooks' paths: at import time it needs only what those
hooks load anyway (``os``, ``stat``, ``pathlib``, ``contextlib``, gitmem's errors and project);
``tempfile``, ``shutil`` and ``importlib.resources`` are imported only when they are used. There is
a window between the check and the use (a link created meanwhile): closing it needs ``openat`` with
``O_NOFOLLOW`` on every part; the threat here is committed content, which a check just before the
use stops.
"""

from __future__ import annotations

import contextlib
import errno
import os
import stat
import time
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path
from typing import IO

from gitmem.errors import CannotRun, CheckFailed, Problem
from gitmem.project import Project, UserScope, xdg_home
from gitmem.records import Record

REASON = "resolves outside the repository (through a symbolic link); gitmem does not follow it"
LOOP_REASON = "a loop of symbolic links; gitmem does not follow it"
# What mends a file a client reads, or compile writes, that leads out (``REASON``): said by compile
# and by `gitmem check`, one phrase
OUTSIDE_FIX = (
    "replace the link that leads out (the file, or a folder on its way) with a copy of what it "
    "holds, then run `gitmem compile`"
)
# ... and a file in a loop of links (``LOOP_REASON``), which holds nothing to copy, or inside a .git
# folder through a link (``GIT_REASON``), whose copy would be git's own data
OWN_FIX = (
    "replace the link on its way (the file, or a folder) with a file or folder of its own, then "
    "run `gitmem compile`"
)
USER_REASON = (
    "resolves outside your home and config folders (through a symbolic link); gitmem does not "
    "follow it"
)
GIT_REASON = (
    "is inside a .git folder, which gitmem neither reads nor writes (only its own cache, "
    ".git/gitmem/)"
)

KIB = 1024
MIB = 1024 * KIB
READ_LIMIT = 4 * MIB  # any file gitmem reads, unless its caller names a smaller limit
CONFIG_LIMIT = 1 * MIB  # .memory/config.yaml, the clients' settings, hook scripts, .gitattributes
RULES_LIMIT = (
    4 * MIB
)  # a rules file (AGENTS.md, CLAUDE.md...): the largest any client loads is far smaller
SCAN_LIMIT = 64 * MIB  # a file `gitmem scan PATH` is asked to scan, or a memory cites as evidence
CACHE_LIMIT = (
    256 * MIB
)  # gitmem's own caches under .git/gitmem/ (a store of 10,000 memories is a few MiB)

TEMP_SUFFIX = ".gitmem.tmp"
TEMP_PATTERN = ".*" + TEMP_SUFFIX  # as a .gitignore line
STALE_SECONDS = 600  # a temporary file this old belongs to no running write

HOOK_TYPES = (
    "pre-commit", "pre-push", "commit-msg", "prepare-commit-msg", "post-commit", "post-merge",
    "post-rewrite",
)  # fmt: skip

Where = (
    Project | Path
)  # a project (or the user's scope), or a bare root folder (the merge driver, agent hooks)


class OutsideRoot(CheckFailed):
    """A path resolves outside the folders gitmem may use, or into a .git folder (exit code 1: the
    content is at fault)."""

    def __init__(self, display: str, reason: str = REASON) -> None:
        self.display = display
        self.reason = reason
        super().__init__([Problem(display, 1, 1, "path", reason)])


class TooLarge(CheckFailed):
    """A file is larger than the limit for what it is; nothing of it is kept."""

    def __init__(self, display: str, limit: int) -> None:
        self.display = display
        self.limit = limit
        super().__init__(
            [
                Problem(
                    display,
                    1,
                    1,
                    "file",
                    f"larger than {_size(limit)}, the limit; gitmem does not read it",
                )
            ]
        )


class NotRegular(CheckFailed):
    """A path names a device, FIFO, socket or folder where a file is expected."""

    def __init__(self, display: str) -> None:
        self.display = display
        super().__init__(
            [Problem(display, 1, 1, "file", "not a regular file; gitmem does not read it")]
        )


def _size(limit: int) -> str:
    if limit % MIB == 0:
        return f"{limit // MIB} MiB"
    if limit % KIB == 0:
        return f"{limit // KIB} KiB"
    return f"{limit} bytes"


# -- the policy: where a path may lead -------------------------------------------------------------


def _real(path: Path | str) -> str:
    return os.path.realpath(os.fspath(path))


def real(path: Path | str) -> Path:
    """``path`` absolute, every link in it followed, as ``Path.resolve`` gives it, but never an
    error for a loop of links (Python 3.11's ``resolve`` raises RuntimeError there, and a committed
    loop stopped every command that met it): the loop's link is left as it is, for what reads or
    writes it to refuse. The one way gitmem resolves a path (tests/test_gateway_attacks.py)."""
    return Path(_real(path))


def _under(real: str, base: str) -> bool:
    return real == base or real.startswith(base.rstrip(os.sep) + os.sep)


def is_inside(path: Path | str, roots: Iterable[Path | str]) -> bool:
    """Whether ``path``, every link in it followed, is one of ``roots`` (also resolved) or under
    one."""
    real = _real(path)
    return any(_under(real, _real(root)) for root in roots)


def roots_of(where: Where) -> tuple[Path, ...]:
    """The folders a project (or the user's scope) may read and write: the repository's root and
    gitmem's cache, or for the user's scope their home, config folder (``$XDG_CONFIG_HOME``),
    personal store and gitmem's cache.
    """
    if isinstance(where, UserScope):
        config = xdg_home("XDG_CONFIG_HOME", where.root / ".config")
        return (where.root, config, where.store, where.git_dir)
    if isinstance(where, Project):
        return (where.root, where.cache_dir)
    return (where,)


def _cache_of(where: Where) -> Path:
    return where.cache_dir if isinstance(where, Project) else where / ".git" / "gitmem"


def reason_for(where: Where) -> str:
    return USER_REASON if isinstance(where, UserScope) else REASON


def _display(where: Where, path: Path | str) -> str:
    if isinstance(where, Project):
        return where.display(Path(path))
    try:
        return Path(os.path.normpath(path)).relative_to(where).as_posix()
    except ValueError:
        return os.fspath(path)


class _Area(Record):
    """The folders of a ``Where``, resolved once a process: gitmem's cache, the roots, and the
    refusal's reason."""

    cache: str
    roots: tuple[str, ...]
    reason: str


_AREAS: dict[tuple[Path, ...], _Area] = {}
_LAST: dict[str, tuple[Where, _Area]] = {}  # the last ``Where`` asked about, and its area
# Folders found inside an area, by (area, folder as given): the identity (device, inode) of the
# folder the path led to then, and its resolved path.
_FOLDERS: dict[tuple[_Area, str], tuple[int, int, str]] = {}


def _area(where: Where) -> _Area:
    last: tuple[Where, _Area] | None = _LAST.get("where")
    if last is not None and last[0] is where and not isinstance(where, UserScope):
        return last[1]  # (a user's roots follow the environment: asked again each time)
    roots = roots_of(where)
    key = (_cache_of(where), *roots)
    area = _AREAS.get(key)
    if area is None:
        area = _Area(_real(key[0]), tuple(_real(root) for root in roots), reason_for(where))
        _AREAS[key] = area
    _LAST["where"] = (where, area)
    return area


def _judge(area: _Area, real: str) -> str | None:
    """Why the resolved path ``real`` is refused in ``area``, or None."""
    if _under(real, area.cache):
        return None
    for base in area.roots:
        if _under(real, base):
            parts = real[len(base) :].split(os.sep)
            if any(part.casefold() == ".git" for part in parts):
                return GIT_REASON
            return None
    return area.reason


def _folder(area: _Area, folder: str) -> str | None:
    """The resolved path of ``folder`` when it is inside ``area``, from one ``stat`` once it was
    found so: the folder the path leads to now must be the very one (device and inode) that was
    resolved and judged then; else None."""
    try:
        info = os.stat(folder)
    except OSError:
        return None
    known = _FOLDERS.get((area, folder))
    if known is not None and known[:2] == (info.st_dev, info.st_ino):
        return known[2]
    real = _real(folder)
    if _judge(area, real) is not None:
        return None
    _FOLDERS[(area, folder)] = (info.st_dev, info.st_ino, real)
    return real


def _is_link(path: Path | str) -> bool:
    """Whether ``path`` is a link, or cannot be told (a missing file is none)."""
    try:
        return stat.S_ISLNK(os.lstat(path).st_mode)
    except FileNotFoundError:
        return False
    except OSError:
        return True


def _refusal(where: Where, path: Path | str, *, follow: bool = True) -> tuple[str, str | None]:
    """The resolved path, and why it is refused (None when it is not). Without ``follow``, a link at
    the end of the path is the file itself (to remove it): only the folders on the way are followed.

    A file in a folder already found inside costs a ``stat`` of the folder and an ``lstat`` of the
    file (not a link, not named ``.git``); anything else (``..`` in the path too: a link before it
    decides where it leads) is resolved part by part."""
    area = _area(where)
    given = os.fspath(path)
    folder, name = os.path.split(os.path.normpath(given))
    folder = folder or "."
    plain = name.casefold() != ".git" and ".." not in given
    real_folder = _folder(area, folder) if plain else None
    if real_folder is not None and (not follow or not _is_link(path)):
        return os.path.join(real_folder, name), None
    real = _real(path) if follow else os.path.join(_real(folder), name)
    if follow and _loops(real):
        return real, LOOP_REASON
    return real, _judge(area, real)


def _loops(real: str) -> bool:
    """Whether ``real`` (``realpath``'s, which leaves a loop of links as it is) runs into a loop."""
    try:
        return stat.S_ISLNK(os.lstat(real).st_mode)
    except OSError as exc:
        return exc.errno == errno.ELOOP


def problem(where: Where, path: Path | str, display: str) -> Problem | None:
    """A ``Problem`` when ``path`` is refused, else None (for reports that collect)."""
    _, reason = _refusal(where, path)
    return None if reason is None else Problem(display, 1, 1, "path", reason)


def require(where: Where, path: Path | str, display: str | None = None) -> Path:
    """``path`` itself when it resolves inside ``where`` (and not into a .git folder);
    ``OutsideRoot`` otherwise."""
    resolve(where, path, display)
    return Path(path)


def resolve(where: Where, path: Path | str, display: str | None = None) -> Path:
    """The file ``path`` leads to, every link followed, when it is inside ``where``; ``OutsideRoot``
    otherwise."""
    return Path(_resolved(where, path, display))


def _resolved(where: Where, path: Path | str, display: str | None) -> str:
    real, reason = _refusal(where, path)
    if reason is not None:
        raise OutsideRoot(display or _display(where, path), reason)
    return real


# -- reading ---------------------------------------------------------------------------------------


_READ_FLAGS = (
    os.O_RDONLY
    | getattr(os, "O_NONBLOCK", 0)
    | getattr(os, "O_CLOEXEC", 0)
    | getattr(os, "O_NOCTTY", 0)
)


def _read_bounded(real: Path | str, limit: int, display: Callable[[], str]) -> bytes:
    """At most ``limit`` bytes of a regular file; ``TooLarge`` beyond, ``NotRegular`` for anything
    else (named by ``display()``, called only then). Opened without blocking, so a FIFO cannot hang
    the caller; a file that grows while it is read is still cut at the limit."""
    return _read_open(os.open(real, _READ_FLAGS), limit, display)[0]


def _read_open(fd: int, limit: int, display: Callable[[], str]) -> tuple[bytes, os.stat_result]:
    """``_read_bounded`` of a file opened as ``fd`` (closed here), and the stat of what was read.

    Each read asks for one byte more than the file's size said: a short read of a regular file is
    its end, so a file that did not change is read in one call. The stat is taken before the read:
    a file changed meanwhile is newer than its stat says, so it is read again next time, never
    trusted stale."""
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            raise NotRegular(display())
        if info.st_size > limit:
            raise TooLarge(display(), limit)
        chunks = []
        total = 0
        while True:
            wanted = min(limit + 1 - total, max(info.st_size - total, 64 * KIB) + 1)
            chunk = os.read(fd, wanted)
            chunks.append(chunk)
            total += len(chunk)
            if total > limit:
                raise TooLarge(display(), limit)
            if len(chunk) < wanted:
                return b"".join(chunks), info
    finally:
        os.close(fd)


def read_bytes(
    where: Where, path: Path | str, *, limit: int = READ_LIMIT, display: str | None = None
) -> bytes:
    """The bytes of a file inside ``where`` (every link followed and checked), at most ``limit`` of
    them.

    ``FileNotFoundError`` and other ``OSError`` pass through as the system raised them; a refusal is
    ``OutsideRoot``, ``TooLarge`` or ``NotRegular`` (all ``CheckFailed``)."""
    real = _resolved(where, path, display)
    return _read_bounded(real, limit, lambda: display or _display(where, path))


def read_text(
    where: Where,
    path: Path | str,
    *,
    limit: int = READ_LIMIT,
    errors: str = "strict",
    display: str | None = None,
) -> str:
    """``read_bytes`` decoded as UTF-8 (``UnicodeDecodeError`` with ``errors="strict"``)."""
    return read_bytes(where, path, limit=limit, display=display).decode("utf-8", errors)


def read_given(path: Path | str, *, limit: int = READ_LIMIT, display: str | None = None) -> bytes:
    """A file the user named on the command line (``--body-file``, ``journal add FILE``, ``scan
    PATH``) or git handed to gitmem (the merge driver's versions, a ``.git`` link file): its place
    is the caller's choice, so it is not held to a root, but it is bounded like any other read."""
    return _read_bounded(path, limit, lambda: display or os.fspath(path))


def write_given(path: Path, data: bytes) -> None:
    """Write back, atomically and through any link, a file the user named on the command line
    (``scan --redact``)."""
    _write_atomic(Path(_real(path)), data)


def read_head(path: Path | str, limit: int) -> bytes:
    """The first ``limit`` bytes (at most) of a regular file in an AI client's own store (its
    transcripts), which gitmem looks into for the user: a session file may be far larger, and only
    its first record is wanted.
    """
    fd = os.open(path, _READ_FLAGS)
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            raise NotRegular(os.fspath(path))
        return os.read(fd, limit)
    finally:
        os.close(fd)


def read_package(*parts: str) -> str:
    """A data file shipped inside the gitmem package (the schemas)."""
    # lazy: the hooks' start-up
    from importlib import resources

    return resources.files("gitmem").joinpath(*parts).read_text(encoding="utf-8")


def _git_file(path: Path, reading: bool = False) -> Path:
    """``path`` when it is one of the files gitmem edits in a git folder (``info/exclude``, a hook
    script), or (``reading``) one it reads (``sequencer/todo``: what a cherry-pick of several
    commits has left to do): git itself names their place (``git rev-parse --git-path``,
    ``core.hooksPath``), never the repository's content.
    """
    if path.name in HOOK_TYPES or path.parts[-2:] == ("info", "exclude"):
        return path
    if reading and path.parts[-2:] == ("sequencer", "todo"):
        return path
    raise OutsideRoot(os.fspath(path), GIT_REASON)


def read_git_file(path: Path, *, limit: int = CONFIG_LIMIT) -> str:
    """One of the files gitmem edits or reads in the git folder (``info/exclude``,
    ``hooks/pre-commit``, ``sequencer/todo``), as text."""
    return _read_bounded(_git_file(path, reading=True), limit, lambda: os.fspath(path)).decode(
        "utf-8", "replace"
    )


def write_git_file(path: Path, data: bytes, *, executable: bool = False) -> None:
    """Write one of the files gitmem edits in the git folder (see ``read_git_file``) atomically."""
    _write_atomic(Path(_real(_git_file(path))), data, executable=executable)


# -- writing ---------------------------------------------------------------------------------------


def write(
    where: Where,
    path: Path | str,
    data: bytes | str,
    *,
    overwrite: bool = True,
    display: str | None = None,
    durable: bool = True,
) -> Path:
    """Write ``data`` to ``path`` inside ``where``, atomically, through any link (the link is kept);
    the folders on the way are made (each checked). Returns the file written. ``FileExistsError``
    with ``overwrite=False`` when it exists. ``durable=False``: not flushed to the disk (a hook's
    state in gitmem's cache, which a crash may lose: atomic still, never half written)."""
    real = resolve(where, path, display)
    payload = data.encode("utf-8") if isinstance(data, str) else data
    _write_atomic(real, payload, overwrite=overwrite, durable=durable)
    return real


def make_dirs(where: Where, path: Path | str) -> Path:
    """``mkdir -p`` of a folder inside ``where``."""
    real = resolve(where, path)
    real.mkdir(parents=True, exist_ok=True)
    return real


def touch(where: Where, path: Path | str) -> None:
    """Create an empty file inside ``where`` unless it exists (``.gitkeep``)."""
    real = resolve(where, path)
    real.parent.mkdir(parents=True, exist_ok=True)
    real.touch()


def remove(where: Where, path: Path | str, *, missing_ok: bool = False) -> None:
    """Remove a file inside ``where`` (a link: the link itself, which is inside, whatever it points
    at). A path whose folders lead outside (``.claude -> ~/.claude``) is refused, never followed."""
    real, reason = _refusal(where, path, follow=False)  # every folder on the way must be inside
    if reason is not None:
        raise OutsideRoot(_display(where, path), reason)
    try:
        os.unlink(real)  # a link itself goes, never what it points at
    except FileNotFoundError:
        if not missing_ok:
            raise


def remove_empty_dirs(where: Where, directory: Path | str, stop: Path | str) -> None:
    """Remove ``directory`` and its parents while they are empty, up to (not including) ``stop``."""
    base = _real(stop)
    current = resolve(where, directory)
    while os.fspath(current) != base and _under(os.fspath(current), base):
        try:
            current.rmdir()
        except OSError:
            return
        current = current.parent


def remove_tree(where: Where, path: Path | str) -> None:
    """Remove a folder and everything in it (a pack's clone in gitmem's cache); errors are
    ignored."""
    # lazy: the hooks' start-up
    import shutil

    shutil.rmtree(resolve(where, path), ignore_errors=True)


def rename(where: Where, source: Path | str, destination: Path | str) -> None:
    """Rename inside ``where`` (``os.rename``: fails when a non-empty folder is there already)."""
    os.rename(resolve(where, source), resolve(where, destination))


def scratch_dir(where: Where, parent: Path | str, prefix: str) -> Path:
    """A new, empty, private folder under ``parent`` (inside ``where``), for work to be renamed
    into place."""
    # lazy: the hooks' start-up
    import tempfile

    real = make_dirs(where, parent)
    return Path(tempfile.mkdtemp(dir=real, prefix=prefix))


@contextlib.contextmanager
def private_temp_dir(prefix: str) -> Iterator[Path]:
    """A private temporary folder outside any repository, removed afterwards (for ``git
    merge-file``'s inputs)."""
    # lazy: the hooks' start-up
    import tempfile

    with tempfile.TemporaryDirectory(prefix=prefix) as tmp:
        yield Path(tmp)


def write_temp(directory: Path, name: str, data: bytes) -> Path:
    """A file in a folder ``private_temp_dir`` made."""
    path = directory / os.path.basename(name)
    _write_atomic(path, data)
    return path


@contextlib.contextmanager
def locked_file(where: Where, path: Path | str) -> Iterator[IO[bytes]]:
    """A lock file inside ``where`` open for appending (made when missing), for ``fcntl.flock``."""
    real = resolve(where, path)
    real.parent.mkdir(parents=True, exist_ok=True)
    with open(real, "a+b") as handle:
        yield handle


class Folder:
    """A folder inside ``where``, resolved and judged once, whose files are listed, stat'ed and read
    by name: a ``stat``, or an ``open`` and ``fstat``, a file, the folder's path never resolved
    again (the store's and the recall index's read of every memory file). The descriptor is the
    very folder that was judged; a name is opened with ``O_NOFOLLOW``, so a link is read the full
    way (``read_bytes``: followed, judged), and so is any name that is not a plain file name. Where
    the platform opens no file relative to a folder, every read is the full way. Raises what
    ``resolve`` raises, and ``FileNotFoundError`` when the folder is missing (with ``missing_ok``:
    a folder with no names)."""

    def __init__(self, where: Where, path: Path | str, *, missing_ok: bool = False) -> None:
        self.where = where
        self.path = Path(path)
        real = resolve(where, path)
        self.fd: int | None = None
        self.missing = False
        try:
            if _RELATIVE:
                self.fd = os.open(real, os.O_RDONLY | _DIRECTORY)
            else:
                os.stat(real)
        except FileNotFoundError:
            if not missing_ok:
                raise
            self.missing = True

    def __enter__(self) -> Folder:
        return self

    def __exit__(self, *exc: object) -> None:
        if self.fd is not None:
            os.close(self.fd)

    def names(self) -> list[str]:
        """The names in the folder, in its order."""
        if self.missing:
            return []
        return os.listdir(self.path if self.fd is None else self.fd)

    def own_stat(self) -> os.stat_result | None:
        """The stat of the folder that was judged (its mtime changes when a name in it is added,
        removed or renamed); None when it is missing or not held open."""
        return None if self.fd is None else os.fstat(self.fd)

    def stats(self, names: list[str]) -> list[os.stat_result]:
        """``stat`` of each of ``names`` (file names, as ``names`` lists them), in one loop: the
        warm prompt hook's main cost at 10,000 memories."""
        joined = "\0".join(names)  # (no file name holds a NUL)
        if (
            self.fd is None
            or os.sep in joined
            or (os.altsep or os.sep) in joined
            or not {"", ".", ".."}.isdisjoint(names)
        ):
            return [self.stat(name) for name in names]
        fd = self.fd
        return [os.stat(name, dir_fd=fd) for name in names]

    def stat(self, name: str, *, follow: bool = True) -> os.stat_result:
        if self.fd is not None and _plain(name):
            return os.stat(name, dir_fd=self.fd, follow_symlinks=follow)
        return os.stat(self.path / name, follow_symlinks=follow)

    def read(
        self, name: str, *, limit: int = READ_LIMIT, display: str | None = None
    ) -> tuple[bytes, os.stat_result]:
        """The bytes of the file ``name`` (``read_bytes``' limit and errors) and the stat of what
        was read."""

        def shown() -> str:
            return display or _display(self.where, self.path / name)

        if self.fd is not None and _plain(name):
            try:
                return _read_open(
                    os.open(name, _READ_FLAGS | os.O_NOFOLLOW, dir_fd=self.fd), limit, shown
                )
            except OSError:
                # a link (ELOOP on Linux and macOS, EMLINK on FreeBSD, EFTYPE on NetBSD): asked
                # of the name itself, not of the platform's error
                if not self._is_link(name):
                    raise
        real = _resolved(self.where, self.path / name, display)  # a link: followed and judged
        return _read_open(os.open(real, _READ_FLAGS), limit, shown)

    def _is_link(self, name: str) -> bool:
        try:
            return stat.S_ISLNK(self.stat(name, follow=False).st_mode)
        except OSError:
            return False


def names_in(folder: Path | str) -> list[str]:
    """The names in ``folder``, as listed; none when it is missing, not a folder or a loop of links
    (a committed ``.cursor -> .cursor`` stopped compile). The one way gitmem lists a folder by name
    (tests/test_gateway_attacks.py)."""
    try:
        return os.listdir(folder)
    except (FileNotFoundError, NotADirectoryError):
        return []
    except OSError as exc:
        if exc.errno == errno.ELOOP:
            return []
        raise


def unfollowed(exc: OSError) -> tuple[str, str]:
    """The field and message said of a link whose stat, followed, failed with ``exc``: one that
    leads to nothing (a committed link whose file was not committed), or a loop of links (as
    ``problem`` says it)."""
    if isinstance(exc, FileNotFoundError):
        return "file", "a link to a file that does not exist"
    if exc.errno == errno.ELOOP:
        return "path", LOOP_REASON
    return "file", f"cannot read: {exc.strerror}"


# Whether this system opens, lists and stats a file relative to an open folder (POSIX does).
_RELATIVE = {os.open, os.stat}.issubset(os.supports_dir_fd) and os.listdir in os.supports_fd
_DIRECTORY = getattr(os, "O_DIRECTORY", 0) | getattr(os, "O_CLOEXEC", 0)


def _plain(name: str) -> bool:
    """Whether ``name`` is a file's own name, not ``.git`` (any case) nor a way up or down."""
    return (
        name not in ("", ".", "..")
        and os.sep not in name
        and (os.altsep or os.sep) not in name
        and name.casefold() != ".git"
    )


def null_output() -> int:
    """A descriptor writing to ``os.devnull`` (the CLI's stdout after its reader went away)."""
    return os.open(os.devnull, os.O_WRONLY)


# -- atomic writes ---------------------------------------------------------------------------------


def is_temp(name: str) -> bool:
    return name.startswith(".") and name.endswith(TEMP_SUFFIX)


def remove_stale_temp(path: Path, now: float | None = None) -> bool:
    """Remove ``path``, a temporary file of ours, when no write can still be using it; returns
    whether it went."""
    if not is_temp(path.name):
        return False
    try:
        age = (time.time() if now is None else now) - path.stat().st_mtime
        if age < STALE_SECONDS:
            return False
        path.unlink()
    except OSError:
        return False
    return True


def _umask() -> int:
    mask = os.umask(0o022)
    os.umask(mask)
    return mask


def _write_atomic(
    path: Path,
    data: bytes,
    *,
    overwrite: bool = True,
    executable: bool = False,
    durable: bool = True,
) -> None:
    """Write ``data`` to ``path`` so readers see the old file or the new one, never a part. The low
    level of ``write``: ``path`` must be resolved and checked already (every public entry point does
    that).

    With ``overwrite=False`` the write fails with ``FileExistsError`` when ``path`` exists, even
    when another process creates it at the same moment.
    """
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = _temp_file(path)
    try:
        try:
            mode = path.stat().st_mode & 0o7777
        except FileNotFoundError:
            mode = 0o666 & ~_umask()
        if executable:
            mode |= 0o111 & ~_umask()
        os.fchmod(fd, mode)
        try:
            with os.fdopen(fd, "wb") as handle:
                handle.write(data)
                handle.flush()
                if durable:
                    os.fsync(handle.fileno())
        except OSError as exc:  # disk full, quota: say which file could not be written
            if exc.filename is None and exc.errno is not None:
                raise OSError(
                    exc.errno, exc.strerror or os.strerror(exc.errno), os.fspath(path)
                ) from exc
            raise
        if overwrite:
            os.replace(tmp, path)
        else:
            _link_exclusive(tmp, path)
        if durable:
            _fsync_dir(path.parent)
    finally:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(tmp)


_TEMP_FLAGS = (
    os.O_RDWR | os.O_CREAT | os.O_EXCL | getattr(os, "O_CLOEXEC", 0) | getattr(os, "O_NOFOLLOW", 0)
)


def _temp_file(path: Path) -> tuple[int, str]:
    """A new private file beside ``path``, ``.NAME.XXXXXXXX.gitmem.tmp``, made exclusively (as
    ``mkstemp`` does, without importing ``tempfile``, which the prompt hook would pay for on every
    prompt)."""
    for _ in range(100):
        tmp = os.path.join(path.parent, f".{path.name}.{os.urandom(4).hex()}{TEMP_SUFFIX}")
        try:
            return os.open(tmp, _TEMP_FLAGS, 0o600), tmp
        except FileExistsError:
            continue
    raise FileExistsError(errno.EEXIST, "no free temporary name", os.fspath(path))


def _link_exclusive(tmp: str, path: Path) -> None:
    try:
        os.link(tmp, path)
    except FileExistsError:
        raise
    except OSError:
        # No hard links here (some network and FUSE file systems): reserve the name, then rename
        # over it.
        os.close(os.open(path, os.O_CREAT | os.O_EXCL | os.O_WRONLY, 0o600))
        os.replace(tmp, path)


def _fsync_dir(directory: Path) -> None:
    try:
        fd = os.open(directory, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)


def append_line(where: Where, path: Path | str, line: str, *, limit: int) -> None:
    """Append one line to a log file inside ``where`` (one ``write`` of an ``O_APPEND`` descriptor,
    so lines of processes writing at once never mix); past ``limit`` bytes the older half is dropped
    (rewritten atomically).
    """
    real = resolve(where, path)
    real.parent.mkdir(parents=True, exist_ok=True)
    payload = (line.rstrip("\n") + "\n").encode("utf-8")
    fd = os.open(real, os.O_WRONLY | os.O_APPEND | os.O_CREAT | getattr(os, "O_CLOEXEC", 0), 0o600)
    try:
        os.write(fd, payload)
        size = os.fstat(fd).st_size
    finally:
        os.close(fd)
    if size > limit:
        try:
            data = _read_bounded(real, limit * 2, lambda: str(path))
        except TooLarge:  # grown far past the limit by others at once: start again
            data = b""
        cut = data.find(b"\n", len(data) - limit // 2)
        _write_atomic(real, data[cut + 1 :] if cut >= 0 else b"")


def installed_record(distribution: str, name: str) -> str | None:
    """A metadata file of an installed distribution (``direct_url.json``: where pip installed gitmem
    from), or ``None``: importlib.metadata finds it, never a path that repository content names."""
    # lazy: the hooks' start-up
    from importlib import metadata

    try:
        return metadata.distribution(distribution).read_text(name)
    except metadata.PackageNotFoundError:
        return None


# -- finding the repository ------------------------------------------------------------------------


def find_project(start: Path | None = None) -> Project:
    """The git repository that holds ``start`` (default: the current directory)."""
    here = real(start or Path.cwd())
    for directory in (here, *here.parents):
        dot_git = directory / ".git"
        if dot_git.is_dir():
            return Project(directory, dot_git)
        if dot_git.is_file():
            return Project(directory, _linked_git_dir(dot_git))
    raise CannotRun(
        f"{here} is not in a git repository: run `git init` first, or cd into your project"
    )


def _linked_git_dir(dot_git: Path) -> Path:
    """The git directory a ``.git`` file points at (worktrees and submodules)."""
    try:
        text = read_given(dot_git, limit=CONFIG_LIMIT).decode("utf-8").strip()
    except OSError as exc:
        raise CannotRun(f"cannot read {dot_git}: {exc.strerror}") from None
    if not text.startswith("gitdir:"):
        raise CannotRun(f"{dot_git} is not a git link file (expected 'gitdir: PATH')")
    target = Path(text.removeprefix("gitdir:").strip())
    return target if target.is_absolute() else real(dot_git.parent / target)
