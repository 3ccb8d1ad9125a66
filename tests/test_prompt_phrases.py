"""Two consecutive words of a prompt close together in a memory's title carry a match, whatever the rest of the
store makes of each word alone: in a store where "feature" and "flag" are everywhere, BM25 gives them next to no
weight, yet "add a feature flag" is about the memory titled "Gate unfinished features behind a flag"."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from gitmem.hook.run import run
from gitmem.recall.results import term_pairs
from tests.conftest import store_repo


def test_the_pairs_of_a_prompt_skip_stop_words_and_keep_order() -> None:
    assert term_pairs("Add a feature flag around the new search page") == [
        ("add", "feature"),
        ("feature", "flag"),
        ("flag", "around"),
        ("around", "new"),
        ("new", "search"),
        ("search", "page"),
    ]
    assert term_pairs("flag flag flag") == []
    assert len(term_pairs("word " * 10_000 + " ".join(f"w{n}" for n in range(100)))) == 16


def _common(number: int) -> dict[str, Any]:
    """A memory that holds "feature" and "flag" in its body, far apart (they are everywhere in this store)."""
    return {
        "id": f"common-{number:02d}",
        "title": f"Module {number} owns its own release notes",
        "body": f"Every feature of module {number} ships with docs; the review flag is set by the owner.",
    }


MEMORIES: list[dict[str, Any]] = [
    {
        "id": "feature-flags",
        "title": "Gate unfinished features behind a flag in flags.yaml",
        "body": "Read at start.",
    },
    {
        "id": "search-reindex",
        "title": "A new search index needs a full reindex",
        "body": "Run make reindex.",
    },
    {"id": "env-files", "title": "Add new settings to .env.example too", "body": "CI reads it."},
    {
        "id": "far-apart",
        "title": "The feature list in the docs and the CLI's flag table differ",
        "body": "Known.",
    },
    {
        "id": "ledger-stub",
        "title": "Start the ledger stub before the billing suite",
        "body": "make test-billing does it; the feature flag and release notes are not involved.",
        "words": ["owner review", "stub"],
    },
    *(_common(number) for number in range(40)),
]


@pytest.fixture(scope="module")
def repo(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return store_repo(tmp_path_factory.mktemp("phrases") / "repo", MEMORIES)


def _ask(root: Path, prompt: str, session: str) -> tuple[str, ...]:
    payload = {"session_id": session, "cwd": str(root), "prompt": prompt}
    return run("prompt", "claude", json.dumps(payload).encode()).keys


def test_a_pair_of_the_prompt_in_a_title_brings_the_memory(repo: Path) -> None:
    keys = _ask(repo, "Add a feature flag around the new search page", "pair")
    assert keys[:2] == (
        "search-reindex",
        "feature-flags",
    )  # each holds a pair in its title: before env-files
    assert "far-apart" not in keys  # both words in its title, but not close together


def test_a_pair_alone_is_not_enough_when_the_words_are_apart_in_the_prompt(repo: Path) -> None:
    # "feature" and "flag" far apart in the prompt are no pair of it: common words alone do not clear the bar
    assert "feature-flags" not in _ask(
        repo, "Which feature did the owner review, and who set the flag?", "apart"
    )


def test_a_phrase_of_the_askers_words_carries_a_match(repo: Path) -> None:
    # "owner" and "review" are in the body of 40 memories of this store, apart; one's words hold them as a phrase
    keys = _ask(repo, "Who does the owner review for this change?", "words")
    assert keys == ("ledger-stub",)
