"""The fast reader of gitmem's own YAML gives exactly what ruamel.yaml gives (data and every key's position), for
memories as gitmem writes them and for texts built to sit at the edges of its subset; where it is not sure, it
declines (``None``) and ruamel reads the text."""

from __future__ import annotations

import string
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from gitmem import yamlfast, yamlio
from gitmem.memory.store import MEMORY_HEADER

SETTINGS = settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def _ruamel(text: str) -> tuple[dict[str, Any], dict[Any, tuple[int, int]]] | None:
    """What the ruamel path of yamlio.load gives (the fast path bypassed), or None when it raises."""
    original = yamlfast.load
    try:
        yamlfast.load = lambda text: None  # type: ignore[assignment]
        document = yamlio.load(text)
    except yamlio.YamlProblem:
        return None
    finally:
        yamlfast.load = original  # type: ignore[assignment]
    return document.data, document.marks


def _same(text: str) -> bool:
    fast = yamlfast.load(text)
    if fast is None:
        return False
    assert fast == _ruamel(text), text
    return True


words = st.text(
    alphabet=string.ascii_letters + string.digits + " ,.;:#-_/()[]{}`'\"!?*&|>%@~\\", max_size=40
)
safe_words = st.text(
    alphabet=string.ascii_letters + string.digits + " ,.;-_/()`", min_size=1, max_size=40
)
lines = st.text(alphabet=string.ascii_letters + string.digits + " ,.;:#-_/()`'\"*\t", max_size=30)


@st.composite
def memories(draw: st.DrawFn) -> dict[str, Any]:
    data: dict[str, Any] = {
        "id": draw(st.from_regex(r"[a-z0-9][a-z0-9-]{0,20}", fullmatch=True)),
        "title": draw(st.one_of(words, safe_words)).strip() or "x",
        "kind": draw(st.sampled_from(["convention", "fact", "pitfall"])),
        "status": "active",
    }
    if draw(st.booleans()):
        data["body"] = "\n".join(draw(st.lists(lines, min_size=1, max_size=5)))
    if draw(st.booleans()):
        data["tags"] = draw(st.lists(st.one_of(safe_words, words), max_size=4))
    if draw(st.booleans()):
        data["paths"] = draw(
            st.lists(st.sampled_from(["web/**", "src/*.ts", "**/*.py", "a b/c", "x,y"]), max_size=3)
        )
    if draw(st.booleans()):
        data["created"] = "2026-11-30"
    if draw(st.booleans()):
        data["evidence"] = [
            {
                "path": draw(safe_words).strip() or "p",
                **({"lines": "3-9"} if draw(st.booleans()) else {}),
            }
            for _ in range(draw(st.integers(1, 3)))
        ]
    if draw(st.booleans()):
        data["priority"] = draw(st.sampled_from(["high", "low", "true", "null", "12", "3-9", "y"]))
    return data


@SETTINGS
@given(memories())
def test_memories_as_gitmem_writes_them_read_the_same(data: dict[str, Any]) -> None:
    text = yamlio.dump(data, MEMORY_HEADER)
    fast = yamlfast.load(text)
    if fast is not None:
        assert fast == _ruamel(text), text


@SETTINGS
@given(
    st.lists(
        st.tuples(st.sampled_from(["id", "title", "tags", "body", "true", "x_y"]), words),
        max_size=6,
    )
)
def test_hand_written_lines_are_read_the_same_or_declined(pairs: list[tuple[str, str]]) -> None:
    text = "".join(f"{key}: {value}\n" for key, value in pairs)
    fast = yamlfast.load(text)
    if fast is not None:
        assert fast == _ruamel(text), text


def test_the_common_memory_takes_the_fast_path() -> None:
    text = (
        MEMORY_HEADER
        + "id: use-pnpm\ntitle: Use pnpm, never npm (the lockfile breaks)\nkind: convention\n"
        "status: active\nbody: |\n  npm rewrites `pnpm-lock.yaml`.\n\n  See the wiki.\npriority: high\n"
        'paths: ["web/**", src/app]\ntags: [build, ci]\ncreated: 2026-11-30\nevidence:\n  - path: web/package.json\n'
        "    lines: 3-9\nsource: human\n"
    )
    assert _same(text)


def test_what_it_is_unsure_of_goes_to_ruamel() -> None:
    for text in (
        "id: a\nid: b\n",  # duplicate key: ruamel's message
        "title: &x a\n",  # anchor
        "title: yes\n",  # 1.1 boolean words
        "title: a # comment\n",
        "title: 0x1F\n",
        "body: |2\n   indented\n",
        "title: a\n  continued\n",
        "tags: [*.py]\n",
        "title: 'a\n",
        "title: a\r\n",
        "\ufeffid: a\n",
        "created: 2026-11-30T10:00:00\n",
    ):
        assert yamlfast.load(text) is None, text
