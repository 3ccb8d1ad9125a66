"""What doctor reports: a ``Finding`` is a value (severity, stable code, memory id, path, line,
message, next command), ``Report`` and ``Fixed`` collect them, and ``Context`` is what every check
reads (the store as loaded once, the config, today, and the cited files, each read once)."""

from __future__ import annotations

import contextlib
import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from datetime import date
from functools import cached_property
from pathlib import Path
from typing import Any, Literal

from gitmem import gateway
from gitmem.errors import GitmemError
from gitmem.git.removed import Removal
from gitmem.memory.config import Config
from gitmem.memory.store import SUFFIX, Snapshot, Store
from gitmem.project import Project

Severity = Literal["error", "warning"]


ERROR: Severity = "error"


WARNING: Severity = "warning"


@dataclass(frozen=True)
class Finding:
    """One thing doctor found about one memory file."""

    severity: Severity
    code: str  # stable, e.g. "expired-active"; scripts and docs refer to it
    memory_id: str | None
    path: str  # as the user would type it from the current directory
    line: int  # 1-based; the line of the field concerned (1 when the whole file is)
    message: str
    command: str | None = None  # what to run next
    fixable: bool = False  # `gitmem doctor --fix` repairs it

    def to_dict(self) -> dict[str, Any]:
        return {
            "severity": self.severity,
            "code": self.code,
            "id": self.memory_id,
            "path": self.path,
            "line": self.line,
            "message": self.message,
            "command": self.command,
            "fixable": self.fixable,
        }

    def sort_key(self) -> tuple[int, str, int, str, str]:
        return (0 if self.severity == ERROR else 1, self.path, self.line, self.code, self.message)


@dataclass(frozen=True)
class Report:
    findings: tuple[Finding, ...]
    memories: int  # memory files looked at, valid or not
    removals: tuple[Removal, ...] = ()  # recent removals, newest first: information, not findings

    @property
    def errors(self) -> list[Finding]:
        return [f for f in self.findings if f.severity == ERROR]

    @property
    def warnings(self) -> list[Finding]:
        return [f for f in self.findings if f.severity == WARNING]

    def failed(self, strict: bool) -> bool:
        """Whether the command exits 1: on any error, and with ``strict`` on any warning too."""
        return bool(self.errors or (strict and self.warnings))


@dataclass(frozen=True)
class Fixed:
    """A repair ``--fix`` made."""

    memory_id: str
    path: str
    action: str

    def to_dict(self) -> dict[str, str]:
        return {"id": self.memory_id, "path": self.path, "action": self.action}


@dataclass
class Context:
    """What every check reads: the store as loaded once, the config, and today's date."""

    project: Project
    store: Store
    config: Config
    snapshot: Snapshot
    today: date
    _files: dict[str, bytes | None] = field(default_factory=dict)
    _texts: dict[str, list[str]] = field(default_factory=dict)

    @cached_property
    def troubled(self) -> set[str | None]:
        """Ids whose files have errors: writing them is refused, so they cannot be fixed
        automatically."""
        return {memory_id_of(problem.path) for problem in self.snapshot.problems}

    def path(self, memory_id: str) -> str:
        return self.project.display(self.store.directory / f"{memory_id}{SUFFIX}")

    def line_of(self, memory_id: str, name: str) -> int:
        """The line of a top-level field in a memory's file (files that passed validation keep
        keys at column 1)."""
        if memory_id not in self._texts:
            text = ""  # unreadable: every field on line 1
            with contextlib.suppress(OSError, GitmemError):
                text = gateway.read_text(
                    self.project, self.store.directory / f"{memory_id}{SUFFIX}"
                )
            self._texts[memory_id] = text.splitlines()
        pattern = re.compile(rf"{re.escape(name)}\s*:")
        for number, line in enumerate(self._texts[memory_id], start=1):
            if pattern.match(line):
                return number
        return 1

    def cited(self, relative: str) -> bytes | None:
        """A cited file's bytes; ``None`` when it is gone, not a file, or outside the repository."""
        if relative not in self._files:
            root = gateway.real(self.project.root)
            target = gateway.real(root / relative)
            content: bytes | None = None
            if target.is_relative_to(root):  # the read refuses what is gone or not a file
                with contextlib.suppress(OSError, GitmemError):
                    content = gateway.read_bytes(
                        self.project, root / relative, limit=gateway.SCAN_LIMIT
                    )
            self._files[relative] = content
        return self._files[relative]


Check = Callable[[Context], Iterable[Finding]]


def memory_id_of(display_path: str) -> str | None:
    """The id a memory file's name implies; ``None`` for a stray file that is not named like one."""
    name = Path(display_path).name
    return name.removesuffix(SUFFIX) if name.endswith(SUFFIX) else None
