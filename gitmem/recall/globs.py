"""Matching a memory's ``paths`` globs against a file, as the AI tools scope rules.

``*`` matches within one path segment, ``**`` across segments (``web/**`` is everything under web/,
``**/*.py`` every Python file), ``?`` one character, ``[abc]`` a class. A glob without a slash
matches the file's name at any depth (``*.py``), as in .gitignore; a glob naming a directory
(``web`` or ``web/``) matches everything under it.
"""

from __future__ import annotations

from functools import cache

from gitmem.globmatch import Glob, match, parse


@cache
def _compile(pattern: str) -> Glob:
    glob = pattern.strip().lstrip("/")
    if glob.startswith("./"):
        glob = glob[2:]
    if "/" not in glob.rstrip("/"):
        glob = "**/" + glob
    if glob.endswith("/"):
        glob += "**"
    return parse(glob)


def matches(pattern: str, path: str) -> bool:
    """Whether repository-relative ``path`` (with / separators) is covered by glob ``pattern``.

    In time linear in the path (times the glob's length), whatever the glob: see
    ``gitmem.globmatch``.
    """
    # A glob that names a directory matches what is under it, too.
    return match(_compile(pattern), path.lstrip("/"), under=True)


def any_match(patterns: tuple[str, ...] | list[str], path: str) -> bool:
    return any(matches(pattern, path) for pattern in patterns)
