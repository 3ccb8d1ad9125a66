"""One symlink policy: nothing gitmem reads from a repository or writes into it resolves outside it (real links).

Each test commits (or plants) a link an attacker's pull request could hold, pointing at a folder that stands for
the user's own (``~/.claude``, ``~/.cursor``, private notes), and checks that gitmem refuses in one line naming the
path, exit code 1, and leaves the outside untouched.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from gitmem import gateway as safepath
from tests.conftest import Run, git

MEMORY = "id: {id}\ntitle: {title}\nkind: convention\nstatus: active\n{extra}"


def write_memory(root: Path, memory_id: str, title: str, extra: str = "") -> Path:
    path = root / ".memory/memories" / f"{memory_id}.yaml"
    path.write_text(MEMORY.format(id=memory_id, title=title, extra=extra), encoding="utf-8")
    return path


def snapshot(directory: Path) -> dict[str, bytes]:
    return {
        str(path.relative_to(directory)): path.read_bytes()
        for path in sorted(directory.rglob("*"))
        if path.is_file()
    }


@pytest.fixture
def outside(tmp_path: Path) -> Path:
    """A folder outside the repository that stands for the user's own (``~/.claude``)."""
    folder = tmp_path / "home-claude"
    folder.mkdir()
    (folder / "CLAUDE.md").write_text("# my global instructions\n", encoding="utf-8")
    return folder


def test_is_inside_follows_every_part_of_the_path(tmp_path: Path, outside: Path) -> None:
    root = tmp_path / "repo"
    (root / "real").mkdir(parents=True)
    (root / "docs").symlink_to(outside, target_is_directory=True)
    (root / "same").symlink_to("real", target_is_directory=True)
    assert safepath.is_inside(root / "real/new.md", [root])
    assert safepath.is_inside(root / "same/new.md", [root])  # a link that stays inside is fine
    assert not safepath.is_inside(
        root / "docs/CLAUDE.md", [root]
    )  # the parent leads out, not the file
    assert not safepath.is_inside(
        root / "docs/rules/new.md", [root]
    )  # nor a file that does not exist yet
    assert not safepath.is_inside(root / "../repo-other/x", [root])
    assert not safepath.is_inside(tmp_path / "repository", [root])  # a sibling sharing the prefix


def test_compile_never_writes_through_a_committed_directory_link(
    project: Path, outside: Path, run: Run
) -> None:
    assert run("init", "--no-hooks", "--target", "claude").code == 0
    (project / "docs").symlink_to(os.path.relpath(outside, project), target_is_directory=True)
    write_memory(project, "docs-rule", "Keep the docs short", "paths: ['docs/**']\n")
    git(project, "add", "-A")
    before = snapshot(outside)
    result = run("compile")
    assert result.code == 1
    assert result.err.splitlines()[0] == (
        "docs/CLAUDE.md:1:1: path: resolves outside the repository (through a symbolic link); gitmem does not follow it: "
        "replace the link that leads out (the file, or a folder on its way) with a copy of what it holds, then run "
        "`gitmem compile`"
    )  # with what mends it, which names no place outside
    assert str(outside) not in result.err  # the link's target is repository content: never quoted
    assert snapshot(outside) == before
    assert run("compile", "--check").code == 1


@pytest.mark.parametrize(
    ("link", "target", "paths"),
    [
        (".claude", "claude", "['src/*.py']"),  # .claude/rules/gitmem-*.md
        (".claude/rules", "claude", "['src/*.py']"),
        (".cursor", "cursor", "['src/*.py']"),  # .cursor/rules/gitmem-*.mdc
        (".cursor/rules", "cursor", "['src/*.py']"),
    ],
)
def test_compile_refuses_a_rules_folder_that_links_outside(
    project: Path, outside: Path, run: Run, link: str, target: str, paths: str
) -> None:
    assert run("init", "--no-hooks", "--target", target).code == 0
    (project / link).parent.mkdir(parents=True, exist_ok=True)
    (project / link).symlink_to(outside, target_is_directory=True)
    write_memory(project, "py-rule", "Type every function", f"paths: {paths}\n")
    before = snapshot(outside)
    result = run("compile")
    assert result.code == 1, result.err
    assert "path: resolves outside the repository" in result.err
    assert snapshot(outside) == before


def test_compile_cleanup_never_deletes_through_a_link(
    project: Path, outside: Path, run: Run
) -> None:
    """A gitmem-made file in the user's folder, reached through a committed link, is not removed as stale."""
    assert run("init", "--no-hooks", "--target", "cursor").code == 0
    (outside / "rules").mkdir()
    (outside / "rules/gitmem-mine.mdc").write_text(
        "<!-- gitmem:begin file-hash=0 -->\n", encoding="utf-8"
    )
    (project / ".cursor").symlink_to(outside, target_is_directory=True)
    before = snapshot(outside)
    result = run("compile")
    assert result.code == 1
    assert ".cursor/rules/gitmem-mine.mdc:1:1: path: resolves outside the repository" in result.err
    assert snapshot(outside) == before


def test_import_refuses_a_rules_file_that_links_outside(
    project: Path, tmp_path: Path, run: Run
) -> None:
    private = tmp_path / "private-notes.md"
    private.write_text("# Notes\n\n- Always deploy on Fridays from my laptop\n", encoding="utf-8")
    (project / "GEMINI.md").symlink_to(private)
    result = run("import")
    assert result.code == 1
    assert result.err.strip() == (
        "GEMINI.md:1:1: path: resolves outside the repository (through a symbolic link); gitmem does not follow it"
    )
    assert sorted(p.name for p in (project / ".memory/memories").iterdir()) == [".gitkeep"]
    assert "Fridays" not in result.out + result.err


def test_the_store_does_not_read_memory_files_that_link_outside(
    project: Path, tmp_path: Path, run: Run
) -> None:
    elsewhere = tmp_path / "elsewhere.yaml"
    elsewhere.write_text(
        MEMORY.format(id="leak", title="Read from outside", extra=""), encoding="utf-8"
    )
    (project / ".memory/memories/leak.yaml").symlink_to(elsewhere)
    write_memory(project, "inside", "A memory inside")
    result = run("validate")
    assert result.code == 1
    assert result.err.splitlines()[0] == (
        ".memory/memories/leak.yaml:1:1: path: resolves outside the repository (through a symbolic link); "
        "gitmem does not follow it"
    )
    listed = run("list", "--json")
    assert "Read from outside" not in listed.out
    recalled = run("recall", "read from outside", "--json")
    assert "leak" not in recalled.out and "Read from outside" not in recalled.out + recalled.err
    assert run("compile").code == 1
    assert not (project / "AGENTS.md").exists()


def test_a_memory_folder_that_links_outside_is_refused(
    repo: Path, tmp_path: Path, run: Run
) -> None:
    elsewhere = tmp_path / "someone-elses-memory"
    (elsewhere / "memories").mkdir(parents=True)
    (elsewhere / "config.yaml").write_text("version: 1\ntargets: [agents]\n", encoding="utf-8")
    (elsewhere / "memories/outside.yaml").write_text(
        MEMORY.format(id="outside", title="From outside", extra=""), encoding="utf-8"
    )
    (repo / ".memory").symlink_to(elsewhere, target_is_directory=True)
    before = snapshot(elsewhere)
    for args in (
        ("list",),
        ("compile",),
        ("add", "A new memory"),
        ("init", "--no-hooks"),
        ("recall", "outside"),
    ):
        result = run(*args)
        assert result.code == 1, (args, result.err)
        assert result.err.startswith(".memory"), (args, result.err)
        assert "resolves outside the repository" in result.err
    assert snapshot(elsewhere) == before
    assert not (repo / "AGENTS.md").exists()


def test_init_mcp_never_edits_the_users_cursor_config(repo: Path, tmp_path: Path, run: Run) -> None:
    home_cursor = tmp_path / "home-cursor"
    home_cursor.mkdir()
    (home_cursor / "mcp.json").write_text(
        '{"mcpServers": {"mine": {"command": "x"}}}\n', encoding="utf-8"
    )
    (repo / ".cursor").symlink_to(home_cursor, target_is_directory=True)
    before = snapshot(home_cursor)
    result = run("init", "--no-hooks", "--mcp")
    assert result.code == 1
    assert result.err.strip() == (
        ".cursor/mcp.json:1:1: path: resolves outside the repository (through a symbolic link); "
        "gitmem does not follow it"
    )
    assert snapshot(home_cursor) == before
    assert not (repo / ".memory").exists()  # refused before anything was written


def test_init_never_writes_gitattributes_through_a_link(
    repo: Path, tmp_path: Path, run: Run
) -> None:
    elsewhere = tmp_path / "attributes"
    elsewhere.write_text("* text=auto\n", encoding="utf-8")
    (repo / ".gitattributes").symlink_to(elsewhere)
    result = run("init")
    assert result.code == 1
    assert ".gitattributes:1:1: path: resolves outside the repository" in result.err
    assert elsewhere.read_text(encoding="utf-8") == "* text=auto\n"


def test_journal_never_writes_through_a_link(project: Path, tmp_path: Path, run: Run) -> None:
    elsewhere = tmp_path / "journal"
    elsewhere.mkdir()
    journal = project / ".memory/journal"
    for child in journal.iterdir():
        child.unlink()
    journal.rmdir()
    journal.symlink_to(elsewhere, target_is_directory=True)
    result = run("journal", "add", "-", input="# Session\n\n## Decisions\n- Use pnpm\n")
    assert result.code == 1
    assert "resolves outside the repository" in result.err
    assert list(elsewhere.iterdir()) == []


def test_a_pack_never_follows_links(project: Path, tmp_path: Path, run: Run) -> None:
    """A pack is read from git objects: a link in it (to a memory file or to the folder) is a problem, not read."""
    pack = tmp_path / "pack"
    pack.mkdir()
    git(pack, "init", "-q", "-b", "main")
    (pack / ".memory/memories").mkdir(parents=True)
    secret_place = tmp_path / "secret.yaml"
    secret_place.write_text(
        MEMORY.format(id="linked", title="Linked from outside", extra=""), encoding="utf-8"
    )
    (pack / ".memory/memories/linked.yaml").symlink_to(secret_place)
    write_memory(pack, "fine", "A fine pack memory")
    git(pack, "add", "-A")
    git(pack, "commit", "-q", "-m", "pack")
    result = run("sources", "add", str(pack), "--rev", "main")
    assert result.code == 1
    assert "linked.yaml:1:1: file: a symbolic link; a pack's memories must be files" in result.err
    assert "Linked from outside" not in result.out + result.err


def test_the_merge_driver_never_writes_outside_the_repository(
    repo: Path, tmp_path: Path, run: Run
) -> None:
    for name, text in (("base", "a\n"), ("theirs", "a\nb\n")):
        (repo / name).write_text(text, encoding="utf-8")
    victim = tmp_path / "victim.md"
    victim.write_text("a\n", encoding="utf-8")
    (repo / "ours").symlink_to(victim)
    result = run("merge-driver", "base", "ours", "theirs", "AGENTS.md")
    assert result.code == 1
    assert "ours:1:1: path: resolves outside the repository" in result.err
    assert victim.read_text(encoding="utf-8") == "a\n"


def test_journal_list_and_harvest_do_not_read_a_log_that_links_outside(
    project: Path, tmp_path: Path, run: Run
) -> None:
    private = tmp_path / "private.md"
    private.write_text(
        "# Private diary\n\n## Decisions\n- Move to the other company\n", encoding="utf-8"
    )
    (project / ".memory/journal/2026-11-30-linked.md").symlink_to(private)
    listed = run("journal", "list")
    assert listed.code == 1
    assert listed.err.startswith(
        ".memory/journal/2026-11-30-linked.md:1:1: path: resolves outside the repository"
    )
    assert "diary" not in listed.out + listed.err
    harvested = run("journal", "harvest", ".memory/journal/2026-11-30-linked.md")
    assert harvested.code == 1
    assert "resolves outside the repository" in harvested.err
    assert sorted(p.name for p in (project / ".memory/memories").iterdir()) == [".gitkeep"]


def test_a_folder_found_inside_then_swapped_for_a_link_is_refused(
    tmp_path: Path, outside: Path
) -> None:
    """The gateway remembers a folder it found inside (to check each file of it with one ``lstat``):
    a folder replaced meanwhile by a link leading out (a checkout, a revert run by gitmem in the
    same process) is refused, and so is a file in it replaced by such a link."""
    root = tmp_path / "repo"
    folder = root / ".memory/memories"
    folder.mkdir(parents=True)
    (folder / "a.yaml").write_text("id: a\n", encoding="utf-8")
    where = Path(root)
    assert safepath.read_bytes(where, folder / "a.yaml") == b"id: a\n"
    (folder / "a.yaml").unlink()
    (folder / "a.yaml").symlink_to(outside / "CLAUDE.md")
    with pytest.raises(safepath.OutsideRoot):
        safepath.read_bytes(where, folder / "a.yaml")
    (folder / "a.yaml").unlink()
    folder.rmdir()
    (root / ".memory").rename(root / ".memory-old")
    (root / ".memory").symlink_to(tmp_path, target_is_directory=True)
    (tmp_path / "memories").symlink_to(outside, target_is_directory=True)
    with pytest.raises(safepath.OutsideRoot):
        safepath.read_bytes(where, folder / "CLAUDE.md")
    with pytest.raises(safepath.OutsideRoot):
        safepath.write(where, folder / "CLAUDE.md", "overwritten\n")
    with pytest.raises(safepath.OutsideRoot):
        safepath.remove(where, folder / "CLAUDE.md")
    assert (outside / "CLAUDE.md").read_text(encoding="utf-8") == "# my global instructions\n"
