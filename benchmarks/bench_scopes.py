"""Benchmark what shared packs and personal memories add to gitmem's everyday commands.

For each size N (memories in the project, and as many in one shared pack, a local bare repository
tagged v1 and v2), side by side:

- ``compile warm``: `gitmem compile` with nothing changed (what the pre-commit hook pays on most
  commits) in the project with the pack as a source, against the peer: a project holding all 2N
  memories as its own files. The pack's part is read from its cached index: no git runs at all;
- ``check warm``: `gitmem compile --check`, the same two ways (what CI pays);
- reading and checking the pack's N memories from git objects (`compile --check` with the pack's
  index removed, the clone kept: one `ls-tree`, one `cat-file --batch`, every file checked; minus
  the warm check) against the peer doing the same checks on N files of the working tree (`gitmem
  list --json` with no cache, minus warm);
- ``sources add`` (clone, check, record) and ``sources update`` (fetch, check v2, diff against v1);
- ``compile --user`` warm against the project's compile warm, N personal memories into
  ~/.claude/CLAUDE.md and ~/.codex/AGENTS.md (the user scope has no packs, fewer targets: it should
  not cost more).

Each figure is the median of several runs of the installed `gitmem` as a separate process.

Run: python benchmarks/bench_scopes.py [--sizes 100,1000] [--repeat 5]
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
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from benchmarks.bench_compile import env, gitmem_command, make_project


def run(root: Path, *args: str, home: Path) -> float:
    start = time.perf_counter()
    done = subprocess.run(
        [*gitmem_command(), *args],
        cwd=root,
        capture_output=True,
        text=True,
        env={**env(), "HOME": str(home), "XDG_CONFIG_HOME": "", "XDG_CACHE_HOME": ""},
        check=False,
    )
    elapsed = time.perf_counter() - start
    if done.returncode != 0:
        raise SystemExit(f"gitmem {' '.join(args)} exited {done.returncode}: {done.stderr[-2000:]}")
    return elapsed


def median(root: Path, repeat: int, *args: str, home: Path) -> float:
    return statistics.median(run(root, *args, home=home) for _ in range(repeat))


def git(cwd: Path, *args: str) -> None:
    subprocess.run(["git", *args], cwd=cwd, check=True, capture_output=True, env=env())


def make_pack(base: Path, count: int) -> Path:
    """A pack of ``count`` memories tagged v1, then v2 with a tenth of them changed, as a bare
    repository."""
    work = base / "pack-work"
    work.mkdir()
    make_project(work, count, seed=11)
    git(work, "add", "-A")
    git(work, "commit", "-qm", "v1")
    git(work, "tag", "v1")
    memories = work / ".memory" / "memories"
    for path in sorted(memories.glob("*.yaml"))[: max(1, count // 10)]:
        path.write_text(
            path.read_text(encoding="utf-8").replace("status: active", "status: active\ntags: [v2]")
        )
    git(work, "commit", "-qam", "v2")
    git(work, "tag", "v2")
    bare = base / "pack.git"
    git(base, "clone", "-q", "--bare", str(work), str(bare))
    return bare


def bench(count: int, repeat: int) -> dict[str, float]:
    with tempfile.TemporaryDirectory(prefix="gitmem-bench-scopes-") as tmp:
        base = Path(tmp)
        home = base / "home"
        (home / ".claude").mkdir(parents=True)
        (home / ".codex").mkdir()
        project = base / "project"
        project.mkdir()
        make_project(project, count)
        flat = base / "flat"
        flat.mkdir()
        make_project(flat, 2 * count)
        pack = make_pack(base, count)
        personal = home / ".config" / "gitmem" / "memories"
        personal.mkdir(parents=True)
        for path in (project / ".memory" / "memories").glob("*.yaml"):
            shutil.copy(path, personal / path.name)
        time.sleep(1.1)  # the caches trust only files at least a second old
        figures: dict[str, float] = {}
        figures["store cold"] = run(project, "list", "--json", home=home)
        figures["store warm"] = median(project, repeat, "list", "--json", home=home)
        run(project, "compile", home=home)
        figures["compile warm"] = median(project, repeat, "compile", home=home)
        run(flat, "compile", home=home)
        figures["compile warm, 2N own"] = median(flat, repeat, "compile", home=home)
        figures["check warm, 2N own"] = median(flat, repeat, "compile", "--check", home=home)
        figures["sources add"] = run(
            project, "sources", "add", str(pack), "--rev", "v1", "--name", "acme", home=home
        )
        run(project, "compile", home=home)
        time.sleep(1.1)  # the config was just rewritten: its cached check is trusted a second later
        figures["compile warm + pack"] = median(project, repeat, "compile", home=home)
        figures["check warm + pack"] = median(project, repeat, "compile", "--check", home=home)
        sources = project / ".git" / "gitmem" / "sources"
        colds = []
        for _ in range(repeat):
            for index in sources.glob("*.json"):
                index.unlink()
            colds.append(run(project, "compile", "--check", home=home))
        figures["check + pack cold"] = statistics.median(colds)
        figures["sources update"] = run(project, "sources", "update", home=home)
        run(project, "compile", "--user", home=home)
        figures["user compile warm"] = median(project, repeat, "compile", "--user", home=home)
        return figures


def main() -> int:
    import fair  # (benchmarks/, this script's folder)

    fair.bytecode()
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--sizes", default="100,1000")
    parser.add_argument("--repeat", type=int, default=5)
    options = parser.parse_args()
    start = time.perf_counter()
    os.environ.pop("GIT_DIR", None)
    for size in (int(size) for size in options.sizes.split(",")):
        f = bench(size, options.repeat)
        print(f"\n{size:,} project memories, and a pack of {size:,}:")
        for name, value in f.items():
            print(f"  {name:<22}{value * 1000:>8.0f} ms")
        print("  ratios:")
        print(
            "    compile warm, N own + pack of N / 2N own: "
            f"{f['compile warm + pack'] / f['compile warm, 2N own']:.2f}x"
        )
        print(
            "    check warm, N own + pack of N / 2N own:   "
            f"{f['check warm + pack'] / f['check warm, 2N own']:.2f}x"
        )
        pack = f["check + pack cold"] - f["check warm + pack"]
        store = f["store cold"] - f["store warm"]
        print(
            f"    checking N memories, from git objects / from files: {pack * 1000:.0f} / "
            f"{store * 1000:.0f} ms = {pack / store:.2f}x"
        )
        print(
            "    compile --user warm / compile warm (N each): "
            f"{f['user compile warm'] / f['compile warm']:.2f}x"
        )
    print(f"\ntotal benchmark time: {time.perf_counter() - start:.0f} s")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
