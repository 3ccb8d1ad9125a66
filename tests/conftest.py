"""Shared fixtures: a real git repository in a temporary directory, and gitmem run in it.

``run`` calls ``gitmem.commands.cli.main`` in-process (fast; the same code path as the console script, exit codes
included). ``run_exe`` starts the installed ``gitmem`` as a real process, for end-to-end tests.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from gitmem import yamlio
from gitmem.commands.cli import main

TESTS = Path(__file__).resolve().parent
# The tests that take a minute or more each on CI (real clients, field layouts, mypy, pre-commit's
# try-repo, the team story) run first: with `pytest -n auto` both workers then end together on the
# quick tests, rather than one waiting for a long test that was handed out last
_LONG = (
    TESTS / "clients",
    TESTS / "field",
    TESTS / "test_quality.py",
    TESTS / "test_scan_hooks.py",
    TESTS / "test_e2e_team.py",
)


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    items.sort(key=lambda item: not any(item.path.is_relative_to(long) for long in _LONG))


@dataclass
class Result:
    code: int
    out: str
    err: str

    @property
    def lines(self) -> list[str]:
        return self.out.splitlines()


Run = Callable[..., Result]


def git(cwd: Path, *args: str) -> str:
    """Run git in ``cwd`` and return its output; fail the test when git fails."""
    done = subprocess.run(["git", *args], cwd=cwd, capture_output=True, text=True, check=False)
    assert done.returncode == 0, f"git {' '.join(args)} failed: {done.stderr}"
    return done.stdout


def tree_digest(folder: Path) -> str:
    """A digest of every name and byte under ``folder``: equal when nothing in it changed."""
    import hashlib

    h = hashlib.sha256()
    for path in sorted(folder.rglob("*")):
        h.update(str(path.relative_to(folder)).encode() + b"\0")
        if path.is_file():
            h.update(path.read_bytes())
    return h.hexdigest()


def gitmem_command() -> list[str]:
    exe = shutil.which("gitmem", path=str(Path(sys.executable).parent))
    return [exe] if exe else [sys.executable, "-m", "gitmem"]


def store_repo(root: Path, memories: list[dict[str, Any]], target: str = "claude") -> Path:
    """A git repository at ``root`` with gitmem set up for ``target`` and ``memories`` written as memory files (kind
    convention, active, unless a memory says otherwise), not compiled."""
    root.mkdir(parents=True)
    git(root, "init", "-q", "-b", "main")
    env = {**os.environ, "PATH": str(Path(sys.executable).parent) + os.pathsep + os.environ["PATH"]}
    done = subprocess.run(
        [*gitmem_command(), "init", "--no-hooks", "--target", target],
        cwd=root,
        capture_output=True,
        env=env,
    )
    assert done.returncode == 0, done.stderr
    for data in memories:
        data = {"kind": "convention", "status": "active", "created": "2026-01-01", **data}
        (root / ".memory" / "memories" / f"{data['id']}.yaml").write_text(
            yamlio.dump(data), encoding="utf-8"
        )
    return root


@pytest.fixture(autouse=True)
def _isolated_env(
    tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch
) -> None:
    """No test reads or writes the developer's own home, git config or colours."""
    home = tmp_path_factory.mktemp("home")
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.setenv("XDG_CONFIG_HOME", str(home / ".config"))
    monkeypatch.setenv("XDG_CACHE_HOME", str(home / ".cache"))
    monkeypatch.setenv("GIT_CONFIG_NOSYSTEM", "1")
    monkeypatch.setenv("GIT_AUTHOR_NAME", "Test Author")
    monkeypatch.setenv("GIT_AUTHOR_EMAIL", "author@example.com")
    monkeypatch.setenv("GIT_COMMITTER_NAME", "Test Author")
    monkeypatch.setenv("GIT_COMMITTER_EMAIL", "author@example.com")
    monkeypatch.setenv("PRE_COMMIT_HOME", str(tmp_path_factory.getbasetemp() / "pre-commit-home"))
    # The hooks and the merge driver run `gitmem` from PATH, as they do for a user who installed it.
    monkeypatch.setenv(
        "PATH", str(Path(sys.executable).parent) + os.pathsep + os.environ.get("PATH", "")
    )
    for name in (
        "NO_COLOR",
        "GIT_DIR",
        "GIT_INDEX_FILE",
        "GIT_WORK_TREE",
        "EDITOR",
        "VISUAL",
        "GITMEM_DEBUG",
    ):
        monkeypatch.delenv(name, raising=False)


@pytest.fixture
def repo(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """An empty git repository (branch main) that is the current directory."""
    root = tmp_path / "repo"
    root.mkdir()
    git(root, "init", "-q", "-b", "main")
    git(root, "config", "commit.gpgsign", "false")
    monkeypatch.chdir(root)
    return root


@pytest.fixture
def run() -> Run:
    """Run gitmem in-process: ``run("list", "--json", input="...")`` -> Result(code, out, err)."""

    def _run(*args: str, input: str | None = None, env: dict[str, str] | None = None) -> Result:
        runner = CliRunner()
        with runner.isolation(input=input, env=env) as streams:
            code = main(list(args))
            sys.stdout.flush()
            sys.stderr.flush()
        return Result(code, streams[0].getvalue().decode(), streams[1].getvalue().decode())

    return _run


@pytest.fixture
def run_exe() -> Run:
    """Run the installed gitmem as a separate process."""

    def _run(
        *args: str,
        input: str | None = None,
        env: dict[str, str] | None = None,
        cwd: Path | None = None,
    ) -> Result:
        done = subprocess.run(
            [*gitmem_command(), *args],
            input=input,
            capture_output=True,
            text=True,
            env={**os.environ, **(env or {})},
            cwd=cwd,
            check=False,
        )
        return Result(done.returncode, done.stdout, done.stderr)

    return _run


@pytest.fixture
def hooked(repo: Path) -> Path:
    """A repository whose pre-commit config runs gitmem's scan hook as a local hook, installed for real."""
    entry = " ".join(gitmem_command())
    (repo / ".pre-commit-config.yaml").write_text(
        "repos:\n  - repo: local\n    hooks:\n      - id: gitmem-scan\n        name: gitmem scan\n"
        f"        entry: {entry} scan --staged\n        language: system\n        pass_filenames: false\n"
    )
    (repo / "README.md").write_text("hello\n")
    git(repo, "add", ".")
    git(repo, "commit", "-qm", "base")
    done = subprocess.run(
        [sys.executable, "-m", "pre_commit", "install"], cwd=repo, capture_output=True, text=True
    )
    assert done.returncode == 0, done.stderr
    return repo


@pytest.fixture
def project(repo: Path, run: Run) -> Iterator[Path]:
    """A git repository where `gitmem init --no-hooks` has run."""
    result = run("init", "--no-hooks")
    assert result.code == 0, result.err
    yield repo
