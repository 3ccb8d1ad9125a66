from __future__ import annotations

import click

from gitmem.config import TARGET_NAMES
from gitmem.render import echo


@click.command()
@click.option(
    "--target",
    "targets",
    multiple=True,
    type=click.Choice(TARGET_NAMES),
    metavar="NAME",
    help=f"An AI tool to compile memories for (repeat for several): {', '.join(TARGET_NAMES)}. "
    "Default: agents and claude, plus the tools whose files the project already has.",
)
@click.option("--no-hooks", is_flag=True, help="Do not set up the pre-commit hooks and the merge driver.")
@click.option(
    "--mcp",
    "with_mcp",
    is_flag=True,
    help="Register the gitmem MCP server in opencode.json, .mcp.json (Claude Code) and .cursor/mcp.json.",
)
def init(targets: tuple[str, ...], no_hooks: bool, with_mcp: bool) -> int:
    """Set up gitmem in this repository: .memory/ with its config, memories/ and journal/.

    Safe to run again: what exists is kept, and only the targets you name are changed.

    \b
    Example:
      gitmem init --target agents --target claude --target cursor
      gitmem init --mcp
    """
    from gitmem.initialise import initialise
    from gitmem.project import find_project

    project = find_project()
    registrations = None
    if with_mcp:
        from gitmem.mcp_setup import plan

        registrations = plan(project)  # read every tool's file before anything is written
    report = initialise(project, targets)
    for path in report.created:
        echo(f"created {project.display(path)}")
    if report.detected:
        echo(f"found rules files of: {', '.join(report.detected)}")
    if report.targets_changed:
        echo(f"targets set to: {', '.join(report.targets)}")
    if not report.created and not report.targets_changed:
        echo(f"already set up in {project.display(project.memory_dir)} (targets: {', '.join(report.targets)})")
    else:
        echo(f"targets: {', '.join(report.targets) or 'none'}")
        echo('next: gitmem add "Use pnpm, never npm" --kind convention')
    if registrations is not None:
        from gitmem.commands.mcp import register_and_report

        register_and_report(project, registrations)
    return 0
