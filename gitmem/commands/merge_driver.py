from __future__ import annotations

from pathlib import Path

import click

from gitmem import gateway
from gitmem.commands.output import echo
from gitmem.errors import CannotRun
from gitmem.gateway import find_project
from gitmem.git.mergedriver import merge_rules_bytes


@click.command("merge-driver")
@click.argument("base", type=click.Path(exists=True, dir_okay=False, path_type=Path))
@click.argument("ours", type=click.Path(exists=True, dir_okay=False, path_type=Path))
@click.argument("theirs", type=click.Path(exists=True, dir_okay=False, path_type=Path))
@click.argument("path", required=False)
def merge_driver(base: Path, ours: Path, theirs: Path, path: str | None) -> int:
    """Git merge driver for rules files: merges gitmem's block memory by memory, the rest as git
    does.

    Git runs it (never you) for the files `.gitattributes` marks `merge=gitmem`; `gitmem init` sets
    that up. The result is written to OURS; exit 0 for a clean merge, 1 when conflicts are left for
    you to resolve.

    \b
    Example (what `gitmem init` registers):
      git config merge.gitmem.driver "gitmem merge-driver %O %A %B %P"
    """

    try:
        root = (
            find_project().root
        )  # git runs the driver at the top of the work tree, on files it made there
    except CannotRun:
        root = Path.cwd()
    versions = [
        gateway.read_bytes(root, file, limit=gateway.RULES_LIMIT, display=str(file))
        for file in (base, ours, theirs)
    ]
    result = merge_rules_bytes(*versions)
    gateway.write(root, ours, result.text.encode("utf-8", "surrogateescape"), display=str(ours))
    for note in result.notes:
        echo(f"gitmem merge-driver: {path or ours}: {note}", err=True)
    return 1 if result.conflicts else 0
