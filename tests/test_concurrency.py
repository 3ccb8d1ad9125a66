"""Many `gitmem add` processes at the same moment: every memory lands, valid; none is lost or overwritten."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

from tests.conftest import Run, gitmem_command

PROCESSES = 24


def test_concurrent_adds_all_land(project: Path, run: Run) -> None:
    procs = [
        subprocess.Popen(
            [*gitmem_command(), "add", f"Concurrent memory number {i}", "--body", f"body {i}"],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        for i in range(PROCESSES)
    ]
    results = [(p.wait(timeout=120), p.stdout.read(), p.stderr.read()) for p in procs]  # type: ignore[union-attr]
    assert all(code == 0 for code, _, _ in results), [err for _, _, err in results if err]
    listed = json.loads(run("list", "--json").out)
    assert sorted(m["id"] for m in listed) == sorted(
        f"concurrent-memory-number-{i}" for i in range(PROCESSES)
    )
    assert {m["body"] for m in listed} == {f"body {i}" for i in range(PROCESSES)}
    assert run("validate").code == 0
    leftovers = [
        p.name for p in (project / ".memory" / "memories").iterdir() if p.name.startswith(".")
    ]
    assert leftovers == [".gitkeep"]


def test_concurrent_adds_of_the_same_id_keep_exactly_one(project: Path, run: Run) -> None:
    procs = [
        subprocess.Popen(
            [*gitmem_command(), "add", "Same title", "--body", f"writer {i}"],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        for i in range(12)
    ]
    codes = [p.wait(timeout=120) for p in procs]
    assert codes.count(0) == 1
    assert set(codes) == {0, 2}
    (memory,) = json.loads(run("list", "--json").out)
    winner = codes.index(0)
    assert memory["body"] == f"writer {winner}"
