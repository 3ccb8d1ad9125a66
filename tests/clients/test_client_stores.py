"""Claude Code writes its own auto memory, for real, and ``gitmem import --from claude`` harvests it (issue 25).

The fake model reads the memory folder Claude Code names in its system prompt and asks Claude Code's own Write tool
to save three memories there (one holding a fake token built at run time) and the ``MEMORY.md`` index. gitmem must
find that folder by its own derivation of Claude Code's project key (a plain repository, a linked worktree, a path
over Claude Code's 200-character key limit), propose the two clean memories with their origin, refuse the third
without copying its text anywhere, propose nothing on a rerun, and leave the client's files byte for byte.
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
import os
import re
import subprocess
from pathlib import Path
from typing import Any

import pytest

from gitmem.clientstores import places
from tests.clients.conftest import sh
from tests.clients.drivers import CLIENTS, run
from tests.clients.fake_model import FakeModel, Request

MEMORY_AT = re.compile(r"persistent file-based memory at `([^`]+)`")


def fake_token() -> str:
    return "ghp_" + "".join(("Qz7", "Lm4x", "Rt9Wb2", "Nc6Hd1Kp8", "Vy3Fs5Jg0Ze")) + "Aq2"  # 36 after ghp_


def memories(token: str) -> dict[str, str]:
    return {
        "feedback_pnpm.md": "---\nname: use-pnpm\ndescription: Use pnpm, never npm, in the web workspace\n"
        "metadata:\n  type: feedback\n---\n\nnpm rewrites pnpm-lock.yaml.\n\n**Why:** the workspace breaks.\n"
        "**How to apply:** run `pnpm install`.\n",
        "project_freeze.md": "---\nname: release-freeze\ndescription: Releases are frozen on Fridays\n"
        "metadata:\n  type: project\n---\n\nThe release team freezes deploys every Friday from 12:00 UTC.\n",
        "reference_registry.md": "---\nname: staging-registry\ndescription: The staging registry login\n"
        f"metadata:\n  type: reference\n---\n\nLog in to the staging registry with {token}.\n",
        "MEMORY.md": "- [Use pnpm](feedback_pnpm.md) — never npm\n- [Release freeze](project_freeze.md) — Fridays\n"
        "- [Staging registry](reference_registry.md) — login\n",
    }


@dataclasses.dataclass
class MemoryWriter(FakeModel):
    """Asks Claude Code's Write tool to save ``files`` in the memory folder its system prompt names, one per turn."""

    files: dict[str, str] = dataclasses.field(default_factory=dict)
    folder: str = ""

    def _answer(self, request: Request) -> tuple[str, str, dict[str, Any]] | str:
        if "Write" not in request.tool_names():
            return self.reply
        found = MEMORY_AT.search(request.text())
        if found and not self.folder:
            self.folder = found.group(1)
        step = len(request.answered())
        names = list(self.files)
        if not self.folder or step >= len(names):
            return self.reply
        path = os.path.join(self.folder, names[step])
        return ("Write", f"call_write_{step}", {"file_path": path, "content": self.files[names[step]]})


def _digest(folder: Path) -> str:
    h = hashlib.sha256()
    for path in sorted(folder.rglob("*")):
        h.update(str(path.relative_to(folder)).encode() + b"\0")
        if path.is_file():
            h.update(path.read_bytes())
    return h.hexdigest()


def _body_line(path: Path) -> int:
    """The line of a memory file's first text after its frontmatter."""
    lines = path.read_text(encoding="utf-8").split("\n")
    close = lines.index("---", 1)
    return next(n for n in range(close + 1, len(lines)) if lines[n].strip()) + 1


def _gitmem(repo: Path, home: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "HOME": str(home), "XDG_CONFIG_HOME": str(home / ".config")}
    env.pop("CLAUDE_CONFIG_DIR", None)
    return subprocess.run(["gitmem", *args], cwd=repo, env=env, capture_output=True, text=True, check=False)


def _repository(tmp_path: Path, shape: str) -> tuple[Path, Path]:
    """(where Claude Code and gitmem run, the main repository)."""
    main = tmp_path / "repo"
    if shape == "long":
        main = tmp_path / ("a-very-long-folder-name-" * 9) / "repo"
    main.mkdir(parents=True)
    sh(main, "git", "init", "-q")
    sh(main, "git", "config", "user.email", "t@example.com")
    sh(main, "git", "config", "user.name", "t")
    sh(main, "gitmem", "init", "--no-hooks")
    sh(main, "git", "add", "-A")
    sh(main, "git", "commit", "-qm", "init")
    if shape != "worktree":
        return main, main
    linked = tmp_path / "linked"
    sh(main, "git", "worktree", "add", "-q", str(linked))
    return linked, main


@pytest.mark.slow
@pytest.mark.parametrize("shape", ["plain", "worktree", "long"])
def test_claude_code_writes_its_memory_and_gitmem_imports_it(tmp_path: Path, shape: str) -> None:
    where, main = _repository(tmp_path, shape)
    home = tmp_path / "home"
    token = fake_token()
    claude = dataclasses.replace(
        CLIENTS["claude"], argv=lambda p: ["claude", "-p", p, "--allowedTools", "Write", "Read", "Edit"]
    )
    with MemoryWriter(files=memories(token)) as model:
        session = run(claude, where, "Remember these three things about this repository.", model, home)
    assert session.code == 0, session.err[-2000:]
    assert model.folder, "Claude Code named no memory folder in its system prompt"

    # gitmem derives the same folder as Claude Code did (its project key; a worktree keys on the main repository)
    mine = places("claude", where, home, {})[0].path
    assert os.path.normpath(model.folder) == str(mine)
    assert (shape == "long") == (len(mine.parent.name) > 200)
    folder = Path(model.folder)
    assert sorted(p.name for p in folder.iterdir()) == sorted(memories(token)), "Claude Code wrote the files"
    before = _digest(folder)

    done = _gitmem(where, home, "import", "--from", "claude", "--json")
    assert done.returncode == 1, done.stderr  # one entry refused
    report = json.loads(done.stdout)
    origins = sorted(memory["origin"] for memory in report["memories"])
    # (Claude Code rewrites the frontmatter it is given: node_type, originSessionId, modified under metadata)
    assert origins == [
        f"claude:memory/feedback_pnpm.md:{_body_line(folder / 'feedback_pnpm.md')}",
        f"claude:memory/project_freeze.md:{_body_line(folder / 'project_freeze.md')}",
    ]
    assert {m["status"] for m in report["memories"]} == {"proposed"}
    assert {m["title"] for m in report["memories"]} == {
        "Use pnpm, never npm, in the web workspace",
        "Releases are frozen on Fridays",
    }
    secret_line = _body_line(folder / "reference_registry.md")
    assert [r["origin"] for r in report["refused"]] == [f"claude:memory/reference_registry.md:{secret_line}"]
    assert f"reference_registry.md:{secret_line}: possible secret" in report["refused"][0]["message"]

    # the token is nowhere gitmem writes or prints
    assert token not in done.stdout + done.stderr
    for path in [*where.rglob("*"), *(main / ".git").rglob("*")]:
        if path.is_file():
            assert token.encode() not in path.read_bytes(), path

    again = _gitmem(where, home, "import", "--from", "claude", "--json")
    assert json.loads(again.stdout)["memories"] == []
    assert token not in again.stdout + again.stderr
    assert _digest(folder) == before
