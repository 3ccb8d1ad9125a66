"""A client that already reads the hub through a file of the team's (Claude Code's ``See @AGENTS.md`` within a line,
aider's ``.aider.conf.yml`` naming ``AGENTS.md``) gets nothing again from compile, and `check` fails when it would
(the field corpus's DataDog/dd-trace-js: on a35a997 Claude Code and aider read every memory twice, and compile
rewrote the team's aider config)."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

from gitmem.compile import reading, verify
from gitmem.compile.readers import READERS
from gitmem.gateway import find_project
from tests.compile.conftest import WriteMemory, set_config
from tests.conftest import Run


def _git(project: Path, *args: str) -> None:
    subprocess.run(
        ["git", "-c", "user.name=t", "-c", "user.email=t@e", *args], cwd=project, check=True
    )


def _each_once(project: Path, run: Run, client: str, ids: list[str]) -> None:
    """`gitmem explain` says ``client`` gets ``ids`` in full, once each, and `check` passes once committed."""
    (view,) = json.loads(run("explain", "--client", client, "--json").out)["clients"]
    assert sorted(item["id"] for item in view["full"]) == ids
    _git(project, "add", "-A")
    assert run("check").code == 0


def test_imports_are_found_as_claude_code_finds_them() -> None:
    from gitmem.compile.readers import imported  # (new with this test)

    text = (
        "See @AGENTS.md for more, and @./docs/a.md#part.\n"
        "Not `@in-a-span.md`, nor an@email.com.\n"
        "```\n@in-a-fence.md\n```\n"
        "<!-- @in-a-comment.md -->\n"
        "@~/home.md @/abs.md\n"
        "@last.md\n"
    )
    assert imported(text) == ["AGENTS.md", "docs/a.md", "last.md"]


def test_a_claude_md_importing_the_hub_within_a_line_gets_no_second_copy(
    project: Path, memory: WriteMemory, run: Run
) -> None:
    set_config(project, targets=["agents", "claude"])
    (project / "CLAUDE.md").write_text("See @AGENTS.md for more.\n", encoding="utf-8")
    memory("use-pnpm", "Use pnpm")
    assert run("compile").code == 0
    assert (project / "CLAUDE.md").read_text(encoding="utf-8") == "See @AGENTS.md for more.\n"
    assert (project / "AGENTS.md").read_text(encoding="utf-8").count("(`use-pnpm`)") == 1
    _each_once(project, run, "claude", ["use-pnpm"])


def test_the_reader_counts_a_memory_twice_through_an_import_within_a_line(
    project: Path, memory: WriteMemory, run: Run
) -> None:
    """What `check` verifies with: a CLAUDE.md holding a copy of the hub's memories that also says "See @AGENTS.md"
    (what compile wrote on a35a997) gives Claude Code each memory twice (a35a997's reader saw no import, so `check`
    stayed green), and `check`'s line for it names both files."""
    set_config(project, targets=["agents", "claude"])
    memory("use-pnpm", "Use pnpm")
    assert run("compile").code == 0  # no import yet: a full copy in CLAUDE.md
    claude_md = project / "CLAUDE.md"
    claude_md.write_text(
        "See @AGENTS.md for more.\n" + claude_md.read_text(encoding="utf-8"), encoding="utf-8"
    )
    project_ = find_project(project)
    (claude,) = [reader for reader in READERS if reader.name == "claude"]
    disk = reading.Disk(project_)
    seen = reading.read(disk, claude)
    assert [item.path for item in seen.files] == ["CLAUDE.md", "AGENTS.md"]
    assert seen.arrivals() == {"use-pnpm": 2}
    (miss,) = [
        miss
        for miss in verify._session(
            claude, seen, verify._Scope(frozenset(), {}), set(), set(), disk
        )
        if miss.fault is verify.Fault.TWICE
    ]
    assert miss.line() == (  # with the fix: the import is the team's, the copy compile's
        "Claude Code: memory use-pnpm reaches it more than once: it reads CLAUDE.md, AGENTS.md "
        "(imported by CLAUDE.md): make CLAUDE.md a link to AGENTS.md instead of importing it "
        "(`ln -sf AGENTS.md CLAUDE.md`: a file read under two names arrives once), or drop the "
        "import; see `gitmem explain . --client claude`"
    )


def test_aider_reading_the_hub_by_its_config_gets_nothing_again(
    project: Path, memory: WriteMemory, run: Run
) -> None:
    set_config(project, targets=["agents", "aider"])
    (project / ".aider.conf.yml").write_text("read: [AGENTS.md]\n", encoding="utf-8")
    memory("use-pnpm", "Use pnpm")
    memory("aider-only", "Only for aider", targets=["aider"])
    assert run("compile").code == 0
    assert (project / ".aider.conf.yml").read_text(
        encoding="utf-8"
    ) == "read: [AGENTS.md, CONVENTIONS.md]\n"
    conventions = (project / "CONVENTIONS.md").read_text(encoding="utf-8")
    assert (
        "(`aider-only`)" in conventions and "(`use-pnpm`)" not in conventions
    )  # only what the hub lacks
    _each_once(project, run, "aider", ["aider-only", "use-pnpm"])


def test_aider_config_untouched_when_the_hub_holds_everything(
    project: Path, memory: WriteMemory, run: Run
) -> None:
    set_config(project, targets=["agents", "aider"])
    config = "# team settings\nread: [AGENTS.md]  # our rules\n"
    (project / ".aider.conf.yml").write_text(config, encoding="utf-8")
    memory("use-pnpm", "Use pnpm")
    assert run("compile").code == 0
    assert (project / ".aider.conf.yml").read_text(encoding="utf-8") == config
    assert not (project / "CONVENTIONS.md").exists()
    _git(project, "add", "-A")
    assert run("check").code == 0


def test_claude_code_touching_a_folder_follows_its_claude_mds_import(project: Path) -> None:
    """Claude Code 2.1.332 started at the root, once it reads web/app.ts, loads web/CLAUDE.md and what its `@AGENTS.md`
    imports (measured: tests/clients/test_reader.py). The reader had it follow the imports of its start folder's files
    only, so a memory in both web/CLAUDE.md and web/AGENTS.md was counted once there while the client read it twice.
    Started in web/sub/, web/ is above it: that import it does not follow (measured, round 45)."""
    (project / "web" / "sub").mkdir(parents=True)
    (project / "CLAUDE.md").write_text("# Team\n", encoding="utf-8")  # no AGENTS.md read instead
    (project / "web" / "AGENTS.md").write_text("# Web\n", encoding="utf-8")
    (project / "web" / "CLAUDE.md").write_text("@AGENTS.md\n", encoding="utf-8")
    (claude,) = [reader for reader in READERS if reader.name == "claude"]
    disk = reading.Disk(find_project(project))
    touched = [(item.path, item.how) for item in reading.read(disk, claude, "", "web").files]
    assert touched[-2:] == [
        ("web/CLAUDE.md", reading.How.TOUCHED),
        ("web/AGENTS.md", reading.How.IMPORT),
    ]
    started = [item.path for item in reading.read(disk, claude, "web").files]
    assert started[-2:] == ["web/CLAUDE.md", "web/AGENTS.md"]
    below = [item.path for item in reading.read(disk, claude, "web/sub").files]
    assert below[-1:] == ["web/CLAUDE.md"]


# A file the team wrote that imports the hub, which its client follows: case -> (target, the file, its text, the file
# compile writes the client's own memories to)
HAND_IMPORTS = {
    # shopify-cli's: no CLAUDE.md, and .claude/CLAUDE.md of `See @../AGENTS.md`, which Claude Code started at the root
    # follows (measured: tests/clients/test_reader.py). Compile wrote the hub's memories into a new CLAUDE.md too,
    # Claude Code read them twice, and `check` passed: the reader followed no import of that file.
    "claude-private": (
        "claude",
        ".claude/CLAUDE.md",
        "See @../AGENTS.md for repository-specific agent instructions.\n",
        "CLAUDE.md",
    ),
    # a team's GEMINI.md of its notes and `@AGENTS.md`, no other client reading either: compile wrote a full copy
    # beside the import, Gemini CLI (which follows it from every folder) read each memory twice, and `check` failed
    # until the team made GEMINI.md a link, dropping its notes
    "gemini-root": ("gemini", "GEMINI.md", "# Gemini notes\n\n@AGENTS.md\n", "GEMINI.md"),
}


@pytest.mark.parametrize("case", sorted(HAND_IMPORTS))
def test_a_file_importing_the_hub_by_hand_gets_no_second_copy(
    case: str, project: Path, memory: WriteMemory, run: Run
) -> None:
    """The rule that spares a folder's CLAUDE.md of `@AGENTS.md` a copy (test_client_facts.py) spares these too: the
    team's file keeps its text, and the client's own file holds only what the hub lacks."""
    client, path, team, own = HAND_IMPORTS[case]
    set_config(project, targets=["agents", client])
    (project / path).parent.mkdir(parents=True, exist_ok=True)
    (project / path).write_text(team, encoding="utf-8")
    memory("use-pnpm", "Use pnpm")
    memory("own-only", "Only for this client", targets=[client])
    compiled = run("compile")
    assert compiled.code == 0 and "more than once" not in compiled.err, compiled.err
    assert (project / path).read_text(encoding="utf-8").startswith(team)
    written = (project / own).read_text(encoding="utf-8")
    assert "(`use-pnpm`)" not in written and "(`own-only`)" in written, written
    _each_once(project, run, client, ["own-only", "use-pnpm"])


def test_a_memory_for_a_folder_stays_in_the_private_file_that_imports_the_hub(
    project: Path, memory: WriteMemory, run: Run
) -> None:
    """Beside the Copilot CLI, Claude Code's copy goes to .claude/CLAUDE.md, folders' memories under headings naming
    their globs. Where the team's .claude/CLAUDE.md imports the root's AGENTS.md, only the hub's root memories come
    through that import: a web/** memory, in web/AGENTS.md, stays in Claude Code's copy (an earlier cut of this round's
    rule dropped it, and `check` failed with it missing from web/)."""
    set_config(project, targets=["agents", "claude", "copilot"])
    (project / ".claude").mkdir()
    team = "See @../AGENTS.md for more.\n"
    (project / ".claude" / "CLAUDE.md").write_text(team, encoding="utf-8")
    memory("use-pnpm", "Use pnpm")
    memory("web-tabs", "Web code uses tabs", paths=["web/**"])
    assert run("compile").code == 0
    private = (project / ".claude" / "CLAUDE.md").read_text(encoding="utf-8")
    assert private.startswith(team) and "(`use-pnpm`)" not in private, private
    assert "(`web-tabs`)" in private, private
    _git(project, "add", "-A")
    checked = run("check")
    assert checked.code == 0, checked.out
