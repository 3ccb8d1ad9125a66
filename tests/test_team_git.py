"""Memories through git: branches that each add memories merge cleanly (the merge driver), a memory's commit
reverts with plain `git revert` after later commits, and `gitmem revert` does it in one command."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from gitmem.git.mergedriver import merge_rules_file
from tests.conftest import Run, git

# Targets whose clients read only their own files, so each holds every memory (Cursor, the Copilot CLI and Kiro
# read AGENTS.md and would hold none of their own: tests/compile/test_delivery.py).
TARGETS = ["agents", "claude", "gemini", "amazonq", "junie"]


@pytest.fixture
def team(repo: Path, run: Run) -> Path:
    """A repository set up with `gitmem init` (merge driver registered), a first memory compiled and committed."""
    args = ["init"]
    for target in TARGETS:
        args += ["--target", target]
    assert run(*args).code == 0
    (repo / "AGENTS.md").write_text("# Agents\n\nHand-written notes stay.\n")
    assert run("add", "Use pnpm, never npm", "--id", "use-pnpm").code == 0
    assert run("compile").code == 0
    commit(repo, "set up gitmem")
    return repo


def commit(repo: Path, message: str) -> None:
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "--no-verify", "-m", message)


def add_and_commit(repo: Path, run: Run, title: str, *args: str) -> None:
    assert run("add", title, *args).code == 0
    assert run("compile").code == 0
    commit(repo, f"memory: {title}")


def test_branches_that_each_add_memories_merge_without_conflict(team: Path, run: Run) -> None:
    git(team, "checkout", "-q", "-b", "feature")
    add_and_commit(team, run, "Feature memory", "--kind", "pitfall", "--path", "web/**")
    git(team, "checkout", "-q", "main")
    add_and_commit(team, run, "Main memory", "--kind", "decision")
    (team / "AGENTS.md").write_text(
        (team / "AGENTS.md").read_text().replace("Hand-written notes", "Our notes")
    )
    commit(team, "edit hand-written text")
    merge = subprocess.run(
        ["git", "merge", "-q", "--no-edit", "feature"], cwd=team, capture_output=True, text=True
    )
    assert merge.returncode == 0, merge.stdout + merge.stderr
    agents = (team / "AGENTS.md").read_text()
    assert "Our notes stay." in agents
    assert "(`main-memory`)" in agents and "(`use-pnpm`" in agents
    assert "(`feature-memory`)" in (team / "web" / "AGENTS.md").read_text()
    assert run("compile", "--check").code == 0


def test_plain_git_revert_of_an_old_memory_commit_succeeds(team: Path, run: Run) -> None:
    add_and_commit(team, run, "Bad idea", "--body", "This turned out wrong.")
    bad = git(team, "rev-parse", "HEAD").strip()
    add_and_commit(team, run, "Later memory", "--kind", "fact")
    add_and_commit(team, run, "Even later", "--priority", "high")
    done = subprocess.run(
        ["git", "revert", "--no-edit", bad], cwd=team, capture_output=True, text=True
    )
    assert done.returncode == 0, done.stdout + done.stderr
    assert not (team / ".memory" / "memories" / "bad-idea.yaml").exists()
    for path in (
        "AGENTS.md",
        "CLAUDE.md",
        "GEMINI.md",
        ".amazonq/rules/gitmem.md",
        ".junie/guidelines.md",
    ):
        text = (team / path).read_text()
        assert "bad-idea" not in text, path
        assert "later-memory" in text, path
    assert run("compile", "--check").code == 0


def test_gitmem_revert_reverts_the_introducing_commit(team: Path, run: Run) -> None:
    add_and_commit(team, run, "Bad idea")
    add_and_commit(team, run, "Later memory")
    result = run("revert", "bad-idea")
    assert result.code == 0, result.err
    assert result.out.startswith("reverted ")
    assert git(team, "log", "-1", "--format=%s").strip() == 'Revert "memory: Bad idea"'
    assert git(team, "status", "--porcelain").strip() == ""
    assert not (team / ".memory" / "memories" / "bad-idea.yaml").exists()
    assert "bad-idea" not in (team / "AGENTS.md").read_text()
    assert run("compile", "--check").code == 0


def test_gitmem_revert_of_a_memory_edited_since(team: Path, run: Run) -> None:
    add_and_commit(team, run, "Bad idea")
    path = team / ".memory" / "memories" / "bad-idea.yaml"
    path.write_text(path.read_text().replace("title: Bad idea", "title: Bad idea, refined"))
    assert run("compile").code == 0
    commit(team, "refine the bad idea")
    result = run("revert", "bad-idea")
    assert result.code == 0, result.err
    assert not path.exists()
    assert git(team, "status", "--porcelain").strip() == ""
    assert run("compile", "--check").code == 0


def test_gitmem_revert_removes_only_the_memory_when_its_commit_did_more(
    team: Path, run: Run
) -> None:
    (team / "app.py").write_text("print('hello')\n")
    assert run("add", "Mixed memory").code == 0
    assert run("add", "Sibling memory").code == 0
    assert run("compile").code == 0
    commit(team, "code and two memories")
    result = run("revert", "mixed-memory")
    assert result.code == 0, result.err
    assert "changed other files too: removed the memory in commit" in result.out
    assert (team / "app.py").exists()
    assert (team / ".memory" / "memories" / "sibling-memory.yaml").exists()
    assert git(team, "log", "-1", "--format=%s").strip() == "Remove memory mixed-memory"
    assert "mixed-memory" not in (team / "CLAUDE.md").read_text()
    assert run("compile", "--check").code == 0


@pytest.mark.parametrize(
    ("setup", "message"),
    [
        ("uncommitted", "error: memory 'fresh' was never committed, so there is nothing to revert: "
                        "`gitmem forget fresh` removes the file\n"),
        ("staged", "error: there are staged changes: commit or unstage them first, so the revert commit holds only "
                   "it\n"),
    ],
)  # fmt: skip
def test_gitmem_revert_refuses(team: Path, run: Run, setup: str, message: str) -> None:
    if setup == "uncommitted":
        run("add", "Fresh")
        memory = "fresh"
    else:
        (team / "notes.txt").write_text("x\n")
        git(team, "add", "notes.txt")
        memory = "use-pnpm"
    result = run("revert", memory)
    assert (result.code, result.err) == (2, message)


def _file(text: str) -> str:
    from gitmem.compile import block

    body = "## Project memories\n\nIntro.\n" + "".join(
        "\n### Conventions\n\n" + "".join(f"- Memory {m} (`{m}`)\n" for m in text.split())
        if text
        else ""
    )
    return "# Hand\n" + block.block_text(body)


def test_merge_driver_keeps_a_hand_text_conflict_visible() -> None:
    base = _file("a")
    ours = _file("a b").replace("# Hand", "# Ours")
    theirs = _file("a c").replace("# Hand", "# Theirs")
    result = merge_rules_file(base, ours, theirs)
    assert result.conflicts == 1
    assert "<<<<<<< ours\n# Ours\n=======\n# Theirs\n>>>>>>> theirs\n" in result.text
    assert "(`b`)" in result.text and "(`c`)" in result.text


def test_merge_driver_removes_a_memory_reverted_on_one_side() -> None:
    result = merge_rules_file(_file("a b"), _file("a b c"), _file("a"))
    assert result.conflicts == 0
    assert result.text == _file("a c")


def test_gitmem_revert_of_a_mistyped_id_says_no_such_memory(team: Path, run: Run) -> None:
    result = run("revert", "use-pnmp")
    assert result.code == 2
    assert (
        result.err == "error: no memory 'use-pnmp' (did you mean 'use-pnpm'?)\n"
    )  # not "never committed: forget it"
