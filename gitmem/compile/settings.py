"""What a project's own settings make a client read beyond its record: Gemini CLI's ``context.fileName`` in
``.gemini/settings.json`` may name ``AGENTS.md`` (measured, 0.61.0: started at the root it then reads AGENTS.md, and
GEMINI.md all the same). Compile places each memory from the readers as these settings make them
(``delivery.with_settings``), so a client that reads the hub through its settings gets each memory once.
"""

from __future__ import annotations

from gitmem.clientsettings import ROOT_FILES, named_files
from gitmem.project import Project
from gitmem.tools import READERS as TOOLS


def also_read(project: Project) -> dict[str, tuple[str, ...]]:
    """For each client whose project setting names other targets' root files: its record's name -> those targets."""
    out: dict[str, tuple[str, ...]] = {}
    for tool in TOOLS:
        if tool.names_setting is None:
            continue
        names = named_files(project, tool.names_setting)
        targets = tuple(ROOT_FILES[name] for name in names if ROOT_FILES[name] != tool.serves)
        if targets:
            out[tool.name] = targets
    return out
