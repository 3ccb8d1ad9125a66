"""benchmarks/newuser_report.py, the new user's first run on real trees: green on a sound layout, and red when the
disk is not as it should be (a tracked file deleted, a rules file changed outside gitmem's block)."""

from __future__ import annotations

from pathlib import Path

from benchmarks import newuser_report
from tests.conftest import git


def _tree(root: Path) -> Path:
    tree = root / "acme"
    (tree / "web").mkdir(parents=True)
    (tree / "AGENTS.md").write_text("# Acme\n\n- Run `make test`.\n", encoding="utf-8")
    (tree / "web" / "AGENTS.md").write_text("# Web\n", encoding="utf-8")
    (tree / "README.md").write_text("# Acme\n", encoding="utf-8")
    return tree


def test_a_sound_layout_is_green_and_its_rules_files_are_found(tmp_path: Path) -> None:
    tree = _tree(tmp_path / "trees")
    assert newuser_report.rules_files(tree) == ["AGENTS.md", "web/AGENTS.md"]
    (tmp_path / "work").mkdir()
    assert newuser_report.first_run(tree, tmp_path / "work") == (True, [])
    assert (tree / "AGENTS.md").read_text(
        encoding="utf-8"
    ) == "# Acme\n\n- Run `make test`.\n"  # a copy is run


def test_the_disk_check_names_a_deleted_file_and_a_hand_written_change(tmp_path: Path) -> None:
    repo = _tree(tmp_path)
    git(repo, "init", "-q", "-b", "main")
    git(repo, "add", "-A")
    git(repo, "commit", "-qm", "t", "-n")
    assert newuser_report._disk(repo) == []
    (repo / "README.md").unlink()
    (repo / "web" / "AGENTS.md").write_text("# Web, edited\n", encoding="utf-8")
    assert newuser_report._disk(repo) == [
        "deleted README.md",
        "changed web/AGENTS.md outside gitmem's block",
    ]
