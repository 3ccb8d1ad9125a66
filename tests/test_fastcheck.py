"""The fast schema check never says yes where jsonschema finds an error, and says yes for ordinary memories."""

from __future__ import annotations

import json
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from gitmem.memory.fastcheck import surely_valid
from gitmem.memory.schema import _validator, schema_text

SCHEMA: dict[str, Any] = json.loads(schema_text("memory"))
FIELDS = [*SCHEMA["properties"], "unknown"]

text = st.text(alphabet="abc-XYZ 019/.*\n\r\t_`'", max_size=12)
values = st.one_of(
    text,
    st.sampled_from(
        [
            "convention",
            "fact",
            "active",
            "proposed",
            "high",
            "import",
            "2026-11-30",
            "web/**",
            "a-b",
        ]
    ),
    st.none(),
    st.booleans(),
    st.integers(-2, 2),
    st.lists(
        st.one_of(text, st.sampled_from(["web/**", "build", "../x", "/abs"]), st.integers()),
        max_size=3,
    ),
    st.dictionaries(st.sampled_from(["path", "lines"]), text, max_size=2),
)


@settings(max_examples=600, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.dictionaries(st.sampled_from(FIELDS), values, max_size=8), st.booleans())
def test_a_yes_is_always_right(data: dict[str, Any], complete: bool) -> None:
    if complete:
        data = {"id": "a-b", "title": "A title", "kind": "fact", "status": "active", **data}
    if surely_valid(SCHEMA, data):
        assert list(_validator("memory").iter_errors(data)) == [], data


def test_ordinary_memories_are_a_yes() -> None:
    memory = {
        "id": "use-pnpm", "title": "Use pnpm, never npm", "kind": "convention", "status": "active",
        "body": "npm rewrites the lockfile.\n", "priority": "high", "paths": ["web/**"], "tags": ["build"],
        "created": "2026-11-30", "source": "import", "origin": "AGENTS.md:12",
    }  # fmt: skip
    assert surely_valid(SCHEMA, memory)
    assert not surely_valid(SCHEMA, {**memory, "title": "two\nlines"})
    assert not surely_valid(SCHEMA, {**memory, "paths": ["../outside"]})
    assert not surely_valid(SCHEMA, {**memory, "tags": ["a", "a"]})
    assert not surely_valid(
        SCHEMA, {**memory, "evidence": [{"path": "x"}]}
    )  # not handled: jsonschema decides
