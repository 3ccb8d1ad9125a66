"""Import on the shapes real repositories' rules files have (issue 15), each in a fixture written in that shape, and
an end-to-end adoption of a large, messy rules set."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from gitmem.importing.markdown import parse
from gitmem.journal.harvest import split_item
from gitmem.journal.markdown import Item as LogItem
from gitmem.markdown import first_sentence
from tests.conftest import Run, git


def _write(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8", newline="")
    return path


def _import(run: Run, *args: str) -> dict[str, Any]:
    result = run("import", "--json", *args)
    assert result.code in (0, 1), result.err
    data: dict[str, Any] = json.loads(result.out)
    return data


def _titles(data: dict[str, Any]) -> dict[str, dict[str, Any]]:
    return {memory["title"]: memory for memory in data["memories"]}


@pytest.fixture
def adopted(repo: Path, run: Run) -> Path:
    assert run("init", "--no-hooks").code == 0
    return repo


# -- lead-ins ------------------------------------------------------------------------------------------------------

SCHEMAS = """\
# Schemas

## Optional values

When a field is part of our own API input:

- Use `.optional()` unless `null` is meaningful

When parsing data from third parties:

- Use `.nullish()` instead of `.optional()`
"""


def test_a_lead_in_stays_with_its_items_so_they_do_not_contradict(adopted: Path, run: Run) -> None:
    _write(adopted / "AGENTS.md", SCHEMAS)
    data = _import(run)
    memories = _titles(data)
    assert memories["Use `.optional()` unless `null` is meaningful"]["body"] == (
        "Listed under: When a field is part of our own API input:"
    )
    assert memories["Use `.nullish()` instead of `.optional()`"]["body"] == (
        "Listed under: When parsing data from third parties:"
    )
    assert [s for s in data["skipped"] if s["path"] == "AGENTS.md"] == []


# -- sentences -----------------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "first"),
    [
        ("Map values with `xs.map((x) => x.id). filter(Boolean)` inline. Then sort them.",
         "Map values with `xs.map((x) => x.id). filter(Boolean)` inline."),
        ("Prefer small helpers (e.g. `toSlug`) over inline regexes. They are tested once.",
         "Prefer small helpers (e.g. `toSlug`) over inline regexes."),
        ("Pin the toolchain, i.e. exact versions everywhere. Renovate bumps them.",
         "Pin the toolchain, i.e. exact versions everywhere."),
        ("Support Python 3. 11 and later only in new modules", None),
        ("Use the retry helper (see the README. It explains backoff) for every call", None),
    ],
)  # fmt: skip
def test_sentences_are_not_split_in_code_parentheses_abbreviations_or_numbers(
    text: str, first: str | None
) -> None:
    found = first_sentence(text)
    assert (found[0] if found else None) == first


def test_a_long_item_never_gets_a_title_that_ends_inside_code() -> None:
    head = (
        "Register every handler through "
        + "`registry.add(name, (event) => handle(event, options))` " * 4
    )
    title, body = split_item(LogItem("", 1, head.strip(), []))
    assert title.count("`") % 2 == 0 and title.endswith("…")
    assert not body.startswith(("=>", ")"))


# -- near duplicates -----------------------------------------------------------------------------------------------

HOOKS = "# Hooks\n\n" + "".join(
    f"- Global Location: `~/.{tool}/hooks.json` is read by {tool}\n"
    for tool in ("claude", "cursor", "codex", "gemini", "windsurf", "kiro", "cline", "amp")
)
ERRORS = """\
# Style

- **Error Handling**: wrap every external call in a `Result` and never throw across module boundaries.
- **Error Handling**: log the failure once, at the edge, with the request id attached.
"""


def test_near_duplicates_merge_only_when_they_say_the_same_thing(adopted: Path, run: Run) -> None:
    _write(adopted / "AGENTS.md", HOOKS)
    _write(
        adopted / "CLAUDE.md",
        ERRORS + "- Global Location: `~/.claude/hooks.json` is read by claude\n",
    )
    data = _import(run)
    locations = [m for m in data["memories"] if m["title"].startswith("Global Location")]
    assert len(locations) == 8  # eight different files, eight memories
    claude = next(m for m in locations if "~/.claude/" in m["title"])
    assert [s["path"] for s in claude["sources"]] == [
        "AGENTS.md",
        "CLAUDE.md",
    ]  # the same line twice: one memory
    errors = [m for m in data["memories"] if m["title"].startswith("Error Handling: ")]
    assert len(errors) == 2  # a shared bold label is not the title: what follows it is the rule


# -- files that are not always-on rules; where .claude/CLAUDE.md applies --------------------------------------------


def test_workflows_hooks_readmes_and_tables_of_contents_are_not_rules(
    adopted: Path, run: Run
) -> None:
    _write(adopted / ".clinerules" / "general.md", "# General\n\n- Keep functions short\n")
    _write(adopted / ".clinerules" / "workflows" / "release.md", "# Release\n\n1. Tag.\n2. Push.\n")
    _write(
        adopted / ".clinerules" / "hooks" / "README.md",
        "# Hooks\n\n- The pre-tool hook blocks rm -rf\n",
    )
    _write(
        adopted / ".cursor" / "rules" / "README.md",
        "# About these rules\n\n- Add one file per topic\n",
    )
    _write(
        adopted / "AGENTS.md",
        "# Guide\n\n## Contents\n\n- [Setup](docs/setup.md)\n- [Testing](#testing), [Style](#style)\n\n"
        "## Testing\n\n- Run `make test` before pushing\n",
    )
    _write(adopted / ".claude" / "CLAUDE.md", "# Project\n\n- Answer in English\n")
    data = _import(run)
    assert set(_titles(data)) == {
        "Keep functions short",
        "Run `make test` before pushing",
        "Answer in English",
    }
    reasons = {(s["path"], s["line"]): s["reason"] for s in data["skipped"]}
    assert reasons[(".clinerules/workflows/release.md", None)].startswith("a Cline workflow")
    assert reasons[(".clinerules/hooks/README.md", None)].startswith("Cline hooks")
    assert reasons[(".cursor/rules/README.md", None)].startswith("a README of a rules folder")
    assert (
        reasons[("AGENTS.md", 5)]
        == reasons[("AGENTS.md", 6)]
        == "only links (a table of contents), not a rule"
    )
    assert (
        _titles(data)["Answer in English"]["paths"] == []
    )  # Claude Code's project memory, not .claude/**


# -- what a rule says about itself: description, steps, headings, tables --------------------------------------------

CURSOR_RULE = """\
---
description: Database migrations and schema changes
globs:
alwaysApply: false
---

- Every migration has a down step
"""

DEPLOY = """\
# Operations

## Deploy

Run these in order:

1. Build the image with `make image`
2. Push it: `make push`
3. Roll out with `make rollout`; watch the dashboard

## Reference

The ports we use:

| service | port |
|---|---|
| api | 8080 |

Ports below 1024 need root, so we never use them.

| queue | port |
|---|---|
| jobs | 9090 |
"""


def test_description_steps_headings_and_tables_survive(adopted: Path, run: Run) -> None:
    _write(adopted / ".cursor" / "rules" / "db.mdc", CURSOR_RULE)
    _write(adopted / "AGENTS.md", DEPLOY)
    memories = _titles(_import(run))
    rule = memories["Every migration has a down step"]
    assert rule["body"] == "Rule description: Database migrations and schema changes"
    assert rule["priority"] == "on-demand"  # agent-requested: loaded on demand
    deploy = memories["Run these in order"]
    assert deploy["body"] == (
        "1. Build the image with `make image`\n2. Push it: `make push`\n"
        "3. Roll out with `make rollout`; watch the dashboard"
    )
    assert deploy["tags"] == ["deploy"] and [s["line"] for s in deploy["sources"]] == [7]
    assert memories["The ports we use: | service | port |"] if False else True
    ports = memories["The ports we use"]
    assert ports["body"].startswith("| service | port |")  # a lead-in with ':' introduces its table
    root = memories["Ports below 1024 need root, so we never use them"]
    assert root["body"] == ""  # the table after it is not its body
    assert memories["Reference"]["body"].startswith("| queue | port |") and memories["Reference"][
        "tags"
    ] == ["reference"]


def test_parse_keeps_the_lead_in_line_for_move() -> None:
    items = parse(SCHEMAS.splitlines()).items
    assert [(item.line, item.lead) for item in items] == [(7, 5), (11, 9)]


# -- import --move ---------------------------------------------------------------------------------------------------

MOVE_AGENTS = (
    "# Rules\r\n\r\nWe keep this intro by hand.\r\n\r\n## Setup\r\n\r\nThese steps assume Linux:\r\n\r\n"
    "- Install uv\r\n- Run `uv sync`\r\n\r\n## Secrets\r\n\r\nNever do this:\r\n\r\n"
    "- Use the token {token} for staging\r\n- Commit `.env` files\r\n"
)


def test_move_removes_the_lines_that_became_memories_and_keeps_every_other_byte(
    adopted: Path, run: Run
) -> None:
    token = "ghp_" + "Zq8xW3vN1tY6uR0pLk5mJ2hG9fD4sA7cB3eQ"
    text = MOVE_AGENTS.format(token=token)
    _write(adopted / "AGENTS.md", text)
    _write(adopted / ".windsurfrules", "Always answer briefly\n")
    assert run("compile").code == 0  # a managed block, which --move leaves alone
    compiled = (adopted / "AGENTS.md").read_bytes().decode()
    block = compiled[len(text) :]
    result = run("import", "--accept", "--move")
    assert result.code == 1  # the secret is refused, and stays where it is
    assert token not in result.out + result.err
    after = (adopted / "AGENTS.md").read_bytes().decode()
    assert after == (  # the prose stays: only list rules move
        "# Rules\r\n\r\nWe keep this intro by hand.\r\n\r\n## Setup\r\n\r\n## Secrets\r\n\r\n"
        f"Never do this:\r\n\r\n- Use the token {token} for staging\r\n" + block
    )
    assert (adopted / ".windsurfrules").read_text(
        encoding="utf-8"
    ) == "Always answer briefly\n"  # prose: stays
    assert "removed 4 line(s) from AGENTS.md: now memories" in result.out  # lead-in, 3 items
    again = run("import", "--accept", "--move")
    assert (adopted / "AGENTS.md").read_bytes().decode() == after
    assert "removed" not in again.out


def test_move_on_a_dry_run_changes_nothing(adopted: Path, run: Run) -> None:
    _write(adopted / "AGENTS.md", "# Rules\n\n- Use pnpm\n")
    result = run("import", "--dry-run", "--accept", "--move")
    assert "would remove 1 line(s) from AGENTS.md" in result.out
    assert (adopted / "AGENTS.md").read_text(encoding="utf-8") == "# Rules\n\n- Use pnpm\n"


def test_move_keeps_the_lines_of_proposals_until_they_are_accepted(adopted: Path, run: Run) -> None:
    _write(adopted / "AGENTS.md", "# Rules\n\n- Use pnpm\n")
    result = run(
        "import", "--move"
    )  # proposals are not compiled: their lines would be in no rules file
    assert "kept 1 line(s) in AGENTS.md: proposed: compiled once accepted" in result.out
    assert (adopted / "AGENTS.md").read_text(encoding="utf-8") == "# Rules\n\n- Use pnpm\n"
    memory_id = _titles(_import(run, "--dry-run"))  # already imported: nothing new
    assert memory_id == {}
    assert run("accept", "use-pnpm").code == 0
    again = run("import", "--move")
    assert "removed 1 line(s) from AGENTS.md" in again.out
    assert (
        (adopted / "AGENTS.md").read_text(encoding="utf-8").startswith("# Rules\n")
    )  # never deleted


# A monorepo of per-package GEMINI.md files under one root GEMINI.md (google-gemini/gemini-cli's shape): more rules
# than the budget holds. Before, --move took every imported line out and compile wrote back the budget's share.
GEMINI_ROOT = """\
# Example CLI Project Context

Example CLI is a terminal agent.

## Building and Running

- **Install Dependencies:** `npm install`
- **Build All:** `npm run build:all`
- **Run in Development:** `npm run start`
- **Clean Artifacts:** `npm run clean`

## Development Conventions

- **Pull Requests:** Keep PRs small, focused, and linked to an existing issue.
- **Imports:** Use specific imports and avoid restricted relative imports between packages.
"""

GEMINI_PACKAGE = """\
# Example {name} (`@example/{name}`)

## Coding Conventions

- Keep `src/{name}/index.ts` free of side effects so tree-shaking in {name} works.
- Every public function in {name} has a JSDoc comment with an example.
- Tests for {name} live next to the code as `*.test.ts` files.
"""


def test_move_takes_out_only_what_compile_writes_back(adopted: Path, run: Run) -> None:
    _write(adopted / "GEMINI.md", GEMINI_ROOT)
    for name in ("cli", "core", "sdk", "devtools"):
        _write(adopted / "packages" / name / "GEMINI.md", GEMINI_PACKAGE.format(name=name))
    config = adopted / ".memory" / "config.yaml"
    config.write_text("version: 1\ntargets: [gemini]\nbudget: 250\n", encoding="utf-8")
    data = _import(run, "--accept", "--move")
    titles = [memory["title"] for memory in data["memories"]]
    assert len(titles) >= 12  # the list rules (the prose stays where it is)
    assert run("compile").code == 0
    rules = "\n".join(
        path.read_text(encoding="utf-8") for path in adopted.rglob("GEMINI.md")
    ).replace("*", "")
    lost = [title for title in titles if title.split("`")[0].strip(" :.") not in rules]
    assert lost == []  # every imported rule is still in a rules file: by hand, or in gitmem's block
    assert (
        sum(len(moved["lines"]) for moved in data["moved"]) > 0
    )  # what compile writes back did move
    assert data["kept"] and all("budget" in kept["why"] for kept in data["kept"])
    everything = _import(
        run, "--accept", "--move", "--left-out"
    )  # asked for exactly that: they go too
    assert everything["kept"] == [] and everything["moved"]
    assert run("compile", "--check").code == 0


# -- end to end: a large, messy rules set ------------------------------------------------------------------------------


def _big_agents() -> str:
    parts = ["# Monorepo guide\n\n## Contents\n\n- [Build](#build)\n- [Services](#services)\n"]
    parts.append(
        "\n## Build\n\nBuild steps:\n\n1. Install with `pnpm install`\n2. Build with `pnpm build`\n"
    )
    parts.append("3. Check with `pnpm check`\n")
    parts.append("\n## Services\n")
    for number in range(100):
        parts.append(
            f"\n### Service {number}\n\nWhen you change service-{number}:\n\n"
            f"- Keep `services/s{number}/api.ts` backwards compatible for one release\n"
            "  because the mobile apps in the field call it for months after we ship, and nobody can make them\n"
            "  update; a breaking change needs a new route and a deprecation notice in the changelog.\n"
            f"- Run `pnpm test --filter s{number}` before pushing\n"
        )
    return "".join(parts)


@pytest.mark.slow
def test_adopting_a_large_messy_rules_set_reads_right(repo: Path, run: Run) -> None:
    agents = _big_agents()
    assert len(agents.encode()) > 32 * 1024
    _write(repo / "AGENTS.md", agents)
    (repo / "CLAUDE.md").symlink_to("AGENTS.md")
    _write(
        repo / "web" / "AGENTS.md", "# Web\n\n- Use `pnpm` here too\n- Use npm in `web/legacy`\n"
    )
    _write(repo / ".cursor" / "rules" / "react.mdc", CURSOR_RULE.replace("Database", "React"))
    _write(repo / ".clinerules" / "workflows" / "release.md", "# Release\n\n1. Tag\n2. Push\n")
    _write(repo / ".github" / "copilot-instructions.md", SCHEMAS)
    _write(repo / "docs" / "gemini.md", "# Using Gemini\n\nNot a rules file.\n")
    git(repo, "add", "-A")
    git(repo, "commit", "-qm", "rules as the team wrote them")

    init = run("init", "--no-hooks")
    assert "targets: agents, claude, cursor, copilot" in init.out and "gemini" not in init.out
    assert init.lines[-1].startswith("next: gitmem import ")
    assert (
        run("add", "Review the service map before adding a service", "--kind", "convention").code
        == 0
    )
    first = run(
        "compile"
    )  # over Codex's limit by the team's own text: written, block first, and said (issue 30)
    assert first.code == 0 and "the hand-written text alone is" in first.err
    assert "`gitmem import --accept --move --left-out AGENTS.md`" in first.err

    data = _import(run, "--accept", "--move", "--left-out")
    memories = _titles(data)
    assert (
        len([m for m in data["memories"] if m["title"].startswith("Keep `services/s")]) == 100
    )  # none merged
    assert memories["Build steps"]["body"].splitlines() == [
        "1. Install with `pnpm install`", "2. Build with `pnpm build`", "3. Check with `pnpm check`"
    ]  # fmt: skip
    assert not any(
        "Tag" in title or "[Build]" in title for title in memories
    )  # a workflow, a table of contents
    assert memories["Use `pnpm` here too"]["paths"] == ["web/**"]
    assert memories["Use npm in `web/legacy`"]["paths"] == [
        "web/**"
    ]  # a contradiction is two memories to review
    left = (repo / "AGENTS.md").read_text(encoding="utf-8")
    assert (
        "Keep `services/" not in left and "- [Build](#build)" in left
    )  # headings and the contents stay

    compiled = run("compile")
    assert compiled.code == 0, compiled.err
    assert (
        "more than once" not in compiled.err and "same file" not in compiled.err
    )  # laid out as one file
    assert run("compile").err == ""
    assert run("compile", "--check").code == 0
    text = (repo / "AGENTS.md").read_text(encoding="utf-8")
    assert len(text.encode()) <= 32 * 1024
    assert (
        "  1. Install with `pnpm install`\n  2. Build with `pnpm build`\n  3. Check with `pnpm check`\n"
        in text
    )
    stats = json.loads(run("stats", "--json").out)
    agents_stats = next(t for t in stats["targets"] if t["name"] == "agents")
    assert any("imported from AGENTS.md line" in item["why"] for item in agents_stats["left_out"])
    kept = sorted(
        int(i.split("services-s")[1].split("-")[0])
        for i in agents_stats["compiled"]
        if "services-s" in i
    )
    assert kept and kept == list(range(len(kept)))  # the top of the file, in one piece
    git(
        repo, "add", "-A"
    )  # what the clients rely on is committed (check: what a fresh clone reads)
    checked = run("check")
    assert checked.code == 0, checked.out


# -- import keeps scope and meaning (issue 23, point 7), each in the shape of the file that showed it ---------------

# excalidraw's .github/copilot-instructions.md: lines that only Copilot understands next to general ones.
COPILOT_ONLY = """\
# Project coding standards

## Testing

- Always attempt to fix #problems
- Always offer to run `yarn test:app` in the project root after modifications are complete

## Network

- The Copilot coding agent's firewall blocks downloads from unknown hosts: vendor them
"""


def test_lines_only_one_tool_understands_get_targets(adopted: Path, run: Run) -> None:
    _write(adopted / ".github" / "copilot-instructions.md", COPILOT_ONLY)
    memories = _titles(_import(run))
    assert memories["Always attempt to fix #problems"]["targets"] == ["copilot"]
    assert memories[
        "The Copilot coding agent's firewall blocks downloads from unknown hosts: vendor them"
    ]["targets"] == ["copilot"]
    general = memories[
        "Always offer to run `yarn test:app` in the project root after modifications are complete"
    ]
    assert general.get("targets", []) == []


# google-gemini/gemini-cli's GEMINI.md: a title naming the document ("… Project Context"), bold labels.
GEMINI_CONTEXT = """\
# Example CLI Project Context

## Building and Running

- **Install Dependencies:** `npm install`
- **Build All:** `npm run build:all` (Builds packages, sandbox, and the IDE companion)

## Notes

Releases are cut every Tuesday from the main branch.
"""


def test_the_document_title_does_not_make_every_rule_a_fact_and_bold_labels_are_not_titles(
    adopted: Path, run: Run
) -> None:
    _write(adopted / "GEMINI.md", GEMINI_CONTEXT)
    memories = _titles(_import(run))
    install = memories["Install Dependencies: `npm install`"]
    assert install["kind"] == "convention"
    assert (
        "Build All: `npm run build:all` (Builds packages, sandbox, and the IDE companion)"
        in memories
    )
    notes = memories["Releases are cut every Tuesday from the main branch"]
    assert notes["kind_from"] != 'heading "Example CLI Project Context"'


# denoland/deno's copilot-instructions.md: an enumeration of commit prefixes under one lead-in.
PREFIXES = """\
# Guide

## PR Title Linting

PR titles are validated by CI. The title must start with one of these prefixes:

- `feat:` — new features
- `fix:` — bug fixes
- `docs:` — documentation
- `ci:` — CI changes
- `perf:` — performance improvements

When you open a pull request:

- Link the issue it fixes
- Keep the title under 72 characters
"""


def test_an_enumeration_stays_one_memory(adopted: Path, run: Run) -> None:
    _write(adopted / "AGENTS.md", PREFIXES)
    data = _import(run)
    titles = [memory["title"] for memory in data["memories"]]
    assert len(titles) == 3, titles  # the prefixes, and two rules under their own lead-in
    prefixes = next(m for m in data["memories"] if "`feat:` — new features" in m["body"])
    assert prefixes["body"].count("\n- `") == 4 and [s["line"] for s in prefixes["sources"]] == [7]
    assert prefixes["sources"][0]["end"] == 11


# deno's CLAUDE.md and .github/copilot-instructions.md: the same command block under two headings, one with a comment
# more.
CLAUDE_TESTS = """\
# Deno guide

## Running Tests

```bash
# Run all tests (this takes a while)
cargo test

# Filter tests by name
cargo test <nameOfTest>
```
"""
COPILOT_TESTS = CLAUDE_TESTS.replace("## Running Tests", "## Testing").replace(
    " (this takes a while)", ""
)


def test_the_same_rule_in_two_files_is_one_memory(adopted: Path, run: Run) -> None:
    _write(adopted / "CLAUDE.md", CLAUDE_TESTS)
    _write(adopted / ".github" / "copilot-instructions.md", COPILOT_TESTS)
    data = _import(run)
    assert len(data["memories"]) == 1, [m["title"] for m in data["memories"]]
    assert sorted(s["path"] for s in data["memories"][0]["sources"]) == [
        ".github/copilot-instructions.md",
        "CLAUDE.md",
    ]
    assert run("doctor").code == 0 and "near-duplicate" not in run("doctor").out


def test_dry_run_shows_each_items_lead_in(adopted: Path, run: Run) -> None:
    _write(adopted / "AGENTS.md", SCHEMAS)
    out = run("import", "--dry-run").out
    assert (
        "would propose use-nullish-instead-of-optional: Use `.nullish()` instead of `.optional()`\n"
        in out
    )
    assert "\n    Listed under: When parsing data from third parties:\n" in out
