"""Where things are: the repository root, its git directory, and the paths under .memory/; and the
user's own scope (personal memories under the user's config directory, gitmem's state under their
cache directory).
"""

from __future__ import annotations

import os
from pathlib import Path

from gitmem.errors import CannotRun, GitmemError, shown

MEMORY_DIR = ".memory"


class Project:
    """A git repository: its work tree's root and its git directory. Frozen, equal by value (by hand
    rather than a dataclass: importing dataclasses costs the pre-commit hook more than scanning a
    typical commit).
    """

    __slots__ = ("git_dir", "root")
    root: Path
    git_dir: Path

    def __init__(self, root: Path, git_dir: Path) -> None:
        object.__setattr__(self, "root", root)
        object.__setattr__(self, "git_dir", git_dir)

    def _fields(self) -> tuple[Path, ...]:
        return (self.root, self.git_dir)

    def __setattr__(self, name: str, value: object) -> None:
        raise AttributeError(f"cannot assign to field {name!r}")

    def __delattr__(self, name: str) -> None:
        raise AttributeError(f"cannot delete field {name!r}")

    def __eq__(self, other: object) -> bool:
        return other.__class__ is self.__class__ and self._fields() == other._fields()

    def __hash__(self) -> int:
        return hash(self._fields())

    def __repr__(self) -> str:
        return f"{type(self).__name__}(root={self.root!r}, git_dir={self.git_dir!r})"

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
            return shown(os.path.relpath(path))
        except ValueError:  # another drive on Windows
            return shown(str(path))

    def require_initialised(self) -> None:
        if not self.memory_dir.is_dir():
            raise CannotRun(f"no {MEMORY_DIR}/ in {self.root}: run `gitmem init` first")


class UserScope(Project):
    """The user's personal scope, used as a ``Project`` by the store, the config, compile and
    recall.

    ``root`` is the home directory: the user-level rules files (``~/.claude/CLAUDE.md``...) are
    relative to it.
    ``store`` holds what a project keeps in .memory/ (``memories/``, ``config.yaml``, ``schema/``):
    by default ``~/.config/gitmem``. There is no repository: ``git_dir`` is gitmem's private state
    directory (by default ``~/.cache/gitmem``), so caches and drafts never go into a project's
    .git/.
    """

    __slots__ = ("store",)
    store: Path

    def __init__(self, root: Path, git_dir: Path, store: Path = Path()) -> None:
        super().__init__(root, git_dir)
        object.__setattr__(self, "store", store)

    def _fields(self) -> tuple[Path, ...]:
        return (self.root, self.git_dir, self.store)

    def __repr__(self) -> str:
        return f"UserScope(root={self.root!r}, git_dir={self.git_dir!r}, store={self.store!r})"

    @property
    def memory_dir(self) -> Path:
        return self.store

    @property
    def cache_dir(self) -> Path:
        return self.git_dir

    def display(self, path: Path) -> str:
        """``path`` under the home directory as ``~/...`` (the same from every directory), else
        absolute."""
        try:
            return shown("~/" + Path(os.path.normpath(path)).relative_to(self.root).as_posix())
        except ValueError:
            return shown(os.path.normpath(path))

    def require_initialised(self) -> None:
        """The personal store needs no set-up: ``gitmem add --user`` creates it."""


def user_scope() -> UserScope:
    """The current user's scope: ``$XDG_CONFIG_HOME/gitmem`` (default ``~/.config/gitmem``) for the
    memories and ``$XDG_CACHE_HOME/gitmem`` (default ``~/.cache/gitmem``) for gitmem's caches. Works
    outside any repository.
    """
    try:
        home = Path.home()
    except RuntimeError:
        raise CannotRun("cannot find your home directory: set HOME") from None
    return UserScope(
        root=home,
        git_dir=xdg_home("XDG_CACHE_HOME", home / ".cache") / "gitmem",
        store=xdg_home("XDG_CONFIG_HOME", home / ".config") / "gitmem",
    )


def personal_scope() -> UserScope | None:
    """The user's personal store, when there is a home and it holds a memories folder (what the
    hooks read beside the project's)."""
    try:
        scope = user_scope()
    except GitmemError:
        return None
    return scope if scope.memories_dir.is_dir() else None


def xdg_home(variable: str, default: Path) -> Path:
    """An XDG base directory: the variable when it holds an absolute path (the specification
    ignores others)."""
    value = os.environ.get(variable, "")
    return Path(value) if value and os.path.isabs(value) else default
