"""`gitmem scan --staged` (the pre-commit hook) is answered without click by gitmem/__main__.py: the same bytes on
stdout and stderr and the same exit code as through click, on real staged changes in real repositories (clean,
secrets, hidden characters, odd file names, binary files, an old-style allow entry, no repository, no changes)."""

from __future__ import annotations

import marshal
import os
import subprocess
import sys
from pathlib import Path

import pytest

from gitmem.scan.engine import legacy_fingerprint
from tests.conftest import git

# The fast path, as the console script runs it; it records the modules it loaded.
FAST = (
    "import sys\n"
    "sys.argv = ['gitmem', *sys.argv[2:]]\n"
    "from gitmem.__main__ import main\n"
    "code = main()\n"
    "open(MARK, 'w').write('\\n'.join(sorted(sys.modules)))\n"
    "raise SystemExit(code)\n"
)
# The click path: the command module, as every other invocation runs it.
CLICK = "import sys\nfrom gitmem.commands.cli import main\nraise SystemExit(main(sys.argv[2:]))\n"


def fake_token(seed: int) -> str:
    return "ghp_" + "".join("a1b2c3d4e5"[(seed * 7 + i * 3) % 10] for i in range(36))


Ran = tuple[int, bytes, bytes]


def both(
    cwd: Path, tmp_path: Path, *args: str, env: dict[str, str] | None = None
) -> tuple[Ran, Ran, list[str]]:
    """(exit, stdout, stderr) of the fast path and of the click path, and the modules the fast path loaded."""
    mark = tmp_path / "loaded"
    environment = {**os.environ, **(env or {})}
    runs: list[Ran] = []
    for code in (FAST.replace("MARK", repr(str(mark))), CLICK):
        done = subprocess.run(
            [sys.executable, "-c", code, "-", *args],
            cwd=cwd,
            capture_output=True,
            env=environment,
            check=False,
        )
        runs.append((done.returncode, done.stdout, done.stderr))
    return runs[0], runs[1], mark.read_text().split()


@pytest.fixture
def based(repo: Path) -> Path:
    (repo / "app.py").write_text("import os\n\nDEBUG = False\n")
    (repo / "README.md").write_text("# app\n")
    git(repo, "add", ".")
    git(repo, "commit", "-qm", "base")
    return repo


def test_a_clean_change_reads_the_same_and_click_is_never_imported(
    based: Path, tmp_path: Path
) -> None:
    (based / "app.py").write_text("import os\n\nDEBUG = False\nTOKEN = os.environ['API_TOKEN']\n")
    (based / "lib").mkdir()
    (based / "lib" / "util.py").write_text("def add(a, b):\n    return a + b\n")
    git(based, "add", ".")
    fast, slow, loaded = both(based, tmp_path, "scan", "--staged")
    assert fast == slow
    assert fast == (0, b"ok: no secrets in 2 files (staged)\n", b"")
    assert "click" not in loaded


def test_no_module_the_hook_loads_compiles_a_pattern_when_it_is_imported(based: Path) -> None:
    """The hook is a new process on every commit, and ``re.compile`` parses a pattern in Python: a
    module on its path keeps its patterns ``lazy`` (gitmem.scan.lazyre), compiled on first use. Any
    ``re.compile`` run at the top of a gitmem module while the hook answers a clean commit fails
    here (kinds.py's test-file pattern and inputs.py's hunk header were, once)."""
    (based / "app.py").write_text("DEBUG = False\n")
    git(based, "add", ".")
    probe = (
        "import re, sys\n"
        "compile, eager = re.compile, []\n"
        "def watched(*args, **kwargs):\n"
        "    caller = sys._getframe(1)\n"
        "    if caller.f_code.co_name == '<module>':\n"
        "        eager.append(caller.f_globals.get('__name__', '?'))\n"
        "    return compile(*args, **kwargs)\n"
        "re.compile = watched\n"
        "sys.argv = ['gitmem', 'scan', '--staged']\n"
        "from gitmem.__main__ import main\n"
        "code = main()\n"
        "print(' '.join(name for name in eager if name.startswith('gitmem')))\n"
        "raise SystemExit(code)\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", probe], cwd=based, capture_output=True, text=True, check=False
    )
    assert done.returncode == 0, done.stderr
    assert "ok: no secrets" in done.stdout
    assert done.stdout.splitlines()[-1] == ""


# What the hook's process loads for a clean commit: none of these (each costs more to import than the scan of a
# typical commit; tests/test_architecture.py checks the modules' imports one by one).
NEVER_LOADED_BY_SCAN = (
    "click",
    "ruamel",
    "jsonschema",
    "git",
    "sqlite3",
    "subprocess",
    "dataclasses",
    "inspect",
    "tempfile",
    "hashlib",
    "json",
    "unicodedata",
    "base64",
    "gitmem.commands.cli",
    "gitmem.commands.output",
    "gitmem.memory.config",
    "gitmem.memory",
    "gitmem.recall",
)


def test_a_clean_commit_loads_nothing_slow(based: Path, tmp_path: Path) -> None:
    (based / "app.py").write_text("import os\n\nDEBUG = False\nAPI_KEY = os.environ['API_KEY']\n")
    git(based, "add", ".")
    fast, _, loaded = both(based, tmp_path, "scan", "--staged")
    assert fast[0] == 0
    assert "gitmem.scan.engine" in loaded  # it scanned
    assert [
        name
        for name in loaded
        if any(name == s or name.startswith(s + ".") for s in NEVER_LOADED_BY_SCAN)
    ] == []


def test_findings_read_the_same(based: Path, tmp_path: Path) -> None:
    first, second = fake_token(1), fake_token(2)
    (based / "app.py").write_text(f"import os\n\nDEBUG = False\nGITHUB_TOKEN = '{first}'\n")
    (based / "notes.md").write_text(f"the bot uses {second}\nand a hidden\u200bspace\n")
    git(based, "add", ".")
    fast, slow, loaded = both(based, tmp_path, "scan", "--staged")
    assert fast == slow
    code, out, err = fast
    assert code == 1
    assert out.decode().splitlines() == [
        "app.py:4:17: github-pat: possible secret: ghp_… (40 chars)",
        "notes.md:1:14: github-pat: possible secret: ghp_… (40 chars)",
        "notes.md:2:13: hidden-unicode: hidden Unicode character U+200B (ZERO WIDTH SPACE)",
    ]
    assert err.decode().startswith("3 finding(s) in 2 file(s): remove them")
    assert first.encode() not in out + err and second.encode() not in out + err
    assert "click" not in loaded


def test_from_a_subdirectory_odd_names_and_a_binary_file(based: Path, tmp_path: Path) -> None:
    (based / "docs dir").mkdir()
    (based / "docs dir" / 'café "x".txt').write_text(f"key {fake_token(3)}\n")
    (based / "image.bin").write_bytes(b"\x00\x01" + fake_token(4).encode())
    (based / ".gitattributes").write_text("*.txt -diff\n")
    git(based, "add", ".")
    fast, slow, _ = both(based / "docs dir", tmp_path, "scan", "--staged")
    assert fast == slow
    assert fast[0] == 1 and 'café "x".txt:1:5: github-pat' in fast[1].decode()


def test_ansi_codes_in_a_path_are_stripped_as_click_strips_them(
    based: Path, tmp_path: Path
) -> None:
    (based / "a\x1b[31mred.txt").write_text(f"key {fake_token(5)}\n")
    git(based, "add", ".")
    fast, slow, _ = both(based, tmp_path, "scan", "--staged")
    assert fast == slow
    assert b"\x1b" not in fast[1]


def test_an_old_style_allow_entry_warns_the_same(project: Path, tmp_path: Path) -> None:
    secret = fake_token(6)
    (project / "notes.md").write_text(f"old token {secret}\n")
    config = project / ".memory" / "config.yaml"
    config.write_text(
        config.read_text() + f"scan:\n  allow:\n    - {legacy_fingerprint('github-pat', secret)}\n"
    )
    git(project, "add", ".")
    for _ in range(2):  # the settings parsed from YAML, then from the cache under .git/gitmem/
        fast, slow, loaded = both(project, tmp_path, "scan", "--staged")
        assert fast == slow
        assert fast[0] == 0 and b"old fingerprint(s)" in fast[2]
    assert "click" not in loaded


def test_the_settings_cache_spares_the_yaml_and_a_damaged_one_is_read_again(
    project: Path, tmp_path: Path
) -> None:
    """The hook reads scan.exclude from its cache under .git/gitmem/ (no YAML library, no json); whatever that file
    holds, a damaged or foreign one included, the excludes still apply."""
    config = project / ".memory" / "config.yaml"
    config.write_text(config.read_text() + "scan:\n  exclude:\n    - '*.snap'\n")
    (project / "view.snap").write_text(f"token {fake_token(7)}\n")
    git(project, "add", "view.snap")
    cache = project / ".git" / "gitmem" / "scan-settings.marshal"
    st = config.stat()
    key = [
        st.st_ino,
        st.st_size,
        st.st_mtime_ns,
        st.st_ctime_ns,
    ]  # this config's: only the shape is wrong
    foreign = [
        marshal.dumps({"key": 1}),
        marshal.dumps("text"),
        marshal.dumps((key, "ab", "*.sn", "salt")),
    ]
    foreign += [marshal.dumps((key, [], ["x"], 4)), marshal.dumps((key, [1], [], "salt"))]
    damaged = [b"", b"not marshal", b"\xff" * 64, *foreign]
    for content in (None, None, *damaged):
        if content is not None:
            cache.write_bytes(content)
        fast, slow, loaded = both(project, tmp_path, "scan", "--staged")
        assert fast == slow == (0, b"ok: no secrets in 0 files (staged)\n", b""), content
    both(
        project, tmp_path, "scan", "--staged"
    )  # the last damaged cache was replaced: this run reads the new one
    fast, _, loaded = both(project, tmp_path, "scan", "--staged")
    assert fast[0] == 0 and cache.is_file()
    assert not [name for name in loaded if name.split(".")[0] in ("ruamel", "json", "jsonschema")]


def test_nothing_staged_and_no_repository_read_the_same(based: Path, tmp_path: Path) -> None:
    fast, slow, _ = both(based, tmp_path, "scan", "--staged")
    assert fast == slow == (0, b"ok: no secrets in 0 files (staged)\n", b"")
    outside = tmp_path / "outside"
    outside.mkdir()
    fast, slow, _ = both(
        outside, tmp_path, "scan", "--staged", env={"GIT_CEILING_DIRECTORIES": str(tmp_path)}
    )
    assert fast == slow
    assert fast == (3, b"", b"error: --staged needs a git repository: run it inside one\n")


def test_a_git_failure_reads_the_same(based: Path, tmp_path: Path) -> None:
    (based / "app.py").write_text("x = 1\n")
    git(based, "add", ".")
    (based / ".git" / "index").write_bytes(b"not an index")  # git diff --cached now fails
    fast, slow, _ = both(based, tmp_path, "scan", "--staged")
    assert fast == slow
    assert (
        fast[0] == 3
        and fast[2].startswith(b"error: git ")
        and b"index file smaller than expected" in fast[2]
    )


def test_other_command_lines_still_go_through_click(based: Path, tmp_path: Path) -> None:
    for args in (
        ("scan", "--staged", "--help"),
        ("scan", "--staged", "--json"),
        ("scan", "--staged", "app.py"),
    ):
        fast, slow, loaded = both(based, tmp_path, *args)
        assert fast == slow
        assert "click" in loaded
