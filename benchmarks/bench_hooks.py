"""Wall time of the prompt hook (`gitmem hook prompt`, as Claude Code runs it: a new process reading
the hook JSON on stdin) with 1,000 memories, warm; beside it, on the same machine in the same
rotation, the interpreter's own start-up (`python -c pass`), `gitmem --version` (the click path) and
`gitmem recall` with the same words.

    python benchmarks/bench_hooks.py [--memories 1000] [--runs 15] [--base DIR]

--base DIR: also run another checkout's hook (``git archive main | tar -x -C DIR``) with
PYTHONPATH=DIR, in the same rotation, for a before/after from the same conditions. CPU time is user
+ system of the process and its children (``getrusage(RUSAGE_CHILDREN)``), which a loaded machine
disturbs less than wall time.

warm: the recall index is current (one prompt has run). "later prompt": a session that has had a
prompt before; "first prompt": a new session id (its state is created, and `git status` is recorded
for the stop reminder).

The goal (issue 17): the prompt hook ≤ 100 ms as a whole process, warm, with 1,000 memories.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import fair
import hook_pairs
import hook_project
from bench_recall import gitmem_command


def timed(
    command: list[str], cwd: Path, stdin: bytes = b"", env: dict[str, str] | None = None
) -> float:
    """Wall seconds of one run (the caller reads its CPU time, less sensitive to a loaded
    machine, from rusage)."""
    start = time.perf_counter()
    done = subprocess.run(command, cwd=cwd, input=stdin, capture_output=True, check=False, env=env)
    elapsed = time.perf_counter() - start
    if done.returncode != 0:
        raise SystemExit(
            f"{' '.join(command)} failed ({done.returncode}): {done.stderr.decode()[-400:]}"
        )
    return elapsed


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--memories", type=int, default=1000)
    parser.add_argument("--runs", type=int, default=15)
    parser.add_argument(
        "--base", type=Path, help="another checkout of gitmem to run beside this one (before/after)"
    )
    args = parser.parse_args()
    fair.bytecode(args.base)
    gitmem = gitmem_command()
    # Byte-compile gitmem first, as installing it does (PYTHONDONTWRITEBYTECODE would otherwise make
    # every run compile its sources again, which no installed copy does).
    package = Path(__file__).resolve().parent.parent / "gitmem"
    for each in (package, *([args.base / "gitmem"] if args.base else [])):
        subprocess.run(
            [sys.executable, "-m", "compileall", "-q", str(each)], check=True, capture_output=True
        )
    base_env = dict(os.environ, PYTHONPATH=str(args.base.resolve())) if args.base else None
    with tempfile.TemporaryDirectory() as tmp:
        root = hook_project.build(Path(tmp) / "repo", extra=max(0, args.memories - 46))
        count = len(list((root / ".memory" / "memories").glob("*.yaml")))
        time.sleep(1.1)  # files older than the racily-clean second, as in a real checkout

        # The --base checkout gets its own copy of the repository: the recall index is keyed on the
        # checking code, so two versions sharing one would rebuild it for each other on every run.
        base_root = Path(tmp) / "base-repo"
        if args.base:
            shutil.copytree(root, base_root, symlinks=True)

        def payload(prompt: str, session: str, where: Path = root) -> bytes:
            return json.dumps(
                {
                    "session_id": session,
                    "cwd": str(where),
                    "hook_event_name": "UserPromptSubmit",
                    "prompt": prompt,
                }
            ).encode()

        hook = [*gitmem, "hook", "prompt", "--client", "claude"]
        timed(hook, root, payload(hook_pairs.PAIRS[0][0], "warm-up"))  # builds the index
        timed(hook, root, payload(hook_pairs.PAIRS[0][0], "later"))
        cpu: dict[str, list[float]] = {}
        cases: dict[str, list[float]] = {
            "python -S -c pass (interpreter, no site)": [],
            "python -c pass (interpreter start-up)": [],
            "gitmem --version (click start-up)": [],
            "gitmem recall (same words)": [],
            "hook prompt, later prompt": [],
            "hook prompt, first prompt of a session": [],
            "hook prompt, unrelated prompt": [],
        }
        base_hook = [sys.executable, "-m", "gitmem", "hook", "prompt", "--client", "claude"]
        if args.base:
            cases["hook prompt, later prompt, --base checkout"] = []
            timed(
                base_hook,
                base_root,
                payload(hook_pairs.PAIRS[0][0], "warm-up", base_root),
                base_env,
            )
            timed(
                base_hook, base_root, payload(hook_pairs.PAIRS[0][0], "later", base_root), base_env
            )
        for run in range(args.runs):
            prompt = hook_pairs.PAIRS[run % len(hook_pairs.PAIRS)][0]
            unrelated = hook_pairs.UNRELATED[run % len(hook_pairs.UNRELATED)]
            measured: tuple[tuple[list[str], bytes, dict[str, str] | None], ...] = (
                ([sys.executable, "-S", "-c", "pass"], b"", None),
                ([sys.executable, "-c", "pass"], b"", None),
                ([*gitmem, "--version"], b"", None),
                ([*gitmem, "recall", prompt, "--json"], b"", None),
                (hook, payload(prompt, "later"), None),
                (hook, payload(prompt, f"new-{run}"), None),
                (hook, payload(unrelated, "later"), None),
            )
            if args.base:
                measured += ((base_hook, payload(prompt, "later", base_root), base_env),)
            for (name, times), (command, stdin, env) in zip(cases.items(), measured, strict=True):
                before = resource.getrusage(resource.RUSAGE_CHILDREN)
                times.append(timed(command, base_root if env else root, stdin, env))
                after = resource.getrusage(resource.RUSAGE_CHILDREN)
                used = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
                cpu.setdefault(name, []).append(used)
        load = os.getloadavg()
        print(
            f"{count} memories, {args.runs} runs each, interleaved; load average {load[0]:.1f} / "
            f"{load[1]:.1f} / {load[2]:.1f} on {os.cpu_count()} CPUs"
        )
        print(f"  {'':<44} {'wall median / p90 (ms)':>24} {'CPU median (ms)':>16}")
        for name, times in cases.items():
            ordered = sorted(times)
            p90 = ordered[min(len(ordered) - 1, int(0.9 * len(ordered)))]
            wall = f"{statistics.median(times) * 1000:7.1f} / {p90 * 1000:7.1f}"
            print(f"  {name:<44} {wall:>24} {statistics.median(cpu[name]) * 1000:16.1f}")
        floor = statistics.median(cases["python -c pass (interpreter start-up)"])
        hook_ms = statistics.median(cases["hook prompt, later prompt"])
        print(
            f"hook prompt minus the interpreter's start-up: {(hook_ms - floor) * 1000:.1f} ms wall"
        )
        cpu_floor = statistics.median(cpu["python -c pass (interpreter start-up)"])
        cpu_hook = statistics.median(cpu["hook prompt, later prompt"])
        print(
            "hook prompt minus the interpreter's start-up: "
            f"{(cpu_hook - cpu_floor) * 1000:.1f} ms CPU"
        )


if __name__ == "__main__":
    main()
