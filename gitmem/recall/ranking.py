"""How memories are ranked for a prompt: every tuning constant, and the bar a memory must clear.

The recall index (``gitmem.recall.index``) scores memories with BM25 over their title, body, tags
and ``words`` (``WEIGHTS``) and finds the phrases of a prompt (``PHRASE_GAP``, ``PHRASE_DEPTH``);
the prompt hook (``gitmem.hook.inject``) asks it for ``CANDIDATES`` memories and keeps, in this
order (``rank``): those the prompt's paths and identifiers tie it to (``anchored``), then those
whose words clear the bar (``clears``: ``MIN_SCORE`` for the store's size and ``MIN_TERMS`` of the
prompt's words; or a rare word of the prompt in the title, ``RARE_WORD``; or one phrase of the
prompt, ``PHRASE_ALONE``). Every figure here was chosen on benchmarks/bench_hook_recall.py's tuning
prompts; benchmarks/bench_delivery.py's held-out prompts report on them.
"""

import math
from collections.abc import Sequence

from gitmem.memory.model import Memory
from gitmem.recall.globs import any_match
from gitmem.recall.results import Anchor, Hit, PromptMatch
from gitmem.records import Record

# -- the index's scores --------------------------------------------------------------------------

# BM25 weights of the indexed columns: a word in the title counts most, then in a tag, then in the
# body. The asker's ``words`` of one word count as tags; those of several ("tests hang") as the
# body, for one of their words alone says little: two of them close together in the prompt say much
# (the phrase rule reads titles and them). Chosen on bench_hook_recall.py --blind-words (the tuning
# prompts), against words in the tags column: 44 of 46 right memories against 42, 1.5 memories
# injected a prompt against 1.6, unrelated prompts as quiet.
WEIGHTS = (4.0, 1.0, 2.0, 1.0)  # title, body, tags, words
# two words of a query's pair at most this many words apart in a title (or words) are a phrase
PHRASE_GAP = 2
PHRASE_DEPTH = 50  # memories whose title or words hold a pair, looked at per query
PHRASED = "{title words}"  # the columns the phrase rule reads
PATH_BOOST = 1.5  # a memory whose paths cover --path ranks as if its text matched this much better

# -- the prompt hook's bar -----------------------------------------------------------------------

# The relevance bar, calibrated on benchmarks/hook_pairs.py (prompts that should and should not
# inject): a memory must score at least MIN_SCORE (BM25, title words weighing most) and match at
# least MIN_TERMS of the prompt's search words (one is enough when the prompt has only one). BM25
# grows with the store (a rare word's weight is about log(N)), so the score bar is set for
# CALIBRATED_SIZE memories and scaled for N others, by the square root of log(N)'s ratio: the words
# of a larger store are not all rarer (a right memory scored 12 of a 12.6 bar at 1,000 with the full
# ratio; with the root, hook_pairs at 1,000 memories: 26 -> 32 of 46, unrelated unchanged).
MIN_SCORE = 7.0
MIN_TERMS = 2
CALIBRATED_SIZE = 46
CANDIDATES = 12  # ranked memories looked at per index
RARE = 2  # an identifier (or a word) held by at most this many memories ties the prompt to them
# a rare word this long in a title, with another of the prompt's words, carries it past the bar
RARE_WORD = 4
# Two consecutive words of the prompt close together in a title or ``words`` say what the memory is
# about even when the store holds each word everywhere (BM25 then weighs them at nothing): such a
# memory goes before others matching as many words, and one of them (the best scored) may be taken
# below the score bar.
PHRASE_ALONE = 1
MAX_MEMORIES = 3  # injected a prompt, at most (and a path's scope shared by more is crowded)

PERSONAL = (
    "~/"  # where a personal memory comes from, and the prefix of its key in the session state
)


# NamedTuples and plain classes, not dataclasses: importing dataclasses (and inspect with it) costs
# the prompt hook, a new process on every prompt, more than its own work.
class Candidate(Record):
    """A memory the prompt may bring in, with its score."""

    key: str  # what the session state records: the id, ~/ID for a personal memory, PACK/ID
    memory: Memory
    score: float
    matched: int  # how many of the prompt's search words the memory matches
    personal: bool = False
    anchor: int = 0  # how closely a path or identifier ties it (``Anchor.level``; 0: words alone)
    phrase: bool = False  # its title or words hold two consecutive words of the prompt, close


def score_bar(size: int) -> float:
    """The BM25 score a memory needs in an index of ``size`` memories."""
    return MIN_SCORE * math.sqrt(math.log(max(size, 2) + 1) / math.log(CALIBRATED_SIZE + 1))


def clears(score: float, matched: int, terms: int, size: int = CALIBRATED_SIZE) -> bool:
    """The relevance bar: a good enough BM25 score for the store's size, matching enough of the
    prompt's words."""
    return score >= score_bar(size) and matched >= min(MIN_TERMS, terms)


def passes(hit: Hit, count: int, terms: int, size: int, rare: dict[str, set[str]]) -> bool:
    """Whether a ranked memory clears the bar: its score, or a rare word of the prompt in its title
    with another."""
    if clears(hit.score, count, terms, size):
        return True
    rare_word = any(len(term) >= RARE_WORD and hit.memory.id in ids for term, ids in rare.items())
    return rare_word and count >= min(MIN_TERMS, terms)


def rank(
    found: PromptMatch, terms: int, words: set[str], subjects: Sequence[str], size: int
) -> list[Candidate]:
    """The memories of ``found`` worth injecting, best first: those the prompt's paths and
    identifiers tie it to (``anchored``), then those whose words clear the bar. ``terms``: how many
    search words the prompt has; ``words``: the words an anchored memory must match; ``subjects``:
    the prompt's paths (a memory scoped to a folder none of them is in gives way to those of the
    prompt's own component); ``size``: the store's, for the bar."""
    scores = {hit.memory.id: hit.score for hit in found.hits}
    out = anchored(found.anchors, found.matched, words, scores)
    taken = {c.key for c in out}
    alone = 0  # memories a phrase carried past the bar on its own (at most ``PHRASE_ALONE``)
    for hit in sorted(found.hits, key=lambda h: -h.score):
        key, count = key_of(hit), len(found.matched.get(hit.memory.id, ()))
        phrase = hit.memory.id in found.phrased
        cleared = passes(hit, count, terms, size, found.rare)
        carried = phrase and count >= min(MIN_TERMS, terms) and alone < PHRASE_ALONE
        if key in taken or not (cleared or carried):
            continue
        alone += not cleared
        if _elsewhere(hit.memory, subjects, out):
            continue
        out.append(
            Candidate(key, hit.memory, hit.score, count, key.startswith(PERSONAL), phrase=phrase)
        )
    out.sort(key=lambda c: (c.anchor == 0, -c.matched, not c.phrase, -c.score, c.key))
    return out


def _elsewhere(memory: Memory, subjects: Sequence[str], out: list[Candidate]) -> bool:
    """Scoped to a folder none of the prompt's paths is in, when something is taken already."""
    return bool(
        subjects and out and memory.paths and not any(any_match(memory.paths, p) for p in subjects)
    )


def anchored(
    tied: Sequence[Anchor], matched: dict[str, set[str]], words: set[str], scores: dict[str, float]
) -> list[Candidate]:
    """The memories the prompt's paths and identifiers tie it to that are worth injecting: an
    identifier's always; a path's when its scope is the closest to the path (the most segments
    spelled out) and the memory also matches one of the prompt's other words, or few memories share
    that scope (at most ``MAX_MEMORIES``): a path deep in a service brings that service's memories,
    a path in a crowded folder only those its words point at. A memory of a wider scope the path is
    in has to clear the words' bar, as any other (``rank``)."""
    levels = [a.level for a in tied if a.via == "path"]
    closest = max(levels, default=0)
    crowd = levels.count(closest)
    out = []
    for anchor in tied:
        count = len(matched.get(anchor.memory.id, set()) & words)
        if anchor.via == "path" and (
            anchor.level < closest or (not count and crowd > MAX_MEMORIES)
        ):
            continue
        key = key_of(anchor)
        score = scores.get(anchor.memory.id, 0.0)
        out.append(
            Candidate(key, anchor.memory, score, count, key.startswith(PERSONAL), anchor.level)
        )
    return out


def key_of(found: Hit | Anchor) -> str:
    """What the session state records for a memory found: its id, ``~/ID`` when personal."""
    personal = str(found.file).startswith(PERSONAL)
    return PERSONAL + found.memory.id if personal else found.memory.id
