from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import click

from gitmem.errors import Problem
from gitmem.memory.model import KINDS, STATUSES
from gitmem.render import echo, echo_json, style, table

_STATUS_STYLE: dict[str, dict[str, Any]] = {
    "active": {"fg": "green"},
    "proposed": {"fg": "yellow"},
    "retired": {"dim": True},
}


@click.command("list")
@click.option("--status", "statuses", multiple=True, type=click.Choice(STATUSES), help="Only this status (repeatable).")
@click.option("--kind", "kinds", multiple=True, type=click.Choice(KINDS), help="Only this kind (repeatable).")
@click.option("--tag", "tags", multiple=True, help="Only memories with this tag (repeatable: any of them).")
@click.option("--json", "as_json", is_flag=True, help="Print a JSON array of memory objects with every field.")
def list_memories(statuses: tuple[str, ...], kinds: tuple[str, ...], tags: tuple[str, ...], as_json: bool) -> int:
    """List memories, sorted by id. Invalid files are reported on stderr (exit 1).

    \b
    Examples:
      gitmem list --status proposed
      gitmem list --json | jq -r '.[] | select(.kind == "pitfall") | .title'
    """
    from gitmem.commands import open_store, today

    project, store = open_store()
    snapshot = store.load()
    day = today()
    chosen = [
        m
        for m in snapshot.sorted()
        if (not statuses or m.status in statuses)
        and (not kinds or m.kind in kinds)
        and (not tags or set(tags) & set(m.tags))
    ]
    if as_json:
        echo_json([{**m.to_dict(), "path": project.display(snapshot.files[m.id])} for m in chosen])
    elif chosen:
        rows = [
            [m.id, m.kind, "expired" if m.status == "active" and m.is_expired(day) else m.status, m.priority, m.title]
            for m in chosen
        ]
        styles = [{"bold": True}, {}, {}, {}, {}]
        lines = table(["ID", "KIND", "STATUS", "PRIORITY", "TITLE"], rows, styles).splitlines()
        echo(lines[0])
        for line, m in zip(lines[1:], chosen, strict=True):
            echo(style(line, **_STATUS_STYLE[m.status]) if m.status != "active" else line)
    elif not snapshot.problems:
        echo("no memories" + (" match" if statuses or kinds or tags else ' yet: gitmem add "TITLE"'), err=True)
    return _report_problems(snapshot.problems)


def _report_problems(problems: Sequence[Problem]) -> int:
    for problem in problems:
        echo(str(problem), err=True)
    if problems:
        echo(f"{len(problems)} problem(s) in memory files: fix them, then `gitmem validate`", err=True)
        return 1
    return 0


@click.command()
@click.argument("memory_id", metavar="ID")
@click.option("--json", "as_json", is_flag=True, help="Print the memory as a JSON object with every field.")
def show(memory_id: str, as_json: bool) -> int:
    """Show one memory.

    \b
    Example:
      gitmem show use-pnpm
    """
    from gitmem.commands import open_store

    project, store = open_store()
    snapshot = store.load()
    memory = store.get(memory_id, snapshot)
    path = project.display(snapshot.files[memory.id])
    if as_json:
        echo_json({**memory.to_dict(), "path": path})
        return 0
    echo(f"{style(memory.id, bold=True)}  {memory.title}")
    data = memory.to_dict()
    for name in (
        "kind",
        "status",
        "priority",
        "paths",
        "tags",
        "created",
        "expires",
        "review_after",
        "supersedes",
        "source",
        "origin",
        "retired",
        "reason",
    ):
        value = data[name]
        if value in (None, [], ""):
            continue
        shown = ", ".join(value) if isinstance(value, list) else str(value)
        echo(f"  {name.replace('_', ' '):<13}{shown}")
    for item in memory.evidence:
        echo(f"  {'evidence':<13}{item.path}{':' + item.lines if item.lines else ''}")
    echo(f"  {'file':<13}{path}")
    if memory.body:
        echo()
        for line in memory.body.splitlines():
            echo(f"  {line}" if line else "")
    return 0
