from __future__ import annotations

from typing import Any

import click

from gitmem import INSTALL_CI
from gitmem.checks.check import Step, run_checks
from gitmem.commands import open_store, today
from gitmem.commands.output import echo, echo_json, style

# How a step's line shows it, by (ok, skipped): its word and the word's style (a skipped step is
# ok: checks/check._skipped).
_SHOWN: dict[tuple[bool, bool], tuple[str, dict[str, Any]]] = {
    (True, True): ("skipped", {"dim": True}),
    (True, False): ("ok", {"fg": "green"}),
    (False, False): ("FAILED", {"fg": "red"}),
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
    failed = [step.name for step in steps if not step.ok]
    if as_json:
        echo_json({"ok": not failed, "checks": list(map(Step.to_dict, steps))})
        return 1 if failed else 0
    for step in steps:
        word, styles = _SHOWN[step.ok, step.skipped]
        echo(f"{step.name:<9} {style(f'{word:<7}', **styles)} {step.summary}")
        for line in step.details:
            echo(f"  {line}")
    if failed:
        echo(
            f"gitmem check: {len(failed)} of {len(steps)} checks failed ({', '.join(failed)})",
            err=True,
        )
        return 1
    echo(f"gitmem check: all {len(steps)} checks passed")
    return 0
