"""Compile's placement (gitmem/compile/delivery.py) for every pair of targets and for all at once: no client in
use receives a memory twice, and each receives every memory meant for it (at the root: those without paths; in
web/: the web/** one too, where the client has a file there). The real clients confirm it in
tests/clients/test_delivery.py; here the files are compiled into a real repository and read from the disk by the
reader `check` and `explain` use (compile/reading.py, with the records of compile/readers.py), so every combination
can be checked."""

from __future__ import annotations

import itertools
import json
import os
import re
import subprocess
from collections import Counter
from collections.abc import Collection
from datetime import date
from pathlib import Path

import pytest

from gitmem.compile import delivery
from gitmem.compile.compiler import Request, arrivals, compile_store
from gitmem.compile.plan import plan_targets
from gitmem.compile.readers import READERS
from gitmem.gateway import find_project
from gitmem.memory.config import TARGET_NAMES, load_config
from gitmem.memory.model import Memory
from gitmem.memory.store import Store
from gitmem.tools import TARGET_BY_NAME, TARGETS
from tests.compile.conftest import WriteMemory, set_config, write_memory
from tests.conftest import Run, git

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


def _compiled(
    project: Path,
    run: Run,
    names: tuple[str, ...],
    hand_written: dict[str, str] | None = None,
    memories: list[Memory] = MEMORIES,
) -> str:
    """Compile ``memories`` for ``names`` into ``project`` (``hand_written``: root files the team wrote first), and
    return what compile said; what each client then reads is `gitmem explain`'s, from the disk."""
    set_config(project, targets=list(names))
    for item in memories:
        fields = {"paths": item.paths, "targets": item.targets}
        write_memory(project, item.id, item.title, **{k: v for k, v in fields.items() if v})
    for name, text in (hand_written or {}).items():
        (project / TARGET_BY_NAME[name].root_file).write_text(text, encoding="utf-8")
    result = run("compile")
    assert result.code == 0, result.err
    return result.err


def _differences(project: Path) -> list[str]:
    """What `gitmem check` finds the clients read that differs from what compile meant (``compile.verify``), the
    files on the disk as they are, compiled or not."""
    found = find_project(project)
    today = date(2026, 6, 1)
    compiled = compile_store(
        found, Store(found), load_config(found), Request(today, mode="partial")
    )
    return [miss.line() for miss in arrivals(found, compiled, today)]


def _read(run: Run, folder: str = ".") -> dict[str, list[str]]:
    """Each client in use, and the memories it reads started in ``folder``, file by file (a memory it reads twice is
    named twice)."""
    views = json.loads(run("explain", folder, "--json").out)["clients"]
    return {view["name"]: [i for item in view["files"] for i in item["memories"]] for view in views}


@pytest.mark.parametrize("names", COMBINATIONS, ids="+".join)
def test_every_client_receives_each_memory_once(
    project: Path, run: Run, names: tuple[str, ...]
) -> None:
    """Compiled into a real repository and read from the disk (``compile.reading``, the reader `check` and `explain`
    use): every client in use gets each memory once, and every one meant for it, at the root and in web/."""
    _each_once(project, run, names, _compiled(project, run, names))


# The links teams commit: a tool's own rules file that is the hub under another name (fluidd's CLAUDE.md and
# Copilot file), or a link to such a link (a Copilot file linked to CLAUDE.md, itself linked to AGENTS.md). Every
# target whose root file a team names (not gitmem's own file in a rules folder).
LINKS = {
    **{
        name: {target.root_file: "AGENTS.md"}
        for name, target in TARGET_BY_NAME.items()
        if name != "agents" and target.root_file and "gitmem" not in target.root_file
    },
    "copilot-via-claude": {
        "CLAUDE.md": "AGENTS.md",
        ".github/copilot-instructions.md": "CLAUDE.md",
    },
}


@pytest.mark.parametrize("every", [True, False], ids=["all", "beside-copilot"])
@pytest.mark.parametrize("links", LINKS.values(), ids=LINKS.keys())
def test_every_client_receives_each_memory_once_through_linked_rules_files(
    project: Path, run: Run, links: dict[str, str], every: bool
) -> None:
    """The same with a root file linked to the hub, all targets configured or those it takes. On ed89a6a a Copilot file linked
    through CLAUDE.md to AGENTS.md got the web/** memory in an `applyTo` file too: the Copilot CLI, which reads
    web/AGENTS.md itself, loaded it twice once it touched a file in web/, and `check` failed after compile. (A memory
    meant for a linked target alone may have no file of its own to go to, which compile names:
    tests/compile/test_reader_disk.py.)"""
    (project / "AGENTS.md").write_text("# Team\n\nOur own words.\n", encoding="utf-8")
    for path, to in links.items():
        (project / path).parent.mkdir(parents=True, exist_ok=True)
        (project / path).symlink_to(Path(os.path.relpath(project / to, (project / path).parent)))
    linked = {name for name, target in TARGET_BY_NAME.items() if target.root_file in links}
    # all targets, or the hub, the linked ones and Copilot, whose CLI reads most files
    names = tuple(n for n in TARGET_NAMES if every or n in {"agents", "copilot", *linked})
    memories = [item for item in MEMORIES if item.targets not in {(name,) for name in linked}]
    said = _compiled(project, run, names, memories=memories)
    copies = re.findall(r"\(`(rm (\S+) && cp \S+ \2)`\)", said)
    if linked & ALONE:  # no file but the link: web/** reaches it nowhere, and compile names the fix
        (root,) = (TARGET_BY_NAME[name].root_file for name in linked & ALONE)
        assert {path for _, path in copies} == {root}, said
        subprocess.run(copies[0][0], shell=True, cwd=project, check=True)
        said = run("compile").err
    else:
        assert not copies, said
    _each_once(project, run, names, said, linked)


# The clients that read one rules file, nested in no folder: linked to AGENTS.md, it gives them no file of their own
# (on ed89a6a `check` failed with the fix "run `gitmem compile`", which changed nothing).
ALONE = {"junie", "trae"}


def _each_once(
    project: Path, run: Run, names: tuple[str, ...], said: str, linked: Collection[str] = ()
) -> None:
    assert "more than once" not in said, said
    git(project, "add", "-A")
    git(project, "commit", "-qm", "compiled")  # code review reads what git tracks
    for folder in (".", "web"):
        for name, ids in _read(run, folder).items():
            own = next(reader for reader in READERS if reader.name == name).own
            assert len(ids) == len(set(ids)), (name, folder, names)
            meant = {"everyone"} if own in linked else {"everyone", f"only-{own}"}
            assert folder != "." or meant <= set(ids), (name, names)
            nested = project / "web" / (TARGET_BY_NAME[own].dir_file or "-")
            assert folder != "." or "web" not in ids or not nested.is_file(), name
            # no memory meant for another tool only
            assert {i for i in ids if i.startswith("only-")} <= {f"only-{n}" for n in names}, (
                name,
                names,
            )
    checked = run("check")
    assert checked.code == 0, checked.out


def test_the_old_layout_fed_the_copilot_cli_every_memory_three_times(
    project: Path, run: Run
) -> None:
    """The old layout (every target a full copy), written on the disk: the reader finds what the real Copilot CLI got
    (tests/clients/test_delivery.py), each memory three times; the test above fails on it. The line says to compile
    (up to a2e28d9 it named no fix: two copies compile placed), and compiling mends it."""
    names = ("agents", "gemini", "copilot")
    _compiled(project, run, names)
    targets = [target for target in TARGETS if target.name in names]
    plans = plan_targets(
        targets, MEMORIES, dict.fromkeys(names, 100_000)
    )  # no layouts: full copies
    for plan in plans:
        for path, file_plan in plan.files.items():
            (project / path).parent.mkdir(parents=True, exist_ok=True)
            (project / path).write_text(file_plan.text(), encoding="utf-8")
    assert Counter(_read(run)["copilot"])["everyone"] == 3
    said = "".join(_differences(project))
    assert "GitHub Copilot CLI: memory everyone reaches it more than once: it reads " in said
    assert (
        ": if `gitmem compile` does not remove one (an older layout's copy), gitmem placed" in said
    )
    assert run("compile").code == 0
    assert "more than once" not in "".join(_differences(project))  # (files not yet committed, said)


def test_a_hand_written_import_is_the_one_duplicate_left(project: Path, run: Run) -> None:
    """A CLAUDE.md that imports @AGENTS.md by hand: Claude Code gets the hub through it (gitmem writes no copy of its
    own), and the Copilot CLI, which reads AGENTS.md and follows that import apart (measured:
    tests/clients/test_reader.py), gets the hub twice: said, naming the link that mends it, and not failed (no
    placement of gitmem's avoids it)."""
    said = _compiled(
        project, run, ("agents", "claude", "copilot"), {"claude": "# Notes\n@AGENTS.md\n"}
    )
    assert not (project / ".claude" / "CLAUDE.md").exists()
    read = _read(run)
    assert read["claude"].count("everyone") == 1 and read["copilot"].count("everyone") == 2
    assert (
        "GitHub Copilot CLI: " in said and "reach it twice, through a hand-written import" in said
    )
    assert "make CLAUDE.md a link to AGENTS.md instead of importing it" in said  # said, not failed
    git(project, "add", "-A")
    assert run("check").code == 0
    (project / "CLAUDE.md").write_text("@AGENTS.md\n", encoding="utf-8")
    set_config(project, targets=["agents", "claude"])
    assert "more than once" not in run("compile").err


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
    targets = [target for target in TARGETS if target.name in names]
    laid = delivery.layouts(targets, {})
    plans = plan_targets(targets, MEMORIES, dict.fromkeys(names, 100_000), layouts=laid)
    (claude,) = [plan for plan in plans if plan.target.name == "claude"]
    assert list(claude.files) == [".claude/CLAUDE.md"]  # type: ignore[attr-defined]
    text = claude.files[".claude/CLAUDE.md"].text()  # type: ignore[attr-defined]
    assert "(`web`)" in text and "files matching `web/**`" in text


def test_a_nested_private_copy_reaches_the_copilot_cli_twice_when_it_touches_a_file(
    project: Path, run: Run
) -> None:
    """The layout before: Claude Code's private copy nested in web/.claude/CLAUDE.md, written on the disk. The records
    (``touches``) say what the real Copilot CLI showed: touching a file in web/, it loads that file and its applyTo
    file, so the web/** memory reaches it twice; the disk reader says so."""
    _compiled(project, run, ("claude", "copilot"))
    private = (project / ".claude" / "CLAUDE.md").read_text(encoding="utf-8")
    (project / "web" / ".claude").mkdir(parents=True)
    (project / "web" / ".claude" / "CLAUDE.md").write_text(private, encoding="utf-8")
    (line,) = [line for line in _differences(project) if "GitHub Copilot CLI: memory web " in line]
    assert line.startswith("GitHub Copilot CLI: memory web reaches it more than once: it reads "), (
        line
    )
    assert "web/.claude/CLAUDE.md" in line and ".github/instructions/gitmem-web" in line, line
    assert "once it touches a file in web/" in line, line
    # explain reads what a touch loads as check does: the nested copy too, not only the glob-scoped file
    (view,) = json.loads(run("explain", "web/app.ts", "--client", "copilot", "--json").out)[
        "clients"
    ]
    touched = [item["path"] for item in view["files"] if item["when"] == "touch"]
    assert "web/.claude/CLAUDE.md" in touched and any("gitmem-web" in path for path in touched), (
        touched
    )


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


# A folder's AGENTS.md that is, through a link the team committed, the root's or another folder's: the root's kept in
# a folder (as pwncollege-dojo keeps it in docs/agents.md), a package's linked to the root's, two folders sharing one.
SHARED = {
    "root-moved": {"AGENTS.md": "web/AGENTS.md"},
    "folder-to-root": {"web/AGENTS.md": "AGENTS.md"},
    "folder-to-folder": {"web/AGENTS.md": "docs/AGENTS.md"},
}


@pytest.mark.parametrize("links", SHARED.values(), ids=SHARED.keys())
def test_a_folders_agents_md_that_is_another_through_a_link_brings_its_memory(
    project: Path, run: Run, links: dict[str, str]
) -> None:
    """On da9b03b gitmem wrote such a file for one of its names and dropped what it planned for the other: the web/**
    memory reached no client started in web/ that reads AGENTS.md files, `check` failed and named `gitmem compile`,
    which changed nothing. The memory now goes into the one file under a heading naming its globs, once for each
    client, and the team's text stays."""
    (link,) = links
    real = project / links[link]
    real.parent.mkdir(parents=True, exist_ok=True)
    real.write_text("# Team\n\nOur own words.\n", encoding="utf-8")
    (project / link).parent.mkdir(parents=True, exist_ok=True)
    (project / link).symlink_to(Path(os.path.relpath(real, (project / link).parent)))
    said = _compiled(project, run, tuple(TARGET_NAMES))
    assert "same file" not in said, said
    assert real.read_text(encoding="utf-8").startswith(
        "# Team\n\nOur own words.\n<!-- gitmem:begin"
    )
    git(project, "add", "-A")
    git(project, "commit", "-qm", "compiled")
    # Codex and opencode started in web/ read the root's file under both its names, the team's text too (measured:
    # tests/clients/test_reader.py): `check` says so, without failing
    rooted = "AGENTS.md" in {*links, *links.values()}
    for folder in (".", "web"):
        for name, ids in _read(run, folder).items():
            apart = next(reader for reader in READERS if reader.name == name).links_apart
            times = 2 if rooted and apart and folder == "web" else 1
            assert {ids.count(i) for i in ids} <= {times}, (name, folder)
    assert _read(run, "web")["codex"].count("web") == 1 + rooted
    assert "(files matching `web/**`)" in real.read_text(encoding="utf-8")
    checked = run("check")
    assert checked.code == 0, checked.out
    assert ("twice, through a link" in checked.out) == rooted, checked.out


@pytest.mark.parametrize("copilot", [False, True], ids=["agents-claude", "beside-copilot"])
def test_claudes_private_file_linked_to_the_hub_is_read_as_the_hub_and_never_written_over_it(
    project: Path, run: Run, copilot: bool
) -> None:
    """pyairtable's .claude/CLAUDE.md -> ../AGENTS.md: Claude Code reads the hub's file through it. On 9411f25 compile
    put every memory in a new CLAUDE.md too (Claude Code got each twice: `check` failed), and beside the Copilot CLI
    (which reads CLAUDE.md, so Claude Code's copy goes to its private file) it wrote that copy through the link, over
    the hub's file: every other client read Claude Code's copy. Now the link stays as the team made it, the hub's file
    holds the hub's memories, and without Copilot `check` passes; beside it, the memory Claude Code started in web/
    then misses is named with the fix that brings it (a copy of its own), which `check` then passes with."""
    set_config(project, targets=["agents", "claude"] + ["copilot"] * copilot)
    (project / "AGENTS.md").write_text("# Team\n", encoding="utf-8")
    (project / ".claude").mkdir()
    (project / ".claude/CLAUDE.md").symlink_to("../AGENTS.md")
    assert run("add", "Use pnpm").code == 0
    assert run("add", "Web uses tabs", "--path", "web/**").code == 0
    compiled = run("compile")
    assert "same file" not in compiled.err and "more than once" not in compiled.err, compiled
    assert os.readlink(project / ".claude/CLAUDE.md") == "../AGENTS.md"
    hub = (project / "AGENTS.md").read_text(encoding="utf-8")
    assert hub.count("`use-pnpm`") == 1 and "web-uses-tabs" not in hub  # (in web/AGENTS.md)
    claude = (
        project / "CLAUDE.md"
    )  # (none beside Copilot: Claude Code's copy would be its private file)
    assert not claude.exists() or "`use-pnpm`" not in claude.read_text(encoding="utf-8")
    git(project, "add", "-A")
    git(project, "commit", "-qm", "compiled")
    checked = run("check")
    if not copilot:
        assert checked.code == 0, checked
        return
    fix = "make .claude/CLAUDE.md a copy (`rm .claude/CLAUDE.md && cp AGENTS.md .claude/CLAUDE.md`)"
    assert checked.code == 1 and "Claude Code started in web/: memory web-uses-tabs" in checked.out
    assert fix in checked.out
    (project / ".claude/CLAUDE.md").unlink()
    (project / ".claude/CLAUDE.md").write_text(hub, encoding="utf-8")
    assert run("compile").code == 0
    git(project, "add", "-A")
    git(project, "commit", "-qm", "a copy of its own")
    assert run("check").code == 0
