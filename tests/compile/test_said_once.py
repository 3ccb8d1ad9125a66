"""What compile says about hand-written text it did not write is said once, when its block first goes in (issue 23,
point 9): a hand-written CLAUDE.md already over Claude Code's 200 lines (deno's is 546), and rules standing twice
after `gitmem import --accept` without `--move` (uv's AGENTS.md)."""

from __future__ import annotations

from pathlib import Path

from tests.conftest import Run


def test_a_hand_written_file_over_a_soft_limit_is_said_once_with_what_fixes_it(
    repo: Path, run: Run
) -> None:
    guide = "# Guide\n\n## Commands\n\n" + "".join(
        f"- Step {n}: run `./tools/step{n}.sh`\n" for n in range(230)
    )
    (repo / "CLAUDE.md").write_text(guide, encoding="utf-8")
    assert run("init", "--no-hooks", "--target", "claude").code == 0
    assert run("add", "Use the release train", "--kind", "convention").code == 0
    first = run("compile")
    assert first.code == 0
    assert (
        "CLAUDE.md: " in first.err
        and "the hand-written text alone is 234, so no budget fixes it" in first.err
    )
    assert "consider a smaller budget" not in first.err
    assert run("add", "Tag releases from main", "--kind", "convention").code == 0
    second = run("compile")
    assert second.code == 0 and "updated CLAUDE.md" in second.out
    assert "limit" not in second.err  # not again on every compile (`gitmem stats` shows it)


def test_rules_standing_twice_after_import_without_move_are_said_once(repo: Path, run: Run) -> None:
    (repo / "AGENTS.md").write_text(
        "# Agent notes\n\n## Style\n\n- Use `cargo fmt` before committing\n- Prefer `thiserror` for library errors\n",
        encoding="utf-8",
    )
    (repo / "CLAUDE.md").write_text("@AGENTS.md\n", encoding="utf-8")
    assert run("init", "--no-hooks").code == 0
    assert run("import", "--accept").code == 0
    first = run("compile")
    assert (
        "2 rules stand twice, written by hand and in gitmem's block, in the files they were imported from "
        in first.err
    )
    assert "(AGENTS.md 2)" in first.err
    assert "gitmem import --accept --move" in first.err
    assert run("add", "Tag releases from main", "--kind", "convention").code == 0
    assert "stand twice" not in run("compile").err
    moved = run("import", "--accept", "--move")
    assert "removed" in moved.out and run("compile", "--check").code == 0
