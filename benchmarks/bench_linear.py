"""Linear time on pathological lines (issue 14), side by side with the peers in one run.

Each shape of tests/test_scan_linear.py (the inputs that were quadratic: a ``%2F`` before base64,
``://`` before a run of letters, zero-width characters, half-written URLs, unterminated quotes,
token-shaped runs…) is built at 50 KB and at 200 KB. gitmem's scan runs in-process on both
(``scan_text`` with hidden-Unicode detection, thread CPU time, best of --runs), and the ratio shows
how the work grows for 4x the input. Then the 200 KB input is written to a file of its own and
scanned by the gitmem CLI and by the peers found on PATH (betterleaks, kingfisher), wall time of the
whole process, start-up included.

Goals: a 200 KB pathological line under 1 s; 4x the input never more than 5x the time.

    python benchmarks/bench_linear.py [--runs 3] [--no-peers]
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from benchmarks.bench_realcode import SCANNERS, Location, _tool
from tests.test_scan_linear import CASES, scan_cpu

SMALL, LARGE = 50_000, 200_000


def wall(scan: Callable[[Path, Path], list[Location]], tree: Path, out: Path) -> float:
    start = time.perf_counter()
    scan(tree, out)
    return time.perf_counter() - start


def main() -> None:
    import fair  # (benchmarks/, this script's folder)

    fair.bytecode()
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument(
        "--runs", type=int, default=3, help="in-process runs per size (the least CPU time is kept)"
    )
    parser.add_argument("--no-peers", action="store_true", help="only gitmem's in-process figures")
    args = parser.parse_args()
    peers = {} if args.no_peers else {name: scan for name, scan in SCANNERS.items() if _tool(name)}
    load = os.getloadavg()
    print(f"load average {load[0]:.1f} / {load[1]:.1f} / {load[2]:.1f} on {os.cpu_count()} CPUs")
    header = f"{'shape':<44} {'50 KB s':>8} {'200 KB s':>9} {'ratio':>6}"
    header += "".join(f" {name + ' s':>14}" for name in peers)
    print(header)
    worst_ratio, worst_time = 0.0, 0.0
    with tempfile.TemporaryDirectory() as tmp:
        for number, (name, make) in enumerate(sorted(CASES.items())):
            small, large = make(SMALL), make(LARGE)
            small_time, large_time = scan_cpu(small, args.runs), scan_cpu(large, args.runs)
            ratio = large_time / max(small_time, 1e-4)
            worst_ratio, worst_time = max(worst_ratio, ratio), max(worst_time, large_time)
            row = f"{name[:44]:<44} {small_time:>8.3f} {large_time:>9.3f} {ratio:>5.1f}x"
            tree = Path(tmp) / f"case-{number}"
            out = Path(tmp) / f"out-{number}"
            tree.mkdir()
            out.mkdir()
            (tree / "line.txt").write_text(large, encoding="utf-8", errors="surrogateescape")
            for scan in peers.values():
                row += f" {wall(scan, tree, out):>14.3f}"
            print(row)
    print(
        f"gitmem: slowest 200 KB line {worst_time:.3f} s CPU (goal < 1 s); largest growth "
        f"for 4x {worst_ratio:.1f}x"
    )
    print(
        "(peers and the gitmem CLI: wall time of the whole process on the 200 KB file, "
        "start-up included)"
    )


if __name__ == "__main__":
    main()
