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
from gitmem.git.refresh import is_generated
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
    if introduced is None and not store.path_of(memory_id).exists():
        store.get(memory_id)  # a mistyped id: "no memory 'x' (did you mean 'y'?)"
    if introduced is None:
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
    only_this = all(path == relative or is_generated(path) for path in touched)
    if only_this:
        conflicts = history.revert_no_commit(project.root, introduced.sha)
        compiled: list[str] = []
        try:
            for path in conflicts:
                if path != relative and not is_generated(path):
                    raise UsageError(
                        f"reverting {introduced.short} conflicts in {path}: undo it by hand"
                    )
                history.take_ours(project.root, path)
            if store.path_of(
                memory_id
            ).exists():  # changed since it was added: git kept our version
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

    result = compile_store(
        project, store, load_config(project), Request(today, without=(memory_id,))
    )
    if result.invalid:
        raise CheckFailed(
            result.invalid,
            "memory files are invalid: fix them first (nothing was reverted), then run it again",
        )
    report = result.report
    if report.problems:
        raise CheckFailed(
            report.problems, "the rules files could not be compiled: nothing was reverted"
        )
    if report.refused:
        edited = ", ".join(change.path for change in report.refused)
        raise UsageError(
            f"{edited}: edited by hand inside the gitmem block; run `gitmem compile --force` first "
            "(nothing was reverted)"
        )


def _recompile(project: Project, store: Store, today: date) -> list[str]:
    """Compile every target; returns the files that changed. Refuses (writing nothing) as
    `gitmem compile` would."""

    result = compile_store(project, store, load_config(project), Request(today, mode="write"))
    if result.invalid:
        raise CheckFailed(
            result.invalid, "memory files are invalid: fix them, then run `gitmem compile`"
        )
    report = result.report
    if report.problems:
        raise CheckFailed(report.problems, "the rules files could not be compiled")
    if report.refused:
        edited = ", ".join(change.path for change in report.refused)
        raise UsageError(
            f"{edited}: edited by hand inside the gitmem block; run `gitmem compile --force` first"
        )
    return [change.path for change in result.written]
