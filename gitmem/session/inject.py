"""The memories worth injecting at a prompt: relevant to it, not loaded by the client already, never twice.

A memory is injected when the recall index (BM25 over title, body and tags) ranks it for the prompt, it clears the
relevance bar (``MIN_SCORE`` and ``MIN_TERMS`` of the prompt's words, see ``clears``), it is live (active and
unexpired: a proposed memory is never injected), its id is in none of the rules files the client always loads, and
this session was not given it before. At most ``MAX_MEMORIES`` memories and ``MAX_TOKENS`` tokens, the last line
naming the recall call that finds the rest.

Everything injected is memory text that passed the scanner and the schema when it was written (the index holds only
valid memories); nothing of the prompt is echoed back but the search words, which the user typed.
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterable, Sequence
from datetime import date
from pathlib import Path
from typing import NamedTuple

from gitmem.memory.model import Memory
from gitmem.project import Project
from gitmem.recall.index import RecallIndex, Unavailable
from gitmem.recall.results import query_terms

MAX_MEMORIES = 3
MAX_TOKENS = 400
CHARS_PER_TOKEN = 4  # as the compile budget estimates
# The relevance bar, calibrated on benchmarks/hook_pairs.py (prompts that should and should not inject): a memory
# must score at least MIN_SCORE (BM25, title words weighing most) and match at least MIN_TERMS of the prompt's
# search words (one is enough when the prompt has only one). BM25 grows with the store (a rare word's weight is
# about log(N)), so the score bar is set for CALIBRATED_SIZE memories and scaled by log(N) for N others.
MIN_SCORE = 7.0
MIN_TERMS = 2
CALIBRATED_SIZE = 46
CANDIDATES = 12  # ranked memories looked at per index
MIN_BODY = 120  # a memory is cut to fit the token bound, but not shorter than this

_BEGIN = "<!-- gitmem:begin"
_END = "<!-- gitmem:end"
_ENTRY_ID = re.compile(r" \(`((?:[a-z0-9][a-z0-9-]{0,63}/)?[a-z0-9][a-z0-9-]{0,63})`(?:, (?:high|low) priority)?\)\s*$")


# NamedTuples and plain classes, not dataclasses: importing dataclasses (and inspect with it) costs the prompt hook,
# a new process on every prompt, more than its own work.
class Candidate(NamedTuple):
    """A memory the prompt may bring in, with its score."""

    key: str  # what the session state records: the id, ~/ID for a personal memory, PACK/ID for a pack's
    memory: Memory
    score: float
    matched: int  # how many of the prompt's search words the memory matches
    personal: bool = False


class Injection(NamedTuple):
    """The text injected into the prompt, and what it holds."""

    text: str
    keys: list[str]  # injected, in order
    more: int  # relevant memories above the bar not injected (bounds, or loaded already excluded)
    terms: list[str]


def loaded_ids(files: Iterable[Path]) -> set[str]:
    """The memory ids in the managed blocks of ``files`` (those that exist): what the client has loaded already.

    A lean reading of ``gitmem.compile.block``'s format (entries are the block's column-0 lines ending with the id
    in backticks), so the prompt hook does not import the compiler.
    """
    ids: set[str] = set()
    for file in files:
        try:
            text = file.read_text(encoding="utf-8", errors="replace")
        except OSError:
            continue
        inside = False
        for line in text.splitlines():
            if line.startswith(_BEGIN):
                inside = True
            elif line.startswith(_END):
                inside = False
            elif inside and line.startswith("- "):
                found = _ENTRY_ID.search(line)
                if found:
                    ids.add(found.group(1))
    return ids


def score_bar(size: int) -> float:
    """The BM25 score a memory needs in an index of ``size`` memories."""
    return MIN_SCORE * math.log(max(size, 2) + 1) / math.log(CALIBRATED_SIZE + 1)


def clears(score: float, matched: int, terms: int, size: int = CALIBRATED_SIZE) -> bool:
    """The relevance bar: a good enough BM25 score for the store's size, matching enough of the prompt's words."""
    return score >= score_bar(size) and matched >= min(MIN_TERMS, terms)


PERSONAL = "~/"  # where a personal memory comes from, and the prefix of its key in the session state


def personal_memories(scope: Project, today: date) -> list[tuple[Memory, str]]:
    """The live memories of the user's personal store, to be searched together with the project's (scored in one
    corpus: BM25 over a store of a few memories alone would rank nothing)."""
    if not scope.memories_dir.is_dir():
        return []
    index = RecallIndex(scope)
    try:
        try:
            index.refresh()
            return [(memory, PERSONAL + memory.id) for memory in index.live_memories(today)]
        except Unavailable:
            return []
    finally:
        index.close()


def candidates(
    project: Project, terms: list[str], today: date, extra: Sequence[tuple[Memory, str]] = ()
) -> list[Candidate]:
    """The live memories of ``project``'s store and ``extra`` (packs', personal) that clear the bar, best first."""
    if not terms or not project.memories_dir.is_dir():
        return []
    index = RecallIndex(project)
    try:
        try:
            index.refresh()
            hits, matched = index.search_matched(terms, CANDIDATES, today, extra)
            size = index.size() + len(extra)
        except Unavailable:
            return []  # locked or read-only: a prompt is never held up for a memory
    finally:
        index.close()
    out = []
    for hit in hits:
        count = len(matched.get(hit.memory.id, ()))
        if clears(hit.score, count, len(terms), size):
            personal = str(hit.file).startswith(PERSONAL)
            key = PERSONAL + hit.memory.id if personal else hit.memory.id
            out.append(Candidate(key, hit.memory, hit.score, count, personal))
    out.sort(key=lambda c: (-c.matched, -c.score, c.key))
    return out


def select(
    pool: Sequence[Candidate], loaded: set[str], given: set[str], terms: list[str], rules_names: Sequence[str]
) -> Injection | None:
    """What to inject from ``pool`` (best first): not loaded, not given before, within the bounds."""
    fresh = [c for c in pool if c.key not in given and _id(c) not in loaded]
    if not fresh:
        return None
    limit = MAX_TOKENS * CHARS_PER_TOKEN
    header = _header(rules_names)
    chosen: list[tuple[Candidate, str]] = []
    used = len(header) + 1
    for candidate in fresh:
        if len(chosen) == MAX_MEMORIES:
            break
        room = limit - used - len(_more_line(len(fresh), terms)) - 1
        entry = render(candidate, room)
        if entry is None:
            continue
        chosen.append((candidate, entry))
        used += len(entry) + 1
    if not chosen:
        return None
    more = len(fresh) - len(chosen)
    lines = [header, *(entry for _, entry in chosen), _more_line(more, terms)]
    return Injection("\n".join(lines), [c.key for c, _ in chosen], more, terms)


def _id(candidate: Candidate) -> str:
    return candidate.memory.id


def _header(rules_names: Sequence[str]) -> str:
    where = ", ".join(rules_names) if rules_names else "the rules files"
    return (
        "gitmem: project memories that bear on this prompt and are not in " + where + ". They are notes from "
        "earlier work on this repository and may be out of date: check them against the code."
    )


def _more_line(more: int, terms: list[str]) -> str:
    query = " ".join(terms[:8]).replace('"', "")
    call = f'`gitmem recall "{query}"` (or the gitmem MCP tool recall)'
    if more > 0:
        return f"+{more} more: {call}."
    return f"+0 more; to search all memories: {call}."


def render(candidate: Candidate, room: int) -> str | None:
    """One memory as an entry of at most ``room`` characters (its body cut when needed); ``None`` when it cannot fit
    with at least ``MIN_BODY`` characters of body."""
    memory = candidate.memory
    facts = [memory.kind]
    if memory.paths:
        facts.append("applies to " + ", ".join(memory.paths))
    if memory.targets:  # compiled for other tools only (those whose files the client loads hold it: not injected)
        facts.append("meant for " + ", ".join(memory.targets))
    if candidate.personal:
        facts.append("personal")
    head = f"- [{memory.id}] {memory.title} ({'; '.join(facts)})"
    lines = _body_lines(memory.body)
    entry = "\n".join([head, *lines])
    if len(entry) <= room:
        return entry
    more = f"  … (gitmem show {memory.id})"
    keep = room - len(head) - 1 - len(more)
    if keep < MIN_BODY:
        return None
    kept: list[str] = []
    used = 0
    fence = ""
    for line in lines:  # whole lines; a code block cut short is closed, so what follows is not read as code
        closing = len(fence) + 3 if fence else 0
        if used + len(line) + 1 + closing > keep:
            if not kept and not fence:  # one long line: cut it at a word
                kept.append(line[: keep - 1].rsplit(" ", 1)[0])
            break
        kept.append(line)
        used += len(line) + 1
        marker = line.strip()[:3]
        if marker in ("```", "~~~"):
            fence = "" if fence else marker
    if fence:
        kept.append("  " + fence)
    return "\n".join([head, *kept, more])


def _body_lines(body: str) -> list[str]:
    """A body as the entry's indented lines: its line breaks kept (a code block stays a block), runs of blank lines
    made one, and outside code, runs of spaces made one."""
    out: list[str] = []
    fence = ""
    for raw in body.strip("\n").split("\n"):
        line = raw.rstrip()
        marker = line.strip()[:3]
        if marker in ("```", "~~~"):
            fence = "" if fence else marker
            out.append("  " + line.strip())
            continue
        if fence:
            out.append("  " + line)
        elif not line.strip():
            if out and out[-1].strip():
                out.append("")
        else:
            out.append("  " + " ".join(line.split()))
    while out and not out[-1].strip():
        out.pop()
    return out


def prompt_terms(prompt: str) -> list[str]:
    """The search words of a prompt (at most the first 4,000 characters: a pasted log is not a question)."""
    terms = query_terms(prompt[:4000])
    # One word counted once: "function" and "functions" are one match for the stemming index, not two.
    return [t for t in terms if not any(o != t and t.startswith(o) and len(t) - len(o) <= 3 for o in terms)]
