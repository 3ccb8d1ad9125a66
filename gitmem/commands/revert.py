from __future__ import annotations

import click

from gitmem.commands import open_store, today
from gitmem.commands.output import echo
from gitmem.git.revert import revert_memory


@click.command()
@click.argument("memory_id", metavar="ID")
def revert(memory_id: str) -> int:
    """Undo a memory with a commit, and recompile the rules files.

    If the commit that added the memory touched only that memory and generated rules files, it is
    reverted (`git revert`); otherwise a new commit removes just this memory. Either way the
    recompiled rules files go into the same commit. Needs a clean index (nothing staged).

    \b
    Example:
      gitmem revert wrong-guess
      git show --stat HEAD
    """

    project, _ = open_store()
    done = revert_memory(project, memory_id, today())
    intro = f"{done.introduced_by.short} ({done.introduced_by.subject})"
    if done.mode == "reverted":
        echo(f"reverted {intro} in commit {done.commit}")
    else:
        echo(f"{intro} changed other files too: removed the memory in commit {done.commit}")
    for path in done.compiled:
        echo(f"recompiled {path}")
    return 0
