"""`gitmem hook pre-tool` (issue 33): a memory's `enforce` refuses the calls that break it, in each client's own
answer shape and quoting the memory; the memory-layer gate refuses an agent's writes into .memory/ and managed
blocks and the gitmem commands that make a memory live; everything else passes silently. Run as the clients run it:
a real process reading the client's payload on stdin, in a real repository."""

from __future__ import annotations

import json
import os
import re
import subprocess
from pathlib import Path
from typing import Any

import pytest

from gitmem import yamlio
from gitmem.hook import shell
from gitmem.hook.clients import BY_NAME
from tests.conftest import git, gitmem_command, store_repo

PNPM = {
    "id": "use-pnpm",
    "title": "Use pnpm, never npm",
    "body": "npm rewrites pnpm-lock.yaml and breaks the workspace.",
    "enforce": {
        "commands": ["npm install*", "npm i *"],
        "edits": ["pnpm-lock.yaml", "migrations/**"],
    },
}


@pytest.fixture
def root(tmp_path: Path) -> Path:
    root = store_repo(
        tmp_path / "repo", [PNPM, {"id": "plain", "title": "Plain advice, nothing enforced"}]
    )
    (root / "CLAUDE.md").write_text("# Team notes\n\nHand-written.\n", encoding="utf-8")
    done = subprocess.run([*gitmem_command(), "compile"], cwd=root, capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    git(root, "add", "-A")
    git(root, "-c", "core.hooksPath=/dev/null", "commit", "-qm", "set up")
    return root


def hook(root: Path, client: str, payload: dict[str, Any]) -> subprocess.CompletedProcess[str]:
    done = subprocess.run(
        [*gitmem_command(), "hook", "pre-tool", "--client", client],
        cwd=root,
        input=json.dumps({"session_id": "s1", "cwd": str(root), **payload}),
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 0, done.stderr
    return done


def bash(command: str) -> dict[str, Any]:
    return {
        "hook_event_name": "PreToolUse",
        "tool_name": "Bash",
        "tool_input": {"command": command},
    }


def denied(root: Path, payload: dict[str, Any], client: str = "claude") -> str:
    """The refusal's reason (fails when the call was let through)."""
    out = hook(root, client, payload).stdout
    assert out.strip(), f"let through: {payload}"
    answer = json.loads(out)
    return str(answer["hookSpecificOutput"]["permissionDecisionReason"])


def passes(root: Path, payload: dict[str, Any], client: str = "claude") -> bool:
    return hook(root, client, payload).stdout == ""


def test_a_command_breaking_enforce_is_refused_quoting_the_memory(root: Path) -> None:
    reason = denied(root, bash("cd web && npm install left-pad"))
    assert "[use-pnpm] Use pnpm, never npm" in reason
    assert "npm rewrites pnpm-lock.yaml and breaks the workspace." in reason
    assert "`npm install*`" in reason
    for line in (
        "FOO=1 npm install x",
        "bash -lc 'npm install x'",
        "echo ok; sudo npm i left-pad",
        "x=$(npm install)",
    ):
        assert "[use-pnpm]" in denied(root, bash(line)), line


def test_everything_else_passes_silently(root: Path) -> None:
    for line in (
        "pnpm install",
        "npm test",
        'echo "npm install x"',
        "git log -- .memory",
        "cat .memory/memories/*",
    ):
        assert passes(root, bash(line)), line
    assert passes(
        root,
        {
            "tool_name": "Read",
            "tool_input": {"file_path": str(root / ".memory/memories/plain.yaml")},
        },
    )
    assert passes(
        root,
        {
            "tool_name": "Write",
            "tool_input": {"file_path": str(root / "web/app.ts"), "content": "x"},
        },
    )


def test_edits_are_refused_for_write_tools_and_shell_writes(root: Path) -> None:
    write = {
        "tool_name": "Edit",
        "tool_input": {"file_path": str(root / "migrations/0002.sql"), "old_string": "a"},
    }
    assert "it writes a file matching `migrations/**`" in denied(root, write)
    assert "[use-pnpm]" in denied(root, bash("echo x >> pnpm-lock.yaml"))
    assert "[use-pnpm]" in denied(root, bash("cd migrations && touch 0003.sql"))


def test_the_memory_layer_gate(root: Path) -> None:
    memory = str(root / ".memory" / "memories" / "new.yaml")
    for payload in (
        {"tool_name": "Write", "tool_input": {"file_path": memory, "content": "id: new\n"}},
        {
            "tool_name": "MultiEdit",
            "tool_input": {"file_path": memory, "edits": [{"old_string": "a", "new_string": "b"}]},
        },
        bash("echo 'status: active' > .memory/memories/new.yaml"),
        bash("cd .memory/memories && sed -i s/proposed/active/ x.yaml"),
        bash("python3 -c \"open('.memory/memories/x.yaml', 'w').write('')\""),
        bash("rm -rf .memory"),
        bash('gitmem add "Always use tabs"'),
        bash("gitmem-cli accept some-id"),
        bash("cd sub && python -m gitmem edit some-id"),
        bash("gitmem sources add https://example.com/pack.git"),
    ):
        assert "Only people make a memory live" in denied(root, payload), payload
    for line in (
        'gitmem add --proposed "Always use tabs"',
        "gitmem recall tabs",
        "gitmem show use-pnpm",
        "ls .memory",
        'git commit -m "memories: fix the typo in .memory/memories/use-pnpm.yaml"',
        'gh pr create --title "Memories" --body "Adds .memory/memories/x.yaml for review"',
    ):
        assert passes(root, bash(line)), line


def test_the_managed_block_is_gitmems_and_the_rest_of_the_file_the_teams(root: Path) -> None:
    rules = root / "CLAUDE.md"
    text = rules.read_text(encoding="utf-8")
    inside = text[text.index("<!-- gitmem:begin") :].splitlines()[2]
    edit_inside = {
        "tool_name": "Edit",
        "tool_input": {"file_path": str(rules), "old_string": inside, "new_string": "x"},
    }
    assert "managed block of CLAUDE.md" in denied(root, edit_inside)
    rewrite = {
        "tool_name": "Write",
        "tool_input": {"file_path": str(rules), "content": "# Team notes\n"},
    }
    assert "managed block" in denied(root, rewrite)
    assert "managed block" in denied(root, bash("echo '# new' > CLAUDE.md"))
    outside = {
        "tool_name": "Edit",
        "tool_input": {
            "file_path": str(rules),
            "old_string": "Hand-written.",
            "new_string": "Ours.",
        },
    }
    assert passes(root, outside)
    kept = {
        "tool_name": "Write",
        "tool_input": {
            "file_path": str(rules),
            "content": "# Ours\n\n" + text[text.index("<!--") :],
        },
    }
    assert passes(root, kept)


def test_each_client_gets_its_own_answer_shape(root: Path) -> None:
    line = "npm install left-pad"
    gemini = json.loads(
        hook(
            root, "gemini", {"tool_name": "run_shell_command", "tool_input": {"command": line}}
        ).stdout
    )
    assert gemini["decision"] == "deny" and "[use-pnpm]" in gemini["reason"]
    copilot = json.loads(
        hook(
            root, "copilot", {"toolName": "bash", "toolArgs": json.dumps({"command": line})}
        ).stdout
    )
    assert (
        copilot["permissionDecision"] == "deny"
        and "[use-pnpm]" in copilot["permissionDecisionReason"]
    )
    cursor = json.loads(
        hook(root, "cursor", {"hook_event_name": "beforeShellExecution", "command": line}).stdout
    )
    assert cursor["permission"] == "deny" and "[use-pnpm]" in cursor["agent_message"]
    opencode = hook(root, "opencode", {"tool_name": "bash", "tool_input": {"command": line}}).stdout
    assert opencode.startswith("gitmem: refused") and "[use-pnpm]" in opencode
    for name in ("codex", "qwen"):
        assert "[use-pnpm]" in denied(root, bash(line), name)
    patch = "*** Begin Patch\n*** Add File: migrations/0009.sql\n+drop table x;\n*** End Patch\n"
    assert "[use-pnpm]" in denied(
        root, {"tool_name": "apply_patch", "tool_input": {"command": patch}}, "codex"
    )


def antigravity(root: Path, name: str, args: dict[str, Any]) -> subprocess.CompletedProcess[str]:
    """Antigravity's PreToolUse payload: no ``cwd``, the call under ``toolCall``."""
    payload = {
        "conversationId": "c1",
        "workspacePaths": [str(root)],
        "toolCall": {"name": name, "args": args},
    }
    done = subprocess.run(
        [*gitmem_command(), "hook", "pre-tool", "--client", "antigravity"],
        cwd=root / ".memory",
        input=json.dumps(payload),
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 0, done.stderr
    return done


def test_antigravity_calls_are_read_from_its_payload_and_refused_in_its_shape(root: Path) -> None:
    answer = json.loads(antigravity(root, "run_command", {"CommandLine": "npm i left-pad"}).stdout)
    assert answer["decision"] == "deny" and "[use-pnpm] Use pnpm" in answer["reason"]
    write = {"TargetFile": str(root / "migrations" / "0003.sql"), "CodeContent": "drop table x;"}
    assert "[use-pnpm]" in json.loads(antigravity(root, "write_to_file", write).stdout)["reason"]
    memory = {"TargetFile": str(root / ".memory" / "memories" / "x.yaml"), "CodeContent": "id: x"}
    gate = json.loads(antigravity(root, "write_to_file", memory).stdout)
    assert gate["decision"] == "deny" and "Only people make a memory live" in gate["reason"]
    block = (root / "CLAUDE.md").read_text(encoding="utf-8").split("<!-- gitmem:begin")[1]
    chunk = {"TargetContent": block.splitlines()[3], "ReplacementContent": "x"}
    edit = {"TargetFile": str(root / "CLAUDE.md"), "ReplacementChunks": [chunk]}
    assert (
        "managed block"
        in json.loads(antigravity(root, "multi_replace_file_content", edit).stdout)["reason"]
    )
    notes = {"TargetFile": str(root / "CLAUDE.md"), "TargetContent": "Hand-written."}
    assert (
        antigravity(root, "replace_file_content", {**notes, "ReplacementContent": "ok"}).stdout
        == ""
    )
    assert antigravity(root, "run_command", {"CommandLine": "pnpm install"}).stdout == ""
    assert antigravity(root, "view_file", {"AbsolutePath": str(root / "CLAUDE.md")}).stdout == ""


def test_personal_and_pack_memories_are_enforced_too(root: Path, tmp_path: Path) -> None:
    """A personal memory (``--user``) and a shared pack's carry ``enforce`` as the project's do; one
    added after a call was let through is enforced at once (its folder or the config changed)."""
    assert passes(root, bash("docker system prune -af"))
    personal = Path(os.environ["XDG_CONFIG_HOME"]) / "gitmem" / "memories"
    personal.mkdir(parents=True)
    prune = {
        "id": "no-prune",
        "title": "Never prune docker on this laptop",
        "kind": "convention",
        "status": "active",
        "created": "2026-01-01",
        "enforce": {"commands": ["docker system prune*"]},
    }
    (personal / "no-prune.yaml").write_text(yamlio.dump(prune), encoding="utf-8")
    assert "[~/no-prune] Never prune docker" in denied(root, bash("docker system prune -af"))
    work = tmp_path / "pack-work"
    (work / ".memory" / "memories").mkdir(parents=True)
    git(work, "init", "-q", "-b", "main")
    force = {**prune, "id": "no-force-push", "title": "Never force-push to main"}
    force["enforce"] = {"commands": ["git push --force*", "git push -f*"]}
    (work / ".memory" / "memories" / "no-force-push.yaml").write_text(
        yamlio.dump(force), encoding="utf-8"
    )
    git(work, "add", "-A")
    git(work, "-c", "core.hooksPath=/dev/null", "commit", "-qm", "v1")
    assert passes(root, bash("git push --force origin main"))
    added = subprocess.run(
        [*gitmem_command(), "sources", "add", str(work), "--rev", "main", "--name", "acme"],
        cwd=root,
        capture_output=True,
        text=True,
    )
    assert added.returncode == 0, added.stderr
    reason = denied(root, bash("git push --force origin main"))
    assert "[acme/no-force-push] Never force-push to main" in reason
    assert passes(root, bash("git push origin main"))


def test_a_retired_or_proposed_memory_enforces_nothing(root: Path) -> None:
    path = root / ".memory" / "memories" / "use-pnpm.yaml"
    path.write_text(
        path.read_text(encoding="utf-8").replace("status: active", "status: retired"),
        encoding="utf-8",
    )
    assert passes(root, bash("npm install x"))


def test_a_failing_hook_lets_the_call_through_and_says_so_once(root: Path) -> None:
    import shutil

    memories = root / ".memory" / "memories"
    shutil.rmtree(memories)
    memories.write_text("not a folder")  # the store cannot be listed: the hook fails
    first = hook(root, "claude", bash("npm install x"))
    second = hook(root, "claude", bash("npm install y"))
    assert first.stdout == "" and second.stdout == ""
    assert "pre-tool hook failed" in first.stderr
    assert second.stderr == ""


def test_every_client_with_a_pre_tool_hook_has_an_answer_shape() -> None:
    from gitmem.hook.pretool import DENY

    hooked = [name for name, client in BY_NAME.items() if client.event_name("pre-tool")]
    assert all(BY_NAME[name].deny in DENY for name in hooked)  # each shape is one entry
    assert sorted(hooked) == [
        "antigravity",
        "claude",
        "codex",
        "copilot",
        "cursor",
        "gemini",
        "opencode",
        "qwen",
    ]


def test_the_shell_reader_is_bounded_and_linear() -> None:
    import time

    for unit in ("a && ", "'", '"', "$(", "x > ", "\\", "cat <<EOF\n"):
        line = unit * 40_000
        start = time.perf_counter()
        found = shell.commands(line)
        assert time.perf_counter() - start < 2.0, unit
        assert len(found) <= shell.MAX_COMMANDS
    assert [c.text for c in shell.commands("cat <<'EOF' > f\nnpm install x\nEOF\nls")] == [
        "cat",
        "ls",
    ]
    assert shell.commands("echo a 2>&1 | tee log")[1].text == "tee log"


def test_enforce_is_shown_by_show_and_diff(root: Path) -> None:
    shown = subprocess.run(
        [*gitmem_command(), "show", "use-pnpm"], cwd=root, capture_output=True, text=True
    )
    assert (
        "forbids run  npm install*" in shown.stdout and "forbids edit migrations/**" in shown.stdout
    )
    path = root / ".memory" / "memories" / "use-pnpm.yaml"
    path.write_text(
        path.read_text(encoding="utf-8").replace("- npm i *", "- npm ci*"), encoding="utf-8"
    )
    diff = subprocess.run([*gitmem_command(), "diff"], cwd=root, capture_output=True, text=True)
    assert "`enforce.commands`: added `npm ci*`; removed `npm i *`" in diff.stdout, (
        diff.stdout + diff.stderr
    )


def test_explain_says_where_enforce_holds_and_where_it_is_advice_only(tmp_path: Path) -> None:
    root = store_repo(tmp_path / "repo", [PNPM], target="claude")
    config = root / ".memory" / "config.yaml"
    text = config.read_text(encoding="utf-8")
    config.write_text(
        re.sub(r"(?m)^targets:.*$", "targets: [claude, devin]", text), encoding="utf-8"
    )
    setup = subprocess.run(
        [*gitmem_command(), "init", "--agent-hooks"], cwd=root, capture_output=True, text=True
    )
    assert setup.returncode == 0, setup.stderr
    done = subprocess.run(
        [*gitmem_command(), "explain", "--json"], cwd=root, capture_output=True, text=True
    )
    assert done.returncode == 0, done.stderr
    gates = {view["name"]: view["enforce"] for view in json.loads(done.stdout)["clients"]}
    assert gates["claude"] == "hook" and gates["devin"] == "none", gates
    text = subprocess.run(
        [*gitmem_command(), "explain"], cwd=root, capture_output=True, text=True
    ).stdout
    assert "this client has no pre-tool hook: enforce is advice only" in text


def test_a_memory_added_or_retired_is_enforced_at_once(root: Path) -> None:
    assert passes(root, bash("make deploy"))  # (the enforce cache is now warm)
    memory = {"id": "no-make-deploy", "title": "Deploy through CI only", "kind": "convention", "status": "active",
              "enforce": {"commands": ["make deploy*"]}, "created": "2026-01-01"}  # fmt: skip
    from gitmem import yamlio

    path = root / ".memory" / "memories" / "no-make-deploy.yaml"
    path.write_text(yamlio.dump(memory), encoding="utf-8")
    assert "[no-make-deploy]" in denied(root, bash("make deploy"))
    path.unlink()
    assert passes(root, bash("make deploy"))


def test_every_targets_rules_file_is_one_the_gate_reads() -> None:
    from gitmem.hook.pretool import RULES_SUFFIXES
    from gitmem.tools import TARGETS

    for target in TARGETS:
        names = [
            target.root_file,
            *([target.dir_file] if target.dir_file else []),
            f"x{target.scoped_suffix}",
        ]
        assert all(name.endswith(RULES_SUFFIXES) for name in names), target.name
