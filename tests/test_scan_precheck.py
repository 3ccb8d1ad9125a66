"""A rule's precheck (``Rule.precheck``) is a necessary condition of its pattern: every match holds
it, so a window the engine skips for want of it held no match, and the findings are the same."""

from __future__ import annotations

import random
import string
from collections.abc import Iterator
from pathlib import Path

import pytest

from gitmem.scan.engine import _compiled, _prechecks
from gitmem.scan.rules import RULES, Rule, counter_examples_of, examples_of

from .scan_corpus import build

PRECHECKED = [rule for rule in RULES if rule.precheck]

# Pieces of assignments, options, tags, queries and calls, in every order: what the patterns'
# alternatives are made of, and what lies between them
PIECES = (
    "password", "api_key", "DB_PASSWORD", "Token", "x", "key", "value", "name", "define", "set ",
    "export ", "ENV ", "- ", "--", "-", "<", ">", "</", "?", "&", "(", "[", "{", ")", "]", "}", "=",
    ":", " = ", ": ", ":=", "=>", "<-", "?=", "||=", "::", ": &str", ": Final[str]", " string",
    '"', "'", "`", "r", "b", "str(", "String(", "Bearer ", "Basic ", ",", ";", "#", " # note",
    "\r", "\n", " ", "\t", '"name": ', '"value": ', "key=", ".", "@", "$",
)  # fmt: skip
VALUE = string.ascii_letters + string.digits


def _texts() -> Iterator[str]:
    for rule in RULES:
        yield from examples_of(rule)
        yield from counter_examples_of(rule)
    for corpus_file in build():
        yield "\n".join(line for entry in corpus_file.entries for line, _ in entry)
    yield from (path.read_text() for path in sorted(Path(__file__).parent.glob("test_scan*.py")))
    rng = random.Random(27)
    for _ in range(20_000):
        parts = rng.choices(PIECES, k=rng.randint(2, 9))
        parts.insert(rng.randint(0, len(parts)), "".join(rng.choices(VALUE, k=rng.randint(4, 12))))
        yield "".join(parts)


@pytest.mark.parametrize("rule", PRECHECKED, ids=lambda rule: rule.id)
def test_every_match_holds_its_rule_s_precheck(rule: Rule) -> None:
    pattern = _compiled(rule)
    precheck = _prechecks()[RULES.index(rule)]
    missed = []
    for text in _texts():
        position = 0
        while (match := pattern.search(text, position)) is not None:
            if precheck.search(text, match.start(), match.end()) is None:
                missed.append(match.group())
            position = match.start() + 1
    assert missed == []


def test_the_generic_precheck_passes_over_prose() -> None:
    """What makes it cheaper: a memory's lines of prose, which wake the rule with the word
    "secret", hold nothing it asks for."""
    (generic,) = (n for n, rule in enumerate(RULES) if rule.id == "generic-secret")
    lines = (
        "title: Production secrets live in the vault",
        "body: Deploy jobs inject them as environment variables; nothing secret goes in CI logs.",
        "tags: [secrets, deploy]",
        "  - rotate the signing secret every quarter",
    )
    assert [line for line in lines if _prechecks()[generic].search(line)] == []
