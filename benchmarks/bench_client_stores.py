"""What harvesting the clients' own memory costs: `gitmem import --from claude`, and the
session-start check.

1. Import. A Claude Code store of N memory files (200: the most Claude Code and gitmem read), in
   Claude Code's format, in a repository holding 500 memories. The peer is plain `gitmem import
   --dry-run` of an AGENTS.md holding the same N memories as bullets: the same per-item work (title,
   kind, near-duplicate search, check against removals, schema check). Both as real processes with
   --dry-run; then the real import and a rerun, which finds every entry imported before.

2. The session-start status, which now also looks at the four clients' stores (sizes and times,
   never the text): `gitmem hook session-start` with that store (all imported: nothing to say) and
   with a home folder holding no store (the peer: the hook's cost before), and
   `gitmem.clientstores.pending` for the four clients in-process.

    python benchmarks/bench_client_stores.py          # N = 200
    python benchmarks/bench_client_stores.py 50
"""

from __future__ import annotations

import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from gitmem import clientstores

WORDS = [
    "build",
    "cache",
    "deploy",
    "lint",
    "lock",
    "merge",
    "queue",
    "release",
    "schema",
    "shard",
    "test",
    "token",
    "tree",
    "vendor",
    "worker",
]


def _sentence(n: int) -> str:
    picked = [WORDS[(n * 7 + i * 3) % len(WORDS)] for i in range(6)]
    return (
        f"Keep the {picked[0]} {picked[1]} for {picked[2]} {picked[3]} number {n} in "
        f"{picked[4]} {picked[5]}"
    )


def _run(args: list[str], cwd: Path, env: dict[str, str], stdin: str | None = None) -> float:
    began = time.perf_counter()
    done = subprocess.run(
        args, cwd=cwd, env=env, input=stdin, capture_output=True, text=True, check=False
    )
    elapsed = time.perf_counter() - began
    if done.returncode not in (0, 1):
        raise SystemExit(f"{' '.join(args)} failed: {done.stderr[-2000:]}")
    return elapsed


def _median(
    args: list[str], cwd: Path, env: dict[str, str], runs: int, stdin: str | None = None
) -> float:
    return statistics.median(_run(args, cwd, env, stdin) for _ in range(runs))


def main(n: int) -> None:
    import fair  # (benchmarks/, this script's folder)

    fair.bytecode()
    gitmem = [sys.executable, "-m", "gitmem"]
    with tempfile.TemporaryDirectory() as tmp:
        base = Path(tmp)
        repo, home, bare = base / "repo", base / "home", base / "bare"
        repo.mkdir()
        home.mkdir()
        bare.mkdir()
        env = {**os.environ, "HOME": str(home), "XDG_CONFIG_HOME": str(home / ".config")}
        for args in (
            ["git", "init", "-q"],
            ["git", "config", "user.email", "b@x"],
            ["git", "config", "user.name", "b"],
        ):
            subprocess.run(args, cwd=repo, check=True)
        subprocess.run(
            [*gitmem, "init", "--no-hooks"], cwd=repo, env=env, check=True, capture_output=True
        )
        memories = repo / ".memory" / "memories"
        for i in range(500):
            title = f"Existing memory {i} about {WORDS[i % len(WORDS)]}"
            text = f"id: existing-{i}\ntitle: {title}\nkind: fact\nstatus: active\n"
            (memories / f"existing-{i}.yaml").write_text(text)
        subprocess.run(["git", "add", "-A"], cwd=repo, check=True)
        subprocess.run(["git", "commit", "-qm", "memories"], cwd=repo, check=True)

        folder = home / ".claude" / "projects" / clientstores.claude_key(str(repo)) / "memory"
        folder.mkdir(parents=True)
        index = []
        for i in range(n):
            text = (
                f'---\nname: m-{i}\ndescription: "{_sentence(i)}"\nmetadata:\n  node_type: '
                "memory\n  type: feedback\n"
                "  modified: 2026-12-01T20:12:17.614Z\n---\n\nBecause "
                f"{_sentence(i + n).lower()}.\n"
            )
            (folder / f"feedback_{i}.md").write_text(text)
            index.append(f"- [M {i}](feedback_{i}.md) — hook")
        (folder / "MEMORY.md").write_text("\n".join(index) + "\n")
        agents = repo / "AGENTS.md"
        agents.write_text(
            "# Rules\n\n"
            + "".join(
                f"- {_sentence(i)}\n  Because {_sentence(i + n).lower()}.\n" for i in range(n)
            )
        )

        runs = 5
        from_claude = _median([*gitmem, "import", "--from", "claude", "--dry-run"], repo, env, runs)
        plain = _median([*gitmem, "import", "--dry-run", "AGENTS.md"], repo, env, runs)
        agents.unlink()
        first = _run([*gitmem, "import", "--from", "claude"], repo, env)
        again = _median([*gitmem, "import", "--from", "claude", "--dry-run"], repo, env, runs)

        payload = json.dumps({"session_id": "bench", "cwd": str(repo)})
        hook = [*gitmem, "hook", "session-start", "--client", "claude"]
        bare_env = {**env, "HOME": str(bare), "XDG_CONFIG_HOME": str(bare / ".config")}
        _run(hook, repo, env, payload)  # (the first builds the recall index)
        pairs = [
            (_run(hook, repo, env, payload), _run(hook, repo, bare_env, payload)) for _ in range(15)
        ]
        with_store = statistics.median(
            a for a, _ in pairs
        )  # alternated, so the machine's load hits both alike
        without = statistics.median(b for _, b in pairs)

        seen = clientstores.load_record(repo / ".git" / "gitmem")["stores"]
        began = time.perf_counter()
        for _ in range(100):
            for name in clientstores.NAMES:
                clientstores.pending(name, repo, home, seen.get(name, {}))
        check = (time.perf_counter() - began) / 100

    print(
        f"Claude Code store of {n} memory files, repository of 500 memories, medians of "
        f"{runs} runs:"
    )
    print(f"  import --from claude --dry-run        {from_claude:6.2f} s")
    print(
        f"  import --dry-run AGENTS.md (peer)     {plain:6.2f} s   ratio {from_claude / plain:.2f}x"
    )
    print(f"  import --from claude (writes {n})     {first:6.2f} s")
    print(f"  rerun, everything imported before     {again:6.2f} s")
    print("session-start hook, medians of 15 alternated runs:")
    print(f"  with the store (nothing to say)       {with_store * 1000:6.0f} ms")
    print(
        f"  with no store in the home (peer)      {without * 1000:6.0f} ms   ratio "
        f"{with_store / without:.2f}x"
    )
    print(f"  clientstores.pending, four clients    {check * 1000:6.2f} ms in-process")


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 200)
