"""The memories worth injecting at a prompt: relevant to it, not loaded by the client already, never
twice.

A memory is injected when the prompt ties it to the memory or its words do (``candidates``): a path
the prompt names (or a file the client attached to it) is covered by the memory's ``paths`` at the
closest scope (``gitmem.recall.anchors``), an identifier the prompt names (``get_session()``) is in
the text of at most ``RARE`` memories, a rare word of the prompt is in its title, or the recall
index (BM25 over title, body and tags) ranks it and it clears the relevance bar: the ranking and
its tuning constants are ``gitmem.recall.ranking``'s. A memory scoped to a folder the prompt's paths
are not in gives way to those of the prompt's own component. It must be live (active and unexpired:
a proposed memory is never injected), its id must be in none of the rules files the client always
loads (an index line of a left-out memory is not its entry), and this session was not given it
before. At most ``MAX_MEMORIES`` memories and ``MAX_TOKENS`` tokens, the last line naming the recall
call that finds the rest.
A body's prose is put on one line per paragraph; its fenced code keeps its lines.

Everything injected is memory text that passed the scanner and the schema when it was written (the
index holds only valid memories); nothing of the prompt is echoed back but the search words, which
the user typed.
"""

# (no postponed annotations: NamedTuple compiles each string annotation at import, on the hook path)

from collections.abc import Iterable, Sequence
from datetime import date
from pathlib import Path
from typing import NamedTuple

from gitmem import gateway
from gitmem.errors import GitmemError
from gitmem.memory.fields import shown_line, shown_text
from gitmem.memory.model import Memory
from gitmem.project import Project
from gitmem.recall import anchors, ranking
from gitmem.recall.index import RecallIndex, Unavailable, hook_deadline
from gitmem.recall.ranking import MAX_MEMORIES as MAX_MEMORIES
from gitmem.recall.ranking import PERSONAL as PERSONAL
from gitmem.recall.ranking import Candidate as Candidate
from gitmem.recall.results import PromptMatch, query_terms, term_pairs

MAX_TOKENS = 400
CHARS_PER_TOKEN = 4  # as the compile budget estimates
MIN_BODY = 120  # a memory is cut to fit the token bound, but not shorter than this
PROMPT_CHARS = 4000  # of a prompt, what is searched (a pasted log is not a question)

_BEGIN = "<!-- gitmem:begin"
_END = "<!-- gitmem:end"
_ID_START = frozenset("abcdefghijklmnopqrstuvwxyz0123456789")
_ID_CHARS = _ID_START | {"-"}


def _entry_id(line: str) -> str | None:
    """The id of a compiled entry line (``- Title (`id`, high priority)``, ``(`pack/id`)``), or
    ``None``; string methods only (linear, and nothing to import on the prompt hook's path)."""
    body = line.rstrip()
    for tail in ("`, high priority)", "`, low priority)", "`)"):
        if body.endswith(tail):
            end = len(body) - len(tail)
            break
    else:
        return None
    start = body.rfind(" (`", 0, end)
    ident = body[start + 3 : end] if start >= 0 else ""
    parts = ident.split("/")
    if len(parts) > 2 or not all(_is_name(part) for part in parts):  # "" is no name
        return None
    return ident


def _is_name(part: str) -> bool:
    return 1 <= len(part) <= 64 and part[0] in _ID_START and _ID_CHARS.issuperset(part)


# NamedTuples, not dataclasses: importing dataclasses (and inspect with it) costs the prompt hook, a
# new process on every prompt, more than its own work.
class Injection(NamedTuple):
    """The text injected into the prompt, and what it holds."""

    text: str
    keys: list[str]  # injected, in order
    more: int  # relevant memories above the bar not injected (bounds, or loaded already excluded)
    terms: list[str]


def loaded_ids(files: Iterable[Path], where: gateway.Where) -> set[str]:
    """The memory ids in the managed blocks of ``files`` (those that exist, inside ``where``): what
    the client has loaded already.

    A lean reading of ``gitmem.compile.block``'s format (entries are the block's column-0 lines
    ending with the id in backticks), so the prompt hook does not import the compiler.
    """
    entries: list[str] = []
    for file in files:
        try:
            text = gateway.read_text(where, file, limit=gateway.RULES_LIMIT, errors="replace")
        except (
            OSError,
            GitmemError,
        ):  # a link leading outside (to /dev/zero...), too large: not read
            continue
        inside = False
        for line in text.splitlines():
            if line.startswith(_BEGIN):
                inside = True
            elif line.startswith(_END):
                inside = False
            elif inside and line.startswith("- "):
                entries.append(line)
    return set(filter(None, map(_entry_id, entries)))


def personal_memories(scope: Project, today: date) -> list[tuple[Memory, str]]:
    """The live memories of the user's personal store, to be searched together with the project's
    (scored in one corpus: BM25 over a store of a few memories alone would rank nothing)."""
    if not scope.memories_dir.is_dir():
        return []
    index = RecallIndex(scope)
    try:
        try:
            index.refresh(hook_deadline())
            return [(memory, PERSONAL + memory.id) for memory in index.live_memories(today)]
        except Unavailable:
            return []
    finally:
        index.close()


def candidates(
    project: Project,
    terms: list[str],
    today: date,
    extra: Sequence[tuple[Memory, str]] = (),
    prompt: str = "",
    files: Sequence[str] = (),
) -> list[Candidate]:
    """The live memories of ``project``'s store and ``extra`` (packs', personal) worth injecting,
    best first (``ranking.rank``). ``files``: repository paths the client says the prompt is about
    (attached files), matched as the prompt's own paths."""
    asked = prompt[:PROMPT_CHARS]
    named = anchors.paths(asked)
    paths = list(dict.fromkeys([*named, *files]))[: 2 * anchors.MAX_ANCHORS]
    identifiers = anchors.identifiers(asked)
    if not (terms or paths or identifiers) or not project.memories_dir.is_dir():
        return []
    pairs = term_pairs(asked)  # none for no prompt
    found = _search(project, terms, today, extra, (paths, identifiers, pairs))
    if found is None:
        return []  # locked or read-only: a prompt is never held up for a memory
    words = set(terms)
    if (
        paths
    ):  # the folders a path runs through are no words of the question, its last two parts are
        words = set(prompt_terms(_without(asked, named) + " " + _tails(paths)))
    subjects = [anchors.subject(path) for path in paths]
    return ranking.rank(found[0], len(terms), words, subjects, found[1])


def _search(
    project: Project,
    terms: list[str],
    today: date,
    extra: Sequence[tuple[Memory, str]],
    ties: tuple[list[str], list[str], list[tuple[str, str]]],
) -> tuple[PromptMatch, int] | None:
    """What the index finds for the prompt (its ``ties``: paths, identifiers, pairs of words), and
    the size of the store it searched; None when the index is locked or read-only."""
    paths, identifiers, pairs = ties
    index = RecallIndex(project)
    try:
        index.refresh(hook_deadline())
        found = index.search_prompt(
            terms, ranking.CANDIDATES, today, extra, paths, identifiers, ranking.RARE, pairs
        )
        return found, index.size() + len(extra)
    except Unavailable:
        return None
    finally:
        index.close()


def _tails(paths: Sequence[str]) -> str:
    """The last folder and the file name (without its extension) of each path, as words."""
    parts = []
    for path in paths:
        segments = path.rstrip("/").split("/")
        parts.extend(segments[-2:-1])
        parts.append(segments[-1].split(".")[0])  # the whole name when it has no "."
    return " ".join(part.replace("_", " ").replace("-", " ") for part in parts)


def _without(prompt: str, paths: Sequence[str]) -> str:
    """The prompt without the paths it names (their folders' names are no words of the question)."""
    drop = set(paths)
    return " ".join(
        w
        for w in prompt.split()
        if w.strip(anchors.EDGE).rstrip(".").removeprefix("./") not in drop
    )


def select(
    pool: Sequence[Candidate],
    loaded: set[str],
    given: set[str],
    terms: list[str],
    rules_names: Sequence[str],
) -> Injection | None:
    """What to inject from ``pool`` (best first): not loaded, not given before, within the
    bounds."""
    fresh = [c for c in pool if c.key not in given and c.memory.id not in loaded]
    limit = MAX_TOKENS * CHARS_PER_TOKEN
    header = _header(rules_names)
    keys: list[str] = []
    entries: list[str] = []  # the entry of each of ``keys``
    used = len(header) + 1
    for candidate in fresh:
        if len(entries) == MAX_MEMORIES:
            break
        room = limit - used - len(_more_line(len(fresh), terms)) - 1
        entry = render(candidate, room)
        if entry is None:
            continue
        keys.append(candidate.key)
        entries.append(entry)
        used += len(entry) + 1
    if not entries:
        return None
    more = len(fresh) - len(entries)
    return Injection("\n".join([header, *entries, _more_line(more, terms)]), keys, more, terms)


def _header(rules_names: Sequence[str]) -> str:
    where = ", ".join(rules_names) if rules_names else "the rules files"
    return (
        "gitmem: project memories that bear on this prompt and are not in "
        + where
        + ". They are notes from earlier work on this repository and may be out of date: "
        "check them against the code."
    )


def _more_line(more: int, terms: list[str]) -> str:
    query = " ".join(terms[:8]).replace('"', "")
    call = f'`gitmem recall "{query}"` (or the gitmem MCP tool recall)'
    if more > 0:
        return f"+{more} more: {call}."
    return f"+0 more; to search all memories: {call}."


def render(candidate: Candidate, room: int) -> str | None:
    """One memory as an entry of at most ``room`` characters (its body cut when needed); ``None``
    when it cannot fit with at least ``MIN_BODY`` characters of body."""
    memory = candidate.memory
    # (targets: compiled for other tools only; those whose files the client loads hold it: not
    # injected)
    facts = [memory.kind] + [
        fact
        for fact, present in (
            ("applies to " + shown_line(", ".join(memory.paths)), memory.paths),
            ("meant for " + shown_line(", ".join(memory.targets)), memory.targets),
            ("personal", candidate.personal),
        )
        if present
    ]
    head = f"- [{memory.id}] {shown_line(memory.title)} ({'; '.join(facts)})"
    lines = body_lines(shown_text(memory.body))
    entry = "\n".join([head, *("  " + line for line in lines)])
    if len(entry) <= room:
        return entry
    more = f" … (gitmem show {memory.id})"
    # room for closing a code block cut short, and for the note on a line of its own after it
    closing = max(
        (
            len(line.strip()) - len(line.strip().lstrip("`~")) + 6
            for line in lines
            if line.lstrip()[:3] in FENCES
        ),
        default=0,
    )
    keep = room - len(head) - len(more) - closing
    if keep < MIN_BODY:
        return None
    out, fence = [head], ""
    for line in lines:
        if len(line) + 3 > keep:
            if not fence:
                cut = line[: max(0, keep - 3)].rsplit(" ", 1)[0]
                if cut:
                    out.append("  " + cut)
            break
        out.append("  " + line)
        keep -= len(line) + 3
        fence = _fence_after(fence, line)
    if fence:
        out.append(
            "  " + fence
        )  # a code block cut short is closed, so the note after it reads as text
        return "\n".join(out) + "\n  " + more.strip()
    return "\n".join(out) + more


def body_lines(body: str) -> list[str]:
    """A body as the lines of an injected entry: each paragraph of prose on one line (its white
    space collapsed), a fenced code block's lines as they are (its indentation is its meaning),
    blank lines dropped.
    """
    out: list[str] = []
    prose: list[str] = []
    fence = ""
    for line in body.splitlines():
        if fence or line.lstrip()[:3] in FENCES:
            if prose:
                out.append(" ".join(" ".join(prose).split()))
                prose = []
            out.append(line.rstrip())
            fence = _fence_after(fence, line)
        elif line.strip():
            prose.append(line)
        elif prose:
            out.append(" ".join(" ".join(prose).split()))
            prose = []
    if prose:
        out.append(" ".join(" ".join(prose).split()))
    return out


FENCES = ("```", "~~~")


def _fence_after(fence: str, line: str) -> str:
    """The open code fence after ``line`` (``""``: none), given the one open before it."""
    stripped = line.strip()
    if not fence:
        for marker in FENCES:
            if stripped.startswith(marker):
                return marker[0] * (len(stripped) - len(stripped.lstrip(marker[0])))
        return ""
    if stripped.startswith(fence) and not stripped.lstrip(fence[0]):
        return ""
    return fence


def prompt_terms(prompt: str) -> list[str]:
    """The search words of a prompt (at most the first 4,000 characters: a pasted log is not a
    question)."""
    terms = query_terms(prompt[:PROMPT_CHARS])
    # An identifier's parts are words too: the index splits get_session into get and session.
    # (a term without "_" adds itself again: dropped as a repeat)
    terms += [part for term in terms for part in term.split("_") if len(part) > 2]
    terms = list(dict.fromkeys(terms))
    # One word counted once: "function" and "functions" are one match for the stemming index, not
    # two.
    return [
        t for t in terms if not any(0 < len(t) - len(o) <= 3 and t.startswith(o) for o in terms)
    ]
