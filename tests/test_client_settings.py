"""A project's client settings that name other rules files (Gemini CLI's context.fileName): read by compile (what the
client reads, tests/compile/test_delivery.py) and by the prompt hook (what it has loaded already, here); a setting
that cannot be read names nothing."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from gitmem import yamlio
from gitmem.clientsettings import named_files, without_comments
from gitmem.gateway import find_project
from gitmem.hook.run import run
from gitmem.tools import BY_NAME
from tests.conftest import git, gitmem_command

SETTING = BY_NAME["gemini"].names_setting


@pytest.mark.parametrize(
    ("text", "names"),
    [
        ('{"context": {"fileName": ["AGENTS.md", "GEMINI.md"]}}', ["AGENTS.md", "GEMINI.md"]),
        ('{"context": {"fileName": "AGENTS.md"}}', ["AGENTS.md"]),
        (
            '{"context": {"fileName": ["../../etc/passwd", "NOTES.md", 3, "AGENTS.md"]}}',
            ["AGENTS.md"],
        ),
        ('{"context": "AGENTS.md"}', []),
        # comments, as Gemini CLI strips them; a "//" or "/*" inside a string is text
        (
            '{\n  // which files\n  "context": {/* both */ "fileName": ["AGENTS.md", "GEMINI.md"]}\n}',
            ["AGENTS.md", "GEMINI.md"],
        ),
        ('{"url": "https://x/*y", "context": {"fileName": "AGENTS.md"}} // end', ["AGENTS.md"]),
        ('{"a": "say \\"//\\" here", "context": {"fileName": "AGENTS.md"}}', ["AGENTS.md"]),
        ('{"context": {"fileName": "AGENTS.md"}} /* never closed', ["AGENTS.md"]),
        ("{not json", []),
        ("[" * 100_000 + "]" * 100_000, []),  # nested past the parser's depth
        ("\xff\xfe", []),
    ],
)
def test_the_names_a_setting_gives(tmp_path: Path, text: str, names: list[str]) -> None:
    git(tmp_path, "init", "-q")
    (tmp_path / ".gemini").mkdir()
    (tmp_path / ".gemini" / "settings.json").write_bytes(text.encode("utf-8", "surrogateescape"))
    assert SETTING is not None
    assert named_files(find_project(tmp_path), SETTING) == names


def test_a_setting_linked_outside_the_repository_is_not_read(tmp_path: Path) -> None:
    outside = tmp_path / "outside.json"
    outside.write_text('{"context": {"fileName": ["AGENTS.md"]}}', encoding="utf-8")
    repo = tmp_path / "repo"
    repo.mkdir()
    git(repo, "init", "-q")
    (repo / ".gemini").mkdir()
    (repo / ".gemini" / "settings.json").symlink_to(outside)
    assert SETTING is not None
    assert named_files(find_project(repo), SETTING) == []


def test_the_prompt_hook_counts_what_the_setting_has_gemini_load(tmp_path: Path) -> None:
    repo = tmp_path / "repo"
    repo.mkdir()
    git(repo, "init", "-q", "-b", "main")
    env = {**os.environ, "PATH": str(Path(sys.executable).parent) + os.pathsep + os.environ["PATH"]}
    for args in (["init", "--no-hooks", "--target", "agents", "--target", "gemini"],):
        assert (
            subprocess.run(
                [*gitmem_command(), *args], cwd=repo, capture_output=True, env=env
            ).returncode
            == 0
        )
    data = {
        "id": "pnpm",
        "title": "Use pnpm to install packages",
        "kind": "convention",
        "status": "active",
    }
    (repo / ".memory" / "memories" / "pnpm.yaml").write_text(yamlio.dump(data), encoding="utf-8")
    assert (
        subprocess.run(
            [*gitmem_command(), "compile"], cwd=repo, capture_output=True, env=env
        ).returncode
        == 0
    )
    (
        repo / "GEMINI.md"
    ).unlink()  # as compile leaves it once the setting names AGENTS.md: nothing for Gemini alone

    def ask(session: str) -> tuple[str, ...]:
        payload = {
            "session_id": session,
            "cwd": str(repo),
            "prompt": "How do I install packages with pnpm?",
        }
        return run("prompt", "gemini", json.dumps(payload).encode()).keys

    assert ask("before") == (
        "pnpm",
    )  # AGENTS.md is not among the files Gemini CLI reads by its record
    (repo / ".gemini").mkdir(exist_ok=True)
    (repo / ".gemini" / "settings.json").write_text(
        '{"context": {"fileName": ["AGENTS.md"]}}', encoding="utf-8"
    )
    assert ask("after") == ()  # it loads AGENTS.md, which holds the memory: nothing to inject


@pytest.mark.parametrize("unit", ['"', "/", "//\n", "/*", '"\\', '\\"'])
def test_stripping_comments_takes_linear_time(unit: str) -> None:
    from tests.cpu import least_cpu

    times = []
    for size in (50_000, 200_000):
        text = unit * size
        times.append(least_cpu(lambda text=text: without_comments(text)))
    assert times[1] < 0.5 and times[1] < 8 * times[0] + 0.05  # 4x the input, not 16x the time
