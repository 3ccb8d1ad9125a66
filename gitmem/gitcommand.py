"""The git command line: every git call on the hook's path goes through ``git()`` here, and its
failures become advice. Cheap to import (no GitPython): listing files, logs of deleted and retired
memories, blobs and trees, and merging text the way git does. History and changes to the repository
go through GitPython in ``history``.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Iterator, Sequence
from contextlib import suppress
from pathlib import Path
from typing import TYPE_CHECKING

from gitmem.errors import CannotRun
from gitmem.records import Record

if TYPE_CHECKING:
    import subprocess  # not at import: the scan hook's start-up

# Variables git exports while hooks run; they must not leak into git commands on another repository.
_HOOK_VARIABLES = (
    "GIT_DIR",
    "GIT_INDEX_FILE",
    "GIT_WORK_TREE",
    "GIT_OBJECT_DIRECTORY",
    "GIT_PREFIX",
)


class GitFailed(CannotRun):
    """git ran and failed; the message says what was attempted and git's own words (``stderr``:
    all of them)."""

    def __init__(self, message: str, stderr: str = "") -> None:
        super().__init__(message)
        self.stderr = stderr

    @property
    def reason(self) -> str:
        """git's first ``fatal:`` or ``error:`` line, without the prefix (the cause; later lines
        are advice)."""
        lines = list(filter(None, map(str.strip, self.stderr.splitlines())))
        causes = (
            line.split(": ", 1)[1] for line in lines if line.startswith(("fatal: ", "error: "))
        )
        return next(causes, lines[-1] if lines else self.message)


def clean_env(foreign: bool) -> dict[str, str]:
    """The environment for git: for a ``foreign`` repository (not the one a hook runs in),
    without hook variables."""
    env = dict(os.environ)
    if foreign:
        for name in _HOOK_VARIABLES:
            env.pop(name, None)
    env.setdefault("LC_ALL", "C")
    return env


def ignored(root: Path, paths: Iterable[str]) -> list[str]:
    """Those of ``paths`` (relative to ``root``) that git ignores and does not track, so they
    are never committed."""
    return sorted(ignore_sources(root, paths))


def ignore_sources(root: Path, paths: Iterable[str]) -> dict[str, str]:
    """Each of ``paths`` (relative to ``root``; a folder ends with ``/``) that git ignores and does
    not track, with the file whose pattern ignores it (``.gitignore``, ``web/.gitignore``,
    ``.git/info/exclude``, or the user's excludes file). The pattern itself is never kept: it is
    text from a file, not for a message."""
    import subprocess  # not at import: the scan hook's start-up

    names = [path for path in paths if path]
    if not names:
        return {}
    done = subprocess.run(
        ["git", "check-ignore", "-v", "-z", "--stdin"],
        cwd=root,
        input="\0".join(names).encode("utf-8") + b"\0",
        capture_output=True,
        env=clean_env(True),
        check=False,
    )
    if done.returncode not in (0, 1):  # not a repository, or git is missing: nothing to say
        return {}
    fields = done.stdout.decode("utf-8", "surrogateescape").split("\0")
    return {  # source, line, pattern, path; a pattern with "!" lets the path in
        path: source
        for source, _, pattern, path in zip(*[iter(fields)] * 4, strict=False)
        if not pattern.startswith("!")
    }


def git(
    cwd: Path,
    *args: str,
    foreign: bool = False,
    input: bytes | None = None,
    env: dict[str, str] | None = None,
    timeout: float | None = None,
) -> bytes:
    """Run ``git args`` in ``cwd``; raise ``GitFailed`` with git's message when it fails. ``env``:
    variables to set on top of the environment (e.g. ``GIT_TERMINAL_PROMPT=0`` for a fetch that must
    not ask for a password).
    ``timeout``: seconds after which git and every process it started are killed (``GitFailed``).
    A ``--`` with no path after it is refused (``paths_or_tree``)."""
    import subprocess  # not at import: the scan hook's start-up

    _no_empty_pathspec(args)
    if timeout is not None:
        return _git_with_timeout(cwd, args, {**clean_env(foreign), **(env or {})}, input, timeout)
    try:
        done = subprocess.run(
            ["git", *args],
            cwd=cwd,
            input=input,
            capture_output=True,
            env={**clean_env(foreign), **(env or {})},
            check=False,
        )
    except FileNotFoundError:
        raise GitFailed(
            "git is not installed (or not on PATH): install git and try again"
        ) from None
    return _output(args, done)


def paths_or_tree(pathspecs: Sequence[str]) -> tuple[str, ...]:
    """``--`` and ``pathspecs``, or, when there are none, ``-- .``: the whole tree (gitmem runs git
    at the root), said on purpose."""
    return ("--", *pathspecs) if pathspecs else ("--", ".")


def _no_empty_pathspec(args: tuple[str, ...]) -> None:
    """A git command whose ``--`` has no path after it would act on the whole tree, which git reads
    an empty pathspec as: `git status --` listed every file of the user's, `git add -A --` would
    stage them. A caller with no paths does nothing, or says the whole tree (``paths_or_tree``)."""
    if args and args[-1] == "--":
        raise ValueError(f"git {args[0]}: '--' and no path (paths_or_tree says the whole tree)")


def git_read(cwd: Path, *args: str) -> bytes:
    """``git(cwd, *args)`` on the hooks' paths (the staged diff, the session's first ``git
    status``), started with ``os.posix_spawnp``: importing the subprocess module costs more than the
    git command itself. Only for commands that are safe to run twice: when git fails (or cannot be
    started this way), the command runs again through ``git``, whose error is the one to show."""
    _no_empty_pathspec(args)
    if not hasattr(os, "posix_spawnp"):  # Windows
        return git(cwd, *args)
    import signal  # not at import: the scan hook's start-up

    # As subprocess does (restore_signals): git starts with the signals Python ignores back at their
    # defaults.
    defaults = [
        getattr(signal, name) for name in ("SIGPIPE", "SIGXFZ", "SIGXFSZ") if hasattr(signal, name)
    ]
    read_end, write_end = os.pipe()
    try:
        pid = os.posix_spawnp(
            "git",
            ["git", "-C", str(cwd), *args],
            clean_env(False),
            file_actions=[
                (os.POSIX_SPAWN_OPEN, 0, os.devnull, os.O_RDONLY, 0),
                (os.POSIX_SPAWN_DUP2, write_end, 1),
                (os.POSIX_SPAWN_OPEN, 2, os.devnull, os.O_WRONLY, 0),
                (os.POSIX_SPAWN_CLOSE, read_end),
                (os.POSIX_SPAWN_CLOSE, write_end),
            ],
            setsigdef=defaults,
        )
    except OSError:  # git missing: `git` says so
        os.close(read_end)
        os.close(write_end)
        return git(cwd, *args)
    os.close(write_end)
    chunks = []
    try:
        while chunk := os.read(read_end, 1 << 16):
            chunks.append(chunk)
    finally:
        os.close(read_end)
        _, status = os.waitpid(pid, 0)
    if os.waitstatus_to_exitcode(status) != 0:
        return git(cwd, *args)
    return b"".join(chunks)


def _git_with_timeout(
    cwd: Path, args: Sequence[str], env: dict[str, str], input: bytes | None, timeout: float
) -> bytes:
    """``git``, killed after ``timeout``. Without a terminal (a hook, CI, the MCP server) it runs in
    a session of its own, so its helpers (remote helpers, ssh) are killed with it; at a terminal it
    keeps the terminal, so ssh can still ask for a passphrase or a host key, and only git is killed
    (its helpers end on their own timeouts).
    """
    import subprocess  # not at import: the scan hook's start-up

    group = not _at_terminal()
    try:
        process = subprocess.Popen(
            ["git", *args],
            cwd=cwd,
            stdin=subprocess.PIPE if input is not None else None,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            env=env,
            start_new_session=group,
        )
    except FileNotFoundError:
        raise GitFailed(
            "git is not installed (or not on PATH): install git and try again"
        ) from None
    try:
        stdout, stderr = process.communicate(input, timeout=timeout)
    except subprocess.TimeoutExpired:
        _kill(process, group)
        message = (
            f"git {' '.join(args[:1])} gave no result in {timeout:g} s (the server does not answer)"
        )
        raise GitFailed(
            message, f"fatal: timed out after {timeout:g} s: the server does not answer"
        ) from None
    except BaseException:
        _kill(process, group)
        raise
    return _output(
        args, subprocess.CompletedProcess(process.args, process.returncode, stdout, stderr)
    )


def _at_terminal() -> bool:
    try:
        return os.isatty(0)
    except (OSError, ValueError):
        return False


def _kill(process: subprocess.Popen[bytes], group: bool) -> None:
    """Kill git (and its session, when it has one), without waiting for helpers that still hold
    its pipes."""
    import signal  # not at import: the scan hook's start-up

    with suppress(OSError):
        if group:
            os.killpg(process.pid, signal.SIGKILL)
        else:
            process.kill()
    for stream in (process.stdin, process.stdout, process.stderr):
        if stream is not None:
            with suppress(OSError):
                stream.close()
    process.wait()


def _output(args: Sequence[str], done: subprocess.CompletedProcess[bytes]) -> bytes:
    if done.returncode != 0:
        stderr = done.stderr.decode("utf-8", "replace")
        message = stderr.strip().splitlines()
        detail = message[-1] if message else f"exit code {done.returncode}"
        raise GitFailed(f"git {' '.join(args[:2])} failed: {detail}", stderr)
    return done.stdout


# -- the git command line: rules files, and the history of deleted and retired memories (cheap for
# every propose) ------


def list_matching(root: Path, globs: tuple[str, ...]) -> list[str]:
    """Files of the work tree (tracked, or untracked and not ignored) matching any of ``globs`` (git
    pathspec globs, relative to ``root``: ``**/AGENTS.md``), relative to ``root``, sorted."""
    if not globs:
        return []
    specs = [f":(glob){glob}" for glob in globs]
    out = git(root, "ls-files", "-z", "--cached", "--others", "--exclude-standard", "--", *specs)
    return sorted({path for path in out.decode("utf-8", "surrogateescape").split("\0") if path})


# Records, not dataclasses: importing dataclasses (and inspect with it) costs the pre-commit hook
# more than scanning a typical commit.
class CommitRef(Record):
    """A commit as a message names it."""

    sha: str
    short: str
    date: str  # committer date, YYYY-MM-DD
    subject: str


class Change(Record):
    """A commit that added (A) or deleted (D) a file."""

    commit: CommitRef
    status: str
    path: str

    @property
    def before(self) -> str:
        """The name of what a deleted file held just before (``git cat-file`` reads it)."""
        return f"{self.commit.sha}^:{self.path}"


_LOG_FORMAT = "--format=%x1e%H%x1f%h%x1f%cs%x1f%s"


def head_commit(root: Path) -> str | None:
    """HEAD's full sha; ``None`` before the first commit."""
    try:
        return (
            git(root, "rev-parse", "--verify", "--quiet", "HEAD^{commit}").decode("ascii").strip()
            or None
        )
    except GitFailed:
        return None


def is_ancestor(root: Path, old: str, new: str) -> bool:
    """Whether commit ``old`` is in the history of ``new`` (False too when ``old`` no longer
    exists)."""
    import subprocess  # not at import: the scan hook's start-up

    try:
        done = subprocess.run(
            ["git", "merge-base", "--is-ancestor", old, new],
            cwd=root,
            capture_output=True,
            env=clean_env(False),
            check=False,
        )
    except FileNotFoundError:
        raise GitFailed(
            "git is not installed (or not on PATH): install git and try again"
        ) from None
    return done.returncode == 0


def _log_records(output: bytes) -> Iterator[tuple[CommitRef, list[str]]]:
    """Records of ``git log -z`` with ``_LOG_FORMAT``: each commit and the NUL-separated fields
    after its header."""
    for record in output.decode("utf-8", "surrogateescape").split("\x1e"):
        if not record.strip("\x00\n"):
            continue
        header, _, rest = record.partition("\x00")
        sha, short, day, subject = header.split("\x1f", 3)
        yield (
            CommitRef(sha, short, day, subject),
            [part.lstrip("\n") for part in rest.split("\x00") if part.strip()],
        )


def file_changes(root: Path, directory: str, since: str | None = None) -> list[Change]:
    """The files under ``directory`` added or deleted by the commits of HEAD's history (after
    ``since``), newest first. Rename detection is off: small files that share most lines (memories
    do) would pass for renames of each other, hiding a deletion; a rename shows as a deletion and an
    addition.
    """
    revisions = f"{since}..HEAD" if since else "HEAD"
    output = git(
        root,
        "log",
        "-z",
        "--name-status",
        "--no-renames",
        "--diff-filter=AD",
        _LOG_FORMAT,
        revisions,
        "--",
        directory,
    )
    return [  # (no renames, only additions and deletions: each a status and a path)
        Change(commit, status[:1], path)
        for commit, fields in _log_records(output)
        for status, path in zip(fields[::2], fields[1::2], strict=False)
    ]


def last_commits_matching(
    root: Path, paths: list[str], regex: str, since: str | None = None
) -> dict[str, CommitRef]:
    """For each of ``paths``, the newest commit (after ``since``) whose diff of it adds or removes a
    line matching ``regex`` (``git log -G``)."""
    if not paths:
        return {}
    revisions = f"{since}..HEAD" if since else "HEAD"
    output = git(
        root, "log", "-z", "--name-only", f"-G{regex}", _LOG_FORMAT, revisions, "--", *paths
    )
    found: dict[str, CommitRef] = {}
    for commit, paths in _log_records(output):
        for path in paths:
            found.setdefault(path, commit)
    return found


def tree_files(root: Path, commit: str, directory: str) -> dict[str, str]:
    """The files directly in ``directory`` at ``commit``: name -> blob id (git command line, no
    GitPython)."""
    output = git(root, "ls-tree", "-z", "--full-tree", commit, "--", directory.rstrip("/") + "/")
    files = {}
    for entry in output.decode("utf-8", "surrogateescape").split("\x00"):
        meta, _, path = entry.partition("\t")
        parts = meta.split()
        if len(parts) == 3 and parts[1] == "blob":
            files[path.rsplit("/", 1)[-1]] = parts[2]
    return files


def blob_ids(root: Path, names: Iterable[str]) -> dict[str, str]:
    """The ids of the blobs ``names`` name (``REV:PATH``), through one ``git cat-file
    --batch-check``; names that are not blobs git has are left out."""
    wanted = list(dict.fromkeys(names))
    if not wanted:
        return {}
    output = git(
        root,
        "cat-file",
        "--batch-check",
        input="".join(f"{name}\n" for name in wanted).encode("utf-8"),
    )
    found = {}
    for name, line in zip(wanted, output.decode("utf-8", "replace").splitlines(), strict=False):
        parts = line.split()
        if len(parts) == 3 and parts[1] == "blob":
            found[name] = parts[0]
    return found


def cat_blobs(root: Path, names: Iterable[str], *, foreign: bool = False) -> dict[str, bytes]:
    """The contents of blobs by name (an id, or ``REV:PATH``), through one ``git cat-file --batch``
    (``foreign``: in another's repository, as ``git`` runs it); names that are not blobs git has are
    left out."""
    wanted = list(dict.fromkeys(names))
    if not wanted:
        return {}
    batch = "".join(f"{blob}\n" for blob in wanted).encode("ascii")
    output = git(root, "cat-file", "--batch", foreign=foreign, input=batch)
    found: dict[str, bytes] = {}
    position = 0
    for blob in wanted:
        end = output.index(b"\n", position)
        header = output[position:end].split()
        position = end + 1
        if (
            len(header) != 3 or header[1] != b"blob"
        ):  # "<name> missing", or not a blob (no contents follow then)
            if len(header) == 3:
                position += int(header[2]) + 1
            continue
        size = int(header[2])
        found[blob] = output[position : position + size]
        position += size + 1
    return found


def blob_id(data: bytes) -> str:
    """The id git gives a file with these bytes (``git hash-object``)."""
    # (only here: hashlib loads OpenSSL, and the pre-commit hook never hashes a blob)
    import hashlib  # not at import: the scan hook's start-up

    return hashlib.sha1(b"blob %d\x00" % len(data) + data, usedforsecurity=False).hexdigest()


# -- merging text the way git does -----------------------------------------------------------------


def merge_text(ours: str, base: str, theirs: str) -> tuple[str, int]:
    """git's own three-way merge of three texts (``git merge-file``): the result, and how many
    conflicts it holds."""
    import subprocess  # not at import: the scan hook's start-up

    from gitmem.gateway import private_temp_dir, write_temp  # only for a blob's temporary file

    with private_temp_dir("gitmem-merge-") as tmp:
        paths = []
        for name, text in (("ours", ours), ("base", base), ("theirs", theirs)):
            paths.append(str(write_temp(tmp, name, text.encode("utf-8", "surrogateescape"))))
        try:
            done = subprocess.run(
                ["git", "merge-file", "-p", "-L", "ours", "-L", "base", "-L", "theirs", *paths],
                capture_output=True,
                env=clean_env(foreign=True),
                check=False,
            )
        except FileNotFoundError:
            raise GitFailed(
                "git is not installed (or not on PATH): install git and try again"
            ) from None
    if done.returncode < 0 or done.returncode > 127:
        raise GitFailed(f"git merge-file failed: {done.stderr.decode('utf-8', 'replace').strip()}")
    return done.stdout.decode("utf-8", "surrogateescape"), done.returncode
