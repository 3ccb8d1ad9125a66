"""The index of what the budget left out: one short line per left-out memory, so nothing is silently
left out.

When a target's budget leaves memories out, its always-loaded file ends with the recall line
(``render.footer``, counted in the budget) and, after it, this index, within its own bound
(``INDEX_TOKENS``, and a share of the target's hard size limit where it has one): a line saying what
the block holds and what it points to, then one line per left-out memory in the order the budget
would have kept them (those that apply everywhere first, then the path-scoped ones), each its title
(which states the rule) and its id (the head line says where an id's file is,
``.memory/memories/<id>.yaml``: naming the folder once saves a third of each line).
Past the bound, the rest are counted by topic (their first tag), with the recall call that finds
them.

Every client can read a file, so the index needs no MCP: the session's own model does the matching
the prompt hook cannot (a paraphrase shares no word with the memory it means).

The lines start at column 0 after the recall line and end with the id in backticks but no brackets:
no reader takes one for an entry (``block.split`` keeps them in the footer; the prompt hook does not
count them as loaded, so a memory listed here is still injected in full when a prompt needs it).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence

from gitmem.memory.fields import shown_line
from gitmem.memory.model import Memory
from gitmem.records import Record
from gitmem.tools import MEASURES, Limit, Target

INDEX_TOKENS = 1600  # the index's own bound, beside the budget
CHARS_PER_TOKEN = 4  # as the budget estimates
# of a target's hard size limit, what the index may fill (with the block and hand-written text)
LIMIT_SHARE = 0.9
TOPICS_SHOWN = 8  # topics named in the count line; the others are summed as "other"
TOPIC_CHARS = 32  # a topic's name is cut to this in the count line
# the count line's length at most (8 topics of 32 characters and their counts, and the call)
COUNTS_MAX = 500
STORE = ".memory/memories/"


def room(target: Target, used: int, reserved: int = 0, bound_tokens: int = INDEX_TOKENS) -> int:
    """The characters the index may take in ``target``'s always-loaded file, whose block takes
    ``used`` and whose hand-written text ``reserved``: its own bound, and never past the target's
    hard size limit (the index is the first thing to go, before any memory's entry)."""
    chars = bound_tokens * CHARS_PER_TOKEN
    for limit in room_limits(target):
        chars = min(chars, max(0, int(limit.value * LIMIT_SHARE) - reserved - used))
    return chars


def room_limits(target: Target) -> list[Limit]:
    """``target``'s hard size limits that gitmem's text can make room under (``Measuring.room``):
    what the index keeps within, and what the budget is fitted to (``budget.fitted``)."""
    return [limit for limit in target.limits if limit.hard and MEASURES[limit.measure].room]


def has_hard_size_limit(target: Target) -> bool:
    return bool(room_limits(target))


def line(memory: Memory) -> str:
    """One left-out memory's index line: its title and its id (the head line says where an id's
    file is)."""
    return f"- {shown_line(memory.title)}: `{memory.id}`"


def where(personal: bool, packs: bool) -> str:
    """Where to read a left-out memory, for the head line."""
    if personal:
        return "run `gitmem show --user <id>`"
    text = f"read `{STORE}<id>.yaml`"
    if packs:
        text += " (an id `PACK/ID`: `gitmem show PACK/ID`)"
    return text


class Index(Record):
    """The lines that follow the recall line, and the ids of the memories they list one a line
    (``gitmem explain`` says which memories a client sees only as an index line)."""

    text: str
    listed: tuple[str, ...]


def index_text(omitted: Sequence[Memory], kept: int, chars: int, personal: bool = False) -> Index:
    """The lines that follow the recall line: what the block holds, then the index (at most
    ``chars`` characters, the count line included), each line ending with a newline but the last."""
    if not omitted:
        return Index("", ())
    ordered = sorted(omitted, key=lambda memory: bool(memory.paths))  # those for every path first
    total = kept + len(omitted)
    packs = any("/" in memory.id for memory in omitted)
    head = (
        f"This block holds {kept} of the {total} memories in full. Each line below "
        "is one left out, its title then its id: when your task touches what one "
        f"says, {where(personal, packs)}."
    )
    lines: list[str] = []
    used = len(head) + 1
    for number, memory in enumerate(ordered, 1):
        text = line(memory)
        counts = 0 if number == len(ordered) else COUNTS_MAX  # room for the line of the rest
        if used + len(text) + 1 + counts > chars:
            break
        lines.append(text)
        used += len(text) + 1
    listed, rest = ordered[: len(lines)], ordered[len(lines) :]
    if not lines:
        head = f"This block holds {kept} of the {total} memories in full."
    if rest:
        lines.append(_counts(rest))
    return Index("\n".join([head, *lines]), tuple(memory.id for memory in listed))


def _counts(rest: Sequence[Memory]) -> str:
    """The line that counts the memories past the bound by topic (their first tag), bounded in
    length."""
    topics = Counter(memory.tags[0] if memory.tags else "untagged" for memory in rest)
    shown = topics.most_common(TOPICS_SHOWN)
    parts = [f"{shown_line(topic)[:TOPIC_CHARS]} {count}" for topic, count in shown]
    other = len(rest) - sum(count for _, count in shown)
    if other:
        parts.append(f"other {other}")
    return (
        f'{len(rest)} more not listed, by topic: {", ".join(parts)}; `gitmem recall "QUERY"` '
        "finds them."
    )
