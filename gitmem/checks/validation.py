"""``gitmem validate``: the store's checks, for the whole project or for given files."""

from __future__ import annotations

import os
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
    checked = len({p.path for p in problems} | {str(path) for path in snapshot.files.values()})
    if project.config_path.exists():
        checked += 1
        problems.extend(_config_problems(project, project.config_path))
    return checked, sorted(problems)


def validate_files(
    project: Project, store: Store, files: tuple[Path, ...]
) -> tuple[int, list[Problem]]:
    """The given files: memory files are checked with the whole store (for the cross-file
    checks)."""
    problems: list[Problem] = []
    snapshot = None
    for file in files:
        path = file.resolve()
        display = str(file)
        if path == project.config_path.resolve():
            problems.extend(_config_problems(project, path, display))
            continue
        if path.parent == project.memories_dir.resolve() and path.name.endswith(SUFFIX):
            snapshot = snapshot or store.load()
            mine = os.path.normcase(project.display(path))
            problems.extend(
                Problem(display, p.line, p.column, p.field, p.message)
                for p in snapshot.problems
                if os.path.normcase(p.path) == mine
            )
            continue
        try:
            raw = gateway.read_given(path, limit=gateway.SCAN_LIMIT, display=display)
        except OSError as exc:
            problems.append(Problem(display, 1, 1, "file", f"cannot read: {exc.strerror}"))
            continue
        except CheckFailed as exc:
            problems.extend(exc.problems)
            continue
        _, found = check_memory(raw, path.name.removesuffix(SUFFIX), display)
        problems.extend(found)
    return len(files), sorted(problems)


def _config_problems(project: Project, path: Path, display: str | None = None) -> list[Problem]:

    try:
        raw = gateway.read_bytes(project, path, limit=gateway.CONFIG_LIMIT, display=display)
    except OSError as exc:
        return [
            Problem(display or project.display(path), 1, 1, "file", f"cannot read: {exc.strerror}")
        ]
    except CheckFailed as exc:
        return exc.problems
    _, problems = check_config(raw, display or project.display(path))
    return problems
