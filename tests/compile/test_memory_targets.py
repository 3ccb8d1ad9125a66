"""A memory's `targets`: the tools it is compiled for (absent: every target), in real repositories."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path
from typing import Any

from gitmem.memory.config import TARGET_NAMES
from tests.compile.conftest import WriteMemory, set_config
from tests.conftest import Run, gitmem_command


def _files(root: Path) -> dict[str, str]:
    """Every compiled file under ``root`` (not .memory/ nor .git/), by path."""
    out = {}
    for path in sorted(root.rglob("*")):
        rel = path.relative_to(root).as_posix()
        if path.is_file() and not rel.startswith((".git/", ".memory/")) and rel != ".gitattributes":
            out[rel] = path.read_text(encoding="utf-8")
    return out


def _holding(root: Path, memory_id: str) -> set[str]:
    return {path for path, text in _files(root).items() if f"(`{memory_id}`)" in text}


def test_a_memory_goes_only_into_the_targets_it_names(
    project: Path, memory: WriteMemory, run: Run
) -> None:
    set_config(project, targets=["agents", "claude", "cursor", "copilot"])
    memory("everyone", "Use pnpm")
    memory("cursor-only", "Keep Cursor out of generated/", targets=("cursor",))
    memory("two", "Run ruff before a commit", targets=("claude", "copilot"))
    memory("scoped", "Web uses Vite", paths=("web/**",), targets=("cursor", "agents"))
    result = run("compile")
    assert result.code == 0, result.err
    assert "not configured" not in result.err
    # Cursor and the Copilot CLI read AGENTS.md, and the Copilot CLI reads CLAUDE.md too: AGENTS.md is the hub,
    # Claude Code's copy goes to .claude/CLAUDE.md (which the Copilot CLI does not read), and each other file holds
    # only what its client gets nowhere else.
    assert _holding(project, "everyone") == {"AGENTS.md", ".claude/CLAUDE.md"}
    assert _holding(project, "cursor-only") == {".cursor/rules/gitmem.mdc"}
    assert _holding(project, "two") == {".claude/CLAUDE.md", ".github/copilot-instructions.md"}
    assert _holding(project, "scoped") == {"web/AGENTS.md"}
    assert run("compile", "--check").code == 0

    stats = json.loads(run("stats", "--json").out)
    live = {"everyone", "cursor-only", "two", "scoped"}
    for item in stats["targets"]:
        delivered = {memory_id for ids in item["delivered_by"].values() for memory_id in ids}
        assert (
            set(item["compiled"]) | set(item["omitted"]) | set(item["other_targets"]) | delivered
            == live
        )
        assert not set(item["compiled"]) & (set(item["other_targets"]) | delivered)
    assert {
        name: item["delivered_by"] for name, item in ((i["name"], i) for i in stats["targets"])
    } == {
        "agents": {},
        "claude": {},
        "cursor": {"agents": ["everyone", "scoped"]},
        "copilot": {"agents": ["everyone"]},
    }
    by_name = {item["name"]: item for item in stats["targets"]}
    assert set(by_name["claude"]["other_targets"]) == {"cursor-only", "scoped"}
    assert set(by_name["cursor"]["other_targets"]) == {"two"}
    compiled = json.loads(run("compile", "--check", "--json").out)
    assert {item["name"]: set(item["other_targets"]) for item in compiled["targets"]} == {
        name: set(item["other_targets"]) for name, item in by_name.items()
    }
    text = run("stats").out
    assert (
        "not for every target (their `targets` leave these out): agents 2, claude 2, cursor 1, copilot 2"
        in text
    )


def test_changing_a_memorys_targets_moves_it(project: Path, memory: WriteMemory, run: Run) -> None:
    set_config(project, targets=["agents", "cursor"])
    path = memory("m", "Use pnpm")
    (project / "AGENTS.md").write_text("# Team notes\n\nWritten by hand.\n", encoding="utf-8")
    assert run("compile").code == 0
    assert _holding(project, "m") == {"AGENTS.md"}  # Cursor reads AGENTS.md
    text = path.read_text(encoding="utf-8").replace(
        "status: active\n", "status: active\ntargets: [cursor]\n"
    )
    path.write_text(text, encoding="utf-8")
    assert run("compile", "--check").code == 1
    result = run("compile")
    assert result.code == 0, result.err
    assert _holding(project, "m") == {".cursor/rules/gitmem.mdc"}
    assert (project / "AGENTS.md").read_text(
        encoding="utf-8"
    ) == "# Team notes\n\nWritten by hand.\n"


def test_only_unconfigured_targets_is_a_warning_not_an_error(
    project: Path, memory: WriteMemory, run: Run
) -> None:
    set_config(project, targets=["agents", "claude"])
    memory("kept", "Use pnpm")
    memory("lost", "Windsurf: no autocomplete in migrations", targets=("windsurf", "kiro"))
    result = run("compile")
    assert result.code == 0, result.err
    assert (
        "warning: 1 memory is only for targets that are not configured (kiro, windsurf), so no rules file gets it: "
        "lost. Add a target (`gitmem init --target NAME`) or change its `targets`"
    ) in result.err
    assert _holding(project, "lost") == set()
    assert _holding(project, "kept") == {"AGENTS.md", "CLAUDE.md"}
    assert run("compile", "--check").code == 0
    warnings = json.loads(run("compile", "--check", "--json").out)["warnings"]
    assert any("only for targets that are not configured" in warning for warning in warnings)
    # --target narrows this run, not what is configured: no warning for a memory a configured target gets.
    memory("claude-only", "Claude: use the plan mode", targets=("claude",))
    narrowed = run("compile", "--target", "agents")
    assert narrowed.code == 0, narrowed.err
    assert "claude-only" not in narrowed.err
    # windsurf is retired (Windsurf is Devin Desktop now): the config and the memory still name it, and both are read
    # as devin, with a one-line note and no error.
    set_config(project, targets=["agents", "claude", "windsurf"])
    retired = run("compile")
    assert retired.code == 0, retired.err
    assert "not configured" not in retired.err
    notes = [line for line in retired.err.splitlines() if "target windsurf is retired" in line]
    assert len(notes) == 1 and "its memories go to devin" in notes[0]
    assert _holding(project, "lost") == {".devin/rules/gitmem.md"}


def test_add_sets_targets_and_show_list_recall_report_them(project: Path, run: Run) -> None:
    result = run(
        "add", "Keep Cursor out of generated/", "--target", "cursor", "--target", "claude", "--json"
    )
    assert result.code == 0, result.err
    added = json.loads(result.out)
    assert added["targets"] == ["cursor", "claude"]
    text = (project / added["path"]).read_text(encoding="utf-8")
    assert "targets: [cursor, claude]\n" in text
    plain = run("add", "Use pnpm", "--json")
    assert json.loads(plain.out)["targets"] == []
    assert "targets" not in (project / json.loads(plain.out)["path"]).read_text(encoding="utf-8")
    shown = run("show", added["id"]).out
    assert "  targets      cursor, claude\n" in shown
    assert "targets" not in run("show", "use-pnpm").out
    listed = {item["id"]: item for item in json.loads(run("list", "--json").out)}
    assert listed[added["id"]]["targets"] == ["cursor", "claude"]
    assert listed["use-pnpm"]["targets"] == []
    # In the JSON, `targets` sits with the other optional fields, after `paths`.
    keys = list(listed["use-pnpm"])
    assert keys.index("targets") == keys.index("paths") + 1
    recalled = json.loads(run("recall", "Cursor generated", "--json").out)
    assert recalled[0]["id"] == added["id"] and recalled[0]["targets"] == ["cursor", "claude"]
    assert "compiled for cursor, claude only" in run("recall", "Cursor generated").out
    bad = run("add", "Vim only", "--target", "vim")
    assert bad.code == 2


def test_validate_refuses_an_unknown_target_without_quoting_it(project: Path, run: Run) -> None:
    path = project / ".memory" / "memories" / "odd.yaml"
    path.write_text(
        "id: odd\ntitle: Odd\nkind: fact\nstatus: active\ntargets: [cursor, vim-secretish]\n"
    )
    result = run("validate")
    assert result.code == 1
    assert result.err.splitlines()[0] == (
        f".memory/memories/odd.yaml:5:19: targets[1]: must be one of {', '.join(TARGET_NAMES)}, "
        "not other text (13 characters)"
    )
    assert "vim-secretish" not in result.err
    path.write_text("id: odd\ntitle: Odd\nkind: fact\nstatus: active\ntargets: [cursor, cursor]\n")
    assert run("validate").code == 1
    path.write_text("id: odd\ntitle: Odd\nkind: fact\nstatus: active\ntargets: cursor\n")
    assert (
        run("validate").err.splitlines()[0].startswith(".memory/memories/odd.yaml:5:1: targets: ")
    )
    assert run("compile").code == 1  # an invalid memory stops compile, as any other field does


def _hook(root: Path, event: str, payload: dict[str, Any], client: str) -> str:
    done = subprocess.run(
        [*gitmem_command(), "hook", event, "--client", client],
        cwd=root,
        input=json.dumps(payload),
        capture_output=True,
        text=True,
        check=False,
        timeout=60,
    )
    assert done.returncode == 0, done.stderr
    if not done.stdout.strip():
        return ""
    text = json.loads(done.stdout)["hookSpecificOutput"]["additionalContext"]
    assert isinstance(text, str)
    return text


def test_a_memory_compiled_for_other_tools_is_not_loaded_by_this_client(
    project: Path, memory: WriteMemory, run: Run
) -> None:
    set_config(project, targets=["claude", "cursor"])
    topics = ("tabs in Makefiles", "UTC timestamps", "ruff before commits", "no print calls", "short branch names",
              "typed settings", "small pull requests", "squash merges")  # fmt: skip
    for number, topic in enumerate(topics):
        memory(f"filler-{number}", f"Use {topic}", body=f"The team agreed on {topic} long ago.")
    memory(
        "pnpm",
        "Install the web workspace with pnpm",
        body="npm rewrites the pnpm lockfile of the workspace.",
    )
    memory(
        "lockfile",
        "Regenerate the pnpm lockfile, never hand-edit it",
        body="Run pnpm install to regenerate the lockfile; a hand edit breaks the workspace.",
        targets=("cursor",),
    )
    assert run("compile").code == 0
    assert _holding(project, "lockfile") == {".cursor/rules/gitmem.mdc"}
    start = _hook(project, "session-start", {"session_id": "s", "cwd": str(project)}, "claude")
    assert "10 active project memories" in start
    assert "CLAUDE.md holds 9 of them" in start
    assert "1 is compiled only for other tools" in start
    assert "token budget" not in start  # the cursor-only memory was not left out by a budget
    payload = {
        "session_id": "s",
        "cwd": str(project),
        "prompt": "regenerate the pnpm lockfile of the workspace",
    }
    injected = _hook(project, "prompt", payload, "claude")
    assert "[lockfile]" in injected  # CLAUDE.md does not hold it: not loaded already
    assert "(convention; meant for cursor)" in injected
    assert (
        "[pnpm]" not in injected
    )  # CLAUDE.md holds it (it clears the bar too: recall ranks it second)
    assert [
        hit["id"] for hit in json.loads(run("recall", "regenerate the pnpm lockfile", "--json").out)
    ][:2] == [
        "lockfile",
        "pnpm",
    ]
