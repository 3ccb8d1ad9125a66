from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, NamedTuple

import click

from gitmem.clientstores import NAMES as CLIENT_NAMES
from gitmem.commands import open_store, today
from gitmem.commands.okf import import_okf
from gitmem.commands.output import done, echo, echo_json, style
from gitmem.errors import UsageError, shown
from gitmem.importing import fromclients, importer
from gitmem.importing.move import apply_moves, delivery, keep_once, plan_moves
from gitmem.importing.oversize import near_limits, oversized
from gitmem.importing.wording import LISTED_UNDER
from gitmem.memory.config import load_config
from gitmem.memory.store import Store
from gitmem.project import user_scope

if TYPE_CHECKING:
    from gitmem.importing.fromclients import ClientImport, Proposal
    from gitmem.importing.importer import Draft, FileRead, ImportReport
    from gitmem.importing.move import Kept, Moved
    from gitmem.importing.oversize import Near, Oversize
    from gitmem.memory.model import Memory
    from gitmem.project import Project


@click.command("import")
@click.argument("paths", metavar="[PATH]...", nargs=-1, type=click.Path(path_type=Path))
@click.option(
    "--dry-run",
    is_flag=True,
    help="Print the plan: what would become a memory, and why; write nothing.",
)
@click.option("--accept", is_flag=True, help="Make the new memories active at once, not proposals.")
@click.option(
    "--force",
    is_flag=True,
    help="Import rules that nearly repeat a memory removed or retired before.",
)
@click.option(
    "--move",
    is_flag=True,
    help="Also remove the hand-written lines that became memories from the rules files (every "
    "other byte kept), so tools do not load each rule twice.",
)
@click.option(
    "--left-out",
    is_flag=True,
    help="With --move: also remove the lines whose memory a target's budget leaves out of "
    "every rules file (`gitmem recall` still finds them). Without it, --move takes out "
    "only what compile writes back.",
)
@click.option(
    "--skills",
    is_flag=True,
    help="Also read the rules files of vendored skill bundles (a skills/ folder, a folder with a "
    "SKILL.md): their skill loads them on demand, so they are skipped otherwise.",
)
@click.option(
    "--counter-examples",
    is_flag=True,
    help='Also import code examples labelled as what not to do ("Incorrect: …", "Don\'t do '
    'this:"), skipped '
    "otherwise: they are not rules.",
)
@click.option(
    "--from",
    "clients",
    metavar="CLIENT",
    multiple=True,
    type=click.Choice([*CLIENT_NAMES, "all"]),
    help="Import what an AI client remembered on its own about this repository, from its store "
    "in your home folder (claude, codex, gemini, qwen; all: every one): as proposals, the "
    "client's files left as they are.",
)
@click.option(
    "--user",
    is_flag=True,
    help="With --from: also import the client's personal memories (your preferences, Claude Code's "
    "user type, the global saved memories) into your personal store, never into the repository.",
)
@click.option(
    "--okf",
    "okf",
    metavar="DIR",
    type=click.Path(file_okay=False, path_type=Path),
    help="Import an Open Knowledge Format v0.2 bundle (Kage, okf-agent-memory, gitmem export "
    "--okf): one proposal per concept, scanned like any import (docs/okf.md).",
)
@click.option("--json", "as_json", is_flag=True, help="Print the outcome as JSON.")
def import_command(
    paths: tuple[Path, ...],
    dry_run: bool,
    accept: bool,
    force: bool,
    move: bool,
    left_out: bool,
    skills: bool,
    counter_examples: bool,
    clients: tuple[str, ...],
    user: bool,
    okf: Path | None,
    as_json: bool,
) -> int:
    """Turn the rules files the project already has into proposed memories. The files are not
    changed, unless --move: then the lines that became memories leave them, in the same change.

    With no PATH, reads every rules file gitmem knows in the repository: AGENTS.md, CLAUDE.md and
    GEMINI.md (root and nested), .claude/rules, .cursor/rules, .cursorrules, Copilot instructions,
    .windsurf/rules, .windsurfrules, .clinerules, .kiro/steering, CONVENTIONS.md, .amazonq/rules,
    .continue/rules, .roo/rules, .roorules, .junie/guidelines.md, .augment/rules,
    .augment-guidelines, .trae/rules/project_rules.md, WARP.md.
    A PATH may be one of those, a directory, or any Markdown file. gitmem's own managed blocks and
    generated files are skipped. --move takes out only the lines whose memory compile writes back
    (proposals' lines stay until accepted; lines over a budget stay unless --left-out), and says why
    each other line stays.

    One memory per bullet, or per paragraph of prose; the kind is guessed from the headings and
    shown for review; paths come from the file's scope (Cursor and Continue globs, Copilot applyTo,
    Claude and Cline paths, Windsurf and Kiro globs, DIR/** for DIR/AGENTS.md and DIR/WARP.md). The
    same rule in several files becomes one memory.
    Importing again adds nothing. A rule that nearly repeats a memory removed or retired before is
    refused unless --force; an item holding a secret or hidden Unicode is refused (exit 1) and the
    rest imported.

    With --from CLIENT, reads instead what the client remembered on its own about this repository,
    in its store in your home folder (only that store, for this repository, bounded; a link leading
    out of it is refused; its files are left byte for byte): Claude Code's auto memory
    (~/.claude/projects/<key>/memory/), Codex's ~/.codex/memories/MEMORY.md (the task groups of this
    repository), Gemini CLI's private project memory (~/.gemini/tmp/<id>/memory/), Qwen Code's
    (~/.qwen/projects/<key>/memory/ and .qwen/team-memory/). Each entry becomes a proposal whose
    origin names the client, the file and the line. An entry holding a secret or hidden Unicode is
    refused and its text copied nowhere (exit 1). Personal entries are skipped unless --user. Run it
    again and nothing new is proposed; an entry a human rejected is not proposed again; one the
    client edited since is proposed as a change of the memory it became.

    \b
    Examples:
      gitmem import --dry-run
      gitmem import
      gitmem import CLAUDE.md .cursor/rules --json
      gitmem import --accept --move      # rules move into .memory/; compile writes them back, once
      gitmem import --from claude --dry-run
      gitmem import --from all --user    # personal entries into your personal memories
      gitmem import --okf docs/knowledge   # an Open Knowledge Format bundle, as proposals
      gitmem list --status proposed
    """
    given = {"PATH": paths, "--from": clients, "--accept": accept, "--move": move, "--user": user}
    mode = "--okf" if okf is not None else "--from" if clients else "PATH"
    if any(given[name] for name in TAKES_NONE_OF[mode][0]):
        raise UsageError(TAKES_NONE_OF[mode][1])
    if okf is not None:
        return import_okf(okf, dry_run, as_json)
    if clients:
        return _from_clients(clients, dry_run, force, user, as_json)
    flags = _Flags(dry_run, accept, force, move, left_out, skills, counter_examples)
    return _from_rules(paths, flags, as_json)


# What each way of importing (an OKF bundle, a client's store, rules files) takes none of, and what
# it says when given one.
TAKES_NONE_OF: dict[str, tuple[tuple[str, ...], str]] = {
    "--okf": (
        ("PATH", "--from", "--accept", "--move", "--user"),
        "--okf DIR reads one bundle: it takes no PATH, --from, --accept, --move or --user",
    ),
    "--from": (
        ("PATH", "--accept", "--move"),
        "--from reads a client's own memory store: it takes no PATH, and neither --accept (its "
        "entries are always proposals, for a human to review) nor --move (the client's files are "
        "never changed)",
    ),
    "PATH": (("--user",), "--user goes with --from CLIENT (a client's personal memories)"),
}


class _Flags(NamedTuple):
    dry_run: bool
    accept: bool
    force: bool
    move: bool
    left_out: bool
    skills: bool
    counter_examples: bool


def _from_rules(paths: tuple[Path, ...], flags: _Flags, as_json: bool) -> int:
    if flags.left_out and not flags.move:
        raise UsageError("--left-out goes with --move")
    project, store = open_store()
    config = load_config(project)
    day = today()
    request = importer.Request(
        day, config.similarity, paths, accept=flags.accept, force=flags.force,
        dry_run=flags.dry_run, rules_only=flags.move, skills=flags.skills,
        counter_examples=flags.counter_examples,
    )  # fmt: skip
    report = importer.import_rules(project, store, request)
    moving = _Moving([], [], [])
    if flags.move:
        delivered = delivery(project, report, store.load().memories.values(), day)
        moves, kept = plan_moves(project, report, delivered, flags.left_out)
        apply_moves(project, report, moves)
        moving = _Moving(moves, kept, keep_once(report, store))
    read = [info.path for info in report.files]
    limits = _Limits(oversized(project, read), near_limits(project, read, config.budget_for))
    if as_json:
        echo_json(_rules_json(project, report, moving, limits, flags))
    elif not report.files and not report.skipped:
        echo(
            "no rules files found (AGENTS.md, CLAUDE.md, GEMINI.md, .cursor/rules, "
            ".github/copilot-instructions.md, …): nothing to import; give a PATH to "
            "import another Markdown file",
            err=True,
        )
        return 0
    else:
        _print_rules(project, report, moving, limits, flags)
    return 1 if report.refused else 0


class _Limits(NamedTuple):
    """The rules files read that are over a client's limit, and those near one."""

    over: list[Oversize]
    near: list[Near]


class _Moving(NamedTuple):
    """What --move took out of the rules files, kept in them, and made memories on demand."""

    moves: list[Moved]
    kept: list[Kept]
    demoted: list[str]


def _rules_json(
    project: Project, report: ImportReport, moving: _Moving, limits: _Limits, flags: _Flags
) -> dict[str, Any]:
    data = _as_json(project, report)
    if flags.move:
        data["moved"] = [{"path": m.path, "lines": m.lines} for m in moving.moves]
        data["kept"] = [{"path": k.path, "lines": k.lines, "why": k.why} for k in moving.kept]
        data["on_demand"] = moving.demoted
    moved = _moved_paths(moving, flags)
    data["over_limit"] = [
        {"path": o.path, "used": o.used, "lines": o.lines, "measure": o.limit.measure,
         "limit": o.limit.value, "target": o.target, "why": o.limit.reason,
         "message": o.describe(o.path in moved, flags.left_out)}
        for o in limits.over
    ]  # fmt: skip
    data["near_limit"] = [
        {"path": n.path, "used": n.used, "measure": n.limit.measure, "limit": n.limit.value,
         "target": n.target, "tokens": n.tokens, "budget": n.budget, "message": n.describe()}
        for n in limits.near
    ]  # fmt: skip
    return data


def _moved_paths(moving: _Moving, flags: _Flags) -> set[str]:
    """The rules files --move changed (none on a dry run)."""
    return set() if flags.dry_run else {m.path for m in moving.moves}


def _print_rules(
    project: Project, report: ImportReport, moving: _Moving, limits: _Limits, flags: _Flags
) -> None:
    _print_files(report)
    _print_items(project, report)
    _print_lines(report, moving.moves, moving.kept, flags.move)
    demoted = moving.demoted
    if demoted:
        verb = done("make", flags.dry_run)
        echo(
            f"{style(verb, fg='yellow')} {len(demoted)} memories on demand: an earlier import made "
            "them of prose, code or tables that stay in their file, which the clients read there "
            "(the prompt hook and recall still bring them): "
            f"{', '.join(demoted[:5])}{' …' if len(demoted) > 5 else ''}"
        )
    moved = _moved_paths(moving, flags)
    for item in limits.over:
        described = item.describe(item.path in moved, flags.left_out)
        echo(f"{style('over a limit:', fg='yellow')} {described}")
    for close in limits.near:
        echo(f"{style('near a limit:', fg='yellow')} {close.describe()}")
    _print_summary(report, moving.moves)


def _verb(report: ImportReport) -> str:
    return done("add" if report.status == "active" else "propose", report.dry_run)


def _print_files(report: ImportReport) -> None:
    for info in report.files:
        parts = [] if info.label == info.path.rsplit("/", 1)[-1] else [info.label]
        if info.imported_by:
            parts.append(f"imported by {info.imported_by}")
        parts.append(info.scope.note)
        noun = "item" if info.items == 1 else "items"
        echo(f"read {shown(info.path)} ({'; '.join(parts)}): {info.items} {noun}")


def _print_items(project: Project, report: ImportReport) -> None:

    verb = _verb(report)
    for draft, memory in report.made():
        _print_draft(project, draft, memory, verb)
    _print_not_imported(report)


def _print_draft(project: Project, draft: Draft, memory: Memory, verb: str) -> None:
    """One new memory: where it went, its kind, scope and sources, and when it applies."""
    target = project.display(draft.written) if draft.written else memory.id
    echo(f"{style(verb, fg='green')} {target}: {memory.title}")
    details = [f"{memory.kind} ({draft.kind_from})"]
    if memory.paths:
        details.append("paths " + ", ".join(memory.paths))
    if memory.targets:
        details.append("targets " + ", ".join(memory.targets))
    if memory.priority != "normal":
        details.append(f"priority {memory.priority}")
    details.append("from " + ", ".join(source.where() for source in draft.sources))
    echo("    " + " · ".join(details))
    lead = next((line for line in memory.body.splitlines() if line.startswith(LISTED_UNDER)), None)
    if lead is not None:  # when the item applies: without it, two items can read as contradicting
        echo(f"    {lead[:117] + '…' if len(lead) > 118 else lead}")


# Lists of a report, each with how one of its items reads and whether it goes to standard error.
_Said = tuple[tuple[Sequence[Any], Callable[[Any], str], bool], ...]


def _print_said(said: _Said) -> None:
    """Each item of each list of ``said``, as its row says it reads."""
    for items, line_of, err in said:
        for item in items:
            echo(line_of(item), err=err)


def _print_not_imported(report: ImportReport) -> None:
    """The items that were already memories, rejected, refused or skipped, and the warnings."""
    said: _Said = (
        (
            report.known,
            lambda known: (
                f"already a memory: {known.source.where()} is {known.id} ({known.status}; "
                + SAID_KNOWN.get(known.why, "nearly the same, similarity {score:.2f}").format(
                    score=known.score
                )
                + f"): {known.title}"
            ),
            False,
        ),
        (
            report.rejected,
            lambda item: (
                f"{style('not imported', fg='yellow')}: {item.source.where()} nearly repeats "
                f"memory {item.rejected.describe()} (similarity {item.rejected.score:.2f}); "
                "--force imports it anyway"
            ),
            False,
        ),
        (
            report.refused,
            lambda refused: f"{style('refused', fg='red')}: {refused.message}; not imported",
            True,
        ),
        (report.skipped, lambda skipped: f"skipped {skipped.where()}: {skipped.reason}", False),
        (report.warnings, lambda warning: f"warning: {warning}", True),
    )
    _print_said(said)
    if report.invalid_files:
        echo(
            f"warning: {report.invalid_files} invalid memory file(s) were not compared: "
            "run `gitmem validate`",
            err=True,
        )


def _print_lines(report: ImportReport, moves: list[Moved], kept: list[Kept], move: bool) -> None:
    """What --move took out of the rules files (and kept in them), or the hand-written lines that
    are now also memories."""
    for moved in moves:
        verb = done("remove", report.dry_run)
        what = f"{len(moved.lines)} line(s)"
        echo(f"{style(verb, fg='yellow')} {what} from {shown(moved.path)}: now memories")
    for item in kept:
        verb = done("keep", report.dry_run)
        echo(
            f"{style(verb, fg='yellow')} {len(item.lines)} line(s) in {shown(item.path)}: "
            f"{item.why}"
        )
    lines = report.also_memories()
    if lines and not move:
        width = max(len(source.where()) for source, _ in lines)
        head = "would also be memories" if report.dry_run else "are now also memories"
        echo("")
        echo(
            f"These hand-written lines {head}; delete them by hand when ready (import "
            "never changes a rules file):"
        )
        for source, memory_id in lines:
            echo(f"  {source.where().ljust(width)}  {memory_id}")


def _print_summary(report: ImportReport, moves: list[Moved]) -> None:
    rejected = (len(report.rejected), "rejected before")
    head = f"{len(report.drafts)} {_verb(report)} from {len(report.files)} file(s)"
    _summary(head, len(report.known), rejected, len(report.refused), len(report.skipped))
    asked = sum(memory.on_demand for _, memory in report.made())
    if asked:
        echo(
            f"{asked} of them on demand, as their tool loads them: never compiled, the prompt hook "
            "and `gitmem recall` bring them (priority: on-demand)",
            err=True,
        )
    if report.drafts and not report.dry_run:
        also = ", the rules files" if moves else ""
        echo(NEXT[report.status].format(also=also), err=True)


# What to do after an import, by the status of the memories it made.
NEXT = {
    "active": "next: gitmem compile, then commit .memory/{also} and the compiled files",
    "proposed": "next: review them (gitmem list --status proposed), then gitmem accept ID…",
}


def _summary(head: str, known: int, rejected: tuple[int, str], refused: int, skipped: int) -> None:
    """The last line of an import: what came of the items, on stderr."""
    parts = [head, f"{known} already memories"]
    if rejected[0]:
        parts.append(f"{rejected[0]} {rejected[1]}")
    if refused:
        parts.append(f"{refused} refused")
    parts.append(f"{skipped} skipped")
    echo(", ".join(parts), err=True)


def _as_json(project: Project, report: ImportReport) -> dict[str, Any]:
    return {
        "dry_run": report.dry_run,
        "status": report.status,
        "files": [_file_json(info) for info in report.files],
        "memories": [
            {
                **memory.to_dict(),
                "kind_from": draft.kind_from,
                "path": project.display(draft.written) if draft.written else None,
                "sources": [source.to_dict() for source in draft.sources],
            }
            for draft, memory in report.made()
        ],
        "known": [
            {
                **known.source.to_dict(),
                "title": known.title,
                "id": known.id,
                "status": known.status,
                "why": known.why,
                "score": known.score,
            }
            for known in report.known
        ],
        "rejected": [
            {
                **item.source.to_dict(),
                "title": item.title,
                "score": item.rejected.score,
                "removed": item.rejected.removal.to_dict(),
            }
            for item in report.rejected
        ],
        "refused": [
            {**item.source.to_dict(), "reason": item.reason, "message": item.message}
            for item in report.refused
        ],
        "skipped": [
            {"path": s.path, "line": s.line or None, "end": s.end or None, "reason": s.reason}
            for s in report.skipped
        ],
        "lines": [
            {**source.to_dict(), "id": memory_id} for source, memory_id in report.also_memories()
        ],
        "warnings": report.warnings,
    }


def _file_json(info: FileRead) -> dict[str, Any]:
    scope = info.scope
    return {
        "path": info.path,
        "format": info.label,
        "scope": scope.note,
        "paths": list(scope.paths),
        "priority": scope.priority,
        "items": info.items,
        "imported_by": info.imported_by,
    }


def _from_clients(
    clients: tuple[str, ...], dry_run: bool, force: bool, user: bool, as_json: bool
) -> int:

    names = list(CLIENT_NAMES) if "all" in clients else list(dict.fromkeys(clients))
    project, store = open_store()
    threshold = load_config(project).similarity
    personal = None
    if user:
        scope = user_scope()
        personal = (scope, Store(scope))
    request = fromclients.Request(names, today(), threshold, personal, force=force, dry_run=dry_run)
    report = fromclients.import_clients(project, store, request)
    if as_json:
        echo_json(_clients_json(project, report))
    else:
        _print_clients(project, report)
    return 1 if report.refused else 0


def _print_clients(project: Project, report: ClientImport) -> None:
    for client in report.clients:
        if not client.places:
            echo(
                f"{client.label} ({client.version}) keeps no memory for this repository: looked in "
                + ", ".join(client.looked)
            )
            continue
        noun = "entry" if client.entries == 1 else "entries"
        echo(
            f"read {client.label}'s memory ({client.version}): {', '.join(client.places)}: "
            f"{client.files} file(s), {client.entries} {noun}"
        )
    for proposal in report.proposals:
        _print_proposal(project, proposal, report.dry_run)
    _print_not_proposed(report)
    verb = done("propose", report.dry_run)
    rejected = (len(report.rejected), "not proposed again")
    _summary(
        f"{len(report.proposals)} {verb}",
        len(report.known),
        rejected,
        len(report.refused),
        len(report.skipped),
    )
    if report.proposals and not report.dry_run:
        echo(
            "next: review them (gitmem list --status proposed), then gitmem accept ID… or "
            "gitmem forget ID",
            err=True,
        )


# What import --from says it did, by the proposal's ``change``.
PROPOSED = {
    "new": "{verb} {target}",
    "update": "{verb} a new wording of proposal {id}",
    "supersede": "{verb} {target}, a change of {of} (supersedes it)",
}


def _print_proposal(project: Project, proposal: Proposal, dry_run: bool) -> None:
    memory = proposal.memory
    verb = done("propose", dry_run)
    target = project.display(proposal.written) if proposal.written else memory.id
    what = PROPOSED[proposal.change].format(verb=verb, target=target, id=memory.id, of=proposal.of)
    scope = " · personal" if proposal.scope == "personal" else ""
    echo(f"{style(what, fg='green')}: {memory.title}")
    echo(f"    {memory.kind} ({proposal.entry.kind_from}){scope} · from {proposal.entry.origin}")


def _print_not_proposed(report: ClientImport) -> None:
    """The entries that were already memories, not proposed again, refused or skipped."""
    said: _Said = (
        (
            report.known,
            lambda known: (
                f"already a memory: {known.origin} is {known.id or 'proposed above'} ("
                + SAID_KNOWN.get(known.why, "nearly the same ({detail})").format(
                    detail=known.detail
                )
                + f"): {known.title}"
            ),
            False,
        ),
        (
            report.rejected,
            lambda item: (
                f"{style('not proposed again', fg='yellow')}: {item.origin}: "
                + NOT_AGAIN[item.why].format(id=item.id, detail=item.detail)
            ),
            False,
        ),
        (
            report.refused,
            lambda refused: (
                f"{style('refused', fg='red')}: "
                + SAID_REFUSED.get(refused.why, SAID_REFUSED["secret"]).format_map(vars(refused))
            ),
            True,
        ),
        (
            report.skipped,
            lambda skipped: (
                f"skipped {skipped.origin}: "
                + SAID_SKIPPED.get(skipped.why, "{why}").format_map(vars(skipped))
            ),
            False,
        ),
    )
    _print_said(said)


# Why an entry is not proposed again (``Outcome.why`` of ``report.rejected``).
NOT_AGAIN = {
    "rejected-before": "it became {id}, which a human {detail}",
    "removed": "nearly repeats memory {detail}; --force imports it anyway",
}
# What import --from says of an entry, by its ``Outcome.why``: already a memory (any other why: a
# near duplicate), refused (a secret or hidden Unicode: its text copied nowhere) and skipped.
SAID_KNOWN = {"imported-before": "imported before"}
SAID_REFUSED = {
    "unreadable": "{origin}: {detail}",
    "secret": "{detail}; not imported, its text copied nowhere",
}
SAID_SKIPPED = {"personal": "{detail}; --user imports it into your personal memories"}


def _clients_json(project: Project, report: ClientImport) -> dict[str, Any]:
    def outcome(item: Any) -> dict[str, Any]:
        return {
            "origin": item.origin,
            "title": item.title or None,
            "why": item.why,
            "id": item.id,
            "detail": item.detail or None,
        }

    return {
        "dry_run": report.dry_run,
        "user": report.user,
        "clients": [
            {
                "name": c.name,
                "label": c.label,
                "version": c.version,
                "places": c.places,
                "looked": c.looked,
                "files": c.files,
                "entries": c.entries,
            }
            for c in report.clients
        ],
        "memories": [
            {
                **p.memory.to_dict(),
                "scope": p.scope,
                "change": p.change,
                "of": p.of,
                "kind_from": p.entry.kind_from,
                "path": project.display(p.written) if p.written else None,
            }
            for p in report.proposals
        ],
        "known": [outcome(item) for item in report.known],
        "rejected": [outcome(item) for item in report.rejected],
        "refused": [
            {"origin": r.origin, "reason": r.why, "message": r.detail} for r in report.refused
        ],
        "skipped": [outcome(item) for item in report.skipped],
    }
