"""Scanning AI clients' own transcripts: `gitmem scan --user --log CLIENT` finds this project's transcripts in each
client's storage, and a transcript that gets staged is scanned as a log (no allow pragma counts in it). The
transcripts are built here, at run time, with fake secrets, in the shapes the clients write."""

from __future__ import annotations

import hashlib
import json
import os
import random
import string
import subprocess
import sys
from pathlib import Path

import pytest

from gitmem.scan.transcripts import claude_slug, recognise
from tests.conftest import Run, git, gitmem_command

_rng = random.Random(17)


def fake_key() -> str:
    return "sk_live_" + "".join(
        _rng.choice(string.ascii_letters + string.digits) for _ in range(40)
    )


def home() -> Path:
    return Path(os.environ["HOME"])


def jsonl(path: Path, records: list[dict[str, object]]) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("".join(json.dumps(record) + "\n" for record in records), encoding="utf-8")
    return path


def claude_transcript(root: Path, key: str) -> Path:
    # The key reaches the transcript inside a tool result, JSON-escaped (a newline in the middle of the command).
    return jsonl(
        home() / ".claude" / "projects" / claude_slug(root) / "0b1c-session.jsonl",
        [
            {
                "type": "user",
                "sessionId": "0b1c",
                "cwd": str(root),
                "message": {"role": "user", "content": "deploy"},
            },
            {
                "type": "assistant",
                "sessionId": "0b1c",
                "cwd": str(root),
                "message": {
                    "role": "assistant",
                    "content": [
                        {
                            "type": "tool_use",
                            "name": "Bash",
                            "input": {"command": f"export K={key}\nrun"},
                        }
                    ],
                },
            },
        ],
    )


def test_claude_transcripts_of_this_project(repo: Path, run: Run) -> None:
    key = fake_key()
    claude_transcript(repo, key)
    jsonl(
        home() / ".claude" / "projects" / "-some-other-project" / "x.jsonl",
        [{"type": "user", "k": fake_key()}],
    )
    refused = run("scan", "--log", "claude")
    assert refused.code == 2 and "needs --user" in refused.err
    found = run("scan", "--user", "--log", "claude", "--json")
    assert found.code == 1, found.err
    findings = json.loads(found.out)["findings"]
    assert [(Path(f["path"]).name, f["line"], f["rule"]) for f in findings] == [
        ("0b1c-session.jsonl", 2, "stripe-secret-key")
    ]
    assert key not in found.out + found.err and key[8:] not in found.out + found.err


def test_a_claude_session_of_another_folder_with_the_same_slug_is_not_this_project_s(
    repo: Path, run: Run
) -> None:
    """``…/repo`` and ``….repo`` share Claude Code's slug (issue 32, point 2): ``--log claude`` (and ``--redact``)
    takes only the sessions that ran here."""
    key, theirs = fake_key(), fake_key()
    claude_transcript(repo, key)
    twin = Path(f"{repo.parent}.repo")
    assert claude_slug(twin) == claude_slug(repo)
    jsonl(
        home() / ".claude" / "projects" / claude_slug(repo) / "9f9f-session.jsonl",
        [{"type": "queue-operation", "sessionId": "9f9f"}, {"type": "user", "sessionId": "9f9f", "cwd": str(twin),
          "message": {"role": "user", "content": f"export K={theirs}"}}],
    )  # fmt: skip
    found = run("scan", "--user", "--log", "claude", "--json")
    assert [Path(f["path"]).name for f in json.loads(found.out)["findings"]] == [
        "0b1c-session.jsonl"
    ]


def test_codex_gemini_and_opencode_transcripts(repo: Path, run: Run) -> None:
    keys = [fake_key() for _ in range(3)]
    sessions = home() / ".codex" / "sessions" / "2026" / "11" / "30"
    jsonl(
        sessions / "rollout-2026-11-30T10-00-00-aaaa.jsonl",
        [
            {"timestamp": "t", "type": "session_meta", "payload": {"id": "aaaa", "cwd": str(repo)}},
            {
                "timestamp": "t",
                "type": "response_item",
                "payload": {"type": "message", "content": keys[0]},
            },
        ],
    )
    jsonl(
        sessions / "rollout-2026-11-30T11-00-00-bbbb.jsonl",
        [
            {
                "timestamp": "t",
                "type": "session_meta",
                "payload": {"id": "bbbb", "cwd": "/elsewhere"},
            },
            {"k": fake_key()},
        ],
    )
    chat = (
        home()
        / ".gemini"
        / "tmp"
        / hashlib.sha256(str(repo).encode()).hexdigest()
        / "chats"
        / "session-1.json"
    )
    chat.parent.mkdir(parents=True)
    chat.write_text(
        json.dumps(
            {"sessionId": "g1", "messages": [{"type": "user", "content": f"my key is {keys[1]}"}]},
            indent=2,
        )
    )
    storage = home() / ".local" / "share" / "opencode" / "storage"
    jsonl(
        storage / "session" / "proj1" / "ses_1.json",
        [{"id": "ses_1", "directory": str(repo), "title": "t"}],
    )
    jsonl(
        storage / "message" / "ses_1" / "msg_1.json",
        [{"id": "msg_1", "sessionID": "ses_1", "role": "user"}],
    )
    part = {
        "id": "prt_1",
        "sessionID": "ses_1",
        "messageID": "msg_1",
        "type": "text",
        "text": f"use {keys[2]}",
    }
    jsonl(storage / "part" / "msg_1" / "prt_1.json", [part])
    for client, name in (
        ("codex", "rollout-2026-11-30T10-00-00-aaaa.jsonl"),
        ("gemini", "session-1.json"),
    ):
        done = run("scan", "--user", "--log", client, "--json")
        assert done.code == 1, (client, done.err)
        assert [Path(f["path"]).name for f in json.loads(done.out)["findings"]] == [name]
    done = run("scan", "--user", "--log", "opencode", "--json")
    assert [Path(f["path"]).name for f in json.loads(done.out)["findings"]] == ["prt_1.json"]
    everything = run("scan", "--user", "--log", "claude", "--log", "qwen")
    assert everything.code == 0  # none of them has a transcript of this project
    assert not any(key in done.out + done.err for key in keys)


def test_recognised_by_path_or_shape() -> None:
    assert recognise("notes/.claude/projects/-home-me-app/abc.jsonl", "")
    assert recognise("logs/rollout-2026-11-30T10-00-00-aaaa.jsonl", "")
    assert recognise("debug/session.jsonl", '{"type": "user", "sessionId": "x", "message": {}}\n')
    assert recognise("debug/session.json", '[{"sessionId": "x", "messageId": 1, "message": "hi"}]')
    assert not recognise("data/rows.jsonl", '{"id": 1, "name": "a"}\n')
    assert not recognise("app/settings.py", '{"sessionId": "x", "message": 1}')


def test_a_staged_transcript_is_scanned_as_a_log(repo: Path) -> None:
    entry = " ".join(gitmem_command())
    (repo / ".pre-commit-config.yaml").write_text(
        "repos:\n  - repo: local\n    hooks:\n      - id: gitmem-scan\n        name: gitmem scan\n"
        f"        entry: {entry} scan --staged\n        language: system\n        pass_filenames: false\n"
    )
    git(repo, "add", ".")
    git(repo, "commit", "-qm", "base")
    done = subprocess.run(
        [sys.executable, "-m", "pre_commit", "install"], cwd=repo, capture_output=True, text=True
    )
    assert done.returncode == 0, done.stderr
    key = fake_key()
    # In a source file a reviewed finding can be allowed inline; in a transcript the agent wrote, it cannot.
    (repo / "example.py").write_text(f"KEY = '{key}'  # gitmem:allow (revoked)\n")
    git(repo, "add", "example.py")
    ok = subprocess.run(
        ["git", "commit", "-qm", "example"], cwd=repo, capture_output=True, text=True
    )
    assert ok.returncode == 0, ok.stdout + ok.stderr
    record = {
        "type": "user",
        "sessionId": "s",
        "message": {"content": f"KEY = '{key}'  # gitmem:allow"},
    }
    jsonl(repo / "debug" / "session.jsonl", [record])
    git(repo, "add", "debug/session.jsonl")
    refused = subprocess.run(
        ["git", "commit", "-qm", "transcript"], cwd=repo, capture_output=True, text=True
    )
    output = refused.stdout + refused.stderr
    assert (
        refused.returncode != 0
        and "debug/session.jsonl:1:" in output
        and "stripe-secret-key" in output
    )
    assert key not in output


@pytest.mark.parametrize("client", ["claude", "codex", "gemini", "qwen", "opencode"])
def test_no_transcripts_is_not_an_error(repo: Path, run: Run, client: str) -> None:
    done = run("scan", "--user", "--log", client)
    assert done.code == 0, done.err
