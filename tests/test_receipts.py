"""`gitmem receipts` (issue 33, point 3): gitmem's own hooks record which memories each session received and which
calls the pre-tool hook refused, under .git/gitmem/ (bounded, never committed); the report joins them with the
clients' transcripts (a command that broke a memory and ran counts as a violation) and `gitmem doctor` reads it.
Hooks run as the clients run them: real processes reading the client's payload, in a real repository."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path
from typing import Any

import pytest

from gitmem.gateway import find_project
from gitmem.hook import receipts
from gitmem.scan.transcripts import claude_slug
from tests.conftest import git, gitmem_command, store_repo

PNPM = {
    "id": "use-pnpm",
    "title": "Use pnpm, never npm",
    "body": "npm rewrites pnpm-lock.yaml and breaks the workspace.",
    "enforce": {"commands": ["npm install*"], "edits": ["migrations/**"]},
    "created": "2026-01-01",
}
QUIET = {
    "id": "quiet-one",
    "title": "A memory nobody needs",
    "created": "2026-01-01",
    "paths": ["nowhere/**"],
}


@pytest.fixture
def root(tmp_path: Path) -> Path:
    root = store_repo(tmp_path / "repo", [PNPM, QUIET])
    done = subprocess.run([*gitmem_command(), "compile"], cwd=root, capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    git(root, "add", "-A")
    git(root, "-c", "core.hooksPath=/dev/null", "commit", "-qm", "set up")
    return root


def hook(root: Path, event: str, client: str, payload: dict[str, Any]) -> str:
    done = subprocess.run(
        [*gitmem_command(), "hook", event, "--client", client],
        cwd=root,
        input=json.dumps({"cwd": str(root), **payload}),
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 0, done.stderr
    return done.stdout


def report(root: Path, *args: str) -> dict[str, Any]:
    done = subprocess.run(
        [*gitmem_command(), "receipts", "--json", *args], cwd=root, capture_output=True, text=True
    )
    assert done.returncode == 0, done.stderr
    data = json.loads(done.stdout)
    assert isinstance(data, dict)
    return data


def row(data: dict[str, Any], memory_id: str) -> dict[str, Any]:
    found = [item for item in data["memories"] if item["id"] == memory_id]
    assert len(found) == 1
    return dict(found[0])


def bash(session: str, command: str) -> dict[str, Any]:
    return {"session_id": session, "tool_name": "Bash", "tool_input": {"command": command}}


def test_deliveries_and_blocks_are_counted_per_client(root: Path) -> None:
    hook(root, "session-start", "claude", {"session_id": "c1"})
    hook(root, "session-start", "claude", {"session_id": "c2"})
    hook(
        root, "session-start", "gemini", {"session_id": "g1"}
    )  # no GEMINI.md: it loads nothing of gitmem's
    assert hook(root, "pre-tool", "claude", bash("c1", "cd web && npm install left-pad"))
    assert hook(root, "pre-tool", "gemini", {"session_id": "g1", "tool_name": "run_shell_command",
                                             "tool_input": {"command": "npm install x"}})  # fmt: skip
    data = report(root)
    assert set(data) == {"since", "memories"}
    pnpm = row(data, "use-pnpm")
    assert set(pnpm) == {"id", "title", "delivered", "tokens", "violations", "blocked", "clients"}
    assert pnpm["title"] == "Use pnpm, never npm"
    assert (pnpm["delivered"], pnpm["violations"], pnpm["blocked"]) == (2, 0, 2)
    assert pnpm["tokens"] > 0
    assert pnpm["clients"] == {
        "claude": {"delivered": 2, "violations": 0, "blocked": 1},
        "gemini": {"delivered": 0, "violations": 0, "blocked": 1},
    }
    only = report(root, "--client", "gemini")
    assert row(only, "use-pnpm")["clients"] == {
        "gemini": {"delivered": 0, "violations": 0, "blocked": 1}
    }
    assert report(root, "--since", "2099-01-01")["memories"][0]["delivered"] == 0


def claude_transcript(root: Path, session: str, records: list[dict[str, Any]]) -> Path:
    folder = Path(os.environ["HOME"]) / ".claude" / "projects" / claude_slug(root)
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / f"{session}.jsonl"
    lines = [json.dumps({"sessionId": session, "cwd": str(root), **record}) for record in records]
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def tool_use(call: str, command: str) -> dict[str, Any]:
    content = [{"type": "tool_use", "id": call, "name": "Bash", "input": {"command": command}}]
    return {"type": "assistant", "message": {"role": "assistant", "content": content}}


def tool_result(call: str, text: str) -> dict[str, Any]:
    content = [{"type": "tool_result", "tool_use_id": call, "content": text, "is_error": True}]
    return {"type": "user", "message": {"role": "user", "content": content}}


def test_a_command_that_ran_where_no_hook_was_is_a_violation_from_the_transcript(
    root: Path,
) -> None:
    secret_looking = "npm install private-pkg --registry https://registry.example.com"
    claude_transcript(
        root, "t1", [tool_use("a", secret_looking), tool_result("a", "added 1 package")]
    )
    refusal = "gitmem: refused: it runs a command matching `npm install*`, which the project memory [use-pnpm] forbids."
    claude_transcript(
        root, "t2", [tool_use("b", "npm install y"), tool_result("b", refusal), tool_use("c", "ls")]
    )
    data = report(root)
    pnpm = row(data, "use-pnpm")
    assert pnpm["violations"] == 1 and pnpm["clients"]["claude"]["violations"] == 1
    done = subprocess.run([*gitmem_command(), "receipts"], cwd=root, capture_output=True, text=True)
    for shown in (json.dumps(data), done.stdout):  # ids, titles and counts: no transcript text
        assert (
            "private-pkg" not in shown
            and "registry.example.com" not in shown
            and "added 1 package" not in shown
        )
    doctor = subprocess.run(
        [*gitmem_command(), "doctor", "--json"], cwd=root, capture_output=True, text=True
    )
    codes = {(f["code"], f["id"]) for f in json.loads(doctor.stdout)["findings"]}
    assert (
        "broken-after-delivery",
        "use-pnpm",
    ) not in codes  # doctor reads receipts only where hooks recorded
    hook(root, "session-start", "claude", {"session_id": "c1"})
    doctor = subprocess.run(
        [*gitmem_command(), "doctor", "--json"], cwd=root, capture_output=True, text=True
    )
    codes = {(f["code"], f["id"]) for f in json.loads(doctor.stdout)["findings"]}
    assert ("broken-after-delivery", "use-pnpm") in codes
    assert ("never-delivered", "quiet-one") in codes  # sessions ran, and none received it


def codex_rollout(root: Path, session: str, items: list[dict[str, Any]]) -> Path:
    folder = Path(os.environ["HOME"]) / ".codex" / "sessions" / "2026" / "01" / "02"
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / f"rollout-2026-01-02T10-00-00-{session}.jsonl"
    meta = {"type": "session_meta", "payload": {"id": session, "cwd": str(root)}}
    lines = [meta] + [{"type": "response_item", "payload": item} for item in items]
    path.write_text("\n".join(json.dumps(line) for line in lines) + "\n", encoding="utf-8")
    return path


def test_writes_that_broke_enforce_edits_are_violations_from_the_transcripts(root: Path) -> None:
    """Claude Code's Write and Edit, Codex's apply_patch: a write into a path ``enforce.edits``
    forbids counts as a violation unless a refusal answered it; a write elsewhere does not."""
    write = {"file_path": str(root / "migrations" / "0002.sql"), "content": "drop table x;"}
    edit = {"file_path": "migrations/0001.sql", "old_string": "a", "new_string": "b"}
    claude_transcript(
        root,
        "w1",
        [
            {"type": "assistant", "message": {"role": "assistant", "content": [
                {"type": "tool_use", "id": "a", "name": "Write", "input": write},
                {"type": "tool_use", "id": "b", "name": "Edit", "input": edit},
                {"type": "tool_use", "id": "c", "name": "Write",
                 "input": {"file_path": str(root / "web" / "app.ts"), "content": "x"}},
            ]}},
        ],
    )  # fmt: skip
    patch = "*** Begin Patch\n*** Add File: migrations/0003.sql\n+drop table y;\n*** End Patch\n"
    codex_rollout(
        root,
        "0199a0b1-0000-7000-8000-000000000001",
        [{"type": "custom_tool_call", "name": "apply_patch", "call_id": "p", "input": patch}],
    )
    pnpm = row(report(root), "use-pnpm")
    assert pnpm["clients"]["claude"]["violations"] == 2
    assert pnpm["clients"]["codex"]["violations"] == 1
    assert pnpm["violations"] == 3


def test_a_client_without_hooks_gets_its_deliveries_from_its_transcripts(root: Path) -> None:
    """Sessions of a client whose hooks recorded nothing (not set up) are read from its transcripts:
    each delivered what its always-loaded rules files hold; a client whose hooks record is not
    counted twice."""
    claude_transcript(root, "n1", [tool_use("a", "ls")])
    claude_transcript(root, "n2", [tool_use("b", "pwd")])
    data = report(root)
    assert row(data, "use-pnpm")["clients"]["claude"]["delivered"] == 2
    assert row(data, "quiet-one")["delivered"] == 0  # scoped to nowhere/: not in the root's file
    hook(root, "session-start", "claude", {"session_id": "n1"})
    again = row(report(root), "use-pnpm")
    assert again["clients"]["claude"]["delivered"] == 1 and again["delivered"] == 1


def test_receipts_stay_under_gitmem_cache_and_bounded(root: Path) -> None:
    project = find_project(root)
    for number in range(4_000):
        receipts.record(project, "prompt", "claude", f"s{number}", [f"memory-{number}"] * 20)
    path = root / ".git" / "gitmem" / receipts.NAME
    assert path.stat().st_size <= receipts.LIMIT + 4096
    kept = receipts.read(project)
    assert kept and kept[-1]["ids"][0] == "memory-3999"  # the newest kept, the oldest dropped
    assert git(root, "status", "--porcelain") == ""  # nothing to commit
    assert "prompt" not in json.dumps(
        kept[-1]["s"]
    )  # a digest of the session id, never the id itself


def test_an_mcp_recall_is_a_delivery(root: Path) -> None:
    from datetime import date

    from gitmem.mcp import tools

    text = tools.recall(find_project(root), "pnpm npm workspace", 5, None, date.today())
    assert "[use-pnpm]" in text
    pnpm = row(report(root), "use-pnpm")
    assert pnpm["delivered"] == 1 and pnpm["clients"]["mcp"]["delivered"] == 1
