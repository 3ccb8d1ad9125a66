"""The click layer: one module per command group. Commands parse, call the core, and render the result."""

from __future__ import annotations

from datetime import date
from typing import TYPE_CHECKING

from gitmem.project import Project, find_project

if TYPE_CHECKING:  # imported when a command opens the store: `gitmem scan` on the hook's path never does
    from gitmem.memory.store import Store


def open_store() -> tuple[Project, Store]:
    """The current project's store; exits with code 3 outside a git repository or before `gitmem init`."""
    from gitmem.memory.store import Store

    project = find_project()
    project.require_initialised()
    return project, Store(project)


def today() -> date:
    return date.today()
