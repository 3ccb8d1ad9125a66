"""``gitmem receipts``: per memory, the sessions it reached, the tokens it cost, and the calls that
broke it (refused by the pre-tool hook, or run where no hook was), per client.

Two sources. gitmem's own receipts (``hook/receipts.py``): what its hooks delivered (the
always-loaded files at session start, prompt injections, MCP recalls) and what the pre-tool hook
refused. And the clients' transcripts (``scan/transcripts.py`` finds them), read with the pre-tool
hook's own reader (``hook/pretool.py``): every tool call a session made (a shell command, a write
or an edit) is checked against the active memories' ``enforce``; one that was not refused (no
``gitmem: refused`` naming the memory follows it in the transcript) ran: a violation. A client whose
hooks recorded nothing in the period (its hooks not set up) gets its sessions from its transcripts
too: each delivered the memories in the managed blocks of the rules files the client loads. Nothing
of a transcript is kept or shown but counts."""

from __future__ import annotations

import bisect
import contextlib
import json
from collections.abc import Iterator, Sequence
from datetime import UTC, date, datetime
from itertools import islice
from pathlib import Path
from typing import Any, NamedTuple

from gitmem import gateway
from gitmem.errors import GitmemError
from gitmem.hook import pretool, shell
from gitmem.hook import receipts as log
from gitmem.hook.clients import BY_NAME
from gitmem.hook.inject import loaded_ids
from gitmem.hook.run import rules_files
from gitmem.memory.model import Memory
from gitmem.project import Project
from gitmem.scan.transcripts import client_logs
from gitmem.tools import TRANSCRIPT_CLIENTS

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
        return {"since": self.since.isoformat(), "memories": list(map(Row.to_dict, self.rows))}


def build(
    project: Project,
    memories: Sequence[Memory],
    tokens: dict[str, int],
    since: date,
    client: str | None = None,
) -> Report:
    """The report over ``memories`` (the store's live ones, usually) from ``since`` on, for every
    client or one."""
    start = datetime(since.year, since.month, since.day, tzinfo=UTC).timestamp()
    tally = _Tally(memories)
    hooked: set[str] = set()
    for item in log.read(project, start):
        if client in (None, item["c"]):
            tally.receipt(item)
            hooked.update([item["c"]] if item["k"] != "block" else [])
    for name, path, text in _transcripts(project, start, client):
        for memory_id in violations(project, memories, text):
            tally.add(memory_id, name, violation=True)
        if name not in hooked:  # its hooks recorded nothing: the transcript says a session ran
            for memory_id in _loaded(project, name):
                tally.add(memory_id, name, session=path.stem)
    rows = [
        Row(memory, tally.totals[memory.id], tally.clients[memory.id],
            tokens.get(memory.id, 0) * tally.totals[memory.id].deliveries)
        for memory in memories
    ]  # fmt: skip
    return Report(since, rows, tally.gate)


class _Tally:
    """The counts being built: per memory, in total and per client."""

    def __init__(self, memories: Sequence[Memory]) -> None:
        self.totals = {memory.id: Counts() for memory in memories}
        self.clients: dict[str, dict[str, Counts]] = {memory.id: {} for memory in memories}
        self.gate = 0  # calls the memory-layer gate refused

    def receipt(self, item: dict[str, Any]) -> None:
        if item["k"] == "block" and not item["ids"]:
            self.gate += 1
        for memory_id in item["ids"]:
            if item["k"] == "block":
                self.add(str(memory_id), item["c"], blocked=True)
            else:
                self.add(str(memory_id), item["c"], session=item["s"], recall=item["k"] != "start")

    def add(
        self,
        memory_id: str,
        client: str,
        *,
        session: str | None = None,
        recall: bool = False,
        blocked: bool = False,
        violation: bool = False,
    ) -> None:
        if memory_id not in self.totals:
            return
        for target in (
            self.totals[memory_id],
            self.clients[memory_id].setdefault(client, Counts()),
        ):
            target.blocked += blocked
            target.violations += violation
            if session is not None:
                target.sessions.add(f"{client}:{session}")
                target.deliveries += 1
                target.recalls += recall


def _transcripts(
    project: Project, since: float, client: str | None
) -> Iterator[tuple[str, Path, str]]:
    """(client, path, text) of each transcript of this project changed since ``since``."""
    base = Path.home()
    for name in TRANSCRIPT_CLIENTS:
        if client not in (None, name):
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
            yield name, path, text


def _loaded(project: Project, client: str) -> set[str]:
    """The memory ids in the managed blocks of the rules files ``client`` loads at the root."""
    found = BY_NAME.get(client)
    return loaded_ids(rules_files(project, found), project) if found is not None else set()


def violations(project: Project, memories: Sequence[Memory], text: str) -> Iterator[str]:
    """The memory ids the tool calls of one transcript broke (a command matching
    ``enforce.commands``, a write matching ``enforce.edits``) and that no refusal answered."""
    enforced = [pretool.rule_of(memory) for memory in memories if memory.enforce is not None]
    if not enforced:
        return
    gate = pretool.Gate(project, str(project.root))
    calls = list(_calls_of(text))
    starts = [*sorted({at for at, _ in calls}), len(text)]  # each record's start, and the end
    for at, call in calls:
        refused = pretool.broken(enforced, call, gate)
        if refused is None or refused.memory is None:
            continue
        window = text[at : starts[bisect.bisect_right(starts, at)]]
        if "gitmem: refused" not in window or f"[{refused.memory}]" not in window:
            yield refused.memory


def _calls_of(text: str) -> Iterator[tuple[int, pretool.Call]]:
    """The tool calls of a transcript, each with where its record starts, ``MAX_CALLS`` at most."""
    calls = ((at, call) for at, value in _records(text) for call in _calls(value, 0))
    return islice(calls, MAX_CALLS)


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
            with contextlib.suppress(ValueError):  # a line that is not JSON: passed over
                yield at, json.loads(line)
        at += len(line)


_NAME_KEYS = ("name", "tool", "tool_name", "toolName")
_ARGUMENT_KEYS = ("input", "arguments", "args", "tool_input", "toolArgs", "parameters")
_COMMAND_KEYS = ("command", "cmd")


def _calls(value: Any, depth: int) -> Iterator[pretool.Call]:
    """The tool calls anywhere in a record: a named tool with its arguments (Claude Code's
    ``tool_use``, Codex's ``function_call`` with JSON ``arguments``, its ``apply_patch`` input,
    Gemini CLI's ``toolCalls``, opencode's parts with ``state.input``), or a bare ``command``."""
    if depth > MAX_DEPTH:
        return
    if isinstance(value, list):
        for item in value[:10_000]:
            yield from _calls(item, depth + 1)
        return
    if not isinstance(value, dict):
        return
    call = _call(value)
    if call is not None:
        yield call
        return
    for item in value.values():
        if isinstance(item, dict | list):
            yield from _calls(item, depth + 1)


def _call(value: dict[str, Any]) -> pretool.Call | None:
    """The call of one record: a named tool's (its arguments as the pre-tool hook reads them), else
    a bare command's, else None."""
    name = next((value[key] for key in _NAME_KEYS if isinstance(value.get(key), str)), "")
    args = _arguments(value)
    if name and isinstance(args, dict | str):
        return pretool.call_of({"tool_name": name, "tool_input": args})
    line = next((value[key] for key in _COMMAND_KEYS if value.get(key)), None)
    match line:  # an argument list: its words (a `bash -c` wrapper's command)
        case list(["bash", "-lc" | "-c", *words]) | list(words) if all(
            isinstance(word, str) for word in words
        ):
            line = " ".join(words)
    if isinstance(line, str) and not line.startswith(pretool.PATCH_START):
        return pretool.Call("", commands=tuple(shell.commands(line[: shell.MAX_LINE])))
    return None


def _arguments(value: dict[str, Any]) -> Any:
    match value:
        case {"state": {"input": found}}:
            return found  # opencode's tool part
    args = next((value[key] for key in _ARGUMENT_KEYS if key in value), None)
    if isinstance(args, str) and args.startswith(pretool.PATCH_START):
        return {"command": args}  # Codex's apply_patch: the patch is the input
    return args
