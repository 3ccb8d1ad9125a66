"""The git hooks that really run: where git looks for them (``core.hooksPath``, as husky sets it),
and whether the one there runs gitmem's pre-commit hooks.

``pre-commit install`` refuses to work while ``core.hooksPath`` is set, and its hint (unset it)
would switch off the team's own hooks (husky, a committed ``.githooks/`` folder). So with a hooks
path in use, gitmem adds one line to the hook script git runs there, ``pre-commit run``, and leaves
every other byte of it alone. That script is the team's (committed): a teammate who has neither
pre-commit nor gitmem must still be able to commit, so the line runs pre-commit only when both are
on PATH, and otherwise says once per clone (a marker under ``.git/``) how to get the guard, and lets
the commit and the team's own hooks go on. With husky 9, git's hooks path is husky's generated
``.husky/_`` folder, whose scripts run the team's ``.husky/pre-commit``: that one is edited. A hooks
path outside the repository is not written (gitmem writes only inside the repository): the user is
told the line to add.

``problems`` says when the gitmem hooks of ``.pre-commit-config.yaml`` will not run on a commit: the
hooks path in use has no hook that runs pre-commit, or pre-commit's hook sits in ``.git/hooks``
while git looks elsewhere.
"""

from __future__ import annotations

import os
import re
import shutil
from dataclasses import dataclass
from pathlib import Path

from gitmem import COMMAND, INSTALL, gateway
from gitmem import gitcommand as command
from gitmem.errors import GitmemError
from gitmem.project import Project

MARK = (
    "# gitmem: run the hooks of .pre-commit-config.yaml (secret scan, memories, compile); "
    "`gitmem init` added this"
)
_RUNS = re.compile(r"pre-commit\s+(run|hook-impl)|pre_commit|\bgitmem\s+(scan|check)")


@dataclass(frozen=True)
class HookFile:
    """The script git runs for one hook type, as the user edits it."""

    hook_type: str
    # the script to edit (husky 9: .husky/pre-commit, not the generated .husky/_/pre-commit)
    path: Path
    configured: str  # core.hooksPath as set
    inside: bool  # within the repository's work tree

    def display(self, project: Project) -> str:
        return project.display(self.path) if self.inside else str(self.path)


def hooks_path(project: Project) -> str | None:
    """``core.hooksPath`` as git sees it here (any config level), or ``None``."""
    try:
        value = (
            command.git(project.root, "config", "--get", "core.hooksPath").decode("utf-8").strip()
        )
    except command.GitFailed:
        return None
    return value or None


def hook_file(project: Project, hook_type: str) -> HookFile | None:
    """The script to hold ``hook_type`` under the hooks path in use; ``None`` when no hooks path
    is set."""
    configured = hooks_path(project)
    if configured is None:
        return None
    # (an absolute path joined to the root is itself)
    directory = Path(os.path.normpath(project.root / os.path.expanduser(configured)))
    if directory.name == "_" and (directory / "h").is_file():  # husky 9: its stubs run ../<hook>
        directory = directory.parent
    root = gateway.real(project.root)
    resolved = gateway.real(directory)
    inside = resolved == root or root in resolved.parents
    return HookFile(hook_type, directory / hook_type, configured, inside)


def runs_precommit(path: Path) -> bool:
    try:
        text = gateway.read_git_file(path)
    except (OSError, GitmemError):
        return False
    return bool(_RUNS.search(text))


NOTED = (
    "gitmem-guard-noted"  # under the git directory: this clone was told once how to get the guard
)
_OLD_LINE = (
    "pre-commit run --hook-stage {hook_type} || exit $?"  # what gitmem init added before: upgraded
)


def _line(hook_type: str) -> str:
    run = _OLD_LINE.format(hook_type=hook_type)
    note = (
        "gitmem: this commit was not checked for secrets: the team's guard needs pre-commit and "
        f"gitmem (pipx install pre-commit; gitmem: {INSTALL}; then gitmem init). Said once."
    )
    return (
        f"if command -v pre-commit >/dev/null 2>&1 && command -v {COMMAND} >/dev/null "
        f"2>&1; then {run}; "
        f'else gitmem_noted="$(git rev-parse --git-path {NOTED})"; '
        f'[ -e "$gitmem_noted" ] || {{ echo "{note}" >&2; : >"$gitmem_noted"; }}; fi'
    )


def _upgraded(text: str, hook_type: str) -> str | None:
    """``text`` with the line an older ``gitmem init`` added after gitmem's mark (one that refused
    every commit without pre-commit, or looked for ``gitmem`` rather than ``gitmem-cli`` on PATH)
    replaced by today's; ``None`` when it holds no such line."""
    today = _line(hook_type)
    lines = text.splitlines(keepends=True)
    for index in range(1, len(lines)):
        line = lines[index].rstrip("\r\n")
        if (
            lines[index - 1].rstrip("\r\n") == MARK
            and line != today
            and f"--hook-stage {hook_type}" in line
        ):
            ending = lines[index][len(lines[index].rstrip("\r\n")) :]
            lines[index] = _line(hook_type) + ending
            return "".join(lines)
    return None


def wire(project: Project, hook_type: str) -> tuple[list[str], bool]:
    """Make the hook under the hooks path in use run pre-commit. Returns what was done (or what the
    user must do) and whether the hook now runs."""
    found = hook_file(project, hook_type)
    assert found is not None
    where = found.display(project)
    if runs_precommit(found.path):
        return _upgrade(found, where), True
    addition = f"{MARK}\n{_line(hook_type)}\n"
    if not found.inside:
        return [
            f"core.hooksPath is {found.configured}, outside this repository: gitmem does not write "
            f"there. Add these lines to {where} so commits run gitmem's hooks:\n{addition.rstrip()}"
        ], False
    try:
        old = gateway.read_git_file(found.path) if found.path.exists() else None
    except (OSError, GitmemError) as exc:
        return [f"cannot read {where} ({exc}): add `{_line(hook_type)}` to it yourself"], False
    new = with_lines(old, addition)
    gateway.write_git_file(found.path, new.encode("utf-8"), executable=True)
    verb = "created" if old is None else "added `pre-commit run` to"
    done = [f"{verb} {where} (core.hooksPath is {found.configured}): commits run gitmem's hooks"]

    if shutil.which("pre-commit") is None:
        done.append(
            f"pre-commit is not on PATH: {where} skips gitmem's hooks until it is (`pipx "
            "install pre-commit`)"
        )
    return done, True


def with_lines(old: str | None, addition: str) -> str:
    """A hook script with ``addition`` right after its ``#!`` line (in its own line endings); a new
    script when ``old`` is ``None``."""
    if old is None:
        return "#!/bin/sh\n" + addition
    newline = "\r\n" if "\r\n" in old else "\n"
    lines = old.splitlines(keepends=True)
    head = int(old.startswith("#!"))  # the #! line stays first
    if head and not lines[0].endswith("\n"):
        lines[0] += newline
    return "".join([*lines[:head], addition.replace("\n", newline), *lines[head:]])


def _upgrade(found: HookFile, where: str) -> list[str]:
    if not found.inside:
        return []
    try:
        new = _upgraded(gateway.read_git_file(found.path), found.hook_type)
    except (OSError, GitmemError):
        return []
    if new is None:
        return []
    gateway.write_git_file(found.path, new.encode("utf-8"), executable=True)
    return [
        f"updated gitmem's line in {where}: it runs the hooks where pre-commit and "
        f"{COMMAND} are installed"
    ]


def problems(
    project: Project, hook_types: tuple[str, ...] = ("pre-commit",)
) -> list[tuple[str, str]]:
    """``(path, message)`` for each hook that will not run gitmem's hooks although git looks for it
    elsewhere than pre-commit installed it: ``core.hooksPath`` is set and the script there does not
    run pre-commit.
    """
    found = []
    for hook_type in hook_types:
        hook = hook_file(project, hook_type)
        if hook is None or runs_precommit(hook.path):
            continue
        installed = project.git_dir / "hooks" / hook_type
        skipped = (
            " (pre-commit's hook in .git/hooks is skipped)" if runs_precommit(installed) else ""
        )
        found.append(
            (
                hook.display(project),
                f"git runs the {hook_type} hook from core.hooksPath "
                f"({hook.configured}), which does not run pre-commit, so commits skip "
                f"gitmem's scan{skipped}: run `gitmem init` to add it",
            )
        )
    return found


def unstaged(project: Project, paths: list[str]) -> list[str]:
    """Those of ``paths`` whose working-tree state is not what the index holds: new untracked files,
    changes and deletions not staged. (In a pre-commit hook, a compiled file left so would miss the
    commit: a fresh clone then fails `gitmem check`.)"""
    entries = status(project, paths)
    return sorted(path for state, path in entries if state == "??" or state[1] != " ")


def status(project: Project, paths: list[str]) -> list[tuple[str, str]]:
    """(state, path) of each file under ``paths`` (files or folders) whose working tree or index
    differs from HEAD, untracked files too: ``git status --porcelain=v1``'s two state letters and
    the path (a rename's or copy's new one). No paths, no files: never the whole tree (git's
    reading of an empty pathspec), which made the post-commit hook commit the user's files."""
    if not paths:
        return []
    out = command.git(
        project.root, "status", "--porcelain=v1", "-z", "--untracked-files=all", "--", *paths
    )
    entries = iter(out.decode("utf-8", "surrogateescape").split("\0"))
    found = []
    for entry in entries:
        if len(entry) < 4:
            continue
        if entry[0] in "RC":
            next(entries, None)  # the old path of a rename or copy follows
        found.append((entry[:2], entry[3:]))
    return found


# -- the hooks after a git operation (post-commit, post-merge, post-rewrite) -----------------------

AFTER_MARK = (
    "# gitmem: rules files compiled after merge, pull, revert, cherry-pick, rebase; `gitmem "
    "init` added this"
)
AFTER_HOOKS = ("post-commit", "post-merge", "post-rewrite")


def after_line(hook_type: str) -> str:
    """The line that runs ``gitmem hook git`` (only where gitmem is installed: a teammate
    without it still merges)."""
    rewrite = ' --rewrite "$1"' if hook_type == "post-rewrite" else ""
    return f"if command -v {COMMAND} >/dev/null 2>&1; then {COMMAND} hook git{rewrite}; fi"


def after_script(project: Project, hook_type: str) -> HookFile:
    """The script git runs for ``hook_type``: under the hooks path in use, else in the git
    directory's hooks."""
    found = hook_file(project, hook_type)
    if found is not None:
        return found
    relative = (
        command.git(project.root, "rev-parse", "--git-path", f"hooks/{hook_type}").decode().strip()
    )
    return HookFile(hook_type, project.root / relative, "", True)


def wire_after(project: Project) -> tuple[list[str], bool]:
    """Add gitmem's line to the post-commit, post-merge and post-rewrite hooks (created when
    missing, every other byte kept; in a script pre-commit generated, before its ``exec``). Returns
    what was done and whether all three run it."""
    done: list[str] = []
    runs = True
    for hook_type in AFTER_HOOKS:
        found = after_script(project, hook_type)
        where = found.display(project) if found.configured else f".git/hooks/{hook_type}"
        addition = f"{AFTER_MARK}\n{after_line(hook_type)}\n"
        if not found.inside:
            done.append(
                f"core.hooksPath is {found.configured}: add these lines to "
                f"{where}:\n{addition.rstrip()}"
            )
            runs = False
            continue
        try:
            old = gateway.read_git_file(found.path) if found.path.exists() else None
        except (OSError, GitmemError) as exc:
            done.append(
                f"cannot read {where} ({exc}): add `{after_line(hook_type)}` to it yourself"
            )
            runs = False
            continue
        if old is not None and AFTER_MARK in old:
            continue
        gateway.write_git_file(
            found.path, with_lines(old, addition).encode("utf-8"), executable=True
        )
        done.append(
            f"{'created' if old is None else 'added a line to'} {where} (runs `gitmem hook git`)"
        )
    return done, runs
