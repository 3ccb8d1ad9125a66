from __future__ import annotations

import sys
from pathlib import Path
from typing import TYPE_CHECKING

import click

if TYPE_CHECKING:
    from gitmem.mcp_setup import Registration
    from gitmem.project import Project


@click.command()
@click.option(
    "--repo",
    type=click.Path(file_okay=False, path_type=Path),
    help="The repository whose memory to serve (default: the current directory).",
)
def mcp(repo: Path | None) -> int:
    """Run the gitmem MCP server on stdio (started by an AI tool, not by hand).

    Tools: recall (relevant memories for a task), propose (a new memory, status proposed, for a human to accept),
    list_memories, and append_journal (today's session log). Needs the mcp extra: pip install 'gitmem-cli[mcp]'.
    `gitmem init --mcp` registers it with opencode, Claude Code and Cursor; docs/mcp.md shows Codex too.

    \b
    Example (what a tool's MCP config runs):
      gitmem mcp --repo /path/to/project
    """
    from gitmem.errors import CannotRun
    from gitmem.project import find_project
    from gitmem.render import echo

    project = find_project(repo)
    project.require_initialised()
    try:
        from gitmem.mcp import serve
    except ImportError:
        raise CannotRun(
            "the MCP server needs the mcp extra (the official MCP SDK, version 2 or later): "
            "pip install 'gitmem-cli[mcp]' (or, with pipx: pipx inject gitmem-cli 'mcp>=2')"
        ) from None
    if sys.stdin.isatty():
        echo(f"gitmem MCP server for {project.root} on stdio; an AI tool talks to it (Ctrl-C to stop)", err=True)
    serve(project)
    return 0


def register_and_report(project: Project, registrations: list[Registration]) -> None:
    """`gitmem init --mcp`: write the planned registrations and say what was done."""
    from gitmem.mcp_setup import register
    from gitmem.render import echo

    config_changed = register(project, registrations)
    for r in registrations:
        where = project.display(r.path)
        if r.action == "created":
            echo(f"created {where} ({r.tool}: gitmem MCP server)")
        elif r.action == "added":
            echo(f"added the gitmem MCP server to {where} ({r.tool})")
        elif r.action == "kept":
            echo(f"kept the gitmem entry in {where} ({r.tool})")
        else:
            echo(
                f"warning: {where} is {r.detail}: left unchanged; add this entry under {r.under} by hand ({r.tool}):"
                f"\n{r.text}",
                err=True,
            )
    if config_changed:
        echo(f"set mcp: true in {project.display(project.config_path)}")
    echo("Codex reads MCP servers per user: see docs/mcp.md for ~/.codex/config.toml")
