"""Options several commands share."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import click

from gitmem.config import TARGET_NAMES


def target_option(help: str) -> Callable[[Any], Any]:
    """``--target NAME`` (repeatable, into ``targets``), one of the target names; ``help`` says what it means here."""
    return click.option(
        "--target", "targets", multiple=True, type=click.Choice(TARGET_NAMES), metavar="NAME", help=help
    )
