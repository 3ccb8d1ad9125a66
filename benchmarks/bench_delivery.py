"""Does the right memory reach the model? The held-out prompt set, at about 100 and 1,000 memories,
200-token budget.

    python benchmarks/bench_delivery.py [--sizes 100,1000] [--base DIR] [--runs 15]

The prompts are benchmarks/delivery_prompts.py's (105 pairs in three classes, 40 unrelated prompts;
how they were written is said there), the store benchmarks/delivery_memories.py's 100 memories, with
filler memories (in a software project's vocabulary, hook_project's) to reach 1,000. The repository
is compiled for Claude Code and AGENTS.md readers with ``budget: 200``; the client is Claude Code
(CLAUDE.md, and what it imports).

Per class it prints how often the memory
- *reaches the model*: its title is in what the client always loads (the rules files at the root),
  or the prompt hook injects it (each prompt a new session);
- is *injected in full*: the hook injects it with its whole body (a memory the rules file holds in
  full counts too);
and how often an unrelated prompt injects anything, the tokens of gitmem's always-on text (its
blocks in the files the client loads; the index of left-out memories separately) and the prompt
hook's warm median wall time as a process (``gitmem hook prompt``, as the client runs it).

--base DIR: the same measurements with another checkout of gitmem (``git archive main | tar -x -C
DIR``) on PYTHONPATH, printed beside this one's (its memories without ``words``). This checkout is
measured three times: without the memories' ``words`` field (the words a teammate would use, written
with each memory), with words written blind by a session that saw only the memories
(delivery_words_blind.py), and with the author's, who wrote them after the prompts
(delivery_memories.py's ``WORDS``: optimistic).

Each class's rule is also checked against the memories' real text (stemmed as the recall index stems
it): a ``shared`` prompt must share a word with its memory's title, body or tags, a ``paraphrase``
prompt none. The number of pairs that break their rule is printed.
"""

from __future__ import annotations

import argparse
import importlib
import json
import os
import resource
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

import delivery_memories  # noqa: E402
import delivery_prompts  # noqa: E402
import fair  # noqa: E402

BUDGET = 200
CHARS_PER_TOKEN = 4
CLASSES = ("shared", "paraphrase", "path")


def _git(root: Path, *args: str) -> None:
    subprocess.run(["git", *args], cwd=root, check=True, capture_output=True)


def _gitmem(root: Path, *args: str) -> None:
    env = {**os.environ, "GITMEM_NO_FETCH": "1"}
    done = subprocess.run(
        [sys.executable, "-m", "gitmem", *args],
        cwd=root,
        capture_output=True,
        text=True,
        env=env,
        check=False,
    )
    if done.returncode != 0:
        raise SystemExit(
            f"gitmem {' '.join(args)} failed: {done.stderr[-600:]}{done.stdout[-600:]}"
        )


def build(root: Path, size: int, words: str) -> dict[str, dict[str, Any]]:
    """A repository with the store (and fillers up to ``size``), compiled with a 200-token
    budget."""
    import hook_project

    from gitmem import yamlio

    root.mkdir(parents=True)
    _git(root, "init", "-q", "-b", "main")
    _git(root, "config", "user.email", "bench@example.com")
    _git(root, "config", "user.name", "Bench")
    _gitmem(root, "init", "--no-hooks", "--target", "claude", "--target", "agents")
    directory = root / ".memory" / "memories"
    store = delivery_memories.memory_files(words)
    for memory_id, data in store.items():
        (directory / f"{memory_id}.yaml").write_text(yamlio.dump(data), encoding="utf-8")
    hook_project._fillers(directory, max(0, size - len(store)))
    config = root / ".memory" / "config.yaml"
    config.write_text(config.read_text(encoding="utf-8") + f"budget: {BUDGET}\n", encoding="utf-8")
    _gitmem(root, "compile")
    return store


def _blocks(text: str) -> str:
    """gitmem's part of a file: from its begin marker to its end marker (and a whole file's
    frontmatter)."""
    start = text.find("<!-- gitmem:begin")
    if start < 0:
        return ""
    end = text.find("<!-- gitmem:end -->", start)
    return text[start : end + len("<!-- gitmem:end -->\n")] if end >= 0 else text[start:]


def _index_part(block: str) -> str:
    """The index of left-out memories in a block: the lines after the recall line."""
    at = block.find("\nMore project memories were left out")
    if at < 0:
        return ""
    rest = block[at + 1 :]
    first = rest.find("\n")
    return rest[first + 1 :].replace("<!-- gitmem:end -->\n", "") if first >= 0 else ""


def _flat(text: str) -> str:
    return " ".join(text.split())


def _whole(body: str, text: str) -> bool:
    """Whether ``text`` holds all of ``body``: its words in order, and each line of its code
    blocks as a line."""
    if _flat(body) not in _flat(text):
        return False
    lines = {line.removeprefix("  ").rstrip() for line in text.splitlines()}
    code, inside = [], False
    for line in body.splitlines():
        if line.lstrip().startswith(("```", "~~~")):
            inside = not inside
            continue
        if inside and line.strip():
            code.append(line.rstrip())
    return all(line in lines for line in code)


def _hook_module(name: str) -> Any:
    """``gitmem.hook.NAME``, or ``gitmem.session.NAME`` in a checkout from before the modules moved
    (the base of ``--base``)."""
    try:
        return importlib.import_module(f"gitmem.hook.{name}")
    except ImportError:
        return importlib.import_module(f"gitmem.session.{name}")


def _project_finder() -> Any:
    """``find_project`` where this checkout has it (the gateway now, the project module before)."""
    module = importlib.import_module("gitmem.gateway")
    if hasattr(module, "find_project"):
        return module.find_project
    return importlib.import_module("gitmem.project").find_project


def class_check(store: dict[str, dict[str, Any]]) -> set[int]:
    """The pairs (their numbers) that break their class's rule (stemmed as the recall index does,
    the words field left out)."""
    prompt_terms = _hook_module("inject").prompt_terms

    conn = sqlite3.connect(":memory:")
    conn.execute(
        "CREATE VIRTUAL TABLE t USING fts5(id UNINDEXED, text, tokenize='porter unicode61 "
        "remove_diacritics 2')"
    )
    for memory_id, data in store.items():
        text = " ".join([data["title"], data.get("body", ""), " ".join(data.get("tags", []))])
        conn.execute("INSERT INTO t(id, text) VALUES (?, ?)", (memory_id, text))
    broken: set[int] = set()
    for number, (kind, prompt, expected) in enumerate(delivery_prompts.PAIRS):
        shared = 0
        for term in prompt_terms(prompt):
            quoted = '"' + term.replace('"', '""') + '"'
            shared += bool(
                conn.execute(
                    "SELECT 1 FROM t WHERE t MATCH ? AND id = ?", (quoted, expected)
                ).fetchone()
            )
        if (kind == "shared" and not shared) or (kind == "paraphrase" and shared):
            broken.add(number)
    return broken


def _payload(root: Path, prompt: str, session: str) -> bytes:
    data = {
        "session_id": session,
        "cwd": str(root),
        "hook_event_name": "UserPromptSubmit",
        "prompt": prompt,
    }
    return json.dumps(data).encode()


def worker(size: int, words: str, runs: int) -> dict[str, Any]:
    """Every figure for one store size, with the gitmem on this process's path."""
    find_project = _project_finder()
    clients = _hook_module("clients")
    rules_files, run = _hook_module("run").rules_files, _hook_module("run").run

    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp) / "repo"
        store = build(root, size, words)
        count = len(list((root / ".memory" / "memories").glob("*.yaml")))
        project = find_project(root)
        loaded_files = [
            path for path in rules_files(project, clients.BY_NAME["claude"]) if path.is_file()
        ]
        always = "".join(_blocks(path.read_text(encoding="utf-8")) for path in loaded_files)
        index = "".join(
            _index_part(_blocks(path.read_text(encoding="utf-8"))) for path in loaded_files
        )
        broken = class_check(store)
        reached = dict.fromkeys(CLASSES, 0)
        full = dict.fromkeys(CLASSES, 0)
        total = dict.fromkeys(CLASSES, 0)
        in_rules = dict.fromkeys(CLASSES, 0)
        for number, (kind, prompt, expected) in enumerate(delivery_prompts.PAIRS):
            memory = store[expected]
            entry_in_rules = f"(`{expected}`" in always  # a full entry of the block
            answer = run("prompt", "claude", _payload(root, prompt, f"pair-{number}"))
            injected = expected in answer.keys
            text = (
                json.loads(answer.stdout)["hookSpecificOutput"]["additionalContext"]
                if answer.stdout
                else ""
            )
            total[kind] += 1
            if kind == "paraphrase" and number not in broken:
                total["strict"] = total.get("strict", 0) + 1
                reached["strict"] = reached.get("strict", 0) + (
                    memory["title"] in always or injected
                )
            in_rules[kind] += memory["title"] in always
            reached[kind] += memory["title"] in always or injected
            body_whole = injected and _whole(memory["body"], text)
            full[kind] += entry_in_rules or body_whole
        noisy = 0
        for number, prompt in enumerate(delivery_prompts.UNRELATED):
            noisy += bool(
                run("prompt", "claude", _payload(root, prompt, f"unrelated-{number}")).keys
            )
        hook_ms, hook_cpu = _hook_time(root, runs)
        return {
            "memories": count,
            "total": total,
            "reached": reached,
            "full": full,
            "in_rules": in_rules,
            "noisy": noisy,
            "unrelated": len(delivery_prompts.UNRELATED),
            "always_tokens": -(-len(always) // CHARS_PER_TOKEN),
            "index_tokens": -(-len(index) // CHARS_PER_TOKEN),
            "index_lines": sum(1 for line in index.splitlines() if line.startswith("- ")),
            "hook_ms": hook_ms,
            "hook_cpu": hook_cpu,
            "broken": {
                kind: sum(delivery_prompts.PAIRS[n][0] == kind for n in broken) for kind in CLASSES
            },
        }


def _hook_time(root: Path, runs: int) -> tuple[float, float]:
    """The prompt hook's warm median wall and CPU time (ms) as a process, over the pairs' prompts in
    turn (CPU time, user + system of the process, is what a loaded machine disturbs least)."""
    command = [sys.executable, "-m", "gitmem", "hook", "prompt", "--client", "claude"]
    prompts = [prompt for _, prompt, _ in delivery_prompts.PAIRS]
    time.sleep(1.1)  # files older than the racily-clean second, as in a real checkout
    subprocess.run(
        command, cwd=root, input=_payload(root, prompts[0], "warm"), capture_output=True, check=True
    )
    times, cpu = [], []
    for number in range(runs):
        stdin = _payload(root, prompts[(number * 7) % len(prompts)], "timed")
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        start = time.perf_counter()
        subprocess.run(command, cwd=root, input=stdin, capture_output=True, check=True)
        times.append(time.perf_counter() - start)
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        cpu.append(after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime)
    return statistics.median(times) * 1000, statistics.median(cpu) * 1000


def _measure(tree: Path | None, size: int, words: str, runs: int) -> dict[str, Any]:
    env = dict(os.environ)
    if tree is not None:
        env["PYTHONPATH"] = str(tree.resolve())
    command = [
        sys.executable,
        __file__,
        "--worker",
        str(size),
        "--runs",
        str(runs),
        "--words",
        words,
    ]
    done = subprocess.run(command, capture_output=True, text=True, env=env, check=False)
    if done.returncode != 0:
        raise SystemExit(done.stderr[-2000:])
    result: dict[str, Any] = json.loads(done.stdout)
    return result


def _has_words(tree: Path) -> bool:
    """Whether the checkout's memory schema has the ``words`` field."""
    schema = tree / "gitmem" / "schemas" / "memory.schema.json"
    return '"words"' in schema.read_text(encoding="utf-8")


def _pct(part: int, whole: int) -> str:
    return f"{part}/{whole} {100 * part / whole:3.0f}%" if whole else "-"


def report(size: int, columns: list[tuple[str, dict[str, Any]]]) -> None:
    count = columns[0][1]["memories"]
    print(f"\n{count} memories, budget {BUDGET} tokens, Claude Code")
    print(f"  {'':<34}" + "".join(f"{name:>22}" for name, _ in columns))
    for kind in CLASSES:
        n = columns[0][1]["total"][kind]
        for label, key in (("reaches the model", "reached"), ("injected in full", "full")):
            row = "".join(f"{_pct(r[key][kind], n):>22}" for _, r in columns)
            print(f"  {kind + ' (' + str(n) + '): ' + label:<34}{row}")
    strict = columns[0][1]["total"].get("strict", 0)
    row = "".join(f"{_pct(r['reached'].get('strict', 0), strict):>22}" for _, r in columns)
    print(f"  {'  paraphrases sharing no word':<34}{row}")
    every = sum(columns[0][1]["total"][kind] for kind in CLASSES)
    row = "".join(
        f"{_pct(sum(r['reached'][kind] for kind in CLASSES), every):>22}" for _, r in columns
    )
    print(f"  {'all pairs: reaches the model':<34}{row}")
    row = "".join(f"{_pct(r['noisy'], r['unrelated']):>22}" for _, r in columns)
    print(f"  {'unrelated prompts injecting':<34}{row}")
    row = "".join(f"{r['always_tokens']:>22}" for _, r in columns)
    print(f"  {'always-on gitmem text (tokens)':<34}{row}")
    row = "".join(
        f"{str(r['index_tokens']) + ' (' + str(r['index_lines']) + ' lines)':>22}"
        for _, r in columns
    )
    print(f"  {'  of which the index (tokens)':<34}{row}")
    row = "".join(f"{r['hook_ms']:>21.0f} " for _, r in columns)
    print(f"  {'prompt hook, warm median (ms)':<34}{row}")
    row = "".join(f"{r['hook_cpu']:>21.0f} " for _, r in columns)
    print(f"  {'  its CPU time, median (ms)':<34}{row}")
    broken = columns[-1][1]["broken"]
    print(f"  class check: pairs breaking their class's rule: {broken}")


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--sizes", default="100,1000")
    parser.add_argument(
        "--base", type=Path, help="another checkout of gitmem, measured beside this one"
    )
    parser.add_argument("--runs", type=int, default=15, help="timed hook runs per column")
    parser.add_argument("--worker", type=int, help=argparse.SUPPRESS)
    parser.add_argument(
        "--words", choices=("none", "author", "blind"), default="author", help=argparse.SUPPRESS
    )
    args = parser.parse_args()
    fair.bytecode(args.base)
    if args.worker:
        print(json.dumps(worker(args.worker, args.words, args.runs)))
        return
    for size in (int(n) for n in args.sizes.split(",")):
        columns: list[tuple[str, dict[str, Any]]] = []
        if args.base:
            columns.append(("base", _measure(args.base, size, "none", args.runs)))
        columns.append(("this, no words", _measure(None, size, "none", args.runs)))
        if _has_words(HERE.parent):
            columns.append(("this, blind words", _measure(None, size, "blind", args.runs)))
            columns.append(("this, author's words", _measure(None, size, "author", args.runs)))
        report(size, columns)
    load = os.getloadavg()
    print(f"\nload average {load[0]:.1f} on {os.cpu_count()} CPUs (the hook times are wall times)")


if __name__ == "__main__":
    main()
