"""The Markdown line reader (gitmem/markdown.py) is linear, and tells lines apart as the regular expressions it
replaced did.

The readers of session logs and rules files used regular expressions with adjacent overlapping quantifiers: a 2.5 KB
heading took 12 s in ``journal add``, a 30 KB heading or frontmatter line 11.6 s in ``import``. Each hostile shape is
read at a base size and at four times it; the CPU time may grow at most 8x (a quadratic path grows 16x, a cubic one
64x). The equivalence tests compare the string-method readers with the old patterns on every short line over an
alphabet of the characters that matter (short, so the old patterns' backtracking is harmless there).
"""

from __future__ import annotations

import itertools
import re
from collections.abc import Callable

import pytest

from gitmem import markdown as md
from gitmem.importing import markdown as adopt_md
from gitmem.importing.rulesfiles import read_frontmatter
from gitmem.journal import markdown as journal_md
from tests.cpu import least_cpu


def _journal(text: str) -> object:
    return journal_md.parse("## Decisions\n" + text + "\n")


def _rules(text: str) -> object:
    return adopt_md.parse(["# Rules", "", *text.split("\n")])


def _front(text: str) -> object:
    return read_frontmatter(["---", *text.split("\n"), "---"])


CASES: dict[str, tuple[Callable[[str], object], Callable[[int], str]]] = {
    "journal: a heading of spaces": (_journal, lambda n: "# a" + " " * n + "b"),
    "journal: a heading of ' #' runs": (_journal, lambda n: "# " + " #" * (n // 2) + "x"),
    "journal: a heading of tabs and hashes": (_journal, lambda n: "##" + " \t#" * (n // 3) + "x"),
    "journal: a bold line of spaces": (_journal, lambda n: "**a" + " " * n + "b"),
    "journal: a bold line of '**' runs": (_journal, lambda n: "**" + "** " * (n // 3) + "x"),
    "import: a heading of spaces": (_rules, lambda n: "## a" + " " * n + "b"),
    "import: a heading of ' #' runs": (_rules, lambda n: "# " + " #" * (n // 2) + "x"),
    "import: an import line of many targets": (_rules, lambda n: "@a " * (n // 3) + "b"),
    "import: many comments on one line": (_rules, lambda n: "a<!---->" * (n // 8)),
    "frontmatter: a key's value of spaces": (_front, lambda n: "description: a" + " " * n + "b"),
    "frontmatter: a list item of spaces": (_front, lambda n: "globs:\n  - a" + " " * n + "b"),
    "frontmatter: a value of spaces before no comment": (
        _front,
        lambda n: "globs: a" + " " * n + "b#",
    ),
}


def _cpu(read: Callable[[str], object], text: str, runs: int = 3) -> float:
    return least_cpu(lambda: read(text), runs)


@pytest.mark.parametrize("name", sorted(CASES))
def test_four_times_the_input_costs_at_most_eight_times_the_work(name: str) -> None:
    read, make = CASES[name]
    small, large = make(3_000), make(12_000)
    seen = []
    for _ in range(
        3
    ):  # one measurement within the bound passes: a busy machine can slow one, a quadratic path not
        small_time, large_time = _cpu(read, small), _cpu(read, large)
        seen.append(f"{small_time:.4f}s -> {large_time:.4f}s")
        if large_time <= 8 * small_time + 0.02:
            return
    pytest.fail(f"{name}: {'; '.join(seen)} for 4x the input")


# The patterns the reader replaced: the reference its answers are compared with.
_ATX = re.compile(r"^ {0,3}(#{1,6})(?:[ \t]+(.*?))?[ \t]*(?:[ \t]#+[ \t]*)?$")
_SETEXT = re.compile(r"^ {0,3}(=+|-+)[ \t]*$")
_BULLET = re.compile(r"^([ \t]*)([-*+]|\d{1,9}[.)])(?:[ \t]+(.*))?$")
_CHECKBOX = re.compile(r"^\[[ xX]\][ \t]*")
_FENCE = re.compile(r"^([ \t]*)(`{3,}|~{3,})")
_BREAK = re.compile(r"^ {0,3}([-*_])(?:[ \t]*\1){2,}[ \t]*$")
_IMPORT = re.compile(r"^[ \t]*(?:[-*+][ \t]+)?(@[^\s@]+(?:[ \t]+@[^\s@]+)*)[ \t]*$")
_BOLD = re.compile(r"^ {0,3}(\*\*|__)(.+?)(\*\*|__)[ \t]*:?[ \t]*$")
_LABEL = re.compile(r"^ {0,3}([A-Za-z][A-Za-z -]{1,30}):[ \t]*$")
_KEY = re.compile(r"^([A-Za-z_][A-Za-z0-9_-]*)[ \t]*:(?:[ \t]+(.*?))?[ \t]*$")
_ITEM = re.compile(r"^[ \t]+-[ \t]*(.*?)[ \t]*$")


def _lines(alphabet: str, longest: int) -> list[str]:
    return [
        "".join(chars)
        for size in range(longest + 1)
        for chars in itertools.product(alphabet, repeat=size)
    ]


def test_headings_underlines_breaks_and_fences_as_the_old_patterns() -> None:
    for line in _lines(" \t#a=-*_`~", 5):
        atx = _ATX.match(line)
        assert md.heading(line) == ((len(atx.group(1)), atx.group(2) or "") if atx else None), repr(
            line
        )
        setext = _SETEXT.match(line)
        assert md.underline(line) == ((1 if setext.group(1)[0] == "=" else 2) if setext else 0), (
            repr(line)
        )
        assert md.is_break(line) == bool(_BREAK.match(line)), repr(line)
        fence = _FENCE.match(line)
        assert md.fence(line) == (fence.group(2) if fence else None), repr(line)


def test_bullets_and_imports_as_the_old_patterns() -> None:
    for line in _lines(" \t-*1.)[x]@a\u0663\xa0", 4):
        found = _BULLET.match(line)
        bullet = md.bullet(line)
        expected = found and (
            found.group(1),
            found.group(2),
            _CHECKBOX.sub("", (found.group(3) or "").strip()),
        )
        assert (bullet and (bullet.lead, bullet.marker, bullet.text)) == (expected or None), repr(
            line
        )
        if found and bullet:
            content = len(found.group(1).expandtabs(4)) + len(found.group(2)) + 1
            assert (bullet.indent, bullet.content) == (md.indent(found.group(1)), content), repr(
                line
            )
        imported = _IMPORT.match(line)
        assert md.imports(line) == (
            [t[1:] for t in imported.group(1).split()] if imported else None
        ), repr(line)


def test_bold_and_label_lines_as_the_old_patterns() -> None:
    for line in _lines(" \t*_a:-", 6):
        bold = _BOLD.match(line)
        assert md.bold_line(line) == (bold.group(2) if bold else None), repr(line)
        label = _LABEL.match(line)
        assert md.label_line(line) == (label.group(1) if label else None), repr(line)


def test_frontmatter_lines_as_the_old_patterns() -> None:
    for line in _lines(" \ta_-:#1", 5):
        key = _KEY.match(line)
        assert md.front_key(line) == ((key.group(1), key.group(2) or "") if key else None), repr(
            line
        )
        item = _ITEM.match(line)
        assert md.front_item(line) == (item.group(1) if item else None), repr(line)
        value = line.strip()
        assert md.without_comment(value) == re.sub(r"[ \t]+#.*$", "", value), repr(line)
