"""Compile's placement (gitmem/compile/delivery.py) for every pair of targets and for all at once: no client in
use receives a memory twice, and each receives every memory meant for it (at the root: those without paths; in
web/: the web/** one too, where the client has a file there). The real clients confirm it in
tests/clients/test_delivery.py; here the reading records (compile/readers.py) stand in for them, so every
combination can be checked."""

from __future__ import annotations

import itertools
import json
from pathlib import Path

import pytest

from gitmem.compile import delivery
from gitmem.compile.plan import plan_targets
from gitmem.memory.config import TARGET_NAMES
from gitmem.memory.model import Memory
from gitmem.tools import TARGETS
from tests.compile.conftest import WriteMemory, set_config
from tests.conftest import Run

COMBINATIONS = [*itertools.combinations(TARGET_NAMES, 2), tuple(TARGET_NAMES)]


def _memory(memory_id: str, paths: tuple[str, ...] = (), targets: tuple[str, ...] = ()) -> Memory:
    return Memory(
        memory_id, f"Rule {memory_id}", "convention", "active", paths=paths, targets=targets
    )


MEMORIES = [
    _memory("everyone"),
    _memory("web", ("web/**",)),
    _memory("python", ("**/*.py",)),
    *(_memory(f"only-{name}", targets=(name,)) for name in TARGET_NAMES),
]


def _plans(names: tuple[str, ...], hand_written: dict[str, str] | None = None) -> dict[str, object]:
    targets = [target for target in TARGETS if target.name in names]
    laid = delivery.layouts(targets, hand_written or {})
    plans = plan_targets(targets, MEMORIES, dict.fromkeys(names, 100_000), layouts=laid)
    return {plan.target.name: plan for plan in plans}


@pytest.mark.parametrize("names", COMBINATIONS, ids="+".join)
def test_every_client_receives_each_memory_once(names: tuple[str, ...]) -> None:
    plans = _plans(names)
    assert delivery.twice(plans) == []  # type: ignore[arg-type]
    for reader in delivery.in_use(plans):  # type: ignore[arg-type]
        at_root = [i for item in delivery.loads(reader, plans) for i in item.ids]  # type: ignore[arg-type]
        mine = {"everyone", f"only-{reader.own}"}
        assert mine <= set(at_root), (reader.client, names)
        laid_out = plans[reader.own].target  # type: ignore[attr-defined]
        assert "web" not in at_root or not laid_out.dir_file, (
            reader.client
        )  # (a private copy has no nested file)
        # no memory meant for another tool only
        assert {i for i in at_root if i.startswith("only-")} <= {f"only-{name}" for name in names}


def test_the_old_layout_fed_the_copilot_cli_every_memory_three_times() -> None:
    """The same records against the old layout (every target a full copy): the test above fails on it."""
    names = ("agents", "gemini", "copilot")
    targets = [target for target in TARGETS if target.name in names]
    plans = {
        p.target.name: p for p in plan_targets(targets, MEMORIES, dict.fromkeys(names, 100_000))
    }
    lines = delivery.twice(plans)
    assert lines[0].startswith(
        "GitHub Copilot CLI reads .github/copilot-instructions.md and AGENTS.md and GEMINI.md"
    )
    assert [line.split(" reads ")[0] for line in lines] == [
        "GitHub Copilot CLI",
        "GitHub Copilot code review",
    ]


def test_a_hand_written_import_is_the_one_duplicate_left() -> None:
    """A CLAUDE.md that imports @AGENTS.md by hand: Claude Code gets the hub through it (its block adds only what the
    hub lacks), and the Copilot CLI, which follows that import, is reported."""
    plans = _plans(("agents", "claude", "copilot"), {"claude": "# Notes\n@AGENTS.md\n"})
    assert plans["claude"].files == {} or all(  # type: ignore[attr-defined]
        entry.id == "only-claude"
        for fp in plans["claude"].files.values()
        for entry in fp.entries  # type: ignore[attr-defined]
    )
    assert [line.split(",")[0] for line in delivery.twice(plans)] == [  # type: ignore[arg-type]
        "GitHub Copilot CLI reads AGENTS.md and AGENTS.md (imported by CLAUDE.md)"
    ]
    assert delivery.twice(_plans(("agents", "claude"), {"claude": "@AGENTS.md\n"})) == []  # type: ignore[arg-type]


def test_explain_names_the_files_each_client_loads_in_a_folder(
    project: Path, memory: WriteMemory, run: Run
) -> None:
    set_config(project, targets=["agents", "gemini", "copilot"])
    memory("everyone", "Use pnpm")
    memory("web", "Web uses tabs", paths=["web/**"])
    memory("mine", "Copilot only", targets=["copilot"])
    assert run("compile").code == 0
    views = {
        v["name"]: v for v in json.loads(run("explain", "web/app.ts", "--json").out)["clients"]
    }
    gemini = views["gemini"]
    assert [(f["path"], f["via"]) for f in gemini["files"]] == [
        ("GEMINI.md", None),
        ("AGENTS.md", "GEMINI.md"),
        ("web/GEMINI.md", None),
        ("web/AGENTS.md", "web/GEMINI.md"),
    ]
    assert [item["id"] for item in gemini["full"]] == ["everyone", "web"]
    copilot = views["copilot"]
    assert sorted(item["id"] for item in copilot["full"]) == ["everyone", "mine", "web"]
    assert [item["id"] for item in views["codex"]["on_demand"]] == []
    at_root = {v["name"]: v for v in json.loads(run("explain", "--json").out)["clients"]}
    assert [item["id"] for item in at_root["codex"]["on_demand"]] == [
        "web"
    ]  # only in web/AGENTS.md
    assert at_root["codex"]["through"] == "recall"
    missing = run("explain", "--client", "nosuch")
    assert (
        missing.code == 2
        and "no configured target is read by a client called 'nosuch'" in missing.err
    )


WITH_BOTH = [names for names in COMBINATIONS if {"claude", "copilot"} <= set(names)]


@pytest.mark.parametrize("names", WITH_BOTH, ids="+".join)
def test_a_private_copy_is_one_file_at_the_root(names: tuple[str, ...]) -> None:
    """The Copilot CLI started at the root loads web/.claude/CLAUDE.md when it touches a file in web/ (measured,
    tests/clients/test_delivery.py), so Claude Code's private copy is one file at the root, globs under headings."""
    claude = _plans(names)["claude"]
    assert list(claude.files) == [".claude/CLAUDE.md"]  # type: ignore[attr-defined]
    text = claude.files[".claude/CLAUDE.md"].text()  # type: ignore[attr-defined]
    assert "(`web`)" in text and "files matching `web/**`" in text


def test_a_nested_private_copy_reaches_the_copilot_cli_twice_when_it_touches_a_file(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The layout before: Claude Code's private copy nested in web/.claude/CLAUDE.md. The records (``touches``) say
    what the real Copilot CLI showed: touching a file in web/, it loads that file and its applyTo file."""
    laid_out = delivery._bridge

    def nested(
        target: object, names: object, hand_written: str, readers: object, *rest: object
    ) -> object:
        variant, bridge = laid_out(target, names, hand_written, readers, *rest)  # type: ignore[arg-type]
        return (
            variant._replace(dir_file=variant.root_file) if bridge == "private" else variant
        ), bridge

    monkeypatch.setattr(delivery, "_bridge", nested)
    (line,) = delivery.twice(_plans(("claude", "copilot")))  # type: ignore[arg-type]
    assert line.startswith(
        "GitHub Copilot CLI started at the root and touching a file in web/ reads "
    ), line
    assert "web/.claude/CLAUDE.md" in line and ".github/instructions/gitmem-web" in line


@pytest.mark.parametrize(
    ("setting", "gemini_files"),
    [
        # Gemini CLI reads the hub: GEMINI.md holds only the memory for it alone, and no nested copy
        ({"context": {"fileName": ["AGENTS.md", "GEMINI.md"]}}, ["GEMINI.md"]),
        ({"context": {"fileName": "AGENTS.md"}}, ["GEMINI.md"]),
        ({"context": {"fileName": ["GEMINI.md"]}}, ["GEMINI.md", "web/GEMINI.md"]),
        (
            {"context": {"fileName": 7}},
            ["GEMINI.md", "web/GEMINI.md"],
        ),  # not a name: the record stands
        ("{not json", ["GEMINI.md", "web/GEMINI.md"]),
    ],
)
def test_a_setting_that_makes_gemini_read_agents_md_is_followed(
    project: Path, memory: WriteMemory, run: Run, setting: object, gemini_files: list[str]
) -> None:
    set_config(project, targets=["agents", "gemini"])
    memory("everyone", "Use pnpm")
    memory("web", "Web uses tabs", paths=["web/**"])
    memory("mine", "Gemini only", targets=["gemini"])
    (project / ".gemini").mkdir()
    text = setting if isinstance(setting, str) else json.dumps(setting)
    (project / ".gemini" / "settings.json").write_text(text, encoding="utf-8")
    result = run("compile", "--json")
    assert result.code == 0, result.err
    written = sorted(
        item["path"] for item in json.loads(result.out)["files"] if "GEMINI" in item["path"]
    )
    assert written == gemini_files
    views = {v["name"]: v for v in json.loads(run("explain", "--json").out)["clients"]}
    assert sorted(item["id"] for item in views["gemini"]["full"]) == ["everyone", "mine"]
    # started in web/, Gemini CLI reads no settings of the root's (measured): only GEMINI.md files
    (view,) = json.loads(run("explain", "web", "--client", "gemini", "--json").out)["clients"]
    full = sorted(item["id"] for item in view["full"])
    assert full == (["everyone", "mine", "web"] if len(gemini_files) == 2 else ["mine"])
    assert "more than once" not in result.err
