"""A file that cannot take what compile means for it holds its own target, not every target.

Before, a rules file gitmem could not write (a block it could not read, git conflict markers outside its block, a
link out of the repository, a file that is not UTF-8 text or is too large, a block edited by hand) stopped compile
whole: no client got a memory added since, and the pre-commit hook failed on every commit touching `.memory/`. Now
that target is held, as a target over a hard size limit was already, and the others are written. Each kind a rules
file can be in is one case here; a new kind of problem in a file is held the same way, because `compiler._hold`
moves every problem of a target's file, whatever it is.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import date
from pathlib import Path

import pytest

from gitmem.compile.compiler import Request, compile_store
from gitmem.gateway import RULES_LIMIT, find_project
from gitmem.memory.config import load_config
from gitmem.memory.store import Store
from tests.compile.conftest import WriteMemory
from tests.conftest import Run


def _unreadable_block(path: Path) -> None:
    path.write_text("Intro\n\n<!-- gitmem:begin -->\n- a rule\n", encoding="utf-8")


def _conflict(path: Path) -> None:
    path.write_text(
        "<<<<<<< HEAD\nour intro\n=======\ntheir intro\n>>>>>>> other\n", encoding="utf-8"
    )


def _link_out(path: Path) -> None:
    outside = path.parent.parent / "outside.md"
    outside.write_text("Someone else's file\n", encoding="utf-8")
    path.unlink()
    path.symlink_to(outside)


def _not_utf8(path: Path) -> None:
    path.write_bytes(b"Intro \xff\xfe\n")


def _too_large(path: Path) -> None:
    path.write_text("x" * (RULES_LIMIT + 1), encoding="utf-8")


def _a_folder(path: Path) -> None:
    path.unlink()
    path.mkdir()


def _edited(path: Path) -> None:
    path.write_text(path.read_text(encoding="utf-8").replace("- Use pnpm", "- Use yarn"), "utf-8")


KINDS: dict[str, Callable[[Path], None]] = {
    "unreadable-block": _unreadable_block,
    "conflict": _conflict,
    "link-out": _link_out,
    "not-utf8": _not_utf8,
    "too-large": _too_large,
    "a-folder": _a_folder,
    "edited": _edited,
}


def _state(path: Path) -> object:
    if path.is_symlink():
        return ("link", str(path.readlink()))
    return "folder" if path.is_dir() else path.read_bytes()


@pytest.mark.parametrize("kind", KINDS)
def test_a_file_that_cannot_take_the_block_holds_only_its_target(
    project: Path, memory: WriteMemory, run: Run, kind: str
) -> None:
    memory("use-pnpm", "Use pnpm")
    assert run("compile").code == 0
    agents = project / "AGENTS.md"
    KINDS[kind](agents)
    before = _state(agents)
    memory("api-errors", "API errors are problem details", kind="decision")

    result = run("compile")
    assert result.code == 1, result
    assert result.lines == [
        "updated CLAUDE.md",
        "compiled 2 memories for claude: 1 file(s) changed",
    ], result
    assert result.err.splitlines()[-1] == (
        "not written: agents (the files above); the other targets were"
    )
    assert result.err.startswith("AGENTS.md:" if kind != "edited" else "AGENTS.md: gitmem's text")
    assert "`api-errors`" in (project / "CLAUDE.md").read_text(encoding="utf-8")
    assert _state(agents) == before  # every byte as it was

    check = run("compile", "--check")
    if kind == "edited":  # compile names it with the fix, as above
        assert (check.code, check.out) == (1, "AGENTS.md: edited by hand\n")
    else:
        assert (check.code, check.out) == (1, "")
        assert check.err.splitlines()[-1] == "not up to date: agents held (above)"
    if kind != "edited":  # `gitmem check` names the file and its fix, not "run `gitmem compile`"
        checked = run("check")
        assert checked.code == 1 and "compile   FAILED  1 problem(s)" in checked.out, checked
        assert f"\n  {result.err.splitlines()[0]}\n" in checked.out
    again = run("compile")  # nothing more to write; still held, still said
    assert (again.code, again.err.splitlines()[-1]) == (1, result.err.splitlines()[-1])


def test_a_client_that_reads_a_held_targets_file_is_held_with_it(
    project: Path, memory: WriteMemory, run: Run
) -> None:
    """Claude Code reads AGENTS.md through the team's `@AGENTS.md` (rallly's CLAUDE.md): what compile would write
    into CLAUDE.md counts on AGENTS.md as compile means it, so CLAUDE.md is held with it and keeps what it reads."""
    memory("use-pnpm", "Use pnpm")
    (project / "CLAUDE.md").write_text("See @AGENTS.md\n", encoding="utf-8")
    assert run("compile").code == 0
    _conflict(project / "AGENTS.md")
    memory("api-errors", "API errors are problem details", kind="decision")

    root = find_project(project)
    report = compile_store(root, Store(root), load_config(root), Request(date.today())).report
    claude = next(plan for plan in report.plans if plan.target.name == "claude")
    assert "agents" in claude.delivered  # it reads AGENTS.md
    assert report.held_targets == ["agents", "claude"] and not report.problems
    assert [str(problem) for problem in report.held] == [
        "AGENTS.md:1:1: conflict: git conflict markers outside gitmem's block: resolve them by hand, "
        "then run `gitmem compile`"
    ]
