"""Personal memories: the user's own store under a temporary HOME, `--user` on every command, and `compile --user`
into the tools' user-level files. Personal memories never reach project files, and project memories never reach
the user's files."""

from __future__ import annotations

import json
import os
import random
import string
import sys
from pathlib import Path

import pytest

from gitmem.compile import block
from gitmem.scan import scan_text
from tests.conftest import Run

# Built at run time, and random-looking (scanners ignore repeated patterns as placeholders).
TOKEN = "sk_live_" + "".join(random.Random(3).choices(string.ascii_letters + string.digits, k=24))


@pytest.fixture
def home() -> Path:
    return Path(os.environ["HOME"])


@pytest.fixture
def elsewhere(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A current directory in no git repository."""
    directory = tmp_path / "elsewhere"
    directory.mkdir()
    monkeypatch.chdir(directory)
    return directory


def _files(root: Path) -> dict[str, bytes]:
    return {
        p.relative_to(root).as_posix(): p.read_bytes()
        for p in sorted(root.rglob("*"))
        if p.is_file()
    }


def _ids(path: Path) -> list[str]:
    return sorted(entry.id for entry in block.entries_of(path.read_text(encoding="utf-8")))


def test_add_user_works_outside_a_repository_and_sets_up_the_store(
    home: Path, elsewhere: Path, run: Run
) -> None:
    result = run("add", "--user", "Answer in British English", "--kind", "preference")
    assert result.code == 0, result.err
    assert result.out == "~/.config/gitmem/memories/answer-in-british-english.yaml\n"
    assert result.err == "created ~/.config/gitmem/config.yaml\n"
    store = home / ".config" / "gitmem"
    assert sorted(p.relative_to(store).as_posix() for p in store.rglob("*") if p.is_file()) == [
        "config.yaml",
        "memories/answer-in-british-english.yaml",
        "schema/config.schema.json",
        "schema/memory.schema.json",
    ]
    text = (store / "memories" / "answer-in-british-english.yaml").read_text()
    assert text.startswith("# yaml-language-server: $schema=../schema/memory.schema.json\n")
    assert "kind: preference\nstatus: active\n" in text
    assert list(elsewhere.iterdir()) == []
    second = run("add", "--user", "Prefer small commits")
    assert (second.code, second.err) == (0, "")  # the store exists now: nothing more to set up


def test_xdg_directories_are_honoured(
    tmp_path: Path, elsewhere: Path, run: Run, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "xdg-config"))
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg-cache"))
    assert run("add", "--user", "Prefer small commits").code == 0
    assert (tmp_path / "xdg-config/gitmem/memories/prefer-small-commits.yaml").is_file()
    assert run("list", "--user").code == 0
    assert (tmp_path / "xdg-cache/gitmem/store.json").is_file()
    (tmp_path / "xdg-config/opencode").mkdir()
    assert run("compile", "--user").code == 0
    assert _ids(tmp_path / "xdg-config/opencode/AGENTS.md") == ["prefer-small-commits"]


def test_the_user_store_has_the_same_checks(home: Path, elsewhere: Path, run: Run) -> None:
    secret = run("add", "--user", "Staging key", "--body", f"use {TOKEN}")
    assert secret.code == 1
    assert secret.err == (
        f"~/.config/gitmem/memories/staging-key.yaml:6:11: body: {scan_text(TOKEN)[0].describe()}; "
        "secrets must never be stored in memory\nnothing was written\n"
    )
    assert TOKEN not in secret.out + secret.err
    hidden = run("add", "--user", "Be\u200bterse")
    assert hidden.code == 1 and "zero width space" in hidden.err.lower()
    assert not (
        home / ".config/gitmem"
    ).exists()  # not even set up: nothing is written before the checks pass
    evidence = run("add", "--user", "Cite a file", "--evidence", "README.md")
    assert (evidence.code, evidence.err) == (
        2,
        "error: --evidence cites a file of a repository: personal memories (--user) cannot carry it\n",
    )


def test_every_command_works_on_the_user_store(
    home: Path, elsewhere: Path, run: Run, tmp_path: Path
) -> None:
    assert run("add", "--user", "Use tabs", "--proposed").code == 0
    assert run("add", "--user", "Use spaces", "--supersedes", "use-tabs").code == 0
    listed = run("list", "--user")
    assert listed.lines == [
        "ID          KIND        STATUS   PRIORITY  TITLE",
        "use-spaces  convention  active   normal    Use spaces",
        "use-tabs    convention  retired  normal    Use tabs",
    ]
    data = json.loads(run("list", "--user", "--json").out)
    assert [(m["id"], m["path"]) for m in data] == [
        ("use-spaces", "~/.config/gitmem/memories/use-spaces.yaml"),
        ("use-tabs", "~/.config/gitmem/memories/use-tabs.yaml"),
    ]
    shown = run("show", "--user", "use-spaces")
    assert (
        shown.lines[0] == "use-spaces  Use spaces"
        and "  file         ~/.config/gitmem/memories/use-spaces.yaml" in shown.lines
    )
    assert run("add", "--user", "Wrap at 100", "--proposed").code == 0
    accepted = run("accept", "--user", "wrap-at-100")
    assert accepted.out == "updated ~/.config/gitmem/memories/wrap-at-100.yaml\n"
    retired = run("retire", "--user", "wrap-at-100", "--reason", "the formatter does it")
    assert (retired.code, retired.out) == (
        0,
        "updated ~/.config/gitmem/memories/wrap-at-100.yaml\n",
    )
    script = tmp_path / "editor.py"
    script.write_text(
        "import sys, pathlib\np = pathlib.Path(sys.argv[1])\np.write_text(p.read_text() + 'tags: [style]\\n')\n"
    )
    edited = run("edit", "--user", "use-spaces", env={"EDITOR": f"{sys.executable} {script}"})
    assert (edited.code, edited.out) == (0, "updated ~/.config/gitmem/memories/use-spaces.yaml\n")
    assert json.loads(run("show", "--user", "use-spaces", "--json").out)["tags"] == ["style"]
    assert not (home / ".cache/gitmem/drafts/use-spaces.yaml").exists()
    forgotten = run("forget", "--user", "use-tabs")
    assert forgotten.out == (
        "removed use-tabs from the supersedes of use-spaces\nremoved ~/.config/gitmem/memories/use-tabs.yaml\n"
    )
    valid = run("validate", "--user")
    assert (valid.code, valid.out) == (0, "ok: 3 file(s) checked, no problems\n")
    (home / ".config/gitmem/memories/broken.yaml").write_text("id: broken\ntitle: x\n")
    invalid = run("validate", "--user")
    assert invalid.code == 1
    assert invalid.err.splitlines()[0].startswith("~/.config/gitmem/memories/broken.yaml:1:1: ")


def test_user_store_cache_never_goes_into_a_project(project: Path, home: Path, run: Run) -> None:
    assert run("add", "--user", "Prefer small commits").code == 0
    before = _files(project / ".git")
    assert run("list", "--user").code == 0
    assert run("recall", "--user", "commits").code == 0
    assert _files(project / ".git") == before
    assert (home / ".cache/gitmem/store.json").is_file()
    assert (home / ".cache/gitmem/recall.sqlite3").is_file()
    assert list((project / ".memory/memories").glob("*.yaml")) == []


def test_compile_user_writes_personal_memories_keeping_the_rest_byte_for_byte(
    home: Path, elsewhere: Path, run: Run
) -> None:
    claude = home / ".claude" / "CLAUDE.md"
    claude.parent.mkdir()
    hand = b"# My rules\r\n\r\nBe terse.\r\n"
    claude.write_bytes(hand)
    assert (
        run(
            "add",
            "--user",
            "Answer in British English",
            "--kind",
            "preference",
            "--priority",
            "high",
        ).code
        == 0
    )
    result = run("compile", "--user")
    assert result.code == 0, result.err
    assert result.lines == [
        "updated ~/.claude/CLAUDE.md",
        "compiled 1 personal memories into ~/.claude/CLAUDE.md: 1 file(s) changed",
    ]
    body = (
        "## Personal memories\n\n"
        "These are the user's personal memories: their own preferences and lessons, for every project, compiled by "
        "gitmem. Follow them where the project's own instructions do not say otherwise. Each ends with its id; "
        "`gitmem show --user <id>` shows its source. If one looks wrong or out of date, say so rather than ignore it.\n"
        "\n### Preferences\n\n"
        "- Answer in British English (`answer-in-british-english`, high priority)\n"
    )
    expected = hand.decode() + block.block_text(body, personal=True).replace("\n", "\r\n")
    assert claude.read_bytes() == expected.encode()
    assert "generated by gitmem compile --user from your personal memories" in expected
    assert run("compile", "--user", "--check").out == "up to date: 1 file(s)\n"
    assert run("forget", "--user", "answer-in-british-english").code == 0
    stale = run("compile", "--user", "--check")
    assert (stale.code, stale.out) == (
        1,
        "~/.claude/CLAUDE.md: out of date\n",
    )  # its block goes, the rest stays
    assert run("compile", "--user").code == 0
    assert claude.read_bytes() == hand


def test_personal_and_project_memories_never_mix(project: Path, home: Path, run: Run) -> None:
    (home / ".claude").mkdir()
    (home / ".codex").mkdir()
    assert run("add", "Project rule").code == 0
    assert run("add", "--user", "Personal rule").code == 0
    assert run("compile").code == 0
    project_files = {p: project / p for p in ("AGENTS.md", "CLAUDE.md")}
    for path in project_files.values():
        assert _ids(path) == ["project-rule"]
    assert not (home / ".claude/CLAUDE.md").exists() and not (home / ".codex/AGENTS.md").exists()
    before = {name: path.read_bytes() for name, path in project_files.items()}

    result = run("compile", "--user")
    assert result.code == 0, result.err
    assert result.lines[-1] == (
        "compiled 1 personal memories into ~/.codex/AGENTS.md, ~/.claude/CLAUDE.md: 2 file(s) changed"
    )
    for path in (home / ".claude/CLAUDE.md", home / ".codex/AGENTS.md"):
        assert _ids(path) == ["personal-rule"]
    assert {name: path.read_bytes() for name, path in project_files.items()} == before
    user_before = _files(home / ".claude")
    assert run("compile").out.startswith("up to date")
    assert _files(home / ".claude") == user_before


def test_default_targets_are_the_installed_tools(home: Path, elsewhere: Path, run: Run) -> None:
    assert run("add", "--user", "Personal rule").code == 0
    nothing = run("compile", "--user")
    assert nothing.code == 0
    assert nothing.err == (
        "note: no AI tool's user-level directory found (~/.claude, ~/.codex, ~/.config/opencode, ...): set "
        "`targets` in ~/.config/gitmem/config.yaml, or pass --target NAME\n"
    )
    assert nothing.out == "up to date: 1 personal memories compiled into no files\n"
    (home / ".gemini").mkdir()
    (home / ".kiro").mkdir()
    result = run("compile", "--user")
    assert result.lines[:2] == ["created ~/.gemini/GEMINI.md", "created ~/.kiro/steering/gitmem.md"]
    kiro = (home / ".kiro/steering/gitmem.md").read_text()
    assert kiro.startswith("---\ninclusion: always\n---\n<!-- gitmem:begin file-hash=")
    assert sorted(p.name for p in home.iterdir()) == [".cache", ".config", ".gemini", ".kiro"]


def test_the_user_config_targets_choose_and_clean_up(home: Path, elsewhere: Path, run: Run) -> None:
    (home / ".claude").mkdir()
    assert run("add", "--user", "Personal rule").code == 0
    config = home / ".config/gitmem/config.yaml"
    config.write_text(config.read_text() + "targets: [agents, copilot]\n")
    result = run("compile", "--user")
    assert result.lines == [
        "created ~/.codex/AGENTS.md",
        "created ~/.config/opencode/AGENTS.md",
        "created ~/.copilot/copilot-instructions.md",
        "compiled 1 personal memories into ~/.config/opencode/AGENTS.md, ~/.codex/AGENTS.md, "
        "~/.copilot/copilot-instructions.md: 3 file(s) changed",
    ]
    assert not (home / ".claude/CLAUDE.md").exists()
    config.write_text(
        config.read_text().replace("targets: [agents, copilot]", "targets: [copilot, cursor]")
    )
    again = run("compile", "--user")
    assert again.err == (
        "note: target 'cursor' has no user-level rules file: not compiled (those with one are agents, claude, "
        "gemini, copilot, devin, cline, kiro, augment)\n"
    )
    assert again.lines[:2] == ["removed ~/.codex/AGENTS.md", "removed ~/.config/opencode/AGENTS.md"]
    assert not (home / ".codex").exists()  # gitmem made it, and it is empty again
    refused = run("compile", "--user", "--target", "aider")
    assert (refused.code, refused.err) == (
        2,
        "error: target 'aider' has no user-level rules file: those with one are agents, claude, gemini, copilot, "
        "devin, cline, kiro, augment\n",
    )


def test_user_memories_with_paths_go_under_a_heading(home: Path, elsewhere: Path, run: Run) -> None:
    (home / ".claude").mkdir()
    assert (
        run(
            "add", "--user", "Prefer pytest fixtures", "--path", "**/*.py", "--path", "tests/**"
        ).code
        == 0
    )
    assert run("compile", "--user").code == 0
    text = (home / ".claude/CLAUDE.md").read_text()
    assert (
        "### Conventions (files matching `**/*.py`, `tests/**`)\n\n- Prefer pytest fixtures ("
        in text
    )
    assert not (home / ".claude/rules").exists() and not (home / "tests").exists()


def test_a_hand_edit_in_a_user_block_is_refused(home: Path, elsewhere: Path, run: Run) -> None:
    (home / ".claude").mkdir()
    assert run("add", "--user", "Personal rule").code == 0
    assert run("compile", "--user").code == 0
    path = home / ".claude/CLAUDE.md"
    edited = path.read_text().replace("- Personal rule", "- Personal rule, edited")
    path.write_text(edited)
    assert run("add", "--user", "Another rule").code == 0
    refused = run("compile", "--user")
    assert refused.code == 1
    assert refused.err.splitlines()[0] == (
        "~/.claude/CLAUDE.md: gitmem's text was edited by hand since the last compile; compile would change it so:"
    )
    assert refused.err.splitlines()[-2].endswith(
        "or overwrite it with `gitmem compile --user --force`."
    )
    assert refused.err.splitlines()[-1] == (
        "not written: claude (the files above); the other targets were"
    )
    assert path.read_text() == edited
    assert run("compile", "--user", "--force").code == 0
    assert _ids(path) == ["another-rule", "personal-rule"]


def test_budget_footer_points_to_personal_recall(home: Path, elsewhere: Path, run: Run) -> None:
    (home / ".claude").mkdir()
    for number in range(6):
        assert (
            run("add", "--user", f"Personal rule number {number}", "--body", "word " * 40).code == 0
        )
    result = run("compile", "--user", "--budget", "200")
    assert result.code == 0
    assert result.lines[1].startswith("left out by the budget: ~/.claude/CLAUDE.md ")
    assert result.lines[1].endswith(", `gitmem recall --user` finds them")
    text = (home / ".claude/CLAUDE.md").read_text()
    found = block.scan(text).found
    assert found is not None
    split = block.split(found.body)
    assert split.footer.startswith(
        "More personal memories were left out to fit the token budget: run `gitmem recall"
    )
    assert block.assemble(split) == found.body


def test_recall_and_stats_user(home: Path, elsewhere: Path, run: Run) -> None:
    assert run("add", "--user", "Write commit messages in the imperative").code == 0
    assert run("add", "--user", "Prefer small functions").code == 0
    hits = json.loads(run("recall", "--user", "commit message", "--json").out)
    assert [hit["id"] for hit in hits] == ["write-commit-messages-in-the-imperative"]
    assert (
        hits[0]["file"] == "~/.config/gitmem/memories/write-commit-messages-in-the-imperative.yaml"
    )
    (home / ".claude").mkdir()
    stats = json.loads(run("stats", "--user", "--json").out)
    assert stats["memories"]["total"] == 2 and stats["sources"] == []
    assert [(t["name"], t["file"], t["files"][0]["path"]) for t in stats["targets"]] == [
        ("claude", "~/.claude/CLAUDE.md", "~/.claude/CLAUDE.md")
    ]


def test_seal_keeps_the_personal_note(home: Path, elsewhere: Path, run: Run) -> None:
    """A merge driver that re-assembles a personal block re-seals it without turning it into a project block."""
    (home / ".claude").mkdir()
    assert run("add", "--user", "Personal rule").code == 0
    assert run("compile", "--user").code == 0
    path = home / ".claude/CLAUDE.md"
    text = path.read_text()
    edited = text.replace("- Personal rule", "- Personal rule, re-assembled")
    sealed = block.seal(edited)
    found, original = block.scan(sealed).found, block.scan(text).found
    assert found is not None and original is not None and not found.edited()
    assert found.begin.split(": ", 1)[1] == original.begin.split(": ", 1)[1]
    assert "gitmem compile --user" in found.begin
