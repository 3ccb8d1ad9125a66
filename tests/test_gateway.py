"""The file gateway (gitmem/gateway.py): no other module of gitmem touches the file system itself, and the gateway's
policy holds: every part of a path resolves inside its area, .git/ is refused but for gitmem's cache, reads are
bounded, a link is written through and kept."""

from __future__ import annotations

import ast
import errno
import os
from pathlib import Path
from typing import Any

import pytest

from gitmem import gateway
from gitmem.errors import CheckFailed, ExitCode
from gitmem.project import Project, UserScope

PACKAGE = Path(gateway.__file__).parent
GATEWAY = "gateway.py"

# What opens, writes, renames or removes a file. Attribute names are flagged on any object (a ``Path`` cannot be told
# from anything else without types): nothing in gitmem has methods of these names but paths and files.
METHODS = {"read_text", "read_bytes", "write_text", "write_bytes", "unlink", "rmdir", "mkdir", "touch", "rename",
           "symlink_to", "hardlink_to", "open", "chmod", "truncate"}  # fmt: skip
MODULE_CALLS = {
    "os": {"open", "fdopen", "replace", "rename", "renames", "remove", "unlink", "rmdir", "removedirs", "mkdir",
           "makedirs", "link", "symlink", "truncate", "mkfifo", "chmod", "fchmod"},
    "io": {"open"},
    "codecs": {"open"},
    "shutil": {"rmtree", "copy", "copy2", "copyfile", "copytree", "move", "copyfileobj"},
}  # fmt: skip
MODULES_FORBIDDEN = {"tempfile"}  # every function of it makes files


def violations(source: str, name: str = "<source>") -> list[str]:
    """Every place in ``source`` that touches the file system without the gateway, as ``name:line: what``."""
    tree = ast.parse(source, name)
    found: list[str] = []
    imported: dict[str, str] = {}  # local name -> "module.function" for ``from os import replace``
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name.split(".")[0] in MODULES_FORBIDDEN:
                    found.append(f"{name}:{node.lineno}: import {alias.name}")
        elif isinstance(node, ast.ImportFrom) and node.module:
            root = node.module.split(".")[0]
            for alias in node.names:
                if root in MODULES_FORBIDDEN or alias.name in MODULE_CALLS.get(root, ()):
                    found.append(f"{name}:{node.lineno}: from {node.module} import {alias.name}")
                imported[alias.asname or alias.name] = f"{node.module}.{alias.name}"
    for node in ast.walk(tree):
        if not isinstance(node, ast.Call):
            continue
        func = node.func
        if isinstance(func, ast.Name) and func.id == "open":
            found.append(f"{name}:{node.lineno}: open()")
        elif isinstance(func, ast.Attribute):
            owner = func.value.id if isinstance(func.value, ast.Name) else None
            if owner == "gateway":  # gateway.read_bytes(...): the way in
                continue
            if owner == "sqlite3" and func.attr == "connect" and not _checked_database(node):
                found.append(
                    f"{name}:{node.lineno}: sqlite3.connect() of a path the gateway did not resolve"
                )
            if (
                owner in MODULE_CALLS and func.attr in MODULE_CALLS[owner]
            ) or owner in MODULES_FORBIDDEN:
                found.append(f"{name}:{node.lineno}: {owner}.{func.attr}()")
            elif func.attr in METHODS:
                found.append(f"{name}:{node.lineno}: .{func.attr}()")
            elif func.attr == "replace" and len(node.args) == 1 and not node.keywords:
                # Path.replace(target) takes one argument; str.replace and bytes.replace take two or more
                found.append(f"{name}:{node.lineno}: .replace(target)")
    return found


def _checked_database(node: ast.Call) -> bool:
    """``sqlite3.connect(":memory:")`` or ``sqlite3.connect(gateway.resolve(...))``."""
    first = node.args[0] if node.args else None
    if isinstance(first, ast.Constant):
        return first.value == ":memory:"
    return (
        isinstance(first, ast.Call)
        and isinstance(first.func, ast.Attribute)
        and isinstance(first.func.value, ast.Name)
        and first.func.value.id == "gateway"
    )


def package_violations(package: Path) -> list[str]:
    found = []
    for path in sorted(package.rglob("*.py")):
        relative = path.relative_to(package).as_posix()
        if relative != GATEWAY:
            found += violations(path.read_text(encoding="utf-8"), relative)
    return found


def test_no_module_but_the_gateway_touches_the_file_system() -> None:
    assert package_violations(PACKAGE) == []


VIOLATIONS = [
    ("open('x')", "open()"),
    ("p.read_text(encoding='utf-8')", ".read_text()"),
    ("p.read_bytes()", ".read_bytes()"),
    ("p.write_text('x')", ".write_text()"),
    ("p.write_bytes(b'x')", ".write_bytes()"),
    ("import os\nos.replace('a', 'b')", "os.replace()"),
    ("import os\nos.rename('a', 'b')", "os.rename()"),
    ("import os\nos.unlink('a')", "os.unlink()"),
    ("import os\nos.remove('a')", "os.remove()"),
    ("p.unlink(missing_ok=True)", ".unlink()"),
    ("import shutil\nshutil.rmtree('d')", "shutil.rmtree()"),
    ("from shutil import rmtree\nrmtree('d')", "from shutil import rmtree"),
    ("from os import replace", "from os import replace"),
    ("p.mkdir(parents=True)", ".mkdir()"),
    ("import os\nos.makedirs('d')", "os.makedirs()"),
    ("import os\nos.open('f', 0)", "os.open()"),
    ("p.touch()", ".touch()"),
    ("p.open('rb')", ".open()"),
    ("p.rename('b')", ".rename()"),
    ("p.replace(q)", ".replace(target)"),
    ("p.rmdir()", ".rmdir()"),
    ("import tempfile", "import tempfile"),
    ("import io\nio.open('f')", "io.open()"),
    ("def f():\n    with open('f', 'a+b') as h:\n        pass", "open()"),
    ("import sqlite3\nsqlite3.connect(path)", "sqlite3.connect()"),
]


@pytest.mark.parametrize(("source", "what"), VIOLATIONS)
def test_the_checker_flags_each_kind_of_file_access(source: str, what: str) -> None:
    found = violations(source)
    assert found and what in found[0], found


def test_the_checker_passes_what_is_not_file_access() -> None:
    clean = (
        "s = 'a'.replace('a', 'b')\nb = b'x'.replace(b'x', b'y', 1)\nd = dt.replace(year=1)\ngateway.read_bytes(p, q)\n"
        "sqlite3.connect(':memory:')\nsqlite3.connect(gateway.resolve(p, q))\n"
    )
    assert violations(clean) == []


@pytest.mark.slow
def test_a_module_added_to_the_package_that_opens_a_file_fails_the_check(tmp_path: Path) -> None:
    """The whole check, on a copy of the package with one new module that writes a file itself."""
    copy = tmp_path / "gitmem"
    for path in PACKAGE.rglob("*.py"):
        target = copy / path.relative_to(PACKAGE)
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(path.read_bytes())
    assert package_violations(copy) == []
    (copy / "compile" / "newtarget.py").write_text(
        "from pathlib import Path\n\n\ndef save(path: Path, text: str) -> None:\n    path.write_text(text)\n",
        encoding="utf-8",
    )
    assert package_violations(copy) == ["compile/newtarget.py:5: .write_text()"]


# -- the policy ----------------------------------------------------------------------------------------------------


@pytest.fixture
def repo(tmp_path: Path) -> Project:
    root = tmp_path / "repo"
    (root / ".git").mkdir(parents=True)
    return Project(root, root / ".git")


def test_a_path_through_a_folder_link_outside_is_refused(repo: Project, tmp_path: Path) -> None:
    outside = tmp_path / "home" / ".claude"
    outside.mkdir(parents=True)
    (repo.root / ".claude").symlink_to(outside)
    with pytest.raises(gateway.OutsideRoot) as caught:
        gateway.write(
            repo, repo.root / ".claude" / "settings.json", "{}", display=".claude/settings.json"
        )
    assert str(caught.value) == f".claude/settings.json:1:1: path: {gateway.REASON}"
    assert caught.value.exit_code == ExitCode.FOUND
    assert list(outside.iterdir()) == []


@pytest.mark.parametrize(
    "relative",
    [".git/hooks/AGENTS.md", ".git/config", "sub/.git/hooks/pre-commit", ".GIT/info/x", ".git"],
)
def test_git_folders_are_refused(repo: Project, relative: str) -> None:
    with pytest.raises(gateway.OutsideRoot) as caught:
        gateway.write(repo, repo.root / relative, "x", display=relative)
    assert caught.value.reason == gateway.GIT_REASON
    assert not (repo.root / relative).exists() or relative == ".git"


def test_gitmem_cache_is_allowed_and_a_worktree_cache_outside_the_root_too(tmp_path: Path) -> None:
    root = tmp_path / "wt"
    root.mkdir()
    git_dir = tmp_path / "main" / ".git" / "worktrees" / "wt"
    project = Project(root, git_dir)
    gateway.write(project, project.cache_dir / "store.json", "{}")
    assert gateway.read_text(project, project.cache_dir / "store.json") == "{}"
    with pytest.raises(gateway.OutsideRoot):
        gateway.write(project, git_dir / "HEAD", "x")


def test_reads_are_bounded_and_the_limit_is_named(repo: Project) -> None:
    big = repo.root / "big.md"
    big.write_bytes(b"x" * 5000)
    with pytest.raises(gateway.TooLarge) as caught:
        gateway.read_bytes(repo, big, limit=4 * 1024, display="big.md")
    assert (
        str(caught.value)
        == "big.md:1:1: file: larger than 4 KiB, the limit; gitmem does not read it"
    )
    assert gateway.read_bytes(repo, big, limit=5000) == b"x" * 5000


def test_a_device_is_not_read(tmp_path: Path) -> None:
    scope = UserScope(tmp_path, tmp_path / ".cache", tmp_path / ".config")
    (tmp_path / "zero").symlink_to("/dev/zero")
    with pytest.raises(gateway.OutsideRoot):  # outside the user's folders first of all
        gateway.read_bytes(scope, tmp_path / "zero")
    with pytest.raises(gateway.NotRegular):
        gateway.read_given("/dev/zero", limit=10)
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    with pytest.raises(
        gateway.NotRegular
    ):  # opened without blocking: a FIFO with no writer cannot hang it
        gateway.read_bytes(Path(tmp_path), fifo)


def test_a_user_dotfile_link_is_written_through_and_kept(tmp_path: Path) -> None:
    home = tmp_path / "home"
    stow = home / "dotfiles" / "claude"
    stow.mkdir(parents=True)
    (stow / "CLAUDE.md").write_text("mine\n", encoding="utf-8")
    (home / ".claude").mkdir()
    link = home / ".claude" / "CLAUDE.md"
    link.symlink_to(stow / "CLAUDE.md")
    scope = UserScope(home, home / ".cache" / "gitmem", home / ".config" / "gitmem")
    gateway.write(scope, link, "new\n")
    assert link.is_symlink() and (stow / "CLAUDE.md").read_text(encoding="utf-8") == "new\n"


def test_removing_a_link_removes_the_link_not_its_target(repo: Project, tmp_path: Path) -> None:
    target = tmp_path / "precious"
    target.write_text("keep", encoding="utf-8")
    (repo.root / "note.md").symlink_to(target)
    gateway.remove(repo, repo.root / "note.md")
    assert not (repo.root / "note.md").is_symlink() and target.read_text(encoding="utf-8") == "keep"


def test_removing_through_a_folder_link_is_refused(repo: Project, tmp_path: Path) -> None:
    outside = tmp_path / "home" / ".gemini"
    outside.mkdir(parents=True)
    (outside / "settings.json").write_text("{}", encoding="utf-8")
    (repo.root / ".gemini").symlink_to(outside)
    with pytest.raises(CheckFailed):
        gateway.remove(repo, repo.root / ".gemini" / "settings.json")
    assert (outside / "settings.json").exists()


def test_git_files_gitmem_edits_have_their_own_entry_points(repo: Project) -> None:
    gateway.write_git_file(repo.git_dir / "info" / "exclude", b"x\n")
    gateway.write_git_file(repo.git_dir / "hooks" / "pre-commit", b"#!/bin/sh\n", executable=True)
    assert os.access(repo.git_dir / "hooks" / "pre-commit", os.X_OK)
    with pytest.raises(gateway.OutsideRoot):
        gateway.write_git_file(repo.git_dir / "hooks" / "AGENTS.md", b"x")


# -- a folder read by name (the store's and the recall index's read of every memory file) ---------------------------


def test_a_folder_reads_its_files_by_name_and_gives_the_stat_of_what_it_read(repo: Project) -> None:
    folder_path = repo.root / ".memory" / "memories"
    folder_path.mkdir(parents=True)
    for size in (0, 10, 64 * 1024, 64 * 1024 + 1, 200 * 1024):  # around a read's first request
        (folder_path / f"m{size}.yaml").write_bytes(b"y" * size)
    with gateway.Folder(repo, folder_path) as folder:
        assert sorted(folder.names()) == sorted(os.listdir(folder_path))
        for size in (0, 10, 64 * 1024, 64 * 1024 + 1, 200 * 1024):
            raw, st = folder.read(f"m{size}.yaml")
            assert raw == b"y" * size
            assert (st.st_ino, st.st_size) == (os.stat(folder_path / f"m{size}.yaml").st_ino, size)
        with pytest.raises(gateway.TooLarge) as caught:
            folder.read("m10.yaml", limit=9, display="m10.yaml")
        assert str(caught.value).startswith("m10.yaml:1:1: file: larger than 9 bytes")
        with pytest.raises(FileNotFoundError):
            folder.read("gone.yaml")


def test_a_missing_folder_has_no_names_only_when_asked(repo: Project) -> None:
    with gateway.Folder(repo, repo.root / "none", missing_ok=True) as folder:
        assert folder.names() == []
    with pytest.raises(FileNotFoundError):
        gateway.Folder(repo, repo.root / "none")


def test_a_folder_link_leading_outside_is_refused(repo: Project, tmp_path: Path) -> None:
    outside = tmp_path / "other-checkout" / ".memory"
    outside.mkdir(parents=True)
    (outside / "a.yaml").write_text("secret: elsewhere\n", encoding="utf-8")
    (repo.root / ".memory").symlink_to(outside)
    with pytest.raises(gateway.OutsideRoot):
        gateway.Folder(repo, repo.root / ".memory")


@pytest.mark.parametrize("inside", [True, False])
def test_a_linked_file_in_a_folder_is_followed_and_judged(
    repo: Project, tmp_path: Path, inside: bool
) -> None:
    folder_path = repo.root / "m"
    folder_path.mkdir()
    target = (repo.root if inside else tmp_path) / "target.yaml"
    target.write_text("x: 1\n", encoding="utf-8")
    (folder_path / "a.yaml").symlink_to(target)
    with gateway.Folder(repo, folder_path) as folder:
        if inside:
            assert folder.read("a.yaml")[0] == b"x: 1\n"
        else:
            with pytest.raises(gateway.OutsideRoot):
                folder.read("a.yaml", display="m/a.yaml")
        link = folder.stat("a.yaml", follow=False)
        assert link.st_ino == os.lstat(folder_path / "a.yaml").st_ino


@pytest.mark.parametrize("code", [errno.ELOOP, errno.EMLINK, getattr(errno, "EFTYPE", 79)])
def test_a_link_is_followed_and_judged_whatever_error_the_platform_gives_its_no_follow_open(
    repo: Project, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, code: int
) -> None:
    """Linux and macOS refuse an ``O_NOFOLLOW`` open of a link with ELOOP, FreeBSD with EMLINK,
    NetBSD with EFTYPE: each is a link, judged the full way; any other error of a file is raised."""
    folder_path = repo.root / "m"
    folder_path.mkdir()
    (tmp_path / "target.yaml").write_text("x: 1\n", encoding="utf-8")
    (folder_path / "out.yaml").symlink_to(tmp_path / "target.yaml")
    (folder_path / "plain.yaml").write_text("x: 2\n", encoding="utf-8")
    real_open = os.open

    def platform_open(path: Any, flags: int, *args: Any, **kwargs: Any) -> int:
        try:
            return real_open(path, flags, *args, **kwargs)
        except OSError as exc:
            if flags & os.O_NOFOLLOW and exc.errno == errno.ELOOP:
                raise OSError(code, os.strerror(code)) from None
            raise

    def refusing_open(path: Any, flags: int, *args: Any, **kwargs: Any) -> int:
        if flags & os.O_NOFOLLOW:
            raise OSError(code, os.strerror(code))
        return real_open(path, flags, *args, **kwargs)

    with gateway.Folder(repo, folder_path) as folder:
        monkeypatch.setattr(gateway.os, "open", platform_open)
        with pytest.raises(gateway.OutsideRoot):
            folder.read("out.yaml", display="m/out.yaml")
        assert folder.read("plain.yaml")[0] == b"x: 2\n"
        monkeypatch.setattr(gateway.os, "open", refusing_open)  # a plain file's own error
        with pytest.raises(OSError) as caught:
            folder.read("plain.yaml")
        assert caught.value.errno == code


@pytest.mark.parametrize("name", [".git", ".GIT", "..", "sub/a.yaml"])
def test_a_name_that_is_not_a_plain_file_name_is_judged_the_full_way(
    repo: Project, name: str
) -> None:
    (repo.root / "m" / "sub").mkdir(parents=True)
    (repo.root / "m" / "sub" / "a.yaml").write_text("x: 1\n", encoding="utf-8")
    (repo.root / "m" / ".GIT").mkdir()
    with gateway.Folder(repo, repo.root / "m") as folder:
        if name == "sub/a.yaml":
            assert folder.read(name)[0] == b"x: 1\n"
        else:
            with pytest.raises((gateway.OutsideRoot, gateway.NotRegular)):
                folder.read(name)


def test_a_folder_reads_the_folder_it_judged_even_when_the_path_moves(
    repo: Project, tmp_path: Path
) -> None:
    folder_path = repo.root / "m"
    folder_path.mkdir()
    (folder_path / "a.yaml").write_text("mine: 1\n", encoding="utf-8")
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "a.yaml").write_text("theirs: 1\n", encoding="utf-8")
    with gateway.Folder(repo, folder_path) as folder:
        folder_path.rename(repo.root / "moved")
        folder_path.symlink_to(outside)  # the path now leads outside: the open folder does not
        assert folder.read("a.yaml")[0] == b"mine: 1\n"


def test_a_fifo_in_a_folder_is_not_read_and_does_not_hang(repo: Project) -> None:
    (repo.root / "m").mkdir()
    os.mkfifo(repo.root / "m" / "a.yaml")
    with gateway.Folder(repo, repo.root / "m") as folder, pytest.raises(gateway.NotRegular):
        folder.read("a.yaml")


def test_a_folder_stats_its_listing_index_for_index(repo: Project) -> None:
    folder_path = repo.root / "m"
    (folder_path / "sub").mkdir(parents=True)
    for name in ("a.yaml", "b.yaml", "sub/c.yaml"):
        (folder_path / name).write_text(name, encoding="utf-8")
    with gateway.Folder(repo, folder_path) as folder:
        for names in (folder.names(), ["a.yaml", "sub/c.yaml", "b.yaml"], ["a.yaml", ".."]):
            found = [(st.st_ino, st.st_size) for st in folder.stats(names)]
            assert found == [
                (os.stat(folder_path / n).st_ino, os.stat(folder_path / n).st_size) for n in names
            ]
