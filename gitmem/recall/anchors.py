"""What a prompt names beyond its words: file paths and identifiers, which tie it to memories more
surely than words.

A path (``services/billing/src/refunds/handler.py``, ``web/src/icons/``) matches the memories whose
``paths`` cover it, and the more of the path a glob spells out, the closer the memory is to it
(``services/billing/**`` is closer than ``services/**``). An identifier-shaped word
(``get_session()``, ``CHECKOUT_V2_ENABLED``, ``OrderSnapshot``, ``X-Tenant-Id``) is looked up as
written in the memories' text: when only a few memories hold it, that carries a match on its own, as
no word of a question can.

Everything here is plain string work over a bounded prompt, in linear time: no regular expression.
"""

from __future__ import annotations

from collections.abc import Iterable

MAX_ANCHORS = 8  # paths, and identifiers, taken from one prompt
IDENTIFIER_LEVEL = 100  # an identifier ties a prompt to a memory more closely than any path
MAX_TOKEN = 240  # a longer "word" is not a path or an identifier anyone typed
EDGE = "\"'`()[]{}<>,;:!?*"  # stripped from both ends of a word
_PATH_CHARS = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._-/@+~")
_WILD = frozenset("*?[{")


def _words(text: str) -> Iterable[str]:
    """The words of ``text`` as typed (at most ``MAX_TOKEN`` characters each)."""
    for word in text.split():
        if len(word) <= MAX_TOKEN:
            yield word


def paths(text: str) -> list[str]:
    """The repository paths ``text`` names, repository-relative with / separators (at most
    ``MAX_ANCHORS``): words with a slash (not a URL), or a file name with an extension
    (``package.json``). A folder keeps its final slash.
    """
    found: list[str] = []
    for raw in _words(text):
        word = raw.strip(EDGE).rstrip(".")
        # (an empty word is neither kind below; ":" of a URL is no path character)
        if not set(word) <= _PATH_CHARS or word.startswith(("~", "@")):
            continue
        if "/" in word:
            candidate = word.removeprefix("./").lstrip("/")
            if ".." not in candidate.split("/") and any(c.isalpha() for c in candidate):
                found.append(candidate)
        elif _file_name(word):
            found.append(word)
        if len(found) == MAX_ANCHORS:
            break
    return list(dict.fromkeys(found))


def _file_name(word: str) -> bool:
    # (no dot: the stem is ""; an empty extension is not alphanumeric)
    stem, _, extension = word.rpartition(".")
    return len(stem) > 1 and len(extension) <= 5 and extension.isalnum() and stem[-1].isalnum()


def identifiers(text: str) -> list[str]:
    """The identifier-shaped words of ``text`` (at most ``MAX_ANCHORS``): snake_case or
    SCREAMING_CASE, camelCase or PascalCase with a capital inside, Capitalised-Hyphen-Words, or a
    call (``redact()``). Paths are not.
    """
    found: list[str] = []
    for raw in _words(text):
        call = raw.rstrip(".,;:!?").endswith("()")
        word = raw.strip(EDGE).rstrip(".").removesuffix("()")
        # (a path's "/" is not alphanumeric)
        if len(word) < 4 or not word.replace("_", "").replace("-", "").replace(".", "").isalnum():
            continue
        if call or _shaped(word):
            found.append(word)
        if len(found) == MAX_ANCHORS:
            break
    return list(dict.fromkeys(found))


def _shaped(word: str) -> bool:
    if "_" in word.strip("_"):
        return any(c.isalpha() for c in word)
    if "-" in word:
        return sum(c.isupper() for c in word) >= 2
    inner = word[1:]
    return any(c.isupper() for c in inner) and any(c.islower() for c in word)


def specificity(glob: str) -> int:
    """How many leading segments of ``glob`` are spelled out (``services/billing/**``: 2,
    ``**/*.py``: 0)."""
    count = 0
    for part in glob.strip().lstrip("/").removeprefix("./").split("/"):
        if not part or not _WILD.isdisjoint(part):
            break
        count += 1
    return count


def subject(path: str) -> str:
    """What a glob is matched against for ``path``: a folder (``web/src/icons/``) as a file
    inside it."""
    return path + "_" if path.endswith("/") else path
