"""The token budget: the estimate, and the order in which memories are kept when not all of them
fit.

The estimate is characters / 4, rounded up: crude, but the same for every tool and free to compute.
Over budget, a target keeps memories in this order: priority (high, normal, low), then kind
(conventions, pitfalls, decisions, preferences, facts), then age (older first: a new memory never
pushes out an established one of the same rank), then, among equals, imported memories in the order
of the file they came from (``origin: AGENTS.md:12``: the top of a rules file is usually what its
authors thought mattered most, and a contiguous stretch keeps sections whole rather than leaving a
block of fragments), then the shorter first (more memories fit), and only last the id.
The block keeps the longest run of this order that fits (``plan._fill``), so a memory added takes
the place of the lowest-ranked ones and nothing else moves; only a memory too long to fit even alone
is passed over with the next ones still tried, so one long memory cannot crowd out every one after
it; except the later lines of the same imported file (and kind): they stop where the first one was
left out, so the block holds the top of that file in one piece, not fragments of it.
"""

from __future__ import annotations

from collections.abc import Iterable
from datetime import date

from gitmem.compile.block import END_LINE, KIND_ORDER, PRIORITY_RANK, begin_line
from gitmem.compile.leftout import room_limits
from gitmem.linear import linear
from gitmem.memory.model import Memory
from gitmem.tools import MEASURES, Target

CHARS_PER_TOKEN = 4
# of what a hard size limit leaves beside the hand-written text, what gitmem's block may take
ROOM_SHARE = 0.9
# a block's marker lines and the blank lines around them, which the budget does not count
FRAME = len(begin_line("hash", "0" * 16)) + len(END_LINE) + 4


def tokens(chars: int) -> int:
    """The token estimate of ``chars`` characters."""
    return -(-chars // CHARS_PER_TOKEN)


def room_tokens(chars: int) -> int:
    """The budget that fits a block in ``chars`` characters a hard size limit leaves it (at least
    1)."""
    return max(1, int(chars * ROOM_SHARE) // CHARS_PER_TOKEN)


def fitted(target: Target, budget: int, hand_written: int) -> int:
    """``budget`` lowered so that ``target``'s block fits beside ``hand_written`` characters (for a
    chain limit, those of the files on the way down to the deepest folder) within each hard size
    limit: the block holds fewer memories in full, and the rest go to the index or to recall,
    instead of the client cutting the file. Unchanged where the hand-written text alone is past the
    limit (no budget fixes that; `gitmem check` names it)."""
    for limit in room_limits(target):
        if hand_written < limit.value:
            frames = FRAME * (
                2 if MEASURES[limit.measure].chain else 1
            )  # the root's and a folder's
            budget = min(budget, room_tokens(limit.value - hand_written - frames))
    return budget


_ORIGIN_LINE = linear(r"(.+):(\d+)")


def origin_place(memory: Memory) -> tuple[str, int] | None:
    """The rules file and line an imported memory was read from (``origin: AGENTS.md:12``), or
    ``None``."""
    match = _ORIGIN_LINE.fullmatch(memory.origin or "") if memory.source == "import" else None
    return (match.group(1), int(match.group(2))) if match else None


def keep_key(memory: Memory) -> tuple[int, int, date, tuple[int, str, int], int, str]:
    place = origin_place(memory)
    where = (0, *place) if place else (1, "", 0)
    size = len(memory.title) + len(memory.body)
    return (PRIORITY_RANK[memory.priority], KIND_ORDER.index(memory.kind),
            memory.created or date.min, where, size, memory.id)  # fmt: skip


def rank_reason(memory: Memory) -> str:
    """Why a memory sits where it does in the keep order, in the order the budget weighs it."""
    parts = [f"{memory.priority} priority", memory.kind, f"created {memory.created or 'undated'}"]
    place = origin_place(memory)
    if place:
        parts.append(f"imported from {place[0]} line {place[1]}")
    parts.append(f"{len(memory.title) + len(memory.body)} characters")
    return ", ".join(parts)


def keep_order(memories: Iterable[Memory]) -> list[Memory]:
    """The memories in the order a budget keeps them."""
    return sorted(memories, key=keep_key)
