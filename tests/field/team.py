"""The team path on one field layout, as a new user walks it through gitmem's CLI, step by step.

``walk(layout, workdir)`` builds the layout (tests/field/build.py), then: `gitmem init`, `gitmem import --accept`,
`gitmem compile`, a commit, `gitmem check`, `gitmem explain --json` for every client gitmem serves (compared with
what tests/field/reach.py reads from the disk), `gitmem check` in a fresh `git clone`, two memory branches (each
`gitmem add` + `gitmem compile` + commit) merged one after the other into main with `check` after each, the
memories' delivery read from a fresh clone, `git revert -m 1` of the first merge with `check` and delivery again,
and the team's hand-written bytes outside gitmem's block compared with what was built. Each step gives a `Step`
(ok, and one line saying what went wrong); a failing step does not stop the later ones where they can still run.

gitmem runs in-process (``gitmem.commands.cli.main``, the console script's code path); commits use `--no-verify` (the
pre-commit hooks `init` installs would run `gitmem` as a process per commit; `check` after each step covers them).
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from click.testing import CliRunner

from gitmem.commands.cli import main
from tests.field import build, reach

STEPS = (
    "init",
    "import",
    "compile",
    "check",
    "explain",
    "clone",
    "merge_a",
    "merge_b",
    "delivery",
    "revert",
    "delivery_revert",
    "handwritten",
)
MEMORY_A = "field-memory-from-branch-a"
MEMORY_B = "field-memory-from-branch-b"


@dataclass
class Step:
    ok: bool
    detail: str = ""


@dataclass
class Walk:
    name: str
    steps: dict[str, Step] = field(default_factory=dict)
    targets: list[str] = field(default_factory=list)
    # per served client: how many of the unscoped active memories reach it once / twice or more / not
    reach: dict[str, dict[str, int]] = field(default_factory=dict)
    # per served client after the merges: how many times memory A and B reach it (read in a fresh clone)
    team: dict[str, list[int]] = field(default_factory=dict)
    kept_lines: int = 0
    total_lines: int = 0

    def to_json(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "steps": {k: [v.ok, v.detail] for k, v in self.steps.items()},
            "targets": self.targets,
            "reach": self.reach,
            "team": self.team,
            "kept_lines": self.kept_lines,
            "total_lines": self.total_lines,
        }


@dataclass
class Out:
    code: int
    out: str
    err: str


@contextmanager
def inside(folder: Path) -> Iterator[None]:
    before = Path.cwd()
    os.chdir(folder)
    try:
        yield
    finally:
        os.chdir(before)


def gitmem(folder: Path, *args: str) -> Out:
    """gitmem in-process in ``folder``: (exit code, stdout, stderr)."""
    runner = CliRunner()
    with inside(folder), runner.isolation() as streams:
        try:
            code = main(list(args))
        except SystemExit as stop:  # a command that exits on its own
            code = stop.code if isinstance(stop.code, int) else 1
        sys.stdout.flush()
        sys.stderr.flush()
    return Out(code, streams[0].getvalue().decode(), streams[1].getvalue().decode())


def git(folder: Path, *args: str, check: bool = True) -> subprocess.CompletedProcess[str]:
    done = subprocess.run(["git", *args], cwd=folder, capture_output=True, text=True, check=False)
    if check and done.returncode:
        raise RuntimeError(f"git {' '.join(args)}: {done.stderr.strip() or done.stdout.strip()}")
    return done


def first_line(out: Out) -> str:
    """The line that says what went wrong (an error, or the first check not ok), for a step's one-line detail."""
    lines = [
        " ".join(line.split()) for line in (out.err + "\n" + out.out).splitlines() if line.strip()
    ]
    errors = [
        line for line in lines if line.startswith("error") or re.match(r"^\S+:\d+:\d+: ", line)
    ]
    checks = [
        line
        for line in lines
        if len(line.split()) > 2 and line.split()[1] in ("FAIL", "FAILED", "failed")
    ]
    others = [line for line in lines if not line.startswith("warning")]
    return (errors or checks or others or lines or [""])[0][:200]


def exited(out: Out, what: str) -> Step:
    return Step(
        out.code == 0, "" if out.code == 0 else f"{what} exit {out.code}: {first_line(out)}"
    )


def commit(root: Path, message: str) -> None:
    git(root, "add", "-A")
    git(root, "commit", "-q", "--no-verify", "--allow-empty", "-m", message)


def targets(root: Path) -> list[str]:
    text = (
        (root / ".memory" / "config.yaml").read_text(encoding="utf-8")
        if (root / ".memory").is_dir()
        else ""
    )
    for line in text.splitlines():
        if line.startswith("targets:"):
            value = line.split(":", 1)[1].strip().strip("[]")
            return [t.strip() for t in value.split(",") if t.strip()]
    return []


def unscoped_ids(root: Path) -> list[str]:
    """Active memories without `paths` (those every client started at the root should get)."""
    out = []
    for path in sorted((root / ".memory" / "memories").glob("*.yaml")):
        text = path.read_text(encoding="utf-8")
        if "\nstatus: active" in "\n" + text and "\npaths:" not in "\n" + text:
            out.append(path.stem)
    return out


def clone_of(root: Path, into: Path) -> Path:
    if into.exists():
        subprocess.run(["rm", "-rf", str(into)], check=True)
    git(root.parent, "clone", "-q", str(root), str(into))
    return into


def tracked_tree(root: Path, into: Path) -> Path:
    """What a fresh clone of ``root``'s HEAD holds (tracked files and links only), without a clone's cost."""
    import io
    import shutil
    import tarfile

    if into.exists():
        shutil.rmtree(into)
    into.mkdir(parents=True)
    data = subprocess.run(
        ["git", "archive", "--format=tar", "HEAD"], cwd=root, capture_output=True, check=True
    )
    with tarfile.open(fileobj=io.BytesIO(data.stdout)) as archive:
        archive.extractall(into, filter="tar")
    return into


def check_in(folder: Path) -> Step:
    return exited(gitmem(folder, "check"), "check")


def walk(layout: dict[str, Any], workdir: Path) -> Walk:
    """The team path on ``layout`` under ``workdir`` (a fresh folder)."""
    result = Walk(layout["name"])
    root = build.build(layout, workdir / "repo")
    built = {
        item["path"]: (root / item["path"]).read_bytes()
        for item in layout["files"]
        if "link" not in item
    }
    steps = result.steps
    steps["init"] = exited(gitmem(root, "init"), "init")
    steps["import"] = exited(gitmem(root, "import", "--accept"), "import --accept")
    steps["compile"] = adopt(root)
    commit(root, "adopt gitmem")
    steps["check"] = check_in(root)
    result.targets = targets(root)
    clients = reach.served(result.targets)
    steps["explain"] = explain_agrees(root, clients)
    ids = unscoped_ids(root)
    for client in clients:
        counts = reach.reached(root, client, ids)
        result.reach[client] = {
            "once": sum(1 for n in counts.values() if n == 1),
            "twice": sum(1 for n in counts.values() if n > 1),
            "not": sum(1 for n in counts.values() if n == 0),
        }
    steps["clone"] = check_in(clone_of(root, workdir / "clone"))
    merge_a = branches(root, steps)
    clone = tracked_tree(root, workdir / "tracked")
    steps["delivery"], result.team = delivered(clone, clients, {MEMORY_A: 1, MEMORY_B: 1})
    if merge_a:
        done = git(root, "revert", "-m", "1", "--no-edit", merge_a, check=False)
        if done.returncode:
            conflicts = git(
                root, "diff", "--name-only", "--diff-filter=U", check=False
            ).stdout.split()
            git(root, "revert", "--abort", check=False)
            steps["revert"] = Step(
                False, f"git revert -m 1 conflicts in {', '.join(conflicts) or '?'}"
            )
        else:
            steps["revert"] = check_in(root)
    else:
        steps["revert"] = Step(False, "no merge of branch a to revert")
    clone = tracked_tree(root, workdir / "tracked")
    steps["delivery_revert"], _ = delivered(clone, clients, {MEMORY_A: 0, MEMORY_B: 1})
    steps["handwritten"], result.kept_lines, result.total_lines = handwritten(root, built)
    return result


ADOPTION = ("import", "--accept", "--move", "--left-out")


def adopt(root: Path) -> Step:
    """`gitmem compile`; where it names the adoption path (`import --accept --move --left-out`) for a hand-written
    file over a client's limit, a new user follows it and compiles again: where compile fails, as it names it; where
    it writes and warns that `gitmem check` fails until then (the team's own text alone is past the limit), the
    command it names for that file."""
    out = gitmem(root, "compile")
    said = out.out + out.err
    named = re.search(
        r"`gitmem (" + " ".join(ADOPTION) + r" [^`]+)`[^\n]*; `gitmem check` fails until then", said
    )
    if named and not out.code:
        command = tuple(named.group(1).split())
        moved = gitmem(root, *command)
        return exited(moved, " ".join(command))
    if out.code and " ".join(ADOPTION) in said:
        moved = gitmem(root, *ADOPTION)
        if moved.code:
            return exited(moved, " ".join(ADOPTION))
        return exited(gitmem(root, "compile"), "compile after " + " ".join(ADOPTION))
    return exited(out, "compile")


def branches(root: Path, steps: dict[str, Step]) -> str | None:
    """Two memory branches from main, each `gitmem add` + compile + commit, merged one after the other."""
    for branch, mid in (("memory-a", MEMORY_A), ("memory-b", MEMORY_B)):
        git(root, "checkout", "-q", "-b", branch, "main")
        title = f"Field corpus rule from {branch}: run the {branch.replace('-', ' ')} checks before pushing"
        added = gitmem(
            root, "add", title, "--id", mid, "--priority", "high", "--body", f"Set by {branch}."
        )
        compiled = gitmem(root, "compile")
        if added.code or compiled.code:
            problem = added if added.code else compiled
            steps[f"merge_{branch[-1]}"] = exited(problem, "add" if added.code else "compile")
        commit(root, f"memory {mid}")
        git(root, "checkout", "-q", "main")
    merge_a = None
    for branch in ("memory-a", "memory-b"):
        key = f"merge_{branch[-1]}"
        done = git(root, "merge", "--no-ff", "--no-edit", branch, check=False)
        if done.returncode:
            conflicts = git(
                root, "diff", "--name-only", "--diff-filter=U", check=False
            ).stdout.split()
            steps.setdefault(
                key, Step(False, f"git merge {branch} conflicts in {', '.join(conflicts) or '?'}")
            )
            git(root, "merge", "--abort", check=False)
            continue
        if branch == "memory-a":
            merge_a = git(root, "rev-parse", "HEAD").stdout.strip()
        steps.setdefault(key, check_in(root))
    return merge_a


def delivered(
    clone: Path, clients: list[str], want: dict[str, int]
) -> tuple[Step, dict[str, list[int]]]:
    """Whether each served client, started at the root of a fresh clone, gets each memory ``want`` times."""
    wrong = []
    seen: dict[str, list[int]] = {}
    for client in clients:
        counts = reach.reached(clone, client, want)
        seen[client] = [counts[mid] for mid in want]
        for mid, n in want.items():
            if counts[mid] != n:
                wrong.append(f"{client} gets {mid[-8:]} {counts[mid]}x (want {n})")
    return Step(not wrong, "; ".join(wrong)), seen


def explain_agrees(root: Path, clients: list[str]) -> Step:
    """`gitmem explain --client NAME --json` for every served client: it runs, and the memories it says reach the
    client at start are those the client's files on disk hold."""
    wrong = []
    for client in clients:
        out = gitmem(root, "explain", "--client", client, "--json")
        if out.code:
            wrong.append(f"explain --client {client} exit {out.code}")
            continue
        try:
            data = json.loads(out.out)
        except ValueError:
            wrong.append(f"explain --client {client}: not JSON")
            continue
        said: set[str] = set()
        for entry in data.get("clients", []):
            for item in [*entry.get("full", []), *entry.get("index", [])]:
                said.add(item["id"] if isinstance(item, dict) else str(item))
        on_disk = {mid for mid, n in reach.reached(root, client, unscoped_ids(root)).items() if n}
        said &= set(unscoped_ids(root))
        if said != on_disk:
            wrong.append(f"{client}: explain {len(said)}, on disk {len(on_disk)}")
    return Step(not wrong, "; ".join(wrong))


BEGIN = b"<!-- gitmem:begin"
END = b"<!-- gitmem:end -->"


def without_block(data: bytes) -> bytes:
    """``data`` with gitmem's managed block (its marker lines included, and the line break gitmem adds before it)
    taken out."""
    start = data.find(BEGIN)
    if start < 0:
        return data
    end = data.find(END, start)
    end = len(data) if end < 0 else end + len(END)
    if data[end : end + 1] == b"\n":
        end += 1
    head = data[:start]
    if head.endswith(b"\n\n"):
        head = head[:-1]
    return head + data[end:]


def handwritten(root: Path, built: dict[str, bytes]) -> tuple[Step, int, int]:
    """Every file the team wrote is still there, and outside gitmem's block holds the team's lines in their order,
    none changed or added (a rule line the adoption path moved into a memory may be gone; headings, code and
    frontmatter may not). Also: how many of the team's lines are still there."""
    changed, kept, total = [], 0, 0
    for path, before in built.items():
        now_path = root / path
        if not now_path.is_file():
            changed.append(f"{path} (deleted)")
            total += len(before.splitlines())
            continue
        now = without_block(now_path.read_bytes())
        lines = before.splitlines()
        total += len(lines)
        if now == before or now.rstrip(b"\n") == before.rstrip(b"\n"):
            kept += len(lines)
            continue
        left, problem = subsequence(lines, now.splitlines())
        kept += left
        if problem:
            changed.append(f"{path} ({problem})")
    detail = f"hand-written text changed: {', '.join(changed[:4])}" if changed else ""
    return Step(not changed, detail), kept, total


def subsequence(before: list[bytes], now: list[bytes]) -> tuple[int, str]:
    """How many lines of ``before`` are in ``now`` in order, and what is wrong if ``now`` is not ``before`` with
    only whole rule lines taken out ("" when it is)."""
    i = 0
    in_code = False
    for line in before:
        if i < len(now) and now[i] == line:
            i += 1
        else:
            structural = line.lstrip().startswith((b"#", b"```", b"~~~", b"---", b"|")) or in_code
            if structural:
                return i, f"line {line[:30]!r} lost"
        if line.lstrip().startswith((b"```", b"~~~")):
            in_code = not in_code
    if i < len(now):
        extra = [line for line in now[i:] if line.strip()]
        if extra:
            return i, f"line {extra[0][:30]!r} added"
    return i, ""
