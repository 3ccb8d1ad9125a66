"""The everyday commands, run as a user would: exact messages, exit codes, and nothing written on failure."""

from __future__ import annotations

import json
import os
import random
import stat
import string
import sys
from pathlib import Path

import pytest

from gitmem import __version__
from tests.conftest import Run, git

# Built at run time from a seeded generator: the repository never holds a string its own scanner would flag.
TOKEN = "sk_live_" + "".join(random.Random(3).choices(string.ascii_letters + string.digits, k=24))
ID_RULE = "use 1 to 64 lower-case letters, digits or hyphens, starting with a letter or digit\n"


def memories(project: Path) -> list[str]:
    return sorted(p.name for p in (project / ".memory" / "memories").glob("*.yaml"))


def test_version(run: Run) -> None:
    assert run("--version").out == f"gitmem {__version__}\n"


def test_outside_a_git_repository_exits_3(
    tmp_path: Path, run: Run, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    result = run("list")
    assert result.code == 3
    assert result.err == (
        f"error: {tmp_path.resolve()} is not in a git repository: run `git init` first, or cd into your project\n"
    )


def test_before_init_exits_3(repo: Path, run: Run) -> None:
    result = run("list")
    assert result.code == 3
    assert result.err == f"error: no .memory/ in {repo.resolve()}: run `gitmem init` first\n"


def test_init_creates_store_and_is_idempotent(repo: Path, run: Run) -> None:
    (repo / ".cursor" / "rules").mkdir(parents=True)
    first = run("init")
    assert first.code == 0
    assert "created .memory/config.yaml" in first.out
    assert "found rules files of: cursor" in first.out
    assert first.lines[-1].startswith("next: gitmem import ")
    config = (repo / ".memory" / "config.yaml").read_text()
    assert config == (
        "# yaml-language-server: $schema=schema/config.schema.json\nversion: 1\ntargets: [cursor]\n"
    )
    assert (repo / ".memory" / "schema" / "memory.schema.json").is_file()
    before = {p: p.read_bytes() for p in (repo / ".memory").rglob("*") if p.is_file()}
    second = run("init")
    assert second.code == 0
    assert second.out == "already set up in .memory (targets: cursor)\n"
    assert {p: p.read_bytes() for p in (repo / ".memory").rglob("*") if p.is_file()} == before


def test_init_target_sets_targets_and_keeps_comments(project: Path, run: Run) -> None:
    config = project / ".memory" / "config.yaml"
    config.write_text(config.read_text() + "# our budget is deliberate\nbudget: 1500\n")
    result = run("init", "--target", "copilot", "--target", "agents")
    assert result.code == 0
    assert "targets set to: copilot, agents" in result.out
    text = config.read_text()
    assert "targets: [copilot, agents]" in text
    assert "# our budget is deliberate\nbudget: 1500\n" in text


def test_init_rejects_unknown_target(repo: Path, run: Run) -> None:
    result = run("init", "--target", "vim")
    assert result.code == 2
    assert "'vim' is not one of 'agents', 'claude'" in result.err
    assert not (repo / ".memory").exists()


def test_add_writes_one_canonical_file(project: Path, run: Run) -> None:
    (project / "package.json").write_text('{\n  "name": "web",\n  "packageManager": "pnpm@9"\n}\n')
    result = run(
        "add",
        "Use pnpm, never npm",
        "--kind",
        "convention",
        "--priority",
        "high",
        "--path",
        "web/**",
        "--tag",
        "build",
        "--body",
        "npm rewrites pnpm-lock.yaml.\nRun pnpm at the root.",
        "--evidence",
        "package.json:2-3",
        "--expires",
        "2030-01-01",
        "--id",
        "use-pnpm",
    )
    assert result.code == 0, result.err
    assert result.out == ".memory/memories/use-pnpm.yaml\n"
    text = (project / ".memory" / "memories" / "use-pnpm.yaml").read_text()
    created = text.split("created: ")[1].split("\n")[0]
    assert text == (
        "# yaml-language-server: $schema=../schema/memory.schema.json\n"
        "id: use-pnpm\ntitle: Use pnpm, never npm\nkind: convention\nstatus: active\npriority: high\n"
        "body: |\n  npm rewrites pnpm-lock.yaml.\n  Run pnpm at the root.\n"
        "paths: [web/**]\ntags: [build]\n"
        f"created: {created}\nexpires: 2030-01-01\n"
        "evidence:\n  - path: package.json\n    lines: 2-3\n    digest: sha256:"
        + text.split("digest: sha256:")[1].split("\n")[0]
        + "\nsource: human\n"
    )
    shown = json.loads(run("show", "use-pnpm", "--json").out)
    assert shown["evidence"][0]["path"] == "package.json"
    assert shown["expires"] == "2030-01-01"


def test_schema_line_resolves_offline(project: Path, run: Run) -> None:
    run("add", "A fact", "--kind", "fact")
    path = project / ".memory" / "memories" / "a-fact.yaml"
    first = path.read_text().splitlines()[0]
    assert first == "# yaml-language-server: $schema=../schema/memory.schema.json"
    target = (path.parent / first.split("$schema=")[1]).resolve()
    schema = json.loads(target.read_text())
    assert schema["$id"].endswith("memory.schema.json")


@pytest.mark.parametrize(
    ("args", "code", "message"),
    [
        (
            ["Title", "--id", "../escape"],
            2,
            "error: invalid id '../escape': " + ID_RULE,
        ),
        (
            ["Title", "--id", "Upper"],
            2,
            "error: invalid id 'Upper': " + ID_RULE,
        ),
        (
            ["!!!"],
            2,
            "error: cannot make an id from this title (no letters or digits): pass one with --id\n",
        ),
        (
            ["Title", "--expires", "soon"],
            2,
            "error: --expires: 'soon' is not a date; use YYYY-MM-DD or a span such as 90d or 12w\n",
        ),
        (
            ["Title", "--review-after", "2026-02-30"],
            2,
            "error: --review-after: '2026-02-30' is not a date; use YYYY-MM-DD or a span such as 90d or 12w\n",
        ),
        (
            ["Title", "--supersedes", "nothing"],
            2,
            "error: no memory 'nothing'; `gitmem list` shows the ids\n",
        ),
        (
            ["Title", "--evidence", "missing.txt"],
            2,
            "error: --evidence 'missing.txt': no such file\n",
        ),
        (
            ["Title", "--evidence", "/etc/passwd"],
            2,
            "error: --evidence '/etc/passwd': the file must be inside the repository\n",
        ),
        (
            ["Title", "--body", "a", "--body-file", "-"],
            2,
            "error: give the body once: --body, --body-file, or '-' for stdin\n",
        ),
        (
            ["Title", "extra"],
            2,
            "error: unexpected argument 'extra': quote the title, or use '-' to read the body from stdin\n",
        ),
        (
            ["Title", "--path", "/abs/**"],
            1,
            ".memory/memories/title.yaml:6:9: paths[0]: must be a glob relative to the repository root, without '..' "
            "(e.g. web/**)\nnothing was written\n",
        ),
        (
            ["Two\nlines"],
            1,
            ".memory/memories/two-lines.yaml:3:1: title: must be one non-empty line\nnothing was written\n",
        ),
    ],
)
def test_add_refuses_bad_input_and_writes_nothing(
    project: Path, run: Run, args: list[str], code: int, message: str
) -> None:
    result = run("add", *args)
    assert (result.code, result.err) == (code, message)
    assert memories(project) == []


def test_add_refuses_a_secret_without_printing_it(project: Path, run: Run) -> None:
    result = run("add", "Stripe key for staging", "--body", f"use {TOKEN} for tests")
    assert result.code == 1
    assert result.err == (
        ".memory/memories/stripe-key-for-staging.yaml:6:11: body: possible secret (stripe-secret-key): "
        "sk_l… (32 chars); secrets must never be stored in memory\nnothing was written\n"
    )
    assert TOKEN not in result.out + result.err
    assert memories(project) == []


def test_add_refuses_a_secret_in_its_title_without_naming_a_file_after_it(
    project: Path, run: Run
) -> None:
    """The would-be file's name is made from the title: it said the token (lower-cased) in the
    error, before the message that says it will not be printed."""
    result = run("add", f"Stripe key {TOKEN} for staging")
    assert result.code == 1
    assert result.err.startswith(
        ".memory/memories/stripe-key-redacted-stripe-secret-key-for-staging.yaml:3:19: title: "
        "possible secret (stripe-secret-key): sk_l… (32 chars)"
    )
    assert TOKEN.lower()[8:] not in (result.out + result.err).lower()
    assert memories(project) == []


@pytest.mark.parametrize(
    "args",
    [
        ["add", "Deploy notes", "--id", TOKEN],  # gitmem's own error quotes the id
        ["add", "Deploy notes", "--kind", TOKEN],  # click's quotes the option's value
        ["show", TOKEN],
        ["retire", TOKEN],
    ],
)
def test_no_error_quotes_a_secret_back(project: Path, run: Run, args: list[str]) -> None:
    """Every error is shown through one place that redacts it (``errors.without_secrets``): a
    value quoted back in an error (an id, an option's value) never prints a whole secret."""
    result = run(*args)
    assert result.code == 2, result.err
    assert "‹redacted:stripe-secret-key›" in result.err
    assert TOKEN[8:] not in result.out + result.err


def test_an_error_is_redacted_where_it_is_shown() -> None:
    """The CLI's one echo of an error calls ``without_secrets`` (the MCP server's one outlet is driven
    by a real client in tests/test_mcp.py)."""
    from gitmem.errors import CheckFailed, Problem, UsageError
    from gitmem.scan import without_secrets

    assert TOKEN not in without_secrets(str(UsageError(f"no memory {TOKEN!r}")))
    assert TOKEN not in without_secrets(
        str(CheckFailed([Problem(f"{TOKEN}.yaml", 1, 1, "i", "x")]))
    )
    assert "without_secrets(" in (Path(__file__).parents[1] / "gitmem/commands/cli.py").read_text()


def test_add_refuses_hidden_unicode(project: Path, run: Run) -> None:
    result = run("add", "Always run\u2067 the linter", "--id", "lint")
    assert result.code == 1
    assert result.err == (
        ".memory/memories/lint.yaml:3:18: title: hidden Unicode character U+2067 (RIGHT-TO-LEFT ISOLATE)\n"
        "nothing was written\n"
    )
    assert memories(project) == []


def test_add_never_overwrites(project: Path, run: Run) -> None:
    assert run("add", "Use pnpm").code == 0
    before = (project / ".memory" / "memories" / "use-pnpm.yaml").read_bytes()
    result = run("add", "Use pnpm", "--body", "different")
    assert result.code == 2
    assert result.err == (
        "error: memory 'use-pnpm' already exists (.memory/memories/use-pnpm.yaml); choose another id with --id, or "
        "change it with `gitmem edit`\n"
    )
    assert (project / ".memory" / "memories" / "use-pnpm.yaml").read_bytes() == before


def test_add_body_from_stdin_and_file(project: Path, run: Run) -> None:
    assert run("add", "From stdin", "-", input="line one\nline two\n").code == 0
    (project / "body.md").write_text("from a file\n")
    assert run("add", "From file", "--body-file", "body.md").code == 0
    data = {m["id"]: m for m in json.loads(run("list", "--json").out)}
    assert data["from-stdin"]["body"] == "line one\nline two\n"
    assert data["from-file"]["body"] == "from a file"


def test_add_relative_dates(project: Path, run: Run) -> None:
    from datetime import date, timedelta

    assert run("add", "Temporary", "--expires", "30d", "--review-after", "2w").code == 0
    shown = json.loads(run("show", "temporary", "--json").out)
    assert shown["expires"] == (date.today() + timedelta(days=30)).isoformat()
    assert shown["review_after"] == (date.today() + timedelta(days=14)).isoformat()


def test_written_file_respects_umask(project: Path, run: Run) -> None:
    run("add", "Permissions")
    mode = stat.S_IMODE((project / ".memory" / "memories" / "permissions.yaml").stat().st_mode)
    assert mode == 0o666 & ~_umask()


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask


def test_list_filters_and_table(project: Path, run: Run) -> None:
    run("add", "Use pnpm", "--tag", "build")
    run("add", "Flaky test in CI", "--kind", "pitfall", "--proposed")
    run("add", "Old rule", "--kind", "decision")
    run("retire", "old-rule", "--reason", "no longer true")
    table = run("list")
    assert table.code == 0
    assert table.out == (
        "ID                KIND        STATUS    PRIORITY  TITLE\n"
        "flaky-test-in-ci  pitfall     proposed  normal    Flaky test in CI\n"
        "old-rule          decision    retired   normal    Old rule\n"
        "use-pnpm          convention  active    normal    Use pnpm\n"
    )
    assert "\x1b[" not in table.out
    ids = lambda *args: [m["id"] for m in json.loads(run("list", "--json", *args).out)]  # noqa: E731
    assert ids("--status", "proposed") == ["flaky-test-in-ci"]
    assert ids("--kind", "pitfall", "--kind", "decision") == ["flaky-test-in-ci", "old-rule"]
    assert ids("--tag", "build") == ["use-pnpm"]
    assert run("list", "--status", "active", "--kind", "fact").err == "no memories match\n"


def test_list_json_has_every_field(project: Path, run: Run) -> None:
    run("add", "Use pnpm")
    (item,) = json.loads(run("list", "--json").out)
    assert list(item) == [
        "id",
        "title",
        "kind",
        "status",
        "priority",
        "body",
        "paths",
        "targets",
        "tags",
        "words",
        "enforce",
        "created",
        "expires",
        "review_after",
        "supersedes",
        "evidence",
        "source",
        "origin",
        "retired",
        "reason",
        "path",
    ]


def test_list_reports_invalid_files_but_lists_the_rest(project: Path, run: Run) -> None:
    run("add", "Use pnpm")
    (project / ".memory" / "memories" / "bad.yaml").write_text("id: bad\n")
    result = run("list")
    assert result.code == 1
    assert "use-pnpm" in result.out
    assert ".memory/memories/bad.yaml:1:1: kind: required field is missing" in result.err


def test_colour_only_on_a_terminal_and_never_with_no_color(project: Path, run_exe: Run) -> None:
    run_exe("add", "Proposal", "--proposed")
    import pty
    import subprocess

    from tests.conftest import gitmem_command

    def on_tty(env: dict[str, str]) -> bytes:
        main, child = pty.openpty()
        done = subprocess.run(
            [*gitmem_command(), "list"],
            stdout=child,
            stderr=child,
            env={**os.environ, **env},
            check=False,
            timeout=60,
        )
        os.close(child)
        out = b""
        while True:
            try:
                chunk = os.read(main, 4096)
            except OSError:
                break
            if not chunk:
                break
            out += chunk
        os.close(main)
        assert done.returncode == 0
        return out

    assert b"\x1b[" in on_tty({})
    assert b"\x1b[" not in on_tty({"NO_COLOR": "1"})


def test_show_human_and_unknown(project: Path, run: Run) -> None:
    run("add", "Use pnpm", "--body", "Because the lockfile.", "--tag", "build")
    out = run("show", "use-pnpm").out
    assert out.startswith("use-pnpm  Use pnpm\n  kind         convention\n  status       active\n")
    assert "  file         .memory/memories/use-pnpm.yaml\n\n  Because the lockfile.\n" in out
    result = run("show", "use-pnmp")
    assert (result.code, result.err) == (
        2,
        "error: no memory 'use-pnmp' (did you mean 'use-pnpm'?)\n",
    )


def test_accept_makes_proposals_active_and_retires_superseded(project: Path, run: Run) -> None:
    run("add", "Use npm", "--id", "use-npm")
    run("add", "Use pnpm", "--proposed", "--supersedes", "use-npm")
    assert json.loads(run("show", "use-npm", "--json").out)["status"] == "active"
    result = run("accept", "use-pnpm")
    assert result.code == 0
    assert result.out == (
        "updated .memory/memories/use-pnpm.yaml\nupdated .memory/memories/use-npm.yaml\n"
        "retired use-npm: superseded by use-pnpm\n"
    )
    old = json.loads(run("show", "use-npm", "--json").out)
    assert (old["status"], old["reason"]) == ("retired", "superseded by use-pnpm")
    assert run("accept", "use-pnpm").out == "use-pnpm is already active\n"


def test_accept_checks_every_id_before_changing_anything(project: Path, run: Run) -> None:
    run("add", "A proposal", "--proposed")
    result = run("accept", "a-proposal", "missing")
    assert result.code == 2
    assert json.loads(run("show", "a-proposal", "--json").out)["status"] == "proposed"


def test_retire_keeps_comments_and_records_why(project: Path, run: Run) -> None:
    run("add", "Use npm", "--id", "use-npm")
    run("add", "Use pnpm")
    path = project / ".memory" / "memories" / "use-npm.yaml"
    path.write_text(path.read_text().replace("kind:", "# decided in #12\nkind:"))
    result = run("retire", "use-npm", "--superseded-by", "use-pnpm")
    assert result.code == 0
    text = path.read_text()
    assert "# decided in #12\nkind: convention\nstatus: retired\n" in text
    assert "reason: superseded by use-pnpm\n" in text
    assert json.loads(run("show", "use-pnpm", "--json").out)["supersedes"] == ["use-npm"]


def test_forget_removes_file_and_references(project: Path, run: Run) -> None:
    run("add", "Use npm", "--id", "use-npm")
    run("add", "Use pnpm", "--supersedes", "use-npm")
    result = run("forget", "use-npm")
    assert result.code == 0
    assert result.out == (
        "removed use-npm from the supersedes of use-pnpm\n"
        "removed .memory/memories/use-npm.yaml (git keeps it if it was committed)\n"
    )
    assert memories(project) == ["use-pnpm.yaml"]
    assert run("validate").code == 0


def _editor(tmp_path: Path, python: str) -> str:
    script = tmp_path / "editor.py"
    script.write_text(f"import sys, pathlib\np = pathlib.Path(sys.argv[1])\n{python}\n")
    return f"{sys.executable} {script}"


def test_edit_applies_a_valid_change(project: Path, run: Run, tmp_path: Path) -> None:
    run("add", "Use pnpm")
    editor = _editor(
        tmp_path, "p.write_text(p.read_text().replace('title: Use pnpm', 'title: Use pnpm 9'))"
    )
    result = run("edit", "use-pnpm", env={"EDITOR": editor})
    assert (result.code, result.out) == (0, "updated .memory/memories/use-pnpm.yaml\n")
    assert json.loads(run("show", "use-pnpm", "--json").out)["title"] == "Use pnpm 9"


def test_edit_refuses_invalid_result_and_keeps_both(
    project: Path, run: Run, tmp_path: Path
) -> None:
    run("add", "Use pnpm")
    path = project / ".memory" / "memories" / "use-pnpm.yaml"
    before = path.read_bytes()
    editor = _editor(tmp_path, f"p.write_text(p.read_text() + 'body: leaked {TOKEN}\\n')")
    result = run("edit", "use-pnpm", env={"EDITOR": editor})
    assert result.code == 1
    assert result.err.splitlines()[-1] == (
        "refused: .memory/memories/use-pnpm.yaml is unchanged; your edit is kept in .git/gitmem/drafts/use-pnpm.yaml"
    )
    assert TOKEN not in result.err
    assert path.read_bytes() == before
    assert TOKEN in (project / ".git" / "gitmem" / "drafts" / "use-pnpm.yaml").read_text()


def test_edit_without_changes(project: Path, run: Run, tmp_path: Path) -> None:
    run("add", "Use pnpm")
    result = run("edit", "use-pnpm", env={"EDITOR": _editor(tmp_path, "pass")})
    assert result.out == "no changes to .memory/memories/use-pnpm.yaml\n"


def test_internal_error_is_one_line_and_exit_4(
    project: Path, run: Run, monkeypatch: pytest.MonkeyPatch
) -> None:
    # A command module that does not exist stands in for a bug: the error boundary must still hold.
    from gitmem.commands import cli

    monkeypatch.setitem(cli.COMMANDS, "broken", cli.Command("no_such_module", "command", None))
    result = run("broken")
    assert result.code == 4
    assert result.err == (
        "internal error: ModuleNotFoundError: No module named 'gitmem.commands.no_such_module' (this is a "
        "bug in gitmem; "
        "rerun with --debug for the traceback)\n"
    )
    assert "Traceback" in run("--debug", "broken").err


def test_usage_errors_exit_2(project: Path, run: Run) -> None:
    assert run("add").code == 2
    assert run("list", "--status", "bogus").code == 2
    assert run("frobnicate").code == 2


def test_every_command_has_help_with_an_example(run: Run) -> None:
    from gitmem.commands.cli import COMMANDS

    for name in COMMANDS:
        result = run(name, "--help")
        assert result.code == 0, name
        assert "Example" in result.out, f"gitmem {name} --help has no example"


def test_commit_and_revert_a_memory(project: Path, run: Run) -> None:
    git(project, "add", "-A")
    git(project, "commit", "-qm", "set up gitmem")
    run("add", "Use pnpm")
    git(project, "add", "-A")
    git(project, "commit", "-qm", "memory: use pnpm")
    git(project, "revert", "--no-edit", "HEAD")
    assert memories(project) == []
    assert run("validate").code == 0


def test_group_help_lists_every_command_without_importing_them(run: Run) -> None:
    import subprocess

    from gitmem.commands.cli import COMMANDS

    out = run("--help").out
    for name, entry in COMMANDS.items():
        if entry.summary is not None:
            assert f"  {name}" in out and entry.summary in out
        else:
            assert f"  {name} " not in out
    code = (
        "import sys; from gitmem.commands.cli import main; main(['--help']); "
        "print(sorted(m for m in sys.modules "
        "if m.startswith('gitmem.commands.') and m != 'gitmem.commands.cli'))"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert done.stdout.strip().splitlines()[-1] == "[]"
