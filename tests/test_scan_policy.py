"""How a text is scanned is decided in one place, ``gitmem.scan.policy`` (issue 34: the scan
policy moves out of the command layer): the hook, ``gitmem scan``, ``gitmem check`` and the guard's
check of allow entries read a file alike. A module that decides a depth, a kind or whether pragmas
count on its own fails here."""

from __future__ import annotations

import ast
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
        ("src/app.py", "src/app.py", "x = 1\n", Policy(DEFAULT_DECODE_DEPTH, True, CODE)),
        ("docs/notes.md", "docs/notes.md", "x\n", Policy(DEFAULT_DECODE_DEPTH, True, PROSE)),
        ("", "outside/run.log", "x\n", Policy(DEFAULT_DECODE_DEPTH, True, PROSE)),  # no repository
    ],
)
def test_the_policy_of_each_kind_of_file(
    relative: str, shown: str, text: str, expected: Policy
) -> None:
    assert policy(relative, shown, text) == expected


_DECIDED = ("decode", "pragmas", "kind")


def _policy_names(tree: ast.Module) -> set[str]:
    return {
        alias.asname or alias.name
        for node in ast.walk(tree)
        if isinstance(node, ast.ImportFrom) and node.module == "gitmem.scan.policy"
        for alias in node.names
    }


def test_no_module_decides_how_to_scan_on_its_own() -> None:
    """Outside gitmem/scan/, a call to ``scan_text`` or ``findings_in`` takes its depth, kind and
    pragmas from the policy module, or leaves them to the defaults (agent text: prose)."""
    own = []
    for path in PACKAGE.rglob("*.py"):
        if path.parent.name == "scan":
            continue
        tree = ast.parse(path.read_text(encoding="utf-8"))
        allowed = _policy_names(tree)
        for node in ast.walk(tree):
            if not isinstance(node, ast.Call):
                continue
            name = getattr(node.func, "id", None) or getattr(node.func, "attr", None)
            if name not in ("scan_text", "findings_in"):
                continue
            for keyword in node.keywords:
                used = {n.id for n in ast.walk(keyword.value) if isinstance(n, ast.Name)}
                if keyword.arg in _DECIDED and not used & allowed:
                    own.append(f"{path.relative_to(PACKAGE)}:{node.lineno} {keyword.arg}")
    assert own == []
