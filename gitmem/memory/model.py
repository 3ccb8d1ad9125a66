"""A memory as a frozen value, and the vocabularies of its fields."""

# (no postponed annotations: NamedTuple compiles each string annotation at import, and the first
# compile costs the prompt hook more than its own work)

import re
from collections.abc import Callable
from datetime import date
from typing import Any, NamedTuple

from gitmem.tools import current

KINDS = ("convention", "decision", "pitfall", "preference", "fact")
STATUSES = ("proposed", "active", "retired")
# never compiled: the prompt hook and recall bring it (a rule its tool loads when asked)
ON_DEMAND = "on-demand"
PRIORITIES = ("high", "normal", "low", ON_DEMAND)
SOURCES = ("human", "agent", "journal", "import")

ID_PATTERN = re.compile(r"^[a-z0-9][a-z0-9-]{0,63}\Z")  # \Z: "$" would accept a trailing newline
ID_MAX = 64
ID_SOFT = 48  # ids made from titles are cut at a word past this, to stay readable

# The order fields are written in, and shown in.
# fmt: off
FIELD_ORDER = (
    "id", "title", "kind", "status", "priority", "body", "paths", "targets", "tags", "words",
    "enforce", "created", "expires", "review_after", "supersedes", "evidence", "source", "origin",
    "retired", "reason",
)
# fmt: on
DATE_FIELDS = ("created", "expires", "review_after", "retired")


# NamedTuples, not dataclasses: importing dataclasses (and inspect with it) costs the prompt hook, a
# new process on every prompt, more than its own work.
class Evidence(NamedTuple):
    """A citation backing a memory: a file, optionally lines, and a digest of what was cited."""

    path: str
    lines: str | None = None
    digest: str | None = None

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> "Evidence":
        return cls(data["path"], _lines(data.get("lines")), data.get("digest"))

    def to_dict(self) -> dict[str, str]:
        out = {"path": self.path}
        if self.lines is not None:
            out["lines"] = self.lines
        if self.digest is not None:
            out["digest"] = self.digest
        return out


class Enforce(NamedTuple):
    """What the agent must not do while the memory is active (``gitmem hook pre-tool`` refuses it):
    shell ``commands`` (globs of one command) and ``edits`` (path globs)."""

    commands: tuple[str, ...] = ()
    edits: tuple[str, ...] = ()

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> "Enforce":
        return cls(tuple(data.get("commands") or ()), tuple(data.get("edits") or ()))

    def to_dict(self) -> dict[str, list[str]]:
        out: dict[str, list[str]] = {}
        if self.commands:
            out["commands"] = list(self.commands)
        if self.edits:
            out["edits"] = list(self.edits)
        return out


class Memory(NamedTuple):
    """One memory, as its YAML file holds it."""

    id: str
    title: str
    kind: str
    status: str
    body: str = ""
    priority: str = "normal"
    paths: tuple[str, ...] = ()
    targets: tuple[
        str, ...
    ] = ()  # the compile targets it is for (config names); empty: every target
    tags: tuple[str, ...] = ()
    words: tuple[
        str, ...
    ] = ()  # what a teammate would say when it matters (symptoms, synonyms): recall's, like tags
    enforce: Enforce | None = None  # what the pre-tool hook refuses while the memory is live
    created: date | None = None
    expires: date | None = None
    review_after: date | None = None
    supersedes: tuple[str, ...] = ()
    evidence: tuple[Evidence, ...] = ()
    source: str | None = None
    origin: str | None = None
    retired: date | None = None
    reason: str | None = None

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> "Memory":
        """A memory from data that passed validation (dates as YYYY-MM-DD strings)."""
        values: dict[str, Any] = {}
        for name in FIELD_ORDER:
            value = data.get(name)
            if value is not None:
                read = _READ.get(name)
                values[name] = value if read is None else read(value)
        return cls(**values)

    def to_dict(self) -> dict[str, Any]:
        """Every field, in the canonical order, as JSON-ready data (absent values as null or [])."""
        out: dict[str, Any] = {}
        for name in FIELD_ORDER:
            value = getattr(self, name)
            write = _WRITE.get(name)
            out[name] = value if write is None or value is None else write(value)
        return out

    def to_file_dict(self) -> dict[str, Any]:
        """The fields worth writing to the file: absent, empty and default values left out."""
        defaults = self._field_defaults
        return {
            name: value
            for name, value in self.to_dict().items()
            if value not in (None, "", [], {})
            and not (name == "priority" and value == defaults["priority"])
        }

    def is_expired(self, today: date) -> bool:
        return self.expires is not None and self.expires < today

    @property
    def on_demand(self) -> bool:
        """Never compiled into a rules file (``priority: on-demand``): the prompt hook and
        recall bring it."""
        return self.priority == ON_DEMAND

    def is_live(self, today: date) -> bool:
        """Active and not expired: what compile and recall use."""
        return self.status == "active" and not self.is_expired(today)

    def is_for(self, target: str) -> bool:
        """Whether compile puts it into ``target``'s files: every target, unless ``targets`` names
        some (a retired target's name stands for what replaces it)."""
        return (
            not self.targets
            or target in self.targets
            or any(current(name) == target for name in self.targets)
        )

    def with_changes(self, **changes: Any) -> "Memory":
        return self._replace(**changes)


def _lines(value: Any) -> str | None:
    return None if value is None else str(value)


# How a field's data (as validated: dates as YYYY-MM-DD text, lists, mappings) becomes its value
# (``Memory.from_dict``), and back (``Memory.to_dict``); a field not named here is the same in both.
LIST_FIELDS = ("paths", "targets", "tags", "words", "supersedes")
_READ: dict[str, Callable[[Any], Any]] = {
    **dict.fromkeys(DATE_FIELDS, date.fromisoformat),
    **dict.fromkeys(LIST_FIELDS, tuple),
    "evidence": lambda items: tuple(map(Evidence.from_dict, items)),
    "enforce": Enforce.from_dict,
}
_WRITE: dict[str, Callable[[Any], Any]] = {
    **dict.fromkeys(DATE_FIELDS, date.isoformat),
    **dict.fromkeys(LIST_FIELDS, list),
    "evidence": lambda items: list(map(Evidence.to_dict, items)),
    "enforce": Enforce.to_dict,
}


def slugify(title: str) -> str:
    """An id from a title: ASCII lower-case words joined by hyphens, at most 64 characters, cut
    at a word. A secret in the title is redacted first: every id, and every file and message named
    after one, is made here (a refused title's would-be path was printed with its token in it)."""
    import unicodedata  # (only when a memory is named: never on the prompt hook's path)
    from itertools import accumulate, takewhile  # (only when a memory is named, as above)

    from gitmem.scan import redact, scan_text  # (only when a memory is named, as above)

    title = redact(title, scan_text(title))  # (hidden characters are not ASCII: dropped below)
    ascii_text = unicodedata.normalize("NFKD", title).encode("ascii", "ignore").decode("ascii")
    words = re.findall(r"[a-z0-9]+", ascii_text.lower())
    # the words joined one by one, as long as they fit; else the first word cut
    joined = accumulate(words, lambda slug, word: f"{slug}-{word}")
    fits = list(takewhile(lambda slug: len(slug) <= ID_MAX, joined))
    return fits[-1] if fits else "".join(words[:1])[:ID_MAX]


def short_id(title: str) -> str:
    """An id from a title, cut at a word to at most about ``ID_SOFT`` characters (empty when it
    has no letters)."""
    slug = slugify(title)
    if len(slug) > ID_SOFT and "-" in slug[:ID_SOFT]:
        slug = slug[: ID_SOFT + 1].rsplit("-", 1)[0]
    return slug


def unique_id(base: str, taken: set[str]) -> str:
    """``base``, or ``base-2``, ``base-3``… : the first that is not ``taken``."""
    if base not in taken:
        return base
    for number in range(2, 10_000):
        suffix = f"-{number}"
        candidate = base[: ID_MAX - len(suffix)].rstrip("-") + suffix
        if candidate not in taken:
            return candidate
    raise ValueError(f"no free id for {base!r}")


def title_key(title: str) -> str:
    """A title reduced to lower-case words: two titles with the same key say the same thing."""
    return " ".join(re.sub(r"[^\w\s]", " ", title.lower()).split())
