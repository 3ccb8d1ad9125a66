# ruff: noqa: E501
"""The field corpus's steps that fail on main (tests/field/test_field.py marks each ``xfail(strict=True)``).

One line per "layout step": the shape it shows (issue 30: what clients read; issue 31: merges and reverts). When
a fix makes a step pass, its test fails as XPASS(strict): delete its line here. ``python benchmarks/field_report.py
--markers`` prints the lines for the steps failing now.
"""

from __future__ import annotations

KNOWN: dict[str, str] = {
    "BrainBlend-AI/atomic-agents revert": "issue 31: revert -m 1 of a memory merge: conflicts",
    "BrainBlend-AI/atomic-agents delivery_revert": "issue 30: after the revert, memories reach claude not, codex not, opencode not, qwen not",
    "DataDog/dd-trace-js delivery": "issue 30: memories reach aider twice, claude twice",
    "DataDog/dd-trace-js delivery_revert": "issue 30: after the revert, memories reach aider twice, claude twice",
    "DataDog/dd-trace-js handwritten": "issue 30: the adoption path takes code blocks/headings out of a hand-written file",
    "Effect-TS/effect clone": "issue 30: check red in a fresh clone",
    "Effect-TS/effect delivery": "issue 30: memories reach codex not, opencode not, qwen not",
    "Effect-TS/effect revert": "issue 31: revert -m 1 of a memory merge: conflicts",
    "Effect-TS/effect delivery_revert": "issue 30: after the revert, memories reach codex not, opencode not, qwen not",
    "PrefectHQ/fastmcp delivery": "issue 30: memories reach codex not, copilot not, cursor not, opencode not, qwen not",
    "PrefectHQ/fastmcp delivery_revert": "issue 30: after the revert, memories reach codex not, copilot not, cursor not, opencode not, qwen not",
    "Shopify/ruby-lsp explain": "issue 30: explain differs from the files on disk for claude",
    "getsentry/sentry-python explain": "issue 30: explain differs from the files on disk for claude",
    "openai/openai-agents-js explain": "issue 30: explain differs from the files on disk for claude",
    "openai/openai-agents-js handwritten": "issue 30: the adoption path takes code blocks/headings out of a hand-written file",
    "openai/openai-agents-python explain": "issue 30: explain differs from the files on disk for claude",
    "openai/openai-agents-python handwritten": "issue 30: the adoption path takes code blocks/headings out of a hand-written file",
    "pydantic/pydantic-ai compile": "issue 30: an AGENTS.md chain over 32 KiB: compile fails even after the adoption path",
    "pydantic/pydantic-ai check": "issue 30: check red after adoption",
    "pydantic/pydantic-ai explain": "issue 30: explain differs from the files on disk for codex, opencode, qwen",
    "pydantic/pydantic-ai clone": "issue 30: check red in a fresh clone",
    "pydantic/pydantic-ai merge_a": "issue 30: compile on memory branch a fails: an AGENTS.md chain over 32 KiB",
    "pydantic/pydantic-ai merge_b": "issue 30: compile on memory branch b fails: an AGENTS.md chain over 32 KiB",
    "pydantic/pydantic-ai delivery": "issue 30: memories reach claude not, codex not, opencode not, qwen not",
    "pydantic/pydantic-ai revert": "issue 31: revert -m 1 of a memory merge: rules files left stale, check red",
    "pydantic/pydantic-ai delivery_revert": "issue 30: after the revert, memories reach claude not, codex not, opencode not, qwen not",
    "temporalio/sdk-go explain": "issue 30: explain differs from the files on disk for claude",
    "vercel-labs/agent-skills explain": "issue 30: explain differs from the files on disk for claude",
}
