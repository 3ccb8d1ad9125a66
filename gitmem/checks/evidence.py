"""Evidence: how a memory's citations compare with the files now (gone, lines gone, changed, or only
moved, found by their digest), the findings doctor makes of them, and recording them again after a
human checked them.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import date
from typing import Any, Literal

from gitmem.checks.findings import ERROR, WARNING, Context, Finding, Fixed
from gitmem.errors import UsageError
from gitmem.memory.config import Config
from gitmem.memory.model import Evidence, Memory
from gitmem.memory.store import Store
from gitmem.project import Project


@dataclass(frozen=True)
class CitationState:
    """How one citation compares with the file now."""

    index: int
    evidence: Evidence
    state: Literal["ok", "missing", "lines-gone", "changed", "moved"]
    file_lines: int = 0
    lines_now: str | None = None  # the lines cited, where they are now (moved: the new place)


def citation_states(ctx: Context, memory: Memory) -> list[CitationState]:
    states = []
    for index, item in enumerate(memory.evidence):
        content = ctx.cited(item.path)
        if content is None:
            states.append(CitationState(index, item, "missing"))
            continue
        lines = content.splitlines(keepends=True)
        span = _span(item.lines)
        in_range = span is None or span[1] <= len(lines)
        if item.digest is not None and (
            not in_range or not _digest_matches(item.digest, _cut(lines, span))
        ):
            moved = _find_moved(lines, span, item.digest)
            if moved is not None:
                states.append(CitationState(index, item, "moved", len(lines), moved))
            elif not in_range:
                states.append(CitationState(index, item, "lines-gone", len(lines)))
            else:
                states.append(CitationState(index, item, "changed", len(lines), item.lines))
        elif not in_range:
            states.append(CitationState(index, item, "lines-gone", len(lines)))
        else:
            states.append(CitationState(index, item, "ok", len(lines), item.lines))
    return states


# What doctor says of a citation in each state but "ok": severity, code, message, next step (each
# a template of the citation's fields, ``_fields``). A moved citation doctor --fix can move says so.
EVIDENCE_SAID = {
    "missing": (
        ERROR,
        "evidence-missing",
        "evidence[{index}] cites {path}, which no longer exists: check {id} still holds, then "
        "update or remove the citation (or retire the memory)",
        "gitmem edit {id}",
    ),
    "lines-gone": (
        ERROR,
        "evidence-missing",
        "evidence[{index}] cites lines {lines} of {path}, which now has {file_lines} line(s): "
        "check {id} still holds, then update the citation",
        "gitmem edit {id}",
    ),
    "moved": (
        WARNING,
        "evidence-moved",
        "evidence[{index}]: the lines cited from {cited} are unchanged but now at lines {moved_to}",
        "gitmem edit {id}",
    ),
    "changed": (
        WARNING,
        "evidence-changed",
        "evidence[{index}]: {cited} changed since it was cited: check {id} still holds "
        "(`git log -p -- {path}` shows what changed), then record the citation again",
        "gitmem doctor --refresh-evidence {id}",
    ),
}


def check_evidence(ctx: Context) -> Iterator[Finding]:
    for memory in ctx.snapshot.sorted():
        if memory.status == "retired":
            continue
        for state in citation_states(ctx, memory):
            said = EVIDENCE_SAID.get(state.state)
            if said is None:  # ok
                continue
            severity, code, message, step = said
            item = state.evidence
            fields = {
                "index": state.index,
                "path": item.path,
                "lines": item.lines,
                "cited": f"{item.path}:{item.lines}" if item.lines else item.path,
                "file_lines": state.file_lines,
                "moved_to": state.lines_now,
                "id": memory.id,
            }
            fixable = state.state == "moved" and memory.id not in ctx.troubled
            yield Finding(
                severity,
                code,
                memory.id,
                ctx.path(memory.id),
                ctx.line_of(memory.id, "evidence"),
                message.format(**fields),
                "gitmem doctor --fix" if fixable else step.format(**fields),
                fixable=fixable,
            )


def refresh_evidence(
    project: Project, store: Store, config: Config, memory_id: str, today: date
) -> list[Fixed]:
    """Record the current digest of a memory's citations, after a human checked the memory still
    holds.

    Refuses (nothing written) while a citation's file or lines are gone: those need the memory
    edited.
    """
    snapshot = store.load()
    memory = store.get(memory_id, snapshot)
    context = Context(project, store, config, snapshot, today)
    states = citation_states(context, memory)
    if not states:
        raise UsageError(f"{memory_id} cites no evidence: nothing to refresh")
    gone = [s for s in states if s.state in ("missing", "lines-gone")]
    if gone:
        cited = ", ".join(f"evidence[{s.index}] ({s.evidence.path})" for s in gone)
        raise UsageError(
            f"{memory_id}: {cited} no longer exists: update the citation with `gitmem edit "
            f"{memory_id}` first"
        )
    evidence = []
    fixed = []
    for state in states:
        item = state.evidence
        lines = state.lines_now
        content = context.cited(item.path)
        assert content is not None  # not "missing"
        digest = _digest(_cut(content.splitlines(keepends=True), _span(lines)))
        evidence.append(Evidence(item.path, lines, digest))
        if (lines, digest) != (item.lines, item.digest):
            fixed.append(
                Fixed(
                    memory_id,
                    context.path(memory_id),
                    f"evidence[{state.index}] of {memory_id}: recorded again",
                )
            )
    if fixed:
        store.update(memory_id, {"evidence": list(map(evidence_data, evidence))}, snapshot)
    return fixed


def _span(lines: str | None) -> tuple[int, int] | None:
    if lines is None:
        return None
    first, _, last = lines.partition("-")
    return int(first), int(last or first)


def _cut(lines: list[bytes], span: tuple[int, int] | None) -> bytes:
    if span is None:
        return b"".join(lines)
    return b"".join(lines[span[0] - 1 : span[1]])


def _digest(content: bytes) -> str:
    """As ``gitmem.memory.actions.evidence_digest`` records it."""
    return "sha256:" + hashlib.sha256(content).hexdigest()[:16]


def _digest_matches(stored: str, content: bytes) -> bool:
    wanted = stored.removeprefix("sha256:")
    return hashlib.sha256(content).hexdigest()[: len(wanted)] == wanted


def _find_moved(lines: list[bytes], span: tuple[int, int] | None, digest: str) -> str | None:
    """Where the cited lines are now, when they are unchanged but elsewhere in the file: the
    nearest such place."""
    if span is None:
        return None
    size = span[1] - span[0] + 1
    places = [
        start
        for start in range(1, len(lines) - size + 2)
        if start != span[0] and _digest_matches(digest, _cut(lines, (start, start + size - 1)))
    ]
    if not places:
        return None
    start = min(places, key=lambda s: (abs(s - span[0]), s))
    return str(start) if size == 1 else f"{start}-{start + size - 1}"


def evidence_data(item: Evidence) -> dict[str, Any]:
    data: dict[str, Any] = item.to_dict()
    if item.lines is not None and item.lines.isdigit():
        data["lines"] = int(item.lines)
    return data
