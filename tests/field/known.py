"""The field corpus's steps that fail on main (tests/field/test_field.py marks each ``xfail(strict=True)``).

One line per "layout step": the shape it shows (issue 30: what clients read; issue 31: merges and reverts). When
a fix makes a step pass, its test fails as XPASS(strict): delete its line here. ``python benchmarks/field_report.py
--markers`` prints the lines for the steps failing now.
"""

from __future__ import annotations

KNOWN: dict[str, str] = {
    "BrainBlend-AI/atomic-agents merge_a": "issue 30: after merging memory branch a: check finds what the clients read differs",
    "BrainBlend-AI/atomic-agents merge_b": "issue 30: after merging memory branch b: check finds what the clients read differs",
    "BrainBlend-AI/atomic-agents revert": "issue 31: after revert -m 1 of a memory merge: conflicts",
    "BrainBlend-AI/atomic-agents delivery_revert": "issue 31: after the revert, the reverted memory still reaches the clients",
    "Effect-TS/effect check": "issue 30: after adoption: check finds what the clients read differs",
    "Effect-TS/effect clone": "issue 30: in a fresh clone: rules files out of date, check red",
    "Effect-TS/effect merge_a": "issue 30: after merging memory branch a: check finds what the clients read differs",
    "Effect-TS/effect merge_b": "issue 30: after merging memory branch b: check finds what the clients read differs",
    "Effect-TS/effect delivery": "issue 30: memories reach codex not, opencode not, qwen not",
    "Effect-TS/effect revert": "issue 31: after revert -m 1 of a memory merge: conflicts",
    "Effect-TS/effect delivery_revert": "issue 30: after the revert, memories reach codex not, opencode not, qwen not",
    "PrefectHQ/fastmcp revert": "issue 31: after revert -m 1 of a memory merge: conflicts",
    "PrefectHQ/fastmcp delivery_revert": "issue 31: after the revert, the reverted memory still reaches the clients",
    "openai/openai-agents-js handwritten": "issue 30: the adoption path check names (import --accept --move --left-out AGENTS.md) moves the code blocks that follow a list rule into its memory",
    "openai/openai-agents-python handwritten": "issue 30: the adoption path check names (import --accept --move --left-out AGENTS.md) moves the code blocks that follow a list rule into its memory",
    "pydantic/pydantic-ai compile": "issue 30: after adoption: compile fails, an AGENTS.md chain over 32 KiB",
    "pydantic/pydantic-ai check": "issue 30: after adoption: rules files out of date, check red",
    "pydantic/pydantic-ai clone": "issue 30: in a fresh clone: rules files out of date, check red",
    "pydantic/pydantic-ai merge_a": "issue 30: after merging memory branch a: compile fails, an AGENTS.md chain over 32 KiB",
    "pydantic/pydantic-ai merge_b": "issue 30: after merging memory branch b: compile fails, an AGENTS.md chain over 32 KiB",
    "pydantic/pydantic-ai delivery": "issue 30: memories reach claude not, codex not, opencode not, qwen not",
    "pydantic/pydantic-ai revert": "issue 31: after revert -m 1 of a memory merge: rules files out of date, check red",
    "pydantic/pydantic-ai delivery_revert": "issue 30: after the revert, memories reach claude not, codex not, opencode not, qwen not",
    "vitest-dev/vitest check": "issue 30: after adoption: check finds what the clients read differs",
    "vitest-dev/vitest clone": "issue 30: in a fresh clone: check finds what the clients read differs",
    "vitest-dev/vitest merge_a": "issue 30: after merging memory branch a: compile says a memory does not reach Claude Code started in docs/",
    "vitest-dev/vitest merge_b": "issue 30: after merging memory branch b: compile says a memory does not reach Claude Code started in docs/",
    "vitest-dev/vitest revert": "issue 30: after revert -m 1 of a memory merge: check finds what the clients read differs",
}
