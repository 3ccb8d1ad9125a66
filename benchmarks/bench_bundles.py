"""Minified bundles, scanned whole: gitmem side by side with betterleaks and kingfisher, in one run.

The AI clients that tests/clients installs (``python tests/clients/install.py``) ship their code as
minified JavaScript: one line of megabytes, where every ``name:"value"`` of an object is a
candidate for the generic rule once a credential's word is near (round 49: cline's bundles
scanned at 0.3 MB/s). Each file of 2 MB or more under tests/.clients is copied into a tree of its
own and scanned as bench_realcode.py scans a repository: wall time (median of --runs), throughput
from wall time, and the places each scanner reports a secret (never the values; gitmem's
hidden-Unicode findings apart, in the totals: the peers do not look for them).

Usage:  python benchmarks/bench_bundles.py [--runs 3] [--base DIR] [--least-mb 2]
``--base DIR``: another checkout of gitmem too (PYTHONPATH=DIR), in the same run.
"""

from __future__ import annotations

import argparse
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from bench_realcode import SCANNERS, Counts, _tool, base_scanner  # noqa: E402

CLIENTS = HERE.parent / "tests" / ".clients"


def bundles(least: int) -> list[Path]:
    """The clients' JavaScript files of ``least`` bytes or more, largest first (each copy once)."""
    seen: set[int] = set()
    found = []
    for path in sorted(CLIENTS.rglob("*.js"), key=lambda p: -p.stat().st_size):
        size = path.stat().st_size
        if size >= least and path.is_file() and size not in seen:
            seen.add(size)
            found.append(path)
    return found


def main() -> None:
    import fair  # (benchmarks/, this script's folder)

    fair.bytecode()
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--base", type=Path)
    parser.add_argument("--least-mb", type=float, default=2.0)
    args = parser.parse_args()
    scanners = {name: scan for name, scan in SCANNERS.items() if _tool(name)}
    if args.base is not None:
        scanners = {"gitmem": scanners["gitmem"], "gitmem-base": base_scanner(args.base)} | {
            name: scan for name, scan in scanners.items() if name != "gitmem"
        }
    files = bundles(int(args.least_mb * 1e6))
    if not files:
        raise SystemExit(f"no bundle under {CLIENTS}: run python tests/clients/install.py first")
    print(
        f"{'bundle':44} {'MB':>5}"
        + "".join(f" | {name:>11} {'s':>6} {'MB/s':>5}" for name in scanners)
    )
    totals = dict.fromkeys(scanners, 0.0)
    found = dict.fromkeys(scanners, Counts())
    size_total = 0.0
    with tempfile.TemporaryDirectory() as work_dir:
        work = Path(work_dir)
        for source in files:
            tree = work / "tree"
            tree.mkdir()
            shutil.copyfile(source, tree / source.name)
            size = source.stat().st_size / 1e6
            size_total += size
            row = f"{str(source.relative_to(CLIENTS))[-44:]:44} {size:5.1f}"
            for name, scan in scanners.items():
                out = work / "out"
                out.mkdir(exist_ok=True)
                walls, counts = [], Counts()
                for _ in range(args.runs):
                    start = time.perf_counter()
                    counts = Counts.of(scan(tree, out))
                    walls.append(time.perf_counter() - start)
                wall = statistics.median(walls)
                totals[name] += wall
                found[name] += counts
                row += f" | {counts.secrets:11d} {wall:6.2f} {size / wall:5.1f}"
            print(row, flush=True)
            shutil.rmtree(tree)
    print(f"all {len(files)} bundles, {size_total:.0f} MB:")
    for name, wall in totals.items():
        speed = f"{wall:7.1f} s  {size_total / wall:5.1f} MB/s"
        print(f"  {name:12s} {speed}  {found[name].secrets} secrets, {found[name].hidden} hidden")


if __name__ == "__main__":
    main()
