"""Right-to-left text in translation files, and names for every hidden character.

The directional marks right-to-left languages need (LRM U+200E, RLM U+200F, ALM U+061C) are ordinary text inside the
strings of a translation file (excalidraw's ``locales/he-IL.json`` has them); JSON has no comment to allow them with,
and each new translated string would be a new fingerprint. The overrides and isolates of Trojan Source reorder what a
reviewer sees and stay findings, in translation files too. Beside a right-to-left letter a mark does what it is
made for, in any file; away from right-to-left text, in code, a right-to-left mark turns ``1 + 2`` over, and stays a
finding.
"""

from __future__ import annotations

import json
import unicodedata
from pathlib import Path

import pytest

from gitmem.scan.kinds import is_locale
from gitmem.scan.unicode import _HIDDEN_RANGES, DIRECTIONAL_MARKS, char_name, find_hidden
from tests.conftest import Run, git

LRM, RLM, ALM = "\u200e", "\u200f", "\u061c"
OVERRIDES_AND_ISOLATES = [*range(0x202A, 0x202F), *range(0x2066, 0x206A)]


def hebrew_locale() -> str:
    return json.dumps(
        {
            "labels": {
                "paste": f"הדבק{LRM} (Ctrl+V)",
                "fontSize": f"{RLM}גודל גופן",
                "arabic": f"نص{ALM} عربي",
            }
        },
        ensure_ascii=False,
        indent=2,
    )


@pytest.mark.parametrize(
    "path",
    [
        "packages/excalidraw/locales/he-IL.json",
        "src/i18n/ar.yml",
        "App/he.lproj/Localizable.strings",
        "po/fa.po",
        "src/main/resources/messages_he_IL.properties",
        "lib/l10n/app_ar.arb",
    ],
)
def test_translation_files_are_recognised(path: str) -> None:
    assert is_locale(path)


@pytest.mark.parametrize(
    "path", ["src/app.ts", "data/db.json", "src/read-me.json", "package.json", "i18n.py"]
)
def test_other_files_are_not(path: str) -> None:
    assert not is_locale(path)


def test_marks_in_a_locale_file_pass_and_in_code_only_beside_right_to_left_letters(
    repo: Path, run: Run
) -> None:
    locale = repo / "packages" / "excalidraw" / "locales" / "he-IL.json"
    locale.parent.mkdir(parents=True)
    locale.write_text(hebrew_locale(), encoding="utf-8")
    code = repo / "src" / "labels.ts"
    code.parent.mkdir()
    code.write_text(
        f'export const paste = "Paste{LRM} (Ctrl+V)";\nconst{RLM} x = 1;\n'
        f'export const hebrew = "הדבק{LRM} (Ctrl+V)";\n',
        encoding="utf-8",
    )
    git(repo, "add", ".")
    for args in (("scan", "--json", "."), ("scan", "--staged", "--json")):
        result = run(*args)
        found = json.loads(result.out)["findings"]
        assert {(f["path"], f["line"]) for f in found} == {
            ("src/labels.ts", 1),
            ("src/labels.ts", 2),
        }, args


@pytest.mark.parametrize("codepoint", OVERRIDES_AND_ISOLATES)
def test_trojan_source_overrides_and_isolates_stay_findings_in_locale_files(codepoint: int) -> None:
    text = f'{{"label": "abc{chr(codepoint)}def"}}\n'
    assert [c.codepoint for c in find_hidden(text, marks=True)] == [codepoint]


def test_a_mark_outside_a_value_is_a_finding_even_in_a_locale_file() -> None:
    """A mark before the first quote, "=" or ":" of its line is not inside a string: a key, or code."""
    assert [c.codepoint for c in find_hidden(f'{RLM}"key": "value"\n', marks=True)] == [0x200F]
    assert find_hidden(f'"key": "va{RLM}lue"\n', marks=True) == []
    assert [c.codepoint for c in find_hidden(f'"key": "va{RLM}lue"\n')] == [
        0x200F
    ]  # not a locale file


@pytest.mark.parametrize(
    "text",
    [
        f"ug: ئۇيغۇرچە{LRM}",  # fastapi's docs/language_names.yml: after a right-to-left name
        f"{RLM}גודל גופן",
        f"label = 'نص{ALM} عربي'",
    ],
)
def test_a_mark_beside_a_right_to_left_letter_is_ordinary_text_in_any_file(text: str) -> None:
    assert find_hidden(text) == []
    assert find_hidden(text, colours=True) == []


@pytest.mark.parametrize(
    ("text", "found"),
    [
        (f"total = 1 {RLM}+ 2{RLM}", [0x200F, 0x200F]),  # shown as 2 + 1: nothing right-to-left
        (f"species: '{LRM}B. taurus'", [0x200E]),
        (f"א{RLM}{RLM}{RLM}", [0x200F, 0x200F]),  # a mark beside a mark is not beside a letter
        (RLM * 3, [0x200F] * 3),  # the marks are right-to-left characters, not letters
    ],
)
def test_a_mark_away_from_right_to_left_letters_is_a_finding(text: str, found: list[int]) -> None:
    assert [c.codepoint for c in find_hidden(text)] == found


def test_many_marks_on_many_lines_cost_one_look_per_line() -> None:
    text = "".join(f'"k{n}": "{RLM * 50}x"\n' for n in range(2000))
    assert find_hidden(text, marks=True) == []


def test_every_hidden_character_has_a_name() -> None:
    """VT is LINE TABULATION, not UNNAMED: controls have their aliases (which unicodedata.lookup knows)."""
    assert char_name(0x0B) == "LINE TABULATION"
    assert (
        char_name(0x1B) == "ESCAPE"
        and char_name(0x7F) == "DELETE"
        and char_name(0x85) == "NEXT LINE"
    )
    for low, high in _HIDDEN_RANGES:
        for codepoint in range(low, high + 1):
            name = char_name(codepoint)
            if unicodedata.category(chr(codepoint)) == "Cn":
                assert name == "UNASSIGNED", hex(codepoint)
            else:
                assert unicodedata.lookup(name) == chr(codepoint), (hex(codepoint), name)
    assert {char_name(cp) for cp in DIRECTIONAL_MARKS} == {
        "LEFT-TO-RIGHT MARK",
        "RIGHT-TO-LEFT MARK",
        "ARABIC LETTER MARK",
    }


def test_a_control_character_is_named_in_the_finding(repo: Path, run: Run) -> None:
    (repo / "a.txt").write_text("tab\x0bhere\n")
    result = run("scan", "a.txt")
    assert "U+000B (LINE TABULATION)" in result.out
