from __future__ import annotations

import sys
from collections.abc import Iterable
from datetime import date
from functools import partial
from typing import TextIO

import click

from gitmem.commands import open_store, today
from gitmem.commands.options import refuse, target_option
from gitmem.commands.output import echo, echo_json
from gitmem.memory import actions
from gitmem.memory.model import KINDS, PRIORITIES, Enforce, Memory
from gitmem.scopes.personal import ensure_store


@click.command()
@click.argument("title")
@click.argument("stdin_marker", metavar="[-]", required=False)
@click.option("--body", help="Why, and how (Markdown).")
@click.option(
    "--body-file",
    type=click.File("r", encoding="utf-8"),
    help="Read the body from a file ('-': stdin).",
)
@click.option(
    "--kind",
    type=click.Choice(KINDS),
    default="convention",
    show_default=True,
    help="What sort of memory.",
)
@click.option(
    "--priority",
    type=click.Choice(PRIORITIES),
    default="normal",
    show_default=True,
    help="Order under a token budget: high memories are compiled first.",
)
@click.option(
    "--path",
    "paths",
    multiple=True,
    metavar="GLOB",
    help="Where it applies, e.g. 'web/**' (repeatable).",
)
@target_option("Compile it only for this target (repeatable), e.g. cursor; default: every target.")
@click.option("--tag", "tags", multiple=True, help="A label (repeatable).")
@click.option(
    "--word",
    "words",
    multiple=True,
    metavar="WORDS",
    help="A word or short phrase a teammate would use when it matters, e.g. 'tests hang' "
    "(repeatable): recall matches it.",
)
@click.option(
    "--forbid-command",
    "forbid_commands",
    multiple=True,
    metavar="GLOB",
    help="A shell command the agent must not run, e.g. 'npm install*' (repeatable): the pre-tool "
    "hook refuses it (enforce.commands).",
)
@click.option(
    "--forbid-edit",
    "forbid_edits",
    multiple=True,
    metavar="GLOB",
    help="Files the agent must not write, e.g. 'migrations/**' (repeatable): the pre-tool "
    "hook refuses it (enforce.edits).",
)
@click.option(
    "--expires", metavar="DATE", help="Stop compiling it after this date (YYYY-MM-DD, or e.g. 90d)."
)
@click.option(
    "--review-after",
    metavar="DATE",
    help="Ask for a review after this date (YYYY-MM-DD, or e.g. 12w).",
)
@click.option(
    "--supersedes", multiple=True, metavar="ID", help="A memory this one replaces; it is retired."
)
@click.option(
    "--evidence",
    multiple=True,
    metavar="PATH[:LINES]",
    help="A file (and lines) that backs it, e.g. package.json:3-9 (repeatable).",
)
@click.option(
    "--proposed", is_flag=True, help="Add it as a proposal for a human to accept, not active."
)
@click.option("--id", "memory_id", help="The id (default: made from the title).")
@click.option(
    "--user",
    is_flag=True,
    help="A personal memory: written to your own store (~/.config/gitmem), never into the "
    "project; works anywhere.",
)
@click.option(
    "--json", "as_json", is_flag=True, help="Print the new memory as JSON instead of its path."
)
def add(
    title: str,
    stdin_marker: str | None,
    body: str | None,
    body_file: TextIO | None,
    kind: str,
    priority: str,
    paths: tuple[str, ...],
    targets: tuple[str, ...],
    tags: tuple[str, ...],
    words: tuple[str, ...],
    forbid_commands: tuple[str, ...],
    forbid_edits: tuple[str, ...],
    expires: str | None,
    review_after: str | None,
    supersedes: tuple[str, ...],
    evidence: tuple[str, ...],
    proposed: bool,
    memory_id: str | None,
    user: bool,
    as_json: bool,
) -> int:
    """Add a memory: scanned for secrets and hidden Unicode, validated, then written as one file.

    Prints the new file's path. Nothing is written when any check fails.

    \b
    Examples:
      gitmem add "Use pnpm, never npm" --kind convention --path 'web/**' \\
          --body "npm rewrites pnpm-lock.yaml and breaks the workspace."
      git log -1 --format=%B | gitmem add "Why we pinned Node 20" --kind decision -
      gitmem add "Cursor: keep the agent out of generated/" --target cursor
      gitmem add --user "Answer in British English" --kind preference
      gitmem add "Use pnpm, never npm" --forbid-command 'npm install*' \\
          --body "npm breaks the pnpm lockfile."
    """
    text = _body(body, body_file, stdin_marker)
    refuse(
        (
            user and evidence,
            "--evidence cites a file of a repository: personal memories (--user) cannot carry it",
        )
    )
    project, store = open_store(user)
    day = today()
    memory = Memory(
        id=actions.new_id(title, memory_id),
        title=title.strip(),
        kind=kind,
        status="proposed" if proposed else "active",
        body=text.strip("\n"),
        priority=priority,
        paths=_once(paths),
        targets=_once(targets),
        tags=_once(tags),
        words=_once(map(" ".join, map(str.split, words))),
        enforce=Enforce(_once(forbid_commands), _once(forbid_edits))
        if forbid_commands or forbid_edits
        else None,
        created=day,
        expires=_date(expires, "--expires", day),
        review_after=_date(review_after, "--review-after", day),
        supersedes=_once(supersedes),
        evidence=tuple(map(partial(actions.make_evidence, project), evidence)),
        source="human",
    )
    outcome = actions.add_memory(store, memory, day)
    if user:  # the first personal memory sets the store up (only once it passed every check)
        for path in ensure_store(project):
            echo(f"created {project.display(path)}", err=True)
    if as_json:
        echo_json({**memory.to_dict(), "path": project.display(outcome.written[0])})
    else:
        echo(project.display(outcome.written[0]))
    for note in outcome.notes:
        echo(note, err=True)
    return 0


def _body(body: str | None, body_file: TextIO | None, stdin_marker: str | None) -> str:
    """The body from --body, --body-file or stdin ('-'), given once at most."""
    refuse(
        (
            sum(given is not None for given in (body, body_file, stdin_marker)) > 1,
            "give the body once: --body, --body-file, or '-' for stdin",
        ),
        (
            stdin_marker not in (None, "-"),
            f"unexpected argument {stdin_marker!r}: quote the title, or use '-' to read the body "
            "from stdin",
        ),
    )
    if body_file is not None:
        return body_file.read()
    if stdin_marker == "-":
        return sys.stdin.read()
    return body or ""


def _once(values: Iterable[str]) -> tuple[str, ...]:
    """The values in their order, each once."""
    return tuple(dict.fromkeys(values))


def _date(value: str | None, option: str, day: date) -> date | None:
    return actions.parse_date(value, option, day) if value else None
