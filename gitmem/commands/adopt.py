from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

import click

from gitmem.commands.output import echo, echo_json, style
from gitmem.errors import shown

if TYPE_CHECKING:
    from gitmem.adopt.importer import ImportReport
    from gitmem.project import Project


@click.command("import")
@click.argument("paths", metavar="[PATH]...", nargs=-1, type=click.Path(path_type=Path))
@click.option("--dry-run", is_flag=True, help="Print the plan: what would become a memory, and why; write nothing.")
@click.option("--accept", is_flag=True, help="Make the new memories active at once, not proposals.")
@click.option("--force", is_flag=True, help="Import rules that nearly repeat a memory removed or retired before.")
@click.option(
    "--move",
    is_flag=True,
    help="Also remove the hand-written lines that became memories from the rules files (every other byte kept), "
    "so tools do not load each rule twice.",
)
@click.option("--json", "as_json", is_flag=True, help="Print the outcome as JSON.")
def import_command(paths: tuple[Path, ...], dry_run: bool, accept: bool, force: bool, move: bool, as_json: bool) -> int:
    """Turn the rules files the project already has into proposed memories. The files are not changed, unless
    --move: then the lines that became memories leave them, in the same change.

    With no PATH, reads every rules file gitmem knows in the repository: AGENTS.md, CLAUDE.md and GEMINI.md (root
    and nested), .claude/rules, .cursor/rules, .cursorrules, Copilot instructions, .windsurf/rules,
    .windsurfrules, .clinerules, .kiro/steering, CONVENTIONS.md, .amazonq/rules, .continue/rules, .roo/rules,
    .roorules, .junie/guidelines.md, .augment/rules, .augment-guidelines, .trae/rules/project_rules.md, WARP.md.
    A PATH may be one of those, a directory, or any Markdown file. gitmem's own managed blocks and generated files
    are skipped.

    One memory per bullet, or per paragraph of prose; the kind is guessed from the headings and shown for review;
    paths come from the file's scope (Cursor and Continue globs, Copilot applyTo, Claude and Cline paths, Windsurf
    and Kiro globs, DIR/** for DIR/AGENTS.md and DIR/WARP.md). The same rule in several files becomes one memory.
    Importing again adds nothing. A rule that nearly repeats a memory removed or retired before is refused unless
    --force; an item holding a secret or hidden Unicode is refused (exit 1) and the rest imported.

    \b
    Examples:
      gitmem import --dry-run
      gitmem import
      gitmem import CLAUDE.md .cursor/rules --json
      gitmem import --accept --move      # the rules move into .memory/; compile writes them back, once
      gitmem list --status proposed
    """
    from gitmem.adopt.importer import import_rules
    from gitmem.commands import open_store, today
    from gitmem.config import load_config

    project, store = open_store()
    threshold = load_config(project).similarity
    report = import_rules(
        project, store, paths, today(), threshold=threshold, accept=accept, force=force, dry_run=dry_run
    )
    moves = []
    if move:
        from gitmem.adopt.move import apply_moves, plan_moves

        moves = plan_moves(project, report)
        apply_moves(project, report, moves)
    if as_json:
        data = _as_json(project, report)
        if move:
            data["moved"] = [{"path": m.path, "lines": m.lines, "deleted": m.deleted} for m in moves]
        echo_json(data)
        return 1 if report.refused else 0

    if not report.files and not report.skipped:
        echo(
            "no rules files found (AGENTS.md, CLAUDE.md, GEMINI.md, .cursor/rules, .github/copilot-instructions.md, "
            "…): nothing to import; give a PATH to import another Markdown file",
            err=True,
        )
        return 0
    for info in report.files:
        parts = [] if info.label == info.path.rsplit("/", 1)[-1] else [info.label]
        if info.imported_by:
            parts.append(f"imported by {info.imported_by}")
        if info.scope is not None:
            parts.append(info.scope.note)
        noun = "item" if info.items == 1 else "items"
        echo(f"read {shown(info.path)} ({'; '.join(parts)}): {info.items} {noun}")
    verb = ("would add" if dry_run else "added") if accept else ("would propose" if dry_run else "proposed")
    for draft in report.drafts:
        assert draft.memory is not None
        memory = draft.memory
        target = project.display(draft.written) if draft.written else memory.id
        echo(f"{style(verb, fg='green')} {target}: {memory.title}")
        details = [f"{memory.kind} ({draft.kind_from})"]
        if memory.paths:
            details.append("paths " + ", ".join(memory.paths))
        if memory.priority != "normal":
            details.append(f"priority {memory.priority}")
        details.append("from " + ", ".join(source.where() for source in draft.sources))
        echo("    " + " · ".join(details))
    for known in report.known:
        how = "imported before" if known.why == "imported-before" else f"nearly the same, similarity {known.score:.2f}"
        echo(f"already a memory: {known.source.where()} is {known.id} ({known.status}; {how}): {known.title}")
    for item in report.rejected:
        echo(
            f"{style('not imported', fg='yellow')}: {item.source.where()} nearly repeats memory "
            f"{item.rejected.describe()} (similarity {item.rejected.score:.2f}); --force imports it anyway"
        )
    for refused in report.refused:
        echo(f"{style('refused', fg='red')}: {refused.message}; not imported", err=True)
    for skipped in report.skipped:
        echo(f"skipped {skipped.where()}: {skipped.reason}")
    for warning in report.warnings:
        echo(f"warning: {warning}", err=True)
    if report.invalid_files:
        echo(
            f"warning: {report.invalid_files} invalid memory file(s) were not compared: run `gitmem validate`",
            err=True,
        )

    lines = report.also_memories()
    for moved in moves:
        verb = "would remove" if dry_run else "removed"
        what = "the file (nothing else was in it)" if moved.deleted else f"{len(moved.lines)} line(s)"
        echo(f"{style(verb, fg='yellow')} {what} from {shown(moved.path)}: now memories")
    if lines and not move:
        width = max(len(source.where()) for source, _ in lines)
        head = "would also be memories" if dry_run else "are now also memories"
        echo("")
        echo(f"These hand-written lines {head}; delete them by hand when ready (import never changes a rules file):")
        for source, memory_id in lines:
            echo(f"  {source.where().ljust(width)}  {memory_id}")
    summary = [f"{len(report.drafts)} {verb} from {len(report.files)} file(s)"]
    summary.append(f"{len(report.known)} already memories")
    if report.rejected:
        summary.append(f"{len(report.rejected)} rejected before")
    if report.refused:
        summary.append(f"{len(report.refused)} refused")
    summary.append(f"{len(report.skipped)} skipped")
    echo(", ".join(summary), err=True)
    if report.drafts and not dry_run:
        if accept:
            also = ", the rules files" if moves else ""
            echo(f"next: gitmem compile, then commit .memory/{also} and the compiled files", err=True)
        else:
            echo("next: review them (gitmem list --status proposed), then gitmem accept ID…", err=True)
    return 1 if report.refused else 0


def _as_json(project: Project, report: ImportReport) -> dict[str, Any]:
    return {
        "dry_run": report.dry_run,
        "status": report.status,
        "files": [
            {
                "path": info.path,
                "format": info.label,
                "scope": info.scope.note if info.scope else None,
                "paths": list(info.scope.paths) if info.scope else [],
                "priority": info.scope.priority if info.scope else None,
                "items": info.items,
                "imported_by": info.imported_by,
            }
            for info in report.files
        ],
        "memories": [
            {
                **draft.memory.to_dict(),
                "kind_from": draft.kind_from,
                "path": project.display(draft.written) if draft.written else None,
                "sources": [source.to_dict() for source in draft.sources],
            }
            for draft in report.drafts
            if draft.memory is not None
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
            {**item.source.to_dict(), "reason": item.reason, "message": item.message} for item in report.refused
        ],
        "skipped": [
            {"path": s.path, "line": s.line or None, "end": s.end or None, "reason": s.reason} for s in report.skipped
        ],
        "lines": [{**source.to_dict(), "id": memory_id} for source, memory_id in report.also_memories()],
        "warnings": report.warnings,
    }
