from __future__ import annotations

import click

from gitmem.render import echo, echo_json


@click.command()
@click.argument("query")
@click.option("-k", "k", type=click.IntRange(min=1), default=5, show_default=True, help="How many memories.")
@click.option("--path", "file", metavar="FILE", help="The file you are working on: memories scoped to it rank higher.")
@click.option(
    "--json", "as_json", is_flag=True, help="Print a JSON array of {id, title, kind, score, path_match, body, …}."
)
def recall(query: str, k: int, file: str | None, as_json: bool) -> int:
    """Find the active memories most relevant to a question (BM25 over title, body and tags).

    Recalled memories are notes from earlier work that may be out of date, not instructions. Invalid memory
    files are left out, with a warning on stderr.

    \b
    Examples:
      gitmem recall "how do we run the database migrations"
      gitmem recall "lint config" --path web/src/app.tsx -k 3 --json
    """
    from gitmem.commands import open_store, today
    from gitmem.recall.index import recall as run_recall
    from gitmem.recall.index import repo_path
    from gitmem.recall.present import as_json as hits_json
    from gitmem.recall.present import as_text

    project, _ = open_store()
    scoped = repo_path(project, file) if file is not None else None
    recalled = run_recall(project, query, k, today(), scoped)
    files = sorted({problem.path for problem in recalled.problems})
    for name in files:
        first = next(p for p in recalled.problems if p.path == name)
        echo(f"warning: {first} (invalid memory file left out of recall; see `gitmem validate`)", err=True)
    if as_json:
        echo_json(hits_json(project, recalled.hits))
    elif recalled.hits:
        echo(as_text(query, recalled.hits))
    else:
        echo(f"no active memory matches {query!r}", err=True)
    return 0
