"""Remembering what was rejected: memories removed (forget, git revert) or retired, derived from git, refused when
proposed again through MCP, harvest or import, and listed by doctor."""

from __future__ import annotations

import json
import os
import subprocess
from datetime import date, timedelta
from pathlib import Path
from typing import Any

import pytest

from gitmem.checks.command import commands
from gitmem.errors import UsageError
from gitmem.gateway import find_project
from gitmem.git import removed
from gitmem.mcp import tools
from gitmem.memory.store import Store
from tests.conftest import Run, git
from tests.test_mcp import text_of, with_session


def memory_files(root: Path) -> list[str]:
    return sorted(p.name for p in (root / ".memory/memories").glob("*.yaml"))


def commit(root: Path, message: str, days_ago: int = 0) -> str:
    """Commit everything; returns the short sha."""
    git(root, "add", "-A")
    env = dict(os.environ)
    if days_ago:
        when = (date.today() - timedelta(days=days_ago)).isoformat() + "T12:00:00"
        env.update(GIT_AUTHOR_DATE=when, GIT_COMMITTER_DATE=when)
    done = subprocess.run(
        ["git", "commit", "-qm", message], cwd=root, env=env, capture_output=True, text=True
    )
    assert done.returncode == 0, done.stderr
    return git(root, "log", "-1", "--format=%h").strip()


def revert_head(root: Path) -> str:
    git(root, "revert", "--no-edit", "HEAD")
    return git(root, "log", "-1", "--format=%h").strip()


def propose(root: Path, title: str, body: str = "") -> str:
    found = find_project(root)
    return tools.propose(found, Store(found), tools.Proposal(title, body), date.today(), 0.85)


def refusal(root: Path, title: str, body: str = "") -> str:
    with pytest.raises(UsageError) as caught:
        propose(root, title, body)
    return str(caught.value)


def rejection(memory: str, how: str) -> str:
    return (
        f"not written: this nearly repeats memory {memory}, {how}. A human rejected it: do not propose it again. If "
        "you have new evidence that it holds now, tell the user; they can add it with `gitmem add`."
    )


@pytest.fixture
def committed(project: Path) -> Path:
    commit(project, "Set up gitmem")
    return project


LOG = """\
# Session: web build

## Conventions
- Use npm for the web app.
- Run the web tests with vitest.
"""


@pytest.mark.slow
def test_a_reverted_memory_is_refused_by_mcp_and_by_harvest_until_forced(
    committed: Path, run: Run
) -> None:
    assert run("add", "Use npm for the web app", "--body", "npm is what everyone knows.").code == 0
    commit(committed, "Add memory: use npm for the web app")
    revert = revert_head(committed)
    assert memory_files(committed) == []
    expected = rejection(
        "[use-npm-for-the-web-app] 'Use npm for the web app'",
        f'removed by commit {revert} (Revert "Add memory: use npm for the web app")',
    )

    seen: dict[str, Any] = {}

    async def body(session: Any) -> None:
        seen["again"] = await session.call_tool(
            "propose", {"title": "Use npm for the web app!", "body": "npm is what everyone knows."}
        )
        seen["other"] = await session.call_tool(
            "propose", {"title": "Run the web tests with vitest"}
        )

    with_session(committed, body)
    assert seen["again"].is_error
    assert text_of(seen["again"]).endswith(expected)
    assert not seen["other"].is_error, text_of(seen["other"])
    assert memory_files(committed) == ["run-the-web-tests-with-vitest.yaml"]

    (committed / "session.md").write_text(LOG)
    harvested = run("journal", "harvest", "session.md")
    assert harvested.code == 0, harvested.err
    assert harvested.out.splitlines() == [
        "not added: line 5 nearly repeats run-the-web-tests-with-vitest (similarity 1.00): Run the web tests with "
        "vitest",
        "not added: line 4 nearly repeats memory [use-npm-for-the-web-app] 'Use npm for the web app', removed by "
        f'commit {revert} (Revert "Add memory: use npm for the web app") (similarity 1.00); --force adds it anyway: '
        "Use npm for the web app",
    ]
    as_json = json.loads(run("journal", "harvest", "session.md", "--json").out)
    assert as_json["rejected"][0]["removed"]["short"] == revert
    assert as_json["rejected"][0]["removed"]["how"] == "reverted"
    assert memory_files(committed) == ["run-the-web-tests-with-vitest.yaml"]

    forced = run("journal", "harvest", "session.md", "--force")
    assert forced.code == 0, forced.err
    assert forced.out.splitlines()[0] == (
        "proposed .memory/memories/use-npm-for-the-web-app.yaml (convention, line 4): Use npm for the web app"
    )
    assert memory_files(committed) == [
        "run-the-web-tests-with-vitest.yaml",
        "use-npm-for-the-web-app.yaml",
    ]


def test_forget_is_remembered_before_and_after_it_is_committed(committed: Path, run: Run) -> None:
    assert run("add", "Deploy on Fridays", "--body", "Nobody is around on Mondays.").code == 0
    commit(committed, "Add deploy-on-fridays")
    assert run("forget", "deploy-on-fridays").code == 0
    assert refusal(committed, "Deploy on Fridays") == rejection(
        "[deploy-on-fridays] 'Deploy on Fridays'", "deleted in the working tree (not committed yet)"
    )
    sha = commit(committed, "Forget deploy-on-fridays: we never deploy on Fridays")
    assert refusal(committed, "deploy on fridays.") == rejection(
        "[deploy-on-fridays] 'Deploy on Fridays'",
        f"removed by commit {sha} (Forget deploy-on-fridays: we never deploy on Fridays)",
    )
    assert memory_files(committed) == []


def test_a_retired_memory_is_refused_with_its_reason(committed: Path, run: Run) -> None:
    assert run("add", "Use Redis for sessions").code == 0
    commit(committed, "Add use-redis-for-sessions")
    assert (
        run("retire", "use-redis-for-sessions", "--reason", "sessions moved to Postgres").code == 0
    )
    assert refusal(committed, "Use Redis for sessions") == rejection(
        "[use-redis-for-sessions] 'Use Redis for sessions'",
        "retired in the working tree (not committed yet); reason: sessions moved to Postgres",
    )
    sha = commit(committed, "Retire use-redis-for-sessions")
    assert refusal(committed, "Use Redis for sessions") == rejection(
        "[use-redis-for-sessions] 'Use Redis for sessions'",
        f"retired by commit {sha} (Retire use-redis-for-sessions); reason: sessions moved to Postgres",
    )


def test_what_was_brought_back_or_renamed_is_not_a_removal(committed: Path, run: Run) -> None:
    assert run("add", "Use uv for Python tooling").code == 0
    assert run("add", "Keep PRs small").code == 0
    commit(committed, "Add two")
    revert_head(committed)
    assert run("add", "Use uv for Python tooling").code == 0  # brought back on purpose
    commit(committed, "Bring uv back")
    found = find_project(committed)
    ids = [r.memory.id for r in removed.removals(found, Store(found).load())]
    assert ids == ["keep-prs-small"]
    git(
        committed,
        "mv",
        ".memory/memories/use-uv-for-python-tooling.yaml",
        ".memory/memories/use-uv.yaml",
    )
    (committed / ".memory/memories/use-uv.yaml").write_text(
        (committed / ".memory/memories/use-uv.yaml")
        .read_text()
        .replace("id: use-uv-for-python-tooling", "id: use-uv")
    )
    commit(committed, "Rename use-uv")
    assert [r.memory.id for r in removed.removals(found, Store(found).load())] == ["keep-prs-small"]
    assert refusal(committed, "Use uv for Python tooling").startswith(
        "not written: this nearly repeats memory [use-uv]"
    )


def test_the_history_follows_head_forward_and_back(committed: Path, run: Run) -> None:
    found = find_project(committed)
    store = Store(found)
    for title in ("First rule", "Second rule", "Third rule"):
        assert run("add", title).code == 0
    commit(committed, "Add three")
    assert removed.removals(found, store.load()) == []
    assert (found.cache_dir / "removed.json").is_file()

    assert run("forget", "first-rule").code == 0
    first = commit(committed, "Forget first-rule")
    assert run("forget", "second-rule").code == 0
    second = commit(
        committed, "Forget second-rule"
    )  # read from the cached HEAD on: only the new commits
    assert [
        (r.memory.id, r.commit.short if r.commit else None)
        for r in removed.removals(found, store.load())
    ] == [
        ("second-rule", second),
        ("first-rule", first),
    ]
    git(
        committed, "commit", "-q", "--amend", "-m", "Forget the second rule"
    )  # rewritten: read again from scratch
    assert [
        (r.memory.id, r.commit.subject if r.commit else None)
        for r in removed.removals(found, store.load())
    ] == [
        ("second-rule", "Forget the second rule"),
        ("first-rule", "Forget first-rule"),
    ]
    git(committed, "reset", "-q", "--hard", "HEAD~2")
    assert removed.removals(found, store.load()) == []
    (found.cache_dir / "removed.json").write_text("{not json")
    assert removed.removals(found, store.load()) == []


def test_doctor_lists_recent_removals_as_information(committed: Path, run: Run) -> None:
    for title in ("Old rule", "Recent rule", "Retired rule"):
        assert run("add", title).code == 0
    commit(committed, "Add three", days_ago=90)
    assert run("forget", "old-rule").code == 0
    commit(committed, "Forget old-rule", days_ago=60)
    assert run("forget", "recent-rule").code == 0
    recent = commit(committed, "Forget recent-rule")
    assert run("retire", "retired-rule", "--reason", "no longer true").code == 0

    result = run("doctor", "--strict")
    assert result.code == 0, result.out
    today = date.today().isoformat()
    assert result.out.splitlines() == [
        "recent removals (information: propose, harvest and import refuse near-duplicates of these):",
        f"    {today}  retired-rule: Retired rule (retired in the working tree (not committed yet))",
        f"    {today}  recent-rule: Recent rule (removed by commit {recent} (Forget recent-rule))",
        commands().describe(),
        "ok: 1 memory checked, nothing to report",
    ]
    data = json.loads(run("doctor", "--json").out)
    assert [(r["id"], r["how"], r["short"], r["date"], r["reason"]) for r in data["removals"]] == [
        ("retired-rule", "retired", None, today, "no longer true"),
        ("recent-rule", "removed", recent, today, None),
    ]
    assert data["summary"] == {"memories": 1, "errors": 0, "warnings": 0, "fixed": 0}
    assert refusal(committed, "Old rule").endswith(
        "A human rejected it: do not propose it again. If you have new "
        "evidence that it holds now, tell the user; they can add it with "
        "`gitmem add`."
    )


def test_before_the_first_commit_only_retired_memories_count(project: Path, run: Run) -> None:
    assert run("add", "Tabs, not spaces").code == 0
    assert run("retire", "tabs-not-spaces").code == 0
    found = find_project(project)
    assert [(r.memory.id, r.commit) for r in removed.removals(found, Store(found).load())] == [
        ("tabs-not-spaces", None)
    ]


def test_a_memory_forgotten_in_the_commit_that_adds_another_is_a_removal(
    committed: Path, run: Run
) -> None:
    """Memory files share most of their lines: git's rename detection would pair the two and hide the deletion."""
    assert run("add", "Use tabs for indentation").code == 0
    commit(committed, "Add tabs")
    assert run("forget", "use-tabs-for-indentation").code == 0
    assert run("add", "Use spaces for indentation").code == 0
    sha = commit(committed, "Tabs out, spaces in")
    assert refusal(committed, "Use tabs for indentation") == rejection(
        "[use-tabs-for-indentation] 'Use tabs for indentation'",
        f"removed by commit {sha} (Tabs out, spaces in)",
    )
