"""What a project's own settings make a client read beyond its record: Gemini CLI's ``context.fileName`` in
``.gemini/settings.json`` may name ``AGENTS.md`` (measured, 0.61.0: it then reads AGENTS.md, and GEMINI.md all the
same). Compile places each memory from the readers as these settings make them (``delivery.with_settings``), so a
client that reads the hub through its settings gets each memory once.

A setting that cannot be read (missing, refused by the gateway, too large, not JSON, not a name or a list of names)
changes nothing: the record's reading stands.
"""

from __future__ import annotations

import json
from typing import Any

from gitmem import gateway
from gitmem.errors import GitmemError
from gitmem.project import Project
from gitmem.tools import READERS as TOOLS
from gitmem.tools import TARGETS

ROOT_FILES = {target.root_file: target.name for target in TARGETS if not target.personal}


def also_read(project: Project) -> dict[str, tuple[str, ...]]:
    """For each client whose project setting names other targets' root files: its record's name -> those targets."""
    out: dict[str, tuple[str, ...]] = {}
    for tool in TOOLS:
        setting = tool.names_setting
        if setting is None:
            continue
        names = _names(_value(_load(project, setting.file), setting.key))
        targets = tuple(
            dict.fromkeys(ROOT_FILES[name] for name in names if ROOT_FILES.get(name) not in (None, tool.serves))
        )
        if targets:
            out[tool.name] = targets
    return out


def _load(project: Project, name: str) -> Any:
    path = project.root / name
    if not path.is_file():
        return None
    try:
        raw = gateway.read_bytes(project, path, limit=gateway.CONFIG_LIMIT, display=name)
        return json.loads(raw.decode("utf-8"))
    except (OSError, GitmemError, UnicodeDecodeError, ValueError, RecursionError):
        return None


def _value(data: Any, key: tuple[str, ...]) -> Any:
    for part in key:
        if not isinstance(data, dict):
            return None
        data = data.get(part)
    return data


def _names(value: Any) -> list[str]:
    """A setting's file names: one name, or a list of them (anything else: none)."""
    if isinstance(value, str):
        return [value]
    if isinstance(value, list):
        return [item for item in value if isinstance(item, str)]
    return []
