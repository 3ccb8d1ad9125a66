"""Each AI client, run for real against a fake model server, in a repository gitmem compiled (issue 16).

Per client: the active memory reaches the model once, the proposed one never, the hand-written text does, path-scoped
memories arrive where and when the client scopes them, and gitmem's recall tool is offered and (where the client
runs it) returns the memory. What each client reads is in docs/clients.md; the figures there come from these runs.
"""

from __future__ import annotations

import subprocess
from dataclasses import dataclass
from pathlib import Path

import pytest

from tests.clients.conftest import sh
from tests.clients.drivers import CLIENTS, Session, run
from tests.clients.fake_model import FakeModel

ACTIVE = "Kumquat"  # a word in the active memory only
SCOPED = "Quokka"  # in the web/** memory only
PROPOSED = "Narwhal"  # in the proposed memory only
HAND = "Ocelot"  # in the hand-written text around gitmem's blocks
PROMPT = "Which package manager does this project use? Check the project memory."


@dataclass(frozen=True)
class Expect:
    client: str
    targets: tuple[str, ...]  # what `gitmem init` is told to compile for this client
    scoped_at_root: bool  # the web/** memory is sent in a session started at the root
    scoped_in_web: bool  # ... and in one started in web/
    recall: str  # "called": offered and run; "" not offered; "racy": offered, and run, only when the server was up
    # in time (see the note)
    note: str = ""
    times: int = 1  # how often the active memory reaches the model (more: compile must have warned)
    warned: str = ""  # ... with this warning
    times_in_web: int | None = None  # the same in a session started in web/ (default: times)


_CLINE_MCP = (
    "cline 3.0.65 does not wait for its MCP servers: it offers gitmem's tools when `gitmem mcp` is up before the "
    "first request (most runs on an idle machine, few under load)"
)

EXPECT = {
    "claude": Expect("claude", ("claude",), False, True, "called"),
    # Without a CLAUDE.md, Claude Code reads AGENTS.md (its default instructionFiles setting).
    "claude-agents-only": Expect("claude", ("agents",), False, True, "called"),
    "codex": Expect("codex", ("agents",), False, True, "called"),
    "gemini": Expect("gemini", ("gemini",), False, True, "called"),
    "opencode": Expect("opencode", ("agents",), False, True, "called"),
    # Without an AGENTS.md, opencode reads CLAUDE.md.
    "opencode-claude-only": Expect("opencode", ("claude",), False, True, "called"),
    "qwen": Expect(
        "qwen",
        ("agents",),
        False,
        True,
        "",
        "qwen 0.24 -p offers a tool_search tool and none of the MCP servers' tools",
    ),
    "copilot": Expect(
        "copilot", ("copilot",), False, False, "", "copilot 1.0.102 -p did not load .mcp.json"
    ),
    # The Copilot CLI reads AGENTS.md and GEMINI.md too: it got every memory 3 times before compile placed each once
    # (GEMINI.md now imports AGENTS.md, and copilot-instructions.md holds only what is for copilot alone).
    "copilot-duplicates": Expect("copilot", ("agents", "gemini", "copilot"), False, True, ""),
    # Cline CLI ignores `paths:`, so gitmem puts scoped memories in its one file, named by their globs; started in a
    # subfolder it loads no rules of the root (only that folder's own AGENTS.md).
    # aider reads CONVENTIONS.md through the .aider.conf.yml gitmem writes: every memory, scoped ones too (one file).
    # Its `read:` path is taken from the start directory, so started in web/ it reads none (aider warns).
    "aider": Expect(
        "aider", ("aider",), True, False, "", "aider 0.86 has no MCP client", times_in_web=0
    ),
    "cline": Expect("cline", ("cline",), True, False, "racy", _CLINE_MCP, times_in_web=0),
    # Cline reads AGENTS.md too: twice before; now .clinerules/gitmem.md holds only what is for cline alone, and the
    # web/** memory is in web/AGENTS.md, which Cline loads started there (not at the root).
    "cline-duplicates": Expect(
        "cline", ("agents", "cline"), False, True, "racy", _CLINE_MCP, times_in_web=0
    ),
}


def init_with_active(repo: Path, targets: tuple[str, ...], scoped: bool = True) -> None:
    """``gitmem init`` for ``targets`` in ``repo`` (with web/app.ts), then the active memory and (``scoped``) the
    web/** one."""
    (repo / "web").mkdir(parents=True, exist_ok=True)
    (repo / "web" / "app.ts").write_text("export const x = 1;\n", encoding="utf-8")
    flags = [item for name in targets for item in ("--target", name)]
    sh(repo, "gitmem", "init", "--no-hooks", "--mcp", *flags)
    sh(
        repo,
        "gitmem",
        "add",
        f"Use pnpm, never npm ({ACTIVE})",
        "--body",
        "npm rewrites pnpm-lock.yaml.",
    )
    if scoped:
        sh(repo, "gitmem", "add", f"Web code is indented with tabs ({SCOPED})", "--path", "web/**")


def _repo(tmp_path: Path, targets: tuple[str, ...]) -> Path:
    repo = tmp_path / "repo"
    (repo / "web").mkdir(parents=True)
    sh(repo, "git", "init", "-q", "-b", "main")
    roots = {
        "agents": "AGENTS.md",
        "claude": "CLAUDE.md",
        "gemini": "GEMINI.md",
        "copilot": ".github/copilot-instructions.md",
        "cline": ".clinerules/team.md",  # gitmem's file there is whole: the team's own rules sit beside it
        "aider": "CONVENTIONS.md",
    }
    for name in (roots[target] for target in targets if target in roots):
        # Each file's own words: a client that merges identical files (the Copilot CLI does) must not hide a duplicate.
        (repo / name).parent.mkdir(exist_ok=True)
        (repo / name).write_text(
            f"# Team notes ({name})\n\nThe {HAND} service owns the queue.\n", encoding="utf-8"
        )
    init_with_active(repo, targets)
    sh(repo, "gitmem", "add", f"Maybe switch to yarn ({PROPOSED})", "--proposed")
    compiled = subprocess.run(
        ["gitmem", "compile"], cwd=repo, capture_output=True, text=True, check=False
    )
    assert compiled.returncode == 0, compiled.stderr
    (repo.parent / "compile.err").write_text(compiled.stderr, encoding="utf-8")
    sh(repo, "git", "add", "-A")
    sh(repo, "git", "-c", "user.name=t", "-c", "user.email=t@example.com", "commit", "-qm", "init")
    return repo


def _session(name: str, cwd: Path, model: FakeModel, home: Path) -> Session:
    name = EXPECT[name].client if name in EXPECT else name
    session = run(CLIENTS[name], cwd, PROMPT, model, home)
    assert session.code == 0, f"{name} exited {session.code}: {session.err[-3000:]}"
    return session


@pytest.mark.parametrize("name", sorted(EXPECT))
def test_client_gets_the_memories_once_and_the_recall_tool(
    name: str, model: FakeModel, tmp_path: Path
) -> None:
    expect = EXPECT[name]
    repo = _repo(tmp_path, expect.targets)
    session = _session(name, repo, model, tmp_path / "home")
    first = session.first().text()
    times = first.count(ACTIVE)
    assert times == expect.times, f"{name}: the active memory was sent {times} times"
    if times > 1:
        assert expect.warned and expect.warned in (repo.parent / "compile.err").read_text(
            encoding="utf-8"
        )
    assert PROPOSED not in first
    assert HAND in first
    assert (SCOPED in first) == expect.scoped_at_root
    # Offered in the conversation (Claude Code may first offer a tool to wait for its MCP servers).
    offered = [
        tool for request in session.main() for tool in request.tool_names() if "recall" in tool
    ]
    if expect.recall != "racy":
        assert bool(offered) == bool(expect.recall), (
            f"{name} offered {session.first().tool_names()}"
        )
    if expect.recall == "called" or (expect.recall == "racy" and offered):
        results = [
            request
            for request in session.main()
            if any("recall" in call for call in request.answered())
        ]
        assert results, f"{name} never sent the tool's result back"
        answer = results[0].text()
        assert "No project memory matches" not in answer
        assert "] Use pnpm, never npm" in answer  # recall's own format: [id] title

    web = _session(name, repo / "web", model, tmp_path / "home")
    in_web = web.first().text()
    assert (SCOPED in in_web) == expect.scoped_in_web
    in_web_times = expect.times if expect.times_in_web is None else expect.times_in_web
    assert in_web.count(ACTIVE) == in_web_times and PROPOSED not in in_web


TAIL = "Pangolin"  # the last word of a long rules file


@pytest.mark.parametrize(
    ("name", "path", "chars", "whole"),
    [
        ("gemini", "GEMINI.md", 29_895, True),  # no 12,000-character limit
        ("claude", "CLAUDE.md", 59_375, True),  # past the 40,000 Claude Code warns about
        (
            "copilot",
            ".github/copilot-instructions.md",
            29_895,
            True,
        ),  # 400 lines: no 160-line limit
        ("codex", "AGENTS.md", 40_000, False),  # cut at 32 KiB
    ],
)
def test_long_rules_files(
    name: str, path: str, chars: int, whole: bool, model: FakeModel, tmp_path: Path
) -> None:
    """The size limits in gitmem/tools.py, measured: the last word of a long file reaches the model or
    not."""
    repo = tmp_path / "repo"
    (repo / ".github").mkdir(parents=True)
    sh(repo, "git", "init", "-q", "-b", "main")
    line = "- Keep the build reproducible: pin every tool and check the lock files in.\n"  # 75 characters
    body = f"# Notes\n\nThe {HAND} service owns the queue.\n" + line * ((chars - 100) // len(line))
    text = body + f"\nThe last rule: {TAIL}.\n"
    (repo / path).write_text(text, encoding="utf-8")
    sh(repo, "git", "add", "-A")
    sh(repo, "git", "-c", "user.name=t", "-c", "user.email=t@example.com", "commit", "-qm", "init")
    session = _session(name, repo, model, tmp_path / "home")
    sent = session.first().text()
    assert HAND in sent
    assert (TAIL in sent) == whole


FOR_CURSOR = "Pangolin"  # in a memory compiled for cursor only
FOR_ONE = "Axolotl"  # in a memory compiled for the client's own target only


@pytest.mark.parametrize(
    ("name", "targets", "own"),
    [
        ("claude", ("claude", "cursor"), "claude"),
        # The Copilot CLI reads AGENTS.md and GEMINI.md beside its own file: a memory for `copilot` alone arrives once.
        ("copilot", ("agents", "gemini", "copilot"), "copilot"),
    ],
)
def test_a_memory_reaches_only_the_targets_it_names(
    name: str, targets: tuple[str, ...], own: str, model: FakeModel, tmp_path: Path
) -> None:
    repo = _repo(tmp_path, targets)
    sh(repo, "gitmem", "add", f"Never edit generated/ by hand ({FOR_CURSOR})", "--target", "cursor")
    sh(repo, "gitmem", "add", f"Prefer small pull requests ({FOR_ONE})", "--target", own)
    sh(repo, "gitmem", "compile")
    session = _session(name, repo, model, tmp_path / "home")
    first = session.first().text()
    assert first.count(FOR_ONE) == 1
    assert FOR_CURSOR not in first
    assert HAND in first


GUIDE_WORD = "Wombat"  # in the contributor guide CLAUDE.md links to


def test_claude_code_gets_the_memories_when_claude_md_links_to_a_guide(
    model: FakeModel, tmp_path: Path
) -> None:
    """biome's shape (issue 23): CLAUDE.md -> CONTRIBUTING.md. gitmem never writes into the guide; Claude Code still
    gets the memories once, from .claude/rules/gitmem-project.md, next to the guide it reads through the link."""
    repo = tmp_path / "repo"
    repo.mkdir()
    sh(repo, "git", "init", "-q")
    guide = f"# Contributing\n\nThe {GUIDE_WORD} team reviews every pull request.\n"
    (repo / "CONTRIBUTING.md").write_text(guide, encoding="utf-8")
    (repo / "CLAUDE.md").symlink_to("CONTRIBUTING.md")
    sh(repo, "gitmem", "init", "--no-hooks", "--target", "claude")
    sh(repo, "gitmem", "add", f"Use pnpm, never npm ({ACTIVE})")
    sh(repo, "gitmem", "compile")
    assert (repo / "CONTRIBUTING.md").read_text(encoding="utf-8") == guide
    session = _session("claude", repo, model, tmp_path / "home")
    first = session.first().text()
    assert first.count(ACTIVE) == 1 and GUIDE_WORD in first
