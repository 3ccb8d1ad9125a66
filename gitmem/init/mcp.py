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
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal, NamedTuple

from gitmem import COMMAND, gateway
from gitmem.memory.config import load_config, save_config
from gitmem.project import Project, UserScope
from gitmem.tools import TOOLS, McpShape

SERVER = "gitmem"


@dataclass(frozen=True)
class Client:
    tool: str
    files: tuple[str, ...]  # candidate files, the first existing one is used (else the first)
    shape: McpShape  # the record's ``Mcp.shape``


# The records' project-level MCP configurations (gitmem/tools.py). A `trust` client (Gemini CLI,
# Qwen Code) asks before running a tool of an untrusted server, and `-p` mode cannot ask: `trust`
# lets it run gitmem's tools (they only read and propose; nothing is accepted without a human).
CLIENTS = tuple(
    Client(tool.title, tool.mcp.files, tool.mcp.shape) for tool in TOOLS if tool.mcp is not None
)


class Shape(NamedTuple):
    """What an ``Mcp.shape`` means in the client's file."""

    key: str  # the servers' mapping, at the top of the file
    # gitmem's entry, given the command it runs ("gitmem" for the one an older gitmem wrote) and
    # whether the servers are opencode's V2 ``nested`` mapping
    entry: Callable[[str, bool], dict[str, Any]]
    new: tuple[tuple[str, str], ...] = ()  # a new file's other keys
    nested: str = ""  # the key of the servers' V2 mapping inside ``key`` (opencode's ``servers``)


def _local(command: str, v2: bool) -> dict[str, Any]:
    """opencode's ``local`` command list (``enabled`` only before its V2 shape)."""
    entry: dict[str, Any] = {"type": "local", "command": [command, "mcp"]}
    return entry if v2 else {**entry, "enabled": True}


# ``tools.McpShape``'s interpreter: one entry a shape.
SHAPES: dict[McpShape, Shape] = {
    "mcp": Shape("mcp", _local, (("$schema", "https://opencode.ai/config.json"),), "servers"),
    # the client may start servers elsewhere; it expands ${workspaceFolder}
    "workspace": Shape(
        "mcpServers",
        lambda command, _: {"command": command, "args": ["mcp", "--repo", "${workspaceFolder}"]},
    ),
    "trust": Shape(
        "mcpServers", lambda command, _: {"command": command, "args": ["mcp"], "trust": True}
    ),
    "stdio": Shape(
        "mcpServers", lambda command, _: {"type": "stdio", "command": command, "args": ["mcp"]}
    ),
}

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


# What registering does to a client's file: "created", "added", "moved" (an older gitmem's entry:
# runs gitmem-cli now), "kept" (an entry exists), "manual" (not plain JSON: add it by hand).
Action = Literal["created", "added", "moved", "kept", "manual"]


@dataclass(frozen=True)
class Registration:
    tool: str
    path: Path
    action: Action
    text: str = ""  # the new file text ("created", "added"), or the entry to add by hand ("manual")
    detail: str = ""  # why a file is left to the user
    under: str = ""  # where the entry goes in it
    area: gateway.Where | None = None  # where it may be written (None: the project)


def _servers(shape: Shape, data: dict[str, Any]) -> tuple[dict[str, Any], bool]:
    """The mapping of servers inside ``data`` (created when missing), and whether it is the
    ``nested`` V2 one; a ValueError when it is not a mapping."""
    servers = data.setdefault(shape.key, {})
    if not isinstance(servers, dict):
        raise ValueError("its list of MCP servers is not a JSON object")
    inner = servers.get(shape.nested) if shape.nested else None
    if isinstance(inner, dict):  # opencode V2 native shape: mcp.servers.NAME
        return inner, True
    return servers, False


def plan(project: Project) -> list[Registration]:
    """What registering the server would do to each tool's file; nothing is written."""
    return [_registration(project, client) for client in CLIENTS]


def _registration(project: Project, client: Client) -> Registration:
    """What registering the server would do to ``client``'s file: "created", "added", "moved" (an
    older gitmem's entry, as it wrote it), "kept" (another entry), "manual" (unreadable)."""
    for name in client.files:  # every part: a committed .cursor -> ~/.cursor must not lead to the
        gateway.require(project, project.root / name, name)  # user's config
    shape = SHAPES[client.shape]
    path = next(
        (project.root / f for f in client.files if (project.root / f).exists()),
        project.root / client.files[0],
    )
    exists = path.exists()
    try:
        data: dict[str, Any] = _json_object(project, path) if exists else dict(shape.new)
        servers, v2 = _servers(shape, data)
    except (ValueError, OSError) as exc:
        snippet = json.dumps({SERVER: shape.entry(COMMAND, False)}, indent=2)
        key = json.dumps(shape.key)
        return Registration(client.tool, path, "manual", snippet, _why(exc), key)
    if SERVER in servers and servers[SERVER] != shape.entry("gitmem", v2):
        return Registration(client.tool, path, "kept")
    action: Action = "moved" if SERVER in servers else "added" if exists else "created"
    servers[SERVER] = shape.entry(COMMAND, v2)
    return Registration(client.tool, path, action, _dump(data))


def _json_object(project: Project, path: Path) -> dict[str, Any]:
    data = json.loads(gateway.read_text(project, path, limit=gateway.CONFIG_LIMIT))
    if not isinstance(data, dict):
        raise ValueError("the file is not a JSON object")
    return data


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
    area: gateway.Where
    if codex_home:
        area = folder = Path(codex_home)
    else:
        area, folder = UserScope(home, home / ".cache", home / ".config"), home / ".codex"
    path = folder / "config.toml"
    try:
        if not path.exists():
            return Registration("Codex", path, "created", CODEX_SNIPPET, area=area)
        old = gateway.read_text(area, path, limit=gateway.CONFIG_LIMIT)
    except (OSError, UnicodeDecodeError) as exc:
        detail = f"cannot read it: {exc.strerror}" if isinstance(exc, OSError) else "not UTF-8 text"
        return Registration("Codex", path, "manual", CODEX_SNIPPET, detail, "the end of the file")
    if any(
        line.strip().replace(" ", "") in ("[mcp_servers.gitmem]", '[mcp_servers."gitmem"]')
        for line in old.splitlines()
    ):
        return Registration("Codex", path, "kept")
    # a blank line before the table: as many line ends as the file lacks (none after no text)
    separator = old and "\n" * max(0, 2 - (len(old) - len(old.rstrip("\n"))))
    return Registration("Codex", path, "added", old + separator + CODEX_SNIPPET, area=area)
