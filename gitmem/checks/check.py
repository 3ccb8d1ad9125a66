"""`gitmem check`: everything CI should hold a pull request to, in one command.

1. validate: every memory file and the config (schema, strict YAML, hidden Unicode, secrets,
   cross-file checks);
2. scan: the memory folder and the session journal for secrets and hidden Unicode (logs are scanned
   as logs: decoded deeper, and an allow pragma written in them allows nothing);
3. compile: the rules files are what `gitmem compile` would write (`compile --check`);
4. doctor: no hygiene errors (expired memories still active, dangling evidence, broken supersedes
   chains);
5. guard: every change to the guard's settings (scan.exclude, scan.allow, scan.salt, sources) since
   the merge base of the default branch, named (it does not fail: a pull request may mean them, but
   never silently).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import date

from gitmem.checks.doctor import diagnose
from gitmem.checks.validation import validate_project
from gitmem.compile import verify
from gitmem.compile.compiler import Request, arrivals, compile_store
from gitmem.errors import GitmemError
from gitmem.git import guard, history
from gitmem.memory.config import load_config, scan_settings
from gitmem.memory.store import Store
from gitmem.project import Project
from gitmem.scan import inputs
from gitmem.scan.engine import HIDDEN_RULE


@dataclass
class Step:
    name: str
    ok: bool
    summary: str
    details: list[str] = field(default_factory=list)
    skipped: bool = False

    def to_dict(self) -> dict[str, object]:
        return {"name": self.name, "ok": self.ok, "skipped": self.skipped, "summary": self.summary,
                "details": self.details}  # fmt: skip


def run_checks(project: Project, today: date) -> list[Step]:
    store = Store(project)
    steps = [_validate(project, store), _scan(project)]
    steps.append(
        _compile(project, store, today)
        if steps[0].ok
        else _skipped("compile", "memory files are invalid")
    )
    steps.append(_doctor(project, store, today))
    steps.append(_guard(project))
    return steps


def _guard(project: Project) -> Step:
    """The guard's settings changed since the merge base of the default branch: named, for the
    reviewer (the check passes; a pull request may mean to change them, but never silently)."""
    try:
        branch = history.default_branch(project.root)
        head = history.resolve(project.root, "HEAD")
        base = (
            history.merge_base(project.root, history.resolve(project.root, branch), head)
            if branch
            else None
        )
    except GitmemError:
        base = None
    if base is None:
        return _skipped("guard", "no default branch to compare the config with")
    changes = guard.guard_changes(project, base, None)
    if not changes:
        return Step("guard", True, f"scan and sources settings as on {branch}")
    noun = "change" if len(changes) == 1 else "changes"
    nothing = sum(
        len(change.allows_nothing) for change in changes
    )  # an entry for a line not yet written: fails
    what = (
        f"; {nothing} added scan.allow entr{'y' if nothing == 1 else 'ies'} allow nothing"
        if nothing
        else ""
    )
    return Step("guard", not nothing,
                f"{len(changes)} {noun} to the guard's settings since {branch}{what}: review them",
                guard.lines(changes))  # fmt: skip


def _skipped(name: str, why: str) -> Step:
    return Step(name, True, f"skipped: {why}", skipped=True)


def _validate(project: Project, store: Store) -> Step:

    checked, problems = validate_project(project, store)
    if problems:
        files = len({p.path for p in problems})
        return Step(
            "validate",
            False,
            f"{len(problems)} problem(s) in {files} file(s)",
            list(map(str, problems)),
        )
    return Step("validate", True, f"{checked} file(s) valid")


def _scan(project: Project) -> Step:

    settings = inputs.load_settings(project, scan_settings)
    jobs: list[inputs.Source] = []
    for directory in (project.memories_dir, project.journal_dir):
        if directory.is_dir():
            jobs += inputs.read_paths((project.display(directory),), project, settings)
    details = []
    for source in jobs:
        for finding in inputs.findings_in(source, settings):
            what = "hidden Unicode character" if finding.rule == HIDDEN_RULE else "possible secret"
            details.append(
                f"{finding.path}:{finding.line}:{finding.column}: {finding.rule}: {what} "
                f"{finding.preview}"
            )
    if details:
        return Step("scan", False, f"{len(details)} finding(s)", details)
    return Step("scan", True, f"{len(jobs)} file(s), nothing found")


def _compile(project: Project, store: Store, today: date) -> Step:

    compiled = compile_store(project, store, load_config(project), Request(today, mode="partial"))
    report = compiled.report
    problems = [*report.problems, *report.held]  # (a held target's own say why, and the fix)
    if problems:
        return Step("compile", False, f"{len(problems)} problem(s)", list(map(str, problems)))
    if report.stale:
        details = [f"{change.path}: {change.reason}" for change in report.stale]
        return Step(
            "compile",
            False,
            f"{len(report.stale)} rules file(s) out of date: run `gitmem compile`",
            details,
        )
    found = arrivals(
        project, compiled, today
    )  # what each client reads on the disk (``compile.verify``)
    misses = [miss for miss in found if miss.fails]
    notes = verify.notes(found)
    if misses:
        details = [miss.line() for miss in misses] + notes
        return Step(
            "compile", False, f"{len(misses)} difference(s) in what the clients read", details
        )
    files = sum(len(plan.files) for plan in report.plans)
    said = (
        f"; {len(notes)} note(s) on what the clients read (below)"
        if notes
        else ", each client reads each memory once"
    )
    return Step("compile", True, f"{files} rules file(s) up to date{said}", notes)


def _doctor(project: Project, store: Store, today: date) -> Step:

    report = diagnose(project, store, load_config(project), today)
    warnings = f" ({len(report.warnings)} warning(s): `gitmem doctor`)" if report.warnings else ""
    if report.errors:
        details = [f"{f.path}:{f.line}: {f.code}: {f.message}" for f in report.errors]
        return Step("doctor", False, f"{len(report.errors)} error(s){warnings}", details)
    return Step("doctor", True, f"no errors{warnings}")
