"""``gitmem import --move``: take the hand-written rules that became memories out of the rules
files, so the tools do not load every imported rule twice (once by hand, once from gitmem's block).

Only list rules move (a bullet, a numbered procedure, with what is nested under them): headings,
tables of contents, prose paragraphs, code blocks and tables stay byte for byte (a code block after
a list rule moves with it only when its fence is indented under the rule's text, as Markdown makes
it part of the item; one at the list's own column ends the list, and stays; the importer does
not make them memories with ``--move``, and ``keep_once`` makes those an earlier import made on
demand, so no client reads them twice): they are the document a team wrote around its rules, and a
file is never deleted, so a link to it (``CLAUDE.md -> AGENTS.md``) never dangles. Of the rules,
only the lines whose memory ``gitmem compile`` will write back go (``delivered``): into that same
file when a target writes it, else into a file of the tool that read it (or, when no target is that
tool's, of any target). A line whose memory compile leaves out (a proposal not accepted yet, a
memory over a target's budget, one whose `targets` name no configured target) stays where it is, and
the report says why: nothing a user wrote leaves every rules file. A lead-in line ("These steps
assume Linux:") goes with the last of its items, and stays while one stays. Every other byte stays
as it was: line endings, the frontmatter, the items that were not imported (refused, rejected),
gitmem's managed block. A blank line left doubled by a removal is dropped once.
Nothing is written on a dry run; writes are atomic and go through a link to the file it names.
"""

from __future__ import annotations

import os
from collections.abc import Iterable
from dataclasses import dataclass, field
from datetime import date

from gitmem import gateway
from gitmem import markdown as md
from gitmem.compile.compiler import Request, prepare
from gitmem.errors import GitmemError
from gitmem.importing import rulesfiles
from gitmem.importing.importer import ImportReport, Source
from gitmem.memory.config import load_config
from gitmem.memory.model import ON_DEMAND, Memory
from gitmem.memory.store import Store
from gitmem.project import Project


@dataclass
class Moved:
    """What --move does to one rules file."""

    path: str
    lines: list[int] = field(default_factory=list)  # 1-based, removed


@dataclass
class Kept:
    """Lines of one rules file that became memories but stay, because compile would not write
    them back."""

    path: str
    lines: list[int]
    why: str


@dataclass
class Delivery:
    """What compile would write, for the memories as they are after the import: per file, and
    per target."""

    files: dict[str, set[str]]  # real path of each file a target writes -> the ids compiled into it
    targets: dict[str, set[str]]  # target name -> the ids it compiles
    omitted: dict[str, str]  # id -> the first target whose budget leaves it out
    configured: tuple[str, ...]

    def why_not(
        self, path: str, tool: str, memory_id: str, status: str, left_out: bool = False
    ) -> str | None:
        """None when compile writes ``memory_id`` back where the line in ``path`` was read (or,
        ``left_out``, a budget leaves it out: the user asked to move those too); else why not, in
        words."""
        if status != "active":
            return (
                f"{status}: compiled once accepted (`gitmem accept`), then `gitmem import "
                "--move` again"
            )
        files = self.files.get(path)
        # what compile writes into that file; else what its tool receives (any target's, when the
        # tool is none of them)
        reached = (
            [files]
            if files is not None
            else [self.targets[tool]]
            if tool in self.targets
            else self.targets.values()
        )
        if memory_id in set().union(*reached):
            return None
        budget = self.omitted.get(memory_id)
        if budget is None:
            return "compile would write them into no file of this tool: check their `targets`"
        if left_out:
            return None
        return (
            f"left out by the {budget} target's budget: raise `budget` in .memory/config.yaml, or "
            "take them out anyway with `--move --left-out` (then only `gitmem recall` finds them)"
        )


def delivery(
    project: Project, report: ImportReport, memories: Iterable[Memory], today: date
) -> Delivery:
    """Plan the compile of the live ``memories`` plus the import's new ones (nothing is written)."""
    config = load_config(project)
    new = {memory.id: memory for _, memory in report.made()}
    kept = [memory for memory in memories if memory.id not in new]
    live = [memory for memory in (*kept, *new.values()) if memory.is_live(today)]
    plans = prepare(project, config, live, Request(today)).plans
    files: dict[str, set[str]] = {}
    omitted: dict[str, str] = {}
    for plan in plans:
        for path, file_plan in plan.files.items():
            files.setdefault(_real(project, path), set()).update(file_plan.ids)
        for memory_id in plan.omitted:
            omitted.setdefault(memory_id, plan.target.name)
    # what each target's client receives: its own files, and the files of the targets it reads
    # (Cursor reads the AGENTS.md hub: a .cursor/rules line whose memory compile writes into
    # AGENTS.md still reaches Cursor)
    targets = {
        plan.target.name: set(plan.compiled).union(*plan.delivered.values()) for plan in plans
    }
    return Delivery(files, targets, omitted, config.targets)


def _real(project: Project, path: str) -> str:
    return os.path.realpath(project.root / path)


def _moved_sources(report: ImportReport) -> list[tuple[Source, str, str]]:
    found = [
        (source, memory.id, memory.status)
        for draft, memory in report.made()
        for source in draft.sources
    ]
    found += [(known.source, known.id, known.status) for known in report.known]
    return found


def plan_moves(
    project: Project, report: ImportReport, delivered: Delivery, left_out: bool = False
) -> tuple[list[Moved], list[Kept]]:
    """The lines to remove, file by file (files read through an @import or a link included once),
    and those kept because compile would not write their memory back (with ``left_out``, those a
    budget leaves out move too: the user asked for exactly that)."""
    by_path: dict[str, list[Source]] = {}
    kept_by: dict[tuple[str, str], list[int]] = {}
    kept = [item.source for item in report.refused] + [item.source for item in report.rejected]
    for source, memory_id, status in _moved_sources(report):
        fmt = rulesfiles.format_of(source.path) or rulesfiles.MARKDOWN
        why = delivered.why_not(_real(project, source.path), fmt.tool, memory_id, status, left_out)
        if why is None:
            by_path.setdefault(source.path, []).append(source)
        else:
            kept.append(source)
            kept_by.setdefault((source.path, why), []).extend(range(source.line, source.end + 1))
    kept_leads = {(source.path, source.lead) for source in kept}  # stay while an item does
    moves = []
    for path, moved in sorted(by_path.items()):
        lines: set[int] = set()
        text = _text(project, path).split("\n")
        for source in moved:
            lines.update(range(source.line, source.end + 1))
            lines.difference_update(_code_after(text, source))
        leads = {source.lead for source in moved if (path, source.lead) not in kept_leads}
        moves.append(Moved(path, sorted(lines | leads - {0})))  # lead 0: listed under none
    return moves, [Kept(path, sorted(lines), why) for (path, why), lines in sorted(kept_by.items())]


def _text(project: Project, path: str) -> str:
    try:
        return gateway.read_text(project, project.root / path, limit=gateway.RULES_LIMIT)
    except (OSError, GitmemError):
        return ""


def _code_after(lines: list[str], source: Source) -> set[int]:
    """The (1-based) lines of ``source``'s item that are code blocks not indented under its text:
    Markdown ends the list before such a fence, so the block is the team's document, not the rule's.
    """
    head = md.bullet("".join(lines[source.line - 1 : source.line]))  # (none: not read)
    content = head.content if head is not None else 0
    out: set[int] = set()
    fence: str | None = None
    outside = False  # the line is in a block fenced outside the item's text (its fences too)
    for number in range(source.line + 1, min(source.end, len(lines)) + 1):
        line = lines[number - 1]
        if fence is None:
            fence = md.fence(line)
            outside = fence is not None and md.indent(line) < content
        elif md.closes(line, fence):
            fence = None
        if outside:
            out.add(number)
    return out


def _without(text: str, remove: Iterable[int]) -> str:
    """``text`` without the (1-based) lines ``remove``; a blank line doubled by a removal is
    dropped once."""
    parts = text.split("\n")  # numbered as the importer numbers them (only "\n" ends a line)
    lines = [part + "\n" for part in parts[:-1]] + parts[-1:]  # ("" after a last "\n": no line)
    gone = set(remove)
    out = [""]  # (the line before the first: it separates nothing)
    removed_since = False
    for number, line in enumerate(lines, 1):
        if number in gone:
            removed_since = True
            continue
        blank = not line.strip()
        if blank and removed_since and not out[-1].strip():
            continue  # the blank line before the removed lines already separates what follows
        out.append(line)
        if not blank:
            removed_since = False
    return "".join(out)


def apply_moves(project: Project, report: ImportReport, moves: list[Moved]) -> None:
    """Remove the lines (unless the report is a dry run), writing through a link to its file. A file
    is never deleted, even when only headings are left in it: the team wrote it, and other files may
    link to it.
    """
    if report.dry_run:
        return
    for move in moves:
        full = project.root / move.path
        text = gateway.read_text(project, full, limit=gateway.RULES_LIMIT)
        gateway.write(project, full, _without(text, move.lines))


def keep_once(report: ImportReport, store: Store) -> list[str]:
    """Prose, code and tables stay in their file with ``--move``; where an earlier import made one a
    memory, compile would write it into the block beside the text it came from. Make those memories
    on demand (never compiled; the prompt hook and recall still bring them), so each client reads
    the text once. Returns their ids (nothing is written on a dry run)."""
    ids = list(dict.fromkeys(known.id for known in report.stays))
    if not report.dry_run:
        for memory_id in ids:
            store.update(memory_id, {"priority": ON_DEMAND})
    return ids
