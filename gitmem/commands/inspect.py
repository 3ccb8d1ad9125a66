from __future__ import annotations

from collections.abc import Callable, Sequence
from datetime import date
from functools import partial
from itertools import repeat
from typing import TYPE_CHECKING, Any

import click

from gitmem.commands import open_store, today
from gitmem.commands.options import refuse
from gitmem.commands.output import echo, echo_json, style, table
from gitmem.errors import Problem
from gitmem.memory.config import load_config
from gitmem.memory.model import KINDS, STATUSES, Enforce, Memory
from gitmem.scopes import packs

if TYPE_CHECKING:
    from gitmem.project import Project

# How a row of `gitmem list` is styled, by the status it shows (the others, active and expired
# ones, plain).
ROW_STYLES: dict[str, dict[str, Any]] = {
    "proposed": {"fg": "yellow"},
    "retired": {"dim": True},
    "muted": {"dim": True},
}

Row = tuple[
    Memory, str, dict[str, Any]
]  # a memory, its status as shown, and what its JSON object adds


@click.command("list")
@click.option(
    "--status",
    "statuses",
    multiple=True,
    type=click.Choice(STATUSES),
    help="Only this status (repeatable).",
)
@click.option(
    "--kind", "kinds", multiple=True, type=click.Choice(KINDS), help="Only this kind (repeatable)."
)
@click.option(
    "--tag", "tags", multiple=True, help="Only memories with this tag (repeatable: any of them)."
)
@click.option(
    "--user",
    is_flag=True,
    help="Your personal memories (~/.config/gitmem) instead of the project's.",
)
@click.option(
    "--packs",
    is_flag=True,
    help="Also the memories of the shared packs (`gitmem sources`), as PACK/ID, read-only.",
)
@click.option(
    "--json", "as_json", is_flag=True, help="Print a JSON array of memory objects with every field."
)
def list_memories(
    statuses: tuple[str, ...],
    kinds: tuple[str, ...],
    tags: tuple[str, ...],
    user: bool,
    packs: bool,
    as_json: bool,
) -> int:
    """List memories, sorted by id. Invalid files are reported on stderr (exit 1).

    With --packs, the shared packs' memories follow the project's, as PACK/ID at the pinned revision
    ("muted" ones are not compiled here); their JSON objects carry "pack" and "muted".

    \b
    Examples:
      gitmem list --status proposed
      gitmem list --json | jq -r '.[] | select(.kind == "pitfall") | .title'
      gitmem list --user
      gitmem list --packs
    """
    refuse(
        (
            user and packs,
            "--packs: shared packs belong to projects; personal memories (--user) have none",
        )
    )
    project, store = open_store(user)
    snapshot = store.load()
    day = today()
    filters = (statuses, kinds, tags)
    wanted = partial(_wanted, *filters)
    rows: list[Row] = [
        (m, _status(m, day), {"path": project.display(snapshot.files[m.id])})
        for m in filter(wanted, snapshot.sorted())
    ]
    problems = list(snapshot.problems)
    if packs:
        shared, found = _pack_rows(project, day, wanted)
        rows += shared
        problems += found
    if as_json:
        echo_json([{**m.to_dict(), **extra} for m, _, extra in rows])
    elif rows:
        _print_rows(rows)
    elif not problems:
        add = "gitmem add --user" if user else "gitmem add"
        echo(
            "no memories" + (" match" if any(filters) else f' yet: {add} "TITLE"'),
            err=True,
        )
    return _report_problems(sorted(problems))


def _wanted(
    statuses: tuple[str, ...], kinds: tuple[str, ...], tags: tuple[str, ...], memory: Memory
) -> bool:
    """Whether ``memory`` passes the list's filters (an empty filter passes every memory)."""
    return (
        (not statuses or memory.status in statuses)
        and (not kinds or memory.kind in kinds)
        and (not tags or bool(set(tags) & set(memory.tags)))
    )


def _print_rows(rows: list[Row]) -> None:
    """The table, each row styled by the status it shows (``ROW_STYLES``)."""
    cells = [[m.id, m.kind, status, m.priority, m.title] for m, status, _ in rows]
    styles = [{"bold": True}, {}, {}, {}, {}]
    lines = table(["ID", "KIND", "STATUS", "PRIORITY", "TITLE"], cells, styles).splitlines()
    echo(lines[0])
    for line, (_, status, _) in zip(lines[1:], rows, strict=True):
        shown = ROW_STYLES.get(status)
        echo(line if shown is None else style(line, **shown))


def _status(memory: Memory, day: date) -> str:
    return "expired" if memory.status == "active" and memory.is_expired(day) else memory.status


def _pack_rows(
    project: Project, day: date, wanted: Callable[[Memory], bool]
) -> tuple[list[Row], list[Problem]]:
    """The shared packs' memories that ``wanted`` keeps, namespaced, and the problems of the packs'
    files."""
    loaded, _ = packs.load(project, load_config(project))
    rows: list[Row] = []
    for pack in loaded:
        for memory_id, memory in sorted(pack.memories.items()):
            if not wanted(memory):
                continue
            muted = pack.muted(memory_id)
            extra = {"path": pack.display(memory_id), "pack": pack.name, "muted": muted}
            rows.append((pack.qualified(memory), "muted" if muted else _status(memory, day), extra))
    return rows, packs.problems(loaded)


def _report_problems(problems: Sequence[Problem]) -> int:
    for problem in problems:
        echo(str(problem), err=True)
    if problems:
        echo(
            f"{len(problems)} problem(s) in memory files: fix them, then `gitmem validate`",
            err=True,
        )
        return 1
    return 0


@click.command()
@click.argument("memory_id", metavar="ID")
@click.option("--user", is_flag=True, help="A memory of your personal store (~/.config/gitmem).")
@click.option(
    "--json", "as_json", is_flag=True, help="Print the memory as a JSON object with every field."
)
def show(memory_id: str, user: bool, as_json: bool) -> int:
    """Show one memory: of the project, of your personal store (--user), or of a shared pack
    (PACK/ID).

    \b
    Examples:
      gitmem show use-pnpm
      gitmem show --user british-english
      gitmem show acme/no-force-push
    """
    project, store = open_store(user)
    extra: dict[str, Any] = {}
    if "/" in memory_id and not user:
        loaded, _ = packs.load(project, load_config(project))
        pack, found = packs.find(loaded, memory_id)
        memory = pack.qualified(found)
        path = pack.display(found.id)
        extra = {"pack": pack.name, "muted": pack.muted(found.id)}
    else:
        snapshot = store.load()
        memory = store.get(memory_id, snapshot)
        path = project.display(snapshot.files[memory.id])
    if as_json:
        echo_json({**memory.to_dict(), "path": path, **extra})
    else:
        _print_memory(memory, path, extra)
    return 0


# The fields `gitmem show` prints, in order, when they are set.
SHOWN_FIELDS = (
    "kind",
    "status",
    "priority",
    "paths",
    "targets",
    "tags",
    "created",
    "expires",
    "review_after",
    "supersedes",
    "source",
    "origin",
    "retired",
    "reason",
)


def _print_memory(memory: Memory, path: str, extra: dict[str, Any]) -> None:
    echo(f"{style(memory.id, bold=True)}  {memory.title}")
    data = memory.to_dict()
    enforce = memory.enforce or Enforce()  # what the pre-tool hook refuses while it is live
    rows = [
        *((name.replace("_", " "), _shown(data[name])) for name in SHOWN_FIELDS if data[name]),
        *zip(repeat("forbids run"), enforce.commands),
        *zip(repeat("forbids edit"), enforce.edits),
        *(
            ("evidence", ":".join(filter(None, (item.path, item.lines))))
            for item in memory.evidence
        ),
        ("file", path),
    ]
    for label, value in rows:
        echo(f"  {label:<13}{value}")
    if extra:
        muted = " (muted here: not compiled)" if extra["muted"] else ""
        echo(f"  {'pack':<13}{extra['pack']}: read-only, from a shared pack{muted}")
    if memory.body:
        echo()
        for line in memory.body.splitlines():
            echo(f"  {line}" if line else "")


def _shown(value: str | list[str]) -> str:
    """A field's value as ``show`` prints it: a list as its items joined."""
    return value if isinstance(value, str) else ", ".join(value)
