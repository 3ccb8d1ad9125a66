"""Reading a hand-written rules file (AGENTS.md, CLAUDE.md, a Cursor rule…) into the items that
become memories.

An item is a top-level bullet (its wrapped lines, nested bullets, paragraphs and code blocks are its
body), or, in prose, a paragraph with the code blocks and tables that follow it (a section of one
paragraph is one item). A bullet that only labels a nested list (``- Components:`` followed by
sub-bullets) gives one item per sub-bullet, each titled ``Components: …``. Each item knows the
headings above it (its kind is guessed from them) and the lines it spans in the file.

What is not an item is reported with its line, never silently dropped: introductory text ("We follow
these rules:"), Claude/Gemini import lines (``@AGENTS.md``: the imported file is read on its own).
HTML comments are ignored. The caller blanks out lines that must not be read (frontmatter, gitmem's
managed block) beforehand, so line numbers stay those of the file.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

from gitmem import markdown as md
from gitmem.linear import linear

LABEL_MAX = 80  # a bullet this short ending with ':' may label the list nested under it

Line = tuple[int, str]  # (1-based line number, text)


@dataclass
class Item:
    """One thing the file says: ``head`` is its first paragraph (wrapped lines joined), ``rest``
    the lines after."""

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
    number: int = 0  # its number

    def takes_block(self) -> bool:
        """Whether a code block or table that starts now belongs here: a bullet takes all that
        follow it, a paragraph only the one it introduces (a code block or table with no text before
        it takes the next ones).
        """
        return self.bullet or not self.head or self.blocks == 0


_EMPHASIS = str.maketrans("", "", "*_`")


def heading_text(text: str) -> str:
    """A heading without Markdown emphasis or code marks: ``**Code** `style` `` -> ``Code
    style``."""
    return " ".join(text.translate(_EMPHASIS).split())


def parse(lines: list[str]) -> Parsed:
    """Read the items of a rules file's ``lines`` (line numbers are their positions, from 1)."""
    reading = _Reading()
    reader = md.Reader(lines)
    for line in reader:
        if reading.takes_underline(line):
            reading.heading(line.underline, line.text)
            reader.skip()
        else:
            reading.read(line)
    reading.flush()
    parsed = reading.parsed
    parsed.items.sort(key=lambda item: item.line)
    parsed.skipped.sort(key=lambda skipped: skipped.line)
    return parsed


class _Reading(md.Steps):
    """The state of one rules file being read, line by line (one step a kind of line,
    ``md.Steps``); an import line (``@AGENTS.md``) is told apart by the bullet, table and text
    steps."""

    def __init__(self) -> None:
        self.parsed = Parsed()
        self.headings: list[tuple[int, str]] = []  # (level, text) of the headings above
        self.section: list[_Block] = []  # the blocks of the current section
        self.current: _Block | None = None  # the block that continuation lines go to
        self.fence_owner: _Block | None = None

    def flush(self) -> None:
        headings = tuple(text for _, text in self.headings)
        section = next((text for level, text in reversed(self.headings) if level >= 2), "")
        _emit(self.section, headings, self.parsed, section)
        self.section.clear()
        self.current = None

    def heading(self, level: int, text: str) -> None:
        self.flush()
        while self.headings and self.headings[-1][0] >= level:
            self.headings.pop()
        self.headings.append((level, heading_text(text)))

    def takes_underline(self, line: md.Line) -> bool:
        """Whether ``line`` is a setext heading here (not when it continues a paragraph)."""
        return bool(line.underline) and (self.current is None or not self.current.in_head)

    def code(self, line: md.Line) -> None:
        owner = self.fence_owner
        if owner is not None:
            owner.rest.append((line.number, md.dedent(line.text, owner.content)))
            _touch(owner, line.number)

    def titled(self, line: md.Line) -> None:
        self.heading(line.level, line.title)

    def rule(self, line: md.Line) -> None:
        self.current = None

    def fence(self, line: md.Line) -> None:
        self.fence_owner = self._attach(line, _Block.takes_block, starts=True)

    def _attach(self, line: md.Line, fits: Callable[[_Block], bool], starts: bool) -> _Block:
        """Add a code fence's or a table's ``line`` to the current block, or, when there is none
        or it does not ``fit`` (code with no text before it), to a new block of its own; ``starts``:
        the line opens a code block or table."""
        current = self.current
        if current is None or not fits(current):
            current = self.current = _Block(line.number, "", bullet=False, in_head=False)
            self.section.append(current)
        current.blocks += starts
        current.in_head = False
        current.rest.append((line.number, md.dedent(line.text, current.content)))
        _touch(current, line.number)
        return current

    def blank(self, line: md.Line) -> None:
        current = self.current
        if current is None:
            return
        if current.bullet:
            if current.rest:
                current.rest.append((line.number, ""))
            current.in_head = False
            current.after_blank = True
        elif current.in_head:
            current.in_head = (
                False  # a paragraph ended: code and tables after it still belong to it
            )
            current.after_blank = True

    def imports(self, line: md.Line) -> bool:
        """A Claude/Gemini import line (``@AGENTS.md``) outside a bullet's body: recorded, not
        an item."""
        current = self.current
        if current is not None and current.bullet and md.indent(line.text) > current.indent:
            return False
        targets = md.imports(line.text)
        if targets is None:
            return False
        self.parsed.imports.extend(Import(line.number, target) for target in targets)
        self.current = None
        return True

    def bullet(self, line: md.Line) -> None:
        bullet = line.item
        assert bullet is not None
        current = self.current
        if self.imports(line):
            return
        if current is not None and current.bullet and bullet.indent > current.indent:
            current.in_head = False
            current.rest.append((line.number, md.dedent(line.text, current.content)))
            current.after_blank = False
            _touch(current, line.number)
            return
        self.current = _Block(
            line.number, bullet.text, indent=bullet.indent, content=bullet.content, end=line.number
        )
        self.current.ordered, self.current.number = bullet.ordered, _number(bullet)
        self.section.append(self.current)

    def table(self, line: md.Line) -> None:
        if not self.imports(line):  # a table's first row may open an item of its own
            self._attach(
                line, lambda block: not line.starts or _takes_table(block, line.text), line.starts
            )

    def text(self, line: md.Line) -> None:
        stripped = line.plain
        current = self.current
        if self.imports(line):
            return
        # a bullet goes on until a blank line, then while indented; a paragraph while its text does
        if current is not None and (
            not current.after_blank or md.indent(line.text) >= max(2, current.content)
            if current.bullet
            else current.in_head
        ):
            if current.in_head:
                current.head = f"{current.head} {stripped}".strip()
            else:
                current.rest.append((line.number, md.dedent(line.text, current.content)))
            _touch(current, line.number)
            return
        self.current = _Block(line.number, stripped, bullet=False, end=line.number)
        self.section.append(self.current)


def _touch(block: _Block, number: int) -> None:
    block.end = max(block.end, number)


_LINKS_ONLY = linear(r"(?:\[[^\]]*\]\([^)\s]*\)[\s,;|·–—-]*)+")


def _takes_table(block: _Block, line: str) -> bool:
    """Whether a table starting at ``line`` belongs to ``block``: a paragraph's only when it
    introduces it (ends with ':'), a bullet's only when indented under it; a table after other prose
    is an item of its own.
    """
    if not block.takes_block():
        return False
    if block.bullet:
        return not block.after_blank or md.indent(line) >= max(2, block.content)
    return not block.head or block.head.endswith(":")


def _emit(
    blocks: list[_Block], headings: tuple[str, ...], parsed: Parsed, section: str = ""
) -> None:
    """The items of one section's blocks.

    A paragraph that ends with ':' and is followed by a list is the lead-in of that list: each item
    keeps it as context (it often says when the item applies). Consecutive numbered items are one
    procedure, kept whole and in order. A bullet that is only links (a table of contents) is not a
    rule.
    """
    lead = ("", 0)  # the lead-in paragraph's text and line
    position = 0
    while position < len(blocks):
        block = blocks[position]
        position += 1
        rest = _trim(block.rest)
        if not block.bullet:  # a paragraph ends the lead-in before it, or is one
            lead = ("", 0)
            if block.head.endswith(":") and not rest:
                lead = _lead_in(block, next(iter(blocks[position:]), None), parsed)
                continue
        if not block.head and not rest:
            continue
        stop = _procedure_end(blocks, position - 1)
        if stop > position:  # more than the block itself
            _emit_steps(blocks[position - 1 : stop], lead, headings, section, parsed)
            position, lead = stop, ("", 0)
            continue
        _emit_block(block, rest, lead, headings, section, parsed)


def _lead_in(block: _Block, following: _Block | None, parsed: Parsed) -> tuple[str, int]:
    """A label (text ending with ':'): the lead-in of the list that follows it, else skipped (and
    one without a word, such as a lone ':', says nothing to lead in with)."""
    if following is not None and following.bullet and any(map(str.isalnum, block.head)):
        return block.head, block.line
    parsed.skipped.append(Skipped(block.line, "a label without text after it"))
    return "", 0


def _emit_block(
    block: _Block,
    rest: list[Line],
    lead: tuple[str, int],
    headings: tuple[str, ...],
    section: str,
    parsed: Parsed,
    label: str = "",
) -> None:
    """One block's item (a bullet keeps its list's lead-in); a bullet of links only is skipped, a
    label bullet gives its children (each titled ``label: …``)."""
    if block.bullet:
        if not rest and _LINKS_ONLY.fullmatch(block.head):
            parsed.skipped.append(
                Skipped(block.line, "only links (a table of contents), not a rule")
            )
            return
        if not label and _is_label(block.head, rest):
            _emit_children(block, rest, lead, headings, section, parsed)
            return
    end = max([block.end, block.line, *(number for number, text in rest if text.strip())])
    context, lead_line = lead  # (none for a paragraph: _emit starts over at each)
    head = f"{label}: {block.head}" if label else block.head
    parsed.items.append(
        Item(block.line, end, head, [text for _, text in rest], headings, block.bullet, context,
             section, lead=lead_line)
    )  # fmt: skip


def _emit_children(
    block: _Block,
    rest: list[Line],
    lead: tuple[str, int],
    headings: tuple[str, ...],
    section: str,
    parsed: Parsed,
) -> None:
    """The items of a bullet that only labels the list nested under it: one per sub-bullet,
    titled ``label: …``."""
    label = block.head.rstrip(":").strip()
    children = _bullets(rest)
    if len(children) >= 2 and all(
        child.ordered for child in children
    ):  # "- Release:" then "1. …", "2. …"
        _emit_steps(children, (label, 0), headings, section, parsed)
        return
    for child in children:
        _emit_block(child, _trim(child.rest), lead, headings, section, parsed, label)


def _numbered(block: _Block) -> bool:
    return block.bullet and block.ordered


def _number(bullet: md.Bullet) -> int:
    return int(bullet.marker[:-1]) if bullet.ordered else 0


def _procedure_end(blocks: list[_Block], start: int) -> int:
    """The position after the last step of the numbered procedure that starts at ``blocks[start]``,
    or after ``blocks[start]`` when none does (a procedure has two steps or more). Steps follow
    each other, or go on after a code block, a table or a paragraph between them when the next
    one's number continues the count (``2.`` after ``1.``) or only code and tables came between:
    its first step never stands alone.
    """
    if not _numbered(blocks[start]):
        return start + 1
    last = start
    position = start + 1
    while position < len(blocks):
        block = blocks[position]
        if _numbered(block):
            between = blocks[last + 1 : position]
            if block.number != blocks[last].number + 1 and any(b.head for b in between):
                break
            last = position
        elif block.bullet:
            break  # an unnumbered list ends it
        position += 1
    return last + 1


def _emit_steps(
    steps: list[_Block],
    lead: tuple[str, int],
    headings: tuple[str, ...],
    section: str,
    parsed: Parsed,
) -> None:
    """A numbered procedure as one item: titled by its lead-in (or, without one, by the heading
    above it), with every step, in order (and what stands between two steps, under the first), as
    the body.
    """
    body: list[str] = []
    number = 0
    for step in steps:
        if _numbered(step):
            number += 1
            body.append(f"{number}. {step.head}")
        else:
            body.append("")
            if step.head:
                body.append(f"   {step.head}")
        body.extend(f"   {text}" if text.strip() else "" for _, text in _trim(step.rest))
    end = max(max(step.end, step.line) for step in steps)
    # the lead-in, else the heading above, else the first step
    head = lead[0].rstrip(":").strip() or "".join(headings[-1:]) or steps[0].head
    parsed.items.append(
        Item(steps[0].line, end, head, body, headings, True, "", section, steps=True, lead=lead[1])
    )


def _trim(rest: list[Line]) -> list[Line]:
    """``rest`` without its blank lines at either end."""
    filled = [index for index, (_, text) in enumerate(rest) if text.strip()]
    return rest[filled[0] : filled[-1] + 1] if filled else []


def _is_label(head: str, rest: list[Line]) -> bool:
    """Whether a bullet only labels the list nested under it: short, ends with ':', and followed
    only by bullets."""
    first = next(iter(rest), (0, ""))[1]  # ("": nothing nested)
    if not head.endswith(":") or len(head) > LABEL_MAX:
        return False
    return (
        md.bullet(first) is not None
        and md.indent(first) == 0
        and all(
            not text.strip() or md.bullet(text) is not None or md.indent(text) > 0
            for _, text in rest
        )
    )


def _bullets(lines: list[Line]) -> list[_Block]:
    """The top-level bullets of already dedented lines that start with one (a label's nested
    list)."""
    blocks: list[_Block] = []
    current = _Block(0, "")  # none yet: the first line starts the first bullet
    fence: str | None = None
    for number, line in lines:
        if fence is not None:
            current.rest.append((number, md.dedent(line, current.content)))
            current.end = number
            fence = None if md.closes(line, fence) else fence
            continue
        marker = md.fence(line)
        bullet = md.bullet(line)
        if bullet is not None and md.indent(line) == 0:
            current = _Block(number, bullet.text, content=len(bullet.marker) + 1, end=number)
            current.ordered, current.number = bullet.ordered, _number(bullet)
            blocks.append(current)
            continue
        if marker is not None:
            fence = marker
        if current.in_head and line.strip() and bullet is None and marker is None:
            current.head = f"{current.head} {line.strip()}"
        else:
            current.in_head = False
            current.rest.append((number, md.dedent(line, current.content)))
        if line.strip():
            current.end = number
    return blocks
