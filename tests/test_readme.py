"""The README stays true: its set-up commands are what CI runs, and it names every command."""

from __future__ import annotations

import re
from pathlib import Path

from gitmem.commands.cli import COMMANDS

ROOT = Path(__file__).resolve().parent.parent
README = (ROOT / "README.md").read_text(encoding="utf-8")
INTERNAL = {"merge-driver"}  # run by git, never by a person: documented in docs/team.md


def _code_blocks() -> list[str]:
    return re.findall(r"```sh\n(.*?)```", README, re.DOTALL)


def test_two_setup_commands() -> None:
    install, tests = _code_blocks()[:2]
    assert (
        install.strip() == "pip install . && cd /path/to/your/repo && gitmem init && gitmem compile"
    )
    assert (
        tests.strip()
        == 'pip install -e ".[test]" && python tests/clients/install.py && pytest -n auto'
    )
    ci = (ROOT / ".ci" / "run").read_text(encoding="utf-8")
    assert tests.strip() in ci


def test_every_command_is_in_the_readme() -> None:
    missing = [
        name for name in COMMANDS if name not in INTERNAL and f"`gitmem {name}" not in README
    ]
    assert missing == []


def test_every_linked_doc_exists() -> None:
    for link in re.findall(r"\]\((docs/[^)]+)\)", README):
        assert (ROOT / link).is_file(), link
