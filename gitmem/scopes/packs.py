"""Shared memory packs: another git repository's memories, pinned at a revision, compiled into this
project.

A source (``sources:`` in .memory/config.yaml, ``gitmem.memory.config.Source``) names a repository
(URL, or a path: a relative one is relative to this repository's root) and a pinned revision: a tag
or a commit (``sources add --rev BRANCH`` pins the branch's head commit and records ``track:
BRANCH``). The pack's memories are the files under ``.memory/memories/`` at that revision, read from
git objects (nothing is checked out) and checked like any memory file
(``gitmem.memory.schema.check_memory``: schema, secrets, hidden Unicode). Their ids are namespaced
``NAME/ID``: a project id never holds a slash, so they cannot collide, and the compiled blocks'
entries stay keyed by id.

The clone is a bare repository under the git directory (``.git/gitmem/sources/NAME-HASH.git``, the
hash that of the recorded repository, so changing the URL makes a new clone), fetched only when the
pinned revision is not in it yet, or by ``sources update``. What a pin holds is cached next to it as
JSON, so a warm compile runs no git at all and works offline. Every git command on a clone strips
the variables git exports to hooks (``foreign=True``).
"""

from __future__ import annotations

import contextlib
import difflib
import json
import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import date
from typing import Any

from gitmem import gateway
from gitmem.errors import CannotRun, GitmemError, Problem, UsageError
from gitmem.memory.config import Config, Source
from gitmem.memory.model import Memory
from gitmem.memory.schema import MAX_FILE_BYTES, check_memory
from gitmem.memory.store import _salt as store_salt
from gitmem.project import Project
from gitmem.scopes.clone import (
    MEMORIES_PATH,
    SUFFIX,
    clone_dir,
    fetch,
    index_path,
    read_tree,
    resolve,
)

_FORMAT = 1
_SHA = re.compile(r"[0-9a-f]{40}|[0-9a-f]{64}")


@dataclass
class Pack:
    """A source's memories at its pinned revision (ids as written in the pack, not namespaced)."""

    source: Source
    commit: str
    memories: dict[str, Memory] = field(default_factory=dict)
    problems: list[Problem] = field(default_factory=list)

    @property
    def name(self) -> str:
        return self.source.name

    def qualified(self, memory: Memory) -> Memory:
        """``memory`` as this project sees it: id (and supersedes) namespaced ``NAME/ID``."""
        return memory._replace(
            id=f"{self.name}/{memory.id}",
            supersedes=tuple(f"{self.name}/{target}" for target in memory.supersedes),
        )

    def muted(self, memory_id: str) -> bool:
        return memory_id in self.source.mute

    def live(self, today: date) -> list[Memory]:
        """The memories compile includes: active, unexpired, not muted; namespaced."""
        return [
            self.qualified(memory)
            for memory_id, memory in sorted(self.memories.items())
            if memory.is_live(today) and not self.muted(memory_id)
        ]

    def display(self, memory_id: str) -> str:
        """Where a memory comes from, as ``NAME@REV:.memory/memories/ID.yaml``."""
        return f"{self.name}@{short_rev(self.source.rev)}:{MEMORIES_PATH}/{memory_id}{SUFFIX}"


def short_rev(rev: str) -> str:
    return rev[:12] if _SHA.fullmatch(rev) else rev


# -- git on a clone --------------------------------------------------------------------------------


# -- reading a pack --------------------------------------------------------------------------------


def _salt() -> str:
    return f"{_FORMAT}:{store_salt()}"


def read(project: Project, source: Source, *, fetch_missing: bool = True) -> Pack | None:
    """The source's memories at its pinned revision: from the cache, else from the clone, fetching
    it first when the revision is not there yet (``fetch_missing``; otherwise ``None`` then)."""
    with contextlib.suppress(OSError, ValueError, KeyError, TypeError, GitmemError):
        stored = json.loads(gateway.read_bytes(project, index_path(project, source)))
        if (stored["salt"], stored["repo"], stored["rev"]) == (_salt(), source.repo, source.rev):
            return _pack_from(source, stored)
    clone = clone_dir(project, source)
    commit = resolve(clone, source.rev) if clone.is_dir() else None
    if commit is None:
        if not fetch_missing:
            return None
        clone = fetch(project, source)
        commit = resolve(clone, source.rev)
        if commit is None:
            raise CannotRun(
                f"source {source.name!r}: no revision {source.rev!r} in {source.repo}; "
                f"pin one with `gitmem sources update {source.name}`"
            )
    pack = check_pack(source, commit, read_tree(clone, commit, source.name))
    remember(project, pack)
    return pack


def remember(project: Project, pack: Pack) -> None:
    """Cache what the source's pin holds (a cache: when it cannot be written, the next run reads
    the clone)."""
    payload = {
        "salt": _salt(),
        "repo": pack.source.repo,
        "rev": pack.source.rev,
        "commit": pack.commit,
        "memories": {memory_id: memory.to_dict() for memory_id, memory in pack.memories.items()},
        "problems": [[p.path, p.line, p.column, p.field, p.message] for p in pack.problems],
    }
    with contextlib.suppress(OSError):
        gateway.write(
            project, index_path(project, pack.source), json.dumps(payload, separators=(",", ":"))
        )


def _pack_from(source: Source, stored: dict[str, Any]) -> Pack:
    return Pack(
        source,
        stored["commit"],
        {memory_id: Memory.from_dict(data) for memory_id, data in stored["memories"].items()},
        [Problem(*row) for row in stored["problems"]],
    )


def check_pack(source: Source, commit: str, files: dict[str, bytes | int | None]) -> Pack:
    """Check every memory file of the pack, and that what they supersede is in the pack."""

    pack = Pack(source, commit)
    for name, raw in sorted(files.items()):
        memory_id = name[: -len(SUFFIX)]
        display = pack.display(memory_id)
        if raw is None:
            pack.problems.append(
                Problem(display, 1, 1, "file", "a symbolic link; a pack's memories must be files")
            )
            continue
        if isinstance(raw, int):
            message = f"too large ({raw} bytes; the limit is {MAX_FILE_BYTES})"
            pack.problems.append(Problem(display, 1, 1, "file", message))
            continue
        data, problems = check_memory(raw, memory_id, display)
        if problems:
            pack.problems.extend(problems)
        elif data is not None:
            pack.memories[memory_id] = Memory.from_dict(data)
    for memory in pack.memories.values():
        for index, target in enumerate(memory.supersedes):
            if f"{target}{SUFFIX}" not in files:
                pack.problems.append(
                    Problem(
                        pack.display(memory.id),
                        1,
                        1,
                        f"supersedes[{index}]",
                        f"no memory {target!r}",
                    )
                )
    pack.problems.sort()
    return pack


def check_sources(config: Config) -> None:
    names = [source.name for source in config.sources]
    for name in names:
        if names.count(name) > 1:
            raise CannotRun(f".memory/config.yaml: two sources are named {name!r}: rename one")


def load(
    project: Project, config: Config, *, fetch_missing: bool = True
) -> tuple[list[Pack], list[Source]]:
    """Every source's pack; with ``fetch_missing=False``, the sources not in the cache yet come
    back apart."""
    check_sources(config)
    packs: list[Pack] = []
    missing: list[Source] = []
    for source in config.sources:
        pack = read(project, source, fetch_missing=fetch_missing)
        if pack is None:
            missing.append(source)
        else:
            packs.append(pack)
    return packs, missing


def problems(packs: Sequence[Pack]) -> list[Problem]:
    return sorted(problem for pack in packs for problem in pack.problems)


def live(packs: Sequence[Pack], today: date) -> list[Memory]:
    return [memory for pack in packs for memory in pack.live(today)]


def find(packs: Sequence[Pack], qualified_id: str) -> tuple[Pack, Memory]:
    """The pack memory ``NAME/ID``; a usage error naming what exists when there is none."""

    name, _, memory_id = qualified_id.partition("/")
    pack = {pack.name: pack for pack in packs}.get(name)  # (check_sources: names are unique)
    if pack is None:
        known = ", ".join(pack.name for pack in packs) or "none"
        raise UsageError(f"no source {name!r} (sources: {known}); `gitmem sources list` shows them")
    memory = pack.memories.get(memory_id)
    if memory is None:
        hint = difflib.get_close_matches(memory_id, list(pack.memories), n=1)
        suggestion = f" (did you mean '{name}/{hint[0]}'?)" if hint else ""
        raise UsageError(
            f"no memory {memory_id!r} in source {name!r} at "
            f"{short_rev(pack.source.rev)}{suggestion}"
        )
    return pack, memory


# -- changing the sources --------------------------------------------------------------------------


def recallable(
    project: Project, config: Config, today: date
) -> tuple[list[tuple[Memory, str]], list[Source]]:
    """The live, unmuted memories of the shared packs in the local cache (never fetched here: recall
    must be quick and offline), each with where it comes from, and the sources not fetched yet."""
    loaded, missing = load(project, config, fetch_missing=False)
    memories = [
        (pack.qualified(memory), pack.display(memory_id))
        for pack in loaded
        for memory_id, memory in sorted(pack.memories.items())
        if memory.is_live(today) and not pack.muted(memory_id)
    ]
    return memories, list(missing)
