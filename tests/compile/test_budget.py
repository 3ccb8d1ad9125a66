"""The token budget: exact accounting, the order memories are kept in, the recall line, and hard
limits."""

from __future__ import annotations

import re
from datetime import date
from pathlib import Path

import pytest

from gitmem.compile import budget, plan, render
from gitmem.memory.model import Memory
from gitmem.tools import TARGET_BY_NAME as BY_NAME
from gitmem.tools import TARGETS
from tests.compile.conftest import WriteMemory, set_config
from tests.conftest import Run


def _memory(memory_id: str, **fields: object) -> Memory:
    values: dict[str, object] = {
        "title": f"Title of {memory_id}",
        "kind": "convention",
        "status": "active",
    }
    values.update(fields)
    return Memory(id=memory_id, **values)  # type: ignore[arg-type]


def test_keep_order_is_priority_then_kind_then_age_then_id() -> None:
    memories = [
        _memory("low-convention", priority="low"),
        _memory("fact", kind="fact"),
        _memory("new-pitfall", kind="pitfall", created=date(2026, 5, 1)),
        _memory("old-pitfall", kind="pitfall", created=date(2024, 5, 1)),
        _memory("b-convention"),
        _memory("a-convention"),
        _memory("high-fact", kind="fact", priority="high"),
    ]
    assert [m.id for m in budget.keep_order(memories)] == [
        "high-fact",
        "a-convention",
        "b-convention",
        "old-pitfall",
        "new-pitfall",
        "fact",
        "low-convention",
    ]


@pytest.mark.parametrize("target", TARGETS, ids=lambda t: t.name)
def test_the_count_is_exact_for_every_target(target: object) -> None:
    from gitmem.tools import Target

    assert isinstance(target, Target)
    memories = [
        _memory(
            f"m{i:02d}",
            kind=("convention", "pitfall", "fact")[i % 3],
            paths=(("web/**",), ("*.py",), ())[i % 3],
        )
        for i in range(30)
    ]
    for tokens in (10_000, 300, 120):
        target_plan = plan.plan_targets([target], memories, {target.name: tokens})[0]
        text = "".join(file_plan.text() for file_plan in target_plan.files.values())
        assert target_plan.chars + target_plan.index_chars == len(
            text
        )  # the budget's part and the index's
        if target_plan.omitted:
            assert target_plan.tokens <= tokens or not target_plan.compiled


def _one(memories: list[Memory], tokens: int, mcp: bool = False) -> plan.TargetPlan:
    return plan.plan_targets([BY_NAME["agents"]], memories, {"agents": tokens}, mcp)[0]


def test_over_budget_keeps_by_priority_and_lists_the_rest() -> None:
    body = "Why: " + "because " * 40
    memories = [
        _memory("low", priority="low", body=body),
        _memory("normal", body=body),
        _memory("high", priority="high", body=body),
    ]
    everything = _one(memories, 10_000)
    assert everything.compiled == ["high", "normal", "low"] and everything.omitted == []
    # the smallest budget that holds everything but the low-priority memory, and the recall line
    needed = (
        everything.chars
        - len(render.entry_text(memories[0]))
        + len("\n" + render.footer(False) + "\n")
    )
    tokens = budget.tokens(needed)
    assert tokens * 4 < everything.chars
    squeezed = _one(memories, tokens)
    assert squeezed.compiled == ["high", "normal"] and squeezed.omitted == ["low"]
    assert squeezed.chars == needed and squeezed.tokens <= squeezed.budget
    assert _one(memories, tokens - 1).compiled == ["high"]
    text = squeezed.files["AGENTS.md"].text()
    assert text.endswith(
        '\nMore project memories were left out to fit the token budget: run `gitmem recall "QUERY"` to find the '
        "ones your task needs.\nThis block holds 2 of the 3 memories in full. Each line below is one left out, its "
        "title then its id: when your task touches what one says, read `.memory/memories/<id>.yaml`.\n"
        "- Title of low: `low`\n<!-- gitmem:end -->\n"
    )


def test_a_long_memory_does_not_crowd_out_shorter_ones_after_it() -> None:
    memories = [
        _memory("short-a", priority="high"),
        _memory("long", body="x" * 4000),
        _memory("short-b", priority="low"),
    ]
    result = _one(memories, 300)
    assert result.compiled == ["short-a", "short-b"] and result.omitted == ["long"]


def test_the_recall_line_names_the_mcp_tool_when_configured() -> None:
    memories = [_memory(f"m{i}", body="y" * 400) for i in range(10)]
    text = _one(memories, 300, mcp=True).files["AGENTS.md"].text()
    assert (
        'run `gitmem recall "QUERY"` or call the `recall` tool of the `gitmem` MCP server' in text
    )


def test_compile_lists_what_the_budget_left_out(
    project: Path, memory: WriteMemory, run: Run
) -> None:
    set_config(project, targets=["agents"])
    memory("keep-me", "Kept", priority="high")
    for i in range(12):
        memory(f"long-{i:02d}", f"Long memory {i}", priority="low", body="words " * 200)
    result = run("compile", "--budget", "400")
    assert result.code == 0, result.err
    omitted = [f"long-{i:02d}" for i in range(12)]
    text = (project / "AGENTS.md").read_text(encoding="utf-8")
    kept = [i for i in omitted if f"(`{i}`" in text]
    left = [i for i in omitted if i not in kept]
    assert "(`keep-me`, high priority)" in text and left
    assert result.lines[1] == (
        f"left out by the budget: agents {len(left)} of 13 (400 tokens); `gitmem stats` lists them and why, "
        "`gitmem recall` finds them"
    )
    assert (
        len(result.lines) == 3
    )  # created AGENTS.md, the one summary of what was left out, compiled …
    assert len(text) <= 400 * 4


def test_a_budget_past_a_hard_limit_is_fitted_to_it_not_truncated(
    project: Path, memory: WriteMemory, run: Run
) -> None:
    """A budget whose block would pass a client's hard size limit (Devin Desktop's 12,000
    characters) is kept to what fits: compile says so and writes, the memories past it go to the
    index and recall; before, compile failed on every run (and every commit, through the hook) until
    the budget was lowered by hand."""
    # claude, not agents: Devin Desktop reads AGENTS.md, so beside agents it would get no copy of
    # its own to hold
    set_config(project, targets=["claude", "devin"], budget={"devin": 10_000, "claude": 10_000})
    for i in range(30):
        memory(f"m{i:02d}", f"Memory {i}", body="a fairly long explanation " * 20)
    result = run("compile")
    assert result.code == 0, result.err
    assert re.search(
        r"warning: devin: its block is kept to [\d,]+ tokens \(budget 10,000\)", result.err
    )
    rule = (project / ".devin" / "rules" / "gitmem.md").read_text(encoding="utf-8")
    assert len(rule) <= 12_000 and "- Memory 0 (`m00`)" in rule
    assert "Memory 29" in (project / ".claude" / "CLAUDE.md").read_text(encoding="utf-8")
    assert run("compile", "--check").code == 0


def test_codex_chain_limit_counts_hand_written_text(
    project: Path, memory: WriteMemory, run: Run
) -> None:
    """A hand-written AGENTS.md of 29 KB: the nested web/AGENTS.md compile adds is kept within
    Codex's 32 KiB of the chain, and the team's text keeps every byte."""
    set_config(project, targets=["agents"])
    hand = "# Big\n\n" + "hand-written line\n" * 1650
    (project / "AGENTS.md").write_text(hand, encoding="utf-8")
    memory("web", "Web rule", paths=["web/**"])
    result = run("compile")
    assert result.code == 0, result.err
    assert "warning: agents: its block is kept to" in result.err
    chain = (project / "AGENTS.md").read_bytes() + (project / "web" / "AGENTS.md").read_bytes()
    assert len(chain) <= 32 * 1024 and b"Web rule" in chain
    assert (project / "AGENTS.md").read_text(encoding="utf-8").endswith(hand)


def test_soft_limits_warn(project: Path, memory: WriteMemory, run: Run) -> None:
    set_config(project, targets=["copilot"])
    for i in range(10):
        memory(f"m{i}", f"Memory {i}", body="explanation " * 50)
    result = run("compile")
    assert result.code == 0
    assert ".github/copilot-instructions.md: " in result.err
    assert (
        "over the limit of 4,000 (Copilot code review on GitHub reads only the first 4,000 characters"
        in result.err
    )
    again = run("compile")  # said when the file changes; `gitmem stats` shows it any time
    assert again.code == 0 and again.err == ""
    stats = run("stats")
    assert "4,000 chars in .github/copilot-instructions.md OVER" in stats.out
