"""The click layer: one module per command group. Commands parse, call the core, and render the
result."""

from __future__ import annotations

from typing import TYPE_CHECKING

from gitmem.gateway import find_project
from gitmem.project import Project, user_scope

if (
    TYPE_CHECKING
):  # imported when a command opens the store: `gitmem scan` on the hook's path never does
    from datetime import date

    from gitmem.memory.store import Store


def open_store(user: bool = False) -> tuple[Project, Store]:
    """The current project's store; exits with code 3 outside a git repository or before `gitmem
    init`.

    ``user``: the user's personal store instead (``~/.config/gitmem``), which works anywhere.
    """
    from gitmem.memory.store import Store  # not on `gitmem scan --staged`'s path (the hook)

    project = user_scope() if user else find_project()
    project.require_initialised()
    return project, Store(project)


def today() -> date:
    from datetime import date  # not on `gitmem scan --staged`'s path (the hook)

    return date.today()
