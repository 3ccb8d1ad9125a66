"""similar.Pool finds exactly what scoring every item would find, however the texts overlap."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from gitmem.memory import similar

WORDS = [
    "pnpm",
    "npm",
    "node",
    "use",
    "the",
    "tests",
    "run",
    "web",
    "api",
    "never",
    "always",
    "pin",
    "lint",
    "a",
]
texts = st.lists(st.sampled_from(WORDS), max_size=7).map(" ".join)


def brute_force(
    items: list[tuple[str, str]], title: str, body: str, threshold: float
) -> tuple[int, float] | None:
    """The linear scan harvest and propose did before: the first item with the best score at least ``threshold``."""
    mine_title = similar.words(title)
    mine_all = similar.words(similar.memory_text(title, body))
    best: tuple[int, float] | None = None
    for key, (other_title, other_body) in enumerate(items):
        score = max(
            similar.similarity(mine_title, similar.words(other_title)),
            similar.similarity(
                mine_all, similar.words(similar.memory_text(other_title, other_body))
            ),
        )
        if similar.different_rules(
            similar.memory_text(title, body), similar.memory_text(other_title, other_body)
        ):
            continue  # reads alike, says something else (a negation, an antonym, another command)
        if score >= threshold and (best is None or score > best[1]):
            best = (key, score)
    return best


@settings(max_examples=300, deadline=None)
@given(
    st.lists(st.tuples(texts, texts), max_size=12),
    st.lists(st.tuples(texts, texts), min_size=1, max_size=5),
    st.sampled_from([0.5, 0.7, 0.85, 1.0]),
)
def test_pool_matches_scoring_every_item(
    items: list[tuple[str, str]], queries: list[tuple[str, str]], threshold: float
) -> None:
    pool: similar.Pool[int] = similar.Pool(threshold)
    for key, (title, body) in enumerate(items):
        pool.add(key, title, body)
    assert len(pool) == len(items)
    for title, body in queries:
        assert pool.best(title, body) == brute_force(items, title, body, threshold)


class Counted:
    """``similar.similarity``, counting its calls: the work a search does."""

    def __init__(self) -> None:
        self.calls = 0
        self.real = similar.similarity

    def __call__(self, a: frozenset[str], b: frozenset[str]) -> float:
        self.calls += 1
        return self.real(a, b)


@pytest.fixture
def counted(monkeypatch: pytest.MonkeyPatch) -> Counted:
    counter = Counted()
    monkeypatch.setattr(similar, "similarity", counter)
    monkeypatch.setattr(similar, "READS", 16, raising=False)  # small, so a test can pass it
    return counter


def test_copies_of_one_text_are_compared_with_the_first_only(counted: Counted) -> None:
    items = [(f"copy-{n}", "Pin Node to version 20\nin CI and locally") for n in range(500)]
    found = similar.near_duplicates(items)
    assert sorted((m.id, m.other) for m in found) == sorted(
        (f"copy-{n}", "copy-0") for n in range(1, 500)
    )
    assert counted.calls <= 2 * len(items)


def test_what_one_query_reads_is_bounded_however_many_items_share_its_words(
    counted: Counted,
) -> None:
    """Items that share most of their words and no pair of them near enough: every query's rarest
    words are shared by every item. Without a bound, n queries score n * n pairs."""
    common = " ".join(f"common{n}" for n in range(20))
    items = [
        (f"item-{n}", f"{common}\n" + " ".join(f"only{n}x{k}" for k in range(5)))
        for n in range(400)
    ]
    assert similar.near_duplicates(items) == []
    assert counted.calls <= 2 * 16 * len(items)


def test_items_with_no_title_words_are_read_within_the_bound(counted: Counted) -> None:
    pool: similar.Pool[int] = similar.Pool(0.85)
    for n in range(400):
        pool.add(n, "Do it", f"part{n} alone")
    for n in range(400):
        assert pool.best("Do it", f"other{n}") == (0, 1.0)  # the titles have no words: equal
    assert counted.calls <= 2 * 16 * 400
