"""The click layer: one module per command group. Commands parse, call the core, and render the result."""

from __future__ import annotations

from datetime import date

from gitmem.memory.store import Store
from gitmem.project import Project, find_project


def open_store() -> tuple[Project, Store]:
    """The current project's store; exits with code 3 outside a git repository or before `gitmem init`."""
    project = find_project()
    project.require_initialised()
    return project, Store(project)


def today() -> date:
    return date.today()
