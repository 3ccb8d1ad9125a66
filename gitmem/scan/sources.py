"""What ``gitmem scan`` reads: files and directories, the staged diff, and the scan settings of the config.

Every text comes with the path to show (as the user gave it), and, for the staged diff, the line number in the new
file of each line scanned: only added lines are scanned, so a finding's line is mapped back through ``lines``.
"""

from __future__ import annotations

import contextlib
import marshal
import os
import re
from collections.abc import Iterator
from pathlib import Path
from typing import NamedTuple

from gitmem.errors import UsageError
from gitmem.project import Project
from gitmem.scan.engine import Finding

BINARY_PROBE = 8000  # bytes looked at for a NUL, as git does


# A NamedTuple, not a dataclass: importing dataclasses (and inspect with it) costs the pre-commit hook more than
# scanning a typical commit.
class Source(NamedTuple):
    """One text to scan: ``display`` is the path shown; ``lines`` maps its lines to the file's (staged diffs)."""

    display: str
    text: str
    file: Path | None = None  # the file on disk, for --redact
    lines: tuple[int, ...] | None = None
    root_relative: str | None = None  # the path from the repository root, for exclude globs

    def file_line(self, line: int) -> int:
        return self.lines[line - 1] if self.lines else line


class Settings(NamedTuple):
    """The config's scan settings: allowed fingerprints, excluded globs and the salt."""

    allow: frozenset[str] = frozenset()
    exclude: tuple[str, ...] = ()
    salt: str = ""  # scan.salt: what makes this repository's fingerprints its own

    def excluded(self, relative: str | None, head: str = "") -> bool:
        """Whether ``scan.exclude`` skips the file: never gitmem's store (``.memory/``) nor an AI client's
        transcript (by its path, or by ``head``, its first characters), whatever the globs say: a pull request's
        ``exclude: ['*']`` cannot switch the guard off where secrets matter most."""
        if relative is None or not self.exclude or guarded(relative, head):
            return False
        return any(_excluded_by(pattern, relative) for pattern in self.exclude)


def guarded(relative: str, head: str = "") -> bool:
    """Whether a file is always scanned: gitmem's store, or a client's transcript."""
    if relative == ".memory" or relative.startswith(".memory/"):
        return True
    from gitmem.scan.transcripts import recognise

    return recognise(relative, head)


def _excluded_by(pattern: str, relative: str) -> bool:
    """A gitignore-like glob: ``*`` within a path segment, ``**`` across them; no slash matches at any depth. In
    linear time, whatever the glob (``gitmem.globmatch``): the config comes with the repository."""
    from gitmem.globmatch import match, parse

    body = pattern.strip().lstrip("/")
    anchored = "/" in body.rstrip("/")
    if body.endswith("/"):
        body += "**"
    return match(parse(("" if anchored else "**/") + body, classes=False), relative, prefix=True)


def load_settings(project: Project | None) -> Settings:
    """``scan.allow`` and ``scan.exclude`` from .memory/config.yaml; nothing without it.

    The parsed settings are cached under .git/gitmem/, keyed on the config's stat, so the pre-commit hook does not
    import the YAML and JSON Schema libraries on every commit. The cache is in marshal's format, not JSON: marshal is
    built into the interpreter, while importing json costs the hook 2 ms. The file is gitmem's own, never repository
    content; whatever it holds, a load that fails or gives anything but the expected shape reads the config again.
    """
    if project is None:
        return Settings()
    path = project.config_path
    try:
        st = path.stat()
    except OSError:
        return Settings()
    key = [st.st_ino, st.st_size, st.st_mtime_ns, st.st_ctime_ns]
    cache_file = project.cache_dir / "scan-settings.marshal"
    try:
        cached = _cached_settings(marshal.loads(cache_file.read_bytes()), key)
    except (OSError, ValueError, EOFError, TypeError):  # no cache yet, or not marshal data
        cached = None
    if cached is not None:
        return cached
    from gitmem.config import load_config
    from gitmem.fsutil import write_atomic

    config = load_config(project)
    settings = Settings(frozenset(config.scan_allow), config.scan_exclude, config.scan_salt)
    data = (key, sorted(settings.allow), list(settings.exclude), settings.salt)
    with contextlib.suppress(OSError):  # the cache only saves time
        write_atomic(cache_file, marshal.dumps(data))
    return settings


def _cached_settings(cached: object, key: list[int]) -> Settings | None:
    """The settings a cache file holds, when they are for ``key`` and in the shape ``load_settings`` writes."""
    if not (isinstance(cached, tuple) and len(cached) == 4 and cached[0] == key):
        return None
    _, allow, exclude, salt = cached
    if not (isinstance(allow, list) and isinstance(exclude, list)):
        return None
    if not all(isinstance(item, str) for item in (*allow, *exclude, salt)):
        return None
    return Settings(frozenset(allow), tuple(exclude), salt)


def decode_bytes(raw: bytes) -> str:
    """Text as it is on disk: invalid UTF-8 kept as surrogates, so a redacted file keeps every other byte."""
    return raw.decode("utf-8", "surrogateescape")


def encode_text(text: str) -> bytes:
    return text.encode("utf-8", "surrogateescape")


# Formats that are text at their start and binary further on (PDF and Illustrator files), or compressed
_BINARY_MAGIC = (b"%PDF-", b"\x1f\x8b", b"PK\x03\x04", b"\x89PNG", b"GIF8", b"\xff\xd8\xff", b"BZh", b"\xfd7zXZ")
_CONTROL_BYTES = bytes(b for b in range(32) if b not in (9, 10, 12, 13, 27))


def is_binary(raw: bytes) -> bool:
    """A NUL in the first 8,000 bytes (git's test), a binary format's magic number, or a probe that is not UTF-8
    and is more than 1% control bytes (compressed data without a NUL)."""
    probe = raw[:BINARY_PROBE]
    if b"\x00" in probe or probe.startswith(_BINARY_MAGIC):
        return True
    controls = len(probe) - len(probe.translate(None, _CONTROL_BYTES))
    if controls * 100 <= len(probe):
        return False
    try:
        probe.decode("utf-8")
    except UnicodeDecodeError as error:
        return error.start < len(probe) - 3  # not only a character cut at the end of the probe
    return False


def read_paths(paths: tuple[str, ...], project: Project | None, settings: Settings) -> Iterator[Source]:
    """Each text file under ``paths``: files as named, directories recursively (git-ignored files, ``.git`` and
    binary files skipped, and the ``scan.exclude`` globs applied)."""
    for given in paths:
        path = Path(given)
        if path.is_dir():
            for display, file in _walk(given, path, project):
                relative = _root_relative(file, project)
                if settings.excluded(relative):
                    continue
                source = _read(display, file, relative)
                if source is not None:
                    yield source
        elif path.exists():
            source = _read(given, path, _root_relative(path, project))
            if source is not None:
                yield source
        else:
            raise UsageError(f"{given}: no such file or directory")


def _read(display: str, file: Path, relative: str | None) -> Source | None:
    try:
        raw = file.read_bytes()
    except OSError as exc:
        raise UsageError(f"{display}: cannot read: {exc.strerror}") from None
    if is_binary(raw):
        return None
    return Source(display, decode_bytes(raw), file, root_relative=relative)


def _root_relative(file: Path, project: Project | None) -> str | None:
    if project is None:
        return None
    try:
        return file.resolve().relative_to(project.root).as_posix()
    except ValueError:
        return None


def _walk(given: str, directory: Path, project: Project | None) -> Iterator[tuple[str, Path]]:
    """The files of a directory: in a git repository, those git does not ignore; elsewhere, all but ``.git``."""
    names: list[str] | None = None
    if project is not None:
        from gitmem.git.command import GitFailed, git

        try:
            out = git(directory, "ls-files", "-z", "--cached", "--others", "--exclude-standard")
            names = sorted({name for name in out.decode("utf-8", "surrogateescape").split("\0") if name})
        except GitFailed:
            names = None
    if names is not None:
        for name in names:
            file = directory / name
            if file.is_file() and not file.is_symlink():
                yield os.path.normpath(os.path.join(given, name)), file
        return
    for root, dirs, files in os.walk(directory):
        dirs[:] = sorted(d for d in dirs if d != ".git")
        for name in sorted(files):
            file = Path(root) / name
            if not file.is_symlink():
                yield os.path.normpath(os.path.join(given, os.path.relpath(file, directory))), file


# -- the staged diff -------------------------------------------------------------------------------------------

_HUNK_RE = re.compile(rb"^@@ -\d+(?:,\d+)? \+(\d+)(?:,\d+)? @@")


def read_staged(project: Project, pathspecs: tuple[str, ...], settings: Settings) -> Iterator[Source]:
    """The lines the index adds, file by file, with their line numbers in the staged file.

    Runs ``git diff --cached`` in the current environment, so ``GIT_INDEX_FILE`` (set by git for partial commits
    such as ``git commit FILE``) is respected. Files git shows as "Binary files differ" (a ``-diff`` or ``binary``
    attribute in ``.gitattributes``, which the repository's author controls) are diffed again as text, and skipped
    only when the staged content really is binary (a NUL byte, as ``gitmem scan PATH`` decides).
    """
    from gitmem.git.command import git, git_read

    args = ["-c", "core.quotePath=off", "diff", "--cached", "--no-color", "--no-ext-diff", "--no-textconv", "-U0"]
    args += ["--diff-filter=ACMRTU", "--src-prefix=a/", "--dst-prefix=b/"]
    out = git_read(project.root, *args, "--", *pathspecs)
    files = list(_parse_diff(out))
    if out.startswith(b"Binary files ") or b"\nBinary files " in out:
        marked = _marked_binary(project, pathspecs)
        if marked:
            again = git(project.root, *args, "--text", "--", *(f":(literal){name}" for name in marked))
            files += [(name, added) for name, added in _parse_diff(again) if not _has_nul(added)]
    cwd = Path.cwd().resolve()
    for name, added in sorted(files, key=lambda pair: pair[0]):
        if settings.excluded(name, decode_bytes(added[0][1])[:4096] if added else ""):
            continue
        text = "\n".join(decode_bytes(line) for _, line in added)
        display = os.path.relpath(project.root / name, cwd) if project.root != cwd else name
        yield Source(display, text, None, tuple(number for number, _ in added), name)


def _marked_binary(project: Project, pathspecs: tuple[str, ...]) -> list[str]:
    """The staged files ``git diff`` showed as binary (``-\t-`` in ``--numstat``)."""
    from gitmem.git.command import git

    args = ["-c", "core.quotePath=off", "diff", "--cached", "--numstat", "-z", "--no-renames", "--no-ext-diff"]
    out = git(project.root, *args, "--no-textconv", "--diff-filter=ACMRTU", "--", *pathspecs)
    return [decode_bytes(record[4:]) for record in out.split(b"\0") if record.startswith(b"-\t-\t")]


def _has_nul(added: list[tuple[int, bytes]]) -> bool:
    return any(b"\0" in line for _, line in added)


def _parse_diff(out: bytes) -> Iterator[tuple[str, list[tuple[int, bytes]]]]:
    name: str | None = None
    added: list[tuple[int, bytes]] = []
    number = 0
    in_header = False  # between "diff --git" and the first hunk: where "+++ b/path" names the file
    for line in out.split(b"\n"):
        if line.startswith(b"diff --git "):
            if name is not None and added:
                yield name, added
            name, added, in_header = None, [], True
        elif in_header and line.startswith(b"+++ "):
            target = line[4:]
            name = None if target == b"/dev/null" else _unquote(target).removeprefix("b/")
        elif line.startswith(b"@@"):
            in_header = False
            match = _HUNK_RE.match(line)
            number = int(match.group(1)) if match else 0
        elif not in_header and line.startswith(b"+") and name is not None:
            content = line[1:]
            added.append((number, content[:-1] if content.endswith(b"\r") else content))
            number += 1
        elif not in_header and line.startswith(b" "):
            number += 1
    if name is not None and added:
        yield name, added


_C_ESCAPES = {b"n": 10, b"t": 9, b"r": 13, b'"': 34, b"\\": 92, b"a": 7, b"b": 8, b"f": 12, b"v": 11}


def _unquote(raw: bytes) -> str:
    """A path as git prints it: C-quoted when it holds quotes, backslashes or control characters."""
    raw = raw.rstrip(b"\t")
    if not (raw.startswith(b'"') and raw.endswith(b'"')):
        return decode_bytes(raw)
    body = raw[1:-1]
    out = bytearray()
    index = 0
    while index < len(body):
        byte = body[index : index + 1]
        if byte == b"\\" and index + 1 < len(body):
            nxt = body[index + 1 : index + 2]
            if nxt.isdigit():
                out.append(int(body[index + 1 : index + 4], 8))
                index += 4
                continue
            out.append(_C_ESCAPES.get(nxt, nxt[0]))
            index += 2
            continue
        out += byte
        index += 1
    return decode_bytes(bytes(out))


# -- scanning a source -----------------------------------------------------------------------------------------


def findings_in(
    source: Source,
    settings: Settings,
    *,
    decode: int,
    pragmas: bool = True,
    honour_allow: bool = True,
    kind: str = "prose",
) -> list[Finding]:
    """The secrets and hidden characters of one source, at the file's line numbers, less the allowed fingerprints."""
    from gitmem.scan.engine import scan_text, without_allowed

    found = scan_text(source.text, source.display, decode=decode, hidden=True, pragmas=pragmas, kind=kind)
    if honour_allow and settings.allow:
        found = without_allowed(found, settings.allow, settings.salt)
    if source.lines:
        found = [finding._replace(line=source.file_line(finding.line)) for finding in found]
    return found
