"""The environment's errors (disk full, read-only .git, a write killed half-way) are one line and exit code 3, never
"internal error" (exit 4); a killed write leaves nothing git would commit. Real file systems where the machine
allows them (a 64 KiB tmpfs needs root), an injected ENOSPC at the write boundary everywhere."""

from __future__ import annotations

import errno
import os
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from gitmem import gateway as fsutil
from tests.conftest import Run, git


def _mount(target: Path, *options: str) -> bool:
    done = subprocess.run(["mount", *options, str(target)], capture_output=True, check=False)
    return done.returncode == 0


def _umount(target: Path) -> None:
    subprocess.run(["umount", "-l", str(target)], capture_output=True, check=False)


@pytest.fixture
def full_disk(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, run: Run) -> Iterator[Path]:
    """A repository set up on a small tmpfs, then filled to the last byte."""
    mount = tmp_path / "small"
    mount.mkdir()
    if os.geteuid() != 0 or not _mount(mount, "-t", "tmpfs", "-o", "size=1m", "tmpfs"):
        pytest.skip("mounting a tmpfs needs root")
    try:
        repo = mount / "repo"
        repo.mkdir()
        git(repo, "init", "-q", "-b", "main")
        monkeypatch.chdir(repo)
        assert run("init", "--no-hooks").code == 0
        fd = os.open(mount / "filler", os.O_WRONLY | os.O_CREAT)
        try:
            while True:
                os.write(fd, b"\0" * 4096)
        except OSError as exc:
            assert exc.errno == errno.ENOSPC
        finally:
            os.close(fd)
        yield repo
    finally:
        monkeypatch.chdir(tmp_path)
        _umount(mount)


def test_disk_full_is_one_line_and_exit_3(full_disk: Path, run: Run) -> None:
    result = run("add", "Use pnpm, never npm", "--body", "npm rewrites the lock file. " * 40)
    assert result.code == 3, result.err
    assert len(result.err.splitlines()) == 1
    assert "No space left on device" in result.err and "internal error" not in result.err
    assert result.err.startswith("error: .memory/memories/use-pnpm-never-npm.yaml: ")
    leftovers = [p.name for p in (full_disk / ".memory/memories").iterdir()]
    assert leftovers == [".gitkeep"]


def test_an_injected_enospc_at_the_write_boundary_is_exit_3(
    project: Path, run: Run, monkeypatch: pytest.MonkeyPatch
) -> None:
    def no_space(fd: int) -> None:
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))

    monkeypatch.setattr(fsutil.os, "fsync", no_space)
    result = run("add", "Use pnpm, never npm")
    assert result.code == 3, result.err
    assert result.err.startswith("error: .memory/memories/") and len(result.err.splitlines()) == 1
    assert "No space left on device" in result.err
    assert [p.name for p in (project / ".memory/memories").iterdir()] == [
        ".gitkeep"
    ]  # no temporary file left


@pytest.fixture
def read_only_git(project: Path, run: Run) -> Iterator[Path]:
    """The project with a memory, then its .git made read-only for real (a read-only bind mount as root, file
    modes otherwise)."""
    assert run("add", "Use pnpm, never npm", "--id", "use-pnpm").code == 0
    git_dir = project / ".git"
    if os.geteuid() == 0:
        if not _mount(git_dir, "--bind", str(git_dir)) or not _mount(
            git_dir, "-o", "remount,ro,bind"
        ):
            _umount(git_dir)
            pytest.skip("cannot bind-mount .git read-only here")
        try:
            yield project
        finally:
            _umount(git_dir)
    else:
        modes = {
            path: path.stat().st_mode for path in [git_dir, *git_dir.rglob("*")] if path.is_dir()
        }
        for path in modes:
            path.chmod(0o555)
        try:
            yield project
        finally:
            for path, mode in modes.items():
                path.chmod(mode)


def test_edit_with_a_read_only_git_dir_is_exit_3(read_only_git: Path, run: Run) -> None:
    result = run("edit", "use-pnpm", env={"EDITOR": "true", "VISUAL": "true"})
    assert result.code == 3, result.err
    assert len(result.err.splitlines()) == 1 and "internal error" not in result.err
    assert "Read-only file system" in result.err or "Permission denied" in result.err
    assert ".git/gitmem" in result.err


KILLED_WRITER = """
import os, sys, time
from pathlib import Path
from gitmem import gateway as fsutil
from gitmem.memory.model import Memory
from gitmem.memory.store import Store
from gitmem.gateway import find_project

def stall(fd):
    print("writing", flush=True)
    time.sleep(60)

fsutil.os.fsync = stall
Store(find_project()).create(Memory.from_dict({"id": "half", "title": "Half written", "kind": "fact",
                                               "status": "active"}))
"""


def test_a_write_killed_half_way_leaves_nothing_git_commits(project: Path, run: Run) -> None:
    writer = subprocess.Popen(
        [sys.executable, "-c", KILLED_WRITER], cwd=project, stdout=subprocess.PIPE, text=True
    )
    assert writer.stdout is not None
    assert writer.stdout.readline().strip() == "writing"
    writer.send_signal(signal.SIGKILL)
    writer.wait()
    memories = project / ".memory/memories"
    temps = [p for p in memories.iterdir() if fsutil.is_temp(p.name)]
    assert len(temps) == 1 and temps[0].name.startswith(".half.yaml.")
    git(project, "add", "-A")
    staged = git(project, "diff", "--cached", "--name-only").split()
    assert ".memory/.gitignore" in staged
    assert not [name for name in staged if name.endswith(".tmp")]
    assert (
        run("list").code == 0
    )  # a fresh temporary file (perhaps another process's write) is left alone
    assert temps[0].exists()
    old = time.time() - fsutil.STALE_SECONDS - 1
    os.utime(temps[0], (old, old))
    assert run("list").code == 0
    assert not temps[0].exists()  # a stale one is cleaned up
