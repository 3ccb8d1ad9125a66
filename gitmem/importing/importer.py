"""``gitmem import``: the hand-written rules a project already has become proposed memories.

Each rules file (``gitmem.importing.rulesfiles``) is read into items
(``gitmem.importing.markdown``), each item becomes a draft memory with a guessed kind
(``gitmem.importing.kinds``) and the file's scope as ``paths``. Then, in order:

1. an item holding a possible secret or hidden Unicode is refused (reported with its file, line and
   rule, never the secret) and the import goes on with the rest;
2. an item already imported (an import memory with the same title) or nearly repeating an existing
   active or proposed memory is reported, not added: importing twice adds nothing;
3. an item nearly repeating another item read before (the same rule in AGENTS.md and CLAUDE.md)
   joins its memory, whose scope widens to cover both;
4. an item nearly repeating a memory a human removed or retired (``gitmem.git.removed``) is refused,
   naming the memory and the commit that removed it, unless ``force``.

Every memory is checked like any write before the first is written, and written through
``Store.create``. The rules files themselves are only read, never written; gitmem's managed blocks
and the files gitmem generated whole are skipped (they are compiled output, not hand-written rules).
"""

from __future__ import annotations

import os
import posixpath
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from datetime import date
from itertools import groupby, takewhile
from pathlib import Path, PurePosixPath
from typing import Any

from gitmem import gateway
from gitmem.compile import block
from gitmem.compile.changes import linked_document
from gitmem.errors import CheckFailed, UsageError
from gitmem.git import removed
from gitmem.importing import kinds, markdown, rulesfiles
from gitmem.importing.rulesfiles import Format, Scope
from gitmem.importing.wording import DESCRIBED, code_key, section_tag, title_and_body
from gitmem.journal.intake import RULES_FILES, Fate, Intake
from gitmem.markdown import heading
from gitmem.memory.model import PRIORITIES, Memory, short_id, title_key, unique_id
from gitmem.memory.store import Snapshot, Store
from gitmem.project import MEMORY_DIR, Project
from gitmem.scan import find_hidden

IMPORT_HOPS = 5  # Claude Code follows @imports this deep
COUNTER_EXAMPLE = (
    "a counter-example (code labelled as what not to do), not a rule: --counter-examples imports it"
)
REVIEW_ONLY = (
    "Copilot code review only (excludeAgent: coding-agent): left in its file, which only code "
    "review reads; name it as a PATH to import it for every client"
)
REFUSED_BECAUSE = {
    "hidden-unicode": "hidden characters carry text a reviewer cannot see",
    "secret": "secrets never belong in memory; remove it from the rules file",
}
KEPT_PROSE = (
    "prose, a code block or a table: with --move it stays in the file (only list rules move "
    "into memories)"
)


@dataclass(frozen=True)
class Source:
    """Where an item is written: a file (relative to the repository root) and its lines."""

    path: str
    line: int
    end: int
    lead: int = field(
        default=0, compare=False
    )  # the lead-in line the item was listed under (0: none)

    def where(self) -> str:
        return (
            f"{self.path}:{self.line}"
            if self.end <= self.line
            else f"{self.path}:{self.line}-{self.end}"
        )

    def to_dict(self) -> dict[str, Any]:
        return {"path": self.path, "line": self.line, "end": self.end}


@dataclass
class Draft:
    """A memory to be: the item's text, kind and scope, and every place it was read (duplicates
    join it)."""

    title: str
    body: str
    kind: str
    kind_from: str
    paths: tuple[str, ...]
    priority: str
    sources: list[Source]
    tags: tuple[str, ...] = ()
    memory: Memory | None = None
    written: Path | None = None
    targets: tuple[
        str, ...
    ] = ()  # the one tool a line written for it is for (Copilot's `#problems`); () every tool

    def widen(self, paths: tuple[str, ...], priority: str) -> None:
        """Cover another occurrence's scope too: everywhere if either is, else both sets of globs;
        loaded as the more loaded of the two is (an always-on line beside an on-demand rule makes it
        always-on).
        """
        self.paths = (
            () if not self.paths or not paths else tuple(dict.fromkeys((*self.paths, *paths)))
        )
        self.priority = min(self.priority, priority, key=PRIORITIES.index)


@dataclass(frozen=True)
class Known:
    """An item that is already a memory."""

    source: Source
    title: str
    id: str
    status: str
    why: str  # "imported-before" | "duplicate"
    score: float = 1.0


@dataclass(frozen=True)
class Rejected:
    """An item that nearly repeats a memory a human removed or retired."""

    source: Source
    title: str
    rejected: removed.Rejected


@dataclass(frozen=True)
class Refused:
    """An item that cannot be imported: it holds a secret or hidden Unicode, or does not make a
    valid memory."""

    source: Source
    reason: str  # "secret" | "hidden-unicode" | "invalid"
    message: (
        str  # "AGENTS.md:12:9: possible secret (github-token): ghp_… (40 chars)": never the secret
    )


@dataclass(frozen=True)
class Skipped:
    path: str
    line: int  # 0: the whole file
    reason: str
    end: int = 0

    def where(self) -> str:
        """As ``Source.where``; the file alone for the whole file."""
        return Source(self.path, self.line, self.end).where() if self.line else self.path


@dataclass
class FileRead:
    """One rules file: its format and scope, and how many items it gave."""

    path: str
    label: str
    scope: Scope
    items: int = 0
    imported_by: str | None = None  # the file whose @import brought it in


@dataclass
class ImportReport:
    status: str  # what new memories get: "proposed", or "active" with --accept
    dry_run: bool
    files: list[FileRead] = field(default_factory=list)
    drafts: list[Draft] = field(default_factory=list)
    known: list[Known] = field(default_factory=list)
    rejected: list[Rejected] = field(default_factory=list)
    refused: list[Refused] = field(default_factory=list)
    skipped: list[Skipped] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)
    invalid_files: int = 0
    stays: list[Known] = field(
        default_factory=list
    )  # with --move: prose an earlier import made a memory, kept here

    def made(self) -> list[tuple[Draft, Memory]]:
        """Each draft with the memory it made (every draft, once the import has made them)."""
        return [(draft, draft.memory) for draft in self.drafts if draft.memory is not None]

    def also_memories(self) -> list[tuple[Source, str]]:
        """The hand-written lines that are now also memories, with the memory's id, in file
        order."""
        lines = [(source, memory.id) for draft, memory in self.made() for source in draft.sources]
        lines += [(known.source, known.id) for known in self.known]
        return sorted(lines, key=lambda pair: (pair[0].path, pair[0].line))


# -- which files -----------------------------------------------------------------------------------


def _relative(project: Project, path: Path) -> str | None:
    try:
        return gateway.real(path).relative_to(gateway.real(project.root)).as_posix()
    except ValueError:
        return None


def choose_files(project: Project, targets: Sequence[Path]) -> list[tuple[str, Format]]:
    """The rules files to read: those found in the repository, or under/at each of ``targets``;
    in reading order."""
    found = [
        (path, fmt)
        for path, fmt in rulesfiles.discovered(project.root)
        if path.rsplit("/", 1)[-1] != "CLAUDE.local.md"
    ]
    chosen: dict[str, Format] = {} if targets else dict(found)  # (found's paths are unique)
    for target in targets:
        relative = _named(project, target)
        if target.is_dir():  # (a file also named as a PATH has the same format)
            chosen.update(pair for pair in found if PurePosixPath(pair[0]).is_relative_to(relative))
        else:
            chosen.setdefault(relative, rulesfiles.format_of(relative) or rulesfiles.MARKDOWN)
    return sorted(chosen.items(), key=lambda pair: rulesfiles.rank(*pair))


def _named(project: Project, target: Path) -> str:
    """A PATH named to import, relative to the repository root (a usage error when it cannot be)."""
    relative = _relative(project, target)
    if relative is None:
        raise UsageError(
            f"{target}: outside the repository; import the rules files of this repository"
        )
    if not target.exists():
        raise UsageError(f"{target}: no such file or directory")
    if (relative + "/").startswith(MEMORY_DIR + "/"):
        raise UsageError(
            f"{target}: gitmem's own files are not imported; session logs are harvested with "
            "`gitmem journal harvest FILE`"
        )
    return relative


# -- reading one file ------------------------------------------------------------------------------


@dataclass
class _Read:
    lines: list[str]  # the file as written
    parsed: markdown.Parsed
    scope: Scope
    description: str = (
        ""  # a tool-folder rule's `description` (Cursor, Kiro, ...): when the tool applies it
    )
    # the document's title: its first `#` heading (says what the file is, not what a rule is)
    title: str = ""


def _read_file(
    project: Project, path: str, fmt: Format, report: ImportReport, named: bool = False
) -> _Read | None:
    """A rules file's items, or ``None`` (with the reason in ``report.skipped``) when it is not to
    be read (``named``: the user named it as a PATH)."""
    full = gateway.require(
        project, project.root / path, path
    )  # GEMINI.md -> /etc/passwd: refused, not read
    try:
        raw = gateway.read_bytes(project, full, limit=gateway.RULES_LIMIT, display=path)
    except OSError as exc:
        report.skipped.append(Skipped(path, 0, f"cannot read: {exc.strerror}"))
        return None
    except CheckFailed as exc:  # too large, not a regular file
        report.skipped.append(Skipped(path, 0, exc.problems[0].message))
        return None
    try:
        text = raw.decode("utf-8").removeprefix("\ufeff")
    except UnicodeDecodeError as exc:
        line = raw.count(b"\n", 0, exc.start) + 1
        report.skipped.append(Skipped(path, 0, f"not UTF-8 text (line {line})"))
        return None
    try:
        found = block.scan(text).found
    except block.BlockError as exc:
        report.skipped.append(
            Skipped(
                path,
                0,
                f"its gitmem markers do not pair up (line {exc.line}: {exc.message}): fix "
                "them first",
            )
        )
        return None
    lines = [
        line.removesuffix("\r") for line in text.removesuffix("\n").split("\n")
    ]  # numbered as editors do
    readable = list(lines)
    if found is not None:
        if found.kind == "file-hash":
            report.skipped.append(Skipped(path, 0, "generated whole by gitmem compile"))
            return None
        first = found.line
        last = first + found.block.rstrip("\n").count("\n")
        readable[first - 1 : last] = [""] * (last - first + 1)
        report.skipped.append(
            Skipped(path, first, "gitmem's managed block (compiled memories)", last)
        )
    front = rulesfiles.read_frontmatter(readable)
    readable[: front.lines] = [""] * front.lines
    if not named and rulesfiles.review_only(fmt, front):
        report.skipped.append(Skipped(path, 0, REVIEW_ONLY))
        return None
    try:
        scope = rulesfiles.scope_of(path, fmt, front)
    except rulesfiles.ScopeError as exc:
        report.skipped.append(Skipped(path, 0, f"{exc}: fix its frontmatter first"))
        return None
    description = front.fields.get("description") if fmt.folder is not None else None
    described = description.strip() if isinstance(description, str) else ""
    return _Read(lines, markdown.parse(readable), scope, described, _document_title(readable))


def _document_title(lines: list[str]) -> str:
    """The first heading of the file when it is a level-1 ``#`` heading (as the parser words
    headings), else ""."""
    for line in lines:
        if not line.strip():
            continue
        found = heading(line)
        if found is None or found[0] != 1:
            return ""
        return markdown.heading_text(found[1])
    return ""


# -- the import ------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Request:
    """One ``gitmem import``'s request: the rules files ``targets`` (none: all those found), read
    on ``today``, items compared with ``threshold``.

    ``accept``: the memories are active, not proposed; ``force``: import items that repeat a memory
    a human removed; ``dry_run``: write nothing. ``rules_only`` (``--move``): prose, code blocks and
    tables stay in their file (only list rules move), so they are not made memories too: the
    clients would read them twice. ``skills``: read the rules files of vendored skill bundles too;
    ``counter_examples``: import "Incorrect: …" code examples too (both are skipped, with the
    reason, otherwise).
    """

    today: date
    threshold: float
    targets: Sequence[Path] = ()
    accept: bool = False
    force: bool = False
    dry_run: bool = False
    rules_only: bool = False
    skills: bool = False
    counter_examples: bool = False


def import_rules(project: Project, store: Store, request: Request) -> ImportReport:
    """Import the rules files ``request`` names (all those found when it names none)."""
    report = ImportReport("active" if request.accept else "proposed", request.dry_run)
    snapshot = store.load()
    report.invalid_files = len({p.path for p in snapshot.problems})
    memories = snapshot.sorted()
    guard = removed.guard(project, snapshot, request.threshold)
    run = _Import(
        project,
        report,
        Intake(memories, guard, request.threshold, RULES_FILES, request.force),
        {_relative(project, target) for target in request.targets if target.is_file()},
        request,
    )
    for memory in memories:
        if memory.status != "retired" and memory.source == "import":
            run.imported.setdefault(title_key(memory.title), memory)
    queue = [_Queued(path, fmt) for path, fmt in choose_files(project, request.targets)]
    for queued in queue:  # a file's @imports join the queue, read in turn
        queue.extend(run.read(queued))
    _make_memories(report, store, snapshot, request.today)
    if not request.dry_run:
        for draft, memory in report.made():
            draft.written = store.create(memory, snapshot)
    return report


@dataclass(frozen=True)
class _Queued:
    """A file to read: found as a rules file, or (``importer``) named by another's ``@import``."""

    path: str
    fmt: Format
    inherited: Scope | None = None  # the importing file's scope
    importer: str | None = None
    hops: int = 0


@dataclass
class _Import:
    """One import: what it reports, what each item is compared with, and its request."""

    project: Project
    report: ImportReport
    intake: Intake[Draft]  # decides each item against the store and the drafts so far
    named: set[str | None]  # the files named as a PATH: read even if not rules
    request: Request
    imported: dict[str, Memory] = field(default_factory=dict)  # earlier imports, by title key
    # code-only drafts, by their code (none is stored under None, the key of every other item)
    by_code: dict[frozenset[str] | None, Draft] = field(default_factory=dict)
    seen: dict[str, str] = field(default_factory=dict)  # real path -> the path it was read as

    def read(self, queued: _Queued) -> list[_Queued]:
        """Read one file's items into the report; returns the files its ``@imports`` name."""
        read = self._open(queued)
        if read is None:
            return []
        path, fmt = queued.path, queued.fmt
        inherited = queued.inherited
        scope = inherited if inherited is not None and fmt is rulesfiles.MARKDOWN else read.scope
        info = FileRead(path, fmt.label, scope, imported_by=queued.importer)
        self.report.files.append(info)
        self.report.skipped.extend(Skipped(path, s.line, s.reason) for s in read.parsed.skipped)
        place = _Place(path, read.lines, scope, read.description, read.title, fmt.tool)
        covered: set[int] = set()
        for item in enumerations(read.parsed.items):
            covered.update(range(item.line, item.end + 1))
            if self._left_in_file(path, item):
                continue
            info.items += 1
            self.take(place, item)
        for char in find_hidden("\n".join(read.lines)):
            if char.line not in covered:
                self.report.warnings.append(
                    f"{path}:{char.line}:{char.column}: {char.describe()} outside the imported "
                    "items: check the file (hidden instructions are a known attack on rules files)"
                )
        return self._imports(queued, read, scope)

    def _open(self, queued: _Queued) -> _Read | None:
        """The file read, or ``None`` when it was read already (under another name) or is not to
        be."""
        path, skipped = queued.path, self.report.skipped
        real = os.path.realpath(self.project.root / path)
        if real in self.seen:
            if queued.importer is None:
                skipped.append(
                    Skipped(path, 0, f"the same file as {self.seen[real]} (a link): read once")
                )
            return None
        self.seen[real] = path
        if queued.importer is None and path not in self.named:
            not_rules = _not_rules(self.project, path, self.request.skills)
            if not_rules is not None:
                skipped.append(Skipped(path, 0, not_rules))
                return None
        return _read_file(self.project, path, queued.fmt, self.report, path in self.named)

    def _imports(self, queued: _Queued, read: _Read, scope: Scope) -> list[_Queued]:
        """The files the ``@imports`` of ``read`` name (each said in ``report.skipped``)."""
        path, out = queued.path, []
        for imported_file in read.parsed.imports:
            target = _resolve_import(self.project, path, imported_file.target)
            said = ", not a file in the repository" if target is None else f": read as {target}"
            self.report.skipped.append(
                Skipped(path, imported_file.line, f"imports @{imported_file.target}{said}")
            )
            if target is not None and queued.hops < IMPORT_HOPS:
                fmt = rulesfiles.format_of(target) or rulesfiles.MARKDOWN
                out.append(_Queued(target, fmt, scope, path, queued.hops + 1))
        return out

    def _left_in_file(self, path: str, item: markdown.Item) -> bool:
        """Whether ``item`` stays in its file, not imported: prose with --move (said as ``stays``
        when an earlier import made it a memory), or a counter-example."""
        skipped = self.report.skipped
        if self.request.rules_only and not item.bullet:
            skipped.append(Skipped(path, item.line, KEPT_PROSE, item.end))
            earlier = _imported_from(self.imported, item, path)
            if (
                earlier is not None
            ):  # an earlier import made it a memory: the text now stays here too
                source = Source(path, item.line, item.end)
                self.report.stays.append(
                    Known(source, earlier.title, earlier.id, earlier.status, "imported-before")
                )
            return True
        if not self.request.counter_examples and kinds.counter_example(item.head, item.rest):
            skipped.append(Skipped(path, item.line, COUNTER_EXAMPLE, item.end))
            return True
        return False

    def take(self, place: _Place, item: markdown.Item) -> None:
        """Decide what becomes of one item (``intake``): refused, known already, joined to a
        draft, rejected or a new draft."""
        source = Source(place.path, item.line, item.end, item.lead)
        title, body = title_and_body(item)
        if place.description:  # when the tool applies the rule: the memory keeps it
            body = f"{body}\n\n{DESCRIBED}{place.description}".strip()
        if not title:
            self.report.skipped.append(Skipped(place.path, item.line, "an item without text"))
            return
        key = code_key(body) if not item.head else None
        fate = self.intake.fate(
            title,
            body,
            text=place.text(item),
            before=self.imported.get(title_key(title)),
            same=self.by_code.get(key),
        )
        report, found, memory, draft = self.report, fate.found, fate.memory, fate.item
        if found is not None:
            where = f"{place.path}:{item.line + found.line - 1}:{found.column}"
            message = f"{where}: {found.describe()}: {REFUSED_BECAUSE[fate.why]}"
            report.refused.append(Refused(source, fate.why, message))
        elif memory is not None:
            score = round(fate.score, 3)
            report.known.append(Known(source, title, memory.id, memory.status, fate.why, score))
        elif draft is not None:  # covers this place too
            draft.sources.append(source)
            draft.widen(place.scope.paths, place.scope.priority)
            if draft.targets and kinds.tool_specific(place.tool, place.text(item)) is None:
                draft.targets = ()  # also written for every tool: for every tool
        elif fate.rejected is not None:
            report.rejected.append(Rejected(source, title, fate.rejected))
        else:
            draft = self._draft(place, item, source, (title, body), fate)
            if key is not None:  # the same code block under another heading joins it
                self.by_code.setdefault(key, draft)

    def _draft(
        self,
        place: _Place,
        item: markdown.Item,
        source: Source,
        said: tuple[str, str],
        fate: Fate[Draft],
    ) -> Draft:
        """A new draft of ``item`` (its title and body ``said``), which later items may join."""
        title, body = said
        kind, kind_from = kinds.guess(item.headings, title, item.bullet, place.title)
        tag = section_tag(item.section)
        only = kinds.tool_specific(place.tool, place.text(item))
        paths, priority = place.scope.paths, place.scope.priority
        draft = Draft(
            title, body, kind, kind_from, paths, priority, [source], (tag,) if tag else ()
        )
        draft.targets = (only,) if only else ()
        self.report.drafts.append(draft)
        self.intake.take(draft, title, body, fate)
        return draft


def _imported_from(imported: dict[str, Memory], item: markdown.Item, path: str) -> Memory | None:
    """The memory an earlier import made of ``item`` at ``path`` (same title, origin in that
    file), or ``None``."""
    memory = imported.get(title_key(title_and_body(item)[0]))
    if memory is None or not (memory.origin or "").startswith(path + ":") or memory.on_demand:
        return None
    return memory


def _not_rules(project: Project, path: str, skills: bool = False) -> str | None:
    """Why a file found as a rules file is not read as one, or ``None``; ``skills``: a skill
    bundle's files are."""
    document = linked_document(project, path)
    if (
        document is not None
    ):  # biome's CLAUDE.md -> CONTRIBUTING.md: the guide is not turned into proposals
        return (
            f"a link to {document}, a document that is not a rules file: not imported (the tool "
            "reads it as it is; compile leaves it alone); name it as a PATH to import it"
        )
    bundle = None if skills else rulesfiles.skill_bundle(project.root, path)
    if bundle is not None:
        return (
            f"part of the skill bundle {bundle} (loaded with its skill, on demand), not "
            "always-on rules: --skills imports it"
        )
    return rulesfiles.not_rules(path)


def _resolve_import(project: Project, importer: str, target: str) -> str | None:
    """The repository path an ``@import`` in ``importer`` names, when it is a file inside the
    repository."""
    if target.startswith("~"):
        return None
    if target.startswith("/"):
        relative = _relative(project, Path(target))
    else:
        base = posixpath.dirname(importer)
        relative = posixpath.normpath(posixpath.join(base, target))
    if relative is None or (relative + "/").startswith(("../", MEMORY_DIR + "/")):
        return None  # outside the repository, or gitmem's own files
    return relative if (project.root / relative).is_file() else None


@dataclass(frozen=True)
class _Place:
    """Where an item was read: the file, its lines and scope, and what the file says about all
    its items."""

    path: str
    lines: list[str]
    scope: Scope
    description: str  # a tool-folder rule's `description`
    title: str  # the document's title
    tool: str  # the tool whose file it is ("agents", "copilot", ...)

    def text(self, item: markdown.Item) -> str:
        """The item's lines as written."""
        return "\n".join(self.lines[item.line - 1 : item.end])


def enumerations(items: Sequence[markdown.Item]) -> list[markdown.Item]:
    """``items`` with each enumeration joined into one item: three or more items listed under the
    same lead-in, each a short entry that starts with a code span (deno's "start with one of these
    prefixes:" and twelve lines such as "`ci:` — CI changes"). Such a list is one rule (which
    prefixes exist), not twelve; the lead-in is its head and the entries its body."""
    out: list[markdown.Item] = []
    for (lead, context), listed in groupby(items, key=lambda item: (item.lead, item.context)):
        group = list(listed)
        entries = list(takewhile(_entry, reversed(group)))[::-1]  # the entries that end the list
        if not (lead and context and len(entries) >= 3):
            out.extend(group)
            continue
        out.extend(group[: len(group) - len(entries)])
        heads = [f"- {entry.head}" for entry in entries]
        out.append(replace(entries[0], head=context, rest=heads, end=entries[-1].end, context=""))
    return out


ENTRY_MAX = 80  # an enumeration's entry is short: a term and a few words about it


def _entry(item: markdown.Item) -> bool:
    head = item.head.strip()
    return (
        item.bullet
        and not item.rest
        and len(head) <= ENTRY_MAX
        and head.startswith("`")
        and head.find("`", 1) > 0
    )


def _make_memories(report: ImportReport, store: Store, snapshot: Snapshot, today: date) -> None:
    """Give each draft an id and a memory, checked like any write; a draft that fails is refused."""
    taken = store.taken_ids(snapshot)
    kept = []
    for draft in report.drafts:
        first = draft.sources[0]
        memory_id = unique_id(short_id(draft.title) or f"{draft.kind}-{first.line}", taken)
        memory = Memory(
            id=memory_id,
            title=draft.title,
            kind=draft.kind,
            status=report.status,
            body=draft.body,
            priority=draft.priority,
            paths=draft.paths,
            targets=draft.targets,
            tags=draft.tags,
            created=today,
            source="import",
            origin=f"{first.path}:{first.line}",
        )
        why = store.why_invalid(memory, snapshot)
        if why is not None:
            report.refused.append(
                Refused(first, "invalid", f"{first.where()}: does not make a valid memory ({why})")
            )
            continue
        taken.add(memory_id)
        draft.memory = memory
        kept.append(draft)
    report.drafts = kept
