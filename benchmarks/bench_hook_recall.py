"""How often the right memory reaches the model, with the session hooks and without them.

    python benchmarks/bench_hook_recall.py [--fillers 0,954] [--blind-words]

The prompts are benchmarks/hook_pairs.py's (46 prompt -> memory pairs, 24 unrelated prompts); the
memories are tests/recall_set.py's, compiled for Claude Code (CLAUDE.md) and AGENTS.md readers under
a 200-token budget.
Without hooks, a memory reaches the model only when the rules file holds it. With hooks, also when
the prompt hook injects it (each prompt a new session). Run again with 954 filler memories beside
them (1,000 in all), to see how the relevance bar holds on a larger store. --blind-words: the
memories carry the ``words`` another session wrote for them without seeing any prompt
(delivery_words_blind.py): this set tunes how the hook uses them, and bench_delivery.py's held-out
prompts report on it.
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import hook_pairs
import hook_project

from gitmem.hook import inject
from gitmem.hook.run import run


def measure(fillers: int, words: dict[str, list[str]] | None = None) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        root = hook_project.build(Path(tmp) / "repo", extra=fillers, words=words)
        count = len(list((root / ".memory" / "memories").glob("*.yaml")))
        for client, rules in (("claude", "CLAUDE.md"), ("opencode", "AGENTS.md")):
            loaded = inject.loaded_ids([root / rules], root)
            without = with_hooks = injected_total = first = 0
            for number, (prompt, expected) in enumerate(hook_pairs.PAIRS):
                payload = {
                    "session_id": f"{client}-{fillers}-{number}",
                    "cwd": str(root),
                    "prompt": prompt,
                }
                answer = run("prompt", client, json.dumps(payload).encode())
                injected = list(answer.keys)
                injected_total += len(injected)
                in_rules = expected in loaded
                without += in_rules
                with_hooks += in_rules or expected in injected
                first += bool(injected) and injected[0] == expected
            quiet = 0
            for number, prompt in enumerate(hook_pairs.UNRELATED):
                payload = {
                    "session_id": f"{client}-{fillers}-u{number}",
                    "cwd": str(root),
                    "prompt": prompt,
                }
                quiet += run("prompt", client, json.dumps(payload).encode()).stdout == ""
            pairs = len(hook_pairs.PAIRS)
            print(
                f"{count} memories, {client} ({rules} holds {len(loaded)}): right memory reaches "
                f"the model without hooks {without}/{pairs} ({100 * without / pairs:.0f}%), with "
                f"hooks {with_hooks}/{pairs} ({100 * with_hooks / pairs:.0f}%); injected first "
                f"{first}/{pairs}; {injected_total / pairs:.1f} memories injected per prompt; "
                f"unrelated prompts injecting nothing {quiet}/{len(hook_pairs.UNRELATED)}"
            )


def main() -> None:
    import fair  # (benchmarks/, this script's folder)

    fair.bytecode()
    parser = argparse.ArgumentParser()
    parser.add_argument("--fillers", default="0,954")
    parser.add_argument(
        "--blind-words", action="store_true", help="the memories carry words written blind"
    )
    args = parser.parse_args()
    words = None
    if args.blind_words:
        from delivery_words_blind import BLIND_WORDS

        words = BLIND_WORDS
    for fillers in (int(n) for n in args.fillers.split(",")):
        measure(fillers, words)


if __name__ == "__main__":
    main()
