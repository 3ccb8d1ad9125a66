"""Where a memory goes in each target, from its ``paths`` globs (see the rules in
``targets.py``)."""

from __future__ import annotations

import hashlib
import re
from functools import lru_cache

from gitmem.memory.braces import expand
from gitmem.records import Record
from gitmem.tools import WHOLE_PREFIX, Target

_GLOB_CHARS = frozenset("*?[]{}!\\")  # none in a directory glob's directory part


@lru_cache(maxsize=4096)
def directory_of(glob: str) -> str | None:
    """The directory a directory glob stands for (``web/**`` -> ``web``: a plain directory path,
    then /** or /**/*), or None for any other glob."""
    directory, star, rest = glob.partition("/**")
    directory = directory.strip("/")
    parts = set(directory.split("/"))  # an empty part too when there is none
    if (
        star + rest not in ("/**", "/**/*")
        or _GLOB_CHARS & set(directory)
        or {"", ".", ".."} & parts
    ):
        return None
    return directory


def scope_key(paths: tuple[str, ...]) -> tuple[str, ...]:
    """The globs of a memory as a scope: sorted, without duplicates (the order they were written
    in is no scope)."""
    return tuple(sorted(set(paths)))


def code(text: str) -> str:
    """``text`` as a Markdown code span."""
    if "`" not in text:
        return f"`{text}`"
    return f"`` {text} ``"


def globs_phrase(globs: tuple[str, ...]) -> str:
    return "files matching " + ", ".join(code(glob) for glob in globs)


def slug(globs: tuple[str, ...]) -> str:
    """A file-name part for a scope: readable words of the globs and a short hash (unique, and
    stable)."""
    words = "-".join(re.findall(r"[a-z0-9]+", " ".join(globs).lower()))[:32].strip("-")
    short = hashlib.sha256("\n".join(globs).encode("utf-8")).hexdigest()[:6]
    return f"{words}-{short}" if words else short


# How a nested file's preamble names its folder (`` for files under `web/` ``).
SCOPE_PREFIX = " for files under "


class FileSpec(Record):
    """One file a target writes: where, whether gitmem creates it whole, and what it applies to."""

    target: str
    path: str  # relative to the repository root, with / separators
    whole: bool
    root: bool  # the target's always-loaded file
    globs: tuple[str, ...] = ()  # the scope carried by the frontmatter (whole, glob-scoped files)
    directory: str = ""  # the directory of a nested file (web for web/AGENTS.md)
    personal: bool = False  # a user-level file of `compile --user`
    imports: str = ""  # a bridge: the file of its folder it imports (`@AGENTS.md`)

    @property
    def scope_phrase(self) -> str:
        if self.directory:
            return f"{SCOPE_PREFIX}{code(self.directory + '/')}"
        if self.globs:
            return " for " + globs_phrase(self.globs)
        return ""


class Placement(Record):
    file: FileSpec
    label: str  # the group label in that file: "" or the globs the memory applies to


def root_spec(target: Target) -> FileSpec:
    return FileSpec(
        target.name,
        target.root_file,
        target.root_whole,
        True,
        personal=target.personal,
        imports=target.imports,
    )


def dir_spec(target: Target, directory: str) -> FileSpec:
    """The nested file of ``target`` in ``directory`` (``web/GEMINI.md``)."""
    assert target.dir_file
    return FileSpec(
        target.name,
        f"{directory}/{target.dir_file}",
        False,
        False,
        directory=directory,
        imports=target.imports,
    )


def folder_spec(target: Target, folder: str) -> FileSpec:
    """The file of ``target`` that a client started in ``folder`` reads there: its root file at the
    root (""), its nested file below."""
    return dir_spec(target, folder) if folder else root_spec(target)


@lru_cache(maxsize=4096)
def place(target: Target, paths: tuple[str, ...]) -> tuple[Placement, ...]:
    """The files (and group labels) of ``target`` that a memory with ``paths`` goes to."""
    if not paths:
        return (Placement(root_spec(target), ""),)
    globs = scope_key(paths)
    directories = [directory_of(glob) for glob in globs]
    if target.dir_file and all(directories):
        return tuple(
            Placement(dir_spec(target, directory), "")
            for directory in sorted(set(filter(None, directories)))
        )
    if target.scoped_dir:
        name = f"{WHOLE_PREFIX}-{slug(globs)}{target.scoped_suffix}"
        return (
            Placement(
                FileSpec(target.name, f"{target.scoped_dir}/{name}", True, False, globs=globs), ""
            ),
        )
    return (Placement(root_spec(target), globs_phrase(globs)),)


def expand_braces(glob: str) -> list[str]:
    """``src/*.{ts,tsx}`` -> ``src/*.ts``, ``src/*.tsx`` (nested braces too), bounded: see
    ``braces.expand``."""

    return expand(glob)
