"""The merge driver given a rules file that is not UTF-8 merges it as git does (conflict markers where the sides
differ) and keeps every byte: the other side's change is never lost. Real repository, real `git merge`."""

from __future__ import annotations

import subprocess
from pathlib import Path

from tests.conftest import Run, git

LATIN1 = "# Règles\n\nCafé au lait.\n\nOne.\n\nTwo.\n".encode("latin-1")


def setup(repo: Path, run: Run) -> None:
    assert run("init", "--target", "agents").code == 0
    (repo / "AGENTS.md").write_bytes(LATIN1)
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "--no-verify", "-m", "base")
    assert git(repo, "check-attr", "merge", "AGENTS.md") == "AGENTS.md: merge: gitmem\n"


def change(repo: Path, branch: str, old: bytes, new: bytes) -> None:
    git(repo, "checkout", "-q", "-B", branch)
    path = repo / "AGENTS.md"
    path.write_bytes(path.read_bytes().replace(old, new))
    git(repo, "commit", "-q", "--no-verify", "-am", branch)


def merge(repo: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        ["git", "merge", "--no-edit", "theirs"], cwd=repo, capture_output=True, text=True
    )


def test_a_latin1_rules_file_merges_both_sides(repo: Path, run: Run) -> None:
    setup(repo, run)
    change(repo, "theirs", b"Two.", "Two, à la carte.".encode("latin-1"))
    git(repo, "checkout", "-q", "main")
    change(repo, "main", b"One.", b"One, ours.")
    done = merge(repo)
    assert done.returncode == 0, done.stdout + done.stderr
    merged = (repo / "AGENTS.md").read_bytes()
    assert b"One, ours." in merged and "Two, à la carte.".encode("latin-1") in merged
    assert "Café".encode("latin-1") in merged


def test_a_latin1_rules_file_in_conflict_gets_markers(repo: Path, run: Run) -> None:
    setup(repo, run)
    change(repo, "theirs", b"One.", "Un, à nous.".encode("latin-1"))
    git(repo, "checkout", "-q", "main")
    change(repo, "main", b"One.", b"One, ours.")
    done = merge(repo)
    assert done.returncode != 0
    merged = (repo / "AGENTS.md").read_bytes()
    assert (
        b"<<<<<<< ours\nOne, ours.\n=======\n"
        + "Un, à nous.".encode("latin-1")
        + b"\n>>>>>>> theirs\n"
        in merged
    )
    assert "AGENTS.md" in git(repo, "diff", "--name-only", "--diff-filter=U")
