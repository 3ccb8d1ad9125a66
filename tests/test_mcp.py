"""The MCP server, driven by a real client from the official SDK over stdio, and its registration by init."""

from __future__ import annotations

import json
import sys
from collections.abc import Awaitable, Callable
from datetime import date
from pathlib import Path
from typing import Any

import anyio
import pytest

from tests.conftest import Run, gitmem_command

TOKEN = (
    "ghp_" + "aB3dE5fG7hJ9kL2mN4pQ6rS8tU0vW1xY" + "z9Qk"
)  # built at run time, never stored whole


def with_session(project: Path, body: Callable[[Any], Awaitable[None]]) -> None:
    """Start `gitmem mcp` in ``project`` as an MCP client would, and run ``body`` with an initialised session."""
    from mcp import ClientSession, StdioServerParameters
    from mcp.client.stdio import stdio_client

    command = gitmem_command()
    params = StdioServerParameters(command=command[0], args=[*command[1:], "mcp"], cwd=str(project))

    async def main() -> None:
        with open(project.parent / "server-stderr.log", "w") as errlog:
            async with (
                stdio_client(params, errlog=errlog) as (read, write),
                ClientSession(read, write) as session,
            ):
                await session.initialize()
                await body(session)

    anyio.run(main)


def text_of(result: Any) -> str:
    return "\n".join(part.text for part in result.content)


def memory_files(root: Path) -> list[str]:
    return sorted(p.name for p in (root / ".memory/memories").glob("*.yaml"))


@pytest.mark.slow
def test_a_real_client_lists_the_tools_recalls_proposes_and_appends(
    project: Path, run: Run
) -> None:
    assert (
        run(
            "add",
            "Use pnpm, never npm",
            "--path",
            "web/**",
            "--body",
            "npm rewrites pnpm-lock.yaml.",
        ).code
        == 0
    )
    seen: dict[str, Any] = {}

    async def body(session: Any) -> None:
        listed = await session.list_tools()
        seen["tools"] = {tool.name: tool for tool in listed.tools}
        seen["recall"] = await session.call_tool(
            "recall", {"query": "which package manager, npm?", "k": 3}
        )
        seen["propose"] = await session.call_tool(
            "propose",
            {
                "title": "Run the API tests with pytest -x",
                "body": "The full suite takes six minutes.",
                "kind": "convention",
                "paths": ["api/**"],
                "tags": ["testing"],
                "targets": ["claude", "cursor"],
                "words": ["suite  is slow", "tests take forever"],
            },
        )
        seen["list"] = await session.call_tool("list_memories", {"status": "proposed"})
        seen["append"] = await session.call_tool(
            "append_journal", {"text": "## Decisions\n- Use FTS5 for recall."}
        )

    with_session(project, body)

    tools = seen["tools"]
    assert set(tools) == {"recall", "propose", "list_memories", "append_journal"}
    assert (
        "gitmem accept" in tools["propose"].description
        and "proposed" in tools["propose"].description
    )
    assert "may be stale" in tools["recall"].description
    assert set(tools["propose"].input_schema["properties"]) == {
        "title",
        "body",
        "kind",
        "paths",
        "tags",
        "targets",
        "words",
    }
    assert tools["propose"].input_schema["required"] == ["title"]
    assert set(tools["recall"].input_schema["properties"]) == {"query", "k", "path"}
    # Read-only tools say so (codex exec runs those without approval), the others do not claim it.
    read_only = {name: tool.annotations.read_only_hint for name, tool in tools.items()}
    assert read_only == {
        "recall": True,
        "list_memories": True,
        "propose": False,
        "append_journal": False,
    }

    recalled = text_of(seen["recall"])
    assert not seen["recall"].is_error
    assert "[use-pnpm-never-npm] Use pnpm, never npm" in recalled
    assert "may be out of date" in recalled

    assert not seen["propose"].is_error, text_of(seen["propose"])
    assert text_of(seen["propose"]) == (
        "Proposed memory [run-the-api-tests-with-pytest-x] written to "
        ".memory/memories/run-the-api-tests-with-pytest-x.yaml with status `proposed`. It is not in effect: a human "
        "must review and accept it (`gitmem accept run-the-api-tests-with-pytest-x`), usually in the pull request."
    )
    stored = {m["id"]: m for m in json.loads(run("list", "--json").out)}
    proposal = stored["run-the-api-tests-with-pytest-x"]
    assert (proposal["status"], proposal["source"], proposal["kind"]) == (
        "proposed",
        "agent",
        "convention",
    )
    assert (proposal["paths"], proposal["tags"], proposal["created"]) == (
        ["api/**"],
        ["testing"],
        date.today().isoformat(),
    )
    assert proposal["targets"] == ["claude", "cursor"]
    assert proposal["words"] == [
        "suite is slow",
        "tests take forever",
    ]  # for the future asker, reviewed in the PR
    assert "teammate" in tools["propose"].input_schema["properties"]["words"]["description"]

    assert text_of(seen["list"]) == (
        "[run-the-api-tests-with-pytest-x] (convention, proposed; applies to api/**; for claude, cursor only) "
        "Run the API tests with pytest -x"
    )

    log = f".memory/journal/{date.today().isoformat()}-session.md"
    assert not seen["append"].is_error, text_of(seen["append"])
    assert text_of(seen["append"]).startswith(f"Appended to {log}.")
    assert (project / log).read_text(encoding="utf-8") == (
        f"# Session {date.today().isoformat()}\n\n## Decisions\n- Use FTS5 for recall.\n"
    )


@pytest.mark.slow
def test_a_real_client_gets_refusals_and_nothing_is_written(project: Path, run: Run) -> None:
    assert run("add", "Use pnpm, never npm").code == 0
    seen: dict[str, Any] = {}

    async def body(session: Any) -> None:
        seen["secret"] = await session.call_tool(
            "propose", {"title": "Deploy key for staging", "body": f"Use {TOKEN} to deploy."}
        )
        seen["duplicate"] = await session.call_tool("propose", {"title": "Use pnpm, never npm!"})
        seen["kind"] = await session.call_tool("propose", {"title": "Something", "kind": "rumour"})
        seen["target"] = await session.call_tool(
            "propose",
            {
                "title": "Keep the agent out of build/",
                "targets": ["cursor", "vim-with-private-notes"],
            },
        )
        seen["journal"] = await session.call_tool(
            "append_journal", {"text": f"## Difficulties\n- {TOKEN} leaked"}
        )
        seen["path"] = await session.call_tool("recall", {"query": "deploy", "path": f"/{TOKEN}"})
        seen["kind_token"] = await session.call_tool(
            "propose", {"title": "Something", "kind": TOKEN}
        )

    before = memory_files(project)
    with_session(project, body)

    assert seen["secret"].is_error
    message = text_of(seen["secret"])
    assert message.endswith(
        "refused: body (line 1) holds a possible secret (github-pat); nothing was written. Secrets never belong "
        "in memory: remove the value (describe where it is kept instead) and propose again."
    )
    assert TOKEN not in message and TOKEN[4:20] not in message
    assert seen["duplicate"].is_error
    assert text_of(seen["duplicate"]).endswith(
        "not written: this nearly repeats memory [use-pnpm-never-npm] (active): 'Use pnpm, never npm'. Recall it "
        "instead, or propose something that adds to it."
    )
    assert seen["kind"].is_error and "kind" in text_of(seen["kind"])
    assert seen["target"].is_error
    target_message = text_of(seen["target"])
    assert (
        "targets[1]: must be one of agents, claude" in target_message
    )  # names the field, not the value
    assert "not other text (22 characters); nothing was written" in target_message
    assert "vim" not in target_message and "private" not in target_message
    assert seen["journal"].is_error
    assert "possible secret (github-pat)" in text_of(seen["journal"])
    assert TOKEN not in text_of(seen["journal"])
    # an error that would quote a value back shows a secret redacted, gitmem's own and the SDK's
    assert seen["path"].is_error and "must be relative" in text_of(seen["path"])
    assert seen["kind_token"].is_error
    for refused in ("path", "kind_token"):
        assert TOKEN not in text_of(seen[refused]) and TOKEN[4:20] not in text_of(seen[refused])
    assert memory_files(project) == before
    assert sorted(p.name for p in (project / ".memory/journal").iterdir()) == [".gitkeep"]


def revision_session(project: Path, revision: str, body: Callable[[Any], Awaitable[None]]) -> str:
    """Start `gitmem mcp` in ``project`` and talk to it with the SDK's own client at ``revision``: 2026-07-28 without
    a handshake (the version pinned), "auto" (server/discover first, as the SDK connects by default), or a
    handshake-era version through `initialize` proposing that version. Returns the version the session runs."""
    from mcp import ClientSession, StdioServerParameters, types
    from mcp.client.client import Client
    from mcp.client.stdio import stdio_client

    command = gitmem_command()
    params = StdioServerParameters(command=command[0], args=[*command[1:], "mcp"], cwd=str(project))
    agreed: list[str] = []

    async def main() -> None:
        if revision in ("auto", "2026-07-28"):
            async with Client(params, mode=revision) as client:
                agreed.append(client.protocol_version)
                await body(client.session)
            return
        async with stdio_client(params) as (read, write), ClientSession(read, write) as session:
            request = types.InitializeRequest(
                params=types.InitializeRequestParams(
                    protocol_version=revision,
                    capabilities=types.ClientCapabilities(),
                    client_info=types.Implementation(name="test", version="1"),
                )
            )
            result = await session.send_request(request, types.InitializeResult)
            session.adopt(result)
            await session.send_notification(types.InitializedNotification())
            agreed.append(result.protocol_version)
            await body(session)

    anyio.run(main)
    return agreed[0]


@pytest.mark.slow
@pytest.mark.parametrize("revision", ["2026-07-28", "auto", "2025-11-25", "2025-06-18"])
def test_the_sdks_client_at_each_revision_recalls_and_is_refused(
    project: Path, run: Run, revision: str
) -> None:
    """The stateless 2026-07-28 revision and the 2025 handshakes, each on its own connection: tools listed, recall
    answered, a refusal is a tool error, and the session runs at the revision asked for."""
    assert run("add", "Use pnpm, never npm").code == 0
    seen: dict[str, Any] = {}

    async def body(session: Any) -> None:
        seen["tools"] = {tool.name for tool in (await session.list_tools()).tools}
        seen["recall"] = await session.call_tool("recall", {"query": "which package manager, npm?"})
        seen["refused"] = await session.call_tool(
            "propose", {"title": "Something", "kind": "rumour"}
        )

    agreed = with_revision = revision_session(project, revision, body)
    assert with_revision == ("2026-07-28" if revision == "auto" else revision), agreed
    assert seen["tools"] == {"recall", "propose", "list_memories", "append_journal"}
    assert not seen["recall"].is_error and "[use-pnpm-never-npm] Use pnpm, never npm" in text_of(
        seen["recall"]
    )
    assert seen["refused"].is_error and "kind" in text_of(seen["refused"])


@pytest.mark.slow
def test_a_server_discover_without_the_envelope_is_answered_as_2026_07_28(project: Path) -> None:
    """A `server/discover` is a 2026-07-28 request: answered with the server's revisions and identity, never "Method
    not found" (which a client takes for a server of the handshake protocol only)."""
    import subprocess

    lines = [
        {"jsonrpc": "2.0", "id": 1, "method": "server/discover", "params": {}},
        {"jsonrpc": "2.0", "id": 2, "method": "server/discover"},
    ]
    # One at a time, the input kept open as a client keeps it (at the end of its input the server stops, and may
    # drop what it has not answered yet).
    server = subprocess.Popen(
        [*gitmem_command(), "mcp"],
        cwd=project,
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
    )
    assert server.stdin is not None and server.stdout is not None
    answers = []
    try:
        for line in lines:
            server.stdin.write(json.dumps(line) + "\n")
            server.stdin.flush()
            answers.append(json.loads(server.stdout.readline() or "null"))
    finally:
        server.stdin.close()
        server.wait(timeout=60)
    assert [answer and answer["id"] for answer in answers] == [1, 2], answers
    for answer in answers:
        assert "error" not in answer, answer
        assert "2026-07-28" in answer["result"]["supportedVersions"]
        assert answer["result"]["_meta"]["io.modelcontextprotocol/serverInfo"]["name"] == "gitmem"


def test_mcp_without_the_extra_says_how_to_install_it(
    project: Path, run: Run, monkeypatch: pytest.MonkeyPatch
) -> None:
    for name in [n for n in sys.modules if n == "mcp" or n.startswith("mcp.")] or ["mcp"]:
        monkeypatch.setitem(sys.modules, name, None)  # as if the SDK were not installed
    monkeypatch.delitem(sys.modules, "gitmem.mcp.server", raising=False)
    result = run("mcp")
    assert result.code == 3
    assert result.err == (
        "error: the MCP server needs the mcp extra (the official MCP SDK, version 2 or later): "
        "pip install '.[mcp]' in a checkout of gitmem, or pipx inject gitmem-cli 'mcp>=2'\n"
    )


def test_mcp_outside_an_initialised_project_cannot_run(repo: Path, run: Run) -> None:
    result = run("mcp")
    assert result.code == 3
    assert result.err == f"error: no .memory/ in {repo}: run `gitmem init` first\n"


# -- the tools' logic, directly -------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("fields", "message"),
    [
        (
            {"title": "Zero\u200bwidth"},
            "refused: title (line 1, column 5) holds a hidden Unicode character U+200B (ZERO WIDTH SPACE); nothing "
            "was written. Remove it and propose again.",
        ),
        (
            {"title": "Tagged", "tags": ["two words"]},
            "refused: tags[0]: must be a short label without spaces; nothing was written",
        ),
        (
            {"title": "Scoped", "paths": ["../outside/**"]},
            "refused: paths[0]: must be a glob relative to the repository root, without '..' (e.g. web/**); nothing "
            "was written",
        ),
        (
            {"title": "   "},
            "refused: the title is empty; say in one line what the next session should know or do",
        ),
        (
            {"title": "Kinded", "kind": "rumour"},
            "kind must be one of convention, decision, pitfall, preference, fact, not 'rumour'",
        ),
    ],
)
def test_propose_refusals(project: Path, fields: dict[str, Any], message: str) -> None:
    from gitmem.errors import UsageError
    from gitmem.gateway import find_project
    from gitmem.mcp import tools
    from gitmem.memory.store import Store

    found = find_project(project)
    args = {"body": "", "kind": "convention", "paths": [], "tags": [], **fields}
    with pytest.raises(UsageError) as caught:
        tools.propose(found, Store(found), tools.Proposal(**args), date(2026, 5, 1), 0.85)
    assert str(caught.value) == message
    assert memory_files(project) == []


def test_propose_picks_a_free_id(project: Path, run: Run) -> None:
    from gitmem.gateway import find_project
    from gitmem.mcp import tools
    from gitmem.memory.store import Store

    assert (
        run("add", "Pin Node", "--id", "pin-node-20", "--body", "Because of the CI image.").code
        == 0
    )
    found = find_project(project)
    text = tools.propose(
        found,
        Store(found),
        tools.Proposal("Pin Node 20", "The Vite plugin broke on 22.", "decision"),
        date(2026, 5, 1),
        0.99,
    )
    assert text.startswith("Proposed memory [pin-node-20-2] ")


# -- init --mcp ------------------------------------------------------------------------------------------------------


def test_init_mcp_writes_each_tools_project_file_and_sets_the_config(repo: Path, run: Run) -> None:
    result = run("init", "--no-hooks", "--mcp")
    assert result.code == 0, result.err
    assert result.lines[-13:] == [
        "created .mcp.json (Claude Code: gitmem MCP server)",
        "created opencode.json (opencode: gitmem MCP server)",
        "created .gemini/settings.json (Gemini CLI: gitmem MCP server)",
        "created .qwen/settings.json (Qwen Code: gitmem MCP server)",
        "created .cursor/mcp.json (Cursor: gitmem MCP server)",
        "created .agents/mcp_config.json (Antigravity CLI: gitmem MCP server)",
        "set mcp: true in .memory/config.yaml",
        "Codex reads MCP servers per user: add this to ~/.codex/config.toml (or run `gitmem init --mcp --user`):",
        "[mcp_servers.gitmem]",
        'command = "gitmem-cli"',
        'args = ["mcp"]',
        "Cline reads MCP servers per user: add this to ~/.cline/data/settings/cline_mcp_settings.json (the CLI; "
        "the VS Code extension keeps its own copy):",
        '{"mcpServers": {"gitmem": {"command": "gitmem-cli", "args": ["mcp"], "disabled": false}}}',
    ]
    trusted = {"mcpServers": {"gitmem": {"command": "gitmem-cli", "args": ["mcp"], "trust": True}}}
    assert json.loads((repo / ".gemini/settings.json").read_text()) == trusted
    assert json.loads((repo / ".qwen/settings.json").read_text()) == trusted
    assert not (Path.home() / ".codex").exists()
    assert json.loads((repo / "opencode.json").read_text()) == {
        "$schema": "https://opencode.ai/config.json",
        "mcp": {"gitmem": {"type": "local", "command": ["gitmem-cli", "mcp"], "enabled": True}},
    }
    assert json.loads((repo / ".mcp.json").read_text()) == {
        "mcpServers": {"gitmem": {"type": "stdio", "command": "gitmem-cli", "args": ["mcp"]}}
    }
    assert json.loads((repo / ".cursor/mcp.json").read_text()) == {
        "mcpServers": {
            "gitmem": {"command": "gitmem-cli", "args": ["mcp", "--repo", "${workspaceFolder}"]}
        }
    }
    assert "mcp: true" in (repo / ".memory/config.yaml").read_text().splitlines()

    names = (
        "opencode.json",
        ".mcp.json",
        ".cursor/mcp.json",
        ".gemini/settings.json",
        ".qwen/settings.json",
    )
    files = {name: (repo / name).read_bytes() for name in names}
    config = (repo / ".memory/config.yaml").read_bytes()
    again = run("init", "--no-hooks", "--mcp")
    assert again.code == 0
    assert "kept the gitmem entry in .mcp.json (Claude Code)" in again.lines
    assert {name: (repo / name).read_bytes() for name in files} == files
    assert (repo / ".memory/config.yaml").read_bytes() == config


def test_init_mcp_user_appends_to_codex_config_once(repo: Path, run: Run) -> None:
    codex = Path.home() / ".codex" / "config.toml"
    codex.parent.mkdir()
    codex.write_text('model = "o3"\n\n[mcp_servers.docs]\ncommand = "docs-mcp"\n', encoding="utf-8")
    assert run("init", "--no-hooks", "--user").code == 2
    result = run("init", "--no-hooks", "--mcp", "--user")
    assert result.code == 0, result.err
    assert f"added the gitmem MCP server to {codex} (Codex)" in result.lines
    assert not any("Codex reads MCP servers per user" in line for line in result.lines)
    text = codex.read_text(encoding="utf-8")
    gitmem = '[mcp_servers.gitmem]\ncommand = "gitmem-cli"\nargs = ["mcp"]\n'
    assert text == 'model = "o3"\n\n[mcp_servers.docs]\ncommand = "docs-mcp"\n\n' + gitmem
    import tomllib

    assert tomllib.loads(text)["mcp_servers"]["gitmem"] == {
        "command": "gitmem-cli",
        "args": ["mcp"],
    }
    again = run("init", "--no-hooks", "--mcp", "--user")
    assert f"kept the gitmem entry in {codex} (Codex)" in again.lines
    assert codex.read_text(encoding="utf-8") == text


def test_init_mcp_merges_into_existing_files_and_keeps_other_entries(repo: Path, run: Run) -> None:
    (repo / ".mcp.json").write_text(
        json.dumps({"mcpServers": {"github": {"command": "gh-mcp"}}, "other": 1})
    )
    (repo / "opencode.json").write_text(
        json.dumps(
            {
                "model": "x",
                "mcp": {"servers": {"docs": {"type": "remote", "url": "https://example.com"}}},
            }
        )
    )
    (repo / ".cursor").mkdir()
    mine = {"mcpServers": {"gitmem": {"command": "/opt/bin/gitmem", "args": ["mcp"]}}}
    (repo / ".cursor/mcp.json").write_text(json.dumps(mine))
    result = run("init", "--no-hooks", "--mcp")
    assert result.code == 0, result.err
    assert json.loads((repo / ".mcp.json").read_text()) == {
        "mcpServers": {
            "github": {"command": "gh-mcp"},
            "gitmem": {"type": "stdio", "command": "gitmem-cli", "args": ["mcp"]},
        },
        "other": 1,
    }
    assert json.loads((repo / "opencode.json").read_text()) == {
        "model": "x",
        "mcp": {
            "servers": {
                "docs": {"type": "remote", "url": "https://example.com"},
                "gitmem": {"type": "local", "command": ["gitmem-cli", "mcp"]},
            }
        },
    }
    assert json.loads((repo / ".cursor/mcp.json").read_text()) == mine  # a customised entry is kept
    assert "kept the gitmem entry in .cursor/mcp.json (Cursor)" in result.lines


def test_init_mcp_leaves_a_file_it_cannot_parse_and_says_what_to_add(repo: Path, run: Run) -> None:
    text = '{\n  // my servers\n  "mcp": {}\n}\n'
    (repo / "opencode.json").write_text(text)
    result = run("init", "--no-hooks", "--mcp")
    assert result.code == 0
    assert (repo / "opencode.json").read_text() == text
    assert result.err.splitlines()[0] == (
        "warning: opencode.json is not plain JSON (line 2, column 3: Expecting property name enclosed in double "
        'quotes): left unchanged; add this entry under "mcp" by hand (opencode):'
    )
    assert json.loads("\n".join(result.err.splitlines()[1:])) == {
        "gitmem": {"type": "local", "command": ["gitmem-cli", "mcp"], "enabled": True}
    }
    assert (repo / ".mcp.json").exists()


@pytest.mark.parametrize(
    "command",
    [
        ("journal",),
        ("journal", "new"),
        ("journal", "add"),
        ("journal", "list"),
        ("journal", "harvest"),
        ("recall",),
        ("mcp",),
        ("init",),
    ],
)
def test_help_has_an_example(run: Run, command: tuple[str, ...]) -> None:
    result = run(*command, "--help")
    assert result.code == 0, result.err
    assert "Example" in result.out
    assert f"gitmem {' '.join(command)}" in result.out


def test_init_mcp_moves_an_older_gitmems_entry_to_gitmem_cli_and_keeps_a_customised_one(
    repo: Path, run: Run
) -> None:
    """An entry as an older gitmem wrote it runs `gitmem` from PATH (maybe another tool's program): moved to
    `gitmem-cli`; an entry the user changed is theirs and kept."""
    (repo / ".mcp.json").write_text(
        json.dumps(
            {
                "mcpServers": {
                    "gitmem": {"type": "stdio", "command": "gitmem", "args": ["mcp"]},
                    "x": {},
                }
            }
        )
    )
    (repo / ".cursor").mkdir()
    custom = {
        "mcpServers": {
            "gitmem": {"command": "/opt/gitmem/bin/gitmem", "args": ["mcp", "--repo", "."]}
        }
    }
    (repo / ".cursor" / "mcp.json").write_text(json.dumps(custom))
    result = run("init", "--no-hooks", "--mcp")
    assert result.code == 0, result.err
    assert "updated the gitmem entry in .mcp.json (Claude Code): it runs gitmem-cli" in result.lines
    assert "kept the gitmem entry in .cursor/mcp.json (Cursor)" in result.lines
    assert json.loads((repo / ".mcp.json").read_text())["mcpServers"] == {
        "gitmem": {"type": "stdio", "command": "gitmem-cli", "args": ["mcp"]},
        "x": {},
    }
    assert json.loads((repo / ".cursor" / "mcp.json").read_text()) == custom
