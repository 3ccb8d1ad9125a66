from __future__ import annotations

import click

from gitmem.checks.command import commands
from gitmem.checks.doctor import apply_fixes, diagnose
from gitmem.checks.evidence import refresh_evidence
from gitmem.checks.findings import Finding, Fixed, Report
from gitmem.commands import open_store, today
from gitmem.commands.output import echo, echo_json, style
from gitmem.errors import shown
from gitmem.git.removed import Removal
from gitmem.memory.config import load_config


@click.command()
@click.option(
    "--json",
    "as_json",
    is_flag=True,
    help='Print {"findings": [...], "fixed": [...], "summary": {...}}.',
)
@click.option("--strict", is_flag=True, help="Exit 1 on warnings too, not only on errors.")
@click.option(
    "--fix",
    is_flag=True,
    help="Apply the safe fixes (retire expired memories, move moved citations).",
)
@click.option(
    "--refresh-evidence",
    "refresh",
    multiple=True,
    metavar="ID",
    help="After checking that a memory still holds, record its citations again (repeatable).",
)
def doctor(as_json: bool, strict: bool, fix: bool, refresh: tuple[str, ...]) -> int:
    """Find what went stale or wrong in the memories, with the file and a command to run for each
    finding.

    Errors (exit 1): invalid memory files, expired memories still active, evidence whose file or
    cited lines are gone, broken or circular supersedes chains. Warnings (exit 0 unless --strict):
    reviews due, cited lines that changed or moved, near-duplicates, active memories superseded by
    an active one, proposals older than doctor.proposal_max_age_days. Also lists, as information,
    the memories removed (forget, git revert) or retired in the last 30 days, which propose, harvest
    and import refuse to bring back. Says which `gitmem` is on PATH, and warns when it is another
    program, when `gitmem-cli` (what the hooks run) is missing, or when another distribution shares
    this environment's `gitmem` package.

    \b
    Examples:
      gitmem doctor
      gitmem doctor --fix
      gitmem doctor --strict --json | jq -r '.findings[] | "\\(.path): \\(.message)"'
    """
    project, store = open_store()
    config = load_config(project)
    day = today()
    fixed = []
    for memory_id in dict.fromkeys(refresh):
        fixed.extend(refresh_evidence(project, store, config, memory_id, day))
    if fix:
        fixed.extend(apply_fixes(project, store, config, day))
    report = diagnose(project, store, config, day)
    on_path = commands()
    if as_json:
        echo_json(
            {
                "findings": list(map(Finding.to_dict, report.findings)),
                "fixed": list(map(Fixed.to_dict, fixed)),
                "removals": list(map(Removal.to_dict, report.removals)),
                "command": on_path.to_dict(),
                "summary": {
                    "memories": report.memories,
                    "errors": len(report.errors),
                    "warnings": len(report.warnings),
                    "fixed": len(fixed),
                },
            }
        )
    else:
        _print_report(report, fixed)
        echo(on_path.describe())
        echo(
            _summary(
                report.memories,
                len(report.errors),
                len(report.warnings),
                sum(f.fixable for f in report.findings),
            )
        )
    return 1 if report.failed(strict) else 0


SEVERITY_COLOURS = {"error": "red", "warning": "yellow"}


def _print_report(report: Report, fixed: list[Fixed]) -> None:
    """What was fixed, each finding with the command that repairs it, and the recent removals."""
    for item in fixed:
        echo(f"{style('fixed', fg='green')}: {shown(str(item.path))}: {item.action}")
    for finding in report.findings:
        colour = SEVERITY_COLOURS[finding.severity]
        echo(
            f"{finding.path}:{finding.line}: {style(finding.severity, fg=colour, bold=True)}: "
            f"{finding.code}: {finding.message}"
        )
        if finding.command:
            echo(f"    run: {finding.command}")
    if report.removals:
        echo(
            "recent removals (information: propose, harvest and import refuse "
            "near-duplicates of these):"
        )
        for removal in report.removals:
            when = removal.day.isoformat() if removal.day else "-"
            echo(f"    {when}  {removal.memory.id}: {removal.memory.title} ({removal.describe()})")


def _summary(memories: int, errors: int, warnings: int, fixable: int) -> str:
    if not errors and not warnings:
        return f"ok: {_count(memories, 'memory', 'memories')} checked, nothing to report"
    text = (
        f"{_count(errors, 'error')}, {_count(warnings, 'warning')} in "
        f"{_count(memories, 'memory', 'memories')}"
    )
    if fixable:
        text += f"; `gitmem doctor --fix` repairs {fixable} of them"
    return text


def _count(number: int, singular: str, plural: str | None = None) -> str:
    return f"{number} {singular if number == 1 else plural or singular + 's'}"
