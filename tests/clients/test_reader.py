"""`gitmem explain` (the reader model, ``gitmem/compile/reading.py``) agrees with what the real clients send the model,
in the layouts where gitmem's own plan and the disk used to part ways (issue 30): a root AGENTS.md that is a link
into the repository (AGENTS.md -> .agents/AGENTS.md), a CLAUDE.md that is a link to AGENTS.md, and Claude Code's
copy kept in .claude/CLAUDE.md beside a missing CLAUDE.md.

On 6dd9a58 compile wrote no block into a linked AGENTS.md (no client got a memory) while `explain` said so too, and
with CLAUDE.md -> AGENTS.md beside Copilot compile added .claude/CLAUDE.md, a second copy for Claude Code.
"""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from tests.clients.conftest import sh
from tests.clients.drivers import CLIENTS, run
from tests.clients.fake_model import FakeModel
from tests.clients.test_clients import ACTIVE, HAND, PROMPT, SCOPED
from tests.clients.test_delivery import explained, received

pytestmark = [pytest.mark.clients, pytest.mark.slow]


def _linked_repo(tmp_path: Path, targets: tuple[str, ...], claude_link: bool) -> Path:
    repo = tmp_path / "repo"
    (repo / "web").mkdir(parents=True)
    (repo / ".agents").mkdir()
    sh(repo, "git", "init", "-q", "-b", "main")
    (repo / ".agents" / "AGENTS.md").write_text(
        f"# Team notes\n\nThe {HAND} service owns the queue.\n", "utf-8"
    )
    (repo / "AGENTS.md").symlink_to(".agents/AGENTS.md")
    if claude_link:
        (repo / "CLAUDE.md").symlink_to("AGENTS.md")
    (repo / "web" / "app.ts").write_text("export const x = 1;\n", encoding="utf-8")
    flags = [item for name in targets for item in ("--target", name)]
    sh(repo, "gitmem", "init", "--no-hooks", "--mcp", *flags)
    sh(
        repo,
        "gitmem",
        "add",
        f"Use pnpm, never npm ({ACTIVE})",
        "--body",
        "npm rewrites pnpm-lock.yaml.",
    )
    sh(repo, "gitmem", "add", f"Web code is indented with tabs ({SCOPED})", "--path", "web/**")
    compiled = subprocess.run(
        ["gitmem", "compile"], cwd=repo, capture_output=True, text=True, check=False
    )
    assert compiled.returncode == 0, compiled.stderr
    assert "more than once" not in compiled.stderr, compiled.stderr
    sh(repo, "git", "add", "-A")
    sh(repo, "git", "-c", "user.name=t", "-c", "user.email=t@example.com", "commit", "-qm", "init")
    assert (repo / "AGENTS.md").is_symlink() and (repo / ".agents" / "AGENTS.md").read_text(
        "utf-8"
    ).count(ACTIVE) == 1
    return repo


CASES = {
    # (targets, CLAUDE.md -> AGENTS.md, the clients run)
    "linked-agents": (
        ("agents", "claude"),
        False,
        ("claude", "codex", "opencode", "qwen", "gemini"),
    ),
    "linked-agents-and-claude": (("agents", "claude"), True, ("claude", "codex", "opencode")),
    "linked-claude-beside-copilot": (("agents", "claude", "copilot"), True, ("claude", "copilot")),
    # no CLAUDE.md: Claude Code's copy in .claude/CLAUDE.md, beside the Copilot CLI (which reads CLAUDE.md files)
    "private-claude-beside-copilot": (("agents", "claude", "copilot"), False, ("claude",)),
}


@pytest.mark.parametrize("case", sorted(CASES))
def test_explain_agrees_with_the_real_clients_on_linked_rules_files(
    case: str, model: FakeModel, tmp_path: Path
) -> None:
    targets, claude_link, clients = CASES[case]
    repo = _linked_repo(tmp_path, targets, claude_link)
    assert sh(repo, "gitmem", "check").strip().endswith("passed")
    for name in clients:
        for folder in ("", "web"):
            session = run(CLIENTS[name], repo / folder, PROMPT, model, tmp_path / f"home-{name}")
            assert session.code == 0, f"{name} exited {session.code}: {session.err[-3000:]}"
            text = session.first().text()
            where = f"{name} in {folder or 'the root'} ({case})"
            got = received(repo, text)
            assert got == explained(repo, name, folder), where
            if name != "gemini":  # Gemini CLI reads GEMINI.md only: the memories reach it on demand
                assert text.count(ACTIVE) == 1, where
