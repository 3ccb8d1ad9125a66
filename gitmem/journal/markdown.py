"""Reading session logs: the four sections and the items under them, from Markdown as agents really
write it.

A log is meant to hold ``## Decisions``, ``## Difficulties``, ``## Conventions`` and ``## To do``,
one bullet per item. Logs in the wild differ, and this reader accepts what it can tell apart safely:
headings at any level and in any case (``### DECISIONS:``, ``**Decisions**`` on a line of its own, a
few common synonyms such as "Gotchas" or "Next steps"); bullets written ``-``, ``*``, ``+``, ``1.``
or ``1)``, with or without a checkbox; items wrapped over several lines; nested bullets, paragraphs
and code blocks under an item (they become the item's body); HTML comments (ignored). What it cannot
place (items under an unknown heading, a code block or table that belongs to no item, text before
the first section) is reported as skipped, with its line, never silently dropped.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from gitmem import markdown as md

DECISIONS, DIFFICULTIES, CONVENTIONS, TODO = "decisions", "difficulties", "conventions", "todo"
SECTIONS = (DECISIONS, DIFFICULTIES, CONVENTIONS, TODO)
SECTION_TITLES = {
    DECISIONS: "Decisions",
    DIFFICULTIES: "Difficulties",
    CONVENTIONS: "Conventions",
    TODO: "To do",
}

# Heading text (lower case, letters only, single spaces) -> section.
# fmt: off
_SECTION_NAMES: dict[str, str] = {
    **dict.fromkeys(
        ("decisions", "decision", "decisions made", "key decisions", "design decisions"),
        DECISIONS,
    ),
    **dict.fromkeys(
        ("difficulties", "difficulty", "problems", "problems encountered", "issues",
         "issues encountered", "pitfalls", "gotchas", "challenges", "blockers"),
        DIFFICULTIES,
    ),
    **dict.fromkeys(
        ("conventions", "convention", "coding conventions", "patterns", "conventions learned"),
        CONVENTIONS,
    ),
    **dict.fromkeys(
        ("to do", "todo", "todos", "to dos", "to do list", "next steps", "follow ups", "follow up",
         "open questions", "remaining work", "open items"),
        TODO,
    ),
}
# fmt: on

_PLACEHOLDERS = frozenset(
    {"", "none", "n a", "na", "nothing", "nothing yet", "tbd", "todo", "nil", "no", "empty"}
)


def section_of(heading: str) -> str | None:
    """The section a heading names, or ``None``: "## To-Do:" and "### DECISIONS (3)" both count."""
    words = re.sub(r"[^a-z]+", " ", heading.lower()).split()
    return _SECTION_NAMES.get(" ".join(words))


@dataclass
class Item:
    """One item of a section: the bullet's first paragraph (wrapped lines joined) and what
    follows it."""

    section: str
    line: int  # 1-based line of the bullet
    head: str
    rest: list[str] = field(
        default_factory=list
    )  # further Markdown lines (sub-bullets, paragraphs, code)
    bullet: bool = True  # False for a plain paragraph written as an item

    @property
    def text(self) -> str:
        return "\n".join([self.head, *self.rest]).strip()

    def is_placeholder(self) -> bool:
        words = re.sub(r"[^a-z]+", " ", self.head.lower()).strip()
        return words in _PLACEHOLDERS and not any(line.strip() for line in self.rest)


@dataclass(frozen=True)
class Skipped:
    line: int
    reason: str


@dataclass
class Log:
    """A parsed session log."""

    title: str | None = None
    items: list[Item] = field(default_factory=list)
    skipped: list[Skipped] = field(default_factory=list)
    sections: dict[str, int] = field(default_factory=dict)  # section -> line of its (first) heading

    def count(self, section: str) -> int:
        """How many items the section holds, placeholders (``- none``, ``- TBD``) left out."""
        return sum(item.section == section and not item.is_placeholder() for item in self.items)


@dataclass
class _Open:
    """The item being read, and how it continues."""

    item: Item
    indent: int  # column of its bullet marker
    content: int  # column its text starts at
    in_head: bool = True  # still in the first paragraph (wrapped lines join the head)
    after_blank: bool = False


def parse(text: str) -> Log:
    """Read a session log. Never fails: what cannot be placed is listed in ``Log.skipped``."""
    reading = _Reading()
    reader = md.Reader(text.removeprefix("\ufeff").splitlines())
    for line in reader:
        if reading.takes_underline(line):
            reading.start_section(line.number, line.text.strip(), line.underline)
            reader.skip()
        else:
            reading.read(line)
    reading.close_unknown()
    _drop_intros(reading.log)
    return reading.log


class _Reading(md.Steps):
    """The state of one log being read, line by line (one step a kind of line, ``md.Steps``); a line
    that only names a section is told apart by the table and text steps."""

    def __init__(self) -> None:
        self.log = Log()
        self.section: str | None = (
            None  # the current section; None before the first or under an unknown heading
        )
        self.unknown: tuple[int, str] | None = (
            None  # (line, text) of the unknown heading we are under
        )
        self.level = 0  # heading level of the current section
        self.current: _Open | None = None
        self.paragraph: Item | None = None  # a plain paragraph inside a section: an item too
        self.fence_owner: _Open | None = None  # the item the code block we are in belongs to
        self.unknown_items = 0

    def close_unknown(self) -> None:
        if self.unknown is not None and self.unknown_items:
            noun = "item" if self.unknown_items == 1 else "items"
            self.log.skipped.append(
                Skipped(
                    self.unknown[0],
                    f"{self.unknown_items} {noun} under '{self.unknown[1]}' (not a "
                    "harvested section)",
                )
            )
        self.unknown_items = 0

    def start_section(self, number: int, heading: str, heading_level: int) -> None:
        self.current = self.paragraph = None
        found = section_of(heading)
        if found is None and self.section is not None and heading_level > self.level:
            return  # a sub-heading inside a section: its items still belong to the section
        self.close_unknown()
        if found is None:
            if heading_level == 1 and self.log.title is None and self.section is None:
                self.log.title = heading
            self.section, self.unknown, self.level = None, (number, heading), heading_level
            return
        self.section, self.unknown, self.level = found, None, heading_level
        self.log.sections.setdefault(found, number)

    def add_item(self, item: Item) -> None:
        if self.section is None:
            if self.unknown is not None and self.unknown[1] != self.log.title:
                self.unknown_items += 1
            elif item.bullet:
                self.log.skipped.append(Skipped(item.line, "item before the first section"))
            return
        self.log.items.append(item)

    def takes_underline(self, line: md.Line) -> bool:
        """Whether ``line`` is a setext heading here (not when it continues an item or a
        paragraph)."""
        current = self.current
        return (
            bool(line.underline)
            and (current is None or current.after_blank)
            and self.paragraph is None
        )

    def code(self, line: md.Line) -> None:
        if self.fence_owner is not None:
            self.fence_owner.item.rest.append(md.dedent(line.text, self.fence_owner.content))
        if line.closes:
            self.fence_owner = None

    def titled(self, line: md.Line) -> None:
        self.start_section(line.number, line.title.strip(), line.level)

    def rule(self, line: md.Line) -> None:
        self.current = self.paragraph = None

    def fence(self, line: md.Line) -> None:
        self.paragraph = None
        if self.current is not None:  # a code block after an item explains it, indented or not
            self.current.in_head = False
            self.current.item.rest.append(md.dedent(line.text, self.current.content))
            self.fence_owner = self.current
            return
        self.fence_owner = None
        if self.section is not None or self.unknown is None:
            self.log.skipped.append(Skipped(line.number, "code block outside an item"))

    def blank(self, line: md.Line) -> None:
        self.paragraph = None
        if self.current is not None:
            if self.current.item.rest:
                self.current.item.rest.append("")
            self.current.in_head = False
            self.current.after_blank = True

    def label(self, line: md.Line) -> bool:
        """A line of text or a table's that is only a bold or labelled section name
        (``**Decisions**``, ``Next steps:``) starts it."""
        heading = md.bold_line(line.text)
        if heading is None:
            heading = md.label_line(line.text)
        if heading is None or section_of(heading) is None:
            return False
        self.start_section(line.number, heading.strip(), self.level or 2)
        return True

    def bullet(self, line: md.Line) -> None:
        bullet = line.item
        assert bullet is not None
        current = self.current
        if current is not None and bullet.indent > current.indent:
            current.in_head = False
            current.item.rest.append(md.dedent(line.text, current.content))
            current.after_blank = False
            return
        item = Item(self.section or "", line.number, bullet.text)
        self.current = _Open(item, bullet.indent, bullet.content)
        self.paragraph = None
        self.add_item(item)

    def table(self, line: md.Line) -> None:
        current = self.current
        if line.quoted:  # a quoted table is text
            self.text(line)
            return
        if self.label(line):
            return
        if current is not None and md.indent(line.text) >= current.content:
            current.in_head = False
            current.item.rest.append(md.dedent(line.text, current.content))
        elif self.section is not None and self.paragraph is None:
            self.log.skipped.append(Skipped(line.number, "table outside an item"))
            self.paragraph = Item(
                self.section, line.number, "", bullet=False
            )  # swallows the rest of the table

    def text(self, line: md.Line) -> None:
        stripped = line.plain
        current = self.current
        if self.label(line):
            return
        if current is not None and (
            not current.after_blank or md.indent(line.text) >= max(2, current.content)
        ):
            if current.in_head:
                current.item.head = f"{current.item.head} {stripped}".strip()
            else:
                current.item.rest.append(md.dedent(line.text, current.content))
            return
        self.current = None
        if self.paragraph is not None:
            self.paragraph.head = f"{self.paragraph.head} {stripped}".strip()
            return
        self.paragraph = Item(self.section or "", line.number, stripped, bullet=False)
        self.add_item(self.paragraph)


def _drop_intros(log: Log) -> None:
    """A paragraph that only introduces the list after it ("We decided the following:") is not
    an item."""
    kept = []
    for item in log.items:
        if not item.bullet and (item.head.endswith(":") or not item.head):
            if item.head:
                log.skipped.append(Skipped(item.line, "introductory text (ends with ':')"))
            continue
        kept.append(item)
    log.items = kept
    log.skipped.sort(key=lambda s: s.line)
