"""Wall time of the prompt hook (`gitmem hook prompt`, as Claude Code runs it: a new process reading the hook JSON on
stdin) with 1,000 memories, warm; beside it, on the same machine in the same rotation, the interpreter's own start-up
(`python -c pass`), `gitmem --version` (the click path) and `gitmem recall` with the same words.

    python benchmarks/bench_hooks.py [--memories 1000] [--runs 15]

warm: the recall index is current (one prompt has run). "later prompt": a session that has had a prompt before;
"first prompt": a new session id (its state is created, and `git status` is recorded for the stop reminder).

The goal (issue 17): the prompt hook ≤ 100 ms as a whole process, warm, with 1,000 memories.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import hook_pairs
import hook_project
from bench_recall import gitmem_command


def timed(command: list[str], cwd: Path, stdin: bytes = b"") -> float:
    """Wall seconds of one run (the caller reads its CPU time, less sensitive to a loaded machine, from rusage)."""
    start = time.perf_counter()
    done = subprocess.run(command, cwd=cwd, input=stdin, capture_output=True, check=False)
    elapsed = time.perf_counter() - start
    if done.returncode != 0:
        raise SystemExit(f"{' '.join(command)} failed ({done.returncode}): {done.stderr.decode()[-400:]}")
    return elapsed


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--memories", type=int, default=1000)
    parser.add_argument("--runs", type=int, default=15)
    args = parser.parse_args()
    gitmem = gitmem_command()
    # Byte-compile gitmem first, as installing it does (PYTHONDONTWRITEBYTECODE would otherwise make every run
    # compile its sources again, which no installed copy does).
    package = Path(__file__).resolve().parent.parent / "gitmem"
    subprocess.run([sys.executable, "-m", "compileall", "-q", str(package)], check=True, capture_output=True)
    with tempfile.TemporaryDirectory() as tmp:
        root = hook_project.build(Path(tmp) / "repo", extra=max(0, args.memories - 46))
        count = len(list((root / ".memory" / "memories").glob("*.yaml")))
        time.sleep(1.1)  # files older than the racily-clean second, as in a real checkout

        def payload(prompt: str, session: str) -> bytes:
            return json.dumps(
                {"session_id": session, "cwd": str(root), "hook_event_name": "UserPromptSubmit", "prompt": prompt}
            ).encode()

        hook = [*gitmem, "hook", "prompt", "--client", "claude"]
        timed(hook, root, payload(hook_pairs.PAIRS[0][0], "warm-up"))  # builds the index
        timed(hook, root, payload(hook_pairs.PAIRS[0][0], "later"))
        cpu: dict[str, list[float]] = {}
        cases: dict[str, list[float]] = {
            "python -c pass (interpreter start-up)": [],
            "gitmem --version (click start-up)": [],
            "gitmem recall (same words)": [],
            "hook prompt, later prompt": [],
            "hook prompt, first prompt of a session": [],
            "hook prompt, unrelated prompt": [],
        }
        for run in range(args.runs):
            prompt = hook_pairs.PAIRS[run % len(hook_pairs.PAIRS)][0]
            unrelated = hook_pairs.UNRELATED[run % len(hook_pairs.UNRELATED)]
            measured = (
                ([sys.executable, "-c", "pass"], b""),
                ([*gitmem, "--version"], b""),
                ([*gitmem, "recall", prompt, "--json"], b""),
                (hook, payload(prompt, "later")),
                (hook, payload(prompt, f"new-{run}")),
                (hook, payload(unrelated, "later")),
            )
            for (name, times), (command, stdin) in zip(cases.items(), measured, strict=True):
                before = resource.getrusage(resource.RUSAGE_CHILDREN)
                times.append(timed(command, root, stdin))
                after = resource.getrusage(resource.RUSAGE_CHILDREN)
                used = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
                cpu.setdefault(name, []).append(used)
        load = os.getloadavg()[0]
        print(f"{count} memories, {args.runs} runs each, interleaved; load average {load:.1f} on {os.cpu_count()} CPUs")
        print(f"  {'':<42} {'wall median / p90 (ms)':>24} {'CPU median (ms)':>16}")
        for name, times in cases.items():
            ordered = sorted(times)
            p90 = ordered[min(len(ordered) - 1, int(0.9 * len(ordered)))]
            wall = f"{statistics.median(times) * 1000:7.1f} / {p90 * 1000:7.1f}"
            print(f"  {name:<42} {wall:>24} {statistics.median(cpu[name]) * 1000:16.1f}")
        floor = statistics.median(cases["python -c pass (interpreter start-up)"])
        hook_ms = statistics.median(cases["hook prompt, later prompt"])
        print(f"hook prompt minus the interpreter's start-up: {(hook_ms - floor) * 1000:.1f} ms")


if __name__ == "__main__":
    main()
