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
    kind: str  # "object" | "array" | "string" | "other"
    value: Any = None  # the parsed value (json.loads of the span)
    members: list[tuple[str, int, Node]] = field(
        default_factory=list
    )  # object: (key, key start, value)
    items: list[Node] = field(default_factory=list)  # array elements

    def get(self, key: str) -> Node | None:
        for name, _, node in self.members:
            if name == key:
                return node
        return None


_WHITESPACE = " \t\r\n"


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
        char = self.text[start : start + 1]
        if char == "{":
            return self.container(start, depth, "object", "}")
        if char == "[":
            return self.container(start, depth, "array", "]")
        if char == '"':
            end = self.string_end(start)
            self.pos = end
            return Node(start, end, "string", json.loads(self.text[start:end]))
        end = start
        while end < len(self.text) and self.text[end] not in _WHITESPACE + ",]}":
            end += 1
        self.pos = end
        return Node(start, end, "other", json.loads(self.text[start:end]))

    def string_end(self, start: int) -> int:
        text, pos = self.text, start + 1
        while pos < len(text):
            char = text[pos]
            if char == "\\":
                pos += 2
                continue
            if char == '"':
                return pos + 1
            pos += 1
        raise EditError("unterminated string")

    def container(self, start: int, depth: int, kind: str, close: str) -> Node:
        node = Node(start, start, kind)
        self.pos = start + 1
        self.skip()
        char = self.text[self.pos : self.pos + 1]
        if char == close:  # empty
            self.pos += 1
        while char != close:
            self.skip()
            if kind == "object":
                key_start = self.pos
                key_end = self.string_end(key_start)
                key = json.loads(self.text[key_start:key_end])
                self.pos = key_end
                self.skip()
                self.pos += 1  # ":"
                node.members.append((key, key_start, self.value(depth + 1)))
            else:
                node.items.append(self.value(depth + 1))
            self.skip()
            char = self.text[self.pos : self.pos + 1]  # "," or the closing bracket
            self.pos += 1
        node.end = self.pos
        node.value = (
            {key: child.value for key, _, child in node.members}
            if kind == "object"
            else [child.value for child in node.items]
        )
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
    begin = text.rfind("\n", 0, offset) + 1
    end = begin
    while end < len(text) and text[end] in " \t":
        end += 1
    return text[begin:end]


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
    ascii_only = "\\u" in text and not any(ord(char) > 127 for char in text)
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
    children = children_of(container)
    if children:
        at = children[-1].end
        return text[:at] + "," + separator + body + text[at:]
    # an empty container keeps the whitespace it had inside: `{\n}` becomes `{\n  body\n}`, `{}`
    # becomes `{body}`
    at = container.start + 1
    return text[:at] + (separator if "\n" in separator else "") + body + text[at:]


def children_of(container: Node) -> list[Node]:
    return (
        [node for _, _, node in container.members]
        if container.kind == "object"
        else container.items
    )


def deletions(container: Node, removed: set[int]) -> list[tuple[int, int]]:
    """The text spans that take the elements ``removed`` (indices) out of ``container``, each with
    its separator (all of them: everything inside the brackets but the whitespace before the closing
    one).
    """
    children = children_of(container)
    if children and len(removed) >= len(
        children
    ):  # all of them: the container is left as `append` found it
        return [(container.start + 1, children[-1].end)]
    starts = (  # where each element starts: a member at its key
        [key_start for _, key_start, _ in container.members]
        if container.kind == "object"
        else [child.start for child in children]
    )
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
