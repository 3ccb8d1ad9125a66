"""The index of what the budget left out: every left-out memory is listed by title or counted, never silently
dropped; the index keeps its own bound and the tools' hard limits; readers of the block keep it whole."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from gitmem.compile import block, leftout, plan
from gitmem.hook import inject
from gitmem.memory.model import Memory
from gitmem.tools import TARGET_BY_NAME as BY_NAME
from gitmem.tools import TARGETS
from tests.compile.conftest import WriteMemory, set_config
from tests.conftest import Run


def _memory(number: int, **fields: object) -> Memory:
    values: dict[str, object] = {
        "id": f"rule-{number:04d}",
        "title": f"Rule {number} about the {('api', 'web', 'infra')[number % 3]} part of the project",
        "kind": ("convention", "pitfall", "fact")[number % 3],
        "status": "active",
        "body": "Why: " + "because " * (number % 7),
        "tags": [("api", "web", "infra", "testing")[number % 4]] if number % 5 else [],
    }
    if number % 4 == 0:
        values["paths"] = (f"{('api', 'web')[number % 2]}/**",)
    values.update(fields)
    return Memory(**values)  # type: ignore[arg-type]


def _index(text: str) -> tuple[list[str], int]:
    """The ids listed by the index of a file's text, and how many memories its count line counts."""
    listed, counted = [], 0
    found = block.scan(text).found
    assert found is not None
    footer = block.split(found.body).footer
    for line in footer.splitlines()[2:]:
        if line.startswith("- "):
            listed.append(line.rsplit("`", 2)[1])
        else:
            counted = int(line.split(" ", 1)[0])
    return listed, counted


@pytest.mark.parametrize("count", [5, 100, 1000])
@pytest.mark.parametrize(
    "target", [BY_NAME["agents"], BY_NAME["claude"], BY_NAME["devin"]], ids=lambda t: t.name
)
def test_every_left_out_memory_is_listed_or_counted(target: object, count: int) -> None:
    memories = [_memory(number) for number in range(count)]
    target_plan = plan.plan_targets([target], memories, {target.name: 200})[0]  # type: ignore[list-item]
    assert target_plan.omitted
    text = target_plan.files[target_plan.target.root_file].text()
    listed, counted = _index(text)
    assert len(listed) + counted == len(target_plan.omitted)
    assert set(listed) <= set(target_plan.omitted)
    assert len(set(listed)) == len(listed)  # each one line, once
    assert target_plan.index_chars <= leftout.INDEX_TOKENS * leftout.CHARS_PER_TOKEN
    assert target_plan.tokens <= 200  # the budget is the budget's: the index is beside it
    # listed in the order the budget keeps them, those that apply everywhere first
    unscoped = [m.id for m in plan.budget.keep_order(memories) if m.id in listed and not m.paths]
    assert listed[: len(unscoped)] == unscoped
    assert "This block holds" in text and f"of the {count} memories in full" in text


def test_the_index_says_where_to_read_and_names_no_entry() -> None:
    memories = [_memory(number) for number in range(30)]
    target_plan = plan.plan_targets([BY_NAME["agents"]], memories, {"agents": 100})[0]
    text = target_plan.files["AGENTS.md"].text()
    assert "read `.memory/memories/<id>.yaml`" in text
    # the readers of a block do not take an index line for an entry: the merge driver keeps it in the footer, and
    # the prompt hook does not count a listed memory as loaded (it is still injected in full when a prompt needs it)
    found = block.scan(text).found
    assert found is not None
    parsed = block.split(found.body)
    assert {entry.id for entry in parsed.entries} == set(target_plan.compiled)
    assert block.assemble(parsed) == found.body
    listed, _ = _index(text)
    assert listed


def test_the_prompt_hook_does_not_count_index_lines_as_loaded(tmp_path: Path) -> None:
    memories = [_memory(number) for number in range(30)]
    target_plan = plan.plan_targets([BY_NAME["agents"]], memories, {"agents": 100})[0]
    file = tmp_path / "AGENTS.md"
    file.write_text(target_plan.files["AGENTS.md"].text(), encoding="utf-8")
    assert inject.loaded_ids([file], tmp_path) == set(target_plan.compiled)


def test_a_shared_packs_memory_is_read_with_show() -> None:
    memories = [_memory(number, id=f"acme/rule-{number}") for number in range(20)]
    target_plan = plan.plan_targets([BY_NAME["agents"]], memories, {"agents": 100})[0]
    assert "an id `PACK/ID`: `gitmem show PACK/ID`" in target_plan.files["AGENTS.md"].text()


@pytest.mark.parametrize(
    "target", [t for t in TARGETS if leftout.has_hard_size_limit(t)], ids=lambda t: t.name
)
def test_the_index_gives_way_to_a_hard_limit(target: object) -> None:
    memories = [_memory(number, title="A long title " * 8 + str(number)) for number in range(400)]
    for reserved in (0, 20_000, 40_000):
        budgets = {target.name: 200}  # type: ignore[attr-defined]
        target_plan = plan.plan_targets(
            [target], memories, budgets, reserved={target.name: reserved}
        )[0]  # type: ignore[list-item, attr-defined]
        limit = min(lim.value for lim in target_plan.target.limits if lim.hard)
        assert reserved > limit or reserved + target_plan.chars + target_plan.index_chars <= limit


def test_compile_lists_the_left_out_memories_in_the_rules_file(
    project: Path, memory: WriteMemory, run: Run
) -> None:
    set_config(project, targets=["agents"], budget=150)
    for number in range(12):
        memory(
            f"rule-{number:02d}",
            f"Project rule number {number} about naming things",
            body="why: " + "x" * 100,
        )
    result = run("compile")
    assert result.code == 0, result.err
    text = (project / "AGENTS.md").read_text(encoding="utf-8")
    listed, counted = _index(text)
    entries = {entry.id for entry in block.entries_of(text)}
    assert entries | set(listed) == {f"rule-{number:02d}" for number in range(12)} and counted == 0
    assert run("compile", "--check").code == 0  # deterministic, and its own block reads back
    (stats,) = json.loads(run("stats", "--json").out)["targets"]
    index_part = text[text.index("This block holds") : text.index("<!-- gitmem:end")]
    assert stats["index_tokens"] == -(-len(index_part) // 4) and stats["tokens"] <= 150


@pytest.mark.parametrize("count", [12, 400])
def test_the_plan_knows_which_memories_its_index_lines_name(count: int) -> None:
    memories = [_memory(number) for number in range(count)]
    target_plan = plan.plan_targets([BY_NAME["agents"]], memories, {"agents": 200})[0]
    root = target_plan.files[target_plan.target.root_file]
    listed, _counted = _index(root.text())
    assert listed and root.listed == tuple(listed)
    assert all(
        not file_plan.listed for path, file_plan in target_plan.files.items() if path != "AGENTS.md"
    )


def test_explain_says_which_memories_arrive_only_as_index_lines(
    project: Path, memory: WriteMemory, run: Run
) -> None:
    set_config(project, targets=["agents"], budget=150)
    for number in range(12):
        memory(
            f"rule-{number:02d}",
            f"Project rule number {number} about naming things",
            body="why: " + "x" * 100,
        )
    assert run("compile").code == 0
    listed, _counted = _index((project / "AGENTS.md").read_text(encoding="utf-8"))
    views = {view["name"]: view for view in json.loads(run("explain", "--json").out)["clients"]}
    codex = views["codex"]
    assert [item["id"] for item in codex["index"]] == listed
    assert all(item["tokens"] > 0 for item in codex["index"])
    full = {item["id"] for item in codex["full"]}
    assert full | set(listed) == {f"rule-{number:02d}" for number in range(12)}
    assert not full & set(listed) and codex["on_demand"] == []
    text = run("explain", "--client", "codex").out
    assert f"as index lines only ({len(listed)}, " in text and listed[0] in text
