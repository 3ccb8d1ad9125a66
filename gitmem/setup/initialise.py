"""``gitmem init``: create .memory/ and record the targets. Running it again changes nothing."""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path

from gitmem import gateway
from gitmem.compile.readers import IMPORTS_OF, Import, covered, imports_file
from gitmem.config import DEFAULT_TARGETS, TARGET_NAMES, load_config, save_config
from gitmem.errors import GitmemError
from gitmem.gateway import TEMP_PATTERN
from gitmem.memory.store import Store
from gitmem.project import Project
from gitmem.tools import BY_NAME

# A tool's ``detect`` files (gitmem/tools.py) are those it really loads, or a folder it loads from: their presence
# shows the project already uses that tool, and init adds it to the targets. Names are matched exactly, with their
# case (a docs page `gemini.md` on a case-insensitive disk is not GEMINI.md), and a tool's settings folder alone
# (`.cursor/` with hooks.json or mcp.json, `.gemini/settings.json`) is not a rules file.


@dataclass
class InitReport:
    created: list[Path] = field(default_factory=list)
    targets: tuple[str, ...] = ()
    detected: tuple[str, ...] = ()
    left_out: dict[str, str] = field(default_factory=dict)  # detected targets whose client reads another: its name
    targets_changed: bool = False
    rules_files: bool = False  # the project has rules files of some tool: `gitmem import` can read them
    via_import: list[Import] = field(default_factory=list)  # CLAUDE.md imports AGENTS.md: no claude target needed
    notes: list[str] = field(default_factory=list)  # the config names a retired target: what replaces it


def detect_targets(root: Path) -> tuple[str, ...]:
    """The tools whose rules files or folders the project already has."""
    return tuple(name for name in TARGET_NAMES if any(_present(root, p) for p in BY_NAME[name].detect))


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


def imports(root: Path, found: Import) -> bool:
    """Whether the root file of ``found.own`` imports ``found.imported``'s (CLAUDE.md's ``@AGENTS.md``): the client
    then reads that file itself."""
    if not _present(root, found.own.root_file):
        return False
    try:
        text = gateway.read_text(root, root / found.own.root_file, limit=gateway.RULES_LIMIT, errors="replace")
    except (OSError, GitmemError):
        return False
    return imports_file(text, found.imported.root_file)


MEMORY_GITIGNORE = (
    f"# Written by gitmem init: a write killed half-way leaves a temporary file; never commit one.\n{TEMP_PATTERN}\n"
)


def ignore_temp_files(project: Project) -> list[Path]:
    """Have git ignore gitmem's temporary files in .memory/ for every clone (a committed .gitignore); the rules files
    elsewhere are covered in this clone by ``gitmem.setup.hooks.exclude_temp_files``. Returns the files created."""
    changed = []
    ignore = gateway.require(project, project.memory_dir / ".gitignore")
    if not ignore.exists():
        gateway.write(project, ignore, MEMORY_GITIGNORE)
        changed.append(ignore)
    return changed


def initialise(project: Project, targets: tuple[str, ...] = ()) -> InitReport:
    report = InitReport()
    for directory in (project.memory_dir, project.memories_dir, project.journal_dir):
        gateway.require(project, directory)  # a committed .memory link to elsewhere: nothing is created there
    for directory in (project.memory_dir, project.memories_dir, project.journal_dir):
        if not directory.is_dir():
            gateway.make_dirs(project, directory)
            report.created.append(directory)
    for directory in (project.memories_dir, project.journal_dir):
        keep = directory / ".gitkeep"
        if not any(directory.iterdir()):
            gateway.touch(project, keep)
            report.created.append(keep)
    report.created.extend(Store(project).ensure_schema_copies())
    report.created.extend(ignore_temp_files(project))

    existed = project.config_path.exists()
    found = detect_targets(project.root)
    report.rules_files = bool(found)
    config = load_config(project) if existed else None
    current = config.targets if config is not None else ()
    report.notes = config.notes() if config is not None else []
    if targets:
        wanted = tuple(dict.fromkeys(targets))
    elif existed:
        wanted = current
    else:
        detected = tuple(t for t in found if t not in DEFAULT_TARGETS)
        defaults = set(DEFAULT_TARGETS)
        for found_import in IMPORTS_OF:
            if {found_import.own.name, found_import.imported.name} <= defaults and imports(project.root, found_import):
                defaults.discard(found_import.own.name)
                report.via_import.append(found_import)
        chosen = {*defaults, *detected}
        report.left_out = {t: reader.title for t in detected if (reader := covered(t, chosen - {t})) is not None}
        report.detected = tuple(t for t in detected if t not in report.left_out)
        wanted = tuple(t for t in TARGET_NAMES if t in defaults or t in report.detected)
    if not existed:
        save_config(project, {"targets": list(wanted)})
        report.created.append(project.config_path)
    elif wanted != current:
        save_config(project, {"targets": list(wanted)})
        report.targets_changed = True
    report.targets = wanted
    return report
