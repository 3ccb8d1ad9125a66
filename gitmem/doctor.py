"""``gitmem doctor``: what went stale or wrong in the memory store, each finding with its file and a next step.

A finding is a value (severity, code, memory id, path, line, message, suggested command); finding something is a
result, not an exception. Each check is a function from a ``Context`` (the store as read once, the config, today)
to findings, listed in ``CHECKS``: adding a check, such as "target over budget" once the compiler exists, is one
function and one entry there.

Errors (exit 1): invalid memory files, expired memories still active, evidence whose file or cited lines are
gone, and broken or circular ``supersedes`` chains. Warnings (exit 0 unless ``--strict``): reviews due, cited lines
that changed or moved, near-duplicates, active memories superseded by an active one, and old proposals.

Besides findings, the report lists the recent removals (``gitmem.removed``): memories deleted or retired in the
last 30 days, which propose, harvest and import now refuse to bring back. They are information, never a finding.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from datetime import date
from functools import cached_property
from pathlib import Path
from typing import Any, Literal

from gitmem import removed
from gitmem.config import Config
from gitmem.errors import Problem, UsageError
from gitmem.memory.model import Evidence, Memory
from gitmem.memory.similar import memory_text, near_duplicates
from gitmem.memory.store import SUFFIX, Snapshot, Store
from gitmem.project import Project
from gitmem.removed import Removal

Severity = Literal["error", "warning"]
ERROR: Severity = "error"
WARNING: Severity = "warning"


@dataclass(frozen=True)
class Finding:
    """One thing doctor found about one memory file."""

    severity: Severity
    code: str  # stable, e.g. "expired-active"; scripts and docs refer to it
    memory_id: str | None
    path: str  # as the user would type it from the current directory
    line: int  # 1-based; the line of the field concerned (1 when the whole file is)
    message: str
    command: str | None = None  # what to run next
    fixable: bool = False  # `gitmem doctor --fix` repairs it

    def to_dict(self) -> dict[str, Any]:
        return {
            "severity": self.severity,
            "code": self.code,
            "id": self.memory_id,
            "path": self.path,
            "line": self.line,
            "message": self.message,
            "command": self.command,
            "fixable": self.fixable,
        }

    def sort_key(self) -> tuple[int, str, int, str, str]:
        return (0 if self.severity == ERROR else 1, self.path, self.line, self.code, self.message)


@dataclass(frozen=True)
class Report:
    findings: tuple[Finding, ...]
    memories: int  # memory files looked at, valid or not
    removals: tuple[Removal, ...] = ()  # recent removals, newest first: information, not findings

    @property
    def errors(self) -> list[Finding]:
        return [f for f in self.findings if f.severity == ERROR]

    @property
    def warnings(self) -> list[Finding]:
        return [f for f in self.findings if f.severity == WARNING]

    def failed(self, strict: bool) -> bool:
        """Whether the command exits 1: on any error, and with ``strict`` on any warning too."""
        return bool(self.errors or (strict and self.warnings))


@dataclass(frozen=True)
class Fixed:
    """A repair ``--fix`` made."""

    memory_id: str
    path: str
    action: str

    def to_dict(self) -> dict[str, str]:
        return {"id": self.memory_id, "path": self.path, "action": self.action}


@dataclass
class Context:
    """What every check reads: the store as loaded once, the config, and today's date."""

    project: Project
    store: Store
    config: Config
    snapshot: Snapshot
    today: date
    _files: dict[str, bytes | None] = field(default_factory=dict)
    _texts: dict[str, list[str]] = field(default_factory=dict)

    @cached_property
    def troubled(self) -> set[str | None]:
        """Ids whose files have errors: writing them is refused, so they cannot be fixed automatically."""
        return {_memory_id(problem.path) for problem in self.snapshot.problems}

    def path(self, memory_id: str) -> str:
        return self.project.display(self.store.directory / f"{memory_id}{SUFFIX}")

    def line_of(self, memory_id: str, name: str) -> int:
        """The line of a top-level field in a memory's file (files that passed validation keep keys at column 1)."""
        if memory_id not in self._texts:
            try:
                text = (self.store.directory / f"{memory_id}{SUFFIX}").read_text(encoding="utf-8")
            except OSError:
                text = ""
            self._texts[memory_id] = text.splitlines()
        pattern = re.compile(rf"{re.escape(name)}\s*:")
        for number, line in enumerate(self._texts[memory_id], start=1):
            if pattern.match(line):
                return number
        return 1

    def cited(self, relative: str) -> bytes | None:
        """A cited file's bytes; ``None`` when it is gone, not a file, or outside the repository."""
        if relative not in self._files:
            root = self.project.root.resolve()
            target = (root / relative).resolve()
            content: bytes | None = None
            if target.is_relative_to(root) and target.is_file():
                try:
                    content = target.read_bytes()
                except OSError:
                    content = None
            self._files[relative] = content
        return self._files[relative]


Check = Callable[[Context], Iterable[Finding]]


def diagnose(project: Project, store: Store, config: Config, today: date) -> Report:
    """Run every check on the store as it is now."""
    snapshot = store.load()
    context = Context(project, store, config, snapshot, today)
    findings = [finding for check in CHECKS for finding in check(context)]
    findings.sort(key=Finding.sort_key)
    files = {str(path) for path in snapshot.files.values()}
    ids = {p.path: _memory_id(p.path) for p in snapshot.problems}
    invalid = {path for path, memory_id in ids.items() if memory_id is not None and memory_id not in snapshot.memories}
    recent = removed.recent(removed.removals(project, snapshot), today)
    return Report(tuple(findings), len(files) + len(invalid), tuple(recent))


# -- checks --------------------------------------------------------------------------------------------------------


def check_invalid(ctx: Context) -> Iterator[Finding]:
    """Files that fail validation (the store's own checks), except dangling supersedes: check_supersedes says those."""
    for problem in ctx.snapshot.problems:
        memory_id = _memory_id(problem.path)
        if _dangling_target(ctx, memory_id, problem) is not None:
            continue
        yield Finding(
            ERROR,
            "invalid-memory",
            memory_id,
            problem.path,
            problem.line,
            f"{problem.field}: {problem.message}",
            f"gitmem validate {problem.path}" if memory_id is not None else None,
        )


def check_expired(ctx: Context) -> Iterator[Finding]:
    for memory in ctx.snapshot.sorted():
        if memory.status == "active" and memory.is_expired(ctx.today):
            yield Finding(
                ERROR,
                "expired-active",
                memory.id,
                ctx.path(memory.id),
                ctx.line_of(memory.id, "expires"),
                f"{memory.id} expired on {memory.expires} but is still active (it is no longer compiled): "
                "retire it, or move its expiry date on with `gitmem edit`",
                f"gitmem retire {memory.id} --reason 'expired on {memory.expires}'",
                fixable=memory.id not in ctx.troubled,
            )


def check_review(ctx: Context) -> Iterator[Finding]:
    for memory in ctx.snapshot.sorted():
        if memory.status != "retired" and memory.review_after is not None and memory.review_after < ctx.today:
            yield Finding(
                WARNING,
                "review-due",
                memory.id,
                ctx.path(memory.id),
                ctx.line_of(memory.id, "review_after"),
                f"{memory.id} was due for review after {memory.review_after}: check it still holds, then move "
                "review_after on (or retire it)",
                f"gitmem edit {memory.id}",
            )


@dataclass(frozen=True)
class CitationState:
    """How one citation compares with the file now."""

    index: int
    evidence: Evidence
    state: Literal["ok", "missing", "lines-gone", "changed", "moved"]
    file_lines: int = 0
    moved_to: str | None = None


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
        if item.digest is not None and (not in_range or not _digest_matches(item.digest, _cut(lines, span))):
            moved = _find_moved(lines, span, item.digest)
            if moved is not None:
                states.append(CitationState(index, item, "moved", len(lines), moved))
            elif not in_range:
                states.append(CitationState(index, item, "lines-gone", len(lines)))
            else:
                states.append(CitationState(index, item, "changed", len(lines)))
        elif not in_range:
            states.append(CitationState(index, item, "lines-gone", len(lines)))
        else:
            states.append(CitationState(index, item, "ok", len(lines)))
    return states


def check_evidence(ctx: Context) -> Iterator[Finding]:
    for memory in ctx.snapshot.sorted():
        if memory.status == "retired" or not memory.evidence:
            continue
        for state in citation_states(ctx, memory):
            item = state.evidence
            cited = f"{item.path}:{item.lines}" if item.lines else item.path
            where = ctx.path(memory.id), ctx.line_of(memory.id, "evidence")
            if state.state == "missing":
                yield Finding(
                    ERROR,
                    "evidence-missing",
                    memory.id,
                    *where,
                    f"evidence[{state.index}] cites {item.path}, which no longer exists: check {memory.id} still "
                    "holds, then update or remove the citation (or retire the memory)",
                    f"gitmem edit {memory.id}",
                )
            elif state.state == "lines-gone":
                yield Finding(
                    ERROR,
                    "evidence-missing",
                    memory.id,
                    *where,
                    f"evidence[{state.index}] cites lines {item.lines} of {item.path}, which now has "
                    f"{state.file_lines} line(s): check {memory.id} still holds, then update the citation",
                    f"gitmem edit {memory.id}",
                )
            elif state.state == "moved":
                yield Finding(
                    WARNING,
                    "evidence-moved",
                    memory.id,
                    *where,
                    f"evidence[{state.index}]: the lines cited from {cited} are unchanged but now at lines "
                    f"{state.moved_to}",
                    "gitmem doctor --fix" if memory.id not in ctx.troubled else f"gitmem edit {memory.id}",
                    fixable=memory.id not in ctx.troubled,
                )
            elif state.state == "changed":
                yield Finding(
                    WARNING,
                    "evidence-changed",
                    memory.id,
                    *where,
                    f"evidence[{state.index}]: {cited} changed since it was cited: check {memory.id} still holds "
                    f"(`git log -p -- {item.path}` shows what changed), then record the citation again",
                    f"gitmem doctor --refresh-evidence {memory.id}",
                )


def check_supersedes(ctx: Context) -> Iterator[Finding]:
    """Broken links (a superseded id that does not exist), circles, and active memories superseded by active ones."""
    for problem in ctx.snapshot.problems:
        memory_id = _memory_id(problem.path)
        target = _dangling_target(ctx, memory_id, problem)
        if target is not None:
            yield Finding(
                ERROR,
                "supersedes-broken",
                memory_id,
                problem.path,
                problem.line,
                f"{memory_id} supersedes {target}, which does not exist: correct the id, or remove it from supersedes",
                f"gitmem edit {memory_id}",
            )
    memories = ctx.snapshot.memories
    graph = {m.id: [t for t in m.supersedes if t in memories] for m in ctx.snapshot.sorted()}
    in_circle: set[str] = set()
    for component in _strongly_connected(graph):
        if len(component) < 2:
            continue
        in_circle.update(component)
        circle = _circle(graph, set(component))
        first = circle[0]
        yield Finding(
            ERROR,
            "supersedes-circle",
            first,
            ctx.path(first),
            ctx.line_of(first, "supersedes"),
            f"supersedes chain is circular: {' → '.join([*circle, first])}; a memory can only replace older ones",
            f"gitmem edit {first}",
        )
    for memory in ctx.snapshot.sorted():
        if memory.status != "active":
            continue
        for target in memory.supersedes:
            old = memories.get(target)
            if old is None or old.status != "active" or {memory.id, target} <= in_circle:
                continue
            yield Finding(
                WARNING,
                "superseded-active",
                target,
                ctx.path(target),
                ctx.line_of(target, "status"),
                f"{target} is still active but {memory.id} supersedes it: retire it",
                f"gitmem retire {target} --superseded-by {memory.id}",
            )


def check_proposals(ctx: Context) -> Iterator[Finding]:
    limit = ctx.config.proposal_max_age_days
    for memory in ctx.snapshot.sorted():
        if memory.status != "proposed" or memory.created is None:
            continue
        age = (ctx.today - memory.created).days
        if age > limit:
            yield Finding(
                WARNING,
                "stale-proposal",
                memory.id,
                ctx.path(memory.id),
                ctx.line_of(memory.id, "status"),
                f"{memory.id} has waited {age} days for a decision (doctor.proposal_max_age_days is {limit}): "
                f"accept it, or drop it with `gitmem forget {memory.id}`",
                f"gitmem accept {memory.id}",
            )


def check_near_duplicates(ctx: Context) -> Iterator[Finding]:
    """Pairs of memories (not retired) whose normalised texts are at least ``doctor.similarity`` alike."""
    live = {m.id: m for m in ctx.snapshot.sorted() if m.status != "retired"}
    items = [(m.id, memory_text(m.title, m.body)) for m in live.values()]
    for match in near_duplicates(items, ctx.config.similarity):
        keep, drop = sorted((live[match.id], live[match.other]), key=lambda m: m.id)
        if keep.status == "proposed" and drop.status != "proposed":
            keep, drop = drop, keep
        if drop.status == "proposed":
            command = f"gitmem forget {drop.id}"
            advice = f"the proposal {drop.id} repeats {keep.id}: drop it (or merge what it adds into {keep.id})"
        else:
            command = f"gitmem retire {drop.id} --superseded-by {keep.id}"
            advice = f"keep one (merge what {drop.id} adds into {keep.id}) and retire the other"
        yield Finding(
            WARNING,
            "near-duplicate",
            drop.id,
            ctx.path(drop.id),
            ctx.line_of(drop.id, "title"),
            f"{drop.id} nearly duplicates {keep.id} (similarity {match.score:.2f}): {advice}",
            command,
        )


def check_budgets(ctx: Context) -> Iterator[Finding]:
    """Targets whose token budget leaves memories out (they stay reachable by recall), and hard size limits."""
    if ctx.snapshot.problems:
        return  # compile refuses while memory files are invalid; check_invalid reports them
    from gitmem.compile.compiler import prepare

    live = [memory for memory in ctx.snapshot.memories.values() if memory.is_live(ctx.today)]
    report = prepare(ctx.project, ctx.config, live)
    config_path = ctx.project.display(ctx.project.config_path)
    for plan in report.plans:
        if plan.omitted:
            shown = ", ".join(plan.omitted[:5]) + (", …" if len(plan.omitted) > 5 else "")
            yield Finding(
                WARNING,
                "over-budget",
                None,
                config_path,
                1,
                f"target {plan.target.name} is over its budget of {plan.budget} tokens: {len(plan.omitted)} "
                f"memories left out ({shown}); agents reach them only by recall. Raise `budget`, lower priorities, "
                "or retire what no longer matters",
                "gitmem stats",
            )
    for use in report.limits:
        if use.over:
            yield Finding(
                ERROR if use.limit.hard else WARNING,
                "over-limit",
                None,
                use.path,
                1,
                use.describe(),
                "gitmem stats",
            )


def check_hooks(ctx: Context) -> Iterator[Finding]:
    """gitmem's pre-commit hooks set up, but git runs its hooks from a ``core.hooksPath`` that does not run them."""
    config = ctx.project.root / ".pre-commit-config.yaml"
    try:
        if "gitmem" not in config.read_text(encoding="utf-8", errors="replace"):
            return
    except OSError:
        return
    from gitmem import hookpath

    for path, message in hookpath.problems(ctx.project):
        yield Finding(ERROR, "hook-skipped", None, path, 1, message, "gitmem init")


CHECKS: tuple[Check, ...] = (
    check_hooks,
    check_invalid,
    check_expired,
    check_review,
    check_evidence,
    check_supersedes,
    check_proposals,
    check_near_duplicates,
    check_budgets,
)


# -- repairs -------------------------------------------------------------------------------------------------------


def apply_fixes(project: Project, store: Store, config: Config, today: date) -> list[Fixed]:
    """The safe repairs: retire expired memories still active, and move citations whose lines only moved."""
    from gitmem.memory import actions

    snapshot = store.load()
    context = Context(project, store, config, snapshot, today)
    fixed: list[Fixed] = []
    for memory in snapshot.sorted():
        if memory.id in context.troubled:  # a file with errors would be refused on write: its findings say what to do
            continue
        if memory.status == "active" and memory.is_expired(today):
            reason = f"expired on {memory.expires}"
            actions.retire(store, memory.id, today, reason, None, snapshot)
            fixed.append(Fixed(memory.id, context.path(memory.id), f"retired {memory.id} ({reason})"))
            continue
        if memory.status == "retired" or not memory.evidence:
            continue
        moved = [s for s in citation_states(context, memory) if s.state == "moved"]
        if not moved:
            continue
        evidence = list(memory.evidence)
        for state in moved:
            evidence[state.index] = Evidence(state.evidence.path, state.moved_to, state.evidence.digest)
        store.update(memory.id, {"evidence": [_evidence_data(item) for item in evidence]}, snapshot)
        for state in moved:
            fixed.append(
                Fixed(
                    memory.id,
                    context.path(memory.id),
                    f"evidence[{state.index}] of {memory.id}: {state.evidence.path} lines "
                    f"{state.evidence.lines} → {state.moved_to}",
                )
            )
    return fixed


def refresh_evidence(project: Project, store: Store, config: Config, memory_id: str, today: date) -> list[Fixed]:
    """Record the current digest of a memory's citations, after a human checked the memory still holds.

    Refuses (nothing written) while a citation's file or lines are gone: those need the memory edited.
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
            f"{memory_id}: {cited} no longer exists: update the citation with `gitmem edit {memory_id}` first"
        )
    evidence = []
    fixed = []
    for state in states:
        item = state.evidence
        lines = state.moved_to if state.state == "moved" else item.lines
        content = context.cited(item.path)
        assert content is not None  # not "missing"
        digest = _digest(_cut(content.splitlines(keepends=True), _span(lines)))
        evidence.append(Evidence(item.path, lines, digest))
        if (lines, digest) != (item.lines, item.digest):
            fixed.append(
                Fixed(memory_id, context.path(memory_id), f"evidence[{state.index}] of {memory_id}: recorded again")
            )
    if fixed:
        store.update(memory_id, {"evidence": [_evidence_data(item) for item in evidence]}, snapshot)
    return fixed


# -- helpers -------------------------------------------------------------------------------------------------------


def _memory_id(display_path: str) -> str | None:
    """The id a memory file's name implies; ``None`` for a stray file that is not named like one."""
    name = Path(display_path).name
    return name.removesuffix(SUFFIX) if name.endswith(SUFFIX) else None


def _dangling_target(ctx: Context, memory_id: str | None, problem: Problem) -> str | None:
    """The id a store problem says ``memory_id`` supersedes but does not exist, when that is the problem."""
    match = re.fullmatch(r"supersedes\[(\d+)\]", problem.field)
    memory = ctx.snapshot.memories.get(memory_id) if memory_id else None
    if match is None or memory is None:
        return None
    index = int(match.group(1))
    if index >= len(memory.supersedes) or memory.supersedes[index] in ctx.snapshot.memories:
        return None
    return memory.supersedes[index]


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
    """Where the cited lines are now, when they are unchanged but elsewhere in the file: the nearest such place."""
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


def _evidence_data(item: Evidence) -> dict[str, Any]:
    data: dict[str, Any] = item.to_dict()
    if item.lines is not None and item.lines.isdigit():
        data["lines"] = int(item.lines)
    return data


def _strongly_connected(graph: dict[str, list[str]]) -> list[list[str]]:
    """Tarjan's algorithm, iterative (chains can be long): the strongly connected components of ``graph``."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    on_stack: set[str] = set()
    stack: list[str] = []
    components: list[list[str]] = []
    counter = 0
    for root in graph:
        if root in index:
            continue
        work: list[tuple[str, int]] = [(root, 0)]
        while work:
            node, child = work.pop()
            if child == 0:
                index[node] = low[node] = counter
                counter += 1
                stack.append(node)
                on_stack.add(node)
            successors = graph.get(node, [])
            if child < len(successors):
                work.append((node, child + 1))
                nxt = successors[child]
                if nxt not in index:
                    work.append((nxt, 0))
                elif nxt in on_stack:
                    low[node] = min(low[node], index[nxt])
                continue
            if low[node] == index[node]:
                component = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    component.append(member)
                    if member == node:
                        break
                components.append(sorted(component))
            if work:
                parent = work[-1][0]
                low[parent] = min(low[parent], low[node])
    return components


def _circle(graph: dict[str, list[str]], members: set[str]) -> list[str]:
    """One circle through a strongly connected component, starting at its smallest id."""
    path = [min(members)]
    seen = {path[0]: 0}
    while True:
        nxt = min(t for t in graph[path[-1]] if t in members)
        if nxt in seen:
            circle = path[seen[nxt] :]
            start = circle.index(min(circle))
            return circle[start:] + circle[:start]
        seen[nxt] = len(path)
        path.append(nxt)
