"""The memory store: every read and write of .memory/memories/.

Reads check every file (schema, strict YAML, hidden Unicode, secrets) and the store as a whole
(duplicate ids, dangling ``supersedes``), using a stat-keyed cache so a warm read of thousands of
memories stays fast. Writes are checked the same way first, and are atomic; a new memory never
overwrites an existing one.
"""

from __future__ import annotations

import difflib
import os
import stat
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from gitmem import gateway, yamlio
from gitmem.errors import CheckFailed, Problem, UsageError
from gitmem.gateway import is_temp, remove_stale_temp
from gitmem.memory.cache import FileCache, checks_salt, stat_key
from gitmem.memory.fields import normalise_newlines
from gitmem.memory.model import ID_PATTERN, Memory
from gitmem.memory.schema import (
    MAX_FILE_BYTES,
    SCHEMA_FILES,
    check_memory,
    fails_scan,
    field_path,
    schema_text,
)
from gitmem.project import Project

MEMORY_HEADER = "# yaml-language-server: $schema=../schema/memory.schema.json\n"
SUFFIX = ".yaml"


@dataclass
class Snapshot:
    """The store as read now: the valid memories by id, the file of every id, and every problem
    found."""

    memories: dict[str, Memory] = field(default_factory=dict)
    files: dict[str, Path] = field(default_factory=dict)
    problems: list[Problem] = field(default_factory=list)

    def sorted(self) -> list[Memory]:
        return [self.memories[key] for key in sorted(self.memories)]


_salt = checks_salt  # the name the other packages import


def _newlines_normalised(memory: Memory) -> Memory:
    """``memory`` with CRLF and bare CR in its multi-line text as LF (any other stray line break
    is refused)."""
    changes = {
        name: normalise_newlines(value)
        for name in ("body", "reason")
        if isinstance(value := getattr(memory, name), str) and "\r" in value
    }
    return memory.with_changes(**changes) if changes else memory


def _cacheable(data: Any, problem_rows: list[list[Any]]) -> tuple[Any, list[list[Any]] | None]:
    """What the cache may keep of a checked file: everything of a valid one; of an invalid one only
    its id (for the duplicate-id check) and the problems; nothing at all of a file holding a secret
    or hidden Unicode.
    """

    if not problem_rows:
        return data, problem_rows
    if fails_scan([str(row[3]) for row in problem_rows]):
        return None, None
    match data:
        case {"id": str(file_id)}:
            return {"id": file_id}, problem_rows
    return None, problem_rows


class Store:
    def __init__(self, project: Project) -> None:
        self.project = project
        self.directory = project.memories_dir

    def path_of(self, memory_id: str) -> Path:
        pack, _, local = memory_id.partition("/")
        if local and ID_PATTERN.match(pack) and ID_PATTERN.match(local):
            raise UsageError(
                f"{memory_id} is a memory of the shared pack {pack!r}, read-only here: "
                "change it in that pack's repository, or stop compiling it with `gitmem "
                f"sources mute {pack} {local}`"
            )
        if not ID_PATTERN.match(memory_id):
            raise UsageError(
                f"invalid id {memory_id!r}: use 1 to 64 lower-case letters, digits or hyphens, "
                "starting with a letter or digit"
            )
        return self.directory / f"{memory_id}{SUFFIX}"

    # -- reading -----------------------------------------------------------------------------------

    def load(self) -> Snapshot:
        """Read and check every memory file."""
        snapshot = Snapshot()
        # (a committed .memory link to elsewhere is not read)
        with gateway.Folder(self.project, self.directory, missing_ok=True) as folder:
            names = sorted(folder.names())
            cache = FileCache(self.project.cache_dir / "store.json", _salt())
            prefix = self.project.display(self.directory)
            raw_ids: dict[str, list[str]] = {}
            for name in names:
                display = os.path.join(prefix, name)
                path = self.directory / name
                if not self._memory_file(name, path, display, snapshot.problems):
                    continue
                read = self._read(name, folder, display, cache, snapshot.problems)
                if read is None:
                    continue
                data, problem_rows = read
                file_id = name[: -len(SUFFIX)]
                match data:
                    case {"id": str(raw_id)}:
                        raw_ids.setdefault(raw_id, []).append(display)
                if problem_rows:
                    snapshot.problems.extend(Problem(display, *row) for row in problem_rows)
                elif data is not None:
                    snapshot.memories[file_id] = Memory.from_dict(data)
                    snapshot.files[file_id] = path
            cache.save()
        snapshot.problems.extend(self._cross_problems(snapshot, raw_ids))
        snapshot.problems.sort()
        return snapshot

    def _memory_file(self, name: str, path: Path, display: str, problems: list[Problem]) -> bool:
        """Whether ``name`` in the store's folder is a memory file to read (why not, into
        ``problems``, when it is no hidden file)."""
        if name.startswith("."):
            if is_temp(name):  # left by a write that was killed half-way
                remove_stale_temp(path)
            return False
        if not name.endswith(SUFFIX):
            if path.is_file():
                message = f"not a memory file: memories are named ID{SUFFIX}"
                problems.append(Problem(display, 1, 1, "file", message))
            return False
        if not ID_PATTERN.match(name[: -len(SUFFIX)]):  # e.g. "abc\n.yaml": never read, escaped
            shown = (
                display
                if display.isprintable()
                else display.encode("unicode_escape").decode("ascii")
            )
            message = (
                "not a memory file name: an id is 1 to 64 lower-case letters, digits or hyphens"
            )
            problems.append(Problem(shown, 1, 1, "file", message))
            return False
        return True

    def _read(
        self,
        name: str,
        folder: gateway.Folder,
        display: str,
        cache: FileCache,
        problems: list[Problem],
    ) -> tuple[Any, list[list[Any]]] | None:
        """A memory file's data and problem rows (line, column, field, message), from the cache
        when the file did not change; ``None`` (why, into ``problems``) when it cannot be read."""

        try:
            st = folder.stat(name, follow=False)
            if stat.S_ISLNK(st.st_mode):  # the folder is inside: only a link can lead elsewhere
                refusal = gateway.problem(self.project, folder.path / name, display)
                if refusal is not None:
                    problems.append(refusal)
                    return None
                followed = _followed(folder, name, display, problems)
                if followed is None:
                    return None
                st = followed
        except FileNotFoundError:  # removed while we read
            return None
        if st.st_size > MAX_FILE_BYTES:  # not read at all: a huge file costs no memory
            message = f"too large ({st.st_size} bytes; the limit is {MAX_FILE_BYTES})"
            problems.append(Problem(display, 1, 1, "file", message))
            return None
        key = stat_key(st)
        cached = cache.get(name, key)
        if cached is not None:
            return cached
        try:
            raw, _ = folder.read(name, limit=MAX_FILE_BYTES, display=display)
        except OSError as exc:
            problems.append(Problem(display, 1, 1, "file", f"cannot read: {exc.strerror}"))
            return None
        except CheckFailed as exc:  # grew past the limit, or replaced by a link, since the stat
            problems.extend(exc.problems)
            return None
        data, found = check_memory(raw, name[: -len(SUFFIX)])
        problem_rows = [[p.line, p.column, p.field, p.message] for p in found]
        cache.put(name, key, *_cacheable(data, problem_rows))
        return data, problem_rows

    def _cross_problems(self, snapshot: Snapshot, raw_ids: dict[str, list[str]]) -> list[Problem]:
        problems = []
        for displays in raw_ids.values():
            if len(displays) > 1:
                for display in displays:
                    others = ", ".join(d for d in displays if d != display)
                    problems.append(
                        Problem(display, 1, 1, "id", f"duplicate id (also in {others})")
                    )
        known = set(raw_ids) | set(snapshot.memories)
        for memory in snapshot.memories.values():
            for index, target in enumerate(memory.supersedes):
                if target not in known:
                    problems.append(
                        self._problem_at(memory.id, ("supersedes", index), f"no memory {target!r}")
                    )
        return problems

    def _problem_at(self, memory_id: str, where: tuple[Any, ...], message: str) -> Problem:
        """A problem at a field of a stored file (parsed again: only needed when something is
        wrong)."""
        path = self.directory / f"{memory_id}{SUFFIX}"
        doc = yamlio.load(gateway.read_text(self.project, path))
        line, column = doc.position(where)
        return Problem(self.project.display(path), line, column, field_path(where), message)

    def get(self, memory_id: str, snapshot: Snapshot | None = None) -> Memory:
        """One valid memory; a clear usage error when it does not exist or is invalid."""
        path = self.path_of(memory_id)
        snapshot = snapshot or self.load()
        if memory_id in snapshot.memories:
            return snapshot.memories[memory_id]
        mine = [p for p in snapshot.problems if Path(p.path).name == path.name]
        if path.exists() and mine:
            raise CheckFailed(
                mine, f"memory {memory_id!r} is invalid: fix {self.project.display(path)} first"
            )
        hint = difflib.get_close_matches(memory_id, list(snapshot.memories), n=1)
        suggestion = f" (did you mean {hint[0]!r}?)" if hint else "; `gitmem list` shows the ids"
        raise UsageError(f"no memory {memory_id!r}{suggestion}")

    # -- writing -----------------------------------------------------------------------------------

    def render(self, memory: Memory) -> str:
        """A new memory's file text, in canonical form."""
        return yamlio.dump(memory.to_file_dict(), MEMORY_HEADER)

    def check_text(self, memory_id: str, text: str, snapshot: Snapshot | None = None) -> Memory:
        """The memory ``text`` holds, or ``CheckFailed`` naming every problem: nothing is
        written on failure."""

        path = self.path_of(memory_id)
        display = self.project.display(path)
        data, problems = check_memory(text.encode("utf-8"), memory_id, display)
        if not problems and data is not None:
            memory = Memory.from_dict(data)
            if memory.supersedes:
                known = self.taken_ids(snapshot or self.load())
                problems = [
                    Problem(display, 1, 1, f"supersedes[{i}]", f"no memory {target!r}")
                    for i, target in enumerate(memory.supersedes)
                    if target not in known
                ]
            if not problems:
                return memory
        raise CheckFailed(problems, "nothing was written")

    def why_invalid(self, memory: Memory, snapshot: Snapshot | None = None) -> str | None:
        """Why ``memory`` would not make a valid file of the store (its first problem's field and
        message), or ``None``: what every import and harvest checks before it writes anything."""
        try:
            self.check_text(memory.id, self.render(memory), snapshot)
        except CheckFailed as exc:
            first = exc.problems[0] if exc.problems else None
            return f"{first.field}: {first.message}" if first else "invalid"
        return None

    def taken_ids(self, snapshot: Snapshot) -> set[str]:
        """The ids a new memory may not take: the store's, and every file's name in its folder
        (an invalid file's too)."""
        return set(snapshot.memories) | set(self._ids_on_disk())

    def create(self, memory: Memory, snapshot: Snapshot | None = None) -> Path:
        """Write a new memory. Refuses an id that exists, even one created by another process
        this instant."""
        path = self.path_of(memory.id)
        memory = _newlines_normalised(memory)
        if path.exists():
            raise UsageError(
                f"memory {memory.id!r} already exists ({self.project.display(path)}); "
                "choose another id with --id, or change it with `gitmem edit`"
            )
        text = self.render(memory)
        self.check_text(memory.id, text, snapshot)
        gateway.require(self.project, path)
        self.ensure_schema_copies(refresh=False)
        try:
            gateway.write(self.project, path, text, overwrite=False)
        except FileExistsError:
            raise UsageError(
                f"memory {memory.id!r} was just created by someone else; choose another id "
                "with --id"
            ) from None
        return path

    def replace_text(self, memory_id: str, text: str, snapshot: Snapshot | None = None) -> Memory:
        """Replace a stored memory's file with ``text``, after checking it."""
        memory = self.check_text(memory_id, text, snapshot)
        gateway.write(self.project, self.path_of(memory_id), text)
        return memory

    def update(
        self, memory_id: str, changes: dict[str, Any], snapshot: Snapshot | None = None
    ) -> Memory:
        """Set fields of a stored memory (``None`` removes one), keeping the file's comments and
        layout."""
        path = gateway.require(self.project, self.path_of(memory_id))
        changes = {
            k: normalise_newlines(v) if isinstance(v, str) else v for k, v in changes.items()
        }
        text = yamlio.update(gateway.read_text(self.project, path), changes)
        return self.replace_text(memory_id, text, snapshot)

    def delete(self, memory_id: str) -> Path:
        path = self.path_of(memory_id)
        try:
            gateway.remove(self.project, path)
        except FileNotFoundError:
            raise UsageError(f"no memory {memory_id!r}; `gitmem list` shows the ids") from None
        return path

    def ensure_schema_copies(self, refresh: bool = True) -> list[Path]:
        """Copy the JSON Schemas into .memory/schema/ so editors validate files offline; returns
        what changed."""

        written = []
        for name, filename in SCHEMA_FILES.items():
            path = gateway.require(self.project, self.project.schema_dir / filename)
            if path.exists() and not refresh:
                continue
            text = schema_text(name)
            if path.exists() and gateway.read_text(self.project, path) == text:
                continue
            gateway.write(self.project, path, text)
            written.append(path)
        return written

    def _ids_on_disk(self) -> list[str]:
        return [n[: -len(SUFFIX)] for n in gateway.names_in(self.directory) if n.endswith(SUFFIX)]


def _followed(
    folder: gateway.Folder, name: str, display: str, problems: list[Problem]
) -> os.stat_result | None:
    """The stat of the file the link ``name`` leads to; None, and why into ``problems``, when it
    leads to nothing (a committed link whose file was not committed: its memory would be lost
    without a word) or cannot be followed (a loop of links)."""
    try:
        return folder.stat(name)
    except OSError as exc:
        problems.append(Problem(display, 1, 1, *gateway.unfollowed(exc)))
        return None
