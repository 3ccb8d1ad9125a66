"""Open Knowledge Format v0.2 (OKF: a folder of Markdown concepts with YAML front matter; the store
of Kage and okf-agent-memory): ``gitmem export --okf DIR`` writes one concept per memory, ``gitmem
import --okf DIR`` proposes one memory per concept.

What both formats hold maps field to field, both ways (docs/okf.md has the table): ``kind`` <->
``type`` (Convention, Decision, Pitfall, Preference, Fact), ``title``, ``body`` <-> the Markdown
body, ``tags``, ``status`` <-> ``status`` (proposed: draft, active: stable, retired: deprecated),
``expires`` <-> ``stale_after``, ``evidence`` <-> ``sources`` (``resource``: the file; ``lines`` and
``digest`` kept on the entry), ``created`` <-> ``generated.at`` and an active memory's human
acceptance <-> ``verified`` by a ``human:`` actor. What only gitmem holds (id, priority, paths,
targets, words, review_after, supersedes, enforce) goes into the extension key ``gitmem``.

An imported concept is untrusted text: it is scanned (secrets, hidden Unicode) and becomes a
*proposal* like any import, whatever its bundle says of its status or verification (a human accepts
it); a deprecated concept is not proposed, nor one that repeats a memory. Every read and write goes
through the file gateway, inside the repository.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from datetime import date
from pathlib import Path
from typing import Any

from gitmem import __version__, gateway, yamlio
from gitmem.errors import CheckFailed, UsageError, shown
from gitmem.journal.intake import sensitive
from gitmem.memory.fields import shown_line
from gitmem.memory.model import Evidence, Memory, short_id, unique_id
from gitmem.memory.store import Snapshot, Store
from gitmem.project import Project
from gitmem.scan import Finding

VERSION = "0.2"
RESERVED = ("index.md", "log.md")
MAX_FILES = 5_000
MAX_BYTES = 256 * 1024
TYPES = {
    "convention": "Convention",
    "decision": "Decision",
    "pitfall": "Pitfall",
    "preference": "Preference",
}
KINDS = {concept_type.lower(): kind for kind, concept_type in TYPES.items()}  # what import reads
STATUS = {"proposed": "draft", "active": "stable", "retired": "deprecated"}
EXTENSION = "gitmem"  # the extension key: what only gitmem holds
# an active memory was accepted by a person, in review (gitmem keeps no name)
ACCEPTED_BY = "human:gitmem-review"
PRODUCER = "gitmem"


# -- export ----------------------------------------------------------------------------------------


def _instant(day: date) -> str:
    return f"{day.isoformat()}T00:00:00Z"


def concept(memory: Memory) -> str:
    """``memory`` as an OKF concept document."""
    front: dict[str, Any] = {"type": TYPES.get(memory.kind, "Fact"), "title": memory.title}
    if memory.tags:
        front["tags"] = list(memory.tags)
    front["status"] = STATUS.get(memory.status, "stable")
    if memory.expires is not None:
        front["stale_after"] = _instant(memory.expires)
    if memory.evidence:
        front["sources"] = [
            _source(number, citation) for number, citation in enumerate(memory.evidence, 1)
        ]
    if memory.created is not None:
        front["generated"] = {"by": f"{PRODUCER}/{__version__}", "at": _instant(memory.created)}
    if memory.status == "active":
        front["verified"] = {"by": ACCEPTED_BY, "at": _instant(memory.created or date(1970, 1, 1))}
    own = {
        key: value for key, value in _own(memory).items() if value not in (None, [], "", "normal")
    }
    front[EXTENSION] = own
    body = memory.body.rstrip("\n")
    return "---\n" + yamlio.dump(front) + "---\n" + (f"\n{body}\n" if body else "")


def _source(number: int, citation: Evidence) -> dict[str, Any]:
    entry: dict[str, Any] = {"id": f"evidence-{number}", "resource": citation.path}
    if citation.lines is not None:
        entry["lines"] = str(citation.lines)
    if citation.digest is not None:
        entry["digest"] = citation.digest
    return entry


def _own(memory: Memory) -> dict[str, Any]:
    data = memory.to_dict()
    return {
        "id": memory.id,
        "priority": memory.priority,
        "paths": data.get("paths", []),
        "targets": data.get("targets", []),
        "words": data.get("words", []),
        "review_after": data.get("review_after"),
        "supersedes": data.get("supersedes", []),
        "enforce": data.get("enforce"),
    }


@dataclass
class Exported:
    folder: str
    written: list[str] = field(default_factory=list)


def export(project: Project, snapshot: Snapshot, folder: Path) -> Exported:
    """Write every memory of ``snapshot`` as ``folder/<id>.md`` and a bundle-root ``index.md`` (with
    ``okf_version``). The folder must be inside the repository."""
    target = gateway.resolve(project, folder, str(folder))
    report = Exported(project.display(target))
    lines = ["---", f'okf_version: "{VERSION}"', "---", "", "# Memories", ""]
    for memory in sorted(snapshot.memories.values(), key=lambda m: m.id):
        gateway.write(project, target / f"{memory.id}.md", concept(memory))
        report.written.append(f"{memory.id}.md")
        lines.append(
            f"* [{shown_line(memory.title)}]({memory.id}.md) - {memory.kind}, {memory.status}"
        )
    gateway.write(project, target / "index.md", "\n".join(lines) + "\n")
    return report


# -- import ----------------------------------------------------------------------------------------


@dataclass
class Outcome:
    origin: str  # okf:<file>:<line>
    title: str
    why: str
    detail: str = ""
    id: str | None = None

    def to_dict(self) -> dict[str, Any]:
        return {
            "origin": self.origin,
            "title": self.title,
            "why": self.why,
            "detail": self.detail,
            "id": self.id,
        }


@dataclass
class Imported:
    memories: list[tuple[Memory, str, str]] = field(
        default_factory=list
    )  # (memory, origin, the bundle's trust tier)
    known: list[Outcome] = field(default_factory=list)
    skipped: list[Outcome] = field(default_factory=list)
    refused: list[Outcome] = field(default_factory=list)


def _concepts(folder: Path) -> list[Path]:
    found: list[Path] = []
    for directory, dirs, files in os.walk(folder):
        dirs[:] = sorted(d for d in dirs if not d.startswith("."))
        for name in sorted(files):
            if name.endswith(".md") and name not in RESERVED:
                found.append(Path(directory) / name)
                if len(found) >= MAX_FILES:
                    return found
    return found


def _split(text: str) -> tuple[str, str]:
    """(front matter, body) of a concept; no front matter ("") without its fences."""
    lines = text.split("\n")
    if lines[0].strip() == "---":
        for number in range(1, len(lines)):
            if lines[number].strip() == "---":
                return "\n".join(lines[1:number]), "\n".join(lines[number + 1 :])
    return "", text


def _day(value: Any) -> str:
    """A date, a datetime or a string that starts with one, as ``YYYY-MM-DD``; "" for anything
    else."""
    text = str(value)
    try:
        return date.fromisoformat(text[:10]).isoformat() if len(text) >= 10 else ""
    except ValueError:
        return ""


def _mapping(value: Any) -> dict[str, Any]:
    return value if isinstance(value, dict) else {}


def _strings(value: Any) -> tuple[str, ...]:
    return tuple(str(item) for item in value) if isinstance(value, list) else ()


def _memory(front: dict[str, Any], body: str, today: date, origin: str) -> dict[str, Any]:
    """The memory's fields from a concept's front matter and body (checked by the store
    afterwards)."""
    own = _mapping(front.get(EXTENSION))
    generated = _mapping(front.get("generated"))
    data: dict[str, Any] = {
        "id": str(own.get("id") or ""),
        "title": str(front.get("title") or "").strip(),
        "kind": KINDS.get(str(front.get("type", "")).strip().lower(), "fact"),
        "status": "proposed",
        "body": body.strip("\n") + "\n" if body.strip() else "",
        "priority": own.get("priority") or "normal",
        "paths": list(_strings(own.get("paths"))),
        "targets": list(_strings(own.get("targets"))),
        "tags": list(_strings(front.get("tags"))),
        "words": list(_strings(own.get("words"))),
        "created": _day(generated.get("at")) or today.isoformat(),
        "supersedes": list(_strings(own.get("supersedes"))),
        "source": "import",
        "origin": origin,
    }
    data["expires"], data["review_after"] = (
        _day(front.get("stale_after")),
        _day(own.get("review_after")),
    )
    if isinstance(own.get("enforce"), dict):
        data["enforce"] = own["enforce"]
    data["evidence"] = _evidence(front.get("sources"))
    return {key: value for key, value in data.items() if value not in ([], "")}


def _evidence(sources: Any) -> list[dict[str, Any]]:
    """A concept's ``sources`` that are files of the repository, as the memory's evidence."""
    evidence = []
    for source in map(_mapping, sources if isinstance(sources, list) else []):
        resource = source.get("resource")
        if not isinstance(resource, str) or "://" in resource:
            continue
        citation: dict[str, Any] = {"path": resource.lstrip("/")}
        if source.get("lines") is not None:
            citation["lines"] = str(source["lines"])
        if isinstance(source.get("digest"), str):
            citation["digest"] = source["digest"]
        evidence.append(citation)
    return evidence


def import_bundle(
    project: Project, store: Store, folder: Path, today: date, *, write: bool
) -> Imported:
    """Propose one memory per concept of the OKF bundle ``folder`` (inside the repository)."""
    source = gateway.resolve(project, folder, str(folder))
    if not source.is_dir():
        raise UsageError(
            f"{shown(str(folder))}: not a folder (an OKF bundle is a folder of Markdown files)"
        )
    snapshot = store.load()
    taken = set(snapshot.memories)
    report = Imported()
    for path in _concepts(source):
        where = f"okf:{path.relative_to(source).as_posix()}"
        try:
            text = gateway.read_text(project, path, limit=MAX_BYTES)
        except (OSError, UnicodeDecodeError, CheckFailed) as exc:
            report.skipped.append(Outcome(f"{where}:1", "", "unreadable", type(exc).__name__))
            continue
        if _refused(report, where, text):
            continue
        concept = _concept(report, where, text)
        if concept is None:
            continue
        front, body = concept
        data = _memory(front, body, today, f"{where}:1")
        title = data.get("title", "")  # stripped; a concept without one has none
        known = _known(snapshot, data)
        if known is not None:
            report.known.append(Outcome(f"{where}:1", title, "duplicate", id=known))
            continue
        data["id"] = unique_id(data.get("id") or short_id(title) or "okf", taken)
        try:
            memory = store.check_text(data["id"], yamlio.dump(data), snapshot)
        except CheckFailed as exc:
            problem = next(iter(exc.problems), None)
            why = f"{problem.field}: {problem.message}" if problem else "invalid"
            report.refused.append(
                Outcome(f"{where}:1", title, "invalid", f"does not make a valid memory ({why})")
            )
            continue
        taken.add(memory.id)
        if write:
            store.create(memory, snapshot)
        report.memories.append((memory, f"{where}:1", trust(front)))
    return report


def _concept(report: Imported, where: str, text: str) -> tuple[dict[str, Any], str] | None:
    """A current concept's front matter and body; ``None`` (said in ``report``) for a file that is
    no concept or a deprecated one."""
    head, body = _split(text)
    front = _front(head)  # (none for no front matter)
    if front is None or not str(front.get("type", "")).strip():
        report.skipped.append(
            Outcome(f"{where}:1", "", "not-a-concept", "no front matter with a type")
        )
        return None
    if str(front.get("status", "")).strip() == "deprecated":
        title = str(front.get("title") or "").strip()
        report.skipped.append(
            Outcome(f"{where}:1", title, "deprecated", "no longer current in the bundle")
        )
        return None
    return front, body


def trust(front: dict[str, Any]) -> str:
    """The concept's trust tier (OKF 5.3): what its bundle says; the memory is a proposal
    whatever it is."""
    verified = front.get("verified")
    events = verified if isinstance(verified, list) else [verified]
    actors = [str(event.get("by", "")) for event in events if isinstance(event, dict)]
    if any(actor.startswith("human:") for actor in actors):
        return "human-reviewed"
    return "machine-confirmed" if actors else "unverified"


def _front(text: str) -> dict[str, Any] | None:
    try:
        data = yamlio.load_plain(text)
    except yamlio.YamlProblem:
        return None
    return data if isinstance(data, dict) else None


def _refused(report: Imported, where: str, text: str) -> bool:
    """A concept holding hidden Unicode or a possible secret: refused, its text copied nowhere."""
    refused = sensitive(text)
    if refused is not None:
        reason, found = refused
        said = (
            f"possible secret ({found.rule})"
            if isinstance(found, Finding)
            else f"U+{found.codepoint:04X}"
        )
        report.refused.append(Outcome(f"{where}:{found.line}", "", reason, said))
    return refused is not None


def _known(snapshot: Snapshot, data: dict[str, Any]) -> str | None:
    """The memory the concept repeats (same title and body), or None."""
    for memory in snapshot.memories.values():
        if (
            memory.title == data["title"]
            and memory.body.strip() == str(data.get("body", "")).strip()
        ):
            return memory.id
    return None
