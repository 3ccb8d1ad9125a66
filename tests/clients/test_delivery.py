"""Every configured client receives each memory once (issue 24), for the target combinations a team would
plausibly configure, all targets at once included: each installed client whose target is configured runs for real,
at the root and in web/, and what reached the fake model is counted.

Before compile's placement (``gitmem/compile/delivery.py``) the Copilot CLI got each memory 3 times with agents,
gemini and copilot, and Cline 2 times with agents and cline. The expectation per client is written out below, with
the clients' own limits (Cline started in a subfolder loads no rules of the root; aider's ``read:`` is resolved
from the start directory), not taken from gitmem's model of them.
"""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

from gitmem.memory.config import TARGET_NAMES
from tests.clients.conftest import sh
from tests.clients.drivers import CLIENTS, Session, run
from tests.clients.fake_model import FakeModel
from tests.clients.test_clients import ACTIVE, HAND, PROMPT, PROPOSED, SCOPED, _repo

pytestmark = [pytest.mark.clients, pytest.mark.slow]

FOR_OWN = "Axolotl"  # a memory whose `targets` name only the client's own target

# Each client and the target made for it (opencode, Codex and Qwen Code read AGENTS.md like one another: Codex
# stands for them in the combinations, all three run in the one with every target).
OWN = {
    "claude": "claude",
    "codex": "agents",
    "gemini": "gemini",
    "copilot": "copilot",
    "cline": "cline",
}
EVERY = {**OWN, "opencode": "agents", "qwen": "agents", "aider": "aider"}

COMBINATIONS = {
    "agents+claude": ("agents", "claude"),  # gitmem init's default
    "agents+claude+cursor": ("agents", "claude", "cursor"),
    "agents+claude+copilot": ("agents", "claude", "copilot"),
    "agents+claude+gemini+copilot": ("agents", "claude", "gemini", "copilot"),
    "agents+gemini+copilot": ("agents", "gemini", "copilot"),
    "agents+cline": ("agents", "cline"),
    "claude+copilot": ("claude", "copilot"),
    "gemini+copilot": ("gemini", "copilot"),
    "all": TARGET_NAMES,
}


# A memory for one tool reaches another tool's client only where that client reads the tool's file and the tool has
# no file of its own the other does not read: the Copilot CLI reads GEMINI.md (Gemini CLI has no such file).
LEAKS = {("copilot", "gemini")}


def expected(client: str, targets: tuple[str, ...], folder: str) -> tuple[int, int]:
    """How often the root memory and the web/** memory reach ``client`` started in ``folder``."""
    if client == "aider":  # one file, read only from the root
        return (1, 1) if folder == "" else (0, 0)
    if client == "cline" and folder:  # only the start folder's AGENTS.md
        return 0, (1 if "agents" in targets else 0)
    if client == "cline":  # without the hub, its own file carries the scoped memory under a heading
        return 1, (0 if "agents" in targets else 1)
    if client == "copilot" and not {"agents", "gemini"} & set(
        targets
    ):  # its own files: web/** in an applyTo file
        return (
            1,
            0,
        )  # which the Copilot CLI does not load at start (measured), only when it touches a file there
    if (
        client == "claude" and "copilot" in targets
    ):  # its private copy: one file at the root, globs under headings
        return 1, 1
    return 1, (1 if folder else 0)


# The tool each client reads a file with, and the argument naming the file (from the tools each one offers).
READ_TOOL = {
    "claude": ("Read", "file_path"),
    "copilot": ("view", "path"),
    "gemini": ("read_file", "file_path"),
    "qwen": ("read_file", "file_path"),
    "opencode": ("read", "filePath"),
}
# Started at the root, after reading web/app.ts: Claude Code loads web/'s CLAUDE.md files, the Copilot CLI web/'s
# AGENTS.md, CLAUDE.md, .claude/CLAUDE.md and the applyTo files matching it, Gemini CLI web/GEMINI.md, opencode
# web/AGENTS.md (each measured here); Qwen Code loads nothing more (measured: the web/** memory does not reach it).
TOUCH_MISSES = {"qwen"}


def received(repo: Path, text: str) -> set[str]:
    """The memories whose compiled entry (``(`id`)``) reached the model."""
    ids = {path.stem for path in (repo / ".memory" / "memories").glob("*.yaml")}
    return {memory_id for memory_id in ids if f"(`{memory_id}`)" in text}


def explained(repo: Path, name: str, folder: str) -> set[str]:
    """What `gitmem explain FOLDER --client NAME` says arrives in full."""
    out = sh(repo, "gitmem", "explain", folder, "--client", name, "--json")
    (view,) = json.loads(out)["clients"]
    return {item["id"] for item in view["full"]}


def _run(name: str, cwd: Path, model: FakeModel, home: Path) -> str:
    return _session(name, cwd, model, home).first().text()


def _session(name: str, cwd: Path, model: FakeModel, home: Path) -> Session:
    session = run(CLIENTS[name], cwd, PROMPT, model, home)
    assert session.code == 0, f"{name} exited {session.code}: {session.err[-3000:]}"
    return session


def touching(repo: Path, name: str) -> FakeModel:
    """A model that has the client read web/app.ts with its own tool."""
    tool, argument = READ_TOOL[name]
    return FakeModel(tool=tool, tool_args={argument: str(repo / "web" / "app.ts")})


def check_touch(session: Session, where: str) -> None:
    """After reading web/app.ts, what the client loaded for that file brought the web/** memory
    once, and nothing it had (the Copilot CLI loaded a nested .claude/CLAUDE.md and the applyTo
    file: 2 before)."""
    after = [request for request in session.main() if request.has_tool_result()]
    assert after, f"{where}: the file was not read"
    text = after[-1].text()
    start = session.first().text().count(SCOPED)
    assert text.count(SCOPED) == (start if session.client in TOUCH_MISSES else 1), where
    assert text.count(ACTIVE) == 1, where


@pytest.mark.parametrize("combination", sorted(COMBINATIONS))
def test_each_client_receives_each_memory_once(
    combination: str, model: FakeModel, tmp_path: Path
) -> None:
    """Each client, at the root and in web/, gets each memory once. Started at the root, a client
    that reads files (READ_TOOL) then reads web/app.ts in the same session, and what it loads for
    that file is checked too (``check_touch``)."""
    targets = COMBINATIONS[combination]
    repo = _repo(tmp_path, targets)
    owners = [target for target in ("claude", "gemini", "copilot", "cline") if target in targets]
    for target in owners:  # one memory only for each client's own target
        sh(repo, "gitmem", "add", f"Only for {target} ({FOR_OWN} {target})", "--target", target)
    compiled = subprocess.run(
        ["gitmem", "compile"], cwd=repo, capture_output=True, text=True, check=False
    )
    assert compiled.returncode == 0 and "more than once" not in compiled.stderr, compiled.stderr
    clients = EVERY if combination == "all" else OWN
    ran = 0
    for name, own in clients.items():
        if own not in targets:
            continue
        for folder in ("", "web"):
            where = f"{name} in {folder or 'the root'} ({combination})"
            home = tmp_path / f"home-{name}"
            if folder == "" and name in READ_TOOL:
                with touching(repo, name) as reading:
                    session = _session(name, repo, reading, home)
                check_touch(session, f"{where}, touching web/app.ts")
            else:
                session = _session(name, repo / folder, model, home)
            text = session.first().text()
            active, scoped = expected(name, targets, folder)
            assert (text.count(ACTIVE), text.count(SCOPED)) == (active, scoped), where
            assert PROPOSED not in text, where
            if active:
                assert HAND in text, where
            for (
                target
            ) in owners:  # a memory for one tool reaches that tool once, and no other tool's client
                if active:
                    times = 1 if target == own or (name, target) in LEAKS else 0
                    assert text.count(f"{FOR_OWN} {target}") == times, (where, target)
            assert received(repo, text) == explained(repo, name, folder), where
        ran += 1
    assert ran


# AGENTS.md's readers that read files and that only the combination of every target runs above
OTHER_READERS = [name for name, own in EVERY.items() if own == "agents" and name not in OWN]


@pytest.mark.parametrize(
    "combination",
    sorted(c for c, targets in COMBINATIONS.items() if "agents" in targets and c != "all"),
)
def test_agents_md_s_other_readers_that_touch_a_file_receive_its_memory_once(
    combination: str, tmp_path: Path
) -> None:
    """opencode and Qwen Code, started at the root, read web/app.ts: what they load for that file
    brings the web/** memory once, as every other client's does in the test above."""
    repo = _repo(tmp_path, COMBINATIONS[combination])
    for name in OTHER_READERS:
        with touching(repo, name) as reading:
            session = _session(name, repo, reading, tmp_path / f"home-{name}")
        check_touch(session, f"{name} touching web/app.ts ({combination})")


def old_layout(repo: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Compile ``repo`` as gitmem did before the placement: every target a full copy in its usual files."""
    from gitmem.commands import today
    from gitmem.compile import compiler, delivery
    from gitmem.gateway import find_project
    from gitmem.memory.config import load_config
    from gitmem.memory.store import Store

    monkeypatch.chdir(repo)
    monkeypatch.setattr(delivery, "layouts", lambda targets, *_: delivery.standalone(targets))
    project = find_project()
    request = compiler.Request(today(), mode="write")
    result = compiler.compile_store(project, Store(project), load_config(project), request)
    assert result.written and not result.report.problems


def test_a_repository_compiled_by_the_old_layout_migrates(
    model: FakeModel, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Compiled before the placement (every target a full copy), then by this gitmem: the Copilot CLI, which got
    each memory 3 times, gets it once, and the hand-written text of every file stays byte for byte."""
    targets = ("agents", "claude", "gemini", "copilot")
    repo = _repo(tmp_path, targets)
    with monkeypatch.context() as patch:
        old_layout(repo, patch)
    copilot = _run("copilot", repo, model, tmp_path / "home-copilot")
    assert (
        copilot.count(ACTIVE) == 4
    )  # the old layout: AGENTS.md, GEMINI.md, CLAUDE.md and its own file
    hand = {
        path: (repo / path).read_text(encoding="utf-8").split("<!-- gitmem:begin")[0]
        for path in _HAND_FILES
    }
    done = subprocess.run(
        ["gitmem", "compile", "--json"], cwd=repo, capture_output=True, text=True, check=False
    )
    assert done.returncode == 0, done.stderr
    actions = {item["path"]: item["action"] for item in json.loads(done.stdout)["files"]}
    assert (
        actions["GEMINI.md"] == "updated" and actions["web/GEMINI.md"] == "updated"
    )  # now bridges
    assert (
        actions[".github/copilot-instructions.md"] == "updated"
    )  # gitmem's block out, the team's text kept
    assert (
        actions["CLAUDE.md"] == "updated" and actions["web/CLAUDE.md"] == "removed"
    )  # to .claude/CLAUDE.md
    assert (
        actions[".claude/CLAUDE.md"] == "created" and "web/.claude/CLAUDE.md" not in actions
    )  # one file
    for path, text in hand.items():
        after = (repo / path).read_text(encoding="utf-8")
        assert after.startswith(text), path
        if path in (
            ".github/copilot-instructions.md",
            "CLAUDE.md",
        ):  # no memory left there: only the team's text
            assert after == text.rstrip("\n") + "\n", path
    assert subprocess.run(["gitmem", "compile", "--check"], cwd=repo, check=False).returncode == 0
    for name in ("copilot", "claude", "gemini", "codex"):
        for folder in ("", "web"):
            text = _run(name, repo / folder, model, tmp_path / f"home-{name}")
            assert (text.count(ACTIVE), text.count(SCOPED)) == expected(name, targets, folder), (
                name,
                folder,
            )
            assert received(repo, text) == explained(repo, name, folder), (name, folder)


_HAND_FILES = ("AGENTS.md", "CLAUDE.md", "GEMINI.md", ".github/copilot-instructions.md")


@pytest.mark.parametrize(
    ("names", "commented"), [(["AGENTS.md", "GEMINI.md"], False), (["AGENTS.md"], True)]
)
def test_gemini_told_to_read_agents_md_gets_each_memory_once(
    names: list[str], commented: bool, model: FakeModel, tmp_path: Path
) -> None:
    """A team's .gemini/settings.json names AGENTS.md in context.fileName: Gemini CLI started at the root then reads
    AGENTS.md and GEMINI.md (both, measured), so compile leaves in GEMINI.md only what is for Gemini alone (2 copies
    before). Started in web/ it reads no settings of the root's, so only GEMINI.md files (measured): what the team's
    own setting gives it there, said by `gitmem explain`."""
    repo = _repo(tmp_path, ("agents", "gemini"))
    settings = repo / ".gemini" / "settings.json"
    data = json.loads(settings.read_text(encoding="utf-8"))
    data["context"] = {"fileName": names}
    text = json.dumps(data, indent=2)
    if commented:  # as Gemini CLI allows: it strips comments before parsing
        text = "// the team's settings\n" + text.replace('"context"', '/* ours */ "context"')
    settings.write_text(text, encoding="utf-8")
    sh(repo, "gitmem", "add", f"Only for gemini ({FOR_OWN} gemini)", "--target", "gemini")
    compiled = subprocess.run(
        ["gitmem", "compile"], cwd=repo, capture_output=True, text=True, check=False
    )
    assert compiled.returncode == 0 and "more than once" not in compiled.stderr, compiled.stderr
    for folder in ("", "web"):
        text = _run("gemini", repo / folder, model, tmp_path / "home-gemini")
        assert (text.count(ACTIVE), text.count(SCOPED)) == ((0, 0) if folder else (1, 0)), folder
        assert text.count(f"{FOR_OWN} gemini") == 1, folder
        assert received(repo, text) == explained(repo, "gemini", folder), folder
