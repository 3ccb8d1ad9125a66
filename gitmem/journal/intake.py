"""The one decision every way in makes of an item that would become a memory (``gitmem import`` of
rules files, ``gitmem import --from CLIENT``, ``gitmem journal harvest``), in this order:

1. ``refused``: the item's text holds hidden Unicode or a possible secret (``sensitive``);
2. ``imported-before``: the caller found the memory it became before (same title from the same
   file or log);
3. ``duplicate``: it nearly repeats a memory that is not retired;
4. ``repeat``: it nearly repeats an item taken before in the same run (or one the caller knows is
   the same, such as the same code block);
5. ``removed``: it nearly repeats a memory a human removed or retired, unless ``force``;
6. ``new``: it is taken (``Intake.take``), and later items are compared with it.

What differs between the ways in is data, in ``Rule``: whether a match is confirmed by
``same_thing`` and whether an item's text guards a match (``similar.different_rules``).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Generic, Literal, NamedTuple, TypeVar

from gitmem.git import removed
from gitmem.linear import linear
from gitmem.memory import similar
from gitmem.memory.model import Memory
from gitmem.scan import Finding, HiddenChar, find_hidden, scan_text

T = TypeVar("T")
K = TypeVar("K")

_SPECIFIC = linear(r"`[^`]+`|[\w.~-]*/[\w./~*-]+|\b\d+(?:\.\d+)*\b|\b[\w-]+\.[a-z]{1,5}\b")


def specifics(text: str) -> set[str]:
    """What makes a rule this rule and not its neighbour: code spans, paths, file names and numbers,
    and the command lines of its code blocks (their comments are wording, not what the block runs).
    Read line by line: a fence is not a code span."""
    found: set[str] = set()
    fence = ""
    for line in text.split("\n"):
        stripped = line.strip()
        marker = stripped[:3]
        if marker in ("```", "~~~") and (not fence or stripped.startswith(fence)):
            fence = "" if fence else marker
            continue
        if fence:
            command = stripped.split(" #", 1)[0].strip().lower()
            if command and not command.startswith(("#", "//")):
                found.add(" ".join(command.split()))
            continue
        found.update(match.strip("`").lower() for match in _SPECIFIC.findall(line))
    return found


def same_thing(title: str, body: str, other_title: str, other_body: str) -> bool:
    """Whether two items that read alike say the same thing: the same code, paths, names and
    numbers, and, when their titles are the same words (a shared label such as "Error Handling"),
    bodies that agree too. Lines that share a label but name different files ("Global Location:
    `~/.a/hooks.json`", "… `~/.b/settings.json`") are different rules."""
    if specifics(title) != specifics(other_title):
        return False
    mine, theirs = specifics(body), specifics(other_body)
    if mine and theirs and mine != theirs:
        return False
    if body.strip() and other_body.strip() and similar.words(title) == similar.words(other_title):
        words, other = similar.words(body), similar.words(other_body)
        union = words | other
        return not union or len(words & other) / len(union) >= 0.6
    return True


Refusal = Literal["hidden-unicode", "secret"]
Why = Literal[Refusal, "imported-before", "duplicate", "repeat", "removed", "new"]


def sensitive(text: str) -> tuple[Refusal, HiddenChar | Finding] | None:
    """("hidden-unicode", the first hidden character) or ("secret", the first finding) in
    ``text``, or ``None``: what refuses an item (the finding never holds the secret)."""
    hidden = find_hidden(text)
    if hidden:
        return "hidden-unicode", hidden[0]
    found = scan_text(text)
    return ("secret", found[0]) if found else None


class Rule(NamedTuple):
    """How a way in compares an item: ``confirm``, a match must also be ``same_thing``;
    ``texts``, items whose texts say different rules (``similar.different_rules``) do not match."""

    confirm: bool
    texts: bool


RULES_FILES = Rule(confirm=True, texts=True)
CLIENTS = Rule(confirm=True, texts=False)
LOGS = Rule(confirm=False, texts=True)

_Words = tuple[frozenset[str], frozenset[str], str]  # an item's title words, all words, text


@dataclass(frozen=True)
class Fate(Generic[T]):
    """What becomes of one item: ``why`` (refused as ``hidden-unicode`` or ``secret``,
    ``imported-before``, ``duplicate``, ``repeat``, ``removed`` or ``new``) and what it names."""

    why: Why
    words: _Words
    memory: Memory | None = None  # imported-before, duplicate: the memory it is
    item: T | None = None  # repeat: the item taken before
    rejected: removed.Rejected | None = None  # removed: the removal it repeats
    found: HiddenChar | Finding | None = None  # refused: the first one
    score: float = 1.0


class Intake(Generic[T]):
    """One run's items, decided one by one against the store's memories (``memories``, in order:
    those not retired; ``guard``: the removed ones) and the items taken so far."""

    def __init__(
        self,
        memories: Iterable[Memory],
        guard: removed.Guard,
        threshold: float,
        rule: Rule,
        force: bool = False,
    ) -> None:
        self.live: similar.Pool[tuple[Memory, str, str]] = similar.Pool(threshold)
        for memory in memories:
            if memory.status != "retired":
                self.live.add((memory, memory.title, memory.body), memory.title, memory.body)
        self.items: similar.Pool[tuple[T, str, str]] = similar.Pool(threshold)
        self.guard, self.rule, self.force = guard, rule, force

    def fate(
        self,
        title: str,
        body: str,
        *,
        text: str = "",
        before: Memory | None = None,
        same: T | None = None,
    ) -> Fate[T]:
        """The fate of the item ``title`` and ``body`` (``text``: its lines as written, checked
        for secrets; ``before``: the memory it became before; ``same``: an item taken before that
        it is known to repeat)."""
        joined = similar.memory_text(title, body)
        words = (similar.words(title), similar.words(joined), joined if self.rule.texts else "")
        refused = sensitive(text)
        if refused is not None:
            return Fate(refused[0], words, found=refused[1])
        if before is not None:
            return Fate("imported-before", words, memory=before)
        existing = self._best(self.live, (title, body), words)
        if existing is not None:
            return Fate("duplicate", words, memory=existing[0], score=existing[1])
        repeated = (same, 1.0) if same is not None else self._best(self.items, (title, body), words)
        if repeated is not None:
            return Fate("repeat", words, item=repeated[0], score=repeated[1])
        rejected = self.guard.check(title, body)
        if rejected is not None and not self.force:
            return Fate("removed", words, rejected=rejected)
        return Fate("new", words)

    def _best(
        self, pool: similar.Pool[tuple[K, str, str]], said: tuple[str, str], words: _Words
    ) -> tuple[K, float] | None:
        """What the item ``said`` (its title and body) nearly repeats in ``pool``, and the score;
        ``None`` when nothing does, or (``rule.confirm``) it does not say the same thing."""
        found = pool.best_words(*words)
        if found is None:
            return None
        (key, title, body), score = found
        confirmed = not self.rule.confirm or same_thing(*said, title, body)
        return (key, score) if confirmed else None

    def take(self, item: T, title: str, body: str, fate: Fate[T]) -> None:
        """Take a new item: later items that nearly repeat it are a ``repeat`` of it."""
        self.items.add_words((item, title, body), *fate.words)

    def known(self, memory: Memory, fate: Fate[T]) -> None:
        """A memory made in this run: later items that nearly repeat it are a ``duplicate`` (by
        their words, not their text)."""
        self.live.add_words((memory, memory.title, memory.body), *fate.words[:2])
