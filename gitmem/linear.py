"""The linear-time pattern engine: every regular expression gitmem runs on untrusted text
(repository files, packs, transcripts, journals, MCP requests) is compiled here, on RE2
(google-re2), whose matching time is linear in the input whatever the pattern: no backtracking, so
no input can make a pattern take quadratic or exponential time.

``linear(pattern)`` is used like ``re.compile(pattern)`` (compiled on first use, so importing a
module costs nothing). RE2 has no look-arounds or back-references: a pattern that needs them stays
on ``re`` only once tests/test_patterns.py has proven it safe with a ReDoS checker (recheck), and
that test fails on any pattern of the package that is neither compiled here nor proven.

Python's ``\\w``, ``\\d`` and ``\\s`` match any Unicode letter, digit or space, RE2's only ASCII
ones: they are rewritten to Unicode classes before compiling, so a pattern means here what it means
on ``re``. ``\\b`` stays RE2's (ASCII word boundaries). See docs/security.md.
"""

from __future__ import annotations

import re
from typing import Any, cast

# Python's classes as RE2 class contents (no brackets): \s as str.isspace() counts, \w as
# str.isalnum() or "_".
_SPACE = r"\t\n\v\f\r \x1c-\x1f\x85\p{Z}"
_WORD = r"\pL\pN_"
_DIGIT = r"\p{Nd}"
_INSIDE = {"s": _SPACE, "w": _WORD, "d": _DIGIT, "Z": r"\z"}
_OUTSIDE = {
    "s": f"[{_SPACE}]", "S": f"[^{_SPACE}]", "w": f"[{_WORD}]", "W": f"[^{_WORD}]",
    "d": _DIGIT, "D": r"\P{Nd}",
    "Z": r"\z",
}  # fmt: skip
_FLAGS = ((re.IGNORECASE, "i"), (re.MULTILINE, "m"), (re.DOTALL, "s"))


def translate(pattern: str, flags: int = 0) -> str:
    """``pattern`` in RE2's syntax with Python's meaning: Unicode classes, flags written inline."""
    out: list[str] = []
    inside = False
    for token in re.findall(_TOKENS, pattern, re.DOTALL):
        if token[0] == "\\":  # an escape (a lone backslash at the end: .get("") keeps it)
            token = (_INSIDE if inside else _OUTSIDE).get(token[1:], token)
        elif token[0] == "[":  # opens a class; inside one it is itself ("[^]" ends it)
            inside = not (inside and token.endswith("]"))
        elif token == "]":
            inside = False
        out.append(token)
    inline = "".join(letter for flag, letter in _FLAGS if flags & flag)
    return (f"(?{inline})" if inline else "") + "".join(out)


# An escape, a class's opening (``[^]...]`` and ``[]...]``: a leading "]" is a member, not the end),
# or one character.
_TOKENS = r"\\.|\[\^?\]?|."


class _Linear:
    def __init__(self, pattern: str, flags: int) -> None:
        self.pattern = pattern
        self.flags = flags

    def __getattr__(self, name: str) -> Any:
        if name.startswith("__"):
            raise AttributeError(name)
        import re2  # on a pattern's first use: not on the hooks' start-up

        value = getattr(re2.compile(translate(self.pattern, self.flags)), name)
        self.__dict__[name] = value
        return value


_CACHE: dict[tuple[str, int], re.Pattern[str]] = {}


def linear(pattern: str, flags: int = 0) -> re.Pattern[str]:
    """``pattern`` (Python's syntax and meaning) on the linear-time engine, compiled on first
    use (and once)."""
    key = (pattern, flags)
    found = _CACHE.get(key)
    if found is None:
        found = _CACHE[key] = cast("re.Pattern[str]", _Linear(pattern, flags))
    return found
