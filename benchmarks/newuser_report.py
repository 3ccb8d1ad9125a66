"""A new user's first gitmem run on real repositories' trees, and what it leaves on the disk.

For every tree under --root (default /work/realcode, where ``bench_realcode.py`` extracts the
trees of benchmarks/realcode_repos.txt) that holds a rules file (``AGENTS.md``, ``CLAUDE.md``,
``GEMINI.md``, ``WARP.md``, ``.cursorrules``, ``.github/copilot-instructions.md``, four folders
deep at most), a copy is made a git repository of one commit, and then, as the README says:
``gitmem init``, two memories (one for the whole project, one for the first folder of code holding
a rules file), ``gitmem compile``, ``compile --check`` and ``gitmem check``. Then the disk: no
tracked file may be deleted, and every tracked rules file that changed must be its old text with
gitmem's block added, nothing else.

Each tree gets one line: green (every step passed, the disk as it should be) or red, with each
failing step's first line (what check says, and the fix it names). A red tree is not always
gitmem's defect: a hand-written file past a client's hard limit is the team's to shorten, and
check says so.

    python benchmarks/newuser_report.py                    # every tree with a rules file
    python benchmarks/newuser_report.py rallly gotenberg   # those trees only

It reports outcomes, not speed. Runs in a temporary home, never touches yours or the trees.
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from benchmarks.field_report import isolate
from gitmem.compile import block

RULES = (
    "AGENTS.md",
    "CLAUDE.md",
    "GEMINI.md",
    "WARP.md",
    ".cursorrules",
    "copilot-instructions.md",
)
DEPTH = 4
# files init may edit outside the rules files: its hooks, the merge driver's attributes, ignores
SETUP = (".gitignore", ".pre-commit-config.yaml", ".gitattributes")


def rules_files(tree: Path) -> list[str]:
    """The rules files of ``tree``, four folders deep at most, as paths relative to it."""
    found = []
    for folder, dirs, files in os.walk(tree):
        depth = len(Path(folder).relative_to(tree).parts)
        dirs[:] = [] if depth >= DEPTH else [d for d in dirs if d != ".git"]
        found += [str(Path(folder, name).relative_to(tree)) for name in files if name in RULES]
    return sorted(found)


def _run(cwd: Path, *args: str) -> tuple[int, str]:
    done = subprocess.run(args, cwd=cwd, capture_output=True, text=True, check=False)
    return done.returncode, done.stdout + done.stderr


def gitmem(cwd: Path, *args: str) -> tuple[int, str]:
    return _run(cwd, sys.executable, "-m", "gitmem", *args)


def _folder(found: list[str]) -> str:
    """The first folder of code holding a rules file (not a tool's own, .github/ or .claude/): where
    a team scopes a memory."""
    nested = [Path(path).parent for path in found if "/" in path]
    code = [str(folder) for folder in nested if not any(p.startswith(".") for p in folder.parts)]
    return code[0] if code else ""


def _disk(repo: Path) -> list[str]:
    """What the run did to the tracked files that it should not have: a file deleted, or a rules
    file changed outside gitmem's block."""
    faults = []
    _, listing = _run(repo, "git", "diff", "--name-status", "HEAD")
    for line in listing.splitlines():
        status, path = line.split("\t", 1)
        if status.startswith("D"):
            faults.append(f"deleted {path}")
        elif status.startswith("M") and path not in SETUP:
            _, old = _run(repo, "git", "show", f"HEAD:{path}")
            new = (repo / path).read_text(encoding="utf-8", errors="replace")
            found = block.found_in(new)
            rest = new if found is None else found.before + found.after
            if rest.strip() != old.strip():
                faults.append(f"changed {path} outside gitmem's block")
    return faults


def first_run(tree: Path, work: Path) -> tuple[bool, list[str]]:
    """A new user's run on a copy of ``tree``: whether it is green, and what failed."""
    repo = work / tree.name
    shutil.copytree(tree, repo, symlinks=True)
    for step in (
        ("init", "-q", "-b", "main"),
        ("add", "-A"),
        ("commit", "-qm", "t", "--no-verify"),
    ):
        _run(repo, "git", *step)
    found = rules_files(repo)
    steps = [("init", gitmem(repo, "init"))]
    gitmem(repo, "add", "Use the project's own test runner")
    if folder := _folder(found):
        gitmem(repo, "add", "Run the folder's own tests first", "--path", f"{folder}/**")
    steps += [("compile", gitmem(repo, "compile")), ("--check", gitmem(repo, "compile", "--check"))]
    _run(repo, "git", "add", "-A")
    steps.append(("check", gitmem(repo, "check")))
    faults = [f"{name} exit {code}: {_said(out)}" for name, (code, out) in steps if code]
    faults += _disk(repo)
    shutil.rmtree(repo, ignore_errors=True)
    return not faults, faults


def _said(out: str) -> str:
    """The first line that says why: check's first failed check's first detail, else the first."""
    lines = [line.strip() for line in out.splitlines() if line.strip()]
    for at, line in enumerate(lines):
        if "FAILED" in line and at + 1 < len(lines):
            return lines[at + 1]
    return next((line for line in lines if line.startswith("error")), lines[0] if lines else "")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("names", nargs="*", help="trees under --root (default: every one)")
    parser.add_argument("--root", type=Path, default=Path("/work/realcode"))
    args = parser.parse_args()
    trees = [args.root / name for name in args.names] or sorted(
        path for path in args.root.iterdir() if path.is_dir() and rules_files(path)
    )
    green = 0
    with tempfile.TemporaryDirectory() as temp:
        isolate(Path(temp) / "home")
        for tree in trees:
            with tempfile.TemporaryDirectory(dir=temp) as work:
                ok, faults = first_run(tree, Path(work))
            green += ok
            print(f"{'green' if ok else 'red  '} {tree.name}", flush=True)
            for fault in faults:
                print(f"      {fault[:400]}", flush=True)
    print(f"{green} of {len(trees)} trees green")
    return 0


if __name__ == "__main__":
    sys.exit(main())
