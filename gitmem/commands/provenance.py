from __future__ import annotations

import click

from gitmem.commands import today
from gitmem.commands.output import echo, echo_json, table
from gitmem.gateway import find_project
from gitmem.git import budgetdiff, guard
from gitmem.git.provenance import diff_memories, memory_history, to_markdown


@click.command()
@click.argument("memory_id", metavar="ID")
@click.option(
    "--json",
    "as_json",
    is_flag=True,
    help="Print a JSON array of commits: sha, short, date, author...",
)
def history(memory_id: str, as_json: bool) -> int:
    """Show the commits that touched a memory, newest first, following renames.

    Works for memories that were retired or forgotten since: git keeps their history.

    \b
    Examples:
      gitmem history use-pnpm
      git show $(gitmem history use-pnpm --json | jq -r '.[-1].sha')   # the commit that added it
    """
    project = find_project()
    found = memory_history(project, memory_id)
    if as_json:
        echo_json(
            [
                {
                    "sha": c.sha,
                    "short": c.short,
                    "date": c.date,
                    "time": c.time,
                    "author": c.author,
                    "subject": c.subject,
                    "path": c.path,
                    "change": c.change,
                    "old_path": c.old_path,
                }
                for c in found.commits
            ]
        )
        return 0
    if found.pending:
        echo(f"(working tree: {found.path} is {found.pending}, not committed)")
    if not found.commits:
        echo(f"no commits touched {found.path} yet", err=True)
        return 0
    rows = []
    for commit in found.commits:
        subject = commit.subject
        if commit.change == "R" and commit.old_path:
            subject += f"  (renamed from {commit.old_path})"
        elif commit.change == "D":
            subject += "  (deleted)"
        rows.append([commit.short, commit.date, commit.author, subject])
    echo(table(["COMMIT", "DATE", "AUTHOR", "SUBJECT"], rows, [{"fg": "yellow"}, {}, {}, {}]))
    return 0


@click.command()
@click.argument("base", required=False)
@click.argument("head", required=False)
@click.option(
    "--json", "as_json", is_flag=True, help="Print the changes as data instead of Markdown."
)
@click.option(
    "--format",
    "form",
    type=click.Choice(["markdown", "json"]),
    help="markdown (the default: a pull-request comment) or json (the same as --json).",
)
def diff(base: str | None, head: str | None, as_json: bool, form: str | None) -> int:
    """Summarise memory changes for review: added, changed (field by field), retired, removed, as
    Markdown.

    \b
    gitmem diff              from the merge base of the default branch and HEAD to the working tree
    gitmem diff BASE         from the merge base of BASE and HEAD to the working tree
    gitmem diff BASE HEAD    from the merge base of BASE and HEAD to the commit HEAD
    gitmem diff A...B        as git reads it: from the merge base of A and B to B
                             (a pull request's changes)
    gitmem diff A..B         as git reads it: from A to B
                             (an end left out is HEAD: `main..`, `...feature`)

    As a pull request is reviewed: memories that landed on BASE after the branch left it are not
    shown as removed (when BASE is an ancestor of HEAD, its merge base is BASE itself).

    What the change does to the budget comes next (JSON: "budget"): the memories it moves to the
    index of what the budget left out ("moves `x` to the index") or back in full, and each target's
    tokens before and after, both sides compiled with the working tree's config.

    Changes to the guard's settings in .memory/config.yaml (scan.exclude, scan.allow, scan.salt,
    sources) are listed too, under their own heading (JSON: "guard").

    The default branch is what origin/HEAD points at, else the first of origin/main, origin/master,
    main, master that exists. Invalid memory files are shown as invalid, with their problems.

    \b
    Examples:
      gitmem diff > memory-changes.md            # a pull-request comment
      # CI: what the pull request changes
      gitmem diff "origin/$GITHUB_BASE_REF...HEAD" --json | jq '.summary'
      gitmem diff main...feature --format markdown
    """
    as_json = as_json or form == "json"

    project = find_project()
    result = diff_memories(project, base, head)
    assert result.base.commit is not None
    changes = guard.guard_changes(project, result.base.commit, result.head.commit)
    moved = budgetdiff.budget_diff(project, result, today()) if result.changes else None
    if as_json:
        echo_json(
            {
                **result.to_dict(),
                "budget": moved.to_dict() if moved else None,
                "guard": list(map(guard.GuardChange.to_dict, changes)),
            }
        )
    else:
        sections = [
            to_markdown(result),
            budgetdiff.to_markdown(moved) if moved else "",
            guard.to_markdown(changes),
        ]
        click.echo("\n".join(section for section in sections if section), nl=False)
    return 0
