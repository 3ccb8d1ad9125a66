"""A terminal's colours in code people review (issue 32 point 7): test output kept as golden files
(crush's 353 ``.golden`` files, jj's snapshot strings) holds raw ESC [ ... m sequences, which the
hidden-Unicode guard reported by the hundred thousand. A colour or style that hides nothing passes
in code; what could hide text from a reviewer reading ``git diff`` through ``less -R`` (concealed
text, a colour drawn on its own background, cursor moves, titles, erasing) stays a finding, and
in prose (memories, documents, logs) every escape stays one. So do a manual page's overstrikes
(bold, underline) and the C1 controls of mojibake that stands for a character in sight."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from gitmem.scan import scan_text
from gitmem.scan.kinds import CODE, PROSE
from gitmem.scan.unicode import find_hidden
from tests.conftest import Run, git

ESC = "\x1b"
SHOWN = (
    f"{ESC}[31mred{ESC}[0m",
    f"{ESC}[1;32mbold green{ESC}[m",
    f"{ESC}[38;5;208morange{ESC}[39m",
    f"{ESC}[38;2;255;128;0mtrue colour{ESC}[0m",
    f"{ESC}[97;41mwhite on red{ESC}[0m",
    f"{ESC}[4;90mdim underline{ESC}[24m",
)
HIDING = (
    f"{ESC}[8mconcealed",  # conceal
    f"{ESC}[1;8mconcealed",
    f"{ESC}[30;40mblack on black",  # the text's colour on the same background
    f"{ESC}[97;107mwhite on white",
    f"{ESC}[38;5;1;48;5;1mred on red",
    f"{ESC}[31;48;5;1mred on the same red",  # one colour in two notations
    f"{ESC}[38;2;9;9;9;48;2;9;9;9mthe same true colour",
    f"{ESC}[38;5mcut short",  # an extended colour without its number
    f"{ESC}[2Jerased screen",  # not a colour: erasing, moving, titles
    f"{ESC}[3Aup three lines",
    f"{ESC}]0;title{chr(7)}",
    f"{ESC}[31",  # not closed
)


@pytest.mark.parametrize("text", SHOWN)
def test_a_colour_that_hides_nothing_passes_in_code_only(text: str) -> None:
    assert find_hidden(text, file=True, colours=True) == []
    assert [c.codepoint for c in find_hidden(text, file=True)].count(0x1B) == text.count(ESC)
    assert not [f for f in scan_text(text, hidden=True, kind=CODE) if f.rule == "hidden-unicode"]
    assert [f for f in scan_text(text, hidden=True, kind=PROSE) if f.rule == "hidden-unicode"]


@pytest.mark.parametrize("text", HIDING)
def test_what_can_hide_text_stays_a_finding_in_code(text: str) -> None:
    assert [c.codepoint for c in find_hidden(text, file=True, colours=True)][:1] == [0x1B]
    assert [f for f in scan_text(text, hidden=True, kind=CODE) if f.rule == "hidden-unicode"]


def test_other_hidden_characters_beside_a_colour_are_still_found() -> None:
    text = f"{ESC}[31mred{ESC}[0m and a zero\u200bwidth space, {ESC}[8mand concealed"
    found = [(c.column, c.codepoint) for c in find_hidden(text, file=True, colours=True)]
    assert found == [(text.index("\u200b") + 1, 0x200B), (text.rindex(ESC) + 1, 0x1B)]


def test_the_hook_passes_golden_output_and_stops_a_concealed_line(repo: Path, run: Run) -> None:
    golden = repo / "testdata" / "render.golden"
    golden.parent.mkdir()
    golden.write_text("".join(f"{line}\n" for line in SHOWN) * 50)
    memory = repo / ".memory" / "memories"
    memory.mkdir(parents=True)
    git(repo, "add", "testdata")
    assert run("scan", "--staged").code == 0
    golden.write_text(golden.read_text() + HIDING[0] + "\n")
    notes = repo / "notes.md"  # a document is prose: its colours are findings
    notes.write_text(SHOWN[0] + "\n")
    git(repo, "add", "testdata", "notes.md")
    result = run("scan", "--staged", "--json")
    assert result.code == 1
    found = json.loads(result.out)["findings"]
    places = sorted((f["path"], f["line"]) for f in found if f["rule"] == "hidden-unicode")
    concealed = ("testdata/render.golden", len(SHOWN) * 50 + 1)
    assert places == [("notes.md", 1), ("notes.md", 1), concealed]  # the colour and the reset


def test_a_manual_pages_bold_and_underline_pass_in_code_only() -> None:
    """``nroff`` makes a manual page's bold with a character, a BACKSPACE and the character again,
    and its underline with an underscore first (bat's ``git-commit.man``: 393 of them). Over
    another character, a BACKSPACE hides the first: a finding, as in prose."""
    page = "N\bNA\bAM\bME\bE\n       _\bf_\bi_\bl_\be\n"
    assert find_hidden(page, file=True, colours=True) == []
    assert len(find_hidden(page, file=True)) == page.count("\b")
    for hiding in ("a\bb", "N\b\bN", "N\b"):
        assert [c.codepoint for c in find_hidden(hiding, colours=True)][:1] == [0x08], hiding


def test_mojibake_of_a_character_in_sight_passes_in_code_only() -> None:
    """A notebook's output read with the wrong encoding shows UTF-8 as Latin-1: ``✗`` becomes
    ``â``, U+009C, U+0097 (anthropic-cookbook's Pinecone notebook: 346 C1 controls). Each garble
    stands for a character a reader sees, in sight itself. Mojibake of a hidden character (a tag
    character, a zero-width space), or a C1 control alone, stays a finding."""
    shown = "7B \u2717 13B \u2713 \u2014 it\u2019s \U0001f600".encode().decode("latin-1")
    assert find_hidden(shown, file=True, colours=True) == []
    assert find_hidden(shown, file=True) != []  # in prose, each is a finding
    for hidden in ("\U000e0041", "\u200b", "\u202e"):
        garbled = f"a {hidden} b".encode().decode("latin-1")
        assert find_hidden(garbled, colours=True) != [], repr(garbled)
    assert len(find_hidden("a\x85b \x9c", colours=True)) == 2
