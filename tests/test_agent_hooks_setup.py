"""`gitmem init --agent-hooks`: each client's hook entries, the opencode plugin and the /remember commands, written
idempotently next to the user's own settings, and taken out exactly by `--remove`."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

import pytest

from gitmem.init import agent_hooks as setup
from gitmem.init import remember
from tests.conftest import Run, gitmem_command

USER_SETTINGS = {
    "model": "opus",
    "permissions": {"allow": ["Bash(ls:*)"]},
    "hooks": {
        "Stop": [{"hooks": [{"type": "command", "command": "./scripts/notify.sh"}]}],
        "PreToolUse": [
            {"matcher": "Bash", "hooks": [{"type": "command", "command": "./scripts/check.sh"}]}
        ],
    },
}


@pytest.fixture
def initialised(repo: Path, run: Run) -> Path:
    assert (
        run(
            "init", "--no-hooks", "--target", "claude", "--target", "agents", "--target", "gemini"
        ).code
        == 0
    )
    return repo


def files_under(root: Path) -> dict[str, str]:
    return {
        path.relative_to(root).as_posix(): path.read_text(encoding="utf-8")
        for path in sorted(root.rglob("*"))
        if path.is_file() and path.relative_to(root).parts[0] != ".git"
    }


def test_set_up_for_the_configured_targets_idempotently(initialised: Path, run: Run) -> None:
    root = initialised
    (root / ".claude").mkdir()
    (root / ".claude" / "settings.json").write_text(
        json.dumps(USER_SETTINGS, indent=4) + "\n", encoding="utf-8"
    )
    before = files_under(root)
    first = run("init", "--agent-hooks")
    assert first.code == 0, first.err
    settings = json.loads((root / ".claude" / "settings.json").read_text(encoding="utf-8"))
    assert settings["model"] == "opus" and settings["permissions"] == USER_SETTINGS["permissions"]
    # the user's PreToolUse group stays first, gitmem's (issue 33: enforce and the memory-layer gate) comes after it
    assert settings["hooks"]["PreToolUse"][:1] == USER_SETTINGS["hooks"]["PreToolUse"]
    assert settings["hooks"]["Stop"][0] == USER_SETTINGS["hooks"]["Stop"][0]
    commands = {
        event: [h["command"] for group in groups for h in group["hooks"]]
        for event, groups in settings["hooks"].items()
    }
    assert commands["UserPromptSubmit"] == ["gitmem-cli hook prompt --client claude"]
    assert commands["SessionStart"] == ["gitmem-cli hook session-start --client claude"]
    assert commands["Stop"] == ["./scripts/notify.sh", "gitmem-cli hook stop --client claude"]
    assert commands["PreToolUse"][-1] == "gitmem-cli hook pre-tool --client claude"
    assert (
        (root / ".claude" / "settings.json")
        .read_text(encoding="utf-8")
        .startswith('{\n    "model"')
    )  # indent kept
    gemini = json.loads((root / ".gemini" / "settings.json").read_text(encoding="utf-8"))
    assert [h["command"] for g in gemini["hooks"]["BeforeAgent"] for h in g["hooks"]] == [
        "gitmem-cli hook prompt --client gemini"
    ]
    codex = json.loads((root / ".codex" / "hooks.json").read_text(encoding="utf-8"))
    assert set(codex["hooks"]) == {"UserPromptSubmit", "SessionStart", "Stop", "PreToolUse"}
    assert [h["command"] for g in gemini["hooks"]["BeforeTool"] for h in g["hooks"]] == [
        "gitmem-cli hook pre-tool --client gemini"
    ]
    plugin = (root / ".opencode" / "plugin" / "gitmem.js").read_text(encoding="utf-8")
    assert '"chat.message"' in plugin and "gitmem" in plugin
    assert '"tool.execute.before"' in plugin and '"pre-tool"' in plugin
    for path in (
        ".claude/commands/remember.md",
        ".opencode/command/remember.md",
        ".gemini/commands/remember.toml",
    ):
        text = (root / path).read_text(encoding="utf-8")
        assert "gitmem journal add -" in text and "## Decisions" in text and "## To do" in text, (
            path
        )
    assert not (root / ".github" / "hooks").exists()  # copilot is not a configured target
    after_first = files_under(root)
    again = run("init", "--agent-hooks")
    assert again.code == 0 and "nothing to change" in again.out
    assert files_under(root) == after_first
    removed = run("init", "--agent-hooks", "--remove")
    assert removed.code == 0, removed.err
    restored = files_under(root)
    assert json.loads(restored.pop(".claude/settings.json")) == USER_SETTINGS
    before.pop(".claude/settings.json")
    assert restored == before
    assert (
        not (root / ".opencode").exists()
        and not (root / ".codex").exists()
        and not (root / ".gemini").exists()
    )


def test_the_gemini_command_is_valid_toml(initialised: Path, run: Run) -> None:
    import tomllib

    assert run("init", "--agent-hooks").code == 0
    data = tomllib.loads(
        (initialised / ".gemini" / "commands" / "remember.toml").read_text(encoding="utf-8")
    )
    assert data["prompt"].strip().endswith("{{args}}") and "gitmem journal add -" in data["prompt"]


def test_someone_elses_file_is_never_overwritten(initialised: Path, run: Run) -> None:
    own = initialised / ".claude" / "commands" / "remember.md"
    own.parent.mkdir(parents=True)
    own.write_text("my own remember command\n", encoding="utf-8")
    done = run("init", "--agent-hooks")
    assert done.code == 2 and ".claude/commands/remember.md exists and is not gitmem's" in done.err
    assert own.read_text(encoding="utf-8") == "my own remember command\n"
    assert not (
        initialised / ".claude" / "settings.json"
    ).exists()  # planned first: nothing was written
    assert run("init", "--agent-hooks", "--remove").code == 0
    assert own.read_text(encoding="utf-8") == "my own remember command\n"


def test_broken_settings_are_named_with_line_and_left_alone(initialised: Path, run: Run) -> None:
    settings = initialised / ".claude" / "settings.json"
    settings.parent.mkdir()
    settings.write_text('{\n  "model": "opus",\n  "hooks": [,]\n}\n', encoding="utf-8")
    done = run("init", "--agent-hooks")
    assert (
        done.code == 2 and ".claude/settings.json:3:" in done.err and "not valid JSON" in done.err
    )
    assert settings.read_text(encoding="utf-8") == '{\n  "model": "opus",\n  "hooks": [,]\n}\n'


def test_nothing_goes_into_the_home_directory_without_user(initialised: Path, run: Run) -> None:
    home = Path(os.environ["HOME"])
    before = sorted(p.as_posix() for p in home.rglob("*"))
    assert run("init", "--agent-hooks").code == 0
    assert sorted(p.as_posix() for p in home.rglob("*")) == before
    assert run("init", "--agent-hooks", "--user", "--target", "claude").code == 0
    settings = json.loads((home / ".claude" / "settings.json").read_text(encoding="utf-8"))
    assert "gitmem-cli hook prompt --client claude" in json.dumps(settings)
    assert (home / ".claude" / "commands" / "remember.md").is_file()
    assert run("init", "--agent-hooks", "--user", "--target", "claude", "--remove").code == 0
    assert not (home / ".claude").exists()
    assert run("init", "--remove").code == 2


def test_copilot_hooks_are_a_file_of_their_own(initialised: Path) -> None:
    changes = setup.plan(initialised, ["copilot"])
    setup.apply(changes, initialised)
    data = json.loads(
        (initialised / ".github" / "hooks" / "gitmem.json").read_text(encoding="utf-8")
    )
    assert data["version"] == 1
    assert data["hooks"]["UserPromptSubmit"][0]["bash"] == "gitmem-cli hook prompt --client copilot"
    setup.apply(setup.plan(initialised, ["copilot"], remove=True), initialised)
    assert not (initialised / ".github").exists()


def test_the_installed_hook_commands_run(initialised: Path, run: Run) -> None:
    """The command written into the settings is one the installed gitmem answers (here: nothing to inject)."""
    assert run("init", "--agent-hooks").code == 0
    settings = json.loads((initialised / ".claude" / "settings.json").read_text(encoding="utf-8"))
    command = settings["hooks"]["UserPromptSubmit"][0]["hooks"][0]["command"]
    exe = gitmem_command()
    done = subprocess.run(
        [*exe, *command.split()[1:]],
        cwd=initialised,
        input=json.dumps({"session_id": "x", "prompt": "hello", "cwd": str(initialised)}),
        capture_output=True,
        text=True,
        check=False,
    )
    assert (done.returncode, done.stdout, done.stderr) == (0, "", "")
    assert remember.MARK in (initialised / ".claude" / "commands" / "remember.md").read_text(
        encoding="utf-8"
    )


# -- issue 23: uv's shape (CLAUDE.md = @AGENTS.md, a .claude/settings.json of its own), and files not in
# json.dumps shape ---------------------------------------------------------------------------------------------------

UV_SETTINGS = """{
  "hooks": {
    "SessionStart": [
      {
        "matcher": "startup",
        "hooks": [
          {
            "type": "command",
            "command": "bash agents/hooks/session-start.sh"
          }
        ]
      }
    ],
    "PostToolUse": [
      {
        "matcher": "Edit|Write|MultiEdit",
        "hooks": [{"type": "command", "command": "uv run --frozen agents/hooks/post-edit-format.py"}]
      }
    ]
  }
}
"""


def test_a_claude_md_importing_agents_md_gets_claude_code_hooks(repo: Path, run: Run) -> None:
    (repo / "AGENTS.md").write_text("# Agents\n\n- Run `cargo test`\n", encoding="utf-8")
    (repo / "CLAUDE.md").write_text("@AGENTS.md\n", encoding="utf-8")
    settings = repo / ".claude" / "settings.json"
    settings.parent.mkdir()
    settings.write_text(UV_SETTINGS, encoding="utf-8")
    init = run("init", "--no-hooks")
    assert "targets: agents" in init.out  # CLAUDE.md imports AGENTS.md: no claude target
    done = run("init", "--agent-hooks")
    assert done.code == 0, done.err
    assert "updated .claude/settings.json" in done.out and "claude" in done.out.splitlines()[-1]
    text = settings.read_text(encoding="utf-8")
    data = json.loads(text)
    commands = [
        h["command"] for groups in data["hooks"].values() for g in groups for h in g["hooks"]
    ]
    assert setup.command_for("claude", "prompt") in commands
    assert "bash agents/hooks/session-start.sh" in commands  # theirs stays
    assert text.startswith(
        UV_SETTINGS[: UV_SETTINGS.index("          }\n        ]")]
    )  # their lines as they were
    assert run("init", "--agent-hooks", "--remove").code == 0
    assert settings.read_text(encoding="utf-8") == UV_SETTINGS  # byte for byte


@pytest.mark.parametrize(
    "text",
    [
        '{"model":"opus","env":{"GREETING":"caf\\u00e9"},"hooks":{"Stop":[{"hooks":[{"type":"command","command":"./n.sh"}]}]}}\n',
        '{\n\t"model": "opus",\n\t"env": {"GREETING": "caf\\u00e9"}\n}\n',
        '{\r\n    "permissions" : { "allow" : [ "Bash(ls:*)" ] }\r\n}',
        "{}\n",
    ],
    ids=["one-line", "tabs", "crlf-spaced", "empty"],
)
def test_settings_not_in_json_dumps_shape_come_back_byte_for_byte(
    initialised: Path, run: Run, text: str
) -> None:
    settings = initialised / ".claude" / "settings.json"
    settings.parent.mkdir()
    settings.write_bytes(text.encode("utf-8"))
    assert run("init", "--agent-hooks").code == 0
    added = settings.read_bytes().decode("utf-8")
    data = json.loads(added)
    assert json.loads(text).items() <= data.items() or "hooks" in json.loads(text)
    assert any(
        setup.command_for("claude", "stop") in h["command"]
        for g in data["hooks"]["Stop"]
        for h in g["hooks"]
    )
    assert "\\u00e9" in added if "\\u00e9" in text else True  # their escapes are not rewritten
    assert (
        run("init", "--agent-hooks").code == 0 and settings.read_bytes().decode("utf-8") == added
    )  # idempotent
    assert run("init", "--agent-hooks", "--remove").code == 0
    if json.loads(text) == {}:
        assert not settings.exists()  # nothing of theirs was in it
    else:
        assert settings.read_bytes().decode("utf-8") == text


def test_remove_takes_out_what_target_claude_added(repo: Path, run: Run) -> None:
    assert run("init", "--no-hooks", "--target", "agents").code == 0
    assert run("init", "--agent-hooks", "--target", "claude").code == 0
    settings = repo / ".claude" / "settings.json"
    assert setup.command_for("claude", "prompt") in settings.read_text(encoding="utf-8")
    removed = run("init", "--agent-hooks", "--remove")
    assert removed.code == 0
    assert not settings.exists()
    assert not any((repo / ".claude").rglob("*gitmem*"))


def test_init_moves_an_older_gitmems_client_hooks_to_gitmem_cli(
    initialised: Path, run: Run
) -> None:
    """Client hooks an older gitmem wrote run `gitmem` from PATH (maybe another tool's program): `gitmem init` moves
    them to `gitmem-cli`, keeping the user's own entries; a client without gitmem's hooks gets none."""
    root = initialised
    (root / ".claude").mkdir()
    old = {
        "model": "opus",
        "hooks": {
            "UserPromptSubmit": [
                {"hooks": [{"type": "command", "command": "gitmem hook prompt --client claude"}]}
            ],
            "Stop": [
                {"hooks": [{"type": "command", "command": "./scripts/notify.sh"}]},
                {
                    "hooks": [
                        {
                            "type": "command",
                            "command": "gitmem hook stop --client claude",
                            "timeout": 10,
                        }
                    ]
                },
            ],
        },
    }
    (root / ".claude" / "settings.json").write_text(
        json.dumps(old, indent=2) + "\n", encoding="utf-8"
    )
    done = run("init", "--no-hooks")
    assert done.code == 0, done.err
    assert "updated .claude/settings.json: gitmem's client hooks run gitmem-cli" in done.out
    text = (root / ".claude" / "settings.json").read_text(encoding="utf-8")
    assert '"gitmem hook' not in text and '"gitmem-cli hook prompt --client claude"' in text
    settings = json.loads(text)
    assert settings["model"] == "opus"
    assert settings["hooks"]["Stop"][0] == {
        "hooks": [{"type": "command", "command": "./scripts/notify.sh"}]
    }
    assert not (root / ".gemini").exists() and not (root / ".cursor").exists()
    again = run("init", "--no-hooks")
    assert "client hooks" not in again.out
    assert (root / ".claude" / "settings.json").read_text(encoding="utf-8") == text


def test_antigravity_gets_its_pre_tool_hook_in_the_shape_agy_loads(repo: Path, run: Run) -> None:
    """`.agents/hooks.json` (agy's workspace hooks): a named hook `hooks` with a `*` matcher and no
    timeout (agy denies a call whose hook timed out, and its unit is not documented)."""
    assert run("init", "--no-hooks", "--target", "antigravity").code == 0
    done = run("init", "--agent-hooks")
    assert done.code == 0, done.err
    data = json.loads((repo / ".agents" / "hooks.json").read_text(encoding="utf-8"))
    assert data == {
        "hooks": {
            "PreToolUse": [
                {
                    "matcher": "*",
                    "hooks": [
                        {
                            "type": "command",
                            "command": "gitmem-cli hook pre-tool --client antigravity",
                        }
                    ],
                }
            ]
        }
    }
    assert run("init", "--agent-hooks", "--remove").code == 0
    assert not (repo / ".agents" / "hooks.json").exists()
