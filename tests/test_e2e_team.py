"""The whole team story, end to end, with the real pre-commit framework and real git:

init; a commit holding a live-looking key is refused (the key never printed); a memory added without compiling makes
the hook refresh the rules files and stop the commit once; two branches each add memories and merge with no
conflict; `gitmem diff` lists the incoming memories; a plain `git revert` of one memory's commit, after later
memory commits, succeeds and leaves every target without it, with `gitmem compile --check` passing.
"""

from __future__ import annotations

import json
import random
import string
import subprocess
from pathlib import Path

from tests.conftest import Run, git

# Targets whose clients read only their own files, so each holds every memory (beside agents, Cursor, the Copilot
# CLI, Windsurf and Kiro read AGENTS.md and get their memories there: tests/compile/test_delivery.py).
TARGETS = ("agents", "claude", "gemini", "amazonq", "junie")
RULES_FILES = (
    "AGENTS.md",
    "CLAUDE.md",
    "GEMINI.md",
    ".amazonq/rules/gitmem.md",
    ".junie/guidelines.md",
)


def commit(repo: Path, message: str) -> subprocess.CompletedProcess[str]:
    """`git commit` through the installed hooks, as a developer would."""
    return subprocess.run(
        ["git", "commit", "-q", "-m", message], cwd=repo, capture_output=True, text=True
    )


def add_all_and_commit(repo: Path, message: str) -> None:
    git(repo, "add", "-A")
    done = commit(repo, message)
    assert done.returncode == 0, done.stdout + done.stderr


def test_team_story(repo: Path, run: Run) -> None:
    init = ["init"]
    for target in TARGETS:
        init += ["--target", target]
    assert run(*init).code == 0
    (repo / "AGENTS.md").write_text("# Working here\n\nRun `make test` before pushing.\n")
    add_all_and_commit(repo, "Set up gitmem")
    # gitmem's own rules files, with no memory in them yet, are in the set-up's commit (the
    # post-commit hook put them there), so no memory branch's merge creates them
    assert git(repo, "ls-files", *RULES_FILES).split() == sorted(RULES_FILES)
    assert git(repo, "status", "--porcelain") == ""

    # A live-looking key is refused by the scan hook, and never printed.
    key = "ghp_" + "".join(random.Random(9).choices(string.ascii_letters + string.digits, k=36))
    (repo / "deploy.sh").write_text(f"#!/bin/sh\nexport GITHUB_TOKEN={key}\n")
    git(repo, "add", "deploy.sh")
    refused = commit(repo, "Add deploy script")
    assert refused.returncode != 0
    output = refused.stdout + refused.stderr  # git passes the hooks' output on to stderr
    assert "- hook id: gitmem-scan" in output
    assert "deploy.sh:2:" in output
    assert key not in output
    git(repo, "reset", "-q", "deploy.sh")
    (repo / "deploy.sh").unlink()

    # A memory committed without compiling: the hook compiles, stops the commit once; the second try passes.
    assert (
        run(
            "add", "Use pnpm, never npm", "--id", "use-pnpm", "--body", "npm rewrites the lockfile."
        ).code
        == 0
    )
    git(repo, "add", "-A")
    stopped = commit(repo, "memory: use pnpm")
    assert stopped.returncode != 0
    assert "files were modified by this hook" in stopped.stdout + stopped.stderr
    assert "(`use-pnpm`)" in (repo / "AGENTS.md").read_text()
    add_all_and_commit(repo, "memory: use pnpm")

    # Two branches each add memories and merge with no conflict.
    git(repo, "checkout", "-q", "-b", "feature")
    assert run("add", "API handlers validate input with pydantic", "--id", "validate-input", "--kind", "decision",
               "--path", "api/**").code == 0  # fmt: skip
    assert run("compile").code == 0
    add_all_and_commit(repo, "memory: validate input")
    incoming = json.loads(run("diff", "main", "--json").out)
    assert [(c["change"], c["id"]) for c in incoming["changes"]] == [("added", "validate-input")]
    markdown = run("diff", "main").out
    assert "validate-input" in markdown and "API handlers validate input with pydantic" in markdown

    git(repo, "checkout", "-q", "main")
    assert (
        run(
            "add",
            "Flaky: the payments test needs TZ=UTC",
            "--id",
            "payments-tz",
            "--kind",
            "pitfall",
        ).code
        == 0
    )
    assert run("compile").code == 0
    add_all_and_commit(repo, "memory: payments tz")
    merged = subprocess.run(
        ["git", "merge", "-q", "--no-edit", "feature"], cwd=repo, capture_output=True, text=True
    )
    assert merged.returncode == 0, merged.stdout + merged.stderr
    assert git(repo, "status", "--porcelain") == ""
    assert run("compile", "--check").code == 0

    # A bad memory, then later memories, then a plain `git revert` of the bad one.
    assert (
        run(
            "add", "Always squash migrations", "--id", "squash-migrations", "--kind", "convention"
        ).code
        == 0
    )
    assert run("compile").code == 0
    add_all_and_commit(repo, "memory: squash migrations")
    bad = git(repo, "rev-parse", "HEAD").strip()
    for memory_id, title in (
        ("pin-node", "Pin Node 20 in CI"),
        ("no-orm", "No ORM in the reporting service"),
    ):
        assert run("add", title, "--id", memory_id, "--kind", "decision").code == 0
        assert run("compile").code == 0
        add_all_and_commit(repo, f"memory: {memory_id}")
    reverted = subprocess.run(
        ["git", "revert", "--no-edit", bad], cwd=repo, capture_output=True, text=True
    )
    assert reverted.returncode == 0, reverted.stdout + reverted.stderr
    for path in RULES_FILES:
        text = (repo / path).read_text()
        assert "squash-migrations" not in text, path
        assert "pin-node" in text and "no-orm" in text and "use-pnpm" in text, path
    assert "Run `make test` before pushing." in (repo / "AGENTS.md").read_text()
    assert run("compile", "--check").code == 0
    assert run("check").code == 0
