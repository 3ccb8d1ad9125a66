"""``gitmem import --from CLIENT``: what an AI client remembered on its own becomes proposed
memories.

The client's store for this repository (``gitmem.clientstores``: where; ``gitmem.importing.stores``:
reading it) is read, never written. Then, for each entry, in order:

1. an entry holding a possible secret or hidden Unicode is refused, with its file, line and rule,
   and its text goes nowhere (not in a proposal, the record, the output or the JSON);
2. a personal entry (Claude Code's and Qwen Code's ``user`` type, Codex's user preferences, the
   global ``save_memory`` sections, an entry about "the user") goes to the personal store with
   ``user``, else is skipped;
3. an entry imported before is known: unchanged, nothing happens; edited by the client since, it is
   proposed as a change of the memory it became (that proposal itself while it waits for review,
   else a new proposal that ``supersedes`` it); imported before and since removed or retired by a
   human, it is not proposed again;
4. an entry nearly repeating a memory (or another entry of this run) is known; one nearly repeating
   a memory a human removed or retired (``gitmem.git.removed``) is refused, naming it, unless
   ``force``;
5. the rest become proposals (``status: proposed``, ``source: import``, ``origin:
   client:part/file:line``).

What was imported is recorded in ``.git/gitmem/client-imports.json`` (never committed): each entry's
key, the memory it became and a digest of its text (never the text), and the sizes and times of the
store's files, which the session-start status compares without reading them
(``gitmem.clientstores.pending``).
"""

from __future__ import annotations

import json
import os
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import date
from pathlib import Path
from typing import Any

from gitmem import clientstores, gateway
from gitmem.git import removed
from gitmem.importing.stores import Entry, read_place
from gitmem.journal.intake import CLIENTS, Intake, sensitive
from gitmem.memory import similar
from gitmem.memory.model import Memory, short_id, title_key, unique_id
from gitmem.memory.store import Snapshot, Store
from gitmem.project import Project
from gitmem.scan import Finding
from gitmem.scopes.personal import ensure_store

EDIT_SIMILARITY = (
    0.5  # a bullet the client reworded: at least this alike to the one that vanished from its file
)


@dataclass
class Proposal:
    entry: Entry
    memory: Memory
    scope: str  # "project" | "personal"
    change: str  # "new" | "update" (the proposal itself, still waiting for review) | "supersede"
    of: str | None = None  # the memory it changes
    written: Path | None = None


@dataclass(frozen=True)
class Outcome:
    """An entry that is not proposed, and why (``why``: imported-before, duplicate, rejected-before,
    removed, personal)."""

    origin: str
    title: str  # "" for a refused entry: its text goes nowhere
    why: str
    id: str | None = None
    detail: str = ""


@dataclass
class ClientRead:
    name: str
    label: str
    version: str
    places: list[str] = field(
        default_factory=list
    )  # the parts of the store that exist, as "~/…" or repo paths
    looked: list[str] = field(default_factory=list)  # every part looked for
    files: int = 0
    entries: int = 0


@dataclass
class ClientImport:
    dry_run: bool
    user: bool
    clients: list[ClientRead] = field(default_factory=list)
    proposals: list[Proposal] = field(default_factory=list)
    known: list[Outcome] = field(default_factory=list)
    rejected: list[Outcome] = field(default_factory=list)
    refused: list[Outcome] = field(default_factory=list)
    skipped: list[Outcome] = field(default_factory=list)
    found: list[tuple[Entry, str, str]] = field(
        default_factory=list
    )  # (entry, memory, scope) known by its origin


class _Target:
    """One store the proposals go to (the repository's, or the personal one), with what it holds."""

    def __init__(self, project: Project, store: Store, request: Request, scope: str) -> None:
        self.project, self.store, self.scope = project, store, scope
        self.snapshot: Snapshot = store.load()
        memories = self.snapshot.sorted()
        self.origins: dict[str, Memory] = {}
        for memory in memories:
            if memory.source == "import" and memory.origin:
                self.origins.setdefault(_origin_key(memory.origin, memory.title), memory)
        threshold = request.threshold
        guard = (  # the personal store's memories have no history in the repository
            removed.guard(project, self.snapshot, threshold)
            if scope == "project"
            else removed.Guard((), threshold)
        )
        self.intake: Intake[Proposal] = Intake(memories, guard, threshold, CLIENTS, request.force)
        self.taken = set(self.snapshot.memories) | set(self.snapshot.files)


def _origin_key(origin: str, title: str) -> str:
    """What an origin names, whatever its line and folder: ``claude:memory/x.md:7 (made in web)`` ->
    ``claude:memory/x.md`` and the title."""
    origin = origin.split(" (made in ", 1)[0]
    head, _, line = origin.rpartition(":")
    return f"{head if line.isdigit() else origin}\n{title_key(title)}"


def home_folder() -> Path:
    return Path.home()


@dataclass(frozen=True)
class Request:
    """One ``gitmem import --from``'s request: the clients ``names``, read on ``today``, entries
    compared with ``threshold``.

    ``personal`` (the personal scope and store): read the clients' personal places too, their
    entries going there; ``home``: the home folder the clients keep their stores under;
    ``force``: propose entries that repeat a memory a human removed; ``dry_run``: write nothing.
    """

    names: Sequence[str]
    today: date
    threshold: float
    personal: tuple[Project, Store] | None = None
    home: Path | None = None
    force: bool = False
    dry_run: bool = False


@dataclass
class _Run:
    """One import from the clients: its report, the stores it proposes to and its record."""

    report: ClientImport
    targets: dict[str, _Target]
    ledger: dict[str, Any]


def import_clients(project: Project, store: Store, request: Request) -> ClientImport:
    """Import what the clients ``request.names`` remember of this repository; with
    ``request.dry_run``, write nothing."""
    home = request.home or home_folder()
    user = request.personal is not None
    report = ClientImport(request.dry_run, user)
    targets = {"project": _Target(project, store, request, "project")}
    if request.personal is not None:
        personal = _Target(*request.personal, request, "personal")
        personal.intake.items = targets["project"].intake.items  # one run: its entries in both
        targets["personal"] = personal
    run = _Run(report, targets, _load_ledger(project))
    for name in request.names:
        info, entries, stamps = _read_client(report, name, project.root, home, user)
        info.entries = len(entries)
        vanished = _vanished(run.ledger["entries"], {entry.key for entry in entries}, name)
        for entry in entries:
            _take(run, entry, vanished)
        run.ledger["stores"][name] = stamps  # (saved only when not a dry run)
    _make_memories(report, targets, request.today)
    if not request.dry_run:
        _write(report, targets)
        _record(report, run.ledger)
        _save_ledger(project, run.ledger)
    return report


def _read_client(
    report: ClientImport, name: str, root: Path, home: Path, user: bool
) -> tuple[ClientRead, list[Entry], dict[str, list[int]]]:
    """What one client keeps of the repository at ``root`` (its personal places only with
    ``user``): where it looked, its entries, and its files' stamps; refused and skipped files into
    ``report``."""
    record = clientstores.store_of(name)
    info = ClientRead(record.name, record.label, record.version)
    report.clients.append(info)
    stamps: dict[str, list[int]] = {}
    entries: list[Entry] = []
    for place in clientstores.places(name, root, home):
        shown = _shown(place.path, root, home)
        info.looked.append(shown)
        if not os.path.lexists(place.path):  # (a link is there, even one leading nowhere)
            continue
        if place.personal and not user:
            detail = f"personal ({shown}), not read"
            report.skipped.append(Outcome(f"{name}:{place.label}", "", "personal", detail=detail))
            continue
        info.places.append(shown)
        read = read_place(place, root)
        stamps.update(clientstores.stamps(place))
        info.files += len(read.files)
        for where, reason in read.refused:
            report.refused.append(Outcome(f"{name}:{where}", "", "unreadable", detail=reason))
        for where, line, reason in read.skipped:
            report.skipped.append(
                Outcome(f"{name}:{where}:{line}" if line else f"{name}:{where}", "", reason)
            )
        entries.extend(read.entries)
    return info, entries, stamps


def _shown(path: Path, root: Path, home: Path) -> str:
    """A store's path for the report: ``~/…`` under the home folder, relative inside the
    repository."""
    for base, prefix in ((root, ""), (home, "~/")):
        try:
            return prefix + path.relative_to(base).as_posix()
        except ValueError:
            continue
    return str(path)


def _vanished(
    old: dict[str, Any], current: set[str], name: str
) -> similar.Pool[tuple[str, dict[str, Any]]]:
    """The bullets imported before that are no longer in their file (reworded by the client, or
    deleted)."""
    pool: similar.Pool[tuple[str, dict[str, Any]]] = similar.Pool(EDIT_SIMILARITY)
    for key, record in old.items():
        if (
            key.startswith(f"{name}:")
            and "#" in key
            and key not in current
            and isinstance(record.get("words"), list)
        ):
            words = frozenset(str(word) for word in record["words"])
            pool.add_words((key, record), words, words)
    return pool


def _refusal(entry: Entry) -> tuple[str, str] | None:
    """(reason, message) when the entry holds hidden Unicode or a possible secret; the message names
    the file, line and rule, never the text."""
    refused = sensitive(entry.text)
    if refused is None:
        return None
    reason, found = refused
    said = (
        f"possible secret ({found.rule})"
        if isinstance(found, Finding)
        else f"hidden Unicode (U+{found.codepoint:04X})"
    )
    return reason, f"{entry.client}:{entry.where}:{entry.first + found.line - 1}: {said}"


def _take(run: _Run, entry: Entry, vanished: similar.Pool[tuple[str, dict[str, Any]]]) -> None:
    """Decide what becomes of one entry (``vanished``: its client's bullets that left its file):
    refused, skipped as personal, imported before, then as ``Intake`` decides."""
    report, origin, title = run.report, entry.origin, entry.title
    refused = _refusal(entry)
    if refused is not None:
        report.refused.append(Outcome(origin, "", refused[0], detail=refused[1]))
        return
    scope = "personal" if entry.personal else "project"
    if scope not in run.targets:
        detail = f"personal ({entry.kind_from})"
        report.skipped.append(Outcome(origin, title, "personal", detail=detail))
        return
    target = run.targets[scope]
    if _imported_before(report, entry, target, _record_of(entry, run.ledger, vanished, scope)):
        return
    fate = target.intake.fate(title, entry.body)
    memory, proposal, rejected = fate.memory, fate.item, fate.rejected
    if memory is not None:
        report.known.append(Outcome(origin, title, "duplicate", memory.id, f"{fate.score:.2f}"))
    elif proposal is not None:
        report.known.append(
            Outcome(origin, title, "duplicate", None, f"of {proposal.entry.origin}")
        )
    elif rejected is not None:
        said = rejected.describe()
        report.rejected.append(Outcome(origin, title, "removed", rejected.removal.memory.id, said))
    else:
        target.intake.take(_propose(report, entry, target, "new"), title, entry.body, fate)


def _record_of(
    entry: Entry,
    ledger: dict[str, Any],
    vanished: similar.Pool[tuple[str, dict[str, Any]]],
    scope: str,
) -> dict[str, Any] | None:
    """What the record says of the entry (for a bullet the client reworded: of the one it
    replaced), in ``scope``."""
    record = ledger["entries"].get(entry.key)
    if record is None and entry.multi:
        found = vanished.best_words(
            similar.words(entry.title), similar.words(similar.memory_text(entry.title))
        )
        record = found[0][1] if found is not None else None  # a bullet the client reworded
    return record if record is not None and record.get("scope", "project") == scope else None


def _imported_before(
    report: ClientImport, entry: Entry, target: _Target, record: dict[str, Any] | None
) -> bool:
    """Whether the entry was imported before (and what follows: nothing, a change, or not again)."""
    if record is None:
        known = target.origins.get(_origin_key(entry.origin, entry.title))
        if (
            known is not None
        ):  # imported in another clone, or before the record was lost: recorded again
            report.known.append(Outcome(entry.origin, entry.title, "imported-before", known.id))
            report.found.append((entry, known.id, target.scope))
        return known is not None
    memory = target.snapshot.memories.get(str(record.get("id")))
    unchanged = record.get("digest") == entry.digest()
    if memory is not None and memory.status != "retired":
        if unchanged or (memory.title, memory.body) == (entry.title, entry.body):
            report.known.append(Outcome(entry.origin, entry.title, "imported-before", memory.id))
        else:
            _propose(
                report,
                entry,
                target,
                "update" if memory.status == "proposed" else "supersede",
                memory.id,
            )
        return True
    if unchanged:  # a human forgot or retired what it became: not again
        how = "retired" if memory is not None else "removed"
        report.rejected.append(
            Outcome(entry.origin, entry.title, "rejected-before", str(record.get("id")), how)
        )
        return True
    return False


def _propose(
    report: ClientImport, entry: Entry, target: _Target, change: str, of: str | None = None
) -> Proposal:
    """A proposal to be (``of``: the memory it changes); its memory is made once every entry is
    decided (``_make_memories``)."""
    pending = Memory(id="", title=entry.title, kind=entry.kind, status="proposed")
    proposal = Proposal(entry, pending, target.scope, change, of)
    report.proposals.append(proposal)
    return proposal


def _make_memories(report: ClientImport, targets: dict[str, _Target], today: date) -> None:
    """Give each proposal its memory, checked like any write; one that fails is refused."""
    kept = []
    for proposal in report.proposals:
        entry, target = proposal.entry, targets[proposal.scope]
        of = target.snapshot.memories.get(proposal.of) if proposal.of else None
        if proposal.change == "update" and of is not None:
            memory = of._replace(
                title=entry.title, body=entry.body, kind=entry.kind, origin=entry.origin
            )
        else:
            memory_id = unique_id(
                short_id(entry.title) or f"{entry.kind}-{entry.line}", target.taken
            )
            memory = Memory(
                id=memory_id,
                title=entry.title,
                kind=entry.kind,
                status="proposed",
                body=entry.body,
                created=today,
                supersedes=(of.id,) if of is not None else (),  # "new" changes nothing
                source="import",
                origin=entry.origin,
            )
        why = target.store.why_invalid(memory, target.snapshot)
        if why is not None:
            report.refused.append(
                Outcome(entry.origin, "", "invalid", detail=f"does not make a valid memory ({why})")
            )
            continue
        target.taken.add(memory.id)
        proposal.memory = memory
        kept.append(proposal)
    report.proposals = kept


def _write(report: ClientImport, targets: dict[str, _Target]) -> None:
    for proposal in report.proposals:
        target = targets[proposal.scope]
        if proposal.change == "update":
            fields = proposal.memory.to_dict()
            changes = {key: fields.get(key) for key in ("title", "body", "kind", "origin")}
            target.store.update(proposal.memory.id, changes, target.snapshot)
            proposal.written = target.store.path_of(proposal.memory.id)
        else:
            proposal.written = target.store.create(proposal.memory, target.snapshot)
    if any(p.scope == "personal" for p in report.proposals):  # (proposed with a personal target)
        ensure_store(targets["personal"].project)


# -- the record of what was imported ---------------------------------------------------------------


def _load_ledger(project: Project) -> dict[str, Any]:
    return clientstores.load_record(project.cache_dir)


def _record(report: ClientImport, ledger: dict[str, Any]) -> None:
    entries = ledger["entries"]
    for proposal in report.proposals:
        entries.pop(_old_key(entries, proposal), None)
        entries[proposal.entry.key] = _recorded(proposal.entry, proposal.memory.id, proposal.scope)
    for entry, memory_id, scope in report.found:
        entries[entry.key] = _recorded(entry, memory_id, scope)


def _recorded(entry: Entry, memory_id: str, scope: str) -> dict[str, Any]:
    """What the record keeps of an entry: the memory it became and a digest of its text, never the
    text (a bullet keeps its title's words, to know it again once the client rewords it)."""
    return {
        "id": memory_id,
        "digest": entry.digest(),
        "scope": scope,
        "words": sorted(similar.words(entry.title)) if entry.multi else None,
    }


def _old_key(entries: dict[str, Any], proposal: Proposal) -> str | None:
    """The key a reworded bullet had (its record moves to the new key)."""
    if not proposal.entry.multi or proposal.of is None:
        return None
    for key, record in entries.items():
        if (
            record.get("id") == proposal.of
            and key != proposal.entry.key
            and key.startswith(proposal.entry.client)
        ):
            return key
    return None


def _save_ledger(project: Project, ledger: dict[str, Any]) -> None:
    path = project.cache_dir / clientstores.RECORD
    gateway.write(project, path, json.dumps(ledger, sort_keys=True, indent=1).encode("utf-8"))
