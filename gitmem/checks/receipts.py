"""``gitmem receipts``: per memory, the sessions it reached, the tokens it cost, and the calls that
broke it (refused by the pre-tool hook, or run where no hook was), per client.

Two sources. gitmem's own receipts (``session/receipts.py``): what its hooks delivered (the
always-loaded files at session start, prompt injections, MCP recalls) and what the pre-tool hook
refused. And the clients' transcripts (``scan/transcripts.py`` finds them): every shell command a
session ran is matched against the active memories' ``enforce.commands``; one that was not refused
(no ``gitmem: refused`` naming the memory follows it in the transcript) ran: a violation. Nothing of
a transcript is kept or shown but counts.
"""

from __future__ import annotations

import bisect
import json
from collections.abc import Iterator, Sequence
from datetime import UTC, date, datetime
from pathlib import Path
from typing import Any, NamedTuple

from gitmem import gateway, globmatch
from gitmem.errors import GitmemError
from gitmem.hook import receipts as log
from gitmem.hook import shell
from gitmem.memory.model import Memory
from gitmem.project import Project

TRANSCRIPT_LIMIT = 32 * gateway.MIB  # a transcript larger than this is not read
MAX_DEPTH = 12  # JSON nesting followed into a transcript record
MAX_CALLS = 20_000  # shell commands read from one transcript


class Counts:
    """One memory's (or one client's) figures. (A plain class: the report is built in one pass.)"""

    def __init__(self) -> None:
        self.sessions: set[str] = set()
        self.deliveries = 0
        self.recalls = 0
        self.violations = 0
        self.blocked = 0

    def to_dict(self) -> dict[str, int]:
        return {
            "delivered": len(self.sessions),
            "violations": self.violations,
            "blocked": self.blocked,
        }


class Row(NamedTuple):
    memory: Memory
    total: Counts
    clients: dict[str, Counts]
    tokens: int

    def to_dict(self) -> dict[str, Any]:
        return {
            "id": self.memory.id,
            "title": self.memory.title,
            "delivered": len(self.total.sessions),
            "tokens": self.tokens,
            "violations": self.total.violations,
            "blocked": self.total.blocked,
            "clients": {name: counts.to_dict() for name, counts in sorted(self.clients.items())},
        }


class Report(NamedTuple):
    since: date
    rows: list[Row]
    gate_blocked: int  # calls the memory-layer gate refused (they break no one memory)

    def to_dict(self) -> dict[str, Any]:
        return {"since": self.since.isoformat(), "memories": [row.to_dict() for row in self.rows]}


def build(
    project: Project,
    memories: Sequence[Memory],
    tokens: dict[str, int],
    since: date,
    client: str | None = None,
    home: Path | None = None,
) -> Report:
    """The report over ``memories`` (the store's live ones, usually) from ``since`` on, for
    every client or one."""
    start = datetime(since.year, since.month, since.day, tzinfo=UTC).timestamp()
    totals: dict[str, Counts] = {memory.id: Counts() for memory in memories}
    per_client: dict[str, dict[str, Counts]] = {memory.id: {} for memory in memories}
    gate = 0

    def counts(memory_id: str, name: str) -> tuple[Counts, Counts] | None:
        if memory_id not in totals:
            return None
        return totals[memory_id], per_client[memory_id].setdefault(name, Counts())

    for item in log.read(project, start):
        name = item["c"]
        if client is not None and name != client:
            continue
        if item["k"] == "block" and not item["ids"]:
            gate += 1
        for memory_id in item["ids"]:
            found = counts(str(memory_id), name)
            if found is None:
                continue
            for target in found:
                if item["k"] == "block":
                    target.blocked += 1
                else:
                    target.sessions.add(f"{name}:{item['s']}")
                    target.deliveries += 1
                    target.recalls += item["k"] in ("prompt", "recall")
    enforced = [
        memory for memory in memories if memory.enforce is not None and memory.enforce.commands
    ]
    if enforced:
        for name, ran in transcript_violations(project, enforced, start, client, home):
            for target in counts(ran, name) or ():
                target.violations += 1
    rows = [
        Row(
            memory,
            totals[memory.id],
            per_client[memory.id],
            tokens.get(memory.id, 0) * totals[memory.id].deliveries,
        )
        for memory in memories
    ]
    return Report(since, rows, gate)


def transcript_violations(
    project: Project,
    memories: Sequence[Memory],
    since: float,
    client: str | None,
    home: Path | None,
) -> Iterator[tuple[str, str]]:
    """(client, memory id) for every shell command in the clients' transcripts since ``since`` that
    breaks a memory's ``enforce.commands`` and was not refused."""
    from gitmem.scan.transcripts import client_logs
    from gitmem.tools import TRANSCRIPT_CLIENTS

    base = home or Path.home()
    patterns = [
        (memory.id, globmatch.parse(p, anywhere=True))
        for memory in memories
        for p in memory.enforce.commands  # type: ignore[union-attr]
    ]
    for name in TRANSCRIPT_CLIENTS:
        if client is not None and name != client:
            continue
        try:
            paths = client_logs(name, project.root, base)
        except OSError:
            continue
        for path in paths:
            try:
                if path.stat().st_mtime < since:
                    continue
                text = gateway.read_given(path, limit=TRANSCRIPT_LIMIT).decode("utf-8", "replace")
            except (OSError, GitmemError):
                continue
            for memory_id in _broken(text, patterns):
                yield name, memory_id


def _broken(text: str, patterns: list[tuple[str, globmatch.Glob]]) -> Iterator[str]:
    """The memory ids the shell commands of one transcript broke and that no refusal answered."""
    calls: list[tuple[int, str]] = []  # (where in the text, command line)
    for at, value in _records(text):
        for line in _command_lines(value, 0):
            calls.append((at, line))
            if len(calls) >= MAX_CALLS:
                break
    starts = sorted({at for at, _ in calls})
    for at, line in calls:
        following = bisect.bisect_right(starts, at)
        end = starts[following] if following < len(starts) else len(text)
        window = text[at:end]  # up to the next record that calls a tool
        commands = [command.text for command in shell.commands(line) if command.words]
        for memory_id, glob in patterns:
            if any(globmatch.match(glob, command, under=False) for command in commands):
                if "gitmem: refused" not in window or f"[{memory_id}]" not in window:
                    yield memory_id
                break


def _records(text: str) -> Iterator[tuple[int, Any]]:
    """The JSON values of a transcript (one per line, or the whole file), with where each starts."""
    stripped = text.lstrip()
    if stripped.startswith(("{", "[")) and "\n{" not in stripped[:1_000_000]:
        try:
            yield 0, json.loads(text)
            return
        except ValueError:
            pass
    at = 0
    for line in text.splitlines(keepends=True):
        if line.lstrip().startswith("{"):
            try:
                value = json.loads(line)
            except ValueError:
                value = None
            if value is not None:
                yield at, value
        at += len(line)


_COMMAND_KEYS = ("command", "cmd")
_ARGUMENT_KEYS = ("input", "arguments", "args", "tool_input", "toolArgs", "parameters", "state")


def _command_lines(value: Any, depth: int) -> Iterator[str]:
    """Shell command lines of tool calls anywhere in a record: ``{"command": "..."}`` (or ``cmd``, a
    string or a list of words) under a call's arguments, which may be a JSON string themselves
    (OpenAI's ``arguments``).
    """
    if depth > MAX_DEPTH:
        return
    if isinstance(value, list):
        for item in value[:10_000]:
            yield from _command_lines(item, depth + 1)
        return
    if not isinstance(value, dict):
        return
    for key in _COMMAND_KEYS:
        found = value.get(key)
        if isinstance(found, list) and all(isinstance(word, str) for word in found):
            found = " ".join(found[2:] if found[:2] in (["bash", "-lc"], ["bash", "-c"]) else found)
        if isinstance(found, str) and found and not found.startswith("*** Begin Patch"):
            yield found[: shell.MAX_LINE]
    for key, item in value.items():
        if key in _COMMAND_KEYS:
            continue
        if isinstance(item, str) and key in _ARGUMENT_KEYS and item.lstrip().startswith("{"):
            try:
                item = json.loads(item)
            except ValueError:
                continue
        if isinstance(item, dict | list):
            yield from _command_lines(item, depth + 1)
