"""One policy for every path gitmem reads from a repository or writes into it: it must resolve inside.

A repository is untrusted content: a pull request can commit a symbolic link anywhere, to a file or to a directory
(``docs -> ../../home/me/.claude``, ``GEMINI.md -> /etc/passwd``, ``.cursor -> ~/.cursor``). Checking only the last
part of a path is not enough, so a path is checked by resolving every part of it (``os.path.realpath``: each
directory on the way, then the file itself, links followed as the system would follow them), and the result must be
the repository's root or under it. For ``--user`` the allowed roots are the user's own folders (home,
``$XDG_CONFIG_HOME``, gitmem's store and cache folders), which the user controls.

A path that resolves elsewhere is refused with ``OutsideRoot``: one line naming the path as the user would type it
(never the link's target: the target is repository content, and may be anything). Its exit code is 1, "a check
found something": the repository's content is at fault, exactly as a secret in a memory is, and ``gitmem check`` in
CI must fail on it; gitmem itself could run.

Links that stay inside (``CLAUDE.md -> AGENTS.md``) are fine. There is a window between the check and the use (a
link created meanwhile): closing it needs ``openat`` with ``O_NOFOLLOW`` on every part, which Python's ``pathlib``
does not offer; the threat here is committed content, which a check just before the use stops.
"""

from __future__ import annotations

import os
from collections.abc import Iterable
from pathlib import Path

from gitmem.errors import CheckFailed, Problem
from gitmem.project import Project, UserScope, xdg_home

REASON = "resolves outside the repository (through a symbolic link); gitmem does not follow it"
USER_REASON = "resolves outside your home and config folders (through a symbolic link); gitmem does not follow it"


class OutsideRoot(CheckFailed):
    """A path resolves outside the folders gitmem may use (exit code 1: the content is at fault)."""

    def __init__(self, display: str, reason: str = REASON) -> None:
        self.display = display
        self.reason = reason
        super().__init__([Problem(display, 1, 1, "path", reason)])


def _real(path: Path | str) -> str:
    return os.path.realpath(os.fspath(path))


def is_inside(path: Path | str, roots: Iterable[Path | str]) -> bool:
    """Whether ``path``, every link in it followed, is one of ``roots`` (also resolved) or under one."""
    real = _real(path)
    for root in roots:
        base = _real(root)
        if real == base or real.startswith(base.rstrip(os.sep) + os.sep):
            return True
    return False


def roots_of(project: Project) -> tuple[Path, ...]:
    """The folders a project (or the user's scope) may read and write: the repository's root, or for the user's
    scope their home, config folder (``$XDG_CONFIG_HOME``), personal store and gitmem's cache."""
    if isinstance(project, UserScope):
        config = xdg_home("XDG_CONFIG_HOME", project.root / ".config")
        return (project.root, config, project.store, project.git_dir)
    return (project.root,)


def reason_for(project: Project) -> str:
    return USER_REASON if isinstance(project, UserScope) else REASON


def problem(project: Project, path: Path | str, display: str) -> Problem | None:
    """A ``Problem`` when ``path`` resolves outside ``project``'s folders, else None (for reports that collect)."""
    if is_inside(path, roots_of(project)):
        return None
    return Problem(display, 1, 1, "path", reason_for(project))


def require(project: Project, path: Path | str, display: str | None = None) -> Path:
    """``path`` itself when it resolves inside ``project``'s folders; ``OutsideRoot`` otherwise."""
    if not is_inside(path, roots_of(project)):
        raise OutsideRoot(display or _display(project, path), reason_for(project))
    return Path(path)


def require_under(root: Path | str, path: Path | str, display: str) -> Path:
    """``path`` when it resolves inside ``root`` (for callers without a ``Project``, such as the merge driver)."""
    if not is_inside(path, (root,)):
        raise OutsideRoot(display)
    return Path(path)


def _display(project: Project, path: Path | str) -> str:
    return project.display(Path(path))
