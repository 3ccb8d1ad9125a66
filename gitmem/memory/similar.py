"""Near-duplicate detection for memories: normalised word overlap, fast enough for thousands of memories.

Used by doctor (near-duplicate memories), journal harvest and MCP propose (a new item that repeats an existing
memory), and import. Two texts are compared on their normalised word sets (lower case, punctuation and common
stop words dropped, simple plural folding); candidate pairs are found through an inverted index, so
``near_duplicates`` does not compare every pair.
"""

from __future__ import annotations

import re
from collections import defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

DEFAULT_THRESHOLD = 0.85

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
        token = token.strip("._-/")
        if not token or token in _STOP:
            continue
        if len(token) > 3 and token.endswith("s") and not token.endswith("ss"):
            token = token[:-1]
        out.add(token)
    return frozenset(out)


def similarity(a: frozenset[str], b: frozenset[str]) -> float:
    """Overlap of two word sets, 0 to 1: the Dice coefficient (the share of words the two texts have in common)."""
    if not a or not b:
        return 1.0 if a == b else 0.0
    return 2 * len(a & b) / (len(a) + len(b))


def memory_text(title: str, body: str = "") -> str:
    """The text a memory is compared on."""
    return f"{title}\n{body}"


@dataclass(frozen=True)
class Match:
    id: str
    other: str
    score: float


def best_match(text: str, items: Iterable[tuple[str, str]], threshold: float = DEFAULT_THRESHOLD) -> Match | None:
    """The item (id, text) most similar to ``text``, when at least ``threshold`` similar."""
    mine = words(text)
    best: Match | None = None
    for item_id, item_text in items:
        score = similarity(mine, words(item_text))
        if score >= threshold and (best is None or score > best.score):
            best = Match("", item_id, score)
    return best


def near_duplicates(items: Sequence[tuple[str, str]], threshold: float = DEFAULT_THRESHOLD) -> list[Match]:
    """Every pair of items (id, text) at least ``threshold`` similar, each pair once, most similar first.

    Two sets with Dice >= t share at least t/(2-t) of the smaller set, so a pair must share one of each set's
    rarest words: only those candidates are scored.
    """
    sets = [(item_id, words(text)) for item_id, text in items]
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
    found: list[Match] = []
    for position, prefix in enumerate(prefixes):
        candidates = {other for word in prefix for other in index[word] if other > position}
        for other in sorted(candidates):
            score = similarity(sets[position][1], sets[other][1])
            if score >= threshold:
                found.append(Match(sets[position][0], sets[other][0], round(score, 3)))
    found.sort(key=lambda m: (-m.score, m.id, m.other))
    return found
