"""A cache of checked memory files, kept under .git/gitmem/ and keyed on each file's stat.

A file's entry is trusted only when inode, size, mtime and ctime all match, and only for files whose
timestamps were at least a second old when they were read (a "racily clean" file could change again
within the file system's timestamp granularity without its stat changing). ctime cannot be set by
tools such as ``touch``, so a changed file is always seen. A cache that cannot be read or written is
ignored: it only saves time.
"""

from __future__ import annotations

import contextlib
import json
import os
import time
from pathlib import Path
from typing import Any

from gitmem import __version__, gateway
from gitmem.errors import GitmemError

_RACY_NS = 1_000_000_000
_FORMAT = 1

Key = tuple[int, int, int, int]


def stat_key(st: os.stat_result) -> Key:
    return (st.st_ino, st.st_size, st.st_mtime_ns, st.st_ctime_ns)


class FileCache:
    def __init__(self, path: Path | None, salt: str) -> None:
        self.path = path
        self.salt = f"{_FORMAT}:{salt}"
        self.started_ns = time.time_ns()
        self.entries: dict[str, list[Any]] = {}
        self.kept: dict[str, list[Any]] = {}
        self.changed = False
        if path is not None:
            with contextlib.suppress(
                OSError, ValueError, GitmemError
            ):  # (the area: the cache's own folder)
                stored = json.loads(
                    gateway.read_bytes(path.parent, path, limit=gateway.CACHE_LIMIT)
                )
                if isinstance(stored, dict) and stored.get("salt") == self.salt:
                    self.entries = stored.get("entries", {})

    def get(self, name: str, key: Key) -> tuple[Any, list[Any]] | None:
        entry = self.entries.get(name)
        if entry is None or tuple(entry[0]) != key:
            return None
        self.kept[name] = entry
        return entry[1], entry[2]

    def put(self, name: str, key: Key, data: Any, problems: list[Any] | None) -> None:
        """Keep a file's checked data and problems; ``problems`` None: keep nothing (the file
        must be read again)."""
        self.changed = True
        if problems is not None and max(key[2], key[3]) < self.started_ns - _RACY_NS:
            self.kept[name] = [list(key), data, problems]

    def save(self) -> None:
        """Write the entries seen in this run, when anything changed (files added, edited or
        removed)."""
        if self.path is None or not (self.changed or len(self.kept) != len(self.entries)):
            return
        payload = json.dumps({"salt": self.salt, "entries": self.kept}, separators=(",", ":"))
        with contextlib.suppress(OSError):
            gateway.write(self.path.parent, self.path, payload)


def checks_salt(
    relatives: tuple[str, ...] = (
        "memory/schema.py",
        "scan/rules.py",
        "scan/engine.py",
        "scan/filters.py",
        "scan/decode.py",
        "scan/unicode.py",
        "schemas/memory.schema.json",
    ),
) -> str:
    """What cached checks depend on besides the files: gitmem's version and the modification time
    of each of its files ``relatives`` names ("-" for a missing one); by default the memory checks'
    rules and schema (here, not in ``store``, so the recall index gets it without importing the
    store and the YAML reader).
    """
    package = Path(os.path.realpath(__file__)).parent.parent
    parts = [__version__]
    for relative in relatives:
        try:
            parts.append(str(os.stat(package / relative).st_mtime_ns))
        except OSError:
            parts.append("-")
    return ":".join(parts)
