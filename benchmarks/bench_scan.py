"""Benchmark gitmem's secret scanner side by side with detect-secrets (when installed).

Prints, for each scanner:
- recall and precision on the labelled corpus of tests/scan_corpus.py (secrets and decoys in code,
  config, .env, JSON and session logs);
- throughput (MB/s) and false findings on a 30 MB slice of real source code: the Python standard
  library's .py files, copied to a temporary directory (every finding there counts as false: it
  holds no live secret);
- the wall time of the pre-commit hook on a typical commit: 20 staged files, 2,000 added lines
  (``gitmem scan --staged`` against ``detect-secrets-hook`` on the same files).

Usage:  python benchmarks/bench_scan.py [--mb 30] [--peer-mb MB] [--runs 7]
detect-secrets is not a dependency: ``pip install detect-secrets==1.5.0`` to measure it.
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import sysconfig
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from gitmem.scan import scan_text  # noqa: E402
from tests import scan_corpus  # noqa: E402


def detect_secrets_available() -> bool:
    try:
        import detect_secrets  # noqa: F401
    except ImportError:
        return False
    return True


def ds_lines(path: Path) -> set[int]:
    """The line numbers detect-secrets reports for one file, with its default plugins and
    filters."""
    from detect_secrets import SecretsCollection
    from detect_secrets.settings import default_settings

    with default_settings():
        collection = SecretsCollection()
        collection.scan_file(str(path))
    return {secret.line_number for found in collection.data.values() for secret in found}


def gitmem_lines(path: Path) -> set[int]:
    text = path.read_bytes().decode("utf-8", "surrogateescape")
    return {finding.line for finding in scan_text(text, str(path), hidden=True)}


# -- the corpus ------------------------------------------------------------------------------------


def corpus(directory: Path, scanners: dict[str, Callable[[Path], set[int]]]) -> None:
    files = scan_corpus.build()
    paths = {}
    for corpus_file in files:
        path = directory / corpus_file.name
        path.write_text(corpus_file.text, encoding="utf-8")
        paths[corpus_file.name] = path
    first = scan_corpus.evaluate(files, lambda f: set())
    print(
        f"corpus: {first.secrets} secrets of {len(scan_corpus.kinds_of(files))} kinds and "
        f"{first.decoys} decoys in {len(files)} files (code, config, .env, JSON, session logs)"
    )
    print(
        f"  {'scanner':<16}{'recall':>8}{'precision':>11}{'missed':>8}{'false':>7}   by "
        "format (recall/precision)"
    )
    for name, lines_of in scanners.items():
        score = scan_corpus.evaluate(files, lambda f, lines_of=lines_of: lines_of(paths[f.name]))  # type: ignore[misc]
        by_format = []
        for fmt in ("code", "config", "env", "json", "log"):
            part = scan_corpus.evaluate(
                [f for f in files if f.format == fmt],
                lambda f, lines_of=lines_of: lines_of(paths[f.name]),  # type: ignore[misc]
            )
            by_format.append(f"{fmt} {part.recall:.2f}/{part.precision:.2f}")
        print(
            f"  {name:<16}{score.recall:>8.3f}{score.precision:>11.3f}"
            f"{len(score.missed):>8}{score.false:>7}   " + ", ".join(by_format)
        )


# -- real code -------------------------------------------------------------------------------------


def stdlib_slice(directory: Path, megabytes: float) -> list[Path]:
    """Copy the standard library's .py files, in a stable order, until ``megabytes`` are copied."""
    source = Path(sysconfig.get_paths()["stdlib"])
    limit = int(megabytes * 1_000_000)
    copied: list[Path] = []
    total = 0
    for root, dirs, names in os.walk(source):
        dirs[:] = sorted(
            d for d in dirs if d not in ("site-packages", "dist-packages", "__pycache__")
        )
        for name in sorted(names):
            if not name.endswith(".py"):
                continue
            src = Path(root) / name
            size = src.stat().st_size
            if total + size > limit:
                return copied
            dst = directory / src.relative_to(source)
            dst.parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(src, dst)
            copied.append(dst)
            total += size
    return copied


def real_code(
    base: Path,
    files: list[Path],
    scanners: dict[str, Callable[[Path], set[int]]],
    peer_mb: float | None,
) -> None:
    total = sum(f.stat().st_size for f in files)
    version = sys.version.split()[0]
    print(
        f"\nreal code: {total / 1e6:.1f} MB of the Python {version} standard library "
        f"({len(files)} files)"
    )
    print(
        f"  {'scanner':<16}{'MB scanned':>11}{'seconds':>9}{'MB/s':>8}{'findings':>10}  (all false)"
    )
    rates = {}
    for name, lines_of in scanners.items():
        subset = files
        if peer_mb is not None and name != "gitmem":
            subset, size = [], 0
            for f in files:
                size += f.stat().st_size
                if size > peer_mb * 1e6:
                    break
                subset.append(f)
        size = sum(f.stat().st_size for f in subset)
        found: list[tuple[Path, int]] = []
        started = time.perf_counter()
        for f in subset:
            found += [(f, line) for line in lines_of(f)]
        seconds = time.perf_counter() - started
        rates[name] = size / 1e6 / seconds
        print(f"  {name:<16}{size / 1e6:>11.1f}{seconds:>9.1f}{rates[name]:>8.2f}{len(found):>10}")
        for path, line in found[:8]:
            text = path.read_text(encoding="utf-8", errors="replace").splitlines()[line - 1].strip()
            print(f"      {path.relative_to(base)}:{line}: {text[:90]}")
    if "detect-secrets" in rates:
        print(
            f"  throughput: gitmem is {rates['gitmem'] / rates['detect-secrets']:.0f}x "
            "detect-secrets"
        )


# -- the hook --------------------------------------------------------------------------------------


def hook(directory: Path, files: list[Path], runs: int, with_peer: bool) -> None:
    repo = directory / "hook-repo"
    repo.mkdir()
    env = {
        **os.environ,
        "GIT_AUTHOR_NAME": "b",
        "GIT_AUTHOR_EMAIL": "b@b",
        "GIT_COMMITTER_NAME": "b",
    }
    env["GIT_COMMITTER_EMAIL"] = "b@b"
    for name in ("GIT_DIR", "GIT_INDEX_FILE", "GIT_WORK_TREE"):
        env.pop(name, None)

    def run(*args: str) -> None:
        subprocess.run(args, cwd=repo, env=env, check=True, capture_output=True)

    run("git", "init", "-q")
    staged = []
    sources = [
        f for f in files if len(f.read_text(encoding="utf-8", errors="replace").splitlines()) >= 100
    ]
    for index, src in enumerate(sources[:20]):
        lines = src.read_text(encoding="utf-8", errors="replace").splitlines()[:100]
        dst = repo / "src" / f"module_{index}.py"
        dst.parent.mkdir(exist_ok=True)
        dst.write_text("\n".join(lines) + "\n", encoding="utf-8")
        staged.append(str(dst.relative_to(repo)))
    run("git", "add", ".")
    exe = shutil.which("gitmem", path=str(Path(sys.executable).parent)) or "gitmem"
    added = sum(len((repo / s).read_text().splitlines()) for s in staged)
    print(
        f"\nhook on a typical commit: {len(staged)} staged files, {added} added lines "
        f"(median of {runs} runs)"
    )

    def timed(command: list[str]) -> tuple[float, int]:
        times, code = [], 0
        for _ in range(runs):
            started = time.perf_counter()
            code = subprocess.run(command, cwd=repo, env=env, capture_output=True).returncode
            times.append(time.perf_counter() - started)
        return statistics.median(times), code

    ours, code = timed([exe, "scan", "--staged"])
    print(f"  {'gitmem scan --staged':<28}{ours * 1000:>7.0f} ms  (exit {code})")
    if with_peer:
        peer_exe = shutil.which("detect-secrets-hook", path=str(Path(sys.executable).parent))
        if peer_exe:
            theirs, code = timed([peer_exe, *staged])
            print(f"  {'detect-secrets-hook FILES':<28}{theirs * 1000:>7.0f} ms  (exit {code})")
            print(f"  gitmem's hook takes {ours / theirs:.2f} of detect-secrets' time")


def main() -> None:
    import fair  # (benchmarks/, this script's folder)

    fair.bytecode()
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument(
        "--mb", type=float, default=30, help="megabytes of the standard library to scan (30)"
    )
    parser.add_argument(
        "--peer-mb", type=float, default=None, help="scan only this much with the peer (all)"
    )
    parser.add_argument("--runs", type=int, default=7, help="runs of each hook (7)")
    args = parser.parse_args()

    scanners: dict[str, Callable[[Path], set[int]]] = {"gitmem": gitmem_lines}
    peer = detect_secrets_available()
    if peer:
        from importlib.metadata import version

        scanners["detect-secrets"] = ds_lines
        print(f"peer: detect-secrets {version('detect-secrets')}")
    else:
        print(
            "peer: detect-secrets is not installed (pip install detect-secrets==1.5.0 to compare)"
        )
    with tempfile.TemporaryDirectory(prefix="gitmem-bench-") as tmp:
        directory = Path(tmp)
        (directory / "corpus").mkdir()
        corpus(directory / "corpus", scanners)
        files = stdlib_slice(directory / "stdlib", args.mb)
        real_code(directory / "stdlib", files, scanners, args.peer_mb)
        hook(directory, files, args.runs, peer)


if __name__ == "__main__":
    main()
