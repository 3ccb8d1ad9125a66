"""Which gitmem runs: the ``gitmem`` on PATH may be another tool's (dev-boz/gitmem installs a
``gitmem`` command), and the package index's unrelated ``gitmem`` installs a Python package of the
same import name, which overwrites this one's files in a shared environment. The hooks run
``gitmem-cli`` (``gitmem.COMMAND``), a name only this package installs; doctor says which ``gitmem``
is on PATH and warns when it or the environment is not this one's.

Read from the installed distributions' metadata (``importlib.metadata``) and ``PATH``
(``shutil.which``): no program is run and no file's text is read.
"""

from __future__ import annotations

import os
import shutil
from functools import cache
from importlib import metadata
from pathlib import Path
from typing import NamedTuple

from gitmem import COMMAND

DISTRIBUTION = "gitmem-cli"  # pyproject.toml's project name


class Commands(NamedTuple):
    gitmem: str | None  # the `gitmem` on PATH
    gitmem_cli: str | None  # the `gitmem-cli` on PATH
    ours: bool  # `gitmem` on PATH is a script of this installation
    others: tuple[
        str, ...
    ]  # other distributions in this environment that install the `gitmem` package or command

    def to_dict(self) -> dict[str, object]:
        return {
            "gitmem": self.gitmem,
            COMMAND: self.gitmem_cli,
            "ours": self.ours,
            "others": list(self.others),
        }

    def describe(self) -> str:
        """One line: which ``gitmem`` is on PATH."""
        if self.gitmem is None:
            return "no `gitmem` on PATH"
        return (
            f"`gitmem` on PATH: {self.gitmem} ({'this gitmem' if self.ours else 'another program'})"
        )


def _resolved(path: str | os.PathLike[str]) -> Path:
    return Path(os.path.realpath(path))


@cache  # the installed distributions do not change while a process runs: read them once
def _scripts() -> frozenset[Path]:
    """The command scripts this installation wrote (its RECORD), resolved; none when run from a
    source tree without an install (a checkout's own ``gitmem_cli.egg-info`` lists no scripts)."""
    return frozenset(
        _resolved(str(f.locate()))
        for dist in metadata.distributions()
        if (dist.metadata["Name"] or "").lower() == DISTRIBUTION
        for f in dist.files or ()
        if f.name in ("gitmem", COMMAND)
    )


@cache  # as _scripts
def _others() -> tuple[str, ...]:

    names = set(metadata.packages_distributions().get("gitmem", ()))
    names |= {
        entry.dist.name
        for entry in metadata.entry_points(group="console_scripts", name="gitmem")
        if entry.dist
    }
    return tuple(sorted(name for name in names if name.lower().replace("_", "-") != DISTRIBUTION))


def commands() -> Commands:
    on_path = shutil.which("gitmem")
    cli = shutil.which(COMMAND)
    scripts = _scripts()
    ours = on_path is not None and (not scripts or _resolved(on_path) in scripts)
    return Commands(on_path, cli, ours, _others())


def problems(found: Commands, hooks: bool) -> list[tuple[str, str, str]]:
    """``(code, path, message)`` for each way the commands or the environment are not this gitmem's
    (``hooks``: the repository's hooks run ``gitmem-cli``, so its absence matters)."""
    out = []
    if found.gitmem is not None and not found.ours:
        out.append(
            (
                "foreign-gitmem",
                found.gitmem,
                f"`gitmem` on PATH is another program than this gitmem ({found.gitmem}): gitmem's "
                f"hooks run `{COMMAND}`, which only this gitmem installs, but typing `gitmem` runs "
                "that one; put this gitmem's folder first on PATH, or type `gitmem-cli`",
            )
        )
    if found.gitmem_cli is None and hooks:
        out.append(
            (
                "no-gitmem-cli",
                ".pre-commit-config.yaml",
                f"`{COMMAND}` is not on PATH: gitmem's hooks in .pre-commit-config.yaml run it "
                "and fail without it; activate the environment gitmem is installed in, or "
                "install it with pipx (README)",
            )
        )
    for name in found.others:
        out.append(
            (
                "shared-environment",
                "PATH",
                f"the distribution {name} in this Python environment installs a `gitmem` package "
                "or command too: one overwrites the other's files; install this gitmem in an "
                "environment of its own (pipx)",
            )
        )
    return out
