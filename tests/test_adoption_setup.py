"""Set-up on repositories that already have rules files and their own hooks (issue 15): the shapes new users bring.

Real repositories, real pre-commit, real commits through the installed hooks.
"""

from __future__ import annotations

import json
import os
import random
import string
import subprocess
from pathlib import Path

import pytest

from gitmem import INSTALL
from tests.conftest import Run, git


def _write(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


def _token() -> str:
    rng = random.Random(15)
    return "ghp_" + "".join(rng.choice(string.ascii_letters + string.digits) for _ in range(36))


def _commit(repo: Path, message: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        ["git", "commit", "-qm", message], cwd=repo, capture_output=True, text=True, check=False
    )


def _targets(repo: Path) -> str:
    text = (repo / ".memory" / "config.yaml").read_text(encoding="utf-8")
    return next(line for line in text.splitlines() if line.startswith("targets:"))


# -- a rules folder that is a file -------------------------------------------------------------------------------


def test_cursor_rules_as_a_file_is_one_clear_error(project: Path, run: Run) -> None:
    _write(project / ".cursor" / "rules", "Always use tabs.\n")
    assert run("init", "--no-hooks", "--target", "claude", "--target", "cursor").code == 0
    assert run("add", "Use tabs", "--kind", "convention").code == 0
    assert run("add", "Web uses React", "--path", "web/*.tsx").code == 0
    result = run("compile")
    assert result.code == 1
    problems = [line for line in result.err.splitlines() if not line.startswith("warning: ")]
    assert problems == [
        ".cursor/rules:1:1: file: a file where Cursor reads a folder (.cursor/rules/*.mdc), so gitmem cannot write "
        "there: move its text into a file in that folder (e.g. .cursor/rules/project.mdc), or drop the cursor "
        "target from .memory/config.yaml",
        "nothing was written",
    ]
    assert not (project / "CLAUDE.md").exists()
    assert (project / ".cursor" / "rules").read_text(encoding="utf-8") == "Always use tabs.\n"


# -- target detection --------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("files", "targets"),
    [
        # a docs page named like a tool's file, and tools' settings that are not rules: none of them is a target
        (["docs/gemini.md", "gemini.md", ".cursor/hooks.json", ".cursor/mcp.json", ".gemini/settings.json",
          ".kiro/settings/mcp.json", ".windsurf/workflows/deploy.md"], "targets: [agents, claude]"),
        # The tools the project uses, and only those (the defaults agents and claude when it uses none).
        (["GEMINI.md"], "targets: [gemini]"),
        ([".cursor/rules/style.mdc"], "targets: [cursor]"),
        ([".cursorrules"], "targets: [cursor]"),
        ([".windsurf/rules/style.md", ".kiro/steering/product.md"], "targets: [devin, kiro]"),
        ([".clinerules/workflows/release.md"], "targets: [agents, claude]"),  # workflows only: no rules
        # Rules of Cline's own: Cline reads AGENTS.md too, but compile places each memory once either way.
        ([".clinerules/general.md"], "targets: [cline]"),
    ],
)  # fmt: skip
def test_targets_are_detected_from_the_tools_real_rules_files(
    repo: Path, run: Run, files: list[str], targets: str
) -> None:
    for name in files:
        _write(repo / name, "# notes\n")
    assert run("init", "--no-hooks").code == 0
    assert _targets(repo) == targets


def test_claude_importing_agents_is_served_by_the_agents_target(repo: Path, run: Run) -> None:
    _write(repo / "AGENTS.md", "# Agents\n\nRun the tests before pushing.\n")
    _write(repo / "CLAUDE.md", "@AGENTS.md\n")
    result = run("init", "--no-hooks")
    assert result.code == 0
    assert (
        "CLAUDE.md imports @AGENTS.md: compile adds to CLAUDE.md only what AGENTS.md does not hold"
        in result.out
    )
    assert _targets(repo) == "targets: [agents, claude]"
    assert result.lines[-1].startswith("next: gitmem import ")
    assert run("add", "Use pnpm", "--kind", "convention").code == 0
    for _ in range(2):
        compiled = run("compile")
        assert (compiled.code, compiled.err) == (0, "")
    assert (repo / "CLAUDE.md").read_text(encoding="utf-8") == "@AGENTS.md\n"


def test_next_step_without_rules_files_is_add(repo: Path, run: Run) -> None:
    result = run("init", "--no-hooks")
    assert (
        result.lines[-1]
        == 'next: gitmem add "Use pnpm, never npm" --kind convention && gitmem compile'
    )


# -- a hooks path in use (husky, a committed hooks folder) ---------------------------------------------------------

# husky 9's generated folder, as `husky` writes it: every hook is a stub that runs .husky/<hook> with `sh -e`.
_HUSKY_H = """#!/usr/bin/env sh
n=$(basename "$0")
s=$(dirname "$(dirname "$0")")/$n
[ ! -f "$s" ] && exit 0
sh -e "$s" "$@"
"""


def _husky(repo: Path) -> None:
    _write(repo / ".husky" / "_" / "h", _HUSKY_H).chmod(0o755)
    _write(
        repo / ".husky" / "_" / "pre-commit", '#!/usr/bin/env sh\n. "$(dirname "$0")/h"\n'
    ).chmod(0o755)
    _write(repo / ".husky" / "pre-commit", "echo team hook ran > .husky-ran\n")
    git(repo, "config", "core.hooksPath", ".husky/_")


def test_init_with_husky_adds_the_hook_to_the_teams_script_and_a_secret_is_stopped(
    repo: Path, run: Run
) -> None:
    _husky(repo)
    result = run("init")
    assert result.code == 0, result.out + result.err
    assert "added `pre-commit run` to .husky/pre-commit (core.hooksPath is .husky/_)" in result.out
    assert "hooksPath" not in (result.err or "")
    assert git(repo, "config", "core.hooksPath").strip() == ".husky/_"  # the team's hooks stay on
    script = (repo / ".husky" / "pre-commit").read_text(encoding="utf-8")
    assert "then pre-commit run --hook-stage pre-commit || exit $?; else" in script
    assert script.endswith("; fi\necho team hook ran > .husky-ran\n")
    assert run("init").out.count("pre-commit run") == 0  # idempotent
    _write(repo / "app.py", f'TOKEN = "{_token()}"\n')
    git(repo, "add", "-A")
    done = _commit(repo, "leak")
    assert done.returncode != 0 and "github-pat" in done.stdout + done.stderr
    assert _token() not in done.stdout + done.stderr
    git(repo, "rm", "-q", "--cached", "app.py")
    (repo / "app.py").unlink()
    assert _commit(repo, "clean").returncode == 0
    assert (repo / ".husky-ran").is_file()  # the team's own hook still runs


def _bare_path(tmp_path: Path) -> str:
    """A PATH with git and the shell tools husky's stubs use, but neither pre-commit nor gitmem: a teammate who
    has not installed them."""
    import shutil

    folder = tmp_path / "bare-bin"
    folder.mkdir()
    for tool in ("git", "sh", "env", "basename", "dirname"):
        found = shutil.which(tool)
        assert found is not None
        (folder / tool).symlink_to(found)
    return str(folder)


# excalidraw's and gemini-cli's shape: husky, a tracked .husky/pre-commit running the JS team's own checks.
def test_with_husky_a_teammate_without_pre_commit_can_still_commit_and_is_told_once(
    repo: Path, run: Run, tmp_path: Path
) -> None:
    _husky(repo)
    assert run("init").code == 0
    env = {**os.environ, "PATH": _bare_path(tmp_path)}

    def commit(message: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            ["git", "commit", "-qm", message], cwd=repo, capture_output=True, text=True, env=env
        )

    git(repo, "add", "-A")
    first = commit("set up gitmem")
    assert first.returncode == 0, first.stdout + first.stderr
    assert "not found" not in first.stderr
    assert "gitmem: this commit was not checked for secrets" in first.stderr
    assert "pipx install pre-commit; gitmem: " + INSTALL in first.stderr
    assert (repo / ".husky-ran").is_file()  # their own hook ran
    (repo / ".husky-ran").unlink()
    _write(repo / "notes.txt", "more\n")
    git(repo, "add", "notes.txt")
    second = commit("more")
    assert second.returncode == 0 and "gitmem" not in second.stderr  # told once
    assert (repo / ".husky-ran").is_file()


def test_init_upgrades_the_line_an_older_init_added(repo: Path, run: Run) -> None:
    from gitmem.git.hookpath import MARK

    _husky(repo)
    old = f"{MARK}\r\npre-commit run --hook-stage pre-commit || exit $?\r\necho team hook ran > .husky-ran\r\n"
    _write(repo / ".husky" / "pre-commit", old)
    result = run("init")
    assert "updated gitmem's line in .husky/pre-commit" in result.out
    script = (repo / ".husky" / "pre-commit").read_bytes().decode()
    assert script.startswith(MARK + "\r\nif command -v pre-commit") and script.endswith(
        "; fi\r\necho team hook ran > .husky-ran\r\n"
    )
    assert run("init").out.count(".husky/pre-commit") == 0  # idempotent


def test_a_hooks_path_set_after_init_is_reported_by_doctor_and_check(repo: Path, run: Run) -> None:
    assert run("init").code == 0
    assert run("doctor").code == 0
    _write(repo / ".githooks" / "pre-commit", "#!/bin/sh\necho lint\n").chmod(0o755)
    git(repo, "config", "core.hooksPath", ".githooks")
    doctor = run("doctor")
    assert doctor.code == 1
    assert doctor.lines[0] == (
        ".githooks/pre-commit:1: error: hook-skipped: git runs the pre-commit hook from core.hooksPath (.githooks), "
        "which does not run pre-commit, so commits skip gitmem's scan (pre-commit's hook in .git/hooks is skipped): "
        "run `gitmem init` to add it"
    )
    check = run("check")
    assert check.code == 1 and "hook-skipped" in check.out
    fixed = run("init")
    assert "added `pre-commit run` to .githooks/pre-commit" in fixed.out
    assert run("doctor").code == 0
    assert (repo / ".githooks" / "pre-commit").read_text(encoding="utf-8").splitlines()[
        -1
    ] == "echo lint"


def test_a_hooks_path_outside_the_repository_is_not_written(
    repo: Path, run: Run, tmp_path: Path
) -> None:
    outside = tmp_path / "global-hooks"
    outside.mkdir()
    git(repo, "config", "core.hooksPath", str(outside))
    result = run("init")
    assert result.code == 1
    assert (
        f"core.hooksPath is {outside}, outside this repository: gitmem does not write there"
        in result.err
    )
    assert "pre-commit run --hook-stage pre-commit || exit $?" in result.err
    assert list(outside.iterdir()) == []


def test_the_advice_for_a_hooks_path_outside_goes_to_stderr_when_client_hooks_move_too(
    repo: Path, run: Run, tmp_path: Path
) -> None:
    """The advice stays on stderr when init also moves an older gitmem's client hooks (that
    line was sent to stderr in its place)."""
    outside = tmp_path / "global-hooks"
    outside.mkdir()
    git(repo, "config", "core.hooksPath", str(outside))
    command = {"type": "command", "command": "gitmem hook prompt --client claude"}
    _write(
        repo / ".claude" / "settings.json",
        json.dumps({"hooks": {"UserPromptSubmit": [{"hooks": [command]}]}}) + "\n",
    )
    result = run("init")
    assert result.code == 1
    assert "outside this repository: gitmem does not write there" in result.err
    moved = "updated .claude/settings.json: gitmem's client hooks run gitmem-cli"
    assert moved in result.out and moved not in result.err


# -- the compile hook and files it creates -------------------------------------------------------------------------


def test_the_compile_hook_fails_while_a_file_it_created_is_not_staged(repo: Path, run: Run) -> None:
    assert run("init").code == 0
    assert run("compile").code == 0
    git(repo, "add", "-A")
    assert _commit(repo, "set up").returncode == 0
    assert (
        run(
            "add", "API handlers return problem+json", "--path", "api/**", "--kind", "convention"
        ).code
        == 0
    )
    git(repo, "add", ".memory")
    done = _commit(repo, "memory for api")
    assert done.returncode != 0
    assert "git add api/AGENTS.md api/CLAUDE.md, then commit again" in done.stdout + done.stderr
    git(repo, "add", "api")
    assert _commit(repo, "memory for api").returncode == 0
    assert git(repo, "status", "--porcelain") == ""


# -- files gitmem writes pass the common whitespace hooks -----------------------------------------------------------


def test_add_writes_no_trailing_spaces(project: Path, run: Run) -> None:
    title = (
        "Run the whole test suite before pushing, because CI is slow and reviewers skip red builds "
        * 2
    )
    result = run(
        "add",
        title.strip(),
        "--body",
        "First line with a hard break  \nsecond line\t\n\nlast",
        "--id",
        "t",
    )
    assert result.code == 0, result.err
    text = (project / ".memory" / "memories" / "t.yaml").read_text(encoding="utf-8")
    assert [line for line in text.splitlines() if line != line.rstrip()] == []
    assert "  second line\n\n  last\n" in text
    shown = run("show", "t", "--json")
    assert '"title": "Run the whole test suite before pushing' in shown.out


# -- compile says what the budget left out once ---------------------------------------------------------------------


def test_compile_sums_up_what_the_budget_left_out_in_one_line(project: Path, run: Run) -> None:
    for i in range(8):
        assert run("add", f"Rule number {i}", "--body", "words " * 60).code == 0
    result = run("compile", "--budget", "300")
    assert result.code == 0
    summary = [line for line in result.lines if "left out" in line]
    assert len(summary) == 1
    assert summary[0].startswith("left out by the budget: agents ") and ", claude " in summary[0]
    assert "rule-number" not in summary[0]


def test_init_moves_the_husky_line_of_6dd9a58_to_gitmem_cli(repo: Path, run: Run) -> None:
    """The line an older init added looked for `gitmem` on PATH (maybe another tool's program): it now looks for
    `gitmem-cli`, which the hooks run; every other byte of the team's script stays."""
    from gitmem.git.hookpath import MARK

    _husky(repo)
    line = (
        "if command -v pre-commit >/dev/null 2>&1 && command -v gitmem >/dev/null 2>&1; then pre-commit run "
        '--hook-stage pre-commit || exit $?; else gitmem_noted="$(git rev-parse --git-path gitmem-guard-noted)"; '
        '[ -e "$gitmem_noted" ] || { echo "gitmem: this commit was not checked for secrets: the team\'s guard needs '
        'pre-commit and gitmem (pipx install pre-commit gitmem-cli, then gitmem init). Said once." >&2; '
        ': >"$gitmem_noted"; }; fi'
    )
    _write(repo / ".husky" / "pre-commit", f"{MARK}\n{line}\nnpm test\n")
    result = run("init")
    assert "updated gitmem's line in .husky/pre-commit" in result.out
    script = (repo / ".husky" / "pre-commit").read_text()
    assert "command -v gitmem-cli >/dev/null" in script and "command -v gitmem >" not in script
    assert "pipx install pre-commit gitmem-cli" not in script and INSTALL in script
    assert script.startswith(MARK + "\n") and script.endswith("; fi\nnpm test\n")
