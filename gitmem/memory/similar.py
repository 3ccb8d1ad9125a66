"""Near-duplicate detection for memories: normalised word overlap, fast enough for thousands of
memories.

Used by doctor (near-duplicate memories), journal harvest and MCP propose (a new item that repeats
an existing memory), and import. Two texts are compared on their normalised word sets (lower case,
punctuation and common stop words dropped, simple plural folding). A ``Pool`` finds what one new
text repeats through an inverted index, without scoring every item and with a bound on what one
query reads; ``near_duplicates`` asks one pool for each item in turn.
"""

from __future__ import annotations

import re
from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Generic, TypeVar

DEFAULT_THRESHOLD = 0.85
T = TypeVar("T")

_STOP = frozenset(
    {
        "a",
        "an",
        "the",
        "and",
        "or",
        "of",
        "to",
        "in",
        "on",
        "for",
        "with",
        "by",
        "at",
        "from",
        "is",
        "are",
        "be",
        "been",
        "was",
        "were",
        "it",
        "its",
        "this",
        "that",
        "these",
        "those",
        "as",
        "we",
        "our",
        "you",
        "your",
        "i",
        "do",
        "does",
        "don't",
        "dont",
        "not",
        "no",
        "never",
        "always",
        "should",
        "must",
        "can",
        "will",
        "use",
        "using",
    }
)


def words(text: str) -> frozenset[str]:
    """The normalised words of ``text``: what similarity compares."""
    tokens = re.findall(r"[a-z0-9][a-z0-9_.+#/-]*", text.lower())
    out = set()
    for token in tokens:
        token = token.strip("._-/")  # never empty: a token starts with a letter or digit
        if token in _STOP:
            continue
        if len(token) > 3 and token.endswith("s") and not token.endswith("ss"):
            token = token[:-1]
        out.add(token)
    return frozenset(out)


def similarity(a: frozenset[str], b: frozenset[str]) -> float:
    """Overlap of two word sets, 0 to 1: the Dice coefficient (the share of words the two texts
    have in common)."""
    if not a or not b:
        return 1.0 if a == b else 0.0
    return 2 * len(a & b) / (len(a) + len(b))


# Body lines an import writes about where an item was listed or when its tool applies it: shared by
# every item of a list, so not what one rule says (a shared lead-in made twelve commit prefixes
# "0.92 similar").
CONTEXT_PREFIXES = ("Listed under: ", "Rule description: ")


def memory_text(title: str, body: str = "") -> str:
    """The text a memory is compared on: its title and body, without the body's context lines
    (``CONTEXT_PREFIXES``)."""
    if any(prefix in body for prefix in CONTEXT_PREFIXES):
        body = "\n".join(line for line in body.split("\n") if not line.startswith(CONTEXT_PREFIXES))
    return f"{title}\n{body}"


# Words that turn a rule into its opposite. Negations are stop words for `words` (they carry little
# topic), so they are counted here; two texts whose negations differ in parity say opposite things
# ("Run X" / "Never run X").
_NEGATIONS = frozenset(
    {"not", "no", "never", "don't", "dont", "doesn't", "doesnt", "isn't", "aren't", "won't",
     "cannot", "can't", "shouldn't", "mustn't", "without", "avoid", "nor"}
)  # fmt: skip
_ANTONYMS = (
    ("accept", "reject"), ("allow", "deny"), ("enable", "disable"), ("enabled", "disabled"),
    ("add", "remove"), ("include", "exclude"), ("minor", "major"), ("before", "after"),
    ("increase", "decrease"), ("min", "max"), ("minimum", "maximum"), ("true", "false"),
    ("always", "never"), ("first", "last"), ("open", "close"), ("start", "stop"), ("pass", "fail"),
    ("success", "failure"), ("public", "private"), ("sync", "async"), ("upper", "lower"),
    ("import", "export"), ("push", "pull"), ("more", "less"), ("inside", "outside"),
    ("required", "optional"), ("local", "remote"), ("client", "server"), ("read", "write"),
    ("old", "new"),
)  # fmt: skip
_OPPOSITE = dict(_ANTONYMS) | {b: a for a, b in _ANTONYMS}
_CODE = re.compile(r"`[^`\n]+`")


def _raw_words(text: str) -> set[str]:
    return {token.strip("._-/") for token in re.findall(r"[a-z0-9][a-z0-9_.+#/'-]*", text.lower())}


def different_rules(text: str, other: str) -> bool:
    """Whether two texts that share most words still say different things: opposite polarity (one
    negates, the other does not: "affects end users → next" / "doesn't → main"), an antonym between
    the words only one of them has ("minor" / "major"), or different commands (their code spans
    differ: `cargo insta accept` / `… reject`).
    """
    text, other = memory_text(*text.split("\n", 1)), memory_text(*other.split("\n", 1))
    mine, theirs = _raw_words(text), _raw_words(other)
    if len(mine & _NEGATIONS) % 2 != len(theirs & _NEGATIONS) % 2:
        return True
    if any(_OPPOSITE.get(word) in theirs - mine for word in mine - theirs):
        return True
    codes, other_codes = set(_CODE.findall(text)), set(_CODE.findall(other))
    return bool(codes and other_codes and codes != other_codes)


@dataclass(frozen=True)
class Match:
    id: str
    other: str
    score: float


def near_duplicates(
    items: Sequence[tuple[str, str]], threshold: float = DEFAULT_THRESHOLD
) -> list[Match]:
    """Each item (id, text) that nearly repeats an earlier one (at least ``threshold`` similar,
    above 0 as the config's ``doctor.similarity`` is), with the earlier item it repeats most: once
    each, most similar first. Pass the items in the order they should be kept.

    An item that repeats an earlier one is not compared again, and a ``Pool`` bounds what each item
    is compared with, so a thousand copies of one text cost a thousand comparisons and say a
    thousand lines, not half a million. A pair that reads alike but says different things
    (``different_rules``) is not a near-duplicate; an item with no words repeats nothing.
    """
    kept: Pool[str] = Pool(threshold)
    found: list[Match] = []
    for item_id, text in items:
        mine = words(memory_text(*text.split("\n", 1)))
        if not mine:
            continue
        match = kept.best_words(mine, mine, text)  # its words as the title: one score, the text's
        if match is None:
            kept.add_words(item_id, mine, mine, text)
        else:
            found.append(Match(item_id, match[0], round(match[1], 3)))
    found.sort(key=lambda m: (-m.score, m.id, m.other))
    return found


# What one query of a ``Pool`` reads of its index at most: past it the words left are shared by
# thousands of items and say little of which one a text repeats, and a query's cost stays bounded
# whatever the pool holds (n queries: linear).
READS = 1024


def _rarest(
    word_set: frozenset[str], threshold: float, postings: dict[str, list[int]]
) -> list[str]:
    """The rarest words of ``word_set`` (fewest items first) of which an item at least
    ``threshold`` similar must hold one: a set B with Dice(A, B) >= t shares at least t/(2-t) of
    A's words, so it holds one of any len(A) - that + 1 of them."""
    ordered = sorted(word_set, key=lambda word: (len(postings.get(word, ())), word))
    return ordered[: len(ordered) - int(len(ordered) * threshold / (2 - threshold)) + 1]


class Pool(Generic[T]):
    """Items searchable for the one a new text nearly repeats, without scoring every item.

    A text nearly repeats an item when its title words, or its title and body words, are at least
    ``threshold`` similar to the item's (``similarity``). Items are indexed by word: a query scores
    only the items that hold one of its rarest words (``_rarest``), and reads at most ``READS``
    places of the index, so checking n new texts against m items is at most n * READS, however
    alike the texts are.
    """

    def __init__(self, threshold: float = DEFAULT_THRESHOLD) -> None:
        self.threshold = threshold
        self._items: list[tuple[T, frozenset[str], frozenset[str]]] = []
        self._texts: list[str] = []  # each item's text, for ``different_rules`` ("" when not given)
        self._postings: dict[str, list[int]] = defaultdict(list)
        self._untitled: list[int] = []  # items whose title has no words (equal to any such title)

    def __len__(self) -> int:
        return len(self._items)

    def add(self, key: T, title: str, body: str = "") -> None:
        self.add_words(key, words(title), words(memory_text(title, body)), memory_text(title, body))

    def add_words(
        self, key: T, title_words: frozenset[str], all_words: frozenset[str], text: str = ""
    ) -> None:
        position = len(self._items)
        self._items.append((key, title_words, all_words))
        self._texts.append(text)
        for word in all_words | title_words:
            self._postings[word].append(position)
        if not title_words:
            self._untitled.append(position)

    def best(self, title: str, body: str = "") -> tuple[T, float] | None:
        """The item ``title`` and ``body`` most nearly repeat (the first added on a tie) and the
        score, or None."""
        return self.best_words(
            words(title), words(memory_text(title, body)), memory_text(title, body)
        )

    def best_words(
        self, title_words: frozenset[str], all_words: frozenset[str], text: str = ""
    ) -> tuple[T, float] | None:
        """As ``best``, from the words; with ``text``, an item that says something different
        (``different_rules``) is not a match."""
        # an item the text repeats holds one of its rarest words, or of its title's; read rarest
        # first, at most READS places
        reads = READS
        candidates = set(self._untitled[:reads]) if not title_words else set()
        rarest = _rarest(all_words, self.threshold, self._postings)
        for word in rarest + _rarest(title_words, self.threshold, self._postings):
            postings = self._postings.get(word, ())
            candidates.update(postings[:reads])
            reads -= len(postings)
            if reads <= 0:
                break
        threshold = self.threshold
        best: tuple[T, float] | None = None
        best_score = -1.0  # (a score is never below 0)
        for position in sorted(candidates):
            key, other_title, other_all = self._items[position]
            score = max(similarity(title_words, other_title), similarity(all_words, other_all))
            if score < threshold or score <= best_score:
                continue
            other_text = self._texts[position]  # a text not given ("") is not compared
            if not (text and other_text and different_rules(text, other_text)):
                best, best_score = (key, score), score
        return best
