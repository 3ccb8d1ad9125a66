"""A value ends where a markdown code span closes (round 42).

Docs quote a command or a line of config between backticks: ``Run `curl -u deploy:…` first.`` curl's ``-u`` value,
its ``-H`` header, JDBC's password, a query string's value and a connection string's password took the closing
backtick in as part of the value. A stand-in (``admin:password```) was then no stand-in and was reported; a real
value was reported with a character it does not hold. And ``export SERVICE_TOKEN=…`` between backticks was not found
at all: the value had to be followed by a space or the end of the line.

For every rule (a rule added later is covered by its examples): each example is cut just after the value the rule
finds in it and written as an open code span; where that is found, closing the span must find the same value.
"""

from __future__ import annotations

import pytest

from gitmem.scan import scan_text
from gitmem.scan.kinds import PROSE
from gitmem.scan.rules import RULES, Rule, examples_of


def _spans(text: str, rule: Rule) -> set[tuple[int, int]]:
    return {(f.start, f.end) for f in scan_text(text, kind=PROSE, decode=0) if f.rule == rule.id}


def _open_spans(rule: Rule) -> list[tuple[str, tuple[int, int]]]:
    """Each example of ``rule`` cut after a value it finds, its last line opening a code span, where that is
    still found; with the value's place in it."""
    spans = []
    for example in examples_of(rule):
        for start, end in _spans(example, rule):
            cut = example[:end]
            line = cut.rfind("\n") + 1
            if start < line or "`" in cut[line:]:
                continue  # a value over lines (a key block) is no code span's
            opened = cut[:line] + "`" + cut[line:]
            place = (start + 1, end + 1)
            if place in _spans(opened, rule):
                spans.append((opened, place))
    return spans


@pytest.mark.parametrize("rule", RULES, ids=lambda rule: rule.id)
def test_a_value_ends_where_a_code_span_closes(rule: Rule) -> None:
    for opened, place in _open_spans(rule):
        assert _spans(opened + "`", rule) == {place}, opened[-40:]


def test_the_rules_that_read_a_value_to_a_space_are_covered() -> None:
    """The test above reaches the rules whose values once took the backtick: their examples end in the value."""
    covered = {rule.id for rule in RULES if _open_spans(rule)}
    assert {"curl-basic-auth", "curl-auth-header", "jdbc-password", "generic-secret"} <= covered


def test_a_stand_in_between_backticks_says_nothing() -> None:
    for line in (
        "Run `curl -u admin:password https://x.org` to check.",
        "Log in with `curl -u admin:password`.",
        "Set `jdbc:postgresql://db/app?user=app&password=changeme`.",
        "Use `curl -H 'Authorization: Bearer $TOKEN'`.",
    ):
        assert scan_text(line, kind=PROSE) == [], line
