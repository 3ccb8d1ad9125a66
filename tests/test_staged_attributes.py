"""``scan --staged`` reads what is staged even when ``.gitattributes`` tells git's diff to treat a file as binary
(``-diff``, ``binary``): the attributes are repository content, an attacker's to set. Real repositories, real
pre-commit hook."""

from __future__ import annotations

import json
import random
import string
import subprocess
from pathlib import Path

import pytest

from tests.conftest import Run, git


def fake_github_token() -> str:
    """A token shaped like GitHub's (built at run time; random enough to pass the scanner's entropy check)."""
    rng = random.Random(13)
    return "ghp_" + "".join(rng.choice(string.ascii_letters + string.digits) for _ in range(36))


@pytest.mark.parametrize("attribute", ["*.txt -diff", "*.txt binary", "notes/** -diff"])
def test_a_token_in_a_file_marked_binary_is_caught_by_the_hook(
    hooked: Path, attribute: str
) -> None:
    token = fake_github_token()
    (hooked / ".gitattributes").write_text(attribute + "\n")
    (hooked / "notes").mkdir()
    (hooked / "notes/deploy.txt").write_text(f"first line\nexport TOKEN={token}\n")
    git(hooked, "add", ".")
    done = subprocess.run(
        ["git", "commit", "-m", "notes"], cwd=hooked, capture_output=True, text=True
    )
    output = done.stdout + done.stderr
    assert done.returncode != 0, output
    assert "notes/deploy.txt:2:14: github-pat" in output
    assert token not in output
    assert git(hooked, "rev-list", "--count", "HEAD").strip() == "1"


def test_only_added_lines_of_a_marked_file_are_scanned_at_their_lines(repo: Path, run: Run) -> None:
    token = fake_github_token()
    (repo / ".gitattributes").write_text("*.txt -diff\n")
    (repo / "a.txt").write_text("one\ntwo\n")
    git(repo, "add", ".")
    git(repo, "commit", "-qm", "base")
    (repo / "a.txt").write_text(f"one\ntwo\nthree {token}\n")
    git(repo, "add", "a.txt")
    result = run("scan", "--staged", "--json")
    assert result.code == 1
    findings = json.loads(result.out)["findings"]
    assert [(f["path"], f["line"], f["column"], f["rule"]) for f in findings] == [
        ("a.txt", 3, 7, "github-pat")
    ]
    assert token not in result.out


def test_a_really_binary_staged_file_is_still_skipped(repo: Path, run: Run) -> None:
    token = fake_github_token()
    (repo / "image.png").write_bytes(b"\x89PNG\x00\x00" + token.encode() + b"\x00")
    git(repo, "add", ".")
    result = run("scan", "--staged")
    assert result.code == 0, result.err
