"""`gitmem import --from CLIENT`: each client's own memory store, in the format the client writes (issue 25).

Claude Code's store is also written by the real client in tests/clients/test_client_stores.py; the stores here are
shaped as each client's installed package writes them (the versions in gitmem.clientstores.STORES): Claude Code's
frontmatter as it rewrites it (``metadata`` with ``node_type``, ``type``, ``originSessionId``, ``modified``), Qwen
Code's top-level ``type``, Gemini CLI's registry, ownership marker and private project ``MEMORY.md``, Codex's task
groups with ``applies_to: cwd=``.
"""

from __future__ import annotations

import json
import os
import subprocess
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from gitmem.clientstores import claude_key, qwen_key
from tests.conftest import Run, gitmem_command, tree_digest

# Built at run time: the repository never holds a string its own scanner would flag.
TOKEN = "ghp_" + "aB3dE5fG7hJ9kL2mN4pQ6rS8tU0vW1xY" + "z9Qk"
OUTSIDE = "Wombat-outside-the-store"  # a word only in a file a link in the store points to


def home() -> Path:
    return Path(os.environ["HOME"])


def claude_file(description: str, kind: str, body: str) -> str:
    return (
        f'---\nname: {description.lower().replace(" ", "-")[:30]}\ndescription: "{description}"\nmetadata:\n'
        f"  node_type: memory\n  type: {kind}\n  originSessionId: 9602fec0-959f-4876-91d2-0177f6aaee96\n"
        f"  modified: 2026-12-01T20:12:17.614Z\n---\n\n{body}\n"
    )


def claude_store(root: Path) -> Path:
    folder = home() / ".claude" / "projects" / claude_key(str(root)) / "memory"
    folder.mkdir(parents=True)
    files = {
        "feedback_pnpm.md": claude_file(
            "Use pnpm, never npm, in the web workspace",
            "feedback",
            "npm rewrites pnpm-lock.yaml.\n\n**Why:** it breaks.",
        ),
        "project_freeze.md": claude_file(
            "Releases are frozen on Fridays", "project", "From 12:00 UTC."
        ),
        "reference_registry.md": claude_file(
            "The staging registry login", "reference", f"Log in with {TOKEN}."
        ),
        "MEMORY.md": "- [Use pnpm](feedback_pnpm.md) — never npm\n- [Freeze](project_freeze.md) — Fridays\n"
        "- [Registry](reference_registry.md) — login\n",
    }
    for name, text in files.items():
        (folder / name).write_text(text, encoding="utf-8")
    return folder


def qwen_store(root: Path) -> Path:
    folder = home() / ".qwen" / "projects" / qwen_key(str(root)) / "memory"
    folder.mkdir(parents=True)
    for name, (description, kind, body) in {
        "feedback_pnpm.md": (
            "Use pnpm, never npm, in the web workspace",
            "feedback",
            "npm rewrites the lock file.",
        ),
        "project_freeze.md": ("Releases are frozen on Fridays", "project", "From 12:00 UTC."),
        "reference_registry.md": (
            "The staging registry login",
            "reference",
            f"Log in with {TOKEN}.",
        ),
    }.items():
        text = f"---\nname: {name[:-3]}\ndescription: {description}\ntype: {kind}\n---\n\n{body}\n"
        (folder / name).write_text(text, encoding="utf-8")
    (folder / "MEMORY.md").write_text("# Memory\n\n- [pnpm](feedback_pnpm.md)\n", encoding="utf-8")
    return folder.parent


def gemini_store(root: Path) -> Path:
    gemini = home() / ".gemini"
    tmp = gemini / "tmp" / "repo"
    (tmp / "memory").mkdir(parents=True)
    (gemini / "projects.json").write_text(
        json.dumps({"projects": {str(root): "repo", "/elsewhere/other": "other"}})
    )
    (tmp / ".project_root").write_text(str(root))
    (tmp / "memory" / "MEMORY.md").write_text(
        "# Project memory\n\n- Use pnpm, never npm, in the web workspace\n- Releases are frozen on Fridays\n"
        f"- The staging registry login is {TOKEN}\n- [Deploy notes](deploy.md)\n",
        encoding="utf-8",
    )
    return gemini


def codex_store(root: Path) -> Path:
    memories = home() / ".codex" / "memories"
    memories.mkdir(parents=True)
    (memories / "MEMORY.md").write_text(
        "# Task Group: the web workspace of this repository\n"
        "scope: building and releasing the web app\n"
        f"applies_to: cwd={root}; reuse_rule=safe for this checkout\n\n"
        "## Task 1: fix the build, succeeded\n\n### rollout_summary_files\n\n"
        f"- rollout_summaries/2026-11-30-a.md (cwd={root}, rollout_path=/x, updated_at=2026-11-30, thread_id=1)\n\n"
        "### keywords\n\n- pnpm, lockfile\n\n"
        "## Reusable knowledge\n\n- Use pnpm, never npm, in the web workspace [Task 1]\n"
        "- Releases are frozen on Fridays [Task 1]\n\n"
        "## Failures and how to do differently\n\n"
        f"- The staging registry rejected the login until {TOKEN} was used [Task 1]\n\n"
        "# Task Group: another project entirely\nscope: something else\n"
        "applies_to: cwd=/elsewhere/other; reuse_rule=never here\n\n"
        "## Reusable knowledge\n\n- Deploy the other project with make ship\n",
        encoding="utf-8",
    )
    return memories


STORES: dict[str, Callable[[Path], Path]] = {
    "claude": claude_store,
    "qwen": qwen_store,
    "gemini": gemini_store,
    "codex": codex_store,
}
TITLES = {"Use pnpm, never npm, in the web workspace", "Releases are frozen on Fridays"}


def everything_written(root: Path) -> bytes:
    """Every byte gitmem may have written: the repository (with .git/) and the personal store."""
    out = b""
    for base in (root, home() / ".config", home() / ".cache"):
        for path in sorted(base.rglob("*")) if base.exists() else ():
            if path.is_file():
                out += path.read_bytes()
    return out


def imported(run: Run, *args: str, code: int = 0) -> dict[str, Any]:
    result = run("import", "--json", *args)
    assert result.code == code, result.out + result.err
    assert TOKEN not in result.out + result.err
    data: dict[str, Any] = json.loads(result.out)
    return data


@pytest.mark.parametrize("client", list(STORES))
def test_a_store_of_three_memories_one_secret_gives_two_proposals_once(
    project: Path, run: Run, client: str
) -> None:
    store = STORES[client](project)
    before = tree_digest(store)
    data = imported(run, "--from", client, code=1)
    assert {m["title"] for m in data["memories"]} == TITLES
    for memory in data["memories"]:
        assert memory["status"] == "proposed"
        assert memory["source"] == "import"
        assert memory["origin"].startswith(f"{client}:")  # the client, the file and the line
        assert memory["origin"].rsplit(":", 1)[1].isdigit()
        assert (project / memory["path"]).is_file()
    assert len(data["refused"]) == 1
    refused = data["refused"][0]
    assert refused["reason"] == "secret" and "possible secret (github-pat)" in refused["message"]
    assert refused["message"].startswith(refused["origin"])  # the file and the line, never the text
    assert TOKEN.encode() not in everything_written(project)
    assert tree_digest(store) == before

    again = imported(run, "--from", client, code=1)
    assert again["memories"] == []
    assert {k["why"] for k in again["known"]} == {"imported-before"}
    assert len(again["known"]) == 2
    assert tree_digest(store) == before


def test_only_this_repositorys_task_groups_and_registry_entries_are_read(
    project: Path, run: Run
) -> None:
    codex_store(project)
    gemini_store(project)
    data = imported(run, "--from", "codex", "--from", "gemini", code=1)
    assert not any("other project" in m["title"] for m in data["memories"])
    assert [c["name"] for c in data["clients"]] == ["codex", "gemini"]
    codex = [m for m in data["memories"] if m["origin"].startswith("codex:")]
    assert sorted((m["origin"], m["kind"]) for m in codex) == [
        ("codex:MEMORY.md:17", "convention"),  # "Use …": an imperative
        ("codex:MEMORY.md:18", "convention"),
    ]
    # the same two memories from the second client are known, not proposed twice
    assert len(data["memories"]) == 2
    assert {k["why"] for k in data["known"]} == {"duplicate"}


def test_the_dry_run_writes_nothing(project: Path, run: Run) -> None:
    claude_store(project)
    data = imported(run, "--from", "claude", "--dry-run", code=1)
    assert data["dry_run"] is True and len(data["memories"]) == 2
    assert not list((project / ".memory" / "memories").glob("*.yaml"))
    assert not (project / ".git" / "gitmem" / "client-imports.json").exists()


def test_personal_entries_only_with_user_and_never_into_the_repository(
    project: Path, run: Run
) -> None:
    folder = claude_store(project)
    (folder / "user_role.md").write_text(
        claude_file(
            "The user is a backend engineer new to React", "user", "Explain frontend code."
        ),
        encoding="utf-8",
    )
    data = imported(run, "--from", "claude", code=1)
    assert [s["origin"] for s in data["skipped"] if s["why"] == "personal"] == [
        "claude:memory/user_role.md:11"
    ]
    assert "React" not in (project / ".memory").as_posix() + "".join(
        p.read_text() for p in (project / ".memory" / "memories").glob("*.yaml")
    )
    data = imported(run, "--from", "claude", "--user", code=1)
    [personal] = data["memories"]
    assert personal["scope"] == "personal" and personal["kind"] == "preference"
    assert Path(personal["path"]).resolve().is_relative_to(home() / ".config" / "gitmem")
    assert not any(
        "React" in p.read_text() for p in (project / ".memory" / "memories").glob("*.yaml")
    )


def test_a_global_store_is_not_read_without_user(project: Path, run: Run) -> None:
    gemini = home() / ".gemini"
    gemini.mkdir()
    (gemini / "GEMINI.md").write_text(
        "# Me\n\n## Gemini Added Memories\n- I prefer tabs over spaces\n"
    )
    data = imported(run, "--from", "gemini")
    assert data["memories"] == [] and data["clients"][0]["places"] == []
    assert [s["why"] for s in data["skipped"]] == ["personal"]
    data = imported(run, "--from", "gemini", "--user")
    assert [(m["title"], m["scope"]) for m in data["memories"]] == [
        ("I prefer tabs over spaces", "personal")
    ]
    assert data["memories"][0]["origin"] == "gemini:GEMINI.md:4"


def test_an_entry_the_client_edited_is_a_change_of_the_memory_it_became(
    project: Path, run: Run
) -> None:
    folder = claude_store(project)
    first = {m["origin"]: m for m in imported(run, "--from", "claude", code=1)["memories"]}
    freeze = next(m for m in first.values() if "Fridays" in m["title"])
    edit = claude_file("Releases are frozen on Fridays and Saturdays", "project", "From 12:00 UTC.")
    (folder / "project_freeze.md").write_text(edit, encoding="utf-8")
    data = imported(run, "--from", "claude", code=1)
    [change] = data["memories"]
    assert (change["change"], change["id"]) == (
        "update",
        freeze["id"],
    )  # still a proposal: reworded in place
    assert "Saturdays" in (project / ".memory" / "memories" / f"{freeze['id']}.yaml").read_text()

    assert run("accept", freeze["id"]).code == 0
    edit = claude_file("Releases are frozen from Thursday evening", "project", "From 18:00 UTC.")
    (folder / "project_freeze.md").write_text(edit, encoding="utf-8")
    data = imported(run, "--from", "claude", code=1)
    [change] = data["memories"]
    assert change["change"] == "supersede" and change["supersedes"] == [freeze["id"]]
    assert change["status"] == "proposed" and change["id"] != freeze["id"]
    assert imported(run, "--from", "claude", code=1)["memories"] == []


def test_a_reworded_bullet_is_a_change_too(project: Path, run: Run) -> None:
    memories = codex_store(project)
    first = imported(run, "--from", "codex", code=1)["memories"]
    pnpm = next(m for m in first if "pnpm" in m["title"])
    text = (memories / "MEMORY.md").read_text()
    (memories / "MEMORY.md").write_text(
        text.replace("never npm, in the web", "never npm or yarn, in the web")
    )
    [change] = imported(run, "--from", "codex", code=1)["memories"]
    assert change["change"] == "update" and change["id"] == pnpm["id"]
    assert imported(run, "--from", "codex", code=1)["memories"] == []


def test_a_rejected_entry_is_not_proposed_again(project: Path, run: Run) -> None:
    claude_store(project)
    first = imported(run, "--from", "claude", code=1)["memories"]
    rejected = next(m for m in first if "Fridays" in m["title"])
    assert run("forget", rejected["id"]).code == 0  # before it was ever committed
    data = imported(run, "--from", "claude", code=1)
    assert data["memories"] == []
    assert [(r["why"], r["id"]) for r in data["rejected"]] == [("rejected-before", rejected["id"])]


def test_a_removal_in_git_is_remembered_without_the_record(project: Path, run: Run) -> None:
    from tests.conftest import git

    claude_store(project)
    first = imported(run, "--from", "claude", code=1)["memories"]
    git(project, "add", "-A")
    git(project, "commit", "-qm", "Proposals from Claude Code")
    rejected = next(m for m in first if "Fridays" in m["title"])
    assert run("forget", rejected["id"]).code == 0
    git(project, "commit", "-qam", "Not this one")
    (project / ".git" / "gitmem" / "client-imports.json").unlink()
    data = imported(run, "--from", "claude", code=1)
    assert data["memories"] == []
    assert [r["why"] for r in data["rejected"]] == ["removed"]
    assert "removed by commit" in data["rejected"][0]["detail"]


def test_a_link_leading_out_of_the_store_is_refused_and_not_read(
    project: Path, run: Run, tmp_path: Path
) -> None:
    folder = claude_store(project)
    secret = tmp_path / "elsewhere.md"
    secret.write_text(claude_file(f"{OUTSIDE} notes", "project", OUTSIDE))
    (folder / "project_link.md").symlink_to(secret)
    result = run("import", "--from", "claude", "--json")
    assert OUTSIDE not in result.out + result.err
    data = json.loads(result.out)
    assert {
        "origin": "claude:memory/project_link.md",
        "reason": "unreadable",
        "message": "a link leading out of the store: not followed",
    } in data["refused"]
    assert len(data["memories"]) == 2


def test_a_store_folder_that_is_a_link_is_refused(project: Path, run: Run, tmp_path: Path) -> None:
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    (elsewhere / "project_x.md").write_text(claude_file(f"{OUTSIDE} notes", "project", OUTSIDE))
    parent = home() / ".claude" / "projects" / claude_key(str(project))
    parent.mkdir(parents=True)
    (parent / "memory").symlink_to(elsewhere)
    result = run("import", "--from", "claude", "--json")
    assert OUTSIDE not in result.out + result.err
    assert result.code == 1
    assert [r["message"] for r in json.loads(result.out)["refused"]] == [
        "the store's folder is a link: not followed"
    ]


def test_a_file_over_the_limit_and_hidden_text_are_refused(project: Path, run: Run) -> None:
    folder = claude_store(project)
    (folder / "project_huge.md").write_text(claude_file("Huge", "project", "x" * 300_000))
    (folder / "project_hidden.md").write_text(
        claude_file("Use the fast path", "project", "Run it\u200b now.")
    )
    data = imported(run, "--from", "claude", code=1)
    messages = {r["origin"]: r["message"] for r in data["refused"]}
    assert "over the 256 KiB limit" in messages["claude:memory/project_huge.md"]
    assert messages["claude:memory/project_hidden.md:11"].endswith("hidden Unicode (U+200B)")
    assert len(data["memories"]) == 2


def test_from_takes_no_path_nor_accept(project: Path, run: Run) -> None:
    assert run("import", "--from", "claude", "AGENTS.md").code == 2
    assert run("import", "--from", "claude", "--accept").code == 2
    assert run("import", "--user").code == 2
    result = run("import", "--from", "all", "--json")
    assert result.code == 0
    assert [c["name"] for c in json.loads(result.out)["clients"]] == [
        "claude",
        "codex",
        "gemini",
        "qwen",
    ]


@pytest.mark.slow
def test_the_session_start_status_says_when_a_store_has_entries_not_proposed(
    project: Path, run: Run
) -> None:
    sessions = iter(range(100))

    def status() -> str:
        # a new session each time: a session's start is answered once (one injection when two clients' hooks run)
        done = subprocess.run(
            [*gitmem_command(), "hook", "session-start", "--client", "claude"],
            input=json.dumps({"session_id": f"s{next(sessions)}", "cwd": str(project)}),
            capture_output=True,
            text=True,
            check=False,
        )
        assert done.returncode == 0, done.stderr
        return str(json.loads(done.stdout)["hookSpecificOutput"]["additionalContext"])

    assert "--from" not in status()
    folder = claude_store(project)
    assert (
        "Claude Code (3 files)" in status()
        and "`gitmem import --from claude --dry-run`" in status()
    )
    imported(run, "--from", "claude", code=1)
    assert "--from" not in status()
    (folder / "project_new.md").write_text(
        claude_file("Tests run in CI only", "project", "Not locally.")
    )
    assert "Claude Code (1 file)" in status()
    assert TOKEN not in status()


def test_an_edit_after_the_record_was_lost_is_still_a_change(project: Path, run: Run) -> None:
    folder = claude_store(project)
    first = imported(run, "--from", "claude", code=1)["memories"]
    freeze = next(m for m in first if "Fridays" in m["title"])
    record = project / ".git" / "gitmem" / "client-imports.json"
    record.unlink()  # another clone, or a cleaned .git/gitmem: the memories' origins say what was imported
    assert imported(run, "--from", "claude", code=1)["memories"] == []
    assert record.is_file()
    edit = claude_file("Releases are frozen on Fridays and Saturdays", "project", "From 12:00 UTC.")
    (folder / "project_freeze.md").write_text(edit, encoding="utf-8")
    [change] = imported(run, "--from", "claude", code=1)["memories"]
    assert (change["change"], change["id"]) == ("update", freeze["id"])


def test_a_store_gives_at_most_200_files(project: Path, run: Run) -> None:
    folder = claude_store(project)
    for i in range(198):  # 3 memories and the index already: 201 files
        (folder / f"project_{i:03}.md").write_text(
            claude_file(f"Fact number {i} of many", "project", "x")
        )
    data = imported(
        run, "--from", "claude", "--dry-run"
    )  # (in name order: reference_registry.md is not reached)
    assert data["clients"][0]["files"] == 199  # 200 listed, the index among them (skipped)
    assert ("claude:memory", "more than 200 files: the first 200 were read") in {
        (s["origin"], s["why"]) for s in data["skipped"]
    }


def test_codex_0_171_raw_memories_not_yet_consolidated_are_read_for_this_repository(
    project: Path, run: Run
) -> None:
    """Codex 0.171 keeps each session's raw memory in raw_memories.md (and memories_1.sqlite) until its next
    consolidation writes MEMORY.md: the raw memories of sessions that ran in this repository are imported, those of
    other folders and the References (verbatim strings) are not, a preference signal is personal, the summary and
    the database are not read."""
    memories = codex_store(project)
    (memories / "raw_memories.md").write_text(
        "# Raw Memories\n\nMerged stage-1 raw memories (stable ascending thread-id order):\n\n"
        "## Thread `019a-one`\nupdated_at: 2026-11-30T10:00:00Z\n"
        f"cwd: {project / 'web'}\nrollout_summary_file: rollout_summaries/a.md\n\n"
        "description: fixed the flaky checkout test\ntask: fix-flaky-test\ntask_group: web\n"
        f"task_outcome: success\ncwd: {project / 'web'}\nkeywords: playwright, retries\n\n"
        "### Task 1: fix the flaky checkout test\ntask: fix-flaky-test\ntask_group: web\ntask_outcome: success\n"
        "Preference signals:\n"
        '- when the test failed, the user said: "never add retries" -> fix the wait instead\n'
        "Reusable knowledge:\n- The checkout test waits for the payment iframe before clicking pay\n"
        "Failures and how to do differently:\n- Retrying the test hid the race: wait for the iframe instead\n"
        "References:\n- pnpm exec playwright test checkout.spec.ts --repeat-each 20\n\n"
        "## Thread `019a-two`\nupdated_at: 2026-11-30T11:00:00Z\ncwd: /elsewhere/other\n\n"
        "### Task 1: other\nReusable knowledge:\n- Ship the other project with make ship\n",
        encoding="utf-8",
    )
    (memories / "memory_summary.md").write_text(
        "## User Profile\n\n- Summary of MEMORY.md only\n", encoding="utf-8"
    )
    (memories.parent / "memories_1.sqlite").write_bytes(b"SQLite format 3\x00")
    data = imported(run, "--from", "codex", code=1)
    raw = sorted(
        (m["title"], m["kind"]) for m in data["memories"] if "raw_memories.md" in m["origin"]
    )
    assert raw == [
        ("Retrying the test hid the race: wait for the iframe instead", "pitfall"),
        (
            "The checkout test waits for the payment iframe before clicking pay",
            "convention",
        ),  # by its wording
    ]
    assert [s["why"] for s in data["skipped"] if "raw_memories.md" in s["origin"]] == ["personal"]
    titles = " ".join(m["title"] for m in data["memories"])
    assert "make ship" not in titles and "playwright test" not in titles and "Summary" not in titles


def test_codex_files_without_a_task_group_or_thread_give_no_entry(project: Path, run: Run) -> None:
    """A MEMORY.md without a task group and a raw_memories.md without a thread (Codex before its
    first consolidation) are read as none for this repository, not a crash of the import."""
    memories = home() / ".codex" / "memories"
    memories.mkdir(parents=True)
    (memories / "MEMORY.md").write_text("# Memories\n\n- nothing consolidated yet\n")
    (memories / "raw_memories.md").write_text("# Raw Memories\n\n- no raw memory yet\n")
    data = imported(run, "--from", "codex")
    assert data["memories"] == []
    assert ("codex:raw_memories.md", "1 raw memory(ies), none for this repository") in {
        (s["origin"], s["why"]) for s in data["skipped"]
    }
