"""`gitmem import` on realistic rules files of every format, in real repositories."""

from __future__ import annotations

import json
from datetime import date
from pathlib import Path
from typing import Any

import pytest

from gitmem.scan import scan_text
from tests.adopt.rules_files import FILES, write
from tests.conftest import Run, git

# Built at run time: the repository never holds a string its own scanner would flag.
TOKEN = "ghp_" + "aB3dE5fG7hJ9kL2mN4pQ6rS8tU0vW1xY" + "z9Qk"


def rules_files(root: Path) -> dict[str, bytes]:
    """Every file of the repository outside .git/ and .memory/, with its bytes."""
    return {
        path.relative_to(root).as_posix(): path.read_bytes()
        for path in sorted(root.rglob("*"))
        if path.is_file()
        and not path.relative_to(root).as_posix().startswith((".git/", ".memory/"))
    }


def memory_files(root: Path) -> list[str]:
    return sorted(p.name for p in (root / ".memory/memories").glob("*.yaml"))


def imported(run: Run, *args: str) -> dict[str, Any]:
    result = run("import", "--json", *args)
    assert result.code == 0, result.err
    data: dict[str, Any] = json.loads(result.out)
    return data


def by_title(data: dict[str, Any]) -> dict[str, dict[str, Any]]:
    return {memory["title"]: memory for memory in data["memories"]}


@pytest.fixture
def rules_repo(repo: Path, run: Run) -> Path:
    """A project with rules files of every format, compiled for four targets (so AGENTS.md, CLAUDE.md and the
    Copilot file hold a managed block, and .cursor/rules/gitmem.mdc is generated whole), all committed. Compiled
    in two runs: together, Cursor and the Copilot CLI would get the memory from AGENTS.md (and Claude Code in
    .claude/CLAUDE.md), and their own files would hold none."""
    targets = ("agents", "claude", "cursor", "copilot")
    assert run("init", "--no-hooks", *(f"--target={name}" for name in targets)).code == 0
    write(repo)
    assert run("add", "Keep the changelog in CHANGELOG.md", "--id", "keep-changelog").code == 0
    # CLAUDE.md imports @AGENTS.md: its block holds only what AGENTS.md lacks, a memory for Claude Code alone
    assert (
        run(
            "add", "Review with the /review command", "--id", "claude-review", "--target", "claude"
        ).code
        == 0
    )
    assert run("compile", "--target", "cursor", "--target", "copilot").code == 0
    assert run("compile", "--target", "agents", "--target", "claude").code == 0
    git(repo, "add", "-A")
    git(repo, "commit", "-qm", "Rules files of every tool")
    return repo


# Memories expected from the files in rules_files.FILES: title -> (kind, paths, priority, origin, sources).
# fmt: off
EXPECTED: list[tuple[str, str, list[str], str, str, list[str]]] = [
    ("Use British spelling in user-facing copy", "preference", [], "normal", "AGENTS.md",
     ["AGENTS.md:122", "CLAUDE.md:7", "web/AGENTS.md:5"]),
    ("Install dependencies with `pnpm install` at the repository root; never use npm or yarn", "convention", [],
     "normal", "AGENTS.md", ["AGENTS.md:19", "CLAUDE.md:8"]),
    ("Acme is a monorepo: a Next.js storefront in `web/`, a FastAPI service in `api/`, and shared TypeScript "
     "packages in `packages/`", "fact", [], "normal", "AGENTS.md", ["AGENTS.md:3-4"]),
    ("Project structure", "fact", [], "normal", "AGENTS.md", ["AGENTS.md:8-13"]),
    ("Run the whole test suite with: `pnpm turbo run test`", "convention", [], "normal", "AGENTS.md",
     ["AGENTS.md:26-30"]),
    ("Components: One component per file, named in PascalCase", "convention", [], "normal", "AGENTS.md",
     ["AGENTS.md:44"]),
    ("Postgres is the only datastore", "decision", [], "normal", "AGENTS.md", ["AGENTS.md:60"]),
    ("The `api/` tests need Docker running: they start Postgres with testcontainers", "pitfall", [], "normal",
     "AGENTS.md", ["AGENTS.md:68"]),
    ("Migrations: `uv run alembic upgrade head`", "pitfall", [], "normal", "AGENTS.md", ["AGENTS.md:71-77"]),
    ("Explain a plan before large refactors and wait for a yes", "preference", [], "normal", "AGENTS.md",
     ["AGENTS.md:120"]),
    ("Do not run `terraform apply`; infrastructure changes go through the infra team's pipeline", "pitfall", [],
     "normal", "AGENTS.md", ["AGENTS.md:126"]),
    ("PDP: product detail page", "fact", [], "normal", "AGENTS.md", ["AGENTS.md:131"]),
    ("Run `pnpm typecheck` before saying a task is done", "convention", [], "normal", "CLAUDE.md", ["CLAUDE.md:9"]),
    ("Keep generated SQL in `api/sql/`, one query per file", "convention", [], "normal", "GEMINI.md",
     ["GEMINI.md:5"]),
    ("Server components by default; add `\"use client\"` only where state or effects need it", "convention",
     ["web/**"], "normal", "web/AGENTS.md", ["web/AGENTS.md:3"]),
    ("Props types are named `<Component>Props` and exported next to the component", "convention",
     ["web/**/*.tsx", "packages/ui/**/*.tsx"], "normal", ".cursor/rules/react.mdc", [".cursor/rules/react.mdc:9"]),
    ("Answer in English even when the question is asked in another language", "convention", [], "normal",
     ".cursor/rules/general.mdc", [".cursor/rules/general.mdc:6"]),
    ("Schema changes need a migration in `api/migrations/` and a note in the PR describing the rollout", "fact", [],
     "on-demand", ".cursor/rules/database.mdc", [".cursor/rules/database.mdc:6"]),
    ("Never commit `.env.local` or any file holding credentials", "convention", [], "normal", ".cursorrules",
     [".cursorrules:3"]),
    ("Write commit messages in the Conventional Commits format", "convention", [], "normal",
     ".github/copilot-instructions.md", [".github/copilot-instructions.md:5"]),
    ("Use `httpx.AsyncClient` for outbound HTTP; `requests` blocks the event loop", "convention", ["api/**/*.py"],
     "normal", ".github/instructions/python.instructions.md", [".github/instructions/python.instructions.md:6"]),
    ("Each test builds its own data with the factories in `tests/factories.py`", "convention",
     ["api/tests/**", "web/**/*.test.ts"], "normal", ".claude/rules/testing.md", [".claude/rules/testing.md:8"]),
    ("Tailwind classes are sorted by the Prettier plugin; do not sort them by hand", "convention", ["web/**"],
     "normal", ".windsurf/rules/frontend.md", [".windsurf/rules/frontend.md:5"]),
    ("Always answer with the smallest change that fixes the problem", "convention", [], "normal", ".windsurfrules",
     [".windsurfrules:1"]),
    ("Terraform modules pin provider versions with `~>`", "convention", ["infra/**"], "normal",
     ".clinerules/01-infra.md", [".clinerules/01-infra.md:7"]),
    ("Every endpoint declares a `response_model`", "convention", ["api/**/*.py"], "normal", ".kiro/steering/api.md",
     [".kiro/steering/api.md:7"]),
    ("The storefront sells refurbished phones in the UK and Ireland", "fact", [], "on-demand",
     ".kiro/steering/product.md", [".kiro/steering/product.md:6"]),
    ("Prefer small pure functions over classes with state", "convention", [], "normal", "CONVENTIONS.md",
     ["CONVENTIONS.md:3"]),
]
# fmt: on


def test_import_of_every_format_makes_proposed_memories_with_kinds_and_paths(
    rules_repo: Path, run: Run
) -> None:
    before = rules_files(rules_repo)
    data = imported(run)

    memories = by_title(data)
    for title, kind, paths, priority, origin, where in EXPECTED:
        memory = memories[title]
        got = (memory["kind"], memory["paths"], memory["priority"], memory["origin"])
        first_line = where[0].rsplit(":", 1)[1].split("-")[0]
        assert got == (kind, paths, priority, f"{origin}:{first_line}"), (
            title
        )  # the file and line read first
        assert [
            f"{s['path']}:{s['line']}" + (f"-{s['end']}" if s["end"] > s["line"] else "")
            for s in memory["sources"]
        ] == where, title
    assert {(m["status"], m["source"], m["created"]) for m in data["memories"]} == {
        ("proposed", "import", date.today().isoformat())
    }
    assert len(data["memories"]) == 74  # the 3 steps of a numbered list are 1 procedure
    assert memories["Postgres is the only datastore"]["body"] == (
        "Redis was removed in 2025 after cache invalidation bugs; do not add it back."
    )
    assert memories["Migrations: `uv run alembic upgrade head`"]["body"] == (
        "must run before the API starts against a fresh database."
    )
    assert memories["Project structure"]["body"].startswith(
        "```text\nweb/        Next.js storefront"
    )

    # What was read, and the scope each file gave.
    files = {f["path"]: (f["items"], f["paths"], f["priority"]) for f in data["files"]}
    assert files == {
        "AGENTS.md": (52, [], "normal"),
        "CLAUDE.md": (4, [], "normal"),
        "GEMINI.md": (1, [], "normal"),
        "web/AGENTS.md": (3, ["web/**"], "normal"),
        ".cursorrules": (2, [], "normal"),
        ".cursor/rules/database.mdc": (1, [], "on-demand"),
        ".cursor/rules/general.mdc": (1, [], "normal"),
        ".cursor/rules/react.mdc": (2, ["web/**/*.tsx", "packages/ui/**/*.tsx"], "normal"),
        ".github/copilot-instructions.md": (2, [], "normal"),
        ".github/instructions/python.instructions.md": (2, ["api/**/*.py"], "normal"),
        ".claude/rules/testing.md": (1, ["api/tests/**", "web/**/*.test.ts"], "normal"),
        ".windsurfrules": (1, [], "normal"),
        ".windsurf/rules/frontend.md": (1, ["web/**"], "normal"),
        ".clinerules/01-infra.md": (1, ["infra/**"], "normal"),
        ".kiro/steering/api.md": (1, ["api/**/*.py"], "normal"),
        ".kiro/steering/product.md": (1, [], "on-demand"),
        "CONVENTIONS.md": (1, [], "normal"),
    }

    # gitmem's own output is compiled, not hand-written: never imported.
    skipped = {(s["path"], s["line"], s["reason"]) for s in data["skipped"]}
    assert (".cursor/rules/gitmem.mdc", None, "generated whole by gitmem compile") in skipped
    for path in ("AGENTS.md", "CLAUDE.md", ".github/copilot-instructions.md"):
        block_line = FILES[path].count("\n") + 1
        assert (path, block_line, "gitmem's managed block (compiled memories)") in skipped
    assert ("CLAUDE.md", 3, "imports @AGENTS.md: read as AGENTS.md") in skipped
    assert ("GEMINI.md", 3, "imports @./AGENTS.md: read as AGENTS.md") in skipped
    assert not any(
        line == 17 for path, line, _ in skipped if path == "AGENTS.md"
    )  # a lead-in: kept as context
    setup = memories[
        "Install dependencies with `pnpm install` at the repository root; never use npm or yarn"
    ]
    assert setup["body"] == "Listed under: These steps assume macOS or Linux:" and setup[
        "tags"
    ] == ["setup"]
    assert [m["title"] for m in json.loads(run("list", "--json").out)].count(
        "Keep the changelog in CHANGELOG.md"
    ) == 1

    # Which hand-written lines are now also memories, so the team can delete them by hand.
    lines = {f"{line['path']}:{line['line']}": line["id"] for line in data["lines"]}
    british = memories["Use British spelling in user-facing copy"]["id"]
    assert lines["AGENTS.md:122"] == lines["CLAUDE.md:7"] == lines["web/AGENTS.md:5"] == british
    assert len(data["lines"]) == sum(len(m["sources"]) for m in data["memories"])

    # Nothing but new memory files: the rules files are byte for byte as they were.
    assert rules_files(rules_repo) == before
    status = git(rules_repo, "status", "--porcelain", "--untracked-files=all").splitlines()
    assert status and all(line.startswith("?? .memory/memories/") for line in status)
    assert len(status) == 74
    assert run("validate").code == 0


def test_import_twice_adds_nothing(rules_repo: Path, run: Run) -> None:
    first = imported(run)
    ids = {m["title"]: m["id"] for m in first["memories"]}
    assert run("accept", *sorted(ids.values())[:5]).code == 0
    files = memory_files(rules_repo)

    again = imported(run)
    assert again["memories"] == []
    assert {k["why"] for k in again["known"]} == {"imported-before"}
    assert len(again["known"]) == sum(len(m["sources"]) for m in first["memories"])
    assert {f"{k['path']}:{k['line']}": k["id"] for k in again["known"]} == {
        f"{line['path']}:{line['line']}": line["id"] for line in first["lines"]
    }
    assert memory_files(rules_repo) == files


def test_accept_makes_them_active_and_compile_then_adds_nothing_to_import(
    project: Path, run: Run
) -> None:
    write(project, {"AGENTS.md": "# Rules\n\n- Use pnpm, never npm.\n- Pin Node 20 in `.nvmrc`.\n"})
    result = run("import", "--accept")
    assert result.code == 0, result.err
    assert (
        result.err.splitlines()[-1]
        == "next: gitmem compile, then commit .memory/ and the compiled files"
    )
    assert {m["status"] for m in json.loads(run("list", "--json").out)} == {"active"}
    assert run("compile").code == 0
    assert "<!-- gitmem:begin" in (project / "AGENTS.md").read_text()
    again = imported(run)
    assert again["memories"] == [] and len(again["known"]) == 2


SMALL = {
    "AGENTS.md": "# Shop\n\n## Conventions\n\n- Use pnpm, never npm.\n- Pin Node 20 in `.nvmrc`.\n",
    "CLAUDE.md": "@AGENTS.md\n\n## Gotchas\n\n- use pnpm, never NPM\n- The dev server needs port 3000 free.\n",
    ".cursor/rules/web.mdc": "---\ndescription: Web\nglobs: web/**/*.tsx\nalwaysApply: false\n---\n"
    "- Props types end in `Props`.\n",
}


def test_dry_run_prints_the_plan_and_writes_nothing(project: Path, run: Run) -> None:
    write(project, SMALL)
    before = rules_files(project)
    result = run("import", "--dry-run")
    assert result.code == 0, result.err
    assert result.out.splitlines() == [
        "read AGENTS.md (the whole project): 2 items",
        "read CLAUDE.md (the whole project): 2 items",
        "read .cursor/rules/web.mdc (Cursor rule; globs web/**/*.tsx): 1 item",
        "would propose use-pnpm-never-npm: Use pnpm, never npm",
        '    convention (heading "Conventions") · from AGENTS.md:5, CLAUDE.md:5',
        "would propose pin-node-20-in-nvmrc: Pin Node 20 in `.nvmrc`",
        '    convention (heading "Conventions") · from AGENTS.md:6',
        "would propose the-dev-server-needs-port-3000-free: The dev server needs port 3000 free",
        '    pitfall (heading "Gotchas") · from CLAUDE.md:6',
        "would propose props-types-end-in-props: Props types end in `Props`",
        "    convention (default) · paths web/**/*.tsx · from .cursor/rules/web.mdc:6",
        "skipped CLAUDE.md:1: imports @AGENTS.md: read as AGENTS.md",
        "",
        "These hand-written lines would also be memories; delete them by hand when ready (import never changes a "
        "rules file):",
        "  .cursor/rules/web.mdc:6  props-types-end-in-props",
        "  AGENTS.md:5              use-pnpm-never-npm",
        "  AGENTS.md:6              pin-node-20-in-nvmrc",
        "  CLAUDE.md:5              use-pnpm-never-npm",
        "  CLAUDE.md:6              the-dev-server-needs-port-3000-free",
    ]
    assert result.err == "4 would propose from 3 file(s), 0 already memories, 1 skipped\n"
    assert memory_files(project) == []
    assert rules_files(project) == before

    written = run("import")
    assert written.code == 0
    assert (
        written.out.splitlines()[3]
        == "proposed .memory/memories/use-pnpm-never-npm.yaml: Use pnpm, never npm"
    )
    assert memory_files(project) == [
        "pin-node-20-in-nvmrc.yaml",
        "props-types-end-in-props.yaml",
        "the-dev-server-needs-port-3000-free.yaml",
        "use-pnpm-never-npm.yaml",
    ]
    assert rules_files(project) == before


def test_an_item_with_a_secret_or_hidden_unicode_is_refused_and_the_rest_imported(
    project: Path, run: Run
) -> None:
    text = (
        "# Rules\n\n"
        "- Use pnpm, never npm.\n"
        f"- The staging deploy token is {TOKEN}, keep it handy.\n"
        "- Review every PR within a day.\u200b\n"
        "- Pin Node 20.\n"
    )
    write(project, {"AGENTS.md": text})
    result = run("import")
    assert result.code == 1
    found = scan_text(TOKEN)[0]  # the scanner describes its own finding: rule id and preview
    assert result.err.splitlines()[:2] == [
        f"refused: AGENTS.md:4:31: possible secret ({found.rule}): {found.preview}: secrets never belong in memory; "
        "remove it from the rules file; not imported",
        "refused: AGENTS.md:5:32: hidden Unicode character U+200B (ZERO WIDTH SPACE): hidden characters carry text a "
        "reviewer cannot see; not imported",
    ]
    assert TOKEN not in result.out + result.err and TOKEN[4:12] not in result.out + result.err
    assert memory_files(project) == ["pin-node-20.yaml", "use-pnpm-never-npm.yaml"]
    as_json = run("import", "--json")
    assert as_json.code == 1 and TOKEN[4:12] not in as_json.out
    assert [(r["line"], r["reason"]) for r in json.loads(as_json.out)["refused"]] == [
        (4, "secret"),
        (5, "hidden-unicode"),
    ]


def test_paths_choose_what_is_read(project: Path, run: Run) -> None:
    write(project, SMALL)
    write(project, {"docs/style.md": "# Style\n\n- Wrap prose at 120 characters.\n"})
    only_claude = imported(run, "--dry-run", "CLAUDE.md")
    assert [(f["path"], f["imported_by"]) for f in only_claude["files"]] == [
        ("CLAUDE.md", None),
        ("AGENTS.md", "CLAUDE.md"),
    ]
    folder = imported(run, "--dry-run", ".cursor")
    assert [f["path"] for f in folder["files"]] == [".cursor/rules/web.mdc"]
    other = imported(run, "--dry-run", "docs/style.md")
    assert [(f["path"], f["format"]) for f in other["files"]] == [("docs/style.md", "Markdown")]
    assert [(m["title"], m["kind"]) for m in other["memories"]] == [
        ("Wrap prose at 120 characters", "convention")
    ]
    assert memory_files(project) == []


@pytest.mark.parametrize(
    ("argument", "message"),
    [
        (
            "../outside.md",
            "error: ../outside.md: outside the repository; import the rules files of this repository\n",
        ),
        ("missing.md", "error: missing.md: no such file or directory\n"),
        (
            ".memory/config.yaml",
            "error: .memory/config.yaml: gitmem's own files are not imported; session logs are harvested with "
            "`gitmem journal harvest FILE`\n",
        ),
    ],
)
def test_path_errors(project: Path, run: Run, argument: str, message: str) -> None:
    (project.parent / "outside.md").write_text("- x\n")
    result = run("import", argument)
    assert (result.code, result.err) == (2, message)


def test_nothing_to_import(project: Path, run: Run) -> None:
    result = run("import")
    assert result.code == 0
    assert result.err.startswith("no rules files found (AGENTS.md, CLAUDE.md, GEMINI.md")


def test_files_that_cannot_be_read_are_skipped_with_the_reason(project: Path, run: Run) -> None:
    write(
        project,
        {
            "AGENTS.md": "# Rules\n<!-- gitmem:begin -->\n- Use pnpm.\n",
            ".cursor/rules/bad.mdc": "---\nglobs: ../elsewhere/**\n---\n- Something.\n",
            "CLAUDE.md": "- Use pnpm.\n",
        },
    )
    (project / "GEMINI.md").write_bytes(b"- caf\xe9\n")
    data = imported(run, "--dry-run")
    assert {(s["path"], s["reason"]) for s in data["skipped"]} == {
        (
            "AGENTS.md",
            "its gitmem markers do not pair up (line 2: a gitmem begin marker without its end marker "
            "(<!-- gitmem:end -->)): fix them first",
        ),
        (
            ".cursor/rules/bad.mdc",
            "the glob '../elsewhere/**' points outside the repository: fix its frontmatter first",
        ),
        ("GEMINI.md", "not UTF-8 text (line 1)"),
    }
    assert [m["title"] for m in data["memories"]] == ["Use pnpm"]


def test_a_link_is_read_once(project: Path, run: Run) -> None:
    write(project, {"AGENTS.md": "- Use pnpm.\n"})
    (project / "CLAUDE.md").symlink_to("AGENTS.md")
    data = imported(run, "--dry-run")
    assert [f["path"] for f in data["files"]] == ["AGENTS.md"]
    assert {(s["path"], s["reason"]) for s in data["skipped"]} == {
        ("CLAUDE.md", "the same file as AGENTS.md (a link): read once")
    }


def test_import_refuses_rules_a_human_reverted_unless_forced(project: Path, run: Run) -> None:
    write(project, {"AGENTS.md": "# Rules\n\n- Use npm for the web app.\n- Pin Node 20.\n"})
    git(project, "add", "-A")
    git(project, "commit", "-qm", "Rules")
    assert run("import", "--accept").code == 0
    git(project, "add", "-A")
    git(project, "commit", "-qm", "Import the rules")
    git(project, "revert", "--no-edit", "HEAD")
    revert = git(project, "log", "-1", "--format=%h").strip()

    result = run("import")
    assert result.code == 0, result.err
    assert result.out.splitlines()[1:3] == [
        "not imported: AGENTS.md:3 nearly repeats memory [use-npm-for-the-web-app] 'Use npm for the web app', "
        f'removed by commit {revert} (Revert "Import the rules") (similarity 1.00); --force imports it anyway',
        "not imported: AGENTS.md:4 nearly repeats memory [pin-node-20] 'Pin Node 20', "
        f'removed by commit {revert} (Revert "Import the rules") (similarity 1.00); --force imports it anyway',
    ]
    assert memory_files(project) == []

    forced = imported(run, "--force")
    assert [m["id"] for m in forced["memories"]] == ["use-npm-for-the-web-app", "pin-node-20"]
    assert memory_files(project) == ["pin-node-20.yaml", "use-npm-for-the-web-app.yaml"]


def test_hidden_unicode_outside_the_items_is_a_warning_and_an_invalid_glob_is_refused(
    project: Path, run: Run
) -> None:
    long_glob = "web/" + "a" * 300 + "/**"
    write(
        project,
        {
            "AGENTS.md": "# Rules\u202e\n\n- Use pnpm.\n",
            ".cursor/rules/long.mdc": f"---\nglobs: {long_glob}\n---\n- Keep components small.\n",
        },
    )
    result = run("import")
    assert result.code == 1
    assert result.err.splitlines()[:2] == [
        "refused: .cursor/rules/long.mdc:4: does not make a valid memory (paths[0]: is too long (307 characters; at "
        "most 300)); not imported",
        "warning: AGENTS.md:1:8: hidden Unicode character U+202E (RIGHT-TO-LEFT OVERRIDE) outside the imported items: "
        "check the file (hidden instructions are a known attack on rules files)",
    ]
    assert memory_files(project) == ["use-pnpm.yaml"]


@pytest.mark.parametrize("command", [("import",), ("journal", "harvest")])
def test_help_has_an_example_and_force(run: Run, command: tuple[str, ...]) -> None:
    result = run(*command, "--help")
    assert result.code == 0, result.err
    assert "Example" in result.out and f"gitmem {' '.join(command)}" in result.out
    assert "--force" in result.out


def test_proposals_rejected_in_review_are_not_proposed_again(project: Path, run: Run) -> None:
    write(project, {"AGENTS.md": "# Rules\n\n- Use pnpm, never npm.\n- Deploy on Fridays.\n"})
    assert run("import").code == 0
    git(project, "add", "-A")
    git(project, "commit", "-qm", "Import the rules")
    assert run("accept", "use-pnpm-never-npm").code == 0
    assert run("forget", "deploy-on-fridays").code == 0
    git(project, "add", "-A")
    git(project, "commit", "-qm", "Review: keep pnpm, drop Friday deploys")
    review = git(project, "log", "-1", "--format=%h").strip()
    write(
        project,
        {"AGENTS.md": "# Rules\n\n- Use pnpm, never npm.\n- Deploy on Fridays.\n- Pin Node 20.\n"},
    )

    data = imported(run)
    assert [m["title"] for m in data["memories"]] == ["Pin Node 20"]
    assert [(k["line"], k["id"], k["status"]) for k in data["known"]] == [
        (3, "use-pnpm-never-npm", "active")
    ]
    assert [
        (r["line"], r["removed"]["id"], r["removed"]["short"], r["removed"]["subject"])
        for r in data["rejected"]
    ] == [(4, "deploy-on-fridays", review, "Review: keep pnpm, drop Friday deploys")]
