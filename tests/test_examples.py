"""The example configurations under hooks/ stay valid and name what exists."""

from __future__ import annotations

import json
from pathlib import Path

from gitmem import yamlio
from gitmem.init.hooks import HOOKS

ROOT = Path(__file__).resolve().parent.parent


def test_remote_precommit_example_names_published_hooks() -> None:
    published = {
        hook["id"] for hook in yamlio.load_plain((ROOT / ".pre-commit-hooks.yaml").read_text())
    }
    example = yamlio.load_plain((ROOT / "hooks" / "pre-commit-config.remote.yaml").read_text())
    used = {hook["id"] for repo in example["repos"] for hook in repo["hooks"]}
    assert used == {hook.id for hook in HOOKS}
    assert used <= published


def test_published_hooks_run_what_init_writes() -> None:
    published = {
        hook["id"]: hook
        for hook in yamlio.load_plain((ROOT / ".pre-commit-hooks.yaml").read_text())
    }
    for hook in HOOKS:
        assert published[hook.id]["entry"] == hook.entry


def test_workflow_example_is_what_init_ci_github_writes() -> None:
    from gitmem.init.ci import workflow_text

    assert (ROOT / "hooks" / "github-workflow.yml").read_text() == workflow_text("main", None)


def test_mcp_examples_match_what_init_writes(repo: Path) -> None:
    from gitmem.gateway import find_project
    from gitmem.init.mcp import plan, register

    register(find_project(), plan(find_project()))
    for example, written in (("opencode.json", "opencode.json"), ("mcp.json", ".mcp.json")):
        expected = json.loads((ROOT / "hooks" / example).read_text())
        actual = json.loads((repo / written).read_text())
        key = "mcp" if example == "opencode.json" else "mcpServers"
        assert actual[key]["gitmem"] == expected[key]["gitmem"], example
