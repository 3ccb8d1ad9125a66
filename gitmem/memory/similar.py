"""Near-duplicate detection for memories: normalised word overlap, fast enough for thousands of
memories.

Used by doctor (near-duplicate memories), journal harvest and MCP propose (a new item that repeats
an existing memory), and import. Two texts are compared on their normalised word sets (lower case,
punctuation and common stop words dropped, simple plural folding); candidate pairs are found through
an inverted index, so ``near_duplicates`` does not compare every pair, and a ``Pool`` finds what one
new text repeats without scoring every item.
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


def _rarest(
    sets: list[tuple[str, frozenset[str]]], threshold: float
) -> tuple[list[list[str]], dict[str, list[int]]]:
    """Each set's rarest words (as many as a pair at ``threshold`` must share one of), and the
    positions of the sets by each of those words."""
    frequency: dict[str, int] = defaultdict(int)
    for _, word_set in sets:
        for word in word_set:
            frequency[word] += 1
    index: dict[str, list[int]] = defaultdict(list)
    prefixes = []
    for position, (_, word_set) in enumerate(sets):
        ordered = sorted(word_set, key=lambda w: (frequency[w], w))
        keep = len(ordered) - int(len(ordered) * threshold / (2 - threshold)) + 1
        prefix = ordered[: max(1, keep)]
        prefixes.append(prefix)
        for word in prefix:
            index[word].append(position)
    return prefixes, index


def near_duplicates(
    items: Sequence[tuple[str, str]], threshold: float = DEFAULT_THRESHOLD
) -> list[Match]:
    """Every pair of items (id, text) at least ``threshold`` (above 0, as the config's
    ``doctor.similarity`` is) similar, each pair once, most similar first.

    Two sets with Dice >= t share at least t/(2-t) of the smaller set, so a pair must share one of
    each set's rarest words: only those candidates are scored. A pair that reads alike but says
    different things (``different_rules``) is not a near-duplicate.
    """
    sets = [(item_id, words(memory_text(*text.split("\n", 1)))) for item_id, text in items]
    prefixes, index = _rarest(sets, threshold)
    found: list[Match] = []
    ratio = threshold / (
        2 - threshold
    )  # the smaller set of a pair has at least this share of the larger's size
    sizes = [len(word_set) for _, word_set in sets]
    for position, prefix in enumerate(prefixes):
        mine = sets[position][1]
        low, high = sizes[position] * ratio, sizes[position] / ratio
        candidates = {
            other
            for word in prefix
            for other in index[word]
            if other > position and low <= sizes[other] <= high
        }
        for other in sorted(candidates):  # none for an empty set: it has no rarest words
            score = similarity(mine, sets[other][1])
            if score >= threshold and not different_rules(items[position][1], items[other][1]):
                found.append(Match(sets[position][0], sets[other][0], round(score, 3)))
    found.sort(key=lambda m: (-m.score, m.id, m.other))
    return found


class Pool(Generic[T]):
    """Items searchable for the one a new text nearly repeats, without scoring every item.

    A text nearly repeats an item when its title words, or its title and body words, are at least
    ``threshold`` similar to the item's (``similarity``). Items are indexed by word: a query scores
    only the items it shares enough words with to reach the threshold, so checking n new texts
    against m items is far from n * m.
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
        for word in all_words:
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
        shared: dict[int, int] = defaultdict(int)
        for word in all_words:
            for position in self._postings.get(word, ()):
                shared[position] += 1
        candidates = set(shared)
        if not title_words:
            candidates.update(self._untitled)
        threshold = self.threshold
        best: tuple[T, float] | None = None
        best_score = -1.0  # (a score is never below 0)
        for position in sorted(candidates):
            key, other_title, other_all = self._items[position]
            # too few words shared for either score to reach the threshold (title words shared are
            # at most the words shared)
            sizes = min(len(title_words) + len(other_title), len(all_words) + len(other_all))
            if title_words and shared.get(position, 0) < threshold * sizes / 2:
                continue
            score = max(similarity(title_words, other_title), similarity(all_words, other_all))
            if score < threshold or score <= best_score:
                continue
            other_text = self._texts[position]  # a text not given ("") is not compared
            if not (text and other_text and different_rules(text, other_text)):
                best, best_score = (key, score), score
        return best
