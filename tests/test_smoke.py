from __future__ import annotations

import json
from pathlib import Path

from tests.conftest import Run


def test_add_then_list(project: Path, run: Run) -> None:
    result = run("add", "Use pnpm, never npm", "--tag", "build")
    assert result.code == 0, result.err
    assert result.out.strip() == ".memory/memories/use-pnpm-never-npm.yaml"
    listed = json.loads(run("list", "--json").out)
    assert [m["id"] for m in listed] == ["use-pnpm-never-npm"]
    assert listed[0]["tags"] == ["build"]
