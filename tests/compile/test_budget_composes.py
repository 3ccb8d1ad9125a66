"""A budget that composes (issue 31): adding a memory changes only what it must. It takes the place of the
lowest-ranked memories, nothing comes back in, and going over the budget for the first time costs no more than the
memory itself (the recall line's room is kept from the start), so two changes that each fit combine predictably."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from gitmem.compile import budget, plan
from gitmem.memory.model import Memory
from gitmem.tools import TARGET_BY_NAME as BY_NAME

PRIORITIES = ("high", "normal", "low")


def _memory(memory_id: str, priority: str = "normal", body: str = "") -> Memory:
    return Memory(id=memory_id, title=f"Title of {memory_id}", kind="convention", status="active",
                  priority=priority, body=body)  # type: ignore[arg-type]  # fmt: skip


def _kept(memories: list[Memory], tokens: int) -> list[str]:
    return plan.plan_targets([BY_NAME["agents"]], memories, {"agents": tokens})[0].compiled


def _order(memories: list[Memory]) -> list[str]:
    return [memory.id for memory in budget.keep_order(memories)]


store = st.lists(
    st.tuples(st.sampled_from(PRIORITIES), st.integers(0, 400)), min_size=1, max_size=14
)


@settings(max_examples=150, deadline=None)
@given(store, st.sampled_from(PRIORITIES), st.integers(0, 400), st.integers(120, 900))
def test_adding_a_memory_displaces_only_the_lowest_ranked(
    shape: list[tuple[str, int]], priority: str, length: int, tokens: int
) -> None:
    memories = [_memory(f"m{n:02}", p, "word " * (size // 5)) for n, (p, size) in enumerate(shape)]
    added = _memory("added", priority, "word " * (length // 5))
    before = _kept(memories, tokens)
    after = _kept([*memories, added], tokens)
    assert set(after) - {"added"} <= set(before), "adding a memory brought another one in"
    displaced = [memory_id for memory_id in before if memory_id not in after]
    ranked = [memory_id for memory_id in _order(memories) if memory_id in before]
    assert displaced == ranked[len(ranked) - len(displaced) :], (
        "a memory moved out above a lower-ranked one"
    )


def test_going_over_the_budget_costs_no_more_than_the_memory() -> None:
    """At the smallest budget that holds ten equal memories in full, an eleventh of the same size (ranked first)
    moves exactly one (the lowest-ranked) to the index: the recall line and its index head were already paid for."""
    memories = [
        _memory(f"m{n:02}", body="Every memory here is about as long as the next one.")
        for n in range(10)
    ]
    tokens = next(t for t in range(50, 2000) if len(_kept(memories, t)) == 10)
    assert _kept(memories, tokens - 1) == [
        f"m{n:02}" for n in range(9)
    ]  # one less token: one moves to the index
    added = _memory(
        "new", "high", body="Every memory here is about as long as."
    )  # its entry says "high priority"
    after = _kept([*memories, added], tokens)
    assert after == ["new", *(f"m{n:02}" for n in range(9))]
