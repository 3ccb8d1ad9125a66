"""Matching a memory's ``paths`` globs against a file, as the AI tools scope rules.

``*`` matches within one path segment, ``**`` across segments (``web/**`` is everything under web/, ``**/*.py``
every Python file), ``?`` one character, ``[abc]`` a class. A glob without a slash matches the file's name at any
depth (``*.py``), as in .gitignore; a glob naming a directory (``web`` or ``web/``) matches everything under it.
"""

from __future__ import annotations

import re
from functools import cache


@cache
def _compile(pattern: str) -> re.Pattern[str]:
    glob = pattern.strip().lstrip("/")
    if glob.startswith("./"):
        glob = glob[2:]
    if "/" not in glob.rstrip("/"):
        glob = "**/" + glob
    if glob.endswith("/"):
        glob += "**"
    out = []
    index = 0
    while index < len(glob):
        char = glob[index]
        if glob.startswith("**/", index):
            out.append("(?:.*/)?")
            index += 3
            continue
        if glob.startswith("**", index):
            out.append(".*")
            index += 2
            continue
        if char == "*":
            out.append("[^/]*")
        elif char == "?":
            out.append("[^/]")
        elif char == "[":
            end = glob.find("]", index + 2)
            if end < 0:
                out.append(re.escape(char))
            else:
                body = glob[index + 1 : end]
                negate = body.startswith(("!", "^"))
                body = body[1:] if negate else body
                out.append(f"[{'^' if negate else ''}{body.replace(chr(92), chr(92) * 2)}]")
                index = end + 1
                continue
        else:
            out.append(re.escape(char))
        index += 1
    # A glob that names a directory matches what is under it, too.
    return re.compile("".join(out) + "(?:/.*)?")


def matches(pattern: str, path: str) -> bool:
    """Whether repository-relative ``path`` (with / separators) is covered by glob ``pattern``."""
    try:
        return _compile(pattern).fullmatch(path.lstrip("/")) is not None
    except re.error:
        return False


def any_match(patterns: tuple[str, ...] | list[str], path: str) -> bool:
    return any(matches(pattern, path) for pattern in patterns)
