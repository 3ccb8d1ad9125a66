"""The memory files the recall index keeps up to date: their names and stats (what says a file
changed), and why one is not read (a link leading outside the repository, a file too large), as the
store says it.
"""

from __future__ import annotations

import hashlib
import marshal
import os
import stat
from typing import Any

from gitmem import gateway
from gitmem.memory.model import ID_PATTERN

SUFFIX = ".yaml"
Key = tuple[int, int, int, int]


def key(st: os.stat_result) -> Key:
    return (st.st_ino, st.st_size, st.st_mtime_ns, st.st_ctime_ns)


def signature(names: list[str], stats: list[os.stat_result]) -> str:
    """A digest of every file's name and stat, in the order given: equal only when no file was
    added, removed or touched (or the folder lists them in another order, which costs one full
    comparison). The names joined, then one list a field, each read in a loop of its own (a third
    cheaper than a tuple a file at 10,000 memories), in marshal's version 2 (no references to
    repeated objects): the fastest here that imports nothing."""
    digest = hashlib.sha256("\0".join(names).encode("utf-8", "surrogateescape"))
    fields = (
        [s.st_ino for s in stats],
        [s.st_size for s in stats],
        [s.st_mtime_ns for s in stats],
        [s.st_ctime_ns for s in stats],
    )
    digest.update(marshal.dumps(fields, 2))
    return digest.hexdigest()


def too_large(st: os.stat_result) -> list[Any] | None:
    """Why a memory file is not read for its size, as the store says it (``[line, column, field,
    message]``), or None (a link leading outside is refused by the gateway's read)."""
    # lazy: the hooks' start-up
    from gitmem.memory.schema import MAX_FILE_BYTES

    if st.st_size > MAX_FILE_BYTES:
        return [1, 1, "file", f"too large ({st.st_size} bytes; the limit is {MAX_FILE_BYTES})"]
    return None


def memories(names: list[str], stats: list[os.stat_result]) -> dict[str, os.stat_result]:
    """The memories' files of ``stat_all``'s (``ID.yaml``), by name."""
    return {
        name: st
        for name, st in zip(names, stats, strict=True)
        if ID_PATTERN.match(name, 0, len(name) - len(SUFFIX))
    }


def listed(folder: gateway.Folder) -> list[str]:
    """The names of every ``.yaml`` file in the folder (``memories`` keeps the memories'), in its
    order."""
    return [n for n in folder.names() if n.endswith(SUFFIX)]


def stat_all(folder: gateway.Folder, names: list[str]) -> tuple[list[str], list[os.stat_result]]:
    """``names`` (``listed``'s) and their stats, index for index, each relative to the open folder
    (the warm query's main cost at 10,000 memories, and about three times cheaper than building each
    path); a name gone since the listing is left out, a link that leads nowhere kept with its own
    stat."""
    try:
        return names, folder.stats(names)
    except OSError:  # removed since listed, or a link that leads nowhere: a file at a time
        pass
    found: list[str] = []
    stats: list[os.stat_result] = []
    for name in names:
        try:
            st = folder.stat(name)
        except OSError:
            try:  # a link to nothing, or a loop: kept with its own stat, to be reported
                st = folder.stat(name, follow=False)
            except OSError:  # removed since listed
                continue
        stats.append(st)
        found.append(name)
    return found, stats


def unfollowed(folder: gateway.Folder, name: str, st: os.stat_result) -> list[Any] | None:
    """Why ``name`` is not read when ``stat_all`` gave the stat of the link itself (one that leads
    nowhere), as the store says it; None for any other file, or a link followed now."""
    if not stat.S_ISLNK(st.st_mode):
        return None
    try:
        folder.stat(name)
    except OSError as exc:
        return [1, 1, *gateway.unfollowed(exc)]
    return None
