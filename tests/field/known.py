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
    "PrefectHQ/fastmcp revert": "issue 31: after revert -m 1 of a memory merge: conflicts",
    "PrefectHQ/fastmcp delivery_revert": "issue 31: after the revert, the reverted memory still reaches the clients",
}
