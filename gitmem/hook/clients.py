"""Every AI client's hook mechanism: the ``hooks`` of ``gitmem/tools.py``'s records, named (where
its hooks are configured, its event names, and how it talks).

Each record's ``doc`` is the client's documentation; its ``checked`` the version it was run against
where the client test harness installs it. A client with no mechanism for an event has no name for
it.
"""

from __future__ import annotations

from gitmem.tools import CLIENTS as CLIENTS
from gitmem.tools import EVENTS as EVENTS
from gitmem.tools import PRE_TOOL as PRE_TOOL
from gitmem.tools import PROMPT as PROMPT
from gitmem.tools import START as START
from gitmem.tools import STOP as STOP
from gitmem.tools import Hooks

# NamedTuples and plain classes, not dataclasses: importing dataclasses (and inspect with it) costs
# the prompt hook, a new process on every prompt, more than its own work.
Client = Hooks

BY_NAME = {client.name: client for client in CLIENTS}
NAMES = tuple(BY_NAME)


def get(name: str | None) -> Client:
    """The client called ``name``; the first client's shapes (Claude Code's, which most clients
    copy) when unknown."""
    return BY_NAME.get(name or "", CLIENTS[0])


def detect(payload: dict[str, object]) -> Client:
    """The client a hook payload comes from, by its event name or its session key, when the command
    line did not say; the first client's shapes otherwise."""
    event = payload.get("hook_event_name") or payload.get("hookEventName")
    for client in CLIENTS:
        if event in client.detect_events:
            return client
    if "session_id" not in payload:  # then a client keyed by it matches nothing here either
        return next((client for client in CLIENTS if client.session_key in payload), CLIENTS[0])
    return CLIENTS[0]
