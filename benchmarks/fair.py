"""Timing gitmem as users run it: from bytecode. An installed package has its .pyc files written; a
checkout whose sources changed since its .pyc were written, run with PYTHONDONTWRITEBYTECODE set (as
some shells and agents set it), compiles every changed module on every run: 5 to 30 ms a process,
enough to make one checkout look slower than another that is no slower (measured while comparing two
checkouts' hooks). The timed benchmarks call ``bytecode`` first."""

from __future__ import annotations

import compileall
import os
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def bytecode(*trees: Path | None) -> None:
    """Let the processes the benchmark starts write bytecode, and write it now for this checkout's
    gitmem and each other tree's (a ``--base`` checkout)."""
    os.environ.pop("PYTHONDONTWRITEBYTECODE", None)
    for tree in (ROOT, *trees):
        if tree is not None and (tree / "gitmem").is_dir():
            compileall.compile_dir(tree / "gitmem", quiet=1)
