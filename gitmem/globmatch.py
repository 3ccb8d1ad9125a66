"""Glob matching in linear time, for globs read from files (a memory's ``paths``, ``scan.exclude``).

A glob turned into a regular expression backtracks: ``*a*a*a*a*a*b`` (``[^/]*a`` five times) took 85
s to fail on a 200-character file name, and ``**/`` written ten times 18 s on a 25-level path. Here
the glob is a list of tokens run as a set of states over the path (a Thompson simulation): time
proportional to the path's length times the glob's, whatever both hold.

Syntax: ``*`` any characters within one path segment, ``**`` any characters across segments, ``**/``
zero or more whole directories, ``?`` one character other than ``/``, ``[abc]``/``[!abc]``/``[a-z]``
one character of a class; anything else is itself.
"""

# (no postponed annotations: NamedTuple compiles each string annotation at import, on the hook path)

import re
from functools import cache
from typing import NamedTuple

# token kinds
_LITERAL, _ONE, _CLASS, _STAR, _ANY, _DIRS = range(6)


class Glob(NamedTuple):  # (not a dataclass: see gitmem/errors.py's Problem)
    tokens: tuple[tuple[int, str], ...]
    classes: tuple[re.Pattern[str] | None, ...]


@cache
def parse(glob: str, classes: bool = True, anywhere: bool = False) -> Glob:
    """``glob`` as tokens; ``classes=False`` reads ``[`` as itself; ``anywhere``: ``*`` crosses
    ``/`` too (a shell command, not a path: ``npm install*`` matches ``npm install ./web/pkg``)."""
    tokens: list[tuple[int, str]] = []
    patterns: list[re.Pattern[str] | None] = []
    marks = _ANYWHERE if anywhere else _MARKS
    index = 0
    while index < len(glob):
        end = glob.find("]", index + 2) if classes and glob[index] == "[" else -1
        if end >= 0:
            tokens.append((_CLASS, ""))
            patterns.append(_class(glob[index + 1 : end]))
            index = end + 1
            continue
        mark = next((m for m in marks if glob.startswith(m[0], index)), None)
        token = (mark[1], "") if mark else (_LITERAL, glob[index])
        index += len(mark[0]) if mark else 1
        if token[0] in (_STAR, _ANY) and tokens and tokens[-1] == token:
            continue  # "***" is "**": repeats add nothing but states
        tokens.append(token)
        patterns.append(None)
    return Glob(tuple(tokens), tuple(patterns))


def _class(body: str) -> re.Pattern[str] | None:
    """A ``[...]`` class's body (``!`` or ``^`` first: negated) as a pattern; None if it is none."""
    negate = body.startswith(("!", "^"))
    body = body[1:] if negate else body
    try:
        return re.compile(f"[{'^' if negate else ''}{body.replace(chr(92), chr(92) * 2)}]")
    except re.error:
        return None


# The marks a glob is made of besides literal characters and classes, longest first.
_MARKS = (("**/", _DIRS), ("**", _ANY), ("*", _STAR), ("?", _ONE))
_ANYWHERE = (("*", _ANY), ("?", _ONE))  # a command's glob: every star crosses "/"


_DONE = -1  # matched everything, and the rest of the path is under it (or a prefix match)


def match(glob: Glob, path: str, *, under: bool = True, prefix: bool = False) -> bool:
    """Whether ``glob`` matches the whole of ``path``; ``under``: or a directory ``path`` is under
    (``glob/...``); ``prefix``: or any start of ``path`` (as ``re.match`` does)."""
    # A state is a token index; a "_DIRS" token has a second state, inside a directory name (index +
    # end + 1).
    # Each character moves every state once, so the time is linear in the path (times the glob's
    # size).
    tokens = glob.tokens
    end = len(tokens)
    states = _closure(tokens, {0})
    for char in path:
        if _DONE in states:
            return True
        if not states:
            return False
        following: set[int] = set()
        for state in states:
            if state == end:
                if (under and char == "/") or prefix:
                    following.add(_DONE)
            else:
                _step(glob, state, char, following)
        states = _closure(tokens, following)
    return _DONE in states or end in states


def _closure(tokens: tuple[tuple[int, str], ...], states: set[int]) -> set[int]:
    """``states`` and every state reached from them through tokens that may match zero
    characters."""
    end = len(tokens)
    out: set[int] = set()
    stack = list(states)
    while stack:
        state = stack.pop()
        if state in out:
            continue
        out.add(state)
        if state < end and tokens[state][0] in (_STAR, _ANY, _DIRS):
            stack.append(state + 1)  # zero characters
    return out


def _step(glob: Glob, state: int, char: str, following: set[int]) -> None:
    """Add to ``following`` the states that ``state`` (not the end) moves to on ``char``."""
    end = len(glob.tokens)
    inside = end + 1
    if state > end:  # inside a "**/" directory name
        following.add(state)
        if char == "/":
            following.add(state - inside + 1)
        return
    kind, text = glob.tokens[state]
    if kind == _LITERAL:
        if char == text:
            following.add(state + 1)
    elif kind == _ONE:
        if char != "/":
            following.add(state + 1)
    elif kind == _CLASS:
        pattern = glob.classes[state]
        if pattern is not None and char != "/" and pattern.fullmatch(char):
            following.add(state + 1)
    elif kind == _STAR:
        if char != "/":
            following.add(state)
    elif kind == _ANY:
        following.add(state)
    else:  # _DIRS: one or more characters ending in "/"
        if char == "/":
            following.add(state + 1)
        following.add(state + inside)
