"""The rules files a project's own client settings name (``tools.NamesSetting``: Gemini CLI's
``context.fileName`` in ``.gemini/settings.json``), read by compile (what each client reads:
``also_read``, for ``compile.delivery.with_settings``) and by the prompt hook (what the client has
loaded already). Plain ``json`` and the gateway: cheap on the prompt hook's path.

The file is read as the client reads it: JSON with ``//`` and ``/* */`` comments (Gemini CLI strips
them before parsing). A setting that cannot be read (missing, refused by the gateway, too large, not
JSON, not a name or a list of names) names nothing: the record's reading stands.
"""

from __future__ import annotations

import json
from typing import Any

from gitmem import gateway
from gitmem.errors import GitmemError
from gitmem.linear import linear
from gitmem.project import Project
from gitmem.tools import READERS, TARGETS, NamesSetting

ROOT_FILES = {target.root_file: target.name for target in TARGETS if not target.personal}
# a target's config file that names the files its client reads (aider's ``read:``)
READS_CONFIG: dict[str | None, str] = {
    target.name: target.reads_config for target in TARGETS if target.reads_config
}


def named_files(project: Project, setting: NamesSetting | None) -> list[str]:
    """The root files of gitmem's targets (``AGENTS.md``, ``CLAUDE.md``, ...) that ``setting``
    names, in its order (none without a setting)."""
    if setting is None:
        return []
    value = _load(project, setting.file)
    for part in setting.key:
        value = value.get(part) if isinstance(value, dict) else None
    names = value if isinstance(value, list) else [value]  # (what is no name names nothing)
    return list(
        dict.fromkeys(name for name in names if isinstance(name, str) and name in ROOT_FILES)
    )


def also_read(project: Project) -> dict[str, tuple[str, ...]]:
    """For each client whose project setting names other targets' root files: its record's name
    -> those targets."""
    out: dict[str, tuple[str, ...]] = {}
    for tool in READERS:
        config = READS_CONFIG.get(tool.serves)
        if config is not None:  # aider: the files its .aider.conf.yml's `read:` names
            names = config_reads(_text(project, config)) or []
        else:
            names = named_files(project, tool.names_setting)
        # another target's root file (not one of its own target's)
        targets = tuple(
            ROOT_FILES[n] for n in names if ROOT_FILES.get(n, tool.serves) != tool.serves
        )
        if targets:
            out[tool.name] = targets
    return out


def config_reads(text: str) -> list[str] | None:
    """The files a YAML config's ``read:`` names (aider's ``.aider.conf.yml``: a name, a flow list
    or a block list), without a YAML parser (None: there is no ``read:`` key)."""
    lines = text.splitlines()
    for index, line in enumerate(lines):
        match = linear(r"read:[ \t]*(.*?)[ \t]*(?:#.*)?").fullmatch(line)
        if not match:
            continue
        value = match.group(1)
        if value:
            return [item.strip().strip("'\"") for item in value.strip("[]").split(",")]
        out = []
        for following in lines[index + 1 :]:
            item = linear(r"[ \t]*-[ \t]*(.*?)[ \t]*(?:#.*)?").fullmatch(following)
            if not item:
                break
            out.append(item.group(1).strip("'\""))
        return out
    return None


def _text(project: Project, name: str) -> str:
    """The project's file ``name`` as text; ``""`` when it is missing, not a regular file (the read
    refuses it), outside, too large or not UTF-8."""
    path = project.root / name
    try:
        return gateway.read_bytes(project, path, limit=gateway.CONFIG_LIMIT, display=name).decode(
            "utf-8"
        )
    except (OSError, GitmemError, UnicodeDecodeError):
        return ""


def _load(project: Project, name: str) -> Any:
    text = _text(project, name)
    for attempt in (text, without_comments(text)):  # "" is no JSON
        try:
            return json.loads(attempt)
        except (ValueError, RecursionError):
            continue
    return None


# A comment's opening -> what ends it, and how much of that goes with it (a line comment's newline
# stays).
COMMENTS = {"//": ("\n", 0), "/*": ("*/", 2)}


def without_comments(text: str) -> str:
    """``text`` without its ``//`` and ``/* */`` comments outside strings (each a space), in one
    pass: the next quote and the next slash are looked for once each, not again from every
    character.
    """
    out: list[str] = []
    at, quote, slash = 0, -1, -1
    while at < len(text):
        if quote < at:  # (none left: len(text), never looked for again)
            quote = _find(text, '"', at)
        if slash < at:
            slash = _find(text, "/", at)
        stop = min(quote, slash)
        out.append(text[at:stop])
        if stop == len(text):
            break
        comment = COMMENTS.get(text[stop : stop + 2])
        if stop == quote:
            at = _string_end(text, stop)
            out.append(text[stop:at])
        elif comment is not None:
            end = text.find(comment[0], stop + 2)
            at = len(text) if end < 0 else end + comment[1]
            out.append(" ")
        else:
            out.append("/")
            at = stop + 1
    return "".join(out)


def _find(text: str, char: str, start: int) -> int:
    """The next ``char`` from ``start``, or ``len(text)`` when there is none."""
    found = text.find(char, start)
    return len(text) if found < 0 else found


def _string_end(text: str, start: int) -> int:
    """Just past the JSON string that opens at ``start`` (its backslash escapes skipped), or the
    end of ``text``."""
    at = start + 1
    while True:
        close = text.find('"', at)
        if close < 0:
            return len(text)
        backslashes = 0
        while text[close - 1 - backslashes] == "\\":
            backslashes += 1
        if backslashes % 2 == 0:
            return close + 1
        at = close + 1
