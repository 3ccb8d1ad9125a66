"""``gitmem doctor``: what went stale or wrong in the memory store, each finding with its file and a
next step.

A finding is a value (severity, code, memory id, path, line, message, suggested command); finding
something is a result, not an exception. Each check is a function from a ``Context`` (the store as
read once, the config, today) to findings, listed in ``CHECKS``: adding a check is one function and
one entry there. The findings and the context are in ``findings``; the evidence checks and repairs
in ``evidence``; ``supersedes`` chains in ``chains``.

Errors (exit 1): invalid memory files, expired memories still active, evidence whose file or cited
lines are gone, and broken or circular ``supersedes`` chains. Warnings (exit 0 unless ``--strict``):
reviews due, cited lines that changed or moved, near-duplicates, active memories superseded by an
active one, and old proposals.

Besides findings, the report lists the recent removals (``gitmem.git.removed``): memories deleted or
retired in the last 30 days, which propose, harvest and import now refuse to bring back. They are
information, never a finding.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from datetime import date, timedelta
from typing import NamedTuple

from gitmem import COMMAND, gateway
from gitmem.checks import command, receipts
from gitmem.checks.chains import check_supersedes, dangling_target
from gitmem.checks.evidence import check_evidence, citation_states, evidence_data
from gitmem.checks.findings import (
    ERROR,
    WARNING,
    Check,
    Context,
    Finding,
    Fixed,
    Report,
    Severity,
    memory_id_of,
)
from gitmem.compile.compiler import Request, compile_store
from gitmem.compile.explain import memory_tokens
from gitmem.errors import GitmemError
from gitmem.git import hookpath, removed
from gitmem.hook import receipts as log
from gitmem.memory import actions
from gitmem.memory.config import Config
from gitmem.memory.model import Memory
from gitmem.memory.similar import memory_text, near_duplicates
from gitmem.memory.store import Store
from gitmem.project import Project


def diagnose(project: Project, store: Store, config: Config, today: date) -> Report:
    """Run every check on the store as it is now."""
    snapshot = store.load()
    context = Context(project, store, config, snapshot, today)
    findings = [finding for check in CHECKS for finding in check(context)]
    findings.sort(key=Finding.sort_key)
    files = set(map(str, snapshot.files.values()))
    known = {None, *snapshot.memories}  # a file of no memory's, or of one that was read
    invalid = {p.path for p in snapshot.problems if memory_id_of(p.path) not in known}
    recent = removed.recent(removed.removals(project, snapshot), today)
    return Report(tuple(findings), len(files) + len(invalid), tuple(recent))


# -- checks ----------------------------------------------------------------------------------------


def check_invalid(ctx: Context) -> Iterator[Finding]:
    """Files that fail validation (the store's own checks); a superseded id that does not exist
    is said as a broken link."""
    for problem in ctx.snapshot.problems:
        memory_id = memory_id_of(problem.path)
        target = dangling_target(ctx, memory_id, problem)
        if target is not None:
            yield Finding(
                ERROR,
                "supersedes-broken",
                memory_id,
                problem.path,
                problem.line,
                f"{memory_id} supersedes {target}, which does not exist: correct the id, "
                "or remove it from supersedes",
                f"gitmem edit {memory_id}",
            )
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


class Dated(NamedTuple):
    """A finding doctor makes of a memory by its status and dates alone: when ``due`` holds, a
    finding at the line of ``field``, with its message and next step (``fixable``: ``--fix``
    repairs it, unless the file has errors)."""

    severity: Severity
    code: str
    field: str
    due: Callable[[Memory, Context], bool]
    message: Callable[[Memory, Context], str]
    step: Callable[[Memory], str]
    fixable: bool = False


def _age(memory: Memory, ctx: Context) -> int:
    """The days a memory has waited since it was created."""
    return (ctx.today - (memory.created or ctx.today)).days


EXPIRED = Dated(
    ERROR,
    "expired-active",
    "expires",
    lambda memory, ctx: memory.status == "active" and memory.is_expired(ctx.today),
    lambda memory, _: (
        f"{memory.id} expired on {memory.expires} but is still active (it is "
        "no longer compiled): retire it, or move its expiry date on with `gitmem edit`"
    ),
    lambda memory: f"gitmem retire {memory.id} --reason 'expired on {memory.expires}'",
    fixable=True,
)
DATED = (
    EXPIRED,
    Dated(
        WARNING,
        "review-due",
        "review_after",
        lambda memory, ctx: (
            memory.status != "retired" and (memory.review_after or ctx.today) < ctx.today
        ),
        lambda memory, _: (
            f"{memory.id} was due for review after {memory.review_after}: check it "
            "still holds, then move review_after on (or retire it)"
        ),
        lambda memory: f"gitmem edit {memory.id}",
    ),
    Dated(
        WARNING,
        "stale-proposal",
        "status",
        lambda memory, ctx: (
            memory.status == "proposed"
            and memory.created is not None
            and _age(memory, ctx) > ctx.config.proposal_max_age_days
        ),
        lambda memory, ctx: (
            f"{memory.id} has waited {_age(memory, ctx)} days for a decision "
            f"(doctor.proposal_max_age_days is {ctx.config.proposal_max_age_days}): accept it, or "
            f"drop it with `gitmem forget {memory.id}`"
        ),
        lambda memory: f"gitmem accept {memory.id}",
    ),
)


def check_dated(ctx: Context) -> Iterator[Finding]:
    """Each memory against each of ``DATED``: expired but active, review due, an old proposal."""
    for memory in ctx.snapshot.sorted():
        for rule in DATED:
            if not rule.due(memory, ctx):
                continue
            yield Finding(
                rule.severity,
                rule.code,
                memory.id,
                ctx.path(memory.id),
                ctx.line_of(memory.id, rule.field),
                rule.message(memory, ctx),
                rule.step(memory),
                fixable=rule.fixable and memory.id not in ctx.troubled,
            )


def check_near_duplicates(ctx: Context) -> Iterator[Finding]:
    """Pairs of memories (not retired) whose normalised texts are at least ``doctor.similarity``
    alike."""
    # a proposal goes rather than an accepted memory; else the later id
    live = {
        m.id: m
        for m in sorted(ctx.snapshot.sorted(), key=lambda m: (m.status == "proposed", m.id))
        if m.status != "retired"
    }
    items = [(m.id, memory_text(m.title, m.body)) for m in live.values()]
    for match in near_duplicates(items, ctx.config.similarity):
        keep, drop = live[match.other], live[match.id]
        if drop.status == "proposed":
            command = f"gitmem forget {drop.id}"
            advice = (
                f"the proposal {drop.id} repeats {keep.id}: drop it (or merge what it adds "
                f"into {keep.id})"
            )
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
    """Targets whose token budget leaves memories out (they stay reachable by recall), and hard
    size limits."""
    if ctx.snapshot.problems:
        return  # compile refuses while memory files are invalid; check_invalid reports them

    report = compile_store(
        ctx.project, ctx.store, ctx.config, Request(ctx.today), ctx.snapshot
    ).report
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
                f"target {plan.target.name} is over its budget of {plan.budget} tokens: "
                f"{len(plan.omitted)} memories left out ({shown}); agents reach them only by "
                "recall. Raise `budget`, lower priorities, or retire what no longer matters",
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
    """gitmem's pre-commit hooks set up, but git runs its hooks from a ``core.hooksPath`` that
    does not run them."""
    if "gitmem" not in _precommit_config(ctx):
        return
    for path, message in hookpath.problems(ctx.project):
        yield Finding(ERROR, "hook-skipped", None, path, 1, message, "gitmem init")


def check_command(ctx: Context) -> Iterator[Finding]:
    """The ``gitmem`` on PATH is another program, ``gitmem-cli`` (what the hooks run) is missing, or
    another distribution shares this environment's ``gitmem`` package (``checks/command.py``)."""
    hooks = COMMAND in _precommit_config(ctx)
    for code, path, message in command.problems(command.commands(), hooks):
        yield Finding(WARNING, code, None, path, 1, message)


def _precommit_config(ctx: Context) -> str:
    """The text of the project's .pre-commit-config.yaml; empty when it cannot be read."""
    try:
        return gateway.read_text(
            ctx.project,
            ctx.project.root / ".pre-commit-config.yaml",
            limit=gateway.CONFIG_LIMIT,
            errors="replace",
        )
    except (OSError, GitmemError):
        return ""


RECEIPT_DAYS = 30  # the window doctor reads receipts over
COSTLY_TOKENS = (
    20_000  # tokens over that window from which a memory never asked for is worth a look
)


def check_receipts(ctx: Context) -> Iterator[Finding]:
    """From ``gitmem receipts`` over the last ``RECEIPT_DAYS`` days (only where gitmem's hooks
    recorded sessions): a live memory no session received, one broken after it was delivered, and
    one that cost many tokens and was never recalled or injected on demand."""

    since = ctx.today - timedelta(days=RECEIPT_DAYS)
    if not log.read(ctx.project, 0.0):
        return
    live = [m for m in ctx.snapshot.sorted() if m.is_live(ctx.today)]
    report = receipts.build(ctx.project, live, memory_tokens(live), since)
    sessions = set().union(*(row.total.sessions for row in report.rows))
    for row in report.rows:
        memory, total = row.memory, row.total
        path = ctx.project.display(ctx.snapshot.files[memory.id])
        old = memory.created is None or memory.created <= since
        said = (  # (whether it is so, the code, the message, the next step)
            (
                sessions and old and not total.sessions,
                "never-delivered",
                f"no session received it in {RECEIPT_DAYS} days ({len(sessions)} sessions ran): "
                "retire it?",
                f"{COMMAND} explain",
            ),
            (
                total.violations,
                "broken-after-delivery",
                f"broken {total.violations} time(s) after it was delivered, where no pre-tool hook "
                "refused it: set up the hook in every client that has one",
                f"{COMMAND} init --agent-hooks",
            ),
            (
                row.tokens >= COSTLY_TOKENS and not total.recalls,
                "costly-never-recalled",
                f"cost {row.tokens:,} tokens in {len(total.sessions)} sessions and was never "
                "recalled or injected on demand: give it `paths` or priority low?",
                f"{COMMAND} edit {memory.id}",
            ),
        )
        for found, code, message, next_step in said:
            if found:
                yield Finding(WARNING, code, memory.id, path, 1, message, next_step)


CHECKS: tuple[Check, ...] = (
    check_hooks,
    check_command,
    check_invalid,
    check_dated,
    check_evidence,
    check_supersedes,
    check_near_duplicates,
    check_budgets,
    check_receipts,
)


# -- repairs ---------------------------------------------------------------------------------------


def apply_fixes(project: Project, store: Store, config: Config, today: date) -> list[Fixed]:
    """The safe repairs: retire expired memories still active, and move citations whose lines
    only moved."""
    snapshot = store.load()
    context = Context(project, store, config, snapshot, today)
    fixed: list[Fixed] = []
    for memory in snapshot.sorted():
        if (
            memory.id in context.troubled
        ):  # a file with errors would be refused on write: its findings say what to do
            continue
        if EXPIRED.due(memory, context):
            reason = f"expired on {memory.expires}"
            actions.retire(store, memory.id, today, reason, None, snapshot)
            fixed.append(
                Fixed(memory.id, context.path(memory.id), f"retired {memory.id} ({reason})")
            )
            continue
        if memory.status == "retired":
            continue
        moved = [s for s in citation_states(context, memory) if s.state == "moved"]
        evidence = list(memory.evidence)
        for state in moved:
            evidence[state.index] = state.evidence._replace(lines=state.lines_now)
            fixed.append(
                Fixed(
                    memory.id,
                    context.path(memory.id),
                    f"evidence[{state.index}] of {memory.id}: {state.evidence.path} lines "
                    f"{state.evidence.lines} → {state.lines_now}",
                )
            )
        if moved:
            store.update(memory.id, {"evidence": list(map(evidence_data, evidence))}, snapshot)
    return fixed


# -- helpers ---------------------------------------------------------------------------------------
