"""The guard's settings are reviewable: ``scan.exclude`` never covers .memory/ or a staged transcript, and a pull
request that changes ``scan.exclude``, ``scan.allow``, ``scan.salt`` or ``sources`` is named by ``gitmem diff`` and
``gitmem check`` (a PR adding ``scan: {exclude: ['*']}`` said "No memory changes"). Real repositories and commits."""

from __future__ import annotations

import json
from pathlib import Path

from gitmem import yamlio
from tests.conftest import Run, git


def _token() -> str:
    return "ghp_" + "".join(chr(ord("A") + (i * 11) % 26) for i in range(36))  # built at run time


def _set_scan(project: Path, scan: dict[str, object]) -> None:
    path = project / ".memory/config.yaml"
    data = yamlio.load(path.read_text(encoding="utf-8")).data
    path.write_text(yamlio.dump({**data, "scan": scan}), encoding="utf-8")


def test_exclude_never_covers_the_store_or_a_transcript(project: Path, run: Run) -> None:
    _set_scan(project, {"exclude": ["*", "**/*", ".memory/"]})
    token = _token()
    (project / ".memory/memories/leak.yaml").write_text(
        f"id: leak\ntitle: T\nkind: fact\nstatus: active\nbody: {token}\n"
    )
    transcript = project / ".claude/projects/p/session.jsonl"
    transcript.parent.mkdir(parents=True)
    transcript.write_text(json.dumps({"sessionId": "s", "message": {"content": token}}) + "\n")
    shaped = project / "logs/chat.jsonl"  # a transcript by its first record, wherever it is
    shaped.parent.mkdir()
    shaped.write_text(json.dumps({"sessionId": "s", "message": {"content": token}}) + "\n")
    (project / "app.env").write_text(f"TOKEN={token}\n")
    git(project, "add", "-A")
    result = run("scan", "--staged", "--json")
    paths = sorted({finding["path"] for finding in json.loads(result.out)["findings"]})
    assert paths == [
        ".claude/projects/p/session.jsonl",
        ".memory/memories/leak.yaml",
        "logs/chat.jsonl",
    ]


def _pull_request(project: Path, run: Run) -> None:
    git(project, "add", "-A")
    git(project, "commit", "-qm", "base")
    git(project, "checkout", "-qb", "pr")
    _set_scan(project, {"exclude": ["*"], "allow": ["0123456789abcdef"]})
    git(project, "commit", "-qam", "turn the guard off")


def test_gitmem_diff_names_every_change_to_the_guards_settings(project: Path, run: Run) -> None:
    _pull_request(project, run)
    result = run("diff")
    assert result.code == 0, result.err
    assert "#### Guard settings changed" in result.out
    assert "- `scan.exclude`: added `*`" in result.out
    assert "- `scan.allow`: added `0123456789abcdef`" in result.out
    data = json.loads(run("diff", "--json").out)
    assert data["guard"] == [
        {"setting": "scan.exclude", "added": ["*"], "removed": []},
        {
            "setting": "scan.allow",
            "added": ["0123456789abcdef"],
            "removed": [],
            "allows_nothing": [],
        },
    ]
    git(project, "checkout", "-q", "main")
    assert "Guard settings" not in run("diff").out  # no change: no section


def test_gitmem_check_names_them_too(project: Path, run: Run) -> None:
    _pull_request(project, run)
    result = run("check", "--json")
    guard = next(step for step in json.loads(result.out)["checks"] if step["name"] == "guard")
    assert guard["ok"] and "2 changes to the guard's settings since main" in guard["summary"]
    assert guard["details"] == ["scan.exclude: added '*'", "scan.allow: added '0123456789abcdef'"]
