"""Every benchmark script times gitmem from bytecode (benchmarks/fair.py): with PYTHONDONTWRITEBYTECODE set, a
checkout whose sources changed recompiles them in every process and looks slower than it is. A new script that
forgets it fails here."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

BENCHMARKS = Path(__file__).resolve().parent.parent / "benchmarks"
SCRIPTS = sorted(BENCHMARKS.glob("bench_*.py"))


def _calls_bytecode(main: ast.FunctionDef) -> bool:
    return any(
        isinstance(node, ast.Call)
        and isinstance(node.func, ast.Attribute)
        and node.func.attr == "bytecode"
        and isinstance(node.func.value, ast.Name)
        and node.func.value.id == "fair"
        for node in ast.walk(main)
    )


@pytest.mark.parametrize("script", SCRIPTS, ids=lambda path: path.stem)
def test_the_benchmark_times_gitmem_from_bytecode(script: Path) -> None:
    tree = ast.parse(script.read_text(encoding="utf-8"))
    mains = [
        node for node in tree.body if isinstance(node, ast.FunctionDef) and node.name == "main"
    ]
    assert mains, f"{script.name}: no main()"
    assert _calls_bytecode(mains[0]), f"{script.name}: main() does not call fair.bytecode()"


def test_the_check_fails_on_a_script_that_forgets_it() -> None:
    (main,) = ast.parse("def main() -> None:\n    run()\n").body
    assert isinstance(main, ast.FunctionDef) and not _calls_bytecode(main)
