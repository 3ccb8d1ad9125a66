"""A git command given ``--`` and no path acts on the whole tree (git reads an empty pathspec so):
with ``targets: []`` the post-commit hook's ``git status --`` listed every file of the user's and
amended the last commit with them. gitmem's one way to run git refuses it, so the next caller with
an empty list of paths fails here instead of touching the user's files."""

from __future__ import annotations

from pathlib import Path

import pytest

from gitmem.gitcommand import git, git_read, paths_or_tree
from tests.conftest import git as run_git


def test_a_trailing_separator_without_paths_is_refused(tmp_path: Path) -> None:
    run_git(tmp_path, "init", "-q")
    (tmp_path / "notes.txt").write_text("the user's\n")
    for run in (git, git_read):
        with pytest.raises(ValueError, match="no path"):
            run(tmp_path, "status", "--porcelain", "--", *[])
    assert git(tmp_path, "status", "--porcelain", *paths_or_tree([])) == b"?? notes.txt\n"
    assert git(tmp_path, "status", "--porcelain", *paths_or_tree(["other.txt"])) == b""
