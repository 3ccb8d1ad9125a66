"""What adoption costs: `gitmem import` on large rules files, and the check against removed
memories.

1. Import. Rules files with N bullets in all (an AGENTS.md, a CLAUDE.md that imports it and repeats
   a tenth of its rules, a nested web/AGENTS.md, Cursor rules), in a repository that already holds
   1,000 memories. The peer is `gitmem journal harvest --dry-run` of a session log with the same N
   items: the same per-item work (title, kind, near-duplicate search, check against removals, schema
   check) without the rules-file reading and deduplication.
   Both run as real processes with --dry-run, so the store is the same every run.

2. Remembering rejections. A history of C commits that add memories and delete (forget or revert)
   some of them, built with `git fast-import`. Timed in-process: `gitmem.git.removed.removals()`
   cold (no cache: git log over the whole history, and each deleted file read back), warm (the cache
   keyed on HEAD), after one new commit (only that commit is read), and after an amend (the history
   is read again, but not the deleted files read before); then MCP `propose`
   (`gitmem.mcp.tools.propose`) with that history next to the same propose in a repository holding
   the same memories with no history (the peer: what propose cost before it looked at history).

    python benchmarks/bench_adopt.py                # N = 500 and 5,000 rules;
                                                    # C = 2,000 and 10,000 commits
    python benchmarks/bench_adopt.py 1000 4000      # N = 1,000 rules, C = 4,000 commits
"""

from __future__ import annotations

import os
import random
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from datetime import date
from pathlib import Path

from gitmem.gateway import find_project
from gitmem.git import removed
from gitmem.mcp import tools
from gitmem.memory.model import Memory
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
HEADINGS = (
    "Code style",
    "Testing",
    "Gotchas",
    "Architecture decisions",
    "Preferences",
    "Project structure",
)


def gitmem() -> list[str]:
    return [sys.executable, "-m", "gitmem"]


def vocabulary(rng: random.Random, size: int) -> list[str]:
    words: set[str] = set()
    while len(words) < size:
        words.add("".join(rng.choice(SYLLABLES) for _ in range(rng.randint(2, 4))))
    return sorted(words)


def sentence(rng: random.Random, vocab: list[str], low: int, high: int) -> str:
    words = [vocab[int(len(vocab) * rng.random() ** 2.5)] for _ in range(rng.randint(low, high))]
    return " ".join(words).capitalize()


def timed(action: Callable[[], object], repeat: int) -> float:
    runs = []
    for _ in range(repeat):
        start = time.perf_counter()
        action()
        runs.append(time.perf_counter() - start)
    return statistics.median(runs)


def run(root: Path, *args: str) -> None:
    done = subprocess.run([*gitmem(), *args], cwd=root, capture_output=True, text=True)
    assert done.returncode in (0, 1), done.stderr


def new_repo(root: Path) -> None:
    subprocess.run(["git", "init", "-q", "-b", "main", str(root)], check=True)
    for key, value in (
        ("user.name", "Bench"),
        ("user.email", "bench@example.com"),
        ("commit.gpgsign", "false"),
    ):
        subprocess.run(["git", "config", key, value], cwd=root, check=True)
    run(root, "init", "--no-hooks")


def write_memories(root: Path, rng: random.Random, vocab: list[str], count: int) -> list[Memory]:
    project = find_project(root)
    store = Store(project)
    memories = []
    for number in range(count):
        memory = Memory(
            id=f"memory-{number:05d}",
            title=sentence(rng, vocab, 6, 12),
            kind="convention",
            status="active",
            body=sentence(rng, vocab, 10, 30),
            created=date.today(),
            source="human",
        )
        (project.memories_dir / f"{memory.id}.yaml").write_text(
            store.render(memory), encoding="utf-8"
        )
        memories.append(memory)
    return memories


# -- 1. import -------------------------------------------------------------------------------------


def measure_import(rules: int) -> None:
    rng = random.Random(11)
    vocab = vocabulary(rng, 5000)
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp) / "repo"
        new_repo(root)
        write_memories(root, rng, vocab, 1000)
        items = [sentence(rng, vocab, 6, 16) + "." for _ in range(rules)]
        root_items = items[: rules * 7 // 10]
        sections = ["# Project rules\n"]
        for index, item in enumerate(root_items):
            if index % 25 == 0:
                sections.append(f"\n## {HEADINGS[(index // 25) % len(HEADINGS)]}\n\n")
            sections.append(f"- {item}\n")
        (root / "AGENTS.md").write_text("".join(sections))
        repeated = root_items[:: max(1, len(root_items) // max(1, rules // 10))][: rules // 10]
        (root / "CLAUDE.md").write_text(
            "@AGENTS.md\n\n## Claude\n\n" + "".join(f"- {i}\n" for i in repeated)
        )
        (root / "web").mkdir()
        web_items = items[rules * 7 // 10 : rules * 9 // 10]
        (root / "web/AGENTS.md").write_text("# Web\n\n" + "".join(f"- {i}\n" for i in web_items))
        (root / ".cursor/rules").mkdir(parents=True)
        cursor_items = items[rules * 9 // 10 :]
        (root / ".cursor/rules/ts.mdc").write_text(
            "---\ndescription: TypeScript\nglobs: **/*.ts\nalwaysApply: false\n---\n"
            + "".join(f"- {i}\n" for i in cursor_items)
        )
        all_items = root_items + repeated + web_items + cursor_items
        log = "# Session\n\n## Conventions\n" + "".join(f"- {i}\n" for i in all_items)
        (root / ".memory/journal").mkdir(parents=True, exist_ok=True)
        (root / ".memory/journal/2026-01-01-bench.md").write_text(log)
        subprocess.run(["git", "add", "-A"], cwd=root, check=True)
        subprocess.run(["git", "commit", "-qm", "rules"], cwd=root, check=True)
        run(root, "list")  # warm the store cache, as on a developer's machine
        time.sleep(1.1)
        run(root, "list")

        import_time = timed(lambda: run(root, "import", "--dry-run"), 3)
        harvest_time = timed(
            lambda: run(
                root, "journal", "harvest", ".memory/journal/2026-01-01-bench.md", "--dry-run"
            ),
            3,
        )
        start = time.perf_counter()
        run(root, "import")
        written = time.perf_counter() - start
        again = timed(lambda: run(root, "import", "--dry-run"), 3)
        made = len(list((root / ".memory/memories").glob("*.yaml"))) - 1000

    print(
        f"## import: {rules:,} rules in 4 files ({len(all_items):,} items with the "
        "repeats), 1,000 memories stored"
    )
    print(f"  gitmem import --dry-run (process):                     {import_time:8.3f}s")
    print(f"  gitmem journal harvest --dry-run, same items (peer):   {harvest_time:8.3f}s")
    print(
        "  ratio import / harvest:                                "
        f"{import_time / harvest_time:8.2f}x"
    )
    print(
        f"  gitmem import, writing {made:,} memories:"
        + " " * (16 - len(f"{made:,}"))
        + f"{written:8.3f}s"
    )
    print(f"  gitmem import --dry-run again (all known):             {again:8.3f}s")
    print()


# -- 2. history ------------------------------------------------------------------------------------


def memory_text(memory_id: str, title: str) -> str:
    return (
        "# yaml-language-server: $schema=../schema/memory.schema.json\n"
        f"id: {memory_id}\ntitle: {title}\nkind: convention\nstatus: active\ncreated: "
        "2026-01-01\nsource: agent\n"
    )


def build_history(root: Path, commits: int, rng: random.Random, vocab: list[str]) -> int:
    """``commits`` commits through git fast-import: each adds a memory; one in four also deletes an
    earlier one.
    Returns the number of memories deleted."""
    stream: list[bytes] = []
    alive: list[str] = []
    deleted = 0
    for number in range(commits):
        message = f"Add memory {number}".encode()
        lines = [
            b"commit refs/heads/main\n",
            f"committer Bench <bench@example.com> {1_700_000_000 + number * 60} +0000\n".encode(),
            b"data %d\n%s\n" % (len(message), message),
        ]
        if number == 0:
            lines.append(b"from refs/heads/main^0\n")
        memory_id = f"history-{number:05d}"
        data = memory_text(memory_id, sentence(rng, vocab, 6, 12)).encode()
        lines.append(
            b"M 100644 inline .memory/memories/%s.yaml\ndata %d\n%s\n"
            % (memory_id.encode(), len(data), data)
        )
        alive.append(memory_id)
        if number % 4 == 3 and len(alive) > 1:
            gone = alive.pop(rng.randrange(len(alive) - 1))
            lines.append(b"D .memory/memories/%s.yaml\n" % gone.encode())
            deleted += 1
        stream.extend(lines)
        stream.append(b"\n")
    subprocess.run(["git", "fast-import", "--quiet"], cwd=root, input=b"".join(stream), check=True)
    subprocess.run(["git", "reset", "-q", "--hard", "main"], cwd=root, check=True)
    return deleted


def measure_history(commits: int) -> None:
    rng = random.Random(5)
    vocab = vocabulary(rng, 5000)
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp) / "repo"
        new_repo(root)
        subprocess.run(["git", "add", "-A"], cwd=root, check=True)
        subprocess.run(["git", "commit", "-qm", "init"], cwd=root, check=True)
        start = time.perf_counter()
        deleted = build_history(root, commits, rng, vocab)
        built = time.perf_counter() - start
        peer = Path(tmp) / "peer"  # the same memories, no history
        new_repo(peer)
        for path in (root / ".memory/memories").glob("*.yaml"):
            shutil.copy(path, peer / ".memory/memories" / path.name)
        subprocess.run(["git", "add", "-A"], cwd=peer, check=True)
        subprocess.run(["git", "commit", "-qm", "same memories, no history"], cwd=peer, check=True)

        project = find_project(root)
        store = Store(project)
        store.load()
        cache = project.cache_dir / "removed.json"

        def cold() -> object:
            cache.unlink(missing_ok=True)
            return removed.removals(project, store.load())

        cold_time = timed(cold, 3)
        found = removed.removals(project, store.load())
        warm_time = timed(lambda: removed.removals(project, store.load()), 5)
        load_time = timed(store.load, 5)

        def one_more_commit() -> float:
            (root / "notes.txt").write_text(str(time.time_ns()))
            subprocess.run(["git", "add", "notes.txt"], cwd=root, check=True)
            subprocess.run(["git", "commit", "-qm", "notes"], cwd=root, check=True)
            start = time.perf_counter()
            removed.removals(project, store.load())
            return time.perf_counter() - start

        incremental = statistics.median(one_more_commit() for _ in range(3))

        def amend() -> float:
            subprocess.run(
                ["git", "commit", "-q", "--amend", "-m", f"notes {time.time_ns()}"],
                cwd=root,
                check=True,
            )
            start = time.perf_counter()
            removed.removals(project, store.load())
            return time.perf_counter() - start

        amended = statistics.median(amend() for _ in range(3))

        def propose_in(where: Path) -> Callable[[], object]:
            found_project = find_project(where)
            where_store = Store(found_project)

            def call() -> object:
                memory = where / ".memory/memories/a-new-rule-about-nothing-in-particular.yaml"
                memory.unlink(missing_ok=True)
                return tools.propose(
                    found_project,
                    where_store,
                    "A new rule about nothing in particular",
                    "",
                    "convention",
                    [],
                    [],
                    date.today(),
                    0.85,
                )

            return call

        propose_history = timed(propose_in(root), 5)
        propose_peer = timed(propose_in(peer), 5)
        stored = len(store.load().memories)

    print(
        f"## history: {commits:,} commits, {deleted:,} memories deleted, {stored:,} stored "
        f"(built in {built:.1f}s)"
    )
    print(f"  removals found:                                         {len(found):8,}")
    print(f"  removals(), cold (git log + read each deleted file):    {cold_time:8.3f}s")
    print(f"  removals(), warm (cache keyed on HEAD):                 {warm_time:8.3f}s")
    print(f"    of which the store load:                              {load_time:8.3f}s")
    print(f"  removals(), after one new commit (only it is read):     {incremental:8.3f}s")
    print(f"  removals(), after an amend (files read before reused):  {amended:8.3f}s")
    print(f"  MCP propose, warm, with this history:                   {propose_history:8.3f}s")
    print(f"  MCP propose, same memories, no history (peer):          {propose_peer:8.3f}s")
    print(
        "  ratio propose with history / without:                   "
        f"{propose_history / propose_peer:8.2f}x"
    )
    print()


def main() -> None:
    import fair  # (benchmarks/, this script's folder)

    fair.bytecode()
    numbers = [int(arg) for arg in sys.argv[1:]]
    rules = numbers[:1] or [500, 5000]
    commits = numbers[1:2] or [2000, 10_000]
    os.environ.setdefault("GIT_CONFIG_NOSYSTEM", "1")
    for count in rules:
        measure_import(count)
    for count in commits:
        measure_history(count)


if __name__ == "__main__":
    main()
