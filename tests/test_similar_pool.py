"""similar.Pool finds exactly what scoring every item would find, however the texts overlap."""

from __future__ import annotations

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
