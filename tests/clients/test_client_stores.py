"""Claude Code, Gemini CLI and Qwen Code write their own memory, for real, and ``gitmem import --from CLIENT``
harvests it (issue 25).

The fake model reads the memory folder the client names in its system prompt and asks the client's own write tool to
save three memories there (one holding a fake token built at run time) and the ``MEMORY.md`` index. gitmem must find
that folder by its own derivation of the client's project key (for Claude Code: a plain repository, a linked
worktree, a path over its 200-character key limit), propose the two clean memories with their origin, refuse the
third without copying its text anywhere, propose nothing on a rerun, and leave the client's files byte for byte.
"""

from __future__ import annotations

import dataclasses
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
from tests.conftest import tree_digest

# Where each client names its memory folder in its system prompt (Claude Code 2.1.332, Gemini CLI 0.61.0, Qwen Code
# 0.24.4), and the tool that writes a file.
FOLDER = {
    "claude": re.compile(r"persistent file-based memory at `([^`]+)`"),
    "gemini": re.compile(r"Private Project Memory\*\* \(`([^`]+)/MEMORY\.md`\)"),
    "qwen": re.compile(r"PROJECT memory \(this project only, private to you\): `([^`]+)`"),
}
WRITE = {"claude": "Write", "gemini": "write_file", "qwen": "write_file"}
ARGV = {
    "claude": lambda p: ["claude", "-p", p, "--allowedTools", "Write", "Read", "Edit"],
    "gemini": lambda p: ["gemini", "-p", p, "-m", "gemini-2.5-flash", "--yolo"],
    "qwen": lambda p: ["qwen", "-p", p, "--auth-type", "openai", "-m", "fake-model", "--yolo"],
}


def fake_token() -> str:
    return (
        "ghp_" + "".join(("Qz7", "Lm4x", "Rt9Wb2", "Nc6Hd1Kp8", "Vy3Fs5Jg0Ze")) + "Aq2"
    )  # 36 after ghp_


def typed(description: str, kind: str, body: str, nested: bool) -> str:
    """A memory file as Claude Code (``metadata: type``) or Qwen Code (top-level ``type``) asks for it."""
    slug = description.lower().replace(" ", "-")[:24]
    kind_line = f"metadata:\n  type: {kind}" if nested else f"type: {kind}"
    return f"---\nname: {slug}\ndescription: {description}\n{kind_line}\n---\n\n{body}\n"


def memories(client: str, token: str) -> dict[str, str]:
    if client == "gemini":  # its private project memory: concise entries in MEMORY.md
        return {
            "MEMORY.md": "# Project memory\n\n- Use pnpm, never npm, in the web workspace\n"
            f"- Releases are frozen on Fridays\n- The staging registry login is {token}\n"
        }
    nested = client == "claude"
    return {
        "feedback_pnpm.md": typed(
            "Use pnpm, never npm, in the web workspace",
            "feedback",
            "npm rewrites pnpm-lock.yaml.\n\n**Why:** the workspace breaks.\n**How to apply:** run `pnpm install`.",
            nested,
        ),
        "project_freeze.md": typed(
            "Releases are frozen on Fridays",
            "project",
            "The release team freezes deploys at 12:00 UTC.",
            nested,
        ),
        "reference_registry.md": typed(
            "The staging registry login",
            "reference",
            f"Log in to the staging registry with {token}.",
            nested,
        ),
        "MEMORY.md": "- [Use pnpm](feedback_pnpm.md) — never npm\n- [Release freeze](project_freeze.md) — Fridays\n"
        "- [Staging registry](reference_registry.md) — login\n",
    }


@dataclasses.dataclass
class MemoryWriter(FakeModel):
    """Asks the client's own write tool to save ``files`` in the memory folder its system prompt names, one file per
    turn."""

    client: str = "claude"
    files: dict[str, str] = dataclasses.field(default_factory=dict)
    folder: str = ""

    def _answer(self, request: Request) -> tuple[str, str, dict[str, Any]] | str:
        tool = WRITE[self.client]
        if tool not in request.tool_names():
            return self.reply
        found = FOLDER[self.client].search(request.text())
        if found and not self.folder:
            self.folder = found.group(1)
        step = len(request.answered())
        names = list(self.files)
        if not self.folder or step >= len(names):
            return self.reply
        path = os.path.join(self.folder, names[step])
        return (tool, f"call_write_{step}", {"file_path": path, "content": self.files[names[step]]})


def _body_line(path: Path) -> int:
    """The line of a memory file's first text after its frontmatter."""
    lines = path.read_text(encoding="utf-8").split("\n")
    close = lines.index("---", 1)
    return next(n for n in range(close + 1, len(lines)) if lines[n].strip()) + 1


def _gitmem(repo: Path, home: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "HOME": str(home), "XDG_CONFIG_HOME": str(home / ".config")}
    env.pop("CLAUDE_CONFIG_DIR", None)
    return subprocess.run(
        ["gitmem", *args], cwd=repo, env=env, capture_output=True, text=True, check=False
    )


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


def _expected(client: str, folder: Path) -> tuple[list[str], str]:
    """(the two proposals' origins, the refused entry's origin), from the files as the client wrote them."""
    if client == "gemini":
        lines = (folder / "MEMORY.md").read_text(encoding="utf-8").split("\n")
        number = {text: n + 1 for n, text in enumerate(lines)}
        pnpm, freeze = (
            number["- Use pnpm, never npm, in the web workspace"],
            number["- Releases are frozen on Fridays"],
        )
        secret = next(n + 1 for n, text in enumerate(lines) if "registry login" in text)
        part = f"tmp/{folder.parent.name}/memory/MEMORY.md"
        return [f"gemini:{part}:{pnpm}", f"gemini:{part}:{freeze}"], f"gemini:{part}:{secret}"
    # Claude Code records the session each memory was made in, whose transcript names the folder: the origin says
    # whose the memory is (issue 32, point 2); Qwen Code records no session per memory
    made = " (made in .)" if client == "claude" else ""
    return [
        f"{client}:memory/feedback_pnpm.md:{_body_line(folder / 'feedback_pnpm.md')}{made}",
        f"{client}:memory/project_freeze.md:{_body_line(folder / 'project_freeze.md')}{made}",
    ], f"{client}:memory/reference_registry.md:{_body_line(folder / 'reference_registry.md')}{made}"


@pytest.mark.slow
@pytest.mark.parametrize(
    ("client", "shape"),
    [
        ("claude", "plain"),
        ("claude", "worktree"),
        ("claude", "long"),
        ("gemini", "plain"),
        ("qwen", "plain"),
    ],
)
def test_the_client_writes_its_memory_and_gitmem_imports_it(
    tmp_path: Path, client: str, shape: str
) -> None:
    where, main = _repository(tmp_path, shape)
    home = tmp_path / "home"
    token = fake_token()
    files = memories(client, token)
    with MemoryWriter(client=client, files=files) as model:
        driver = dataclasses.replace(CLIENTS[client], argv=ARGV[client])
        session = run(
            driver, where, "Remember these three things about this repository.", model, home
        )
    assert session.code == 0, session.err[-2000:]
    assert model.folder, f"{client} named no memory folder in its system prompt"

    # gitmem derives the same folder as the client did (its project key; Claude Code keys a worktree on the main
    # repository, and a key over 200 characters on a hash)
    folder = Path(model.folder)
    mine = [
        place.path
        for place in places(client, where, home, {})
        if place.in_home and not place.personal
    ]
    assert mine == [folder]
    assert (shape == "long") == (len(folder.parent.name) > 200)
    assert sorted(p.name for p in folder.iterdir()) == sorted(files), f"{client} wrote the files"
    before = tree_digest(folder)

    done = _gitmem(where, home, "import", "--from", client, "--json")
    assert done.returncode == 1, done.stderr  # one entry refused
    report = json.loads(done.stdout)
    # (Claude Code rewrites the frontmatter it is given: node_type, originSessionId, modified under metadata)
    origins, refused = _expected(client, folder)
    assert sorted(memory["origin"] for memory in report["memories"]) == sorted(origins)
    assert {m["status"] for m in report["memories"]} == {"proposed"}
    assert {m["title"] for m in report["memories"]} == {
        "Use pnpm, never npm, in the web workspace",
        "Releases are frozen on Fridays",
    }
    assert [r["origin"] for r in report["refused"]] == [refused]
    assert report["refused"][0]["message"].startswith(
        f"{refused.split(' (made in ')[0]}: possible secret"
    )
    # the token is nowhere gitmem writes or prints
    assert token not in done.stdout + done.stderr
    for path in [*where.rglob("*"), *(main / ".git").rglob("*")]:
        if path.is_file():
            assert token.encode() not in path.read_bytes(), path

    again = _gitmem(where, home, "import", "--from", "claude", "--json")
    assert json.loads(again.stdout)["memories"] == []
    assert token not in again.stdout + again.stderr
    assert tree_digest(folder) == before


@pytest.mark.slow
@pytest.mark.parametrize("client", ["claude", "qwen"])
def test_memories_another_folder_with_the_same_key_wrote_are_not_proposed(
    tmp_path: Path, client: str
) -> None:
    """``acme-payroll`` and ``acme.payroll`` share one store (the key is lossy): what the client remembered working
    in one is not proposed into the other (issue 32, point 2)."""
    ours, _ = _repository(tmp_path / "acme-payroll", "plain")
    twin, _ = _repository(tmp_path / "acme.payroll", "plain")
    home = tmp_path / "home"
    files = {
        name: text
        for name, text in memories(client, fake_token()).items()
        if "registry" not in text
    }
    with MemoryWriter(client=client, files=files) as model:
        driver = dataclasses.replace(CLIENTS[client], argv=ARGV[client])
        session = run(driver, twin, "Remember these things about this repository.", model, home)
    assert session.code == 0, session.err[-2000:]
    folder = Path(model.folder)
    mine = [
        place.path
        for place in places(client, ours, home, {})
        if place.in_home and not place.personal
    ]
    assert mine == [folder], "the two folders share the client's store"
    done = _gitmem(ours, home, "import", "--from", client, "--json")
    assert done.returncode == 0, done.stderr
    report = json.loads(done.stdout)
    assert report["memories"] == []
    skipped = [s["why"] for s in report["skipped"] if s["origin"].startswith(f"{client}:memory/")]
    assert len(skipped) == 2 and all("acme.payroll" in why for why in skipped), skipped
    # in the folder they were made in, they are proposed
    assert (
        len(
            json.loads(_gitmem(twin, home, "import", "--from", client, "--json").stdout)["memories"]
        )
        == 2
    )
