"""Remember what was rejected: the memories a human removed (``gitmem forget``, ``git revert``, any
deletion) or retired, so that propose, harvest and import can refuse to bring one back unnoticed,
and doctor can list them.

Everything is derived from git; there is no state file to keep:

- deleted memories: the files under ``.memory/memories/`` whose newest change in HEAD's history is a
  deletion (``git log --diff-filter=AD``), each as it was just before, with the commit that deleted
  it; and files of HEAD deleted in the working tree but not committed yet;
- retired memories: ``status: retired`` in the working tree, with the newest commit whose diff of
  the file touched a ``status: retired`` line (``git log -G``), when there is one.

A deleted memory that exists again in the working tree (the same id, or the same title under another
id: brought back, or renamed) is not a removal. Git's rename detection is not used for that: memory
files are small and share most of their lines, so git would pair a deleted memory with an unrelated
one added in the same commit. What git says is cached in ``.git/gitmem/removed.json``, keyed on
HEAD; when HEAD moved forward, only the new commits are read.
"""

from __future__ import annotations

import contextlib
import json
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import date, timedelta
from pathlib import Path
from typing import Any

from gitmem import __version__, gateway
from gitmem import gitcommand as command
from gitmem.errors import GitmemError
from gitmem.memory import similar
from gitmem.memory.fields import shown_line
from gitmem.memory.model import Memory
from gitmem.memory.schema import check_memory
from gitmem.memory.store import SUFFIX, Snapshot
from gitmem.project import Project

MEMORIES = ".memory/memories"  # relative to the repository root
RETIRED_LINE = r"^status:[[:space:]]*['\"]?retired"
_FORMAT = 2
RECENT_DAYS = 30  # what doctor calls a recent removal


@dataclass(frozen=True)
class Removal:
    """A memory a human removed or retired, and the commit that did it (``None``: not committed
    yet)."""

    memory: Memory
    how: str  # "removed" (its file was deleted) or "retired"
    commit: command.CommitRef | None

    @property
    def reverted(self) -> bool:
        return self.commit is not None and self.commit.subject.startswith('Revert "')

    @property
    def day(self) -> date | None:
        """When it was removed: the commit's date, or for an uncommitted retirement its
        ``retired`` date."""
        if self.commit is not None:
            return date.fromisoformat(self.commit.date)
        return self.memory.retired

    def describe(self) -> str:
        """How it went: "removed by commit 1a2b3c4 (Revert "Add use-npm")"."""
        if self.commit is None:
            verb = "retired" if self.how == "retired" else "deleted"
            return f"{verb} in the working tree (not committed yet)"
        return f"{self.how} by commit {self.commit.short} ({self.commit.subject})"

    def to_dict(self) -> dict[str, Any]:
        commit = self.commit
        sha, short, subject = (commit.sha, commit.short, commit.subject) if commit else (None,) * 3
        return {
            "id": self.memory.id,
            "title": self.memory.title,
            "kind": self.memory.kind,
            "how": "reverted" if self.reverted else self.how,
            "commit": sha,
            "short": short,
            "subject": subject,
            "date": self.day.isoformat() if self.day else None,
            "reason": self.memory.reason,
        }


@dataclass(frozen=True)
class Rejected:
    """A new item that nearly repeats a removal."""

    removal: Removal
    score: float

    def describe(self) -> str:
        """ "[use-npm] 'Use npm for the web app', removed by commit 1a2b3c4 (Revert "Add
        use-npm")"."""
        memory = self.removal.memory
        text = f"[{memory.id}] {shown_line(memory.title)!r}, {self.removal.describe()}"
        if self.removal.how == "retired" and memory.reason:
            text += f"; reason: {shown_line(memory.reason)}"
        return text


class Guard:
    """Compares new items with the removals: a near-duplicate of one is ``Rejected``."""

    def __init__(self, removals: Sequence[Removal], threshold: float) -> None:
        self._pool: similar.Pool[Removal] = similar.Pool(threshold)
        for removal in removals:
            self._pool.add(removal, removal.memory.title, removal.memory.body)

    def check(self, title: str, body: str = "") -> Rejected | None:
        """The removal ``title`` and ``body`` nearly repeat (the most similar, the newest on a
        tie), or ``None``."""
        best = self._pool.best(title, body)
        return Rejected(best[0], round(best[1], 3)) if best is not None else None


def guard(project: Project, snapshot: Snapshot, threshold: float) -> Guard:
    return Guard(removals(project, snapshot), threshold)


def removals(project: Project, snapshot: Snapshot) -> list[Removal]:
    """Every memory removed in HEAD's history or the working tree, or retired now; newest first.
    A removed memory whose title a present one has is left out."""
    present = set(snapshot.memories) | set(snapshot.files) | _ids_on_disk(project)
    titles = {_norm(memory.title) for memory in snapshot.memories.values()}
    retired = [memory for memory in snapshot.sorted() if memory.status == "retired"]
    history = _History.load(project, {memory.id for memory in retired})
    here = _removed_here(project, history, present)
    # (an id removed here is in HEAD's tree: its newest addition or deletion was an addition)
    removed = here + _removed_before(history, present | {r.memory.id for r in here})
    found = [r for r in removed if _norm(r.memory.title) not in titles]
    for memory in retired:
        ref = history.retired.get(memory.id)
        found.append(Removal(memory, "retired", command.CommitRef(*ref) if ref else None))
    found.sort(
        key=lambda r: (r.commit is not None, -(r.day or date.min).toordinal())
    )  # uncommitted, then newest
    return found


def _removed_here(project: Project, history: _History, present: set[str]) -> list[Removal]:
    """The memories in HEAD whose files the working tree no longer has (not committed yet)."""
    specs = {  # none without a HEAD: its tree is empty then; none wanted, no git run
        name.removesuffix(SUFFIX): f"{history.head}:{MEMORIES}/{name}"
        for name in history.tree
        if name.removesuffix(SUFFIX) not in present
    }
    blobs = command.cat_blobs(project.root, list(specs.values()))
    memories = (_parse(blobs.get(spec), memory_id) for memory_id, spec in sorted(specs.items()))
    return [Removal(memory, "removed", None) for memory in memories if memory is not None]


def _removed_before(history: _History, present: set[str]) -> list[Removal]:
    """The memories whose files a commit in HEAD's history deleted, newest deletion kept."""
    found = []
    for memory_id, entry in history.latest.items():
        if memory_id in present or entry.get("memory") is None:  # only a deletion has one
            continue
        ref = command.CommitRef(*entry["commit"])
        found.append(Removal(Memory.from_dict(entry["memory"]), "removed", ref))
    return found


def recent(removals: Iterable[Removal], today: date, days: int = RECENT_DAYS) -> list[Removal]:
    """The removals of the last ``days`` days (and those not committed yet), newest first."""
    since = today - timedelta(days=days)
    return [r for r in removals if r.commit is None or (r.day is not None and r.day >= since)]


# -- what git says, cached on HEAD -----------------------------------------------------------------


@dataclass
class _History:
    head: str | None
    # memory id -> what its file's newest addition or deletion did, newest first: {"state": "kept"},
    # or {"state": "deleted", "commit": [sha, short, date, subject], "blob": id, "memory": {...} or
    # None (invalid)}
    latest: dict[str, dict[str, Any]]
    retired: dict[
        str, list[str]
    ]  # id -> [sha, short, date, subject]: the newest commit touching its status: retired
    covered: list[str]  # the retired ids whose whole history was searched for that commit
    tree: list[str]  # names of the memory files in HEAD

    @classmethod
    def load(cls, project: Project, retired_ids: set[str]) -> _History:
        """What git says, for HEAD now and the memories retired in the working tree
        (``retired_ids``): the cache when it is for HEAD, else read (``_read``); the memories
        retired since the cache was written are searched, and the cache written again."""
        root = project.root
        head = command.head_commit(root)
        if head is None:
            return cls(None, {}, {}, [], [])
        path = project.cache_dir / "removed.json"
        cached = _read_cache(project, path)
        if cached is not None and cached.head == head:
            if retired_ids <= set(cached.covered):
                return cached
            history = cached
        else:
            history = cls._read(root, head, cached, retired_ids)
        _find_retirements(root, history, retired_ids - set(history.covered), None)
        history.covered = sorted(set(history.covered) | retired_ids)
        _write_cache(project, path, history)
        return history

    @classmethod
    def _read(
        cls, root: Path, head: str, cached: _History | None, retired_ids: set[str]
    ) -> _History:
        """HEAD's history from git; when HEAD moved forward from the cache's, only the new commits
        (what they did wins over the cache's findings, which are kept otherwise)."""
        kept = cls(None, {}, {}, [], [])  # nothing: every commit is read
        if cached is not None and cached.head and command.is_ancestor(root, cached.head, head):
            kept = cached
        latest = _latest(root, command.file_changes(root, MEMORIES, kept.head), cached)
        for memory_id, entry in kept.latest.items():
            latest.setdefault(memory_id, entry)
        tree = sorted(
            name for name in command.tree_files(root, head, MEMORIES) if name.endswith(SUFFIX)
        )
        history = cls(head, latest, dict(kept.retired), list(kept.covered), tree)
        # the retired memories already searched: only the new commits (none searched: no git run)
        _find_retirements(root, history, set(history.covered) & retired_ids, kept.head)
        return history


def _write_cache(project: Project, path: Path, history: _History) -> None:
    payload = {
        "format": _FORMAT,
        "version": __version__,
        "head": history.head,
        "latest": history.latest,
        "retired": history.retired,
        "covered": history.covered,
        "tree": history.tree,
    }
    with contextlib.suppress(OSError):
        gateway.write(project, path, json.dumps(payload, separators=(",", ":")))


def _find_retirements(root: Path, history: _History, ids: set[str], since: str | None) -> None:
    """Record, for the memories ``ids``, the newest commit (after ``since``) that touched their
    status: retired."""
    if not ids:
        return
    paths = [f"{MEMORIES}/{memory_id}{SUFFIX}" for memory_id in sorted(ids)]
    for file_path, commit in command.last_commits_matching(
        root, paths, RETIRED_LINE, since
    ).items():
        memory_id = _memory_id(file_path)
        if memory_id is not None:
            history.retired[memory_id] = [commit.sha, commit.short, commit.date, commit.subject]


def _latest(
    root: Path, changes: list[command.Change], cached: _History | None
) -> dict[str, dict[str, Any]]:
    """For each memory id, what the newest of ``changes`` (newest first) did to its file; a deleted
    file is read back as it was (or taken from ``cached`` when the same content was read before:
    after an amend or a rebase).
    """
    latest: dict[str, dict[str, Any]] = {}
    before: dict[str, str] = {}
    for change in changes:
        memory_id = _memory_id(change.path)
        if memory_id is None or memory_id in latest:
            continue
        if change.status == "D":
            commit = change.commit
            ref = [commit.sha, commit.short, commit.date, commit.subject]
            latest[memory_id] = {"state": "deleted", "commit": ref}
            before[memory_id] = change.before
        else:
            latest[memory_id] = {"state": "kept"}
    _read_back(root, latest, before, cached)  # nothing deleted: no git call
    return latest


def _read_back(
    root: Path, latest: dict[str, dict[str, Any]], before: dict[str, str], cached: _History | None
) -> None:
    """Into ``latest``'s entries, each deleted file (``before``: memory id -> its object before
    the deletion) as it was: its blob id and memory (``None`` when invalid), taken from ``cached``
    when the same content was read before (after an amend or a rebase)."""
    blobs = command.blob_ids(root, before.values())  # only deleted entries have a "blob"
    known = {
        e["blob"]: e["memory"] for e in (cached.latest.values() if cached else ()) if "blob" in e
    }
    contents = command.cat_blobs(root, sorted(set(blobs.values()) - known.keys()))
    for memory_id, name in before.items():
        blob = blobs.get(name)
        read = _parse(contents.get(blob or ""), memory_id)  # None when known: it was not read
        latest[memory_id].update(blob=blob, memory=known.get(blob, read and read.to_dict()))


def _norm(title: str) -> str:
    return " ".join(re.sub(r"[^\w\s]", " ", title.lower()).split())


_MEMORY_FILE = re.compile(rf"{re.escape(MEMORIES)}/([^/.][^/]*){re.escape(SUFFIX)}")


def _memory_id(path: str | None) -> str | None:
    """The id of a memory file directly in .memory/memories/ (``None`` for any other path)."""
    match = _MEMORY_FILE.fullmatch(path or "")
    return match[1] if match else None


def _read_cache(project: Project, path: Path) -> _History | None:
    """The cache, or ``None`` when it is missing, unreadable or of another format or version."""
    try:
        data = json.loads(gateway.read_bytes(project, path))
        if (data["format"], data["version"]) != (_FORMAT, __version__):
            return None
        return _History(
            str(data["head"]),
            dict(data["latest"]),
            dict(data["retired"]),
            list(data["covered"]),
            list(data["tree"]),
        )
    except (OSError, ValueError, GitmemError, KeyError, TypeError):  # TypeError: not an object
        return None


def _parse(raw: bytes | None, memory_id: str) -> Memory | None:
    """A memory file's bytes as a memory; ``None`` when it is missing or was not a valid memory."""
    if raw is None:
        return None

    data, problems = check_memory(raw, memory_id)
    if problems or data is None:
        return None
    return Memory.from_dict(data)


def _ids_on_disk(project: Project) -> set[str]:
    return {
        name.removesuffix(SUFFIX)
        for name in gateway.names_in(project.memories_dir)
        if name.endswith(SUFFIX)
    }
