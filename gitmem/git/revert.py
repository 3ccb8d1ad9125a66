"""`gitmem revert ID`: undo a memory the git way, then recompile.

When the commit that introduced the memory touched nothing but that memory and the generated rules
files, that commit is reverted (`git revert`), so history says plainly what was undone. Otherwise
(the commit also added other memories or code) a new commit removes just this memory. Either way the
rules files are recompiled into the same commit, so every target is without the memory and `gitmem
compile --check` passes.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import date

from gitmem.compile.compiler import Request, compile_store
from gitmem.errors import CheckFailed, UsageError
from gitmem.git import history
from gitmem.git.refresh import Refusal, is_generated
from gitmem.memory import actions
from gitmem.memory.config import load_config
from gitmem.memory.store import Store
from gitmem.project import Project


@dataclass
class Reverted:
    # "reverted": the introducing commit was reverted; "removed": a new commit removed the memory
    mode: str
    commit: str  # the new commit (short sha)
    introduced_by: history.Commit
    compiled: list[str] = field(default_factory=list)  # rules files the recompile changed


def revert_memory(project: Project, memory_id: str, today: date) -> Reverted:
    store = Store(project)
    relative = store.path_of(memory_id).relative_to(project.root).as_posix()
    introduced = history.introducing_commit(project.root, relative)
    if introduced is None:
        if not store.path_of(memory_id).exists():
            store.get(memory_id)  # a mistyped id: "no memory 'x' (did you mean 'y'?)"
        raise UsageError(
            f"memory {memory_id!r} was never committed, so there is nothing to revert: `gitmem "
            f"forget {memory_id}` removes the file"
        )
    if not store.path_of(memory_id).exists():
        raise UsageError(
            f"memory {memory_id!r} is not in the working tree any more (already removed?)"
        )
    if history.has_staged_changes(project.root):
        raise UsageError(
            "there are staged changes: commit or unstage them first, so the revert commit "
            "holds only it"
        )
    _check_first(project, store, memory_id, today)
    touched = history.commit_files(project.root, introduced.sha)
    if all(path == relative or is_generated(path) for path in touched):
        return _revert_commit(store, memory_id, today, introduced, touched)
    return _remove(store, memory_id, today, introduced)


def _revert_commit(
    store: Store, memory_id: str, today: date, introduced: history.Commit, touched: list[str]
) -> Reverted:
    """``git revert`` of the commit that ``introduced`` the memory and touched nothing else but
    generated rules files (``touched``), recompiled into the same commit."""
    project = store.project
    relative = store.path_of(memory_id).relative_to(project.root).as_posix()
    conflicts = history.revert_no_commit(project.root, introduced.sha)
    compiled: list[str] = []
    try:
        for path in conflicts:
            if path != relative and not is_generated(path):
                raise UsageError(
                    f"reverting {introduced.short} conflicts in {path}: undo it by hand"
                )
            history.take_ours(project.root, path)
        if store.path_of(memory_id).exists():  # changed since it was added: git kept our version
            store.delete(memory_id)
        compiled = _recompile(project, store, today)
        history.stage(project.root, [relative, *compiled])
    except BaseException:  # no REVERT_HEAD, no unmerged file, the memory back as it was
        history.undo_revert(project.root, [relative, *touched, *conflicts, *compiled])
        raise
    message = (
        f'Revert "{introduced.subject}"\n\nThis reverts commit {introduced.sha}.\n(gitmem '
        f"revert {memory_id})"
    )
    sha = history.commit(project.root, message)
    return Reverted("reverted", sha, introduced, compiled)


def _remove(store: Store, memory_id: str, today: date, introduced: history.Commit) -> Reverted:
    """A commit of its own that removes the memory (the one that ``introduced`` it changed other
    files too), recompiled into it."""
    project = store.project
    relative = store.path_of(memory_id).relative_to(project.root).as_posix()
    outcome = actions.forget(store, memory_id)
    changed = [relative, *(path.relative_to(project.root).as_posix() for path in outcome.written)]
    compiled = _recompile(project, store, today)
    paths = list(dict.fromkeys([*changed, *compiled]))
    history.stage(project.root, paths)
    message = (
        f"Remove memory {memory_id}\n\nIt was added by {introduced.short} "
        f"({introduced.subject}), which changed other files too, so that commit is not "
        f"reverted.\n(gitmem revert {memory_id})"
    )
    sha = history.commit(project.root, message, paths)
    return Reverted("removed", sha, introduced, compiled)


def _check_first(project: Project, store: Store, memory_id: str, today: date) -> None:
    """Refuse, before git changes anything, a revert whose recompile would fail: every memory file
    must be valid, and the rules files must compile without this memory."""

    config = load_config(project)
    result = compile_store(project, store, config, Request(today, without=(memory_id,)))
    if _UNTOUCHED.check(result).held:  # that file would keep the memory: the revert waits for it
        raise CheckFailed(
            result.report.held,
            "a rules file that would keep the memory cannot be written: fix it first (nothing "
            "was reverted)",
        )


def _recompile(project: Project, store: Store, today: date) -> list[str]:
    """Compile every target; returns the files that changed. Refuses (writing nothing) as
    `gitmem compile` would."""

    result = compile_store(project, store, load_config(project), Request(today, mode="write"))
    _WRITING.check(result)
    return [change.path for change in result.written]


# What the revert says when a compile cannot go on: before git changes anything, and after.
_UNTOUCHED = Refusal(
    "memory files are invalid: fix them first (nothing was reverted), then run it again",
    "the rules files could not be compiled: nothing was reverted",
    "run `gitmem compile --force` first (nothing was reverted)",
)
_WRITING = Refusal(edited="run `gitmem compile --force` first")
