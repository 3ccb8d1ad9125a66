from __future__ import annotations

from datetime import date, timedelta

import click

from gitmem.checks.receipts import build
from gitmem.commands import open_store, today
from gitmem.commands.output import echo, echo_json
from gitmem.compile.explain import memory_tokens
from gitmem.errors import UsageError


@click.command()
@click.option(
    "--since",
    metavar="DATE",
    default="30d",
    help="From this date on (YYYY-MM-DD, or e.g. 30d); default: 30 days ago.",
)
@click.option(
    "--client", metavar="NAME", help="Only this client (claude, codex, gemini, copilot, ...)."
)
@click.option("--json", "as_json", is_flag=True, help='Print {"since": DATE, "memories": [...]}.')
def receipts(since: str, client: str | None, as_json: bool) -> int:
    """Per memory: the sessions it reached, the tokens it cost, and the calls that broke it, per
    client.

    Reads what gitmem's own hooks recorded under .git/gitmem/ (the always-loaded files at session
    start, prompt injections, MCP recalls, the calls the pre-tool hook refused: never committed) and
    the clients' transcripts, where a shell command that breaks a memory's `enforce` and was not
    refused counts as a violation. Shows ids, titles and counts only: no transcript text.

    \b
    Examples:
      gitmem receipts
      gitmem receipts --since 7d --client claude
      gitmem receipts --json | jq '.memories[] | select(.violations > 0)'
    """

    project, store = open_store()
    day = today()
    start = _since(since, day)
    live = [memory for memory in store.load().sorted() if memory.is_live(day)]
    report = build(project, live, memory_tokens(live), start, client)
    if as_json:
        echo_json(report.to_dict())
        return 0
    echo(f"since {start.isoformat()}" + (f", {client} only" if client else ""))
    for row in report.rows:
        total = row.total
        echo(
            f"{row.memory.id}: {len(total.sessions)} sessions, {row.tokens:,} tokens, "
            f"{total.violations} violations, {total.blocked} blocked"
        )
        for name, counts in sorted(row.clients.items()):
            echo(
                f"  {name}: {len(counts.sessions)} sessions, {counts.violations} "
                f"violations, {counts.blocked} blocked"
            )
    if report.gate_blocked:
        echo(
            f"memory-layer gate: {report.gate_blocked} calls refused (writes into "
            ".memory/, managed blocks, gitmem add)"
        )
    if not report.rows:
        echo("no live memories")
    return 0


SPANS = {"d": 1, "w": 7}  # ``--since``'s spans: the days in each unit


def _since(text: str, day: date) -> date:
    """``--since`` as a date: YYYY-MM-DD, or a span back from today (30d, 12w)."""

    value = text.strip()
    days = SPANS.get(value[-1:])
    if value[:-1].isdigit() and days and len(value) <= 6:
        return day - timedelta(days=int(value[:-1]) * days)
    try:
        return date.fromisoformat(value)
    except ValueError:
        raise UsageError(
            f"--since {text!r}: expected YYYY-MM-DD or a span such as 30d or 12w"
        ) from None
