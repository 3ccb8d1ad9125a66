"""Compile: compare what every target's files should hold with the working tree, then write (or only report).

``prepare`` reads the files and decides, for each, what it should become; it writes nothing. ``apply`` writes a
prepared report. Between them the command decides: refuse (problems, or hand edits without ``force``), report stale
files (``--check``), or write.

What compile owns: in a file that may hold hand-written text, only the managed block; files it creates whole
(their begin marker says ``file-hash``), all of them. Cleaning up (a target removed from the config, the last memory
of a scope gone) removes a block, deletes a file that held nothing else, and deletes whole files, and touches
nothing it did not write.
"""

from __future__ import annotations

import os
import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import date
from pathlib import Path
from typing import TYPE_CHECKING

from gitmem.compile import block
from gitmem.compile.block import BlockError, Found, Scan
from gitmem.compile.plan import FilePlan, TargetPlan, plan_targets
from gitmem.compile.targets import BY_NAME, TARGETS, WHOLE_PREFIX, Limit, Target
from gitmem.config import Config
from gitmem.errors import Problem, UsageError
from gitmem.fsutil import write_atomic
from gitmem.memory.model import Memory
from gitmem.project import Project

if TYPE_CHECKING:
    from gitmem.packs import Pack

AIDER_FILE = "CONVENTIONS.md"
AIDER_CREATED = f"# Written by gitmem compile: aider loads the team's memories from {AIDER_FILE}.\nread: {AIDER_FILE}\n"

# What a stale file would become, in --check's words.
STALE_REASONS = {
    "created": "missing",
    "updated": "out of date",
    "healed": "has git conflict markers in its gitmem block",
    "removed": "no longer compiled",
}


@dataclass
class FileChange:
    """One file compile looked at, and what it does to it."""

    path: str  # relative to the repository root, / separators
    target: str
    action: str  # created | updated | healed | removed | unchanged | refused
    old: str | None = None
    new: str | None = None  # None with action "removed": the file is deleted
    edited: bool = False  # gitmem's part was edited by hand (overwritten only with force)
    diff: str = ""  # for a hand edit: what compile would change in gitmem's part
    io_path: Path | None = None  # where to write (a symbolic link is written through)
    owned: bool = True  # False: a hand-written file of a name gitmem uses, without a gitmem block

    @property
    def changed(self) -> bool:
        return self.action not in ("unchanged", "refused")

    @property
    def reason(self) -> str:
        if self.edited:
            return "edited by hand"
        return STALE_REASONS.get(self.action, "")


@dataclass(frozen=True)
class LimitUse:
    """How much of a tool's size limit a file (or, for ``chain_bytes``, a chain of files) uses."""

    target: str
    path: str
    limit: Limit
    used: int
    own: int = 0  # of ``used``, what gitmem writes (its block or file); the rest is hand-written text
    budget: int = 0  # the target's token budget

    @property
    def hand_written(self) -> int:
        return self.used - self.own

    @property
    def over(self) -> bool:
        return self.used > self.limit.value

    def describe(self) -> str:
        unit = {"chars": "characters", "lines": "lines", "chain_bytes": "bytes with the AGENTS.md files above it"}
        return (
            f"{self.path}: {self.used:,} {unit[self.limit.measure]}, over the limit of {self.limit.value:,} "
            f"({self.limit.reason})"
        )


@dataclass
class Report:
    plans: list[TargetPlan]
    changes: list[FileChange] = field(default_factory=list)
    problems: list[Problem] = field(default_factory=list)  # compile cannot write anything while there are any
    warnings: list[str] = field(default_factory=list)
    limits: list[LimitUse] = field(default_factory=list)
    packs: list[Pack] = field(default_factory=list)  # the shared packs whose memories were compiled too

    @property
    def refused(self) -> list[FileChange]:
        return [change for change in self.changes if change.action == "refused"]

    @property
    def stale(self) -> list[FileChange]:
        return [change for change in self.changes if change.action != "unchanged"]


def chosen_targets(config: Config, names: Sequence[str] = ()) -> list[Target]:
    """The configured targets, narrowed to ``names`` when given (each must be configured)."""
    configured = set(config.targets)
    for name in names:
        if name not in BY_NAME:
            raise UsageError(f"unknown target {name!r}: choose from {', '.join(BY_NAME)}")
        if name not in configured:
            raise UsageError(
                f"target {name!r} is not configured (targets: {', '.join(config.targets) or 'none'}); "
                f"add it with `gitmem init --target {name}`"
            )
    wanted = set(names) if names else configured
    return [target for target in TARGETS if target.name in wanted]


def prepare(
    project: Project,
    config: Config,
    memories: Sequence[Memory],
    *,
    names: Sequence[str] = (),
    budget: int | None = None,
    force: bool = False,
    only: Sequence[Target] | None = None,
    catalogue: Sequence[Target] = TARGETS,
    today: date | None = None,
) -> Report:
    """Decide what compile does to every file, for the project's live ``memories`` and those of the shared packs
    in ``config.sources`` (read from their cache, fetched when not there yet: ``gitmem.packs``). Writes nothing.

    ``only`` and ``catalogue`` are for ``compile --user`` (``gitmem.personal``): compile exactly the targets
    ``only`` instead of the configured ones, and clean up the files of the others among ``catalogue``; the user's
    scope has no packs.
    """
    targets = list(only) if only is not None else chosen_targets(config, names)
    budgets = {target.name: budget or config.budget_for(target.name) for target in targets}
    packs: list[Pack] = []
    if config.sources and only is None:
        packs, pack_problems, shared = _shared(project, config, today or date.today())
        memories = [*memories, *shared]
    report = Report(plan_targets(targets, memories, budgets, config.mcp), packs=packs)
    if packs:
        report.problems.extend(pack_problems)
        for pack in packs:
            if pack.problems:
                report.warnings.append(
                    f"source {pack.name!r} has invalid memories at {pack.source.rev}: pin another revision "
                    f"(`gitmem sources update {pack.name}`) or remove it (`gitmem sources remove {pack.name}`)"
                )
    desired: dict[str, tuple[Target, FilePlan]] = {}
    for target_plan in report.plans:
        for path, file_plan in target_plan.files.items():
            desired[path] = (target_plan.target, file_plan)
    for target_plan in report.plans:
        report.problems.extend(_glob_problems(target_plan))

    cleaned = targets if names else list(catalogue)
    candidates = _candidates(project, cleaned)
    finals: dict[str, str] = {}  # path -> the file's text after compile (for limits)
    seen_io: dict[Path, str] = {}
    for path in sorted(set(desired) | set(candidates)):
        if path in desired:
            target, file_plan = desired[path]
            change = _desired_change(project, path, target, file_plan, force, report)
        else:
            change = _cleanup_change(project, path, candidates[path], force, report)
        if change is None:
            continue
        if change.io_path is not None:
            other = seen_io.get(change.io_path)
            if other is not None:
                if any(done.path == other and done.changed for done in report.changes):  # said when it is written
                    report.warnings.append(
                        f"{path} and {other} are the same file (a link): gitmem writes it for {other}"
                    )
                _drop_link(report, path)
                continue
            seen_io[change.io_path] = path
        if change.owned:
            report.changes.append(change)
        final = change.new if change.action in ("created", "updated", "healed", "removed") else change.old
        if final is not None:
            finals[path] = final

    aider = BY_NAME["aider"]
    if aider in cleaned:
        writes = aider in targets and AIDER_FILE in desired
        change = _aider_config(project, writes, kept=AIDER_FILE in finals, report=report)
        if change is not None:
            report.changes.append(change)

    for target in targets:
        report.limits.extend(_limit_uses(target, finals, desired, budgets[target.name]))
    touched = {change.path for change in report.changes if change.changed}
    for use in report.limits:
        if use.over and use.limit.hard:
            report.problems.append(Problem(use.path, 1, 1, "limit", _limit_advice(use)))
        elif use.over and use.path in touched:  # soft: said when the file changes, and always by `gitmem stats`
            report.warnings.append(f"{use.describe()}: consider a smaller budget for {use.target}")
    _hidden_unicode(desired, finals, report)
    _claude_imports_agents(targets, finals, report, touched)
    report.changes.sort(key=lambda change: change.path)
    return report


def _shared(project: Project, config: Config, today: date) -> tuple[list[Pack], list[Problem], list[Memory]]:
    """The shared packs, their problems, and the memories of theirs compile includes (live, unmuted, ``PACK/ID``)."""
    from gitmem import packs

    loaded, _ = packs.load(project, config)
    return loaded, packs.problems(loaded), packs.live(loaded, today)


def apply(project: Project, report: Report) -> list[FileChange]:
    """Write a prepared report. Returns the files changed."""
    if report.problems or report.refused:
        raise RuntimeError("a report with problems or refused files cannot be applied")
    done = []
    for change in report.changes:
        if not change.changed:
            continue
        target_path = change.io_path or project.root / change.path
        if change.action == "removed":
            (project.root / change.path).unlink(missing_ok=True)
            _prune(project.root, (project.root / change.path).parent)
        else:
            assert change.new is not None
            write_atomic(target_path, change.new.encode("utf-8"))
        done.append(change)
    return done


# -- the files of one target ---------------------------------------------------------------------------------------


def _candidates(project: Project, targets: Sequence[Target]) -> dict[str, Target]:
    """Files on disk that gitmem may have written for ``targets`` (whether they hold gitmem's text is checked later)."""
    from gitmem import gitrepo

    found: dict[str, Target] = {}
    root = project.root
    for target in targets:
        if (root / target.root_file).is_file():
            found[target.root_file] = target
        if target.scoped_dir:
            directory = root / target.scoped_dir
            try:
                names = os.listdir(directory)
            except (FileNotFoundError, NotADirectoryError):
                names = []
            for name in names:
                if name.startswith(WHOLE_PREFIX) and name.endswith(target.scoped_suffix):
                    found[f"{target.scoped_dir}/{name}"] = target
    dir_files = {target.dir_file: target for target in targets if target.dir_file}
    if dir_files:
        for path in gitrepo.list_files(root, tuple(sorted(dir_files))):
            name = path.rsplit("/", 1)[-1]
            if "/" in path and name in dir_files and (root / path).is_file():
                found[path] = dir_files[name]
    return found


def _read(project: Project, path: str, report: Report) -> tuple[str | None, Path | None]:
    """A file's text and where to write it; (None, path) when it does not exist; (None, None) on a problem."""
    full = project.root / path
    io_path = full
    if full.is_symlink():
        io_path = full.resolve()
        try:
            io_path.relative_to(project.root.resolve())
        except ValueError:
            message = "a link to outside the repository; gitmem does not write through it"
            report.problems.append(Problem(path, 1, 1, "file", message))
            return None, None
    if not full.exists():
        return None, io_path
    if not full.is_file():
        report.problems.append(Problem(path, 1, 1, "file", "not a regular file"))
        return None, None
    try:
        raw = full.read_bytes()
    except OSError as exc:
        report.problems.append(Problem(path, 1, 1, "file", f"cannot read: {exc.strerror}"))
        return None, None
    try:
        return raw.decode("utf-8"), io_path
    except UnicodeDecodeError as exc:
        line = raw.count(b"\n", 0, exc.start) + 1
        report.problems.append(Problem(path, line, 1, "file", "not UTF-8 text; gitmem only edits UTF-8 files"))
        return None, None


def _has_conflicts(text: str) -> bool:
    return bool(block.conflict_lines(text))


def _outside(text: str, found: Found | None) -> tuple[str, str]:
    if found is None:
        return text.rstrip("\r\n"), ""
    return found.before.rstrip("\r\n"), found.after.lstrip("\r\n")


def _heal(text: str) -> tuple[str, Found] | None:
    """Resolve git conflict markers that only concern gitmem's block: the hand-written text around the block must be
    the same on both sides. Returns the text of one side and its block, to splice the regenerated block into."""
    sides = []
    for side in ("ours", "theirs"):
        resolved = block.resolve_side(text, side)
        try:
            result = block.scan(resolved)
        except BlockError:
            return None
        if result.conflicts:
            return None
        sides.append((resolved, result.found))
    if _outside(*sides[0]) != _outside(*sides[1]):
        return None
    for resolved, found in sides:
        if found is not None:
            return resolved, found
    return None


def _diff(path: str, old: str, new: str) -> str:
    import difflib

    lines = difflib.unified_diff(
        old.splitlines(keepends=True),
        new.splitlines(keepends=True),
        fromfile=f"{path} (as edited)",
        tofile=f"{path} (as gitmem compile writes it)",
    )
    return "".join(line if line.endswith("\n") else line + "\n" for line in lines)


def _conflict_problem(path: str, text: str) -> Problem:
    line = next(iter(block.conflict_lines(text)), 1)
    return Problem(
        path,
        line,
        1,
        "conflict",
        "git conflict markers outside gitmem's block: resolve them by hand, then run `gitmem compile`",
    )


def _desired_change(
    project: Project, path: str, target: Target, plan: FilePlan, force: bool, report: Report
) -> FileChange | None:
    blocked = _blocked_by_file(project, path)
    if blocked is not None:
        problem = Problem(blocked, 1, 1, "file", _blocked_message(blocked, target))
        if problem not in report.problems:
            report.problems.append(problem)
        return None
    old, io_path = _read(project, path, report)
    if io_path is None:
        return None
    new_part = plan.text()
    change = FileChange(path, target.name, "unchanged", old, io_path=io_path)
    if old is None:
        change.action, change.new = "created", new_part
        return change
    newline = block.newline_of(old)
    if plan.spec.whole:
        new = block.with_newline(new_part, newline)
        if _has_conflicts(old) and block.BEGIN in old:  # gitmem's own file, conflicted: regenerate it
            change.action, change.new = "healed", new
            return change
        try:
            found = block.scan(old).found
        except BlockError:
            found = None
        if found is None or found.kind != "file-hash" or found.edited():
            change.edited, change.diff = True, _diff(path, old, new)
        change.new = new
    else:
        result = _scan_or_heal(path, old, report)
        if result is None:
            return None
        if isinstance(result, tuple):
            change.new = block.splice(result[0], result[1], new_part)
            change.action = "unchanged" if change.new == old else "healed"
            return change
        found = result.found
        if found is None and result.open_fence is not None:
            report.problems.append(
                Problem(
                    path,
                    result.open_fence,
                    1,
                    "block",
                    "a code fence opened here is never closed, so a block added after it would be code: close it",
                )
            )
            return None
        change.new = block.splice(old, found, new_part)
        if found is not None and found.edited():
            change.edited = True
            change.diff = _diff(path, found.block, block.with_newline(new_part, newline))
    if change.new == old:
        change.action = "unchanged"
        change.edited = False
    elif change.edited and not force:
        change.action = "refused"
    else:
        change.action = "updated"
    return change


def _blocked_by_file(project: Project, path: str) -> str | None:
    """The folder on the way to ``path`` that is a file (``.cursor/rules`` written as one file), or ``None``."""
    parts = path.split("/")[:-1]
    for depth in range(1, len(parts) + 1):
        folder = "/".join(parts[:depth])
        full = project.root / folder
        if full.exists() and not full.is_dir():
            return folder
    return None


def _blocked_message(folder: str, target: Target) -> str:
    return (
        f"a file where {target.tool} reads a folder ({folder}/*{target.scoped_suffix}), so gitmem cannot write "
        f"there: move its text into a file in that folder (e.g. {folder}/project{target.scoped_suffix}), "
        f"or drop the {target.name} target from .memory/config.yaml"
    )


def _scan_or_heal(path: str, old: str, report: Report) -> Scan | tuple[str, Found] | None:
    """A file's block: its ``Scan``; or ``(text, found)`` when git conflict markers had to be healed first; or
    ``None`` (with the problem reported) when neither works."""
    try:
        result = block.scan(old)
    except BlockError as exc:
        if not _has_conflicts(old):
            report.problems.append(Problem(path, exc.line, 1, "block", exc.message))
            return None
        result = None
    if result is not None and not result.conflicts:
        return result
    healed = _heal(old)
    if healed is None:
        report.problems.append(_conflict_problem(path, old))
    return healed


def _cleanup_change(project: Project, path: str, target: Target, force: bool, report: Report) -> FileChange | None:
    """A file gitmem may have written that nothing is compiled into any more."""
    old, io_path = _read(project, path, report)
    if old is None or io_path is None:
        return None
    change = FileChange(path, target.name, "removed", old, None, io_path=io_path)
    result = _scan_or_heal(path, old, report)
    if result is None:
        return None
    if isinstance(result, tuple):
        if result[1].kind == "file-hash":
            return change
        rest = block.remove(result[1])
        if rest.strip():
            change.action, change.new = "healed", rest
        return change
    found = result.found
    if found is None:  # not gitmem's: a hand-written file of the same name (still read by the tool: limits count it)
        change.action, change.new, change.owned = "unchanged", None, False
        return change
    if found.kind == "file-hash":
        if found.edited():
            change.edited, change.diff = True, _diff(path, old, "")
    else:
        rest = block.remove(found)
        if found.edited():
            change.edited, change.diff = True, _diff(path, found.block, "")
        if rest.strip():
            change.action, change.new = "updated", rest
    if change.edited and not force:
        change.action = "refused"
    return change


# -- aider's config ------------------------------------------------------------------------------------------------


def _aider_reads(text: str) -> bool | None:
    """Whether ``read:`` names CONVENTIONS.md (None: there is no ``read:`` key), without a YAML parser."""
    lines = text.splitlines()
    for index, line in enumerate(lines):
        match = re.fullmatch(r"read:[ \t]*(.*?)[ \t]*(?:#.*)?", line)
        if not match:
            continue
        value = match.group(1)
        if value:
            items = value.strip("[]").split(",")
            return AIDER_FILE in (item.strip().strip("'\"") for item in items)
        for following in lines[index + 1 :]:
            item = re.fullmatch(r"[ \t]*-[ \t]*(.*?)[ \t]*(?:#.*)?", following)
            if not item:
                break
            if item.group(1).strip("'\"") == AIDER_FILE:
                return True
        return False
    return None


def _aider_config(project: Project, wanted: bool, kept: bool, report: Report) -> FileChange | None:
    """``.aider.conf.yml`` must read CONVENTIONS.md while gitmem writes memories there (``wanted``), and not once
    gitmem removed the file; while hand-written text keeps CONVENTIONS.md (``kept``), its ``read:`` stays."""
    from gitmem import yamlio

    target = BY_NAME["aider"]
    assert target.reads_config is not None
    path = target.reads_config
    old, io_path = _read(project, path, report)
    if io_path is None:
        return None
    change = FileChange(path, "aider", "unchanged", old, io_path=io_path)
    if old is None:
        if not wanted:
            return None
        change.action, change.new = "created", AIDER_CREATED
        return change
    reads = _aider_reads(old)
    if wanted == bool(reads):
        return change
    if not wanted and kept:
        return change  # the hand-written part of CONVENTIONS.md stays, and so does the read
    if not wanted and old == AIDER_CREATED:
        change.action = "removed"
        return change
    try:
        data = yamlio.load(old).data
    except yamlio.YamlProblem as exc:
        report.problems.append(exc.problem(path))
        return None
    current = data.get("read")
    items = [current] if isinstance(current, str) else list(current or [])
    if wanted:
        if current is None:
            change.new = old + ("" if old.endswith("\n") or not old else "\n") + f"read: {AIDER_FILE}\n"
        else:
            change.new = _edit_block_list(old, add=True) or yamlio.update(old, {"read": [*items, AIDER_FILE]})
    else:
        remaining = [item for item in items if item != AIDER_FILE]
        change.new = _edit_block_list(old, add=False) if remaining else None
        change.new = change.new or yamlio.update(old, {"read": remaining or None})
    change.action = "updated"
    return change


def _edit_block_list(text: str, add: bool) -> str | None:
    """Add CONVENTIONS.md to (or drop it from) a block list under ``read:``, touching no other line; None when
    ``read:`` is not a block list."""
    lines = text.splitlines(keepends=True)
    for index, line in enumerate(lines):
        if not re.fullmatch(r"read:[ \t]*(?:#.*)?\r?\n?", line):
            continue
        end = index + 1
        while end < len(lines) and re.match(r"[ \t]*-[ \t]", lines[end]):
            end += 1
        if end == index + 1:
            return None
        if add:
            indent = re.match(r"[ \t]*", lines[end - 1])
            assert indent is not None
            last = lines[end - 1]
            newline = "\r\n" if last.endswith("\r\n") else "\n"
            if not last.endswith("\n"):
                lines[end - 1] = last + newline
            lines.insert(end, f"{indent.group(0)}- {AIDER_FILE}{newline}")
        else:
            lines[index + 1 : end] = [
                item
                for item in lines[index + 1 : end]
                if re.sub(r"#.*", "", item).strip().lstrip("-").strip().strip("'\"") != AIDER_FILE
            ]
        return "".join(lines)
    return None


# -- checks --------------------------------------------------------------------------------------------------------


def _glob_problems(target_plan: TargetPlan) -> list[Problem]:
    """Globs a comma-separated frontmatter field cannot carry (a comma outside braces)."""
    templates = " ".join(target_plan.target.scoped_frontmatter)
    if "{csv" not in templates:
        return []
    from gitmem.compile.scoping import expand_braces

    problems = []
    for file_plan in target_plan.files.values():
        for glob in file_plan.spec.globs:
            if any("," in item for item in expand_braces(glob)):
                problems.append(
                    Problem(
                        file_plan.spec.path,
                        1,
                        1,
                        "paths",
                        f"the glob {glob!r} holds a comma, which {target_plan.target.tool}'s comma-separated globs "
                        "cannot carry: rewrite it (braces such as *.{ts,tsx} are fine)",
                    )
                )
    return problems


def _drop_link(report: Report, path: str) -> None:
    """A file that is a link to one another target writes: not this target's file (nor its tokens) after all."""
    for target_plan in report.plans:
        file_plan = target_plan.files.pop(path, None)
        if file_plan is not None:
            target_plan.chars -= len(file_plan.text())


def _limit_uses(
    target: Target, finals: dict[str, str], desired: dict[str, tuple[Target, FilePlan]], budget: int = 0
) -> list[LimitUse]:
    """The limits of ``target`` as used by the files gitmem writes for it (hand-written text they hold included,
    and for a chain, the hand-written files above them too: the tool reads it all).

    A chain is reported once, where it goes over: a nested file whose chain is over only because a file above it
    already is, is not reported again (one figure for one cause)."""
    uses = []
    mine = sorted(path for path in finals if path in desired and desired[path][0] is target)

    def own(path: str, measure: str) -> int:
        text = desired[path][1].text() if path in desired and desired[path][0] is target else ""
        if measure == "lines":
            return text.count("\n")
        return len(text.encode("utf-8")) if measure == "chain_bytes" else len(text)

    for limit in target.limits:
        over_chains: list[str] = []
        for path in mine:
            text = finals[path]
            if limit.measure == "chars":
                used, mine_part = len(text), own(path, "chars")
            elif limit.measure == "lines":
                used = text.count("\n") + (0 if text.endswith("\n") or not text else 1)
                mine_part = own(path, "lines")
            else:
                if target.dir_file is None or not (path == target.root_file or path.endswith("/" + target.dir_file)):
                    continue
                used = mine_part = 0
                parts = path.split("/")[:-1]
                chain = []
                for depth in range(len(parts) + 1):
                    ancestor = "/".join([*parts[:depth], target.dir_file])
                    if ancestor in finals:
                        chain.append(ancestor)
                        used += len(finals[ancestor].encode("utf-8"))
                        mine_part += own(ancestor, "chain_bytes")
                if any(ancestor in over_chains for ancestor in chain[:-1]):
                    continue  # already said for the file above, which is the cause
                if used > limit.value:
                    over_chains.append(path)
            uses.append(LimitUse(target.name, path, limit, used, mine_part, budget))
    return uses


def _limit_advice(use: LimitUse) -> str:
    unit = {"chars": "characters", "lines": "lines", "chain_bytes": "bytes with the AGENTS.md files above it"}
    head = f"{use.used:,} {unit[use.limit.measure]}, over the hard limit of {use.limit.value:,} ({use.limit.reason})"
    if use.hand_written > use.limit.value:
        return (
            f"{head}; the hand-written text alone is {use.hand_written:,} (gitmem adds {use.own:,}), so no budget "
            "fixes it: shorten the hand-written text, or turn it into memories the budget can order "
            "(`gitmem import --move` moves those lines into .memory/), then run `gitmem compile`"
        )
    from gitmem.compile.budget import CHARS_PER_TOKEN

    room = use.limit.value - use.hand_written  # what gitmem's part may take
    fits = max(1, (room * 9 // 10) // CHARS_PER_TOKEN) if use.limit.measure != "lines" else None
    lower = (
        f"lower the budget of {use.target} to about {fits:,} tokens (budget: {{default: …, {use.target}: {fits}}} "
        "in .memory/config.yaml)"
        if fits is not None and fits < use.budget
        else f"lower the budget of {use.target} in .memory/config.yaml"
    )
    return (
        f"{head}; gitmem writes {use.own:,} of it: {lower}, lower some memories' priority, or shorten the "
        "hand-written text"
    )


def _hidden_unicode(desired: dict[str, tuple[Target, FilePlan]], finals: dict[str, str], report: Report) -> None:
    from gitmem.scan import find_hidden

    for path, (_, file_plan) in desired.items():
        for char in find_hidden(file_plan.text()):
            message = f"{char.describe()} in compiled output"
            report.problems.append(Problem(path, char.line, char.column, "hidden", message))
        final = finals.get(path)
        if final is not None and not file_plan.spec.whole:
            for char in find_hidden(final)[:1]:
                report.warnings.append(
                    f"{path}:{char.line}:{char.column}: {char.describe()} in the hand-written text "
                    "(hidden instructions are a known attack on rules files): check it"
                )


def _claude_imports_agents(
    targets: Sequence[Target], finals: dict[str, str], report: Report, touched: set[str]
) -> None:
    """Said when compile writes CLAUDE.md's block (not on every run): the agents target already serves Claude."""
    names = {target.name for target in targets}
    claude = finals.get("CLAUDE.md", "")
    if (
        {"agents", "claude"} <= names
        and "CLAUDE.md" in touched
        and re.search(r"(?m)^[ \t]*@(?:\./)?AGENTS\.md[ \t]*$", claude)
        and "AGENTS.md" in finals
    ):
        report.warnings.append(
            "CLAUDE.md imports @AGENTS.md, so Claude Code reads gitmem's memories twice: the agents target serves "
            "Claude Code already; drop claude from `targets` in .memory/config.yaml (or drop the import)"
        )


def _prune(root: Path, directory: Path) -> None:
    """Remove directories left empty by a removed file, up to (not including) the repository root."""
    root = root.resolve()
    directory = directory.resolve()
    while directory != root and root in directory.parents:
        try:
            directory.rmdir()
        except OSError:
            return
        directory = directory.parent
