"""How long `gitmem doctor` takes on 1,000 and 10,000 memories, next to `gitmem validate` on the
same store.

validate is the peer: it reads and checks every file (the store load doctor also needs), so the
ratio shows what doctor's own checks (dates, evidence, supersedes graph, near-duplicates) add on top
of reading the store.

Each size is measured on a fresh repository: a cold run (nothing cached: every file parsed and
checked), then warm runs (the store's stat-keyed cache is used, as on a developer's machine),
in-process and as a real process.

    python benchmarks/bench_doctor.py            # 1,000 and 10,000, then 4,000 copies
    python benchmarks/bench_doctor.py 2000       # other sizes
    python benchmarks/bench_doctor.py --copies 4000   # only a store of copies of one memory

A store of copies of one memory (a pull request that adds the same memory many times) is the
near-duplicate search's worst case: every memory repeats every other one.
"""

from __future__ import annotations

import os
import random
import statistics
import subprocess
import sys
import tempfile
import time
from datetime import date, timedelta
from pathlib import Path

from gitmem.checks.doctor import CHECKS, diagnose
from gitmem.checks.findings import Context
from gitmem.gateway import find_project
from gitmem.memory.actions import evidence_digest
from gitmem.memory.config import load_config
from gitmem.memory.model import Evidence, Memory
from gitmem.memory.store import Store

SYLLABLES = [
    "ka",
    "lo",
    "mi",
    "ne",
    "ru",
    "ta",
    "vo",
    "pe",
    "si",
    "do",
    "ga",
    "xu",
    "be",
    "fi",
    "ho",
    "ja",
]
KINDS = ("convention", "decision", "pitfall", "preference", "fact")


def vocabulary(rng: random.Random, size: int) -> list[str]:
    words: set[str] = set()
    while len(words) < size:
        words.add("".join(rng.choice(SYLLABLES) for _ in range(rng.randint(2, 4))))
    return sorted(words)


def zipf_words(rng: random.Random, vocab: list[str], count: int) -> list[str]:
    # Skewed word ranks: a few words are common, most are rare, as in real notes.
    return [vocab[int(len(vocab) * rng.random() ** 2.5)] for _ in range(count)]


def make_store(root: Path, size: int, copies: bool, seed: int = 7) -> None:
    rng = random.Random(seed)
    vocab = vocabulary(rng, 5000)
    rng.shuffle(vocab)
    subprocess.run(["git", "init", "-q", "-b", "main", str(root)], check=True)
    subprocess.run([*gitmem(), "init", "--no-hooks"], cwd=root, check=True, capture_output=True)
    sources = root / "src"
    sources.mkdir()
    for number in range(50):
        lines = [
            f"line {i} of module {number}: {' '.join(zipf_words(rng, vocab, 6))}\n"
            for i in range(200)
        ]
        (sources / f"module{number}.py").write_text("".join(lines))
    project = find_project(root)
    store = Store(project)
    today = date.today()
    texts: list[tuple[str, str]] = []
    for number in range(size):
        if copies and texts:
            title, body = texts[0]
        elif (
            texts and rng.random() < 0.01
        ):  # a near-duplicate of an earlier memory: one word of its title changed
            title, body = rng.choice(texts)
            words = title.split()
            words[rng.randrange(len(words))] = rng.choice(vocab)
            title = " ".join(words)
        else:
            title = " ".join(zipf_words(rng, vocab, rng.randint(6, 12)))
            body = " ".join(zipf_words(rng, vocab, rng.randint(15, 40)))
        texts.append((title, body))
        evidence: tuple[Evidence, ...] = ()
        if rng.random() < 0.2:
            path = sources / f"module{rng.randrange(50)}.py"
            start = rng.randint(1, 190)
            lines = f"{start}-{start + rng.randint(0, 9)}"
            evidence = (
                Evidence(path.relative_to(root).as_posix(), lines, evidence_digest(path, lines)),
            )
        status = rng.choices(("active", "proposed", "retired"), (80, 10, 10))[0]
        memory = Memory(
            id=f"memory-{number:05d}",
            title=title[:200],
            kind=rng.choice(KINDS),
            status=status,
            body=body,
            tags=tuple(sorted(set(zipf_words(rng, vocab, 2)))),
            created=today - timedelta(days=rng.randint(0, 400)),
            expires=today - timedelta(days=3) if rng.random() < 0.02 else None,
            review_after=today - timedelta(days=1) if rng.random() < 0.05 else None,
            supersedes=(f"memory-{rng.randrange(number):05d}",)
            if number and rng.random() < 0.05
            else (),
            evidence=evidence,
            source="human",
        )
        (project.memories_dir / f"{memory.id}.yaml").write_text(
            store.render(memory), encoding="utf-8"
        )
    for number in range(0, 50, 5):  # some cited code changes
        path = sources / f"module{number}.py"
        path.write_text("# edited\n" + path.read_text())


def gitmem() -> list[str]:
    return [sys.executable, "-m", "gitmem"]


def timed(action: object, repeat: int) -> float:
    runs = []
    for _ in range(repeat):
        start = time.perf_counter()
        action()  # type: ignore[operator]
        runs.append(time.perf_counter() - start)
    return statistics.median(runs)


def measure(size: int, copies: bool = False) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp) / "repo"
        start = time.perf_counter()
        make_store(root, size, copies)
        made = time.perf_counter() - start
        os.chdir(root)
        project = find_project(root)
        store = Store(project)
        config = load_config(project)
        today = date.today()
        time.sleep(
            1.1
        )  # files written this second are not cached yet ("racily clean"): let them age

        start = time.perf_counter()
        report = diagnose(project, store, config, today)
        cold = time.perf_counter() - start
        load = timed(store.load, 3)
        snapshot = store.load()
        check_times = {}
        for check in CHECKS:
            context = Context(project, store, config, snapshot, today)
            check_times[check.__name__] = timed(lambda c=check, x=context: list(c(x)), 3)  # type: ignore[misc]
        warm = timed(lambda: diagnose(project, store, config, today), 3)
        cache = project.cache_dir / "store.json"

        def cold_run(*args: str) -> None:
            cache.unlink(missing_ok=True)
            subprocess.run([*gitmem(), *args], capture_output=True)

        doctor_cold_exe = timed(lambda: cold_run("doctor", "--json"), 1)
        validate_cold_exe = timed(lambda: cold_run("validate"), 1)
        store.load()  # warm the cache again
        doctor_exe = timed(
            lambda: subprocess.run([*gitmem(), "doctor", "--json"], capture_output=True), 3
        )
        validate_exe = timed(
            lambda: subprocess.run([*gitmem(), "validate"], capture_output=True), 3
        )

        shape = "copies of one memory" if copies else "memories"
        print(f"## {size:,} {shape} (store generated in {made:.1f}s)")
        print(f"  findings: {len(report.errors)} errors, {len(report.warnings)} warnings")
        print(f"  doctor, cold (every file parsed and checked): {cold:8.3f}s")
        print(f"  doctor, warm (in-process):                    {warm:8.3f}s")
        print(f"    of which store load:                       {load:8.3f}s")
        for name, seconds in check_times.items():
            print(f"    {name + ':':<43}{seconds:8.3f}s")
        print(f"  gitmem doctor --json (process, warm):         {doctor_exe:8.3f}s")
        print(f"  gitmem validate      (process, warm, peer):   {validate_exe:8.3f}s")
        print(f"  ratio doctor / validate, warm:                {doctor_exe / validate_exe:8.2f}x")
        print(f"  gitmem doctor --json (process, cold):         {doctor_cold_exe:8.3f}s")
        print(f"  gitmem validate      (process, cold, peer):   {validate_cold_exe:8.3f}s")
        print(
            "  ratio doctor / validate, cold:                "
            f"{doctor_cold_exe / validate_cold_exe:8.2f}x"
        )
        print()


def main() -> None:
    import fair  # (benchmarks/, this script's folder)

    fair.bytecode()
    args = sys.argv[1:]
    if args[:1] == ["--copies"]:
        for size in args[1:] or ["4000"]:
            measure(int(size), copies=True)
        return
    for size in [int(arg) for arg in args] or [1000, 10_000]:
        measure(size)
    if not args:
        measure(4000, copies=True)


if __name__ == "__main__":
    main()
