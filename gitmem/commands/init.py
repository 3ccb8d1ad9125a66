from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

import click

from gitmem import gitcommand as command
from gitmem.commands.mcp import register_and_report
from gitmem.commands.options import refuse, target_option
from gitmem.commands.output import echo, some
from gitmem.compile.reading import GitView
from gitmem.gateway import find_project
from gitmem.git import history, hookpath
from gitmem.importing.oversize import near_limits, oversized, rules_files
from gitmem.importing.rulesfiles import nested_rules
from gitmem.init import agent_hooks
from gitmem.init import hooks as hooks_setup
from gitmem.init.ci import write_workflow
from gitmem.init.hooks import exclude_temp_files
from gitmem.init.initialise import initialise
from gitmem.init.mcp import plan, plan_codex
from gitmem.memory.config import TARGET_NAMES, load_config

if TYPE_CHECKING:
    from gitmem.init.initialise import InitReport
    from gitmem.project import Project


@click.command()
@target_option(
    f"An AI tool to compile memories for (repeat for several): {', '.join(TARGET_NAMES)}. "
    "Default: agents and claude, plus the tools whose files the project already has."
)
@click.option(
    "--no-hooks", is_flag=True, help="Do not set up the pre-commit hooks and the merge driver."
)
@click.option(
    "--pre-push", is_flag=True, help="Also run `gitmem check` (what CI runs) before every push."
)
@click.option(
    "--mcp",
    "with_mcp",
    is_flag=True,
    help="Register the gitmem MCP server in opencode.json, .mcp.json (Claude Code, Copilot CLI), "
    ".cursor/mcp.json, .gemini/settings.json and .qwen/settings.json.",
)
@click.option(
    "--agent-hooks",
    is_flag=True,
    help="Set up the AI clients' session hooks (memories at each prompt, status, journal reminder) "
    "and /remember commands for the targets' clients. See docs/clients.md.",
)
@click.option(
    "--remove", is_flag=True, help="With --agent-hooks: take gitmem's hooks and commands out again."
)
@click.option(
    "--ci",
    type=click.Choice(["github"]),
    help="Also write the CI workflow (github: .github/workflows/gitmem.yml): check and a "
    "memory-changes comment on each pull request, and a refresh of stale rules files after a "
    "merge into the default branch.",
)
@click.option(
    "--user",
    is_flag=True,
    help="With --mcp: also register the server in Codex's per-user "
    "~/.codex/config.toml. With --agent-hooks: in your home directory "
    "(~/.claude/settings.json, ...) instead of the repository.",
)
def init(
    targets: tuple[str, ...],
    no_hooks: bool,
    pre_push: bool,
    with_mcp: bool,
    agent_hooks: bool,
    remove: bool,
    ci: str | None,
    user: bool,
) -> int:
    """Set up gitmem in this repository: .memory/, the pre-commit hooks and the merge driver.

    Creates .memory/ (config.yaml, memories/, journal/); adds the gitmem hooks (scan staged changes,
    validate memories, compile rules files) to .pre-commit-config.yaml as local hooks and runs
    `pre-commit install`; marks the generated rules files `merge=gitmem` in .gitattributes and
    registers that merge driver in .git/config (local to this clone: each teammate runs `gitmem
    init` once). Safe to run again: what exists is kept, and only the targets you name are changed.

    \b
    Examples:
      gitmem init --target agents --target claude --target cursor
      gitmem init --pre-push --mcp
      gitmem init --mcp --user          # Codex too, in ~/.codex/config.toml
      gitmem init --agent-hooks
      gitmem init --agent-hooks --remove
      gitmem init --ci github           # .github/workflows/gitmem.yml (docs/team.md, "CI")
    """
    _check_flags(agent_hooks=agent_hooks, remove=remove, with_mcp=with_mcp, user=user)
    if agent_hooks:
        return _agent_hooks(targets, remove, user)

    project = find_project()
    registrations = None
    if with_mcp:  # every tool's file is read before anything is written
        registrations = plan(project)
        if user:
            registrations.append(plan_codex(Path.home()))
    report = initialise(project, targets, nested_rules(project.root))
    exclude_temp_files(project)
    _print_report(project, report)
    if report.rules_files:
        found = rules_files(project)
        for item in oversized(project, found):
            echo(f"over a limit: {item.describe()}")
        for near in near_limits(project, found, load_config(project).budget_for):
            echo(f"near a limit: {near.describe()}")
    told, advice = ([], []) if no_hooks else _set_up_hooks(project, report.targets, pre_push)
    told += _moved_client_hooks(project)
    for line in told:
        echo(line)
    for line in advice:
        echo(line, err=True)
    _print_next(project, report, bool([*told, *advice]))
    if registrations is not None:
        register_and_report(project, registrations, user)
    if ci is not None:
        _write_ci(project)
    return 1 if advice else 0


def _print_next(project: Project, report: InitReport, hooks_changed: bool) -> None:
    """Whether anything changed, and what to run next after a first set-up."""
    if not report.created and not report.targets_changed and not hooks_changed:
        echo(
            f"already set up in {project.display(project.memory_dir)} (targets: "
            f"{', '.join(report.targets)})"
        )
    elif report.created:
        echo(f"targets: {', '.join(report.targets) or 'none'}")
        if report.rules_files:
            echo(
                "next: gitmem import (your rules files become memories; --dry-run shows "
                "them first) && gitmem compile"
            )
        else:
            echo('next: gitmem add "Use pnpm, never npm" --kind convention && gitmem compile')


def _write_ci(project: Project) -> None:
    """``--ci github``: the workflow, for the default branch (origin's, else the branch checked
    out)."""
    branch = (history.default_branch(project.root) or "").removeprefix("origin/")
    if not branch:
        try:
            branch = (
                command.git(project.root, "symbolic-ref", "--short", "-q", "HEAD").decode().strip()
            )
        except command.GitFailed:
            branch = "main"
    written = write_workflow(project, branch)
    if written.action != "unchanged":
        echo(
            f"{written.action} {written.path} (pull requests: check and a memory-changes "
            f"comment; {branch}: refresh)"
        )
    if not written.url_known:
        echo(
            "note: set the repository variable GITMEM_URL to gitmem's repository (Settings > "
            "Secrets and variables > Actions > Variables): the workflow installs gitmem from it"
        )


def _moved_client_hooks(project: Project) -> list[str]:
    """Move the client hooks an older gitmem wrote (`gitmem hook ...` from PATH) to `gitmem-cli`."""
    changes = agent_hooks.moved(project.root)
    agent_hooks.apply(changes, project.root)
    return [
        f"updated {project.display(c.path)}: gitmem's client hooks run gitmem-cli" for c in changes
    ]


# What init says of each ``hooks.ensure_precommit_config`` action.
CONFIG_SAID = {
    "created": (f"created {hooks_setup.PRECOMMIT_CONFIG}",),
    "updated": (f"added the gitmem hooks to {hooks_setup.PRECOMMIT_CONFIG}",),
    "moved": (
        f"updated {hooks_setup.PRECOMMIT_CONFIG}: gitmem's hooks run gitmem-cli (they ran "
        "`gitmem` from PATH)",
    ),
    "unchanged": (),
}


def _set_up_hooks(
    project: Project, targets: tuple[str, ...], pre_push: bool
) -> tuple[list[str], list[str]]:
    """What was done, and the advice for stderr when commits will not run the hooks (a hooks path
    outside the repository is in use: the user must add a line there); none when they will."""
    done = list(CONFIG_SAID[hooks_setup.ensure_precommit_config(project, pre_push)])
    wired = []  # whether each hook wired into the hooks path runs gitmem
    if (
        hookpath.hooks_path(project) is not None
    ):  # husky or a committed hooks folder: `pre-commit install` refuses
        for hook_type in hooks_setup.HOOK_TYPES[pre_push]:
            lines, ok = hookpath.wire(project, hook_type)
            done.extend(lines)
            wired.append(ok)
    elif hooks_setup.precommit_missing():
        done.append(
            "pre-commit is not installed: `pip install pre-commit`, then `pre-commit install`"
        )
    else:
        done.extend(hooks_setup.install_precommit(project, pre_push))
    merge = hooks_setup.ensure_merge_driver(project, targets)
    after, after_runs = hookpath.wire_after(project)
    merge += after
    if all(wired) and after_runs:
        return done + merge, []
    told = merge + done  # the last line is what the user must do
    return told[:-1], told[-1:]


def _check_flags(*, agent_hooks: bool, remove: bool, with_mcp: bool, user: bool) -> None:
    refuse(
        (remove and not agent_hooks, "--remove goes with --agent-hooks"),
        (
            agent_hooks and with_mcp,
            "run `gitmem init --mcp` and `gitmem init --agent-hooks` one at a time",
        ),
        (
            user and not with_mcp and not agent_hooks,
            "--user goes with --mcp (Codex's per-user config) or --agent-hooks (your home "
            "directory)",
        ),
    )


def _print_report(project: Project, report: InitReport) -> None:
    """What ``initialise`` did and found: the files created, the targets detected or left out,
    the notes."""
    for path in report.created:
        echo(f"created {project.display(path)}")
    if report.detected:
        below = f" (below the root: {some(report.nested, 3)})" if report.nested else ""
        echo(f"found rules files of: {', '.join(report.detected)}{below}")
    if report.not_added:
        flags = "".join(f" --target {name}" for name in (*report.targets, *report.not_added))
        echo(
            f"not added: {', '.join(report.not_added)} (the project has no rules "
            f"files of theirs; add them with `gitmem init{flags}`: compile still "
            "gives every client each memory once)"
        )
    git = GitView(project.root)
    for name, root_file in report.ignored_roots:
        echo(
            f"not added: {name} ({root_file} is ignored by git, so what compile writes there "
            f"never reaches a fresh clone, a cloud agent or code review): "
            f"{git.ignored_fix(root_file)}; then `gitmem init --target {name}`"
        )
    for note in report.notes:
        echo(f"note: {note}")
    for found in report.via_import:
        echo(
            f"{found.own.root_file} imports @{found.imported.root_file}: compile adds to "
            f"{found.own.root_file} only what {found.imported.root_file} does not hold"
        )
    if report.targets_changed:
        echo(f"targets set to: {', '.join(report.targets)}")


def _agent_hooks(targets: tuple[str, ...], remove: bool, user: bool) -> int:
    """``init --agent-hooks``: the clients of the given (or configured) targets; everything
    planned before writing."""

    if user:
        base, root, configured = Path.home(), None, None
    else:
        project = find_project()
        project.require_initialised()
        base = root = project.root
        # --remove without targets: what any earlier --agent-hooks added, whichever targets it was
        # for
        configured = None if remove else tuple(load_config(project).targets)
    names = targets or configured
    chosen = list(agent_hooks.ALL) if names is None else agent_hooks.clients_for(names, root)
    changes = agent_hooks.plan(base, chosen, remove=remove, user=user)
    agent_hooks.apply(changes, base, user=user)
    home = "~/" if user else ""
    changed = [change for change in changes if change.action != "unchanged"]
    for change in changed:
        echo(f"{change.action} {home}{change.path.relative_to(base).as_posix()}")
    if not changed:
        echo(
            "agent hooks: nothing to change"
            + (f" (clients: {', '.join(chosen)})" if chosen else "")
        )
    elif not remove:
        echo(
            f"agent hooks set up for: {', '.join(chosen)} (see docs/clients.md; commit "
            "these files to share them)"
        )
    return 0
