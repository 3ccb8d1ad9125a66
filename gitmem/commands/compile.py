from __future__ import annotations

from collections import Counter
from typing import TYPE_CHECKING, Any

import click

from gitmem.config import TARGET_NAMES
from gitmem.render import echo, echo_json, style, table

if TYPE_CHECKING:
    from gitmem.compile.compiler import Report
    from gitmem.compile.plan import TargetPlan
    from gitmem.errors import Problem
    from gitmem.memory.model import Memory
    from gitmem.memory.store import Snapshot

_SHOWN_OMITTED = 10


@click.command("compile")
@click.option("--check", is_flag=True, help="Write nothing; exit 1 and list the files that are out of date.")
@click.option(
    "--target",
    "targets",
    multiple=True,
    type=click.Choice(TARGET_NAMES),
    metavar="NAME",
    help=f"Compile only this configured target (repeatable): {', '.join(TARGET_NAMES)}. Default: every target "
    "in .memory/config.yaml.",
)
@click.option(
    "--budget",
    type=click.IntRange(min=1),
    metavar="TOKENS",
    help="Token budget of every target for this run (default: `budget` in .memory/config.yaml).",
)
@click.option("--force", is_flag=True, help="Overwrite gitmem's blocks and files even where they were edited by hand.")
@click.option("--json", "as_json", is_flag=True, help="Print what was done (or found) as JSON.")
def compile_command(check: bool, targets: tuple[str, ...], budget: int | None, force: bool, as_json: bool) -> int:
    """Write the active memories into each AI tool's rules files.

    In files that may hold hand-written text (AGENTS.md, CLAUDE.md, ...) gitmem owns only the block between
    `<!-- gitmem:begin -->` and `<!-- gitmem:end -->`; every other byte is kept. A block edited by hand is shown
    as a diff and left alone unless --force. Git conflict markers inside a block are healed by regenerating it.
    Over a target's token budget, lower-priority memories are left out and listed; `gitmem recall` finds them.

    Exit codes: 0 written (or, with --check, up to date); 1 invalid memories, a hand edit, a hard size limit, or
    (with --check) stale files.

    \b
    Examples:
      gitmem compile
      gitmem compile --check            # in CI: fails when a rules file is out of date
      gitmem compile --target cursor --budget 1000
    """
    from gitmem.commands import open_store, today
    from gitmem.compile.compiler import apply, prepare
    from gitmem.config import load_config
    from gitmem.errors import CheckFailed

    project, store = open_store()
    config = load_config(project)
    snapshot = store.load()
    if snapshot.problems:
        if as_json:
            echo_json({"check": check, "written": False, "problems": _problems(snapshot.problems)})
            return 1
        raise CheckFailed(
            snapshot.problems,
            f"{len(snapshot.problems)} problem(s) in memory files: nothing was compiled. "
            "Fix them (`gitmem validate` lists them), then run `gitmem compile`.",
        )
    day = today()
    live = [memory for memory in snapshot.memories.values() if memory.is_live(day)]
    report = prepare(project, config, live, names=targets, budget=budget, force=force)
    if report.problems:
        if as_json:
            echo_json(_compile_json(report, check, written=False))
            return 1
        for warning in report.warnings:
            echo(f"warning: {warning}", err=True)
        raise CheckFailed(report.problems, "nothing was written")
    if check:
        if as_json:
            echo_json(_compile_json(report, check, written=False))
        else:
            _print_check(report)
        return 1 if report.stale else 0
    if report.refused:
        if as_json:
            echo_json(_compile_json(report, check, written=False))
        else:
            _print_refused(report)
        return 1
    changed = apply(project, report)
    if as_json:
        echo_json(_compile_json(report, check, written=bool(changed)))
        return 0
    for change in changed:
        verb = {"created": "created", "updated": "updated", "healed": "healed", "removed": "removed"}[change.action]
        note = " (git conflict markers in its gitmem block)" if change.action == "healed" else ""
        echo(f"{style(verb, fg='green' if verb != 'removed' else 'yellow')} {change.path}{note}")
    _print_omitted(report.plans)
    for warning in report.warnings:
        echo(f"warning: {warning}", err=True)
    names = ", ".join(plan.target.name for plan in report.plans) or "no targets"
    if changed:
        echo(f"compiled {len(live)} memories for {names}: {len(changed)} file(s) changed")
    else:
        echo(f"up to date: {len(live)} memories compiled for {names}")
    return 0


def _problems(problems: list[Problem]) -> list[dict[str, Any]]:
    return [
        {"path": p.path, "line": p.line, "column": p.column, "field": p.field, "message": p.message} for p in problems
    ]


def _compile_json(report: Report, check: bool, written: bool) -> dict[str, Any]:
    files = []
    for change in report.changes:
        item: dict[str, Any] = {"path": change.path, "target": change.target, "action": change.action}
        if change.action != "unchanged":
            item["reason"] = change.reason
        if change.edited:
            item["diff"] = change.diff
        files.append(item)
    return {
        "check": check,
        "written": written,
        "files": files,
        "targets": [_target_json(plan) for plan in report.plans],
        "warnings": report.warnings,
        "problems": _problems(report.problems),
    }


def _target_json(plan: TargetPlan) -> dict[str, Any]:
    return {
        "name": plan.target.name,
        "tokens": plan.tokens,
        "budget": plan.budget,
        "files": list(plan.files),
        "compiled": plan.compiled,
        "omitted": plan.omitted,
    }


def _print_check(report: Report) -> None:
    for change in report.stale:
        echo(f"{change.path}: {change.reason}")
    if report.stale:
        echo(f"{len(report.stale)} file(s) out of date: run `gitmem compile`", err=True)
    else:
        files = sum(len(plan.files) for plan in report.plans)
        echo(f"up to date: {files} file(s)")


def _print_refused(report: Report) -> None:
    for change in report.refused:
        echo(
            f"{change.path}: gitmem's text was edited by hand since the last compile; compile would change it so:",
            err=True,
        )
        echo(change.diff.rstrip("\n"), err=True)
    echo(
        f"refused: {len(report.refused)} file(s) edited by hand, nothing was written. Put the change in a memory "
        "(`gitmem add`, `gitmem edit`) and run `gitmem compile`, or overwrite it with `gitmem compile --force`.",
        err=True,
    )


def _print_omitted(plans: list[TargetPlan]) -> None:
    for plan in plans:
        if not plan.omitted:
            continue
        shown = ", ".join(plan.omitted[:_SHOWN_OMITTED])
        more = len(plan.omitted) - _SHOWN_OMITTED
        if more > 0:
            shown += f" and {more} more (`gitmem stats --json` lists them all)"
        total = len(plan.omitted) + len(plan.compiled)
        echo(
            f"{plan.target.name}: left out {len(plan.omitted)} of {total} memories to fit {plan.budget:,} tokens: "
            f"{shown}; `gitmem recall` finds them"
        )


@click.command()
@click.option("--json", "as_json", is_flag=True, help="Print the figures as JSON.")
def stats(as_json: bool) -> int:
    """Show memories per status and kind, and each target's tokens against its budget and size limits.

    Tokens are estimated as characters / 4 of what gitmem writes for the target. Memories the budget leaves
    out are counted here, and listed in full by --json.

    \b
    Examples:
      gitmem stats
      gitmem stats --json | jq '.targets[] | {name, tokens, budget}'
    """
    from gitmem.commands import open_store, today
    from gitmem.compile.compiler import prepare
    from gitmem.config import load_config

    project, store = open_store()
    config = load_config(project)
    snapshot = store.load()
    day = today()
    live = [memory for memory in snapshot.memories.values() if memory.is_live(day)]
    report = prepare(project, config, live, force=True)
    memories = _memory_counts(snapshot, day)
    targets = []
    for plan in report.plans:
        item = _target_json(plan)
        item["files"] = [{"path": path, "tokens": _tokens(fp.text())} for path, fp in plan.files.items()]
        item["limits"] = [
            {
                "path": use.path,
                "measure": use.limit.measure,
                "value": use.limit.value,
                "used": use.used,
                "hard": use.limit.hard,
                "over": use.over,
                "reason": use.limit.reason,
            }
            for use in report.limits
            if use.target == plan.target.name
        ]
        targets.append(item)
    if as_json:
        echo_json({"memories": memories, "targets": targets})
    else:
        _print_stats(memories, targets)
    for problem in snapshot.problems:
        echo(str(problem), err=True)
    if snapshot.problems:
        echo(f"{len(snapshot.problems)} problem(s) in memory files: they are not counted", err=True)
        return 1
    return 0


def _tokens(text: str) -> int:
    from gitmem.compile.budget import tokens

    return tokens(len(text))


def _memory_counts(snapshot: Snapshot, day: Any) -> dict[str, Any]:
    from gitmem.memory.model import KINDS, STATUSES

    memories: list[Memory] = list(snapshot.memories.values())
    by_status = Counter(m.status for m in memories)
    by_kind = {kind: dict.fromkeys(STATUSES, 0) for kind in KINDS}
    for memory in memories:
        by_kind[memory.kind][memory.status] += 1
    return {
        "total": len(memories),
        "compiled": sum(1 for m in memories if m.is_live(day)),
        "expired": sum(1 for m in memories if m.status == "active" and m.is_expired(day)),
        "invalid_files": len({p.path for p in snapshot.problems}),
        "by_status": {status: by_status.get(status, 0) for status in STATUSES},
        "by_kind": by_kind,
    }


def _print_stats(memories: dict[str, Any], targets: list[dict[str, Any]]) -> None:
    status = ", ".join(f"{name} {count}" for name, count in memories["by_status"].items())
    expired = f"; {memories['expired']} active but expired (not compiled)" if memories["expired"] else ""
    echo(f"memories: {memories['total']} ({status}){expired}")
    echo()
    statuses = list(memories["by_status"])
    rows = [[kind] + [str(counts[s]) for s in statuses] for kind, counts in memories["by_kind"].items()]
    echo(table(["KIND", *(s.upper() for s in statuses)], rows))
    if not targets:
        echo("\nno targets configured: gitmem init --target NAME")
        return
    echo()
    rows = []
    for item in targets:
        rows.append(
            [
                item["name"],
                str(len(item["files"])),
                f"{item['tokens']:,}",
                f"{item['budget']:,}",
                str(len(item["omitted"])),
                _limit_cell(item["limits"]),
            ]
        )
    echo(table(["TARGET", "FILES", "TOKENS", "BUDGET", "LEFT OUT", "LIMIT (fullest file)"], rows))


def _limit_cell(limits: list[dict[str, Any]]) -> str:
    if not limits:
        return "none documented"
    worst = max(limits, key=lambda use: use["used"] / use["value"])
    unit = {"chars": "chars", "lines": "lines", "chain_bytes": "bytes (chain)"}[worst["measure"]]
    flag = " OVER" + (" (hard)" if worst["hard"] else "") if worst["over"] else ""
    return f"{worst['used']:,}/{worst['value']:,} {unit} in {worst['path']}{flag}"
