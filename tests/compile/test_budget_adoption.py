"""The budget on adopted repositories (issue 15): which imported memories a small budget keeps, and
a hand-written AGENTS.md chain that is already over Codex's 32 KiB."""

from __future__ import annotations

import json
import re
import subprocess
from datetime import date
from pathlib import Path

from gitmem.compile import budget
from gitmem.memory.model import Memory
from tests.compile.conftest import WriteMemory, set_config
from tests.conftest import Run

# Rules in the order a team wrote them: deliberately not alphabetical, and all of one kind and date
# once imported.
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
    values: dict[str, object] = {
        "title": f"Title of {memory_id}",
        "kind": "convention",
        "status": "active",
    }
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
        _memory(
            "harvested", created=day, source="journal", origin="journal/x.md:1"
        ),  # not a rules file's place
    ]
    order = [memory.id for memory in budget.keep_order(memories)]
    assert order == ["z-early", "m-middle", "a-late", "c-short", "harvested", "b-long"]


def test_a_small_budget_keeps_the_top_of_an_imported_file_in_one_piece(
    repo: Path, run: Run
) -> None:
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
        lines.append(
            f"- Rule {number}: keep the service boundaries as the architecture document draws them."
        )
    return "\n".join(lines) + "\n"


def test_a_hand_written_chain_already_over_32_kib_still_delivers_and_says_what_to_do(
    project: Path, memory: WriteMemory, run: Run
) -> None:
    """Issue 30, shape 2: the team's AGENTS.md alone is past Codex's 32 KiB. On 6dd9a58 compile held
    the target and exited 1 on every run (so the compile hook refused every commit touching
    .memory/) while saying "up to date". Now the block goes first in the file, where Codex reads it
    before it cuts, every hand-written byte kept after it; compile exits 0 and warns; `gitmem check`
    fails, naming the file and the fix, until the text is shorter."""
    hand = _hand_written(40_000)
    (project / "AGENTS.md").write_text(hand, encoding="utf-8")
    (project / "CLAUDE.md").symlink_to("AGENTS.md")
    (project / "api").mkdir()
    (project / "api" / "AGENTS.md").write_text("# API\n\n- Use FastAPI.\n", encoding="utf-8")
    memory("use-pnpm", "Use pnpm")
    memory("api-json", "API errors are problem+json", paths=["api/**"])
    result = run("compile")
    assert result.code == 0, result.err
    assert "up to date" not in result.out
    text = (project / "AGENTS.md").read_text(encoding="utf-8")
    assert text.startswith("<!-- gitmem:begin") and text.index("(`use-pnpm`)") < 32 * 1024
    assert text.endswith(hand)  # every hand-written byte, after the block
    (warning,) = [line for line in result.err.splitlines() if "hand-written text alone" in line]
    assert "AGENTS.md: the hand-written text alone is" in warning
    assert "`gitmem import --accept --move --left-out AGENTS.md`" in warning
    again = run("compile")
    assert again.code == 0 and "up to date" in again.out  # stable: the block stays first
    assert run("compile", "--check").code == 0

    stats = json.loads(run("stats", "--json").out)
    agents = next(t for t in stats["targets"] if t["name"] == "agents")
    chain = [use for use in agents["limits"] if use["measure"] == "chain_bytes" and use["over"]]
    assert [(use["path"], use["hand_written"]) for use in chain] == [
        ("AGENTS.md", len(hand.encode()))
    ]
    claude = next(t for t in stats["targets"] if t["name"] == "claude")
    # Claude Code reads CLAUDE.md, which is AGENTS.md (round 45: what its client reads), and its
    # own file in api/; each file once
    assert [f["path"] for f in claude["files"]] == ["CLAUDE.md", "api/CLAUDE.md"]
    assert claude["files"][0]["tokens"] == agents["files"][0]["tokens"]
    assert claude["tokens"] > claude["files"][0]["tokens"] > 0  # its api/ file's too
    subprocess.run(["git", "add", "-A"], cwd=project, check=True)
    checked = run("check")
    assert checked.code == 1
    assert "AGENTS.md (Codex reads at most 32 KiB" in checked.out
    assert "`gitmem import --accept --move --left-out AGENTS.md`" in checked.out


def test_a_chain_over_by_gitmem_is_fitted_by_compile(
    project: Path, memory: WriteMemory, run: Run
) -> None:
    """30 KB of hand-written AGENTS.md and a budget of 4,000 tokens: compile keeps the block to what
    Codex's 32 KiB leaves (before, it failed and named a budget to set by hand)."""
    (project / "AGENTS.md").write_text(_hand_written(30_000), encoding="utf-8")
    set_config(project, targets=["agents"], budget=4000)
    for number in range(40):
        memory(
            f"rule-{number:02d}",
            f"Project rule number {number} about naming things",
            body="why: " + "x" * 200,
        )
    result = run("compile")
    assert result.code == 0, result.err
    assert re.search(r"agents: its block is kept to [\d,]+ tokens \(budget 4,000\)", result.err)
    assert len((project / "AGENTS.md").read_bytes()) <= 32 * 1024


def test_the_index_leaves_room_for_the_hand_written_nested_agents_md_below_it(
    project: Path, memory: WriteMemory, run: Run
) -> None:
    """Field corpus, charmbracelet/crush: a hand-written AGENTS.md of 10 KB and a hand-written
    ui/AGENTS.md of 11 KB (21 KB together, under Codex's 32 KiB). On a35a997 the index of what the
    budget left out filled the root file up to the limit as if it were read alone, so Codex started
    in ui/ read 35 KB and cut the end: compile said nothing, `gitmem check` failed on ui/AGENTS.md.
    The root's block now leaves the nested chain its room."""
    (project / "AGENTS.md").write_text(_hand_written(10_000), encoding="utf-8")
    (project / "ui").mkdir()
    (project / "ui" / "AGENTS.md").write_text(_hand_written(11_000), encoding="utf-8")
    set_config(project, targets=["agents"])
    memory("ui-rule", "Keep the ui widgets stateless", paths=["ui/**"], priority="low")
    for number in range(160):
        memory(
            f"rule-{number:03d}",
            f"Project rule number {number} about naming things in the code base",
        )
    result = run("compile")
    assert result.code == 0, result.err
    chain = len((project / "AGENTS.md").read_bytes()) + len(
        (project / "ui" / "AGENTS.md").read_bytes()
    )
    assert chain <= 32 * 1024
    subprocess.run(["git", "add", "-A"], cwd=project, check=True)
    checked = run("check")
    assert "is past a hard size limit" not in checked.out, checked.out
