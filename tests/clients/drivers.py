"""How to run each AI client non-interactively against the fake model server (``fake_model.FakeModel``).

A driver writes the client's per-user settings into a fresh home directory (never the developer's own), points the
client's base URL at the fake server with a dummy key, and runs one prompt in a directory of a repository. The
project's own files (rules files, MCP registrations) are whatever gitmem wrote there: the test is about them.

Reusable: ``run(client, cwd, prompt, model, home)`` returns the finished ``Session`` with the requests the model
received (issue 17's session hooks build on it).
"""

from __future__ import annotations

import contextlib
import json
import os
import subprocess
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from tests.clients.fake_model import FakeModel, Request
from tests.clients.install import AIDER, BIN, COPILOT_PKG, PACKAGES

Setup = Callable[[Path, str], dict[str, str]]  # (home, fake server URL) -> environment variables


@dataclass(frozen=True)
class Client:
    name: str
    package: str
    argv: Callable[[str], list[str]]
    setup: Setup
    timeout: float = 120.0
    cleanup: Callable[[Path], None] | None = (
        None  # stops what the client left running for this home directory
    )
    tools: bool = (
        True  # an agent that offers the model tools (aider does not: it asks for edits as text)
    )
    seed: Callable[[Path, Path], None] | None = (
        None  # (home, cwd): puts in place from tests/.clients what the client would download
    )


@dataclass
class Session:
    client: str
    code: int
    out: str
    err: str
    seconds: float
    requests: list[Request] = field(default_factory=list)

    def main(self) -> list[Request]:
        """The requests of the agent loop: those that offer tools (title and summary requests offer none); for a
        client without tools, every model request."""
        return [
            request
            for request in self.requests
            if request.api != "other" and (request.tool_names() or not CLIENTS[self.client].tools)
        ]

    def first(self) -> Request:
        main = self.main()
        assert main, (
            f"{self.client} sent no request with tools (exit {self.code}): {self.err[-2000:]}"
        )
        return main[0]


def _claude(home: Path, url: str) -> dict[str, str]:
    (home / ".claude").mkdir(parents=True, exist_ok=True)
    # The project's .mcp.json servers need an approval, given once per user: this is that approval.
    (home / ".claude" / "settings.json").write_text(
        json.dumps({"enableAllProjectMcpServers": True})
    )
    return {
        "ANTHROPIC_BASE_URL": url,
        "ANTHROPIC_API_KEY": "sk-ant-test-key",
        "ENABLE_TOOL_SEARCH": "false",  # else MCP tools are only named, behind a ToolSearch tool
        "MCP_CONNECTION_NONBLOCKING": "false",  # wait for the MCP servers before the first request
        "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1",
        "DISABLE_AUTOUPDATER": "1",
    }


def _codex(home: Path, url: str) -> dict[str, str]:
    codex_home = home / ".codex"
    codex_home.mkdir(parents=True, exist_ok=True)
    (codex_home / "config.toml").write_text(
        "\n".join(
            [
                'model = "fake-model"',
                'model_provider = "fake"',
                # Codex gives an optional MCP server one second to start, then runs the turn without its tools;
                # 0 waits up to the server's startup timeout, so the run does not depend on the machine's load.
                "mcp_optional_startup_grace_ms = 0",
                "[model_providers.fake]",
                'name = "fake"',
                f'base_url = "{url}/v1"',
                'env_key = "FAKE_MODEL_KEY"',
                'wire_api = "responses"',
                "[mcp_servers.gitmem]",  # what `gitmem init --mcp --user` writes
                'command = "gitmem"',
                'args = ["mcp"]',
                "",
            ]
        )
    )
    return {"CODEX_HOME": str(codex_home), "FAKE_MODEL_KEY": "test-key"}


def _gemini(home: Path, url: str) -> dict[str, str]:
    (home / ".gemini").mkdir(parents=True, exist_ok=True)
    settings = {
        "security": {"auth": {"selectedType": "gemini-api-key"}, "folderTrust": {"enabled": False}}
    }
    (home / ".gemini" / "settings.json").write_text(json.dumps(settings))
    return {
        "GEMINI_API_KEY": "test-key",
        "GOOGLE_GEMINI_BASE_URL": url,
        "GEMINI_CLI_NO_RELAUNCH": "true",
    }


def _qwen(home: Path, url: str) -> dict[str, str]:
    return {
        "OPENAI_API_KEY": "test-key",
        "OPENAI_BASE_URL": f"{url}/v1",
        "OPENAI_MODEL": "fake-model",
    }


def _opencode(home: Path, url: str) -> dict[str, str]:
    provider = {
        "npm": "@ai-sdk/openai-compatible",
        "name": "fake",
        "options": {"baseURL": f"{url}/v1", "apiKey": "test-key"},
        "models": {"fake-model": {"name": "fake", "tool_call": True}},
    }
    return {
        "OPENCODE_CONFIG_CONTENT": json.dumps({"provider": {"fake": provider}}),
        "OPENCODE_DISABLE_MODELS_FETCH": "1",
        "OPENCODE_DISABLE_AUTOUPDATE": "1",
    }


def _opencode_seed(home: Path, cwd: Path) -> None:
    """opencode installs @opencode-ai/plugin with npm into each config directory it reads (~/.config/opencode and
    the project's .opencode directories, from cwd up to the repository's root) where node_modules is missing or
    package-lock.json does not name it, and waits for that where there is a plugin: here each is given what that
    install leaves, with the pinned copy from tests/.clients, so nothing is downloaded."""
    project: list[Path] = []
    for directory in (cwd, *cwd.parents):
        project.append(directory / ".opencode")
        if (directory / ".git").exists():
            break
    plugin = "@opencode-ai/plugin"
    dependencies = {"dependencies": {plugin: PACKAGES[plugin]}}
    lock = {"lockfileVersion": 3, "requires": True, "packages": {"": dependencies}}
    for directory in [home / ".config" / "opencode", *(d for d in project if d.is_dir())]:
        link = directory / "node_modules" / plugin
        link.parent.mkdir(parents=True, exist_ok=True)
        if not link.is_symlink():
            link.symlink_to(BIN.parent / plugin, target_is_directory=True)
        (directory / "package.json").write_text(json.dumps(dependencies))
        (directory / "package-lock.json").write_text(json.dumps(lock))


def _copilot_seed(home: Path, cwd: Path) -> None:
    """Copilot's native binary, unpacked once by install.py (240 MB), linked where Copilot would
    unpack it again into every home. Without it, each run of the suite wrote 3.3 GB to /tmp."""
    link = home / ".cache" / "copilot" / "pkg"
    if not COPILOT_PKG.is_dir():
        raise RuntimeError(f"{COPILOT_PKG} is missing: run python tests/clients/install.py")
    link.parent.mkdir(parents=True, exist_ok=True)
    if not link.is_symlink():
        link.symlink_to(COPILOT_PKG, target_is_directory=True)


def _copilot(home: Path, url: str) -> dict[str, str]:
    return {
        "COPILOT_PROVIDER_BASE_URL": f"{url}/v1",
        "COPILOT_PROVIDER_API_KEY": "test-key",
        "COPILOT_MODEL": "fake-model",
    }


def _cline(home: Path, url: str) -> dict[str, str]:
    settings = home / ".cline" / "data" / "settings"
    settings.mkdir(parents=True, exist_ok=True)
    provider = {
        "provider": "openai-compatible",
        "apiKey": "test-key",
        "model": "fake-model",
        "baseUrl": f"{url}/v1",
    }
    providers = {
        "version": 1,
        "lastUsedProvider": "openai-compatible",
        "modes": {},
        "providers": {
            "openai-compatible": {
                "settings": provider,
                "updatedAt": "2026-01-01T00:00:00.000Z",
                "tokenSource": "manual",
            }
        },
    }
    (settings / "providers.json").write_text(json.dumps(providers))
    # What `gitmem init --mcp` prints for Cline (a per-user file).
    servers = {"mcpServers": {"gitmem": {"command": "gitmem", "args": ["mcp"], "disabled": False}}}
    (settings / "cline_mcp_settings.json").write_text(json.dumps(servers))
    # Its hub daemon is found through a fixed port and discovery file: one of its own per run, so that two runs at
    # once (or a daemon left from another home) do not share one.
    import socket

    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    return {
        "CLINE_HUB_PORT": str(port),
        "CLINE_HUB_DISCOVERY_PATH": str(home / ".cline" / "hub-discovery.json"),
    }


def _stop_cline_hub(home: Path) -> None:
    """Cline starts a hub daemon that outlives the run: stop the one started with this home directory (found by
    its command line and its HOME; nothing else is touched)."""
    import signal

    wanted = f"HOME={home}".encode()
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            command = (entry / "cmdline").read_bytes()
            environ = (entry / "environ").read_bytes()
        except OSError:
            continue
        if b"--cline-hub-daemon" in command and wanted in environ.split(b"\0"):
            with contextlib.suppress(OSError):
                os.kill(int(entry.name), signal.SIGTERM)


def _aider(home: Path, url: str) -> dict[str, str]:
    # No network: aider fetches litellm's model list from GitHub unless its day-old cache holds one (a non-empty
    # one: an empty cache counts as missing), and litellm fetches it again unless told to use its own copy.
    caches = home / ".aider" / "caches"
    caches.mkdir(parents=True, exist_ok=True)
    model = {
        "max_input_tokens": 128_000,
        "max_output_tokens": 4_096,
        "litellm_provider": "openai",
        "mode": "chat",
    }
    (caches / "model_prices_and_context_window.json").write_text(
        json.dumps({"openai/fake-model": model})
    )
    return {
        "OPENAI_API_BASE": f"{url}/v1",
        "OPENAI_API_KEY": "test-key",
        "AIDER_ANALYTICS": "false",
        "LITELLM_LOCAL_MODEL_COST_MAP": "True",
    }


def _aider_argv(prompt: str) -> list[str]:
    # The project's .aider.conf.yml (gitmem writes `read: CONVENTIONS.md`) is read from the repository's root.
    return [
        str(AIDER),
        "--model",
        "openai/fake-model",
        "--message",
        prompt,
        "--yes-always",
        "--no-auto-commits",
        "--no-gitignore",
        "--no-check-update",
        "--no-show-model-warnings",
        "--no-analytics",
        "--no-stream",
        "--map-tokens",
        "0",
    ]


def _claude_argv(prompt: str) -> list[str]:
    return ["claude", "-p", prompt, "--allowedTools", "mcp__gitmem__recall"]


def _qwen_argv(prompt: str) -> list[str]:
    return ["qwen", "-p", prompt, "--auth-type", "openai", "-m", "fake-model"]


CLIENTS: dict[str, Client] = {
    client.name: client
    for client in (
        Client("claude", "@anthropic-ai/claude-code", _claude_argv, _claude),
        Client("aider", "aider-chat", _aider_argv, _aider, tools=False),
        Client(
            "codex",
            "@openai/codex",
            lambda p: ["codex", "exec", "--skip-git-repo-check", p],
            _codex,
        ),
        Client(
            "gemini",
            "@google/gemini-cli",
            lambda p: ["gemini", "-p", p, "-m", "gemini-2.5-flash"],
            _gemini,
        ),
        Client(
            "opencode",
            "opencode-ai",
            lambda p: ["opencode", "run", "--model", "fake/fake-model", p],
            _opencode,
            seed=_opencode_seed,
        ),
        Client("qwen", "@qwen-code/qwen-code", _qwen_argv, _qwen),
        Client(
            "copilot",
            "@github/copilot",
            lambda p: ["copilot", "-p", p, "--allow-all-tools"],
            _copilot,
            seed=_copilot_seed,
        ),
        Client(
            "cline",
            "cline",
            lambda p: ["cline", "--json", "-P", "openai-compatible", "-m", "fake-model", p],
            _cline,
            cleanup=_stop_cline_hub,
        ),
    )
}

_DROPPED = (
    "ANTHROPIC_",
    "OPENAI_",
    "GEMINI_",
    "GOOGLE_",
    "CODEX_",
    "OPENCODE",
    "QWEN_",
    "COPILOT_",
    "CLAUDE",
)


def run(client: Client, cwd: Path, prompt: str, model: FakeModel, home: Path) -> Session:
    """Run ``client`` once in ``cwd`` with ``prompt``; the model is ``model`` (already serving)."""
    start = len(model.requests)
    env = {key: value for key, value in os.environ.items() if not key.startswith(_DROPPED)}
    home.mkdir(parents=True, exist_ok=True)
    env.update(
        HOME=str(home),
        XDG_CONFIG_HOME=str(home / ".config"),
        XDG_DATA_HOME=str(home / ".local" / "share"),
        XDG_CACHE_HOME=str(home / ".cache"),
        PATH=f"{BIN}{os.pathsep}{env.get('PATH', '')}",
        PWD=str(cwd),  # opencode takes its directory from PWD
        NO_COLOR="1",
        CI="1",
        TERM="dumb",
    )
    env.update(client.setup(home, model.url))
    if client.seed is not None:
        client.seed(home, cwd)
    began = time.monotonic()
    try:
        done = subprocess.run(
            client.argv(prompt),
            cwd=cwd,
            env=env,
            capture_output=True,
            text=True,
            timeout=client.timeout,
            stdin=subprocess.DEVNULL,
            check=False,
        )
    finally:
        if client.cleanup is not None:
            client.cleanup(home)
    return Session(
        client.name,
        done.returncode,
        done.stdout,
        done.stderr,
        time.monotonic() - began,
        model.requests[start:],
    )
