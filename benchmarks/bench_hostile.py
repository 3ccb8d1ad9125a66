"""Benchmark hostile memory files: how long checking one takes (what validate, add, propose, compile and the MCP
server do to every file), for the worst inputs found for issue 13, next to an ordinary file of the same size.

    python benchmarks/bench_hostile.py [--runs 5]

Then the file-system attacks of issue 22 (benchmarks/hostile_files.py): committed links to /dev/zero and into the
home folder, huge files, a memory scoped to .git/hooks/**, each as a new gitmem process beside the same command on
a benign repository, as ratios of time and peak memory.

Each hostile file is as large as gitmem accepts (just under 64 KiB) and is compared with an ordinary memory of
the same size (the peer). Goal: no hostile input costs more than a few times its peer (linear time, no blow-up).
"""

from __future__ import annotations

import argparse
import json
import time
from collections.abc import Callable

import hostile_files

from gitmem.memory.braces import count
from gitmem.recall.globs import matches
from gitmem.schema import MAX_FILE_BYTES, check_memory

HEAD = "id: x\ntitle: T\nkind: fact\nstatus: active\n"


def body_file(body: str) -> bytes:
    return (HEAD + f"body: {json.dumps(body, ensure_ascii=False)}\n").encode()


def fill(unit: str) -> bytes:
    """A memory whose body repeats ``unit`` to just under the size limit."""
    low, high = 1, MAX_FILE_BYTES
    while low < high:  # the largest count that fits
        middle = (low + high + 1) // 2
        if len(body_file(unit * middle)) <= MAX_FILE_BYTES:
            low = middle
        else:
            high = middle - 1
    return body_file(unit * low)


def block_file(body: str) -> bytes:
    return (HEAD + "body: |\n" + "".join(f"  {line}\n" for line in body.split("\n"))).encode()


CASES: dict[str, bytes] = {
    "tag characters after a black flag": fill("\U0001f3f4" + "\U000e0061" * 50),
    "a run of tag characters": fill("\U000e0061"),
    "zero-width spaces": fill("\u200b"),
    "U+2028 line separators": fill("\u2028"),
    "carriage returns": fill("\r"),
    "emoji ZWJ sequences": fill("\U0001f468\u200d\U0001f469\u200d\U0001f467"),
    "a private key without END": block_file(
        "-----BEGIN RSA " + "PRIVATE KEY-----\n" + "\n".join("Ab3+/" * 13 for _ in range(900))
    )[:MAX_FILE_BYTES],
    "many '-----' runs": fill("-----"),
    "one long line of base64": fill("QUJD"),
    "key=value pairs": fill("password=hunter2 "),
    "braces in a path": (HEAD + "paths:\n  - '" + "src/{a,b}" * 33 + "'\n").encode(),
    "deep nesting": (HEAD + "tags: " + "[" * 40 + "]" * 40 + "\n").encode(),
}
PEER = fill("The quick brown fox jumps over the lazy dog. ")


def best(function: Callable[[], object], runs: int) -> float:
    samples = []
    for _ in range(runs):
        start = time.perf_counter()
        function()
        samples.append(time.perf_counter() - start)
    return min(samples)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--runs", type=int, default=5)
    args = parser.parse_args()
    check_memory(PEER, "x")  # warm up: imports, compiled patterns
    peer = best(lambda: check_memory(PEER, "x"), args.runs)
    print(f"{'input':40} {'bytes':>7} {'check (ms)':>10} {'x peer':>7}")
    print(f"{'peer: ordinary prose':40} {len(PEER):7} {peer * 1000:10.1f} {1.0:7.1f}")
    worst = ("", 0.0)
    for name, raw in CASES.items():
        seconds = best(lambda raw=raw: check_memory(raw, "x"), args.runs)  # type: ignore[misc]
        worst = max(worst, (name, seconds), key=lambda item: item[1])
        print(f"{name:40} {len(raw):7} {seconds * 1000:10.1f} {seconds / peer:7.1f}")
    glob = "src/{a,b}" * 40
    seconds = best(lambda: count(glob), args.runs)
    print(f"{'counting the braces of (src/{a,b})x40':40} {len(glob):7} {seconds * 1000:10.3f}")
    star, name = "*a" * 5 + "b", "a" * 200  # a memory's paths glob against a file name (recall --path)
    seconds = best(lambda: matches(star, name), args.runs)
    print(f"{'recall glob *a*a*a*a*a*b, 200-char name':40} {len(name):7} {seconds * 1000:10.3f}")
    star, name = "*a" * 100 + "b", "a" * 4000
    seconds = best(lambda: matches(star, name), args.runs)
    print(f"{'recall glob (*a)x100 b, 4000-char name':40} {len(name):7} {seconds * 1000:10.3f}")
    print(f"slowest: {worst[0]}, {worst[1] * 1000:.1f} ms ({worst[1] / peer:.1f}x the peer)")
    hostile_files.run(args.runs)  # the file-system attacks (issue 22): links and huge files, process by process


if __name__ == "__main__":
    main()
