"""The project's settings, .memory/config.yaml."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from gitmem import yamlio
from gitmem.errors import CannotRun
from gitmem.fsutil import write_atomic
from gitmem.project import Project

TARGET_NAMES = ("agents", "claude", "gemini", "cursor", "copilot", "windsurf", "cline", "kiro", "aider")
DEFAULT_TARGETS = ("agents", "claude")
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
    proposal_max_age_days: int = 30
    similarity: float = 0.85
    mcp: bool = False
    sources: tuple[Source, ...] = ()
    data: dict[str, Any] = field(default_factory=dict, compare=False)

    def budget_for(self, target: str) -> int:
        if isinstance(self.budget, int):
            return self.budget
        return self.budget.get(target, self.budget.get("default", DEFAULT_BUDGET))

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Config:
        scan = data.get("scan") or {}
        doctor = data.get("doctor") or {}
        return cls(
            targets=tuple(data.get("targets", DEFAULT_TARGETS)),
            budget=data.get("budget", DEFAULT_BUDGET),
            scan_allow=tuple(scan.get("allow", ())),
            scan_exclude=tuple(scan.get("exclude", ())),
            proposal_max_age_days=doctor.get("proposal_max_age_days", 30),
            similarity=doctor.get("similarity", 0.85),
            mcp=bool(data.get("mcp", False)),
            sources=tuple(
                Source(s["name"], s["repo"], s["rev"], s.get("track"), tuple(s.get("mute", ())))
                for s in data.get("sources", ())
            ),
            data=data,
        )


def load_config(project: Project) -> Config:
    """The project's config; defaults when the file does not exist. An invalid file cannot be worked with."""
    from gitmem.schema import check_config

    path = project.config_path
    try:
        raw = path.read_bytes()
    except FileNotFoundError:
        return Config()
    except OSError as exc:
        raise CannotRun(f"cannot read {project.display(path)}: {exc.strerror}") from None
    data, problems = check_config(raw, project.display(path))
    if data is None:
        raise CannotRun("\n".join(str(p) for p in problems) + "\nthe config is invalid: fix it and run again")
    return Config.from_dict(data)


def save_config(project: Project, changes: dict[str, Any]) -> None:
    """Set top-level config fields (``None`` removes one), keeping the file's comments and order."""
    path = project.config_path
    if path.exists():
        text = yamlio.update(path.read_text(encoding="utf-8"), changes)
    else:
        text = yamlio.dump({"version": 1, **{k: v for k, v in changes.items() if v is not None}}, CONFIG_HEADER)
    write_atomic(path, text.encode("utf-8"))
