"""Where things are: the repository root, its git directory, and the paths under .memory/."""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

from gitmem.errors import CannotRun

MEMORY_DIR = ".memory"


@dataclass(frozen=True)
class Project:
    root: Path
    git_dir: Path

    @property
    def memory_dir(self) -> Path:
        return self.root / MEMORY_DIR

    @property
    def memories_dir(self) -> Path:
        return self.memory_dir / "memories"

    @property
    def journal_dir(self) -> Path:
        return self.memory_dir / "journal"

    @property
    def schema_dir(self) -> Path:
        return self.memory_dir / "schema"

    @property
    def config_path(self) -> Path:
        return self.memory_dir / "config.yaml"

    @property
    def cache_dir(self) -> Path:
        """gitmem's private state: under .git/, so it is never committed."""
        return self.git_dir / "gitmem"

    def display(self, path: Path) -> str:
        """``path`` as the user would type it from the current directory."""
        try:
            return os.path.relpath(path)
        except ValueError:  # another drive on Windows
            return str(path)

    def require_initialised(self) -> None:
        if not self.memory_dir.is_dir():
            raise CannotRun(f"no {MEMORY_DIR}/ in {self.root}: run `gitmem init` first")


def find_project(start: Path | None = None) -> Project:
    """The git repository that holds ``start`` (default: the current directory)."""
    here = (start or Path.cwd()).resolve()
    for directory in (here, *here.parents):
        dot_git = directory / ".git"
        if dot_git.is_dir():
            return Project(directory, dot_git)
        if dot_git.is_file():
            return Project(directory, _linked_git_dir(dot_git))
    raise CannotRun(f"{here} is not in a git repository: run `git init` first, or cd into your project")


def _linked_git_dir(dot_git: Path) -> Path:
    """The git directory a ``.git`` file points at (worktrees and submodules)."""
    try:
        text = dot_git.read_text(encoding="utf-8").strip()
    except OSError as exc:
        raise CannotRun(f"cannot read {dot_git}: {exc.strerror}") from None
    if not text.startswith("gitdir:"):
        raise CannotRun(f"{dot_git} is not a git link file (expected 'gitdir: PATH')")
    target = Path(text.removeprefix("gitdir:").strip())
    return target if target.is_absolute() else (dot_git.parent / target).resolve()
