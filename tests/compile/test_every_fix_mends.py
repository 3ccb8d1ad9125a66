"""Every fix `gitmem check` names mends what it names: done as written, by a user who does nothing
else, on a layout of each fault (``verify.Fault``) and each kind of fix, until `check` passes with
nothing to say. A fix that changes nothing, or that no user can follow as written, fails here; so
does a fault, or a kind of fix, that no layout here reaches (the next one written)."""

from __future__ import annotations

import json
import re
import shlex
import shutil
import subprocess
from collections.abc import Callable
from pathlib import Path

import pytest

from gitmem.compile.verify import Fault
from tests.compile.conftest import WriteMemory, apply_ignore_fix, set_config
from tests.conftest import Run, git


def _shell(root: Path, run: Run, found: re.Match[str]) -> None:
    subprocess.run(found[1], shell=True, cwd=root, check=True)  # as written: `rm A && cp B A`


def _gitmem(root: Path, run: Run, found: re.Match[str]) -> None:
    result = run(*shlex.split(found[1])[1:])
    assert result.code in (0, 1), (found[1], result.err)  # compile says what is left


def _copy_the_link(root: Path, run: Run, found: re.Match[str]) -> None:
    """The link on the way to the file named (the file, or a folder), made a copy of what it
    holds."""
    path = root
    for part in Path(found[1]).parts:
        path /= part
        if path.is_symlink():
            real = path.resolve()
            path.unlink()
            if real.is_dir():
                shutil.copytree(real, path)
            else:
                path.write_bytes(real.read_bytes())
            return
    raise AssertionError(f"no link on the way to {found[1]}")


def _own_for_the_link(root: Path, run: Run, found: re.Match[str]) -> None:
    """The first link on the way to the file named, made a file (or, on the way, a folder) of its
    own: a loop's, or one into .git."""
    path = root
    parts = Path(found[1]).parts
    for depth, part in enumerate(parts, 1):
        path /= part
        if path.is_symlink():
            path.unlink()
            if depth < len(parts):
                path.mkdir()
            else:
                path.write_text("", encoding="utf-8")
            return
    raise AssertionError(f"no link on the way to {found[1]}")


# What a user can do that a fix says, by kind: how it reads, and how it is done. Of those a line
# names, the first is done: a fix names the one that mends it first, then others ("or remove the
# pattern …", "or drop the link"); then every `gitmem compile` the line says to run after it.
_KINDS: dict[str, tuple[re.Pattern[str], Callable[[Path, Run, re.Match[str]], None]]] = {
    ".gitignore lines": (
        re.compile(r"add (?:`[^`]+`(?:, | and )?)+ at the end of \S*\.gitignore"),
        lambda root, run, found: apply_ignore_fix(root, found[0]),
    ),
    "a shell command": (re.compile(r"`((?:rm|ln|git add) [^`]+)`"), _shell),
    "a gitmem command": (re.compile(r"`(gitmem (?!explain|check)[^`]+)`"), _gitmem),
    "a copy for the link": (
        re.compile(r"(?:^|: )(\S+)(?::1:1: path: resolves outside| leads out).*replace the link"),
        _copy_the_link,
    ),
    "a file of its own for the link": (
        re.compile(r"^(\S+):1:1: path: .*replace the link on its way"),
        _own_for_the_link,
    ),
}


def _follow(root: Path, run: Run, line: str) -> str:
    """Do the first fix ``line`` names, and the `gitmem compile` it says to run after: the kind of
    fix done."""
    found = [(m, kind) for kind, (pattern, _) in _KINDS.items() for m in pattern.finditer(line)]
    match, kind = min(found, key=lambda pair: pair[0].start())
    _KINDS[kind][1](root, run, match)
    if "then run `gitmem compile`" in line[match.end() :]:
        assert run("compile").code in (0, 1)
    return kind


def _said(run: Run) -> list[str]:
    """What `gitmem check`'s compile step says, its details then its summary: nothing once it
    passes with nothing to say (a rules file out of date is named in the details, and its fix in
    the summary)."""
    checked = json.loads(run("check", "--json").out)
    step = next(step for step in checked["checks"] if step["name"] == "compile")
    return [*step["details"], *([] if step["ok"] else [step["summary"]])]


# How a line names each fault: a miss, or a note on several ("2 of its memories reach it twice, …")
_FAULTS = {fault.name: fault.value.removeprefix("reaches ") for fault in Fault}
_UNLESS = "if `gitmem compile` does not bring it, "  # then what does, once compiling did not


def _until_green(root: Path, run: Run) -> tuple[set[str], set[str]]:
    """Do what `check` says, one fix at a time, until it passes with nothing to say: the faults it
    named and the kinds of fix done. A line said again right after its fix was done fails, but one
    that says to compile first, and what to do if that does not bring it."""
    faults: set[str] = set()
    kinds: set[str] = set()
    last = ""
    for _ in range(8):
        said = _said(run)
        if not said:
            return faults, kinds
        faults |= {name for line in said for name, value in _FAULTS.items() if value in line}
        line = next((line for line in said if any(p.search(line) for p, _ in _KINDS.values())), "")
        assert line, f"a fix no user can follow as written: {said}"
        assert line != last or _UNLESS in line, f"its fix, done, changed nothing: {line}"
        kinds.add(_follow(root, run, line.split(_UNLESS)[-1] if line == last else line))
        last = line
    raise AssertionError(f"still said after eight fixes: {said}")


# -- the layouts: each one set up and committed, as a team's repository is before gitmem's check --


def _not_compiled(root: Path, memory: WriteMemory) -> None:
    memory("use-pnpm", "Use pnpm")


def _claude_s_folder_ignored(root: Path, memory: WriteMemory) -> None:
    """argo-cd's `.gitignore` holds `.claude`, beside Copilot: a memory for Claude Code alone has no
    file to go to."""
    set_config(root, targets=["agents", "claude", "copilot"])
    (root / ".gitignore").write_text(".claude\n", encoding="utf-8")
    memory("use-pnpm", "Use pnpm")
    memory("claude-only", "Use the Read tool", targets=["claude"])


def _a_root_file_linked_to_another_s(root: Path, memory: WriteMemory) -> None:
    """`GEMINI.md -> CLAUDE.md`, the team's own file: a memory for Gemini CLI alone has no file."""
    set_config(root, targets=["agents", "claude", "gemini"])
    (root / "CLAUDE.md").write_text("# Claude notes\n", encoding="utf-8")
    (root / "GEMINI.md").symlink_to("CLAUDE.md")
    memory("use-pnpm", "Use pnpm")
    memory("gemini-only", "Use the shell tool", targets=["gemini"])


def _a_copy_kept_where_git_ignores_the_private_file(root: Path, memory: WriteMemory) -> None:
    """rustfs: a hand-written CLAUDE.md, `.claude/*` ignored but its skills, beside Copilot."""
    set_config(root, targets=["agents", "claude", "copilot"])
    (root / "CLAUDE.md").write_text("# Our Claude notes\n", encoding="utf-8")
    (root / ".gitignore").write_text(".claude/*\n!.claude/skills\n", encoding="utf-8")
    memory("use-pnpm", "Use pnpm")


def _an_import_of_the_hub(root: Path, memory: WriteMemory) -> None:
    """A CLAUDE.md of `@AGENTS.md`, which the Copilot CLI reads beside AGENTS.md."""
    set_config(root, targets=["agents", "claude", "copilot"])
    (root / "CLAUDE.md").write_text("@AGENTS.md\n", encoding="utf-8")
    memory("use-pnpm", "Use pnpm")


def _a_folder_s_import_of_its_hub_beside_copilot(root: Path, memory: WriteMemory) -> None:
    """harvester's vendored otel: a folder's CLAUDE.md of `@AGENTS.md`, beside the Copilot CLI (so
    Claude Code's copy goes to .claude/CLAUDE.md, a memory for a folder under a heading naming its
    globs). On 29b4c2b compile put the folder's memory there too: Claude Code read it twice, and
    the link check named instead kept it twice."""
    set_config(root, targets=["agents", "claude", "copilot"])
    (root / "vendor" / "otel").mkdir(parents=True)
    (root / "vendor" / "otel" / "AGENTS.md").write_text("# Otel\n", encoding="utf-8")
    (root / "vendor" / "otel" / "CLAUDE.md").write_text("@AGENTS.md\n", encoding="utf-8")
    (root / "vendor" / "otel" / "span.go").write_text("package otel\n", encoding="utf-8")
    memory("use-pnpm", "Use pnpm")
    memory("otel-tests", "Run the folder's own tests first", paths=["vendor/otel/**"])


def _a_root_file_linked_into_a_folder(root: Path, memory: WriteMemory) -> None:
    """`AGENTS.md -> web/AGENTS.md`: Codex started in web/ reads one file under two names."""
    (root / "web").mkdir()
    (root / "web" / "AGENTS.md").write_text("# Web\n", encoding="utf-8")
    (root / "web" / "app.ts").write_text("export {}\n", encoding="utf-8")
    (root / "AGENTS.md").symlink_to("web/AGENTS.md")
    memory("use-pnpm", "Use pnpm")
    memory("web-tabs", "Web uses tabs", paths=["web/**"])


def _rules_past_codex_s_limit(root: Path) -> None:
    rules = "".join(
        f"- Rule {n}: run the formatter fmt{n} before committing a change to module {n} of the "
        "service.\n"
        for n in range(360)
    )
    (root / "AGENTS.md").write_text(f"# Team rules\n\n{rules}", encoding="utf-8")


def _a_hand_written_file_past_codex_s_limit(root: Path, memory: WriteMemory) -> None:
    _rules_past_codex_s_limit(root)
    memory("use-pnpm", "Use pnpm")


def _a_file_read_through_an_ignored_folder(root: Path, memory: WriteMemory) -> None:
    (root / ".agents").mkdir()
    (root / ".agents" / "AGENTS.md").write_text("# Team\n", encoding="utf-8")
    (root / "AGENTS.md").symlink_to(".agents/AGENTS.md")
    (root / ".gitignore").write_text(".agents/\n", encoding="utf-8")
    memory("use-pnpm", "Use pnpm")


def _an_imported_file_leading_out(root: Path, memory: WriteMemory) -> None:
    outside = root.parent / f"{root.name}-notes.md"
    outside.write_text("# Notes\n", encoding="utf-8")
    (root / "docs").mkdir()
    (root / "docs" / "notes.md").symlink_to(outside)
    (root / "CLAUDE.md").write_text("# Claude\n@docs/notes.md\n", encoding="utf-8")
    memory("use-pnpm", "Use pnpm")


def _a_scoped_folder_leading_out(root: Path, memory: WriteMemory) -> None:
    outside = root.parent / f"{root.name}-web"
    outside.mkdir()
    (outside / "app.ts").write_text("export {}\n", encoding="utf-8")
    (root / "web").symlink_to(outside)
    memory("use-pnpm", "Use pnpm")
    memory("web-tabs", "Web uses tabs", paths=["web/**"])


def _root_files_in_a_loop(root: Path, memory: WriteMemory) -> None:
    """`AGENTS.md -> CLAUDE.md -> AGENTS.md`: compile can write neither (on 6df3076 it said so and
    named no fix)."""
    (root / "AGENTS.md").symlink_to("CLAUDE.md")
    (root / "CLAUDE.md").symlink_to("AGENTS.md")
    memory("use-pnpm", "Use pnpm")


def _a_scoped_folder_linked_into_git(root: Path, memory: WriteMemory) -> None:
    """`web -> .git/web`: compile writes nothing inside .git (on 6df3076 it said so and named no
    fix)."""
    (root / ".git" / "web").mkdir()
    (root / "web").symlink_to(".git/web")
    memory("use-pnpm", "Use pnpm")
    memory("web-tabs", "Web uses tabs", paths=["web/**"])


# Each layout, the faults `check` names on the way to green, and the kinds of fix done.
_LAYOUTS: dict[str, tuple[Callable[[Path, WriteMemory], None], set[str], set[str]]] = {
    "not compiled": (_not_compiled, {"UNTRACKED"}, {"a gitmem command", "a shell command"}),
    "Claude's folder ignored": (
        _claude_s_folder_ignored,
        {"MISSING", "UNTRACKED"},
        {".gitignore lines", "a gitmem command", "a shell command"},
    ),
    "a root file linked to another's": (
        _a_root_file_linked_to_another_s,
        {"MISSING"},
        {"a gitmem command", "a shell command"},
    ),
    "a copy kept where git ignores the private file": (
        _a_copy_kept_where_git_ignores_the_private_file,
        {"TWICE", "UNTRACKED"},
        {".gitignore lines", "a shell command"},
    ),
    "an import of the hub": (_an_import_of_the_hub, {"IMPORTED"}, {"a shell command"}),
    "a folder's import of its hub beside Copilot": (
        _a_folder_s_import_of_its_hub_beside_copilot,
        {"IMPORTED"},
        {"a shell command"},
    ),
    "a root file linked into a folder": (
        _a_root_file_linked_into_a_folder,
        {"LINKED"},
        {"a gitmem command", "a shell command"},
    ),
    "a hand-written file past Codex's limit": (
        _a_hand_written_file_past_codex_s_limit,
        {"OVER"},
        {"a gitmem command"},
    ),
    "a file read through an ignored folder": (
        _a_file_read_through_an_ignored_folder,
        {"IGNORED", "UNTRACKED"},
        {".gitignore lines", "a shell command"},
    ),
    "an imported file leading out": (
        _an_imported_file_leading_out,
        {"OUTSIDE"},
        {"a copy for the link"},
    ),
    "root files in a loop of links": (
        _root_files_in_a_loop,
        set(),
        {"a file of its own for the link"},
    ),
    "a scoped folder linked into .git": (
        _a_scoped_folder_linked_into_git,
        {"UNTRACKED"},
        {"a file of its own for the link", "a shell command"},
    ),
    "a scoped folder leading out": (
        _a_scoped_folder_leading_out,
        {"UNTRACKED"},
        {"a copy for the link", "a shell command"},
    ),
}


@pytest.mark.parametrize("name", _LAYOUTS)
def test_each_fix_check_names_done_as_written_mends_it(
    name: str, project: Path, memory: WriteMemory, run: Run
) -> None:
    layout, faults, kinds = _LAYOUTS[name]
    layout(project, memory)
    if name != "not compiled":  # compiled and committed, as the team left it
        run("compile")
    git(project, "add", "-A")
    git(project, "commit", "-qm", "the layout")
    assert _said(run), name  # something to mend
    assert _until_green(project, run) == (faults, kinds)


def test_every_fault_and_every_kind_of_fix_has_a_layout() -> None:
    """The next fault, or kind of fix, is written with a layout that reaches it. A client started in
    a folder that follows none of the root's settings (``ROOT_ONLY``) is the client's limit: its
    fix is to start at the root, and nothing on the disk mends it."""
    faults = set().union(*(faults for _, faults, _ in _LAYOUTS.values()))
    kinds = set().union(*(kinds for _, _, kinds in _LAYOUTS.values()))
    assert faults == {fault.name for fault in Fault} - {"ROOT_ONLY"}
    assert kinds == set(_KINDS)


def test_a_folder_s_file_past_codex_s_limit_by_the_text_above_it_names_that_text(
    project: Path, memory: WriteMemory, run: Run
) -> None:
    """Codex joins the AGENTS.md files from the root down to its folder: a folder's file that holds
    only gitmem's block is past the limit by the root's hand-written text. Every line `check` and
    compile say of it names the root's text (on 6df3076 check said to lower the budget, which
    changes nothing, and compile named the folder's file for `gitmem import`); and its own line,
    done as written, mends it."""
    _rules_past_codex_s_limit(project)  # and no memory for the root: gitmem writes no block there
    (project / "web").mkdir()
    (project / "web" / "app.ts").write_text("export {}\n", encoding="utf-8")
    memory("web-tabs", "Web uses tabs", paths=["web/**"])
    compiled = run("compile")
    assert "--left-out AGENTS.md`" in compiled.err
    assert "--left-out web/AGENTS.md" not in compiled.err
    git(project, "add", "-A")
    git(project, "commit", "-qm", "the layout")
    over = [line for line in _said(run) if _FAULTS["OVER"] in line]
    assert [line.split(": ", 1)[0] for line in over] == ["Codex", "Codex started in web/"]
    assert all("`gitmem import --accept --move --left-out AGENTS.md`" in line for line in over)
    _follow(project, run, over[1])
    assert _said(run) == []
