"""Git provenance of memories: ``gitmem history`` (the commits that touched one) and ``gitmem diff``
(what changed between two revisions, as a reviewable summary).

Memory files at a revision are read from git objects and checked as strictly as files on disk
(``gitmem.memory.schema.check_memory``): an invalid file is reported as such, never trusted and
never a crash.
"""

from __future__ import annotations

import difflib
import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from itertools import groupby
from pathlib import Path
from typing import Any, Literal

from gitmem import gateway
from gitmem import gitcommand as command
from gitmem.errors import GitmemError, UsageError
from gitmem.git import history
from gitmem.memory.model import FIELD_ORDER, ID_PATTERN, Memory
from gitmem.memory.schema import MAX_FILE_BYTES, check_memory
from gitmem.memory.store import SUFFIX
from gitmem.project import Project

MEMORIES = ".memory/memories"  # relative to the repository root

# -- history ---------------------------------------------------------------------------------------


@dataclass(frozen=True)
class History:
    memory_id: str
    path: str  # relative to the repository root
    commits: tuple[history.Commit, ...]  # newest first
    pending: (
        str | None
    )  # the working tree's file against HEAD: "untracked", "modified", "deleted" or None


def memory_history(project: Project, memory_id: str) -> History:
    """The commits that touched a memory's file, following renames, newest first."""

    if not ID_PATTERN.match(memory_id):
        raise UsageError(
            f"invalid id {memory_id!r}: use 1 to 64 lower-case letters, digits or hyphens, "
            "starting with a letter or digit"
        )
    path = f"{MEMORIES}/{memory_id}{SUFFIX}"
    commits = tuple(history.file_history(project.root, path))
    pending = history.file_status(project.root, path)
    if not commits and pending is None and not (project.root / path).exists():
        raise UsageError(
            f"no memory {memory_id!r} now or in this branch's history; `gitmem list` shows the ids"
        )
    return History(memory_id, path, commits, pending)


# -- diff ------------------------------------------------------------------------------------------

ChangeKind = Literal["added", "changed", "retired", "removed"]
KIND_ORDER: tuple[ChangeKind, ...] = ("added", "changed", "retired", "removed")


@dataclass(frozen=True)
class Side:
    """One end of a diff: a commit, or the working tree (``commit`` None)."""

    label: str  # the revision the user named, "working tree", or how the base was chosen
    commit: str | None
    default_branch: str | None = None  # set when the base is the merge base with the default branch
    merged: str | None = (
        None  # set when the base is the merge base of this revision (BASE) and HEAD
    )

    @property
    def short(self) -> str:
        return self.commit[:7] if self.commit else "working tree"

    def to_dict(self) -> dict[str, Any]:
        return {
            "label": self.label,
            "commit": self.commit,
            "default_branch": self.default_branch,
            "merge_base_of": self.merged,
        }


@dataclass(frozen=True)
class Version:
    """A memory file at one side: the memory when the file is valid, its problems when not."""

    path: str
    memory: Memory | None
    problems: tuple[str, ...]


@dataclass(frozen=True)
class FieldChange:
    field: str
    old: Any  # JSON-ready values; None or [] when absent
    new: Any

    def to_dict(self) -> dict[str, Any]:
        return {"field": self.field, "old": self.old, "new": self.new}


@dataclass(frozen=True)
class MemoryChange:
    kind: ChangeKind
    memory_id: str
    path: str
    base: Version | None
    head: Version | None
    fields: tuple[FieldChange, ...] = ()

    @property
    def memory(self) -> Memory | None:
        """The memory as it is at the head, else as it was at the base (None when invalid)."""
        for version in (self.head, self.base):
            if version is not None and version.memory is not None:
                return version.memory
        return None

    @property
    def title(self) -> str | None:
        return self.memory.title if self.memory is not None else None

    def to_dict(self) -> dict[str, Any]:
        before, base_problems = _side_dict(self.base)
        after, problems = _side_dict(self.head)
        return {
            "change": self.kind,
            "id": self.memory_id,
            "path": self.path,
            "title": self.title,
            "before": before,
            "after": after,
            "fields": [change.to_dict() for change in self.fields],
            "problems": problems,
            "base_problems": base_problems,
        }


def _side_dict(version: Version | None) -> tuple[dict[str, Any] | None, list[str]]:
    """A version's memory as data (``None`` when invalid or absent) and its problems."""
    if version is None:
        return None, []
    memory = version.memory
    return (memory.to_dict() if memory is not None else None), list(version.problems)


@dataclass(frozen=True)
class MemoryDiff:
    base: Side
    head: Side
    changes: tuple[MemoryChange, ...]

    def count(self, kind: ChangeKind) -> int:
        return sum(1 for change in self.changes if change.kind == kind)

    def to_dict(self) -> dict[str, Any]:
        return {
            "base": self.base.to_dict(),
            "head": self.head.to_dict(),
            "summary": {kind: self.count(kind) for kind in KIND_ORDER},
            "changes": [change.to_dict() for change in self.changes],
        }


def diff_memories(project: Project, base: str | None = None, head: str | None = None) -> MemoryDiff:
    """The memory changes from ``base`` to ``head`` (a commit; ``None``: the working tree).

    Without ``base``: from the merge base of the default branch (``history.default_branch``) and
    HEAD. With ``base``: from the merge base of ``base`` and ``head`` (HEAD when ``head`` is the
    working tree), as a pull request is reviewed (``git diff BASE...HEAD``): what landed on ``base``
    since the branch left it is not shown as removed. When ``base`` is an ancestor of ``head`` that
    merge base is ``base`` itself.
    """
    root = project.root
    if base is None:
        if head is not None:
            raise UsageError("give BASE too when giving HEAD: gitmem diff BASE HEAD")
        head_sha = history.resolve(
            root, "HEAD"
        )  # first: a repository without commits has no branches either
        branch = history.default_branch(root)
        if branch is None:
            raise UsageError(
                "cannot tell the default branch (no origin/HEAD, origin/main, origin/master, main "
                "or master): name the base, e.g. `gitmem diff develop`"
            )
        base_sha = history.merge_base(root, history.resolve(root, branch), head_sha)
        if base_sha is None:
            raise UsageError(
                f"{branch} and HEAD share no history: name the base, e.g. `gitmem diff {branch}`"
            )
        base_side = Side(f"merge base of {branch} and HEAD", base_sha, branch)
        return _between(project, base_side, Side("working tree", None))
    if ".." in base:
        if head is not None:
            raise UsageError(f"{base!r} names both ends already: give no second revision")
        return _diff_range(project, base)
    tip = history.resolve(root, base)
    head_sha = history.resolve(root, head or "HEAD")
    base_side = _merge_side(root, base, tip, head or "HEAD", head_sha)
    head_side = Side(head, head_sha) if head is not None else Side("working tree", None)
    return _between(project, base_side, head_side)


def _diff_range(project: Project, spec: str) -> MemoryDiff:
    """``A...B`` (from the merge base of A and B to B) and ``A..B`` (from A to B), as ``git diff``
    reads them; an end left out is HEAD."""
    root = project.root
    three = "..." in spec
    first, _, second = spec.partition("..." if three else "..")
    if second.startswith(".") or not (first or second):
        raise UsageError(f"cannot read the range {spec!r}: write BASE...HEAD or BASE..HEAD")
    first, second = first or "HEAD", second or "HEAD"
    head_sha = history.resolve(root, second)
    tip = history.resolve(root, first)
    base_side = _merge_side(root, first, tip, second, head_sha) if three else Side(first, tip)
    return _between(project, base_side, Side(second, head_sha))


def _merge_side(root: Path, first: str, tip: str, second: str, head_sha: str) -> Side:
    """The base side for reviewing ``second`` against ``first`` (``gitmem diff FIRST [SECOND]``,
    ``FIRST...SECOND``): their merge base, or ``first`` itself when it is an ancestor."""
    base_sha = history.merge_base(root, tip, head_sha)
    if base_sha is None:
        raise UsageError(
            f"{first} and {second} share no history: there is no merge base to compare from"
        )
    if base_sha == tip:
        return Side(first, tip)
    return Side(f"merge base of {first} and {second}", base_sha, merged=first)


def _between(project: Project, base_side: Side, head_side: Side) -> MemoryDiff:
    """The memory changes from one side to the other."""
    old_ids, read_old = _side_files(project, base_side)
    new_ids, read_new = _side_files(project, head_side)
    # a file added, removed or with other content: in the items of one side only
    names = sorted({name for name, _ in old_ids.items() ^ new_ids.items()})
    old_files = read_old(sorted(old_ids.keys() & names))
    new_files = read_new(sorted(new_ids.keys() & names))
    changes = [_compare(name, old_files.get(name), new_files.get(name)) for name in names]
    changes.sort(key=lambda c: (KIND_ORDER.index(c.kind), c.memory_id))
    return MemoryDiff(base_side, head_side, tuple(changes))


def _side_files(
    project: Project, side: Side
) -> tuple[dict[str, str], Callable[[list[str]], dict[str, bytes]]]:
    """The memory files at ``side`` (a commit, or the working tree): name -> blob id, and how to
    read some of them (names -> bytes)."""
    if side.commit is not None:
        ids = _memory_names(history.tree_entries(project.root, side.commit, MEMORIES))

        def from_git(names: list[str]) -> dict[str, bytes]:
            blobs = history.read_blobs(project.root, [ids[name] for name in names])
            return {name: blobs[ids[name]] for name in names}

        return ids, from_git
    on_disk = _working_files(project)
    ids = {name: command.blob_id(data) for name, data in on_disk.items()}
    return ids, lambda names: {name: on_disk[name] for name in names}


def _memory_names(entries: dict[str, str]) -> dict[str, str]:
    return {
        name: blob
        for name, blob in entries.items()
        if name.endswith(SUFFIX) and not name.startswith(".")
    }


def _working_files(project: Project) -> dict[str, bytes]:
    """The memory files in the working tree: name -> bytes."""
    names = sorted(gateway.names_in(project.memories_dir))
    files = {}
    for name in names:
        path = project.memories_dir / name
        if name.startswith(".") or not name.endswith(SUFFIX) or not path.is_file():
            continue
        try:
            files[name] = gateway.read_bytes(project, path, limit=MAX_FILE_BYTES)
        except (OSError, GitmemError):  # removed while we read, a link leading outside, too large
            continue
    return files


def _version(raw: bytes, memory_id: str, path: str) -> Version:
    data, problems = check_memory(raw, memory_id, path)
    if problems or data is None:
        return Version(path, None, tuple(str(problem) for problem in problems))
    return Version(path, Memory.from_dict(data), ())


def _compare(name: str, old_raw: bytes | None, new_raw: bytes | None) -> MemoryChange:
    """The change of one memory file from its bytes at the base to its bytes at the head (None
    where it is absent)."""
    memory_id, path = name.removesuffix(SUFFIX), f"{MEMORIES}/{name}"
    before, after = (
        None if raw is None else _version(raw, memory_id, path) for raw in (old_raw, new_raw)
    )
    if after is None:
        return MemoryChange("removed", memory_id, path, before, None)
    if before is None:
        return MemoryChange("added", memory_id, path, None, after)
    fields: tuple[FieldChange, ...] = ()
    kind: ChangeKind = "changed"
    if before.memory is not None and after.memory is not None:
        old, new = before.memory.to_dict(), after.memory.to_dict()
        fields = tuple(
            FieldChange(field, old[field], new[field])
            for field in FIELD_ORDER
            if old[field] != new[field]
        )
        if after.memory.status == "retired" != before.memory.status:  # retired by this change
            kind = "retired"
    return MemoryChange(kind, memory_id, path, before, after, fields)


# -- Markdown --------------------------------------------------------------------------------------


def to_markdown(diff: MemoryDiff) -> str:
    """The diff as Markdown fit for a pull-request comment. Memory text is escaped or fenced: it
    cannot format the comment, mention people or inject HTML."""
    head = (
        "the working tree"
        if diff.head.commit is None
        else f"{_code(diff.head.label)} ({diff.head.short})"
    )
    # a default branch's merge base is always taken with HEAD, for the working tree
    merged = diff.base.default_branch or diff.base.merged
    if merged is not None:
        other = "HEAD" if diff.head.commit is None else _code(diff.head.label)
        base = f"the merge base of {_code(merged)} and {other} ({diff.base.short})"
    else:
        base = f"{_code(diff.base.label)} ({diff.base.short})"
    lines = [f"### gitmem: memory changes from {base} to {head}", ""]
    if not diff.changes:
        lines.append("No memory changes.")
        return "\n".join(lines) + "\n"
    lines.append(" · ".join(f"{diff.count(kind)} {kind}" for kind in KIND_ORDER))
    for kind, chosen in groupby(diff.changes, key=lambda change: change.kind):  # sorted by kind
        lines += ["", f"#### {kind.capitalize()}", ""]
        for change in chosen:
            lines += _entry(change)
    return "\n".join(lines) + "\n"


def _entry(change: MemoryChange) -> list[str]:
    """A memory's lines. A version has a memory exactly when it has no problems, so past the two
    checks for problems every version present is valid."""
    memory, head, base = change.memory, change.head, change.base
    out = [f"- **{_code(change.memory_id)}**" + (f": {_escape(memory.title)}" if memory else "")]
    if head is not None and head.problems:
        out.append("  - **invalid**: this file does not pass `gitmem validate`:")
        return out + [f"    - {_code(problem)}" for problem in head.problems]
    if base is not None and base.problems:  # a changed file now valid, or a removed invalid one
        return [
            *out,
            "  - was invalid before; valid now" if head else "  - (it was an invalid file)",
        ]
    if change.kind in ("added", "removed") and memory is not None:
        return out + _whole(change.kind, memory)
    return out + _changed(change, memory)


def _whole(kind: str, memory: Memory) -> list[str]:
    """The lines of an added or removed memory: its summary, and an added one's body."""
    out = [f"  - {_summary(memory)}"]
    if kind == "added" and memory.body:
        out += _fenced(memory.body, "text", "  ")
    return out


def _changed(change: MemoryChange, memory: Memory | None) -> list[str]:
    """The lines of a changed (or retired) memory, valid at both sides (``memory`` is the head's):
    a retirement's reason, then each field that changed."""
    retired = change.kind == "retired"
    out = [f"  - reason: {_escape(memory.reason)}"] if retired and memory and memory.reason else []
    if not change.fields:
        out.append("  - only comments or layout changed")
    shown = ("status", "retired", "reason") if retired else ()  # said by the heading and reason
    for item in change.fields:
        if item.field not in shown:
            out += _field(item)
    return out


def _summary(memory: Memory) -> str:
    parts = [memory.kind, memory.status, f"priority {memory.priority}"]
    parts += [f"{label} {shown}" for label, shown in _listed(memory) if shown]
    return " · ".join(parts)


def _listed(memory: Memory) -> list[tuple[str, str]]:
    """The fields a memory's summary lists after its kind, status and priority, as shown ("" for
    none): ``words`` are reviewed with it (they decide which questions bring it in), ``enforce``
    says what the pre-tool hook will refuse."""
    commands = memory.enforce.commands if memory.enforce is not None else ()
    edits = memory.enforce.edits if memory.enforce is not None else ()
    return [
        ("paths", _codes(memory.paths)),
        ("targets", _codes(memory.targets)),
        ("tags", _codes(memory.tags)),
        ("words", _codes(memory.words)),
        ("forbids commands", _codes(commands)),
        ("forbids edits", _codes(edits)),
        ("expires", str(memory.expires or "")),
        ("supersedes", _codes(memory.supersedes)),
    ]


def _codes(values: Iterable[str]) -> str:
    return ", ".join(_code(value) for value in values)


def _field(item: FieldChange) -> list[str]:
    """A field's change, its values as ``Memory.to_dict`` gives them: the body a text, a list
    field a list at both sides (``[]`` when empty), ``enforce`` a mapping or ``None``."""
    name = f"`{item.field}`"
    if item.field == "enforce":
        return _parts(item)  # each of its lists, as a list
    if item.field == "body":
        diff = difflib.unified_diff(item.old.splitlines(), item.new.splitlines(), lineterm="", n=2)
        body = "\n".join(list(diff)[2:])  # without the ---/+++ header
        return [f"  - {name}:", *_fenced(body, "diff", "    ")]
    if isinstance(item.old, list):
        return [f"  - {name}: {_list_change(item.old, item.new)}"]
    return [f"  - {name}: {_value(item.old)} → {_value(item.new)}"]


def _list_change(old: list[Any], new: list[Any]) -> str:
    """A list field's change: the items added and removed, or "reordered"."""
    olds, news = [_item_text(value) for value in old], [_item_text(value) for value in new]
    sides = (("added", news, olds), ("removed", olds, news))
    said = [
        f"{verb} {_codes(value for value in these if value not in those)}"
        for verb, these, those in sides
        if not set(these) <= set(those)
    ]
    return "; ".join(said) or "reordered"


def _parts(item: FieldChange) -> list[str]:
    """A field of lists (``enforce``) as the change of each list (``enforce.commands``)."""
    old, new = item.old or {}, item.new or {}  # Enforce.to_dict: only its non-empty lists
    out: list[str] = []
    for key in sorted({*old, *new}):
        if old.get(key) != new.get(key):
            out += _field(FieldChange(f"{item.field}.{key}", old.get(key, []), new.get(key, [])))
    return out


def _item_text(value: Any) -> str:
    if isinstance(value, dict):  # a citation
        text = str(value.get("path", ""))
        if value.get("lines"):
            text += f":{value['lines']}"
        return text + (f" ({value['digest']})" if value.get("digest") else "")
    return str(value)


def _value(value: Any) -> str:
    return "(none)" if value in (None, "") else _code(str(value))


_SPECIAL = re.compile(
    r"([\\`*_\[\]<>#|~@&])"
)  # what can format, link, mention or inject HTML mid-line


def _escape(text: str) -> str:
    """Text that renders as itself in GitHub Markdown: no emphasis, links, HTML, mentions or
    headings."""
    return _SPECIAL.sub(r"\\\1", " ".join(text.split()))


def _code(text: str) -> str:
    """An inline code span that holds ``text`` whatever backticks it contains."""
    text = " ".join(text.split())
    longest = max((len(run) for run in re.findall(r"`+", text)), default=0)
    fence = "`" * (longest + 1)
    pad = " " if text.startswith("`") or text.endswith("`") else ""
    return f"{fence}{pad}{text}{pad}{fence}"


def _fenced(text: str, language: str, indent: str) -> list[str]:
    longest = max((len(run) for run in re.findall(r"`{3,}", text)), default=2)
    fence = "`" * (longest + 1)
    body = [f"{indent}{line}" if line else "" for line in text.splitlines()]
    return [f"{indent}{fence}{language}", *body, f"{indent}{fence}"]
