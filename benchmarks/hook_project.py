"""A repository for the session hooks' benchmarks and tests: the memories of tests/recall_set.py, compiled for
Claude Code and AGENTS.md readers under a small token budget (so most memories are left out of the rules files)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests"))

import recall_set  # noqa: E402  (the test data, shared with recall's tests)

from gitmem import yamlio  # noqa: E402


def git(root: Path, *args: str) -> None:
    subprocess.run(["git", *args], cwd=root, check=True, capture_output=True)


def gitmem(root: Path, *args: str, stdin: str | None = None) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "GITMEM_NO_FETCH": "1"}
    return subprocess.run(["gitmem", *args], cwd=root, input=stdin, capture_output=True, text=True, env=env)


def build(root: Path, budget: int = 200, extra: int = 0, targets: tuple[str, ...] = ("claude", "agents")) -> Path:
    """A git repository at ``root`` with the recall set's memories (and ``extra`` filler memories), compiled with
    ``budget`` tokens for ``targets``."""
    root.mkdir(parents=True, exist_ok=True)
    git(root, "init", "-q", "-b", "main")
    git(root, "config", "user.email", "test@example.com")
    git(root, "config", "user.name", "Test")
    done = gitmem(root, "init", "--no-hooks", *(arg for name in targets for arg in ("--target", name)))
    assert done.returncode == 0, done.stderr
    memories = root / ".memory" / "memories"
    for memory_id, data in recall_set.memory_files().items():
        (memories / f"{memory_id}.yaml").write_text(yamlio.dump(data), encoding="utf-8")
    for number in range(extra):
        data = {
            "id": f"filler-{number:04d}",
            "title": f"Filler note {number} about module m{number} and its widget w{number}",
            "kind": "fact",
            "status": "active",
            "body": f"Module m{number} keeps widget w{number} in sync with gadget g{number}; see docs/m{number}.md.",
            "tags": [f"m{number}"],
            "created": "2026-01-15",
        }
        (memories / f"filler-{number:04d}.yaml").write_text(yamlio.dump(data), encoding="utf-8")
    config = root / ".memory" / "config.yaml"
    config.write_text(config.read_text(encoding="utf-8") + f"budget: {budget}\n", encoding="utf-8")
    done = gitmem(root, "compile")
    assert done.returncode == 0, done.stderr + done.stdout
    return root
