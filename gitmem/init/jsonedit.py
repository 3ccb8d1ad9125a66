"""Edit a JSON settings file in place: insert values into, and delete them from, its text, so every
byte gitmem did not add stays as the user wrote it (one line or many, tabs, ``\\u00e9`` escapes, key
order, spacing).

``parse`` gives the spans of every value, object member and array element (linear in the text, no
regex). An insertion goes after the container's last element, as ``,`` + the container's own spacing
+ the value; deleting an element takes it with the separator before it (the one after it, when it is
the first). So a removal undoes an insertion byte for byte. ``json.loads`` checks the text first: a
file it rejects is never edited.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from itertools import groupby
from typing import Any

MAX_DEPTH = 200  # settings files are shallow; deeper input is refused rather than recursed into


class EditError(ValueError):
    """The text cannot be edited as JSON (the message says where)."""


@dataclass
class Node:
    """A JSON value in the text: ``start``/``end`` offsets (end exclusive)."""

    start: int
    end: int
    kind: str  # "object" | "array" | "other" (a string, number, true, false or null)
    value: Any = None  # the parsed value (json.loads of the span)
    children: list[Node] = field(default_factory=list)  # the elements: members' values, items
    starts: list[int] = field(
        default_factory=list
    )  # where each element starts: a member at its key
    keys: list[str] = field(default_factory=list)  # object: each member's key

    def get(self, key: str) -> Node | None:
        return self.children[self.keys.index(key)] if key in self.keys else None


_WHITESPACE = " \t\r\n"
_CONTAINERS = {"{": ("object", "}"), "[": ("array", "]")}  # an opening bracket: kind, closing one
_DECODE = json.JSONDecoder().raw_decode  # one value at an offset: (value, where it ends)


class _Parser:
    def __init__(self, text: str) -> None:
        self.text = text
        self.pos = 0

    def skip(self) -> None:
        text, pos = self.text, self.pos
        while pos < len(text) and text[pos] in _WHITESPACE:
            pos += 1
        self.pos = pos

    def value(self, depth: int) -> Node:
        if depth > MAX_DEPTH:
            raise EditError(f"nested deeper than {MAX_DEPTH} levels")
        self.skip()
        start = self.pos
        container = _CONTAINERS.get(self.text[start : start + 1])
        if container is not None:
            return self.container(start, depth, *container)
        value, self.pos = _DECODE(self.text, start)  # a scalar: json.loads has read it already
        return Node(start, self.pos, "other", value)

    def container(self, start: int, depth: int, kind: str, close: str) -> Node:
        node = Node(start, start, kind)
        self.pos = start + 1
        self.skip()
        char = self.text[self.pos : self.pos + 1]
        if char == close:  # empty
            self.pos += 1
        while char != close:
            self.skip()
            node.starts.append(self.pos)
            if kind == "object":
                key, self.pos = _DECODE(self.text, self.pos)
                node.keys.append(key)
                self.skip()
                self.pos += 1  # ":"
            node.children.append(self.value(depth + 1))
            self.skip()
            char = self.text[self.pos : self.pos + 1]  # "," or the closing bracket
            self.pos += 1
        node.end = self.pos
        values = [child.value for child in node.children]
        node.value = dict(zip(node.keys, values, strict=True)) if kind == "object" else values
        return node


def parse(text: str) -> Node:
    """The spans of ``text``'s JSON value; ``EditError`` when ``json.loads`` rejects it."""
    try:
        json.loads(text)
    except (json.JSONDecodeError, RecursionError) as exc:
        raise EditError(str(exc)) from None
    return _Parser(text).value(0)


# -- layout ----------------------------------------------------------------------------------------


def _line_indent(text: str, offset: int) -> str:
    """The whitespace that starts the line holding ``offset``."""
    line = text[text.rfind("\n", 0, offset) + 1 :].partition("\n")[0]
    return line[: len(line) - len(line.lstrip(" \t"))]


def indent_unit(text: str) -> str:
    """The file's indentation step (two spaces, four, a tab), or "" for a file on one line."""
    if "\n" not in text.strip():
        return ""
    for line in text.splitlines():
        stripped = line.lstrip(" \t")
        if stripped and len(stripped) < len(line):
            return line[: len(line) - len(stripped)]
    return "  "


def render(value: Any, text: str, container: Node) -> tuple[str, str]:
    """``value`` laid out like the file, and the separator text that goes before it inside
    ``container``."""
    newline = "\r\n" if "\r\n" in text else "\n"
    unit = indent_unit(text)
    ascii_only = "\\u" in text and text.isascii()
    if not unit:
        tight = '": ' not in text and ", " not in text  # {"a":1,"b":2}: written without spaces
        separators = (",", ":") if tight else (", ", ": ")
        return json.dumps(
            value, ensure_ascii=ascii_only, separators=separators
        ), "" if tight else " "
    inner = _line_indent(text, container.start) + unit
    dumped = json.dumps(
        value, indent=unit if unit.strip(" ") == "" else "\t", ensure_ascii=ascii_only
    )
    body = dumped.replace("\n", newline + inner)
    return body, newline + inner


# -- edits -----------------------------------------------------------------------------------------


def append(text: str, container: Node, value: Any, key: str | None = None) -> str:
    """``text`` with ``value`` added after the last element of ``container`` (a member ``key``
    for an object)."""
    body, separator = render(value, text, container)
    if key is not None:
        colon = ":" if separator == "" else ": "
        body = json.dumps(key, ensure_ascii=False) + colon + body
    if container.children:
        at = container.children[-1].end
        return text[:at] + "," + separator + body + text[at:]
    # an empty container keeps the whitespace it had inside: `{\n}` becomes `{\n  body\n}`, `{}`
    # becomes `{body}`
    at = container.start + 1
    return text[:at] + (separator if "\n" in separator else "") + body + text[at:]


def deletions(container: Node, removed: set[int]) -> list[tuple[int, int]]:
    """The text spans that take the elements ``removed`` (indices) out of ``container``, each with
    its separator (all of them: everything inside the brackets but the whitespace before the closing
    one).
    """
    children, starts = container.children, container.starts
    if children and len(removed) >= len(children):  # all: left as `append` found the container
        return [(container.start + 1, children[-1].end)]
    runs = [list(run) for gone, run in groupby(range(len(children)), removed.__contains__) if gone]
    return [
        (children[run[0] - 1].end, children[run[-1]].end)  # with the separator before it
        if run[0] > 0
        else (starts[0], starts[run[-1] + 1])  # the first ones: with the separator after them
        for run in runs
    ]


def cut(text: str, spans: list[tuple[int, int]]) -> str:
    """``text`` without the (disjoint) ``spans``."""
    for start, end in sorted(spans, reverse=True):
        text = text[:start] + text[end:]
    return text
