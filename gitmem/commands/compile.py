from __future__ import annotations

import os
from collections import Counter
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

import click

from gitmem.commands import open_store, today
from gitmem.commands.options import target_option
from gitmem.commands.output import echo, echo_json, problems_json, style, table
from gitmem.compile.budget import rank_reason, tokens
from gitmem.compile.compiler import Compiled, Mode, Request, compile_store, compiled_memories
from gitmem.compile.delivery import readers_of
from gitmem.compile.reading import Disk, FileRead, GitView, files_of, read
from gitmem.compile.verify import notes
from gitmem.errors import CheckFailed, UsageError, shown
from gitmem.gateway import find_project
from gitmem.memory.config import TARGET_NAMES, load_config
from gitmem.memory.model import KINDS, STATUSES
from gitmem.project import UserScope

if TYPE_CHECKING:
    from gitmem.compile.changes import FileChange, Report
    from gitmem.compile.plan import TargetPlan
    from gitmem.compile.verify import Miss
    from gitmem.errors import Problem
    from gitmem.memory.model import Memory
    from gitmem.memory.store import Snapshot, Store
    from gitmem.project import Project
    from gitmem.scopes.packs import Pack

Show = Callable[[str], str]  # a compiled file's path as the user sees it
USER_FLAG = {False: "", True: " --user"}  # what a command it names takes for the user's scope


@click.command("compile")
@click.option(
    "--check", is_flag=True, help="Write nothing; exit 1 and list the files that are out of date."
)
@target_option(
    f"Compile only this configured target (repeatable): {', '.join(TARGET_NAMES)}. Default: every "
    "target in .memory/config.yaml."
)
@click.option(
    "--budget",
    type=click.IntRange(min=1),
    metavar="TOKENS",
    help="Token budget of every target for this run (default: `budget` in .memory/config.yaml).",
)
@click.option(
    "--force",
    is_flag=True,
    help="Overwrite gitmem's blocks and files even where they were edited by hand.",
)
@click.option(
    "--user",
    is_flag=True,
    help="Compile your personal memories into the tools' user-level files (~/.claude/CLAUDE.md, "
    "...) instead.",
)
@click.option(
    "--commit",
    is_flag=True,
    help="Commit the files compile changed, in a commit of their own (what CI runs on the default "
    "branch after a merge); nothing when they are up to date.",
)
@click.option("--json", "as_json", is_flag=True, help="Print what was done (or found) as JSON.")
def compile_command(
    check: bool,
    targets: tuple[str, ...],
    budget: int | None,
    force: bool,
    user: bool,
    commit: bool,
    as_json: bool,
) -> int:
    """Write the active memories into each AI tool's rules files.

    In files that may hold hand-written text (AGENTS.md, CLAUDE.md, ...) gitmem owns only the block
    between `<!-- gitmem:begin -->` and `<!-- gitmem:end -->`; every other byte is kept. A block
    edited by hand is shown as a diff and left alone unless --force. Git conflict markers inside a
    block are healed by regenerating it.
    Over a target's token budget, lower-priority memories are left out and listed; `gitmem recall`
    finds them.
    The memories of shared packs (`gitmem sources`) are compiled too, as PACK/ID.

    With --user, your personal memories (`gitmem add --user`) go into the user-level rules files of
    the tools in `targets` of ~/.config/gitmem/config.yaml, or else of every tool whose user-level
    directory exists. Project compiles never include personal memories, and --user never includes
    project memories.

    Exit codes: 0 written (or, with --check, up to date); 1 invalid memories, a hand edit, a hard
    size limit, or (with --check) stale files; 3 a shared pack that is not in the cache cannot be
    fetched.

    \b
    Examples:
      gitmem compile
      gitmem compile --check            # in CI: fails when a rules file is out of date
      gitmem compile --target cursor --budget 1000
      gitmem compile --user             # your personal memories into ~/.claude/CLAUDE.md, ...
      gitmem compile --commit           # CI after a merge: refresh stale rules files
                                        # in a commit of their own
    """
    if commit:
        return _commit(any((check, targets, budget is not None, force, user)), as_json)
    project, store = open_store(user)
    mode: Mode = "report" if check else "write"
    request = Request(today(), mode, targets, budget, force)
    result, notes = _run(project, store, user, request)
    for note in notes:
        echo(f"note: {note}", err=True)
    if result.invalid:
        return _invalid(result.invalid, check, user, as_json)
    report = result.report
    show = _shower(project, user)
    if as_json:
        echo_json(_compile_json(report, check, bool(result.written), show))
        if report.problems:
            return 1
        return _check_code(report) if check else int(bool(report.held_targets))
    return _print_result(project, result, check, user, show)


def _check_code(report: Report) -> int:
    """``compile --check``'s exit code once the report is sound: 1 when a file is stale (edited by
    hand in gitmem's block too), a target held, or a file ignored by git."""
    return int(bool(report.stale or report.held or report.ignored))


def _print_result(project: Project, result: Compiled, check: bool, user: bool, show: Show) -> int:
    """What compile says without --json: problems, the check, the refused files, or what was
    written."""
    report = result.report
    if report.problems:
        for warning in report.warnings:
            echo(f"warning: {warning}", err=True)
        raise CheckFailed(report.problems, "nothing was written")
    if check:
        _print_check(project, report, show)
        return _check_code(report)
    return _print_written(project, result, user, show)


def _commit(other_options: bool, as_json: bool) -> int:
    """``compile --commit``: the refresh CI runs on the default branch (``gitmem.git.refresh``)."""
    if other_options:
        raise UsageError(
            "--commit compiles every configured target as configured: it goes with --json only"
        )
    project = find_project()
    project.require_initialised()
    from gitmem.git.refresh import refresh  # start-up: only compile --commit refreshes

    done = refresh(project, today(), own_commit=True)
    if as_json:
        echo_json(
            {
                "action": done.action,
                "files": done.files,
                "commit": done.commit or None,
                "reason": done.reason,
            }
        )
    else:
        echo(
            done.summary()
            or ("gitmem: rules files up to date" if done.action == "fresh" else done.reason)
        )
    return int(done.action == "skipped")


def _run(
    project: Project,
    store: Store,
    user: bool,
    request: Request,
) -> tuple[Compiled, list[str]]:
    """The one compile call, for the project's targets (its shared packs included), or (``user``)
    for the user-level files (the targets ``request.names`` narrowed to those the user has); and
    notes to show.
    """
    config = load_config(project)
    if not user:
        return compile_store(project, store, config, request), []
    assert isinstance(project, UserScope)
    from gitmem.scopes.personal import catalogue, select  # start-up: only compile --user

    selection = select(project, config, request.names)
    notes = list(selection.notes)
    if config.sources:
        notes.append(
            f"`sources` in {project.display(project.config_path)} are not used: packs "
            "belong to projects"
        )
    request = request._replace(only=selection.targets, catalogue=catalogue(project))
    return compile_store(project, store, config, request), notes


def _invalid(problems: list[Problem], check: bool, user: bool, as_json: bool) -> int:
    """Invalid memory files: compile refuses, writing nothing."""
    if as_json:
        echo_json({"check": check, "written": False, "problems": problems_json(problems)})
        return 1
    raise CheckFailed(
        problems,
        f"{len(problems)} problem(s) in memory files: nothing was compiled. "
        f"Fix them (`gitmem validate{USER_FLAG[user]}` lists them), then run "
        "`gitmem compile`.",
    )


# How compile shows a file it wrote, by what it did (otherwise green, with no note).
WRITTEN = {
    "removed": ("yellow", ""),
    "healed": ("green", " (git conflict markers in its gitmem block)"),
}


def _print_written(project: Project, result: Compiled, user: bool, show: Show) -> int:
    """What a compile that wrote says: the files changed, what the budget left out, warnings, the
    summary line; exit 1 when the pre-commit hook must stage more, or a target was held (a file of
    it over a hard size limit, or unable to take the block, or edited by hand there).
    """
    report, changed = result.report, result.written
    for change in changed:  # created, updated, healed or removed
        colour, note = WRITTEN.get(change.action, ("green", ""))
        echo(f"{style(change.action, fg=colour)} {show(change.path)}{note}")
    _print_omitted(report.plans, user, show)
    for warning in report.warnings:
        echo(f"warning: {warning}", err=True)
    if (
        changed
        and not user
        and os.environ.get("PRE_COMMIT") == "1"
        and _unstaged(project, changed, report)
    ):
        return 1
    # committing is the next step; a file the team's own text keeps past a hard limit was warned
    # about above
    misses = _failing([m for m in result.misses if m.fault.name not in ("UNTRACKED", "OVER")])
    held = report.held_targets
    if misses and not held:  # a held target's own message says why its clients miss memories
        return _print_misses(misses)
    echo(_summary(result, user, show))
    return _print_held(report, show, user) if held else 0


def _print_held(report: Report, show: Show, user: bool) -> int:
    """The targets held, each by what holds it (the others were written): exit 1."""
    for problem in report.held:
        echo(str(problem), err=True)
    if report.refused:
        _print_refused(report, show, user)
    echo(
        f"not written: {', '.join(report.held_targets)} (the files above); the other targets were",
        err=True,
    )
    return 1


def _unstaged(project: Project, changed: list[FileChange], report: Report) -> bool:
    """In the pre-commit hook: whether compile wrote files the commit does not hold (said so). A
    file created with no memory in it (gitmem's own root file, from the first compile on) does not
    stop the commit: the post-commit hook puts it into that commit (``gitmem.git.refresh``)."""
    empty = {path for plan in report.plans for path, file in plan.files.items() if not file.entries}
    needed = [c.path for c in changed if not (c.action == "created" and c.path in empty)]
    from gitmem.git.hookpath import unstaged  # start-up: only in the pre-commit hook

    left = unstaged(project, needed)
    if left:
        echo(
            f"compile wrote {len(left)} file(s) this commit does not hold: git add "
            f"{' '.join(left)}, then commit again",
            err=True,
        )
    return bool(left)


def _failing(misses: list[Miss]) -> list[Miss]:
    """The misses `gitmem check` fails on; those it does not (a client started in a folder follows
    none of the root's imports or settings: ``verify.Fault.ROOT_ONLY``) are warned about here, one
    line per client and folder."""
    for note in notes(misses):
        echo(f"warning: {note}", err=True)
    return [miss for miss in misses if miss.fails]


def _print_misses(misses: list[Miss]) -> int:
    """What the clients read that differs from what compile meant: an error where a memory misses a
    client's session at the root (exit 1); one missed only in a folder is warned about, and check
    fails."""
    errors = [miss.fault.name == "MISSING" and not miss.folder for miss in misses]
    for miss, error in zip(misses, errors, strict=True):
        echo(f"{'error' if error else 'warning'}: {miss.line()}", err=True)
    echo(
        f"not up to date: {len(misses)} difference(s) between what the clients read and what "
        "compile meant them to get (`gitmem check` fails until they are fixed)",
        err=True,
    )
    return int(any(errors))


def _summary(result: Compiled, user: bool, show: Show) -> str:
    """``compiled N memories for agents, claude: 2 file(s) changed`` (or ``up to date: ...``)."""

    report = result.report  # the user's scope has no packs
    shared = Counter(pack.name for pack in report.packs for _ in pack.live(today()))
    total = shared.total()
    count = f"{len(result.live) + total} {'personal ' if user else ''}memories"
    count += f" ({total} from {', '.join(shared)})" if total else ""
    plans = report.unheld  # (every target, when all are held)
    if user:
        files = ", ".join(show(plan.target.root_file) for plan in plans)
        where = f"into {files or 'no files'}"
    elif plans:
        where = "for " + ", ".join(plan.target.name for plan in plans)
    else:
        return f"{count} not compiled: no target configured (`gitmem init --target NAME` adds one)"
    if result.written:
        return f"compiled {count} {where}: {len(result.written)} file(s) changed"
    if report.held_targets:  # a held target is not up to date (nothing of it was written)
        return f"not up to date: {count} {where}, a target held (below)"
    return f"up to date: {count} compiled {where}"


def _shower(project: Project, user: bool) -> Show:
    """How a compiled file's path is shown: for the user-level files, as the user would type it."""
    if not user:
        return shown

    def show(path: str) -> str:
        return project.display(project.root / path)

    return show


def _compile_json(report: Report, check: bool, written: bool, show: Show) -> dict[str, Any]:
    files = []
    for change in report.changes:
        item: dict[str, Any] = {
            "path": show(change.path),
            "target": change.target,
            "action": change.action,
        }
        if change.action != "unchanged":
            item["reason"] = change.reason
        if change.edited:
            item["diff"] = change.diff
        files.append(item)
    return {
        "check": check,
        "written": written,
        "files": files,
        "targets": [_target_json(plan, show) for plan in report.plans],
        "sources": [_source_json(pack) for pack in report.packs],
        "warnings": report.warnings,
        "problems": problems_json(report.problems + report.held),
    }


def _target_json(plan: TargetPlan, show: Show = shown) -> dict[str, Any]:
    return {
        "name": plan.target.name,
        "tokens": plan.tokens,
        "budget": plan.budget,
        "index_tokens": tokens(
            plan.index_chars
        ),  # the index of left-out memories, beside the budget
        "files": [show(path) for path in plan.files],
        "compiled": plan.compiled,
        "omitted": plan.omitted,
        "other_targets": plan.elsewhere,
        "delivered_by": plan.delivered,
    }


def _source_json(pack: Pack) -> dict[str, Any]:

    return {
        "name": pack.name,
        "rev": pack.source.rev,
        "commit": pack.commit,
        "memories": len(pack.memories),
        "compiled": len(pack.live(today())),
        "muted": sorted(filter(pack.memories.__contains__, pack.source.mute)),
    }


def _print_check(project: Project, report: Report, show: Show = shown) -> None:
    for change in report.stale:
        echo(f"{show(change.path)}: {change.reason}")
    for problem in report.held:
        echo(str(problem), err=True)
    git = report.git or GitView(project.root)
    for path in report.ignored:
        echo(f"{show(path)}: ignored by git ({git.ignored_fix(path)})")
    if report.stale:
        echo(f"{len(report.stale)} file(s) out of date: run `gitmem compile`", err=True)
    elif report.held_targets:
        echo(f"not up to date: {', '.join(report.held_targets)} held (above)", err=True)
    else:
        files = sum(len(plan.files) for plan in report.plans)
        echo(f"up to date: {files} file(s)")


def _print_refused(report: Report, show: Show = shown, user: bool = False) -> None:
    for change in report.refused:
        echo(
            f"{show(change.path)}: gitmem's text was edited by hand since the last "
            "compile; compile would change it so:",
            err=True,
        )
        echo(change.diff.rstrip("\n"), err=True)
    flag = USER_FLAG[user]
    echo(
        f"refused: {len(report.refused)} file(s) edited by hand inside gitmem's block. Put the "
        f"change in a memory (`gitmem add{flag}`, `gitmem edit{flag}`) and run `gitmem "
        f"compile{flag}`, or overwrite it with `gitmem compile{flag} --force`.",
        err=True,
    )


def _print_omitted(plans: list[TargetPlan], user: bool = False, show: Show = shown) -> None:
    """One line for every target the budget trimmed (not the ids, target by target: `gitmem
    stats` lists them)."""
    parts = []
    for plan in plans:
        if plan.omitted:
            label = show(plan.target.root_file) if user else plan.target.name
            total = len(plan.omitted) + len(plan.compiled)
            parts.append(f"{label} {len(plan.omitted)} of {total} ({plan.budget:,} tokens)")
    if parts:
        flag = USER_FLAG[user]
        echo(
            f"left out by the budget: {', '.join(parts)}; `gitmem stats{flag}` lists them and why, "
            f"`gitmem recall{flag}` finds them"
        )


@click.command()
@click.option(
    "--user",
    is_flag=True,
    help="Your personal memories and the user-level files compile --user writes.",
)
@click.option("--json", "as_json", is_flag=True, help="Print the figures as JSON.")
def stats(user: bool, as_json: bool) -> int:
    """Show memories per status and kind, shared packs' memories per source, and each target's
    tokens against its budget and size limits.

    Tokens are estimated as characters / 4 of what gitmem writes for the target. Memories the budget
    leaves out are counted here, and listed in full by --json.

    \b
    Examples:
      gitmem stats
      gitmem stats --json | jq '.targets[] | {name, tokens, budget}'
      gitmem stats --json | jq '.sources[] | {name, rev, compiled}'
    """
    project, store = open_store(user)
    result, _ = _run(project, store, user, Request(today(), "partial", force=True))
    report, snapshot = result.report, result.snapshot
    day = today()
    packs = report.packs
    show = _shower(project, user)
    memories = _memory_counts(snapshot, day)
    by_id = {memory.id: memory for memory in compiled_memories(result, day)}
    disk = None if user else Disk(project)
    targets = [_stats_target(plan, report, by_id, disk, show) for plan in report.plans]
    sources = [_source_json(pack) for pack in packs]
    if as_json:
        echo_json({"memories": memories, "targets": targets, "sources": sources})
    else:
        _print_stats(memories, targets, user)
        _print_sources(sources)
    problems = sorted([*snapshot.problems, *(p for pack in packs for p in pack.problems)])
    for problem in problems:
        echo(str(problem), err=True)
    if problems:
        echo(f"{len(problems)} problem(s) in memory files: they are not counted", err=True)
        return 1
    return 0


def _stats_target(
    plan: TargetPlan, report: Report, by_id: dict[str, Memory], disk: Disk | None, show: Show
) -> dict[str, Any]:
    """One target's figures for ``gitmem stats``: files and tokens (``disk``: as its client reads
    them on the disk, each file once, what `gitmem explain` says; ``None`` for the user-level
    files), what the budget left out and why, size limits."""
    item = _target_json(plan, show)
    item["left_out"] = [{"id": mid, "why": rank_reason(by_id[mid])} for mid in plan.omitted]
    if disk is None:  # the user-level files
        item["file"] = show(plan.target.root_file)
        item["files"] = [
            {"path": show(path), "tokens": tokens(len(fp.text()))}
            for path, fp in plan.files.items()
        ]
    else:
        loaded = _read_by_its_client(disk, plan, report)
        item["files"] = [{"path": f.path, "tokens": f.tokens} for f in loaded]
        read_chars = sum(
            f.chars for f in loaded
        )  # what `gitmem explain` counts, the index included
        item["read_tokens"] = tokens(read_chars)
        item["tokens"] = tokens(
            max(0, read_chars - plan.index_chars)
        )  # against the budget, as planned
    item["limits"] = [
        {
            "path": show(use.path),
            "measure": use.limit.measure,
            "value": use.limit.value,
            "used": use.used,
            "gitmem": use.own,
            "hand_written": use.hand_written,
            "hard": use.limit.hard,
            "over": use.over,
            "reason": use.limit.reason,
        }
        for use in report.limits
        if use.target == plan.target.name and use.path in plan.files
    ]
    return item


def _read_by_its_client(disk: Disk, plan: TargetPlan, report: Report) -> list[FileRead]:
    """The files a target's client loads in a session at the root, as `gitmem explain` reads them
    (a ``CLAUDE.md`` that links to ``AGENTS.md`` or imports it brings the hub's memories), and the
    target's own files below the root that it did not read there (a file the client reads twice,
    as the Copilot CLI does a file it reads and imports, counts twice)."""
    clients = readers_of(plan.target.name, report.readers)[:1]
    loaded = [file for client in clients for file in read(disk, client).files]
    seen = {file.real for file in loaded}
    return loaded + [f for f in files_of(disk, plan.files, plan.target.name) if f.real not in seen]


def _print_sources(sources: list[dict[str, Any]]) -> None:
    if not sources:
        return
    from gitmem.scopes.packs import short_rev  # start-up: only packs' stats

    echo()
    rows = [
        [
            item["name"],
            short_rev(item["rev"]),
            str(item["memories"]),
            str(item["compiled"]),
            str(len(item["muted"])),
        ]
        for item in sources
    ]
    echo(table(["SOURCE", "REV", "MEMORIES", "COMPILED", "MUTED"], rows))


def _memory_counts(snapshot: Snapshot, day: Any) -> dict[str, Any]:
    memories: list[Memory] = list(snapshot.memories.values())
    by_kind = {kind: dict.fromkeys(STATUSES, 0) for kind in KINDS}
    by_status = dict.fromkeys(STATUSES, 0)
    for memory in memories:
        by_kind[memory.kind][memory.status] += 1
        by_status[memory.status] += 1
    return {
        "total": len(memories),
        "compiled": sum(m.is_live(day) for m in memories),
        "expired": sum(m.status == "active" and m.is_expired(day) for m in memories),
        "invalid_files": len({p.path for p in snapshot.problems}),
        "by_status": by_status,
        "by_kind": by_kind,
    }


def _print_stats(
    memories: dict[str, Any], targets: list[dict[str, Any]], user: bool = False
) -> None:
    status = ", ".join(f"{name} {count}" for name, count in memories["by_status"].items())
    expired = (
        f"; {memories['expired']} active but expired (not compiled)" if memories["expired"] else ""
    )
    echo(f"memories: {memories['total']} ({status}){expired}")
    echo()
    statuses = list(memories["by_status"])
    rows = [
        [kind] + [str(counts[s]) for s in statuses] for kind, counts in memories["by_kind"].items()
    ]
    echo(table(["KIND", *(s.upper() for s in statuses)], rows))
    _print_targets(targets, user)


def _print_targets(targets: list[dict[str, Any]], user: bool) -> None:
    """The targets' table of ``gitmem stats``, and what the budget and memories' ``targets``
    left out."""
    if not targets:
        if user:
            echo("\nno user-level files to compile: set targets in ~/.config/gitmem/config.yaml")
        else:
            echo("\nno targets configured: gitmem init --target NAME")
        return
    echo()
    rows = []
    for item in targets:
        rows.append(
            [
                f"{item['name']} ({item['file']})" if user else item["name"],
                str(len(item["files"])),
                f"{item['tokens']:,}",
                f"{item['budget']:,}",
                str(len(item["omitted"])),
                _limit_cell(item["limits"]),
            ]
        )
    echo(table(["TARGET", "FILES", "TOKENS", "BUDGET", "LEFT OUT", "LIMIT (fullest file)"], rows))
    _print_left_out(targets)


def _print_left_out(targets: list[dict[str, Any]]) -> None:
    trimmed = [item for item in targets if item["left_out"]]
    if trimmed:
        echo(
            "\nThe budget keeps memories by priority, then kind (conventions, pitfalls, decisions, "
            "preferences, facts), then age, then an imported file's order, then the shorter; left "
            "out (`--json` lists them all):"
        )
    for item in trimmed:
        first = item["left_out"][0]
        more = len(item["left_out"]) - 1
        echo(
            f"  {item['name']}: {first['id']} ({first['why']})"
            + (f" and {more} more" if more else "")
        )
    narrowed = [
        f"{item['name']} {len(item['other_targets'])}" for item in targets if item["other_targets"]
    ]
    if narrowed:
        echo(f"\nnot for every target (their `targets` leave these out): {', '.join(narrowed)}")


def _limit_cell(limits: list[dict[str, Any]]) -> str:
    if not limits:
        return "none documented"
    worst = max(limits, key=lambda use: use["used"] / use["value"])
    unit = {"chars": "chars", "lines": "lines", "chain_bytes": "bytes (chain)"}[worst["measure"]]
    flag = " OVER" + (" (hard)" if worst["hard"] else "") if worst["over"] else ""
    return f"{worst['used']:,}/{worst['value']:,} {unit} in {worst['path']}{flag}"
