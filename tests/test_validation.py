"""Every bad memory file gives one-line problems naming file, line and field; validate exits 1."""

from __future__ import annotations

import random
import string
from pathlib import Path

import pytest

from gitmem.memory.schema import MAX_FILE_BYTES
from tests.conftest import Run

GOOD = "id: {id}\ntitle: Use pnpm\nkind: convention\nstatus: active\n"
# Built at run time from a seeded generator: the repository never holds a real-looking token.
TOKEN = "ghp_" + "".join(random.Random(5).choices(string.ascii_letters + string.digits, k=36))

CASES: list[tuple[str, bytes, list[str]]] = [
    (
        "unknown-kind",
        b"id: unknown-kind\ntitle: x\nkind: foo\nstatus: active\n",
        [
            "3:1: kind: must be one of convention, decision, pitfall, preference, fact, not other text (3 characters)"
        ],
    ),
    (
        "unknown-field",
        b"id: unknown-field\ntitle: x\nkind: fact\nstatus: active\ntittle: y\n",
        ["5:1: tittle: unknown field (did you mean 'title'?)"],
    ),
    (
        "missing",
        b"id: missing\ntitle: x\n",
        ["1:1: kind: required field is missing", "1:1: status: required field is missing"],
    ),
    (
        "dup-key",
        b"id: dup-key\ntitle: x\ntitle: y\nkind: fact\nstatus: active\n",
        ["3:1: title: duplicate key"],
    ),
    (
        "anchor",
        b"id: anchor\ntitle: &t x\nkind: fact\nstatus: active\n",
        ["2:8: yaml: anchors and aliases are not allowed"],
    ),
    (
        "alias",
        b"id: alias\ntitle: x\nkind: fact\nstatus: active\ntags: [*a]\n",
        ["5:8: yaml: anchors and aliases are not allowed"],
    ),
    (
        "a-list",
        b"- id: a-list\n",
        ["1:1: yaml: the document is a list; expected a mapping of fields"],
    ),
    (
        "a-scalar",
        b"just text\n",
        ["1:1: yaml: the document is a single value; expected a mapping of fields"],
    ),
    ("empty", b"", ["1:1: yaml: the document is empty; expected a mapping of fields"]),
    (
        "two-docs",
        b"id: two-docs\n---\nid: again\n",
        ["2:1: yaml: expected a single document in the stream but found another document"],
    ),
    ("latin1", b"id: latin1\ntitle: caf\xe9\n", ["2:11: file: not UTF-8 text (byte 0xe9)"]),
    ("binary", b"id: binary\x00\n", ["1:11: file: binary content (NUL byte); expected UTF-8 text"]),
    (
        "bad-date",
        b"id: bad-date\ntitle: x\nkind: fact\nstatus: active\ncreated: 2026-02-30\n",
        ["5:1: created: is not a real date"],
    ),
    (
        "date-form",
        b"id: date-form\ntitle: x\nkind: fact\nstatus: active\nexpires: next week\n",
        ["5:1: expires: must be a date written YYYY-MM-DD"],
    ),
    (
        "wrong-id",
        GOOD.format(id="other").encode(),
        ["1:1: id: does not match the file name wrong-id.yaml"],
    ),
    (
        "bad-type",
        b"id: bad-type\ntitle: [a, b]\nkind: fact\nstatus: active\n",
        ["2:1: title: must be text, not a list"],
    ),
    (
        "two-lines",
        b'id: two-lines\ntitle: "a\\nb"\nkind: fact\nstatus: active\n',
        ["2:1: title: must be one non-empty line"],
    ),
    (
        "bad-path",
        b"id: bad-path\ntitle: x\nkind: fact\nstatus: active\npaths: [../etc/**]\n",
        [
            "5:9: paths[0]: must be a glob relative to the repository root, without '..' (e.g. web/**)"
        ],
    ),
    (
        "custom-tag",
        b"id: custom-tag\ntitle: !!python/object x\nkind: fact\nstatus: active\n",
        ["2:1: yaml: custom tags (!name) are not allowed"],
    ),
    (
        "zero-width",
        "id: zero-width\ntitle: Use\u200bpnpm\nkind: fact\nstatus: active\n".encode(),
        ["2:11: title: hidden Unicode character U+200B (ZERO WIDTH SPACE)"],
    ),
    (
        "bidi",
        "id: bidi\ntitle: x\nkind: fact\nstatus: active\nbody: a\u202eb\n".encode(),
        ["5:8: body: hidden Unicode character U+202E (RIGHT-TO-LEFT OVERRIDE)"],
    ),
    (
        "tag-chars",
        "id: tag-chars\ntitle: x\U000e0041\nkind: fact\nstatus: active\n".encode(),
        ["2:9: title: hidden Unicode character U+E0041 (TAG LATIN CAPITAL LETTER A)"],
    ),
    (
        "escaped",
        b'id: escaped\ntitle: "x\\u2066y"\nkind: fact\nstatus: active\n',
        ["2:1: title: escaped hidden Unicode character U+2066 (LEFT-TO-RIGHT ISOLATE)"],
    ),
    (
        "self-super",
        b"id: self-super\ntitle: x\nkind: fact\nstatus: active\nsupersedes: [self-super]\n",
        ["5:1: supersedes: a memory cannot supersede itself"],
    ),
    (
        "dangling",
        b"id: dangling\ntitle: x\nkind: fact\nstatus: active\nsupersedes: [gone]\n",
        ["5:14: supersedes[0]: no memory 'gone'"],
    ),
    (
        "backwards",
        b"id: backwards\ntitle: x\nkind: fact\nstatus: active\nevidence:\n  - path: a.py\n    lines: 9-3\n",
        ["7:5: evidence[0].lines: the range runs backwards"],
    ),
    (  # a superscript digit is a digit to str.isdigit but no number to int(): it crashed
        "superscript",
        "id: superscript\ntitle: x\nkind: fact\nstatus: active\nevidence:\n  - path: a.py\n"
        "    lines: \u00b2-1\n".encode(),
        ["7:5: evidence[0].lines: must be a line number or a range like 3-9"],
    ),
]


def _write(project: Path, name: str, raw: bytes) -> Path:
    path = project / ".memory" / "memories" / f"{name}.yaml"
    path.write_bytes(raw)
    return path


@pytest.mark.parametrize(("name", "raw", "expected"), CASES, ids=[c[0] for c in CASES])
def test_bad_file_is_reported_on_one_line_each(
    project: Path, run: Run, name: str, raw: bytes, expected: list[str]
) -> None:
    _write(project, name, raw)
    result = run("validate")
    assert result.code == 1
    prefix = f".memory/memories/{name}.yaml:"
    assert [line for line in result.err.splitlines() if line.startswith(prefix)] == [
        prefix + e for e in expected
    ]
    assert "Traceback" not in result.err


def test_secret_in_memory_file_is_reported_without_the_secret(project: Path, run: Run) -> None:
    _write(
        project,
        "leak",
        f"id: leak\ntitle: x\nkind: fact\nstatus: active\nbody: token {TOKEN}\n".encode(),
    )
    result = run("validate")
    assert result.code == 1
    assert (
        ".memory/memories/leak.yaml:5:13: body: possible secret (github-pat): ghp_… (40 chars); "
        in result.err
    )
    assert TOKEN not in result.err + result.out


def test_duplicate_ids_name_both_files(project: Path, run: Run) -> None:
    _write(project, "one", GOOD.format(id="two").encode())
    _write(project, "two", GOOD.format(id="two").encode())
    err = run("validate").err
    assert (
        ".memory/memories/one.yaml:1:1: id: duplicate id (also in .memory/memories/two.yaml)" in err
    )
    assert (
        ".memory/memories/two.yaml:1:1: id: duplicate id (also in .memory/memories/one.yaml)" in err
    )


def test_oversized_file(project: Path, run: Run) -> None:
    raw = GOOD.format(id="huge").encode() + b"# " + b"x" * MAX_FILE_BYTES + b"\n"
    _write(project, "huge", raw)
    err = run("validate").err
    assert (
        f".memory/memories/huge.yaml:1:1: file: too large ({len(raw)} bytes; the limit is 65536)"
        in err
    )


def test_all_problems_of_a_file_at_once(project: Path, run: Run) -> None:
    _write(
        project,
        "many",
        "id: many\ntitle: a\u200bb\nkind: nope\nstatus: gone\nreasons: 1\n".encode(),
    )
    lines = [line for line in run("validate").err.splitlines() if "many.yaml" in line]
    assert [line.split(": ")[1] for line in lines] == ["title", "kind", "status", "reasons"]


def test_not_a_memory_file(project: Path, run: Run) -> None:
    (project / ".memory" / "memories" / "notes.txt").write_text("hello\n")
    assert (
        ".memory/memories/notes.txt:1:1: file: not a memory file: memories are named ID.yaml"
        in run("validate").err
    )


def test_leading_bom_and_emoji_sequences_are_fine(project: Path, run: Run) -> None:
    family = "\U0001f468\u200d\U0001f469\u200d\U0001f467"
    scotland = "\U0001f3f4\U000e0067\U000e0062\U000e0073\U000e0063\U000e0074\U000e007f"
    text = f"\ufeffid: emoji\ntitle: Team {family} in {scotland} \u2764\ufe0f\nkind: fact\nstatus: active\n"
    _write(project, "emoji", text.encode())
    result = run("validate")
    assert result.code == 0, result.err


def test_validate_named_files_and_config(project: Path, run: Run) -> None:
    good = _write(project, "fine", GOOD.format(id="fine").encode())
    _write(project, "broken", b"id: broken\n")
    assert run("validate", str(good.relative_to(project))).code == 0
    (project / ".memory" / "config.yaml").write_text("version: 1\ntargets: [agents, vim]\n")
    result = run("validate", ".memory/config.yaml")
    assert result.code == 1
    assert result.err.splitlines()[0] == (
        ".memory/config.yaml:2:19: targets[1]: must be one of agents, claude, gemini, cursor, copilot, devin, "
        "cline, kiro, aider, amazonq, continue, zoo, junie, augment, trae, warp, antigravity, not other text (3 "
        "characters)"
    )


def test_validate_json(project: Path, run: Run) -> None:
    import json

    _write(project, "broken", b"id: broken\ntitle: x\nkind: fact\nstatus: nope\n")
    result = run("validate", "--json")
    assert result.code == 1
    assert json.loads(result.out)["problems"] == [
        {
            "path": ".memory/memories/broken.yaml",
            "line": 4,
            "column": 1,
            "field": "status",
            "message": "must be one of proposed, active, retired, not other text (4 characters)",
        }
    ]


def test_cache_never_serves_stale_data(project: Path, run: Run) -> None:
    path = _write(project, "cached", GOOD.format(id="cached").encode())
    import os

    old = 1_600_000_000
    os.utime(path, (old, old))  # old enough to be cached
    assert run("validate").code == 0
    assert run("validate").code == 0  # now served from the cache
    # Same size, same mtime: only the content (and ctime) changes.
    path.write_bytes(GOOD.format(id="cached").replace("active", "NOTIVE").encode())
    os.utime(path, (old, old))
    result = run("validate")
    assert result.code == 1
    assert (
        "status: must be one of proposed, active, retired, not other text (6 characters)"
        in result.err
    )
