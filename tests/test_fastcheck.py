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


CONFIG: dict[str, Any] = json.loads(schema_text("config"))
TARGET_NAMES = ["default", "agents", "claude", "cursor", "windsurf", "nope"]
numbers = st.one_of(
    st.integers(-2, 3), st.floats(allow_nan=True), st.sampled_from([0.5, 1.0, 0.0, True, False])
)
config_values = st.one_of(
    values,
    numbers,
    st.lists(st.sampled_from(TARGET_NAMES), max_size=3),
    st.dictionaries(st.sampled_from(TARGET_NAMES), numbers, max_size=3),
    st.dictionaries(
        st.sampled_from(["allow", "salt", "exclude", "proposal_max_age_days", "similarity", "x"]),
        st.one_of(numbers, text, st.lists(text, max_size=2)),
        max_size=3,
    ),
    st.lists(st.dictionaries(st.sampled_from(["name", "repo", "rev"]), text), max_size=2),
)


@settings(max_examples=800, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    st.dictionaries(st.sampled_from([*CONFIG["properties"], "unknown"]), config_values, max_size=6)
)
def test_a_yes_for_a_config_is_always_right(data: dict[str, Any]) -> None:
    if surely_valid(CONFIG, data):
        assert list(_validator("config").iter_errors(data)) == [], data


def test_ordinary_configs_are_a_yes() -> None:
    config = {
        "version": 1, "targets": ["agents", "claude"], "budget": {"default": 2000, "claude": 900},
        "scan": {"exclude": ["tests/fixtures/**"]}, "doctor": {"proposal_max_age_days": 30, "similarity": 0.8},
        "mcp": True,
    }  # fmt: skip
    assert surely_valid(CONFIG, config)
    assert surely_valid(CONFIG, {**config, "budget": 4000})
    for wrong in ({"version": True}, {"version": 2}, {"budget": 0}, {"budget": {"nope": 1}},
                  {"doctor": {"similarity": 1.5}}, {"doctor": {"similarity": 0}}, {"mcp": 1}, {"targets": ["agents", "agents"]}):  # fmt: skip
        assert not surely_valid(CONFIG, {**config, **wrong}), wrong
