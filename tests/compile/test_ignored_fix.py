"""The fix gitmem gives for a file git ignores, applied as written, lets git track the file, and
only it: whichever file's pattern ignores it, and whether the file or a folder above it is ignored.
Git never looks inside a folder it ignores, so a `!` line alone cannot bring back a file in one: on
60c3904 every layout with an ignored folder got `add `!.claude/CLAUDE.md``, which changed nothing.
Every message that says how to un-ignore a file comes from ``GitView.ignored_fix``."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from gitmem.compile.reading import GitView
from tests.compile.conftest import apply_ignore_fix

# (the file holding the pattern, its lines, the file gitmem writes, a neighbour the team keeps out)
LAYOUTS = [
    (".gitignore", ".aider*", ".aider.conf.yml", ".aider.chat.history.md"),
    (".gitignore", ".claude/", ".claude/CLAUDE.md", ".claude/settings.local.json"),
    (".gitignore", ".claude", ".claude/CLAUDE.md", ".claude/settings.local.json"),
    (".gitignore", "/.claude/", ".claude/CLAUDE.md", ".claude/settings.local.json"),
    (".gitignore", ".claude/*", ".claude/CLAUDE.md", ".claude/settings.local.json"),
    (".gitignore", "/*\n!/.gitignore", ".claude/CLAUDE.md", "notes.txt"),
    (".gitignore", ".cursor/", ".cursor/rules/gitmem.mdc", ".cursor/rules/mine.mdc"),
    (".gitignore", "rules/", ".cursor/rules/gitmem.mdc", ".cursor/rules/mine.mdc"),
    (".gitignore", "**/.github/instructions/", ".github/instructions/web.instructions.md", ""),
    (".git/info/exclude", ".junie/", ".junie/guidelines.md", ".junie/cache.json"),
    ("web/.gitignore", "AGENTS.md", "web/AGENTS.md", ""),
    ("web/.gitignore", ".claude/", "web/.claude/CLAUDE.md", "web/.claude/settings.local.json"),
    # a folder whose name a .gitignore line would read as a pattern: `[v2]` is one of "v" and "2"
    (".gitignore", "*.md", "docs [v2]/AGENTS.md", "docs [v2]/notes.md"),
    (".gitignore", "docs*/", "docs [v2]/.claude/CLAUDE.md", "docs [v2]/notes.md"),
]


def _ignored(root: Path, path: str) -> bool:
    done = subprocess.run(["git", "check-ignore", "-q", path], cwd=root, check=False)
    assert done.returncode in (0, 1)
    return done.returncode == 0


@pytest.mark.parametrize(("source", "patterns", "path", "neighbour"), LAYOUTS)
def test_the_fix_lets_git_track_the_file_and_keeps_the_rest_out(
    tmp_path: Path, source: str, patterns: str, path: str, neighbour: str
) -> None:
    subprocess.run(["git", "init", "-q", str(tmp_path)], check=True)
    for name in (path, neighbour, "notes.txt"):
        if name:
            (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
            (tmp_path / name).write_text("x\n", encoding="utf-8")
    (tmp_path / source).parent.mkdir(parents=True, exist_ok=True)
    with (tmp_path / source).open("a", encoding="utf-8") as handle:
        handle.write(patterns + "\n")
    assert _ignored(tmp_path, path)
    fix = GitView(tmp_path).ignored_fix(path)
    assert "check-ignore -v" in fix  # the other way: the pattern, named by git, not quoted
    apply_ignore_fix(tmp_path, fix)
    assert not _ignored(tmp_path, path), fix
    if neighbour:
        assert _ignored(tmp_path, neighbour), fix


def test_every_un_ignore_fix_comes_from_one_place() -> None:
    """A second writer of the fix is how `!.claude/CLAUDE.md` came back in init's message: the
    words `check-ignore` appear in the package only where ``GitView.ignored_fix`` builds them."""
    package = Path(__file__).resolve().parents[2] / "gitmem"
    writers = sorted(
        str(path.relative_to(package))
        for path in package.rglob("*.py")
        if "check-ignore -v" in path.read_text(encoding="utf-8")
    )
    assert writers == ["compile/reading.py"]
