"""The checks compile makes on what it is about to write: globs a target's frontmatter cannot carry,
the tools' size limits, hidden Unicode in compiled output or around it, and memories whose
``targets`` reach no configured target (what each client then reads is ``compile.verify``'s)."""

from __future__ import annotations

from collections.abc import Collection, Sequence

from gitmem.compile.budget import room_tokens
from gitmem.compile.changes import LimitUse, Report
from gitmem.compile.plan import FilePlan, TargetPlan
from gitmem.compile.reading import GitView
from gitmem.compile.scoping import expand_braces
from gitmem.errors import Problem
from gitmem.memory.fields import stray_line_breaks
from gitmem.memory.model import Memory
from gitmem.project import Project, UserScope
from gitmem.scan import find_hidden
from gitmem.tools import MEASURES, Measure, Target


def glob_problems(target_plan: TargetPlan) -> list[Problem]:
    """Globs a comma-separated frontmatter field cannot carry (a comma outside braces)."""
    templates = " ".join(target_plan.target.scoped_frontmatter)
    if "{csv" not in templates:
        return []
    problems = []
    for file_plan in target_plan.files.values():
        for glob in file_plan.spec.globs:
            if "," in "".join(expand_braces(glob)):
                problems.append(
                    Problem(
                        file_plan.spec.path,
                        1,
                        1,
                        "paths",
                        f"the glob {glob!r} holds a comma, which "
                        f"{target_plan.target.tool}'s comma-separated globs cannot carry: "
                        "rewrite it (braces such as *.{ts,tsx} are fine)",
                    )
                )
    return problems


def limit_uses(
    target: Target,
    finals: dict[str, str],
    desired: dict[str, tuple[Target, FilePlan]],
    budget: int = 0,
) -> list[LimitUse]:
    """The limits of ``target`` as used by the files gitmem writes for it (hand-written text they
    hold included, and for a chain, the hand-written files above them too: the tool reads it all).

    A chain is reported once, where it goes over: a nested file whose chain is over only because a
    file above it already is, is not reported again (one figure for one cause)."""
    uses = []
    mine = sorted(path for path in finals if path in desired and desired[path][0] is target)

    def own(path: str, measure: Measure) -> int:
        ours = path in desired and desired[path][0] is target
        return _own(desired[path][1].text() if ours else "", measure)

    def hand(path: str) -> int:
        return len(finals[path].encode("utf-8")) - own(path, "chain_bytes")

    for limit in target.limits:
        over_chains: set[str] = set()
        for path in mine:
            if not MEASURES[limit.measure].chain:
                used, mine_part = _used(finals[path], limit.measure), own(path, limit.measure)
                heaviest = path
            else:
                chain = _chain(target, path, finals)
                if not chain or not over_chains.isdisjoint(chain[:-1]):
                    continue  # not a file of a chain; or already said for the file above, the cause
                used = sum(len(finals[ancestor].encode("utf-8")) for ancestor in chain)
                mine_part = sum(own(ancestor, "chain_bytes") for ancestor in chain)
                heaviest = max(chain, key=hand)
                if used > limit.value:
                    over_chains.add(path)
            uses.append(LimitUse(target.name, path, limit, used, mine_part, budget, heaviest))
    return uses


def _used(text: str, measure: Measure) -> int:
    """A file's size as ``measure`` (``chars`` or ``lines``) counts it."""
    return MEASURES[measure].count(text)


def _own(text: str, measure: Measure) -> int:
    """gitmem's own part of a file (``text``, its plan) as ``measure`` counts it."""
    return text.count("\n") if MEASURES[measure].lines else MEASURES[measure].count(text)


def _chain(target: Target, path: str, finals: dict[str, str]) -> list[str]:
    """The files of the chain ``path`` ends (``target.dir_file`` files from the root down to it)
    that compile leaves; none when ``path`` is no such file."""
    name = target.dir_file
    if name is None or not (path == target.root_file or path.endswith("/" + name)):
        return []
    parts = path.split("/")[:-1]
    ancestors = ("/".join([*parts[:depth], name]) for depth in range(len(parts) + 1))
    return [ancestor for ancestor in ancestors if ancestor in finals]


def soft_limit_warning(use: LimitUse, first_block: Collection[str]) -> list[str]:
    """The warning for a file over a soft limit that compile changes. When the hand-written text
    alone is over it, no budget fixes it and compile did not cause it: said once, when gitmem first
    writes its block into the file (`gitmem stats` shows it always), with what does fix it, instead
    of on every compile.
    """
    if use.hand_written <= use.limit.value:
        return [f"{use.describe()}: consider a smaller budget for {use.target}"]
    if use.path not in first_block:
        return []
    return [
        f"{use.describe()}: the hand-written text alone is {use.hand_written:,}, so no budget "
        "fixes it: shorten it, or move its rules into .memory/ (`gitmem import --accept --move`); "
        "said once, `gitmem stats` shows it"
    ]


def hand_written_over(use: LimitUse, first: bool | None) -> str:
    """The warning for a file whose hand-written text alone is past a hard limit: compile still
    writes (the block first in the file, where the client reads it before it cuts: ``first``; None:
    gitmem writes no block into it), and says what fixes it."""
    where = {
        True: "gitmem's block is written at the top of the file, so the memories are read before "
        "the cut",
        False: "gitmem's block is written as usual",
        None: "gitmem writes no block into it",
    }[first]
    return (
        f"{use.path}: the hand-written text alone is {use.hand_written:,} "
        f"{MEASURES[use.limit.measure].unit}, over the hard limit of {use.limit.value:,} "
        f"({use.limit.reason}): {where}; the end of the team's text is cut, as it was before "
        f"gitmem: {use.shorten}; `gitmem check` fails until then"
    )


def fitted_note(target: str, budget: int, tokens: int, hand_written: int) -> str:
    """What compile says when a hard size limit leaves a target's block less than its budget."""
    return (
        f"{target}: its block is kept to {tokens:,} tokens (budget {budget:,}): the hand-written "
        f"text its client reads with it takes {hand_written:,} characters of a hard size limit "
        "(`gitmem stats`); the memories past it go to the index or to `gitmem recall`"
    )


def limit_advice(use: LimitUse) -> str:
    head = (
        f"{use.used:,} {MEASURES[use.limit.measure].unit}, over the hard limit of "
        f"{use.limit.value:,} ({use.limit.reason})"
    )
    if use.hand_written > use.limit.value:
        return (
            f"{head}; the hand-written text alone is {use.hand_written:,} (gitmem adds "
            f"{use.own:,}), so no budget fixes it: {use.shorten}"
        )
    room = use.limit.value - use.hand_written  # what gitmem's part may take
    fits = room_tokens(room) if MEASURES[use.limit.measure].room else None
    lower = (
        f"lower the budget of {use.target} to about {fits:,} tokens (budget: {{default: …, "
        f"{use.target}: {fits}}} in .memory/config.yaml)"
        if fits is not None and fits < use.budget
        else f"lower the budget of {use.target} in .memory/config.yaml"
    )
    return (
        f"{head}; gitmem writes {use.own:,} of it: {lower}, lower some memories' priority, or "
        "shorten the hand-written text"
    )


def hidden_unicode(
    desired: dict[str, tuple[Target, FilePlan]], finals: dict[str, str], report: Report
) -> None:
    for path, (_, file_plan) in desired.items():
        for char in find_hidden(file_plan.text(), file=True):
            message = f"{char.describe()} in compiled output"
            report.problems.append(Problem(path, char.line, char.column, "hidden", message))
        for line, column, codepoint in stray_line_breaks(file_plan.text()):
            message = (
                f"a line break gitmem did not mean to write (U+{codepoint:04X}) in compiled output"
            )
            report.problems.append(Problem(path, line, column, "hidden", message))
        final = finals.get(path)
        if final is not None and not file_plan.spec.whole:
            for char in find_hidden(final, file=True)[:1]:
                report.warnings.append(
                    f"{path}:{char.line}:{char.column}: {char.describe()} in the hand-written text "
                    "(hidden instructions are a known attack on rules files): check it"
                )


def ignored(project: Project, report: Report) -> list[str]:
    """The files compile writes (or keeps) that git ignores and does not track: the tool reads them
    here, but nobody else gets them (aider's first run adds ``.aider*`` to .gitignore, which hides
    ``.aider.conf.yml``).
    """

    if isinstance(project, UserScope) or not (project.root / ".git").exists():
        return []
    kept = [change.path for change in report.changes if change.owned and change.action != "removed"]
    git = report.git or GitView(project.root)
    paths = git.ignored(kept)
    for path in paths:
        report.warnings.append(
            f"{path} is ignored by git, so it is never committed: {git.ignored_fix(path)}"
        )
    return paths


def unreached(memories: Sequence[Memory], reached: Collection[str], report: Report) -> None:
    """Warn about live memories whose ``targets`` name none of the ``reached`` (configured) targets:
    they go into no rules file (only recall finds them). A warning, not a problem: the config, not
    the memory, may be what changes.
    """
    lost = [
        memory
        for memory in memories
        if memory.targets and not any(memory.is_for(name) for name in reached)
    ]
    if not lost:
        return
    names = sorted({name for memory in lost for name in memory.targets})
    ids = ", ".join(memory.id for memory in lost[:5]) + (
        f" and {len(lost) - 5} more" if len(lost) > 5 else ""
    )
    noun, it, its = (
        ("memory is", "it", "its") if len(lost) == 1 else ("memories are", "them", "their")
    )
    report.warnings.append(
        f"{len(lost)} {noun} only for targets that are not configured ({', '.join(names)}), so no "
        f"rules file gets {it}: {ids}. Add a target (`gitmem init --target NAME`) or change {its} "
        "`targets`"
    )


def rules_twice(
    memories: Sequence[Memory],
    desired: dict[str, tuple[Target, FilePlan]],
    finals: dict[str, str],
    first_block: Collection[str],
    report: Report,
) -> None:
    """When gitmem first writes its block into a file whose hand-written lines were imported
    (``import --accept`` without ``--move``), each of those rules stands in the file twice: say so,
    once, with the way out.
    """
    by_id = {memory.id: memory for memory in memories}  # every memory placed is one of them
    found: list[tuple[str, int]] = []
    for path in sorted(desired.keys() & first_block):  # each written, so in finals
        lines = finals[path].split("\n")
        entries = desired[path][1].entries
        twice = sum(_written_from(by_id[entry.id], path, lines) for entry in entries)
        if twice:
            found.append((path, twice))
    if not found:
        return
    total = sum(count for _, count in found)
    noun = "rule stands" if total == 1 else "rules stand"
    where = ", ".join(f"{path} {count}" for path, count in found)
    report.warnings.append(
        f"{total} {noun} twice, written by hand and in gitmem's block, in the files they were "
        f"imported from ({where}): take the hand-written lines out with `gitmem import --accept "
        "--move` (only what compile writes back moves)"
    )


def _written_from(memory: Memory, path: str, lines: list[str]) -> bool:
    """Whether ``memory`` was imported from a line of ``path`` (``lines``) that still says it."""
    if memory.source != "import":
        return False
    origin = memory.origin or ""
    if not origin.startswith(path + ":"):
        return False
    number = origin.rsplit(":", 1)[1]
    return (
        number.isdigit()
        and 0 < int(number) <= len(lines)
        and _says(lines[int(number) - 1], memory.title)
    )


def _says(line: str, title: str) -> bool:
    """Whether a hand-written line is the one a memory was imported from (its first words, bold
    and bullets aside)."""

    def norm(text: str) -> list[str]:
        return "".join(
            char if char.isalnum() or char in "_`" else " " for char in text.lower()
        ).split()

    words = norm(title)[:4]
    have = norm(line)
    return bool(words) and any(have[i : i + len(words)] == words for i in range(len(have)))
