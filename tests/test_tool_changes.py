"""This year's tool changes, end to end on fixtures shaped like the tools' real files: Devin Desktop (Windsurf's
successor), Zoo Code (Roo Code's fork), Antigravity CLI (Gemini CLI's successor), and Cursor's sessionStart hook; and
the retired names, which a repository may still use."""

from __future__ import annotations

import json
import subprocess
from datetime import date
from pathlib import Path

import pytest

from gitmem.tools import RETIRED, TARGET_NAMES, current, retired_note
from tests.conftest import Run, git, gitmem_command

# The shapes of the tools' own files (from their documentation: see docs/clients.md).
DEVIN_RULE = """\
---
trigger: glob
globs:
  - "web/**"
---
# Frontend

- Components use CSS modules, never inline styles.
"""
ZOO_RULE = """\
# General

- Run `make lint` before every commit.
"""
ANTIGRAVITY_RULE = """\
---
trigger: always_on
---
# Project rules

- Deploy only from the release branch.
"""


def _write(root: Path, files: dict[str, str]) -> None:
    for name, text in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")


@pytest.mark.parametrize(
    ("files", "target", "compiled"),
    [
        ({".devin/rules/frontend.md": DEVIN_RULE}, "devin", ".devin/rules/gitmem.md"),
        (
            {".windsurf/rules/frontend.md": DEVIN_RULE},
            "devin",
            ".devin/rules/gitmem.md",
        ),  # the legacy folder
        ({".roo/rules/01-general.md": ZOO_RULE}, "zoo", ".roo/rules/gitmem.md"),
        ({".agents/rules/project.md": ANTIGRAVITY_RULE}, "antigravity", ".agents/rules/gitmem.md"),
    ],
)
def test_init_compile_and_import_for_the_new_tools(
    repo: Path, run: Run, files: dict[str, str], target: str, compiled: str
) -> None:
    _write(repo, files)
    git(repo, "add", ".")
    git(repo, "commit", "-qm", "the tool's own rules")
    init = run("init", "--no-hooks")
    assert init.code == 0, init.err
    # the tools the project uses (compile places each memory once whatever the set: tests/compile/test_delivery.py)
    assert f"found rules files of: {target}" in init.out
    assert target in (repo / ".memory" / "config.yaml").read_text(encoding="utf-8")
    imported = run("import", "--json")
    assert imported.code == 0, imported.err
    memories = json.loads(imported.out)["memories"]
    assert len(memories) == 1, imported.out
    if target == "devin":  # the glob of the rule's frontmatter became the memory's paths
        assert memories[0]["paths"] == ["web/**"]
    assert run("accept", memories[0]["id"]).code == 0
    done = run("compile")
    assert done.code == 0, done.err
    compiled_files = "".join(
        path.read_text(encoding="utf-8") for path in (repo / compiled).parent.glob("gitmem*")
    )
    assert memories[0]["title"] in compiled_files
    # What gitmem compiled is not imported back as a tool's rule.
    assert json.loads(run("import", "--json").out)["memories"] == []


def test_a_config_naming_a_retired_target_gets_a_note_and_its_replacements_files(
    project: Path, run: Run
) -> None:
    """`roo` and `windsurf` in config.yaml (and in a memory's targets) still work: read as zoo and devin, with a
    one-line note each, exit 0; the files gitmem wrote for Windsurf are cleaned up once Devin's are written."""
    config = project / ".memory" / "config.yaml"
    # claude, not agents: beside AGENTS.md, which Devin Desktop and Zoo Code read, their files would hold nothing
    config.write_text("version: 1\ntargets: [claude, windsurf]\n", encoding="utf-8")
    assert run("add", "Use pnpm, never npm").code == 0
    # What an earlier gitmem wrote for the windsurf target: its own whole file, written here by the compiler itself.
    from gitmem.compile import compiler
    from gitmem.gateway import find_project
    from gitmem.memory.config import load_config
    from gitmem.memory.store import Store
    from gitmem.tools import RETIRED_TARGETS

    found = find_project(project)
    live = list(Store(found).load().memories.values())
    compiler.apply(
        found,
        compiler.prepare(
            found,
            load_config(found),
            live,
            compiler.Request(date.today(), only=RETIRED_TARGETS[:1]),
        ),
    )
    old = project / ".windsurf" / "rules" / "gitmem.md"
    assert "Use pnpm" in old.read_text(encoding="utf-8")
    (project / ".windsurf" / "rules" / "team.md").write_text("- Our own rule.\n", encoding="utf-8")
    assert run("validate").code == 0
    done = run("compile")
    assert done.code == 0, done.err
    notes = [line for line in done.err.splitlines() if "is retired" in line]
    assert len(notes) == 1 and "target windsurf is retired" in notes[0] and "devin" in notes[0]
    assert "Use pnpm" in (project / ".devin" / "rules" / "gitmem.md").read_text(encoding="utf-8")
    assert not old.exists()  # cleaned up; the team's own file in that folder stays
    assert (project / ".windsurf" / "rules" / "team.md").read_text(
        encoding="utf-8"
    ) == "- Our own rule.\n"
    config.write_text("version: 1\ntargets: [claude, roo]\nbudget: {roo: 500}\n", encoding="utf-8")
    zoo = run("compile")
    assert zoo.code == 0, zoo.err
    assert "target roo is retired" in zoo.err and "zoo" in zoo.err
    assert "Use pnpm" in (project / ".roo" / "rules" / "gitmem.md").read_text(encoding="utf-8")
    init = run("init", "--no-hooks")
    assert init.code == 0, init.err
    assert "note: .memory/config.yaml: target roo is retired" in init.out
    assert (
        config.read_text(encoding="utf-8")
        == "version: 1\ntargets: [claude, roo]\nbudget: {roo: 500}\n"
    )


def test_a_retired_target_name_on_the_command_line_is_read_as_its_replacement_with_the_same_note(
    repo: Path, run: Run
) -> None:
    """`init --target windsurf`, `compile --target roo`, `add --target windsurf`: read as devin and zoo with the note a
    config naming them gets (they exited 2 before); a name that never was a target still exits 2."""
    init = run(
        "init", "--no-hooks", "--target", "claude", "--target", "windsurf", "--target", "roo"
    )
    assert init.code == 0, init.err
    assert "target windsurf is retired" in init.err and "use --target devin" in init.err
    assert "target roo is retired" in init.err and "use --target zoo" in init.err
    config = (repo / ".memory" / "config.yaml").read_text(encoding="utf-8")
    assert (
        "devin" in config and "zoo" in config and "windsurf" not in config and "roo]" not in config
    )
    added = run("add", "Use pnpm, never npm", "--target", "windsurf")
    assert added.code == 0, added.err
    assert "target windsurf is retired" in added.err
    assert json.loads(run("list", "--json").out)[0]["targets"] == ["devin"]
    compiled = run("compile", "--target", "roo")
    assert compiled.code == 0, compiled.err
    assert [line for line in compiled.err.splitlines() if "is retired" in line] == [
        "note: --target roo: " + retired_note("roo", "use --target zoo")
    ]
    # the memory is for devin only: zoo's own file (kept from the first compile on) holds none
    zoo = repo / ".roo" / "rules" / "gitmem.md"
    assert "Use pnpm" not in (zoo.read_text(encoding="utf-8") if zoo.exists() else "")
    assert not (repo / ".devin" / "rules" / "gitmem.md").exists()  # not compiled yet
    assert run("compile", "--target", "windsurf").code == 0
    assert "Use pnpm" in (repo / ".devin" / "rules" / "gitmem.md").read_text(encoding="utf-8")
    assert run("compile", "--target", "nope").code == 2


def test_retired_names_point_at_live_targets() -> None:
    assert set(RETIRED) == {"windsurf", "roo"}
    for name in RETIRED:
        assert current(name) in TARGET_NAMES and name not in TARGET_NAMES


def _hook(
    root: Path, event: str, payload: dict[str, object], client: str | None
) -> subprocess.CompletedProcess[str]:
    args = [*gitmem_command(), "hook", event, *(["--client", client] if client else [])]
    return subprocess.run(
        args,
        cwd=root,
        input=json.dumps(payload),
        capture_output=True,
        text=True,
        check=False,
        timeout=60,
    )


@pytest.mark.slow
def test_cursor_gets_the_status_at_session_start_through_its_hooks_json(
    project: Path, run: Run
) -> None:
    (project / ".cursor").mkdir()
    hooks_file = project / ".cursor" / "hooks.json"
    mine = {"command": "./audit.sh"}
    hooks_file.write_text(
        json.dumps({"version": 1, "hooks": {"sessionStart": [mine]}}, indent=2) + "\n"
    )
    (project / ".memory" / "config.yaml").write_text(
        "version: 1\ntargets: [agents, cursor]\n", encoding="utf-8"
    )
    assert run("add", "Use pnpm, never npm").code == 0
    assert run("compile").code == 0
    setup = run("init", "--agent-hooks")
    assert setup.code == 0, setup.err
    data = json.loads(hooks_file.read_text(encoding="utf-8"))
    assert data["version"] == 1
    entries = data["hooks"]["sessionStart"]
    assert entries[0] == mine  # the user's own hook is kept, first
    assert entries[1]["command"] == "gitmem-cli hook session-start --client cursor"
    # beforeSubmitPrompt cannot add context: not set up; the pre-tool gate runs before shell and MCP calls
    assert set(data["hooks"]) == {"sessionStart", "beforeShellExecution", "beforeMCPExecution"}
    for event in ("beforeShellExecution", "beforeMCPExecution"):
        assert [entry["command"] for entry in data["hooks"][event]] == [
            "gitmem-cli hook pre-tool --client cursor"
        ]
    for session, client in (("c1", "cursor"), ("c2", None)):  # named, or known by its event name
        # a new session each time: a session's start is answered once, whichever client's hook runs first
        payload = {
            "hook_event_name": "sessionStart",
            "session_id": session,
            "conversation_id": session,
        }
        done = _hook(project, "session-start", {**payload, "cwd": str(project)}, client)
        assert done.returncode == 0, done.stderr
        answer = json.loads(done.stdout)
        assert set(answer) == {"additional_context"}
        assert "1 active project memor" in answer["additional_context"]
    removed = run("init", "--agent-hooks", "--remove")
    assert removed.code == 0, removed.err
    assert json.loads(hooks_file.read_text(encoding="utf-8")) == {
        "version": 1,
        "hooks": {"sessionStart": [mine]},
    }
