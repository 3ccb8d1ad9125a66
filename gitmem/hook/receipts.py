"""Receipts: which memories each session received from gitmem's own hooks, and which calls the
pre-tool hook refused.

One JSON line per event in ``.git/gitmem/receipts.jsonl`` (gitmem's cache: never committed), bounded
to ``LIMIT`` bytes (past it the older half goes). A line holds ids, counts and a digest of the
session id; never prompt text, a command or a path. ``gitmem receipts`` (``checks/receipts.py``)
reads them with the clients' transcripts.

Kinds: ``start`` (the memories of the always-loaded rules files at session start), ``prompt``
(injected by the prompt hook), ``recall`` (returned by the MCP tool recall), ``block`` (a call the
pre-tool hook refused: the memory it broke, or none for the memory-layer gate).
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import time
from collections.abc import Iterable
from typing import Any

from gitmem import gateway
from gitmem.errors import GitmemError
from gitmem.project import Project

NAME = "receipts.jsonl"
LIMIT = 512 * 1024  # bytes kept (about 4,000 sessions' starts)
KINDS = ("start", "prompt", "recall", "block")
MAX_IDS = 200  # ids of one line


def session_key(session_id: str) -> str:
    return hashlib.sha256(session_id.encode("utf-8", "surrogatepass")).hexdigest()[:16]


def record(
    project: Project,
    kind: str,
    client: str,
    session_id: str,
    ids: Iterable[str],
    rule: str | None = None,
) -> None:
    """Append one receipt; a receipt that cannot be written is dropped (it never holds up a
    hook)."""
    line: dict[str, Any] = {
        "t": int(time.time()),
        "k": kind,
        "c": client,
        "s": session_key(session_id),
        "ids": list(ids)[:MAX_IDS],
    }
    if rule is not None:
        line["rule"] = rule
    with contextlib.suppress(OSError, GitmemError):
        path = project.cache_dir / NAME
        gateway.append_line(
            project.cache_dir, path, json.dumps(line, separators=(",", ":")), limit=LIMIT
        )


def read(project: Project, since: float = 0.0) -> list[dict[str, Any]]:
    """Every well-formed receipt at or after ``since`` (Unix seconds), oldest first."""
    try:
        raw = gateway.read_bytes(project.cache_dir, project.cache_dir / NAME, limit=LIMIT * 2)
    except (OSError, GitmemError):
        return []
    out: list[dict[str, Any]] = []
    for line in raw.decode("utf-8", "replace").splitlines():
        try:
            item = json.loads(line)
        except ValueError:
            continue
        match item:  # a well-formed receipt: an object with these keys of these types
            case {"k": str(kind), "ids": list(), "t": int(moment), "c": str()} if (
                kind in KINDS and moment >= since
            ):
                out.append(item)
    return out
