"""The field corpus, one row per layout (issue 30): what the team path leaves each client with.

For every layout of ``tests/field/layouts.json`` (29 public repositories' layouts, text generated)
this walks the team path of ``tests/field/team.py`` through gitmem's CLI and prints: the targets
`init` chose; how many times the two memories the team added on branches reach each client gitmem
serves after both merges, read from a fresh clone (once / twice / not); the hand-written lines still
in the team's files; `gitmem check` in a fresh clone after adoption (green / red); and the steps
that failed.

    python benchmarks/field_report.py                 # every layout, a Markdown table
    python benchmarks/field_report.py crush --json    # layouts whose name contains "crush", as JSON

It reports delivery, not speed (on stderr: each layout's wall and CPU time, what the walk costs in
CI). Runs in a temporary home, never touches yours.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent


def isolate(home: Path) -> None:
    """Run as the tests do: a fresh home, no system git config, a fixed author, gitmem on PATH."""
    os.environ.update(
        HOME=str(home),
        XDG_CONFIG_HOME=str(home / ".config"),
        XDG_CACHE_HOME=str(home / ".cache"),
        GIT_CONFIG_NOSYSTEM="1",
        GIT_AUTHOR_NAME="Field Report",
        GIT_AUTHOR_EMAIL="field@example.com",
        GIT_COMMITTER_NAME="Field Report",
        GIT_COMMITTER_EMAIL="field@example.com",
        PRE_COMMIT_HOME=str(home / "pre-commit"),
        PATH=str(Path(sys.executable).parent) + os.pathsep + os.environ.get("PATH", ""),
    )
    for name in ("GIT_DIR", "GIT_INDEX_FILE", "GIT_WORK_TREE", "GITMEM_DEBUG"):
        os.environ.pop(name, None)


def cpu_seconds() -> float:
    """CPU time of this process and of the processes it waited for (git, gitmem's hooks)."""
    own = resource.getrusage(resource.RUSAGE_SELF)
    children = resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + children.ru_utime + children.ru_stime


def team_cell(team: dict[str, list[int]]) -> str:
    """`once: a b · twice: c · not: d` for the two team memories (a client is 'once' only when
    both arrive once)."""
    groups: dict[str, list[str]] = {"once": [], "twice": [], "not": []}
    for client, counts in team.items():
        if all(n == 1 for n in counts):
            groups["once"].append(client)
        elif any(n > 1 for n in counts):
            groups["twice"].append(client)
        else:
            groups["not"].append(client)
    return " · ".join(f"{k}: {' '.join(v)}" for k, v in groups.items() if v) or "no client served"


def reason(step: str, detail: str) -> str:
    """A short label of the shape a failing step shows, for its xfail marker (issue 31: what git
    operations break)."""
    where = {
        "merge_a": "after merging memory branch a",
        "merge_b": "after merging memory branch b",
    }.get(step, "")
    where = where or {
        "revert": "after revert -m 1 of a memory merge",
        "clone": "in a fresh clone",
    }.get(step, "")
    where = where or {"check": "after adoption", "compile": "after adoption"}.get(step, step)
    if "limit:" in detail:
        return f"issue 30: {where}: compile fails, an AGENTS.md chain over 32 KiB"
    if "does not reach it" in detail:
        client = detail.split("error: ", 1)[-1].split(": memory", 1)[0]
        return f"issue 30: {where}: compile says a memory does not reach {client}"
    if "in what the clients read" in detail:
        return f"issue 30: {where}: check finds what the clients read differs"
    if "conflicts" in detail:
        return f"issue 31: {where}: conflicts"
    if "out of date" in detail:
        issue = 31 if step in ("merge_a", "merge_b", "revert") else 30
        return f"issue {issue}: {where}: rules files out of date, check red"
    if step in ("delivery", "delivery_revert"):
        wrong = sorted(
            {
                part.split(" gets ")[0] + (" not" if " 0x" in part else " twice")
                for part in detail.split("; ")
            }
        )
        if step == "delivery_revert" and all(" 1x (want 0)" in part for part in detail.split("; ")):
            return "issue 31: after the revert, the reverted memory still reaches the clients"
        return (
            f"issue 30: {'after the revert, ' if step == 'delivery_revert' else ''}memories "
            f"reach {', '.join(wrong)}"
        )
    if step == "explain":
        clients = sorted({part.split(":")[0].strip() for part in detail.split("; ")})
        return f"issue 30: explain differs from the files on disk for {', '.join(clients)}"
    if step == "handwritten":
        return "issue 30: hand-written text changed outside gitmem's block"
    return f"issue 30: {step} fails"


def row(data: dict[str, Any]) -> str:
    steps = data["steps"]
    failed = [name for name, (ok, _detail) in steps.items() if not ok]
    clone = "green" if steps["clone"][0] else "red"
    kept = f"{data['kept_lines']}/{data['total_lines']}"
    cells = [
        data["name"],
        ",".join(data["targets"]),
        team_cell(data["team"]),
        kept,
        clone,
        " ".join(failed) or "-",
    ]
    return "| " + " | ".join(cells) + " |"


def walk_one(layout: dict[str, Any], work: Path) -> dict[str, Any]:
    """One layout's walk (in a worker process with --jobs), its wall and CPU time on stderr."""
    from tests.field import build, team

    started, cpu = time.perf_counter(), cpu_seconds()
    folder = work / build.slug(layout["name"])
    folder.mkdir(parents=True)
    data = team.walk(layout, folder).to_json()
    wall, used = time.perf_counter() - started, cpu_seconds() - cpu
    print(
        f"{layout['name']}: {wall:.1f} s wall, {used:.1f} s CPU (with git and hooks)",
        file=sys.stderr,
    )
    return data


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("names", nargs="*", help="only layouts whose name contains one of these")
    parser.add_argument(
        "--jobs", type=int, default=1, help="walk this many layouts at once (processes)"
    )
    parser.add_argument(
        "--json", action="store_true", help="print every walk as JSON (steps with their details)"
    )
    parser.add_argument(
        "--details", action="store_true", help="under the table, each failed step's one line"
    )
    parser.add_argument(
        "--markers",
        action="store_true",
        help="print tests/field/known.py's table for the steps failing now",
    )
    args = parser.parse_args()
    sys.path.insert(0, str(ROOT))
    work = Path(tempfile.mkdtemp(prefix="field-report-"))
    isolate(work / "home")
    from tests.field import build

    layouts = [
        layout
        for layout in build.load()
        if not args.names or any(n in layout["name"] for n in args.names)
    ]
    if args.jobs > 1:
        from concurrent.futures import ProcessPoolExecutor

        with ProcessPoolExecutor(args.jobs) as pool:
            walks = list(pool.map(walk_one, layouts, [work] * len(layouts)))
    else:
        walks = [walk_one(layout, work) for layout in layouts]
    if args.json:
        print(json.dumps(walks, indent=1))
        return 0
    if args.markers:
        for data in walks:
            for step, (ok, detail) in data["steps"].items():
                if not ok:
                    print(f"    {data['name'] + ' ' + step!r}: {reason(step, detail)!r},")
        return 0
    print(
        "| layout | targets | team memories after 2 merges (per client) | hand-written "
        "lines kept |",
        end="",
    )
    print(" check in fresh clone | steps failing |")
    print("|---|---|---|---|---|---|")
    for data in walks:
        print(row(data))
    if args.details:
        for data in walks:
            for name, (ok, detail) in data["steps"].items():
                if not ok:
                    print(f"- {data['name']} {name}: {detail}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
