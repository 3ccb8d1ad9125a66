"""Benchmark `gitmem compile` on 100, 1,000 and 10,000 memories, every target configured.

For each size, in a fresh git repository with generated memories (a tenth path-scoped, varied kinds,
priorities and bodies; the default budget of 2,000 tokens per target):

- ``list cold`` / ``list warm``: `gitmem list --json` without and with the store's cache of checked
  files: the floor, reading (and on a cold run validating) the memories and nothing else;
- ``compile cold``: the first `gitmem compile` (no store cache, no rules files yet);
- ``compile warm``: `gitmem compile` again with nothing changed (what the pre-commit hook pays on
  most commits);
- ``check warm``: `gitmem compile --check` with nothing changed (what CI pays);
- ``one edit``: `gitmem compile` after one memory changed.

Each figure is the median of several runs of the installed `gitmem` as a separate process. The
script prints the times, compile's cost over the bare store read, and how the cost grows from one
size to the next (linear growth is 10x per 10x memories). Goal: compile warm under 1 s at 10,000
memories.

The peer, side by side (``--ruler PATH``): ruler (npm ``@intellectronica/ruler``), given the same
rules as one Markdown file each in ``.ruler/`` (title as heading, body below), applying them to the
same tools (AGENTS.md, Claude, Gemini, Cursor, Copilot, Windsurf, Cline, Kiro, aider), without MCP,
.gitignore edits or backups. ``ruler cold`` is its first run in a fresh directory, ``ruler again`` a
second one (ruler keeps no cache: it always reads and writes everything). Goal: gitmem's compile
cold no slower than ruler cold at every size.

Run: python benchmarks/bench_compile.py [--sizes 100,1000,10000] [--repeat 5] [--ruler PATH]
  (npm install --prefix /tmp/ruler @intellectronica/ruler; PATH: /tmp/ruler/node_modules/.bin/ruler)
"""

from __future__ import annotations

import argparse
import itertools
import os
import random
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

TARGETS = ["agents", "claude", "gemini", "cursor", "copilot", "windsurf", "cline", "kiro", "aider"]
KINDS = ["convention", "decision", "pitfall", "preference", "fact"]
PRIORITIES = ["high", "normal", "normal", "normal", "low"]
SCOPES = [["web/**"], ["api/**"], ["**/*.py"], ["docs/**", "*.md"], ["packages/ui/**"]]
WORDS = (
    "the",
    "build",
    "uses",
    "pnpm",
    "workspaces",
    "and",
    "every",
    "package",
    "pins",
    "its",
    "node",
)


def gitmem_command() -> list[str]:
    exe = shutil.which("gitmem", path=str(Path(sys.executable).parent))
    return [exe] if exe else [sys.executable, "-m", "gitmem"]


def env() -> dict[str, str]:
    out = dict(os.environ)
    for name in ("GIT_DIR", "GIT_INDEX_FILE", "GIT_WORK_TREE"):
        out.pop(name, None)
    out.update(
        GIT_AUTHOR_NAME="bench",
        GIT_AUTHOR_EMAIL="b@example.com",
        GIT_CONFIG_NOSYSTEM="1",
        NO_COLOR="1",
    )
    return out


def make_project(root: Path, count: int, seed: int = 7) -> None:
    rng = random.Random(seed)
    subprocess.run(["git", "init", "-q", "-b", "main"], cwd=root, check=True)
    memories = root / ".memory" / "memories"
    memories.mkdir(parents=True)
    (root / ".memory" / "journal").mkdir()
    (root / ".memory" / "config.yaml").write_text(
        "version: 1\ntargets: [" + ", ".join(TARGETS) + "]\n", encoding="utf-8"
    )
    for i in range(count):
        memory_id = f"memory-{i:05d}"
        lines = [
            f"id: {memory_id}",
            f"title: {' '.join(rng.choices(WORDS, k=rng.randint(4, 10))).capitalize()}",
            f"kind: {rng.choice(KINDS)}",
            "status: active",
        ]
        priority = rng.choice(PRIORITIES)
        if priority != "normal":
            lines.append(f"priority: {priority}")
        if rng.random() < 0.6:
            body = " ".join(rng.choices(WORDS, k=rng.randint(10, 60)))
            lines.append("body: |\n  " + body)
        if rng.random() < 0.1:
            lines.append("paths: [" + ", ".join(f'"{g}"' for g in rng.choice(SCOPES)) + "]")
        lines.append(f"created: 2026-{rng.randint(1, 12):02d}-{rng.randint(1, 28):02d}")
        (memories / f"{memory_id}.yaml").write_text("\n".join(lines) + "\n", encoding="utf-8")


def timed(root: Path, *args: str, expect: int = 0) -> float:
    start = time.perf_counter()
    done = subprocess.run(
        [*gitmem_command(), *args], cwd=root, capture_output=True, text=True, env=env(), check=False
    )
    elapsed = time.perf_counter() - start
    if done.returncode != expect:
        raise SystemExit(f"gitmem {' '.join(args)} exited {done.returncode}: {done.stderr[-2000:]}")
    return elapsed


def median(root: Path, repeat: int, *args: str) -> float:
    return statistics.median(timed(root, *args) for _ in range(repeat))


def bench(count: int, repeat: int) -> dict[str, float]:
    with tempfile.TemporaryDirectory(prefix="gitmem-bench-") as tmp:
        root = Path(tmp)
        make_project(root, count)
        time.sleep(
            1.1
        )  # the store caches only files at least a second old (racily clean files are re-read)
        figures = {"list cold": timed(root, "list", "--json")}
        shutil.rmtree(root / ".git" / "gitmem")  # cold again: no cache of checked memory files
        figures["compile cold"] = timed(root, "compile")
        figures["list warm"] = median(root, repeat, "list", "--json")
        figures["compile warm"] = median(root, repeat, "compile")
        figures["check warm"] = median(root, repeat, "compile", "--check")
        edits = []
        for i in range(repeat):
            path = root / ".memory" / "memories" / f"memory-{i:05d}.yaml"
            path.write_text(
                path.read_text(encoding="utf-8").replace(
                    "status: active", "status: active\ntags: [x]"
                )
            )
            edits.append(timed(root, "compile"))
        figures["one edit"] = statistics.median(edits)
        return figures


RULER_AGENTS = "agentsmd,claude,gemini-cli,cursor,copilot,windsurf,cline,kiro,aider"


def make_ruler_project(root: Path, memories: Path) -> None:
    """The same rules as ruler reads them: one Markdown file per memory in .ruler/."""
    from gitmem import yamlio

    subprocess.run(["git", "init", "-q", "-b", "main"], cwd=root, check=True)
    rules = root / ".ruler"
    rules.mkdir()
    (rules / "ruler.toml").write_text("[gitignore]\nenabled = false\n", encoding="utf-8")
    for path in sorted(memories.iterdir()):
        data = yamlio.load(path.read_text(encoding="utf-8")).data
        text = f"## {data['title']}\n\n{data.get('body', '')}".rstrip() + "\n"
        (rules / f"{path.stem}.md").write_text(text, encoding="utf-8")


def ruler_times(ruler: str, count: int, repeat: int) -> dict[str, float]:
    with (
        tempfile.TemporaryDirectory(prefix="gitmem-bench-") as tmp,
        tempfile.TemporaryDirectory() as peer,
    ):
        make_project(Path(tmp), count)
        root = Path(peer)
        make_ruler_project(root, Path(tmp) / ".memory" / "memories")
        command = [ruler, "apply", "--agents", RULER_AGENTS, "--no-mcp", "--no-gitignore",
                   "--no-backup", "--local-only", "--no-skills",
                   "--project-root", str(root)]  # fmt: skip
        first = _time(command, quiet=True)
        again = statistics.median(_time(command, quiet=True) for _ in range(repeat))
        return {"ruler cold": first, "ruler again": again}


def main() -> int:
    import fair  # (benchmarks/, this script's folder)

    fair.bytecode()
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--sizes", default="100,1000,10000")
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--ruler", help="the ruler executable, to run side by side")
    options = parser.parse_args()
    sizes = [int(size) for size in options.sizes.split(",")]
    start = time.perf_counter()
    subprocess.run([sys.executable, "-c", "import click"], check=True)
    python_click = statistics.median(
        _time([sys.executable, "-c", "import click"]) for _ in range(options.repeat)
    )
    print(f"python -c 'import click' (start-up floor): {python_click * 1000:.0f} ms")
    columns = ["list cold", "compile cold", "list warm", "compile warm", "check warm", "one edit"]
    print(
        f"\n{'memories':>9}  "
        + "  ".join(f"{c:>13}" for c in columns)
        + "  compile/list cold  warm"
    )
    results = {}
    for size in sizes:
        figures = bench(size, options.repeat)
        results[size] = figures
        cells = "  ".join(f"{figures[c] * 1000:>10.0f} ms" for c in columns)
        cold = figures["compile cold"] / figures["list cold"]
        warm = figures["compile warm"] / figures["list warm"]
        print(f"{size:>9,}  {cells}  {cold:>16.2f}x  {warm:.2f}x")
        if options.ruler:
            peer = ruler_times(options.ruler, size, options.repeat)
            figures.update(peer)
            print(
                f"{'':>9}  ruler cold {peer['ruler cold'] * 1000:.0f} ms, ruler again "
                f"{peer['ruler again'] * 1000:.0f} ms; gitmem compile cold / ruler cold = "
                f"{figures['compile cold'] / peer['ruler cold']:.2f}x, compile warm / ruler again "
                f"= {figures['compile warm'] / peer['ruler again']:.2f}x"
            )
    print("\ngrowth from one size to the next (10x memories; linear would be 10.0x):")
    for smaller, larger in itertools.pairwise(sizes):
        for column in ("compile cold", "compile warm"):
            net_small = results[smaller][column] - python_click
            net_large = results[larger][column] - python_click
            wall = results[larger][column] / results[smaller][column]
            net = net_large / max(net_small, 1e-6)
            print(
                f"  {column:<13} {smaller:>6,} -> {larger:>6,}: {wall:.1f}x wall, "
                f"{net:.1f}x above interpreter start-up"
            )
    largest = max(sizes)
    warm = results[largest]["compile warm"]
    verdict = "met" if warm < 1.0 else "NOT met"
    print(f"\ngoal (compile warm under 1 s at {largest:,} memories): {warm:.2f} s, {verdict}")
    if options.ruler:
        slower = [
            size for size in sizes if results[size]["compile cold"] > results[size]["ruler cold"]
        ]
        print(
            "goal (compile cold no slower than ruler cold at every size): "
            + ("met" if not slower else f"NOT met at {', '.join(f'{size:,}' for size in slower)}")
        )
    print(f"total benchmark time: {time.perf_counter() - start:.0f} s")
    return 0


def _time(command: list[str], quiet: bool = False) -> float:
    start = time.perf_counter()
    subprocess.run(command, check=True, capture_output=quiet)
    return time.perf_counter() - start


if __name__ == "__main__":
    raise SystemExit(main())
