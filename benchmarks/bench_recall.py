"""Wall time of `gitmem recall` at 10, 1,000 and 10,000 memories, cold and warm; the whole command,
as a user runs it.

    python benchmarks/bench_recall.py [--sizes 10,1000,10000] [--runs 7]

cold: no .git/gitmem/ at all (a fresh clone): every memory file is checked and indexed.
cold, store cache: the recall index is missing but `gitmem list` has run (its cache of checked
files is reused).
warm: the index is current; the median of several runs, over a rotation of queries.
For scale, the same machine's `grep -rli WORD .memory/memories` (the naive way an agent finds notes)
runs alongside, and the start-up of `gitmem --version`.

The goal (issue 7): warm recall at 10,000 memories within 2x of warm recall at 10.
"""

from __future__ import annotations

import argparse
import os
import random
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

QUERIES = (
    "how do we run the database migrations",
    "flaky test on the ci runner",
    "which package manager for the web app",
    "cache invalidation for the api",
    "deploy to production with a tag",
)

# fmt: off
WORDS = """
api web app test tests database migration migrations schema table column index query queries cache
redis postgres deploy release tag version build lint format style type types strict config setting
settings env secret secrets docker image container compose kubernetes helm chart ci pipeline
workflow job runner flaky retry timeout slow fast performance memory leak profile log logs logging
metric metrics trace tracing error errors exception handler retry queue worker task tasks celery
broker message event events stream kafka consumer producer batch cron schedule user users auth login
session token tokens password hash permission role admin account billing invoice payment price money
currency tax order orders cart checkout product catalog search filter sort page pagination cursor
frontend backend react component components hook hooks state store router route routes view views
template python typescript javascript node pnpm npm yarn vite webpack bundle module package
dependency dependencies lock upgrade downgrade pin pinned patch fix bug regression hotfix review
merge branch rebase commit squash revert main file files path paths directory folder upload download
image images cdn bucket storage s3 backup restore replica monitor alert alerts oncall incident
outage latency throughput load balancer nginx proxy tls certificate dns feature flag flags
experiment rollout rollback canary staging production local development sandbox fixture mock
""".split()  # noqa: SIM905
# fmt: on


def generate(root: Path, count: int, seed: int = 7) -> None:
    """``count`` valid memory files with varied text (a Zipf-like word distribution, as real
    notes have)."""
    rng = random.Random(seed)
    weights = [1 / (rank + 1) for rank in range(len(WORDS))]
    rng.shuffle(weights)
    directory = root / ".memory" / "memories"
    directory.mkdir(parents=True)
    kinds = ("convention", "decision", "pitfall", "preference", "fact")
    for number in range(count):
        title_words = rng.choices(WORDS, weights, k=rng.randint(4, 9))
        body_words = rng.choices(WORDS, weights, k=rng.randint(15, 60))
        tags = sorted(set(rng.choices(WORDS, weights, k=2)))
        scope = f'paths: ["{rng.choice(("api", "web", "infra"))}/**"]\n' if number % 4 == 0 else ""
        text = (
            f"id: m{number:05d}\n"
            f"title: {' '.join(title_words).capitalize()}\n"
            f"kind: {kinds[number % len(kinds)]}\n"
            "status: active\n"
            f"body: {' '.join(body_words).capitalize()}.\n"
            f"{scope}"
            f"tags: [{', '.join(tags)}]\n"
            "created: 2026-01-15\n"
        )
        (directory / f"m{number:05d}.yaml").write_text(text, encoding="utf-8")


def gitmem_command() -> list[str]:
    exe = shutil.which("gitmem", path=str(Path(sys.executable).parent))
    return [exe] if exe else [sys.executable, "-m", "gitmem"]


def timed(command: list[str], cwd: Path) -> float:
    start = time.perf_counter()
    done = subprocess.run(command, cwd=cwd, capture_output=True, check=False)
    elapsed = time.perf_counter() - start
    if done.returncode not in (0, 1):  # grep exits 1 when nothing matches
        raise SystemExit(
            f"{' '.join(command)} failed ({done.returncode}): {done.stderr.decode()[-400:]}"
        )
    return elapsed


def prepare(size: int, base: Path) -> dict[str, float]:
    """A repository of ``size`` memories; returns its cold timings and leaves the index warm."""
    root = base / f"repo-{size}"
    root.mkdir()
    subprocess.run(["git", "init", "-q", str(root)], check=True)
    generate(root, size)
    time.sleep(
        1.1
    )  # let the files age past the "racily clean" second, as files in a real checkout have
    gitmem = gitmem_command()
    cache = root / ".git" / "gitmem"

    shutil.rmtree(cache, ignore_errors=True)
    cold = timed([*gitmem, "recall", QUERIES[0], "--json"], root)

    timed([*gitmem, "list", "--json"], root)  # fills the store's cache
    for suffix in ("", "-wal", "-shm"):
        Path(f"{cache / 'recall.sqlite3'}{suffix}").unlink(missing_ok=True)
    cold_store = timed([*gitmem, "recall", QUERIES[0], "--json"], root)
    return {"cold": cold, "cold_store": cold_store}


def measure_warm(sizes: list[int], runs: int, base: Path) -> dict[int, dict[str, float]]:
    """Warm runs, interleaved across the sizes so that load on the machine falls on all of them
    alike."""
    gitmem = gitmem_command()
    warm: dict[int, list[float]] = {size: [] for size in sizes}
    grep: dict[int, list[float]] = {size: [] for size in sizes}
    for run in range(runs):
        query = QUERIES[run % len(QUERIES)]
        for size in sizes:
            root = base / f"repo-{size}"
            warm[size].append(timed([*gitmem, "recall", query, "--json"], root))
            grep[size].append(timed(["grep", "-rli", query.split()[-1], ".memory/memories"], root))
    return {
        size: {
            "warm": statistics.median(warm[size]),
            "warm_min": min(warm[size]),
            "grep": statistics.median(grep[size]),
        }
        for size in sizes
    }


def main() -> int:
    import fair  # (benchmarks/, this script's folder)

    fair.bytecode()
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument(
        "--sizes", default="10,1000,10000", help="comma-separated numbers of memories"
    )
    parser.add_argument(
        "--runs", type=int, default=11, help="warm runs per size (median and minimum shown)"
    )
    args = parser.parse_args()
    sizes = [int(s) for s in args.sizes.split(",")]
    os.environ.pop("GIT_DIR", None)
    with tempfile.TemporaryDirectory(prefix="gitmem-bench-recall-") as tmp:
        base = Path(tmp)
        startup = statistics.median(
            timed([*gitmem_command(), "--version"], base) for _ in range(args.runs)
        )
        results = {size: prepare(size, base) for size in sizes}
        for size, figures in measure_warm(sizes, args.runs, base).items():
            results[size].update(figures)
    reference = results[sizes[0]]["warm"]
    reference_min = results[sizes[0]]["warm_min"]
    print(
        f"gitmem recall, whole command wall time ({os.cpu_count()} CPUs, Python "
        f"{sys.version.split()[0]})"
    )
    print(f"gitmem --version start-up: {startup * 1000:.0f} ms")
    print()
    header = (
        f"{'memories':>9}  {'cold':>9}  {'cold, store cache':>17}  {'warm median':>11}  "
        f"{'warm min':>9}  {'median / @' + str(sizes[0]):>13}  {'min / @' + str(sizes[0]):>10}  "
        f"{'grep -rli':>9}  {'warm / grep':>11}"
    )
    print(header)
    for size in sizes:
        r = results[size]
        print(
            f"{size:>9,}  {r['cold'] * 1000:>7.0f}ms  {r['cold_store'] * 1000:>15.0f}ms  "
            f"{r['warm'] * 1000:>9.0f}ms  {r['warm_min'] * 1000:>7.0f}ms  "
            f"{r['warm'] / reference:>12.2f}x  {r['warm_min'] / reference_min:>9.2f}x  "
            f"{r['grep'] * 1000:>7.0f}ms  {r['warm'] / r['grep']:>10.1f}x"
        )
    largest = results[sizes[-1]]["warm"] / reference
    verdict = "met" if largest <= 2 else "NOT met"
    print()
    print(f"goal warm@{sizes[-1]:,} within 2x of warm@{sizes[0]}: {largest:.2f}x ({verdict})")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
