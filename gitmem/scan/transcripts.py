"""AI clients' own session transcripts: recognising one (so the pre-commit hook scans a staged
transcript as a log: decoded deeper, and no allow pragma counts in it), and finding a project's
transcripts in each client's storage.

Where each client keeps them (from its documentation and source, and checked by running the
installed clients):

- Claude Code: ``~/.claude/projects/<the project path, every other character than a letter or digit
  as "-">/ <session>.jsonl``, one JSON record per line (``type``, ``message``, ``sessionId``,
  ``cwd``).
- Codex: ``~/.codex/sessions/YYYY/MM/DD/rollout-<time>-<id>.jsonl``; the first record,
  ``session_meta``, names the ``cwd``.
- Gemini CLI and Qwen Code: ``~/.gemini/tmp/<sha256 of the project path>/`` (``logs.json``,
  ``chats/*.json``) and, in newer versions, ``~/.gemini/tmp/<project name>/``; Qwen under
  ``~/.qwen/`` likewise.
- opencode: ``~/.local/share/opencode/storage/`` (``session/``, ``message/``, ``part/``: one JSON
  file per item).

A transcript is JSON text: the scanner already decodes JSON string escapes, URL-encoding and base64
in a log, so a secret split by an escape is still found, at its line in the file.
"""

from __future__ import annotations

import os
import re
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path
from typing import TYPE_CHECKING

from gitmem import gateway
from gitmem.scan.lazyre import lazy

if TYPE_CHECKING:  # the records are read off the pre-commit hook's path
    from gitmem.tools import TranscriptLayout

# Paths (repository-relative, / separators) that are a client's transcript wherever they are
# committed from; all end in .json or .jsonl.
_PATHS = lazy(
    r"(?:^|/)(?:"
    r"\.claude/projects/[^/]+/[^/]+\.jsonl"
    r"|rollout-[^/]*\.jsonl"
    r"|\.(?:gemini|qwen)/tmp/.+\.jsonl?"
    r"|chats/session-[^/]*\.jsonl?"
    r"|opencode/storage/(?:session|message|part)/.+\.json"
    r")$"
)
# Keys whose presence in a first JSON record marks a transcript of one of the clients.
_SHAPES = (
    ("sessionId", "message"),  # Claude Code, Gemini logs.json, Qwen
    ("type", "payload", "timestamp"),  # Codex rollout
    ("sessionID", "messageID"),  # opencode part
    ("sessionId", "messages"),  # Gemini chat
)


def recognise(relative: str, head: str) -> bool:
    """Whether a file (its repository-relative path and its first characters) is an AI client's
    transcript."""
    if not relative.endswith((".jsonl", ".json")):
        # (most files: the pre-commit hook decides here, before it compiles a pattern or loads json)
        return False
    if _PATHS.search(relative):
        return True
    import json  # lazy: the pre-commit hook's start-up

    first = head.lstrip("[ \t\r\n")
    try:
        record, _ = json.JSONDecoder().raw_decode(first)
    except ValueError:
        return False
    return isinstance(record, dict) and any(all(key in record for key in keys) for keys in _SHAPES)


def claude_slug(root: Path) -> str:
    return re.sub(r"[^A-Za-z0-9]", "-", str(root))


def client_logs(client: str, root: Path, home: Path) -> list[Path]:
    """The transcripts ``client`` keeps for the project at ``root``, in the home directory ``home``
    (where its record's ``transcripts`` says; none for a client without)."""
    from gitmem.tools import (
        BY_NAME,
    )  # (not on the pre-commit hook's path, which only recognises transcripts)

    tool = BY_NAME.get(client)
    where = tool.transcripts if tool is not None else None
    if where is None:
        return []
    base = home / where.base.removeprefix("~/")
    if where.xdg_data and os.environ.get("XDG_DATA_HOME"):
        base = Path(os.environ["XDG_DATA_HOME"]) / where.xdg_data
    return sorted(FINDERS[where.layout](base, root))


# ``Transcripts.layout`` -> the transcripts of the project at ``root`` under the client's ``base``.
FINDERS: dict[TranscriptLayout, Callable[[Path, Path], Iterable[Path]]] = {
    "slug": lambda base, root: _ours((base / "projects" / claude_slug(root)).glob("*.jsonl"), root),
    "rollout": lambda base, root: _codex(base / "sessions", root),
    "tmp": lambda base, root: _ours(_tmp(base, root), root),
    "storage": lambda base, root: _opencode(base / "storage", root),
}


def _tmp(base: Path, root: Path) -> list[Path]:
    """Gemini CLI's and Qwen Code's layout: ``tmp/<sha256 of the project path>/``, ``tmp/<project
    name>/`` and ``projects/<slug>/``."""
    import hashlib  # (not on the pre-commit hook's path: loading it costs more than the scan)

    digest = hashlib.sha256(str(root).encode()).hexdigest()
    found: set[Path] = set()
    for directory in (
        base / "tmp" / digest,
        base / "tmp" / root.name,
        base / "projects" / claude_slug(root),
    ):
        if directory.is_dir():
            found.update(
                p for p in directory.rglob("*") if p.is_file() and p.suffix in (".json", ".jsonl")
            )
    return sorted(found)


def _ours(paths: Iterable[Path], root: Path) -> Iterator[Path]:
    """The transcripts of ``paths`` that are this project's: a folder keyed by a lossy slug
    (``acme-payroll`` and ``acme.payroll`` share one) or by the project's name holds other folders'
    sessions too, each record naming the folder its session ran in (``cwd``). A link is not followed
    (a transcript is the client's file, not a pointer).
    """
    for path in paths:
        if path.is_symlink():
            continue
        folder = session_folder(path)
        if folder is None or _same(folder, root):
            yield path


def session_folder(path: Path) -> str | None:
    """The folder (``cwd``) the first records of a Claude Code or Qwen Code transcript name, if any:
    they write it on each message record (Claude Code writes a queue record first). Its first 64 KiB
    and 32 records are read.
    """
    import json  # lazy: the pre-commit hook's start-up

    try:
        head = gateway.read_head(path, 64 * 1024)
    except (OSError, gateway.NotRegular):
        return None
    for line in head.split(b"\n")[:32]:
        if b'"cwd"' not in line:
            continue
        try:
            record = json.loads(line)
        except ValueError:
            continue
        folder = record.get("cwd") if isinstance(record, dict) else None
        if isinstance(folder, str) and os.path.isabs(folder):
            return folder
    return None


def _first_record(path: Path) -> dict[str, object] | None:
    import json  # lazy: the pre-commit hook's start-up

    try:
        line = gateway.read_head(path, 1 << 20).split(b"\n", 1)[0]
        record = json.loads(line)
    except (OSError, ValueError, gateway.NotRegular):
        return None
    return record if isinstance(record, dict) else None


def _codex(sessions: Path, root: Path) -> Iterator[Path]:
    for path in sessions.rglob("rollout-*.jsonl"):  # a missing folder globs to nothing
        record = _first_record(path)
        payload = record.get("payload") if record else None
        if isinstance(payload, dict) and payload.get("cwd") and _same(str(payload["cwd"]), root):
            yield path


def _opencode(storage: Path, root: Path) -> Iterator[Path]:
    """The session files whose ``directory`` is the project (or under it), and their messages
    and parts."""
    for path in (storage / "session").rglob("*.json"):  # a missing folder globs to nothing
        record = _first_record(path) or {}
        directory, session_id = record.get("directory"), record.get("id")
        if not (isinstance(directory, str) and isinstance(session_id, str)):
            continue
        if not _same(directory, root):
            continue
        yield path
        for message in sorted((storage / "message" / session_id).glob("*.json")):
            yield message
            yield from sorted((storage / "part" / message.stem).glob("*.json"))


def _same(directory: str, root: Path) -> bool:
    try:
        given = gateway.real(directory)
    except OSError:
        return False
    return given == gateway.real(root) or gateway.real(root) in given.parents
