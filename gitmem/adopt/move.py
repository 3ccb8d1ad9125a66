"""``gitmem import --move``: take the hand-written lines that became memories out of the rules files, so the tools
do not load every imported rule twice (once by hand, once from gitmem's block).

Only the lines of items that are now memories (new ones, and those already memories) go; a lead-in line ("These
steps assume Linux:") goes with the last of its items. Every other byte stays as it was: line endings, the
frontmatter, headings, the items that were not imported (refused, rejected), gitmem's managed block. A blank line
left doubled by a removal is dropped once. A file left with nothing but blank lines, headings (and frontmatter)
is deleted.
Nothing is written on a dry run; writes are atomic.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path

from gitmem import markdown as md
from gitmem.adopt import sources
from gitmem.adopt.importer import ImportReport, Source
from gitmem.fsutil import write_atomic
from gitmem.project import Project


@dataclass
class Moved:
    """What --move does to one rules file."""

    path: str
    lines: list[int] = field(default_factory=list)  # 1-based, removed
    deleted: bool = False  # nothing was left in it


def _moved_sources(report: ImportReport) -> list[Source]:
    found = [source for draft in report.drafts if draft.memory is not None for source in draft.sources]
    found += [known.source for known in report.known]
    return found


def plan_moves(project: Project, report: ImportReport) -> list[Moved]:
    """The lines to remove, file by file (files read through an @import or a link included once)."""
    by_path: dict[str, list[Source]] = {}
    for source in _moved_sources(report):
        by_path.setdefault(source.path, []).append(source)
    kept_leads: dict[str, set[int]] = {}
    kept = [item.source for item in report.refused] + [item.source for item in report.rejected]
    for source in kept:  # a lead-in stays while an item listed under it stays
        if source.lead:
            kept_leads.setdefault(source.path, set()).add(source.lead)
    moves = []
    for path, moved in sorted(by_path.items()):
        lines: set[int] = set()
        for source in moved:
            lines.update(range(source.line, source.end + 1))
            if source.lead and source.lead not in kept_leads.get(path, set()):
                lines.add(source.lead)
        moves.append(Moved(path, sorted(lines)))
    return moves


def _without(text: str, remove: Iterable[int]) -> str:
    """``text`` without the (1-based) lines ``remove``; a blank line doubled by a removal is dropped once."""
    parts = text.split("\n")  # numbered as the importer numbers them (only "\n" ends a line)
    lines = [part + "\n" for part in parts[:-1]] + ([parts[-1]] if parts[-1] else [])
    gone = set(remove)
    out: list[str] = []
    removed_since = False
    for number, line in enumerate(lines, 1):
        if number in gone:
            removed_since = True
            continue
        blank = not line.strip()
        if blank and removed_since and (not out or not out[-1].strip()):
            continue  # the blank line before the removed lines already separates what follows
        out.append(line)
        if not blank:
            removed_since = False
    return "".join(out)


def apply_moves(project: Project, report: ImportReport, moves: list[Moved]) -> None:
    """Remove the lines (unless the report is a dry run); mark files left empty as deleted."""
    for move in moves:
        full = project.root / move.path
        text = full.read_bytes().decode("utf-8")
        new = _without(text, move.lines)
        fmt = sources.format_of(move.path)
        front = sources.read_frontmatter(new.splitlines())
        body = new.splitlines()[front.lines :] if fmt is not None and fmt.folder is not None else new.splitlines()
        move.deleted = not any(line.strip() and md.heading(line) is None for line in body)  # headings alone: empty
        if report.dry_run:
            continue
        if move.deleted:
            Path(full).unlink()
        else:
            write_atomic(full.resolve(), new.encode("utf-8"))
