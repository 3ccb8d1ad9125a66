"""Junie, Augment Code, Trae and Warp: detected by init, compiled where each tool reads, and known to the duplicate
check (their golden output is in tests/compile/golden/)."""

from __future__ import annotations

from pathlib import Path

import pytest

from gitmem.init.initialise import detect_targets
from tests.compile.conftest import WriteMemory, set_config
from tests.conftest import Run


@pytest.mark.parametrize(
    ("files", "target"),
    [
        ([".junie/guidelines.md"], "junie"),
        ([".augment/rules/style.md"], "augment"),
        ([".augment-guidelines"], "augment"),
        ([".trae/rules/project_rules.md"], "trae"),
        (["WARP.md"], "warp"),
    ],
)
def test_init_detects_the_new_tools(tmp_path: Path, files: list[str], target: str) -> None:
    assert target not in detect_targets(tmp_path)
    for name in files:
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text("Keep it short.\n", encoding="utf-8")
    assert target in detect_targets(tmp_path)


def test_not_detected_from_lookalikes(tmp_path: Path) -> None:
    (tmp_path / "warp.md").write_text("a docs page\n", encoding="utf-8")  # exact spelling only
    (tmp_path / ".junie").mkdir()
    (tmp_path / ".junie" / "notes.md").write_text("x\n", encoding="utf-8")
    (tmp_path / ".trae").mkdir()  # settings only, no rules folder
    assert not {"warp", "junie", "trae"} & set(detect_targets(tmp_path))


def test_hand_written_guidelines_are_kept(project: Path, memory: WriteMemory, run: Run) -> None:
    set_config(project, targets=["junie", "trae", "warp"])
    memory("use-pnpm", "Use pnpm, never npm")
    memory("web-vitest", "Web tests use vitest", paths=["web/**"])
    hand = {
        ".junie/guidelines.md": "# Guidelines\n\nRun `./gradlew check` before a commit.\n",
        ".trae/rules/project_rules.md": "# Project rules\n\nAnswer in English.\n",
        "WARP.md": "# WARP.md\n\nThis repository uses Nix.\n",
    }
    for name, text in hand.items():
        (project / name).parent.mkdir(parents=True, exist_ok=True)
        (project / name).write_text(text, encoding="utf-8")
    result = run("compile")
    assert result.code == 0, result.err
    for name, text in hand.items():
        written = (project / name).read_text(encoding="utf-8")
        assert written.startswith(text)
        assert "(`use-pnpm`)" in written
    # Only Warp scopes (a WARP.md per directory); Junie and Trae get the scoped memory under a heading.
    assert "(`web-vitest`)" in (project / "web" / "WARP.md").read_text(encoding="utf-8")
    assert "(`web-vitest`)" not in (project / "WARP.md").read_text(encoding="utf-8")
    junie = (project / ".junie/guidelines.md").read_text(encoding="utf-8")
    assert "### Conventions (files matching `web/**`)" in junie and "(`web-vitest`)" in junie
    set_config(project, targets=["agents"])
    assert run("compile").code == 0
    for (
        name,
        text,
    ) in hand.items():  # the targets removed: their blocks go, the hand-written text stays
        assert (project / name).read_text(encoding="utf-8") == text
    assert not (project / "web" / "WARP.md").exists()


def test_augment_writes_an_always_applied_rule(
    project: Path, memory: WriteMemory, run: Run
) -> None:
    set_config(project, targets=["augment"])
    memory("use-pnpm", "Use pnpm, never npm")
    assert run("compile").code == 0
    text = (project / ".augment/rules/gitmem.md").read_text(encoding="utf-8")
    assert text.startswith("---\ntype: always_apply\n---\n")
    assert "(`use-pnpm`)" in text


def test_init_adds_the_tools_the_project_uses(repo: Path, run: Run) -> None:
    (repo / "WARP.md").write_text("# Notes for Warp\n", encoding="utf-8")
    (repo / ".augment" / "rules").mkdir(parents=True)
    (repo / ".augment" / "rules" / "style.md").write_text("Keep it short.\n", encoding="utf-8")
    result = run("init", "--no-hooks")
    assert result.code == 0, result.err
    assert "found rules files of: augment, warp" in result.lines
    assert "targets: augment, warp" in result.lines
    assert run("add", "Use pnpm").code == 0
    compiled = run("compile")
    assert compiled.code == 0, compiled.err
    assert "more than once" not in compiled.err  # no client gets a memory twice
