"""The user's personal scope: setting up the store, and which user-level rules files `compile
--user` writes.

The store lives in ``$XDG_CONFIG_HOME/gitmem`` (``UserScope`` in ``gitmem.project``); its config has
the same format as a project's. Which tools: the user config's ``targets`` when it sets them (every
user-level file of each, created as needed); otherwise every tool whose user-level directory exists
(``~/.claude``, ``~/.codex``...), so compile --user never creates the directories of tools that are
not installed.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

from gitmem import gateway
from gitmem.errors import UsageError
from gitmem.memory.config import Config
from gitmem.project import Project, UserScope, xdg_home
from gitmem.tools import TARGET_BY_NAME as BY_NAME
from gitmem.tools import TARGETS, USER_FOLDER_FILE, Target, UserFile, user_variant

USER_CONFIG = """\
# yaml-language-server: $schema=schema/config.schema.json
# gitmem's settings for your personal memories (gitmem add --user, gitmem compile --user).
# targets: the tools whose user-level rules files `gitmem compile --user` writes. Without it: every
# tool whose user-level directory exists (~/.claude, ~/.codex, ~/.config/opencode, ~/.gemini,
# ~/.copilot, ~/.codeium/windsurf, ~/Documents/Cline, ~/.kiro).
# targets: [agents, claude]
version: 1
"""


def ensure_store(scope: Project) -> list[Path]:
    """Create the personal store's folder and its config (with the defaults explained); returns
    what was created."""
    created = []
    if not scope.memories_dir.is_dir():
        gateway.make_dirs(scope, scope.memories_dir)
        created.append(scope.memories_dir)
    if not scope.config_path.exists():
        try:
            gateway.write(scope, scope.config_path, USER_CONFIG, overwrite=False)
            created.append(scope.config_path)
        except FileExistsError:  # another process made it this instant
            pass
    return created


def user_path(scope: UserScope, path: str) -> Path:
    """A ``~/`` path of the targets table as an absolute path (``~/.config/`` follows
    ``$XDG_CONFIG_HOME``)."""
    relative = path.removeprefix("~/")
    if relative.startswith(".config/"):
        return xdg_home("XDG_CONFIG_HOME", scope.root / ".config") / relative.removeprefix(
            ".config/"
        )
    return scope.root / relative


def variant(scope: UserScope, target: Target, user_file: UserFile) -> Target:
    """The user-level variant of ``target`` for ``user_file``, its file relative to the home
    directory."""
    path = user_path(scope, user_file.path)
    if user_file.folder:
        path = path / USER_FOLDER_FILE
    return user_variant(target, user_file, Path(os.path.relpath(path, scope.root)).as_posix())


def catalogue(scope: UserScope) -> list[Target]:
    """Every user-level file gitmem can write, as targets (agents has two: opencode's and
    Codex's)."""
    return [
        variant(scope, target, user_file) for target in TARGETS for user_file in target.user_files
    ]


@dataclass
class Selection:
    targets: list[Target]
    notes: list[str] = field(default_factory=list)
    detected: bool = False  # chosen by the tools' directories, not by the config


def select(scope: UserScope, config: Config, names: Sequence[str] = ()) -> Selection:
    """The user-level targets `compile --user` writes: ``names`` (``--target``) when given, else the
    config's ``targets`` when it sets them, else those whose tool's directory exists."""
    _check_names(names)
    everything = catalogue(scope)
    if names or "targets" in config.data:
        named = names or config.targets  # each of ``names`` has a user-level file (checked)
        notes = [
            f"target {name!r} has no user-level rules file: not compiled ({_with_files()})"
            for name in named
            if not BY_NAME[name].user_files
        ]
        wanted = set(named)
        return Selection([target for target in everything if target.name in wanted], notes)
    chosen = [
        target
        for target in everything
        for user_file in target.user_files
        if user_path(scope, user_file.installed).is_dir()
    ]
    notes = []
    if not chosen:
        notes.append(
            "no AI tool's user-level directory found (~/.claude, ~/.codex, ~/.config/opencode, "
            f"...): set `targets` in {scope.display(scope.config_path)}, or pass --target NAME"
        )
    return Selection(chosen, notes, detected=True)


def _check_names(names: Sequence[str]) -> None:
    """Each of ``names`` (``--target``) must be a target with a user-level rules file."""
    for name in names:
        if name not in BY_NAME:
            raise UsageError(f"unknown target {name!r}: choose from {', '.join(BY_NAME)}")
        if not BY_NAME[name].user_files:
            raise UsageError(f"target {name!r} has no user-level rules file: {_with_files()}")


def _with_files() -> str:
    return "those with one are " + ", ".join(target.name for target in TARGETS if target.user_files)
