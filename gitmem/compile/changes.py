"""What compile decides for each file (``FileChange``), the size limits the files use
(``LimitUse``), the whole ``Report``, and reading a target's file into it (links to outside the
repository and non-UTF-8 files become problems, never exceptions)."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Literal

from gitmem import gateway
from gitmem.compile.plan import TargetPlan
from gitmem.compile.readers import READERS, Reader
from gitmem.compile.reading import GitView
from gitmem.errors import CheckFailed, Problem
from gitmem.project import Project
from gitmem.records import Record
from gitmem.tools import MEASURES, TARGETS, Limit

if TYPE_CHECKING:
    from gitmem.scopes.packs import Pack

# What compile does to a file; "held": one of its target's files is over a hard size limit, or
# cannot take gitmem's block (``Report.held``), or was edited by hand there ("refused"): nothing of
# that target is written, the other targets are.
Action = Literal["created", "updated", "healed", "removed", "unchanged", "refused", "held"]

# What a stale file would become, in --check's words (the actions that change a file, and "held").
STALE_REASONS: dict[Action, str] = {
    "created": "missing",
    "updated": "out of date",
    "healed": "has git conflict markers in its gitmem block",
    "removed": "no longer compiled",
    "held": "not written: its target is held (below)",
}


class FileChange(Record):
    """One file compile looked at, and what it does to it: built where compile decides it."""

    path: str  # relative to the repository root, / separators
    target: str
    action: Action
    old: str | None = None
    new: str | None = None  # None with action "removed": the file is deleted
    edited: bool = False  # gitmem's part was edited by hand (overwritten only with force)
    diff: str = ""  # for a hand edit: what compile would change in gitmem's part
    io_path: Path | None = None  # where to write (a symbolic link is written through)
    owned: bool = True  # False: a hand-written file of a name gitmem uses, without a gitmem block

    @property
    def changed(self) -> bool:
        return self.action not in ("unchanged", "refused", "held")

    @property
    def reason(self) -> str:
        if self.edited:
            return "edited by hand"
        return STALE_REASONS.get(self.action, "")


class LimitUse(Record):
    """How much of a tool's size limit a file (or, for ``chain_bytes``, a chain of files) uses."""

    target: str
    path: str
    limit: Limit
    used: int
    own: int = (
        0  # of ``used``, what gitmem writes (its block or file); the rest is hand-written text
    )
    budget: int = 0  # the target's token budget
    # of the files counted (a chain's), the one with the most hand-written text ("": ``path``)
    heaviest: str = ""

    @property
    def hand_written(self) -> int:
        return self.used - self.own

    @property
    def shorten(self) -> str:
        """What mends its hand-written text (``shorten_fix``)."""
        return shorten_fix(self.heaviest or self.path)

    @property
    def over(self) -> bool:
        return self.used > self.limit.value

    def describe(self) -> str:
        return (
            f"{self.path}: {self.used:,} {MEASURES[self.limit.measure].unit}, over the limit of "
            f"{self.limit.value:,} ({self.limit.reason})"
        )


def shorten_fix(path: str) -> str:
    """What mends hand-written text past a hard size limit, ``path`` the file that holds the most of
    it (of a chain of AGENTS.md files, perhaps one above the file that is past the limit): one
    phrase for compile's warning and refusal and for `gitmem check`."""
    return (
        f"shorten the hand-written text of {path}, or move its list rules into .memory/ (`gitmem "
        f"import --accept --move --left-out {path}`: headings, prose and code stay), then run "
        "`gitmem compile`"
    )


@dataclass
class Report:
    plans: list[TargetPlan]
    changes: list[FileChange] = field(default_factory=list)
    problems: list[Problem] = field(
        default_factory=list
    )  # compile cannot write anything while there are any (in no target's file)
    held: list[Problem] = field(
        default_factory=list
    )  # a target's file over a hard size limit, or one that cannot take the block: the target is
    # held, not the others
    held_targets: list[str] = field(
        default_factory=list
    )  # the targets held (those, gitmem's block edited by hand in a file of theirs: ``refused``,
    # and those whose clients read their files)
    ignored: list[str] = field(
        default_factory=list
    )  # files gitmem writes that git ignores (never committed)
    warnings: list[str] = field(default_factory=list)
    notes: list[tuple[str, str]] = field(
        default_factory=list
    )  # (file, note): a warning when that file changes
    limits: list[LimitUse] = field(default_factory=list)
    packs: list[Pack] = field(
        default_factory=list
    )  # the shared packs whose memories were compiled too
    readers: tuple[Reader, ...] = (
        READERS  # the clients as the project's settings make them read (``delivery``)
    )
    git: GitView | None = None  # what git said of the work tree, asked once (``reading.GitView``)

    @property
    def refused(self) -> list[FileChange]:
        return [change for change in self.changes if change.action == "refused"]

    @property
    def unheld(self) -> list[TargetPlan]:
        """The plans of the targets compile writes (all of them when every one is held)."""
        return [p for p in self.plans if p.target.name not in self.held_targets] or self.plans

    @property
    def stale(self) -> list[FileChange]:
        return [change for change in self.changes if change.action != "unchanged"]


def linked_document(project: Project, path: str) -> str | None:
    """The file ``path`` links to, relative to the repository root, when ``path`` is a symbolic link
    to a document that is not a rules file (biome's ``CLAUDE.md -> CONTRIBUTING.md``, a guide for
    people); else ``None``.

    A rules file is a file some target writes: a root file (``AGENTS.md``,
    ``.github/copilot-instructions.md``), a per-directory file (``web/AGENTS.md``, or
    ``docs/agents.md``: its name in any case), or a file of a target's rules folder. A link to one
    of those (``CLAUDE.md -> AGENTS.md``) is written through, once. A link that leaves the
    repository is the gateway's business (refused), not this one's.
    """

    full = project.root / path
    if not full.is_symlink():
        return None
    try:
        relative = gateway.real(full).relative_to(gateway.real(project.root)).as_posix()
    except ValueError:
        return None
    name = relative.rsplit("/", 1)[-1].lower()
    if relative in _ROOT_FILES or name in _DIR_FILES or relative.startswith(_RULES_FOLDERS):
        return None
    return relative


# The rules files some target writes, by what they are (``linked_document``); a file named as a
# nested one in any case is one too, written for the agents (pwncollege-dojo's root AGENTS.md ->
# docs/agents.md)
_ROOT_FILES = frozenset(target.root_file for target in TARGETS)
_DIR_FILES = frozenset(target.dir_file.lower() for target in TARGETS if target.dir_file)
_RULES_FOLDERS = tuple(f"{target.scoped_dir}/" for target in TARGETS if target.scoped_dir)


# Why a rules file cannot be written, with what mends it
_FIXED = {
    gateway.REASON: f"{gateway.REASON}: {gateway.OUTSIDE_FIX}",
    gateway.LOOP_REASON: f"{gateway.LOOP_REASON}: {gateway.OWN_FIX}",
    gateway.GIT_REASON: f"{gateway.GIT_REASON}: {gateway.OWN_FIX}",
}


def read_file(project: Project, path: str, report: Report) -> tuple[str | None, Path | None]:
    """A file's text and where to write it; (None, path) when it does not exist; (None, None) on
    a problem."""
    full = project.root / path
    refusal = gateway.problem(
        project, full, path
    )  # every part of the path, not only the file: docs -> ~/.claude
    if refusal is not None:  # said with its fix, where gitmem knows one
        report.problems.append(
            refusal._replace(message=_FIXED.get(refusal.message, refusal.message))
        )
        return None, None
    io_path = gateway.resolve(
        project, full, path
    )  # written through a link (CLAUDE.md -> AGENTS.md), never over it
    if not full.exists():
        return None, io_path
    if not full.is_file():
        report.problems.append(Problem(path, 1, 1, "file", "not a regular file"))
        return None, None
    try:
        raw = gateway.read_bytes(project, full, limit=gateway.RULES_LIMIT, display=path)
    except CheckFailed as exc:  # too large, not a regular file
        report.problems.extend(exc.problems)
        return None, None
    except OSError as exc:
        report.problems.append(Problem(path, 1, 1, "file", f"cannot read: {exc.strerror}"))
        return None, None
    try:
        return raw.decode("utf-8"), io_path
    except UnicodeDecodeError as exc:
        line = raw.count(b"\n", 0, exc.start) + 1
        report.problems.append(
            Problem(path, line, 1, "file", "not UTF-8 text; gitmem only edits UTF-8 files")
        )
        return None, None
