"""Another folder's memories are not proposed into this repository (issue 32, point 2).

Claude Code's and Qwen Code's project keys are lossy: every character but an ASCII letter or digit becomes ``-``, so
``…/test0/repo`` and ``…/test0.repo`` share one store under ``~/.claude/projects/`` (``~/.qwen/projects/``). Claude
Code records the session each memory was made in (``metadata.originSessionId``, as the real client writes it:
tests/clients/test_client_stores.py), and that session's transcript (``<key>/<session>.jsonl``, shaped as 2.1.332
writes it: a queue record, then records naming the ``cwd``) says which folder it ran in; Qwen Code records no session
per memory, but its transcripts (``<key>/chats/<session>.jsonl``) name the folders that share the key.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

from gitmem.clientstores import claude_key, qwen_key
from tests.conftest import Run

SESSIONS = (
    "9602fec0-959f-4876-91d2-0177f6aaee96",
    "1d0c6a55-2b7e-4d47-9e1a-7f5c0e3b8a21",
    "5e8a2c1d-0b3f-4c6e-8d7a-9f1e2b3c4d5e",
)


def _home() -> Path:
    return Path(os.environ["HOME"])


def _twin(project: Path) -> Path:
    """A folder whose project key is the repository's: ``…/test0.repo`` beside ``…/test0/repo``."""
    twin = Path(f"{project.parent}.repo")
    assert claude_key(str(twin)) == claude_key(str(project)) and qwen_key(str(twin)) == qwen_key(
        str(project)
    )
    return twin


def _claude_memory(description: str, session: str) -> str:
    return (
        f'---\nname: {description.lower().replace(" ", "-")[:30]}\ndescription: "{description}"\nmetadata:\n'
        f"  node_type: memory\n  type: project\n  originSessionId: {session}\n"
        "  modified: 2026-12-01T20:12:17.614Z\n---\n\nThe details.\n"
    )


def _claude_transcript(session: str, cwd: Path) -> str:
    records: list[dict[str, Any]] = [
        {"type": "queue-operation", "operation": "enqueue", "sessionId": session, "content": "Remember this."},
        {"parentUuid": None, "type": "user", "message": {"role": "user", "content": "Remember this."},
         "cwd": str(cwd), "sessionId": session, "version": "2.1.332", "gitBranch": "main"},
    ]  # fmt: skip
    return "".join(json.dumps(record) + "\n" for record in records)


def _import(run: Run, client: str) -> dict[str, Any]:
    result = run("import", "--from", client, "--json")
    assert result.code == 0, result.out + result.err
    data: dict[str, Any] = json.loads(result.out)
    return data


def test_claude_memories_made_in_another_folder_with_the_same_key_are_skipped(
    project: Path, run: Run
) -> None:
    ours, theirs, unknown = SESSIONS
    key = _home() / ".claude" / "projects" / claude_key(str(project))
    (key / "memory").mkdir(parents=True)
    (key / "memory" / "project_ours.md").write_text(
        _claude_memory("Releases here are frozen on Fridays", ours)
    )
    (key / "memory" / "project_theirs.md").write_text(
        _claude_memory("Payroll runs close on the 25th", theirs)
    )
    (key / "memory" / "project_old.md").write_text(
        _claude_memory("An old note from long ago", unknown)
    )
    (key / f"{ours}.jsonl").write_text(_claude_transcript(ours, project))
    (key / f"{theirs}.jsonl").write_text(_claude_transcript(theirs, _twin(project)))
    data = _import(run, "claude")
    assert [m["title"] for m in data["memories"]] == ["Releases here are frozen on Fridays"]
    (memory,) = data["memories"]
    assert memory["origin"].endswith(" (made in .)")  # whose it is: made in this repository's root
    skipped = {s["origin"]: s["why"] for s in data["skipped"]}
    assert "made in another folder" in skipped["claude:memory/project_theirs.md"]
    assert "whose it is cannot be told" in skipped["claude:memory/project_old.md"]
    assert "Payroll" not in json.dumps(data["memories"])


def test_a_memory_made_in_a_subfolder_says_so_and_one_without_a_record_is_read_when_no_folder_shares(
    project: Path, run: Run
) -> None:
    ours, _theirs, unknown = SESSIONS
    key = _home() / ".claude" / "projects" / claude_key(str(project))
    (key / "memory").mkdir(parents=True)
    (key / "memory" / "project_web.md").write_text(
        _claude_memory("Use pnpm in the web workspace", ours)
    )
    (key / "memory" / "project_old.md").write_text(
        _claude_memory("An old note from long ago", unknown)
    )
    (project / "web").mkdir()
    (key / f"{ours}.jsonl").write_text(_claude_transcript(ours, project / "web"))
    origins = {m["title"]: m["origin"] for m in _import(run, "claude")["memories"]}
    assert origins["Use pnpm in the web workspace"].endswith(" (made in web)")
    assert (
        origins["An old note from long ago"] == "claude:memory/project_old.md:11"
    )  # not recorded: not told


def test_qwen_memories_are_skipped_when_another_folder_shares_the_store(
    project: Path, run: Run
) -> None:
    key = _home() / ".qwen" / "projects" / qwen_key(str(project))
    (key / "memory").mkdir(parents=True)
    text = "---\nname: freeze\ndescription: Releases here are frozen on Fridays\ntype: project\n---\n\nFrom noon.\n"
    (key / "memory" / "project_freeze.md").write_text(text)
    (key / "chats").mkdir()
    record = {
        "sessionId": "s1",
        "cwd": str(project),
        "type": "user",
        "message": {"parts": [{"text": "hi"}]},
    }
    (key / "chats" / "s1.jsonl").write_text(json.dumps(record) + "\n")
    assert [m["title"] for m in _import(run, "qwen")["memories"]] == [
        "Releases here are frozen on Fridays"
    ]
    (project / ".git" / "gitmem" / "client-imports.json").unlink()
    for path in (project / ".memory" / "memories").glob("*.yaml"):
        path.unlink()
    other = {**record, "sessionId": "s2", "cwd": str(_twin(project))}
    (key / "chats" / "s2.jsonl").write_text(json.dumps(other) + "\n")
    data = _import(run, "qwen")
    assert data["memories"] == []
    (skipped,) = [s for s in data["skipped"] if s["origin"] == "qwen:memory/project_freeze.md"]
    assert (
        "another folder" in skipped["why"] and "shares this store's project key" in skipped["why"]
    )
