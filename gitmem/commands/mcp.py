from __future__ import annotations

import sys
from pathlib import Path
from typing import TYPE_CHECKING

import click

from gitmem import INSTALL_MCP
from gitmem.commands.output import echo
from gitmem.errors import CannotRun
from gitmem.gateway import find_project
from gitmem.init.mcp import CODEX_CONFIG, CODEX_SNIPPET, USER_ONLY, Action, register

if TYPE_CHECKING:
    from gitmem.init.mcp import Registration
    from gitmem.project import Project


_HELP = f"""Run the gitmem MCP server on stdio (started by an AI tool, not by hand).

    Tools: recall (relevant memories for a task), propose (a new memory, status proposed, for a
    human to accept), list_memories, and append_journal (today's session log). Needs the mcp extra:
    {INSTALL_MCP}. `gitmem init --mcp` registers it with opencode, Claude Code (and the Copilot
    CLI), Cursor, Gemini CLI and Qwen Code; `gitmem init --mcp --user` with Codex too (docs/mcp.md).

    \b
    Example (what a tool's MCP config runs):
      gitmem mcp --repo /path/to/project
"""


@click.command(help=_HELP)
@click.option(
    "--repo",
    type=click.Path(file_okay=False, path_type=Path),
    help="The repository whose memory to serve (default: the current directory).",
)
def mcp(repo: Path | None) -> int:
    project = find_project(repo)
    project.require_initialised()
    try:
        from gitmem.mcp.server import serve  # the optional mcp SDK, loaded when the server runs
    except ImportError:
        raise CannotRun(
            "the MCP server needs the mcp extra (the official MCP SDK, version 2 or "
            f"later): {INSTALL_MCP}"
        ) from None
    if sys.stdin.isatty():
        echo(
            f"gitmem MCP server for {project.root} on stdio; an AI tool talks to it "
            "(Ctrl-C to stop)",
            err=True,
        )
    serve(project)
    return 0


# What `gitmem init --mcp` says of a registration, by its action, and whether on stderr.
REGISTERED: dict[Action, tuple[str, bool]] = {
    "created": ("created {where} ({tool}: gitmem MCP server)", False),
    "added": ("added the gitmem MCP server to {where} ({tool})", False),
    "moved": ("updated the gitmem entry in {where} ({tool}): it runs gitmem-cli", False),
    "kept": ("kept the gitmem entry in {where} ({tool})", False),
    "manual": (
        "warning: {where} is {detail}: left unchanged; add this entry under {under} by hand "
        "({tool}):\n{text}",
        True,
    ),
}


def register_and_report(
    project: Project, registrations: list[Registration], user: bool = False
) -> None:
    """`gitmem init --mcp`: write the planned registrations and say what was done (``user``: Codex's
    per-user config was planned too; else its snippet is printed)."""

    config_changed = register(project, registrations)
    for r in registrations:
        said, err = REGISTERED[r.action]
        where = project.display(r.path) if r.tool != "Codex" else str(r.path)
        echo(
            said.format(where=where, tool=r.tool, detail=r.detail, under=r.under, text=r.text), err
        )
    if config_changed:
        echo(f"set mcp: true in {project.display(project.config_path)}")
    if not user:
        echo(
            f"Codex reads MCP servers per user: add this to {CODEX_CONFIG} (or run `gitmem "
            "init --mcp --user`):\n" + CODEX_SNIPPET.rstrip("\n")
        )
    for tool, (where, snippet) in USER_ONLY.items():
        echo(f"{tool} reads MCP servers per user: add this to {where}:\n{snippet}")
