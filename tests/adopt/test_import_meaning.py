"""Issue 30 point 6: import keeps what a rule means. Rules a client loads only on demand stay on demand, Copilot
code-review-only instructions stay for code review, vendored skill bundles and counter-examples are not imported
as rules unless asked, a numbered procedure stays whole, and a long rule's body does not repeat its title."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.adopt.test_import import by_title as _titles
from tests.adopt.test_import import imported as _import
from tests.conftest import Run, git


def _write(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")


@pytest.fixture
def adopted(repo: Path, run: Run) -> Path:
    _write(repo / "AGENTS.md", "# Rules\n\n- Use pnpm, never npm.\n")
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "rules")
    assert run("init", "--no-hooks", "--target", "agents", "--target", "claude").code == 0
    return repo


CONTINUE_ON_DEMAND = """\
---
name: Release checklist
description: How to cut a release of the storefront
alwaysApply: false
---

- Bump the version in `package.json` with `pnpm version`.
"""

CURSOR_REQUESTED = """\
---
description: Rules for the payments service
globs:
alwaysApply: false
---

- Amounts are integers in minor units, never floats.
"""


def test_rules_a_client_loads_on_demand_stay_on_demand(adopted: Path, run: Run) -> None:
    _write(adopted / ".continue" / "rules" / "release.md", CONTINUE_ON_DEMAND)
    _write(adopted / ".cursor" / "rules" / "payments.mdc", CURSOR_REQUESTED)
    assert "2 of them on demand" in run("import", "--dry-run").err
    memories = _titles(_import(run, "--accept"))
    release = memories["Bump the version in `package.json` with `pnpm version`"]
    payments = memories["Amounts are integers in minor units, never floats"]
    assert release["priority"] == payments["priority"] == "on-demand"
    assert run("compile").code == 0
    compiled = (adopted / "AGENTS.md").read_text(encoding="utf-8")
    assert "Use pnpm, never npm" in compiled  # always-on rules are compiled
    assert (
        "pnpm version" not in compiled and "minor units" not in compiled
    )  # on-demand ones are not
    explained = json.loads(run("explain", "--json").out)
    claude = next(client for client in explained["clients"] if client["name"] == "claude")
    on_demand = {item["id"] for item in claude["on_demand"]}
    assert {release["id"], payments["id"]} <= on_demand
    assert release["id"] not in {item["id"] for item in claude["full"]}
    found = run("recall", "how do I bump the version for a release", "--json")
    assert release["id"] in found.out  # recall (and the prompt hook) bring it when a task needs it


REVIEW_ONLY = """\
---
applyTo: "**"
excludeAgent: "coding-agent"
---

- Flag every new dependency in the review summary.
"""

AGENT_ONLY = """\
---
applyTo: "**/*.ts"
excludeAgent: "code-review"
---

- Run `pnpm lint --fix` before committing TypeScript.
"""


def test_copilot_code_review_only_instructions_stay_for_code_review(
    adopted: Path, run: Run
) -> None:
    review = adopted / ".github" / "instructions" / "review.instructions.md"
    _write(review, REVIEW_ONLY)
    _write(adopted / ".github" / "instructions" / "lint.instructions.md", AGENT_ONLY)
    data = _import(run, "--accept", "--move")
    titles = _titles(data)
    assert "Flag every new dependency in the review summary" not in titles
    assert (
        "Run `pnpm lint --fix` before committing TypeScript" in titles
    )  # for the coding agent: imported
    skipped = [
        s for s in data["skipped"] if s["path"] == ".github/instructions/review.instructions.md"
    ]
    assert len(skipped) == 1 and "code review only" in skipped[0]["reason"]
    assert run("compile").code == 0
    assert review.read_text(encoding="utf-8") == REVIEW_ONLY  # still there, for code review alone
    assert "new dependency" not in (adopted / "AGENTS.md").read_text(encoding="utf-8")


SKILL_AGENTS = "# React best practices\n\n" + "".join(
    f"- Rule {n}: memoise component {n} only when profiling shows it re-renders.\n"
    for n in range(40)
)


def test_vendored_skill_bundles_are_not_imported_as_rules_unless_asked(
    adopted: Path, run: Run
) -> None:
    bundle = adopted / ".claude" / "skills" / "react-best-practices"
    _write(
        bundle / "SKILL.md",
        "---\nname: react-best-practices\ndescription: React performance\n---\nRead AGENTS.md\n",
    )
    _write(bundle / "AGENTS.md", SKILL_AGENTS)
    _write(
        adopted / "tools" / "lint-kit" / "SKILL.md",
        "---\nname: lint-kit\ndescription: Linting\n---\n",
    )
    _write(
        adopted / "tools" / "lint-kit" / "CLAUDE.md",
        "- Lint kit rule: run the kit before pushing.\n",
    )
    data = _import(run, "--dry-run")
    assert not any("memoise component" in title or "Lint kit" in title for title in _titles(data))
    reasons = {s["path"]: s["reason"] for s in data["skipped"]}
    assert (
        "skill bundle .claude/skills/react-best-practices/"
        in reasons[".claude/skills/react-best-practices/AGENTS.md"]
    )
    assert "skill bundle tools/lint-kit/" in reasons["tools/lint-kit/CLAUDE.md"]
    asked = _import(run, "--dry-run", "--skills")
    assert sum("memoise component" in title for title in _titles(asked)) == 40


COUNTER = """\
# Performance

## Avoid barrel imports

Import from the module that defines a symbol, not from an index that re-exports everything.

**Incorrect (imports the whole library):**

```ts
import { Check } from "lucide-react";
```

**Correct (imports only what it uses):**

```ts
import Check from "lucide-react/dist/esm/icons/check";
```

Don't do this:

```ts
export * from "./everything";
```
"""


def test_counter_examples_are_not_imported_as_rules_unless_asked(adopted: Path, run: Run) -> None:
    _write(adopted / "CLAUDE.md", COUNTER)
    data = _import(run, "--dry-run", "CLAUDE.md")
    titles = _titles(data)
    assert not [title for title in titles if title.startswith(("Incorrect", "Don't do this"))]
    assert any(title.startswith("Import from the module that defines a symbol") for title in titles)
    assert sum("counter-example" in s["reason"] for s in data["skipped"]) == 2
    asked = _titles(_import(run, "--dry-run", "--counter-examples", "CLAUDE.md"))
    assert any(title.startswith("Incorrect") for title in asked)


PROCEDURE = """\
# Releasing

## Cutting a release

To cut a release:

1. Do not tag from a feature branch.

```sh
git switch main && git pull
```

Then wait until CI is green on main.

2. Tag `vX.Y.Z` on main with `git tag -s`.
3. Push the tag; the release workflow publishes it.

## Hotfixes

- Hotfix:
  1. Never commit to the release branch directly.
  2. Open a pull request against it from `hotfix/NAME`.
"""


def test_a_numbered_procedure_is_one_memory_never_its_first_step_alone(
    adopted: Path, run: Run
) -> None:
    _write(adopted / "CLAUDE.md", PROCEDURE)
    memories = _import(run, "--dry-run", "CLAUDE.md")["memories"]
    assert not [
        m["title"]
        for m in memories
        if m["title"].startswith(("Do not tag", "Never commit", "Then wait"))
    ]
    release = next(m for m in memories if m["title"] == "To cut a release")
    body = release["body"]
    assert (
        body.index("1. Do not tag")
        < body.index("Then wait")
        < body.index("2. Tag")
        < body.index("3. Push")
    )
    hotfix = next(m for m in memories if m["title"] == "Hotfix")
    assert "1. Never commit" in hotfix["body"] and "2. Open a pull request" in hotfix["body"]


LONG = (
    "- Every handler that reads from the orders table must go through the read replica pool configured in "
    "`db/replicas.ts`, because the primary is reserved for writes and for the nightly settlement job that locks "
    "rows for minutes at a time. Use `withReplica()` for that.\n"
)


def test_a_long_rules_body_does_not_repeat_its_title(adopted: Path, run: Run) -> None:
    _write(adopted / "CLAUDE.md", LONG)
    memory = _import(run, "--dry-run", "CLAUDE.md")["memories"][0]
    title, body = memory["title"], memory["body"]
    assert title.endswith("…") and body.startswith("…")
    said = title.removesuffix("…")
    assert said not in body  # the body goes on from the cut, it does not say the title again
    assert " ".join((said + body.removeprefix("…")).split()).startswith("Every handler that reads")
    assert "Use `withReplica()` for that." in body
