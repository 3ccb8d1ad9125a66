"""``gitmem validate``: the store's checks, for the whole project or for given files."""

from __future__ import annotations

import os
from collections.abc import Callable
from functools import cache, partial
from pathlib import Path

from gitmem import gateway
from gitmem.errors import CheckFailed, Problem
from gitmem.memory.schema import check_config, check_memory
from gitmem.memory.store import SUFFIX, Store
from gitmem.project import Project


def validate_project(project: Project, store: Store) -> tuple[int, list[Problem]]:
    """Every memory file and the config. Returns how many files were checked, and the problems."""
    snapshot = store.load()
    problems = list(snapshot.problems)
    checked = len({p.path for p in problems} | set(map(str, snapshot.files.values())))
    if project.config_path.exists():
        checked += 1
        shown = project.display(project.config_path)
        problems.extend(_config_problems(project, project.config_path, shown))
    return checked, sorted(problems)


def validate_files(
    project: Project, store: Store, files: tuple[Path, ...]
) -> tuple[int, list[Problem]]:
    """The given files: memory files are checked with the whole store (for the cross-file
    checks)."""
    problems: list[Problem] = []
    load = cache(store.load)  # the store, read once if any file given is one of its memories
    for file in files:
        path = gateway.real(file)
        display = str(file)
        if path == gateway.real(project.config_path):
            problems.extend(_config_problems(project, path, display))
        elif path.parent == gateway.real(project.memories_dir) and path.name.endswith(SUFFIX):
            mine = os.path.normcase(project.display(path))
            problems.extend(
                Problem(display, p.line, p.column, p.field, p.message)
                for p in load().problems
                if os.path.normcase(p.path) == mine
            )
        else:
            read = partial(gateway.read_given, path, limit=gateway.SCAN_LIMIT, display=display)
            check = partial(check_memory, file_id=path.name.removesuffix(SUFFIX), path=display)
            problems.extend(_checked(read, check, display))
    return len(files), sorted(problems)


def _config_problems(project: Project, path: Path, display: str) -> list[Problem]:
    read = partial(gateway.read_bytes, project, path, limit=gateway.CONFIG_LIMIT, display=display)
    return _checked(read, partial(check_config, path=display), display)


def _checked(
    read: Callable[[], bytes],
    check: Callable[[bytes], tuple[object, list[Problem]]],
    display: str,
) -> list[Problem]:
    """The problems ``check`` finds in what ``read`` gives, or the reason it cannot be read."""
    try:
        raw = read()
    except OSError as exc:
        return [Problem(display, 1, 1, "file", f"cannot read: {exc.strerror}")]
    except CheckFailed as exc:
        return exc.problems
    return check(raw)[1]
