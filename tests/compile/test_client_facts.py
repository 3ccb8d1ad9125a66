"""What compile does about the clients as they really behave (measured with tests/clients): limits that are not
hard, files git would never commit, and clients that would read the same memory twice."""

from __future__ import annotations

import json
from pathlib import Path

from gitmem.compile.targets import BY_NAME
from tests.compile.conftest import WriteMemory, set_config
from tests.conftest import Run


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


def test_a_generated_file_that_git_ignores_is_reported(project: Path, memory: WriteMemory, run: Run) -> None:
    set_config(project, targets=["aider", "agents"])
    memory("m", "Use pnpm")
    (project / ".gitignore").write_text(".aider*\n", encoding="utf-8")  # what aider's first run appends
    result = run("compile")
    assert result.code == 0, result.err
    assert (project / ".aider.conf.yml").is_file()
    fix = "add `!.aider.conf.yml` at the end of .gitignore"
    assert f"warning: .aider.conf.yml is ignored by git, so it is never committed: {fix}" in result.err
    assert "AGENTS.md is ignored" not in result.err
    check = run("compile", "--check")
    assert check.code == 1
    assert f".aider.conf.yml: ignored by git ({fix}" in check.out
    as_json = json.loads(run("compile", "--check", "--json").out)
    assert any(".aider.conf.yml is ignored by git" in warning for warning in as_json["warnings"])
    with (project / ".gitignore").open("a", encoding="utf-8") as handle:
        handle.write("!.aider.conf.yml\n")
    assert run("compile", "--check").code == 0
