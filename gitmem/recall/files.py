"""The memory files the recall index keeps up to date: their names and stats (what says a file
changed), and why one is not read (a link leading outside the repository, a file too large), as the
store says it.
"""

from __future__ import annotations

import contextlib
import hashlib
import marshal
import os
from pathlib import Path
from typing import Any

from gitmem import gateway
from gitmem.memory.model import ID_PATTERN
from gitmem.project import Project

SUFFIX = ".yaml"
Key = tuple[int, int, int, int]


def key(st: os.stat_result) -> Key:
    return (st.st_ino, st.st_size, st.st_mtime_ns, st.st_ctime_ns)


def signature(stats: list[tuple[str, os.stat_result]]) -> str:
    """A digest of every file's name and stat, in the order given: equal only when no file was
    added, removed or touched (or the folder lists them in another order, which costs one full
    comparison). marshal's version 2 (no references to repeated objects) is the fastest here."""
    keys = [(s.st_ino, s.st_size, s.st_mtime_ns, s.st_ctime_ns) for _, s in stats]
    return hashlib.sha256(marshal.dumps(([name for name, _ in stats], keys), 2)).hexdigest()


def refusal(project: Project, path: Path, st: os.stat_result) -> list[Any] | None:
    """Why a memory file is not read, as the store says it (``[line, column, field, message]``),
    or None."""
    # lazy: the hooks' start-up
    from gitmem.memory.schema import MAX_FILE_BYTES

    refused = (
        gateway.problem(project, path, "") if os.path.islink(path) else None
    )  # outside, or into a .git folder
    if refused is not None:
        return [1, 1, "path", refused.message]
    if st.st_size > MAX_FILE_BYTES:
        return [1, 1, "file", f"too large ({st.st_size} bytes; the limit is {MAX_FILE_BYTES})"]
    return None


def memories(stats: list[tuple[str, os.stat_result]]) -> list[tuple[str, os.stat_result]]:
    """The memories' files of ``stat_all``'s (``ID.yaml``)."""
    return [item for item in stats if ID_PATTERN.match(item[0], 0, len(item[0]) - len(SUFFIX))]


def stat_all(directory: Path) -> list[tuple[str, os.stat_result]]:
    """(name, stat) of every ``.yaml`` file (``memories`` keeps the memories'), in the folder's
    order; stat relative to an open folder where the platform allows (the warm query's main cost at
    10,000 memories, and about three times cheaper than building each path)."""
    try:
        names = [n for n in os.listdir(directory) if n.endswith(SUFFIX)]
    except FileNotFoundError:
        return []
    if os.stat not in os.supports_dir_fd:
        return _stat_each([(name, os.path.join(directory, name)) for name in names])
    fd = gateway.open_dir(directory, directory)
    try:
        return [(name, os.stat(name, dir_fd=fd)) for name in names]
    except FileNotFoundError:  # removed while listed: the slow way, leaving it out
        return _stat_each([(name, os.path.join(directory, name)) for name in names])
    finally:
        os.close(fd)


def _stat_each(paths: list[tuple[str, str]]) -> list[tuple[str, os.stat_result]]:
    out = []
    for name, path in paths:
        with contextlib.suppress(FileNotFoundError):
            out.append((name, os.stat(path)))
    return out
