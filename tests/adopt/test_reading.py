"""Reading rules files: items from Markdown, scopes from frontmatter, kinds from headings (no repository needed)."""

from __future__ import annotations

import pytest

from gitmem.importing import kinds
from gitmem.importing.markdown import Item, parse
from gitmem.importing.rulesfiles import (
    AGENTS,
    CLAUDE_RULE,
    CLINE_RULE,
    COPILOT_SCOPED,
    CURSOR_RULE,
    KIRO,
    WINDSURF_RULE,
    ScopeError,
    format_of,
    read_frontmatter,
    scope_of,
)
from gitmem.importing.wording import title_and_body
from tests.adopt.rules_files import AGENTS_MD


def items(text: str) -> list[tuple[int, int, str, list[str], tuple[str, ...]]]:
    return [(i.line, i.end, i.head, i.rest, i.headings) for i in parse(text.splitlines()).items]


# -- items ---------------------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        pytest.param(
            "## Style\n- One\n- Two\n  wrapped\n",
            [(2, 2, "One", [], ("Style",)), (3, 4, "Two wrapped", [], ("Style",))],
            id="bullets, a wrapped line joins the title",
        ),
        pytest.param(
            "## Style\n- One\n  - detail a\n  - detail b\n",
            [(2, 4, "One", ["- detail a", "- detail b"], ("Style",))],
            id="nested bullets are the body",
        ),
        pytest.param(
            "## Style\n- Components:\n  - PascalCase names\n  - One per file\n",
            [
                (3, 3, "Components: PascalCase names", [], ("Style",)),
                (4, 4, "Components: One per file", [], ("Style",)),
            ],
            id="a label bullet gives one item per nested bullet",
        ),
        pytest.param(
            "# T\n## Gotchas\n- Migrations:\n\n  ```sh\n  make migrate\n  ```\n\n  before the API starts.\n",
            [
                (
                    3,
                    9,
                    "Migrations:",
                    ["```sh", "make migrate", "```", "", "before the API starts."],
                    ("T", "Gotchas"),
                )
            ],
            id="indented code and text after a bullet are its body",
        ),
        pytest.param(
            "## Setup\nThese steps assume Linux:\n\n- Install uv.\n",
            [(4, 4, "Install uv.", [], ("Setup",))],
            id="introductory text is not an item (its list items keep it as context)",
        ),
        pytest.param(
            "## Commands\nRun the tests with:\n\n```sh\npnpm test\n```\n\n```sh\npnpm e2e\n```\n",
            [
                (2, 6, "Run the tests with:", ["```sh", "pnpm test", "```"], ("Commands",)),
                (8, 10, "", ["```sh", "pnpm e2e", "```"], ("Commands",)),
            ],
            id="a paragraph takes the one code block it introduces",
        ),
        pytest.param(
            "Intro line one\nline two.\n\nSecond paragraph.\n",
            [(1, 2, "Intro line one line two.", [], ()), (4, 4, "Second paragraph.", [], ())],
            id="prose: one item per paragraph",
        ),
        pytest.param(
            "Style\n=====\n\n* Tabs\n\nNotes\n-----\n1) Numbered\n",
            [(4, 4, "Tabs", [], ("Style",)), (8, 8, "Numbered", [], ("Style", "Notes"))],
            id="setext headings and other bullet markers",
        ),
        pytest.param(
            "<!-- hidden note\n- not an item -->\n- [x] Checked item\n---\n- After a rule\n",
            [(3, 3, "Checked item", [], ()), (5, 5, "After a rule", [], ())],
            id="comments are ignored, checkboxes dropped",
        ),
        pytest.param(
            "## A\n```\n# not a heading\n- not a bullet\n```\n",
            [(2, 5, "", ["```", "# not a heading", "- not a bullet", "```"], ("A",))],
            id="code under a heading is one item",
        ),
        pytest.param(
            "## T\n| a | b |\n|---|---|\n| 1 | 2 |\n",
            [(2, 4, "", ["| a | b |", "|---|---|", "| 1 | 2 |"], ("T",))],
            id="a table",
        ),
    ],
)
def test_items(text: str, expected: list[tuple[int, int, str, list[str], tuple[str, ...]]]) -> None:
    assert items(text) == expected


def test_imports_and_skipped_lines_are_reported() -> None:
    parsed = parse("@AGENTS.md\n\n## Notes\nSee these:\n\n- @docs/a.md @docs/b.md\n".splitlines())
    assert [(i.line, i.target) for i in parsed.imports] == [
        (1, "AGENTS.md"),
        (6, "docs/a.md"),
        (6, "docs/b.md"),
    ]
    assert [(s.line, s.reason) for s in parsed.skipped] == [(4, "a label without text after it")]
    assert parsed.items == []


def test_the_150_line_agents_md_gives_one_item_per_rule() -> None:
    parsed = parse(AGENTS_MD.splitlines())
    assert len(AGENTS_MD.splitlines()) == 149
    assert len(parsed.items) == 52
    assert parsed.skipped == []
    by_line = {item.line: item for item in parsed.items}
    assert [by_line[n].context for n in (19, 22)] == [
        "These steps assume macOS or Linux:"
    ] * 2  # the lead-in
    assert (
        by_line[99].steps and by_line[99].head == "Pull requests" and len(by_line[99].rest) == 3
    )  # one procedure
    assert (by_line[32].head, by_line[32].rest[0][:6]) == (
        "",
        "| Task",
    )  # the table is not the paragraph's
    assert by_line[44].head == "Components: One component per file, named in PascalCase."
    assert by_line[86].headings == ("Acme Platform", "Testing instructions")
    assert (
        by_line[53].head
        == "Pydantic v2 models only: the v1 compatibility layer was removed in March."
    )
    assert (by_line[71].end, by_line[71].rest[:3]) == (
        77,
        ["```sh", "uv run alembic upgrade head", "```"],
    )


@pytest.mark.parametrize(
    ("head", "rest", "headings", "title", "body"),
    [
        (
            "Run the tests with:",
            ["```sh", "pnpm test", "```"],
            (),
            "Run the tests with: `pnpm test`",
            "",
        ),
        ("Run:", ["```", "a", "b", "```"], (), "Run", "```\na\nb\n```"),
        ("Run:", ["```", "x" * 100, "```"], (), f"Run: `{'x' * 100}`", ""),
        ("Run:", ["```", "x" * 101, "```"], (), "Run", f"```\n{'x' * 101}\n```"),
        ("", ["| a |"], ("Commands",), "Commands", "| a |"),
        (
            "**Pin Node 20**: the Vite plugin breaks on 22.",
            [],
            (),
            "Pin Node 20",
            "the Vite plugin breaks on 22.",
        ),
        ("Use pnpm.", ["Because of the lockfile."], (), "Use pnpm", "Because of the lockfile."),
    ],
)
def test_title_and_body(
    head: str, rest: list[str], headings: tuple[str, ...], title: str, body: str
) -> None:
    assert title_and_body(Item(1, 1, head, rest, headings)) == (title, body)


# -- formats and scopes ----------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("path", "label"),
    [
        ("AGENTS.md", "AGENTS.md"),
        ("web/api/AGENTS.md", "AGENTS.md"),
        ("CLAUDE.md", "CLAUDE.md"),
        ("GEMINI.md", "GEMINI.md"),
        (".cursor/rules/react.mdc", "Cursor rule"),
        ("web/.cursor/rules/react.mdc", "Cursor rule"),
        (".cursorrules", ".cursorrules (legacy)"),
        (".github/copilot-instructions.md", "Copilot instructions"),
        (".github/instructions/py.instructions.md", "Copilot path instructions"),
        (".claude/rules/testing.md", "Claude Code rule"),
        (".windsurf/rules/a.md", "Windsurf rule (legacy)"),
        (".devin/rules/a.md", "Devin rule"),
        (".agents/rules/a.md", "Antigravity rule"),
        (".windsurfrules", ".windsurfrules (legacy)"),
        (".clinerules", ".clinerules (single file)"),
        (".clinerules/01-style.md", "Cline rule"),
        (".kiro/steering/api.md", "Kiro steering"),
        ("CONVENTIONS.md", "aider conventions"),
        ("docs/style.md", None),
        (".github/instructions/readme.md", None),
    ],
)
def test_format_of(path: str, label: str | None) -> None:
    fmt = format_of(path)
    assert (fmt.label if fmt else None) == label


@pytest.mark.parametrize(
    ("path", "fmt", "front", "paths", "priority"),
    [
        ("AGENTS.md", AGENTS, "", (), "normal"),
        ("web/AGENTS.md", AGENTS, "", ("web/**",), "normal"),
        (
            ".cursor/rules/a.mdc",
            CURSOR_RULE,
            "globs: src/**/*.ts, *.{js,jsx}\nalwaysApply: false",
            None,
            "normal",
        ),
        (".cursor/rules/a.mdc", CURSOR_RULE, "globs: src/**\nalwaysApply: true", (), "normal"),
        (
            ".cursor/rules/a.mdc",
            CURSOR_RULE,
            "description: When touching SQL\nalwaysApply: false",
            (),
            "on-demand",
        ),
        (
            ".cursor/rules/a.mdc",
            CURSOR_RULE,
            "description:\nglobs:\nalwaysApply: false",
            (),
            "on-demand",
        ),
        ("web/.cursor/rules/a.mdc", CURSOR_RULE, "globs: '*.tsx'", ("web/*.tsx",), "normal"),
        (
            ".github/instructions/a.instructions.md",
            COPILOT_SCOPED,
            'applyTo: "**/*.py,api/**"',
            None,
            "normal",
        ),
        (".github/instructions/a.instructions.md", COPILOT_SCOPED, "applyTo: '**'", (), "normal"),
        (
            ".claude/rules/t.md",
            CLAUDE_RULE,
            'paths:\n  - "api/**"\n  - web/*.ts',
            ("api/**", "web/*.ts"),
            "normal",
        ),
        (".claude/rules/t.md", CLAUDE_RULE, "", (), "normal"),
        (
            ".clinerules/a.md",
            CLINE_RULE,
            "paths: [infra/**, 'ops/**']",
            ("infra/**", "ops/**"),
            "normal",
        ),
        (
            ".windsurf/rules/a.md",
            WINDSURF_RULE,
            'trigger: glob\nglobs: "web/**"',
            ("web/**",),
            "normal",
        ),
        (".windsurf/rules/a.md", WINDSURF_RULE, "trigger: always_on", (), "normal"),
        (
            ".windsurf/rules/a.md",
            WINDSURF_RULE,
            "trigger: model_decision\ndescription: x",
            (),
            "on-demand",
        ),
        (
            ".kiro/steering/a.md",
            KIRO,
            'inclusion: fileMatch\nfileMatchPattern: ["a/**", "b/**"]',
            None,
            "normal",
        ),
        (".kiro/steering/a.md", KIRO, "inclusion: manual", (), "on-demand"),
        (".kiro/steering/a.md", KIRO, "", (), "normal"),
    ],
)
def test_scope_of(
    path: str, fmt: object, front: str, paths: tuple[str, ...] | None, priority: str
) -> None:
    from gitmem.importing.rulesfiles import Format

    assert isinstance(fmt, Format)
    lines = ["---", *front.splitlines(), "---", "# Body"] if front else ["# Body"]
    frontmatter = read_frontmatter(lines)
    assert frontmatter.lines == (len(front.splitlines()) + 2 if front else 0)
    scope = scope_of(path, fmt, frontmatter)
    expected = {
        "src/**/*.ts, *.{js,jsx}": ("src/**/*.ts", "*.{js,jsx}"),
        '"**/*.py,api/**"': ("**/*.py", "api/**"),
        '["a/**", "b/**"]': ("a/**", "b/**"),
    }
    if paths is None:
        paths = next(value for key, value in expected.items() if key in front)
    assert (scope.paths, scope.priority) == (paths, priority)


def test_a_glob_outside_the_repository_is_a_scope_error() -> None:
    with pytest.raises(ScopeError, match=r"the glob '\.\./x/\*\*' points outside the repository"):
        scope_of(
            ".cursor/rules/a.mdc", CURSOR_RULE, read_frontmatter(["---", "globs: ../x/**", "---"])
        )


def test_frontmatter_never_closed_is_no_frontmatter() -> None:
    assert read_frontmatter(["---", "globs: a", "# text"]).lines == 0


# -- kinds -----------------------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("headings", "text", "bullet", "kind", "source"),
    [
        (
            ("Acme", "Architecture decisions"),
            "Postgres only",
            True,
            "decision",
            'heading "Architecture decisions"',
        ),
        (("Gotchas",), "Docker must run", True, "pitfall", 'heading "Gotchas"'),
        (
            ("Things to avoid",),
            "Do not run terraform",
            True,
            "pitfall",
            'heading "Things to avoid"',
        ),
        (("Code style", "TypeScript"), "Strict mode", True, "convention", 'heading "Code style"'),
        (
            ("Style preferences",),
            "Short answers",
            True,
            "preference",
            'heading "Style preferences"',
        ),
        (
            ("Project structure",),
            "web/ holds the app",
            False,
            "fact",
            'heading "Project structure"',
        ),
        (
            ("Testing instructions",),
            "Run pytest",
            True,
            "convention",
            'heading "Testing instructions"',
        ),
        (("Glossary",), "PDP: product page", True, "fact", 'heading "Glossary"'),
        (("Acme",), "We decided to pin Node 20.", False, "decision", "wording"),
        (("Acme",), "Run the linter before pushing.", False, "convention", "wording"),
        (("Acme",), "Acme sells phones.", False, "fact", "default for prose"),
        ((), "Tailwind classes are sorted by Prettier.", True, "convention", "default"),
    ],
)
def test_kind_guess(
    headings: tuple[str, ...], text: str, bullet: bool, kind: str, source: str
) -> None:
    assert kinds.guess(headings, text, bullet) == (kind, source)


def test_the_import_tools_are_the_targets_and_plain_markdown() -> None:
    """Every format import reads belongs to a target (or is plain Markdown), and every target has one."""
    from gitmem.memory.config import TARGET_NAMES
    from gitmem.tools import FORMATS, MARKDOWN

    assert {fmt.tool for fmt in FORMATS} == set(TARGET_NAMES)
    assert MARKDOWN.tool == "markdown" and MARKDOWN.rank > max(fmt.rank for fmt in FORMATS)
    assert len({fmt.rank for fmt in FORMATS}) == len(FORMATS)


@pytest.mark.parametrize("label", [":", " :", "--:", "…:"])
def test_a_label_without_a_word_leads_no_list_in(label: str) -> None:
    parsed = parse(
        f"# Rules\n\n{label}\n\n- Always run the linter before committing.\n".splitlines()
    )
    assert [(item.head, item.context) for item in parsed.items] == [
        ("Always run the linter before committing.", "")
    ]
    assert [(s.line, s.reason) for s in parsed.skipped] == [(3, "a label without text after it")]
    with_words = parse("# Rules\n\nWhen testing:\n\n- Run the linter first.\n".splitlines())
    assert [item.context for item in with_words.items] == ["When testing:"]
