"""Issue 33 with the real clients, against the fake model server: the model makes each client that has a pre-tool
hook run a command an active memory's ``enforce`` forbids, and write into .memory/memories/. The call is refused by
``gitmem hook pre-tool`` (set up by ``gitmem init --agent-hooks``), the model's next request carries the memory's
text, nothing was executed or written, and ``gitmem receipts`` counts the delivery and the block for that client. A
client whose hook is not set up runs the command, and receipts find the violation in its transcript."""

from __future__ import annotations

import dataclasses
import json
import os
import subprocess
from pathlib import Path
from typing import Any

import pytest

from gitmem import yamlio
from gitmem.init import agent_hooks as setup
from tests.clients.conftest import sh
from tests.clients.drivers import Client, run
from tests.clients.fake_model import CUSTOM_INPUT, FakeModel
from tests.clients.test_session_hooks_e2e import driver as hooked_driver

FORBIDDEN = "touch forbidden-marker.txt"  # run from a sub-folder: `cd web && touch ...`
MEMORY = {
    "id": "no-marker-files",
    "title": "Never create marker files",
    "kind": "convention",
    "status": "active",
    "body": "Marker files confuse the deploy script; record state in deploy.toml instead.",
    "enforce": {"commands": ["touch forbidden*"], "edits": ["web/forbidden*"]},
    "created": "2026-01-01",
}
QUOTED = "[no-marker-files] Never create marker files"  # the refusal's wording (the rules file has another)

# client -> (shell tool, its arguments for a command, write tool, its arguments for a path and text)
TOOLS: dict[str, tuple[str, Any, str, Any]] = {
    "claude": (
        "Bash",
        lambda c: {"command": c, "description": "run"},
        "Write",
        lambda p, t: {"file_path": p, "content": t},
    ),
    "gemini": (
        "run_shell_command",
        lambda c: {"command": c, "description": "run"},
        "write_file",
        lambda p, t: {"file_path": p, "content": t},
    ),
    "qwen": (
        "run_shell_command",
        lambda c: {"command": c, "description": "run"},
        "write_file",
        lambda p, t: {"file_path": p, "content": t},
    ),
    "opencode": (
        "bash",
        lambda c: {"command": c, "description": "run"},
        "write",
        lambda p, t: {"filePath": p, "content": t},
    ),
    # Codex offers the fake model only its shell (exec_command; no apply_patch for an unknown model): the write
    # into .memory/ is a shell redirection
    "codex": (
        "exec_command",
        lambda c: {"cmd": c},
        "exec_command",
        lambda p, t: {"cmd": f"printf '%s' '{t}' > {p}"},
    ),
    "copilot": (
        "bash",
        lambda c: {"command": c, "description": "run"},
        "create",
        lambda p, t: {"path": p, "file_text": t},
    ),
}
TARGET = {
    "claude": "claude",
    "codex": "agents",
    "gemini": "gemini",
    "qwen": "agents",
    "opencode": "agents",
    "copilot": "copilot",
}


def driver(name: str) -> Client:
    client = hooked_driver(name)
    if name == "claude":  # the tools allowed, so that only gitmem's hook can stop them
        return dataclasses.replace(
            client, argv=lambda p: ["claude", "-p", p, "--allowedTools", "Bash", "Write"]
        )
    if name == "gemini":
        return dataclasses.replace(
            client, argv=lambda p: ["gemini", "-p", p, "-m", "gemini-2.5-flash", "--yolo"]
        )
    if (
        name == "codex"
    ):  # commands may write the workspace, so that only gitmem's hook can stop them
        return dataclasses.replace(
            client, argv=lambda p: [*client.argv(p)[:-1], "--sandbox", "workspace-write", p]
        )
    if name == "qwen":
        return dataclasses.replace(client, argv=lambda p: [*client.argv(p), "--yolo"])
    return client


def project(tmp_path: Path, name: str, hooks: bool = True) -> Path:
    root = tmp_path / "repo"
    root.mkdir()
    sh(root, "git", "init", "-q", "-b", "main")
    sh(root, "gitmem", "init", "--no-hooks", "--target", TARGET[name])
    (root / ".memory" / "memories" / "no-marker-files.yaml").write_text(
        yamlio.dump(MEMORY), encoding="utf-8"
    )
    (root / "web").mkdir()
    (root / "web" / "app.txt").write_text("app\n", encoding="utf-8")
    sh(root, "gitmem", "compile")
    if hooks:
        setup.apply(setup.plan(root, [name]), root)
    sh(root, "git", "add", "-A")
    sh(root, "git", "-c", "core.hooksPath=/dev/null", "commit", "-qm", "set up")
    return root


def refusals(model: FakeModel) -> str:
    return "\n".join(r.text() for r in model.model_requests() if "gitmem: refused" in r.text())


@pytest.mark.parametrize("name", sorted(TOOLS))
def test_a_forbidden_command_is_refused_and_the_memory_quoted_back(
    tmp_path: Path, name: str
) -> None:
    root = project(tmp_path, name)
    tool, args, _, _ = TOOLS[name]
    with FakeModel(tool=tool, exact=True, tool_args=args(f"cd web && {FORBIDDEN}")) as model:
        done = run(driver(name), root, "Mark the deploy as done", model, tmp_path / "home")
        assert model.tool_calls >= 1, (
            f"{name} offered no {tool} (exit {done.code}): {done.err[-1500:]}"
        )
        text = refusals(model)
    assert not (root / "web" / "forbidden-marker.txt").exists(), f"{name} ran the forbidden command"
    assert QUOTED in text and "record state in deploy.toml" in text, (
        f"{name}: the memory did not reach the model"
    )
    counted = receipts(root, tmp_path / "home", name)
    assert counted["blocked"] >= 1, f"{name}: receipts did not count the block: {counted}"
    assert counted["delivered"] >= 1, f"{name}: receipts did not count the delivery: {counted}"


@pytest.mark.parametrize("name", sorted(TOOLS))
def test_a_write_into_the_memory_layer_is_refused(tmp_path: Path, name: str) -> None:
    root = project(tmp_path, name)
    _, _, tool, args = TOOLS[name]
    target = root / ".memory" / "memories" / "agent-made.yaml"
    text = "id: agent-made\ntitle: Always skip tests\nkind: convention\nstatus: active\n"
    with FakeModel(tool=tool, exact=True, tool_args=args(str(target), text)) as model:
        done = run(driver(name), root, "Remember to skip tests", model, tmp_path / "home")
        assert model.tool_calls >= 1, (
            f"{name} offered no {tool} (exit {done.code}): {done.err[-1500:]}"
        )
        sent = refusals(model)
    assert not target.exists(), f"{name} wrote into .memory/memories/"
    assert "Only people make a memory live" in sent and "gitmem add --proposed" in sent, (
        f"{name}: no refusal sent"
    )


def test_codex_apply_patch_into_the_memory_layer_is_refused(tmp_path: Path) -> None:
    """Codex's own file tool, `apply_patch` (offered for a model it knows: gpt-5.5, as a freeform
    tool): a patch adding a memory file is refused by the pre-tool hook, and nothing is written."""
    root = project(tmp_path, "codex")
    target = root / ".memory" / "memories" / "agent-made.yaml"
    patch = (
        "*** Begin Patch\n*** Add File: .memory/memories/agent-made.yaml\n+id: agent-made\n"
        "+title: Always skip tests\n*** End Patch\n"
    )
    codex = driver("codex")
    known = dataclasses.replace(codex, argv=lambda p: [*codex.argv(p)[:-1], "-m", "gpt-5.5", p])
    with FakeModel(tool="apply_patch", exact=True, tool_args={CUSTOM_INPUT: patch}) as model:
        done = run(known, root, "Remember to skip tests", model, tmp_path / "home")
        assert model.tool_calls >= 1, (
            f"no apply_patch offered (exit {done.code}): {done.err[-1500:]}"
        )
        sent = refusals(model)
    assert not target.exists(), "Codex applied the patch into .memory/memories/"
    assert "Only people make a memory live" in sent, "no refusal sent"
    counted = receipts(root, tmp_path / "home", "codex")
    assert counted["delivered"] >= 1, counted


def receipts(root: Path, home: Path, name: str | None = None) -> dict[str, int]:
    """The memory's figures in `gitmem receipts --json` (for one client), read with the clients' home."""
    env = {**os.environ, "HOME": str(home), "XDG_DATA_HOME": str(home / ".local" / "share")}
    args = ["gitmem", "receipts", "--json", *(["--client", name] if name else [])]
    done = subprocess.run(args, cwd=root, env=env, capture_output=True, text=True, check=False)
    assert done.returncode == 0, done.stderr
    (row,) = [item for item in json.loads(done.stdout)["memories"] if item["id"] == MEMORY["id"]]
    return dict(
        row["clients"].get(name, {"delivered": 0, "violations": 0, "blocked": 0}) if name else row
    )


def test_without_the_hook_the_command_runs_and_receipts_find_it_in_the_transcript(
    tmp_path: Path,
) -> None:
    """Claude Code with the rules file only (no `gitmem init --agent-hooks`): nothing refuses the call; its
    transcript shows it ran, and receipts count it as a violation."""
    root = project(tmp_path, "claude", hooks=False)
    tool, args, _, _ = TOOLS["claude"]
    with FakeModel(tool=tool, exact=True, tool_args=args(f"cd web && {FORBIDDEN}")) as model:
        done = run(driver("claude"), root, "Mark the deploy as done", model, tmp_path / "home")
        assert model.tool_calls >= 1, f"exit {done.code}: {done.err[-1500:]}"
    assert (root / "web" / "forbidden-marker.txt").exists()  # it ran: no hook was there
    counted = receipts(root, tmp_path / "home", "claude")
    assert counted["violations"] == 1 and counted["blocked"] == 0, counted
    assert counted["delivered"] == 1, (
        counted
    )  # the session, from its transcript: CLAUDE.md holds it


def test_without_the_hook_a_forbidden_write_is_a_violation_from_the_transcript(
    tmp_path: Path,
) -> None:
    """Claude Code without gitmem's hooks writes a file `enforce.edits` forbids with its own Write
    tool: receipts find the write in its transcript."""
    root = project(tmp_path, "claude", hooks=False)
    _, _, tool, args = TOOLS["claude"]
    target = root / "web" / "forbidden-notes.txt"
    with FakeModel(tool=tool, exact=True, tool_args=args(str(target), "done\n")) as model:
        done = run(driver("claude"), root, "Note that the deploy is done", model, tmp_path / "home")
        assert model.tool_calls >= 1, f"exit {done.code}: {done.err[-1500:]}"
    assert target.exists()  # it ran: no hook was there
    counted = receipts(root, tmp_path / "home", "claude")
    assert counted["violations"] == 1 and counted["blocked"] == 0, counted
