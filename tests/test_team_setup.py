"""`gitmem init` sets a team up: hooks in .pre-commit-config.yaml (every other byte kept), pre-commit installed,
the merge driver declared and registered; running it twice changes nothing."""

from __future__ import annotations

from pathlib import Path

import pytest

from gitmem import yamlio
from tests.conftest import Run, git

EXISTING = """\
# Our hooks. Keep the formatter first.
default_language_version: &lang
  python: python3
repos:
  # formatting
  - repo: https://github.com/psf/black
    rev: 24.1.0
    hooks:
      - id: black   # keep
        args: [--quiet]

  - repo: local
    hooks:
      - id: no-todo
        name: no TODO
        entry: "! grep -rn TODO"
        language: system
# trailing comment
ci:
  autofix_prs: false
"""


def _files(repo: Path) -> dict[str, bytes]:
    return {
        str(p.relative_to(repo)): p.read_bytes()
        for p in repo.rglob("*")
        if p.is_file()
        and not str(p.relative_to(repo)).startswith((".git/objects", ".git/gitmem", ".git/index"))
    }


def test_init_creates_a_precommit_config_and_installs_it(repo: Path, run: Run) -> None:
    result = run("init")
    assert result.code == 0, result.err
    assert "created .pre-commit-config.yaml" in result.out
    assert "installed the pre-commit hook (pre-commit)" in result.out
    data = yamlio.load_plain((repo / ".pre-commit-config.yaml").read_text())
    hooks = {hook["id"]: hook for repo_ in data["repos"] for hook in repo_["hooks"]}
    assert list(hooks) == ["gitmem-scan", "gitmem-validate", "gitmem-compile"]
    assert all(hook["language"] == "system" for hook in hooks.values())
    assert (
        hooks["gitmem-scan"]["entry"] == "gitmem-cli scan --staged"
    )  # a name only this gitmem installs
    assert "pre-commit" in (repo / ".git" / "hooks" / "pre-commit").read_text()
    assert (
        git(repo, "config", "--get", "merge.gitmem.driver").strip()
        == "gitmem-cli merge-driver %O %A %B %P"
    )
    assert (repo / ".gitattributes").read_text() == (
        "# gitmem:begin: generated rules files, merged memory by memory (gitmem init keeps this section)\n"
        "AGENTS.md merge=gitmem\nCLAUDE.md merge=gitmem\n"
        ".claude/rules/gitmem-*.md merge=gitmem linguist-generated=true\n"
        "# gitmem:end\n"
    )


def test_init_merges_into_an_existing_config_keeping_every_byte(repo: Path, run: Run) -> None:
    path = repo / ".pre-commit-config.yaml"
    path.write_text(EXISTING)
    assert run("init", "--pre-push").code == 0
    text = path.read_text()
    head, _, rest = EXISTING.partition("# trailing comment\n")
    assert text.startswith(head)
    assert text.endswith("# trailing comment\n" + rest)
    added = text[len(head) : len(text) - len("# trailing comment\n" + rest)]
    assert added.startswith("  - repo: local\n    hooks:\n    - id: gitmem-scan\n")
    data = yamlio.load_plain(text)
    assert data["default_language_version"] == {"python": "python3"}
    assert [r["hooks"][0]["id"] for r in data["repos"]] == ["black", "no-todo", "gitmem-scan"]
    check = data["repos"][2]["hooks"][-1]
    assert (check["id"], check["stages"]) == ("gitmem-check", ["pre-push"])
    assert "pre-commit" in (repo / ".git" / "hooks" / "pre-push").read_text()


def test_init_twice_changes_nothing(repo: Path, run: Run) -> None:
    (repo / ".pre-commit-config.yaml").write_text(EXISTING)
    (repo / ".gitattributes").write_text("*.png binary\n")
    assert run("init", "--target", "agents", "--target", "cursor").code == 0
    before = _files(repo)
    second = run("init")
    assert second.code == 0
    assert second.out == "already set up in .memory (targets: agents, cursor)\n"
    assert _files(repo) == before
    attributes = (repo / ".gitattributes").read_text()
    assert attributes.startswith("*.png binary\n# gitmem:begin")
    assert ".cursor/rules/gitmem.mdc merge=gitmem linguist-generated=true\n" in attributes


def test_changing_targets_updates_the_attributes_section_only(repo: Path, run: Run) -> None:
    run("init", "--target", "agents")
    path = repo / ".gitattributes"
    path.write_text(path.read_text() + "docs/** linguist-documentation\n")
    result = run("init", "--target", "agents", "--target", "kiro")
    assert "updated .gitattributes (rules files merge=gitmem)" in result.out
    text = path.read_text()
    assert ".kiro/steering/gitmem.md merge=gitmem linguist-generated=true\n" in text
    assert text.endswith("# gitmem:end\ndocs/** linguist-documentation\n")


def test_no_hooks_sets_up_only_the_store(repo: Path, run: Run) -> None:
    assert run("init", "--no-hooks").code == 0
    assert not (repo / ".pre-commit-config.yaml").exists()
    assert not (repo / ".gitattributes").exists()
    assert not (repo / ".git" / "hooks" / "pre-commit").exists()


def test_existing_gitmem_hooks_are_left_alone(repo: Path, run: Run) -> None:
    text = (
        "repos:\n- repo: https://example.com/gitmem\n  rev: v0.1.0\n  hooks:\n  - id: gitmem-scan\n"
        "  - id: gitmem-validate\n  - id: gitmem-compile\n"
    )
    (repo / ".pre-commit-config.yaml").write_text(text)
    assert run("init").code == 0
    assert (repo / ".pre-commit-config.yaml").read_text() == text


@pytest.mark.parametrize(
    "text",
    [
        "repos: [{repo: local, hooks: [{id: x, name: x, entry: x, language: system}]}]\n",
        "repos:\n    -   repo: local\n        hooks: []\n",
        "minimum_pre_commit_version: '3.0'\n",
    ],
    ids=["flow", "four-space", "no-repos"],
)
def test_other_layouts(repo: Path, run: Run, text: str) -> None:
    path = repo / ".pre-commit-config.yaml"
    path.write_text(text)
    result = run("init")
    if text.startswith("repos: ["):
        assert result.code == 3
        assert result.err.startswith(
            "error: could not add the gitmem hooks to .pre-commit-config.yaml safely (unusual layout); add this "
            "under `repos:` by hand, then run `gitmem init` again:\n  - repo: local\n"
        )
        assert path.read_text() == text
        return
    assert result.code == 0, result.err
    new = path.read_text()
    assert new.startswith(text)
    data = yamlio.load_plain(new)
    assert data["repos"][-1]["hooks"][0]["id"] == "gitmem-scan"


def test_broken_precommit_config_is_reported_not_replaced(repo: Path, run: Run) -> None:
    path = repo / ".pre-commit-config.yaml"
    path.write_text("repos:\n  - repo: [unclosed\n")
    result = run("init")
    assert result.code == 3
    assert result.err.startswith("error: .pre-commit-config.yaml:3:1: ")
    assert path.read_text() == "repos:\n  - repo: [unclosed\n"


def test_a_config_in_pre_commit_1_s_list_form_is_named_with_its_fix(repo: Path, run: Run) -> None:
    """mds-core's config is a list of repos, the form pre-commit 1 read and pre-commit 4 refuses
    ("Expected a Config map but got a list"): init says so and names the command that migrates
    it, and leaves the file as it was."""
    path = repo / ".pre-commit-config.yaml"
    old = "- repo: https://github.com/pre-commit/pre-commit-hooks\n  rev: v2.3.0\n  hooks:\n"
    old += "    - id: trailing-whitespace\n"
    path.write_text(old)
    result = run("init")
    assert result.code == 3
    assert result.err == (
        "error: .pre-commit-config.yaml is a list of repos, the form old pre-commit read: run "
        "`pre-commit migrate-config`, then `gitmem init`\n"
    )
    assert path.read_text() == old


def test_init_moves_an_older_gitmems_hook_entries_and_merge_driver_to_gitmem_cli(
    repo: Path, run: Run
) -> None:
    """An older gitmem wrote hooks that run `gitmem` from PATH (maybe another tool's program): init moves them, and
    the merge driver, to `gitmem-cli`, keeping every other byte; running it again changes nothing."""
    old = (
        "# our hooks\n"
        "repos:\n"
        "-   repo: local\n"
        "    hooks:\n"
        "    -   id: gitmem-scan\n"
        "        name: 'gitmem scan (secrets and hidden Unicode in the staged changes)'\n"
        "        entry: gitmem scan --staged\n"
        "        language: system\n"
        "        pass_filenames: false\n"
        "    -   id: gitmem-validate\n"
        "        name: gitmem validate (memories and config)\n"
        "        entry: gitmem validate\n"
        "        language: system\n"
        "    -   id: gitmem-compile\n"
        "        name: gitmem compile (rules files)\n"
        "        entry: gitmem compile   \n"
        "        language: system\n"
        "    -   id: mine\n"
        "        name: mine\n"
        "        entry: gitmem scan --staged --json  # not gitmem's entry: kept\n"
        "        language: system\n"
    )
    (repo / ".pre-commit-config.yaml").write_text(old)
    git(repo, "config", "merge.gitmem.driver", "gitmem merge-driver %O %A %B %P")
    result = run("init")
    assert result.code == 0, result.err
    new = (repo / ".pre-commit-config.yaml").read_text()
    assert new == old.replace(
        "entry: gitmem scan --staged\n", "entry: gitmem-cli scan --staged\n"
    ).replace("entry: gitmem validate", "entry: gitmem-cli validate").replace(
        "entry: gitmem compile", "entry: gitmem-cli compile"
    )
    assert "updated .pre-commit-config.yaml" in result.out
    assert (
        git(repo, "config", "--get", "merge.gitmem.driver").strip()
        == "gitmem-cli merge-driver %O %A %B %P"
    )
    assert run("init").code == 0
    assert (repo / ".pre-commit-config.yaml").read_text() == new


@pytest.mark.slow
def test_with_another_gitmem_first_on_path_the_hooks_still_run_this_one(
    repo: Path, run: Run, tmp_path: Path
) -> None:
    """Another memory tool's `gitmem` command (dev-boz/gitmem installs one) first on PATH: the pre-commit hooks init
    wrote run `gitmem-cli`, this gitmem, so a commit is scanned by it (a key refused), never by the other program."""
    import os
    import subprocess
    import sys

    other = tmp_path / "other-bin"
    other.mkdir()
    marker = tmp_path / "other-ran"
    (other / "gitmem").write_text(f"#!/bin/sh\necho ran >> {marker}\nexit 0\n")
    (other / "gitmem").chmod(0o755)
    assert run("init").code == 0
    env = {
        **os.environ,
        "PATH": f"{other}{os.pathsep}{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}",
    }
    key = "sk_live_" + "4eC39HqLyjWDarjtT1zdp7dc" + "Qx8Rk2Lm9Np3Vw"  # built at run time
    (repo / "settings.py").write_text(f"STRIPE_KEY = '{key}'\n")
    git(repo, "add", "-A")
    done = subprocess.run(
        ["git", "commit", "-qm", "x"], cwd=repo, capture_output=True, text=True, env=env
    )
    assert done.returncode != 0, done.stdout + done.stderr  # this gitmem's scan refused it
    assert "stripe-secret-key" in done.stdout + done.stderr and key not in done.stdout + done.stderr
    assert not marker.exists()  # the other program never ran
