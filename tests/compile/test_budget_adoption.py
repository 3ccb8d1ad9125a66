"""The budget on adopted repositories (issue 15): which imported memories a small budget keeps, and a hand-written
AGENTS.md chain that is already over Codex's 32 KiB."""

from __future__ import annotations

import json
import re
from datetime import date
from pathlib import Path

from gitmem.compile import budget
from gitmem.memory.model import Memory
from tests.compile.conftest import WriteMemory, set_config
from tests.conftest import Run

# Rules in the order a team wrote them: deliberately not alphabetical, and all of one kind and date once imported.
RULES = [
    "Use pnpm for every install, never npm or yarn",
    "Run the type checker before saying a task is done",
    "Keep handlers thin: business logic lives in services",
    "Add a changelog entry for every user-visible change",
    "Prefer composition over inheritance in new modules",
    "Write tests next to the code they cover",
    "Name feature flags after the ticket that adds them",
    "Do not add dependencies without asking first",
    "Log with the structured logger, never print",
    "Break long functions into named steps",
]


def _memory(memory_id: str, **fields: object) -> Memory:
    values: dict[str, object] = {"title": f"Title of {memory_id}", "kind": "convention", "status": "active"}
    values.update(fields)
    return Memory(id=memory_id, **values)  # type: ignore[arg-type]


def test_ties_keep_an_imported_file_in_order_then_the_shorter_then_the_id() -> None:
    day = date(2026, 1, 1)
    memories = [
        _memory("a-late", created=day, source="import", origin="AGENTS.md:40"),
        _memory("z-early", created=day, source="import", origin="AGENTS.md:3"),
        _memory("m-middle", created=day, source="import", origin="AGENTS.md:12"),
        _memory("b-long", created=day, body="x" * 300),
        _memory("c-short", created=day),
        _memory("harvested", created=day, source="journal", origin="journal/x.md:1"),  # not a rules file's place
    ]
    order = [memory.id for memory in budget.keep_order(memories)]
    assert order == ["z-early", "m-middle", "a-late", "c-short", "harvested", "b-long"]


def test_a_small_budget_keeps_the_top_of_an_imported_file_in_one_piece(repo: Path, run: Run) -> None:
    text = "# Rules\n\n" + "".join(f"- {rule}\n" for rule in RULES)
    (repo / "AGENTS.md").write_text(text, encoding="utf-8")
    assert run("init", "--no-hooks").code == 0
    assert run("import", "--accept").code == 0
    set_config(repo, budget=230)
    result = run("compile", "--json")
    assert result.code == 0, result.err
    agents = next(t for t in json.loads(result.out)["targets"] if t["name"] == "agents")
    titles = {m["id"]: m["title"] for m in json.loads(run("list", "--json").out)}
    kept = [titles[i] for i in agents["compiled"]]
    assert 0 < len(kept) < len(RULES)
    assert kept == RULES[: len(kept)]  # the first rules of the file, in order: no fragments

    stats = json.loads(run("stats", "--json").out)
    left = next(t for t in stats["targets"] if t["name"] == "agents")["left_out"]
    first_left = RULES.index(titles[left[0]["id"]])
    assert first_left == len(kept)
    assert f"imported from AGENTS.md line {3 + first_left}" in left[0]["why"]
    shown = run("stats")
    assert "then an imported file's order" in shown.out
    assert f"  agents: {left[0]['id']} (normal priority, convention, " in shown.out


def _hand_written(size: int) -> str:
    lines = ["# Project rules", ""]
    number = 0
    while sum(len(line) + 1 for line in lines) < size:
        number += 1
        lines.append(f"- Rule {number}: keep the service boundaries as the architecture document draws them.")
    return "\n".join(lines) + "\n"


def test_a_hand_written_chain_already_over_32_kib_says_what_to_do(project: Path, memory: WriteMemory, run: Run) -> None:
    (project / "AGENTS.md").write_text(_hand_written(40_000), encoding="utf-8")
    (project / "CLAUDE.md").symlink_to("AGENTS.md")
    (project / "api").mkdir()
    (project / "api" / "AGENTS.md").write_text("# API\n\n- Use FastAPI.\n", encoding="utf-8")
    memory("use-pnpm", "Use pnpm")
    memory("api-json", "API errors are problem+json", paths=["api/**"])
    result = run("compile")
    assert result.code == 1
    problems = [line for line in result.err.splitlines() if ": limit: " in line]
    assert len(problems) == 1, result.err  # one chain, one cause: the root file, not again for api/AGENTS.md
    match = re.fullmatch(
        r"AGENTS\.md:1:1: limit: ([\d,]+) bytes .*; the hand-written text alone is ([\d,]+) \(gitmem adds ([\d,]+)\), "
        r"so no budget fixes it: shorten the hand-written text, or turn it into memories the budget can order "
        r"\(`gitmem import --accept --move --left-out` moves those lines into \.memory/, the budget's share compiled "
        r"back\), then run `gitmem compile`",
        problems[0],
    )
    assert match, problems[0]
    used, hand, own = (int(group.replace(",", "")) for group in match.groups())
    assert hand == len(_hand_written(40_000).encode()) and used == hand + own

    stats = json.loads(run("stats", "--json").out)
    agents = next(t for t in stats["targets"] if t["name"] == "agents")
    chain = [use for use in agents["limits"] if use["measure"] == "chain_bytes" and use["over"]]
    assert [(use["path"], use["used"], use["hand_written"]) for use in chain] == [("AGENTS.md", used, hand)]
    claude = next(t for t in stats["targets"] if t["name"] == "claude")
    assert [f["path"] for f in claude["files"]] == ["api/CLAUDE.md"]  # CLAUDE.md is AGENTS.md: counted once
    assert claude["tokens"] == claude["files"][0]["tokens"]
    assert f"{used:,}/32,768 bytes (chain) in AGENTS.md OVER (hard)" in run("stats").out


def test_a_chain_over_by_gitmem_gets_a_budget_that_fixes_it(project: Path, memory: WriteMemory, run: Run) -> None:
    (project / "AGENTS.md").write_text(_hand_written(30_000), encoding="utf-8")
    set_config(project, targets=["agents"], budget=4000)
    for number in range(40):
        memory(f"rule-{number:02d}", f"Project rule number {number} about naming things", body="why: " + "x" * 200)
    result = run("compile")
    assert result.code == 1
    match = re.search(r"lower the budget of agents to about ([\d,]+) tokens", result.err)
    assert match, result.err
    set_config(project, targets=["agents"], budget=int(match.group(1).replace(",", "")))
    fixed = run("compile")
    assert fixed.code == 0, fixed.err
    assert len((project / "AGENTS.md").read_bytes()) <= 32 * 1024
