"""What gitmem's set-up adds to a merge (issue 31): `git merge` of a memory branch into a branch
that gained another memory, on a store over its token budget (ten memories, six fit) and on one
under it, with and without the hooks `gitmem init` installs after an operation (``gitmem hook git``
in post-merge; the merge driver runs in both).

    python benchmarks/bench_after_git.py [--runs 5]

Prints the median wall time of each merge, and what the hook adds: over the budget it recompiles and
replaces the merge commit (the merge is then right); under it, it compiles in memory and finds
nothing to do. Then the same for a commit of code, where the post-commit hook returns before
compiling (the step touched no memory).
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))

from benchmarks import fair  # noqa: E402

HOOKS = ("post-commit", "post-merge", "post-rewrite")


def sh(cwd: Path, *args: str) -> str:
    return subprocess.run(args, cwd=cwd, capture_output=True, text=True, check=True).stdout


def repository(work: Path, budget: int) -> Path:
    """main and main+a (branch ``a``), and ``b``: each adds one high-priority memory to ten base
    memories."""
    root = work / f"repo-{budget}"
    root.mkdir()
    sh(root, "git", "init", "-q", "-b", "main")
    sh(root, "gitmem", "init", "--target", "agents", "--target", "claude")
    config = root / ".memory" / "config.yaml"
    config.write_text(config.read_text() + f"budget: {budget}\n")
    for number in range(1, 11):
        sh(
            root,
            "gitmem",
            "add",
            f"Base rule {number} about the build system",
            "--id",
            f"base-{number}",
        )
    sh(root, "gitmem", "compile")
    sh(root, "git", "add", "-A")
    sh(root, "git", "commit", "-q", "--no-verify", "-m", "base")
    for branch in ("a", "b"):
        sh(root, "git", "checkout", "-q", "-b", branch, "main")
        sh(
            root,
            "gitmem",
            "add",
            f"Feature {branch} rule",
            "--id",
            f"feat-{branch}",
            "--priority",
            "high",
        )
        sh(root, "gitmem", "compile")
        sh(root, "git", "add", "-A")
        sh(root, "git", "commit", "-q", "--no-verify", "-m", f"memory {branch}")
    sh(root, "git", "checkout", "-q", "main")
    sh(root, "git", "merge", "-q", "--no-edit", "a")
    return root


def merge_times(root: Path, runs: int, hooks: bool) -> list[float]:
    hooks_dir = root / ".git" / "hooks"
    saved = {name: (hooks_dir / name).read_bytes() for name in HOOKS if (hooks_dir / name).exists()}
    if not hooks:
        for name in saved:
            (hooks_dir / name).unlink()
    start_commit = sh(root, "git", "rev-parse", "HEAD").strip()
    times = []
    try:
        for _ in range(runs):
            began = time.perf_counter()
            sh(root, "git", "merge", "-q", "--no-edit", "--no-ff", "b")
            times.append(time.perf_counter() - began)
            sh(root, "git", "reset", "-q", "--hard", start_commit)
    finally:
        for name, data in saved.items():
            (hooks_dir / name).write_bytes(data)
            (hooks_dir / name).chmod(0o755)
    return times


def commit_times(root: Path, runs: int, hooks: bool) -> list[float]:
    """A commit of code only (``--no-verify``: pre-commit's hooks are not what is measured): the
    post-commit hook finds that the step touched neither the store nor a rules file, and returns
    before any compile.
    """
    hooks_dir = root / ".git" / "hooks"
    saved = {name: (hooks_dir / name).read_bytes() for name in HOOKS if (hooks_dir / name).exists()}
    if not hooks:
        for name in saved:
            (hooks_dir / name).unlink()
    start_commit = sh(root, "git", "rev-parse", "HEAD").strip()
    times = []
    try:
        for number in range(runs):
            (root / "app.py").write_text(f"print({number})\n")
            sh(root, "git", "add", "app.py")
            began = time.perf_counter()
            sh(root, "git", "commit", "-q", "--no-verify", "-m", "code")
            times.append(time.perf_counter() - began)
        sh(root, "git", "reset", "-q", "--hard", start_commit)
    finally:
        for name, data in saved.items():
            (hooks_dir / name).write_bytes(data)
            (hooks_dir / name).chmod(0o755)
    return times


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--runs", type=int, default=5)
    args = parser.parse_args()
    fair.bytecode()
    os.environ["PATH"] = str(Path(sys.executable).parent) + os.pathsep + os.environ.get("PATH", "")
    with tempfile.TemporaryDirectory() as folder:
        work = Path(folder)
        for label, budget in (("over the budget", 280), ("under the budget", 4000)):
            root = repository(work, budget)
            without = statistics.median(merge_times(root, args.runs, hooks=False))
            with_hooks = statistics.median(merge_times(root, args.runs, hooks=True))
            print(
                f"{label:17} merge without the hooks {without * 1000:6.0f} ms · with them "
                f"{with_hooks * 1000:6.0f} ms · the set-up adds "
                f"{(with_hooks - without) * 1000:5.0f} ms (median of {args.runs})"
            )
        without = statistics.median(commit_times(root, args.runs, hooks=False))
        with_hooks = statistics.median(commit_times(root, args.runs, hooks=True))
        print(
            f"{'a code commit':17} commit without the hooks {without * 1000:5.0f} ms · with "
            f"them {with_hooks * 1000:6.0f} ms · the set-up adds "
            f"{(with_hooks - without) * 1000:5.0f} ms (median of {args.runs})"
        )


if __name__ == "__main__":
    main()
