"""What a session has been given already, so nothing is injected twice and the stop reminder comes
once.

One small JSON file per session under ``.git/gitmem/sessions/``, named by a digest of the client's
session id (an id is never used as a path). Files untouched for ``KEEP_DAYS`` are pruned whenever a
new session starts. The state is a cache: unreadable or corrupt, it starts again empty.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import time
from pathlib import Path

from gitmem import gateway
from gitmem.errors import GitmemError
from gitmem.project import Project

DIRECTORY = "sessions"
KEEP_DAYS = 7
MAX_IDS = 500  # a session that somehow collects more keeps the newest


class SessionState:
    """One session's state: what it has injected, and whether it was reminded. (A plain class, not a
    dataclass: importing dataclasses costs the prompt hook, a new process on every prompt, more than
    its own work.)"""

    def __init__(
        self,
        path: Path,
        started_ns: int,
        injected: list[str] | None = None,
        reminded: bool = False,
        status_given: bool = False,
        dirty: str | None = None,
        new: bool = False,
    ) -> None:
        self.path = path
        self.started_ns = started_ns
        self.injected: list[str] = (
            [] if injected is None else injected
        )  # keys: ``id``, ``~/id``, ``PACK/id``
        self.reminded = reminded
        self.status_given = status_given
        self.dirty = dirty  # a digest of `git status` when the session began
        self.new = new

    def __repr__(self) -> str:
        return (
            f"SessionState({', '.join(f'{name}={value!r}' for name, value in vars(self).items())})"
        )

    def __eq__(self, other: object) -> bool:
        return other.__class__ is self.__class__ and vars(self) == vars(other)

    __hash__ = None  # type: ignore[assignment]  # (mutable, as the dataclass was)

    def save(self) -> None:
        data = {
            "started_ns": self.started_ns,
            "injected": self.injected[-MAX_IDS:],
            "reminded": self.reminded,
            "status_given": self.status_given,
            "dirty": self.dirty,
        }
        with contextlib.suppress(OSError):  # (the sessions folder under gitmem's cache is the area)
            text = json.dumps(data, separators=(",", ":"))
            gateway.write(self.path.parent, self.path, text, durable=False)  # a cache


def directory(project: Project) -> Path:
    return project.cache_dir / DIRECTORY


def load(project: Project, session_id: str) -> SessionState:
    """The state of ``session_id`` (a new one when there is none, or it cannot be read)."""
    key = hashlib.sha256(session_id.encode("utf-8", "surrogatepass")).hexdigest()[:32]
    path = directory(project) / f"{key}.json"
    try:
        data = json.loads(gateway.read_bytes(project, path))  # not an object: no .get
        injected = [item for item in data.get("injected", []) if isinstance(item, str)]
        dirty = data.get("dirty")
        return SessionState(
            path,
            int(data.get("started_ns", 0)),
            injected,
            bool(data.get("reminded")),
            bool(data.get("status_given")),
            dirty if isinstance(dirty, str) else None,
        )
    except (OSError, ValueError, TypeError, AttributeError, GitmemError):
        prune(project)
        return SessionState(path, time.time_ns(), new=True)


CLAIM_SUFFIX = ".claim"
CLAIM_SECONDS = (
    120  # a second run of the same hook for the same prompt within this is the same prompt's
)


def claim(
    project: Project, session_id: str, event: str, text: str, now: float | None = None
) -> bool:
    """Whether this hook run is the first for this session's event and prompt (``text``): a client
    running two clients' hooks (GitHub's Copilot app runs .claude/settings.json's as well as its
    own; Devin imports .claude/ hooks) runs gitmem's twice for one prompt, at once or one after the
    other, and only the first may answer.
    A marker file made exclusively (an atomic link) is the claim; one older than ``CLAIM_SECONDS``
    is a later, new prompt with the same words. A claim that cannot be written lets the run answer.
    """
    material = "\0".join((session_id, event, text)).encode("utf-8", "surrogatepass")
    path = directory(project) / (hashlib.sha256(material).hexdigest()[:32] + CLAIM_SUFFIX)
    now = time.time() if now is None else now
    stamp = str(now).encode()
    try:
        gateway.write(project.cache_dir, path, stamp, overwrite=False, durable=False)
        return True
    except FileExistsError:
        pass
    except (OSError, GitmemError):
        return True
    try:
        age = now - os.stat(path).st_mtime
    except OSError:
        return True
    if age < CLAIM_SECONDS:
        return False
    with contextlib.suppress(OSError, GitmemError):
        gateway.write(project.cache_dir, path, stamp, durable=False)
    return True


def prune(project: Project, now: float | None = None) -> int:
    """Remove the state of sessions untouched for ``KEEP_DAYS``; returns how many."""
    limit = (now if now is not None else time.time()) - KEEP_DAYS * 86400
    removed = 0
    try:
        entries = list(os.scandir(directory(project)))
    except OSError:
        return 0
    for entry in entries:
        with contextlib.suppress(OSError):
            if entry.name.endswith((".json", CLAIM_SUFFIX)) and entry.stat().st_mtime < limit:
                gateway.remove(project, entry.path)
                removed += 1
    return removed
