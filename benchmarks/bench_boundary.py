"""Benchmark the inputs an attacker controls at gitmem's trust boundary, each beside a harmless peer
of the same size.

    python benchmarks/bench_boundary.py [--blob-mib 600] [--text-kib 1024] [--runs 3]

- `scan --staged` of a large text file that `.gitattributes` marks `-diff` (diffed a second time, as
  text) vs the same file unmarked;
- `sources add` of a pack holding one huge, well-compressed blob (refused from its size, never read)
  vs the same pack without it: seconds and the peak memory (max RSS of the gitmem process, children
  excluded);
- `sources add` from a git:// server that accepts and never answers (GITMEM_FETCH_TIMEOUT=2) vs a
  source path that does not exist;
- `validate` with every memory file behind a symbolic link inside the repository (each link
  resolved) vs plain files.
"""

from __future__ import annotations

import argparse
import os
import random
import resource
import signal
import socket
import statistics
import string
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable
from pathlib import Path

GITMEM = [sys.executable, "-m", "gitmem"]
ENV = {**os.environ, "GIT_AUTHOR_NAME": "b", "GIT_AUTHOR_EMAIL": "b@x", "GIT_COMMITTER_NAME": "b",
       "GIT_COMMITTER_EMAIL": "b@x", "GIT_CONFIG_NOSYSTEM": "1"}  # fmt: skip


def sh(
    cwd: Path, *args: str, env: dict[str, str] | None = None
) -> subprocess.CompletedProcess[bytes]:
    return subprocess.run(args, cwd=cwd, capture_output=True, env=env or ENV, check=False)


def git(cwd: Path, *args: str) -> None:
    done = sh(cwd, "git", *args)
    assert done.returncode == 0, done.stderr.decode()


def measure(
    cwd: Path, *args: str, env: dict[str, str] | None = None, cap: float = 600
) -> tuple[float, float, int]:
    """Seconds, max RSS in MiB of gitmem and the git it ran, exit code (one run, in a child that
    reports its children's rusage). After ``cap`` seconds the run is killed and reported as (cap, 0,
    -9).
    """
    probe = (
        "import resource, subprocess, sys, time; s = time.perf_counter(); "
        f"c = subprocess.run({[*GITMEM, *args]!r}, capture_output=True).returncode; "
        "t = time.perf_counter() - s; "
        "print(t, resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss, c)"
    )
    process = subprocess.Popen(
        [sys.executable, "-c", probe], cwd=cwd, stdout=subprocess.PIPE, text=True, env=env or ENV,
        start_new_session=True,
    )  # fmt: skip
    try:
        out, _ = process.communicate(timeout=cap)
    except subprocess.TimeoutExpired:
        os.killpg(process.pid, signal.SIGKILL)
        process.communicate()
        return cap, 0.0, -9
    seconds, rss, code = out.split()
    return float(seconds), int(rss) / 1024, int(code)


def best(runs: int, step: Callable[[], tuple[float, float, int]]) -> tuple[float, float, int]:
    results = [step() for _ in range(runs)]
    return min(r[0] for r in results), statistics.median(r[1] for r in results), results[-1][2]


def project(root: Path) -> Path:
    root.mkdir(parents=True)
    git(root, "init", "-q", "-b", "main")
    assert sh(root, *GITMEM, "init", "--no-hooks").returncode == 0
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", "init")
    return root


def bench_staged(base: Path, kib: int, runs: int) -> None:
    rng = random.Random(1)
    words = ["".join(rng.choices(string.ascii_lowercase, k=rng.randint(2, 9))) for _ in range(2000)]
    text = ""
    while len(text) < kib * 1024:
        text += " ".join(rng.choices(words, k=12)) + "\n"
    rows = []
    for marked in (True, False):
        repo = project(base / f"staged-{marked}")
        if marked:
            (repo / ".gitattributes").write_text("*.txt -diff\n")
        (repo / "notes.txt").write_text(text)
        git(repo, "add", "-A")
        seconds, rss, code = best(runs, lambda repo=repo: measure(repo, "scan", "--staged"))  # type: ignore[misc]
        rows.append((marked, seconds, rss, code))
    (_, marked_s, marked_rss, c1), (_, plain_s, plain_rss, c2) = rows
    print(f"scan --staged, {kib} KiB text file: marked -diff {marked_s:.3f} s "
          f"({marked_rss:.0f} MiB, exit {c1}) vs unmarked {plain_s:.3f} s ({plain_rss:.0f} "
          f"MiB, exit {c2}): {marked_s / plain_s:.2f}x")  # fmt: skip


def pack_repo(root: Path, blob_mib: int) -> Path:
    (root / ".memory/memories").mkdir(parents=True)
    git(root, "init", "-q", "-b", "main")
    (root / ".memory/memories/fine.yaml").write_text(
        "id: fine\ntitle: Fine\nkind: fact\nstatus: active\n"
    )
    if blob_mib:
        with open(root / ".memory/memories/huge.yaml", "wb") as handle:
            handle.write(b"id: huge\ntitle: ")
            chunk = b"x" * (1024 * 1024)
            for _ in range(blob_mib):
                handle.write(chunk)
            handle.write(b"\nkind: fact\nstatus: active\n")
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", "pack")
    return root


def bench_huge_blob(base: Path, blob_mib: int, runs: int) -> None:
    rows = []
    for size in (blob_mib, 0):
        pack = pack_repo(base / f"pack-{size}", size)
        pack_bytes = sum(
            f.stat().st_size for f in (pack / ".git/objects").rglob("*") if f.is_file()
        )

        def step(pack: Path = pack, size: int = size) -> tuple[float, float, int]:
            repo = base / f"consumer-{size}-{time.perf_counter_ns()}"
            project(repo)
            return measure(repo, "sources", "add", str(pack), "--rev", "main", "--name", "p")

        seconds, rss, code = best(runs, step)
        rows.append((size, pack_bytes, seconds, rss, code))
    (big, big_bytes, big_s, big_rss, c1), (_, _, small_s, small_rss, c2) = rows
    print(f"sources add, pack with a {big} MiB blob ({big_bytes / 1024:.0f} KiB of objects): "
          f"{big_s:.3f} s, max RSS {big_rss:.0f} MiB (exit {c1}) vs without it {small_s:.3f} s, "
          f"{small_rss:.0f} MiB (exit {c2})")  # fmt: skip


def bench_silent_server(base: Path) -> None:
    server = socket.socket()
    server.bind(("127.0.0.1", 0))
    server.listen(8)
    held: list[socket.socket] = []

    def accept() -> None:
        for _ in range(8):
            held.append(server.accept()[0])

    threading.Thread(target=accept, daemon=True).start()
    url = f"git://127.0.0.1:{server.getsockname()[1]}/pack.git"
    env = {**ENV, "GITMEM_FETCH_TIMEOUT": "2"}
    repo = project(base / "silent")
    silent_s, _, c1 = measure(
        repo, "sources", "add", url, "--rev", "v1", "--name", "s", env=env, cap=60
    )
    missing_s, _, c2 = measure(
        repo, "sources", "add", str(base / "nowhere.git"), "--rev", "v1", "--name", "m"
    )
    outcome = "still hanging: killed" if c1 == -9 else f"exit {c1}"
    print(f"sources add from a git:// server that never answers (timeout 2 s): {silent_s:.2f} s "
          f"({outcome}) vs a missing path {missing_s:.2f} s (exit {c2})")  # fmt: skip
    server.close()


def bench_linked_store(base: Path, count: int, runs: int) -> None:
    rows = []
    for linked in (True, False):
        repo = project(base / f"links-{linked}")
        memories = repo / ".memory/memories"
        real = repo / "real"
        real.mkdir()
        for number in range(count):
            text = f"id: m{number}\ntitle: Memory number {number}\nkind: fact\nstatus: active\n"
            if linked:
                (real / f"m{number}.yaml").write_text(text)
                (memories / f"m{number}.yaml").symlink_to(f"../../real/m{number}.yaml")
            else:
                (memories / f"m{number}.yaml").write_text(text)
        measure(repo, "validate")  # fill the cache
        seconds, _rss, code = best(runs, lambda repo=repo: measure(repo, "validate"))  # type: ignore[misc]
        rows.append((seconds, code))
    (linked_s, c1), (plain_s, c2) = rows
    print(f"validate (warm), {count} memories: every file a link inside the "
          f"repository {linked_s:.3f} s (exit {c1}) vs plain files {plain_s:.3f} s "
          f"(exit {c2}): {linked_s / plain_s:.2f}x")  # fmt: skip


def main() -> None:
    import fair  # (benchmarks/, this script's folder)

    fair.bytecode()
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--blob-mib", type=int, default=600)
    parser.add_argument("--text-kib", type=int, default=1024)
    parser.add_argument("--memories", type=int, default=2000)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument(
        "--source", help="run the gitmem package found in this folder (e.g. an older version)"
    )
    options = parser.parse_args()
    if options.source:
        ENV["PYTHONPATH"] = os.path.abspath(options.source)
    resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
    with tempfile.TemporaryDirectory(prefix="gitmem-bench-boundary-") as tmp:
        base = Path(tmp)
        os.environ["HOME"] = str(base / "home")
        ENV["HOME"] = str(base / "home")
        bench_staged(base, options.text_kib, options.runs)
        bench_huge_blob(base, options.blob_mib, options.runs)
        bench_silent_server(base)
        bench_linked_store(base, options.memories, options.runs)


if __name__ == "__main__":
    main()
