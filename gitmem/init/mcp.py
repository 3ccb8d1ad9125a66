"""Registering the gitmem MCP server with the AI tools' project-level configs (`gitmem init --mcp`).

Each file is merged, never replaced: other servers and settings are kept, and an existing ``gitmem``
entry (perhaps customised, or an older gitmem's that runs ``gitmem`` rather than ``gitmem-cli``) is
left as it is. A file that is not plain JSON (comments, trailing commas) is not rewritten: the entry
to add by hand is reported instead. Codex's config is per user (~/.codex/config.toml): written only
with ``--user`` (``plan_codex``), else its snippet is printed; Cline's is per user too and printed.
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from gitmem import COMMAND, gateway
from gitmem.memory.config import load_config, save_config
from gitmem.project import Project, UserScope
from gitmem.tools import TOOLS

SERVER = "gitmem"


@dataclass(frozen=True)
class Client:
    tool: str
    files: tuple[str, ...]  # candidate files, the first existing one is used (else the first)
    shape: str  # the record's ``Mcp.shape``


# The records' project-level MCP configurations (gitmem/tools.py). A `trust` client (Gemini CLI,
# Qwen Code) asks before running a tool of an untrusted server, and `-p` mode cannot ask: `trust`
# lets it run gitmem's tools (they only read and propose; nothing is accepted without a human).
CLIENTS = tuple(
    Client(tool.title, tool.mcp.files, tool.mcp.shape) for tool in TOOLS if tool.mcp is not None
)

CODEX_CONFIG = "~/.codex/config.toml"
CODEX_SNIPPET = f'[mcp_servers.gitmem]\ncommand = "{COMMAND}"\nargs = ["mcp"]\n'
# Per-user only, and where gitmem does not write: what `gitmem init --mcp` prints for each.
USER_ONLY = {
    "Cline": (
        "~/.cline/data/settings/cline_mcp_settings.json (the CLI; the VS Code extension "
        "keeps its own copy)",
        json.dumps(
            {"mcpServers": {"gitmem": {"command": COMMAND, "args": ["mcp"], "disabled": False}}}
        ),
    ),
}


@dataclass(frozen=True)
class Registration:
    tool: str
    path: Path
    # "created", "added", "moved" (an older gitmem's entry: runs gitmem-cli now), "kept" (an entry
    action: str
    # exists), "manual" (not plain JSON: add it by hand)
    text: str = ""  # the new file text ("created", "added"), or the entry to add by hand ("manual")
    detail: str = ""  # why a file is left to the user
    under: str = ""  # where the entry goes in it
    area: gateway.Where | None = None  # where it may be written (None: the project)


def _entry(shape: str, v2: bool = False, command: str = COMMAND) -> dict[str, Any]:
    """gitmem's entry in a client's MCP servers (``command``: "gitmem" for the one an older
    gitmem wrote)."""
    if shape == "mcp":
        entry: dict[str, Any] = {"type": "local", "command": [command, "mcp"]}
        return entry if v2 else {**entry, "enabled": True}
    if (
        shape == "workspace"
    ):  # the client may start servers elsewhere; it expands ${workspaceFolder}
        return {"command": command, "args": ["mcp", "--repo", "${workspaceFolder}"]}
    if shape == "trust":
        return {"command": command, "args": ["mcp"], "trust": True}
    return {"type": "stdio", "command": command, "args": ["mcp"]}


def _servers(shape: str, data: dict[str, Any]) -> tuple[dict[str, Any], bool]:
    """The mapping of servers inside ``data`` (created when missing), and whether it is
    opencode's V2 shape."""
    if shape == "mcp":
        mcp = data.setdefault("mcp", {})
        if isinstance(mcp.get("servers"), dict):  # opencode V2 native shape: mcp.servers.NAME
            return mcp["servers"], True
        return mcp, False
    servers: dict[str, Any] = data.setdefault("mcpServers", {})
    return servers, False


def plan(project: Project) -> list[Registration]:
    """What registering the server would do to each tool's file; nothing is written."""
    out = []
    for client in CLIENTS:
        for name in (
            client.files
        ):  # every part: a committed .cursor -> ~/.cursor must not lead to the user's config
            gateway.require(project, project.root / name, name)
        path = next((project.root / f for f in client.files if (project.root / f).exists()), None)
        path = path or project.root / client.files[0]
        if not path.exists():
            data: dict[str, Any] = (
                {"$schema": "https://opencode.ai/config.json"} if client.shape == "mcp" else {}
            )
            servers, v2 = _servers(client.shape, data)
            servers[SERVER] = _entry(client.shape, v2)
            out.append(Registration(client.tool, path, "created", _dump(data)))
            continue
        try:
            data = json.loads(gateway.read_text(project, path, limit=gateway.CONFIG_LIMIT))
            if not isinstance(data, dict):
                raise ValueError("the file is not a JSON object")
            servers, v2 = _servers(client.shape, data)
            if not isinstance(servers, dict):
                raise ValueError("its list of MCP servers is not a JSON object")
        except (ValueError, OSError) as exc:
            key = '"mcp"' if client.shape == "mcp" else '"mcpServers"'
            snippet = json.dumps({SERVER: _entry(client.shape)}, indent=2)
            out.append(Registration(client.tool, path, "manual", snippet, _why(exc), key))
            continue
        if SERVER in servers:
            if servers[SERVER] == _entry(
                client.shape, v2, "gitmem"
            ):  # an older gitmem's, as it wrote it: moved
                servers[SERVER] = _entry(client.shape, v2)
                out.append(Registration(client.tool, path, "moved", _dump(data)))
            else:
                out.append(Registration(client.tool, path, "kept"))
            continue
        servers[SERVER] = _entry(client.shape, v2)
        out.append(Registration(client.tool, path, "added", _dump(data)))
    return out


def apply(project: Project, registrations: list[Registration]) -> None:
    for registration in registrations:
        if registration.action in ("created", "added", "moved"):
            gateway.write(registration.area or project, registration.path, registration.text)


def _dump(data: dict[str, Any]) -> str:
    return json.dumps(data, indent=2, ensure_ascii=False) + "\n"


def _why(exc: Exception) -> str:
    if isinstance(exc, json.JSONDecodeError):
        return f"not plain JSON (line {exc.lineno}, column {exc.colno}: {exc.msg})"
    if isinstance(exc, OSError):
        return f"cannot read it: {exc.strerror}"
    return str(exc)


def register(project: Project, registrations: list[Registration]) -> bool:
    """Write the planned files and set ``mcp: true`` in the config; returns whether the config
    changed."""

    apply(project, registrations)
    if load_config(project).mcp:
        return False
    save_config(project, {"mcp": True})
    return True


def plan_codex(home: Path) -> Registration:
    """Codex's per-user config (``~/.codex/config.toml``, or ``$CODEX_HOME/config.toml``): a
    ``[mcp_servers.gitmem]`` table appended (TOML tables can be appended without parsing the rest),
    or kept when there is one.
    """

    codex_home = os.environ.get("CODEX_HOME")
    path = Path(codex_home) / "config.toml" if codex_home else home / ".codex" / "config.toml"
    area: gateway.Where = (
        Path(codex_home) if codex_home else UserScope(home, home / ".cache", home / ".config")
    )
    try:
        old = gateway.read_text(area, path, limit=gateway.CONFIG_LIMIT) if path.exists() else None
    except (OSError, UnicodeDecodeError) as exc:
        detail = f"cannot read it: {exc.strerror}" if isinstance(exc, OSError) else "not UTF-8 text"
        return Registration("Codex", path, "manual", CODEX_SNIPPET, detail, "the end of the file")
    if old is None:
        return Registration("Codex", path, "created", CODEX_SNIPPET, area=area)
    if any(
        line.strip().replace(" ", "") in ("[mcp_servers.gitmem]", '[mcp_servers."gitmem"]')
        for line in old.splitlines()
    ):
        return Registration("Codex", path, "kept")
    separator = "" if not old or old.endswith("\n\n") else ("\n" if old.endswith("\n") else "\n\n")
    return Registration("Codex", path, "added", old + separator + CODEX_SNIPPET, area=area)
