"""The pre-commit hook as git runs it: ``gitmem scan --staged``, a new process, on a typical commit
(four files of ordinary Python changed, 160 added lines, in a real git repository), beside the
interpreter's own start-up (``python -c pass``, and ``python -S -c pass`` without the site module)
and the peers installed on the same staged change (``detect-secrets-hook FILES``; ``betterleaks git
--staged``).

    python benchmarks/bench_hook_scan.py [--runs 15] [--base DIR] [--installed VENV]

The repository has run ``gitmem init --no-hooks`` and committed its files, as a user's has, so the
hook reads the scan settings of .memory/config.yaml (from their cache under .git/gitmem/ after the
first run).

--base DIR: also run another checkout's gitmem (``git archive main | tar -x -C DIR``) with
PYTHONPATH=DIR, in the same rotation, for a before/after from the same conditions.
--installed VENV: also run the ``gitmem`` of a virtual environment where gitmem is installed as
users install it (``python -m venv VENV && VENV/bin/pip install .``), and that environment's
``python -c pass``. pre-commit installs gitmem so, in an environment of its own. A development
install (``pip install -e .``) starts slower: its finder, loaded from a .pth file by every start of
that interpreter, imports pathlib.

Every command runs once per round, interleaved; each figure is the median over the rounds: wall
time, and CPU time (user + system of the process and its children, git included, from
``getrusage(RUSAGE_CHILDREN)``), which a loaded machine disturbs less than wall time.

The goal (issue 14): the hook under 60 ms for a typical commit.
"""

from __future__ import annotations

import argparse
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(Path(__file__).resolve().parent))

import fair  # noqa: E402
from bench_recall import gitmem_command  # noqa: E402

# Ordinary code to commit: gitmem's own modules (no secrets), and the lines each change appends.
BASE_FILES = ("commands/cli.py", "project.py", "memory/config.py", "errors.py", "globmatch.py")
CHANGED = {"commands/cli.py": 40, "project.py": 40, "memory/config.py": 40}
NEW_FILE = (
    "src/helpers.py",
    "scan/engine.py",
    40,
)  # a new file: the first 40 lines of another module


def measure(
    command: list[str], cwd: Path, env: dict[str, str] | None = None
) -> tuple[float, float, int]:
    """(wall seconds, CPU seconds, exit code) of one run."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    done = subprocess.run(command, cwd=cwd, capture_output=True, check=False, env=env)
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    if done.returncode not in (0, 1):
        raise SystemExit(
            f"{' '.join(command)} failed ({done.returncode}): {done.stderr.decode()[-400:]}"
        )
    return wall, cpu, done.returncode


def typical_commit(repo: Path) -> list[str]:
    """A repository with a base commit and a staged change to four files; the staged paths."""

    def git(*args: str) -> None:
        subprocess.run(["git", *args], cwd=repo, check=True, capture_output=True)

    repo.mkdir(parents=True)
    git("init", "-q")
    git("config", "user.email", "bench@example.invalid")
    git("config", "user.name", "bench")
    (repo / "src").mkdir()
    for name in BASE_FILES:
        shutil.copy(ROOT / "gitmem" / name, repo / "src" / Path(name).name)
    git("add", "-A")
    subprocess.run(
        [*gitmem_command(), "init", "--no-hooks"], cwd=repo, check=True, capture_output=True
    )
    git("add", "-A")
    git("commit", "-qm", "base")
    donor = (
        (ROOT / "gitmem" / "scan" / "engine.py")
        .read_text(encoding="utf-8")
        .splitlines(keepends=True)
    )
    for name, lines in CHANGED.items():
        with (repo / "src" / Path(name).name).open("a", encoding="utf-8") as out:
            out.writelines(donor[:lines])
    new, source, lines = NEW_FILE
    text = (ROOT / "gitmem" / source).read_text(encoding="utf-8").splitlines(keepends=True)[:lines]
    (repo / new).write_text("".join(text), encoding="utf-8")
    git("add", "-A")
    return [f"src/{Path(name).name}" for name in CHANGED] + [new]


def peers(staged: list[str]) -> dict[str, list[str]]:
    found: dict[str, list[str]] = {}
    bin_dir = str(Path(sys.executable).parent)
    detect = shutil.which("detect-secrets-hook", path=bin_dir) or shutil.which(
        "detect-secrets-hook"
    )
    if detect:
        found["detect-secrets-hook FILES (peer)"] = [detect, *staged]
    betterleaks = shutil.which("betterleaks", path=bin_dir) or shutil.which("betterleaks")
    if betterleaks:
        found["betterleaks git --staged (peer)"] = [
            betterleaks,
            "git",
            "--staged",
            "--no-banner",
            "--log-level",
            "error",
        ]
    return found


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=15)
    parser.add_argument(
        "--base", type=Path, help="another checkout of gitmem to run beside this one (before/after)"
    )
    parser.add_argument(
        "--installed",
        type=Path,
        help="a virtual environment where `pip install .` installed gitmem",
    )
    args = parser.parse_args()
    fair.bytecode(args.base)
    # Byte-compile first, as installing does (this environment may set PYTHONDONTWRITEBYTECODE).
    for package in (ROOT / "gitmem", *([args.base / "gitmem"] if args.base else [])):
        subprocess.run(
            [sys.executable, "-m", "compileall", "-q", str(package)],
            check=True,
            capture_output=True,
        )
    with tempfile.TemporaryDirectory() as tmp:
        repo = Path(tmp) / "repo"
        staged = typical_commit(repo)
        numstat = subprocess.run(
            ["git", "diff", "--cached", "--numstat"], cwd=repo, capture_output=True, check=True
        )
        added = sum(int(line.split()[0]) for line in numstat.stdout.decode().splitlines())
        cases: dict[str, tuple[list[str], dict[str, str] | None]] = {
            "python -S -c pass (interpreter, no site)": (
                [sys.executable, "-S", "-c", "pass"],
                None,
            ),
            "python -c pass (interpreter start-up)": ([sys.executable, "-c", "pass"], None),
            "gitmem scan --staged": ([*gitmem_command(), "scan", "--staged"], None),
        }
        if args.installed:
            python, gitmem = (str(args.installed / "bin" / name) for name in ("python", "gitmem"))
            cases["python -c pass, installed"] = ([python, "-c", "pass"], None)
            cases["gitmem scan --staged, installed"] = ([gitmem, "scan", "--staged"], None)
        if args.base:
            env = dict(os.environ, PYTHONPATH=str(args.base.resolve()))
            cases["gitmem scan --staged, --base checkout"] = (
                [sys.executable, "-m", "gitmem", "scan", "--staged"],
                env,
            )
        cases.update({name: (command, None) for name, command in peers(staged).items()})
        for command, env in cases.values():  # warm the file cache; check each runs
            measure(command, repo, env)
        walls: dict[str, list[float]] = {name: [] for name in cases}
        cpus: dict[str, list[float]] = {name: [] for name in cases}
        codes: dict[str, int] = {}
        for _ in range(args.runs):
            for name, (command, env) in cases.items():
                wall, cpu, code = measure(command, repo, env)
                walls[name].append(wall)
                cpus[name].append(cpu)
                codes[name] = code
        load = os.getloadavg()
        print(
            f"typical commit: {len(staged)} staged files, {added} added lines; {args.runs} "
            f"rounds, interleaved; load average {load[0]:.1f} / {load[1]:.1f} / "
            f"{load[2]:.1f} on {os.cpu_count()} CPUs"
        )
        print(f"  {'':<48} {'wall median (ms)':>17} {'CPU median (ms)':>16} {'exit':>5}")
        for name in cases:
            wall = statistics.median(walls[name]) * 1000
            cpu = statistics.median(cpus[name]) * 1000
            print(f"  {name:<48} {wall:>17.1f} {cpu:>16.1f} {codes[name]:>5}")
        floor = statistics.median(cpus["python -c pass (interpreter start-up)"])
        ours = statistics.median(cpus["gitmem scan --staged"])
        print(
            "gitmem scan --staged minus the interpreter's start-up: "
            f"{(ours - floor) * 1000:.1f} ms CPU"
        )
        if args.installed:
            floor = statistics.median(cpus["python -c pass, installed"])
            ours = statistics.median(cpus["gitmem scan --staged, installed"])
            print(
                "installed: the hook minus its interpreter's start-up: "
                f"{(ours - floor) * 1000:.1f} ms CPU"
            )


if __name__ == "__main__":
    main()
