"""How an imported item reads as a memory: its title and body, and the tag a section heading gives
(``gitmem.importing.importer`` decides what becomes a memory, with ``gitmem.journal.intake``, which
also says whether two items say the same thing; this module only words it).
"""

from __future__ import annotations

import re

from gitmem.importing import markdown
from gitmem.importing.kinds import starts_imperative
from gitmem.journal.harvest import TITLE_SOFT, split_item
from gitmem.journal.intake import specifics
from gitmem.journal.markdown import Item as LogItem
from gitmem.memory import similar

# a fence, one line of code (up to 100 characters, no backtick) and a line that closes it (when it
# is the same fence): after "…with:", the code joins the title
_ONE_LINE_CODE = re.compile(r"(`{3,}|~{3,})[\w+-]*\n([^`\n]+)\n(.*)")
_ONE_LINE_CODE_MAX = 100  # longer code stays in the body


def title_and_body(item: markdown.Item) -> tuple[str, str]:
    """A memory's title and body from an item, as harvest makes them from a log item
    (``split_item``); an item that is only code or a table is titled by its heading, and "Run the
    tests with:" followed by a one-line code block becomes "Run the tests with: `pnpm test`"."""
    head, rest = item.head, list(item.rest)
    if item.steps:
        return head, "\n".join(rest).strip("\n")
    if not head:
        title = "".join(item.headings[-1:])  # the heading above, if any
        return title, "\n".join(rest).strip("\n")
    if (
        item.context
    ):  # the lead-in it was listed under often says when it applies: the body keeps it
        title, body = _title_and_body(head, rest)
        return title, f"{LISTED_UNDER}{item.context}\n\n{body}".strip()
    if head.endswith(":"):
        found = _ONE_LINE_CODE.fullmatch("\n".join(line.strip() for line in rest[:3]))
        if found and found.group(3) == found.group(1) and len(found.group(2)) <= _ONE_LINE_CODE_MAX:
            head, rest = f"{head} `{found.group(2)}`", rest[3:]
    return _title_and_body(head, rest)


def _title_and_body(head: str, rest: list[str]) -> tuple[str, str]:
    label = _bold_label(head)
    if label is not None and _is_label(label[0]):
        # "**Install Dependencies:** `npm install`": the label names what the rule is about, the
        # rest is the rule
        name, said = label[0].strip().rstrip(":").strip(), label[1].strip()
        joined = f"{name}: {said}"
        if said and len(joined) <= TITLE_SOFT:
            return split_item(LogItem("", 1, joined, rest))
    return split_item(LogItem("", 1, head, rest))


LABEL_WORDS = (
    4  # a bold label is a few words ("Error Handling"); a longer bold part is the rule itself
)


def _is_label(bold: str) -> bool:
    """Whether the bold part of ``**…**: rest`` only labels the rest (``Install Dependencies:``,
    ``Error Handling``) rather than stating the rule (``Postgres is the only datastore``, ``Pin Node
    20``).
    """
    text = bold.strip()
    if text.endswith(":"):
        return True
    return len(text.split()) <= LABEL_WORDS and not starts_imperative(text)


def _bold_label(head: str) -> tuple[str, str] | None:
    """``**Label**: rest`` (or ``__Label__``) as (label, rest); ``None`` for other text. A hand
    scan, not a pattern with a back-reference (linear time, and RE2 has none)."""
    marker = head[:2]
    if marker not in ("**", "__"):
        return None
    end = head.find(marker, 2)
    label = head[2:end]
    if end <= 2 or "*" in label or "_" in label:  # not closed, empty, or emphasis inside
        return None
    rest = head[end + 2 :].lstrip()
    if rest[:1] in (":", ".", "–", "—", "-"):
        rest = rest[1:].lstrip()
    return label, rest


DESCRIBED, LISTED_UNDER = (
    similar.CONTEXT_PREFIXES[1],
    similar.CONTEXT_PREFIXES[0],
)  # not what a rule says
_TAG = re.compile(r"[^a-z0-9]+")


def section_tag(section: str) -> str | None:
    """A tag from a section heading ("Code style" -> ``code-style``), or ``None`` when it gives
    none."""
    tag = _TAG.sub("-", section.lower()).strip("-")[:48].rstrip("-")
    return tag or None


def code_key(body: str) -> frozenset[str] | None:
    """The commands of a body that is only code blocks (an item titled by its heading: "Running
    Tests" then a block), to find the same block under another heading ("Testing") in another file;
    ``None`` for other bodies.
    """
    lines = [line.strip() for line in body.strip().split("\n")]
    if not lines[0].startswith(("```", "~~~")) or not lines[-1].startswith(("```", "~~~")):
        return None
    commands = specifics(body)
    return frozenset(commands) if len(commands) >= 2 else None
