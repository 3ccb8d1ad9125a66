"""Every git call gitmem makes goes through this module, and git's failures become advice.

Two ways in: ``git()`` runs the git command line directly (cheap: used on the pre-commit hook's path, where
importing GitPython would cost more than the whole scan), and GitPython (imported only inside the functions that
need it, with ``with Repo(path) as repo:``) for history, diffs and reverts.
"""

from __future__ import annotations

import hashlib
import os
import subprocess
from collections.abc import Iterable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from gitmem.errors import CannotRun

# Variables git exports while hooks run; they must not leak into git commands on another repository.
_HOOK_VARIABLES = ("GIT_DIR", "GIT_INDEX_FILE", "GIT_WORK_TREE", "GIT_OBJECT_DIRECTORY", "GIT_PREFIX")


class GitFailed(CannotRun):
    """git ran and failed; the message says what was attempted and git's own words (``stderr``: all of them)."""

    def __init__(self, message: str, stderr: str = "") -> None:
        super().__init__(message)
        self.stderr = stderr

    @property
    def reason(self) -> str:
        """git's first ``fatal:`` or ``error:`` line, without the prefix (the cause; later lines are advice)."""
        lines = [line.strip() for line in self.stderr.splitlines() if line.strip()]
        for line in lines:
            for prefix in ("fatal: ", "error: "):
                if line.startswith(prefix):
                    return line.removeprefix(prefix)
        return lines[-1] if lines else self.message


def clean_env(foreign: bool) -> dict[str, str]:
    """The environment for git: for a ``foreign`` repository (not the one a hook runs in), without hook variables."""
    env = dict(os.environ)
    if foreign:
        for name in _HOOK_VARIABLES:
            env.pop(name, None)
    env.setdefault("LC_ALL", "C")
    return env


def list_files(root: Path, names: tuple[str, ...]) -> list[str]:
    """Files named one of ``names`` anywhere in the work tree (tracked, or untracked and not ignored).

    Paths are relative to ``root``, with / separators, sorted. Reads git's index rather than walking the tree.
    """
    if not names:
        return []
    specs = [f":(glob)**/{name}" for name in names]
    out = git(root, "ls-files", "-z", "--cached", "--others", "--exclude-standard", "--", *specs)
    return sorted({path for path in out.decode("utf-8", "surrogateescape").split("\0") if path})


def ignored(root: Path, paths: Iterable[str]) -> list[str]:
    """Those of ``paths`` (relative to ``root``) that git ignores and does not track, so they are never committed."""
    names = [path for path in paths if path]
    if not names:
        return []
    done = subprocess.run(
        ["git", "check-ignore", "-z", "--stdin"],
        cwd=root,
        input="\0".join(names).encode("utf-8") + b"\0",
        capture_output=True,
        env=clean_env(True),
        check=False,
    )
    if done.returncode not in (0, 1):  # not a repository, or git is missing: nothing to say
        return []
    return sorted({path for path in done.stdout.decode("utf-8", "surrogateescape").split("\0") if path})


def git(
    cwd: Path, *args: str, foreign: bool = False, input: bytes | None = None, env: dict[str, str] | None = None
) -> bytes:
    """Run ``git args`` in ``cwd``; raise ``GitFailed`` with git's message when it fails. ``env``: variables to set
    on top of the environment (e.g. ``GIT_TERMINAL_PROMPT=0`` for a fetch that must not ask for a password)."""
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
        raise GitFailed("git is not installed (or not on PATH): install git and try again") from None
    if done.returncode != 0:
        stderr = done.stderr.decode("utf-8", "replace")
        message = stderr.strip().splitlines()
        detail = message[-1] if message else f"exit code {done.returncode}"
        raise GitFailed(f"git {' '.join(args[:2])} failed: {detail}", stderr)
    return done.stdout


# -- GitPython: history, revisions, files at a revision ---------------------------------------------------------------

ADVICE = "git failed. Is it installed, and are you in a Git repository?"
NO_COMMITS = "this repository has no commits yet: commit something first, then try again"


@contextmanager
def _repo(root: Path) -> Iterator[Any]:
    """The repository at ``root`` (GitPython ``Repo``), with GitPython's failures turned into advice."""
    try:
        from git import Repo
        from git.exc import GitCommandError, GitCommandNotFound, InvalidGitRepositoryError, NoSuchPathError
    except ImportError:  # GitPython refuses to import when it cannot run git
        raise GitFailed(f"{ADVICE} (git could not be run)") from None
    try:
        with Repo(root) as repo:
            yield repo
    except (InvalidGitRepositoryError, NoSuchPathError):
        raise GitFailed(f"{ADVICE} ({root} is not one)") from None
    except GitCommandNotFound:
        raise GitFailed(f"{ADVICE} (git could not be run)") from None
    except GitCommandError as exc:
        raise GitFailed(_command_failure(exc)) from None


def _command_failure(exc: Any) -> str:
    command = exc.command if isinstance(exc.command, list | tuple) else str(exc.command).split()
    name = " ".join(str(part) for part in command[1:2]) or "command"
    lines = [line.strip() for line in str(exc.stderr or "").splitlines() if line.strip()]
    detail = lines[-1].removeprefix("stderr:").strip().strip("'").strip() if lines else ""
    detail = detail or f"exit code {exc.status}"
    return f"git {name} failed: {detail}"


def _require_commits(repo: Any) -> None:
    if not repo.head.is_valid():
        raise GitFailed(NO_COMMITS)


@dataclass(frozen=True)
class Commit:
    """One commit that touched a file, as history shows it."""

    sha: str
    short: str
    date: str  # author date, YYYY-MM-DD
    time: str  # author date, ISO 8601 with the author's offset
    author: str
    subject: str
    path: str  # the file's path in this commit (renames are followed)
    change: str  # A added, M modified, D deleted, R renamed (from ``old_path``), C copied
    old_path: str | None = None


def file_history(root: Path, path: str) -> list[Commit]:
    """The commits that touched ``path`` (relative to ``root``), following renames, newest first.

    A copy is not followed: git's copy detection sees a new memory file as a copy of any similar (small) one, so a
    "copy" is where a file's history starts.
    """
    with _repo(root) as repo:
        _require_commits(repo)
        output = repo.git.log(
            "--follow",
            "-z",
            "--name-status",
            "--format=%x1e%H%x1f%h%x1f%as%x1f%aI%x1f%an%x1f%s",
            "--",
            path,
        )
    commits = []
    for record in output.split("\x1e"):
        if not record.strip("\x00\n"):
            continue
        header, _, changes = record.partition("\x00")
        sha, short, day, moment, author, subject = header.split("\x1f", 5)
        fields = [part for part in changes.lstrip("\n").split("\x00") if part]
        change, old_path, new_path = "M", None, path
        if fields:
            change = fields[0][:1]
            if change == "C" and len(fields) >= 3:
                commits.append(Commit(sha, short, day, moment, author, subject, fields[2], "A"))
                break
            if change == "R" and len(fields) >= 3:
                old_path, new_path = fields[1], fields[2]
            elif len(fields) >= 2:
                new_path = fields[1]
        commits.append(Commit(sha, short, day, moment, author, subject, new_path, change, old_path))
    return commits


def file_status(root: Path, path: str) -> str | None:
    """How the working tree's ``path`` differs from HEAD: "untracked", "modified", "deleted", or ``None``."""
    output = git(root, "status", "--porcelain", "-z", "--untracked-files=all", "--", path).decode("utf-8", "replace")
    if not output:
        return None
    code = output[:2]
    if code == "??":
        return "untracked"
    if "D" in code:
        return "deleted"
    return "modified"


def resolve(root: Path, rev: str) -> str:
    """The full sha of the commit ``rev`` names (a branch, tag, sha, HEAD~2...), or advice when it names none."""
    from gitmem.errors import UsageError

    with _repo(root) as repo:
        from git.exc import GitCommandError

        try:
            return str(repo.git.rev_parse("--verify", "--quiet", "--end-of-options", f"{rev}^{{commit}}")).strip()
        except GitCommandError:
            pass
        _require_commits(repo)
    raise UsageError(f"unknown revision {rev!r}: name a branch, tag or commit (`git branch -a` lists the branches)")


# The default branch, in order of preference: what origin/HEAD points at (set by `git clone`), then these.
DEFAULT_BRANCHES = ("origin/main", "origin/master", "main", "master")


def default_branch(root: Path) -> str | None:
    """The branch pull requests here target: origin/HEAD's target, else origin/main, origin/master, main, master."""
    with _repo(root) as repo:
        from git import SymbolicReference

        origin_head = SymbolicReference(repo, "refs/remotes/origin/HEAD")
        if origin_head.is_valid():
            return str(origin_head.reference.name)
        names = {ref.name for ref in repo.refs}
    return next((name for name in DEFAULT_BRANCHES if name in names), None)


def merge_base(root: Path, first: str, second: str) -> str | None:
    """The best common ancestor of two commits (full shas), or ``None`` when they share no history."""
    with _repo(root) as repo:
        bases = repo.merge_base(repo.commit(first), repo.commit(second))
    return str(bases[0].hexsha) if bases else None


def tree_entries(root: Path, commit: str, directory: str) -> dict[str, str]:
    """The files directly in ``directory`` (relative to the repository root) at ``commit``: name -> blob id."""
    with _repo(root) as repo:
        try:
            tree = repo.commit(commit).tree / directory
        except KeyError:
            return {}
        if tree.type != "tree":
            return {}
        return {blob.name: str(blob.hexsha) for blob in tree.blobs}


# -- the git command line: rules files, and the history of deleted and retired memories (cheap for every propose) ------


def list_matching(root: Path, globs: tuple[str, ...]) -> list[str]:
    """Files of the work tree (tracked, or untracked and not ignored) matching any of ``globs`` (git pathspec globs,
    relative to ``root``: ``**/AGENTS.md``), relative to ``root``, sorted."""
    if not globs:
        return []
    specs = [f":(glob){glob}" for glob in globs]
    out = git(root, "ls-files", "-z", "--cached", "--others", "--exclude-standard", "--", *specs)
    return sorted({path for path in out.decode("utf-8", "surrogateescape").split("\0") if path})


@dataclass(frozen=True)
class CommitRef:
    """A commit as a message names it."""

    sha: str
    short: str
    date: str  # committer date, YYYY-MM-DD
    subject: str


@dataclass(frozen=True)
class Change:
    """A commit that added (A), deleted (D) or renamed (R, from ``old_path``; with rename detection) a file."""

    commit: CommitRef
    status: str
    path: str
    old_path: str | None = None

    @property
    def before(self) -> str:
        """The name of what a deleted file held just before (``git cat-file`` reads it)."""
        return f"{self.commit.sha}^:{self.path}"


_LOG_FORMAT = "--format=%x1e%H%x1f%h%x1f%cs%x1f%s"


def head_commit(root: Path) -> str | None:
    """HEAD's full sha; ``None`` before the first commit."""
    try:
        return git(root, "rev-parse", "--verify", "--quiet", "HEAD^{commit}").decode("ascii").strip() or None
    except GitFailed:
        return None


def is_ancestor(root: Path, old: str, new: str) -> bool:
    """Whether commit ``old`` is in the history of ``new`` (False too when ``old`` no longer exists)."""
    try:
        done = subprocess.run(
            ["git", "merge-base", "--is-ancestor", old, new],
            cwd=root,
            capture_output=True,
            env=clean_env(False),
            check=False,
        )
    except FileNotFoundError:
        raise GitFailed("git is not installed (or not on PATH): install git and try again") from None
    return done.returncode == 0


def _log_records(output: bytes) -> Iterator[tuple[CommitRef, list[str]]]:
    """Records of ``git log -z`` with ``_LOG_FORMAT``: each commit and the NUL-separated fields after its header."""
    for record in output.decode("utf-8", "surrogateescape").split("\x1e"):
        if not record.strip("\x00\n"):
            continue
        header, _, rest = record.partition("\x00")
        sha, short, day, subject = header.split("\x1f", 3)
        yield CommitRef(sha, short, day, subject), [part.lstrip("\n") for part in rest.split("\x00") if part.strip()]


def file_changes(root: Path, directory: str, since: str | None = None) -> list[Change]:
    """The files under ``directory`` added or deleted by the commits of HEAD's history (after ``since``), newest
    first. Rename detection is off: small files that share most lines (memories do) would pass for renames of each
    other, hiding a deletion; a rename shows as a deletion and an addition."""
    revisions = f"{since}..HEAD" if since else "HEAD"
    output = git(
        root, "log", "-z", "--name-status", "--no-renames", "--diff-filter=AD", _LOG_FORMAT, revisions, "--", directory
    )
    changes = []
    for commit, fields in _log_records(output):
        position = 0
        while position < len(fields):
            status = fields[position][:1]
            if status in ("R", "C") and position + 2 < len(fields):
                changes.append(Change(commit, status, fields[position + 2], fields[position + 1]))
                position += 3
            elif position + 1 < len(fields):
                changes.append(Change(commit, status, fields[position + 1]))
                position += 2
            else:
                break
    return changes


def last_commits_matching(root: Path, paths: list[str], regex: str, since: str | None = None) -> dict[str, CommitRef]:
    """For each of ``paths``, the newest commit (after ``since``) whose diff of it adds or removes a line matching
    ``regex`` (``git log -G``)."""
    revisions = f"{since}..HEAD" if since else "HEAD"
    output = git(root, "log", "-z", "--name-only", f"-G{regex}", _LOG_FORMAT, revisions, "--", *paths)
    found: dict[str, CommitRef] = {}
    for commit, paths in _log_records(output):
        for path in paths:
            found.setdefault(path, commit)
    return found


def tree_files(root: Path, commit: str, directory: str) -> dict[str, str]:
    """The files directly in ``directory`` at ``commit``: name -> blob id (git command line, no GitPython)."""
    output = git(root, "ls-tree", "-z", "--full-tree", commit, "--", directory.rstrip("/") + "/")
    files = {}
    for entry in output.decode("utf-8", "surrogateescape").split("\x00"):
        meta, _, path = entry.partition("\t")
        parts = meta.split()
        if len(parts) == 3 and parts[1] == "blob":
            files[path.rsplit("/", 1)[-1]] = parts[2]
    return files


def blob_ids(root: Path, names: Iterable[str]) -> dict[str, str]:
    """The ids of the blobs ``names`` name (``REV:PATH``), through one ``git cat-file --batch-check``; names that
    are not blobs git has are left out."""
    wanted = list(dict.fromkeys(names))
    if not wanted:
        return {}
    output = git(root, "cat-file", "--batch-check", input="".join(f"{name}\n" for name in wanted).encode("utf-8"))
    found = {}
    for name, line in zip(wanted, output.decode("utf-8", "replace").splitlines(), strict=False):
        parts = line.split()
        if len(parts) == 3 and parts[1] == "blob":
            found[name] = parts[0]
    return found


def cat_blobs(root: Path, names: Iterable[str]) -> dict[str, bytes]:
    """The contents of blobs by name (an id, or ``REV:PATH``), through one ``git cat-file --batch``; names that are
    not blobs git has are left out."""
    wanted = list(dict.fromkeys(names))
    if not wanted:
        return {}
    output = git(root, "cat-file", "--batch", input="".join(f"{blob}\n" for blob in wanted).encode("ascii"))
    found: dict[str, bytes] = {}
    position = 0
    for blob in wanted:
        end = output.index(b"\n", position)
        header = output[position:end].split()
        position = end + 1
        if len(header) != 3 or header[1] != b"blob":  # "<name> missing", or not a blob (no contents follow then)
            if len(header) == 3:
                position += int(header[2]) + 1
            continue
        size = int(header[2])
        found[blob] = output[position : position + size]
        position += size + 1
    return found


def read_blobs(root: Path, blob_ids: Iterable[str]) -> dict[str, bytes]:
    """The contents of blobs by id (read through one ``git cat-file --batch`` process)."""
    with _repo(root) as repo:
        return {blob: repo.odb.stream(bytes.fromhex(blob)).read() for blob in dict.fromkeys(blob_ids)}


def blob_id(data: bytes) -> str:
    """The id git gives a file with these bytes (``git hash-object``)."""
    return hashlib.sha1(b"blob %d\x00" % len(data) + data, usedforsecurity=False).hexdigest()


# -- merging text the way git does ------------------------------------------------------------------------------------


def merge_text(ours: str, base: str, theirs: str) -> tuple[str, int]:
    """git's own three-way merge of three texts (``git merge-file``): the result, and how many conflicts it holds."""
    import tempfile

    with tempfile.TemporaryDirectory(prefix="gitmem-merge-") as tmp:
        paths = []
        for name, text in (("ours", ours), ("base", base), ("theirs", theirs)):
            path = Path(tmp) / name
            path.write_bytes(text.encode("utf-8", "surrogateescape"))
            paths.append(str(path))
        try:
            done = subprocess.run(
                ["git", "merge-file", "-p", "-L", "ours", "-L", "base", "-L", "theirs", *paths],
                capture_output=True,
                env=clean_env(foreign=True),
                check=False,
            )
        except FileNotFoundError:
            raise GitFailed("git is not installed (or not on PATH): install git and try again") from None
    if done.returncode < 0 or done.returncode > 127:
        raise GitFailed(f"git merge-file failed: {done.stderr.decode('utf-8', 'replace').strip()}")
    return done.stdout.decode("utf-8", "surrogateescape"), done.returncode


# -- reverting a memory ------------------------------------------------------------------------------------------------


def introducing_commit(root: Path, path: str) -> Commit | None:
    """The commit that last added ``path`` (renames are not followed: small memory files look alike to git's rename
    detection, and a memory's id, its file name, does not change), or ``None`` when it was never committed."""
    with _repo(root) as repo:
        _require_commits(repo)
        output = str(
            repo.git.log(
                "--diff-filter=A", "--no-renames", "-1", "--format=%H%x1f%h%x1f%as%x1f%aI%x1f%an%x1f%s", "--", path
            )
        )
    if not output.strip():
        return None
    sha, short, day, moment, author, subject = output.strip().split("\x1f", 5)
    return Commit(sha, short, day, moment, author, subject, path, "A")


def commit_files(root: Path, sha: str) -> list[str]:
    """The paths a commit changed (compared with its first parent; everything, for a root commit)."""
    with _repo(root) as repo:
        output = repo.git.diff_tree("--no-commit-id", "--root", "-r", "-z", "--name-only", sha)
    return [path for path in str(output).split("\x00") if path]


def has_staged_changes(root: Path) -> bool:
    with _repo(root) as repo:
        _require_commits(repo)
        return bool(repo.index.diff("HEAD"))


def revert_no_commit(root: Path, sha: str) -> list[str]:
    """Apply the reverse of ``sha`` to the index and work tree; returns the files left in conflict."""
    from git.exc import GitCommandError

    with _repo(root) as repo:
        try:
            repo.git.revert("--no-commit", "--no-edit", sha)
        except GitCommandError as exc:
            conflicted = conflicted_files(root)
            if not conflicted:
                raise GitFailed(_command_failure(exc)) from None
            return conflicted
    return []


def conflicted_files(root: Path) -> list[str]:
    output = git(root, "diff", "--name-only", "-z", "--diff-filter=U")
    return [path for path in output.decode("utf-8", "surrogateescape").split("\x00") if path]


def abort_revert(root: Path) -> None:
    with _repo(root) as repo:
        repo.git.revert("--abort")


def stage(root: Path, paths: Iterable[str]) -> None:
    """`git add -A` for these paths (new, changed and removed files alike)."""
    present = [path for path in paths if (root / path).exists()]
    gone = [path for path in paths if not (root / path).exists()]
    with _repo(root) as repo:
        if present:
            repo.git.add("-A", "--", *present)
        if gone:
            repo.git.rm("-q", "--cached", "--ignore-unmatch", "--", *gone)


def take_ours(root: Path, path: str) -> None:
    """Resolve a conflicted file with our side when there is one (compile then rewrites it), else drop it."""
    with _repo(root) as repo:
        try:
            repo.git.checkout("--ours", "--", path)
        except Exception:  # no "ours" stage: the file did not exist on our side
            repo.git.rm("-q", "--cached", "--ignore-unmatch", "--", path)


def commit(root: Path, message: str, paths: Sequence[str] = ()) -> str:
    """Commit the index (or, with ``paths``, only those paths); returns the new commit's short sha.

    The repository's own hooks run, as for any commit.
    """
    args = ["-q", "-m", message]
    if paths:
        args += ["--", *paths]
    done = subprocess.run(["git", "commit", *args], cwd=root, capture_output=True, text=True, env=clean_env(False))
    if done.returncode != 0:
        output = (done.stdout + done.stderr).strip()
        raise GitFailed(
            "git commit was refused (by a hook?); the change is staged: fix what it says, then `git commit`\n" + output
        )
    return git(root, "rev-parse", "--short=7", "HEAD").decode("ascii").strip()
