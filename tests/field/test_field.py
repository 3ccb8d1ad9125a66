"""The field corpus (issue 30): the team path on 29 real repositories' layouts, through gitmem's CLI.

Each layout of ``tests/field/layouts.json`` (recorded from a public repository by ``tests/field/record.py``: paths,
links, sizes, line counts, frontmatter keys, headings, `.gitignore` lines, husky; no text) is built as a git
repository with generated text of the same shape, and walked as a new user would (``tests/field/team.py``): init,
import --accept, compile, check, explain against the files on disk, check in a fresh clone, two memory branches
merged one after the other, a revert of the first merge, delivery read from a fresh clone, hand-written bytes kept.

One test per layout and step. The walk runs once per layout (shared between the steps, and between xdist workers
through a file lock). A step that fails on main is marked ``xfail(strict=True)`` by its line in
``tests/field/known.py`` with the shape it shows: when a fix makes it pass, the test fails as XPASS(strict), and
the fixer deletes that line (``python benchmarks/field_report.py --markers`` prints the lines failing now).
"""

from __future__ import annotations

import fcntl
import json
import os
from pathlib import Path
from typing import Any

import pytest

from tests.field import build, team
from tests.field.known import KNOWN

LAYOUTS = {layout["name"]: layout for layout in build.load()}


def params() -> list[Any]:
    out = []
    for name in LAYOUTS:
        for step in team.STEPS:
            reason = KNOWN.get(f"{name} {step}")
            marks = [pytest.mark.xfail(strict=True, reason=reason)] if reason else []
            out.append(pytest.param(name, step, marks=marks, id=f"{build.slug(name)}-{step}"))
    return out


def shared_folder(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A folder all xdist workers of this session share (the session's own base folder without xdist)."""
    base = tmp_path_factory.getbasetemp()
    return base.parent if os.environ.get("PYTEST_XDIST_WORKER") else base


def walked(name: str, tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    """The walk of layout ``name``, done once per session: the first test of a layout runs it, the others read it."""
    folder = shared_folder(tmp_path_factory) / "field"
    folder.mkdir(exist_ok=True)
    slug = build.slug(name)
    result = folder / f"{slug}.json"
    with (folder / f"{slug}.lock").open("w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if not result.exists():
            work = folder / slug
            work.mkdir()
            data = team.walk(LAYOUTS[name], work).to_json()
            result.write_text(json.dumps(data), encoding="utf-8")
        loaded: dict[str, Any] = json.loads(result.read_text(encoding="utf-8"))
        return loaded


@pytest.mark.parametrize(("name", "step"), params())
def test_field_layout(name: str, step: str, tmp_path_factory: pytest.TempPathFactory) -> None:
    ok, detail = walked(name, tmp_path_factory)["steps"][step]
    assert ok, f"{name}, {step}: {detail}"


def test_every_known_failure_names_a_layout_and_step() -> None:
    """A stale marker (a renamed layout or step) would silently stop guarding anything."""
    for key in KNOWN:
        name, step = key.rsplit(" ", 1)
        assert name in LAYOUTS and step in team.STEPS, key


def test_the_corpus_is_varied() -> None:
    """At least 25 repositories, with the shapes issue 30 names: links, nested files, over-limit files, git-ignored
    tool folders, husky, skill bundles, several languages."""
    layouts = list(LAYOUTS.values())
    assert len(layouts) >= 25
    paths = [(layout, item) for layout in layouts for item in layout["files"]]
    assert sum(1 for layout in layouts if any("link" in item for item in layout["files"])) >= 5
    assert any(
        item["path"].count("/") and item["path"].endswith(("AGENTS.md", "CLAUDE.md"))
        for _, item in paths
    )
    assert any(
        item["path"] == "AGENTS.md" and item.get("bytes", 0) > 32 * 1024 for _, item in paths
    )
    assert any(
        line.strip("/*!") in (".claude", "CLAUDE.md")
        for layout in layouts
        for lines in layout.get("gitignore", {}).values()
        for line in lines
    )
    assert sum(1 for layout in layouts if layout.get("hooks", {}).get("manager") == "husky") >= 3
    assert any(item["path"].endswith("SKILL.md") for _, item in paths)
    assert len({layout.get("language") for layout in layouts}) >= 6


def test_a_built_layout_has_the_recorded_shape(tmp_path: Path) -> None:
    """The builder's promise, on the over-limit layout: the same files, links, line counts and sizes within 10%."""
    layout = LAYOUTS["openai/openai-agents-python"]
    root = build.build(layout, tmp_path / "repo")
    assert build.measure(root, layout) == []
    assert (root / "CLAUDE.md").is_symlink()
    assert (root / "AGENTS.md").stat().st_size > 32 * 1024
