"""The field corpus's steps that fail on main (tests/field/test_field.py marks each ``xfail(strict=True)``).

One line per "layout step": the shape it shows (issue 30: what clients read; issue 31: merges and reverts). When
a fix makes a step pass, its test fails as XPASS(strict): delete its line here. ``python benchmarks/field_report.py
--markers`` prints the lines for the steps failing now.
"""

from __future__ import annotations

KNOWN: dict[str, str] = {}
