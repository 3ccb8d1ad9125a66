"""One hook call: the client's JSON on stdin in, the client's answer out.

A hook must never break the client's turn: whatever goes wrong (no repository, no .memory/, a locked
index, bad input), the answer is empty and the exit code 0. ``run`` returns the text to print; it
prints nothing itself.
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Callable
from datetime import date
from pathlib import Path
from typing import Any

from gitmem import gateway
from gitmem.clientsettings import named_files
from gitmem.errors import GitmemError
from gitmem.gateway import find_project
from gitmem.hook import clients, inject, receipts, state
from gitmem.hook.clients import PRE_TOOL, PROMPT, START, STOP, Client
from gitmem.hook.payload import MAX_INPUT as MAX_INPUT
from gitmem.hook.payload import parse as parse
from gitmem.hook.payload import session_id as session_id
from gitmem.hook.payload import text as _text
from gitmem.project import Project, personal_scope
from gitmem.records import Record
from gitmem.tools import BY_NAME, TARGETS, HookOutput


# NamedTuples and plain classes, not dataclasses: importing dataclasses (and inspect with it) costs
# the prompt hook, a new process on every prompt, more than its own work.
class Answer(Record):
    """What a hook prints, and the memories it injected."""

    stdout: str
    keys: tuple[str, ...] = ()  # what was injected (for tests and benchmarks)


# What a client puts around the context a hook answered when it hands it back in a later prompt
# (Gemini CLI 0.61 prepends the session-start answer, gitmem's own status, to every prompt): hook
# output, never the user's words.
HOOK_CONTEXT = ("<hook_context>", "</hook_context>")


def user_words(prompt: str) -> str:
    """``prompt`` without the hook context a client wrapped into it (gitmem's status would otherwise
    match memories about tokens or paths on a prompt that is about neither). Linear: one scan for
    each tag.
    """
    opening, closing = HOOK_CONTEXT
    parts: list[str] = []
    start = 0
    at = prompt.find(opening)
    while at >= 0:
        end = prompt.find(closing, at + len(opening))
        if end < 0:
            break
        parts.append(prompt[start:at])
        start = end + len(closing)
        at = prompt.find(opening, start)
    parts.append(prompt[start:])
    return "".join(parts) if len(parts) > 1 else prompt


def _prompt_text(payload: dict[str, Any]) -> str:
    return _text(payload, "prompt", "userPrompt", "user_prompt", "message")


def run(event: str, client_name: str | None, raw: bytes, today: date | None = None) -> Answer:
    payload = parse(raw)
    client = clients.BY_NAME.get(client_name or "") or clients.detect(payload)
    if event == PRE_TOOL:
        from gitmem.hook import pretool  # lazy: the hooks' start-up

        answer = pretool.respond(client.name, payload, today)
        return Answer(answer.text, answer.keys)
    cwd = _text(payload, "cwd", "directory")
    try:
        project = find_project(Path(cwd) if os.path.isabs(cwd) else None)
    except GitmemError:
        return Answer("")
    if not project.memory_dir.is_dir():
        return Answer("")
    day = today or date.today()
    if event in (PROMPT, START) and not state.claim(
        project, session_id(payload), event, _prompt_text(payload)
    ):
        return Answer(
            ""
        )  # another client's hook of gitmem's answered this prompt already (one injection a prompt)
    session = state.load(project, session_id(payload))
    handler = HANDLERS.get(event)
    return handler(project, client, payload, session, day) if handler else Answer("")


_IMPORT = re.compile(
    r"^@(?:\./)?([\w./-]+\.md)\s*$", re.MULTILINE
)  # Claude Code's `@AGENTS.md` import line


def rules_files(project: Project, client: Client) -> list[Path]:
    """The rules files the client loads at the root: its own (or its fallback when it has none of
    them), the files the project's settings name for it (Gemini CLI's context.fileName), and the
    files they import with a whole-line ``@FILE.md``; each once."""
    root = project.root
    files = [root / name for name in client.rules_files]
    if not any(path.is_file() for path in files):
        files = [root / name for name in client.fallback_files]
    files += [root / name for name in named_files(project, BY_NAME[client.name].names_setting)]
    inside = gateway.real(root)
    for path in list(files):
        try:
            text = gateway.read_text(project, path, limit=gateway.RULES_LIMIT, errors="replace")
        except (OSError, GitmemError):  # a link leading outside (to /dev/zero...), too large
            continue
        imported = [gateway.real(path.parent / name) for name in _IMPORT.findall(text)]
        files += [found for found in imported if inside in found.parents]
    return list(dict.fromkeys(files))


def _targets_of(project: Project, files: list[Path]) -> set[str]:
    """The compile targets whose always-loaded file is among ``files`` (those that exist)."""

    present = set(_present(files, project.root))
    return {target.name for target in TARGETS if target.root_file in present}


def _present(files: list[Path], root: Path) -> list[str]:
    return [path.relative_to(root).as_posix() for path in files if path.is_file()]


def _prompt(
    project: Project,
    client: Client,
    payload: dict[str, Any],
    session: state.SessionState,
    day: date,
) -> Answer:
    if session.new:
        from gitmem.hook.status import worktree_digest  # lazy: a session's first prompt only

        session.dirty = worktree_digest(project)
    prompt = user_words(_prompt_text(payload))
    terms = inject.prompt_terms(prompt)
    files = rules_files(project, client)
    extra = _packs(project, day)
    personal = personal_scope()
    user_files: list[Path] = []
    if personal is not None:
        extra += inject.personal_memories(personal, day)
        user_files = [personal.root / name.removeprefix("~/") for name in client.user_rules_files]
    pool = inject.candidates(project, terms, day, extra, prompt, attached(project, payload))
    loaded = inject.loaded_ids(files, project)
    personal_loaded = {
        inject.PERSONAL + memory_id
        for memory_id in inject.loaded_ids(user_files, personal or project)
    }
    chosen = inject.select(
        [c for c in pool if c.key not in personal_loaded],
        loaded,
        set(session.injected),
        terms,
        _present(files, project.root),
    )
    if chosen is None:
        if session.new:
            session.save()
        return Answer("")
    session.injected.extend(chosen.keys)
    session.save()
    receipts.record(project, "prompt", client.name, session_id(payload), chosen.keys)
    return Answer(_format(client, PROMPT, chosen.text), tuple(chosen.keys))


def attached(project: Project, payload: dict[str, Any]) -> list[str]:
    """The repository paths of the files the client attached to the prompt, where its payload says
    (Cursor's ``attachments``: ``{"type": "file", "filePath": ...}``), at most a few; paths outside
    the repository are left out."""
    items = payload.get("attachments")
    if not isinstance(items, list):
        return []
    root = os.path.normpath(str(project.root))
    out: list[str] = []
    for item in items[:MAX_ATTACHED]:
        value = (
            item.get("filePath") or item.get("file_path") or item.get("path")
            if isinstance(item, dict)
            else None
        )
        if not isinstance(value, str) or len(value) > 4096:
            continue
        full = os.path.normpath(os.path.join(root, value))  # an absolute value replaces root
        if full.startswith(root + os.sep):
            out.append(full[len(root) + 1 :].replace(os.sep, "/"))
    return out


MAX_ATTACHED = 16  # attachments of one prompt looked at


def _start(
    project: Project,
    client: Client,
    payload: dict[str, Any],
    session: state.SessionState,
    day: date,
) -> Answer:
    # lazy: the prompt hook's start-up
    from gitmem.hook.status import counts, status_text, worktree_digest

    if session.new or session.dirty is None:
        session.dirty = worktree_digest(project)
    files = rules_files(project, client)
    loaded = inject.loaded_ids(files, project)
    found = counts(project, loaded, day, _targets_of(project, files))
    session.status_given = True
    session.save()
    receipts.record(project, "start", client.name, session_id(payload), sorted(loaded))
    if found is None:
        return Answer("")
    personal = personal_scope()
    personal_count = 0
    if personal is not None:
        personal_count = sum(
            name.endswith(".yaml") for name in gateway.names_in(personal.memories_dir)
        )
    text = status_text(
        found,
        _present(files, project.root),
        len(_packs(project, day)),
        personal_count,
        client.event_name(STOP) is not None,
    )
    stores = _client_stores(project)
    if stores:
        text += "\n" + stores
    return Answer(_format(client, START, text))


def _client_stores(project: Project) -> str | None:
    from gitmem.hook.status import client_stores_text  # lazy: the prompt hook's start-up

    try:
        return client_stores_text(project, Path.home())
    except (OSError, RuntimeError):
        return None


def _stop(
    project: Project,
    client: Client,
    payload: dict[str, Any],
    session: state.SessionState,
    _day: date,
) -> Answer:
    from gitmem.hook.status import stop_reminder  # lazy: the prompt hook's start-up

    active = bool(payload.get("stop_hook_active"))
    reason = stop_reminder(project, session, active)
    if reason is None:
        if session.new:
            session.save()
        return Answer("")
    session.save()
    return Answer(ANSWERS[client.output].stop(reason))


# A session event -> its answer, from the project, the client, its payload, the session's state and
# the day.
HANDLERS: dict[
    str, Callable[[Project, Client, dict[str, Any], state.SessionState, date], Answer]
] = {PROMPT: _prompt, START: _start, STOP: _stop}


def _format(client: Client, event: str, text: str) -> str:
    name = client.event_name(event) or ("UserPromptSubmit" if event == PROMPT else "SessionStart")
    return ANSWERS[client.output].event(name, text)


def _specific(name: str, text: str) -> dict[str, Any]:
    return {"hookSpecificOutput": {"hookEventName": name, "additionalContext": text}}


def _json(answer: dict[str, Any]) -> str:
    return json.dumps(answer, ensure_ascii=False)


def _block(reason: str) -> str:
    return json.dumps({"decision": "block", "reason": reason})


class _Answering(Record):
    """How a client reads a hook's answer (a ``Hooks.output``)."""

    event: Callable[[str, str], str]  # the answer carrying ``text`` for the client's event ``name``
    stop: Callable[[str], str] = _block  # the Stop hook's answer that keeps the session on, and why


# ``Hooks.output`` -> how the client reads an answer.
ANSWERS: dict[HookOutput, _Answering] = {
    "hookSpecificOutput": _Answering(lambda name, text: _json(_specific(name, text))),
    "additionalContext": _Answering(
        lambda name, text: _json({**_specific(name, text), "additionalContext": text})
    ),
    "additional_context": _Answering(lambda _name, text: _json({"additional_context": text})),
    "plain": _Answering(lambda _name, text: text, stop=lambda reason: reason),
}


def _packs(project: Project, day: date) -> list[tuple[Any, str]]:
    """The shared packs' live memories, when the config names sources (read only then: the YAML
    reader is slow to import, and most prompts come from repositories without packs)."""
    try:
        text = gateway.read_text(
            project, project.config_path, limit=gateway.CONFIG_LIMIT, errors="replace"
        )
    except (OSError, GitmemError):
        return []
    if "sources:" not in text:
        return []
    try:
        # lazy: the hooks' start-up
        from gitmem.memory.config import load_config
        from gitmem.scopes import packs  # lazy: the hooks' start-up

        memories, _ = packs.recallable(project, load_config(project), day)
    except GitmemError:
        return []
    return list(memories)
