"""The code stays ruff-clean and passes mypy --strict: part of the one test command CI runs."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def _tool(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", *args], cwd=ROOT, capture_output=True, text=True, check=False)


def test_ruff() -> None:
    done = _tool("ruff", "check", "gitmem", "tests", "benchmarks")
    assert done.returncode == 0, done.stdout + done.stderr
    done = _tool("ruff", "format", "--check", "gitmem", "tests", "benchmarks")
    assert done.returncode == 0, done.stdout + done.stderr


def test_mypy_strict() -> None:
    done = _tool("mypy")
    assert done.returncode == 0, done.stdout + done.stderr


def test_cli_import_stays_lean() -> None:
    """The hook runs gitmem on every commit: importing the CLI must not pull in the heavy dependencies."""
    code = (
        "import sys, gitmem.cli; print(sorted(m for m in ('git', 'jsonschema', 'ruamel', 'mcp', 'sqlite3') "
        "if m in sys.modules))"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert done.stdout.strip() == "[]"
