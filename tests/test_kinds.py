"""Behaviour next to its name (issue 34): each kind of behaviour a tool record names is a Literal
in gitmem/tools.py, and one interpreter table holds exactly its names.

A misspelt kind in a record, or compared against one (``commands.style == "tmol"``), fails
``mypy --strict`` (the Literal; ``strict_equality``); a kind added to a Literal without its entry in
the table, or a table entry no Literal names, fails here.
"""

from __future__ import annotations

import ast
import subprocess
import sys
import typing
from pathlib import Path
from typing import Any, Literal

import pytest

from gitmem import clientstores, tools
from gitmem.commands import explain
from gitmem.commands import mcp as commands_mcp
from gitmem.compile import delivery
from gitmem.hook import pretool, run
from gitmem.importing import rulesfiles
from gitmem.init import mcp, remember
from gitmem.scan import transcripts

ROOT = Path(__file__).resolve().parent.parent

TABLES: list[tuple[Any, dict[str, Any], str]] = [
    (tools.Measure, tools.MEASURES, "tools.MEASURES"),
    (tools.ReadKind, tools.READS, "tools.READS"),
    (tools.ScopeKind, rulesfiles._SCOPES, "importing.rulesfiles._SCOPES"),
    (tools.HookOutput, run.ANSWERS, "hook.run.ANSWERS"),
    (tools.DenyShape, pretool.DENY, "hook.pretool.DENY"),
    (tools.CommandStyle, remember.TEXTS, "init.remember.TEXTS"),
    (tools.TranscriptLayout, transcripts.FINDERS, "scan.transcripts.FINDERS"),
    (tools.StoreLayout, clientstores.LAYOUTS, "clientstores.LAYOUTS"),
    (tools.McpShape, mcp.SHAPES, "init.mcp.SHAPES"),
    (delivery.Bridge, delivery.BRIDGES, "compile.delivery.BRIDGES"),
    (explain.Gate, explain.GATES, "commands.explain.GATES"),
    (mcp.Action, commands_mcp.REGISTERED, "commands.mcp.REGISTERED"),
]
# The fields (and variables) of these kinds are read only through their table: no code compares
# one to a name of its kind (``layout.bridge == "import"``, ``read.how == FALLBACK``), which would
# spread a kind's meaning again. A field name shared with another kind of value (``Removal.how ==
# "retired"``) is told apart by the names it is compared to.
READ_BY_TABLE_ONLY: dict[str, Any] = {
    "shape": tools.McpShape,
    "bridge": delivery.Bridge,
    "measure": tools.Measure,
    "scope": tools.ScopeKind,
    "output": tools.HookOutput,
    "deny": tools.DenyShape,
    "how": tools.ReadKind,
    "style": tools.CommandStyle,
    "layout": Literal[tools.TranscriptLayout, tools.StoreLayout],
}


@pytest.mark.parametrize(("kind", "table", "name"), TABLES, ids=[name for *_, name in TABLES])
def test_each_table_interprets_exactly_its_kinds(
    kind: Any, table: dict[str, Any], name: str
) -> None:
    names = set(typing.get_args(kind))
    assert set(table) == names, (
        f"{name}: missing {names - set(table)}, unknown {set(table) - names}"
    )


def _name(node: ast.expr) -> object:
    """The string ``node`` names: a constant, or a constant of gitmem.tools (``FALLBACK``)."""
    if isinstance(node, ast.Constant):
        return node.value
    return getattr(tools, node.id, None) if isinstance(node, ast.Name) else None


def _names(node: ast.expr, kinds: set[str]) -> bool:
    """Whether ``node`` names kinds of ``kinds``: one, or a tuple, list or set of them."""
    items = node.elts if isinstance(node, (ast.Tuple, ast.List, ast.Set)) else [node]
    return bool(items) and all(_name(item) in kinds for item in items)


def _field(node: ast.expr) -> str | None:
    """The field (``read.how``) or variable (``measure``) ``node`` reads."""
    if isinstance(node, ast.Attribute):
        return node.attr
    return node.id if isinstance(node, ast.Name) else None


def comparisons_by_name(source: str, fields: dict[str, Any]) -> list[str]:
    """Where ``source`` compares one of ``fields`` (an attribute or a variable of that name) to
    names of its kind (``fields[field]``, a Literal)."""
    found = []
    for node in ast.walk(ast.parse(source)):
        if not isinstance(node, ast.Compare):
            continue
        sides = [node.left, *node.comparators]
        kinds = {
            name
            for side in sides
            if (field := _field(side)) in fields
            for name in typing.get_args(fields[field])
        }
        if kinds and any(_names(side, kinds) for side in sides):
            found.append(f"{node.lineno}: {ast.unparse(node)}")
    return found


def test_the_kinds_with_a_whole_table_are_read_through_it() -> None:
    found = [
        f"{path.relative_to(ROOT)}:{line}"
        for path in sorted((ROOT / "gitmem").rglob("*.py"))
        for line in comparisons_by_name(path.read_text(encoding="utf-8"), READ_BY_TABLE_ONLY)
    ]
    assert found == []


def test_the_comparison_finder_finds_comparisons() -> None:
    source = (
        'if layout.bridge == "import" or "linked" != plan.bridge: pass\n'
        'ok = plan.bridge in ("private", "linked") or BRIDGES[plan.bridge].shared\n'
        'fine = layout.bridge == other.bridge or client.name == "x" or self.how == "retired"\n'
        "if read.how == FALLBACK or measure == 'lines': pass\n"
        "fine = read.how == OTHER or measure == 'metres'\n"
    )
    fields = {"bridge": delivery.Bridge, "how": tools.ReadKind, "measure": tools.Measure}
    assert [line.split(":")[0] for line in comparisons_by_name(source, fields)] == [
        "1",
        "1",
        "2",
        "4",
        "4",
    ]


def test_every_record_names_a_kind_its_literal_holds() -> None:
    """What mypy checks, at run time too (records built elsewhere, such as ``_replace``)."""
    fields = {
        (tools.Limit, "measure"): tools.Measure,
        (tools.Format, "scope"): tools.ScopeKind,
        (tools.Read, "how"): tools.ReadKind,
        (tools.Hooks, "output"): tools.HookOutput,
        (tools.Hooks, "deny"): tools.DenyShape,
        (tools.Commands, "style"): tools.CommandStyle,
        (tools.Mcp, "shape"): tools.McpShape,
        (tools.Transcripts, "layout"): tools.TranscriptLayout,
        (tools.MemoryStore, "layout"): tools.StoreLayout,
    }
    seen: list[Any] = []

    def walk(value: Any) -> None:
        if isinstance(value, tuple):
            if hasattr(value, "_fields"):
                seen.append(value)
            for item in value:
                walk(item)

    walk(tools.TOOLS)
    walk(tools.FORMATS)
    wrong = [
        f"{type(record).__name__}.{field} = {getattr(record, field)!r}"
        for record in seen
        for (cls, field), kind in fields.items()
        if isinstance(record, cls) and getattr(record, field) not in typing.get_args(kind)
    ]
    assert not wrong
    assert {cls for cls, _ in fields} <= {type(record) for record in seen}


def test_a_misspelt_kind_fails_mypy(tmp_path: Path) -> None:
    """The Literal is what catches a misspelling before any test runs: mypy refuses it in a record
    and in a comparison."""
    snippet = tmp_path / "misspelt.py"
    snippet.write_text(
        "from gitmem.tools import Commands, Hooks\n"
        'Commands(None, None, "tmol")\n'
        "def plain(hooks: Hooks) -> bool:\n"
        '    return hooks.output == "plane"\n',
        encoding="utf-8",
    )
    done = subprocess.run(
        [sys.executable, "-m", "mypy", "--strict", "--cache-dir", str(tmp_path / "cache"), snippet],
        capture_output=True,
        text=True,
        check=False,
        cwd=ROOT,
    )
    assert done.returncode == 1, done.stdout + done.stderr
    assert "incompatible type \"Literal['tmol']\"" in done.stdout
    assert "Non-overlapping equality check" in done.stdout
