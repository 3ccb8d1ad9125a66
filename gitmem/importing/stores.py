"""Reading an AI client's own memory store (``gitmem.clientstores`` says where it is) into entries.

Four formats, as the clients write them (docs/import.md has the details and the versions read):

- ``typed``: a folder of Markdown files, one memory each, with ``name``/``description``/``type``
  frontmatter (``type`` at the top, or under ``metadata:`` as Claude Code 2.1 writes it), beside a
  ``MEMORY.md`` index of ``- [Title](file.md) — hook`` pointers, which is skipped. Claude Code and
  Qwen Code.
- ``notes``: Gemini CLI's private project memory: a ``MEMORY.md`` index and sibling notes, free
  Markdown; every bullet or paragraph is an entry, a line of links only (a pointer to a note) is
  not.
- ``task-groups``: Codex's ``MEMORY.md``: ``# Task Group:`` blocks, each with ``applies_to:
  cwd=<folder>``; the bullets under a block's ``## User preferences``, ``## Reusable knowledge`` and
  ``## Failures and how to do differently`` of the blocks whose folder is this repository (or inside
  it). The ``## Task`` routing sections are not memories.
- ``raw-memories``: Codex's ``raw_memories.md``: one ``## Thread`` block per session, whose ``cwd:``
  names the folder it ran in; the bullets under a block's ``Reusable knowledge:``, ``Failures and
  how to do differently:`` and ``Preference signals:`` of the blocks whose folder is this repository
  (or inside it). ``References:`` (verbatim commands and strings) are not memories.
- ``section``: the bullets under ``## Gemini Added Memories`` / ``## Qwen Added Memories`` in the
  user's global ``GEMINI.md`` / ``QWEN.md``, which the clients' ``save_memory`` tool appended to
  (all personal).

Every read goes through ``read_store_file`` (and the file gateway, held to the place's root: the
repository for a store inside it, the client's folder at home): bounded (``MAX_BYTES`` a file,
``MAX_FILES`` a store), and a link that leads out of the store's folder is refused, as is a store
folder that is itself a link and a link on the way to the store that leads out of its root
(``gitmem.clientstores.refusal``). Nothing else is opened.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import cached_property, partial
from itertools import dropwhile, islice
from pathlib import Path

from gitmem import gateway
from gitmem.clientstores import (
    FILE_FORMATS,
    MAX_BYTES,
    MAX_FILES,
    Place,
    StoreFormat,
    canonical_root,
    listing,
    refusal,
)
from gitmem.errors import shown
from gitmem.importing import kinds, markdown
from gitmem.importing.rulesfiles import read_frontmatter
from gitmem.importing.wording import title_and_body
from gitmem.scan.transcripts import session_folder

PERSONAL_TYPES = ("user",)  # Claude Code and Qwen Code: "always private"
TYPE_KINDS = {
    "user": "preference",
    "feedback": "convention",
    "reference": "fact",
}  # "project": by its wording
CODEX_SECTIONS = {
    "user preferences": "preference",
    "reusable knowledge": None,  # by its wording
    "failures and how to do differently": "pitfall",
}
SECTION_HEADINGS = ("## gemini added memories", "## qwen added memories")
# An entry that speaks of the user is personal, wherever it is kept.
_PERSONAL_OPENINGS = (
    "the user ",
    "user prefers",
    "user likes",
    "user wants",
    "i prefer",
    "i like",
    "my ",
    "i'm ",
)


class StoreRefused(Exception):
    """A store file that is not read: a link out of the store, too big, not a regular file, not
    UTF-8."""


@dataclass
class Entry:
    """One memory a client keeps: its text and where it is (``origin``:
    ``client:part/file:line``)."""

    client: str
    path: Path
    # "memory/feedback_testing.md": the part of the store and the file, never the home folder
    where: str
    line: int
    end: int
    # what the entry is, across runs: the file for a typed memory, the file and the text for a
    # bullet
    key: str
    title: str
    body: str
    kind: str
    kind_from: str
    personal: bool
    text: str  # the entry's lines as written (scanned before anything else is done with it)
    multi: bool = False  # one of several entries of its file (a bullet), not the whole file
    first: int = 1  # the line of the file ``text`` starts at
    session: str = (
        ""  # the client's session the memory was made in (Claude Code's ``originSessionId``)
    )
    # the folder that session ran in, relative to the repository ("." its root), when recorded
    made_in: str = ""

    @property
    def origin(self) -> str:
        """``client:part/file:line``, and whose it is when the client recorded it: ``(made in
        web)``."""
        where = f"{self.client}:{self.where}:{self.line}"
        return f"{where} (made in {self.made_in})" if self.made_in else where

    def digest(self) -> str:
        return hashlib.sha256(
            f"{self.title}\n{self.body}".encode("utf-8", "surrogatepass")
        ).hexdigest()[:16]


@dataclass
class StoreRead:
    entries: list[Entry] = field(default_factory=list)
    files: list[tuple[Place, str]] = field(
        default_factory=list
    )  # (place, where) of every file read
    skipped: list[tuple[str, int, str]] = field(default_factory=list)  # (where, line, reason)
    refused: list[tuple[str, str]] = field(default_factory=list)  # (where, reason): files not read


# Why the gateway did not read a store file, by what it raised.
_NOT_READ: dict[type[Exception], str] = {
    gateway.TooLarge: f"over the {MAX_BYTES // 1024} KiB limit of a store file",
    gateway.NotRegular: "not a regular file",
    gateway.OutsideRoot: "a link leading out of the store: not followed",
}


def read_store_file(place: Place, path: Path) -> str:
    """The text of one file of a store; every read of a client's store goes through here, and
    through the file gateway, held to the store's own folder (``read_place`` refused a store folder
    that is a link before). Refused: a link leading out of the store's folder, a file that is not
    regular, over ``MAX_BYTES`` or not UTF-8.
    """
    if not gateway.is_inside(path, [place.base]):
        raise StoreRefused(_NOT_READ[gateway.OutsideRoot])
    try:
        raw = gateway.read_bytes(place.root, path, limit=MAX_BYTES)
    except (gateway.TooLarge, gateway.NotRegular, gateway.OutsideRoot) as exc:
        raise StoreRefused(_NOT_READ[type(exc)]) from None
    except OSError as exc:
        raise StoreRefused(f"cannot read: {exc.strerror}") from None
    try:
        return raw.decode("utf-8").removeprefix("\ufeff")
    except UnicodeDecodeError as exc:
        line = raw.count(b"\n", 0, exc.start) + 1
        raise StoreRefused(f"not UTF-8 text (line {line})") from None


def read_place(place: Place, root: Path) -> StoreRead:
    """Every entry of one place of a store (``root``: the repository, for Codex's task groups)."""
    read = StoreRead()
    reason = refusal(place)
    if reason is not None:
        read.refused.append((place.label, reason))
        return read
    owners = Owners(place, place.logs, root) if place.logs is not None else None
    files = list(listing(place, MAX_FILES + 1))
    if len(files) > MAX_FILES:
        files = files[:MAX_FILES]
        read.skipped.append(
            (place.label, 0, f"more than {MAX_FILES} files: the first {MAX_FILES} were read")
        )
    for path, _ in files:
        where = _where(place, path)
        if place.format == "typed" and path.name == "MEMORY.md":
            read.skipped.append(
                (where, 0, "the index (pointers to the memory files, read one by one)")
            )
            continue
        try:
            text = read_store_file(place, path)
        except StoreRefused as exc:
            read.refused.append((where, str(exc)))
            continue
        read.files.append((place, where))
        lines = [line.removesuffix("\r") for line in text.removesuffix("\n").split("\n")]
        file = _File(place, path, where, lines, root, read, owners)
        read.entries.extend(_READERS[place.format](file))
    return read


@dataclass(frozen=True)
class _File:
    """One file of a store being read: its place, path and name in origins (``where``), its lines,
    the repository's root, what the read says so far, and whose the place's memories are."""

    place: Place
    path: Path
    where: str
    lines: list[str]
    root: Path
    read: StoreRead
    owners: Owners | None


def _typed_entry(file: _File) -> list[Entry]:
    """A typed memory file's entry: none (said in ``read``) without a memory type, or when another
    folder's session made it."""
    entry = _typed(file.place, file.path, file.where, file.lines)
    if entry is None:
        message = "no frontmatter with a memory type: not one of the client's memories"
        file.read.skipped.append((file.where, 0, message))
        return []
    why = file.owners.not_ours(entry) if file.owners is not None else None
    if why is not None:
        file.read.skipped.append((file.where, 0, why))
        return []
    return [entry]


# -- whose a memory is: the sessions that share the store's project key ----------------------------

MAX_KEYS = (
    10_000  # project folders looked through for a session's transcript kept under another key
)
MAX_LOGS = 100_000  # transcript names listed from them


class Owners:
    """The folders the sessions kept under a store's project key ran in (``Place.logs``): a client
    whose key is lossy (Claude Code, Qwen Code: ``acme-payroll`` and ``acme.payroll`` share one)
    keeps every such folder's memories in one store, so each memory is this repository's only when
    the session it was made in ran here (Claude Code records it: ``originSessionId``, whose
    transcript names its ``cwd``). A memory made in another folder is not read; one whose session is
    not recorded (Qwen Code records none; Claude Code removes old transcripts) is read only while no
    other folder is known to share the store. Transcripts are read through the same checks as the
    store (``refusal``; links leading out refused), at most ``MAX_FILES`` of them, each as
    ``gitmem.scan.transcripts.session_folder`` reads it.
    """

    def __init__(self, place: Place, logs: Path, root: Path) -> None:
        self.place, self.logs = place, logs  # the folder of the store's transcripts
        self.root = root
        self.repository = canonical_root(root)
        self.sessions: dict[
            str, str | None
        ] = {}  # session id -> the folder it ran in (None: not recorded)
        # folders other than this repository's, in the order found (a refusal names the first)
        self.others: list[str] = []
        if not self._readable(logs) or not logs.is_dir():
            return
        found = sorted(os.scandir(logs), key=lambda item: item.name)
        for item in [item for item in found if item.name.endswith(".jsonl")][:MAX_FILES]:
            folder = self._folder(Path(item.path))
            if folder is None:
                continue
            self.sessions[item.name.removesuffix(".jsonl")] = folder
            if self.relative(folder) is None:
                self.others.append(folder)

    def _readable(self, path: Path) -> bool:
        """Whether ``path`` (a transcript or its folder) may be read: the store's checks, no
        link, inside its root."""
        if refusal(self.place) is not None:
            return False
        return not os.path.islink(path) and gateway.is_inside(path, [self.place.root])

    def _folder(self, path: Path) -> str | None:
        return session_folder(path) if self._readable(path) else None

    def session(self, session: str) -> str | None:
        """The folder ``session`` ran in: its transcript beside the store, or (Claude Code keys a
        linked worktree's transcripts on the worktree, its memory on the main one) under a sibling
        key.
        """
        if session not in self.sessions:
            path = self._elsewhere.get(f"{session}.jsonl")
            self.sessions[session] = self._folder(path) if path is not None else None
        return self.sessions[session]

    @cached_property
    def _elsewhere(self) -> dict[str, Path]:
        """The transcripts under the sibling keys, by name (listed once, at most ``MAX_KEYS``
        folders and ``MAX_LOGS`` names)."""
        siblings: dict[str, Path] = {}
        logs = self.logs
        if not self._readable(logs.parent):
            return siblings
        with contextlib.suppress(OSError):
            for key in islice(os.scandir(logs.parent), MAX_KEYS):
                if len(siblings) >= MAX_LOGS:
                    break
                if key.path == str(logs) or not key.is_dir(follow_symlinks=False):
                    continue
                with contextlib.suppress(OSError):
                    for item in os.scandir(key.path):
                        if item.name.endswith(".jsonl"):
                            siblings.setdefault(item.name, Path(item.path))
        return siblings

    def relative(self, folder: str) -> str | None:
        """``folder`` relative to the repository (``.`` its root), or None when it is another
        folder. A linked worktree of the same repository counts as this repository."""
        for base in dict.fromkeys((self.root, self.repository)):
            given, top = os.path.normpath(folder), os.path.normpath(str(base))
            if given == top:
                return "."
            if given.startswith(top.rstrip(os.sep) + os.sep):
                return Path(given[len(top) + 1 :]).as_posix()
        if (
            os.path.isabs(folder)
            and os.path.isdir(folder)
            and canonical_root(Path(folder)) == self.repository
        ):
            return "."
        return None

    def not_ours(self, entry: Entry) -> str | None:
        """Why ``entry`` is not read as this repository's (None: it is; ``entry.made_in`` is set
        when recorded)."""
        folder = self.session(entry.session) if entry.session else None
        if folder is not None:
            made_in = self.relative(folder)
            if made_in is None:
                return (
                    f"made in another folder ({shown(folder)}) whose project key is this "
                    "repository's too: not this repository's memory"
                )
            entry.made_in = made_in
            return None
        if self.others:
            what = (
                "its session is not recorded"
                if entry.session
                else "the client records no session for it"
            )
            return (
                f"{what}, and another folder ({shown(self.others[0])}) shares this store's project "
                "key: whose it is cannot be told"
            )
        return None


def _where(place: Place, path: Path) -> str:
    """A store file's name in origins: the place's label, and for a folder the file inside it
    (``listing`` lists a folder's files under it)."""
    if place.format in FILE_FORMATS:
        return place.label
    return f"{place.label}/{path.relative_to(place.path).as_posix()}"


def _personal_words(text: str) -> bool:
    return text.lower().startswith(_PERSONAL_OPENINGS)


# -- typed: one memory per file --------------------------------------------------------------------


def _typed(place: Place, path: Path, where: str, lines: list[str]) -> Entry | None:
    front = read_frontmatter(lines)  # none: no type, so not a memory
    fields = {key: value for key, value in front.fields.items() if isinstance(value, str)}
    fields.update(_nested(lines[: front.lines], "metadata"))  # Claude Code 2.1: metadata: {type: …}
    kind_type = fields.get("type", "").strip().lower()
    if kind_type not in ("user", "feedback", "project", "reference"):
        return None
    text = _typed_text(fields, lines[front.lines :])
    if text is None:
        return None
    title, body, first = text
    if kind_type in TYPE_KINDS:
        kind, kind_from = TYPE_KINDS[kind_type], f"type {kind_type}"
    else:
        kind, kind_from = kinds.guess((), f"{title} {body}", False)
        kind_from = f"type {kind_type}, {kind_from}"
    team = place.label == "team-memory" or where.startswith("memory/team/")
    chosen = kind_type in PERSONAL_TYPES or fields.get("scope", "").strip() in (
        "person",
        "private",
        "user",
    )
    personal = place.personal or (not team and (chosen or _personal_words(title)))
    start = front.lines + 1 + first
    entry = Entry(
        place.client,
        path,
        where,
        start,
        len(lines),
        f"{place.client}:{where}",
        title,
        body,
        kind,
        kind_from,
        personal,
        "\n".join(lines),
    )
    entry.session = fields.get("originSessionId", "").strip()
    return entry


def _typed_text(fields: dict[str, str], content: list[str]) -> tuple[str, str, int] | None:
    """(title, body, the line the text starts at, 0-based in ``content``) of a memory file: the
    title from its ``description`` (else its ``# heading``, its ``name``, its first line)."""
    lines = list(dropwhile(lambda line: not line.strip(), content))
    if not lines and not fields.get("description"):
        return None
    first = len(content) - len(lines) if lines else 0  # (its first line when it has none)
    top = next(iter(lines), "")
    heading = top.lstrip("#").strip() if top.startswith("# ") else ""
    named = fields.get("description", "").strip() or heading or fields.get("name", "").strip()
    lines = lines[1:] if heading or not named else lines  # the heading, or the first line, titles
    head = named or top.strip()
    body = "\n".join(lines).strip("\n")
    title, extra = title_and_body(markdown.Item(1, 1, " ".join(head.split()), []))
    return title, "\n\n".join(filter(None, (extra, body))), first


def _nested(front: list[str], key: str) -> dict[str, str]:
    """The ``key:`` mapping's indented ``name: value`` lines in frontmatter (one level)."""
    found: dict[str, str] = {}
    inside = False
    for line in front[1:-1]:
        if not line.strip():
            continue
        if not line[0].isspace():
            name, _, value = line.partition(":")
            inside = name.strip() == key and not value.strip()
            continue
        if inside and ":" in line:
            name, value = line.strip().split(":", 1)
            found[name.strip()] = value.strip().strip("'\"")
    return found


# -- bullets and paragraphs ------------------------------------------------------------------------


def _items(file: _File, lines: list[str], read: StoreRead) -> list[Entry]:
    """One entry per bullet or paragraph of ``lines`` (the file's, some blanked: those are not
    read), kinds by heading or wording; what the parser skipped is said in ``read``."""
    place, path, where = file.place, file.path, file.where
    parsed = markdown.parse(lines)
    read.skipped.extend((where, s.line, s.reason) for s in parsed.skipped)
    entries = []
    for item in parsed.items:
        title, body = title_and_body(item)
        if not title:
            continue
        kind, kind_from = kinds.guess(item.headings, title, item.bullet)
        text = "\n".join(lines[item.line - 1 : item.end])
        entries.append(
            Entry(
                place.client,
                path,
                where,
                item.line,
                item.end,
                f"{place.client}:{where}#{_short(title)}",
                title,
                body,
                kind,
                kind_from,
                place.personal or _personal_words(title),
                text,
                multi=True,
                first=item.line,
            )
        )
    return entries


def _short(title: str) -> str:
    words = " ".join(title.lower().split())
    return hashlib.sha256(words.encode("utf-8", "surrogatepass")).hexdigest()[:12]


def _bullets(file: _File) -> list[Entry]:
    front = read_frontmatter(file.lines)
    readable = [""] * front.lines + file.lines[front.lines :]
    return _items(file, readable, file.read)


def _section(file: _File) -> list[Entry]:
    """The bullets of the ``save_memory`` section (to the next heading of its level or above)."""
    readable = [""] * len(file.lines)
    inside = False
    for number, line in enumerate(file.lines):
        low = line.strip().lower()
        if low.startswith(("## ", "# ")):  # a heading: the section's starts it, any other ends it
            inside = low in SECTION_HEADINGS
        elif inside:
            readable[number] = line
    return _items(file, readable, StoreRead())  # (what it skipped is not said)


@dataclass(frozen=True)
class _Blocks:
    """A file of blocks, each about one repository (Codex's task groups and raw memories): of the
    blocks about this one, the lines under a label ``kinds`` names are read (``_labelled``), each
    entry of the kind its label says (``None``: by its wording)."""

    first: str  # a block's first line starts with it
    whole: bool  # a file without such a line is one block
    what: str  # what a block is, in the note that none is about this repository
    here: Callable[[list[str], Path], bool]  # whether a block's lines are about the repository
    label: Callable[[str], str | None]  # the label a line starts (lower case), or None
    kinds: dict[str, str | None]
    said: str  # where an entry's kind came from: 'section "…"', 'label "…"'
    personal: str  # the label whose entries are the user's own
    heading: bool  # the label's own line is read too (a heading over the entries)
    tidy: Callable[[str], str] = str  # an entry's title as kept


def _labels(blocks: _Blocks, file: _File) -> dict[int, str]:
    """The lines of ``file`` to read (by index), each with the label of ``blocks.kinds`` it is
    under; when no block is about this repository, the read says so."""
    lines = file.lines
    found = _blocks(lines, blocks.first) or ([(0, len(lines))] if blocks.whole else [])
    here = [(start, stop) for start, stop in found if blocks.here(lines[start:stop], file.root)]
    if found and not here:
        file.read.skipped.append(
            (file.where, 0, f"{len(found)} {blocks.what}, none for this repository")
        )
    labels: dict[int, str] = {}
    for start, stop in here:
        label = ""  # the label the line is under (one ``blocks.kinds`` does not name: not read)
        for number in range(start + 1, stop):
            starts = blocks.label(lines[number])
            if starts is not None:
                label = starts
            if label in blocks.kinds and (starts is None or blocks.heading):
                labels[number] = label
    return labels


def _labelled(blocks: _Blocks, file: _File) -> list[Entry]:
    """The entries of a file of ``blocks``: each of the kind its label says, personal under the
    personal label."""
    labels = _labels(blocks, file)
    readable = [line if number in labels else "" for number, line in enumerate(file.lines)]
    entries = _items(file, readable, file.read)
    for entry in entries:
        label = labels.get(entry.line - 1, "")
        kind = blocks.kinds.get(label)
        if kind is not None:
            entry.kind, entry.kind_from = kind, f'{blocks.said} "{label}"'
        entry.personal = entry.personal or label == blocks.personal
        entry.title = blocks.tidy(entry.title)
    return entries


def _blocks(lines: list[str], prefix: str) -> list[tuple[int, int]]:
    """The blocks of ``lines`` that each begin with a line starting with ``prefix``: (first line,
    the line after the last), by index."""
    starts = [i for i, line in enumerate(lines) if line.startswith(prefix)]
    return list(zip(starts, [*starts[1:], len(lines)][: len(starts)], strict=True))


RAW_LABELS = {
    "reusable knowledge:": None,  # by its wording
    "failures and how to do differently:": "pitfall",
    "preference signals:": "preference",  # and personal
}


def _group_here(lines: list[str], root: Path) -> bool:
    """A task group is about the repository its ``applies_to:`` line (in its first lines) names."""
    return any(_applies_here(line, root) for line in lines[:6])


def _thread_here(lines: list[str], root: Path) -> bool:
    """A raw memory is about the repository its ``cwd:`` line names."""
    cwd = next((line for line in lines if line.startswith("cwd:")), "")
    return _inside_root(cwd.removeprefix("cwd:"), root)


def _section_name(line: str) -> str | None:
    return line[3:].strip().lower() if line.startswith("## ") else None


def _raw_label(line: str) -> str | None:
    low = line.strip().lower()
    labelled = low.startswith("### ") or (low.endswith(":") and not low.startswith("- "))
    return low if labelled else None


def _inside_root(folder: str, root: Path) -> bool:
    """``folder`` (as a client recorded it, maybe quoted) is ``root`` or a folder inside it."""
    folder = folder.strip().strip("`'\"")
    if not os.path.isabs(folder):
        return False
    base, given = os.path.normpath(str(root)), os.path.normpath(folder)
    return (given + os.sep).startswith(base.rstrip(os.sep) + os.sep)


def _applies_here(line: str, root: Path) -> bool:
    """``applies_to: cwd=/path/to/repo; reuse_rule=…`` names this repository (or a folder inside
    it)."""
    if not line.startswith("applies_to:") or "cwd=" not in line:
        return False
    return _inside_root(line.split("cwd=", 1)[1].split(";", 1)[0], root)


def _strip_task_refs(title: str) -> str:
    """``… [Task 1][Task 2]`` -> ``…``: Codex's references to its own task sections."""
    text = title.rstrip()
    while text.endswith("]"):
        before, task, number = text[:-1].rpartition("[Task ")
        if not task or not number.strip().isdigit():
            break
        text = before.rstrip()
    return text or title


_TASK_GROUPS = _Blocks(
    "# Task Group:", False, "task group(s)", _group_here, _section_name, CODEX_SECTIONS,
    "section", "user preferences", heading=True, tidy=_strip_task_refs,
)  # fmt: skip
_RAW_MEMORIES = _Blocks(
    "## Thread", True, "raw memory(ies)", _thread_here, _raw_label, RAW_LABELS, "label",
    "preference signals:", heading=False,
)  # fmt: skip
# How each format of a store's place is read (``gitmem.clientstores.StoreFormat``).
_READERS: dict[StoreFormat, Callable[[_File], list[Entry]]] = {
    "typed": _typed_entry,
    "notes": _bullets,
    "task-groups": partial(_labelled, _TASK_GROUPS),
    "raw-memories": partial(_labelled, _RAW_MEMORIES),
    "section": _section,
}
