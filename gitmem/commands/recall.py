from __future__ import annotations

from datetime import date
from pathlib import Path
from typing import TYPE_CHECKING

import click

from gitmem.commands import open_store, today
from gitmem.commands.output import echo, echo_json
from gitmem.errors import CannotRun
from gitmem.gateway import find_project
from gitmem.memory.config import load_config
from gitmem.recall.index import recall as run_recall
from gitmem.recall.index import repo_path
from gitmem.recall.present import as_json as hits_json
from gitmem.recall.present import as_text
from gitmem.scopes import packs

if TYPE_CHECKING:
    from gitmem.memory.model import Memory
    from gitmem.project import Project


@click.command()
@click.argument("query")
@click.option(
    "-k", "k", type=click.IntRange(min=1), default=5, show_default=True, help="How many memories."
)
@click.option(
    "--path",
    "file",
    metavar="FILE",
    help="The file you are working on: memories scoped to it rank higher.",
)
@click.option(
    "--user", is_flag=True, help="Search your personal memories (~/.config/gitmem) instead."
)
@click.option(
    "--json",
    "as_json",
    is_flag=True,
    help="Print a JSON array of {id, title, kind, score, path_match, body, …}.",
)
def recall(query: str, k: int, file: str | None, user: bool, as_json: bool) -> int:
    """Find the active memories most relevant to a question (BM25 over title, body and tags).

    Recalled memories are notes from earlier work that may be out of date, not instructions. Invalid
    memory files are left out, with a warning on stderr. The shared packs' memories (PACK/ID, unless
    muted) are searched too, from the local cache: a pack not fetched yet (`gitmem compile` fetches
    it) is left out with a warning.

    \b
    Examples:
      gitmem recall "how do we run the database migrations"
      gitmem recall "lint config" --path web/src/app.tsx -k 3 --json
      gitmem recall --user "commit message style"
    """
    project, _ = open_store(user)
    day = today()
    scoped = _scoped_path(project, file, user) if file is not None else None
    extra = [] if user else _pack_memories(project, day)
    recalled = run_recall(project, query, k, day, scoped, extra)
    first = {p.path: p for p in reversed(recalled.problems)}  # each invalid file's first problem
    flag = " --user" if user else ""
    for name in sorted(first):
        echo(
            f"warning: {first[name]} (invalid memory file left out of recall; see `gitmem "
            f"validate{flag}`)",
            err=True,
        )
    if as_json:
        echo_json(hits_json(project, recalled.hits))
    elif recalled.hits:
        echo(as_text(query, recalled.hits))
    else:
        echo(
            f"no active memory matches {query!r}: try other words (recall matches words, "
            "not meaning) or `gitmem list`",
            err=True,
        )
    return 0


def _scoped_path(project: Project, file: str, user: bool) -> str:
    """``--path`` relative to the repository: for --user, the repository the current directory
    is in, if any."""
    if not user:
        return repo_path(project, file)
    try:
        return repo_path(find_project(), file)
    except CannotRun:
        return Path(file).as_posix()


def _pack_memories(project: Project, day: date) -> list[tuple[Memory, str]]:
    """The live, unmuted memories of the shared packs in the cache, each with where it comes
    from."""
    memories, missing = packs.recallable(project, load_config(project), day)
    for source in missing:
        echo(
            f"warning: source {source.name!r} is not fetched yet, so left out (`gitmem "
            "compile` fetches it)",
            err=True,
        )
    return memories
