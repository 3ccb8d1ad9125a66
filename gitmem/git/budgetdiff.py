"""What a change does to the budget, for review (``gitmem diff``): the memories it moves to the
index of what the budget left out (or back in full), and each target's tokens before and after.

Both sides are compiled as ``gitmem compile`` would (``compile.compiler.prepare``) from the memory
files at each side, with the working tree's config: the review shows what this change displaces,
beside what it adds.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date
from typing import Any

from gitmem.git import history
from gitmem.git.provenance import MEMORIES, MemoryDiff, Side, _code, _memory_names, _version
from gitmem.memory.model import Memory
from gitmem.memory.store import SUFFIX
from gitmem.project import Project


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


@dataclass(frozen=True)
class Move:
    """A memory whose place changes in some targets: ``to_index`` (in full before, only an index
    line or a count after: displaced), ``to_full`` (back in full), ``index_only`` (added, but over
    the budget)."""

    memory_id: str
    title: str
    how: str  # "to_index", "to_full", "index_only"
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
    from gitmem.compile.compiler import Request, prepare
    from gitmem.memory.config import load_config

    sides = [_memories(project, side) for side in (diff.base, diff.head)]
    if any(memories is None for memories in sides):
        return BudgetDiff(
            (), (), "a memory file is invalid on one side: fix it to see what the change displaces"
        )
    config = load_config(project)
    plans = []
    for memories in sides:
        assert memories is not None
        live = [memory for memory in memories.values() if memory.is_live(today)]
        plans.append(
            {
                plan.target.name: plan
                for plan in prepare(project, config, live, Request(today)).plans
            }
        )
    before, after = plans
    titles = {
        memory_id: memory.title
        for memories in sides
        if memories
        for memory_id, memory in memories.items()
    }
    targets = []
    found: dict[tuple[str, str], list[str]] = {}
    for name, new in after.items():
        old = before.get(name)
        old_full = set(old.compiled) if old else set()
        old_all = old_full | set(old.omitted) if old else set()
        targets.append(
            TargetTokens(
                name,
                new.budget,
                (old.tokens if old else 0, new.tokens),
                (len(old_full), len(new.compiled)),
            )
        )
        for memory_id in new.omitted:
            if memory_id in old_full:
                found.setdefault((memory_id, "to_index"), []).append(name)
            elif memory_id not in old_all:
                found.setdefault((memory_id, "index_only"), []).append(name)
        for memory_id in new.compiled:
            if memory_id in old_all and memory_id not in old_full:
                found.setdefault((memory_id, "to_full"), []).append(name)
    order = {"to_index": 0, "index_only": 1, "to_full": 2}
    moves = sorted(
        (
            Move(memory_id, titles.get(memory_id, ""), how, tuple(names))
            for (memory_id, how), names in found.items()
        ),
        key=lambda move: (order[move.how], move.memory_id),
    )
    return BudgetDiff(tuple(targets), tuple(moves))


def _memories(project: Project, side: Side) -> dict[str, Memory] | None:
    """Every memory at ``side`` (the working tree when it has no commit); ``None`` when a file
    is invalid."""
    if side.commit is None:
        from gitmem.memory.store import Store

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


_HOW = {"to_index": "moves {id} to the index", "index_only": "{id} (added) is in the index only",
        "to_full": "brings {id} back in full"}  # fmt: skip


def to_markdown(budget: BudgetDiff) -> str:
    """The budget section of the review comment: what moves, then tokens per target ("" when
    nothing changes)."""
    if budget.problem:
        return f"#### Budget\n\n{budget.problem}\n"
    changed = [t for t in budget.targets if t.tokens[0] != t.tokens[1] or t.full[0] != t.full[1]]
    if not budget.moves and not changed:
        return ""
    lines = ["#### Budget", ""]
    for move in budget.moves:
        where = ", ".join(move.targets)
        lines.append(f"- {_HOW[move.how].format(id=_code(move.memory_id))} ({where})")
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
