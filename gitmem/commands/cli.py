"""The ``gitmem`` command: a click group that imports each command's module only when it runs.

Errors become exit codes here, in one place (see ``ExitCode``): a user never sees a traceback unless
they pass ``--debug``.
"""

from __future__ import annotations

import contextlib
import errno
import importlib
import io
import os
import sys
import traceback
from collections.abc import Callable
from typing import Any, NamedTuple

import click

from gitmem import __version__
from gitmem.errors import CheckFailed, ExitCode, GitmemError
from gitmem.gateway import null_output


class Command(NamedTuple):
    """One command: its module in gitmem/commands/ (imported only when the command runs: start-up
    stays lean), the click command in it, and its line in `gitmem --help` (None: run by git or an AI
    client, not listed)."""

    module: str
    attribute: str
    summary: str | None


# Every command, in the order `gitmem --help` lists them.
COMMANDS: dict[str, Command] = {
    "init": Command("init", "init", "Set up .memory/, the pre-commit hooks and the merge driver"),
    "add": Command("add", "add", "Add a memory (scanned and validated before it is written)"),
    "import": Command(
        "importing", "import_command", "Turn existing rules files into proposed memories"
    ),
    "export": Command(
        "okf", "export", "Write the memories as an Open Knowledge Format bundle (--okf DIR)"
    ),
    "list": Command("inspect", "list_memories", "List memories, as a table or JSON"),
    "show": Command("inspect", "show", "Show one memory"),
    "edit": Command("change", "edit", "Edit a memory in $EDITOR (an invalid result is refused)"),
    "accept": Command("change", "accept", "Make proposed memories active"),
    "retire": Command("change", "retire", "Retire a memory: kept for history, no longer compiled"),
    "forget": Command("change", "forget", "Delete a memory's file (git keeps its history)"),
    "validate": Command("validate", "validate", "Check memory files and the config"),
    "compile": Command(
        "compile", "compile_command", "Write the active memories into every tool's rules files"
    ),
    "stats": Command("compile", "stats", "Memories per status and kind; tokens per target"),
    "explain": Command("explain", "explain", "What each AI client receives working on a path"),
    "scan": Command("scan", "scan", "Find secrets and hidden Unicode (the pre-commit hook)"),
    "check": Command("check", "check", "Everything CI runs, in one command"),
    "recall": Command("recall", "recall", "Find the memories most relevant to a question"),
    "journal": Command("journal", "journal", "Session logs: new, add, list, harvest"),
    "doctor": Command("doctor", "doctor", "Find stale, duplicate or broken memories"),
    "receipts": Command(
        "receipts", "receipts", "Which memories reached which sessions, and what broke them"
    ),
    "history": Command("provenance", "history", "The commits that touched a memory"),
    "diff": Command("provenance", "diff", "Summarise memory changes for a pull request"),
    "revert": Command("revert", "revert", "Undo a memory with a commit, and recompile"),
    "sources": Command("sources", "sources", "Shared memory packs from other repositories"),
    "mcp": Command("mcp", "mcp", "Run the MCP server on stdio (started by an AI tool)"),
    "merge-driver": Command("merge_driver", "merge_driver", None),
    "hook": Command("hook", "hook", None),
}


class LazyGroup(click.Group):
    def list_commands(self, ctx: click.Context) -> list[str]:
        return list(COMMANDS)

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        entry = COMMANDS.get(cmd_name)
        if entry is None:
            return None
        module = importlib.import_module(f"gitmem.commands.{entry.module}")
        command = getattr(module, entry.attribute)
        assert isinstance(command, click.Command)
        return command

    def format_commands(self, ctx: click.Context, formatter: click.HelpFormatter) -> None:
        rows = [(name, entry.summary) for name, entry in COMMANDS.items() if entry.summary]
        with formatter.section("Commands"):
            formatter.write_dl(rows)


@click.group(
    cls=LazyGroup,
    context_settings={"help_option_names": ["-h", "--help"], "max_content_width": 100},
    epilog="Run `gitmem COMMAND --help` for a command's options and an example.",
)
@click.version_option(
    __version__, "-V", "--version", prog_name="gitmem", message="%(prog)s %(version)s"
)
@click.option("--debug", is_flag=True, help="Show the traceback of an internal error.")
def cli(debug: bool) -> None:
    """gitmem: a memory for AI coding assistants that lives in the repository, reviewed like code.

    Memories are small YAML files under .memory/. Nothing is written before it is scanned for
    secrets and hidden Unicode, and `gitmem compile` writes the active ones into each AI tool's
    rules file.

    \b
    Start with:
      gitmem init
      gitmem add "Use pnpm, never npm" --kind convention
    """


def main(argv: list[str] | None = None) -> int:
    """Run gitmem and return its exit code."""
    args = sys.argv[1:] if argv is None else argv
    debug = "--debug" in args or bool(os.environ.get("GITMEM_DEBUG"))
    try:
        result: Any = cli.main(args=args, prog_name="gitmem", standalone_mode=False)
    except (Exception, KeyboardInterrupt) as exc:
        return exit_code(exc, debug)
    return int(result or 0)


def exit_code(error: BaseException, debug: bool) -> int:
    """What a command's exception becomes: its message on stderr and its exit code (the click-free
    fast paths of ``gitmem.__main__`` come here too, so an error reads the same whichever way the
    command ran).
    """
    answer = next((answer for answer in ANSWERS if isinstance(error, answer[0])), None)
    if answer is not None:
        said = answer[1](error)
        if said is not None:
            click.echo(_without_secrets(said), err=True)
        return int(getattr(error, "exit_code", 0) if answer[2] is None else answer[2])
    if debug:  # an environment's failure or a bug: the traceback for --debug
        traceback.print_exception(error)
    if isinstance(error, OSError) and error.errno in ENVIRONMENT_ERRORS:
        click.echo(f"error: {_os_error(error)}", err=True)
        return int(ExitCode.CANNOT_RUN)
    click.echo(
        _without_secrets(
            f"internal error: {type(error).__name__}: {error} (this is a bug in gitmem; rerun "
            "with --debug for the traceback)"
        ),
        err=True,
    )
    return int(ExitCode.INTERNAL)


# What an error of each kind says on stderr (None: what it shows itself, or nothing) and its exit
# code (None: the error's own ``exit_code``); the first kind it is answers. Any other error is an
# environment's failure (``ENVIRONMENT_ERRORS``) or a bug.
ANSWERS: tuple[tuple[type[BaseException], Callable[[Any], str | None], int | None], ...] = (
    (click.exceptions.Exit, lambda exc: None, None),
    (click.UsageError, lambda exc: _show_click(exc), ExitCode.USAGE),
    (click.ClickException, lambda exc: _show_click(exc), None),
    (click.exceptions.Abort, lambda exc: "Aborted.", 130),
    (CheckFailed, str, None),
    (GitmemError, lambda exc: f"error: {exc}", None),
    (BrokenPipeError, lambda exc: _silence_stdout(), ExitCode.FOUND),
    (KeyboardInterrupt, lambda exc: "Interrupted.", 130),
)


# The environment's failures, not gitmem's: disk full, read-only or unwritable folders, quotas, I/O
# errors.
ENVIRONMENT_ERRORS = frozenset(
    getattr(errno, name)
    for name in ("ENOSPC", "EDQUOT", "EROFS", "EACCES", "EPERM", "EIO", "EFBIG", "EMFILE", "ENFILE")
    if hasattr(errno, name)
)


def _os_error(exc: OSError) -> str:
    """One line: what the system said, and about which file (as the user would type it)."""
    reason = exc.strerror or os.strerror(exc.errno or 0)
    advice = "free some space or fix the permissions, then run again"
    if exc.filename is None:
        return f"{reason}: {advice}"
    name = os.fsdecode(exc.filename) if isinstance(exc.filename, str | bytes) else str(exc.filename)
    with contextlib.suppress(ValueError):
        name = os.path.relpath(name)
    return f"{name}: {reason}: {advice}"


def _without_secrets(message: str) -> str:
    from gitmem.scan import without_secrets  # lazy: only when an error is shown

    return without_secrets(message)


def _show_click(exc: click.ClickException) -> str:
    """click's own error (a bad option's value quoted back), as click shows it; ``exit_code``
    redacts it."""
    shown = io.StringIO()
    exc.show(file=shown)
    return shown.getvalue().removesuffix("\n")


def _silence_stdout() -> None:
    """After the reader of our output went away (``gitmem list | head``), let Python exit
    without a second error."""
    devnull = null_output()
    os.dup2(devnull, sys.stdout.fileno())
