from __future__ import annotations

from pathlib import Path

import click

from gitmem.checks.validation import validate_files, validate_project
from gitmem.commands import open_store
from gitmem.commands.output import echo, echo_json, problems_json


@click.command()
@click.argument("files", nargs=-1, type=click.Path(dir_okay=False, path_type=Path))
@click.option(
    "--user",
    is_flag=True,
    help="Check your personal store (~/.config/gitmem) instead of the project's.",
)
@click.option(
    "--json",
    "as_json",
    is_flag=True,
    help='Print {"problems": [{path, line, column, field, message}]}.',
)
def validate(files: tuple[Path, ...], user: bool, as_json: bool) -> int:
    """Check memory files and the config: schema, strict YAML, hidden Unicode, secrets, and
    cross-file checks (duplicate ids, dangling supersedes).

    Without FILES, checks the whole store. Every problem is one line, `path:line:col: field:
    message`; exit 1 when there is any.

    \b
    Examples:
      gitmem validate
      gitmem validate .memory/memories/use-pnpm.yaml
      gitmem validate --user
    """
    project, store = open_store(user)
    checked, problems = (
        validate_files(project, store, files) if files else validate_project(project, store)
    )
    if as_json:
        echo_json({"checked": checked, "problems": problems_json(problems)})
        return 1 if problems else 0
    for problem in problems:
        echo(str(problem), err=True)
    if problems:
        files_with = len({p.path for p in problems})
        echo(f"{len(problems)} problem(s) in {files_with} file(s)", err=True)
        return 1
    echo(f"ok: {checked} file(s) checked, no problems")
    return 0
