"""Options several commands share."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import click

from gitmem.errors import UsageError
from gitmem.memory.config import TARGET_NAMES
from gitmem.tools import RETIRED, current, retired_note


class TargetName(click.Choice[str]):
    """A target name, or a retired one (windsurf, roo): read as what replaces it, with the note a
    config naming it gets (on stderr), as a config or memory naming it is read."""

    def __init__(self) -> None:
        super().__init__(TARGET_NAMES)

    def convert(self, value: Any, param: click.Parameter | None, ctx: click.Context | None) -> str:
        if isinstance(value, str) and value in RETIRED:
            flag = param.opts[0] if param is not None and param.opts else "--target"
            click.echo(
                f"note: {flag} {value}: {retired_note(value, f'use {flag} {current(value)}')}",
                err=True,
            )
            return current(value)
        return str(super().convert(value, param, ctx))


def target_option(help: str) -> Callable[[Any], Any]:
    """``--target NAME`` (repeatable, into ``targets``), one of the target names (a retired one is
    read as its replacement, with a note); ``help`` says what it means here."""
    return click.option(
        "--target", "targets", multiple=True, type=TargetName(), metavar="NAME", help=help
    )


def refuse(*rules: tuple[object, str]) -> None:
    """A command's rules for options that do not go together, as (the options' values break it,
    what to say): a usage error (exit 2) says the first one broken."""
    broken = next((said for breaks, said in rules if breaks), None)
    if broken is not None:
        raise UsageError(broken)
