"""Reading session logs: the four sections and the items under them, from Markdown as agents really write it.

A log is meant to hold ``## Decisions``, ``## Difficulties``, ``## Conventions`` and ``## To do``, one bullet per
item. Logs in the wild differ, and this reader accepts what it can tell apart safely: headings at any level and in
any case (``### DECISIONS:``, ``**Decisions**`` on a line of its own, a few common synonyms such as "Gotchas" or
"Next steps"); bullets written ``-``, ``*``, ``+``, ``1.`` or ``1)``, with or without a checkbox; items wrapped over
several lines; nested bullets, paragraphs and code blocks under an item (they become the item's body); HTML
comments (ignored). What it cannot place (items under an unknown heading, a code block or table that belongs to no
item, text before the first section) is reported as skipped, with its line, never silently dropped.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from gitmem import markdown as md

DECISIONS, DIFFICULTIES, CONVENTIONS, TODO = "decisions", "difficulties", "conventions", "todo"
SECTIONS = (DECISIONS, DIFFICULTIES, CONVENTIONS, TODO)
SECTION_TITLES = {DECISIONS: "Decisions", DIFFICULTIES: "Difficulties", CONVENTIONS: "Conventions", TODO: "To do"}

# Heading text (lower case, letters only, single spaces) -> section.
# fmt: off
_SECTION_NAMES: dict[str, str] = {
    **dict.fromkeys(("decisions", "decision", "decisions made", "key decisions", "design decisions"), DECISIONS),
    **dict.fromkeys(
        ("difficulties", "difficulty", "problems", "problems encountered", "issues", "issues encountered",
         "pitfalls", "gotchas", "challenges", "blockers"),
        DIFFICULTIES,
    ),
    **dict.fromkeys(("conventions", "convention", "coding conventions", "patterns", "conventions learned"),
                    CONVENTIONS),
    **dict.fromkeys(
        ("to do", "todo", "todos", "to dos", "to do list", "next steps", "follow ups", "follow up", "open questions",
         "remaining work", "open items"),
        TODO,
    ),
}
# fmt: on

_BOLD_LINE = re.compile(r"^ {0,3}(\*\*|__)(.+?)(\*\*|__)[ \t]*:?[ \t]*$")
_LABEL_LINE = re.compile(r"^ {0,3}([A-Za-z][A-Za-z -]{1,30}):[ \t]*$")
_PLACEHOLDERS = frozenset({"", "none", "n a", "na", "nothing", "nothing yet", "tbd", "todo", "nil", "no", "empty"})


def section_of(heading: str) -> str | None:
    """The section a heading names, or ``None``: "## To-Do:" and "### DECISIONS (3)" both count."""
    words = re.sub(r"[^a-z]+", " ", heading.lower()).split()
    return _SECTION_NAMES.get(" ".join(words))


@dataclass
class Item:
    """One item of a section: the bullet's first paragraph (wrapped lines joined) and what follows it."""

    section: str
    line: int  # 1-based line of the bullet
    head: str
    rest: list[str] = field(default_factory=list)  # further Markdown lines (sub-bullets, paragraphs, code)
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

    def in_section(self, section: str) -> list[Item]:
        return [item for item in self.items if item.section == section]


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
    lines = md.strip_comments(text.removeprefix("\ufeff").splitlines())
    log = Log()
    section: str | None = None  # the current section; None before the first or under an unknown heading
    unknown: tuple[int, str] | None = None  # (line, text) of the unknown heading we are under
    level = 0  # heading level of the current section
    current: _Open | None = None
    paragraph: Item | None = None  # a plain paragraph inside a section: an item too
    fence: str | None = None  # the marker (``` or ~~~) of the code block we are in
    fence_owner: _Open | None = None
    unknown_items = 0
    index = 0

    def close_unknown() -> None:
        nonlocal unknown_items
        if unknown is not None and unknown_items:
            noun = "item" if unknown_items == 1 else "items"
            log.skipped.append(
                Skipped(unknown[0], f"{unknown_items} {noun} under '{unknown[1]}' (not a harvested section)")
            )
        unknown_items = 0

    def start_section(number: int, heading: str, heading_level: int) -> None:
        nonlocal section, unknown, level, current, paragraph
        current = paragraph = None
        found = section_of(heading)
        if found is None and section is not None and heading_level > level:
            return  # a sub-heading inside a section: its items still belong to the section
        close_unknown()
        if found is None:
            if heading_level == 1 and log.title is None and section is None:
                log.title = heading
            section, unknown, level = None, (number, heading), heading_level
            return
        section, unknown, level = found, None, heading_level
        log.sections.setdefault(found, number)

    def add_item(item: Item) -> None:
        nonlocal unknown_items
        if section is None:
            if unknown is not None and unknown[1] != log.title:
                unknown_items += 1
            elif item.bullet:
                log.skipped.append(Skipped(item.line, "item before the first section"))
            return
        log.items.append(item)

    while index < len(lines):
        line = lines[index]
        number = index + 1
        index += 1

        if fence is not None:
            if fence_owner is not None:
                fence_owner.item.rest.append(md.dedent(line, fence_owner.content))
            if md.closes(line, fence):
                fence = None
                fence_owner = None
            continue

        fence_match = md.FENCE.match(line)
        if fence_match:
            fence = fence_match.group(2)
            paragraph = None
            if current is not None:  # a code block after an item explains it, indented or not
                current.in_head = False
                current.item.rest.append(md.dedent(line, current.content))
                fence_owner = current
            else:
                fence_owner = None
                if section is not None or unknown is None:
                    log.skipped.append(Skipped(number, "code block outside an item"))
            continue

        if not line.strip():
            paragraph = None
            if current is not None:
                if current.item.rest:
                    current.item.rest.append("")
                current.in_head = False
                current.after_blank = True
            continue

        atx = md.ATX.match(line)
        if atx and (atx.group(2) or "").strip():
            start_section(number, (atx.group(2) or "").strip(), len(atx.group(1)))
            continue

        next_line = lines[index] if index < len(lines) else ""
        setext = md.SETEXT.match(next_line)
        if (
            setext
            and (current is None or current.after_blank)
            and paragraph is None
            and not md.BULLET.match(line)
            and not md.BREAK.match(line)
            and md.indent(line) < 4
        ):
            start_section(number, line.strip(), 1 if setext.group(1).startswith("=") else 2)
            index += 1
            continue

        bold = _BOLD_LINE.match(line) or _LABEL_LINE.match(line)
        if bold:
            heading = bold.group(2) if bold.re is _BOLD_LINE else bold.group(1)
            if section_of(heading) is not None:
                start_section(number, heading.strip(), level or 2)
                continue

        if md.BREAK.match(line):
            current = paragraph = None
            continue

        bullet = md.BULLET.match(line)
        if bullet:
            indent = md.indent(bullet.group(1))
            if current is not None and indent > current.indent:
                current.in_head = False
                current.item.rest.append(md.dedent(line, current.content))
                current.after_blank = False
                continue
            content = md.CHECKBOX.sub("", (bullet.group(3) or "").strip())
            marker_end = len(bullet.group(1).expandtabs(4)) + len(bullet.group(2)) + 1
            item = Item(section or "", number, content)
            current = _Open(item, indent, marker_end)
            paragraph = None
            add_item(item)
            continue

        stripped = line.strip()
        if stripped.startswith("|"):
            if current is not None and md.indent(line) >= current.content:
                current.in_head = False
                current.item.rest.append(md.dedent(line, current.content))
            elif section is not None and paragraph is None:
                log.skipped.append(Skipped(number, "table outside an item"))
                paragraph = Item(section, number, "", bullet=False)  # swallows the rest of the table
            continue
        stripped = re.sub(r"^>\s?", "", stripped)

        if current is not None and (not current.after_blank or md.indent(line) >= max(2, current.content)):
            if current.in_head:
                current.item.head = f"{current.item.head} {stripped}".strip()
            else:
                current.item.rest.append(md.dedent(line, current.content))
            continue

        current = None
        if paragraph is not None:
            paragraph.head = f"{paragraph.head} {stripped}".strip()
            continue
        paragraph = Item(section or "", number, stripped, bullet=False)
        add_item(paragraph)

    close_unknown()
    _drop_intros(log)
    return log


def _drop_intros(log: Log) -> None:
    """A paragraph that only introduces the list after it ("We decided the following:") is not an item."""
    kept = []
    for item in log.items:
        if not item.bullet and (item.head.endswith(":") or not item.head):
            if item.head:
                log.skipped.append(Skipped(item.line, "introductory text (ends with ':')"))
            continue
        kept.append(item)
    log.items = kept
    log.skipped.sort(key=lambda s: s.line)
