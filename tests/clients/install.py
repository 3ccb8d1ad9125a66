"""Install the AI clients the client tests drive, pinned, into tests/.clients (git-ignored), from npm.

Idempotent: a second run with every pinned version present does nothing (``npm ls`` is not run; the versions are
read from the installed package.json files). CI runs it before the tests (.ci/run); run it by hand for a local run of
the client tests: ``python tests/clients/install.py`` (then ``pytest -m clients``).
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent / ".clients"
BIN = ROOT / "node_modules" / ".bin"

# Pinned: what docs/clients.md reports was measured with these. node@22 gives a Node 22 for the clients that want
# it (Qwen Code); the machine's own Node (20) is enough for the others, and Claude Code and opencode ship binaries.
PACKAGES = {
    "node": "22.23.3",
    "@anthropic-ai/claude-code": "2.1.332",
    "@openai/codex": "0.171.0",
    "@google/gemini-cli": "0.61.0",
    "opencode-ai": "1.18.33",
    "@qwen-code/qwen-code": "0.24.4",
    "@github/copilot": "1.0.102",
    "cline": "3.0.65",
}


def installed(package: str) -> str | None:
    manifest = ROOT / "node_modules" / package / "package.json"
    try:
        return str(json.loads(manifest.read_text(encoding="utf-8")).get("version"))
    except (OSError, ValueError):
        return None


def missing() -> list[str]:
    return [f"{name}@{version}" for name, version in PACKAGES.items() if installed(name) != version]


def install() -> int:
    wanted = missing()
    if not wanted:
        print(f"clients: all {len(PACKAGES)} pinned packages present in {ROOT}")
        return 0
    npm = shutil.which("npm")
    if npm is None:
        print("clients: npm is not installed: install Node.js and npm, then run this again", file=sys.stderr)
        return 1
    ROOT.mkdir(parents=True, exist_ok=True)
    if not (ROOT / "package.json").exists():
        (ROOT / "package.json").write_text('{"private": true}\n', encoding="utf-8")
    command = [npm, "install", "--prefix", str(ROOT), "--no-audit", "--no-fund", "--loglevel=error", *wanted]
    print("clients: " + " ".join(command[1:]))
    return subprocess.run(command, check=False).returncode


if __name__ == "__main__":
    sys.exit(install())
