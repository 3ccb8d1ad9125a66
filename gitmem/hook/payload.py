"""A hook's payload: the client's JSON on stdin, read bounded, and the few values every hook
takes from it."""

from __future__ import annotations

import json
import os
from typing import Any

MAX_INPUT = (
    4 * 1024 * 1024
)  # a hook payload larger than this is not read (a prompt is capped again later)


def parse(raw: bytes) -> dict[str, Any]:
    if len(raw) > MAX_INPUT:
        raw = b""
    try:
        data = json.loads(raw.decode("utf-8", "replace")) if raw.strip() else {}
    except ValueError:
        return {}
    return data if isinstance(data, dict) else {}


def text(payload: dict[str, Any], *names: str) -> str:
    for name in names:
        match payload.get(name):
            case str(value) if value:
                return value
    return ""


def session_id(payload: dict[str, Any]) -> str:
    found = text(payload, "session_id", "sessionId", "sessionID", "thread_id", "conversationId")
    return found or f"parent-{os.getppid()}"
