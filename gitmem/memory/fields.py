"""What a JSON Schema cannot say about the text of a memory's (or the config's) fields.

Line breaks: Markdown, editors and ``str.splitlines`` break lines at more characters than ``\\n``: a
carriage return, VT, FF, FS/GS/RS, NEL, U+2028 and U+2029. A memory holding one could put text (a
``## SYSTEM:`` heading, a ``<!-- gitmem:end -->`` marker) at the start of a line of a compiled rules
file that gitmem never meant to write there. So a field holds no line separator other than ``\\n``
(and the schema keeps ``\\n`` out of the one-line fields). Text people type is normalised before it
is checked (``normalise_newlines``: CRLF and CR become LF), so only a file or a proposal that
smuggles one in is refused.

Globs: the braces of a ``paths`` glob may stand for at most ``braces.MAX_EXPANSIONS`` globs.

Messages name the field and the character, never the value (it may be a secret).
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from functools import cache
from typing import Any

# Every character str.splitlines() breaks at, except "\n" (and "\r\n", handled as "\r").
OTHER_LINE_BREAKS = "\r\x0b\x0c\x1c\x1d\x1e\x85\u2028\u2029"


@cache
def _other_break() -> re.Pattern[str]:
    """Any line break but ``\\n``, compiled on first use: the prompt hook imports this module."""
    return re.compile(f"[{re.escape(OTHER_LINE_BREAKS)}]")


Where = tuple[str | int, ...]


# What could close (or open) the container a memory is shown in: the <gitmem> element the opencode
# plugin wraps the prompt hook's memories in (init/agent_hooks.py), and the managed-block markers
# of a compiled rules file.
_CONTAINERS = ("gitmem", "/gitmem", "!-- gitmem:")


def inert(text: str) -> str:
    """``text`` (a memory's title or body, as a client will read it) with every ``<`` that would
    start a container's tag or marker written ``&lt;``: a memory holding ``</gitmem>`` or ``<!--
    gitmem:end -->`` cannot end the block it is shown in. Any case; linear in the length of
    ``text``.
    """
    lower = text.lower()
    at = lower.find("<")
    if at < 0:
        return text
    parts: list[str] = []
    start = 0
    while at >= 0:
        if lower.startswith(_CONTAINERS, at + 1):
            parts.append(text[start:at])
            parts.append("&lt;")
            start = at + 1
        at = lower.find("<", at + 1)
    parts.append(text[start:])
    return "".join(parts)


def shown_line(text: str) -> str:
    """A one-line field of a memory (its title, a path glob, an origin) as a client or the model
    reads it, in a compiled file, an injected entry, a recall answer or an MCP reply: on one line,
    trimmed, and ``inert``. With ``shown_text``, the one way memory text reaches a client
    (``tests/test_render_path.py`` finds every writer).
    """
    return inert(one_line(text).strip())


def shown_text(text: str) -> str:
    """A memory's body as a client or the model reads it: ``inert`` (the caller splits and
    indents its lines)."""
    return inert(text)


def normalise_newlines(text: str) -> str:
    """``text`` with CRLF and bare CR as LF: what people type or paste on any system."""
    return text.replace("\r\n", "\n").replace("\r", "\n")


# Visible ASCII but the backslash, and the newline: a text of only these reads as YAML strings of
# only these (see ``plain``).
_PLAIN = bytes([*range(0x20, 0x7F), 0x0A]).replace(b"\\", b"")


def plain(text: str) -> bool:
    """Whether every string YAML reads from ``text`` is visible ASCII, with no line break but
    ``\\n``: ``text`` itself is, and has no backslash (an escape is the only way a YAML string
    holds a character its text does not; folding adds only spaces and newlines). Then no field
    holds a stray line break (``line_break_problems``) or an escaped hidden character, and the
    fields need not be walked for them: most memory files."""
    return text.isascii() and not text.encode("ascii").translate(None, _PLAIN)


def line_break_problems(data: Any) -> list[tuple[Where, int, str]]:
    """(field path, code point, message) for every string in ``data`` holding a line break other
    than ``\\n``.

    (Where ``\\n`` itself is allowed is the schema's say: the patterns of the one-line fields
    exclude it.)"""
    problems = []
    for where, value in strings(data, ()):
        other = _other_break().search(value)
        if other:
            char = other.group(0)
            import unicodedata  # only to name a refused character: not on the prompt hook's path

            name = unicodedata.name(char, "") or _CONTROL_NAMES.get(char, "CONTROL")
            message = (
                f"holds a line break other than a newline (U+{ord(char):04X} {name}); use "
                "plain newlines"
            )
            problems.append((where, ord(char), message))
    return problems


_CONTROL_NAMES = {
    "\r": "CARRIAGE RETURN",
    "\x0b": "LINE TABULATION",
    "\x0c": "FORM FEED",
    "\x1c": "FILE SEPARATOR",
    "\x1d": "GROUP SEPARATOR",
    "\x1e": "RECORD SEPARATOR",
    "\x85": "NEXT LINE",
}


def glob_problems(data: Any) -> list[tuple[Where, str]]:
    """(field path, message) for every ``paths`` glob whose braces stand for too many globs."""
    # lazy: the hooks' start-up
    from gitmem.memory.braces import MAX_EXPANSIONS, count

    match data:
        case {"paths": list(paths)}:
            return [
                (("paths", index), f"its braces stand for more than {MAX_EXPANSIONS} globs")
                for index, glob in enumerate(paths)
                if isinstance(glob, str) and "{" in glob and count(glob) > MAX_EXPANSIONS
            ]
    return []


def strings(value: Any, where: Where) -> Iterator[tuple[Where, str]]:
    """Every string in a YAML value (mappings and lists read through), with its field path."""
    if isinstance(value, str):
        yield where, value
    elif isinstance(value, dict):
        for key, sub in value.items():
            yield from strings(sub, (*where, key))
    elif isinstance(value, list):
        for index, sub in enumerate(value):
            yield from strings(sub, (*where, index))


def stray_line_breaks(text: str) -> Iterator[tuple[int, int, int]]:
    """(line, column, code point) of each line break other than ``\\n`` in ``text`` (lines
    counted at ``\\n``)."""
    line, line_start, counted_to = 1, 0, 0
    for match in _other_break().finditer(text):
        index = match.start()
        newlines = text.count("\n", counted_to, index)
        if newlines:
            line += newlines
            line_start = text.rfind("\n", counted_to, index) + 1
        counted_to = index
        yield line, index - line_start + 1, ord(match.group(0))


def split_lines(text: str) -> list[str]:
    """``text`` split at every line break a reader may honour (``str.splitlines``'), so none is
    left inside a line; a line break at the end leaves an empty last line."""
    lines = text.splitlines()
    return [*lines, ""] if text[-1:] in ("", "\n", *OTHER_LINE_BREAKS) else lines


def one_line(text: str) -> str:
    """``text`` with every line break a reader may honour as a space."""
    return " ".join(split_lines(text))
