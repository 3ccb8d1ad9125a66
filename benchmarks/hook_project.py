"""A repository for the session hooks' benchmarks and tests: the memories of tests/recall_set.py,
compiled for Claude Code and AGENTS.md readers under a small token budget (so most memories are left
out of the rules files).
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests"))
sys.path.insert(0, str(ROOT / "benchmarks"))

import recall_set  # noqa: E402  (the test data, shared with recall's tests)

from gitmem import yamlio  # noqa: E402


def git(root: Path, *args: str) -> None:
    subprocess.run(["git", *args], cwd=root, check=True, capture_output=True)


def gitmem(root: Path, *args: str, stdin: str | None = None) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "GITMEM_NO_FETCH": "1"}
    return subprocess.run(
        ["gitmem", *args], cwd=root, input=stdin, capture_output=True, text=True, env=env
    )


def build(
    root: Path,
    budget: int = 200,
    extra: int = 0,
    targets: tuple[str, ...] = ("claude", "agents"),
    words: dict[str, list[str]] | None = None,
) -> Path:
    """A git repository at ``root`` with the recall set's memories (and ``extra`` filler memories),
    compiled with ``budget`` tokens for ``targets``; ``words``: the ``words`` of some of the
    memories, by id.
    """
    root.mkdir(parents=True, exist_ok=True)
    git(root, "init", "-q", "-b", "main")
    git(root, "config", "user.email", "test@example.com")
    git(root, "config", "user.name", "Test")
    done = gitmem(
        root, "init", "--no-hooks", *(arg for name in targets for arg in ("--target", name))
    )
    assert done.returncode == 0, done.stderr
    memories = root / ".memory" / "memories"
    for memory_id, data in recall_set.memory_files().items():
        if words and memory_id in words:
            data = {**data, "words": words[memory_id]}
        (memories / f"{memory_id}.yaml").write_text(yamlio.dump(data), encoding="utf-8")
    _fillers(memories, extra)
    config = root / ".memory" / "config.yaml"
    config.write_text(config.read_text(encoding="utf-8") + f"budget: {budget}\n", encoding="utf-8")
    done = gitmem(root, "compile")
    assert done.returncode == 0, done.stderr + done.stdout
    return root


def _fillers(directory: Path, count: int, seed: int = 7) -> None:
    """``count`` more memories in the vocabulary of a software project (bench_recall's Zipf-like
    words)."""
    import random

    from bench_recall import WORDS

    rng = random.Random(seed)
    weights = [1 / (rank + 1) for rank in range(len(WORDS))]
    rng.shuffle(weights)
    kinds = ("convention", "decision", "pitfall", "preference", "fact")
    for number in range(count):
        data = {
            "id": f"filler-{number:04d}",
            "title": " ".join(rng.choices(WORDS, weights, k=rng.randint(4, 9))).capitalize(),
            "kind": kinds[number % len(kinds)],
            "status": "active",
            "body": " ".join(rng.choices(WORDS, weights, k=rng.randint(15, 60))).capitalize() + ".",
            "tags": sorted(set(rng.choices(WORDS, weights, k=2))),
            "created": "2026-01-15",
        }
        if number % 4 == 0:
            data["paths"] = [f"{rng.choice(('api', 'web', 'infra'))}/**"]
        (directory / f"filler-{number:04d}.yaml").write_text(yamlio.dump(data), encoding="utf-8")
