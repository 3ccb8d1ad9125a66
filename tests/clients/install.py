"""Install the AI clients the client tests drive, pinned, into tests/.clients (git-ignored), from npm (and aider from
PyPI, into its own virtualenv there).

Idempotent: a second run with every pinned version present does nothing (``npm ls`` is not run; the versions are
read from the installed package.json files). CI runs it before the tests (.ci/run); run it by hand for a local run of
the client tests: ``python tests/clients/install.py`` (then ``pytest -m clients``).
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent / ".clients"
BIN = ROOT / "node_modules" / ".bin"
AIDER_VENV = ROOT / "aider"
AIDER = AIDER_VENV / "bin" / "aider"
AIDER_VERSION = "0.86.2"  # aider-chat on PyPI: its own virtualenv, so its many pins never meet the test environment's
# Copilot's native binary unpacks itself (about 240 MB) into $XDG_CACHE_HOME/copilot/pkg on its first run. Unpacked
# here once, and linked into each test's home by the driver, it is not unpacked again into every test's home (which
# took 3.3 GB of /tmp per run of the suite).
COPILOT_PKG = ROOT / "cache" / "copilot" / "pkg"

# Pinned: what docs/clients.md reports was measured with these. node@22 gives a Node 22 for the clients that want
# it (Qwen Code); the machine's own Node (20) is enough for the others, and Claude Code and opencode ship binaries.
PACKAGES = {
    "node": "22.23.3",
    "@anthropic-ai/claude-code": "2.1.332",
    "@openai/codex": "0.171.0",
    "@google/gemini-cli": "0.61.0",
    "opencode-ai": "1.18.33",
    # opencode's own version of it: opencode installs it with npm into each of its config directories unless it is
    # there, so the driver puts this copy there (tests/clients/drivers.py) and no test downloads it.
    "@opencode-ai/plugin": "1.18.33",
    "@qwen-code/qwen-code": "0.24.4",
    "@github/copilot": "1.0.102",
    "cline": "3.0.65",
    "recheck": "4.5.0",  # not a client: the ReDoS checker tests/test_patterns.py proves patterns safe with
}


def installed(package: str) -> str | None:
    manifest = ROOT / "node_modules" / package / "package.json"
    try:
        return str(json.loads(manifest.read_text(encoding="utf-8")).get("version"))
    except (OSError, ValueError):
        return None


def aider_installed() -> bool:
    return (AIDER_VENV / "lib").is_dir() and any(
        (site / f"aider_chat-{AIDER_VERSION}.dist-info").is_dir()
        for site in (AIDER_VENV / "lib").glob("*/site-packages")
    )


def missing() -> list[str]:
    npm = [f"{name}@{version}" for name, version in PACKAGES.items() if installed(name) != version]
    return npm + ([] if aider_installed() else [f"aider-chat=={AIDER_VERSION}"])


def install_aider() -> int:
    if aider_installed():
        return 0
    print(f"clients: aider-chat=={AIDER_VERSION} into {AIDER_VENV}")
    made = subprocess.run([sys.executable, "-m", "venv", "--clear", str(AIDER_VENV)], check=False)
    if made.returncode != 0:
        return made.returncode
    pip = [
        str(AIDER_VENV / "bin" / "python"),
        "-m",
        "pip",
        "install",
        "--quiet",
        f"aider-chat=={AIDER_VERSION}",
    ]
    return subprocess.run(pip, check=False).returncode


def unpack_copilot() -> int:
    """Let Copilot unpack its native binary into COPILOT_PKG (a second run finds it there and writes nothing)."""
    cache = COPILOT_PKG.parent.parent
    env = {**os.environ, "HOME": str(cache), "XDG_CACHE_HOME": str(cache)}
    version = [str(BIN / "copilot"), "--version"]
    return subprocess.run(version, env=env, capture_output=True, check=False).returncode


def install_npm() -> int:
    wanted = [item for item in missing() if not item.startswith("aider-chat")]
    if not wanted:
        print(f"clients: all {len(PACKAGES)} pinned packages present in {ROOT}")
        return 0
    npm = shutil.which("npm")
    if npm is None:
        print(
            "clients: npm is not installed: install Node.js and npm, then run this again",
            file=sys.stderr,
        )
        return 1
    ROOT.mkdir(parents=True, exist_ok=True)
    if not (ROOT / "package.json").exists():
        (ROOT / "package.json").write_text('{"private": true}\n', encoding="utf-8")
    command = [
        npm,
        "install",
        "--prefix",
        str(ROOT),
        "--no-audit",
        "--no-fund",
        "--loglevel=error",
        *wanted,
    ]
    print("clients: " + " ".join(command[1:]))
    return subprocess.run(command, check=False).returncode


def install() -> int:
    code = install_aider() or install_npm()
    return code or unpack_copilot()


if __name__ == "__main__":
    sys.exit(install())
