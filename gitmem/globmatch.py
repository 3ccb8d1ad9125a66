"""Glob matching in linear time, for globs read from files (a memory's ``paths``, ``scan.exclude``).

A glob turned into a regular expression backtracks: ``*a*a*a*a*a*b`` (``[^/]*a`` five times) took 85
s to fail on a 200-character file name, and ``**/`` written ten times 18 s on a 25-level path. Here
the glob is a table of states (each mark's from ``_MARKS``), run as a set over the path (a Thompson
simulation): time proportional to the path's length times the glob's, whatever both hold.

Syntax: ``*`` any characters within one path segment, ``**`` any characters across segments, ``**/``
zero or more whole directories, ``?`` one character other than ``/``, ``[abc]``/``[!abc]``/``[a-z]``
one character of a class; anything else is itself.
"""

from __future__ import annotations

import re
from collections.abc import Container
from functools import cache

from gitmem.records import Record

_NONE: frozenset[str] = frozenset()
_SLASH = frozenset("/")


class State(Record):  # (not a dataclass: see gitmem/errors.py's Problem)
    """One state of a glob: on a character in ``advance`` (``among``; else not in it), on to the
    next state; on one in ``stay`` (``stays``; else not in it), here again; and, reading nothing, on
    to each state ``skips`` ahead."""

    advance: Container[str] = _NONE
    among: bool = True
    stay: Container[str] = _NONE
    stays: bool = True
    skips: tuple[int, ...] = ()


class Glob(Record):
    states: tuple[State, ...]


# The marks a glob is made of besides literal characters and classes, longest first, each with its
# states: "**/" zero or more whole directories (nothing, or any characters up to a "/"), "**" any
# characters, "*" any within a segment, "?" one character other than "/".
_MARKS = (
    ("**/", (State(skips=(1, 2)), State(_SLASH, True, _NONE, False))),
    ("**", (State(stay=_NONE, stays=False, skips=(1,)),)),
    ("*", (State(stay=_SLASH, stays=False, skips=(1,)),)),
    ("?", (State(_SLASH, False),)),
)
_ANYWHERE = (_MARKS[1], ("*", _MARKS[1][1]), _MARKS[3])  # a command's glob: every star crosses "/"


@cache
def parse(glob: str, classes: bool = True, anywhere: bool = False) -> Glob:
    """``glob`` as states; ``classes=False`` reads ``[`` as itself; ``anywhere``: ``*`` crosses
    ``/`` too (a shell command, not a path: ``npm install*`` matches ``npm install ./web/pkg``)."""
    states: list[State] = []
    marks = _ANYWHERE if anywhere else _MARKS
    index = 0
    while index < len(glob):
        end = glob.find("]", index + 2) if classes and glob[index] == "[" else -1
        literal = (glob[index], (State(frozenset(glob[index])),))  # a character that is itself
        mark, mark_states = next((m for m in marks if glob.startswith(m[0], index)), literal)
        if end >= 0:
            states.append(State(_Class(glob[index + 1 : end])))
            index = end + 1
        else:
            states.extend(mark_states)
            index += len(mark)
    return Glob(tuple(states))


class _Class:
    """A ``[...]`` class (``!`` or ``^`` first: negated) as the characters it takes: none other
    than "/", none at all when its body is no class."""

    def __init__(self, body: str) -> None:
        negate = body.startswith(("!", "^"))
        body = body[1:] if negate else body
        try:
            self.pattern: re.Pattern[str] | None = re.compile(
                f"[{'^' if negate else ''}{body.replace(chr(92), chr(92) * 2)}]"
            )
        except re.error:
            self.pattern = None

    def __contains__(self, char: object) -> bool:
        return char != "/" and self.pattern is not None and bool(self.pattern.fullmatch(str(char)))


def match(glob: Glob, path: str, *, under: bool = True, prefix: bool = False) -> bool:
    """Whether ``glob`` matches the whole of ``path``; ``under``: or a directory ``path`` is under
    (``glob/...``); ``prefix``: or any start of ``path`` (as ``re.match`` does)."""
    # A state is an index in ``states``: past the glob's, the end (which, on a "/" with ``under``,
    # or any character with ``prefix``, moves to done: the rest of the path is under the match).
    # Each character moves every state once, so the time is linear in the path (times the glob's
    # size).
    finish = State(_NONE, False) if prefix else State(_SLASH) if under else State()
    states = (*glob.states, finish, State())
    done = len(states) - 1
    now = _closure(states, {0})
    for char in path:
        if done in now or not now:
            return done in now
        following: set[int] = set()
        for index in now:
            advance, among, stay, stays, _ = states[index]
            if (char in advance) is among:
                following.add(index + 1)
            if (char in stay) is stays:
                following.add(index)
        now = _closure(states, following)
    return done in now or done - 1 in now


def _closure(states: tuple[State, ...], now: set[int]) -> set[int]:
    """``now`` and every state reached from them reading nothing."""
    out: set[int] = set()
    stack = list(now)
    while stack:
        index = stack.pop()
        if index not in out:
            out.add(index)
            for skip in states[index].skips:
                stack.append(index + skip)
    return out
