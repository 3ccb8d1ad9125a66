"""The reader model on the disk (issue 30): a root AGENTS.md that is a link into the repository gets gitmem's block
written through it, `stats` never counts negative tokens, `explain` reads the files from the disk (for any client
that reads them), and `check` fails, one line per difference, when a client would read a file git ignores."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

from tests.compile.conftest import WriteMemory
from tests.conftest import Run


def _git(project: Path, *args: str) -> None:
    subprocess.run(["git", "-c", "user.name=t", "-c", "user.email=t@e", *args], cwd=project, check=True)


def test_a_linked_root_agents_md_gets_the_block_and_each_client_counts_it_once(
    project: Path, memory: WriteMemory, run: Run
) -> None:
    (project / ".agents").mkdir()
    (project / ".agents" / "AGENTS.md").write_text("# Team\n\nOur own words.\n", encoding="utf-8")
    (project / "AGENTS.md").symlink_to(".agents/AGENTS.md")
    (project / "CLAUDE.md").symlink_to("AGENTS.md")
    memory("use-pnpm", "Use pnpm")
    result = run("compile")
    assert result.code == 0, result.err
    text = (project / ".agents" / "AGENTS.md").read_text(encoding="utf-8")
    assert text.startswith("# Team\n\nOur own words.\n") and text.count("(`use-pnpm`)") == 1
    assert (project / "AGENTS.md").is_symlink() and (project / "CLAUDE.md").is_symlink()
    assert not (project / ".claude" / "CLAUDE.md").exists()  # Claude Code reads the hub through CLAUDE.md
    stats = json.loads(run("stats", "--json").out)["targets"]
    assert all(target["tokens"] >= 0 for target in stats)
    agents = next(target for target in stats if target["name"] == "agents")
    views = {v["name"]: v for v in json.loads(run("explain", "--json").out)["clients"]}
    for name in ("claude", "codex"):
        assert [item["id"] for item in views[name]["full"]] == ["use-pnpm"], name
        (read,) = views[name]["files"]
        assert read["real"] == ".agents/AGENTS.md" and read["hand_written_tokens"] > 0
        assert read["tokens"] == agents["files"][0]["tokens"]  # the same count as stats
    # a client whose target is not configured, but which reads AGENTS.md
    (copilot,) = json.loads(run("explain", "--client", "copilot", "--json").out)["clients"]
    assert [item["id"] for item in copilot["full"]] == ["use-pnpm"]
    _git(project, "add", "-A")
    assert run("check").code == 0


def test_check_fails_when_a_client_relies_on_a_file_git_ignores(project: Path, memory: WriteMemory, run: Run) -> None:
    (project / ".agents").mkdir()
    (project / ".agents" / "AGENTS.md").write_text("# Team\n", encoding="utf-8")
    (project / "AGENTS.md").symlink_to(".agents/AGENTS.md")
    memory("use-pnpm", "Use pnpm")
    assert run("compile").code == 0
    _git(project, "add", "-A")
    _git(project, "commit", "-qm", "init")
    assert run("check").code == 0
    (project / ".gitignore").write_text(".agents/\n", encoding="utf-8")
    _git(project, "rm", "-q", "--cached", ".agents/AGENTS.md")
    _git(project, "add", ".gitignore")
    checked = run("check")
    assert checked.code == 1
    assert "AGENTS.md is ignored by git: add `!.agents/AGENTS.md` at the end of .gitignore" in checked.out
