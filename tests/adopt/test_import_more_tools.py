"""`gitmem import` of the rules files of the tools added in issue 16 (Amazon Q, Continue, Roo Code, Junie, Augment,
Trae, Warp): each file's rules become memories with the file's scope, and what gitmem compiled for those tools is
never imported back."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from gitmem.importing import rulesfiles
from tests.conftest import Run, git

TARGETS = ("amazonq", "continue", "zoo", "junie", "augment", "trae", "warp")

# Hand-written rules files, in the shapes each tool's documentation gives.
FILES: dict[str, str] = {
    ".amazonq/rules/backend.md": """\
# Backend

- Every API handler returns a typed response model.
- Log with structlog; never call print in the API.
""",
    ".amazonq/rules/ops/deploy.md": """\
# Deploys

- Deploys go through the release pipeline only, never from a laptop.
""",
    ".continue/rules/typescript.md": """\
---
name: TypeScript
globs: "web/**/*.{ts,tsx}"
alwaysApply: false
---

- Prefer `unknown` over `any` in web code.
- Export one component per file.
""",
    ".continue/rules/style.md": """\
---
name: House style
alwaysApply: true
---

- Write commit subjects in the imperative mood.
""",
    ".continue/rules/release.md": """\
---
name: Releases
description: How releases are cut
alwaysApply: false
---

- Tag releases as `vMAJOR.MINOR.PATCH` from the main branch.
""",
    ".continue/rules/plain.md": """\
# Plain

- Keep functions under fifty lines where you can.
""",
    ".roo/rules/01-general.md": """\
# General

- Run `make lint` before every commit.
- Keep third-party code under `vendor/` untouched.
""",
    ".roorules": """\
- Answer in British English.
- Never commit generated protobuf files.
""",
    ".junie/guidelines.md": """\
# Guidelines

- Use Gradle through the wrapper, `./gradlew`, never a system Gradle.
- Tests live beside the code in `src/test/kotlin`.
- Kotlin code follows the official style guide.
""",
    ".augment/rules/always.md": """\
---
type: always_apply
---

- Database access goes through the repository layer.
- Feature flags are read through `flags.get()`, never the environment.
""",
    ".augment/rules/migrations.md": """\
---
type: agent_requested
description: Writing database migrations
---

- Every migration has a matching downgrade.
""",
    ".augment/rules/oncall.md": """\
---
type: manual
---

- Page the on-call engineer only for customer-facing outages.
""",
    ".augment/rules/untyped.md": """\
- Name feature branches after their ticket.
""",
    ".augment-guidelines": """\
- Prefer composition over inheritance in the domain layer.
- Public functions carry docstrings.
""",
    ".trae/rules/project_rules.md": """\
# Project rules

- Use pnpm for every JavaScript dependency.
- The design tokens in `tokens.json` are the only source of colours.
""",
    "WARP.md": """\
# WARP.md

- Shell scripts start with `set -euo pipefail`.
- Use `just` recipes rather than raw commands.
""",
    "api/WARP.md": """\
# api/

- Handlers in `api/` validate input with pydantic models.
- Return RFC 7807 problem details on errors.
""",
}

# title -> (paths, priority, the file it was read from)
# fmt: off
EXPECTED: dict[str, tuple[list[str], str, str]] = {
    "Every API handler returns a typed response model": ([], "normal", ".amazonq/rules/backend.md"),
    "Log with structlog; never call print in the API": ([], "normal", ".amazonq/rules/backend.md"),
    "Deploys go through the release pipeline only, never from a laptop": ([], "normal", ".amazonq/rules/ops/deploy.md"),
    "Prefer `unknown` over `any` in web code": (["web/**/*.{ts,tsx}"], "normal", ".continue/rules/typescript.md"),
    "Export one component per file": (["web/**/*.{ts,tsx}"], "normal", ".continue/rules/typescript.md"),
    "Write commit subjects in the imperative mood": ([], "normal", ".continue/rules/style.md"),
    "Tag releases as `vMAJOR.MINOR.PATCH` from the main branch": ([], "on-demand", ".continue/rules/release.md"),
    "Keep functions under fifty lines where you can": ([], "normal", ".continue/rules/plain.md"),
    "Run `make lint` before every commit": ([], "normal", ".roo/rules/01-general.md"),
    "Keep third-party code under `vendor/` untouched": ([], "normal", ".roo/rules/01-general.md"),
    "Answer in British English": ([], "normal", ".roorules"),
    "Never commit generated protobuf files": ([], "normal", ".roorules"),
    "Use Gradle through the wrapper, `./gradlew`, never a system Gradle": ([], "normal", ".junie/guidelines.md"),
    "Tests live beside the code in `src/test/kotlin`": ([], "normal", ".junie/guidelines.md"),
    "Kotlin code follows the official style guide": ([], "normal", ".junie/guidelines.md"),
    "Database access goes through the repository layer": ([], "normal", ".augment/rules/always.md"),
    "Feature flags are read through `flags.get()`, never the environment": ([], "normal", ".augment/rules/always.md"),
    "Every migration has a matching downgrade": ([], "on-demand", ".augment/rules/migrations.md"),
    "Page the on-call engineer only for customer-facing outages": ([], "on-demand", ".augment/rules/oncall.md"),
    "Name feature branches after their ticket": ([], "on-demand", ".augment/rules/untyped.md"),
    "Prefer composition over inheritance in the domain layer": ([], "normal", ".augment-guidelines"),
    "Public functions carry docstrings": ([], "normal", ".augment-guidelines"),
    "Use pnpm for every JavaScript dependency": ([], "normal", ".trae/rules/project_rules.md"),
    "The design tokens in `tokens.json` are the only source of colours": ([], "normal", ".trae/rules/project_rules.md"),
    "Shell scripts start with `set -euo pipefail`": ([], "normal", "WARP.md"),
    "Use `just` recipes rather than raw commands": ([], "normal", "WARP.md"),
    "Handlers in `api/` validate input with pydantic models": (["api/**"], "normal", "api/WARP.md"),
    "Return RFC 7807 problem details on errors": (["api/**"], "normal", "api/WARP.md"),
}
# fmt: on


def _write(root: Path, files: dict[str, str]) -> None:
    for name, text in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8", newline="")


def _import(run: Run, *args: str) -> dict[str, Any]:
    result = run("import", "--json", *args)
    assert result.code == 0, result.err
    data: dict[str, Any] = json.loads(result.out)
    return data


@pytest.fixture
def tools_repo(repo: Path, run: Run) -> Path:
    """The hand-written files above, then compiled for the seven targets (whole files of gitmem's own beside them,
    managed blocks appended to Junie's, Trae's and Warp's files), all committed."""
    assert run("init", "--no-hooks", *(f"--target={name}" for name in TARGETS)).code == 0
    _write(repo, FILES)
    assert run("add", "Keep the changelog in CHANGELOG.md", "--id", "keep-changelog").code == 0
    add = (
        "add",
        "Components use CSS modules",
        "--id",
        "css-modules",
        "--kind",
        "convention",
        "--path",
        "web/**",
    )
    assert run(*add).code == 0
    assert run("compile").code == 0, "compiled"
    git(repo, "add", "-A")
    git(repo, "commit", "-qm", "Rules files of the newer tools")
    return repo


def test_the_newer_tools_rules_become_memories_with_their_scope(tools_repo: Path, run: Run) -> None:
    data = _import(run)

    got = {
        m["title"]: (m["paths"], m["priority"], m["sources"][0]["path"]) for m in data["memories"]
    }
    assert got == EXPECTED
    assert {m["status"] for m in data["memories"]} == {"proposed"}
    bodies = {m["title"]: m["body"] for m in data["memories"]}
    assert (
        bodies["Tag releases as `vMAJOR.MINOR.PATCH` from the main branch"]
        == "Rule description: How releases are cut"
    )
    assert (
        bodies["Every migration has a matching downgrade"]
        == "Rule description: Writing database migrations"
    )

    files = {f["path"]: (f["items"], f["paths"], f["priority"]) for f in data["files"]}
    assert files == {
        ".amazonq/rules/backend.md": (2, [], "normal"),
        ".amazonq/rules/ops/deploy.md": (1, [], "normal"),
        ".continue/rules/plain.md": (1, [], "normal"),
        ".continue/rules/release.md": (1, [], "on-demand"),
        ".continue/rules/style.md": (1, [], "normal"),
        ".continue/rules/typescript.md": (2, ["web/**/*.{ts,tsx}"], "normal"),
        ".roorules": (2, [], "normal"),
        ".roo/rules/01-general.md": (2, [], "normal"),
        ".junie/guidelines.md": (3, [], "normal"),
        ".augment/rules/always.md": (2, [], "normal"),
        ".augment/rules/migrations.md": (1, [], "on-demand"),
        ".augment/rules/oncall.md": (1, [], "on-demand"),
        ".augment/rules/untyped.md": (1, [], "on-demand"),
        ".augment-guidelines": (2, [], "normal"),
        ".trae/rules/project_rules.md": (2, [], "normal"),
        "WARP.md": (2, [], "normal"),
        "api/WARP.md": (2, ["api/**"], "normal"),
        "web/WARP.md": (
            0,
            ["web/**"],
            "normal",
        ),  # compile made it for the web/** memory: only its block
    }
    notes = {f["path"]: f["scope"] for f in data["files"]}
    assert (
        notes[".continue/rules/release.md"]
        == "alwaysApply: false, no globs: agent-requested, on demand"
    )
    assert notes[".continue/rules/plain.md"] == "the whole project"
    assert notes[".augment/rules/migrations.md"] == "type: agent_requested: on demand"
    assert notes[".augment/rules/oncall.md"] == "type: manual: on demand"
    assert notes[".augment/rules/untyped.md"] == "no type (manual in the IDE extensions): on demand"


def test_what_gitmem_compiled_for_the_newer_tools_is_not_imported_back(
    tools_repo: Path, run: Run
) -> None:
    data = _import(run)

    titles = {m["title"] for m in data["memories"]}
    assert "Keep the changelog in CHANGELOG.md" not in titles
    assert "Components use CSS modules" not in titles
    skipped = {(s["path"], s["line"], s["reason"]) for s in data["skipped"]}
    whole = {
        path for path, line, reason in skipped if reason == "generated whole by gitmem compile"
    }
    continue_scoped = [
        p.relative_to(tools_repo).as_posix()
        for p in (tools_repo / ".continue/rules").glob("gitmem-*")
    ]
    assert continue_scoped  # the web/** memory has a scoped file of its own
    assert whole == {
        ".amazonq/rules/gitmem.md",
        ".continue/rules/gitmem.md",
        ".roo/rules/gitmem.md",
        ".augment/rules/gitmem.md",
        *continue_scoped,
    }
    for path in (".junie/guidelines.md", ".trae/rules/project_rules.md", "WARP.md"):
        block_line = FILES[path].count("\n") + 1
        assert (path, block_line, "gitmem's managed block (compiled memories)") in skipped, path
    assert ("web/WARP.md", 1, "gitmem's managed block (compiled memories)") in skipped


def test_each_newer_file_is_known_by_its_format() -> None:
    assert rulesfiles.format_of(".amazonq/rules/a/b.md") is rulesfiles.AMAZONQ_RULE
    assert rulesfiles.format_of(".continue/rules/x.md") is rulesfiles.CONTINUE_RULE
    assert rulesfiles.format_of(".roo/rules/x.md") is rulesfiles.ROO_RULE
    assert (
        rulesfiles.format_of(".roo/rules-code/x.md") is None
    )  # a mode's rules, not the always-on ones
    assert rulesfiles.format_of(".roorules") is rulesfiles.ROO_LEGACY
    assert rulesfiles.format_of(".junie/guidelines.md") is rulesfiles.JUNIE
    assert rulesfiles.format_of(".junie/notes.md") is None
    assert rulesfiles.format_of(".augment/rules/x.md") is rulesfiles.AUGMENT_RULE
    assert rulesfiles.format_of(".augment/guidelines.md") is rulesfiles.AUGMENT_LEGACY
    assert rulesfiles.format_of(".trae/rules/project_rules.md") is rulesfiles.TRAE
    assert rulesfiles.format_of("docs/WARP.md") is rulesfiles.WARP
    assert rulesfiles.base_directory("docs/WARP.md", rulesfiles.WARP) == "docs"
