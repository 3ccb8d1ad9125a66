from __future__ import annotations

import json
from pathlib import Path

import pytest

from gitmem.compile.scoping import directory_of, expand_braces, place, slug
from gitmem.memory.config import TARGET_NAMES
from gitmem.tools import SCHEMA_TARGETS, TARGETS
from gitmem.tools import TARGET_BY_NAME as BY_NAME

ROOT = Path(__file__).resolve().parents[2]


def test_the_table_has_exactly_the_configurable_targets() -> None:
    assert tuple(t.name for t in TARGETS) == TARGET_NAMES
    for folder in ("schema", "gitmem/schemas"):
        schema = json.loads((ROOT / folder / "config.schema.json").read_text(encoding="utf-8"))
        # the live targets, then the retired names a config may still use (read as what replaces them)
        assert schema["properties"]["targets"]["items"]["enum"] == list(SCHEMA_TARGETS)
        budget_names = schema["properties"]["budget"]["oneOf"][1]["propertyNames"]["enum"]
        assert budget_names == ["default", *SCHEMA_TARGETS]
    assert SCHEMA_TARGETS[: len(TARGET_NAMES)] == TARGET_NAMES


@pytest.mark.parametrize("target", TARGETS, ids=lambda t: t.name)
def test_every_target_is_documented_and_consistent(target: object) -> None:
    from gitmem.tools import Target

    assert isinstance(target, Target)
    assert target.doc.startswith("https://")
    assert target.tool
    # A whole root file has frontmatter only without placeholders; a glob-scoped folder needs its globs carried.
    assert all("{" not in line for line in target.root_frontmatter)
    if target.scoped_dir:
        assert any("{" in line for line in target.scoped_frontmatter) or target.name == "claude"
    if target.root_whole:
        assert target.root_file.rsplit("/", 1)[-1].startswith("gitmem")
    for user_file in target.user_files:
        assert user_file.path.startswith("~/")
        assert user_file.path.startswith(user_file.installed + "/")
        assert user_file.tool


def test_no_two_targets_write_the_same_file() -> None:
    roots = [t.root_file for t in TARGETS]
    assert len(set(roots)) == len(roots)
    folders = [t.scoped_dir for t in TARGETS if t.scoped_dir]
    assert len(set(folders)) == len(folders)


@pytest.mark.parametrize(
    ("glob", "directory"),
    [
        ("web/**", "web"),
        ("web/**/*", "web"),
        ("packages/api/**", "packages/api"),
        (".github/**", ".github"),
        ("web/*", None),
        ("**/*.py", None),
        ("web/**/*.ts", None),
        ("src/{a,b}/**", None),
        ("**", None),
        ("./**", None),
        ("a/../b/**", None),
    ],
)
def test_directory_globs(glob: str, directory: str | None) -> None:
    assert directory_of(glob) == directory


@pytest.mark.parametrize(
    ("glob", "expanded"),
    [
        ("*.py", ["*.py"]),
        ("src/**/*.{ts,tsx}", ["src/**/*.ts", "src/**/*.tsx"]),
        ("{a,b}/{c,d}", ["a/c", "a/d", "b/c", "b/d"]),
        ("x.{a,{b,c}}", ["x.a", "x.b", "x.c"]),
        ("x.{single}", ["x.{single}"]),
        ("unbalanced{a,b", ["unbalanced{a,b"]),
    ],
)
def test_brace_expansion(glob: str, expanded: list[str]) -> None:
    assert expand_braces(glob) == expanded


def test_slugs_are_readable_unique_and_stable() -> None:
    assert slug(("web/**",)) == "web-" + slug(("web/**",)).split("-")[-1]
    assert slug(("web/**",)) != slug(("web/*",))
    assert slug(("**",)).isalnum()
    assert len(slug(("a" * 300 + "/**",))) <= 32 + 7


@pytest.mark.parametrize(
    ("target", "paths", "files", "label"),
    [
        ("agents", (), ["AGENTS.md"], ""),
        ("agents", ("web/**",), ["web/AGENTS.md"], ""),
        ("agents", ("web/**", "api/**"), ["api/AGENTS.md", "web/AGENTS.md"], ""),
        ("agents", ("web/**", "**/*.py"), ["AGENTS.md"], "files matching `**/*.py`, `web/**`"),
        ("claude", ("web/**",), ["web/CLAUDE.md"], ""),
        ("claude", ("**/*.py",), [".claude/rules/gitmem-py-"], ""),
        ("gemini", ("docs/**",), ["docs/GEMINI.md"], ""),
        ("cursor", ("web/**",), [".cursor/rules/gitmem-web-"], ""),
        ("copilot", ("**/*.py",), [".github/instructions/gitmem-py-"], ""),
        ("devin", (), [".devin/rules/gitmem.md"], ""),
        ("cline", ("web/**",), [".clinerules/gitmem.md"], "files matching `web/**`"),
        ("kiro", ("web/**",), [".kiro/steering/gitmem-web-"], ""),
        ("aider", ("web/**",), ["CONVENTIONS.md"], "files matching `web/**`"),
    ],
)
def test_placement(target: str, paths: tuple[str, ...], files: list[str], label: str) -> None:
    placements = place(BY_NAME[target], paths)
    assert len(placements) == len(files)
    for placement, expected in zip(placements, files, strict=True):
        assert placement.file.path.startswith(expected)
        assert placement.label == label
