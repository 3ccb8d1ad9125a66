"""``gitmem init``: create .memory/ and record the targets. Running it again changes nothing."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

from gitmem import gateway
from gitmem.compile.readers import IMPORTS_OF, Import, imports_file
from gitmem.errors import GitmemError
from gitmem.gateway import TEMP_PATTERN
from gitmem.gitcommand import ignored as ignored_paths
from gitmem.memory.config import DEFAULT_TARGETS, TARGET_NAMES, load_config, save_config
from gitmem.memory.store import Store
from gitmem.project import Project
from gitmem.tools import BY_NAME, TARGET_BY_NAME

# A tool's ``detect`` files (gitmem/tools.py) are those it really loads, or a folder it loads from:
# their presence shows the project already uses that tool, and init adds it to the targets. Names
# are matched exactly, with their case (a docs page `gemini.md` on a case-insensitive disk is not
# GEMINI.md), and a tool's settings folder alone (`.cursor/` with hooks.json or mcp.json,
# `.gemini/settings.json`) is not a rules file.


@dataclass
class InitReport:
    created: list[Path] = field(default_factory=list)
    targets: tuple[str, ...] = ()
    detected: tuple[str, ...] = ()
    not_added: tuple[str, ...] = ()  # the default targets not added beside the detected ones
    targets_changed: bool = False
    rules_files: bool = (
        False  # the project has rules files of some tool: `gitmem import` can read them
    )
    via_import: list[Import] = field(
        default_factory=list
    )  # CLAUDE.md imports AGENTS.md: its block adds only the rest
    notes: list[str] = field(
        default_factory=list
    )  # the config names a retired target: what replaces it
    nested: list[str] = field(
        default_factory=list
    )  # rules files found below the root (they made ``detected`` too)
    # (target, its root file) found or default but not chosen: git ignores the root file
    ignored_roots: list[tuple[str, str]] = field(default_factory=list)


def detect_targets(root: Path, nested: Sequence[tuple[str, str]] = ()) -> tuple[str, ...]:
    """The tools whose rules files or folders the project already has: at the root (their ``detect``
    files), or ``nested`` below it ((path, tool) pairs, ``adopt.sources.nested_rules``: a monorepo
    whose only AGENTS.md is in packages/foo/)."""
    below = {tool for _, tool in nested}
    return tuple(
        name
        for name in TARGET_NAMES
        if name in below or any(_present(root, p) for p in BY_NAME[name].detect)
    )


def _present(root: Path, relative: str) -> bool:
    """Whether ``relative`` exists under ``root`` with exactly this spelling: a file, or (ending
    in "/") a folder, or (ending in "/*.md") a folder holding rules files itself."""
    if relative.endswith("/*.md"):
        folder = root / relative.removesuffix("/*.md")
        return _present(root, relative.removesuffix("*.md")) and any(
            name.endswith(".md") and (folder / name).is_file() for name in _names(folder)
        )
    path = root
    for name in relative.rstrip("/").split("/"):  # (a part that is no folder lists no names)
        if name not in _names(path):
            return False
        path = path / name
    return path.is_dir() if relative.endswith("/") else path.is_file()


def _names(folder: Path) -> list[str]:
    """The names in ``folder``, as the disk spells them; none when it cannot be listed."""
    try:
        return gateway.names_in(folder)
    except OSError:
        return []


def imports(root: Path, found: Import) -> bool:
    """Whether the root file of ``found.own`` imports ``found.imported``'s (CLAUDE.md's
    ``@AGENTS.md``): the client then reads that file itself."""
    if not _present(root, found.own.root_file):
        return False
    try:
        text = gateway.read_text(
            root, root / found.own.root_file, limit=gateway.RULES_LIMIT, errors="replace"
        )
    except (OSError, GitmemError):
        return False
    return imports_file(text, found.imported.root_file)


MEMORY_GITIGNORE = (
    "# Written by gitmem init: a write killed half-way leaves a temporary file; never commit "
    f"one.\n{TEMP_PATTERN}\n"
)


def ignore_temp_files(project: Project) -> list[Path]:
    """Have git ignore gitmem's temporary files in .memory/ for every clone (a committed
    .gitignore); the rules files elsewhere are covered in this clone by
    ``gitmem.init.hooks.exclude_temp_files``. Returns the files created.
    """
    changed = []
    ignore = gateway.require(project, project.memory_dir / ".gitignore")
    if not ignore.exists():
        gateway.write(project, ignore, MEMORY_GITIGNORE)
        changed.append(ignore)
    return changed


def _chosen(project: Project, found: tuple[str, ...], report: InitReport) -> tuple[str, ...]:
    """The targets init chooses itself: the tools the project already uses, and only those (compile
    places each memory once for every client whatever the set, gitmem/compile/delivery.py; a
    repository of GEMINI.md files does not get an AGENTS.md and a CLAUDE.md in every folder), else
    the defaults; never one whose root file git ignores (what compile writes there reaches no fresh
    clone, cloud agent or code review: ``ignored_roots``)."""
    chosen = found or tuple(DEFAULT_TARGETS)
    roots = {name: TARGET_BY_NAME[name].root_file for name in chosen}
    ignored = set(ignored_paths(project.root, list(roots.values())))
    report.ignored_roots = [(name, path) for name, path in roots.items() if path in ignored]
    chosen = tuple(name for name in chosen if roots[name] not in ignored)
    if found:
        report.detected = found
        report.not_added = tuple(name for name in DEFAULT_TARGETS if name not in found)
        report.via_import = [
            found_import
            for found_import in IMPORTS_OF
            if {found_import.own.name, found_import.imported.name} <= set(chosen)
            and imports(project.root, found_import)
        ]
    return chosen


def initialise(
    project: Project, targets: tuple[str, ...] = (), nested: Sequence[tuple[str, str]] = ()
) -> InitReport:
    """Set up ``.memory/``; ``nested``: the rules files below the root, with their tools (they
    count as found)."""
    report = InitReport()
    for directory in (project.memory_dir, project.memories_dir, project.journal_dir):
        gateway.require(
            project, directory
        )  # a committed .memory link to elsewhere: nothing is created there
    for directory in (project.memory_dir, project.memories_dir, project.journal_dir):
        if not directory.is_dir():
            gateway.make_dirs(project, directory)
            report.created.append(directory)
    for directory in (project.memories_dir, project.journal_dir):
        keep = directory / ".gitkeep"
        if not gateway.names_in(directory):
            gateway.touch(project, keep)
            report.created.append(keep)
    report.created.extend(Store(project).ensure_schema_copies())
    report.created.extend(ignore_temp_files(project))

    existed = project.config_path.exists()
    report.nested = [path for path, _ in nested]
    found = detect_targets(project.root, nested)
    report.rules_files = bool(found)
    current: tuple[str, ...] = ()
    if existed:
        config = load_config(project)
        current, report.notes = config.targets, config.notes()
    if targets:
        wanted = tuple(dict.fromkeys(targets))
    elif existed:
        wanted = current
    else:
        wanted = _chosen(project, found, report)
    if not existed:
        save_config(project, {"targets": list(wanted)})
        report.created.append(project.config_path)
    elif wanted != current:
        save_config(project, {"targets": list(wanted)})
        report.targets_changed = True
    report.targets = wanted
    return report
