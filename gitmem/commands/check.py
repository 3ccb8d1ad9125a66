from __future__ import annotations

from typing import Any

import click

from gitmem import INSTALL_CI
from gitmem.checks.check import Step, run_checks
from gitmem.commands import open_store, today
from gitmem.commands.output import echo, echo_json, style

_STYLES: dict[str, dict[str, Any]] = {
    "skipped": {"dim": True},
    "ok": {"fg": "green"},
    "FAILED": {"fg": "red"},
}


_HELP = f"""What CI runs, in one command: validate, scan memories and journal, compile --check,
    doctor errors, and every change to the guard's settings (scan.exclude/allow/salt, sources) since
    the default branch, named.

    Exit 1 when any check fails, with a summary line per check and the details of each failure.
    Doctor warnings (reviews due, near-duplicates, ...) are mentioned but do not fail the check.

    \b
    Example (a CI step, or the pre-push hook `gitmem init --pre-push` installs):
      {INSTALL_CI} && gitmem check
"""


@click.command(help=_HELP)
@click.option(
    "--json",
    "as_json",
    is_flag=True,
    help='Print {"ok": bool, "checks": [{name, ok, summary, details}]}.',
)
def check(as_json: bool) -> int:

    project, _ = open_store()
    steps = run_checks(project, today())
    failed = [step for step in steps if not step.ok]
    if as_json:
        echo_json({"ok": not failed, "checks": list(map(Step.to_dict, steps))})
        return 1 if failed else 0
    for step in steps:
        word = "skipped" if step.skipped else "ok" if step.ok else "FAILED"
        styles: dict[str, Any] = _STYLES[word]
        echo(f"{step.name:<9} {style(f'{word:<7}', **styles)} {step.summary}")
        for line in step.details:
            echo(f"  {line}")
    if failed:
        names = ", ".join(step.name for step in failed)
        echo(f"gitmem check: {len(failed)} of {len(steps)} checks failed ({names})", err=True)
        return 1
    echo(f"gitmem check: all {len(steps)} checks passed")
    return 0
