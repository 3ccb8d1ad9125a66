"""Markdown primitives shared by the readers of session logs (journal) and of hand-written rules
files (import): headings, bullets, fences and HTML comments, as people and agents really write them.

Everything here is plain string methods over one line at a time (no regular expressions), so reading
a file is linear in its length by construction: a 30 KB heading or front-matter line costs what 30
KB of prose does.
:class:`Reader` is the one line reader both parsers build on: it blanks HTML comments, tracks code
fences and tells each line's kind (heading, bullet, table row, ...); the parsers only decide what a
kind means to them.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass

_BLANKS = " \t"


def _spaces(line: str, most: int = 3) -> int | None:
    """How many spaces ``line`` starts with, or ``None`` when more than ``most``."""
    count = len(line) - len(line.lstrip(" "))
    return None if count > most else count


def heading(line: str) -> tuple[int, str] | None:
    """An ATX heading (``## Title ##``): its level and text (``""`` for a bare ``##``), or
    ``None``."""
    start = _spaces(line)
    if start is None:
        return None
    rest = line[start:]
    level = len(rest) - len(rest.lstrip("#"))
    if not 1 <= level <= 6:
        return None
    rest = rest[level:]
    if rest[:1] not in _BLANKS:  # ("" is in any string: a bare "##" goes on, to level and "")
        return None
    text = rest.strip(_BLANKS)
    unclosed = text.rstrip("#")
    if unclosed != text and unclosed[-1:] in (" ", "\t"):  # a closing sequence: " ##" at the end
        text = unclosed.rstrip(_BLANKS)
    return level, text


def underline(line: str) -> int:
    """The level of the setext heading ``line`` underlines (``===``: 1, ``---``: 2), or 0."""
    start = _spaces(line)
    if start is None:
        return 0
    text = line[start:].rstrip(_BLANKS)
    if text[:1] not in ("=", "-") or text.strip(text[0]):
        return 0
    return 1 if text[0] == "=" else 2


def is_break(line: str) -> bool:
    """A thematic break: ``---``, ``* * *``, ``___`` (three or more of one mark, spaces between)."""
    start = _spaces(line)
    if start is None:
        return False
    text = line[start:]
    if text[:1] not in ("-", "*", "_"):
        return False
    return not text.strip(text[0] + _BLANKS) and text.count(text[0]) >= 3


def fence(line: str) -> str | None:
    """The marker (three or more backticks or tildes) of the code fence ``line`` opens, or
    ``None``."""
    text = line.lstrip(_BLANKS)
    if text[:1] not in ("`", "~"):
        return None
    marker = text[: len(text) - len(text.lstrip(text[0]))]
    return marker if len(marker) >= 3 else None


def closes(line: str, marker: str) -> bool:
    """Whether ``line`` closes the code fence opened with ``marker``."""
    stripped = line.strip()
    return stripped.startswith(marker[0] * len(marker)) and not stripped.strip(marker[0])


def strip_checkbox(text: str) -> str:
    """``text`` without a leading task-list checkbox (``[ ]``, ``[x]``)."""
    if text[:3] in _CHECKBOXES:
        return text[3:].lstrip(_BLANKS)
    return text


_CHECKBOXES = frozenset({"[ ]", "[x]", "[X]"})


def unquote(text: str) -> str:
    """``text`` without a leading block-quote mark (``>`` and one white-space character after
    it)."""
    if not text.startswith(">"):
        return text
    return text[2:] if text[1:2].isspace() else text[1:]


@dataclass(frozen=True, slots=True)
class Bullet:
    """A list item's first line: ``lead`` (its white space), ``marker`` (``-``, ``*``, ``+``,
    ``1.``, ``1)``) and its ``text`` (stripped, without a checkbox)."""

    lead: str
    marker: str
    text: str

    @property
    def indent(self) -> int:
        """The column of the marker (tabs count as 4)."""
        return len(self.lead.expandtabs(4))

    @property
    def content(self) -> int:
        """The column the item's text starts at."""
        return self.indent + len(self.marker) + 1

    @property
    def ordered(self) -> bool:
        return self.marker[0].isdecimal()


def bullet(line: str) -> Bullet | None:
    """The list item ``line`` starts, or ``None``."""
    text = line.lstrip(_BLANKS)
    lead = line[: len(line) - len(text)]
    if text[:1] in ("-", "*", "+"):
        marker = text[0]
    else:
        digits = _decimals(text)  # (0 for an empty line)
        if not 1 <= digits <= 9 or text[digits : digits + 1] not in (".", ")"):
            return None
        marker = text[: digits + 1]
    rest = text[len(marker) :]
    if rest[:1] not in _BLANKS:  # ("" is in any string)
        return None
    return Bullet(lead, marker, strip_checkbox(rest.strip()))


def _decimals(text: str) -> int:
    """How many decimal digits (any script) ``text`` starts with, up to 10."""
    count = 0
    while count < len(text) and count < 10 and text[count].isdecimal():
        count += 1
    return count


def imports(line: str) -> list[str] | None:
    """The targets of a Claude/Gemini import line (``@AGENTS.md``, ``- @a.md @b.md``), without the
    ``@``, or ``None`` when ``line`` is not one."""
    text = line.strip(_BLANKS)
    if text[:2] in _LIST_MARKS:
        text = text[1:].lstrip(_BLANKS)
    words = [word for word in text.replace("\t", " ").split(" ") if word]
    if not words or not all(map(_import_word, words)):
        return None
    return [word[1:] for word in words]


_LIST_MARKS = frozenset(mark + blank for mark in "-*+" for blank in _BLANKS)  # "- ", "*\t", ...


def _import_word(word: str) -> bool:
    target = word[1:]
    # split() == [target]: not empty, and no white space in it
    return word[0] == "@" and "@" not in target and target.split() == [target]


def bold_line(line: str) -> str | None:
    """The text of a line that is only bold text (``**Decisions**``, ``__To do__:``), or
    ``None``."""
    start = _spaces(line)
    if start is None:
        return None
    text = line[start:]
    if text[:2] not in ("**", "__"):
        return None
    body = text[2:].rstrip(_BLANKS).removesuffix(":").rstrip(_BLANKS)
    if len(body) < 3 or body[-2:] not in ("**", "__"):
        return None
    return body[:-2]


def label_line(line: str) -> str | None:
    """The label of a line that is only a short label and a colon (``Next steps:``), or ``None``."""
    start = _spaces(line)
    if start is None:
        return None
    text = line[start:].rstrip(_BLANKS)
    label = text[:-1]
    if (
        text.endswith(":")
        and 2 <= len(label) <= 31
        and label[0].isalpha()
        and set(label) <= _LABEL_CHARS
    ):
        return label
    return None


_LABEL_CHARS = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ -")


_KEY_START = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz_")
_KEY_CHARS = _KEY_START | frozenset("0123456789-")


def front_key(line: str) -> tuple[str, str] | None:
    """A frontmatter ``key: value`` line: the key and its value (stripped, ``""`` when none), or
    ``None``."""
    if line[:1] not in _KEY_START:  # (a set of characters: "" is not in it)
        return None
    end = 1
    while end < len(line) and line[end] in _KEY_CHARS:
        end += 1
    rest = line[end:].lstrip(_BLANKS)
    if not rest.startswith(":"):
        return None
    value = rest[1:]
    if value[:1] not in _BLANKS:  # ("" is in any string)
        return None
    return line[:end], value.strip(_BLANKS)


def front_item(line: str) -> str | None:
    """The value of an indented frontmatter list item (``  - value``), stripped, or ``None``."""
    text = line.lstrip(_BLANKS)
    if text == line or not text.startswith("-"):
        return None
    return text[1:].strip(_BLANKS)


def without_comment(value: str) -> str:
    """A YAML plain scalar without its comment (`` # ...``, white space before it included)."""
    mark = value.find("#", 1)
    while mark > 0 and value[mark - 1] not in _BLANKS:
        mark = value.find("#", mark + 1)
    return value if mark < 0 else value[:mark].rstrip(_BLANKS)


def indent(line: str) -> int:
    """The column a line's text starts at (tabs count as 4)."""
    expanded = line.expandtabs(4)
    return len(expanded) - len(expanded.lstrip(" "))


def dedent(line: str, columns: int) -> str:
    """``line`` without up to ``columns`` columns of leading white space."""
    expanded = line.expandtabs(4)
    return expanded[min(columns, indent(line)) :]


CODE, FENCE, BLANK, HEADING, BREAK, BULLET, TABLE, TEXT = (
    "code",
    "fence",
    "blank",
    "heading",
    "break",
    "bullet",
    "table",
    "text",
)


@dataclass(frozen=True, slots=True)
class Line:
    """One line of a Markdown file as :class:`Reader` tells it.

    ``kind`` is one of: ``code`` (inside a code fence, the closing line included: ``closes``),
    ``fence`` (opens one: ``marker``), ``blank``, ``heading`` (ATX with text: ``level``, ``title``),
    ``break``, ``bullet`` (``item``), ``table`` (a row, perhaps block-quoted: ``quoted``; ``starts``
    when the line before is not a row) or ``text``.
    ``underline`` is the level of the setext heading the next line would make of this one (0: none);
    a parser that takes it calls :meth:`Reader.skip` to pass the underline."""

    number: int
    text: str
    kind: str
    level: int = 0
    title: str = ""
    marker: str = ""
    closes: bool = False
    item: Bullet | None = None
    quoted: bool = False
    starts: bool = False
    underline: int = 0

    @property
    def plain(self) -> str:
        """The line stripped, without a block-quote mark."""
        return unquote(self.text.strip())


class Steps:
    """A parser that takes a file's lines one by one, with one step for each kind of line
    (``Line.kind``): ``read`` dispatches, a subclass writes the steps."""

    def read(self, line: Line) -> None:
        _STEPS[line.kind](self, line)

    def code(self, line: Line) -> None:
        raise NotImplementedError

    def fence(self, line: Line) -> None:
        raise NotImplementedError

    def blank(self, line: Line) -> None:
        raise NotImplementedError

    def titled(self, line: Line) -> None:
        raise NotImplementedError

    def rule(self, line: Line) -> None:
        raise NotImplementedError

    def bullet(self, line: Line) -> None:
        raise NotImplementedError

    def table(self, line: Line) -> None:
        raise NotImplementedError

    def text(self, line: Line) -> None:
        raise NotImplementedError


# Each kind of line's step (a subclass's own method: the lambdas dispatch on the instance)
_STEPS: dict[str, Callable[[Steps, Line], None]] = {
    CODE: lambda steps, line: steps.code(line),
    FENCE: lambda steps, line: steps.fence(line),
    BLANK: lambda steps, line: steps.blank(line),
    HEADING: lambda steps, line: steps.titled(line),
    BREAK: lambda steps, line: steps.rule(line),
    BULLET: lambda steps, line: steps.bullet(line),
    TABLE: lambda steps, line: steps.table(line),
    TEXT: lambda steps, line: steps.text(line),
}


class Reader:
    """The lines of a Markdown file (HTML comments blanked, line numbers kept), each with its
    kind."""

    def __init__(self, lines: list[str]) -> None:
        self.lines = strip_comments(lines)
        self.index = 0
        self._fence: str | None = None

    def __iter__(self) -> Iterator[Line]:
        return self

    def __next__(self) -> Line:
        if self.index >= len(self.lines):
            raise StopIteration
        text = self.lines[self.index]
        self.index += 1
        number = self.index
        if self._fence is not None:
            ends = closes(text, self._fence)
            if ends:
                self._fence = None
            return Line(number, text, CODE, closes=ends)
        marker = fence(text)
        if marker is not None:
            self._fence = marker
            return Line(number, text, FENCE, marker=marker)
        if not text.strip():
            return Line(number, text, BLANK)
        atx = heading(text)
        if atx is not None and atx[1].strip():
            return Line(number, text, HEADING, level=atx[0], title=atx[1])
        if is_break(text):
            return Line(number, text, BREAK)
        item = bullet(text)
        if item is not None:
            return Line(number, text, BULLET, item=item)
        following = "".join(self.lines[self.index : self.index + 1])  # "" after the last line
        level = underline(following) if indent(text) < 4 else 0
        stripped = text.strip()
        if unquote(stripped).startswith("|"):
            previous = self.lines[self.index - 2] if self.index >= 2 else ""
            starts = not unquote(previous.strip()).startswith("|")
            return Line(
                number, text, TABLE, quoted=stripped.startswith(">"), starts=starts, underline=level
            )
        return Line(number, text, TEXT, underline=level)

    def skip(self) -> None:
        """Pass the next line (the underline of a setext heading just taken)."""
        self.index += 1


def strip_comments(lines: list[str]) -> list[str]:
    """Lines with HTML comments blanked out (outside code fences); line numbers are kept."""
    out: list[str] = []
    in_comment = False
    open_fence: str | None = None
    for line in lines:
        if not in_comment:  # a fence's own lines and those inside it are kept whole
            was = open_fence
            open_fence = fence(line) if was is None else None if closes(line, was) else was
            if was is not None or open_fence is not None:
                out.append(line)
                continue
        pieces: list[str] = []
        rest = line
        while rest:
            if in_comment:
                _, end, rest = rest.partition("-->")
            else:
                kept, end, rest = rest.partition("<!--")
                pieces.append(kept)
            in_comment = bool(end) != in_comment  # the marker looked for, found, flips it
        kept = "".join(pieces)
        out.append(kept.rstrip())  # (a line of white space only: "")
    return out


_ABBREVIATIONS = frozenset(
    {"e.g.", "i.e.", "etc.", "vs.", "cf.", "approx.", "incl.", "no.", "nr.", "fig.", "resp."}
)


def _enumerator(word: str) -> bool:
    """Whether ``word`` is a letter enumerator: ``a.``, ``(b.``."""
    letter = word.removeprefix("(")
    return len(letter) == 2 and "a" <= letter[0] <= "z" and letter[1] == "."


def _past_code(text: str, index: int) -> int:
    """Where the code span opening at ``text[index]`` ends (just after its opening ticks when
    never closed)."""
    length = len(text)
    run = index
    while run < length and text[run] == "`":
        run += 1
    ticks = text[index:run]
    close = text.find(ticks, run)
    while close != -1 and close + len(ticks) < length and text[close + len(ticks)] == "`":
        close = text.find(ticks, close + len(ticks) + 1)
    return run if close == -1 else close + len(ticks)


def first_sentence(text: str, shortest: int = 12) -> tuple[str, str] | None:
    """``text`` split after its first sentence (at least ``shortest`` characters): ``(sentence,
    rest)``, or ``None`` when it is one sentence. Never inside a code span or parentheses, at an
    abbreviation ("e.g.", "i.e."), inside a number ("3. 11"), or before a lower-case word; linear in
    the length of ``text``.
    """
    depth = 0
    index = 0
    length = len(text)
    while index < length:
        char = text[index]
        if char == "`":
            index = _past_code(text, index)
            continue
        if char in "([{":
            depth += 1
        elif char in ")]}":
            depth = max(0, depth - 1)
        elif (
            char in ".!?"
            and not depth
            and shortest <= index + 1 < length
            and text[index + 1].isspace()
        ):
            rest = _after_end(text, index)
            if rest is not None:
                return text[: index + 1], rest
        index += 1
    return None


def _after_end(text: str, index: int) -> str | None:
    """What follows the sentence ending at ``text[index]`` (``.``, ``!`` or ``?``, white space after
    it), or None where no sentence ends: before a lower-case word, at an abbreviation ("e.g.") or an
    enumerator ("a." in "item a. B"), inside a number ("3. 11")."""
    rest = text[index + 1 :].lstrip()
    word = text[: index + 1].rsplit(None, 1)[-1].lower()
    if not rest or rest[0].islower() or word in _ABBREVIATIONS:
        return None
    number = text[index - 1 : index].isdigit() and rest[0].isdigit()  # ("" before the first)
    if text[index] == "." and (number or _enumerator(word)):
        return None
    return rest
