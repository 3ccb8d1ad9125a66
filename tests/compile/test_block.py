"""The managed block: finding it among hand-written text, hashes, splicing, and the merge-driver contract."""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from gitmem.compile import block
from gitmem.compile.block import BlockError, Entry

BODY = "## Project memories\n\nIntro.\n\n### Conventions\n\n- Use pnpm (`use-pnpm`)\n"
BLOCK = block.block_text(BODY)


def test_a_block_round_trips_and_its_hash_is_checked() -> None:
    text = "# Title\n\n" + BLOCK + "\nafter\n"
    found = block.scan(text).found
    assert found is not None
    assert (found.before, found.body, found.after, found.line) == (
        "# Title\n\n",
        BODY,
        "\nafter\n",
        3,
    )
    assert not found.edited()
    edited = text.replace("Use pnpm", "Use npm")
    found = block.scan(edited).found
    assert found is not None and found.edited()


def test_crlf_files_keep_their_line_endings_and_hash() -> None:
    text = "# Title\r\n\r\nhand\r\n"
    spliced = block.splice(text, None, BLOCK)
    assert spliced == text + BLOCK.replace("\n", "\r\n")
    found = block.scan(spliced).found
    assert found is not None and not found.edited()


QUOTED_MARKERS = [
    # mid-paragraph, in backticks, in a fenced code block, indented, in a blockquote
    "See the `<!-- gitmem:begin -->` marker.\n",
    "Our block starts at <!-- gitmem:begin --> and ends at <!-- gitmem:end -->\n",
    "<!-- gitmem:begin --> then prose on the same line\n",
    "```markdown\n<!-- gitmem:begin hash=0123456789abcdef: x -->\n- fake (`fake`)\n<!-- gitmem:end -->\n```\n",
    "~~~~\n<!-- gitmem:end -->\n~~~~\n",
    "    <!-- gitmem:begin -->\n",
    "> <!-- gitmem:end -->\n",
]


@pytest.mark.parametrize("prose", QUOTED_MARKERS)
def test_marker_text_quoted_in_prose_is_not_a_marker(prose: str) -> None:
    assert block.scan(prose).found is None
    text = prose + "\n" + BLOCK + prose
    found = block.scan(text).found
    assert found is not None
    assert found.before == prose + "\n" and found.after == prose and found.body == BODY


@pytest.mark.parametrize(
    ("text", "line", "message"),
    [
        (
            "a\n<!-- gitmem:begin -->\nb\n",
            2,
            "a gitmem begin marker without its end marker (<!-- gitmem:end -->)",
        ),
        ("a\n<!-- gitmem:end -->\n", 2, "a gitmem end marker without a begin marker before it"),
        (BLOCK + BLOCK, 10, "a second gitmem block (the first begins at line 1)"),
        (
            "<!-- gitmem:begin -->\n<!-- gitmem:begin -->\n<!-- gitmem:end -->\n",
            2,
            "a second gitmem begin marker inside the block begun at line 1",
        ),
    ],
)
def test_markers_that_do_not_pair_up_are_errors(text: str, line: int, message: str) -> None:
    with pytest.raises(BlockError) as info:
        block.scan(text)
    assert (info.value.line, info.value.message) == (line, message)


def test_an_unclosed_fence_is_reported_so_no_block_is_appended_into_code() -> None:
    result = block.scan("intro\n```python\nprint(1)\n")
    assert result.found is None and result.open_fence == 2


def test_an_empty_placeholder_block_is_not_a_hand_edit() -> None:
    found = block.scan("hand\n<!-- gitmem:begin -->\n<!-- gitmem:end -->\nmore\n").found
    assert found is not None and not found.edited()
    found = block.scan("<!-- gitmem:begin -->\nsomething\n<!-- gitmem:end -->\n").found
    assert found is not None and found.edited()


def test_whole_files_hash_everything_but_their_marker_line() -> None:
    text = block.whole_text("---\nalwaysApply: true\n---\n", BODY)
    found = block.scan(text).found
    assert found is not None and found.kind == "file-hash" and not found.edited()
    for edit in (text.replace("true", "false"), text.replace("Intro", "Intro!")):
        changed = block.scan(edit).found
        assert changed is not None and changed.edited()


def test_seal_recomputes_the_hash() -> None:
    edited = ("x\n\n" + BLOCK).replace("Use pnpm", "Use yarn")
    sealed = block.seal(edited)
    found = block.scan(sealed).found
    assert found is not None and not found.edited() and "Use yarn" in sealed
    whole = block.whole_text("---\na: b\n---\n", BODY).replace("a: b", "a: c")
    found = block.scan(block.seal(whole)).found
    assert found is not None and not found.edited()


def test_resolve_side_takes_one_side_of_each_hunk() -> None:
    text = "a\n<<<<<<< HEAD\nours\n||||||| base\nbase\n=======\ntheirs\n>>>>>>> branch\nz\n"
    assert block.resolve_side(text, "ours") == "a\nours\nz\n"
    assert block.resolve_side(text, "theirs") == "a\ntheirs\nz\n"


# -- hand-written text around the block is kept byte for byte ------------------------------------------------------

_FRAGMENTS = st.one_of(
    st.text(alphabet=st.characters(blacklist_categories=("Cs",)), max_size=40),
    st.sampled_from(
        [
            "\n",
            "\r\n",
            "\n\n",
            "# Heading\n",
            "- a list item\n",
            "`<!-- gitmem:begin -->`",
            " <!-- gitmem:end -->",
            "text <!-- gitmem:begin hash=0123456789abcdef: x --> text\n",
            "```\n<!-- gitmem:begin -->\n<!-- gitmem:end -->\n```\n",
            "~~~\n<<<<<<< HEAD\n~~~\n",
            "    <!-- gitmem:end -->\n",
            "<!--",
            "-->",
            "\u00e9\u4e2d\U0001f600",
        ]
    ),
)
HAND_TEXT = st.lists(_FRAGMENTS, max_size=12).map("".join)


def _plain(text: str) -> bool:
    """Hand-written text as gitmem's parser sees it: no block, no stray marker, no open fence, no conflict."""
    try:
        result = block.scan(text)
    except BlockError:
        return False
    return result.found is None and result.open_fence is None and not result.conflicts


@pytest.mark.slow
@settings(max_examples=300, suppress_health_check=[HealthCheck.too_slow])
@given(HAND_TEXT)
def test_appending_and_removing_a_block_keeps_hand_text(text: str) -> None:
    assume(_plain(text))
    with_block = block.splice(text, None, BLOCK)
    found = block.scan(with_block).found
    assert found is not None and not found.edited()
    assert with_block.startswith(text)
    newline = block.newline_of(text)
    expected = text if not text or text.endswith("\n") else text + newline
    assert block.remove(found) == expected
    # compiling again with other memories changes only the block
    other = block.block_text(BODY.replace("pnpm", "yarn"))
    again = block.splice(with_block, found, other)
    assert again.startswith(text) and block.scan(again).found is not None


@settings(max_examples=300, suppress_health_check=[HealthCheck.too_slow])
@given(HAND_TEXT, HAND_TEXT)
def test_text_before_and_after_a_block_is_kept(before: str, after: str) -> None:
    if before and not before.endswith("\n"):
        before += "\n"
    assume(_plain(before) and _plain(after))
    text = before + BLOCK + after
    found = block.scan(text).found
    assert found is not None
    updated = block.splice(text, found, block.block_text(BODY.replace("pnpm", "bun")))
    assert updated.startswith(before) and updated.endswith(after)
    assert "bun" in updated


# -- the merge-driver contract --------------------------------------------------------------------------------------


def _entry(
    memory_id: str, kind: str = "convention", label: str = "", priority: str = "normal"
) -> Entry:
    suffix = "" if priority == "normal" else f", {priority} priority"
    return Entry(
        memory_id,
        kind,
        label,
        priority,
        f"- Title of {memory_id} (`{memory_id}`{suffix})\n  body\n",
    )


def test_split_and_assemble_are_inverse() -> None:
    entries = (
        _entry("zeta", priority="high"),
        _entry("alpha"),
        _entry("mid", priority="low"),
        _entry("trap", kind="pitfall"),
        _entry("py", kind="pitfall", label="files matching `**/*.py`"),
    )
    original = block.Block(
        "## Project memories\n\nIntro.\n", entries, block.FOOTER_PREFIX + " to fit: recall."
    )
    body = block.assemble(original)
    parsed = block.split(body)
    assert parsed.preamble == original.preamble and parsed.footer == original.footer
    assert sorted(parsed.entries, key=lambda e: e.id) == sorted(entries, key=lambda e: e.id)
    assert block.assemble(parsed) == body
    ids = [e.id for e in parsed.entries]
    assert ids == ["zeta", "alpha", "mid", "trap", "py"]  # group order, then priority, then id


def test_merge_takes_each_sides_changes_by_id() -> None:
    pre = "## Project memories\n"
    base = block.Block(pre, (_entry("a"), _entry("b")))
    ours = block.Block(pre, (_entry("a"), _entry("b"), _entry("c")))  # added c
    theirs = block.Block(pre, (_entry("a"),))  # removed b (a revert)
    merged = block.merge(base, ours, theirs)
    assert [e.id for e in merged.block.entries] == ["a", "c"] and merged.conflicts == []
    changed_ours = block.Block(pre, (_entry("a", priority="high"),))
    changed_theirs = block.Block(pre, (_entry("a", priority="low"),))
    conflict = block.merge(base, changed_ours, changed_theirs)
    assert conflict.conflicts == ["a"] and conflict.block.entries[0].priority == "high"


def test_a_block_with_stray_lines_does_not_split() -> None:
    with pytest.raises(BlockError) as info:
        block.split("## Project memories\n\n### Conventions\n\n- x (`x`)\nstray line\n")
    assert info.value.line == 6


# The entry line's format as the design writes it, as one pattern (the reference; the reader uses string methods).
_ENTRY_FORMAT = (
    r"- .* \(`((?:[a-z0-9][a-z0-9-]{0,63}/)?[a-z0-9][a-z0-9-]{0,63})`(?:, (high|low) priority)?\)"
)
_ID_PART = st.sampled_from(["a", "z9", "a-b", "-a", "A", "x" * 64, "x" * 65, "", "é", "a b", "a`"])
_ENTRY_LINES = st.tuples(
    st.sampled_from(["- ", "-", "", "* ", "- (`"]),
    st.sampled_from(["", "Use pnpm", " ", "(`x`)", " (`x`) ", "`"]),
    st.sampled_from([" (`", "(`", " ( `", " (`a/"]),
    st.lists(_ID_PART, min_size=1, max_size=3).map("/".join),
    st.sampled_from(
        [
            "`)",
            "`, high priority)",
            "`, low priority)",
            "`, medium priority)",
            "`",
            ")",
            "`) ",
            "`)x",
        ]
    ),
).map("".join)


@settings(max_examples=3000, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.one_of(_ENTRY_LINES, st.text(max_size=20)))
def test_an_entry_line_is_read_as_its_format_says(line: str) -> None:
    import re

    expected = re.fullmatch(_ENTRY_FORMAT, line)
    found = block._entry(line)
    assert found == (expected and (expected.group(1), expected.group(2) or "normal")), line


@pytest.mark.parametrize(
    ("line", "found"),
    [
        ("- Use pnpm (`use-pnpm`)", ("use-pnpm", "normal")),
        ("- Use pnpm (`team/use-pnpm`, high priority)", ("team/use-pnpm", "high")),
        ("- a (`x`) and b (`y`, low priority)", ("y", "low")),
        ("- (`x`)", None),  # the text before the id is at least empty, after "- "
        ("-  (`x`)", ("x", "normal")),
        ("- a (`a/b/c`)", None),
        ("- a (`x`, medium priority)", None),
    ],
)
def test_entry_lines(line: str, found: tuple[str, str] | None) -> None:
    assert block._entry(line) == found
