"""Harvest: each item under Decisions, Difficulties and Conventions of a session log becomes a
proposed memory.

To-do items are never harvested. Harvesting is idempotent: an item already harvested from the same
log (same title, whatever its status now) is reported, not added again, and so is an item that
nearly duplicates an existing memory (``gitmem.memory.similar``). An item that nearly repeats a
memory a human removed or retired (``gitmem.git.removed``) is refused unless ``force``. Every memory
is checked like any write before the first one is written.
"""

from __future__ import annotations

import os
import textwrap
from dataclasses import dataclass, field
from datetime import date
from pathlib import Path

from gitmem import gateway
from gitmem.errors import CheckFailed, UsageError
from gitmem.git import removed
from gitmem.journal.intake import LOGS, Fate, Intake
from gitmem.journal.log import check_log
from gitmem.journal.markdown import CONVENTIONS, DECISIONS, DIFFICULTIES, TODO, Item, Skipped, parse
from gitmem.linear import linear
from gitmem.markdown import first_sentence
from gitmem.memory.model import Memory, short_id, title_key, unique_id
from gitmem.memory.store import Store
from gitmem.project import Project

KIND_OF = {DECISIONS: "decision", DIFFICULTIES: "pitfall", CONVENTIONS: "convention"}
TITLE_SOFT = 160  # an item up to this long is its own title
TITLE_MAX = 200  # the schema's limit
_BOLD_LABEL = linear(
    r"^(?:\*\*(.+?)\*\*|__(.+?)__)\s*(?:[:.–—-]\s*)?(.*)$"
)  # no back-reference: linear


@dataclass(frozen=True)
class Proposed:
    id: str
    kind: str
    title: str
    line: int
    path: Path


@dataclass(frozen=True)
class Known:
    """An item that is not added: already harvested, or nearly the same as an existing memory."""

    line: int
    title: str
    id: str
    score: float = 1.0


@dataclass
class HarvestReport:
    origin: str
    proposed: list[Proposed] = field(default_factory=list)
    harvested_before: list[Known] = field(default_factory=list)
    duplicates: list[Known] = field(default_factory=list)
    rejected: list[tuple[int, str, removed.Rejected]] = field(
        default_factory=list
    )  # (line, title, what it repeats)
    skipped: list[Skipped] = field(default_factory=list)
    todo: int = 0
    invalid_files: int = 0


def split_item(item: Item) -> tuple[str, str]:
    """A memory's title and body from a log item: a short item is its own title; a long one gives
    its first sentence (or a bold lead-in such as ``**Pin Node 20**: …``) as the title and the rest
    as the body; a first sentence too long for a title is cut at a word (``…``) and the body goes on
    from there (``…``), so no text is said twice."""
    head = " ".join(item.head.split())
    rest = textwrap.dedent("\n".join(item.rest)).strip("\n")
    lead = ""
    label = _BOLD_LABEL.match(head)
    text, said = (label.group(1) or label.group(2), label.group(3)) if label else ("", "")
    if len(text.split()) >= 2 and len(text) <= TITLE_MAX:
        title, lead = text.strip().rstrip(":").strip(), said.strip()
    elif len(head) <= TITLE_SOFT:
        title = head
    else:
        sentence = first_sentence(head)
        if sentence and len(sentence[0]) <= TITLE_SOFT:
            title, lead = sentence
        else:  # cut at a word; the body goes on from the cut, never repeating what the title says
            title = head[: TITLE_SOFT - 1].rsplit(" ", 1)[0]
            if title.count("`") % 2:  # never end inside a code span
                title = title[: title.rindex("`")]
            title = title.rstrip(" ,;:(")
            lead = "…" + head[len(title) :].lstrip(" ")
            title += "…"
    if title.endswith((".", ":")) and not title.endswith(".."):
        title = title[:-1]
    return title.strip(), "\n\n".join(filter(None, (lead, rest)))


# a line of an item that gives the words a teammate would use (``/remember`` asks for it)
WORDS_LABEL = "words:"
MAX_WORDS = 12
WORD_CHARS = 80


def item_words(item: Item) -> tuple[Item, tuple[str, ...]]:
    """A log item without its ``Words: a, b, c`` line (a wrapped line of its first paragraph, or one
    after it), and those words."""
    at = item.head.lower().find(" " + WORDS_LABEL)
    if at >= 0:
        rest, words = take_words(item.head[at + 1 :])
        if words:
            head = (item.head[:at] + " " + rest).strip()
            return Item(item.section, item.line, head, item.rest, item.bullet), words
    rest, words = take_words("\n".join(item.rest))
    if not words:
        return item, ()
    return Item(
        item.section, item.line, item.head, rest.split("\n") if rest else [], item.bullet
    ), words


def take_words(body: str) -> tuple[str, tuple[str, ...]]:
    """An item's body without its ``Words: a, b, c`` line, and those words (the memory's
    ``words``)."""
    kept: list[str] = []
    words: tuple[str, ...] = ()
    for line in body.split("\n"):
        stripped = line.strip().lstrip("-* ").strip()
        if not words and stripped[: len(WORDS_LABEL)].lower() == WORDS_LABEL:
            said = stripped[len(WORDS_LABEL) :].split(",")  # each unquoted, on one line, cut
            cut = (" ".join(w.strip().strip("`\"'").split())[:WORD_CHARS].strip() for w in said)
            words = tuple(dict.fromkeys(word for word in cut if word))[:MAX_WORDS]
            if words:
                continue
        kept.append(line)
    return "\n".join(kept).strip("\n"), words


def origin_of(project: Project, path: Path) -> str:
    """The log's path relative to the repository root, as stored in ``origin``."""
    try:
        return gateway.real(path).relative_to(gateway.real(project.root)).as_posix()
    except ValueError:
        raise UsageError(
            f"{path} is outside the repository: store it first with `gitmem journal add "
            f"{path}`, then harvest the stored log"
        ) from None


def _inside_if_in_repository(project: Project, path: Path, display: str) -> None:
    """A log named inside the repository (a committed one) must not lead outside it through a link;
    a file you name elsewhere is yours to read."""
    absolute = Path(os.path.abspath(path))
    if absolute.is_relative_to(os.path.abspath(project.root)):
        gateway.require(project, absolute, display)


@dataclass(frozen=True)
class Request:
    """One ``gitmem journal harvest``'s request: the log at ``path``, harvested on ``today``, its
    items compared with ``threshold``; ``force``: propose items that repeat a memory a human
    removed; ``dry_run``: write nothing."""

    path: Path
    today: date
    threshold: float
    dry_run: bool = False
    force: bool = False


def harvest(project: Project, store: Store, request: Request) -> HarvestReport:
    """Propose a memory for each new item of the log ``request.path``, each decided by ``Intake``
    (``LOGS``); with ``dry_run``, write nothing. An item that nearly repeats a removed or retired
    memory is refused (``HarvestReport.rejected``) unless ``force``.
    """
    text = _read_log(project, request.path)
    report = HarvestReport(origin_of(project, request.path))
    log = parse(text)
    report.skipped = list(log.skipped)
    report.todo = log.count(TODO)

    snapshot = store.load()
    report.invalid_files = len({p.path for p in snapshot.problems})
    taken = store.taken_ids(snapshot)
    from_this_log = {  # what was harvested from this log before, by title (never empty)
        title_key(m.title): m for m in snapshot.memories.values() if m.origin == report.origin
    }
    guard = removed.guard(project, snapshot, request.threshold)
    run: Intake[Memory] = Intake(snapshot.sorted(), guard, request.threshold, LOGS, request.force)

    pending: list[tuple[Memory, int]] = []
    for item in log.items:
        kind = KIND_OF.get(item.section)
        if kind is None or item.is_placeholder():
            continue
        item, words = item_words(item)
        title, body = split_item(item)
        if not title:
            report.skipped.append(Skipped(item.line, "item without text"))
            continue
        fate = run.fate(title, body, before=from_this_log.get(title_key(title)))
        if fate.why != "new":
            _not_harvested(report, item.line, title, fate)
            continue
        memory = Memory(
            id=unique_id(short_id(title) or f"{kind}-{item.line}", taken),
            title=title,
            kind=kind,
            status="proposed",
            body=body,
            words=words,
            created=request.today,
            source="journal",
            origin=report.origin,
        )
        why = store.why_invalid(memory, snapshot)
        if why is not None:
            report.skipped.append(Skipped(item.line, f"does not make a valid memory ({why})"))
            continue
        taken.add(memory.id)
        run.known(memory, fate)
        pending.append((memory, item.line))

    for memory, line in pending:
        written = store.path_of(memory.id) if request.dry_run else store.create(memory, snapshot)
        report.proposed.append(Proposed(memory.id, memory.kind, memory.title, line, written))
    report.skipped.sort(key=lambda s: s.line)
    return report


def _not_harvested(report: HarvestReport, line: int, title: str, fate: Fate[Memory]) -> None:
    """Report an item that is not proposed: it repeats a removed memory, was harvested before, or
    nearly repeats a memory or an item read before."""
    if fate.rejected is not None:
        report.rejected.append((line, title, fate.rejected))
    elif fate.memory is not None:
        known = Known(line, title, fate.memory.id, round(fate.score, 3))
        said = report.harvested_before if fate.why == "imported-before" else report.duplicates
        said.append(known)


def _read_log(project: Project, path: Path) -> str:
    """The text of the session log at ``path``, refused (nothing proposed) when it is unreadable
    or holds a secret."""
    display = project.display(path)
    _inside_if_in_repository(project, path, display)
    try:
        text = gateway.read_given(path, display=display).decode("utf-8")
    except FileNotFoundError:
        raise UsageError(
            f"{display}: no such file; `gitmem journal list` shows the stored logs"
        ) from None
    except IsADirectoryError:
        raise UsageError(f"{display}: is a directory; give one session log") from None
    except UnicodeDecodeError as exc:
        raise UsageError(f"{display}: not UTF-8 text (byte {exc.start})") from None
    try:
        check_log(text, display)
    except CheckFailed as exc:
        raise CheckFailed(
            exc.problems,
            "refused: nothing was proposed. Store a redacted copy with `gitmem journal add "
            f"--redact {display}` and harvest that",
        ) from None
    return text
