"""Brace expansion in globs (``src/*.{ts,tsx}``), bounded: a glob may stand for at most
``MAX_EXPANSIONS`` globs.

Without a bound, ``{a,b}`` written 40 times would stand for 2**40 globs: counting comes first, in
time linear in the glob's length, and expansion is refused beyond the bound.
"""

from __future__ import annotations

MAX_EXPANSIONS = 256


class TooManyExpansions(ValueError):
    """A glob whose braces stand for more than ``MAX_EXPANSIONS`` globs."""


def count(glob: str, cap: int = MAX_EXPANSIONS + 1) -> int:
    """How many globs ``glob`` expands to, counted without expanding (at most ``cap``: a bigger
    count stops there)."""
    total, _ = _count_sequence(glob, 0, cap, top=True)
    return min(total, cap)


def _count_sequence(text: str, index: int, cap: int, top: bool) -> tuple[int, int]:
    """The count of the sequence starting at ``index``, up to a top-level ``,`` or ``}`` (or the
    end)."""
    product = 1
    while index < len(text):
        char = text[index]
        if not top and char in ",}":
            return product, index
        if char == "{":
            alternatives, end = _count_group(text, index + 1, cap)
            if end < 0:  # an unclosed brace is a literal character, as in expand()
                return product, len(text)
            product = min(product * alternatives, cap)
            index = end + 1
            continue
        index += 1
    return product, index


def _count_group(text: str, index: int, cap: int) -> tuple[int, int]:
    """The alternatives of the group whose ``{`` is just before ``index``, and the index of its
    ``}`` (-1: none)."""
    total = 0
    options = 0
    while True:
        product, index = _count_sequence(text, index, cap, top=False)
        total = min(total + product, cap)
        options += 1
        if index >= len(text):
            return 1, -1
        if text[index] == "}":
            return (total if options > 1 else 1), index
        index += 1  # past the comma


def expand(glob: str) -> list[str]:
    """``src/*.{ts,tsx}`` -> ``src/*.ts``, ``src/*.tsx`` (nested braces too); a glob without braces
    as it is.

    Raises ``TooManyExpansions`` when the glob stands for more than ``MAX_EXPANSIONS`` globs.
    """
    if count(glob) > MAX_EXPANSIONS:
        raise TooManyExpansions(f"its braces stand for more than {MAX_EXPANSIONS} globs")
    return _expand(glob)


def _expand(glob: str) -> list[str]:
    depth = 0
    start = -1
    for index, char in enumerate(glob):
        if char == "{":
            if depth == 0:
                start = index
            depth += 1
        elif char == "}" and depth:
            depth -= 1
            if depth == 0:
                options = _split_top(glob[start + 1 : index])
                if len(options) < 2:
                    return [glob]
                head, tail = glob[:start], glob[index + 1 :]
                return [
                    expanded for option in options for expanded in _expand(head + option + tail)
                ]
    return [glob]


def _split_top(text: str) -> list[str]:
    parts, depth, current = [], 0, ""
    for char in text:
        if char == "," and depth == 0:
            parts.append(current)
            current = ""
            continue
        depth += {"{": 1, "}": -1}.get(char, 0)
        current += char
    parts.append(current)
    return parts
