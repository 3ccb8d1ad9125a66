"""Benchmark the store: CLI start-up, and `list --json` / `validate` on 10,000 memories, cold and
warm.

    python benchmarks/bench_store.py [--memories 10000] [--runs 5]

Start-up is compared with bare `python -c "import click"` (goal: within 1.5x). Cold runs start
without the store cache (.git/gitmem/store.json); warm runs reuse it (goal: `list` under 1 s at
10,000 memories).
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from datetime import date
from pathlib import Path

from gitmem.memory.model import KINDS, Memory
from gitmem.memory.store import Store
from gitmem.project import Project

GITMEM = [sys.executable, "-m", "gitmem"]
EXE = shutil.which("gitmem", path=str(Path(sys.executable).parent))


def timed(cmd: list[str], cwd: Path | None = None) -> float:
    start = time.perf_counter()
    subprocess.run(cmd, cwd=cwd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=False)
    return time.perf_counter() - start


def median(cmd: list[str], runs: int, cwd: Path | None = None, before: object = None) -> float:
    samples = []
    for _ in range(runs):
        if callable(before):
            before()
        samples.append(timed(cmd, cwd))
    return statistics.median(samples)


def make_store(root: Path, count: int) -> None:
    subprocess.run(["git", "init", "-q", str(root)], check=True)
    subprocess.run([*GITMEM, "init", "--no-hooks"], cwd=root, check=True, stdout=subprocess.DEVNULL)
    project = Project(root, root / ".git")
    store = Store(project)
    directory = project.memories_dir
    old = time.time() - 3600
    for i in range(count):
        memory = Memory(
            id=f"memory-{i:05d}",
            title=f"Remember fact number {i} about the build",
            kind=KINDS[i % len(KINDS)],
            status="active",
            body=f"Why: reason {i}.\nHow: run step {i} before deploying.",
            tags=("build", f"t{i % 50}"),
            paths=(f"pkg{i % 20}/**",) if i % 3 == 0 else (),
            created=date(2026, 1, 1),
        )
        path = directory / f"{memory.id}.yaml"
        path.write_text(store.render(memory), encoding="utf-8")
        os.utime(path, (old, old))


def main() -> None:
    import fair  # (benchmarks/, this script's folder)

    fair.bytecode()
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--memories", type=int, default=10_000)
    parser.add_argument("--runs", type=int, default=5)
    args = parser.parse_args()
    exe = [EXE] if EXE else GITMEM

    click_s = median([sys.executable, "-c", "import click"], args.runs * 2)
    version_s = median([*exe, "--version"], args.runs * 2)
    print(
        f"start-up: gitmem --version {version_s * 1000:.0f} ms, python -c 'import click' "
        f"{click_s * 1000:.0f} ms, ratio {version_s / click_s:.2f}x (goal <= 1.5x)"
    )

    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp) / "repo"
        t0 = time.perf_counter()
        make_store(root, args.memories)
        print(f"made {args.memories} memories in {time.perf_counter() - t0:.1f} s")
        cache = root / ".git" / "gitmem" / "store.json"

        def drop_cache() -> None:
            cache.unlink(missing_ok=True)

        for name, cmd in (
            ("list --json", [*exe, "list", "--json"]),
            ("validate", [*exe, "validate"]),
        ):
            cold = median(cmd, max(1, args.runs // 2), root, drop_cache)
            timed(cmd, root)  # make sure the cache is there
            warm = median(cmd, args.runs, root)
            print(
                f"{name:<12} {args.memories} memories: cold {cold:.2f} s, warm {warm:.2f} s"
                + (" (goal: warm < 1 s)" if name.startswith("list") else "")
            )


if __name__ == "__main__":
    main()
