"""What recall returns: its hits and reports, the session hooks' census of the index, and the words
of a query worth searching for (``gitmem.recall.index`` finds them)."""

from __future__ import annotations

import re
from itertools import pairwise
from pathlib import Path

from gitmem.errors import Problem
from gitmem.memory.model import Memory
from gitmem.records import Record

# fmt: off
STOP_WORDS = frozenset("""
a about above after again all am an and any are as at be because been before being below between
both but by can could did do does doing down during each few for from further had has have having he
her here hers him his how i if in into is it its itself just me more most my myself no nor of off on
once only or other our ours out over own same she should so some such than that the their theirs
them then there these they this those through to too under until up very was we were what when where
which while who whom why will with would you your yours
""".split())  # noqa: SIM905 (a word list reads better as text)
# fmt: on


# NamedTuples and plain classes, not dataclasses: importing dataclasses (and inspect with it) costs
# the prompt hook, a new process on every prompt, more than its own work.
class Hit(Record):
    """A memory recall found, with its score."""

    memory: Memory
    score: float
    path_match: bool
    file: Path


class Anchor(Record):
    """A memory a prompt's path or identifier ties it to (``gitmem.recall.anchors``)."""

    memory: Memory
    # a path's: 1 + the segments its closest glob spells out; an identifier's:
    # anchors.IDENTIFIER_LEVEL
    level: int
    via: str  # "path" or "identifier"
    file: Path


class PromptMatch(Record):
    """What the prompt hook's query found (``RecallIndex.search_prompt``)."""

    hits: list[Hit]
    anchors: list[Anchor]
    matched: dict[str, set[str]]  # for each memory id found, the query terms its text matches
    rare: dict[
        str, set[str]
    ]  # the query terms at most ``rare`` memories hold, and those holding them in their title
    phrased: frozenset[str] = (
        frozenset()
    )  # ids whose title or words hold two consecutive words of the query close by


class Refreshed:
    """What bringing the index up to date took."""

    def __init__(self, read: int = 0, checked: int = 0, removed: int = 0) -> None:
        self.read = read  # files read again (new, changed, or racily clean)
        self.checked = checked  # files whose content was new, and was checked
        self.removed = removed
        self.complete = True  # false: stopped at its deadline, the rest left to the next refresh
        self.costly: list[
            str
        ] = []  # files skipped: a refresh was stopped while checking each (RecallIndex.COSTLY)

    def __repr__(self) -> str:
        return f"Refreshed(read={self.read!r}, checked={self.checked!r}, removed={self.removed!r})"

    def __eq__(self, other: object) -> bool:
        return other.__class__ is self.__class__ and vars(self) == vars(other)

    __hash__ = None  # type: ignore[assignment]  # (mutable, as the dataclass was)


class Recalled:
    """What a recall query found, and the invalid memory files it left out."""

    def __init__(
        self,
        hits: list[Hit] | None = None,
        problems: list[Problem] | None = None,
        terms: list[str] | None = None,
    ) -> None:
        self.hits: list[Hit] = [] if hits is None else hits
        self.problems: list[Problem] = (
            [] if problems is None else problems
        )  # invalid memory files, left out
        self.terms: list[str] = [] if terms is None else terms

    def __repr__(self) -> str:
        return f"Recalled(hits={self.hits!r}, problems={self.problems!r}, terms={self.terms!r})"

    def __eq__(self, other: object) -> bool:
        return other.__class__ is self.__class__ and vars(self) == vars(other)

    __hash__ = None  # type: ignore[assignment]  # (mutable, as the dataclass was)


def query_terms(query: str) -> list[str]:
    """The words of a natural-language query that are worth searching for, in order, once each."""
    words = _words(query)
    return list(dict.fromkeys(_kept(words) or words))


def _words(query: str) -> list[str]:
    return [w.lower() for w in re.findall(r"\w+", query)]


def _kept(words: list[str]) -> list[str]:
    """The words worth searching for: no stop words, no single letters."""
    return [w for w in words if w not in STOP_WORDS and (len(w) > 1 or w.isdigit())]


def term_pairs(query: str, most: int = 16) -> list[tuple[str, str]]:
    """The query's search words two by two as they follow each other (the stop words between them
    skipped), once each: "add a feature flag" gives (add, feature) and (feature, flag). A memory
    whose title (or ``words``) holds a pair close together is about what the query says, whatever
    the rest of the store makes of each word alone.
    """
    return list(dict.fromkeys((a, b) for a, b in pairwise(_kept(_words(query))) if a != b))[:most]


class Census(Record):
    """One indexed memory's status and scope, as the session hooks count them."""

    id: str
    status: str
    scoped: bool
    live: bool
    targets: tuple[str, ...] = ()
