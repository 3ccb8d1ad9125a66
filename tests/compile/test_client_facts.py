"""What compile does about the clients as they really behave (measured with tests/clients): limits that are not
hard, files git would never commit, and clients that would read the same memory twice."""

from __future__ import annotations

import json
from pathlib import Path

from gitmem.tools import TARGET_BY_NAME as BY_NAME
from tests.compile.conftest import WriteMemory, apply_ignore_fix, said_until_mended, set_config
from tests.conftest import Run, git


def test_gemini_has_no_hard_limit_and_copilot_no_line_limit() -> None:
    assert not BY_NAME["gemini"].limits
    assert [limit.measure for limit in BY_NAME["copilot"].limits] == ["chars"]
    assert not any(limit.hard for limit in BY_NAME["copilot"].limits + BY_NAME["claude"].limits)
    assert [(limit.measure, limit.value, limit.hard) for limit in BY_NAME["agents"].limits] == [
        ("chain_bytes", 32 * 1024, True)
    ]


def test_a_long_gemini_md_is_written(project: Path, memory: WriteMemory, run: Run) -> None:
    set_config(project, targets=["gemini"], budget={"gemini": 20_000})
    for i in range(40):
        memory(f"m{i:02d}", f"Memory {i}", body="a fairly long explanation " * 20)
    result = run("compile")
    assert result.code == 0, result.err
    assert len((project / "GEMINI.md").read_text(encoding="utf-8")) > 12_000


def test_a_generated_file_that_git_ignores_is_reported(
    project: Path, memory: WriteMemory, run: Run
) -> None:
    set_config(project, targets=["aider", "agents"])
    memory("m", "Use pnpm")
    (project / ".gitignore").write_text(
        ".aider*\n", encoding="utf-8"
    )  # what aider's first run appends
    result = run("compile")
    assert result.code == 0, result.err
    assert (project / ".aider.conf.yml").is_file()
    fix = "add `!/.aider.conf.yml` at the end of .gitignore"
    assert (
        f"warning: .aider.conf.yml is ignored by git, so it is never committed: {fix}" in result.err
    )
    assert "AGENTS.md is ignored" not in result.err
    check = run("compile", "--check")
    assert check.code == 1
    assert f".aider.conf.yml: ignored by git ({fix}" in check.out
    as_json = json.loads(run("compile", "--check", "--json").out)
    assert any(".aider.conf.yml is ignored by git" in warning for warning in as_json["warnings"])
    apply_ignore_fix(project, check.out)
    assert run("compile", "--check").code == 0


def test_compile_places_each_memory_once_for_every_client(
    project: Path, memory: WriteMemory, run: Run
) -> None:
    """The Copilot CLI reads AGENTS.md, GEMINI.md and CLAUDE.md beside its own file (before, it got each memory 3
    times here, with a warning): GEMINI.md imports AGENTS.md, Claude Code's copy goes to .claude/CLAUDE.md (which the
    Copilot CLI does not read), the hand-written CLAUDE.md stays as it was; no warning is needed. Only an import the
    team wrote itself, which the Copilot CLI follows apart from reading AGENTS.md (measured:
    tests/clients/test_reader.py), is left to warn about, as the disk reader finds it."""
    set_config(project, targets=["agents", "claude", "gemini", "copilot"])
    memory("m", "Use pnpm")
    (project / "CLAUDE.md").write_text("# Our Claude notes\n", encoding="utf-8")
    result = run("compile")
    assert result.code == 0, result.err
    assert result.err == ""
    assert (project / "CLAUDE.md").read_text(encoding="utf-8") == "# Our Claude notes\n"
    assert not (project / ".github/copilot-instructions.md").exists()
    assert "\n@AGENTS.md\n" in (project / "GEMINI.md").read_text(encoding="utf-8")
    for path in ("AGENTS.md", ".claude/CLAUDE.md"):
        assert "(`m`)" in (project / path).read_text(encoding="utf-8")
    (project / "CLAUDE.md").write_text("# Our Claude notes\n\n@AGENTS.md\n", encoding="utf-8")
    result = run("compile")
    assert not (
        project / ".claude/CLAUDE.md"
    ).exists()  # Claude Code reads the hub through the team's import
    twice = (
        "warning: GitHub Copilot CLI: 1 of its memories reach it twice, through a hand-written import: it reads "
        "AGENTS.md, AGENTS.md (imported by CLAUDE.md): make CLAUDE.md a link to AGENTS.md instead of importing it "
        "(`ln -sf AGENTS.md CLAUDE.md`: a file read under two names arrives once), or drop the import; see "
        "`gitmem explain . --client copilot`"
    )
    assert twice in result.err
    assert twice in run("compile").err  # read from the disk: said until the disk is mended
    git(project, "add", "-A")
    checked = run("check")  # said, not failed: no placement of gitmem's avoids it
    assert checked.code == 0 and twice.removeprefix("warning: ") in checked.out, checked.out
    (project / "CLAUDE.md").unlink()
    (project / "CLAUDE.md").symlink_to("AGENTS.md")  # the fix it names
    assert "twice" not in run("compile").err and "twice" not in run("check").out
    set_config(project, targets=["agents", "claude", "gemini"])
    assert "more than once" not in run("compile").err


def test_a_folders_claude_md_importing_its_agents_md_gets_no_second_copy(
    project: Path, memory: WriteMemory, run: Run
) -> None:
    """A monorepo's folders each with `CLAUDE.md` of `@AGENTS.md` (rallly's and vercel's layout, among the real trees).
    Claude Code started in the folder, or at the root and touching a file there, follows that import (measured:
    tests/clients/test_reader.py). Compile used to write a copy into the folder's CLAUDE.md too: the memory arrived
    twice, and `check` failed until the team made the file a link. Now the folder's CLAUDE.md keeps only what the
    team wrote, what the imported AGENTS.md holds reaches Claude Code once, and `check` passes as the team left it."""
    set_config(project, targets=["agents", "claude"])
    memory("m", "Use pnpm")
    memory("w", "Web tests use vitest", paths=["web/**"])
    memory("c", "Claude web note", paths=["web/**"], targets=["claude"])
    (project / "web").mkdir()
    (project / "web" / "AGENTS.md").write_text("# Web\n", encoding="utf-8")
    (project / "web" / "CLAUDE.md").write_text("@AGENTS.md\n", encoding="utf-8")
    compiled = run("compile")
    assert compiled.code == 0 and "more than once" not in compiled.err, compiled.err
    web_claude = (project / "web" / "CLAUDE.md").read_text(encoding="utf-8")
    assert web_claude.startswith("@AGENTS.md\n") and "(`w`)" not in web_claude, web_claude
    assert "(`c`)" in web_claude  # what the imported file lacks stays in Claude Code's own
    assert (project / "web" / "AGENTS.md").read_text(encoding="utf-8").count("(`w`)") == 1
    (claude,) = json.loads(run("explain", "web", "--client", "claude", "--json").out)["clients"]
    assert sorted(item["id"] for item in claude["full"]) == ["c", "m", "w"]
    git(project, "add", "-A")
    checked = run("check")
    assert checked.code == 0 and "more than once" not in checked.out, checked.out


def test_a_copy_kept_in_claude_md_because_git_ignores_claude_says_how_to_move_it(
    project: Path, memory: WriteMemory, run: Run
) -> None:
    """rustfs' layout: a hand-written CLAUDE.md, `.claude/*` ignored but for its skills, and the Copilot CLI
    configured. Claude Code's copy cannot go to .claude/CLAUDE.md, which git ignores, so it stays in CLAUDE.md, which
    the Copilot CLI reads beside AGENTS.md: twice. check said it with no fix; now it names the lines that let git
    track .claude/CLAUDE.md, and adding them mends it."""
    set_config(project, targets=["agents", "claude", "copilot"])
    memory("m", "Use pnpm")
    (project / "CLAUDE.md").write_text("# Our Claude notes\n", encoding="utf-8")
    (project / ".gitignore").write_text(".claude/*\n!.claude/skills\n", encoding="utf-8")
    said = "CLAUDE.md keeps Claude Code's copy because git ignores .claude/CLAUDE.md"
    said_until_mended(project, run, said, lambda message: apply_ignore_fix(project, message))
    assert "(`m`)" in (project / ".claude" / "CLAUDE.md").read_text(encoding="utf-8")
    assert (project / "CLAUDE.md").read_text(encoding="utf-8") == "# Our Claude notes\n"


def test_init_takes_the_tools_the_project_uses_and_compile_agrees(repo: Path, run: Run) -> None:
    """Issue 23 point 8: init chose agents + claude beside the detected tools, and the first compile told the user to
    remove a target init had just added. Now init takes the tools whose rules files the project has, and compile
    places each memory once for every client, so it has nothing to take back."""
    (repo / ".clinerules").mkdir()
    (repo / ".clinerules" / "general.md").write_text("Keep it short.\n", encoding="utf-8")
    (repo / "AGENTS.md").write_text("# Notes\n", encoding="utf-8")
    (repo / ".github").mkdir()
    (repo / ".github" / "copilot-instructions.md").write_text("# Copilot notes\n", encoding="utf-8")
    (repo / "CLAUDE.md").write_text("# Claude notes\n", encoding="utf-8")
    result = run("init", "--no-hooks")
    assert result.code == 0, result.err
    assert "found rules files of: agents, claude, copilot, cline" in result.lines
    assert "targets: agents, claude, copilot, cline" in result.lines
    assert run("add", "Use pnpm").code == 0
    compiled = run("compile")
    assert compiled.code == 0 and compiled.err == "", (
        compiled.err
    )  # no "remove `copilot`", no "more than once"
    views = json.loads(run("explain", "--json").out)["clients"]
    assert {view["name"]: [item["id"] for item in view["full"]] for view in views} == {
        "claude": ["use-pnpm"],
        "opencode": ["use-pnpm"],
        "codex": ["use-pnpm"],
        "qwen": ["use-pnpm"],
        "copilot": ["use-pnpm"],
        "copilot-review": [],  # it reads the tree git tracks: nothing is committed yet
        "cline": ["use-pnpm"],
    }


def test_init_on_gemini_files_only_adds_no_other_tool(repo: Path, run: Run) -> None:
    """Issue 23 point 8: with only GEMINI.md files, init added agents and claude, and compile then created an
    AGENTS.md and a CLAUDE.md beside every GEMINI.md. Now the targets are gemini alone: compile writes into the
    GEMINI.md files there are, and creates none."""
    for folder in ("", "packages/core/", "packages/cli/", "docs/"):
        (repo / folder).mkdir(parents=True, exist_ok=True)
        (repo / folder / "GEMINI.md").write_text(
            f"# Notes for {folder or 'the root'}\n", encoding="utf-8"
        )
    result = run("init", "--no-hooks")
    assert result.code == 0, result.err
    assert "targets: gemini" in result.lines
    assert any(
        line.startswith("not added: agents, claude (the project has no rules files")
        for line in result.lines
    )
    assert run("add", "Use pnpm").code == 0
    for folder in ("packages/core", "packages/cli", "docs"):
        assert run("add", f"Rule of {folder}", "--path", f"{folder}/**").code == 0
    compiled = run("compile")
    assert compiled.code == 0, compiled.err
    assert [line for line in compiled.lines if line.startswith("created")] == []
