"""`gitmem explain` (the reader model, ``gitmem/compile/reading.py``) agrees with what the real clients send the model,
in the layouts where gitmem's own plan and the disk used to part ways (issue 30): a root AGENTS.md that is a link
into the repository (AGENTS.md -> .agents/AGENTS.md), a CLAUDE.md that is a link to AGENTS.md, and Claude Code's
copy kept in .claude/CLAUDE.md beside a missing CLAUDE.md.

On 6dd9a58 compile wrote no block into a linked AGENTS.md (no client got a memory) while `explain` said so too, and
with CLAUDE.md -> AGENTS.md beside Copilot compile added .claude/CLAUDE.md, a second copy for Claude Code.
"""

from __future__ import annotations

import json
import os
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.clients.conftest import sh
from tests.clients.drivers import CLIENTS, run
from tests.clients.fake_model import FakeModel
from tests.clients.test_clients import ACTIVE, HAND, PROMPT, SCOPED, init_with_active
from tests.clients.test_delivery import check_touch, explained, received, touching

pytestmark = [pytest.mark.clients, pytest.mark.slow]


def _linked_repo(tmp_path: Path, targets: tuple[str, ...], claude_link: bool) -> Path:
    repo = tmp_path / "repo"
    (repo / "web").mkdir(parents=True)
    (repo / ".agents").mkdir()
    sh(repo, "git", "init", "-q", "-b", "main")
    (repo / ".agents" / "AGENTS.md").write_text(
        f"# Team notes\n\nThe {HAND} service owns the queue.\n", "utf-8"
    )
    (repo / "AGENTS.md").symlink_to(".agents/AGENTS.md")
    if claude_link:
        (repo / "CLAUDE.md").symlink_to("AGENTS.md")
    init_with_active(repo, targets)
    compiled = subprocess.run(
        ["gitmem", "compile"], cwd=repo, capture_output=True, text=True, check=False
    )
    assert compiled.returncode == 0, compiled.stderr
    assert "more than once" not in compiled.stderr, compiled.stderr
    sh(repo, "git", "add", "-A")
    sh(repo, "git", "-c", "user.name=t", "-c", "user.email=t@example.com", "commit", "-qm", "init")
    assert (repo / "AGENTS.md").is_symlink() and (repo / ".agents" / "AGENTS.md").read_text(
        "utf-8"
    ).count(ACTIVE) == 1
    return repo


CASES = {
    # (targets, CLAUDE.md -> AGENTS.md, the clients run)
    "linked-agents": (
        ("agents", "claude"),
        False,
        ("claude", "codex", "opencode", "qwen", "gemini"),
    ),
    "linked-agents-and-claude": (("agents", "claude"), True, ("claude", "codex", "opencode")),
    "linked-claude-beside-copilot": (("agents", "claude", "copilot"), True, ("claude", "copilot")),
    # no CLAUDE.md: Claude Code's copy in .claude/CLAUDE.md, beside the Copilot CLI (which reads CLAUDE.md files)
    "private-claude-beside-copilot": (("agents", "claude", "copilot"), False, ("claude",)),
}


@pytest.mark.parametrize("case", sorted(CASES))
def test_explain_agrees_with_the_real_clients_on_linked_rules_files(
    case: str, model: FakeModel, tmp_path: Path
) -> None:
    targets, claude_link, clients = CASES[case]
    repo = _linked_repo(tmp_path, targets, claude_link)
    assert sh(repo, "gitmem", "check").strip().endswith("passed")
    for name, _, where, text in _sessions(repo, clients, model, tmp_path, case):
        if name != "gemini":  # Gemini CLI reads GEMINI.md only: the memories reach it on demand
            assert text.count(ACTIVE) == 1, where


def _sessions(
    repo: Path, clients: tuple[str, ...], model: FakeModel, tmp_path: Path, case: str
) -> Iterator[tuple[str, str, str, str]]:
    """Each client's session started at the root and in web/, checked to end well and to bring what `gitmem
    explain` says: its name, the folder, where it ran (said), and what it first sent the model."""
    for name in clients:
        for folder in ("", "web"):
            session = run(CLIENTS[name], repo / folder, PROMPT, model, tmp_path / f"home-{name}")
            assert session.code == 0, f"{name} exited {session.code}: {session.err[-3000:]}"
            text = session.first().text()
            where = f"{name} in {folder or 'the root'} ({case})"
            assert received(repo, text) == explained(repo, name, folder), where
            yield name, folder, where, text


def _importing_repo(tmp_path: Path, copilot_link: bool) -> tuple[Path, str]:
    """authorizer's layout (round 45): a hand-written CLAUDE.md that is the one line ``@AGENTS.md``, and, with
    ``copilot_link``, .github/copilot-instructions.md a link to that CLAUDE.md. Returns the repository and what
    compile said."""
    repo = tmp_path / "repo"
    repo.mkdir()
    sh(repo, "git", "init", "-q", "-b", "main")
    (repo / "AGENTS.md").write_text(
        f"# Team notes\n\nThe {HAND} service owns the queue.\n", "utf-8"
    )
    (repo / "CLAUDE.md").write_text("@AGENTS.md\n", "utf-8")
    if copilot_link:
        (repo / ".github").mkdir()
        (repo / ".github" / "copilot-instructions.md").symlink_to("../CLAUDE.md")
    init_with_active(repo, ("agents", "claude", "copilot"), scoped=False)
    compiled = subprocess.run(
        ["gitmem", "compile"], cwd=repo, capture_output=True, text=True, check=False
    )
    assert compiled.returncode == 0, compiled.stderr
    sh(repo, "git", "add", "-A")
    sh(repo, "git", "-c", "user.name=t", "-c", "user.email=t@example.com", "commit", "-qm", "init")
    return repo, compiled.stderr


def _arrivals(repo: Path, name: str) -> int:
    """How many times `gitmem explain --client NAME` says the active memory arrives, file by file."""
    (view,) = json.loads(sh(repo, "gitmem", "explain", "--client", name, "--json"))["clients"]
    return sum(i.startswith("use-pnpm") for item in view["files"] for i in item["memories"])


@pytest.mark.parametrize("copilot_link", [False, True], ids=["import", "import-and-link"])
def test_a_file_read_and_imported_reaches_the_copilot_cli_twice(
    copilot_link: bool, model: FakeModel, tmp_path: Path
) -> None:
    """The Copilot CLI reads AGENTS.md and CLAUDE.md, and follows CLAUDE.md's @imports apart from what it reads itself:
    AGENTS.md reached both ways reaches the model twice (measured, 1.0.102), Claude Code's once. On badf90d the disk
    reader counted it once: `explain` said once and `check` passed, while compile's warning, from gitmem's plan, said
    twice. Compile and check say so now, as a note (no placement of gitmem's avoids it), with the fix they name: a
    CLAUDE.md that links to AGENTS.md, which both clients then read once."""
    repo, compiled = _importing_repo(tmp_path, copilot_link)
    note = "of its memories reach it twice, through a hand-written import"
    assert note in compiled and "make CLAUDE.md a link to AGENTS.md" in compiled, compiled
    checked = subprocess.run(
        ["gitmem", "check"], cwd=repo, capture_output=True, text=True, check=False
    )
    assert checked.returncode == 0 and note in checked.stdout, checked.stdout + checked.stderr
    for name, times in (("claude", 1), ("copilot", 2)):
        session = run(CLIENTS[name], repo, PROMPT, model, tmp_path / f"home-{name}")
        assert session.code == 0, f"{name} exited {session.code}: {session.err[-3000:]}"
        text = session.first().text()
        assert received(repo, text) == explained(repo, name, ""), name
        assert (text.count(ACTIVE), text.count(HAND)) == (times, times), name
        assert _arrivals(repo, name) == times, name
    (repo / "CLAUDE.md").unlink()
    (repo / "CLAUDE.md").symlink_to("AGENTS.md")  # the fix the note names
    fixed = subprocess.run(
        ["gitmem", "compile"], cwd=repo, capture_output=True, text=True, check=False
    )
    assert fixed.returncode == 0 and "twice" not in fixed.stderr, fixed.stderr
    sh(repo, "git", "add", "-A")
    sh(repo, "git", "-c", "user.name=t", "-c", "user.email=t@example.com", "commit", "-qm", "link")
    assert "twice" not in sh(repo, "gitmem", "check")
    for name in ("claude", "copilot"):
        session = run(CLIENTS[name], repo, PROMPT, model, tmp_path / f"home-{name}-fixed")
        assert session.code == 0, f"{name} exited {session.code}: {session.err[-3000:]}"
        text = session.first().text()
        assert received(repo, text) == explained(repo, name, ""), name
        assert (text.count(ACTIVE), text.count(HAND)) == (1, 1), f"{name}, linked"
        assert _arrivals(repo, name) == 1, name


# Rules files linked to the hub beside the Copilot CLI, which reads them all (round 47): (links, targets, clients)
LINKED = {
    # the Copilot file a link to CLAUDE.md, itself a link to AGENTS.md: on ed89a6a the web/** memory went into an
    # applyTo file too, and the Copilot CLI, which reads web/AGENTS.md itself, loaded it twice touching web/app.ts
    "copilot-via-claude": (
        {"CLAUDE.md": "AGENTS.md", ".github/copilot-instructions.md": "../CLAUDE.md"},
        ("agents", "claude", "copilot"),
        ("copilot", "claude"),
    ),
    # GEMINI.md a link to AGENTS.md: on ed89a6a Gemini CLI started in web/ got no web/** memory (no web/GEMINI.md,
    # which the Copilot CLI would read beside web/AGENTS.md); web/GEMINI.md now imports web/AGENTS.md, an import
    # the Copilot CLI does not follow
    "gemini-linked": (
        {"GEMINI.md": "AGENTS.md"},
        ("agents", "gemini", "copilot"),
        ("gemini", "copilot"),
    ),
}


@pytest.mark.parametrize("case", sorted(LINKED))
def test_rules_files_linked_to_the_hub_bring_each_memory_once(
    case: str, model: FakeModel, tmp_path: Path
) -> None:
    """Each client, started at the root and in web/, receives what `gitmem explain` says, each memory once; the
    Copilot CLI, started at the root and reading web/app.ts, then loads the web/** memory once."""
    links, targets, clients = LINKED[case]
    repo = tmp_path / "repo"
    repo.mkdir()
    sh(repo, "git", "init", "-q", "-b", "main")
    (repo / "AGENTS.md").write_text(
        f"# Team notes\n\nThe {HAND} service owns the queue.\n", "utf-8"
    )
    for path, to in links.items():
        (repo / path).parent.mkdir(parents=True, exist_ok=True)
        (repo / path).symlink_to(to)
    init_with_active(repo, targets)
    compiled = subprocess.run(
        ["gitmem", "compile"], cwd=repo, capture_output=True, text=True, check=False
    )
    assert compiled.returncode == 0 and "not up to date" not in compiled.stderr, compiled.stderr
    sh(repo, "git", "add", "-A")
    sh(repo, "git", "-c", "user.name=t", "-c", "user.email=t@example.com", "commit", "-qm", "init")
    assert sh(repo, "gitmem", "check").strip().endswith("passed")
    for _, folder, where, text in _sessions(repo, clients, model, tmp_path, case):
        # at the root, Claude Code's copy in .claude/CLAUDE.md names web/** under a heading
        assert text.count(ACTIVE) == 1 and text.count(SCOPED) in {int(bool(folder)), 1}, where
    with touching(repo, "copilot") as model_touching:
        session = run(CLIENTS["copilot"], repo, PROMPT, model_touching, tmp_path / "home-copilot")
    check_touch(session, f"copilot touching web/app.ts ({case})")


# Files the team wrote that import the hub's file of their own folder (case -> files)
IMPORTING = {
    # rallly's and vercel's: a folder's CLAUDE.md of `@AGENTS.md`
    "folder": {
        "web/AGENTS.md": f"# Web\n\nThe {HAND} service owns the queue.\n",
        "web/CLAUDE.md": "@AGENTS.md\n",
    },
    # shopify-cli's: no CLAUDE.md, and Claude Code's private file importing the root's AGENTS.md
    "private": {
        "AGENTS.md": f"# Team\n\nThe {HAND} service owns the queue.\n",
        ".claude/CLAUDE.md": "See @../AGENTS.md for repository-specific agent instructions.\n",
    },
    # pyairtable's: no CLAUDE.md, and Claude Code's private file a link to the root's AGENTS.md ("-> " makes a link):
    # on 9411f25 compile put a copy of every memory in a new CLAUDE.md too, and `check` failed (twice for Claude Code)
    "private-link": {
        "AGENTS.md": f"# Team\n\nThe {HAND} service owns the queue.\n",
        ".claude/CLAUDE.md": "-> ../AGENTS.md",
    },
}


@pytest.mark.parametrize("case", sorted(IMPORTING))
def test_a_file_importing_its_folders_agents_md_brings_each_memory_once(
    case: str, model: FakeModel, tmp_path: Path
) -> None:
    """Claude Code follows the imports of a folder's CLAUDE.md started in that folder and, started at the root, once
    it reads a file there; and those of .claude/CLAUDE.md started at the root (measured here: 2.1.332). On b41057a the
    reader followed neither, and compile wrote a copy beside each import: the memory reached the client twice (rallly,
    vercel: `check` failing with a link to make; shopify-cli: `check` passing). Now the file keeps the team's text
    alone, `check` passes, and each session gets each memory once at most, as `gitmem explain` says."""
    repo = tmp_path / "repo"
    repo.mkdir()
    sh(repo, "git", "init", "-q", "-b", "main")
    for path, text in IMPORTING[case].items():
        (repo / path).parent.mkdir(parents=True, exist_ok=True)
        if text.startswith("-> "):
            (repo / path).symlink_to(text.removeprefix("-> "))
        else:
            (repo / path).write_text(text, "utf-8")
    init_with_active(repo, ("agents", "claude"))
    compiled = subprocess.run(
        ["gitmem", "compile"], cwd=repo, capture_output=True, text=True, check=False
    )
    assert compiled.returncode == 0 and "more than once" not in compiled.stderr, compiled.stderr
    for path, text in IMPORTING[case].items():
        if (
            "CLAUDE.md" in path and (repo / path).is_symlink()
        ):  # a link stays the link the team made
            assert f"-> {os.readlink(repo / path)}" == text, path
        elif "CLAUDE.md" in path:
            assert (repo / path).read_text("utf-8") == text, path
    sh(repo, "git", "add", "-A")
    sh(repo, "git", "-c", "user.name=t", "-c", "user.email=t@example.com", "commit", "-qm", "init")
    assert "more than once" not in sh(repo, "gitmem", "check")
    for _, folder, where, text in _sessions(repo, ("claude",), model, tmp_path, case):
        counts = (text.count(ACTIVE), text.count(SCOPED), text.count(HAND))
        assert max(counts) <= 1 and (folder or counts[0] == 1), (where, counts)
    with touching(repo, "claude") as model_touching:
        session = run(CLIENTS["claude"], repo, PROMPT, model_touching, tmp_path / "home-touch")
    check_touch(session, f"claude touching web/app.ts ({case})")
    assert session.main()[-1].text().count(HAND) == 1


# A folder's AGENTS.md that is the root's through a link (the root's kept in a folder, as pwncollege-dojo keeps it in
# docs/agents.md, and a package's AGENTS.md linked to the root's): the web/** memory goes into the one file under a heading naming its
# globs (on da9b03b it reached no client started in web/)
SHARED = {
    "root-moved": {"AGENTS.md": "web/AGENTS.md"},
    "folder-to-root": {"web/AGENTS.md": "../AGENTS.md"},
}


@pytest.mark.parametrize("case", sorted(SHARED))
def test_a_folders_agents_md_that_is_the_roots_brings_each_memory_as_explain_says(
    case: str, model: FakeModel, tmp_path: Path
) -> None:
    """Each client started at the root and in web/ receives what `gitmem explain` says, as many times as it says:
    the web/** memory in web/ too. Codex and opencode started in web/ read the one file under both its names, the
    team's text and every memory twice (measured: Codex 0.171.0, opencode 1.18.33; Qwen Code reads it once): no
    placement of gitmem's avoids it, and `check` says so, with the fix, without failing."""
    ((link, to),) = SHARED[case].items()
    repo = tmp_path / "repo"
    (repo / "web").mkdir(parents=True)
    sh(repo, "git", "init", "-q", "-b", "main")
    real = repo / ("web/AGENTS.md" if case == "root-moved" else "AGENTS.md")
    real.write_text(f"# Team notes\n\nThe {HAND} service owns the queue.\n", "utf-8")
    (repo / link).symlink_to(to)
    init_with_active(repo, ("agents", "claude", "gemini"))
    compiled = subprocess.run(
        ["gitmem", "compile"], cwd=repo, capture_output=True, text=True, check=False
    )
    assert compiled.returncode == 0 and "same file" not in compiled.stderr, compiled.stderr
    sh(repo, "git", "add", "-A")
    sh(repo, "git", "-c", "user.name=t", "-c", "user.email=t@example.com", "commit", "-qm", "init")
    checked = sh(repo, "gitmem", "check")
    assert checked.strip().endswith("passed") and "twice, through a link" in checked, checked
    clients = ("codex", "opencode", "qwen", "claude", "gemini")
    for name, folder, where, text in _sessions(repo, clients, model, tmp_path, case):
        times = 2 if folder and name in {"codex", "opencode"} else 1
        assert text.count(ACTIVE) == times == _explained_times(repo, name, folder), where
        assert text.count(SCOPED) >= bool(folder), (
            where
        )  # in web/, and under its heading at the root


def _explained_times(repo: Path, name: str, folder: str) -> int:
    """How many times `gitmem explain FOLDER --client NAME` says the active memory arrives, file by file."""
    out = sh(repo, "gitmem", "explain", folder or ".", "--client", name, "--json")
    (view,) = json.loads(out)["clients"]
    return sum(i.startswith("use-pnpm") for item in view["files"] for i in item["memories"])


@pytest.mark.parametrize(
    ("targets", "names", "clients"),
    [
        (("claude", "gemini"), ("CLAUDE.md", "GEMINI.md"), ("claude", "gemini")),
        (("agents", "copilot"), ("AGENTS.md",), ("copilot",)),
    ],
    ids=["claude-gemini", "copilot"],
)
def test_a_file_read_under_two_names_reaches_the_other_clients_once(
    targets: tuple[str, ...],
    names: tuple[str, ...],
    clients: tuple[str, ...],
    model: FakeModel,
    tmp_path: Path,
) -> None:
    """web/CLAUDE.md, web/GEMINI.md and web/AGENTS.md as links to the root's: Claude Code 2.1.332, Gemini CLI 0.61.0
    and the Copilot CLI 1.0.102 started in web/ read the one file once (measured), as the reader counts it for every
    client but Codex and opencode (``Tool.links_apart``)."""
    repo = tmp_path / "repo"
    (repo / "web").mkdir(parents=True)
    sh(repo, "git", "init", "-q", "-b", "main")
    for name in names:
        (repo / name).write_text(f"# Team notes\n\nThe {HAND} service owns the queue.\n", "utf-8")
        (repo / "web" / name).symlink_to(f"../{name}")
    init_with_active(repo, targets)
    sh(repo, "gitmem", "compile")
    sh(repo, "git", "add", "-A")
    sh(repo, "git", "-c", "user.name=t", "-c", "user.email=t@example.com", "commit", "-qm", "init")
    assert sh(repo, "gitmem", "check").strip().endswith("passed")
    for name, folder, where, text in _sessions(repo, clients, model, tmp_path, "-".join(names)):
        assert (text.count(ACTIVE), text.count(HAND), text.count(SCOPED)) == (1, 1, 1), where
        assert _explained_times(repo, name, folder) == 1, where
