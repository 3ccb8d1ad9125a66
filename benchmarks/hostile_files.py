"""The file-system attacks of issue 22, for bench_hostile.py: each a gitmem process on a repository
with a committed link or a huge file, beside the same command on the benign repository (the peer),
as ratios of wall time and of the process's peak memory. Every run is a new process, as the hook and
the commands are; the figures are medians over the runs, hostile and benign interleaved.

    python benchmarks/bench_hostile.py [--runs 5]
    (these cases print after the memory-file ones)
"""

from __future__ import annotations

import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import hook_project

# Runs a command and reports the peak memory (KiB) of its process tree alone.
MEASURE = (
    "import resource, subprocess, sys\n"
    "done = subprocess.run(sys.argv[1:], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)\n"
    "print(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss, done.returncode)\n"
)
PROMPT = "The send-receipt celery task sometimes runs twice after a worker restart"
CAP = 1 << 30  # a run that reads /dev/zero to the end stops at 1 GiB of address space


def _cap() -> None:
    import resource

    resource.setrlimit(resource.RLIMIT_AS, (CAP, CAP))


def measure(args: list[str], cwd: Path, stdin: bytes = b"") -> tuple[float, int]:
    """(wall seconds, peak KiB) of one process."""
    start = time.perf_counter()
    done = subprocess.run(
        [sys.executable, "-c", MEASURE, *args],
        cwd=cwd,
        input=stdin,
        capture_output=True,
        preexec_fn=_cap,
        check=True,
    )
    seconds = time.perf_counter() - start
    return seconds, int(done.stdout.split()[0])


def gitmem() -> list[str]:
    exe = shutil.which("gitmem", path=str(Path(sys.executable).parent))
    return [exe] if exe else [sys.executable, "-m", "gitmem"]


def hook(root: Path, session: list[int]) -> tuple[float, int]:
    session[0] += 1  # a new session each run: the hook injects a memory once per session
    payload = {
        "session_id": f"s{session[0]}",
        "cwd": str(root),
        "hook_event_name": "UserPromptSubmit",
    }
    payload["prompt"] = PROMPT
    return measure(
        [*gitmem(), "hook", "prompt", "--client", "claude"], root, json.dumps(payload).encode()
    )


def git(root: Path, *args: str) -> None:
    subprocess.run(["git", *args], cwd=root, check=True, capture_output=True)


def copy(source: Path, target: Path) -> Path:
    subprocess.run(["cp", "-a", str(source), str(target)], check=True)
    return target


def link(root: Path, name: str, to: str | Path) -> None:
    path = root / name
    path.parent.mkdir(parents=True, exist_ok=True)
    if path.exists() or path.is_symlink():
        path.unlink()
    path.symlink_to(to)


def big(root: Path, name: str, size: int) -> None:
    line = b"An ordinary line of a very long file, repeated to make it large.\n"
    (root / name).parent.mkdir(parents=True, exist_ok=True)
    (root / name).write_bytes(line * (size // len(line)))


AT_LIMIT = "hook: .claude/CLAUDE.md of 4 MiB, at the limit (benign)"
BENIGN = (AT_LIMIT,)
Case = tuple[str, Callable[[], tuple[float, int]], Callable[[], tuple[float, int]]]


def cases(work: Path) -> list[Case]:
    """(name, hostile run, benign run) for each attack."""
    benign = hook_project.build(work / "hook")
    git(benign, "add", "-A")
    git(benign, "commit", "-qm", "memories")
    session = [0]
    out: list[Case] = []

    def prompt_case(name: str, make: Callable[[Path], None], peer: Path = benign) -> None:
        root = copy(benign, work / f"hook-{len(out)}")
        make(root)
        out.append((name, lambda: hook(root, session), lambda: hook(peer, session)))

    prompt_case(
        "hook: config.yaml -> /dev/zero", lambda r: link(r, ".memory/config.yaml", "/dev/zero")
    )
    prompt_case(
        "hook: .claude/CLAUDE.md -> /dev/zero", lambda r: link(r, ".claude/CLAUDE.md", "/dev/zero")
    )
    prompt_case("hook: config.yaml of 64 MiB", lambda r: big(r, ".memory/config.yaml", 64 << 20))
    at_limit = copy(benign, work / "hook-limit")
    big(
        at_limit, ".claude/CLAUDE.md", 4 << 20
    )  # the largest rules file the hook reads: the nearest benign size
    prompt_case(
        "hook: .claude/CLAUDE.md of 64 MiB (peer: 4 MiB)",
        lambda r: big(r, ".claude/CLAUDE.md", 64 << 20),
        at_limit,
    )
    prompt_case(AT_LIMIT, lambda r: big(r, ".claude/CLAUDE.md", 4 << 20))

    # compile: a memory scoped to .git/hooks/** (refused) beside one scoped to src/hooks/**
    # (written)
    for scope in ("git", "src"):
        root = work / f"compile-{scope}"
        root.mkdir()
        git(root, "init", "-q", "-b", "main")
        subprocess.run([*gitmem(), "init", "--no-hooks"], cwd=root, check=True, capture_output=True)
        where = ".git/hooks/**" if scope == "git" else "src/hooks/**"
        subprocess.run(
            [*gitmem(), "add", "Hooks print", "--path", where],
            cwd=root,
            check=True,
            capture_output=True,
        )
    out.append(
        (
            "compile: paths .git/hooks/** (refused)",
            lambda: measure([*gitmem(), "compile"], work / "compile-git"),
            lambda: measure([*gitmem(), "compile"], work / "compile-src"),
        )
    )

    # init --agent-hooks: a committed .claude -> $HOME/.claude (refused) beside a plain repository
    home = work / "home"
    (home / ".claude").mkdir(parents=True)
    for name in ("agents-link", "agents-plain"):
        root = work / name
        root.mkdir()
        git(root, "init", "-q", "-b", "main")
        subprocess.run(
            [*gitmem(), "init", "--no-hooks", "--target", "claude"],
            cwd=root,
            check=True,
            capture_output=True,
        )
    link(work / "agents-link", ".claude", home / ".claude")
    command = [*gitmem(), "init", "--agent-hooks", "--target", "claude"]
    plain = work / "agents-plain"

    def agents_plain() -> tuple[float, int]:
        shutil.rmtree(
            plain / ".claude", ignore_errors=True
        )  # set up afresh each run, as the first time
        return measure(command, plain)

    out.append(
        (
            "init --agent-hooks: .claude -> ~/.claude",
            lambda: measure(command, work / "agents-link"),
            agents_plain,
        )
    )
    return out


def run(runs: int) -> tuple[str, float]:
    """Print the table; return the worst ratio (of time or memory) and its case."""
    print()
    print(
        f"{'file-system attack (a new process each)':48} {'ms':>7} {'peer ms':>8} "
        f"{'x time':>7} {'x memory':>9}"
    )
    worst = ("", 0.0)
    with tempfile.TemporaryDirectory(prefix="gitmem-hostile-") as tmp:
        saved = dict(os.environ)
        (Path(tmp) / "home").mkdir()
        os.environ.update(
            {"HOME": str(Path(tmp) / "home"), "GITMEM_NO_FETCH": "1", "GIT_CONFIG_NOSYSTEM": "1"}
        )
        os.environ.setdefault("GIT_AUTHOR_NAME", "Bench")
        os.environ.setdefault("GIT_AUTHOR_EMAIL", "bench@example.com")
        os.environ.setdefault("GIT_COMMITTER_NAME", "Bench")
        os.environ.setdefault("GIT_COMMITTER_EMAIL", "bench@example.com")
        os.environ["PATH"] = str(Path(sys.executable).parent) + os.pathsep + os.environ["PATH"]
        try:
            for name, hostile, benign in cases(Path(tmp)):
                hostile(), benign()  # warm: caches, the index
                samples = [(hostile(), benign()) for _ in range(runs)]
                seconds = statistics.median(h[0] for h, _ in samples)
                peer = statistics.median(b[0] for _, b in samples)
                peak = statistics.median(h[1] for h, _ in samples)
                peer_peak = statistics.median(b[1] for _, b in samples)
                ratio = max(seconds / peer, peak / peer_peak)
                if (
                    name not in BENIGN
                ):  # a benign file at the limit against an ordinary one: the bound's own cost
                    worst = max(worst, (name, ratio), key=lambda item: item[1])
                print(
                    f"{name:48} {seconds * 1000:7.0f} {peer * 1000:8.0f} "
                    f"{seconds / peer:7.2f} {peak / peer_peak:9.2f}"
                )
        finally:
            os.environ.clear()
            os.environ.update(saved)
    print(f"worst file-system ratio (hostile against benign): {worst[0]}, {worst[1]:.2f}x its peer")
    return worst
