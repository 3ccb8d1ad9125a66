"""Reading a hand-written rules file (AGENTS.md, CLAUDE.md, a Cursor rule…) into the items that become memories.

An item is a top-level bullet (its wrapped lines, nested bullets, paragraphs and code blocks are its body), or, in
prose, a paragraph with the code blocks and tables that follow it (a section of one paragraph is one item). A bullet
that only labels a nested list (``- Components:`` followed by sub-bullets) gives one item per sub-bullet, each
titled ``Components: …``. Each item knows the headings above it (its kind is guessed from them) and the lines it
spans in the file.

What is not an item is reported with its line, never silently dropped: introductory text ("We follow these
rules:"), Claude/Gemini import lines (``@AGENTS.md``: the imported file is read on its own). HTML comments are
ignored. The caller blanks out lines that must not be read (frontmatter, gitmem's managed block) beforehand, so line
numbers stay those of the file.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from gitmem import markdown as md

_IMPORT_LINE = re.compile(r"^[ \t]*(?:[-*+][ \t]+)?(@[^\s@]+(?:[ \t]+@[^\s@]+)*)[ \t]*$")
LABEL_MAX = 80  # a bullet this short ending with ':' may label the list nested under it

Line = tuple[int, str]  # (1-based line number, text)


@dataclass
class Item:
    """One thing the file says: ``head`` is its first paragraph (wrapped lines joined), ``rest`` the lines after."""

    line: int
    end: int
    head: str
    rest: list[str] = field(default_factory=list)
    headings: tuple[str, ...] = ()
    bullet: bool = True
    context: str = ""  # the lead-in line the item was listed under ("When parsing external data:")
    section: str = ""  # the nearest heading below the document's title (level 2 or deeper), or ""
    steps: bool = False  # a numbered procedure, kept whole and in order
    lead: int = 0  # the line of that lead-in (0: none)


@dataclass(frozen=True)
class Skipped:
    line: int
    reason: str


@dataclass(frozen=True)
class Import:
    line: int
    target: str  # as written after the @


@dataclass
class Parsed:
    items: list[Item] = field(default_factory=list)
    skipped: list[Skipped] = field(default_factory=list)
    imports: list[Import] = field(default_factory=list)


@dataclass
class _Block:
    """A bullet or a prose group being read."""

    line: int
    head: str
    rest: list[Line] = field(default_factory=list)
    bullet: bool = True
    indent: int = 0  # column of the bullet marker
    content: int = 0  # column the bullet's text starts at
    in_head: bool = True
    after_blank: bool = False
    end: int = 0
    blocks: int = 0  # code blocks and tables attached
    ordered: bool = False  # a numbered list item ("1." or "1)")

    def takes_block(self) -> bool:
        """Whether a code block or table that starts now belongs here: a bullet takes all that follow it, a
        paragraph only the one it introduces (a code block or table with no text before it takes the next ones)."""
        return self.bullet or not self.head or self.blocks == 0


def heading_text(text: str) -> str:
    """A heading without Markdown emphasis or code marks: ``**Code** `style` `` -> ``Code style``."""
    return " ".join(re.sub(r"[*_`]+", "", text).split())


def parse(lines: list[str]) -> Parsed:
    """Read the items of a rules file's ``lines`` (line numbers are their positions, from 1)."""
    lines = md.strip_comments(lines)
    parsed = Parsed()
    headings: list[tuple[int, str]] = []  # (level, text) of the headings above
    section: list[_Block] = []  # the blocks of the current section
    current: _Block | None = None  # the block that continuation lines go to
    fence: str | None = None
    fence_owner: _Block | None = None
    index = 0

    def flush() -> None:
        nonlocal current
        deep = [text for level, text in headings if level >= 2]
        _emit(section, tuple(text for _, text in headings), parsed, deep[-1] if deep else "")
        section.clear()
        current = None

    def touch(block: _Block, number: int) -> None:
        block.end = max(block.end, number)

    while index < len(lines):
        line = lines[index]
        number = index + 1
        index += 1

        if fence is not None:
            if fence_owner is not None:
                fence_owner.rest.append((number, md.dedent(line, fence_owner.content)))
                touch(fence_owner, number)
            if md.closes(line, fence):
                fence = None
            continue

        fence_match = md.FENCE.match(line)
        if fence_match:
            fence = fence_match.group(2)
            if current is None or not current.takes_block():  # code with no text before it: an item of its own
                current = _Block(number, "", bullet=False, in_head=False)
                section.append(current)
            current.blocks += 1
            current.in_head = False
            current.rest.append((number, md.dedent(line, current.content)))
            touch(current, number)
            fence_owner = current
            continue

        if not line.strip():
            if current is not None:
                if current.bullet:
                    if current.rest:
                        current.rest.append((number, ""))
                    current.in_head = False
                    current.after_blank = True
                elif current.in_head:
                    current.in_head = False  # a paragraph ended: code and tables after it still belong to it
                    current.after_blank = True
            continue

        atx = md.ATX.match(line)
        if atx and (atx.group(2) or "").strip():
            flush()
            level = len(atx.group(1))
            while headings and headings[-1][0] >= level:
                headings.pop()
            headings.append((level, heading_text(atx.group(2) or "")))
            continue

        next_line = lines[index] if index < len(lines) else ""
        setext = md.SETEXT.match(next_line)
        if (
            setext
            and (current is None or not current.in_head)
            and not md.BULLET.match(line)
            and not md.BREAK.match(line)
            and md.indent(line) < 4
        ):
            flush()
            level = 1 if setext.group(1).startswith("=") else 2
            while headings and headings[-1][0] >= level:
                headings.pop()
            headings.append((level, heading_text(line)))
            index += 1
            continue

        if md.BREAK.match(line):
            current = None
            continue

        imported = _IMPORT_LINE.match(line)
        if imported and (current is None or not current.bullet or md.indent(line) <= current.indent):
            for target in imported.group(1).split():
                parsed.imports.append(Import(number, target[1:]))
            current = None
            continue

        bullet = md.BULLET.match(line)
        if bullet:
            indent = md.indent(bullet.group(1))
            if current is not None and current.bullet and indent > current.indent:
                current.in_head = False
                current.rest.append((number, md.dedent(line, current.content)))
                current.after_blank = False
                touch(current, number)
                continue
            text = md.CHECKBOX.sub("", (bullet.group(3) or "").strip())
            marker_end = len(bullet.group(1).expandtabs(4)) + len(bullet.group(2)) + 1
            current = _Block(number, text, indent=indent, content=marker_end, end=number)
            current.ordered = bullet.group(2)[0].isdigit()
            section.append(current)
            continue

        stripped = re.sub(r"^>\s?", "", line.strip())
        if stripped.startswith("|"):  # a table row
            starts = index < 2 or not re.sub(r"^>\s?", "", lines[index - 2].strip()).startswith("|")
            if current is None or (starts and not _takes_table(current, line)):
                current = _Block(number, "", bullet=False, in_head=False)
                section.append(current)
            if starts:
                current.blocks += 1
            current.in_head = False
            current.rest.append((number, md.dedent(line, current.content)))
            touch(current, number)
            continue

        if current is not None and current.bullet:
            if not current.after_blank or md.indent(line) >= max(2, current.content):
                if current.in_head:
                    current.head = f"{current.head} {stripped}".strip()
                else:
                    current.rest.append((number, md.dedent(line, current.content)))
                touch(current, number)
                continue
        elif current is not None and current.in_head:
            current.head = f"{current.head} {stripped}".strip()
            touch(current, number)
            continue
        current = _Block(number, stripped, bullet=False, end=number)
        section.append(current)

    flush()
    parsed.items.sort(key=lambda item: item.line)
    parsed.skipped.sort(key=lambda skipped: skipped.line)
    return parsed


_LINKS_ONLY = re.compile(r"(?:\[[^\]]*\]\([^)\s]*\)[\s,;|·–—-]*)+")


def _takes_table(block: _Block, line: str) -> bool:
    """Whether a table starting at ``line`` belongs to ``block``: a paragraph's only when it introduces it (ends with
    ':'), a bullet's only when indented under it; a table after other prose is an item of its own."""
    if not block.takes_block():
        return False
    if block.bullet:
        return not block.after_blank or md.indent(line) >= max(2, block.content)
    return not block.head or block.head.endswith(":")


def _emit(blocks: list[_Block], headings: tuple[str, ...], parsed: Parsed, section: str = "") -> None:
    """The items of one section's blocks.

    A paragraph that ends with ':' and is followed by a list is the lead-in of that list: each item keeps it as
    context (it often says when the item applies). Consecutive numbered items are one procedure, kept whole and in
    order. A bullet that is only links (a table of contents) is not a rule."""
    lead, lead_line = "", 0
    position = 0
    while position < len(blocks):
        block = blocks[position]
        position += 1
        rest = _trim(block.rest)
        end = max([block.end, block.line, *(number for number, text in rest if text.strip())])
        following = blocks[position] if position < len(blocks) else None
        if not block.bullet:
            lead, lead_line = "", 0
        if not block.bullet and block.head.endswith(":") and not rest:
            if following is not None and following.bullet:
                lead, lead_line = block.head, block.line
            else:
                parsed.skipped.append(Skipped(block.line, "a label without text after it"))
            continue
        if not block.head and not rest:
            continue
        if block.bullet and block.ordered and following is not None and following.bullet and following.ordered:
            steps = [block]
            while position < len(blocks) and blocks[position].bullet and blocks[position].ordered:
                steps.append(blocks[position])
                position += 1
            _emit_steps(steps, lead, lead_line, headings, section, parsed)
            lead, lead_line = "", 0
            continue
        if block.bullet and not rest and _LINKS_ONLY.fullmatch(block.head):
            parsed.skipped.append(Skipped(block.line, "only links (a table of contents), not a rule"))
            continue
        if block.bullet and _is_label(block.head, rest):
            children = _bullets(rest)
            label = block.head.rstrip(":").strip()
            for child in children:
                child_rest = _trim(child.rest)
                child_end = max([child.end, child.line, *(n for n, text in child_rest if text.strip())])
                if not child_rest and _LINKS_ONLY.fullmatch(child.head):
                    parsed.skipped.append(Skipped(child.line, "only links (a table of contents), not a rule"))
                    continue
                parsed.items.append(
                    Item(child.line, child_end, f"{label}: {child.head}", [t for _, t in child_rest], headings, True,
                         lead, section, lead=lead_line)
                )  # fmt: skip
            continue
        parsed.items.append(
            Item(block.line, end, block.head, [text for _, text in rest], headings, block.bullet,
                 lead if block.bullet else "", section, lead=lead_line if block.bullet else 0)
        )  # fmt: skip


def _emit_steps(
    steps: list[_Block], lead: str, lead_line: int, headings: tuple[str, ...], section: str, parsed: Parsed
) -> None:
    """A numbered procedure as one item: titled by its lead-in (or, without one, by the heading above it), with
    every step, in order, as the body."""
    body: list[str] = []
    for number, step in enumerate(steps, 1):
        body.append(f"{number}. {step.head}")
        body.extend(f"   {text}" if text.strip() else "" for _, text in _trim(step.rest))
    end = max(max(step.end, step.line) for step in steps)
    head = lead.rstrip(":").strip() or (headings[-1] if headings else "")
    if not head:
        head, body = steps[0].head, body
    parsed.items.append(Item(steps[0].line, end, head, body, headings, True, "", section, steps=True, lead=lead_line))


def _trim(rest: list[Line]) -> list[Line]:
    start, stop = 0, len(rest)
    while start < stop and not rest[start][1].strip():
        start += 1
    while stop > start and not rest[stop - 1][1].strip():
        stop -= 1
    return rest[start:stop]


def _is_label(head: str, rest: list[Line]) -> bool:
    """Whether a bullet only labels the list nested under it: short, ends with ':', and followed only by bullets."""
    if not head.endswith(":") or len(head) > LABEL_MAX or not rest:
        return False
    return (
        bool(md.BULLET.match(rest[0][1]))
        and md.indent(rest[0][1]) == 0
        and all(not text.strip() or md.BULLET.match(text) or md.indent(text) > 0 for _, text in rest)
    )


def _bullets(lines: list[Line]) -> list[_Block]:
    """The top-level bullets of already dedented lines (used for a label's nested list)."""
    blocks: list[_Block] = []
    current: _Block | None = None
    fence: str | None = None
    for number, line in lines:
        if fence is not None:
            if current is not None:
                current.rest.append((number, md.dedent(line, current.content)))
                current.end = number
            if md.closes(line, fence):
                fence = None
            continue
        fence_match = md.FENCE.match(line)
        bullet = md.BULLET.match(line)
        if bullet and md.indent(line) == 0:
            text = md.CHECKBOX.sub("", (bullet.group(3) or "").strip())
            current = _Block(number, text, content=len(bullet.group(2)) + 1, end=number)
            blocks.append(current)
            continue
        if current is None:
            continue
        if fence_match:
            fence = fence_match.group(2)
        if current.in_head and line.strip() and not bullet and not fence_match:
            current.head = f"{current.head} {line.strip()}"
        else:
            current.in_head = False
            current.rest.append((number, md.dedent(line, current.content)))
        if line.strip():
            current.end = number
    return blocks
