"""A rules file that is a link to a document for people (biome's ``CLAUDE.md -> CONTRIBUTING.md``, issue 23 point 2).

The decision (docs/compile.md, "A rules file that links to a document"): the document is the tool's to read, not
gitmem's to write. Compile never writes its block through such a link; the client still gets the memories, from a
whole file of its own rules folder (Claude Code: ``.claude/rules/gitmem-project.md``, loaded like CLAUDE.md); import
does not turn the document into proposals; and two memory branches merge without touching the document.
"""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

from tests.compile.conftest import said_until_mended
from tests.conftest import Run, git

# The shape of a contributor guide: badges, a welcome, maintainers, set-up steps for people.
GUIDE = """\
# Contributing

[![Discord](https://img.shields.io/badge/chat-discord-blue)](https://example.org/chat)

We can use help in a bunch of areas and any help is greatly appreciated!

## Getting started

- Install the toolchain with `just install-tools`
- Run `just ready` and you're good to go!

## Maintainers

- Alice (@alice), lead
- Bob (@bob), releases
"""

AGENTS = "# Agent instructions\n\n## Testing\n\n- Run `cargo test -p example_parser` after a parser change\n"


def _repo(repo: Path, run: Run) -> Path:
    (repo / "CONTRIBUTING.md").write_text(GUIDE, encoding="utf-8")
    (repo / "CLAUDE.md").symlink_to("CONTRIBUTING.md")
    (repo / "AGENTS.md").write_text(AGENTS, encoding="utf-8")
    assert run("init", "--target", "agents", "--target", "claude").code == 0
    return repo


def test_import_does_not_turn_the_linked_guide_into_proposals(repo: Path, run: Run) -> None:
    _repo(repo, run)
    data = json.loads(run("import", "--json").out)
    assert [memory["title"] for memory in data["memories"]] == [
        "Run `cargo test -p example_parser` after a parser change"
    ]
    skipped = {item["path"]: item["reason"] for item in data["skipped"] if item["line"] is None}
    assert skipped["CLAUDE.md"].startswith(
        "a link to CONTRIBUTING.md, a document that is not a rules file"
    )
    named = json.loads(
        run("import", "--json", "--dry-run", "CLAUDE.md").out
    )  # asked for by name: read
    assert any("good to go" in memory["title"] for memory in named["memories"])


def test_compile_never_writes_into_the_linked_guide_and_still_delivers_to_claude(
    repo: Path, run: Run
) -> None:
    _repo(repo, run)
    assert run("add", "Use `just` recipes, not raw cargo commands", "--id", "use-just").code == 0
    result = run("compile")
    assert result.code == 0, result.err
    assert (repo / "CONTRIBUTING.md").read_text(encoding="utf-8") == GUIDE  # byte for byte
    claude = (repo / ".claude" / "rules" / "gitmem-project.md").read_text(encoding="utf-8")
    assert "(`use-just`)" in claude and not claude.startswith(
        "---"
    )  # no `paths`: Claude Code loads it always
    assert "(`use-just`)" in (repo / "AGENTS.md").read_text(encoding="utf-8")
    assert "CLAUDE.md is a link to CONTRIBUTING.md, not a rules file" in result.err
    assert run("compile").err == ""  # said when the file is written
    assert run("compile", "--check").code == 0


def test_a_block_written_into_the_guide_before_comes_out(repo: Path, run: Run) -> None:
    (repo / "CLAUDE.md").write_text(
        GUIDE, encoding="utf-8"
    )  # as an older gitmem left it: compiled through
    assert run("init", "--target", "agents", "--target", "claude").code == 0
    assert run("add", "Use `just` recipes", "--id", "use-just").code == 0
    assert run("compile").code == 0
    (repo / "CONTRIBUTING.md").write_text(
        (repo / "CLAUDE.md").read_text(encoding="utf-8"), encoding="utf-8"
    )
    (repo / "CLAUDE.md").unlink()
    (repo / "CLAUDE.md").symlink_to("CONTRIBUTING.md")
    assert "(`use-just`)" in (repo / "CONTRIBUTING.md").read_text(encoding="utf-8")
    result = run("compile")
    assert result.code == 0, result.err
    assert (repo / "CONTRIBUTING.md").read_text(encoding="utf-8") == GUIDE
    assert (repo / "CLAUDE.md").is_symlink()
    assert "(`use-just`)" in (repo / ".claude" / "rules" / "gitmem-project.md").read_text(
        encoding="utf-8"
    )


def test_two_memory_branches_merge_without_touching_the_guide(repo: Path, run: Run) -> None:
    _repo(repo, run)
    assert run("add", "First memory", "--id", "first").code == 0
    assert run("compile").code == 0
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "--no-verify", "-m", "gitmem")
    git(repo, "checkout", "-q", "-b", "feature")
    assert run("add", "Feature memory", "--id", "feature-memory").code == 0
    assert run("compile").code == 0
    git(repo, "commit", "-qa", "--no-verify", "-m", "feature")
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "--no-verify", "-m", "feature files")
    git(repo, "checkout", "-q", "main")
    assert run("add", "Main memory", "--id", "main-memory").code == 0
    assert run("compile").code == 0
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "--no-verify", "-m", "main")
    merge = subprocess.run(
        ["git", "merge", "-q", "--no-edit", "feature"], cwd=repo, capture_output=True, text=True
    )
    assert merge.returncode == 0, merge.stdout + merge.stderr
    assert (repo / "CONTRIBUTING.md").read_text(encoding="utf-8") == GUIDE
    claude = (repo / ".claude" / "rules" / "gitmem-project.md").read_text(encoding="utf-8")
    assert "(`main-memory`)" in claude and "(`feature-memory`)" in claude
    assert run("compile", "--check").code == 0


def test_a_hub_linked_to_a_document_is_said_with_the_fix_that_mends_it(
    repo: Path, run: Run
) -> None:
    """gotenberg's layout: AGENTS.md, CLAUDE.md and GEMINI.md all links to CONTRIBUTING.md. Compile
    writes no block into the document, so opencode and Codex get no memory from AGENTS.md; `check`
    told them to run `gitmem compile`, which cannot mend it. Now both name the fix, and doing it mends
    it."""
    (repo / "CONTRIBUTING.md").write_text(GUIDE, encoding="utf-8")
    for name in ("AGENTS.md", "CLAUDE.md"):
        (repo / name).symlink_to("CONTRIBUTING.md")
    assert run("init", "--target", "agents", "--target", "claude").code == 0
    assert run("add", "Use `just` recipes, not raw cargo commands", "--id", "use-just").code == 0
    fix = "AGENTS.md is a link to CONTRIBUTING.md, and no file of its own holds it: make AGENTS.md a copy"
    assert run("compile").code == 1
    git(repo, "add", "-A")
    assert "does not reach it: run `gitmem compile`" not in run("check").out

    def copy(_: str) -> None:  # `rm AGENTS.md && cp CONTRIBUTING.md AGENTS.md`
        (repo / "AGENTS.md").unlink()
        (repo / "AGENTS.md").write_text(GUIDE, encoding="utf-8")

    said_until_mended(repo, run, fix, copy)
    assert (repo / "CONTRIBUTING.md").read_text(encoding="utf-8") == GUIDE


def test_a_hub_linked_to_a_file_named_for_agents_is_written_through(repo: Path, run: Run) -> None:
    """pwncollege-dojo's layout: AGENTS.md -> docs/agents.md, a file written for the agents, named as a rules file
    in small letters. On da9b03b it was taken for a document for people: compile exited 1 and named a copy as the
    fix. It is the hub's file now, and gitmem's block is written through the link, after the team's text."""
    (repo / "docs").mkdir()
    (repo / "docs" / "agents.md").write_text(AGENTS, encoding="utf-8")
    (repo / "AGENTS.md").symlink_to("docs/agents.md")
    assert run("init", "--target", "agents", "--target", "claude").code == 0
    assert run("add", "Use `just` recipes, not raw cargo commands", "--id", "use-just").code == 0
    compiled = run("compile")
    assert compiled.code == 0, compiled.err
    text = (repo / "docs" / "agents.md").read_text(encoding="utf-8")
    assert text.startswith(AGENTS + "<!-- gitmem:begin") and text.count("(`use-just`)") == 1
    assert (repo / "AGENTS.md").is_symlink()
    git(repo, "add", "-A")
    checked = run("check")
    assert checked.code == 0, checked.out
