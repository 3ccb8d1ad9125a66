"""What the everyday commands do to the store: add, accept, retire, forget. No printing, no
click."""

from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass, field
from datetime import date, timedelta
from pathlib import Path

from gitmem import gateway
from gitmem.errors import UsageError
from gitmem.memory.model import Evidence, Memory, slugify
from gitmem.memory.store import Snapshot, Store
from gitmem.project import Project


def parse_date(value: str, option: str, today: date) -> date:
    """A date given on the command line: YYYY-MM-DD, or a span from today such as 30d or 12w."""
    relative = re.fullmatch(r"\+?(\d{1,5})([dw])", value.strip())
    if relative:
        days = int(relative.group(1)) * (7 if relative.group(2) == "w" else 1)
        return today + timedelta(days=days)
    try:
        if not re.fullmatch(r"\d{4}-\d{2}-\d{2}", value):
            raise ValueError
        return date.fromisoformat(value)
    except ValueError:
        raise UsageError(
            f"{option}: {value!r} is not a date; use YYYY-MM-DD or a span such as 90d or 12w"
        ) from None


def make_evidence(project: Project, spec: str) -> Evidence:
    """A citation from ``PATH[:LINES]``, with a digest of what it cites so later changes can be
    seen."""
    path_text, _, lines = spec.partition(":")
    if not re.fullmatch(r"([1-9]\d*(-[1-9]\d*)?)?", lines):  # none, a number or a range
        raise UsageError(f"--evidence {spec!r}: lines must be a number or a range like 3-9")
    path = gateway.real(project.root / path_text)
    try:
        relative = path.relative_to(project.root)
    except ValueError:
        raise UsageError(f"--evidence {spec!r}: the file must be inside the repository") from None
    if not path.is_file():
        raise UsageError(f"--evidence {spec!r}: no such file")
    gateway.require(project, project.root / path_text, path_text)
    cited = lines or None  # the whole file
    return Evidence(relative.as_posix(), cited, evidence_digest(path, cited, spec))


def evidence_digest(path: Path, lines: str | None, spec: str = "") -> str:
    """sha256 of the cited lines (or of the whole file), as stored in a citation."""
    content = gateway.read_given(path, limit=gateway.SCAN_LIMIT)  # (inside: checked by the caller)
    if lines:
        first, _, last = lines.partition("-")
        start, end = int(first), int(last or first)
        all_lines = content.splitlines(keepends=True)
        if start > end or end > len(all_lines):
            raise UsageError(f"--evidence {spec or lines!r}: the file has {len(all_lines)} lines")
        content = b"".join(all_lines[start - 1 : end])
    return "sha256:" + hashlib.sha256(content).hexdigest()[:16]


def new_id(title: str, explicit: str | None) -> str:
    if explicit is not None:
        return explicit
    slug = slugify(title)
    if not slug:
        raise UsageError(
            "cannot make an id from this title (no letters or digits): pass one with --id"
        )
    return slug


@dataclass
class Outcome:
    """What an action changed, for the command to report."""

    written: list[Path] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)


def add_memory(store: Store, memory: Memory, today: date) -> Outcome:
    """Write a new memory; an active memory retires the ones it supersedes."""
    snapshot = store.load()
    for target in memory.supersedes:
        store.get(target, snapshot)
    outcome = Outcome([store.create(memory, snapshot)])
    if memory.status == "active":
        _retire_superseded(store, memory, today, snapshot, outcome)
    return outcome


def accept(store: Store, ids: list[str], today: date) -> Outcome:
    """Make proposals active: a human's decision. Every id is checked before anything changes."""
    snapshot = store.load()
    memories = [store.get(memory_id, snapshot) for memory_id in ids]
    refused = [m.id for m in memories if m.status == "retired"]
    if refused:
        raise UsageError(
            f"{', '.join(refused)}: retired memories are not accepted again; "
            "add a new memory, or set status: active with `gitmem edit`"
        )
    outcome = Outcome()
    for memory in memories:
        if memory.status == "active":
            outcome.notes.append(f"{memory.id} is already active")
            continue
        accepted = store.update(memory.id, {"status": "active"}, snapshot)
        outcome.written.append(store.path_of(memory.id))
        _retire_superseded(store, accepted, today, snapshot, outcome)
    return outcome


def retire(
    store: Store,
    memory_id: str,
    today: date,
    reason: str | None,
    superseded_by: str | None,
    snapshot: Snapshot | None = None,
) -> Outcome:
    """Stop compiling a memory but keep it, and why, for history.

    ``snapshot``: the store as just read, when the caller retires several memories in a row (doctor
    --fix).
    """
    snapshot = snapshot or store.load()
    memory = store.get(memory_id, snapshot)
    successor = store.get(superseded_by, snapshot) if superseded_by else None
    if successor is not None:
        if successor.id == memory.id:
            raise UsageError("a memory cannot be superseded by itself")
        if successor.status == "retired":
            raise UsageError(
                f"--superseded-by {successor.id}: that memory is retired too; name the one "
                "that holds now"
            )
        reason = f"superseded by {successor.id}" if reason is None else reason
    outcome = Outcome()
    if memory.status == "retired" and not reason and successor is None:
        outcome.notes.append(f"{memory.id} is already retired")
        return outcome
    store.update(
        memory.id, {"status": "retired", "retired": today.isoformat(), "reason": reason}, snapshot
    )
    outcome.written.append(store.path_of(memory.id))
    if successor is not None and memory.id not in successor.supersedes:
        store.update(successor.id, {"supersedes": [*successor.supersedes, memory.id]}, snapshot)
        outcome.written.append(store.path_of(successor.id))
    return outcome


def forget(store: Store, memory_id: str) -> Outcome:
    """Delete a memory's file (git keeps its history), and every reference to it."""
    snapshot = store.load()
    store.get(memory_id, snapshot)
    outcome = Outcome()
    for other in snapshot.sorted():
        if memory_id in other.supersedes:
            remaining = [target for target in other.supersedes if target != memory_id]
            store.update(other.id, {"supersedes": remaining or None}, snapshot)
            outcome.written.append(store.path_of(other.id))
            outcome.notes.append(f"removed {memory_id} from the supersedes of {other.id}")
    store.delete(memory_id)
    return outcome


def _retire_superseded(
    store: Store, memory: Memory, today: date, snapshot: Snapshot, outcome: Outcome
) -> None:
    for target in memory.supersedes:
        old = snapshot.memories.get(target)
        if old is None or old.status == "retired":
            continue
        store.update(
            target,
            {
                "status": "retired",
                "retired": today.isoformat(),
                "reason": f"superseded by {memory.id}",
            },
            snapshot,
        )
        outcome.written.append(store.path_of(target))
        outcome.notes.append(f"retired {target}: superseded by {memory.id}")
