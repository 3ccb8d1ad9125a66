"""What a change does to the budget, for review (``gitmem diff``): the memories it moves to the
index of what the budget left out (or back in full), and each target's tokens before and after.

Both sides are compiled as ``gitmem compile`` would (``compile.compiler.prepare``) from the memory
files at each side, with the working tree's config: the review shows what this change displaces,
beside what it adds.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date
from typing import TYPE_CHECKING, Any, Literal

from gitmem.compile.compiler import Request, prepare
from gitmem.git import history
from gitmem.git.provenance import MEMORIES, MemoryDiff, Side, _code, _memory_names, _version
from gitmem.memory.config import load_config
from gitmem.memory.model import Memory
from gitmem.memory.store import SUFFIX, Store
from gitmem.project import Project

if TYPE_CHECKING:
    from gitmem.compile.plan import TargetPlan
    from gitmem.memory.config import Config


@dataclass(frozen=True)
class TargetTokens:
    target: str
    budget: int
    tokens: tuple[int, int]  # before, after
    full: tuple[int, int]  # memories in full, before and after

    def to_dict(self) -> dict[str, Any]:
        return {
            "target": self.target,
            "budget": self.budget,
            "tokens": {"before": self.tokens[0], "after": self.tokens[1]},
            "in_full": {"before": self.full[0], "after": self.full[1]},
        }


MoveKind = Literal["to_index", "index_only", "to_full"]
# each kind of move: its place in the review's order, and how the review says it
MOVES: dict[MoveKind, tuple[int, str]] = {
    "to_index": (0, "moves {id} to the index"),
    "index_only": (1, "{id} (added) is in the index only"),
    "to_full": (2, "brings {id} back in full"),
}


@dataclass(frozen=True)
class Move:
    """A memory whose place changes in some targets: ``to_index`` (in full before, only an index
    line or a count after: displaced), ``to_full`` (back in full), ``index_only`` (added, but over
    the budget)."""

    memory_id: str
    title: str
    how: MoveKind
    targets: tuple[str, ...]

    def to_dict(self) -> dict[str, Any]:
        return {
            "id": self.memory_id,
            "title": self.title,
            "move": self.how,
            "targets": list(self.targets),
        }


@dataclass(frozen=True)
class BudgetDiff:
    targets: tuple[TargetTokens, ...]
    moves: tuple[Move, ...]
    problem: str = ""  # why it could not be computed ("" when it was)

    def to_dict(self) -> dict[str, Any]:
        return {
            "targets": [t.to_dict() for t in self.targets],
            "moves": [m.to_dict() for m in self.moves],
            "problem": self.problem or None,
        }


def budget_diff(project: Project, diff: MemoryDiff, today: date) -> BudgetDiff:
    """The budget's side of ``diff``: both sides compiled, compared target by target."""

    base, head = _memories(project, diff.base), _memories(project, diff.head)
    if base is None or head is None:
        return BudgetDiff(
            (), (), "a memory file is invalid on one side: fix it to see what the change displaces"
        )
    config = load_config(project)
    before, after = _plans(project, config, base, today), _plans(project, config, head, today)
    titles = {memory_id: m.title for memory_id, m in (base | head).items()}
    found: dict[tuple[str, MoveKind], list[str]] = {}
    for name, new in after.items():
        for memory_id, how in _moves(before.get(name), new):
            found.setdefault((memory_id, how), []).append(name)
    moves = sorted(
        (
            Move(memory_id, titles.get(memory_id, ""), how, tuple(names))
            for (memory_id, how), names in found.items()
        ),
        key=lambda move: (MOVES[move.how][0], move.memory_id),
    )
    targets = tuple(_tokens(before.get(name), new) for name, new in after.items())
    return BudgetDiff(targets, tuple(moves))


def _plans(
    project: Project, config: Config, memories: dict[str, Memory], today: date
) -> dict[str, TargetPlan]:
    """Each target's plan for the live ``memories``, by target name, as compile makes it."""

    live = [memory for memory in memories.values() if memory.is_live(today)]
    report = prepare(project, config, live, Request(today))
    return {plan.target.name: plan for plan in report.plans}


def _tokens(old: TargetPlan | None, new: TargetPlan) -> TargetTokens:
    """A target's tokens and memories in full, before (none without ``old``) and after."""
    before = (old.tokens, len(old.compiled)) if old else (0, 0)
    return TargetTokens(
        new.target.name, new.budget, (before[0], new.tokens), (before[1], len(new.compiled))
    )


def _moves(old: TargetPlan | None, new: TargetPlan) -> list[tuple[str, MoveKind]]:
    """The memories whose place in a target changes from ``old`` to ``new``, and how."""
    full, index = (set(old.compiled), set(old.omitted)) if old else (set(), set())
    # a memory is compiled or omitted, never both: one left out now that was not in the index was
    # in full (to the index) or absent (index only); budget_diff sorts the moves
    out: list[tuple[str, MoveKind]] = [
        (i, "to_index" if i in full else "index_only") for i in new.omitted if i not in index
    ]
    return out + [(i, "to_full") for i in new.compiled if i in index]


def _memories(project: Project, side: Side) -> dict[str, Memory] | None:
    """Every memory at ``side`` (the working tree when it has no commit); ``None`` when a file
    is invalid."""
    if side.commit is None:
        snapshot = Store(project).load()
        return None if snapshot.problems else dict(snapshot.memories)
    names = _memory_names(history.tree_entries(project.root, side.commit, MEMORIES))
    blobs = history.read_blobs(project.root, list(names.values()))
    found = {}
    for name, blob in names.items():
        memory_id = name.removesuffix(SUFFIX)
        version = _version(blobs[blob], memory_id, f"{MEMORIES}/{name}")
        if version.memory is None:
            return None
        found[memory_id] = version.memory
    return found


def to_markdown(budget: BudgetDiff) -> str:
    """The budget section of the review comment: what moves, then tokens per target ("" when
    nothing changes)."""
    if budget.problem:
        return f"#### Budget\n\n{budget.problem}\n"
    changed = [t for t in budget.targets if (t.tokens[0], t.full[0]) != (t.tokens[1], t.full[1])]
    if not budget.moves and not changed:
        return ""
    lines = ["#### Budget", ""]
    for move in budget.moves:
        where = ", ".join(move.targets)
        said = MOVES[move.how][1].format(id=_code(move.memory_id))
        lines.append(f"- {said} ({where})")
    if budget.moves:
        lines.append("")
    lines += [
        "| target | budget | tokens before → after | in full before → after |",
        "|---|---:|---:|---:|",
    ]
    for t in budget.targets:
        lines.append(
            f"| {t.target} | {t.budget} | {t.tokens[0]} → {t.tokens[1]} | {t.full[0]} → "
            f"{t.full[1]} |"
        )
    return "\n".join(lines) + "\n"
