"""The store's size against the commands that read all of it, beside other checkouts, same run.

    python benchmarks/bench_scale.py --base fcc=/tmp/fcc3899 --base main=/tmp/main \
        [--sizes 10,1000,10000] [--runs 3]

For each size, each checkout gets its own repository of the same generated memories (the recall
set's, then fillers), initialised, compiled and committed by that checkout (targets agents, claude,
cursor, copilot). Then, in turn for every checkout (interleaved, so a loaded machine weighs on all
alike):

- ``compile, fresh clone``: `gitmem compile` in a new clone (no cache under .git/gitmem/);
- ``compile, nothing changed``: `gitmem compile` again;
- ``first prompt, fresh clone``: `gitmem hook prompt --client claude` in a new clone (the store
  and the recall index are built);
- ``warm prompt``: the prompt hook again, another prompt of the same session, once `gitmem recall`
  has finished what the first prompt's refresh left (its deadline) undone.

Every checkout runs as `python -m gitmem` with PYTHONPATH at its tree (``--base NAME=DIR``: ``git
archive REV | tar -x -C DIR``), from bytecode. Figures are medians (wall and CPU of the process and
its children); each base's column is its time over this checkout's (above 1.00: this checkout is
faster). Last, the warm prompt hook's growth from the smallest size to the largest, per checkout."""

from __future__ import annotations

import argparse
import json
import os
import random
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import fair
import hook_pairs
from bench_recall import WORDS

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests"))

import recall_set  # noqa: E402  (the test data, shared with recall's tests)

from gitmem import yamlio  # noqa: E402

TARGETS = ("agents", "claude", "cursor", "copilot")
CASES = (
    "compile, fresh clone",
    "compile, nothing changed",
    "first prompt, fresh clone",
    "warm prompt",
)
ENV = {
    **os.environ,
    "GIT_AUTHOR_NAME": "b",
    "GIT_AUTHOR_EMAIL": "b@x",
    "GIT_COMMITTER_NAME": "b",
    "GIT_COMMITTER_EMAIL": "b@x",
    "GIT_CONFIG_NOSYSTEM": "1",
    "GITMEM_NO_FETCH": "1",
}


def run(command: list[str], cwd: Path, tree: Path, stdin: bytes = b"") -> tuple[float, float]:
    """Wall and CPU seconds of one run of ``command`` with gitmem from ``tree``."""
    env = {**ENV, "PYTHONPATH": str(tree)}
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    done = subprocess.run(command, cwd=cwd, input=stdin, capture_output=True, env=env, check=False)
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if done.returncode not in (0, 1):
        raise SystemExit(f"{command} in {cwd} ({tree}): {done.stderr.decode()[-600:]}")
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return wall, cpu


def git(cwd: Path, *args: str) -> None:
    subprocess.run(["git", *args], cwd=cwd, check=True, capture_output=True, env=ENV)


def memories(count: int) -> dict[str, dict[str, object]]:
    """``count`` memories: the recall set's first, then fillers in a software project's words."""
    chosen = dict(list(recall_set.memory_files().items())[:count])
    rng = random.Random(7)
    weights = [1 / (rank + 1) for rank in range(len(WORDS))]
    rng.shuffle(weights)
    kinds = ("convention", "decision", "pitfall", "preference", "fact")
    for number in range(count - len(chosen)):
        chosen[f"filler-{number:05d}"] = {
            "id": f"filler-{number:05d}",
            "title": " ".join(rng.choices(WORDS, weights, k=rng.randint(4, 9))).capitalize(),
            "kind": kinds[number % len(kinds)],
            "status": "active",
            "body": " ".join(rng.choices(WORDS, weights, k=rng.randint(15, 60))).capitalize() + ".",
            "tags": sorted(set(rng.choices(WORDS, weights, k=2))),
            "created": "2026-01-15",
        }
    return chosen


def origin(where: Path, tree: Path, data: dict[str, dict[str, object]]) -> Path:
    """A committed repository of ``data``, initialised and compiled by the gitmem in ``tree``."""
    where.mkdir(parents=True)
    git(where, "init", "-q", "-b", "main")
    gitmem = [sys.executable, "-m", "gitmem"]
    targets = [arg for name in TARGETS for arg in ("--target", name)]
    run([*gitmem, "init", "--no-hooks", *targets], where, tree)
    folder = where / ".memory" / "memories"
    for memory_id, fields in data.items():
        (folder / f"{memory_id}.yaml").write_text(yamlio.dump(fields), encoding="utf-8")
    run([*gitmem, "compile"], where, tree)
    git(where, "add", "-A")
    git(where, "commit", "-q", "-m", "memories")
    return where


def payload(prompt: str, session: str, where: Path) -> bytes:
    event = {"session_id": session, "cwd": str(where), "hook_event_name": "UserPromptSubmit"}
    return json.dumps({**event, "prompt": prompt}).encode()


def measure_once(
    source: Path, scratch: Path, tree: Path, turn: int
) -> dict[str, tuple[float, float]]:
    """One run of every case for one checkout, each in its own new clone of ``source``."""
    gitmem = [sys.executable, "-m", "gitmem"]
    hook = [*gitmem, "hook", "prompt", "--client", "claude"]
    prompt = hook_pairs.PAIRS[turn % len(hook_pairs.PAIRS)][0]
    figures: dict[str, tuple[float, float]] = {}
    clone = scratch / f"compile-{turn}"
    git(scratch, "clone", "-q", str(source), clone.name)
    time.sleep(1.1)  # files older than the racily-clean second, as in a real checkout
    figures[CASES[0]] = run([*gitmem, "compile"], clone, tree)
    figures[CASES[1]] = run([*gitmem, "compile"], clone, tree)
    clone = scratch / f"hook-{turn}"
    git(scratch, "clone", "-q", str(source), clone.name)
    time.sleep(1.1)
    figures[CASES[2]] = run(hook, clone, tree, payload(prompt, "s", clone))
    run([*gitmem, "recall", "settle the index"], clone, tree)  # what the first prompt left undone
    later = hook_pairs.PAIRS[(turn + 1) % len(hook_pairs.PAIRS)][0]  # the same words are one prompt
    figures[CASES[3]] = run(hook, clone, tree, payload(later, "s", clone))
    return figures


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--sizes", default="10,1000,10000")
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--base", action="append", default=[], help="NAME=DIR, another checkout")
    args = parser.parse_args()
    trees = {"this": ROOT}
    for each in args.base:
        name, _, folder = each.partition("=")
        trees[name] = Path(folder).resolve()
    fair.bytecode(*trees.values())
    growth: dict[str, list[float]] = {name: [] for name in trees}
    for size in (int(part) for part in args.sizes.split(",")):
        data = memories(size)
        with tempfile.TemporaryDirectory() as tmp:
            sources = {name: origin(Path(tmp) / name, tree, data) for name, tree in trees.items()}
            wall: dict[tuple[str, str], list[float]] = {}
            cpu: dict[tuple[str, str], list[float]] = {}
            for turn in range(args.runs):
                for name, tree in trees.items():
                    scratch = Path(tmp) / f"{name}-runs"
                    scratch.mkdir(exist_ok=True)
                    for case, (seconds, used) in measure_once(
                        sources[name], scratch, tree, turn
                    ).items():
                        wall.setdefault((name, case), []).append(seconds)
                        cpu.setdefault((name, case), []).append(used)
            report(size, trees, wall, cpu)
            for name in trees:
                growth[name].append(statistics.median(wall[(name, CASES[3])]))
    load = os.getloadavg()
    print(f"load average {load[0]:.1f} / {load[1]:.1f} / {load[2]:.1f} on {os.cpu_count()} CPUs")
    for name, times in growth.items():
        print(f"warm prompt, largest size over smallest: {name} {times[-1] / times[0]:.2f}x")


def report(
    size: int,
    trees: dict[str, Path],
    wall: dict[tuple[str, str], list[float]],
    cpu: dict[tuple[str, str], list[float]],
) -> None:
    names = list(trees)
    print(f"\n{size} memories: wall median ms (CPU median ms); base / this")
    print(f"  {'':<28}" + "".join(f"{name:>22}" for name in names))
    for case in CASES:
        mine = statistics.median(wall[("this", case)])
        cells = []
        for name in names:
            seconds = statistics.median(wall[(name, case)])
            used = statistics.median(cpu[(name, case)])
            ratio = "" if name == "this" else f" {seconds / mine:4.2f}x"
            cells.append(f"{seconds * 1000:7.0f} ({used * 1000:5.0f}){ratio}")
        print(f"  {case:<28}" + "".join(f"{cell:>22}" for cell in cells))


if __name__ == "__main__":
    main()
