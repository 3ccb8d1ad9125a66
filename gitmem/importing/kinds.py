"""Guessing an imported rule's kind from the headings above it (and, failing that, from its
wording).

The guess is shown for review with where it came from; a wrong kind costs one `gitmem edit`. The
nearest heading that names a kind wins (``### TypeScript`` under ``## Code style`` is a convention).
Within one heading the more specific words are tried first, so "Architecture decisions" is a
decision and "Style preferences" a preference.
"""

from __future__ import annotations

import re

from gitmem.tools import BY_NAME

# (kind, words): tried in this order; a word matches at word boundaries, plurals included.
# fmt: off
HEADING_WORDS: tuple[tuple[str, tuple[str, ...]], ...] = (
    ("decision", ("decision", "adr", "rationale", "design choice", "trade-off", "tradeoff",
                  "why we", "we chose", "choices")),
    ("pitfall", ("pitfall", "gotcha", "caveat", "warning", "known issue", "known problem",
                 "troubleshooting", "common mistake", "footgun", "trap", "beware", "watch out",
                 "limitation", "avoid", "things to avoid", "what not to do", "dont", "don't",
                 "do not", "anti-pattern", "antipattern", "quirk")),
    ("preference", ("preference", "prefer", "taste", "tone", "communication", "working with",
                    "personal", "interaction")),
    ("convention", ("convention", "style", "guideline", "standard", "rule", "practice", "workflow",
                    "commit", "pull request", "pr", "test", "testing", "lint", "format", "naming",
                    "build", "setup", "command", "instruction", "how to", "process", "review",
                    "security", "release", "deploy", "deployment", "do", "dos", "do's", "code",
                    "coding", "accessibility", "performance", "git", "ci")),
    ("fact", ("overview", "architecture", "structure", "layout", "about", "context", "background",
              "stack", "glossary", "domain", "map", "what is", "observability", "monitoring",
              "team", "owner", "contact", "introduction", "summary")),
)
# fmt: on

_PATTERNS = tuple(
    (
        kind,
        re.compile(r"\b(?:" + "|".join(re.escape(word) + r"(?:e?s)?" for word in words) + r")\b"),
    )
    for kind, words in HEADING_WORDS
)

# fmt: off
_IMPERATIVE = frozenset((
    "use", "run", "prefer", "avoid", "keep", "write", "add", "put", "never", "always", "don't",
    "do", "make", "call", "check", "ensure", "follow", "name", "place", "import", "return", "test",
    "start", "open", "commit", "create", "update", "remove", "ask", "read", "install", "copy",
    "set", "pin", "format", "type", "wrap", "split",
))
# fmt: on


def starts_imperative(text: str) -> bool:
    """Whether ``text`` starts with a verb of command ("Use…", "Run…", "Never…")."""
    words = re.findall(r"[a-z']+", text.lower())
    return bool(words) and words[0] in _IMPERATIVE


def kind_of_heading(heading: str) -> str | None:
    text = heading.lower().replace("’", "'")
    for kind, pattern in _PATTERNS:
        if pattern.search(text):
            return kind
    return None


def guess(headings: tuple[str, ...], text: str, bullet: bool, title: str = "") -> tuple[str, str]:
    """The kind of an item and where the guess came from (``heading "Code style"``, ``wording`` or
    ``default``).

    ``title`` is the document's title (its first ``#`` heading) when ``headings`` start with it: it
    says what the document is ("Gemini CLI Project Context", "Overview"), not what each rule is, so
    it never makes every rule a fact (the kind a budget cuts first); it counts when it names another
    kind ("# Architecture decisions").
    """
    for index, heading in reversed(list(enumerate(headings))):
        kind = kind_of_heading(heading)
        if kind is None or (index, heading, kind) == (0, title, "fact"):
            continue
        return kind, f'heading "{heading}"'
    words = [*re.findall(r"[a-z']+", text.lower()), ""]  # (so there is a first word)
    if words[0] in ("we", "decided", "decision") and not _DECIDED.isdisjoint(words[:4]):
        return "decision", "wording"
    if words[0] in _IMPERATIVE:
        return "convention", "wording"
    if not bullet:
        return "fact", "default for prose"
    return "convention", "default"


_DECIDED = frozenset(("decided", "chose", "picked"))  # "We decided…", "We chose…"


def tool_specific(tool: str, text: str) -> str | None:
    """``tool`` when ``text`` (read from that tool's own file) uses words only that tool understands
    (its record's ``own_words``), else None."""
    record = BY_NAME.get(tool)
    words = record.own_words if record is not None else ()
    lowered = f" {' '.join(text.lower().split())} "
    for word in words:
        at = lowered.find(word)
        while at >= 0:
            before, after = lowered[at - 1], lowered[at + len(word) : at + len(word) + 1]
            if not (before.isalnum() or before in "#@/") and not (
                after.isalnum() or after in "-_/"
            ):
                return tool
            at = lowered.find(word, at + 1)
    return None


# What labels an example of what not to do ("**Incorrect (imports the whole library):**" then code;
# vendored skill bundles are full of them): the label alone, before ":", "(" or ".".
COUNTER_LABELS = frozenset((
    "incorrect", "wrong", "bad", "bad example", "bad practice", "don't do this", "do not do this",
    "avoid this", "anti-pattern", "antipattern", "counter-example", "counterexample",
    "not like this", "never do this", "don't", "avoid",
))  # fmt: skip
COUNTER_MARKS = ("❌", "✗", "✘", "👎", "🚫")


def counter_example(head: str, rest: list[str]) -> bool:
    """Whether an item is a counter-example: a code example labelled as what not to do
    ("Incorrect: …", "Don't do this:", "❌ …"), not a rule. Only with code: "Don't use `any`" is a
    rule; "Don't do this:" and code is not.
    """
    if not any(line.lstrip().startswith(("```", "~~~")) for line in rest):
        return False
    text = head.strip().lstrip("*_#> \t")
    if text.startswith(COUNTER_MARKS):
        return True
    label = text.lower().replace("’", "'")
    for stop in (":", "(", ".", "*", "_", " -", " —", " –"):
        at = label.find(stop)
        if at > 0:
            label = label[:at]
    return label.strip() in COUNTER_LABELS
