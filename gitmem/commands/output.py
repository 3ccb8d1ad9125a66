"""Output helpers for the commands: colour only on a terminal and never with NO_COLOR, aligned
tables, JSON."""

from __future__ import annotations

import json
import os
import shutil
import sys
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any, TextIO

import click

if TYPE_CHECKING:
    from gitmem.errors import Problem


def color_enabled(stream: TextIO | None = None) -> bool:
    if os.environ.get("NO_COLOR"):
        return False
    stream = stream or sys.stdout
    return hasattr(stream, "isatty") and stream.isatty()


def style(text: str, **styles: Any) -> str:
    return click.style(text, **styles) if color_enabled() else text


def echo(text: str = "", err: bool = False) -> None:
    click.echo(text, err=err, color=color_enabled(sys.stderr if err else sys.stdout))


def echo_json(value: Any) -> None:
    click.echo(json.dumps(value, indent=2, ensure_ascii=False))


# A verb's past, as a command that did it says it (with --dry-run: "would VERB").
DONE = {"add": "added", "keep": "kept", "make": "made", "propose": "proposed", "remove": "removed"}


def done(verb: str, dry_run: bool) -> str:
    """What was done (``verb``'s past), or with ``dry_run`` what would be."""
    return f"would {verb}" if dry_run else DONE[verb]


def some(items: Sequence[str], shown: int) -> str:
    """The first ``shown`` items, and how many more."""
    more = f" and {len(items) - shown} more" if len(items) > shown else ""
    return ", ".join(items[:shown]) + more


def problems_json(problems: Sequence[Problem]) -> list[dict[str, Any]]:
    """Problems as every command's JSON gives them."""
    return [
        {"path": p.path, "line": p.line, "column": p.column, "field": p.field, "message": p.message}
        for p in problems
    ]


def table(
    headers: Sequence[str], rows: Sequence[Sequence[str]], styles: Sequence[dict[str, Any]] = ()
) -> str:
    """Rows aligned in columns; the last column is cut to the terminal width when it would wrap."""
    widths = list(map(len, headers))
    for row in rows:
        for i, cell in enumerate(row[:-1]):
            widths[i] = max(widths[i], len(cell))
    width = shutil.get_terminal_size((120, 24)).columns if color_enabled() else 10_000
    lead = sum(w + 2 for w in widths[:-1])
    room = max(20, width - lead)
    shown = dict(enumerate(styles))  # each column's style, by index (none past the last given)

    def line(cells: Sequence[str], bold: bool = False) -> str:
        out = []
        for i, cell in enumerate(cells):
            if i == len(cells) - 1:
                text = cell if len(cell) <= room else cell[: room - 1] + "…"
            else:
                text = cell.ljust(widths[i])
            if bold:
                text = style(text, bold=True)
            elif cell and shown.get(i):
                text = style(text, **shown[i])
            out.append(text)
        return "  ".join(out).rstrip()

    return "\n".join([line(headers, bold=True), *map(line, rows)])
