"""Compile: compare what every target's files should hold with the working tree, then write (or only
report).

``prepare`` reads the files and decides, for each, what it should become; it writes nothing.
``apply`` writes a prepared report. Between them the command decides: refuse (problems, or hand
edits without ``force``), report stale files (``--check``), or write.

What compile owns: in a file that may hold hand-written text, only the managed block; files it
creates whole (their begin marker says ``file-hash``), all of them. Cleaning up (a target removed
from the config, the last memory of a scope gone) removes a block, deletes a file that held nothing
else, and deletes whole files, and touches nothing it did not write.
"""

from __future__ import annotations

import difflib
import os
import posixpath
from collections.abc import Collection, Sequence
from dataclasses import replace
from datetime import date
from pathlib import Path
from typing import TYPE_CHECKING, Literal

from gitmem import gateway
from gitmem.clientsettings import also_read
from gitmem.compile import aider, block, checks, delivery, leftout, scoping
from gitmem.compile.block import BlockError, Found, Scan
from gitmem.compile.budget import fitted
from gitmem.compile.changes import FileChange, LimitUse, Report, linked_document, read_file
from gitmem.compile.plan import FilePlan, plan_targets
from gitmem.compile.readers import READERS, Reader, imported
from gitmem.compile.reading import GitView, chain
from gitmem.compile.verify import Miss, folders_of, verify
from gitmem.errors import Problem, UsageError
from gitmem.memory.config import Config
from gitmem.memory.model import Memory
from gitmem.project import Project
from gitmem.records import Record
from gitmem.tools import CLEANUP_TARGETS as CLEANUP
from gitmem.tools import MEASURES, TARGETS, WHOLE_PREFIX, Target
from gitmem.tools import TARGET_BY_NAME as BY_NAME

if TYPE_CHECKING:
    from gitmem.memory.store import Snapshot, Store
    from gitmem.scopes.packs import Pack


class Compiled(Record):
    """One compile of a store: its live memories, the report, and the files written.

    ``invalid``: the store's memory files that are invalid; then nothing was prepared (``report`` is
    empty) and nothing written, so a broken file can never silently drop memories from every tool.
    """

    live: list[Memory]
    report: Report
    invalid: list[Problem]
    written: list[FileChange]
    snapshot: Snapshot  # the store as loaded
    misses: Sequence[Miss] = ()  # after writing: what the clients read that differs


# What a compile does with the report: "report" prepares it only; "write" writes it unless it has
# problems or hand edits; "partial" (for `gitmem stats` and `gitmem check`) prepares the valid
# memories even when some memory files are invalid, and never writes.
Mode = Literal["report", "write", "partial"]


class Request(Record):
    """One compile's request: what every command that compiles asks (``compile``, ``stats``,
    ``check``, ``doctor``, ``explain``, ``revert``).

    ``names``: only these configured targets (cleaning up only theirs); ``budget``: every target's
    token budget for this run; ``force``: overwrite blocks edited by hand; ``without``: memory ids
    left out; ``only`` and ``catalogue`` (for ``compile --user``, ``gitmem.scopes.personal``):
    compile exactly the targets ``only`` instead of the configured ones, and clean up the files of
    the others among ``catalogue``; the user's scope has no packs.
    """

    today: date
    mode: Mode = "report"
    names: Sequence[str] = ()
    budget: int | None = None
    force: bool = False
    without: Collection[str] = ()
    only: Sequence[Target] | None = None
    catalogue: Sequence[Target] = CLEANUP


def compile_store(
    project: Project,
    store: Store,
    config: Config,
    request: Request,
    snapshot: Snapshot | None = None,
) -> Compiled:
    """The one compile every command runs: load the store (``snapshot``: as the caller loaded it
    already), prepare the report for its live memories but ``request.without``, and write it as
    ``request.mode`` says (a target one of whose files cannot be written as meant is held, the
    others written: ``prepare``)."""
    snapshot = snapshot or store.load()
    if snapshot.problems and request.mode != "partial":
        return Compiled([], Report([]), list(snapshot.problems), [], snapshot)
    live = [
        memory
        for memory in snapshot.memories.values()
        if memory.is_live(request.today) and memory.id not in request.without
    ]
    report = prepare(project, config, live, request)
    writes = request.mode == "write" and not report.problems
    written = apply(project, report) if writes else []
    compiled = Compiled(live, report, list(snapshot.problems), written, snapshot)
    if writes and request.only is None:  # what each client now reads, against what was meant
        return compiled._replace(misses=arrivals(project, compiled, request.today, False))
    return compiled


def arrivals(
    project: Project, compiled: Compiled, today: date, committed: bool = True
) -> list[Miss]:
    """What the clients read on the disk that differs from what compile meant them to get
    (``compile.verify``); without ``committed``, the clients that read only what git tracks are left
    to ``gitmem check``.
    """
    return verify(project, compiled.report, compiled_memories(compiled, today), committed=committed)


def compiled_memories(compiled: Compiled, today: date) -> list[Memory]:
    """The memories compiled: the store's live ones, then the shared packs'."""
    return [*compiled.live, *(m for pack in compiled.report.packs for m in pack.live(today))]


def chosen_targets(config: Config, names: Sequence[str] = ()) -> list[Target]:
    """The configured targets, narrowed to ``names`` when given (each must be configured)."""
    configured = set(config.targets)
    for name in names:
        if name not in BY_NAME:
            raise UsageError(f"unknown target {name!r}: choose from {', '.join(BY_NAME)}")
        if name not in configured:
            raise UsageError(
                f"target {name!r} is not configured (targets: "
                f"{', '.join(config.targets) or 'none'}); add it with `gitmem init --target {name}`"
            )
    wanted = set(names) if names else configured
    return [target for target in TARGETS if target.name in wanted]


def prepare(
    project: Project, config: Config, memories: Sequence[Memory], request: Request
) -> Report:
    """Decide what compile does to every file, for the project's live ``memories`` and those of the
    shared packs in ``config.sources`` (read from their cache, fetched when not there yet:
    ``gitmem.scopes.packs``). Writes nothing. ``request``: see ``Request`` (its mode is the
    caller's).

    A file that cannot take what compile means for it (over a hard size limit; a block gitmem
    cannot read, a link out of the repository, git conflict markers it cannot heal; gitmem's block
    edited by hand) holds its target alone, as ``Report.held`` and ``Report.refused`` say: the other
    targets are written. Only a problem in no target's file (a shared pack's) stops them all.
    """
    only = request.only
    if only is None:  # the project's configured targets, read as its settings say
        targets = chosen_targets(config, request.names)
        readers = delivery.with_settings(also_read(project))
        reached = set(config.targets)
    else:  # compile --user: exactly those
        targets, readers, reached = list(only), READERS, {target.name for target in only}
    targets, linked = _around_linked(project, targets)
    budgets = {target.name: request.budget or config.budget_for(target.name) for target in targets}
    packs, pack_problems, shared = _shared(project, config, request)
    memories = [*memories, *shared]
    git = GitView(project.root)
    listed = _listed(git, [*targets, *request.catalogue])  # (every name cleanup may ask of)
    targets, laid = _laid_out(project, targets, readers, git, listed, personal=only is not None)
    cleaned = targets if request.names else list(request.catalogue)
    room = _room(project, targets, budgets, listed)
    plans = plan_targets(targets, memories, room.budgets, config.mcp, room.reserved, laid)
    report = Report(plans, packs=packs, readers=readers, git=git)
    report.warnings.extend(config.notes())
    checks.unreached(memories, reached, report)
    _pack_problems(report, pack_problems)
    desired = _desired(project, linked, report)
    candidates = _candidates(project, cleaned, listed)
    for path in (
        linked.keys() - desired
    ):  # a block an older gitmem wrote into the document comes out
        candidates.setdefault(path, (linked[path], None))  # (never personal: _around_linked)
    finals = _file_changes(project, desired, candidates, request.force, report)
    if aider.TARGET in cleaned:
        _aider_config(
            project, aider.TARGET in targets and aider.AIDER_FILE in desired, finals, report
        )
    touched, held = _limits(project, targets, budgets, desired, finals, report)
    report.warnings.extend(room.warnings(budgets, desired, folders_of(memories)))
    report.warnings.extend(note for path, note in report.notes if path in touched)
    checks.rules_twice(memories, desired, finals, _first_block(report), report)
    checks.hidden_unicode(desired, finals, report)
    # (a file both written and cleaned up is the writing target's)
    _hold(
        report,
        held,
        {path: target.name for path, (target, _) in [*candidates.items(), *desired.items()]},
    )
    report.changes.sort(key=lambda change: change.path)
    return report


def _aider_config(project: Project, writes: bool, finals: dict[str, str], report: Report) -> None:
    """Aider's ``.aider.conf.yml`` reads CONVENTIONS.md while compile ``writes`` memories there."""
    change = aider.config_change(project, writes, aider.AIDER_FILE in finals, report)
    if change is not None:
        report.changes.append(change)


def _desired(
    project: Project, linked: dict[str, Target], report: Report
) -> dict[str, tuple[Target, FilePlan]]:
    """The files the plans write, each with its target and plan (none through a link into a
    document, none nowhere); the plans' glob problems into ``report``."""
    desired: dict[str, tuple[Target, FilePlan]] = {}
    for target_plan in report.plans:
        desired.update((path, (target_plan.target, fp)) for path, fp in target_plan.files.items())
        report.problems.extend(checks.glob_problems(target_plan))  # (none in a file of nowhere)
    _not_into_documents(project, desired, linked, report)
    _nowhere(desired, report)
    return desired


def _laid_out(
    project: Project,
    targets: list[Target],
    readers: Sequence[Reader],
    git: GitView,
    listed: Sequence[str],
    personal: bool,
) -> tuple[list[Target], list[delivery.Layout]]:
    """The targets as laid out for delivery (a bridged target may write other files) and their
    layouts; for the user-level files (``personal``) each a full copy."""
    if personal:
        return targets, delivery.standalone(targets)
    linked = _linked_roots(project, targets, git)
    laid = delivery.layouts(
        targets,
        _own_text(project, targets),
        readers,
        linked,
        _ignored_private(project, targets, git),
        _importing(project, targets, readers, listed),
        _homes(project, targets, listed, linked),
    )
    by_name = {layout.name: layout.target for layout in laid}
    return [by_name[target.name] for target in targets], laid


def _homes(
    project: Project, targets: Sequence[Target], listed: Sequence[str], linked: Collection[str]
) -> dict[str, dict[str, str]]:
    """The folders whose nested file of a target is, through a link on the disk, its root file or
    another folder's (a root AGENTS.md kept in a folder: AGENTS.md -> docs/AGENTS.md), by target
    name: folder -> the folder of the file gitmem writes for all of them, the root ("") where it
    is one of them (``delivery.Layout.homes``); none for the ``linked`` targets, whose root file
    is another target's."""
    out: dict[str, dict[str, str]] = {}
    for target in targets:
        if not target.dir_file or target.name in linked:
            continue
        by_real: dict[str, set[str]] = {os.path.realpath(project.root / target.root_file): {""}}
        for path in _named(listed, target.dir_file):
            folder = posixpath.dirname(path)
            by_real.setdefault(os.path.realpath(project.root / path), set()).add(folder)
        out[target.name] = {f: min(fs) for fs in by_real.values() for f in fs - {min(fs)}}
    return out  # (min: the root's "" first)


def _ignored_private(project: Project, targets: Sequence[Target], git: GitView) -> list[str]:
    """The private files (``Reader.private``: ``.claude/CLAUDE.md``) of ``targets``, and the root
    files of those whose client falls back to the hub (``CLAUDE.md``), that git ignores here; and
    the private files that are another file through a link (pyairtable's .claude/CLAUDE.md ->
    ../AGENTS.md): a copy placed there would be written into that file, over what it holds."""
    private = [path for target in targets for path in delivery.private_files(target)]
    linked = [path for path in private if (project.root / path).is_symlink()]
    places = private + [target.root_file for target in targets if delivery.falls_back(target)]
    if not (project.root / ".git").exists():
        return linked
    return linked + git.ignored(places)


def _linked_roots(
    project: Project, targets: Sequence[Target], git: GitView
) -> dict[str, tuple[str, str]]:
    """The targets whose root file is, through a link on the disk, another configured target's
    (``CLAUDE.md -> AGENTS.md``, or both links to ``.agents/AGENTS.md``): target name -> (the target
    that writes the file: the hub first, else the first in order; where its client reads what that
    one lacks, "" for nowhere git tracks). gitmem's block is written once, through the link, and
    each client counts it once (``compile.reading``).
    """
    by_real: dict[str, list[Target]] = {}
    for target in targets:
        if target.root_whole or target.personal:
            continue
        by_real.setdefault(os.path.realpath(project.root / target.root_file), []).append(target)
    out: dict[str, tuple[str, str]] = {}
    tracked = (project.root / ".git").exists()
    for group in by_real.values():  # a group of one holds only its writer
        writer, *others = sorted(group, key=lambda target: target.name != delivery.HUB)
        for target in others:
            places = [*delivery.private_files(target)]
            if target.scoped_dir and target.always_frontmatter is not None:
                places.append(f"{target.scoped_dir}/{LINKED_ROOT_NAME}{target.scoped_suffix}")
            ignored = set(git.ignored(places)) if tracked else set()
            out[target.name] = (
                writer.name,
                next((place for place in places if place not in ignored), ""),
            )
    return out


def _own_text(project: Project, targets: Sequence[Target]) -> dict[str, str]:
    """The hand-written text (outside gitmem's block) of the targets' root files, by target name,
    for those that have some: it decides a layout (``delivery.falls_back``) and whether the file is
    kept with no memory in it."""
    out: dict[str, str] = {}
    for target in targets:
        rest = _hand_text(project, target.root_file, target.root_whole)
        if rest.strip():
            out[target.name] = rest
    return out


def _hand_text(project: Project, path: str, whole: bool = False) -> str:
    """The text of ``path`` outside gitmem's block ("" for a file that is not there, or a ``whole``
    one gitmem wrote: one without its marker is the team's own)."""
    text, _ = read_file(project, path, Report([]))  # a problem is reported when it is compiled
    if text is None:
        return ""
    found = block.found_in(text)
    if found is None:
        return text
    return "" if whole else found.before + found.after


def _importing(
    project: Project, targets: Sequence[Target], readers: Sequence[Reader], listed: Sequence[str]
) -> dict[str, list[str]]:
    """The folders whose file of a target brings its client the hub's file of the same folder
    (``_reads_hub``), by target name (``delivery.Layout.imported``)."""
    files = {target.root_file: (target, "") for target in targets}
    out: dict[str, list[str]] = {}
    for path, (target, folder) in {**files, **_nested(project, targets, listed)}.items():
        if _reads_hub(project, target, path, folder, readers):
            out.setdefault(target.name, []).append(folder)
    return out


def _reads_hub(
    project: Project, target: Target, path: str, folder: str, readers: Sequence[Reader]
) -> bool:
    """Whether ``path``, a file of ``target`` in ``folder``, brings its client the hub's file there:
    the team's text imports it, for a client that follows its files' imports (rallly's
    web/CLAUDE.md of `@AGENTS.md`; shopify-cli's .claude/CLAUDE.md of `@../AGENTS.md`; a
    hand-written GEMINI.md of `@AGENTS.md`), or a private file or a folder's file is that file
    through a link (pyairtable's .claude/CLAUDE.md -> ../AGENTS.md: a copy of its own beside it, in
    CLAUDE.md, would reach Claude Code twice; a folder's CLAUDE.md -> AGENTS.md, as `gitmem check`
    tells a team to make one that imports it)."""
    hub = posixpath.join(folder, delivery.HUB_FILE)
    if (folder or path.endswith(delivery.private_files(target))) and os.path.realpath(
        project.root / path
    ) == os.path.realpath(project.root / hub):
        return True
    return delivery.follows_own(target.name, readers) and _imports_hub(project, path, folder)


def _imports_hub(project: Project, path: str, folder: str) -> bool:
    """Whether the hand-written text of ``path`` imports the hub's file of ``folder``."""
    here, hub = posixpath.dirname(path), posixpath.join(folder, delivery.HUB_FILE)
    names = imported(_hand_text(project, path))
    return any(posixpath.normpath(posixpath.join(here, name)) == hub for name in names)


def _pack_problems(report: Report, problems: list[Problem]) -> None:
    """The shared packs' invalid memories: problems, and a warning naming each pack that has
    some."""
    report.problems.extend(problems)
    for pack in report.packs:
        if pack.problems:
            report.warnings.append(
                f"source {pack.name!r} has invalid memories at {pack.source.rev}: pin "
                f"another revision (`gitmem sources update {pack.name}`) or remove it "
                f"(`gitmem sources remove {pack.name}`)"
            )


def _file_changes(
    project: Project,
    desired: dict[str, tuple[Target, FilePlan]],
    candidates: dict[str, tuple[Target, str | None]],
    force: bool,
    report: Report,
) -> dict[str, str]:
    """Decide every file's change (into ``report``); returns each file's text after compile (for
    the limits)."""
    finals: dict[str, str] = {}
    seen_io: dict[Path | None, str] = {}  # a change's io_path is never None
    # the files compile writes first: a file left to clean up that is one of them through a link
    # (the root AGENTS.md -> .agents/AGENTS.md, whose target is a nested AGENTS.md by its name) is
    # that file, not another
    for path in [*sorted(desired), *sorted(set(candidates) - set(desired))]:
        if path in desired:
            change = _desired_change(project, path, *desired[path], force, report)
        else:
            change = _cleanup_change(project, path, *candidates[path], force, report)
        if change is None:
            continue
        other = seen_io.setdefault(change.io_path, path)
        if other != path:  # the file compile writes under another name
            if path in desired:
                _drop_link(report, path, other)
            continue
        if change.owned:
            report.changes.append(change)
        final = change.new if change.changed else change.old
        if final is not None:
            finals[path] = final
    return finals


def _first_block(report: Report) -> set[str]:
    """The files compile writes gitmem's block (or file) into for the first time: what is said
    once is said then."""
    return {
        change.path
        for change in report.changes
        if change.changed and block.BEGIN not in (change.old or "")
    }


def _limits(
    project: Project,
    targets: Sequence[Target],
    budgets: dict[str, int],
    desired: dict[str, tuple[Target, FilePlan]],
    finals: dict[str, str],
    report: Report,
) -> tuple[set[str], set[str]]:
    """The size limits: a hard one exceeded holds its target (``_hold``), a soft one warns when the
    file changes. Also the files git ignores. Returns the files compile changes, and the targets
    held.
    """
    for target in targets:
        report.limits.extend(checks.limit_uses(target, finals, desired, budgets[target.name]))
    touched = {change.path for change in report.changes if change.changed}
    first_block = _first_block(report)
    held: set[str] = set()
    roots = {target.name: target.root_file for target in targets}
    for use in report.limits:
        if not use.over:
            continue
        if use.limit.hard and use.hand_written > use.limit.value:
            # the team's text alone is past it: no budget fixes it, and holding the target would
            # hold its memories back on every compile (and every commit, through the hook): the
            # block goes first, where the client reads it before it cuts, and `gitmem check` says
            # what to shorten
            moved = _block_first(report, roots.get(use.target, use.path))
            report.warnings.append(checks.hand_written_over(use, moved))
        elif use.limit.hard:
            report.held.append(Problem(use.path, 1, 1, "limit", checks.limit_advice(use)))
            held.add(use.target)
        elif use.path in touched:  # soft: said when the file changes, always by `gitmem stats`
            report.warnings.extend(checks.soft_limit_warning(use, first_block))
    report.ignored = checks.ignored(project, report)
    return touched, held


def _hold(report: Report, held: set[str], owners: dict[str, str]) -> None:
    """Hold the changes of the ``held`` targets, and of those with a problem in a file of theirs
    (``owners``: file -> target; the problem moves to ``report.held``) or a block edited by hand:
    one target's file does not stop the others."""
    owners = {**owners, aider.CONFIG_FILE: aider.TARGET.name}
    problems, report.problems[:] = list(report.problems), []
    for problem in problems:
        target = owners.get(problem.path)
        if target is None:  # in no target's file: it stops them all
            report.problems.append(problem)
        else:
            report.held.append(problem)
            held.add(target)
    held = _through(report, held | {change.target for change in report.refused})
    report.held_targets[:] = sorted(held)
    report.changes[:] = [
        change._replace(action="held") if change.target in held and change.changed else change
        for change in report.changes
    ]


def _through(report: Report, held: set[str]) -> set[str]:
    """``held`` and every target whose client gets memories through a held one's files
    (``TargetPlan.delivered``: Claude Code's CLAUDE.md of `@AGENTS.md`): it keeps what it read."""
    reads = {plan.target.name: set(plan.delivered) for plan in report.plans}
    more = {name for name, others in reads.items() if others & held} - held
    return _through(report, held | more) if more else held


def _block_first(report: Report, path: str) -> bool:
    """Put gitmem's block at the top of ``path`` (a file that holds hand-written text too): the
    team's text keeps every byte, after it. Returns whether the block is first now."""
    index, new = next(
        ((i, c.new) for i, c in enumerate(report.changes) if c.path == path and c.new is not None),
        (-1, ""),
    )
    found = block.found_in(new)
    if found is None or found.kind == "file-hash":  # none, or a file gitmem writes whole
        return False
    if found.before.strip():
        first = block.first(block.remove(found), found.begin + found.body + found.end)
        change = report.changes[index]
        stale = change.action == "unchanged" and first != change.old  # every byte kept
        action = "updated" if stale else change.action
        report.changes[index] = change._replace(new=first, action=action)
    return True


# The file a target writes instead of its root file when that is a link to a document for people: a
# whole file of the target's rules folder, with the frontmatter that makes the tool load it always
# (Claude Code loads a .claude/rules file without `paths` at the start of every session; Copilot, an
# instructions file for `**`).
# (each target's ``always_frontmatter``, in gitmem/tools.py).
LINKED_ROOT_NAME = f"{WHOLE_PREFIX}-project"


def _around_linked(
    project: Project, targets: list[Target]
) -> tuple[list[Target], dict[str, Target]]:
    """Targets whose root file is a link to a document that is not a rules file (``CLAUDE.md ->
    CONTRIBUTING.md``) write their root memories into a whole file of their rules folder instead, so
    the client still gets them and the document is never written; ``linked`` maps each such root
    file to its (original) target.
    """
    out, linked = [], {}
    for target in targets:
        if target.personal or linked_document(project, target.root_file) is None:
            out.append(target)
            continue
        linked[target.root_file] = target
        front = target.always_frontmatter
        if target.scoped_dir is None or target.root_whole or front is None:
            out.append(target)  # nowhere else to put them: _not_into_documents says so
            continue
        instead = f"{target.scoped_dir}/{LINKED_ROOT_NAME}{target.scoped_suffix}"
        out.append(target._replace(root_file=instead, root_whole=True, root_frontmatter=front))
    return out, linked


def _not_into_documents(
    project: Project,
    desired: dict[str, tuple[Target, FilePlan]],
    linked: dict[str, Target],
    report: Report,
) -> None:
    """Never write gitmem's block through a link into a document that is not a rules file; say where
    the memories went instead, or that the client gets none from this file."""
    for path, target in linked.items():
        instead = f"{target.scoped_dir}/{LINKED_ROOT_NAME}{target.scoped_suffix}"
        if path not in desired and instead in desired:
            report.notes.append(
                (
                    instead,
                    f"{path} is a link to {linked_document(project, path)}, not a rules "
                    "file: gitmem does not write "
                    f"into it; {target.tool} gets the memories from {instead}",
                )
            )
    for path in sorted(desired):
        document = linked_document(project, path)
        if document is None:
            continue
        target = desired.pop(path)[0]
        report.warnings.append(
            f"{path} is a link to {document}, not a rules file: gitmem does not write into it, so "
            f"{target.tool} gets no memories from {path}: make {path} a file of its own (it may "
            f"import the document: `@{document}`)"
        )


def _nowhere(desired: dict[str, tuple[Target, FilePlan]], report: Report) -> None:
    """A linked root file's target with no file of its own that git tracks (``delivery._linked``):
    what only its client should get is written nowhere (never into a file git ignores); the
    verification after writing names each memory that then misses the client, with the fix."""
    if desired.pop("", None) is not None:
        for plan in report.plans:
            plan.files.pop("", None)


class _Room(Record):
    """What the hand-written text of the targets with a hard size limit leaves their blocks."""

    reserved: dict[str, int]  # its characters, by target (``_hand_written``)
    budgets: dict[str, int]  # every target's budget, fitted to the limit (``budget.fitted``)
    over: list[LimitUse]  # the chains past the limit by hand-written text alone

    def warnings(
        self, asked: dict[str, int], desired: Collection[str], folders: Collection[str]
    ) -> list[str]:
        """A budget lowered to fit, and a chain over alone where gitmem writes no block (a written
        file's is said by ``_limits``) in a folder `gitmem check` starts the clients in (one of
        ``folders``: a memory is scoped there; a skill bundle's AGENTS.md is read with its
        skill)."""
        out = [
            checks.fitted_note(name, asked[name], self.budgets[name], chars)
            for name, chars in self.reserved.items()
            if self.budgets[name] < asked[name]
        ]
        return out + [
            checks.hand_written_over(use, None)
            for use in self.over
            if use.path not in desired and use.path.rsplit("/", 1)[0] in folders
        ]


def _listed(git: GitView, targets: Sequence[Target]) -> list[str]:
    """The nested files (``dir_file``) and private files of some targets that git lists (tracked,
    or untracked and not ignored), asked of git once; ``_named`` picks those of one name."""
    names = {t.dir_file for t in targets if t.dir_file}
    names.update(p for t in targets if not t.personal for p in delivery.private_files(t))
    return git.named(names)


def _named(listed: Sequence[str], name: str) -> list[str]:
    """The ``listed`` files called ``name``, at the root or in a folder."""
    return [path for path in listed if path == name or path.endswith("/" + name)]


def _room(
    project: Project, targets: Sequence[Target], budgets: dict[str, int], listed: Sequence[str]
) -> _Room:
    """The budgets fitted to the hard size limits: a target's own, and a target whose files are
    links to another's (``web/CLAUDE.md -> AGENTS.md``: what it writes there, Codex reads in its
    chain) the tighter."""
    room = _Room({}, dict(budgets), [])
    limited = [target for target in targets if leftout.has_hard_size_limit(target)]
    for target in limited:
        chars, over = _hand_written(project, target, listed)
        room.reserved[target.name] = chars
        room.budgets[target.name] = fitted(target, budgets[target.name], chars)
        room.over.extend(over)
    for target in targets:
        for other in limited:
            if other is not target and _written_through(project, target, other, listed):
                room.budgets[target.name] = min(room.budgets[target.name], room.budgets[other.name])
    return room


def _written_through(
    project: Project, target: Target, other: Target, listed: Sequence[str]
) -> bool:
    """Whether a file of ``target`` (its root file, or one of its nested files) is a link to
    ``other``'s."""
    pairs = [(target.root_file, other.root_file)]
    if target.dir_file and other.dir_file:
        nested = _named(listed, other.dir_file)
        pairs += [(f"{path[: -len(other.dir_file)]}{target.dir_file}", path) for path in nested]
    root = project.root
    return any(
        mine
        and (root / mine).is_symlink()
        and os.path.realpath(root / mine) == os.path.realpath(root / theirs)
        for mine, theirs in pairs
    )


def _hand_written(
    project: Project, target: Target, listed: Sequence[str]
) -> tuple[int, list[LimitUse]]:
    """The characters of ``target``'s always-loaded file outside gitmem's block (0 when it cannot be
    read: the compile pass that follows says why); for a limit on a chain of files (Codex's 32 KiB
    of ``AGENTS.md`` files, root to leaf), with the most the hand-written text of the nested files
    of one chain adds (the root's block must leave them room: a client started in that folder reads
    them after it). Also the chains whose hand-written text alone is past that limit."""
    root = _outside_block(project, target.root_file)
    most, over = _nested_hand_written(project, target, root, listed)
    return root + most, over


def _outside_block(project: Project, path: str) -> int:
    text, _ = read_file(project, path, Report([]))
    if text is None:
        return 0
    found = block.found_in(text)  # unreadable markers: all of it the team's
    return len(text) - (len(found.block) if found else 0)


def _nested_hand_written(
    project: Project, target: Target, root: int, listed: Sequence[str]
) -> tuple[int, list[LimitUse]]:
    """The most hand-written characters the nested ``dir_file`` files of one chain (the folders down
    to one of them) hold, for a target with a hard ``chain_bytes`` limit (0 otherwise), of the
    chains the team's text with the root's ``root`` keeps within it; and the chains already past it
    alone, each at its first file over (leaving them room would only take the index from every other
    folder)."""
    limits = [lim for lim in target.limits if lim.hard and MEASURES[lim.measure].chain]
    if target.dir_file is None or not limits:
        return 0, []
    name, limit = target.dir_file, min(limits, key=lambda lim: lim.value)
    nested = {path: _outside_block(project, path) for path in _named(listed, name) if "/" in path}
    most, over = 0, list[LimitUse]()
    for path in nested:  # sorted, as git lists them
        files = [f"{folder}/{name}" for folder in chain(path.rsplit("/", 1)[0])[1:]]
        hands = {target.root_file: root, **{file: nested.get(file, 0) for file in files}}
        hand = sum(hands.values()) - root
        if root + hand <= limit.value:
            most = max(most, hand)
        elif root <= limit.value and not any(
            path.startswith(use.path[: -len(name)]) for use in over
        ):
            heaviest = max(hands, key=hands.__getitem__)  # where shortening mends it
            over.append(LimitUse(target.name, path, limit, root + hand, heaviest=heaviest))
    return most, over


def _shared(
    project: Project, config: Config, request: Request
) -> tuple[list[Pack], list[Problem], list[Memory]]:
    """The shared packs, their problems, and the memories of theirs compile includes (live, unmuted,
    ``PACK/ID``); none for the user's scope (``request.only``)."""
    if not config.sources or request.only is not None:
        return [], [], []
    from gitmem.scopes import packs as shared_packs  # start-up: only a project with sources

    loaded, _ = shared_packs.load(project, config)
    return loaded, shared_packs.problems(loaded), shared_packs.live(loaded, request.today)


def apply(project: Project, report: Report) -> list[FileChange]:
    """Write a prepared report. Returns the files changed."""
    if report.problems:
        raise RuntimeError("a report with problems cannot be applied")
    done = []
    for change in report.changes:
        if not change.changed:
            continue
        target_path = change.io_path or project.root / change.path
        if change.action == "removed":
            gateway.remove(project, project.root / change.path, missing_ok=True)
            gateway.remove_empty_dirs(project, (project.root / change.path).parent, project.root)
        else:
            assert change.new is not None
            gateway.write(project, target_path, change.new, display=change.path)
        done.append(change)
    return done


# -- the files of one target -----------------------------------------------------------------------


def _candidates(
    project: Project, targets: Sequence[Target], listed: Sequence[str]
) -> dict[str, tuple[Target, str | None]]:
    """Files on disk that gitmem may have written for ``targets`` (whether they hold gitmem's text
    is checked later), each with its target and, for a nested file, the folder it is in: root
    files, whole files in the targets' folders, nested files (``dir_file``, private files).
    """
    found: dict[str, tuple[Target, str | None]] = {}
    for target in targets:
        if (project.root / target.root_file).is_file():
            found[target.root_file] = (target, None)
        for folder in _whole_folders(target):
            for name in gateway.names_in(project.root / folder):
                if name.startswith(WHOLE_PREFIX) and name.endswith(target.scoped_suffix):
                    found[f"{folder}/{name}"] = (target, None)
    for path, owner in _nested(project, targets, listed).items():
        found.setdefault(path, owner)
    return found


def _whole_folders(target: Target) -> list[str]:
    """The folders that may hold gitmem's whole files of ``target`` (its rules folder, and old
    scoped ones)."""
    folders = {target.scoped_dir} if target.scoped_dir else set()
    if target.root_whole and "/" in target.root_file:
        folders.add(target.root_file.rsplit("/", 1)[0])
    return sorted(folders)


def _nested(
    project: Project, targets: Sequence[Target], listed: Sequence[str]
) -> dict[str, tuple[Target, str]]:
    """The nested files of ``targets`` git lists (``dir_file`` in folders; private files where only
    the client looks), each with its target and its folder ("" for a private file at the root)."""
    dir_files = {target.dir_file: target for target in targets if target.dir_file}
    for target in targets:
        if not target.personal:
            dir_files.update((private, target) for private in delivery.private_files(target))
    found: dict[str, tuple[Target, str]] = {}
    # the longest name first: .claude/CLAUDE.md is the private file at the root, not a CLAUDE.md
    # in .claude/
    for name, owner in sorted(dir_files.items(), key=lambda item: -len(item[0])):
        for path in _named(listed, name):
            if "/" in path and (project.root / path).is_file():
                found.setdefault(path, (owner, path[: -len(name)].rstrip("/")))
    return found


def _compiled_for(found: Found, target: Target, folder: str | None) -> bool:
    """Whether the block of a nested file in ``folder`` is the one compile wrote there: its preamble
    names that folder (``for files under `web/```), or none for a file at the root. A block whose
    preamble names another folder, or a root block in a folder, was copied there (a test's expected
    output, a vendored project's rules file): compile never cleans it up."""
    if folder is None:  # a root file, or a whole file in the target's own rules folder
        return True
    try:
        preamble = block.split(found.body).preamble
    except BlockError:  # an edited body: the scope is read from all of it
        preamble = found.body
    if not folder:
        return scoping.SCOPE_PREFIX not in preamble
    return scoping.dir_spec(target, folder).scope_phrase in preamble


def _has_conflicts(text: str) -> bool:
    return bool(block.conflict_lines(text))


def _outside(text: str, found: Found | None) -> tuple[str, str]:
    if found is None:
        return text.rstrip("\r\n"), ""
    return found.before.rstrip("\r\n"), found.after.lstrip("\r\n")


def _heal(text: str) -> tuple[str, Found] | None:
    """Resolve git conflict markers that only concern gitmem's block: the hand-written text around
    the block must be the same on both sides. Returns the text of one side and its block, to splice
    the regenerated block into.
    """
    sides = []
    for side in ("ours", "theirs"):
        resolved = block.resolve_side(text, side)
        try:  # (no conflict line is left: resolve_side takes every one out)
            found = block.scan(resolved).found
        except BlockError:
            return None
        sides.append((resolved, found))
    if _outside(*sides[0]) != _outside(*sides[1]):
        return None
    for resolved, found in sides:
        if found is not None:
            return resolved, found
    return None


def _diff(path: str, old: str, new: str) -> str:
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
        "git conflict markers outside gitmem's block: resolve them by hand, then run "
        "`gitmem compile`",
    )


def _desired_change(
    project: Project, path: str, target: Target, plan: FilePlan, force: bool, report: Report
) -> FileChange | None:
    """The change of a file compile writes (``None`` with the problem in ``report`` when it
    cannot)."""
    blocked = _blocked_by_file(project, path)
    if blocked is not None:
        problem = Problem(blocked, 1, 1, "file", _blocked_message(blocked, target))
        if problem not in report.problems:
            report.problems.append(problem)
        return None
    old, io_path = read_file(project, path, report)
    if io_path is None:
        return None
    change = FileChange(path, target.name, "created", old, plan.text(), io_path=io_path)
    if old is None:
        return change
    if plan.spec.whole:
        return _whole_change(change, old, plan.text(), force)
    return _block_change(change, old, plan.text(), force, report)


def _whole_change(change: FileChange, old: str, text: str, force: bool) -> FileChange:
    """A file gitmem writes whole: regenerated when conflicted, refused when edited by hand."""
    new = block.with_newline(text, block.newline_of(old))
    if _has_conflicts(old) and block.BEGIN in old:  # gitmem's own file, conflicted: regenerate it
        return change._replace(action="healed", new=new)
    found = block.found_in(old)
    edited = found is None or found.kind != "file-hash" or found.edited()
    return _decided(change._replace(new=new), old, force, (old, new) if edited else None)


def _block_change(
    change: FileChange, old: str, text: str, force: bool, report: Report
) -> FileChange | None:
    """A file whose managed block gitmem writes: spliced in, healed of conflict markers in the
    block, or refused when the block was edited by hand; ``None`` when the file cannot take one."""
    path = change.path
    result = _scan_or_heal(path, old, report)
    if result is None:
        return None
    if not isinstance(result, Scan):
        new = block.splice(result[0], result[1], text)
        return change._replace(action="unchanged" if new == old else "healed", new=new)
    found = result.found
    if result.open_fence is not None:
        if not _open_fence(path, old, result.open_fence, report):
            return None
        if found is None:  # the team's text byte for byte after the block
            new = block.first(old, block.with_newline(text, block.newline_of(old)))
            return change._replace(action="updated", new=new)
    edit = None
    if found is not None and found.edited():
        edit = found.block, block.with_newline(text, block.newline_of(old))
    return _decided(change._replace(new=block.splice(old, found, text)), old, force, edit)


def _open_fence(path: str, old: str, line: int, report: Report) -> bool:
    """A file whose hand-written text leaves a code fence open at ``line`` (its client reads the
    rest as code): a warning, since gitmem's block goes first, where it is not code; ``False``,
    with the problem reported, where gitmem's markers are inside that fence (a block it swallowed).
    """
    if block.BEGIN in old.split("\n", line - 1)[-1]:
        message = "a code fence opened here is never closed, so gitmem's block is code: close it"
        report.problems.append(Problem(path, line, 1, "block", message))
        return False
    report.warnings.append(
        f"{path}:{line}: a code fence opened here is never closed, so its client reads the rest of "
        "the file as code: gitmem's block is at the top of the file, before it; close the fence"
    )
    return True


def _decided(change: FileChange, old: str, force: bool, edit: tuple[str, str] | None) -> FileChange:
    """The action of a change whose new text is known: unchanged, refused (``edit``: gitmem's part
    was edited by hand, as it is and as compile writes it; without ``force``) or updated."""
    if change.new == old:
        return change._replace(action="unchanged")
    if edit is None:
        return change._replace(action="updated")
    diff = _diff(change.path, *edit)
    return change._replace(action="updated" if force else "refused", edited=True, diff=diff)


def _blocked_by_file(project: Project, path: str) -> str | None:
    """The folder on the way to ``path`` that is a file (``.cursor/rules`` written as one file),
    or ``None``."""
    parts = path.split("/")[:-1]
    for depth in range(1, len(parts) + 1):
        folder = "/".join(parts[:depth])
        full = project.root / folder
        if full.exists() and not full.is_dir():
            return folder
    return None


def _blocked_message(folder: str, target: Target) -> str:
    return (
        f"a file where {target.tool} reads a folder ({folder}/*{target.scoped_suffix}), so gitmem "
        "cannot write there: move its text into a file in that folder (e.g. "
        f"{folder}/project{target.scoped_suffix}), or drop the {target.name} target from "
        ".memory/config.yaml"
    )


def _drop_link(report: Report, path: str, other: str) -> None:
    """A file that is a link to ``other``, which another target writes: not this target's file (nor
    its tokens) after all (said when ``other`` is written)."""
    if any(done.path == other and done.changed for done in report.changes):
        report.warnings.append(
            f"{path} and {other} are the same file (a link): gitmem writes it for {other}"
        )
    report.plans[:] = [
        replace(plan, chars=plan.chars - len(plan.files.pop(path).text()))
        if path in plan.files
        else plan
        for plan in report.plans
    ]


def _scan_or_heal(path: str, old: str, report: Report) -> Scan | tuple[str, Found] | None:
    """A file's block: its ``Scan``; or ``(text, found)`` when git conflict markers had to be healed
    first; or ``None`` (with the problem reported) when neither works."""
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


def _cleanup_change(
    project: Project,
    path: str,
    target: Target,
    folder: str | None,
    force: bool,
    report: Report,
) -> FileChange | None:
    """A file gitmem may have written that nothing is compiled into any more (a nested file: in
    ``folder``)."""
    old, io_path = read_file(project, path, report)
    if old is None or io_path is None:
        return None
    result = _scan_or_heal(path, old, report)
    if result is None:
        return None
    change = FileChange(path, target.name, "removed", old, None, io_path=io_path)
    healed = not isinstance(result, Scan)  # of git conflict markers in gitmem's block first
    found = result.found if isinstance(result, Scan) else result[1]
    if found is None or not _compiled_for(found, target, folder):
        # not gitmem's here: a hand-written file of the same name, or a copy of gitmem's output
        # made elsewhere (a test's expected file, a vendored project's); limits count it
        return change._replace(action="unchanged", owned=False)
    whole = found.kind == "file-hash"
    rest = "" if whole else block.remove(found)
    if rest.strip():
        change = change._replace(action="healed" if healed else "updated", new=rest)
    if found.edited() and not healed:
        diff = _diff(path, old if whole else found.block, "")
        change = change._replace(
            action=change.action if force else "refused", edited=True, diff=diff
        )
    return change
