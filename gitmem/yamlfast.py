"""A fast reader for the simple YAML gitmem itself writes, so a cold read of thousands of memory
files (a fresh clone, CI) does not pay ruamel.yaml's full parser for each one.

It reads a strict subset, line by line: comment lines; top-level ``key: value`` where the value is a
plain scalar that can only be text (or a decimal integer, ``true``/``false``), a single-quoted
one-line scalar, a double-quoted one without escapes, a flow list of such scalars, a literal block
(``|`` or ``|-``, indented two spaces), or a block list of small mappings (``evidence``, as gitmem
writes it). Anything else, or anything it is not sure of, returns ``None`` and the caller reads the
text with ruamel.yaml (``yamlio.load``), which gives every error message. The result, data and key
positions alike, is identical to ruamel's for every text it accepts (a hypothesis test holds it to
that). Linear time; no regular expression backtracks on a line.
"""

from __future__ import annotations

import re
from typing import Any

Marks = dict[tuple[str | int, ...], tuple[int, int]]

_KEY = re.compile(r"([A-Za-z_][A-Za-z0-9_]*):(?: (.*))?")
_ITEM_KEY = re.compile(r"  - ([A-Za-z_][A-Za-z0-9_]*): (.*)")
_MORE_KEY = re.compile(r"    ([A-Za-z_][A-Za-z0-9_]*): (.*)")
# A plain scalar that YAML (1.2, as ruamel reads it) can only take as text: it starts with a letter,
# "_", "/" or "(" (no indicator, no number, no sign), and holds no ": ", " #" or tab. In a flow
# list, no flow characters either.
_SAFE_PLAIN = re.compile(r"[A-Za-z_/(](?:[^:#\t]|:(?! |$)|(?<! )#)*(?<! )")
_FLOW_ITEM = re.compile(r"""'(?:[^',]|'')*'|"[^",\\]*"|[A-Za-z_/(][^:#\t\[\]{},]*""")
_INT = re.compile(r"0|[1-9][0-9]{0,17}")
_TEXT_NUMBER = re.compile(r"[0-9]{4}-[0-9]{2}-[0-9]{2}|[0-9]{1,9}-[0-9]{1,9}")  # a date, a range
_QUOTED = {"'": re.compile(r"'((?:[^']|'')*)'"), '"': re.compile(r'"([^"\\]*)"')}  # no escapes
_BLANK = re.compile("^ +$", re.MULTILINE)
_BOOLS = {"true": True, "false": False}
_RESERVED = frozenset(
    {
        "true",
        "false",
        "null",
        "yes",
        "no",
        "on",
        "off",
        "y",
        "n",
        "~",
        ".nan",
        ".inf",
        "-.inf",
        "+.inf",
    }
)


class _Unsure(Exception):
    """The text is outside the subset: let ruamel.yaml read it."""


def _plain(text: str) -> Any:
    """A plain (unquoted) scalar's value, or ``_Unsure``."""
    if text in _BOOLS:
        return _BOOLS[text]
    if _INT.fullmatch(text):
        return int(text)
    if _TEXT_NUMBER.fullmatch(text):  # dates kept as text (yamlio's constructor); "3-9" is text
        return text
    if text.lower() in _RESERVED or not _SAFE_PLAIN.fullmatch(text) or not text.isprintable():
        raise _Unsure
    return text


def _scalar(text: str) -> Any:
    """A one-line scalar value: plain, single-quoted or double-quoted without escapes."""
    quoted = _QUOTED.get(text[:1])
    if quoted is None:
        return _plain(text)  # (an empty value is null, or a nested block: not in the subset)
    found = quoted.fullmatch(text)
    if found is None:
        raise _Unsure
    return found.group(1).replace(text[0] * 2, text[0])  # '' is a quote in single quotes


def _flow_list(
    text: str, line: int, column: int, where: tuple[str | int, ...], marks: Marks
) -> list[Any]:
    """``[a, "b c", d]`` (one line, no nesting); ``column`` is where ``[`` is (1-based)."""
    if not text.endswith("]"):
        raise _Unsure
    items = []
    offset = column + 1  # the column of the first character after "["
    for index, part in enumerate(text[1:-1].split(", ") if text != "[]" else ()):
        value = _scalar(part) if _FLOW_ITEM.fullmatch(part) else None
        if not isinstance(value, str):
            raise _Unsure
        marks[(*where, index)] = (line, offset)
        items.append(value)
        offset += len(part) + 2
    return items


def load(text: str) -> tuple[dict[str, Any], Marks] | None:
    """``text`` read as the YAML subset gitmem writes: (data, marks), or ``None`` when
    ruamel.yaml must read it."""
    try:
        return _load(text)
    except _Unsure:
        return None


def _load(text: str) -> tuple[dict[str, Any], Marks]:
    if any(map(text.__contains__, "\r\t\ufeff")) or not text.endswith("\n"):
        raise _Unsure
    lines = text.split("\n")[:-1]
    data: dict[str, Any] = {}
    marks: Marks = {}
    index = 0
    count = len(lines)
    while index < count:
        line = lines[index]
        index += 1  # the line's number, and the index of the line after it
        if not line or line.startswith("# "):  # an empty line, or a comment
            continue
        match = _KEY.fullmatch(line)
        if match is None:
            raise _Unsure
        key, value = match.group(1), match.group(2)
        if key in data or key.lower() in _RESERVED:
            raise _Unsure  # duplicate keys (ruamel says so), or a key that is not text
        marks[(key,)] = (index, 1)
        data[key], index = _value(lines, index, key, value, marks)
    if not data:
        raise _Unsure
    return data, marks


def _value(
    lines: list[str], index: int, key: str, value: str | None, marks: Marks
) -> tuple[Any, int]:
    """The value of ``key`` (on the line before ``index``) and the index of the line after it."""
    if value is None:
        if index < len(lines) and lines[index].startswith("  - "):
            return _block_list(lines, index, key, marks)
        raise _Unsure
    if value in ("|", "|-"):
        return _literal(lines, index, keep_newline=value == "|")
    if value.startswith("["):
        return _flow_list(value, index, len(key) + 3, (key,), marks), index
    return _scalar(value), index


def _literal(lines: list[str], index: int, keep_newline: bool) -> tuple[str, int]:
    """A literal block (``|`` or ``|-``) from ``index``, indented two spaces; and the index
    after it."""
    end = index
    while end < len(lines) and (lines[end].startswith("  ") or not lines[end]):
        end += 1
    body = "\n".join(line[2:] for line in lines[index:end]).rstrip("\n")
    if not body[:1].strip() or _BLANK.search(body) or not body.replace("\n", "").isprintable():
        raise _Unsure  # (empty, indented more, a line of spaces, a control character)
    return body + ("\n" if keep_newline else ""), end


def _block_list(lines: list[str], index: int, key: str, marks: Marks) -> tuple[list[Any], int]:
    """A block list of one-line mappings, as gitmem writes ``evidence``: ``  - path: x`` then ``
    lines: 3-9``."""
    items: list[Any] = []
    count = len(lines)
    while index < count and lines[index].startswith("  - "):
        first = _ITEM_KEY.fullmatch(lines[index])
        if first is None:
            raise _Unsure
        position = len(items)
        item: dict[str, Any] = {}
        marks[(key, position)] = (index + 1, 5)
        marks[(key, position, first.group(1))] = (index + 1, 5)
        item[first.group(1)] = _item_value(first.group(2))
        index += 1
        while index < count and lines[index].startswith("    "):
            more = _MORE_KEY.fullmatch(lines[index])
            if more is None or more.group(1) in item:
                raise _Unsure
            marks[(key, position, more.group(1))] = (index + 1, 5)
            item[more.group(1)] = _item_value(more.group(2))
            index += 1
        items.append(item)
    return items, index


def _item_value(text: str) -> Any:
    if text.startswith(("[", "|", ">")):
        raise _Unsure
    return _scalar(text)
