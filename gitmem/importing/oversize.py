"""Hand-written rules files already past a client's hard size limit, found before anything is
compiled.

``gitmem init`` and ``gitmem import`` say so, one line a file: compile can write nothing into such a
file (the client would cut what it adds), so the team should hear it the first time it meets gitmem,
not from the first failing compile. A file's own limit (``chars`` of one file: Devin Desktop's
12,000) counts the file without gitmem's managed block; Codex's ``chain_bytes`` counts an
``AGENTS.md`` with the ``AGENTS.md`` files above it, reported once, at the file where the chain
first goes over. The limits are the tools' records (``gitmem/tools.py``).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass

from gitmem import gateway
from gitmem.compile import block
from gitmem.compile.budget import fitted
from gitmem.errors import GitmemError
from gitmem.importing import rulesfiles
from gitmem.importing.importer import choose_files
from gitmem.project import Project
from gitmem.tools import MEASURES, TARGETS, Limit, Target

# What to do about a file over a limit, by (moved, moved with --left-out): --move, once it moved
# what compile writes back, or once it moved what the budget leaves out too.
_ADVICE = {
    (False, False): (
        "`gitmem import --accept --move --left-out` moves its list rules into .memory/ (headings, "
        "prose and code stay), then `gitmem compile`"
    ),
    (True, False): (
        "still over; `gitmem import --accept --move --left-out` also moves the rules the budget "
        "leaves out (recall and the prompt hook still bring them)"
    ),
    (True, True): (
        "still over after moving its rules: shorten its prose or code, or split it into folders"
    ),
}


@dataclass(frozen=True)
class Oversize:
    """One hand-written file (or chain of ``AGENTS.md`` files ending at it) past a hard limit."""

    path: str
    used: int  # in the limit's measure, gitmem's block left out
    lines: int
    limit: Limit
    target: str

    def describe(self, moved: bool = False, left_out: bool = False) -> str:
        """One line: the file, its size, whose limit, and what to do (``moved``: after ``--move``
        took lines out of it, ``left_out`` with ``--left-out``)."""
        measure = MEASURES[self.limit.measure]
        head = (
            f"{self.path}: {self.used:,} {measure.unit if '/' in self.path else measure.noun} "
            f"({self.lines:,} lines) of hand-written text, over the hard limit of "
            f"{self.limit.value:,} ({self.limit.reason})"
        )
        return f"{head}: {_ADVICE[moved, moved and left_out]}"


@dataclass(frozen=True)
class Near:
    """A hand-written file (or chain) under a hard limit that leaves gitmem's block less than its
    budget."""

    path: str
    used: int
    limit: Limit
    target: str
    tokens: int  # what compile keeps the target's block to
    budget: int

    def describe(self) -> str:
        return (
            f"{self.path}: {self.used:,} {MEASURES[self.limit.measure].unit} of hand-written "
            f"text leave gitmem {self.limit.value - self.used:,} of the hard limit of "
            f"{self.limit.value:,} ({self.limit.reason}): compile keeps the {self.target} block "
            f"to about {self.tokens:,} tokens (budget {self.budget:,}), the rest in the index and "
            "`gitmem recall`; `gitmem import --accept --move` makes room"
        )


# Every target's hard limits, each with its target: what a file past or near one is checked against.
_HARD = tuple((target, limit) for target in TARGETS for limit in target.limits if limit.hard)


def _hand_written(project: Project, path: str) -> str | None:
    """The file's text without gitmem's managed block, or ``None`` when it cannot be read as
    text."""
    try:
        text = gateway.read_bytes(project, project.root / path, limit=gateway.RULES_LIMIT).decode(
            "utf-8"
        )
    except (OSError, GitmemError, UnicodeDecodeError):
        return None
    try:
        found = block.scan(text).found
    except block.BlockError:
        return text
    if found is None:
        return text
    if found.kind == "file-hash":
        return None  # generated whole by gitmem: not hand-written
    return found.before + found.after


def _chain(path: str, dir_file: str) -> list[str]:
    """The ``dir_file`` paths from the root down to ``path``'s folder, ``path`` last."""
    parts = path.split("/")[:-1]
    return ["/".join([*parts[:depth], dir_file]) for depth in range(len(parts) + 1)]


def _of(target: Target, path: str) -> bool:
    fmt = rulesfiles.format_of(path)
    return fmt is not None and fmt.tool == target.name


def _texts(project: Project, paths: Iterable[str]) -> dict[str, str]:
    return {
        path: text
        for path in sorted(set(paths))
        if (text := _hand_written(project, path)) is not None
    }


def _sizes(texts: dict[str, str], target: Target, limit: Limit) -> dict[str, int]:
    """Each of ``target``'s files among ``texts`` measured for ``limit`` (a chain's with the files
    above it)."""
    if not MEASURES[limit.measure].chain:
        return {p: MEASURES[limit.measure].count(t) for p, t in texts.items() if _of(target, p)}
    name = target.dir_file
    return {
        path: sum(MEASURES["chain_bytes"].count(texts[p]) for p in _chain(path, name) if p in texts)
        for path in texts
        if name is not None and path.rsplit("/", 1)[-1] == name
    }


def near_limits(
    project: Project, paths: Iterable[str], budget_for: Callable[[str], int]
) -> list[Near]:
    """Per target, the file (or chain) among ``paths`` whose hand-written text is under a hard size
    limit but leaves gitmem's block less than its budget (``budget_for(target)`` tokens;
    ``budget.fitted``: compile keeps the block to what fits)."""
    texts = _texts(project, paths)
    found = []
    for target, limit in _HARD:
        if not MEASURES[limit.measure].room:
            continue
        sizes = _sizes(texts, target, limit).items()
        used, path = max(((u, p) for p, u in sizes if u < limit.value), default=(0, ""))
        budget = budget_for(target.name)
        tokens = fitted(target, budget, used)
        if path and tokens < budget:
            found.append(Near(path, used, limit, target.name, tokens, budget))
    return found


def oversized(project: Project, paths: Iterable[str]) -> list[Oversize]:
    """The files among ``paths`` (repository paths of hand-written rules files) past a tool's hard
    limit; a chain over because a file above it is, is said once, there."""
    texts = _texts(project, paths)
    found: list[Oversize] = []
    for target, limit in _HARD:
        over = {p: used for p, used in _sizes(texts, target, limit).items() if used > limit.value}
        chain = target.dir_file if MEASURES[limit.measure].chain else None
        found += [
            Oversize(path, used, texts[path].count("\n"), limit, target.name)
            for path, used in over.items()
            if chain is None or over.keys().isdisjoint(_chain(path, chain)[:-1])
        ]
    return sorted(found, key=lambda item: item.path)


def rules_files(project: Project) -> list[str]:
    """Every rules file of the repository (tracked, or untracked and not ignored), as ``gitmem
    import`` finds them."""
    return [path for path, _ in choose_files(project, ())]
