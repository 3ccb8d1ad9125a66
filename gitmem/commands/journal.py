from __future__ import annotations

import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import click

from gitmem import gateway
from gitmem.commands import open_store, today
from gitmem.commands.output import done, echo, echo_json, table
from gitmem.errors import UsageError
from gitmem.journal.harvest import HarvestReport
from gitmem.journal.harvest import Request as HarvestRequest
from gitmem.journal.harvest import harvest as run_harvest
from gitmem.journal.log import list_logs as read_logs
from gitmem.journal.log import store_log, template
from gitmem.memory.actions import parse_date
from gitmem.memory.config import load_config
from gitmem.project import Project


@click.group()
def journal() -> None:
    """Session logs: write down what a session decided and learned, then harvest it into proposed
    memories.

    Logs live in .memory/journal/<YYYY-MM-DD>-<slug>.md, in a fixed Markdown format (## Decisions,
    ## Difficulties, ## Conventions, ## To do). Every log is scanned for secrets and hidden Unicode
    before it is written.

    \b
    Example:
      gitmem journal new > session.md          # fill it in, or let the agent do it
      gitmem journal add session.md
      gitmem journal harvest .memory/journal/2026-05-01-fix-login.md
    """


@journal.command("new")
@click.option("--title", default="", help="What the session was about (the log's first heading).")
def new(title: str) -> int:
    """Print an empty session log to fill in.

    \b
    Example:
      gitmem journal new --title "Fix the login redirect" > session.md
    """
    click.echo(template(today(), title), nl=False)
    return 0


# What `journal add` says of a FILE it cannot read, by the error (any other: its strerror).
CANNOT_READ: dict[type[OSError], str] = {
    FileNotFoundError: "no such file",
    IsADirectoryError: "is a directory; give one session log",
}


@journal.command("add")
@click.argument("source", metavar="[FILE|-]", required=False)
@click.option(
    "--redact", is_flag=True, help="Store the log with each secret replaced by ‹redacted:RULE›."
)
@click.option("--slug", default="", help="The file name's slug (default: from the log's title).")
@click.option(
    "--date", "day", metavar="DATE", help="The session's date, YYYY-MM-DD (default: today)."
)
@click.option(
    "--json",
    "as_json",
    is_flag=True,
    help='Print {"path", "stored", "redacted": [{"line", "rule"}]}.',
)
def add(source: str | None, redact: bool, slug: str, day: str | None, as_json: bool) -> int:
    """Store a session log in the journal, after scanning it.

    A log holding a secret is refused (exit 1, nothing written, the secret not shown), unless
    --redact is given; a log holding hidden Unicode is always refused. Otherwise it is stored byte
    for byte. Reads standard input when FILE is '-' or missing.

    \b
    Examples:
      gitmem journal add session.md
      pbpaste | gitmem journal add - --slug fix-login
    """
    if source in (None, "-"):
        if source is None and sys.stdin.isatty():
            raise UsageError(
                "no log given: `gitmem journal add FILE`, or pipe it in: `... | gitmem "
                "journal add -`"
            )
        display, raw = "<stdin>", sys.stdin.buffer.read()
    else:
        display = source
        try:
            raw = gateway.read_given(Path(source))
        except OSError as exc:
            said = CANNOT_READ.get(type(exc), "cannot read: {}").format(exc.strerror)
            raise UsageError(f"{source}: {said}") from None
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise UsageError(
            f"{display}: not UTF-8 text (byte 0x{raw[exc.start]:02x} at offset {exc.start})"
        ) from None

    project, _ = open_store()
    session_day = parse_date(day, "--date", today()) if day else today()
    stored = store_log(project, text, display, session_day, slug=slug, redact=redact)
    path = project.display(stored.path)
    if as_json:
        echo_json(
            {
                "path": path,
                "stored": not stored.existed,
                "redacted": [{"line": line, "rule": rule} for line, rule in stored.redacted],
            }
        )
        return 0
    for line, rule in stored.redacted:
        echo(f"{display}:{line}: redacted a possible secret ({rule})", err=True)
    echo(f"already in the journal: {path}" if stored.existed else f"stored {path}")
    echo(f"next: gitmem journal harvest {path}", err=True)
    return 0


@journal.command("list")
@click.option(
    "--json",
    "as_json",
    is_flag=True,
    help="Print a JSON array: path, date, title, items per section.",
)
def list_logs(as_json: bool) -> int:
    """List the session logs, oldest first, with their items per section.

    \b
    Example:
      gitmem journal list
    """
    project, _ = open_store()
    logs = read_logs(project)
    if as_json:
        echo_json([info.to_dict(project) for info in logs])
        return 0
    if not logs:
        echo("no session logs yet: gitmem journal new", err=True)
        return 0
    rows = []
    for info in logs:
        counts = info.counts
        rows.append(
            [
                project.display(info.path),
                str(counts["decisions"]),
                str(counts["difficulties"]),
                str(counts["conventions"]),
                str(counts["todo"]),
                info.title or "",
            ]
        )
    echo(table(["LOG", "DEC", "DIFF", "CONV", "TODO", "TITLE"], rows))
    return 0


@journal.command("harvest")
@click.argument("file", type=click.Path(path_type=Path))
@click.option("--dry-run", is_flag=True, help="Show what would be proposed; write nothing.")
@click.option(
    "--force",
    is_flag=True,
    help="Propose items that nearly repeat a memory removed or retired before.",
)
@click.option("--json", "as_json", is_flag=True, help="Print the outcome as JSON.")
def harvest(file: Path, dry_run: bool, force: bool, as_json: bool) -> int:
    """Turn a log's Decisions, Difficulties and Conventions into proposed memories (To do items
    stay).

    Each item becomes a memory of kind decision, pitfall or convention, status proposed, source
    journal, for a human to accept (`gitmem accept ID…`). Harvesting a log again adds nothing; an
    item that nearly repeats an existing memory is reported, not added; one that nearly repeats a
    memory removed (forget, git revert) or retired before is refused, naming it and the commit that
    removed it, unless --force. What the reader could not place is listed as skipped.

    \b
    Example:
      gitmem journal harvest .memory/journal/2026-05-01-fix-login.md
      gitmem list --status proposed
    """
    project, store = open_store()
    threshold = load_config(project).similarity
    request = HarvestRequest(file, today(), threshold, dry_run, force)
    report = run_harvest(project, store, request)
    if as_json:
        echo_json(_harvest_data(project, report, dry_run))
    else:
        _print_harvest(project, report, dry_run)
    return 0


def _harvest_data(project: Project, report: HarvestReport, dry_run: bool) -> dict[str, Any]:
    return {
        "origin": report.origin,
        "dry_run": dry_run,
        "proposed": [
            {
                "id": p.id,
                "kind": p.kind,
                "title": p.title,
                "line": p.line,
                "path": project.display(p.path),
            }
            for p in report.proposed
        ],
        "harvested_before": [
            {"id": k.id, "title": k.title, "line": k.line} for k in report.harvested_before
        ],
        "duplicates": [
            {"id": k.id, "title": k.title, "line": k.line, "score": k.score}
            for k in report.duplicates
        ],
        "rejected": [
            {
                "line": line,
                "title": title,
                "score": rejected.score,
                "removed": rejected.removal.to_dict(),
            }
            for line, title, rejected in report.rejected
        ],
        "skipped": [{"line": s.line, "reason": s.reason} for s in report.skipped],
        "todo": report.todo,
    }


def _print_harvest(project: Project, report: HarvestReport, dry_run: bool) -> None:
    verb = done("propose", dry_run)
    # Each list of the report and how one of its items reads, in the order they are printed.
    said: tuple[tuple[Sequence[Any], Callable[[Any], str]], ...] = (
        (
            report.proposed,
            lambda p: f"{verb} {project.display(p.path)} ({p.kind}, line {p.line}): {p.title}",
        ),
        (
            report.harvested_before,
            lambda k: f"not added: line {k.line} was harvested before as {k.id}: {k.title}",
        ),
        (
            report.duplicates,
            lambda k: (
                f"not added: line {k.line} nearly repeats {k.id} "
                f"(similarity {k.score:.2f}): {k.title}"
            ),
        ),
        (
            report.rejected,
            lambda r: (
                f"not added: line {r[0]} nearly repeats memory {r[2].describe()} "
                f"(similarity {r[2].score:.2f}); --force adds it anyway: {r[1]}"
            ),
        ),
        (report.skipped, lambda s: f"skipped line {s.line}: {s.reason}"),
    )
    for items, line_of in said:
        for item in items:
            echo(line_of(item))
    if report.todo:
        noun = "item" if report.todo == 1 else "items"
        echo(f"skipped {report.todo} to-do {noun}: to-dos stay in the log")
    if report.invalid_files:
        echo(
            f"warning: {report.invalid_files} invalid memory file(s) were not compared: "
            "run `gitmem validate`",
            err=True,
        )
    summary = (
        f"{len(report.proposed)} {verb}, {len(report.harvested_before)} harvested before, "
        f"{len(report.duplicates)} near-duplicate(s), "
        + (f"{len(report.rejected)} rejected before, " if report.rejected else "")
        + f"{len(report.skipped)} skipped"
    )
    echo(summary, err=True)
    if report.proposed and not dry_run:
        ids = " ".join(p.id for p in report.proposed[:3]) + (
            " …" if len(report.proposed) > 3 else ""
        )
        echo(
            f"next: review them (gitmem list --status proposed), then gitmem accept {ids}", err=True
        )
