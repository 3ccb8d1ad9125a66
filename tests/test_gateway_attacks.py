"""The file-system attacks of issue 22, each on a real git repository with committed links, with their effects
checked: nothing written (or removed) outside the repository, the user's home untouched; the prompt hook bounded
against links to /dev/zero and huge files; compile never writes inside .git/; ``--user`` writes through a dotfile
link and keeps it."""

from __future__ import annotations

import json
import os
import resource
import subprocess
import sys
import time
from pathlib import Path

import pytest

import gitmem
from tests.conftest import Run, git, gitmem_command

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "benchmarks"))

import hook_project


def tree(folder: Path) -> dict[str, bytes | str]:
    """Every entry under ``folder``: a file's bytes, a link's target, a folder as "dir"."""
    out: dict[str, bytes | str] = {}
    for path in sorted(folder.rglob("*")):
        key = path.relative_to(folder).as_posix()
        if path.is_symlink():
            out[key] = "-> " + os.readlink(path)
        elif path.is_dir():
            out[key] = "dir"
        else:
            out[key] = path.read_bytes()
    return out


def commit_all(root: Path, message: str = "links") -> None:
    git(root, "add", "-A")
    git(root, "commit", "-qm", message)


@pytest.fixture
def home() -> Path:
    """The fake home of the test (conftest points HOME at a temporary folder), with a user's own client settings."""
    path = Path(os.environ["HOME"])
    (path / ".claude").mkdir(parents=True)
    (path / ".claude" / "settings.json").write_text('{"theme": "dark"}\n', encoding="utf-8")
    (path / ".config" / "opencode").mkdir(parents=True)
    (path / ".config" / "opencode" / "opencode.json").write_text("{}\n", encoding="utf-8")
    (path / ".gemini").mkdir()
    (path / ".gemini" / "settings.json").write_text(
        '{"model": "mine", "token-note": "private"}\n', encoding="utf-8"
    )
    return path


def one_line_refusal(err: str, shown: str) -> None:
    lines = err.strip().splitlines()
    assert len(lines) == 1, err
    assert lines[0].startswith(shown) and "resolves outside the repository" in lines[0], err


LINKS = [
    # (committed link in the repository, what it points at under $HOME, target, the path named in the error)
    (".claude", ".claude", "claude", ".claude/settings.json"),
    (".opencode/plugin", ".config/opencode", "agents", ".opencode/plugin/gitmem.js"),
    (".gemini/settings.json", ".gemini/settings.json", "gemini", ".gemini/settings.json"),
]


@pytest.mark.parametrize(("link", "points_at", "target", "shown"), LINKS)
def test_agent_hooks_do_not_follow_committed_links_into_home(
    project: Path, home: Path, run: Run, link: str, points_at: str, target: str, shown: str
) -> None:
    (project / link).parent.mkdir(parents=True, exist_ok=True)
    (project / link).symlink_to(home / points_at)
    commit_all(project)
    before_home, before_repo = tree(home), tree(project / link.split("/")[0])
    result = run("init", "--agent-hooks", "--target", target)
    assert result.code == 1, result
    one_line_refusal(result.err, shown)
    assert tree(home) == before_home  # nothing edited, created or copied in the home folder
    assert (
        tree(project / link.split("/")[0]) == before_repo
    )  # nor the user's settings copied into the repository


REMOVE_LINKS = [  # where each link leads: to the very files the user-level set-up wrote
    (".claude", ".claude", "claude", ".claude/settings.json"),
    (".opencode/plugin", ".config/opencode/plugin", "agents", ".opencode/plugin/gitmem.js"),
    (".gemini/settings.json", ".gemini/settings.json", "gemini", ".gemini/settings.json"),
]


@pytest.mark.parametrize(("link", "points_at", "target", "shown"), REMOVE_LINKS)
def test_removing_agent_hooks_through_committed_links_removes_nothing_in_home(
    project: Path, home: Path, run: Run, link: str, points_at: str, target: str, shown: str
) -> None:
    # The user set gitmem's hooks up in their own home: exactly what a --remove through a link would delete.
    done = run("init", "--agent-hooks", "--user", "--target", target)
    assert done.code == 0, done.err
    assert "gitmem" in str(
        tree(home / points_at) if (home / points_at).is_dir() else (home / points_at).read_bytes()
    )
    (project / link).parent.mkdir(parents=True, exist_ok=True)
    (project / link).symlink_to(home / points_at)
    commit_all(project)
    before = tree(home)
    result = run("init", "--agent-hooks", "--remove", "--target", target)
    assert result.code == 1, result
    one_line_refusal(result.err, shown)
    assert tree(home) == before  # nothing removed or rewritten in the home folder
    assert (project / link).is_symlink()  # nor the link replaced by a copy of the user's settings


# -- the prompt hook ---------------------------------------------------------------------------------------------------

PROMPT, EXPECTED = (
    "The send-receipt celery task sometimes runs twice after a worker restart",
    b"celery-idempotent",
)
MEMORY_CAP = (
    1 << 30
)  # a hook that reads /dev/zero to the end fails at 1 GiB instead of taking the machine down


def _cap() -> None:
    resource.setrlimit(resource.RLIMIT_AS, (MEMORY_CAP, MEMORY_CAP))


# Runs a command and reports the peak memory of its process tree alone (this test process has had other children).
MEASURE = (
    "import resource, subprocess, sys\n"
    "done = subprocess.run(sys.argv[1:])\n"
    "sys.stderr.write(f'\\nPEAK {resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss}\\n')\n"
    "sys.exit(done.returncode)\n"
)


def prompt_hook(root: Path, session: str) -> tuple[subprocess.CompletedProcess[bytes], float, int]:
    """The prompt hook as Claude Code runs it, in a new session: (result, seconds, peak memory in KiB of its
    process)."""
    payload = {
        "session_id": session,
        "cwd": str(root),
        "hook_event_name": "UserPromptSubmit",
        "prompt": PROMPT,
    }
    start = time.perf_counter()
    done = subprocess.run(
        [sys.executable, "-c", MEASURE, *gitmem_command(), "hook", "prompt", "--client", "claude"],
        cwd=root,
        input=json.dumps(payload).encode(),
        capture_output=True,
        preexec_fn=_cap,
        timeout=120,
        check=False,
    )
    seconds = time.perf_counter() - start
    head, _, peak = done.stderr.rpartition(b"\nPEAK ")
    return (
        subprocess.CompletedProcess(done.args, done.returncode, done.stdout, head),
        seconds,
        int(peak),
    )


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The session hooks' test repository (the recall set compiled under a small budget), built once."""
    saved = dict(os.environ)
    home = tmp_path_factory.mktemp("home")
    os.environ.update(
        {"HOME": str(home), "XDG_CONFIG_HOME": str(home / ".config"), "GIT_CONFIG_NOSYSTEM": "1"}
    )
    os.environ["PATH"] = str(Path(sys.executable).parent) + os.pathsep + os.environ["PATH"]
    try:
        root = hook_project.build(tmp_path_factory.mktemp("built") / "repo")
        git(root, "add", "-A")
        git(root, "commit", "-qm", "memories")
        return root
    finally:
        os.environ.clear()
        os.environ.update(saved)


@pytest.fixture
def hook_repo(built: Path, tmp_path: Path) -> Path:
    root = tmp_path / "repo"
    subprocess.run(["cp", "-a", str(built), str(root)], check=True)
    return root


@pytest.mark.slow
@pytest.mark.parametrize(
    "name", [".memory/config.yaml", ".claude/CLAUDE.md"]
)  # (Claude Code reads both CLAUDE.md)
def test_prompt_hook_is_bounded_against_a_link_to_dev_zero(hook_repo: Path, name: str) -> None:
    benign, benign_seconds, benign_peak = prompt_hook(hook_repo, "benign")
    assert benign.returncode == 0 and EXPECTED in benign.stdout, benign.stderr
    (hook_repo / name).parent.mkdir(exist_ok=True)
    (hook_repo / name).unlink(missing_ok=True)
    (hook_repo / name).symlink_to("/dev/zero")
    commit_all(hook_repo)
    done, seconds, peak = prompt_hook(hook_repo, "hostile")
    assert done.returncode == 0 and EXPECTED in done.stdout, done.stderr[
        -400:
    ]  # the hook still answers
    assert peak < 2 * benign_peak + 16 * 1024, (
        peak,
        benign_peak,
    )  # KiB: nothing of /dev/zero is kept
    print(
        f"{name} -> /dev/zero: {seconds / benign_seconds:.2f}x the time, {peak / benign_peak:.2f}x the memory"
    )


@pytest.mark.slow
def test_prompt_hook_does_not_read_a_huge_rules_file(hook_repo: Path) -> None:
    benign, _, benign_peak = prompt_hook(hook_repo, "benign")
    assert benign.returncode == 0, benign.stderr
    claude = hook_repo / "CLAUDE.md"
    text = claude.read_text(encoding="utf-8")
    claude.write_text(
        text + ("An ordinary line of a very long rules file.\n" * 1_500_000), encoding="utf-8"
    )  # 66 MB
    done, _, peak = prompt_hook(hook_repo, "hostile")
    assert done.returncode == 0 and EXPECTED in done.stdout, done.stderr[-400:]
    assert peak < 2 * benign_peak + 16 * 1024, (peak, benign_peak)


# -- compile and .git/ ----------------------------------------------------------------------------------------------


def test_compile_never_writes_inside_git(project: Path, run: Run) -> None:
    assert run("add", "Hooks print their name", "--path", ".git/hooks/**").code == 0
    before = tree(project / ".git" / "hooks")
    result = run("compile")
    assert result.code == 1, result
    assert ".git/hooks" in result.err and "inside a .git folder" in result.err, result.err
    assert tree(project / ".git" / "hooks") == before
    assert not [
        p
        for p in (project / ".git").rglob("*.md")
        if "gitmem" not in p.relative_to(project / ".git").parts
    ]


@pytest.mark.parametrize("loop", ["CLAUDE.md", "web/AGENTS.md", "loops/AGENTS.md"])
def test_a_committed_loop_of_links_is_one_line_not_a_crash(
    project: Path, run: Run, monkeypatch: pytest.MonkeyPatch, loop: str
) -> None:
    """A rules file (or a folder on its way) that is a link to itself stopped compile, explain and
    stats with an internal error (Python 3.11's ``Path.resolve`` raises RuntimeError on a loop).
    Compile says which path in one line, writes nothing of that file's target (the other target
    is written), and the commands that read go on."""
    assert run("add", "Use pnpm, never npm").code == 0
    assert run("add", "Web code is TypeScript", "--path", "web/**").code == 0
    assert run("compile").code == 0
    (project / "web").mkdir(exist_ok=True)
    (project / "loops").mkdir(exist_ok=True)
    (project / "loops" / "x").symlink_to("x")  # a folder on the way that loops, for reads
    target = project / loop
    target.unlink(missing_ok=True)
    target.symlink_to(target.name)
    assert run("add", "Release on Fridays").code == 0
    before = tree(project)
    monkeypatch.chdir(project)
    result = run("compile")
    if loop == "loops/AGENTS.md":  # not a file any target writes: nothing to refuse
        assert result.code == 0, result
    else:
        assert result.code == 1, result
        assert result.err.startswith(
            f"{loop}:1:1: path: a loop of symbolic links; gitmem does not follow it: replace the "
            "link on its way (the file, or a folder) with a file or folder of its own, then run "
            "`gitmem compile`\n"
        ), result.err  # with what mends it
        after = tree(project)
        changed = {k for k in {*after, *before} if after.get(k) != before.get(k)}
        held, other = {
            "CLAUDE.md": ("claude", "AGENTS.md"),
            "web/AGENTS.md": ("agents", "CLAUDE.md"),
        }[loop]
        assert {k for k in changed if ".memory" not in k} == {other}  # it holds only its own target
        assert f"not written: {held} (the files above); the other targets were\n" in result.err
    for command in (["explain", "web/app.ts"], ["stats"], ["doctor"], ["recall", "pnpm"]):
        done = run(*command)
        assert "internal error" not in done.err and done.code in (0, 1), (command, done)


@pytest.mark.parametrize(
    "loop", [".cursor", ".cursor/rules", ".github/instructions", ".memory/journal"]
)
def test_a_committed_loop_of_folder_links_is_one_line_not_a_crash(
    project: Path, run: Run, monkeypatch: pytest.MonkeyPatch, loop: str
) -> None:
    """A folder gitmem lists (a target's rules folder, the journal) that is a link to itself
    stopped compile and doctor with an internal error: it is listed as empty."""
    config = project / ".memory" / "config.yaml"
    text = config.read_text(encoding="utf-8")
    config.write_text(
        text.replace("targets: [agents, claude]", "targets: [agents, claude, cursor, copilot]"),
        encoding="utf-8",
    )
    assert run("add", "Use pnpm, never npm").code == 0
    folder = project / loop
    if folder.is_dir():
        for child in folder.iterdir():
            child.unlink()
        folder.rmdir()
    folder.parent.mkdir(parents=True, exist_ok=True)
    folder.symlink_to(folder.name)
    monkeypatch.chdir(project)
    for command in (["compile"], ["doctor"], ["stats"], ["list"], ["check"], ["recall", "pnpm"]):
        done = run(*command)
        assert "internal error" not in done.err and done.code in (0, 1), (command, done)


# The one way gitmem resolves a path (``Path.resolve`` raises on a loop of links in Python 3.11),
# and the one way it lists a folder by name (``os.listdir`` raises on a loop): each only in the
# gateway, so the next call cannot bring the crash back.
ONE_WAY = {"resolve": "gateway.real", "listdir": "gateway.names_in", "iterdir": "gateway.names_in"}


def test_no_module_resolves_or_lists_a_path_but_the_gateway() -> None:
    import ast

    found = []
    for path in sorted(Path(gitmem.__file__).parent.rglob("*.py")):
        if path.name == "gateway.py":
            continue
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if (
                isinstance(node, ast.Call)
                and isinstance(node.func, ast.Attribute)
                and node.func.attr in ONE_WAY
                and not (node.func.attr == "resolve" and node.args)  # gateway.resolve(where, …)
            ):
                found.append(f"{path.name}:{node.lineno} (use {ONE_WAY[node.func.attr]})")
    assert found == []


# -- --user and a dotfile link ---------------------------------------------------------------------------------------


def stowed(home: Path, relative: str, text: str) -> tuple[Path, Path]:
    """``~/relative`` as GNU stow makes it: a link into ~/dotfiles."""
    real = home / "dotfiles" / relative
    real.parent.mkdir(parents=True, exist_ok=True)
    real.write_text(text, encoding="utf-8")
    link = home / relative
    link.parent.mkdir(parents=True, exist_ok=True)
    if link.exists() or link.is_symlink():
        link.unlink()
    link.symlink_to(real)
    return link, real


def test_user_agent_hooks_write_through_a_dotfile_link(repo: Path, home: Path, run: Run) -> None:
    link, real = stowed(home, ".claude/settings.json", '{"theme": "dark"}\n')
    result = run("init", "--agent-hooks", "--user", "--target", "claude")
    assert result.code == 0, result.err
    assert link.is_symlink() and os.readlink(link) == str(real)
    data = json.loads(real.read_text(encoding="utf-8"))
    assert data["theme"] == "dark" and f"{gitmem.COMMAND} hook" in json.dumps(data["hooks"])


def test_user_compile_writes_through_a_dotfile_link(repo: Path, home: Path, run: Run) -> None:
    link, real = stowed(home, ".claude/CLAUDE.md", "# My own notes\n")
    assert run("add", "--user", "Write British English in prose").code == 0
    result = run("compile", "--user", "--target", "claude")
    assert result.code == 0, result.err
    assert link.is_symlink() and os.readlink(link) == str(real)
    text = real.read_text(encoding="utf-8")
    assert text.startswith("# My own notes\n") and "British English" in text


def test_user_mcp_registration_writes_through_a_dotfile_link(
    project: Path, home: Path, run: Run
) -> None:
    link, real = stowed(home, ".codex/config.toml", 'model = "mine"\n')
    result = run("init", "--mcp", "--user")
    assert result.code == 0, result.err
    assert link.is_symlink() and os.readlink(link) == str(real)
    text = real.read_text(encoding="utf-8")
    assert text.startswith('model = "mine"\n') and "[mcp_servers.gitmem]" in text
