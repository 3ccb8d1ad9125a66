"""The project's settings, .memory/config.yaml."""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from gitmem import yamlio
from gitmem.errors import CannotRun, UsageError
from gitmem.project import Project

if TYPE_CHECKING:
    from gitmem.scan.inputs import Settings as ScanSettings

# The records' target names, for the modules that read the config.
from gitmem import gateway
from gitmem.memory.cache import FileCache, checks_salt, stat_key
from gitmem.memory.schema import check_config
from gitmem.tools import DEFAULT_TARGETS as DEFAULT_TARGETS
from gitmem.tools import RETIRED, current, retired_note
from gitmem.tools import TARGET_NAMES as TARGET_NAMES

DEFAULT_BUDGET = 2000
CONFIG_HEADER = "# yaml-language-server: $schema=schema/config.schema.json\n"


@dataclass(frozen=True)
class Source:
    """A shared memory pack: another repository's memories, pinned at a revision."""

    name: str
    repo: str
    rev: str
    track: str | None = None
    mute: tuple[str, ...] = ()


@dataclass(frozen=True)
class Config:
    targets: tuple[str, ...] = DEFAULT_TARGETS
    budget: int | dict[str, int] = DEFAULT_BUDGET
    scan_allow: tuple[str, ...] = ()
    scan_exclude: tuple[str, ...] = ()
    scan_salt: str = ""
    proposal_max_age_days: int = 30
    similarity: float = 0.85
    mcp: bool = False
    sources: tuple[Source, ...] = ()
    data: dict[str, Any] = field(default_factory=dict, compare=False)
    retired: tuple[str, ...] = ()
    """Retired target names the file still uses (read as what replaces them): ``notes`` says so."""

    def notes(self) -> list[str]:
        """One line per retired target name the config uses, saying what replaces it."""
        return [f".memory/config.yaml: {retired_note(name)}" for name in self.retired]

    def budget_for(self, target: str) -> int:
        if isinstance(self.budget, int):
            return self.budget
        return self.budget.get(target, self.budget.get("default", DEFAULT_BUDGET))

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Config:
        """The config of a valid file's data (each value of its schema's type)."""
        scan = data.get("scan", {})
        doctor = data.get("doctor", {})
        named = tuple(data.get("targets", DEFAULT_TARGETS))
        budget = data.get("budget", DEFAULT_BUDGET)
        if isinstance(budget, dict):
            named_budgets = tuple(budget)
            budget = {current(key): value for key, value in budget.items()}
        else:
            named_budgets = ()
        return cls(
            targets=tuple(dict.fromkeys(current(name) for name in named)),
            budget=budget,
            scan_allow=tuple(scan.get("allow", ())),
            scan_exclude=tuple(scan.get("exclude", ())),
            scan_salt=str(scan.get("salt", "")),
            proposal_max_age_days=doctor.get("proposal_max_age_days", 30),
            similarity=doctor.get("similarity", 0.85),
            mcp=bool(data.get("mcp", False)),
            sources=tuple(
                Source(s["name"], s["repo"], s["rev"], s.get("track"), tuple(s.get("mute", ())))
                for s in data.get("sources", ())
            ),
            data=data,
            retired=tuple(
                dict.fromkeys(name for name in (*named, *named_budgets) if name in RETIRED)
            ),
        )


def load_config(project: Project) -> Config:
    """The project's config; defaults when the file does not exist. An invalid file cannot be worked
    with.

    A valid config is cached under .git/gitmem/, keyed on the file's stat like the store's cache, so
    commands on the pre-commit hook's path do not import the YAML and JSON Schema libraries to
    re-check an unchanged file.
    """

    path = gateway.require(project, project.config_path)
    try:
        raw = gateway.read_bytes(project, path, limit=gateway.CONFIG_LIMIT)
        key = stat_key(os.stat(path))
    except FileNotFoundError:
        return Config()
    except OSError as exc:
        raise CannotRun(f"cannot read {project.display(path)}: {exc.strerror}") from None
    cache = FileCache(project.cache_dir / "config.json", _cache_salt())
    cached = cache.get(path.name, key)
    if cached is not None and isinstance(cached[0], dict):
        return Config.from_dict(cached[0])

    data, problems = check_config(raw, project.display(path))
    if data is None:
        raise CannotRun(
            "\n".join(str(p) for p in problems) + "\nthe config is invalid: fix it and run again"
        )
    cache.put(path.name, key, data, [])
    cache.save()
    return Config.from_dict(data)


def scan_settings(project: Project) -> ScanSettings:
    """The scanner's settings from the config (``gitmem.scan.inputs.load_settings`` calls this when
    its cache misses: the scanner never reads the config itself)."""
    from gitmem.scan.inputs import (
        Settings,
    )  # (the scanner's module, loaded only where a scan runs)

    config = load_config(project)
    return Settings(frozenset(config.scan_allow), config.scan_exclude, config.scan_salt)


def _cache_salt() -> str:
    """What a cached check of the config depends on besides the file: gitmem's version and its
    checking code."""
    files = ("memory/schema.py", "yamlio.py", "scan/rules.py", "scan/engine.py", "scan/unicode.py")
    return checks_salt((*files, "schemas/config.schema.json"))


def save_config(project: Project, changes: dict[str, Any]) -> None:
    """Set top-level config fields (``None`` removes one), keeping the file's comments and order."""

    path = gateway.require(project, project.config_path)
    if path.exists():
        text = yamlio.update(gateway.read_text(project, path, limit=gateway.CONFIG_LIMIT), changes)
    else:
        text = yamlio.dump(
            {"version": 1, **{k: v for k, v in changes.items() if v is not None}}, CONFIG_HEADER
        )

    _, problems = check_config(text.encode("utf-8"), ".memory/config.yaml")
    if (
        problems
    ):  # what gitmem writes is checked as what it reads: a change never makes the config unreadable
        first = problems[0]
        raise UsageError(
            f"{first.path}:{first.line}:{first.column}: {first.field}: {first.message}; not written"
        )
    gateway.write(project, path, text)
