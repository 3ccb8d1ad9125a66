"""Rules files compiled after any git operation: what the git hooks (``gitmem hook git``) and CI's
refresh (``gitmem compile --commit``) run.

A rules file's managed block depends on the whole store: over the budget, one memory added takes the
place of the lowest-ranked one. The merge driver merges two blocks memory by memory, which is right
under the budget, but no merge of two blocks can know which memory the *merged* store leaves out. So
after git combined memory changes (a merge, a pull, a revert, a cherry-pick, a rebase), this
compiles the resulting store and puts what compile changed into history:

- the commit the operation just made, when no other branch (local or remote) has it: that commit is
  replaced by one with the same parents, author and message and the recompiled files (a merge commit
  stays a merge commit);
- otherwise (a fast-forward brought in commits others have, or CI on the default branch) a commit of
  its own.

Nothing happens when the rules files are already what compile writes (the usual case: one fast
compile), while git is in the middle of a rebase or a conflicted merge (the rebase's end or the
commit that concludes the merge does it), or when the store or a file compile would write has
uncommitted changes (they are the user's: the next commit's compile hook handles them). Commits are
made with git's plumbing (``commit-tree``, ``update-ref``): git refuses ``commit --amend`` in the
middle of a cherry-pick of several commits, and plumbing runs no hooks again.
"""

from __future__ import annotations

import fnmatch
import os
from dataclasses import dataclass, field
from datetime import date
from pathlib import Path, PurePosixPath
from typing import TYPE_CHECKING

from gitmem import gateway
from gitmem import gitcommand as command
from gitmem.errors import CheckFailed, UsageError
from gitmem.gateway import find_project
from gitmem.git import hookpath
from gitmem.project import Project
from gitmem.tools import CLEANUP_TARGETS as CLEANUP
from gitmem.tools import WHOLE_PREFIX

if TYPE_CHECKING:
    from gitmem.compile.changes import FileChange, Report
    from gitmem.compile.compiler import Compiled

MESSAGE = "gitmem: recompile rules files for the memories in this commit"
REBASING = ("rebase-merge", "rebase-apply")  # under the git directory while a rebase runs


@dataclass
class Refreshed:
    """What a refresh did: ``action`` is "fresh" (nothing to do), "skipped" (``reason`` says why),
    "amended" (the commit the operation made now holds the recompiled files) or "committed" (a
    commit of its own).
    """

    action: str
    files: list[str] = field(default_factory=list)
    commit: str = ""  # the new commit
    replaced: str = ""  # the commit it replaced, when amended
    reason: str = ""

    def summary(self) -> str:
        """One line for the user ("" when there was nothing to do: no file to name)."""
        line = _SUMMARIES.get(self.action, "") if self.files else ""
        return line.format(
            files=", ".join(self.files),
            replaced=self.replaced[:7],
            commit=self.commit[:7],
            reason=self.reason,
        )


# What ``Refreshed.summary`` says of each action that names files.
_SUMMARIES = {
    "amended": "gitmem: recompiled {files} for the resulting store: commit {replaced} is now "
    "{commit} (same parents, author and message)",
    "committed": "gitmem: recompiled {files} for the resulting store, in commit {commit}",
    "skipped": "gitmem: {files} out of date, not recompiled: {reason}",
}


def is_generated(path: str) -> bool:
    """Whether ``path`` (relative to the root, / separators) is a rules file gitmem compiles."""
    name = PurePosixPath(path).name
    return any(
        path in (target.root_file, target.reads_config)
        or name in (target.root_file, target.dir_file)
        or (
            bool(target.scoped_dir)
            and fnmatch.fnmatch(path, f"{target.scoped_dir}/{WHOLE_PREFIX}*{target.scoped_suffix}")
        )
        for target in CLEANUP
    )


def untouched(project: Project) -> bool:
    """Whether the step that moved HEAD here (a commit, a merge, a fast-forward: ``HEAD@{1}``)
    changed neither the store nor a rules file: then nothing can have gone stale, and the hook needs
    no compile (a commit of code).
    """
    try:
        out = command.git(
            project.root, "diff", "--name-only", "-z", "--no-renames", "HEAD@{1}", "HEAD", "--", "."
        )  # the whole tree
    except command.GitFailed:
        return False  # no earlier HEAD (a first commit) or no reflog
    memory = project.memory_dir.relative_to(project.root).as_posix() + "/"
    names = out.decode("utf-8", "surrogateescape").split("\0")  # the last one "": none of these
    return not any(name.startswith(memory) or is_generated(name) for name in names)


def after_operation(rewrite: str) -> str:
    """What ``gitmem hook git`` does in the project here: the refresh, unless ``needless``; returns
    the line to show ("" for none). ``rewrite``: the post-rewrite hook's argument ("rebase",
    "amend"), "" from the other hooks.
    """

    project = find_project()
    if not project.memory_dir.is_dir() or needless(
        project, rewrite
    ):  # a branch from before gitmem: nothing to do
        return ""
    return refresh(project, date.today(), rewriting=rewrite == "rebase").summary()


def needless(project: Project, rewrite: str) -> bool:
    """Whether the hook can stop before compiling: an amend (its post-commit did the work), or a
    step that changed neither the store nor a rules file (``untouched``; not the end of a rebase or
    of a cherry-pick of several commits, whose last step is not the whole change)."""
    if rewrite == "amend":
        return True
    if rewrite == "rebase" or _git_path(project, "sequencer/todo").exists():
        return False
    return untouched(project)


def busy(project: Project, rewriting: bool) -> str | None:
    """Why a refresh does not run now, or ``None``: git is in the middle of a merge with unresolved
    conflicts, a rebase (unless ``rewriting``: called at its end, by the post-rewrite hook, before
    git removes its state) or a pick of several commits; or the store has uncommitted changes."""
    if command.git(project.root, "ls-files", "--unmerged"):
        return "unresolved conflicts"
    if not rewriting:  # (called at a rebase's end, the rebase's state is still there)
        if any(_git_path(project, name).exists() for name in REBASING):
            return "a rebase is in progress"
        if len(_steps_left(project)) > 1:  # git picks the next one on this index: at the last
            return "a cherry-pick or revert of several commits is in progress"
    memory = project.memory_dir.relative_to(project.root).as_posix()
    if hookpath.status(project, [memory]):
        return f"{memory}/ has uncommitted changes: `gitmem compile` when ready"
    return None


def _steps_left(project: Project) -> list[str]:
    """The steps of a cherry-pick or revert of several commits still to do, the current first."""
    todo = _git_path(project, "sequencer/todo")
    if not todo.exists():
        return []
    lines = gateway.read_git_file(todo).splitlines()
    return [line for line in lines if line.strip() and line[0] != "#"]


def _git_path(project: Project, name: str) -> Path:
    return (
        project.root / command.git(project.root, "rev-parse", "--git-path", name).decode().strip()
    )


def refresh(
    project: Project, today: date, *, own_commit: bool = False, rewriting: bool = False
) -> Refreshed:
    """Compile the committed store and commit what changed (see the module's docstring).
    ``own_commit``: always a commit of its own (CI on the default branch). Raises ``CheckFailed``
    when the store does not compile (invalid files, a shared pack's problems, hand edits in a
    block): nothing is written then. A target whose file cannot be written is held, as compile
    holds it (`gitmem check` says why), and the others are committed.
    """
    head = command.head_commit(project.root)
    if head is None:
        return Refreshed("skipped", reason="no commit yet")
    why = busy(project, rewriting)
    if why is not None:
        return Refreshed("skipped", reason=why)
    changes = _prepare(project, today)
    stale, ready = _stale(project, changes)
    edited = sorted(ready.intersection(stale))  # neither HEAD's nor compile's: the user's
    if edited:
        return Refreshed("skipped", stale, reason=f"{', '.join(edited)} has uncommitted changes")
    from gitmem.compile.compiler import apply  # lazy: the post-commit hook's start-up

    apply(project, changes)  # a file git ignores too, for this clone only
    kept = sorted({*stale, *ready})
    if not kept:
        return Refreshed("fresh")
    amend = not own_commit and _only_here(project, head)
    new = _commit(project, head, kept, amend)
    return Refreshed("amended" if amend else "committed", kept, new, head if amend else "")


def _stale(project: Project, changes: Report) -> tuple[list[str], set[str]]:
    """The files compile changes, and those whose working tree differs from HEAD (already what
    compile writes but not committed, when an earlier run stopped; or edited by the user), as
    written (a link's target); never a file git ignores (never committed: `gitmem check` names it).
    """
    real = {change.path: _written(project, change) for change in changes.changes}
    stale = {real[change.path] for change in changes.changes if change.changed}
    ignored = set(command.ignored(project.root, sorted(stale)))
    dirty = {path for _, path in hookpath.status(project, sorted(set(real.values())))}
    return sorted(stale - ignored), dirty - ignored


def _written(project: Project, change: FileChange) -> str:
    """The file compile writes for ``change``, relative to the root: a link's target
    (``AGENTS.md -> CLAUDE.md`` writes CLAUDE.md, which the commit must hold; the link is
    unchanged)."""
    if change.io_path is None:
        return change.path
    return Path(os.path.relpath(change.io_path, os.path.realpath(project.root))).as_posix()


def _prepare(project: Project, today: date) -> Report:
    # lazy: the post-commit hook's start-up
    from gitmem.compile.compiler import Request, compile_store
    from gitmem.memory.config import load_config  # lazy: the post-commit hook's start-up
    from gitmem.memory.store import Store  # lazy: the post-commit hook's start-up

    return Refusal().check(
        compile_store(project, Store(project), load_config(project), Request(today))
    )


@dataclass(frozen=True)
class Refusal:
    """What a command that compiles says when the compile cannot go on (each command's words): the
    memory files are invalid, the rules files could not be compiled, or their blocks were edited by
    hand."""

    invalid: str = "memory files are invalid: fix them, then run `gitmem compile`"
    problems: str = "the rules files could not be compiled"
    edited: str = "run `gitmem compile --force`"

    def check(self, result: Compiled) -> Report:
        """``result``'s report, or the refusal (``CheckFailed``, ``UsageError``)."""
        if result.invalid:
            raise CheckFailed(result.invalid, self.invalid)
        report = result.report
        if report.problems:
            raise CheckFailed(report.problems, self.problems)
        if report.refused:
            edited = ", ".join(change.path for change in report.refused)
            raise UsageError(f"{edited}: edited by hand inside the gitmem block; {self.edited}")
        return report


def _only_here(project: Project, head: str) -> bool:
    """Whether no branch, tag or remote-tracking branch but the current one has ``head``: it was
    made here, now."""
    try:
        current = command.git(project.root, "symbolic-ref", "-q", "HEAD").decode().strip()
    except command.GitFailed:
        current = ""  # detached (a rebase before it moves the branch)
    refs = ("refs/heads", "refs/remotes", "refs/tags")
    out = command.git(
        project.root, "for-each-ref", "--contains", head, "--format=%(refname)", *refs
    )
    return all(ref == current for ref in out.decode().split())


def _commit(project: Project, head: str, paths: list[str], amend: bool) -> str:
    """A commit of HEAD's tree with ``paths`` as in the working tree: replacing HEAD (same parents,
    author and message) or on top of it. The index gets the same files; HEAD moves to it."""
    root = project.root
    scratch = gateway.resolve(
        project, project.cache_dir / "refresh.index"
    )  # HEAD's tree and these files only
    gateway.make_dirs(project, scratch.parent)
    env = {"GIT_INDEX_FILE": str(scratch)}
    try:
        command.git(root, "read-tree", head, env=env)
        command.git(root, "add", "-A", "--", *paths, env=env)
        tree = command.git(root, "write-tree", env=env).decode().strip()
    finally:
        gateway.remove(project, scratch, missing_ok=True)
    command.git(root, "add", "-A", "--", *paths)
    if amend:
        parents = command.git(root, "rev-parse", f"{head}^@").decode().split()
        raw = command.git(root, "cat-file", "commit", head).decode("utf-8", "surrogateescape")
        headers, _, message = raw.partition("\n\n")
        author = next(line for line in headers.splitlines() if line.startswith("author "))
        name, _, rest = author.removeprefix("author ").rpartition(" <")
        email, _, when = rest.partition("> ")
        author_env = {
            "GIT_AUTHOR_NAME": name,
            "GIT_AUTHOR_EMAIL": email,
            "GIT_AUTHOR_DATE": f"@{when}",
        }
    else:
        parents = [head]
        message = f"{MESSAGE}\n\nRecompiled: {', '.join(paths)}\n"
        author_env = {}
    args = [arg for parent in parents for arg in ("-p", parent)]
    new = command.git(
        root, "commit-tree", tree, *args, input=message.encode("utf-8", "surrogateescape"),
        env=author_env,
    ).decode().strip()  # fmt: skip
    reason = "gitmem: recompiled rules files" + (" (amended)" if amend else "")
    command.git(root, "update-ref", "-m", reason, "HEAD", new, head)
    return new
