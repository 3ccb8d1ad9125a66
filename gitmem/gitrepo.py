"""Every git call gitmem makes goes through this module, and git's failures become advice.

Two ways in: ``git()`` runs the git command line directly (cheap: used on the pre-commit hook's path, where
importing GitPython would cost more than the whole scan), and GitPython (imported only inside the functions that
need it, with ``with Repo(path) as repo:``) for history, diffs and reverts.
"""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

from gitmem.errors import CannotRun

# Variables git exports while hooks run; they must not leak into git commands on another repository.
_HOOK_VARIABLES = ("GIT_DIR", "GIT_INDEX_FILE", "GIT_WORK_TREE", "GIT_OBJECT_DIRECTORY", "GIT_PREFIX")


class GitFailed(CannotRun):
    """git ran and failed; the message says what was attempted and git's own words."""


def clean_env(foreign: bool) -> dict[str, str]:
    """The environment for git: for a ``foreign`` repository (not the one a hook runs in), without hook variables."""
    env = dict(os.environ)
    if foreign:
        for name in _HOOK_VARIABLES:
            env.pop(name, None)
    env.setdefault("LC_ALL", "C")
    return env


def list_files(root: Path, names: tuple[str, ...]) -> list[str]:
    """Files named one of ``names`` anywhere in the work tree (tracked, or untracked and not ignored).

    Paths are relative to ``root``, with / separators, sorted. Reads git's index rather than walking the tree.
    """
    if not names:
        return []
    specs = [f":(glob)**/{name}" for name in names]
    out = git(root, "ls-files", "-z", "--cached", "--others", "--exclude-standard", "--", *specs)
    return sorted({path for path in out.decode("utf-8", "surrogateescape").split("\0") if path})


def git(cwd: Path, *args: str, foreign: bool = False, input: bytes | None = None) -> bytes:
    """Run ``git args`` in ``cwd``; raise ``GitFailed`` with git's message when it fails."""
    try:
        done = subprocess.run(
            ["git", *args], cwd=cwd, input=input, capture_output=True, env=clean_env(foreign), check=False
        )
    except FileNotFoundError:
        raise GitFailed("git is not installed (or not on PATH): install git and try again") from None
    if done.returncode != 0:
        message = done.stderr.decode("utf-8", "replace").strip().splitlines()
        detail = message[-1] if message else f"exit code {done.returncode}"
        raise GitFailed(f"git {' '.join(args[:2])} failed: {detail}")
    return done.stdout
