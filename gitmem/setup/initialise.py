"""``gitmem init``: create .memory/ and record the targets. Running it again changes nothing."""

from __future__ import annotations

import os
import re
from dataclasses import dataclass, field
from pathlib import Path

from gitmem import safepath
from gitmem.config import DEFAULT_TARGETS, TARGET_NAMES, load_config, save_config
from gitmem.fsutil import TEMP_PATTERN, write_atomic
from gitmem.memory.store import Store
from gitmem.project import Project

# The files each tool really loads (or a folder it loads from, ending in "/"): their presence shows the project already
# uses that tool, and init adds it to the targets. Names are matched exactly, with their case (a docs page
# `gemini.md` on a case-insensitive disk is not GEMINI.md), and a tool's settings folder alone (`.cursor/` with
# hooks.json or mcp.json, `.gemini/settings.json`) is not a rules file.
_DETECT: dict[str, tuple[str, ...]] = {
    "agents": ("AGENTS.md",),
    "claude": ("CLAUDE.md", ".claude/CLAUDE.md", ".claude/rules/"),
    "gemini": ("GEMINI.md",),
    "cursor": (".cursor/rules/", ".cursorrules"),
    "copilot": (".github/copilot-instructions.md", ".github/instructions/"),
    "windsurf": (".windsurf/rules/", ".windsurfrules"),
    "cline": (".clinerules/*.md", ".clinerules"),  # rules files, not only workflows/ or hooks/
    "kiro": (".kiro/steering/",),
    "aider": ("CONVENTIONS.md", ".aider.conf.yml"),
    "amazonq": (".amazonq/rules/",),
    "continue": (".continue/rules/",),
    "roo": (".roo/rules/", ".roorules"),
    "junie": (".junie/guidelines.md",),
    "augment": (".augment/rules/", ".augment-guidelines", ".augment/guidelines.md"),
    "trae": (".trae/rules/",),
    "warp": ("WARP.md",),
}
_IMPORTS_AGENTS = re.compile(r"(?m)^[ \t]*@(?:\./)?AGENTS\.md[ \t]*$")


@dataclass
class InitReport:
    created: list[Path] = field(default_factory=list)
    targets: tuple[str, ...] = ()
    detected: tuple[str, ...] = ()
    not_added: tuple[str, ...] = ()  # the default targets not added beside the detected ones
    targets_changed: bool = False
    rules_files: bool = False  # the project has rules files of some tool: `gitmem import` can read them
    claude_via_agents: bool = False  # CLAUDE.md imports AGENTS.md: compile adds only what AGENTS.md lacks


def detect_targets(root: Path) -> tuple[str, ...]:
    """The tools whose rules files or folders the project already has."""
    return tuple(name for name in TARGET_NAMES if any(_present(root, p) for p in _DETECT[name]))


def _present(root: Path, relative: str) -> bool:
    """Whether ``relative`` exists under ``root`` with exactly this spelling: a file, or (ending in "/") a folder."""
    if relative.endswith("/*.md"):  # a folder holding rules files itself
        folder_path = relative.removesuffix("/*.md")
        if not _present(root, folder_path + "/"):
            return False
        try:
            return any(name.endswith(".md") and (root / folder_path / name).is_file()
                       for name in os.listdir(root / folder_path))  # fmt: skip
        except OSError:
            return False
    folder = relative.endswith("/")
    parts = relative.rstrip("/").split("/")
    directory = root
    for index, name in enumerate(parts):
        try:
            if name not in os.listdir(directory):
                return False
        except OSError:
            return False
        directory = directory / name
        last = index == len(parts) - 1
        if not last and not directory.is_dir():
            return False
    return directory.is_dir() if folder else directory.is_file()


def claude_imports_agents(root: Path) -> bool:
    """Whether the root CLAUDE.md imports AGENTS.md (``@AGENTS.md``): Claude Code then reads AGENTS.md itself."""
    if not _present(root, "CLAUDE.md"):
        return False
    try:
        text = (root / "CLAUDE.md").read_text(encoding="utf-8", errors="replace")
    except OSError:
        return False
    return bool(_IMPORTS_AGENTS.search(text))


MEMORY_GITIGNORE = (
    f"# Written by gitmem init: a write killed half-way leaves a temporary file; never commit one.\n{TEMP_PATTERN}\n"
)


def ignore_temp_files(project: Project) -> list[Path]:
    """Have git ignore gitmem's temporary files in .memory/ for every clone (a committed .gitignore); the rules files
    elsewhere are covered in this clone by ``gitmem.setup.hooks.exclude_temp_files``. Returns the files created."""
    changed = []
    ignore = safepath.require(project, project.memory_dir / ".gitignore")
    if not ignore.exists():
        write_atomic(ignore, MEMORY_GITIGNORE.encode("utf-8"))
        changed.append(ignore)
    return changed


def initialise(project: Project, targets: tuple[str, ...] = ()) -> InitReport:
    report = InitReport()
    for directory in (project.memory_dir, project.memories_dir, project.journal_dir):
        safepath.require(project, directory)  # a committed .memory link to elsewhere: nothing is created there
    for directory in (project.memory_dir, project.memories_dir, project.journal_dir):
        if not directory.is_dir():
            directory.mkdir(parents=True, exist_ok=True)
            report.created.append(directory)
    for directory in (project.memories_dir, project.journal_dir):
        keep = directory / ".gitkeep"
        if not any(directory.iterdir()):
            keep.touch()
            report.created.append(keep)
    report.created.extend(Store(project).ensure_schema_copies())
    report.created.extend(ignore_temp_files(project))

    existed = project.config_path.exists()
    found = detect_targets(project.root)
    report.rules_files = bool(found)
    current = load_config(project).targets if existed else ()
    if targets:
        wanted = tuple(dict.fromkeys(targets))
    elif existed:
        wanted = current
    elif found:
        # The tools the project already uses, and only those: compile places each memory once for every client
        # whatever the set (gitmem/compile/delivery.py), so none is left out; the defaults are not added beside
        # them (a repository of GEMINI.md files does not get an AGENTS.md and a CLAUDE.md in every folder).
        report.detected = found
        report.not_added = tuple(name for name in DEFAULT_TARGETS if name not in found)
        report.claude_via_agents = "claude" in found and claude_imports_agents(project.root)
        wanted = found
    else:
        wanted = tuple(DEFAULT_TARGETS)
    if not existed:
        save_config(project, {"targets": list(wanted)})
        report.created.append(project.config_path)
    elif wanted != current:
        save_config(project, {"targets": list(wanted)})
        report.targets_changed = True
    report.targets = wanted
    return report
