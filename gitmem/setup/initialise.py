"""``gitmem init``: create .memory/ and record the targets. Running it again changes nothing."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from gitmem import safepath
from gitmem.config import DEFAULT_TARGETS, TARGET_NAMES, load_config, save_config
from gitmem.fsutil import TEMP_PATTERN, write_atomic
from gitmem.memory.store import Store
from gitmem.project import Project

# Files whose presence shows a project already uses a tool: init adds that tool to the targets.
_DETECT: dict[str, tuple[str, ...]] = {
    "agents": ("AGENTS.md",),
    "claude": ("CLAUDE.md", ".claude"),
    "gemini": ("GEMINI.md", ".gemini"),
    "cursor": (".cursor", ".cursorrules"),
    "copilot": (".github/copilot-instructions.md", ".github/instructions"),
    "windsurf": (".windsurf", ".windsurfrules"),
    "cline": (".clinerules",),
    "kiro": (".kiro",),
    "aider": ("CONVENTIONS.md", ".aider.conf.yml"),
    "amazonq": (".amazonq/rules",),
    "continue": (".continue/rules",),
    "roo": (".roo/rules", ".roorules"),
}


@dataclass
class InitReport:
    created: list[Path] = field(default_factory=list)
    targets: tuple[str, ...] = ()
    detected: tuple[str, ...] = ()
    left_out: dict[str, str] = field(default_factory=dict)  # detected targets whose client reads another: its name
    targets_changed: bool = False


def detect_targets(root: Path) -> tuple[str, ...]:
    """The tools whose rules files or folders the project already has."""
    return tuple(name for name in TARGET_NAMES if any((root / p).exists() for p in _DETECT[name]))


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
    current = load_config(project).targets if existed else ()
    if targets:
        wanted = tuple(dict.fromkeys(targets))
    elif existed:
        wanted = current
    else:
        from gitmem.compile.readers import covered

        found = tuple(t for t in detect_targets(project.root) if t not in DEFAULT_TARGETS)
        chosen = {*DEFAULT_TARGETS, *found}
        report.left_out = {t: reader.client for t in found if (reader := covered(t, chosen - {t})) is not None}
        report.detected = tuple(t for t in found if t not in report.left_out)
        wanted = tuple(t for t in TARGET_NAMES if t in DEFAULT_TARGETS or t in report.detected)
    if not existed:
        save_config(project, {"targets": list(wanted)})
        report.created.append(project.config_path)
    elif wanted != current:
        save_config(project, {"targets": list(wanted)})
        report.targets_changed = True
    report.targets = wanted
    return report
