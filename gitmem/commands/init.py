from __future__ import annotations

from typing import TYPE_CHECKING

import click

from gitmem.commands.output import echo
from gitmem.config import TARGET_NAMES

if TYPE_CHECKING:
    from gitmem.project import Project


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
@click.option("--pre-push", is_flag=True, help="Also run `gitmem check` (what CI runs) before every push.")
@click.option(
    "--mcp",
    "with_mcp",
    is_flag=True,
    help="Register the gitmem MCP server in opencode.json, .mcp.json (Claude Code, Copilot CLI), .cursor/mcp.json, "
    ".gemini/settings.json and .qwen/settings.json.",
)
@click.option(
    "--user",
    is_flag=True,
    help="With --mcp: also register it in Codex's per-user ~/.codex/config.toml (outside the repository).",
)
def init(targets: tuple[str, ...], no_hooks: bool, pre_push: bool, with_mcp: bool, user: bool) -> int:
    """Set up gitmem in this repository: .memory/, the pre-commit hooks and the merge driver.

    Creates .memory/ (config.yaml, memories/, journal/); adds the gitmem hooks (scan staged changes, validate
    memories, compile rules files) to .pre-commit-config.yaml as local hooks and runs `pre-commit install`; marks
    the generated rules files `merge=gitmem` in .gitattributes and registers that merge driver in .git/config
    (local to this clone: each teammate runs `gitmem init` once). Safe to run again: what exists is kept, and only
    the targets you name are changed.

    \b
    Examples:
      gitmem init --target agents --target claude --target cursor
      gitmem init --pre-push --mcp
      gitmem init --mcp --user          # Codex too, in ~/.codex/config.toml
    """
    from gitmem.project import find_project
    from gitmem.setup.hooks import exclude_temp_files
    from gitmem.setup.initialise import initialise

    if user and not with_mcp:
        from gitmem.errors import UsageError

        raise UsageError("--user goes with --mcp (it registers the MCP server in Codex's per-user config)")
    project = find_project()
    registrations = None
    if with_mcp:
        from pathlib import Path

        from gitmem.setup.mcp import plan, plan_codex

        registrations = plan(project)  # read every tool's file before anything is written
        if user:
            registrations.append(plan_codex(Path.home()))
    report = initialise(project, targets)
    exclude_temp_files(project)
    for path in report.created:
        echo(f"created {project.display(path)}")
    if report.detected:
        echo(f"found rules files of: {', '.join(report.detected)}")
    for target, client in report.left_out.items():
        echo(
            f"found rules files of {target}, not added: {client} reads the other targets' files too and would get "
            f"every memory twice (add it anyway: `gitmem init"
            f"{''.join(f' --target {name}' for name in (*report.targets, target))}`)"
        )
    if report.created or report.targets_changed:
        from gitmem.compile.readers import duplicates
        from gitmem.compile.targets import BY_NAME

        files = {name: BY_NAME[name].root_file for name in report.targets}
        for duplicate in duplicates(report.targets):
            echo(f"note: {duplicate.describe(files)}")
    if report.targets_changed:
        echo(f"targets set to: {', '.join(report.targets)}")
    hooks_done = [] if no_hooks else _set_up_hooks(project, report.targets, pre_push)
    for line in hooks_done:
        echo(line)
    if not report.created and not report.targets_changed and not hooks_done:
        echo(f"already set up in {project.display(project.memory_dir)} (targets: {', '.join(report.targets)})")
    elif report.created:
        echo(f"targets: {', '.join(report.targets) or 'none'}")
        echo('next: gitmem add "Use pnpm, never npm" --kind convention && gitmem compile')
    if registrations is not None:
        from gitmem.commands.mcp import register_and_report

        register_and_report(project, registrations, user)
    return 0


def _set_up_hooks(project: Project, targets: tuple[str, ...], pre_push: bool) -> list[str]:
    from gitmem.setup import hooks as hooks_setup

    done = []
    action = hooks_setup.ensure_precommit_config(project, pre_push)
    if action != "unchanged":
        done.append(
            f"{'created' if action == 'created' else 'added the gitmem hooks to'} {hooks_setup.PRECOMMIT_CONFIG}"
        )
    if hooks_setup.precommit_missing():
        done.append("pre-commit is not installed: `pip install pre-commit`, then `pre-commit install`")
    else:
        done.extend(hooks_setup.install_precommit(project, pre_push))
    done.extend(hooks_setup.ensure_merge_driver(project, targets))
    return done
