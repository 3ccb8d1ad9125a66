"""What ``gitmem scan`` reads: files and directories, the staged diff, and the scan settings of the
config.

Every text comes with the path to show (as the user gave it), and, for the staged diff, the line
number in the new file of each line scanned: only added lines are scanned, so a finding's line is
mapped back through ``lines``.
"""

from __future__ import annotations

import contextlib
import marshal
import os
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import NamedTuple

from gitmem import gateway
from gitmem.errors import GitmemError, UsageError
from gitmem.gitcommand import GitFailed, git, git_read, paths_or_tree
from gitmem.project import Project
from gitmem.scan.engine import Finding, without_allowed
from gitmem.scan.lazyre import lazy
from gitmem.scan.policy import Policy, policy, scan
from gitmem.scan.transcripts import recognise

BINARY_PROBE = 8000  # bytes looked at for a NUL, as git does


# A NamedTuple, not a dataclass: importing dataclasses (and inspect with it) costs the pre-commit
# hook more than scanning a typical commit.
class Source(NamedTuple):
    """One text to scan: ``display`` is the path shown; ``lines`` maps its lines to the file's
    (staged diffs)."""

    display: str
    text: str
    file: Path | None = None  # the file on disk, for --redact
    lines: tuple[int, ...] | None = None
    root_relative: str | None = None  # the path from the repository root, for exclude globs
    encoding: str = (
        "utf-8"  # the file's: UTF-16 files are written back (--redact) as they were read
    )

    def file_line(self, line: int) -> int:
        return self.lines[line - 1] if self.lines else line

    @property
    def policy(self) -> Policy:
        """How this text is scanned (``gitmem.scan.policy``)."""
        return policy(self.root_relative or "", self.display, self.text)


class Settings(NamedTuple):
    """The config's scan settings: allowed fingerprints, excluded globs and the salt."""

    allow: frozenset[str] = frozenset()
    exclude: tuple[str, ...] = ()
    salt: str = (
        ""  # scan.salt: the salt of old (v2) entries, read to honour them until they are renewed
    )

    def excluded(self, relative: str | None, head: str = "") -> bool:
        """Whether ``scan.exclude`` skips the file: never gitmem's store (``.memory/``) nor an AI
        client's transcript (by its path, or by ``head``, its first characters), whatever the globs
        say: a pull request's ``exclude: ['*']`` cannot switch the guard off where secrets matter
        most.
        """
        if relative is None or not self.exclude or guarded(relative, head):
            return False
        return any(_excluded_by(pattern, relative) for pattern in self.exclude)


def guarded(relative: str, head: str = "") -> bool:
    """Whether a file is always scanned: gitmem's store, or a client's transcript."""
    if relative == ".memory" or relative.startswith(".memory/"):
        return True
    return recognise(relative, head)


def _excluded_by(pattern: str, relative: str) -> bool:
    """A gitignore-like glob: ``*`` within a path segment, ``**`` across them; no slash matches at
    any depth. In linear time, whatever the glob (``gitmem.globmatch``): the config comes with the
    repository.
    """
    from gitmem.globmatch import match, parse  # lazy: the pre-commit hook's start-up

    body = pattern.strip().lstrip("/")
    anchored = "/" in body.rstrip("/")
    if body.endswith("/"):
        body += "**"
    return match(parse(("" if anchored else "**/") + body, classes=False), relative, prefix=True)


def load_settings(project: Project | None, read: Callable[[Project], Settings]) -> Settings:
    """``scan.allow`` and ``scan.exclude`` from .memory/config.yaml; nothing without it. ``read``
    reads them from the config when the cache does not hold them
    (``gitmem.memory.config.scan_settings``: the scanner sits below the config, so the layer above
    hands it the reader).

    The parsed settings are cached under .git/gitmem/, keyed on the config's stat, so the pre-commit
    hook does not import the YAML and JSON Schema libraries on every commit. The cache is in
    marshal's format, not JSON: marshal is built into the interpreter, while importing json costs
    the hook 2 ms. The file is gitmem's own, never repository content; whatever it holds, a load
    that fails or gives anything but the expected shape reads the config again.
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
        cached = _cached_settings(marshal.loads(gateway.read_bytes(project, cache_file)), key)
    except (
        OSError,
        ValueError,
        EOFError,
        TypeError,
        GitmemError,
    ):  # no cache yet, or not marshal data
        cached = None
    if cached is not None:
        return cached
    settings = read(project)
    data = (key, sorted(settings.allow), list(settings.exclude), settings.salt)
    with contextlib.suppress(OSError):  # the cache only saves time
        gateway.write(project, cache_file, marshal.dumps(data))
    return settings


def _cached_settings(cached: object, key: list[int]) -> Settings | None:
    """The settings a cache file holds, when they are for ``key`` and in the shape
    ``load_settings`` writes."""
    if not (isinstance(cached, tuple) and len(cached) == 4 and cached[0] == key):
        return None
    _, allow, exclude, salt = cached
    if not (isinstance(allow, list) and isinstance(exclude, list)):
        return None
    if not all(isinstance(item, str) for item in (*allow, *exclude, salt)):
        return None
    return Settings(frozenset(allow), tuple(exclude), salt)


def decode_bytes(raw: bytes, encoding: str = "utf-8") -> str:
    """Text as it is on disk: invalid UTF-8 kept as surrogates, so a redacted file keeps every other
    byte (UTF-16's lone surrogates likewise); a UTF-16 file's byte-order mark stays at the start of
    the text, as U+FEFF.
    """
    if encoding == "utf-8":
        return raw.decode("utf-8", "surrogateescape")
    return raw.decode(encoding, "surrogatepass")


def encode_text(text: str, encoding: str = "utf-8") -> bytes:
    if encoding == "utf-8":
        return text.encode("utf-8", "surrogateescape")
    return text.encode(encoding, "surrogatepass")


# Formats that are text at their start and binary further on (PDF and Illustrator files), or
# compressed
_BINARY_MAGIC = (
    b"%PDF-",
    b"\x1f\x8b",
    b"PK\x03\x04",
    b"\x89PNG",
    b"GIF8",
    b"\xff\xd8\xff",
    b"BZh",
    b"\xfd7zXZ",
)
_CONTROL_BYTES = bytes(b for b in range(32) if b not in (9, 10, 12, 13, 27))
_CONTROL_CHARS = dict.fromkeys(_CONTROL_BYTES)
_UTF16_BOMS = ((b"\xff\xfe", "utf-16-le"), (b"\xfe\xff", "utf-16-be"))


def is_binary(raw: bytes) -> bool:
    """A NUL in the first 8,000 bytes (git's test), a binary format's magic number, or a probe that
    is not UTF-8 and is more than 1% control bytes (compressed data without a NUL)."""
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


def utf16(raw: bytes) -> str | None:
    """``utf-16-le`` or ``utf-16-be`` for a UTF-16 text (what PowerShell 5's ``>`` and Windows'
    editors write): a byte-order mark, or, without one, a NUL as every other byte of the first 8,000
    (ASCII text in UTF-16); and, either way, an even length and a probe that decodes to text (at
    most 1% control characters). ``None`` otherwise.
    """
    probe = raw[:BINARY_PROBE]
    encoding = next((name for bom, name in _UTF16_BOMS if probe.startswith(bom)), None)
    if encoding is None and len(probe) >= 8:
        even, odd = probe[0::2], probe[1::2]
        if odd.count(0) * 10 >= len(odd) * 9 and not even.count(0):
            encoding = "utf-16-le"
        elif even.count(0) * 10 >= len(even) * 9 and not odd.count(0):
            encoding = "utf-16-be"
    if encoding is None or len(raw) % 2:
        return None
    text = probe[: len(probe) - len(probe) % 2].decode(encoding, "surrogatepass")
    controls = len(text) - len(text.translate(_CONTROL_CHARS))
    return encoding if controls * 100 <= len(text) else None


def text_encoding(raw: bytes) -> str | None:
    """How a file's bytes are text: ``utf-8`` (or anything else that is not binary), UTF-16, or
    ``None`` (binary)."""
    if b"\x00" in raw[:BINARY_PROBE] or raw.startswith((b"\xff\xfe", b"\xfe\xff")):
        found = utf16(raw)
        if found is not None:
            return found
    return None if is_binary(raw) else "utf-8"


Entry = tuple[
    str, Path, str | None
]  # a file to read: the path shown, the file, its path from the root


def read_paths(
    paths: tuple[str, ...], project: Project | None, settings: Settings
) -> Iterator[Source]:
    """Each text file under ``paths``: files as named, directories recursively (git-ignored files,
    ``.git`` and binary files skipped, and the ``scan.exclude`` globs applied)."""
    for entry in path_entries(paths, project, settings):
        source = read_entry(entry)
        if source is not None:
            yield source


def path_entries(
    paths: tuple[str, ...], project: Project | None, settings: Settings
) -> list[Entry]:
    """The files ``read_paths`` reads, in order, not read yet (``read_entry`` reads one)."""
    entries: list[Entry] = []
    for given in paths:
        path = Path(given)
        if path.is_dir():
            for display, file in _walk(given, path, project):
                relative = _root_relative(file, project)
                if not settings.excluded(relative):
                    entries.append((display, file, relative))
        elif path.exists():
            entries.append((given, path, _root_relative(path, project)))
        else:
            raise UsageError(f"{given}: no such file or directory")
    return entries


def read_entry(entry: Entry) -> Source | None:
    """One file of ``path_entries`` as a source, or ``None`` when it is binary."""
    return _read(*entry)


def _read(display: str, file: Path, relative: str | None) -> Source | None:
    try:
        raw = gateway.read_given(file, limit=gateway.SCAN_LIMIT, display=display)
    except OSError as exc:
        raise UsageError(f"{display}: cannot read: {exc.strerror}") from None
    encoding = text_encoding(raw)
    if encoding is None:
        return None
    return Source(
        display, decode_bytes(raw, encoding), file, root_relative=relative, encoding=encoding
    )


def _root_relative(file: Path, project: Project | None) -> str | None:
    if project is None:
        return None
    try:
        return gateway.real(file).relative_to(project.root).as_posix()
    except ValueError:
        return None


def _walk(given: str, directory: Path, project: Project | None) -> Iterator[tuple[str, Path]]:
    """The files of a directory: in a git repository, those git does not ignore; elsewhere, all
    but ``.git``."""
    names: list[str] | None = None
    if project is not None:
        try:
            out = git(directory, "ls-files", "-z", "--cached", "--others", "--exclude-standard")
            names = sorted(set(out.decode("utf-8", "surrogateescape").split("\0")) - {""})
        except GitFailed:
            pass  # not a repository git can read: every file
    if names is not None:
        for name in names:
            file = directory / name
            if file.is_file() and not file.is_symlink():
                yield os.path.normpath(os.path.join(given, name)), file
        return
    for root, dirs, files in os.walk(directory):
        dirs[:] = sorted(set(dirs) - {".git"})
        for name in sorted(files):
            file = Path(root) / name
            if not file.is_symlink():
                yield os.path.normpath(os.path.join(given, os.path.relpath(file, directory))), file


# -- the staged diff -------------------------------------------------------------------------------

_HUNK_RE = lazy(rb"^@@ -\d+(?:,\d+)? \+(\d+)(?:,\d+)? @@")


def read_staged(
    project: Project, pathspecs: tuple[str, ...], settings: Settings
) -> Iterator[Source]:
    """The lines the index adds, file by file, with their line numbers in the staged file.

    Runs ``git diff --cached`` in the current environment, so ``GIT_INDEX_FILE`` (set by git for
    partial commits such as ``git commit FILE``) is respected. Files git shows as "Binary files
    differ" (a ``-diff`` or ``binary`` attribute in ``.gitattributes``, which the repository's
    author controls) are diffed again as text, and skipped only when the staged content really is
    binary (a NUL byte, as ``gitmem scan PATH`` decides).
    """

    args = [
        "-c",
        "core.quotePath=off",
        "diff",
        "--cached",
        "--no-color",
        "--no-ext-diff",
        "--no-textconv",
        "-U0",
    ]
    # --no-renames: a file renamed or copied (diff.renames=copies) is added whole, so what moves out
    # of a scan.exclude folder into a scanned path is scanned (a rename shows no lines: its content
    # was never scanned here)
    args += ["--no-renames", "--diff-filter=ACMRTU", "--src-prefix=a/", "--dst-prefix=b/"]
    out = git_read(project.root, *args, *paths_or_tree(pathspecs))
    files = list(_parse_diff(out))
    texts: list[tuple[str, list[tuple[int, str]]]] = []
    if out.startswith(b"Binary files ") or b"\nBinary files " in out:
        texts += _diffed_as_text(project, args, pathspecs, files)
    for name, added in files:
        texts.append((name, [(number, decode_bytes(line)) for number, line in added]))
    cwd = gateway.real(Path.cwd())
    for name, lines in sorted(texts, key=lambda pair: pair[0]):
        if settings.excluded(name, lines[0][1][:4096] if lines else ""):
            continue
        text = "\n".join(line for _, line in lines)
        display = os.path.relpath(project.root / name, cwd) if project.root != cwd else name
        yield Source(display, text, None, tuple(number for number, _ in lines), name)


def _diffed_as_text(
    project: Project,
    args: list[str],
    pathspecs: tuple[str, ...],
    files: list[tuple[str, list[tuple[int, bytes]]]],
) -> list[tuple[str, list[tuple[int, str]]]]:
    """The staged files git showed as binary, diffed again as text: those with no NUL byte join
    ``files``; the UTF-16 ones are given back decoded."""

    marked = _marked_binary(project, pathspecs)
    if not marked:
        return []
    again = git(project.root, *args, "--text", "--", *(f":(literal){name}" for name in marked))
    diffed = list(_parse_diff(again))
    files += [(name, added) for name, added in diffed if not _has_nul(added)]
    return _staged_utf16(project, [name for name, added in diffed if _has_nul(added)])


def read_blobs(project: Project, specs: list[str]) -> list[bytes | None]:
    """The objects ``git cat-file --batch`` gives for ``specs`` (``:path`` for the index,
    ``HEAD:path``), in order; ``None`` for one that does not exist (or whose name git's batch input
    cannot carry: a newline).
    """

    asked = [spec for spec in specs if "\n" not in spec]
    found: dict[str, bytes | None] = {}
    if asked:
        out = git(
            project.root,
            "cat-file",
            "--batch",
            input="".join(f"{spec}\n" for spec in asked).encode(),
        )
        position = 0
        for spec in asked:
            end = out.index(b"\n", position)
            header = out[position:end].split(b" ")
            if len(header) == 3 and header[2].isdigit():
                size = int(header[2])
                found[spec] = out[end + 1 : end + 1 + size]
                position = end + 2 + size
            else:  # "<spec> missing", "<spec> ambiguous"
                found[spec] = None
                position = end + 1
    return [found.get(spec) for spec in specs]


def _lines_of(raw: bytes | None) -> list[str] | None:
    """The lines of a UTF-16 blob's text, or ``None`` when it is not UTF-16."""
    if not raw or (encoding := utf16(raw)) is None:  # (no bytes are no UTF-16)
        return None
    return [line.removesuffix("\r") for line in decode_bytes(raw, encoding).split("\n")]


def _staged_utf16(project: Project, names: list[str]) -> list[tuple[str, list[tuple[int, str]]]]:
    """The staged UTF-16 files among ``names`` (which git diffs as binary), decoded: each with the
    lines of the staged version that its last commit did not have (in linear time: a set of the old
    lines, not a diff).
    """
    blobs = read_blobs(project, [spec for name in names for spec in (f":{name}", f"HEAD:{name}")])
    out = []
    for index, name in enumerate(names):
        new = _lines_of(blobs[2 * index])
        if new is None:
            continue
        old = set(_lines_of(blobs[2 * index + 1]) or ())
        added = [(number, line) for number, line in enumerate(new, 1) if line not in old and line]
        if added:
            out.append((name, added))
    return out


def _marked_binary(project: Project, pathspecs: tuple[str, ...]) -> list[str]:
    """The staged files ``git diff`` showed as binary (``-\t-`` in ``--numstat``)."""

    args = [
        "-c",
        "core.quotePath=off",
        "diff",
        "--cached",
        "--numstat",
        "-z",
        "--no-renames",
        "--no-ext-diff",
    ]
    out = git(
        project.root, *args, "--no-textconv", "--diff-filter=ACMRTU", *paths_or_tree(pathspecs)
    )
    return [decode_bytes(record[4:]) for record in out.split(b"\0") if record.startswith(b"-\t-\t")]


def _has_nul(added: list[tuple[int, bytes]]) -> bool:
    return any(b"\0" in line for _, line in added)


def _parse_diff(out: bytes) -> Iterator[tuple[str, list[tuple[int, bytes]]]]:
    """Each file of a diff that adds lines: its path, and its added lines with their numbers."""
    # Only a file's header starts a line with "diff --git ": a diff's own lines start with a sign
    for section in out.split(b"\ndiff --git "):
        name, added = _added_lines(section.split(b"\n"))
        if name is not None and added:
            yield name, added


def _added_lines(lines: list[bytes]) -> tuple[str | None, list[tuple[int, bytes]]]:
    """One file's part of a diff: the path its "+++ b/path" header names (``None``: deleted), and
    the lines it adds, numbered in the new file."""
    name: str | None = None
    added: list[tuple[int, bytes]] = []
    number = 0
    header = True  # before the first hunk
    for line in lines:
        if line.startswith(b"@@"):
            header = False
            match = _HUNK_RE.match(line)
            number = int(match.group(1)) if match else 0
        elif header:
            if line.startswith(b"+++ "):
                target = line[4:]
                name = None if target == b"/dev/null" else _unquote(target).removeprefix("b/")
        elif line.startswith(b"+"):
            content = line[1:]
            added.append((number, content.removesuffix(b"\r")))
            number += 1
        elif line.startswith(b" "):
            number += 1
    return name, added


_C_ESCAPES = {
    b"n": 10,
    b"t": 9,
    b"r": 13,
    b'"': 34,
    b"\\": 92,
    b"a": 7,
    b"b": 8,
    b"f": 12,
    b"v": 11,
}


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


# -- scanning a source -----------------------------------------------------------------------------


def findings_in(
    source: Source,
    settings: Settings,
    how: Policy | None = None,
    *,
    honour_allow: bool = True,
) -> list[Finding]:
    """The secrets and hidden characters of one source, at the file's line numbers, less the
    allowed fingerprints. ``how``: the source's own policy unless given."""

    where = (
        source.root_relative or source.display
    )  # what a fingerprint names: the same from any directory
    found = scan(source.text, source.display, how or source.policy)
    if not found:
        return found
    if source.lines:
        found = [f._replace(line=source.file_line(f.line), where=where) for f in found]
    else:
        found = [f._replace(where=where) for f in found]
    if honour_allow and settings.allow:
        found = without_allowed(found, settings.allow, settings.salt)
    return found
