"""The hooks with the real pre-commit framework, in temporary repositories: a commit that adds a live-looking key is
refused without printing it, a clean commit passes, and other repositories can use .pre-commit-hooks.yaml."""

from __future__ import annotations

import random
import string
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import git

REPO_ROOT = Path(__file__).resolve().parent.parent
_rng = random.Random(5)


def live_looking_key() -> str:
    return "sk_live_" + "".join(
        _rng.choice(string.ascii_letters + string.digits) for _ in range(40)
    )


def commit(repo: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        ["git", "commit", "-m", "change", *args], cwd=repo, capture_output=True, text=True
    )


def test_a_commit_adding_a_live_key_is_refused_and_the_key_not_printed(hooked: Path) -> None:
    key = live_looking_key()
    (hooked / "settings.py").write_text(f"DEBUG = False\nSTRIPE_KEY = '{key}'\n")
    git(hooked, "add", "settings.py")
    done = commit(hooked)
    output = done.stdout + done.stderr
    assert done.returncode != 0
    assert "settings.py:2:15: stripe-secret-key: possible secret: sk_l… (48 chars)" in output
    assert key not in output and key[8:] not in output
    assert git(hooked, "rev-list", "--count", "HEAD").strip() == "1"


def test_a_clean_commit_passes(hooked: Path) -> None:
    (hooked / "settings.py").write_text("import os\nSTRIPE_KEY = os.environ['STRIPE_KEY']\n")
    git(hooked, "add", "settings.py")
    done = commit(hooked)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "gitmem scan" in done.stderr and "Passed" in done.stderr


def test_a_partial_commit_is_scanned_through_its_own_index(hooked: Path) -> None:
    """`git commit FILE` commits through a temporary index (GIT_INDEX_FILE): the key must still be seen."""
    key = live_looking_key()
    (hooked / "README.md").write_text(f"hello\nkey: {key}\n")
    done = commit(hooked, "README.md")
    assert done.returncode != 0 and "README.md:2:6: stripe-secret-key" in done.stdout + done.stderr
    (hooked / "README.md").write_text("hello\nworld\n")
    assert commit(hooked, "README.md").returncode == 0


@pytest.mark.slow
def test_try_repo_against_this_repositorys_hooks(repo: Path) -> None:
    """`pre-commit try-repo` installs gitmem from this repository into a hook environment, as users' repos will."""
    key = live_looking_key()
    (repo / "config.py").write_text(f"KEY = '{key}'\n")
    git(repo, "add", "config.py")
    done = subprocess.run(
        [sys.executable, "-m", "pre_commit", "try-repo", str(REPO_ROOT), "gitmem-scan"],
        cwd=repo,
        capture_output=True,
        text=True,
        timeout=900,
    )
    output = done.stdout + done.stderr
    assert done.returncode == 1, output
    assert "config.py:1:8: stripe-secret-key" in output and key not in output
    (repo / "config.py").write_text("KEY = None\n")
    git(repo, "add", "config.py")
    clean = subprocess.run(
        [sys.executable, "-m", "pre_commit", "try-repo", str(REPO_ROOT), "gitmem-scan"],
        cwd=repo,
        capture_output=True,
        text=True,
        timeout=900,
    )
    assert clean.returncode == 0, clean.stdout + clean.stderr
