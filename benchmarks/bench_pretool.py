"""Wall time of the pre-tool hook (`gitmem hook pre-tool`, as Claude Code runs it: a new process
reading the hook JSON on stdin) at 10, 1,000 and 10,000 memories (one in a hundred with an
``enforce`` field), warm, beside the prompt hook (`gitmem hook prompt`) on the same store and the
interpreter's own start-up, in one rotation.

    python benchmarks/bench_pretool.py [--sizes 10,1000,10000] [--runs 9]

Cases: a shell command that breaks no memory (the common case: it passes silently), one that breaks
a memory's ``enforce`` (refused, the memory quoted), a write into .memory/ (the memory-layer gate:
no memory read), and a read (nothing to check: answered before the repository is opened). The goal
(issue 33): warm median <= 50 ms.
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
from bench_recall import gitmem_command
from hook_project import _fillers

from gitmem import yamlio


def build(root: Path, size: int) -> Path:
    root.mkdir(parents=True)
    subprocess.run(["git", "init", "-q", "-b", "main"], cwd=root, check=True)
    subprocess.run([*gitmem_command(), "init", "--no-hooks", "--target", "claude"], cwd=root,
                   check=True, capture_output=True)  # fmt: skip
    memories = root / ".memory" / "memories"
    _fillers(memories, size)
    for number in range(0, size, 100):  # one in a hundred forbids a command
        path = memories / f"filler-{number:04d}.yaml"
        data = yamlio.load_plain(path.read_text(encoding="utf-8"))
        data["enforce"] = {
            "commands": [f"deploy-{number} *", "npm install*" if number == 0 else f"tool{number}*"]
        }
        path.write_text(yamlio.dump(data), encoding="utf-8")
    return root


def timed(
    command: list[str], cwd: Path, stdin: bytes, env: dict[str, str] | None = None
) -> tuple[float, str]:
    """Wall seconds of one run (its CPU time, which a loaded machine disturbs less, is read from
    rusage)."""
    start = time.perf_counter()
    done = subprocess.run(command, cwd=cwd, input=stdin, capture_output=True, check=False, env=env)
    elapsed = time.perf_counter() - start
    if done.returncode != 0:
        raise SystemExit(
            f"{' '.join(command)} failed ({done.returncode}): {done.stderr.decode()[-400:]}"
        )
    return elapsed, done.stdout.decode()


def tool(where: Path, command: str, name: str = "Bash", key: str = "command") -> bytes:
    payload = {
        "session_id": "s",
        "cwd": str(where),
        "tool_name": name,
        "tool_input": {key: command},
    }
    return json.dumps(payload).encode()


Case = tuple[list[str], Path, bytes, dict[str, str] | None]


def pre_tool_cases(
    command: list[str], root: Path, env: dict[str, str] | None, tag: str
) -> dict[str, Case]:
    return {
        f"pre-tool{tag}: a command that breaks nothing": (
            command, root, tool(root, "cd web && pytest -q tests/test_app.py"), env
        ),
        f"pre-tool{tag}: a command that breaks a memory": (
            command, root, tool(root, "cd web && npm install left-pad"), env
        ),
        f"pre-tool{tag}: a write into .memory/": (
            command, root, tool(root, str(root / ".memory/memories/x.yaml"), "Write", "file_path"),
            env,
        ),
        f"pre-tool{tag}: a read": (
            command, root, tool(root, str(root / "README.md"), "Read", "file_path"), env
        ),
    }  # fmt: skip


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--sizes", default="10,1000,10000")
    parser.add_argument("--runs", type=int, default=9)
    parser.add_argument(
        "--base", type=Path, help="another checkout of gitmem to run beside this one"
    )
    args = parser.parse_args()
    fair.bytecode(args.base)
    gitmem = gitmem_command()
    base_env = dict(os.environ, PYTHONPATH=str(args.base.resolve())) if args.base else None
    sizes = [int(size) for size in args.sizes.split(",")]
    print(
        f"{args.runs} runs each, interleaved; load average {os.getloadavg()[0]:.1f} on "
        f"{os.cpu_count()} CPUs"
    )
    print(f"  {'':<52} {'wall median / p90 (ms)':>24} {'CPU median (ms)':>16}")
    with tempfile.TemporaryDirectory() as tmp:
        for size in sizes:
            root = build(Path(tmp) / f"repo-{size}", size)
            base_root = Path(tmp) / f"base-{size}"
            if args.base:
                shutil.copytree(root, base_root, symlinks=True)
            time.sleep(1.1)  # files older than the racily-clean second, as in a real checkout
            prompt = json.dumps(
                {"session_id": "s", "cwd": str(root), "prompt": hook_pairs.PAIRS[0][0]}
            ).encode()
            pre = [*gitmem, "hook", "pre-tool", "--client", "claude"]
            cases: dict[str, Case] = {
                "python -c pass (interpreter start-up)": (
                    [sys.executable, "-c", "pass"], root, b"", None
                ),
                **pre_tool_cases(pre, root, None, ""),
                "prompt hook, later prompt": (
                    [*gitmem, "hook", "prompt", "--client", "claude"], root, prompt, None
                ),
            }  # fmt: skip
            if args.base:
                # the same launcher: with PYTHONPATH it imports the base's gitmem
                cases.update(pre_tool_cases(pre, base_root, base_env, " (--base)"))
            for command, where, stdin, env in cases.values():  # warm: indexes built, sessions exist
                timed(command, where, stdin, env)
            for name, (command, where, stdin, env) in cases.items():
                if "breaks a memory" in name:
                    assert "filler-0000" in timed(command, where, stdin, env)[1], name
            times: dict[str, list[float]] = {name: [] for name in cases}
            cpu: dict[str, list[float]] = {name: [] for name in cases}
            for _ in range(args.runs):
                for name, (command, where, stdin, env) in cases.items():
                    before = resource.getrusage(resource.RUSAGE_CHILDREN)
                    times[name].append(timed(command, where, stdin, env)[0])
                    after = resource.getrusage(resource.RUSAGE_CHILDREN)
                    cpu[name].append(
                        after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime
                    )
            print(f"{size:,} memories")
            for name, values in times.items():
                ordered = sorted(values)
                p90 = ordered[min(len(ordered) - 1, int(0.9 * len(ordered)))]
                wall = f"{statistics.median(values) * 1000:9.1f} / {p90 * 1000:7.1f}"
                print(f"  {name:<52} {wall:>24} {statistics.median(cpu[name]) * 1000:16.1f}")


if __name__ == "__main__":
    main()
