from __future__ import annotations

from typing import TYPE_CHECKING

import click

from gitmem import gateway
from gitmem.commands import open_store, today
from gitmem.commands.output import echo
from gitmem.errors import CheckFailed
from gitmem.memory import actions

if TYPE_CHECKING:
    from gitmem.project import Project

USER_HELP = "A memory of your personal store (~/.config/gitmem) instead of the project's."


@click.command()
@click.argument("memory_id", metavar="ID")
@click.option("--user", is_flag=True, help=USER_HELP)
def edit(memory_id: str, user: bool) -> int:
    """Edit a memory in $EDITOR. An invalid result is refused and the original kept.

    The edited text is checked like any write (schema, secrets, hidden Unicode). When it is refused,
    your draft is kept under .git/gitmem/drafts/ (with --user: ~/.cache/gitmem/drafts/) so nothing
    you typed is lost.

    \b
    Examples:
      EDITOR=nano gitmem edit use-pnpm
      gitmem edit --user british-english
    """
    project, store = open_store(user)
    snapshot = store.load()
    store.get(memory_id, snapshot)
    path = store.path_of(memory_id)
    original = gateway.read_text(project, path)
    draft = project.cache_dir / "drafts" / f"{memory_id}.yaml"
    gateway.write(project, draft, original)
    click.edit(filename=str(draft))
    edited = gateway.read_text(project, draft)
    if edited == original:
        gateway.remove(project, draft)
        echo(f"no changes to {project.display(path)}")
        return 0
    try:
        store.replace_text(memory_id, edited, snapshot)
    except CheckFailed as exc:
        raise CheckFailed(
            exc.problems,
            f"refused: {project.display(path)} is unchanged; your edit is kept in "
            f"{project.display(draft)}",
        ) from None
    gateway.remove(project, draft)
    echo(f"updated {project.display(path)}")
    return 0


@click.command()
@click.argument("memory_ids", metavar="ID...", nargs=-1, required=True)
@click.option("--user", is_flag=True, help=USER_HELP)
def accept(memory_ids: tuple[str, ...], user: bool) -> int:
    """Make proposed memories active (a human's decision, typically in the pull request).

    A memory that supersedes others retires them when it becomes active.

    \b
    Example:
      gitmem list --status proposed
      gitmem accept use-pnpm pin-node-20
    """
    project, store = open_store(user)
    _print_outcome(project, actions.accept(store, list(dict.fromkeys(memory_ids)), today()))
    return 0


@click.command()
@click.argument("memory_id", metavar="ID")
@click.option("--reason", help="Why it no longer holds (kept in the file).")
@click.option("--superseded-by", metavar="ID", help="The memory that replaces it.")
@click.option("--user", is_flag=True, help=USER_HELP)
def retire(memory_id: str, reason: str | None, superseded_by: str | None, user: bool) -> int:
    """Retire a memory: it stays on file for history but is no longer compiled or recalled.

    \b
    Example:
      gitmem retire use-npm --superseded-by use-pnpm
    """
    project, store = open_store(user)
    _print_outcome(project, actions.retire(store, memory_id, today(), reason, superseded_by))
    return 0


def _print_outcome(project: Project, outcome: actions.Outcome) -> None:
    """The files an accept or a retire updated, then its notes."""
    for path in outcome.written:
        echo(f"updated {project.display(path)}")
    for note in outcome.notes:
        echo(note)


@click.command()
@click.argument("memory_id", metavar="ID")
@click.option("--user", is_flag=True, help=USER_HELP)
def forget(memory_id: str, user: bool) -> int:
    """Delete a memory's file. Git keeps its history; prefer `retire` to keep it on file.

    \b
    Examples:
      gitmem forget wrong-guess
      gitmem forget --user old-habit
    """
    project, store = open_store(user)
    path = store.path_of(memory_id)
    outcome = actions.forget(store, memory_id)
    for note in outcome.notes:
        echo(note)
    echo(
        f"removed {project.display(path)}" + ("" if user else " (git keeps it if it was committed)")
    )
    return 0
