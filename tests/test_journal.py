from __future__ import annotations

import json
from pathlib import Path

import pytest

from gitmem.journal.markdown import parse
from tests.conftest import Run

# Built at run time: the repository never holds a string its own scanner would flag.
TOKEN = "ghp_" + "aB3dE5fG7hJ9kL2mN4pQ6rS8tU0vW1xY" + "z9Qk"

LOG = """\
# Session 2026-05-01: recall index

Worked on the recall index.

## Decisions
- Recall uses SQLite FTS5: it ships with Python and needs no server.
- **Keep the index under the git dir**: it must never be committed.

## Difficulties
- The pre-commit hook was slow because jsonschema was imported at start-up.

## Conventions
- Run ruff format before committing.

## To do
- Write the benchmark.
- Document the MCP server.
"""


def journal_files(root: Path) -> list[str]:
    return sorted(p.name for p in (root / ".memory" / "journal").iterdir() if p.name != ".gitkeep")


def memory_files(root: Path) -> list[str]:
    return sorted(p.name for p in (root / ".memory" / "memories").iterdir() if p.suffix == ".yaml")


def memories(run: Run) -> dict[str, dict[str, object]]:
    result = run("list", "--json")
    assert result.code == 0, result.err
    return {m["id"]: m for m in json.loads(result.out)}


# -- journal new / add / list ----------------------------------------------------------------------------------------


def test_new_prints_a_template_with_the_four_sections_and_no_items(project: Path, run: Run) -> None:
    result = run("journal", "new", "--title", "Fix the login redirect")
    assert result.code == 0, result.err
    assert result.out.startswith("# Session ")
    assert result.out.splitlines()[0].endswith(": Fix the login redirect")
    log = parse(result.out)
    assert set(log.sections) == {"decisions", "difficulties", "conventions", "todo"}
    assert log.items == [] and log.skipped == []


@pytest.mark.parametrize("newline", ["\n", "\r\n"])
def test_add_stores_a_clean_log_byte_for_byte(project: Path, run: Run, newline: str) -> None:
    data = LOG.replace("\n", newline).encode("utf-8")
    (project / "session.md").write_bytes(data)
    result = run("journal", "add", "session.md", "--date", "2026-05-01")
    assert result.code == 0, result.err
    assert result.out == "stored .memory/journal/2026-05-01-recall-index.md\n"
    assert result.err == "next: gitmem journal harvest .memory/journal/2026-05-01-recall-index.md\n"
    assert journal_files(project) == ["2026-05-01-recall-index.md"]
    assert (project / ".memory/journal/2026-05-01-recall-index.md").read_bytes() == data


def test_add_reads_stdin_and_names_the_file_after_the_date_and_slug(
    project: Path, run: Run
) -> None:
    result = run("journal", "add", "-", "--date", "2026-05-02", "--slug", "Fix Login", input=LOG)
    assert result.code == 0, result.err
    assert result.out == "stored .memory/journal/2026-05-02-fix-login.md\n"
    assert (project / ".memory/journal/2026-05-02-fix-login.md").read_text(encoding="utf-8") == LOG


def test_add_the_same_log_twice_keeps_one_copy(project: Path, run: Run) -> None:
    (project / "session.md").write_text(LOG, encoding="utf-8")
    first = run("journal", "add", "session.md", "--date", "2026-05-01")
    second = run("journal", "add", "session.md", "--date", "2026-05-01")
    assert first.out == "stored .memory/journal/2026-05-01-recall-index.md\n"
    assert second.code == 0
    assert second.out == "already in the journal: .memory/journal/2026-05-01-recall-index.md\n"
    other = run("journal", "add", "-", "--date", "2026-05-01", input=LOG + "- One more.\n")
    assert other.out == "stored .memory/journal/2026-05-01-recall-index-2.md\n"
    assert journal_files(project) == ["2026-05-01-recall-index-2.md", "2026-05-01-recall-index.md"]


def test_add_refuses_a_log_with_a_secret_and_writes_nothing(project: Path, run: Run) -> None:
    text = LOG.replace("needs no server.", f"needs no server.\n  Deploy with {TOKEN} set.")
    (project / "session.md").write_text(text, encoding="utf-8")
    result = run("journal", "add", "session.md")
    assert result.code == 1
    assert result.out == ""
    assert result.err == (
        "session.md:7:15: Decisions: possible secret (github-pat): ghp_… (40 chars); never log secrets\n"
        "refused: the log holds 1 possible secret; nothing was written (remove them, or store the log with "
        "--redact to replace each with ‹redacted:RULE›)\n"
    )
    assert TOKEN not in result.err
    assert journal_files(project) == []


def test_add_redact_replaces_each_secret_and_keeps_the_rest(project: Path, run: Run) -> None:
    text = LOG.replace("needs no server.", f"needs no server.\n  Deploy with {TOKEN} set.")
    result = run("journal", "add", "-", "--redact", "--json", input=text)
    assert result.code == 0, result.err
    outcome = json.loads(result.out)
    assert outcome["stored"] is True
    assert outcome["redacted"] == [{"line": 7, "rule": "github-pat"}]
    stored = (project / outcome["path"]).read_text(encoding="utf-8")
    assert TOKEN not in stored
    assert stored == text.replace(TOKEN, "‹redacted:github-pat›")


def test_add_refuses_hidden_unicode_even_with_redact(project: Path, run: Run) -> None:
    text = LOG.replace("Run ruff", "Run\u200b ruff")
    result = run("journal", "add", "-", "--redact", input=text)
    assert result.code == 1
    assert result.err == (
        "<stdin>:13:6: Conventions: hidden Unicode character U+200B (ZERO WIDTH SPACE)\n"
        "refused: the log holds hidden Unicode characters; nothing was written\n"
    )
    assert journal_files(project) == []


@pytest.mark.parametrize(
    ("args", "input", "message"),
    [
        (("missing.md",), None, "error: missing.md: no such file\n"),
        (("-",), "   \n", "error: <stdin>: the log is empty\n"),
        (
            ("-", "--date", "tomorrow"),
            LOG,
            "error: --date: 'tomorrow' is not a date; use YYYY-MM-DD or a span such as 90d or 12w\n",
        ),
    ],
)
def test_add_usage_errors(
    project: Path, run: Run, args: tuple[str, ...], input: str | None, message: str
) -> None:
    result = run("journal", "add", *args, input=input)
    assert (result.code, result.err) == (2, message)
    assert journal_files(project) == []


def test_list_counts_the_items_of_each_section(project: Path, run: Run) -> None:
    run("journal", "add", "-", "--date", "2026-05-01", input=LOG)
    result = run("journal", "list", "--json")
    assert result.code == 0, result.err
    assert json.loads(result.out) == [
        {
            "path": ".memory/journal/2026-05-01-recall-index.md",
            "date": "2026-05-01",
            "title": "Session 2026-05-01: recall index",
            "decisions": 2,
            "difficulties": 1,
            "conventions": 1,
            "todo": 2,
        }
    ]
    text = run("journal", "list")
    assert text.out.splitlines()[1].split()[:5] == [
        ".memory/journal/2026-05-01-recall-index.md",
        "2",
        "1",
        "1",
        "2",
    ]


# -- harvest ---------------------------------------------------------------------------------------------------------


def stored_log(project: Path, run: Run, text: str = LOG) -> str:
    result = run("journal", "add", "-", "--date", "2026-05-01", "--json", input=text)
    assert result.code == 0, result.err
    path: str = json.loads(result.out)["path"]
    return path


def test_harvest_proposes_one_memory_per_item_with_its_kind_and_never_the_todos(
    project: Path, run: Run
) -> None:
    log = stored_log(project, run)
    result = run("journal", "harvest", log, "--json")
    assert result.code == 0, result.err
    outcome = json.loads(result.out)
    assert [(p["kind"], p["line"], p["title"]) for p in outcome["proposed"]] == [
        ("decision", 6, "Recall uses SQLite FTS5: it ships with Python and needs no server"),
        ("decision", 7, "Keep the index under the git dir"),
        ("pitfall", 10, "The pre-commit hook was slow because jsonschema was imported at start-up"),
        ("convention", 13, "Run ruff format before committing"),
    ]
    assert outcome["todo"] == 2
    stored = memories(run)
    assert len(stored) == 4
    for memory in stored.values():
        assert (memory["status"], memory["source"], memory["origin"]) == (
            "proposed",
            "journal",
            log,
        )
    assert not any(
        "benchmark" in str(m["title"]).lower() or "MCP" in str(m["title"]) for m in stored.values()
    )
    keep = stored["keep-the-index-under-the-git-dir"]
    assert keep["body"] == "it must never be committed."


def test_harvest_twice_adds_nothing_even_after_accept_or_retire(project: Path, run: Run) -> None:
    log = stored_log(project, run)
    first = run("journal", "harvest", log)
    assert first.code == 0, first.err
    before = {
        name: (project / ".memory/memories" / name).read_bytes() for name in memory_files(project)
    }
    assert len(before) == 4
    assert run("accept", "run-ruff-format-before-committing").code == 0
    assert run("retire", "keep-the-index-under-the-git-dir").code == 0
    again = run("journal", "harvest", log, "--json")
    assert again.code == 0, again.err
    outcome = json.loads(again.out)
    assert outcome["proposed"] == []
    assert sorted(k["id"] for k in outcome["harvested_before"]) == sorted(
        name.removesuffix(".yaml") for name in before
    )
    assert memory_files(project) == sorted(before)


def test_harvest_reports_near_duplicates_of_existing_memories_and_does_not_add_them(
    project: Path, run: Run
) -> None:
    assert run("add", "Always run ruff format before committing", "--kind", "convention").code == 0
    log = stored_log(project, run)
    result = run("journal", "harvest", log)
    assert result.code == 0, result.err
    assert (
        "not added: line 13 nearly repeats always-run-ruff-format-before-committing (similarity 1.00): "
        "Run ruff format before committing"
    ) in result.lines
    assert "run-ruff-format-before-committing" not in memories(run)
    assert len(memories(run)) == 4  # three harvested, one added by hand


def test_harvest_reports_duplicates_inside_one_log(project: Path, run: Run) -> None:
    text = "## Conventions\n- Run ruff format before committing.\n- run ruff format before committing\n"
    result = run("journal", "harvest", stored_log(project, run, text), "--json")
    outcome = json.loads(result.out)
    assert [p["line"] for p in outcome["proposed"]] == [2]
    assert [(d["line"], d["id"]) for d in outcome["duplicates"]] == [
        (3, "run-ruff-format-before-committing")
    ]


def test_harvest_dry_run_writes_nothing(project: Path, run: Run) -> None:
    log = stored_log(project, run)
    result = run("journal", "harvest", log, "--dry-run")
    assert result.code == 0, result.err
    assert result.lines[0] == (
        "would propose .memory/memories/recall-uses-sqlite-fts5-it-ships-with-python-and.yaml (decision, line 6): "
        "Recall uses SQLite FTS5: it ships with Python and needs no server"
    )
    assert memory_files(project) == []


def test_harvest_refuses_a_log_holding_a_secret(project: Path, run: Run) -> None:
    path = project / ".memory/journal/2026-05-01-by-hand.md"
    path.write_text(f"## Decisions\n- Use the token {TOKEN} for deploys.\n", encoding="utf-8")
    result = run("journal", "harvest", ".memory/journal/2026-05-01-by-hand.md")
    assert result.code == 1
    assert result.err == (
        ".memory/journal/2026-05-01-by-hand.md:2:17: Decisions: possible secret (github-pat): ghp_… (40 chars); "
        "never log secrets\n"
        "refused: nothing was proposed. Store a redacted copy with `gitmem journal add --redact "
        ".memory/journal/2026-05-01-by-hand.md` and harvest that\n"
    )
    assert memory_files(project) == []


def test_harvest_a_file_outside_the_repository_is_a_usage_error(
    project: Path, run: Run, tmp_path: Path
) -> None:
    outside = tmp_path / "elsewhere.md"
    outside.write_text(LOG, encoding="utf-8")
    result = run("journal", "harvest", str(outside))
    assert result.code == 2
    assert result.err == (
        f"error: {outside} is outside the repository: store it first with `gitmem journal add {outside}`, "
        "then harvest the stored log\n"
    )


MESSY = """\
Session notes
=============

Some context the agent wrote first.

### DECISIONS:
We decided the following:
* Use SQLite FTS5 for recall, because it ships
  with Python and needs no server.
1. Keep the index under the git directory
   - it is never committed
   - it is rebuilt when missing
2) **Pin Node 20 in CI**: the image has it.

```bash
# not a heading
nvm use 20
```

Difficulties
------------
- [x] The pre-commit hook ran on every commit
  and was slow.

  Lazy imports fixed it.
+ Flaky test in test_merge.py:

    ```python
    assert merge(a, b) == expected
    ```

**Conventions**
- none
- Run `ruff format` before committing

| tool | version |
|------|---------|
| node | 20      |

## Notes
- a note
- another note

# To-Do
- [ ] write docs
<!-- - an item hidden in a comment -->
"""


def test_parse_handles_logs_as_agents_write_them() -> None:
    log = parse(MESSY)
    got = [(i.section, i.line, i.head, i.rest) for i in log.items if not i.is_placeholder()]
    assert got == [
        (
            "decisions",
            8,
            "Use SQLite FTS5 for recall, because it ships with Python and needs no server.",
            [],
        ),
        (
            "decisions",
            10,
            "Keep the index under the git directory",
            ["- it is never committed", "- it is rebuilt when missing"],
        ),
        (
            "decisions",
            13,
            "**Pin Node 20 in CI**: the image has it.",
            ["```bash", "# not a heading", "nvm use 20", "```", ""],
        ),
        (
            "difficulties",
            22,
            "The pre-commit hook ran on every commit and was slow.",
            ["Lazy imports fixed it."],
        ),
        (
            "difficulties",
            26,
            "Flaky test in test_merge.py:",
            ["  ```python", "  assert merge(a, b) == expected", "  ```", ""],
        ),
        ("conventions", 34, "Run `ruff format` before committing", []),
        ("todo", 45, "write docs", []),
    ]
    assert [(s.line, s.reason) for s in log.skipped] == [
        (7, "introductory text (ends with ':')"),
        (36, "table outside an item"),
        (40, "2 items under 'Notes' (not a harvested section)"),
    ]
    assert log.title == "Session notes"


@pytest.mark.parametrize(
    ("heading", "section"),
    [
        ("## Decisions", "decisions"),
        ("# decisions", "decisions"),
        ("#### DECISIONS MADE:", "decisions"),
        ("## Gotchas", "difficulties"),
        ("## Problems encountered", "difficulties"),
        ("## 3. Conventions", "conventions"),
        ("**To-do**", "todo"),
        ("Next steps:", "todo"),
        ("## Decisions ##", "decisions"),
    ],
)
def test_parse_recognises_section_headings_in_any_case_level_or_style(
    heading: str, section: str
) -> None:
    log = parse(f"{heading}\n- An item worth keeping\n")
    assert [(i.section, i.head) for i in log.items] == [(section, "An item worth keeping")]


def test_harvest_of_a_messy_log_says_what_it_skipped(project: Path, run: Run) -> None:
    log = stored_log(project, run, MESSY)
    result = run("journal", "harvest", log)
    assert result.code == 0, result.err
    assert [line for line in result.lines if line.startswith("skipped")] == [
        "skipped line 7: introductory text (ends with ':')",
        "skipped line 36: table outside an item",
        "skipped line 40: 2 items under 'Notes' (not a harvested section)",
        "skipped 1 to-do item: to-dos stay in the log",
    ]
    stored = memories(run)
    assert sorted((m["kind"], m["title"]) for m in stored.values()) == [
        ("convention", "Run `ruff format` before committing"),
        ("decision", "Keep the index under the git directory"),
        ("decision", "Pin Node 20 in CI"),
        (
            "decision",
            "Use SQLite FTS5 for recall, because it ships with Python and needs no server",
        ),
        ("pitfall", "Flaky test in test_merge.py"),
        ("pitfall", "The pre-commit hook ran on every commit and was slow"),
    ]
    assert (
        stored["pin-node-20-in-ci"]["body"]
        == "the image has it.\n\n```bash\n# not a heading\nnvm use 20\n```\n"
    )
    assert stored["keep-the-index-under-the-git-directory"]["body"] == (
        "- it is never committed\n- it is rebuilt when missing\n"
    )


def test_harvest_gives_a_long_item_its_first_sentence_as_title_and_keeps_the_whole(
    project: Path, run: Run
) -> None:
    long_item = (
        "Never run the migrations against the shared staging database from a laptop. "
        + "The VPN drops long transactions and leaves the schema half-migrated, which then needs a manual "
        + "rollback by the platform team on call."
    )
    log = stored_log(project, run, f"## Difficulties\n- {long_item}\n")
    result = run("journal", "harvest", log, "--json")
    (proposed,) = json.loads(result.out)["proposed"]
    memory = memories(run)[proposed["id"]]
    assert (
        memory["title"]
        == "Never run the migrations against the shared staging database from a laptop"
    )
    assert memory["body"] == long_item.split(". ", 1)[1]
    assert memory["kind"] == "pitfall"


def test_parse_reads_windows_line_endings_and_a_byte_order_mark() -> None:
    log = parse(
        "\ufeff## Decisions\r\n- Keep the index\r\n  under .git\r\n\r\n## To do\r\n- docs\r\n"
    )
    assert [(i.section, i.line, i.head) for i in log.items] == [
        ("decisions", 2, "Keep the index under .git"),
        ("todo", 6, "docs"),
    ]
