"""The rules files a project's own client settings name (``tools.NamesSetting``: Gemini CLI's ``context.fileName``
in ``.gemini/settings.json``), read by compile (what each client reads, ``compile.settings``) and by the prompt hook
(what the client has loaded already). Plain ``json`` and the gateway: cheap on the prompt hook's path.

A setting that cannot be read (missing, refused by the gateway, too large, not JSON, not a name or a list of names)
names nothing.
"""

from __future__ import annotations

import json
from typing import Any

from gitmem import gateway
from gitmem.errors import GitmemError
from gitmem.project import Project
from gitmem.tools import TARGETS, NamesSetting

ROOT_FILES = {target.root_file: target.name for target in TARGETS if not target.personal}


def named_files(project: Project, setting: NamesSetting) -> list[str]:
    """The root files of gitmem's targets (``AGENTS.md``, ``CLAUDE.md``, ...) that ``setting`` names, in its order."""
    value = _load(project, setting.file)
    for part in setting.key:
        value = value.get(part) if isinstance(value, dict) else None
    names = [value] if isinstance(value, str) else value if isinstance(value, list) else []
    return list(dict.fromkeys(name for name in names if isinstance(name, str) and name in ROOT_FILES))


def _load(project: Project, name: str) -> Any:
    path = project.root / name
    if not path.is_file():
        return None
    try:
        return json.loads(gateway.read_bytes(project, path, limit=gateway.CONFIG_LIMIT, display=name).decode("utf-8"))
    except (OSError, GitmemError, UnicodeDecodeError, ValueError, RecursionError):
        return None
