"""History and changes to the repository through GitPython (imported only inside the functions that
need it, with ``with Repo(path) as repo:``): a file's commits, revisions, the commit that introduced
a memory, reverting, staging and committing. GitPython's failures become advice. The cheap
command-line calls are in ``command``.
"""

from __future__ import annotations

import subprocess
from collections.abc import Iterable, Iterator, Sequence
from contextlib import contextmanager, suppress
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from gitmem import gateway
from gitmem.errors import UsageError
from gitmem.gitcommand import GitFailed, clean_env, git

# -- GitPython: history, revisions, files at a revision --------------------------------------------

ADVICE = "git failed. Is it installed, and are you in a Git repository?"
NO_COMMITS = "this repository has no commits yet: commit something first, then try again"


@contextmanager
def _repo(root: Path) -> Iterator[Any]:
    """The repository at ``root`` (GitPython ``Repo``), with GitPython's failures turned into
    advice."""
    try:
        from git import Repo  # lazy: GitPython fails to import where git cannot run

        # lazy: GitPython fails to import where git cannot run
        from git.exc import (
            GitCommandError,
            GitCommandNotFound,
            InvalidGitRepositoryError,
            NoSuchPathError,
        )
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
    """A ``GitCommandError`` as one line (GitPython keeps its command as a list and its stderr as
    a string, "" for none)."""
    name = " ".join(map(str, exc.command[1:2])) or "command"
    lines = list(filter(None, map(str.strip, exc.stderr.splitlines())))
    detail = next(reversed(lines), "").removeprefix("stderr:").strip().strip("'").strip()
    return f"git {name} failed: {detail or f'exit code {exc.status}'}"


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

    A copy is not followed: git's copy detection sees a new memory file as a copy of any similar
    (small) one, so a "copy" is where a file's history starts.
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
    for record in output.split("\x1e")[1:]:  # the output starts with a separator
        header, _, changes = record.partition("\x00")
        sha, short, day, moment, author, subject = header.split("\x1f", 5)
        status, *named = [*filter(None, changes.lstrip("\n").split("\x00"))] or ["M"]
        change = status[:1]
        moved = change in ("R", "C") and len(named) >= 2  # from named[0] to named[1]
        old_path, new_path = (named[0], named[1]) if moved else (None, next(iter(named), path))
        if moved and change == "C":
            commits.append(Commit(sha, short, day, moment, author, subject, new_path, "A"))
            break
        commits.append(Commit(sha, short, day, moment, author, subject, new_path, change, old_path))
    return commits


def file_status(root: Path, path: str) -> str | None:
    """How the working tree's ``path`` differs from HEAD: "untracked", "modified", "deleted", or
    ``None``."""
    output = git(root, "status", "--porcelain", "-z", "--untracked-files=all", "--", path).decode(
        "utf-8", "replace"
    )
    if not output:
        return None
    code = output[:2]
    if code == "??":
        return "untracked"
    if "D" in code:
        return "deleted"
    return "modified"


def resolve(root: Path, rev: str) -> str:
    """The full sha of the commit ``rev`` names (a branch, tag, sha, HEAD~2...), or advice when
    it names none."""

    with _repo(root) as repo:
        from git.exc import GitCommandError  # lazy: GitPython fails to import where git cannot run

        try:
            return str(
                repo.git.rev_parse("--verify", "--quiet", "--end-of-options", f"{rev}^{{commit}}")
            ).strip()
        except GitCommandError:
            pass
        _require_commits(repo)
    raise UsageError(
        f"unknown revision {rev!r}: name a branch, tag or commit (`git branch -a` lists "
        "the branches)"
    )


# The default branch, in order of preference: what origin/HEAD points at (set by `git clone`), then
# these.
DEFAULT_BRANCHES = ("origin/main", "origin/master", "main", "master")


def default_branch(root: Path) -> str | None:
    """The branch pull requests here target: origin/HEAD's target, else origin/main,
    origin/master, main, master."""
    with _repo(root) as repo:
        from git import SymbolicReference  # lazy: GitPython fails to import where git cannot run

        origin_head = SymbolicReference(repo, "refs/remotes/origin/HEAD")
        if origin_head.is_valid():
            return str(origin_head.reference.name)
        names = {ref.name for ref in repo.refs}
    return next((name for name in DEFAULT_BRANCHES if name in names), None)


def merge_base(root: Path, first: str, second: str) -> str | None:
    """The best common ancestor of two commits (full shas), or ``None`` when they share no
    history."""
    with _repo(root) as repo:
        bases = repo.merge_base(repo.commit(first), repo.commit(second))
    return str(bases[0].hexsha) if bases else None


def tree_entries(root: Path, commit: str, directory: str) -> dict[str, str]:
    """The files directly in ``directory`` (relative to the repository root) at ``commit``: name
    -> blob id."""
    with _repo(root) as repo:
        try:
            tree = repo.commit(commit).tree / directory
        except KeyError:
            return {}
        if tree.type != "tree":
            return {}
        return {blob.name: str(blob.hexsha) for blob in tree.blobs}


def read_blobs(root: Path, blob_ids: Iterable[str]) -> dict[str, bytes]:
    """The contents of blobs by id (read through one ``git cat-file --batch`` process)."""
    with _repo(root) as repo:
        return {
            blob: repo.odb.stream(bytes.fromhex(blob)).read() for blob in dict.fromkeys(blob_ids)
        }


# -- reverting a memory ----------------------------------------------------------------------------


def introducing_commit(root: Path, path: str) -> Commit | None:
    """The commit that last added ``path`` (renames are not followed: small memory files look alike
    to git's rename detection, and a memory's id, its file name, does not change), or ``None`` when
    it was never committed.
    """
    with _repo(root) as repo:
        _require_commits(repo)
        output = str(
            repo.git.log(
                "--diff-filter=A",
                "--no-renames",
                "-1",
                "--format=%H%x1f%h%x1f%as%x1f%aI%x1f%an%x1f%s",
                "--",
                path,
            )
        )
    if not output.strip():
        return None
    sha, short, day, moment, author, subject = output.strip().split("\x1f", 5)
    return Commit(sha, short, day, moment, author, subject, path, "A")


def commit_files(root: Path, sha: str) -> list[str]:
    """The paths a commit changed (compared with its first parent; everything, for a root
    commit)."""
    with _repo(root) as repo:
        output = repo.git.diff_tree("--no-commit-id", "--root", "-r", "-z", "--name-only", sha)
    return list(filter(None, str(output).split("\x00")))


def has_staged_changes(root: Path) -> bool:
    with _repo(root) as repo:
        _require_commits(repo)
        return bool(repo.index.diff("HEAD"))


def revert_no_commit(root: Path, sha: str) -> list[str]:
    """Apply the reverse of ``sha`` to the index and work tree; returns the files left in
    conflict."""
    from git.exc import GitCommandError  # lazy: GitPython fails to import where git cannot run

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
    return list(filter(None, output.decode("utf-8", "surrogateescape").split("\x00")))


def undo_revert(root: Path, paths: Sequence[str]) -> None:
    """Undo a ``revert --no-commit`` in progress: REVERT_HEAD gone, and ``paths`` (what the revert
    and gitmem changed) back as HEAD has them in the index and the work tree; other files are not
    touched.
    """
    with suppress(GitFailed):
        git(root, "revert", "--quit")
    paths = sorted(set(paths))
    if not paths:
        return
    git(root, "reset", "-q", "HEAD", "--", *paths)
    listed = git(root, "ls-tree", "-r", "-z", "--name-only", "HEAD", "--", *paths)
    in_head = list(filter(None, listed.decode("utf-8", "surrogateescape").split("\0")))
    if in_head:
        git(root, "checkout", "HEAD", "--", *in_head)
    for path in set(paths) - set(in_head):
        gateway.remove(root, root / path, missing_ok=True)


def stage(root: Path, paths: Iterable[str]) -> None:
    """`git add -A` for these paths (new, changed and removed files alike); ``paths`` is read
    once."""
    exists: dict[bool, list[str]] = {True: [], False: []}
    for path in paths:
        exists[(root / path).exists()].append(path)
    with _repo(root) as repo:
        if exists[True]:
            repo.git.add("-A", "--", *exists[True])
        if exists[False]:
            repo.git.rm("-q", "--cached", "--ignore-unmatch", "--", *exists[False])


def take_ours(root: Path, path: str) -> None:
    """Resolve a conflicted file with our side when there is one (compile then rewrites it),
    else drop it."""
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
    done = subprocess.run(
        ["git", "commit", *args], cwd=root, capture_output=True, text=True, env=clean_env(False)
    )
    if done.returncode != 0:
        output = (done.stdout + done.stderr).strip()
        raise GitFailed(
            "git commit was refused (by a hook?); the change is staged: fix what it says, "
            "then `git commit`\n" + output
        )
    return git(root, "rev-parse", "--short=7", "HEAD").decode("ascii").strip()
