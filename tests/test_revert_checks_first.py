"""`gitmem revert` checks that the store compiles before git changes anything, and undoes cleanly when a later step
fails: no REVERT_HEAD, no unmerged file, the memory still there (real repositories, real git revert)."""

from __future__ import annotations

import errno
from pathlib import Path

import pytest

from tests.conftest import Run, git
from tests.test_team_git import add_and_commit, team  # noqa: F401  (the fixture)


def assert_untouched(repo: Path, head: str) -> None:
    assert not (repo / ".git/REVERT_HEAD").exists()
    assert git(repo, "diff", "--name-only", "--diff-filter=U") == ""
    assert git(repo, "rev-parse", "HEAD").strip() == head
    assert (repo / ".memory/memories/bad-idea.yaml").is_file()
    assert git(repo, "diff", "--cached", "--name-only") == ""


def test_revert_with_another_memory_invalid_changes_nothing(team: Path, run: Run) -> None:  # noqa: F811
    add_and_commit(team, run, "Bad idea")
    add_and_commit(team, run, "Later memory")
    later = team / ".memory/memories/later-memory.yaml"
    later.write_text(later.read_text().replace("kind: convention", "kind: nonsense"))
    head = git(team, "rev-parse", "HEAD").strip()
    result = run("revert", "bad-idea")
    assert result.code == 1
    assert ".memory/memories/later-memory.yaml:" in result.err and "kind" in result.err
    assert result.err.rstrip().endswith("nothing was reverted), then run it again")
    assert_untouched(team, head)
    assert git(team, "status", "--porcelain").strip() == "M .memory/memories/later-memory.yaml"


def test_revert_that_fails_after_git_revert_is_undone(
    team: Path,  # noqa: F811
    run: Run,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from gitmem.git import revert

    add_and_commit(team, run, "Bad idea")
    add_and_commit(team, run, "Later memory")
    head = git(team, "rev-parse", "HEAD").strip()

    def disk_full(*args: object) -> list[str]:
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(revert, "_recompile", disk_full)
    result = run("revert", "bad-idea")
    assert result.code == 3, result.err
    assert_untouched(team, head)
    assert git(team, "status", "--porcelain").strip() == ""


def test_revert_with_a_rules_file_compile_cannot_write_changes_nothing(
    team: Path,  # noqa: F811
    run: Run,
) -> None:
    """Compile holds a target whose file cannot take the block and writes the others; a revert must not: the held
    file would keep the memory it reverts. It waits, changing nothing, until the file is fixed."""
    add_and_commit(team, run, "Bad idea")
    add_and_commit(team, run, "Later memory")
    agents = team / "AGENTS.md"
    text = agents.read_text(encoding="utf-8")
    agents.write_text(
        "<<<<<<< HEAD\nours\n=======\ntheirs\n>>>>>>> other\n" + text, encoding="utf-8"
    )
    head = git(team, "rev-parse", "HEAD").strip()
    result = run("revert", "bad-idea")
    assert result.code == 1, result
    assert result.err.startswith(
        "AGENTS.md:1:1: conflict: git conflict markers outside gitmem's block"
    )
    assert result.err.rstrip().endswith("cannot be written: fix it first (nothing was reverted)")
    assert_untouched(team, head)
    assert "bad-idea" in agents.read_text(encoding="utf-8")
