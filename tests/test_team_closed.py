"""Closed under git (issue 31): over the token budget, every git operation that combines memory changes leaves the
rules files exactly as `gitmem compile` writes them for the resulting store, `gitmem check` green and the tree
clean, with nothing to fix by hand.

The store is over its budget: each branch's memory takes the place of the lowest-ranked one, so a merge of two
blocks cannot be right (the merged store leaves out a memory neither side left out). Real git runs the hooks
`gitmem init` installed (post-commit, post-merge, post-rewrite) and the merge driver, both calling the installed
`gitmem` from PATH.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from gitmem import yamlio
from tests.conftest import Run, git

TARGETS = ("agents", "claude")
BUDGET = 280  # tokens: six of the ten base memories fit; each branch's memory displaces one more


def sh(repo: Path, *args: str) -> subprocess.CompletedProcess[str]:
    done = subprocess.run(["git", *args], cwd=repo, capture_output=True, text=True, check=False)
    assert done.returncode == 0, f"git {' '.join(args)}: {done.stdout}{done.stderr}"
    return done


def commit_all(repo: Path, message: str) -> None:
    git(repo, "add", "-A")
    sh(
        repo, "commit", "-q", "--no-verify", "-m", message
    )  # the compile hook's work is done by hand here


def green(repo: Path, run: Run) -> None:
    """What the issue asks of every operation: check green and nothing left in the working tree."""
    checked = run("check")
    assert checked.code == 0, checked.out + checked.err
    assert git(repo, "status", "--porcelain") == ""


def init(repo: Path, run: Run) -> None:
    args = ["init"]
    for target in TARGETS:
        args += ["--target", target]
    result = run(*args)
    assert result.code == 0, result.out + result.err


def add(repo: Path, run: Run, memory_id: str, title: str, *options: str) -> None:
    assert (
        run(
            "add",
            title,
            "--id",
            memory_id,
            "--body",
            f"Why {memory_id} matters, in one line.",
            *options,
        ).code
        == 0
    )
    assert run("compile").code == 0
    commit_all(repo, f"memory: {memory_id}")


@pytest.fixture
def team(repo: Path, run: Run) -> Path:
    return make_team(repo, run)


def make_team(repo: Path, run: Run) -> Path:
    """Over budget: ten base memories of which six fit, and two branches that each add one high-priority memory
    (each fits alone, displacing the lowest-ranked base memory to the index)."""
    init(repo, run)
    config = repo / ".memory" / "config.yaml"
    config.write_text(config.read_text() + f"budget: {BUDGET}\n")
    (repo / "AGENTS.md").write_text("# Agents\n\nHand-written notes stay.\n")
    for number in range(1, 11):
        text = f"Base rule {number} about the build system and its tooling"
        assert (
            run(
                "add", text, "--id", f"base-{number}", "--body", f"Body of rule {number}, short."
            ).code
            == 0
        )
    assert run("compile").code == 0
    commit_all(repo, "base memories")
    sh(repo, "checkout", "-q", "-b", "a")
    add(repo, run, "feat-a", "Feature A: deploys go through the pipeline", "--priority", "high")
    assert "as index lines only (5, " in run("explain").out, "each branch's memory displaces one"
    sh(repo, "checkout", "-q", "-b", "b", "main")
    add(repo, run, "feat-b", "Feature B: migrations are reviewed by a DBA", "--priority", "high")
    sh(repo, "checkout", "-q", "main")
    return repo


def merge(repo: Path, branch: str) -> str:
    sh(repo, "merge", "-q", "--no-edit", "--no-ff", branch)
    return git(repo, "rev-parse", "HEAD").strip()


def holds_both(repo: Path) -> None:
    for path in ("AGENTS.md", "CLAUDE.md"):
        text = (repo / path).read_text()
        assert "(`feat-a`, high priority)" in text and "(`feat-b`, high priority)" in text, path
    assert "Hand-written notes stay." in (repo / "AGENTS.md").read_text()


@pytest.mark.parametrize("order", [("a", "b"), ("b", "a")])
def test_merges_in_either_order(team: Path, run: Run, order: tuple[str, str]) -> None:
    for branch in order:
        merge(team, branch)
        green(team, run)
    holds_both(team)
    assert (
        git(team, "rev-list", "--count", "--merges", "HEAD").strip() == "2"
    )  # the merge commits themselves


@pytest.mark.parametrize("which", [0, 1])
def test_revert_of_each_merge(team: Path, run: Run, which: int) -> None:
    """`git revert -m 1` of either merge, after a later memory commit on main."""
    merges = [merge(team, "a"), merge(team, "b")]
    add(team, run, "feat-c", "Feature C: retries back off exponentially", "--priority", "high")
    sh(team, "revert", "--no-edit", "-m", "1", merges[which])
    green(team, run)
    gone, kept = ("feat-a", "feat-b") if which == 0 else ("feat-b", "feat-a")
    for path in ("AGENTS.md", "CLAUDE.md"):
        text = (team / path).read_text()
        assert f"(`{gone}`" not in text and f"(`{kept}`" in text and "(`feat-c`" in text, path


def test_a_merge_with_conflicts_resolved_by_hand(team: Path, run: Run) -> None:
    """Hand-written text changed on both sides stops the merge; the user takes one side's AGENTS.md (whose block
    lacks the other branch's memory) and commits: post-commit recompiles into that commit."""
    sh(team, "checkout", "-q", "a")
    agents = team / "AGENTS.md"
    agents.write_text(
        agents.read_text().replace("Hand-written notes stay.", "Notes from branch a.")
    )
    commit_all(team, "notes a")
    sh(team, "checkout", "-q", "main")
    merge(team, "b")
    agents.write_text(agents.read_text().replace("Hand-written notes stay.", "Notes from main."))
    commit_all(team, "notes main")
    stopped = subprocess.run(
        ["git", "merge", "--no-edit", "a"], cwd=team, capture_output=True, text=True
    )
    assert stopped.returncode != 0 and "AGENTS.md" in stopped.stdout
    sh(team, "checkout", "--theirs", "--", "AGENTS.md")
    sh(team, "add", "AGENTS.md")
    sh(team, "commit", "-q", "--no-edit", "--no-verify")
    green(team, run)
    text = agents.read_text()
    assert "Notes from branch a." in text and "(`feat-a`" in text and "(`feat-b`" in text


def test_a_hooks_path_in_use_gets_the_line_too(repo: Path, run: Run) -> None:
    """A team's committed hooks folder (core.hooksPath, as husky sets it): gitmem adds its line to the post-merge
    script there, every other byte kept, and creates the others; a merge over the budget ends green."""
    hooks = repo / ".githooks"
    hooks.mkdir()
    own = "#!/bin/sh\n# the team's own post-merge hook\necho merged >> .git/team-hook-ran\n"
    (hooks / "post-merge").write_text(own)
    (hooks / "post-merge").chmod(0o755)
    git(repo, "config", "core.hooksPath", ".githooks")
    make_team(repo, run)
    script = (hooks / "post-merge").read_text()
    assert script.startswith("#!/bin/sh\n# gitmem:") and script.endswith(
        own.removeprefix("#!/bin/sh\n")
    )
    assert {"post-commit", "post-merge", "post-rewrite"} <= {path.name for path in hooks.iterdir()}
    merge(repo, "a")
    merge(repo, "b")
    green(repo, run)
    holds_both(repo)
    assert (repo / ".git" / "team-hook-ran").read_text() == "merged\nmerged\n"


def test_revert_of_a_memory_commit(team: Path, run: Run) -> None:
    merge(team, "a")
    merge(team, "b")
    sh(team, "revert", "--no-edit", git(team, "rev-parse", "a").strip())
    green(team, run)


def test_cherry_pick(team: Path, run: Run) -> None:
    merge(team, "a")
    sh(team, "cherry-pick", "b")
    green(team, run)
    holds_both(team)


def test_cherry_pick_of_several_commits(team: Path, run: Run) -> None:
    sh(team, "checkout", "-q", "b")
    add(team, run, "feat-c", "Feature C: retries back off exponentially", "--priority", "high")
    sh(team, "checkout", "-q", "main")
    merge(team, "a")
    sh(team, "cherry-pick", "main..b")
    green(team, run)


def test_rebase(team: Path, run: Run) -> None:
    merge(team, "a")
    sh(team, "checkout", "-q", "b")
    sh(team, "rebase", "-q", "main")
    green(team, run)
    holds_both(team)
    sh(team, "checkout", "-q", "main")
    sh(team, "merge", "-q", "--ff-only", "b")
    green(team, run)


def test_pull_with_a_merge(
    team: Path, run: Run, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    remote = tmp_path / "remote.git"
    sh(tmp_path, "clone", "-q", "--bare", str(team), str(remote))
    sh(team, "remote", "add", "origin", str(remote))
    sh(team, "fetch", "-q", "origin")
    sh(team, "branch", "-q", "--set-upstream-to", "origin/main", "main")
    mate = tmp_path / "mate"  # a teammate's clone, set up as each teammate does
    sh(tmp_path, "clone", "-q", str(remote), str(mate))
    monkeypatch.chdir(mate)
    init(mate, run)
    sh(mate, "merge", "-q", "--no-edit", "origin/a")
    sh(mate, "push", "-q", "origin", "main")
    monkeypatch.chdir(team)
    merge(team, "b")
    sh(team, "pull", "-q", "--no-rebase", "--no-edit")
    green(team, run)
    holds_both(team)


def workflow(repo: Path) -> dict[str, Any]:
    loaded = yamlio.load_plain((repo / ".github" / "workflows" / "gitmem.yml").read_text())
    assert isinstance(loaded, dict)
    return loaded


def step_running(repo: Path, job: str, command: str) -> str:
    """The ``run`` script of the step of ``job`` that runs ``command``, as the workflow holds it."""
    runs = [
        step["run"]
        for step in workflow(repo)["jobs"][job]["steps"]
        if command in step.get("run", "")
    ]
    assert len(runs) == 1, runs
    return str(runs[0])


def run_step(script: str, cwd: Path, **env: str) -> subprocess.CompletedProcess[str]:
    """A workflow step's script, run by bash as GitHub's runner does (``bash -e``)."""
    done = subprocess.run(["bash", "-e", "-c", script], cwd=cwd, capture_output=True, text=True, check=False,
                          env={**os.environ, **env})  # fmt: skip
    assert done.returncode == 0, done.stdout + done.stderr
    return done


def test_merge_without_the_driver_then_the_workflows_refresh(
    team: Path, run: Run, tmp_path: Path
) -> None:
    """A hosting service merges with no gitmem code: a clone without `gitmem init` (no driver, no hooks). Where git
    leaves conflicts in the rules files, the merge takes one side's, as a hurried resolution would. Then the
    workflow's refresh job, run as the runner runs it in a fresh clone, recompiles in a commit of its own and
    pushes it: the default branch is green again."""
    assert run("init", "--no-hooks", "--ci", "github").code == 0
    commit_all(team, "ci")
    merge(team, "a")
    remote = tmp_path / "remote.git"
    sh(tmp_path, "clone", "-q", "--bare", str(team), str(remote))
    host = tmp_path / "host"
    sh(tmp_path, "clone", "-q", str(remote), str(host))
    done = subprocess.run(
        ["git", "merge", "--no-edit", "origin/b"], cwd=host, capture_output=True, text=True
    )
    if done.returncode != 0:
        sh(host, "checkout", "--ours", "--", "AGENTS.md", "CLAUDE.md")
        sh(host, "add", "AGENTS.md", "CLAUDE.md")
        sh(host, "commit", "-q", "--no-verify", "--no-edit")
    sh(host, "push", "-q", "origin", "main")
    merged = git(host, "rev-parse", "HEAD").strip()
    runner = tmp_path / "runner"  # actions/checkout: a fresh clone of the pushed branch
    sh(tmp_path, "clone", "-q", str(remote), str(runner))
    stale = subprocess.run(
        ["gitmem", "check"], cwd=runner, capture_output=True, text=True, check=False
    )
    assert stale.returncode == 1, "the merge without the driver must leave the rules files stale"
    run_step(
        step_running(runner, "refresh", "gitmem compile --commit"),
        runner,
        GITHUB_REF="refs/heads/main",
    )
    after = tmp_path / "after"
    sh(tmp_path, "clone", "-q", str(remote), str(after))
    assert git(after, "rev-parse", "HEAD~1").strip() == merged  # a commit of its own, pushed
    assert (
        git(after, "log", "-1", "--format=%s").strip()
        == "gitmem: recompile rules files for the memories in this commit"
    )
    checked = subprocess.run(
        ["gitmem", "check"], cwd=after, capture_output=True, text=True, check=False
    )
    assert checked.returncode == 0, checked.stdout + checked.stderr
    assert git(after, "status", "--porcelain") == ""
    holds_both(after)
    again = run_step(
        step_running(runner, "refresh", "gitmem compile --commit"),
        runner,
        GITHUB_REF="refs/heads/main",
    )
    assert "up to date" in again.stdout  # fresh: no commit, nothing pushed


def test_the_workflows_review_says_what_a_pull_request_displaces(
    team: Path, run: Run, tmp_path: Path
) -> None:
    """The review job's diff step, run as the runner runs it on a pull request of branch b: the comment's body says
    what is added, what it moves to the index and the tokens per target; `gitmem check` passes."""
    assert run("init", "--no-hooks", "--ci", "github").code == 0
    commit_all(team, "ci")
    merge(team, "a")
    pull = tmp_path / "pull"
    sh(tmp_path, "clone", "-q", str(team), str(pull))
    sh(pull, "checkout", "-q", "-b", "pr", "origin/b")
    out = tmp_path / "runner-temp"
    out.mkdir()
    run_step(
        step_running(team, "review", "gitmem diff"), pull, BASE_REF="main", RUNNER_TEMP=str(out)
    )
    comment = (out / "gitmem-diff.md").read_text()
    assert "#### Added" in comment and "**`feat-b`**" in comment
    assert "- moves `base-6` to the index (agents, claude)" in comment  # the lowest-ranked in full
    assert "| agents | 280 |" in comment and "| claude | 280 |" in comment
    assert "<!-- gitmem:diff -->" in step_running(team, "review", "gh api")
    data = json.loads(subprocess.run(["gitmem", "diff", "origin/main...HEAD", "--json"], cwd=pull,
                                     capture_output=True, text=True, check=True).stdout)  # fmt: skip
    assert {"id": "base-6", "title": "Base rule 6 about the build system and its tooling", "move": "to_index",
            "targets": ["agents", "claude"]} in data["budget"]["moves"]  # fmt: skip
    assert {t["target"]: t["tokens"]["after"] for t in data["budget"]["targets"]} == {
        "agents": 270,
        "claude": 270,
    }


def test_init_ci_github_writes_a_workflow_the_published_schema_accepts(
    repo: Path, run: Run, tmp_path: Path
) -> None:
    """Validated against GitHub's workflow schema as check-jsonschema vendors it (offline); the same validator
    refuses a workflow with one key misspelt, so the check can fail."""
    result = run("init", "--no-hooks", "--ci", "github")
    assert result.code == 0, result.err
    assert "created .github/workflows/gitmem.yml" in result.out
    assert "set the repository variable GITMEM_URL" in result.out
    path = repo / ".github" / "workflows" / "gitmem.yml"
    validator = shutil.which("check-jsonschema", path=str(Path(sys.executable).parent))
    assert validator is not None, "check-jsonschema (the test extra) is not installed"

    def valid(file: Path) -> bool:
        done = subprocess.run([validator, "--builtin-schema", "vendor.github-workflows", str(file)],
                              capture_output=True, text=True, check=False)  # fmt: skip
        return done.returncode == 0

    assert valid(path)
    broken = tmp_path / "broken.yml"
    broken.write_text(path.read_text().replace("runs-on:", "run-on:", 1))
    assert not valid(broken)
    data = workflow(repo)
    assert set(data["on"]) == {"pull_request", "push"} and data["on"]["push"]["branches"] == [
        "main"
    ]
    assert (
        run("init", "--no-hooks", "--ci", "github").out.count("gitmem.yml") == 0
    )  # unchanged the second time
    path.write_text("name: ours\n")
    refused = run("init", "--no-hooks", "--ci", "github")
    assert refused.code == 2 and "gitmem did not write it" in refused.err


def test_revert_of_the_merge_that_brought_the_first_memory(repo: Path, run: Run) -> None:
    """The store's first memory arrives by a merge and a later merge changes the rules files:
    `git revert -m 1` of the first merge. Before, that merge created AGENTS.md and CLAUDE.md, so the
    revert deleted files the later merge had changed: a modify/delete conflict that stops git before
    any hook runs (the field corpus's atomic-agents). Compile keeps gitmem's own root files from the
    first compile on (the set-up's commit, through the post-commit hook): the merge changes them."""
    init(repo, run)
    commit_all(repo, "set up gitmem")
    sh(repo, "checkout", "-q", "-b", "a")
    add(repo, run, "feat-a", "Feature A: deploys go through the pipeline")
    sh(repo, "checkout", "-q", "-b", "b", "main")
    add(repo, run, "feat-b", "Feature B: migrations are reviewed by a DBA")
    sh(repo, "checkout", "-q", "main")
    first = merge(repo, "a")
    merge(repo, "b")
    green(repo, run)
    sh(repo, "revert", "--no-edit", "-m", "1", first)
    green(repo, run)
    for path in ("AGENTS.md", "CLAUDE.md"):
        text = (repo / path).read_text()
        assert "(`feat-a`" not in text and "(`feat-b`" in text, path
    assert git(repo, "log", "--format=%H", "--diff-filter=A", "--", "AGENTS.md").split() == [
        git(repo, "rev-parse", "main~3").strip()
    ]  # created by the set-up's commit, not by a merge


def test_a_root_file_linked_to_another(repo: Path, run: Run) -> None:
    """`AGENTS.md -> CLAUDE.md` (the field corpus's fastmcp): compile writes through the link, so
    what the hook commits after a merge is CLAUDE.md. Before, it committed the unchanged link and
    left CLAUDE.md modified, and the revert of a merge refused to start (local changes)."""
    (repo / "CLAUDE.md").write_text("# Claude\n")
    (repo / "AGENTS.md").symlink_to("CLAUDE.md")
    commit_all(repo, "rules files")
    make_team(repo, run)
    first = merge(repo, "a")
    merge(repo, "b")
    green(repo, run)
    sh(repo, "revert", "--no-edit", "-m", "1", first)
    green(repo, run)
    text = (repo / "CLAUDE.md").read_text()
    assert "(`feat-a`" not in text and "(`feat-b`" in text
    assert (repo / "AGENTS.md").is_symlink()


def test_a_git_ignored_claude_md(repo: Path, run: Run, tmp_path: Path) -> None:
    """The team's .gitignore lists CLAUDE.md (each developer's own; the field corpus's
    atomic-agents): a clone never has it, so Claude Code reads AGENTS.md there, as it does where
    there is no CLAUDE.md. gitmem writes nothing where git ignores it, and check is green after the
    merges; before, compile wrote CLAUDE.md and check failed ("CLAUDE.md is ignored by git")."""
    (repo / ".gitignore").write_text("CLAUDE.md\n")
    commit_all(repo, "ignore CLAUDE.md")
    make_team(repo, run)
    merge(repo, "a")
    merge(repo, "b")
    green(repo, run)
    assert not (repo / "CLAUDE.md").exists()
    assert "(`feat-a`" in (repo / "AGENTS.md").read_text()
    clone = tmp_path / "clone"
    sh(tmp_path, "clone", "-q", str(repo), str(clone))
    checked = subprocess.run(["gitmem", "check"], cwd=clone, capture_output=True, text=True)
    assert checked.returncode == 0, checked.stdout + checked.stderr


def test_a_git_ignored_rules_file_is_written_but_not_committed(repo: Path, run: Run) -> None:
    """The root AGENTS.md is git-ignored (the field corpus's effect): after a merge the hook writes
    it for this clone and commits the other rules files. Before, `git add` of the ignored file failed
    the hook half-way, CLAUDE.md was left modified and the revert of the merge refused to start."""
    (repo / ".gitignore").write_text("/AGENTS.md\n")
    commit_all(repo, "ignore AGENTS.md")
    make_team(repo, run)
    first = merge(repo, "a")
    merge(repo, "b")
    assert git(repo, "status", "--porcelain") == ""
    sh(repo, "revert", "--no-edit", "-m", "1", first)
    assert git(repo, "status", "--porcelain") == ""
    assert "(`feat-a`" not in (repo / "CLAUDE.md").read_text()


def test_no_target_commits_none_of_the_users_files(repo: Path, run: Run) -> None:
    """With `targets: []` compile changes no file: the post-commit hook asked `git status` for no
    paths, which git reads as the whole tree, so it amended the user's next commit with every
    untracked or edited file of the working tree (found in review, round 25)."""
    init(repo, run)
    config = repo / ".memory" / "config.yaml"
    config.write_text(config.read_text().replace("targets: [agents, claude]", "targets: []"))
    assert run("compile").code == 0
    (repo / "tracked.txt").write_text("committed\n")
    commit_all(repo, "set up gitmem")
    (repo / "notes.txt").write_text("the user's own notes, not for a commit\n")
    (repo / "tracked.txt").write_text("edited, not staged\n")
    assert run("add", "Deploys go through the pipeline", "--id", "deploys").code == 0
    git(repo, "add", ".memory")
    sh(repo, "commit", "-q", "--no-verify", "-m", "memory: deploys")
    head = git(repo, "rev-parse", "HEAD")
    hooked = run("hook", "git")
    assert hooked.code == 0, hooked.out + hooked.err
    assert git(repo, "rev-parse", "HEAD") == head
    assert git(repo, "show", "--name-only", "--format=", "HEAD").split() == [
        ".memory/memories/deploys.yaml"
    ]
    left = sorted(git(repo, "status", "--porcelain").splitlines())
    assert left == [" M tracked.txt", "?? notes.txt"]
