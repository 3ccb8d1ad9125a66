"""The session hooks with the real clients (issue 17), against the fake model server: with a 200-token budget that
leaves memory X (``n-plus-one``) out of the rules file, a prompt about X's topic makes the client send X to the
model; an unrelated prompt injects nothing; and `/remember` leaves a scanned journal file."""

from __future__ import annotations

import dataclasses
import json
import sys
from pathlib import Path

import pytest

from gitmem.init import agent_hooks as setup
from tests.clients.conftest import sh
from tests.clients.drivers import CLIENTS, Client, run
from tests.clients.fake_model import FakeModel

sys.path.insert(0, str(Path(__file__).resolve().parent.parent.parent / "benchmarks"))

import hook_project

X_WORD = "selectinload"  # only in memory X's body
HEADER = "gitmem: project memories that bear on this prompt"
ABOUT_X = "The orders list endpoint issues hundreds of queries per page: fix it"
UNRELATED = "Write a haiku about autumn"

# client -> the compile targets whose rules files it reads (the budget applies to them)
TARGETS = {
    "claude": ("claude",),
    "opencode": ("agents",),
    "gemini": ("gemini",),
    "codex": ("agents",),
    "qwen": ("agents",),
    "copilot": ("copilot",),
}


def driver(name: str) -> Client:
    client = CLIENTS[name]
    if (
        name == "copilot"
    ):  # repository hooks load in prompt mode (-p) only when allowed (or the folder is trusted)
        base = client.setup
        return dataclasses.replace(
            client,
            setup=lambda home, url: {
                **base(home, url),
                "GITHUB_COPILOT_PROMPT_MODE_REPO_HOOKS": "true",
            },
        )
    if (
        name == "codex"
    ):  # project hooks run in a trusted project, once each hook is trusted (/hooks) or, for
        # automation that vets the hooks itself, with --dangerously-bypass-hook-trust
        return dataclasses.replace(
            client,
            argv=lambda p: [
                "codex",
                "exec",
                "--skip-git-repo-check",
                "--trust",
                "--dangerously-bypass-hook-trust",
                p,
            ],
        )
    return client


def project(tmp_path: Path, name: str) -> Path:
    root = hook_project.build(tmp_path / "repo", budget=200, targets=TARGETS[name])
    for rules in ("CLAUDE.md", "AGENTS.md", "GEMINI.md", ".github/copilot-instructions.md"):
        if (root / rules).exists():
            assert X_WORD not in (root / rules).read_text(encoding="utf-8")  # the budget left X out
    setup.apply(setup.plan(root, [name]), root)
    sh(root, "git", "add", "-A")
    sh(root, "git", "commit", "-qm", "set up")
    return root


def sent(model: FakeModel, start: int = 0) -> str:
    return "\n".join(request.text() for request in model.model_requests()[start:])


@pytest.mark.parametrize("name", sorted(TARGETS))
def test_a_prompt_about_x_sends_x_and_an_unrelated_one_nothing(tmp_path: Path, name: str) -> None:
    root = project(tmp_path, name)
    with FakeModel(tool="no-such-tool") as model:
        about = run(driver(name), root, ABOUT_X, model, tmp_path / "home")
        text = sent(model)
        assert about.requests, f"{name} sent nothing (exit {about.code}): {about.err[-1500:]}"
        assert HEADER in text and X_WORD in text, f"{name}: X did not reach the model"
        count = len(model.model_requests())
        other = run(driver(name), root, UNRELATED, model, tmp_path / "home")
        assert other.requests, f"{name} sent nothing (exit {other.code}): {other.err[-1500:]}"
        assert HEADER not in sent(model, count), f"{name}: an unrelated prompt injected memories"


JOURNAL = """# Session: orders endpoint

## Decisions
- Load order lines with selectinload in the orders list.

## Difficulties
- The orders list issued a query per row.

## Conventions
- Check the query count of list endpoints in tests.

## To do
- Same fix for the invoices list.
"""

# client -> (its shell tool's name, the arguments it takes, how to run the /remember command non-interactively)
REMEMBER = {
    "claude": ("Bash", "command", lambda: ["claude", "-p", "/remember"]),
    "opencode": (
        "bash",
        "command",
        lambda: ["opencode", "run", "--model", "fake/fake-model", "--command", "remember"],
    ),
}


def store(journal: str) -> str:
    return f"gitmem journal add - <<'GITMEM_JOURNAL'\n{journal}GITMEM_JOURNAL"


@pytest.mark.parametrize("name", sorted(REMEMBER))
def test_remember_leaves_a_scanned_journal(tmp_path: Path, name: str) -> None:
    root = project(tmp_path, name)
    tool, argument, argv = REMEMBER[name]
    client = dataclasses.replace(driver(name), argv=lambda _prompt: argv())
    journal_dir = root / ".memory" / "journal"
    before = set(journal_dir.glob("*.md"))
    key = "sk_live_" + "4eC39HqLyjWDarjtT1zdp7dc" * 2  # built at run time: a fake Stripe-shaped key
    with FakeModel(
        tool=tool,
        tool_args={argument: store(JOURNAL.replace("query per row", key)), "description": "j"},
    ) as m:
        refused = run(client, root, "/remember", m, tmp_path / "home")
        assert m.tool_calls == 1, (
            f"{name} did not run the command (exit {refused.code}): {refused.err[-1500:]}"
        )
        assert "possible secret" in sent(
            m
        )  # gitmem's refusal went back to the model as the tool's result
    assert set(journal_dir.glob("*.md")) == before  # the scan refused the journal holding a secret
    with FakeModel(
        tool=tool, tool_args={argument: store(JOURNAL), "description": "store the journal"}
    ) as m:
        done = run(client, root, "/remember", m, tmp_path / "home")
        assert m.tool_calls == 1, f"{name}: exit {done.code}: {done.err[-1500:]}"
        assert "## Difficulties" in sent(m) and "gitmem journal add -" in sent(
            m
        )  # /remember's instructions
    written = sorted(set(journal_dir.glob("*.md")) - before)
    assert len(written) == 1, f"{name}: no journal written"
    text = written[0].read_text(encoding="utf-8")
    assert text.startswith("# Session: orders endpoint") and "selectinload" in text
    assert key not in "".join(p.read_text(encoding="utf-8") for p in journal_dir.glob("*.md"))
    assert json.loads(sh(root, "gitmem", "scan", "--json", str(written[0])))["findings"] == []


def test_claude_code_is_reminded_once_to_write_the_journal(tmp_path: Path) -> None:
    """The Stop hook: a session that changed a file and wrote no journal is asked for it, once."""
    root = project(tmp_path, "claude")
    client = dataclasses.replace(
        driver("claude"), argv=lambda p: ["claude", "-p", p, "--allowedTools", "Bash(touch:*)"]
    )
    with FakeModel(
        tool="Bash", tool_args={"command": "touch notes.txt", "description": "write"}
    ) as model:
        done = run(client, root, "Create notes.txt", model, tmp_path / "home")
        assert (root / "notes.txt").is_file(), f"exit {done.code}: {done.err[-1500:]}"
        reminders = [
            r for r in model.model_requests() if "changed files and wrote no journal" in r.text()
        ]
        assert reminders, "the Stop hook's reminder did not reach the model"
        assert "gitmem journal add -" in reminders[0].text()
    with FakeModel(
        tool="no-such-tool"
    ) as model:  # a new session that changes nothing is not reminded
        run(client, root, "Anything else?", model, tmp_path / "home")
        assert model.model_requests()
        assert not any("wrote no journal" in r.text() for r in model.model_requests())
