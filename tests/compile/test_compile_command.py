"""`gitmem compile` and `gitmem stats` in real repositories."""

from __future__ import annotations

import json
from datetime import date
from pathlib import Path

import pytest
from hypothesis import HealthCheck, assume, given, settings

from gitmem.compile import block
from tests.compile.conftest import WriteMemory, set_config
from tests.compile.test_block import HAND_TEXT, _plain
from tests.conftest import Run, git


def _files(root: Path) -> dict[str, bytes]:
    return {
        p.relative_to(root).as_posix(): p.read_bytes()
        for p in sorted(root.rglob("*"))
        if p.is_file() and not p.relative_to(root).as_posix().startswith((".git/", ".memory/"))
    }


def test_compile_writes_and_a_second_compile_changes_nothing(
    project: Path, memory: WriteMemory, run: Run
) -> None:
    memory("use-pnpm", "Use pnpm")
    memory("web-vitest", "Web tests use vitest", paths=["web/**"])
    first = run("compile")
    assert first.code == 0, first.err
    assert first.lines == [
        "created AGENTS.md",
        "created CLAUDE.md",
        "created web/AGENTS.md",
        "created web/CLAUDE.md",
        "compiled 2 memories for agents, claude: 4 file(s) changed",
    ]
    before = {p: (project / p).stat().st_ino for p in _files(project)}
    content = _files(project)
    second = run("compile")
    assert second.code == 0 and second.lines == [
        "up to date: 2 memories compiled for agents, claude"
    ]
    assert _files(project) == content
    assert {p: (project / p).stat().st_ino for p in _files(project)} == before  # not even rewritten


def test_check_lists_exactly_the_stale_files_and_writes_nothing(
    project: Path, memory: WriteMemory, run: Run
) -> None:
    memory("use-pnpm", "Use pnpm")
    web = memory("web-vitest", "Web tests use vitest", paths=["web/**"])
    assert run("compile").code == 0
    ok = run("compile", "--check")
    assert (ok.code, ok.out) == (0, "up to date: 4 file(s)\n")

    memory("api-errors", "API errors are problem details", kind="decision")
    web.unlink()
    content = _files(project)
    stale = run("compile", "--check")
    assert stale.code == 1
    assert stale.lines == [
        "AGENTS.md: out of date",
        "CLAUDE.md: out of date",
        "web/AGENTS.md: no longer compiled",
        "web/CLAUDE.md: no longer compiled",
    ]
    assert stale.err == "4 file(s) out of date: run `gitmem compile`\n"
    assert _files(project) == content
    assert run("compile").code == 0
    assert run("compile", "--check").code == 0
    assert not (project / "web").exists()  # the directory gitmem created went with its last file


def test_check_json(project: Path, memory: WriteMemory, run: Run) -> None:
    memory("use-pnpm", "Use pnpm")
    result = run("compile", "--check", "--json", "--target", "claude")
    assert result.code == 1
    data = json.loads(result.out)
    assert data["files"] == [
        {"path": "CLAUDE.md", "target": "claude", "action": "created", "reason": "missing"}
    ]
    assert data["targets"][0]["compiled"] == ["use-pnpm"] and data["written"] is False


def test_hand_written_text_is_kept(project: Path, memory: WriteMemory, run: Run) -> None:
    hand = "# Our project\n\nHand-written rules, with `<!-- gitmem:begin -->` quoted in prose.\n"
    (project / "AGENTS.md").write_text(hand, encoding="utf-8")
    memory("use-pnpm", "Use pnpm")
    assert run("compile").code == 0
    text = (project / "AGENTS.md").read_text(encoding="utf-8")
    assert text.startswith(hand + "<!-- gitmem:begin hash=")
    (project / ".memory/memories/use-pnpm.yaml").unlink()
    result = run("compile")
    # the team's file loses the block; gitmem's own CLAUDE.md stays, its block empty (so a merge
    # never creates it)
    assert result.lines[:2] == ["updated AGENTS.md", "updated CLAUDE.md"]
    assert (project / "AGENTS.md").read_text(encoding="utf-8") == hand
    assert "use-pnpm" not in (project / "CLAUDE.md").read_text(encoding="utf-8")


@pytest.mark.slow
@settings(
    max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(before=HAND_TEXT, after=HAND_TEXT)
def test_arbitrary_hand_text_around_the_block_is_kept_byte_for_byte(
    project: Path, run: Run, before: str, after: str
) -> None:
    """The user put gitmem's block in the middle of their file; compiling, recompiling and cleaning up keep the rest."""
    if before and not before.endswith("\n"):
        before += "\n"
    assume(_plain(before) and _plain(after) and "\r" not in before + after)
    set_config(project, targets=["agents"])
    memories = project / ".memory/memories"
    for old in memories.glob("*.yaml"):
        old.unlink()
    placeholder = "<!-- gitmem:begin -->\n<!-- gitmem:end -->\n"
    path = project / "AGENTS.md"
    path.write_bytes((before + placeholder + after).encode("utf-8"))
    from tests.compile.conftest import write_memory

    write_memory(project, "use-pnpm", "Use pnpm", body="why: the lockfile")
    assert run("compile").code == 0
    text = path.read_bytes().decode("utf-8")
    assert text.startswith(before) and text.endswith(after) and "use-pnpm" in text
    write_memory(project, "use-pnpm", "Use pnpm always")
    assert run("compile").code == 0
    text = path.read_bytes().decode("utf-8")
    assert text.startswith(before) and text.endswith(after) and "Use pnpm always" in text
    assert run("compile", "--check").code == 0
    (memories / "use-pnpm.yaml").unlink()
    assert run("compile").code == 0
    remaining = path.read_bytes().decode("utf-8")
    if (before + after).strip():
        assert remaining == before + after
    else:  # gitmem's own file: kept, with no memory in its block (a merge never creates it)
        assert "<!-- gitmem:end -->" in remaining and "use-pnpm" not in remaining


def test_a_hand_edit_is_refused_with_a_diff_and_overwritten_with_force(
    project: Path, memory: WriteMemory, run: Run
) -> None:
    memory("use-pnpm", "Use pnpm")
    assert run("compile").code == 0
    path = project / "AGENTS.md"
    edited = path.read_text(encoding="utf-8").replace("- Use pnpm", "- Use pnpm or yarn")
    path.write_text(edited, encoding="utf-8")
    memory("api-errors", "API errors are problem details", kind="decision")

    refused = run("compile")
    assert refused.code == 1
    assert refused.lines == [  # the other target is written: one hand edit holds only its own
        "updated CLAUDE.md",
        "compiled 2 memories for claude: 1 file(s) changed",
    ]
    assert refused.err.splitlines()[0] == (
        "AGENTS.md: gitmem's text was edited by hand since the last compile; compile would change it so:"
    )
    assert "-- Use pnpm or yarn (`use-pnpm`)\n+- Use pnpm (`use-pnpm`)\n" in refused.err
    assert refused.err.splitlines()[-2:] == [
        "refused: 1 file(s) edited by hand inside gitmem's block. Put the change in a memory (`gitmem add`, "
        "`gitmem edit`) and run `gitmem compile`, or overwrite it with `gitmem compile --force`.",
        "not written: agents (the files above); the other targets were",
    ]
    assert path.read_text(encoding="utf-8") == edited
    assert "api-errors" in (project / "CLAUDE.md").read_text(encoding="utf-8")

    check = run("compile", "--check")
    assert check.code == 1 and "AGENTS.md: edited by hand" in check.lines
    forced = run("compile", "--force")
    assert forced.code == 0, forced.err
    assert "or yarn" not in path.read_text(encoding="utf-8")
    assert run("compile", "--check").code == 0


def test_a_hand_edit_of_a_whole_file_is_refused_and_so_is_deleting_it(
    project: Path, memory: WriteMemory, run: Run
) -> None:
    set_config(project, targets=["cursor"])
    memory("use-pnpm", "Use pnpm")
    assert run("compile").code == 0
    path = project / ".cursor/rules/gitmem.mdc"
    path.write_text(
        path.read_text(encoding="utf-8").replace("alwaysApply: true", "alwaysApply: false"), "utf-8"
    )
    assert run("compile").code == 1
    (project / ".memory/memories/use-pnpm.yaml").unlink()
    refused = run("compile")
    assert refused.code == 1 and refused.err.startswith(
        ".cursor/rules/gitmem.mdc: gitmem's text was edited by hand"
    )
    assert path.exists()
    forced = run("compile", "--force")
    assert forced.lines == [
        "updated .cursor/rules/gitmem.mdc",
        "compiled 0 memories for cursor: 1 file(s) changed",
    ]
    # gitmem's again, no memory in it
    assert "alwaysApply: true" in path.read_text(encoding="utf-8")


def test_a_file_gitmem_did_not_write_is_never_overwritten(
    project: Path, memory: WriteMemory, run: Run
) -> None:
    set_config(project, targets=["cursor"])
    own = project / ".cursor/rules/gitmem.mdc"
    own.parent.mkdir(parents=True)
    own.write_text(
        "---\nalwaysApply: true\n---\nMy own rule that happens to share the name.\n",
        encoding="utf-8",
    )
    memory("use-pnpm", "Use pnpm")
    assert run("compile").code == 1
    assert "My own rule" in own.read_text(encoding="utf-8")
    (project / ".memory/memories/use-pnpm.yaml").unlink()
    assert run("compile").code == 0  # cleaning up leaves it alone: it holds no gitmem marker
    assert "My own rule" in own.read_text(encoding="utf-8")


def _branch_and_merge(project: Path, memory: WriteMemory, run: Run) -> None:
    memory("base", "Base memory")
    assert run("compile").code == 0
    git(project, "add", "-A")
    git(project, "commit", "-qm", "base")
    git(project, "checkout", "-qb", "other")
    memory("from-other", "Memory from the other branch")
    assert run("compile").code == 0
    git(project, "add", "-A")
    git(project, "commit", "-qm", "other")
    git(project, "checkout", "-q", "main")
    memory("from-main", "Memory from main")
    assert run("compile").code == 0
    git(project, "add", "-A")
    git(project, "commit", "-qm", "main")
    import subprocess

    merge = subprocess.run(
        ["git", "merge", "-q", "other"], cwd=project, capture_output=True, text=True, check=False
    )
    assert merge.returncode != 0  # without the merge driver, git conflicts inside the blocks


def test_git_conflict_markers_inside_the_block_are_healed(
    project: Path, memory: WriteMemory, run: Run
) -> None:
    set_config(project, targets=["agents", "claude", "amazonq"])
    hand = "# Project\n\nHand-written.\n"
    (project / "AGENTS.md").write_text(hand, encoding="utf-8")
    _branch_and_merge(project, memory, run)
    conflicted = (project / "AGENTS.md").read_text(encoding="utf-8")
    assert "<<<<<<< HEAD" in conflicted
    assert "<<<<<<< HEAD" in (project / ".amazonq/rules/gitmem.md").read_text(encoding="utf-8")
    assert run("compile", "--check").lines == [
        ".amazonq/rules/gitmem.md: has git conflict markers in its gitmem block",
        "AGENTS.md: has git conflict markers in its gitmem block",
        "CLAUDE.md: has git conflict markers in its gitmem block",
    ]
    healed = run("compile")
    assert healed.code == 0, healed.err
    assert healed.lines[:2] == [
        "healed .amazonq/rules/gitmem.md (git conflict markers in its gitmem block)",
        "healed AGENTS.md (git conflict markers in its gitmem block)",
    ]
    text = (project / "AGENTS.md").read_text(encoding="utf-8")
    assert text.startswith(hand + "<!-- gitmem:begin") and "<<<<<<<" not in text
    assert all(f"(`{i}`)" in text for i in ("base", "from-main", "from-other"))
    assert run("compile", "--check").code == 0


def test_conflict_markers_in_hand_written_text_are_left_to_the_user(
    project: Path, memory: WriteMemory, run: Run
) -> None:
    memory("use-pnpm", "Use pnpm")
    conflict = "<<<<<<< HEAD\nour intro\n=======\ntheir intro\n>>>>>>> other\n"
    (project / "AGENTS.md").write_text(conflict, encoding="utf-8")
    result = run("compile")
    assert result.code == 1
    assert result.err == (
        "AGENTS.md:1:1: conflict: git conflict markers outside gitmem's block: resolve them by hand, "
        "then run `gitmem compile`\nnot written: agents (the files above); the other targets were\n"
    )
    assert (project / "AGENTS.md").read_text(encoding="utf-8") == conflict
    assert result.lines == [
        "created CLAUDE.md",
        "compiled 1 memories for claude: 1 file(s) changed",
    ]
    check = run("compile", "--check")
    assert (check.code, check.out) == (1, "")
    assert check.err.splitlines()[-1] == "not up to date: agents held (above)"


def test_conflict_markers_quoted_in_a_code_fence_are_text(
    project: Path, memory: WriteMemory, run: Run
) -> None:
    memory("use-pnpm", "Use pnpm")
    doc = "How a conflict looks:\n\n```\n<<<<<<< HEAD\nours\n=======\ntheirs\n>>>>>>> other\n```\n"
    (project / "AGENTS.md").write_text(doc, encoding="utf-8")
    assert run("compile").code == 0
    assert (project / "AGENTS.md").read_text(encoding="utf-8").startswith(doc + "<!-- gitmem:begin")


def test_a_setext_heading_is_not_a_conflict_marker(
    project: Path, memory: WriteMemory, run: Run
) -> None:
    memory("use-pnpm", "Use pnpm")
    (project / "AGENTS.md").write_text("Project\n=======\n\nHand text.\n", encoding="utf-8")
    assert run("compile").lines[0] == "updated AGENTS.md"
    assert run("compile", "--check").code == 0
    assert run("compile").lines == ["up to date: 1 memories compiled for agents, claude"]


def test_an_unclosed_code_fence_puts_the_block_first(
    project: Path, memory: WriteMemory, run: Run
) -> None:
    """sure's .junie/guidelines.md and pnp-powershell's Copilot file leave a fence open: a block
    appended after it would be code, so it goes first, the team's text after it byte for byte."""
    memory("use-pnpm", "Use pnpm")
    doc = "Intro\n\n```sh\nmake\n"
    (project / "AGENTS.md").write_text(doc, encoding="utf-8")
    warning = (
        "warning: AGENTS.md:{}: a code fence opened here is never closed, so its client reads the "
        "rest of the file as code: gitmem's block is at the top of the file, before it; close the "
        "fence"
    )
    result = run("compile")
    assert result.code == 0
    assert warning.format(3) in result.err.splitlines()
    text = (project / "AGENTS.md").read_text(encoding="utf-8")
    found = block.scan(text).found
    assert found is not None and found.before == "" and found.after == doc
    assert "`use-pnpm`" in found.body
    again = run("compile")
    assert again.lines == ["up to date: 1 memories compiled for agents, claude"]
    assert warning.format(text.count("\n", 0, text.index("```")) + 1) in again.err.splitlines()
    assert run("compile", "--check").code == 0


def test_a_block_an_unclosed_code_fence_swallowed_is_refused(
    project: Path, memory: WriteMemory, run: Run
) -> None:
    memory("use-pnpm", "Use pnpm")
    (project / "AGENTS.md").write_text("Intro\n", encoding="utf-8")
    assert run("compile").code == 0
    text = (project / "AGENTS.md").read_text(encoding="utf-8")
    (project / "AGENTS.md").write_text("```sh\n" + text, encoding="utf-8")
    result = run("compile")
    assert result.code == 1
    assert result.err.splitlines() == [
        "AGENTS.md:1:1: block: a code fence opened here is never closed, so gitmem's block is code: "
        "close it",
        "not written: agents (the files above); the other targets were",
    ]
    assert (project / "AGENTS.md").read_text(encoding="utf-8") == "```sh\n" + text


def test_expired_proposed_and_retired_memories_are_left_out(
    project: Path, memory: WriteMemory, run: Run
) -> None:
    memory("live", "Live memory", expires=date(2999, 1, 1))
    memory("expired", "Expired memory", expires=date(2001, 1, 1))
    memory("proposal", "Proposed memory", status="proposed")
    memory("retired", "Retired memory", status="retired")
    assert run("compile").code == 0
    text = (project / "AGENTS.md").read_text(encoding="utf-8")
    assert "(`live`)" in text
    for left_out in ("expired", "proposal", "retired"):
        assert f"`{left_out}`" not in text


def test_invalid_memory_files_stop_compile(project: Path, memory: WriteMemory, run: Run) -> None:
    memory("use-pnpm", "Use pnpm")
    (project / ".memory/memories/broken.yaml").write_text(
        "id: broken\ntitle: Broken\nkind: nonsense\nstatus: active\n"
    )
    result = run("compile")
    assert result.code == 1
    assert result.err == (
        ".memory/memories/broken.yaml:3:1: kind: must be one of convention, decision, pitfall, preference, fact, "
        "not other text (8 characters)\n1 problem(s) in memory files: nothing was compiled. "
        "Fix them (`gitmem validate` lists "
        "them), then run `gitmem compile`.\n"
    )
    assert not (project / "AGENTS.md").exists()


def test_claude_gets_the_memories_whether_or_not_there_is_an_agents_file(
    project: Path, memory: WriteMemory, run: Run
) -> None:
    set_config(project, targets=["claude"])
    memory("use-pnpm", "Use pnpm")
    (project / "AGENTS.md").write_text("# Hand-written AGENTS.md\n", encoding="utf-8")
    assert run("compile").code == 0
    assert "(`use-pnpm`)" in (project / "CLAUDE.md").read_text(encoding="utf-8")
    assert (project / "AGENTS.md").read_text(encoding="utf-8") == "# Hand-written AGENTS.md\n"


def test_removing_a_target_cleans_up_only_its_files(
    project: Path, memory: WriteMemory, run: Run
) -> None:
    set_config(
        project, targets=["claude", "cursor", "aider"]
    )  # not agents: Cursor would read AGENTS.md
    memory("use-pnpm", "Use pnpm")
    memory("web-vitest", "Web tests use vitest", paths=["web/**"])
    (project / "CONVENTIONS.md").write_text("# Conventions\n\nOurs.\n", encoding="utf-8")
    (project / ".aider.conf.yml").write_text("# aider settings\nmodel: sonnet\n", encoding="utf-8")
    (project / ".cursor/rules").mkdir(parents=True)
    (project / ".cursor/rules/team.mdc").write_text(
        "---\nalwaysApply: true\n---\nOur own rule.\n", encoding="utf-8"
    )
    assert run("compile").code == 0
    assert (project / ".aider.conf.yml").read_text(encoding="utf-8") == (
        "# aider settings\nmodel: sonnet\nread: CONVENTIONS.md\n"
    )
    set_config(project, targets=["claude"])
    result = run("compile")
    assert result.code == 0, result.err
    assert result.lines[:-1] == [
        "removed .cursor/rules/gitmem-web-c6375b.mdc",
        "removed .cursor/rules/gitmem.mdc",
        "updated CONVENTIONS.md",
    ]
    assert (project / "CONVENTIONS.md").read_text(encoding="utf-8") == "# Conventions\n\nOurs.\n"
    assert (project / ".cursor/rules/team.mdc").exists()
    # CONVENTIONS.md keeps hand-written text, so aider's `read:` stays
    assert "read: CONVENTIONS.md" in (project / ".aider.conf.yml").read_text(encoding="utf-8")


def test_compile_cleans_up_only_the_files_it_wrote_where_they_are(
    project: Path, memory: WriteMemory, run: Run
) -> None:
    """Copies of compile's output elsewhere (a test's expected files, a vendored project's rules
    files) hold gitmem's block too, but not one compile wrote there: a nested file's block names its
    folder. Before, compile deleted every such copy as a scope's stale file (gitmem's own checkout
    lost its golden files), and `check` passed."""
    memory("use-pnpm", "Use pnpm")
    web = memory("web-vitest", "Web tests use vitest", paths=["web/**"])
    assert run("compile").code == 0
    copies = {
        "tests/golden/AGENTS.md": "AGENTS.md",  # a root block, in a folder
        "tests/golden/web/AGENTS.md": "web/AGENTS.md",  # web's block, in another folder
        "vendor/lib/CLAUDE.md": "CLAUDE.md",
        "vendor/lib/web/CLAUDE.md": "web/CLAUDE.md",
    }
    for copy, source in copies.items():
        (project / copy).parent.mkdir(parents=True, exist_ok=True)
        (project / copy).write_bytes((project / source).read_bytes())
    git(project, "add", "-A")
    kept = {copy: (project / copy).read_bytes() for copy in copies}
    assert run("compile").lines == ["up to date: 2 memories compiled for agents, claude"]
    web.unlink()  # the scope's last memory goes: its own nested files go, the copies stay
    result = run("compile")
    assert result.code == 0, result.err
    assert result.lines[:-1] == ["removed web/AGENTS.md", "removed web/CLAUDE.md"]
    assert {copy: (project / copy).read_bytes() for copy in copies} == kept
    assert run("compile", "--check").code == 0
    git(project, "add", "-A")
    assert run("check").code == 0


def test_aider_config_gitmem_created_goes_with_the_target(
    project: Path, memory: WriteMemory, run: Run
) -> None:
    set_config(project, targets=["aider"])
    memory("use-pnpm", "Use pnpm")
    assert run("compile").lines[:2] == ["created .aider.conf.yml", "created CONVENTIONS.md"]
    set_config(project, targets=["agents"])
    assert run("compile").lines[:3] == [
        "removed .aider.conf.yml",
        "created AGENTS.md",
        "removed CONVENTIONS.md",
    ]
    assert not (project / ".aider.conf.yml").exists()


def test_aider_config_read_list_is_extended_keeping_comments(
    project: Path, memory: WriteMemory, run: Run
) -> None:
    set_config(project, targets=["aider"])
    memory("use-pnpm", "Use pnpm")
    conf = project / ".aider.conf.yml"
    conf.write_text("# mine\nread:\n  - docs/STYLE.md  # style guide\n", encoding="utf-8")
    assert run("compile").code == 0
    assert (
        conf.read_text(encoding="utf-8")
        == "# mine\nread:\n  - docs/STYLE.md  # style guide\n  - CONVENTIONS.md\n"
    )
    assert run("compile", "--check").code == 0


def test_target_narrows_one_run(project: Path, memory: WriteMemory, run: Run) -> None:
    memory("use-pnpm", "Use pnpm")
    result = run("compile", "--target", "claude")
    assert result.lines == [
        "created CLAUDE.md",
        "compiled 1 memories for claude: 1 file(s) changed",
    ]
    assert not (project / "AGENTS.md").exists()
    unknown = run("compile", "--target", "cursor")
    assert unknown.code == 2
    assert unknown.err == (
        "error: target 'cursor' is not configured (targets: agents, claude); add it with "
        "`gitmem init --target cursor`\n"
    )


def test_removing_the_last_memory_of_a_scope_removes_its_files(
    project: Path, memory: WriteMemory, run: Run
) -> None:
    set_config(project, targets=["claude", "cursor"])
    memory("use-pnpm", "Use pnpm")
    py = memory("typed", "Type everything", paths=["**/*.py"])
    web = memory("web", "Web rule", paths=["web/**"])
    (project / "web").mkdir()
    (project / "web/index.ts").write_text("export {}\n", encoding="utf-8")
    assert run("compile").code == 0
    scoped = sorted(p.relative_to(project).as_posix() for p in project.rglob("gitmem-*"))
    assert scoped == [
        ".claude/rules/gitmem-py-cee74c.md",
        ".cursor/rules/gitmem-py-cee74c.mdc",
        ".cursor/rules/gitmem-web-c6375b.mdc",
    ]
    assert (project / "web/CLAUDE.md").exists()
    py.unlink()
    web.unlink()
    assert run("compile").code == 0
    assert not list(project.rglob("gitmem-*"))
    assert not (project / "web/CLAUDE.md").exists() and (project / "web/index.ts").exists()
    assert not (project / ".claude").exists()


def test_crlf_files_stay_crlf(project: Path, memory: WriteMemory, run: Run) -> None:
    (project / "AGENTS.md").write_bytes(b"# Windows\r\n\r\nHand text.\r\n")
    memory("use-pnpm", "Use pnpm")
    assert run("compile").code == 0
    raw = (project / "AGENTS.md").read_bytes()
    assert raw.startswith(b"# Windows\r\n\r\nHand text.\r\n<!-- gitmem:begin")
    assert b"\n" not in raw.replace(b"\r\n", b"")
    assert run("compile", "--check").code == 0


def test_json_output_of_compile(project: Path, memory: WriteMemory, run: Run) -> None:
    memory("use-pnpm", "Use pnpm")
    data = json.loads(run("compile", "--json").out)
    assert data["written"] is True and data["check"] is False
    assert [(f["path"], f["action"]) for f in data["files"]] == [
        ("AGENTS.md", "created"),
        ("CLAUDE.md", "created"),
    ]
    assert [t["name"] for t in data["targets"]] == ["agents", "claude"]
    assert data["targets"][0]["budget"] == 2000 and data["targets"][0]["omitted"] == []
    again = json.loads(run("compile", "--json").out)
    assert again["written"] is False and {f["action"] for f in again["files"]} == {"unchanged"}


def test_help_has_an_example(run: Run) -> None:
    for command in ("compile", "stats"):
        result = run(command, "--help")
        assert result.code == 0 and "Example" in result.out and f"gitmem {command}" in result.out


def test_compiled_output_never_holds_hidden_unicode_but_hand_text_is_flagged(
    project: Path, memory: WriteMemory, run: Run
) -> None:
    memory("use-pnpm", "Use pnpm")
    (project / "AGENTS.md").write_text(
        "Hand text\u200b with a zero-width space.\n", encoding="utf-8"
    )
    result = run("compile")
    assert result.code == 0
    assert result.err == (
        "warning: AGENTS.md:1:10: hidden Unicode character U+200B (ZERO WIDTH SPACE) in the hand-written text "
        "(hidden instructions are a known attack on rules files): check it\n"
    )
    from gitmem.scan import find_hidden

    found = block.scan((project / "AGENTS.md").read_text(encoding="utf-8")).found
    assert found is not None and not find_hidden(found.block)


@pytest.mark.parametrize("flag", [[], ["--json"]])
def test_stats(project: Path, memory: WriteMemory, run: Run, flag: list[str]) -> None:
    memory("use-pnpm", "Use pnpm", priority="high")
    memory("old", "Old", status="retired")
    memory("idea", "Idea", status="proposed", kind="decision")
    memory("gone", "Gone", expires=date(2001, 1, 1))
    assert run("compile").code == 0
    compiled = (project / "AGENTS.md").read_text(encoding="utf-8")
    tokens, size = -(-len(compiled) // 4), len(compiled.encode("utf-8"))
    result = run("stats", *flag)
    assert result.code == 0, result.err
    if not flag:
        assert (
            result.lines[0]
            == "memories: 4 (proposed 1, active 2, retired 1); 1 active but expired (not compiled)"
        )
        assert result.lines[3] == "convention  0         2       1"
        assert result.lines[10].split() == [
            *[
                "agents",
                "1",
                str(tokens),
                "2,000",
                "0",
                f"{size}/32,768",
                "bytes",
                "(chain)",
                "in",
                "AGENTS.md",
            ]
        ]
        return
    data = json.loads(result.out)
    assert data["memories"]["by_status"] == {"proposed": 1, "active": 2, "retired": 1}
    assert data["memories"]["compiled"] == 1 and data["memories"]["expired"] == 1
    agents = data["targets"][0]
    assert (
        agents["name"] == "agents"
        and agents["compiled"] == ["use-pnpm"]
        and agents["omitted"] == []
    )
    assert agents["tokens"] == tokens and agents["files"] == [
        {"path": "AGENTS.md", "tokens": tokens}
    ]
    assert agents["limits"][0]["measure"] == "chain_bytes" and agents["limits"][0]["hard"] is True


def test_a_linked_rules_file_is_written_through_once(
    project: Path, memory: WriteMemory, run: Run
) -> None:
    memory("use-pnpm", "Use pnpm")
    (project / "CLAUDE.md").write_text("# Shared by both tools\n", encoding="utf-8")
    (project / "AGENTS.md").symlink_to("CLAUDE.md")
    result = run("compile")
    assert result.code == 0, result.err
    assert (
        result.err == ""
    )  # laid out as one file: Claude Code reads the hub through the link (issue 30)
    assert (project / "AGENTS.md").is_symlink()
    text = (project / "CLAUDE.md").read_text(encoding="utf-8")
    assert (
        text.startswith("# Shared by both tools\n<!-- gitmem:begin")
        and text.count("gitmem:begin") == 1
    )
    assert run("compile", "--check").code == 0


def test_claude_importing_agents_gets_each_memory_once(
    project: Path, memory: WriteMemory, run: Run
) -> None:
    """A hand-written CLAUDE.md that imports @AGENTS.md: Claude Code reads the hub through it, so compile adds no
    second copy to CLAUDE.md (before, it added one and warned)."""
    memory("use-pnpm", "Use pnpm")
    memory("claude-only", "Use the /review command", targets=("claude",))
    (project / "CLAUDE.md").write_text("@AGENTS.md\n", encoding="utf-8")
    result = run("compile")
    assert result.code == 0
    assert result.err == ""
    claude = (project / "CLAUDE.md").read_text(encoding="utf-8")
    assert claude.startswith("@AGENTS.md\n<!-- gitmem:begin") and "(`claude-only`)" in claude
    assert "(`use-pnpm`)" not in claude and "(`use-pnpm`)" in (project / "AGENTS.md").read_text(
        encoding="utf-8"
    )
    again = run("compile")
    assert (again.code, again.err) == (0, "")


def test_hidden_unicode_never_reaches_compiled_output(project: Path) -> None:
    """The store refuses such memories; compile checks its own output anyway (defence in depth)."""
    from gitmem.compile.compiler import Request, prepare
    from gitmem.gateway import find_project
    from gitmem.memory.config import load_config
    from gitmem.memory.model import Memory

    sneaky = Memory("sneaky", "Looks harmless\u202e", "convention", "active")
    report = prepare(find_project(), load_config(find_project()), [sneaky], Request(date.today()))
    assert report.held_targets == ["agents", "claude"] and not report.problems
    assert [str(p) for p in report.held] == [
        "AGENTS.md:8:17: hidden: hidden Unicode character U+202E (RIGHT-TO-LEFT OVERRIDE) in compiled output",
        "CLAUDE.md:8:17: hidden: hidden Unicode character U+202E (RIGHT-TO-LEFT OVERRIDE) in compiled output",
    ]


def test_cline_scoped_files_of_an_older_gitmem_are_cleaned_up(
    project: Path, memory: WriteMemory, run: Run
) -> None:
    set_config(project, targets=["cline"])
    memory("web", "Web rule", paths=["web/**"])
    assert run("compile").code == 0
    # What an older gitmem wrote for a scoped memory (Cline CLI ignores `paths:`, so gitmem no longer does).
    old = project / ".clinerules" / "gitmem-web-c6375b.md"
    old.write_text(
        block.whole_text('---\npaths:\n  - "web/**"\n---\n', "## Project memories\n\n- Web rule\n")
    )
    result = run("compile")
    assert result.code == 0, result.err
    assert not old.exists()
    assert (
        "### Conventions (files matching `web/**`)"
        in (project / ".clinerules" / "gitmem.md").read_text()
    )
