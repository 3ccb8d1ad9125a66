"""Property-based: whatever bytes or YAML structure a memory file holds, the loader raises only gitmem's errors
(it reports problems; it never crashes)."""

from __future__ import annotations

import string
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from gitmem import yamlio
from gitmem.errors import Problem
from gitmem.memory.model import Memory
from gitmem.memory.schema import check_config, check_memory

SETTINGS = settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])

FIELDS = [
    "id",
    "title",
    "kind",
    "status",
    "body",
    "priority",
    "paths",
    "tags",
    "created",
    "expires",
    "supersedes",
    "evidence",
    "source",
    "unknown",
]

scalars = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(),
    st.floats(allow_nan=True),
    st.text(max_size=30),
    st.sampled_from(
        ["active", "fact", "2026-02-30", "2026-11-30", "use-pnpm", "web/**", "../x", "\u200b"]
    ),
)
values = st.recursive(
    scalars,
    lambda inner: (
        st.lists(inner, max_size=4)
        | st.dictionaries(st.sampled_from(["path", "lines", "digest", "x"]), inner, max_size=3)
    ),
    max_leaves=10,
)
documents = st.dictionaries(st.sampled_from(FIELDS), values, max_size=len(FIELDS))


def _check(raw: bytes) -> None:
    data, problems = check_memory(raw, "use-pnpm", "m.yaml")
    assert all(isinstance(p, Problem) for p in problems)
    assert all(p.line >= 1 and p.column >= 1 and "\n" not in p.message for p in problems)
    if not problems:
        assert data is not None
        Memory.from_dict(data)  # a file without problems always makes a memory


@SETTINGS
@given(st.binary(max_size=400))
def test_random_bytes(raw: bytes) -> None:
    _check(raw)
    check_config(raw)


@SETTINGS
@given(st.text(alphabet=string.printable + "\u200b\u202e\ufeff&*!|>-:{}[]#'\"", max_size=300))
def test_random_text(text: str) -> None:
    _check(text.encode("utf-8"))


@SETTINGS
@given(documents)
def test_random_yaml_structures(document: dict[str, Any]) -> None:
    try:
        text = yamlio.dump(document)
    except Exception:  # a structure ruamel itself cannot represent is not our input
        return
    _check(text.encode("utf-8"))


# Every way a YAML text can spell a string: plain, single- and double-quoted, literal and folded blocks.
_STYLES = st.sampled_from(["plain", "single", "double", "literal", "folded"])
# Pieces of a value: any character, and YAML's escapes of characters that are not plain (a tab, hidden characters,
# line breaks: U+0085, U+2028, U+2029, VT).
_ESCAPES = ["\\t", "\\u200b", "\\x85", "\\L", "\\N", "\\P", "\\v", "\\e", "\\0", "\\\\"]
_TEXTS = st.lists(
    st.one_of(st.sampled_from([*_ESCAPES, *string.printable, "\u200b", "\u2028"]), st.characters()),
    max_size=12,
).map("".join)


def _spelled(value: str, style: str) -> str:
    """``value`` written as YAML in ``style`` (no escaping but what the style itself needs)."""
    match style:
        case "plain":
            return value
        case "single":
            return "'" + value.replace("'", "''") + "'"
        case "double":
            return '"' + value.replace('"', "") + '"'
        case "literal" | "folded":
            lines = value.split("\n")
            return (
                ("|" if style == "literal" else ">")
                + "\n"
                + "".join(f"  {line}\n" for line in lines)
            )
    raise AssertionError(style)


@SETTINGS
@given(st.lists(st.tuples(_TEXTS, _STYLES), min_size=1, max_size=4))
def test_a_plain_text_reads_as_plain_strings(values: list[tuple[str, str]]) -> None:
    """``fields.plain``: when a text is visible ASCII and newlines with no backslash, every string YAML reads from it
    is too, so no field can hold a hidden character or a stray line break (the walks that look for them are skipped).
    """
    from gitmem.memory import fields

    text = "".join(
        f"k{index}: {_spelled(value, style)}\n" for index, (value, style) in enumerate(values)
    )
    if not fields.plain(text):
        return
    try:
        data = yamlio.load(text).data
    except yamlio.YamlProblem:
        return
    for _, value in fields.strings(data, ()):
        assert fields.plain(value + "\n"), (text, value)
