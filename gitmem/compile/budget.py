"""The token budget: the estimate, and the order in which memories are kept when not all of them fit.

The estimate is characters / 4, rounded up: crude, but the same for every tool and free to compute. Over budget, a
target keeps memories in this order: priority (high, normal, low), then kind (conventions, pitfalls, decisions,
preferences, facts), then age (older first: a new memory never pushes out an established one of the same rank),
then id. A memory that does not fit is left out and the next ones are still tried, so one long memory cannot
crowd out every shorter one after it.
"""

from __future__ import annotations

from collections.abc import Iterable
from datetime import date

from gitmem.compile.block import KIND_ORDER, PRIORITY_RANK
from gitmem.memory.model import Memory

CHARS_PER_TOKEN = 4


def tokens(chars: int) -> int:
    """The token estimate of ``chars`` characters."""
    return -(-chars // CHARS_PER_TOKEN)


def keep_key(memory: Memory) -> tuple[int, int, date, str]:
    return (PRIORITY_RANK[memory.priority], KIND_ORDER.index(memory.kind), memory.created or date.min, memory.id)


def keep_order(memories: Iterable[Memory]) -> list[Memory]:
    """The memories in the order a budget keeps them."""
    return sorted(memories, key=keep_key)
