"""How a text is scanned is decided in one place, ``gitmem.scan.policy`` (issue 34: the scan
policy moves out of the command layer): the hook, ``gitmem scan``, ``gitmem check`` and the guard's
check of allow entries read a file alike. A module that decides a depth, a kind or whether pragmas
count on its own fails here."""

from __future__ import annotations

import ast
import random
import string
from pathlib import Path

import pytest

from gitmem.scan.engine import DEFAULT_DECODE_DEPTH
from gitmem.scan.kinds import CODE, PROSE
from gitmem.scan.policy import LOG, Policy, policy

PACKAGE = Path(__file__).resolve().parent.parent / "gitmem"
TRANSCRIPT = '{"type": "user", "sessionId": "s", "cwd": "/w", "message": {"role": "user"}}\n'


@pytest.mark.parametrize(
    ("relative", "shown", "text", "expected"),
    [
        (".memory/journal/2026-05.jsonl", "x", "{}", LOG),
        (".claude/projects/-w/abc.jsonl", "x", TRANSCRIPT, LOG),
        ("logs/session.jsonl", "x", TRANSCRIPT, LOG),  # a transcript by its content
        (".memory/memories/a.yaml", "x", "id: a\n", Policy(DEFAULT_DECODE_DEPTH, False, PROSE)),
        (
            "src/app.py",
            "src/app.py",
            "x = 1\n",
            Policy(DEFAULT_DECODE_DEPTH, True, CODE, records=True),
        ),
        (
            "docs/notes.md",
            "docs/notes.md",
            "x\n",
            Policy(DEFAULT_DECODE_DEPTH, True, PROSE, records=True),
        ),
        # no repository
        ("", "outside/run.log", "x\n", Policy(DEFAULT_DECODE_DEPTH, True, PROSE, records=True)),
        (
            "web/locales/he-IL.json",
            "x",
            "{}",
            Policy(DEFAULT_DECODE_DEPTH, True, CODE, True, True, True, True),
        ),
        (
            "",
            "i18n/fi.json",
            "{}",
            Policy(DEFAULT_DECODE_DEPTH, True, CODE, True, True, True, True),
        ),
        # a translation's code (it may set a translation service up, with its token) is code
        (
            "src/i18n/index.ts",
            "x",
            "",
            Policy(DEFAULT_DECODE_DEPTH, True, CODE, True, records=True),
        ),
        # Yarn's own release, committed by Yarn: secrets only
        (
            ".yarn/releases/yarn-3.2.1.cjs",
            "x",
            "",
            Policy(DEFAULT_DECODE_DEPTH, True, CODE, False, False, records=True),
        ),
        (
            "app/.yarn/plugins/p.cjs",
            "x",
            "",
            Policy(DEFAULT_DECODE_DEPTH, True, CODE, False, False, records=True),
        ),
        ("src/.yarn-releases.js", "x", "", Policy(DEFAULT_DECODE_DEPTH, True, CODE, records=True)),
    ],
)
def test_the_policy_of_each_kind_of_file(
    relative: str, shown: str, text: str, expected: Policy
) -> None:
    assert policy(relative, shown, text) == expected


_DECIDED = ("decode", "pragmas", "kind", "locale", "hidden", "messages", "records")


def test_no_module_decides_how_to_scan_on_its_own() -> None:
    """Only ``gitmem.scan.policy.scan`` turns a policy into a call to ``scan_text``: anywhere else a
    call to ``scan_text`` or ``findings_in`` passes no depth, kind, pragmas, translation or
    hidden-Unicode reading of its own (a file's come from its ``Policy``; agent text takes the
    defaults, prose). A reader that passed one would read a file as no other does (the guard's
    check of allow entries read translation files as code)."""
    own = []
    for path in PACKAGE.rglob("*.py"):
        if path.relative_to(PACKAGE).as_posix() == "scan/policy.py":
            continue
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if not isinstance(node, ast.Call):
                continue
            name = getattr(node.func, "id", None) or getattr(node.func, "attr", None)
            if name not in ("scan_text", "findings_in"):
                continue
            own += [
                f"{path.relative_to(PACKAGE)}:{node.lineno} {keyword.arg}"
                for keyword in node.keywords
                if keyword.arg in _DECIDED
            ]
    assert own == []


def test_every_reader_of_a_file_scans_it_by_the_same_policy() -> None:
    """A file's source, scanned as the hook and ``gitmem scan`` do, finds what its policy says: in
    Yarn's release, the secret and not the control characters; in a translation, not the marks
    right-to-left text needs."""
    from gitmem.scan.inputs import Settings, Source, findings_in

    token = "ghp_" + "".join(random.choices(string.ascii_letters + string.digits, k=36))
    release = f'var a="\x01\x1b[{{x}}m";var t="{token}";\n'
    found = findings_in(
        Source(".yarn/releases/y.cjs", release, root_relative=".yarn/releases/y.cjs"), Settings()
    )
    assert [f.rule for f in found] == ["github-pat"]
    found = findings_in(Source("src/y.js", release, root_relative="src/y.js"), Settings())
    assert sorted(f.rule for f in found) == ["github-pat", "hidden-unicode"]
    hebrew = '{"a": "\u05e9\u05dc\u05d5\u05dd \u200f(1)"}\n'
    assert (
        findings_in(
            Source("locales/he-IL.json", hebrew, root_relative="locales/he-IL.json"), Settings()
        )
        == []
    )
    assert findings_in(Source("src/he.json", hebrew, root_relative="src/he.json"), Settings()) != []
