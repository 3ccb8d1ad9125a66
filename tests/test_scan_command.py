"""``gitmem scan`` end to end, in real git repositories: paths, --staged, --log, stdin, --json, --redact, --baseline,
and the allow list and excludes of .memory/config.yaml."""

from __future__ import annotations

import json
import os
import random
import re
import string
import subprocess
import sys
from pathlib import Path

import pytest

from gitmem import yamlio
from tests.conftest import Run, git

_rng = random.Random(11)
REPO_ROOT = Path(__file__).resolve().parent.parent


def ghp() -> str:
    return "ghp_" + "".join(_rng.choice(string.ascii_letters + string.digits) for _ in range(36))


def write(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


HINT = (
    "remove them (and rotate any real secret: it may already be in your history), or allow a reviewed finding "
    "with a `gitmem:allow` comment on its line or its fingerprint in scan.allow (gitmem scan --baseline)"
)


def test_scans_directories_recursively_skipping_ignored_binary_and_git(
    repo: Path, run: Run
) -> None:
    secret = ghp()
    write(repo / "src" / "app.py", f"import os\n\nTOKEN = '{secret}'\n")
    write(repo / "notes.md", "nothing to see\n")
    write(repo / ".gitignore", "build/\n")
    write(repo / "build" / "out.txt", f"token {secret}\n")  # git-ignored
    (repo / "image.bin").write_bytes(b"\x00\x01" + secret.encode())  # binary
    write(repo / ".git" / "stray", f"{secret}\n")
    result = run("scan")
    assert result.code == 1
    assert (
        result.out == "src/app.py:3:10: github-pat: possible secret: ghp_… (40 chars)\n"
    )  # stdout: `| grep`
    assert result.err == f"1 finding(s) in 1 file(s): {HINT}\n"
    assert secret not in result.out + result.err


def test_paths_are_shown_as_given_and_json_has_the_documented_shape(repo: Path, run: Run) -> None:
    secret = ghp()
    write(repo / "deploy" / "prod.env", f"A=1\nGITHUB_TOKEN={secret}\n")
    result = run("scan", "deploy", "--json")
    assert result.code == 1
    data = json.loads(result.out)
    assert data == {
        "findings": [
            {
                "path": "deploy/prod.env",
                "line": 2,
                "column": 14,
                "rule": "github-pat",
                "preview": "ghp_… (40 chars)",
                "fingerprint": data["findings"][0]["fingerprint"],
            }
        ]
    }
    assert secret not in result.out


def test_clean_paths_exit_zero(repo: Path, run: Run) -> None:
    write(repo / "a.py", "password = os.environ['PASSWORD']\n")
    write(repo / "b.yaml", "token: ${TOKEN}\n")
    result = run("scan", "a.py", "b.yaml")
    assert (result.code, result.out, result.err) == (0, "ok: no secrets in 2 files\n", "")
    assert json.loads(run("scan", "--json").out) == {"findings": []}


def test_works_outside_a_git_repository(
    tmp_path: Path, run: Run, monkeypatch: pytest.MonkeyPatch
) -> None:
    secret = ghp()
    write(tmp_path / "plain" / "x.txt", f"token {secret}\n")
    monkeypatch.chdir(tmp_path / "plain")
    result = run("scan", "--json")
    assert [f["path"] for f in json.loads(result.out)["findings"]] == ["x.txt"]


def test_missing_path_is_a_usage_error(repo: Path, run: Run) -> None:
    result = run("scan", "nope.txt")
    assert (result.code, result.err) == (2, "error: nope.txt: no such file or directory\n")


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (("--staged", "--redact"), "--redact rewrites files: give it paths or --log, not --staged"),
        (("--baseline", "--redact", "x"), "give --baseline or --redact, not both"),
        (
            ("-", "--redact", "--json"),
            "--redact with '-' prints the redacted text: it cannot be combined with --json",
        ),
    ],
)
def test_usage_errors(repo: Path, run: Run, args: tuple[str, ...], message: str) -> None:
    result = run("scan", *args)
    assert (result.code, result.err) == (2, f"error: {message}\n")


def test_staged_scans_only_added_lines_with_their_new_line_numbers(repo: Path, run: Run) -> None:
    old, new, unstaged = ghp(), ghp(), ghp()
    write(repo / "app.py", f"a = 1\nOLD = '{old}'  # gitmem:allow\nb = 2\n")
    git(repo, "add", "app.py")
    git(repo, "commit", "-qm", "base")
    write(repo / "app.py", f"a = 1\nOLD = '{old}'  # gitmem:allow\nb = 2\nc = 3\nNEW = '{new}'\n")
    git(repo, "add", "app.py")
    write(repo / "app.py", f"a = 1\nOLD = '{old}'\nb = 2\nc = 3\nNEW = '{new}'\nU = '{unstaged}'\n")
    result = run("scan", "--staged", "--json")
    assert result.code == 1
    found = [
        (f["path"], f["line"], f["column"], f["rule"]) for f in json.loads(result.out)["findings"]
    ]
    assert found == [("app.py", 5, 8, "github-pat")]


def test_staged_with_nothing_staged_passes(repo: Path, run: Run) -> None:
    write(repo / "a.txt", "hello\n")
    git(repo, "add", "a.txt")
    git(repo, "commit", "-qm", "base")
    result = run("scan", "--staged")
    assert (result.code, result.out) == (0, "ok: no secrets in 0 files (staged)\n")


def test_staged_reads_new_files_and_odd_names_from_subdirectories(repo: Path, run: Run) -> None:
    secret = ghp()
    write(repo / "dir with space" / 'quo"te.env', f"\n\nTOKEN={secret}\n")
    git(repo, "add", ".")
    os.chdir(repo / "dir with space")
    result = run("scan", "--staged", "--json")
    assert [(f["path"], f["line"]) for f in json.loads(result.out)["findings"]] == [
        ('quo"te.env', 3)
    ]


def test_staged_respects_git_index_file(repo: Path, run: Run) -> None:
    """git sets GIT_INDEX_FILE for `git commit FILE`: the hook must scan that index, not .git/index."""
    secret = ghp()
    write(repo / "a.txt", "base\n")
    git(repo, "add", "a.txt")
    git(repo, "commit", "-qm", "base")
    write(repo / "a.txt", f"base\nTOKEN={secret}\n")
    index = repo.parent / "partial-index"
    env = {**os.environ, "GIT_INDEX_FILE": str(index)}
    subprocess.run(["git", "read-tree", "HEAD"], cwd=repo, env=env, check=True)
    subprocess.run(["git", "add", "a.txt"], cwd=repo, env=env, check=True)
    assert run("scan", "--staged").code == 0  # the default index has nothing staged
    result = run("scan", "--staged", env={"GIT_INDEX_FILE": str(index)})
    assert result.code == 1 and "a.txt:2:7: github-pat" in result.out


def test_staged_outside_a_repository_cannot_run(
    tmp_path: Path, run: Run, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    result = run("scan", "--staged")
    assert (result.code, result.err) == (
        3,
        "error: --staged needs a git repository: run it inside one\n",
    )


def test_redact_rewrites_the_file_and_keeps_the_rest(repo: Path, run: Run) -> None:
    secret, password = ghp(), "Zx8!" + "".join(_rng.choice(string.ascii_letters) for _ in range(14))
    path = write(
        repo / "notes.md",
        f"# Notes\n\nDeploy with {secret}.\nThe staging password is {password} for now.\n",
    )
    path.chmod(0o640)
    result = run("scan", "--redact", "notes.md")
    assert result.code == 1
    assert result.err.endswith(
        "2 finding(s) in 1 file(s): redacted in notes.md; check the result\n"
    )
    assert path.read_text() == (
        "# Notes\n\nDeploy with ‹redacted:github-pat›.\nThe staging password is ‹redacted:secret-in-prose› for now.\n"
    )
    assert path.stat().st_mode & 0o777 == 0o640
    assert run("scan", "notes.md").code == 0


def test_stdin_is_scanned_and_redacted(repo: Path, run: Run) -> None:
    secret = ghp()
    text = f"line one\nexport GITHUB_TOKEN={secret}\n"
    result = run("scan", "-", input=text)
    assert (
        result.code == 1 and result.out == "-:2:21: github-pat: possible secret: ghp_… (40 chars)\n"
    )
    redacted = run("scan", "-", "--redact", input=text)
    assert redacted.code == 1
    assert (
        redacted.out == "line one\nexport GITHUB_TOKEN=‹redacted:github-pat›\n"
    )  # findings on stderr here
    assert redacted.err.startswith("-:2:21: github-pat: possible secret: ghp_… (40 chars)\n")
    clean = run("scan", "-", "--redact", input="nothing here\n")
    assert (clean.code, clean.out) == (0, "nothing here\n")


def test_log_files_are_decoded_deeper(repo: Path, run: Run) -> None:
    secret = ghp()
    import base64

    inner = base64.b64encode(f"GITHUB_TOKEN={secret}".encode()).decode()
    twice = base64.b64encode(base64.b64encode(inner.encode())).decode()
    log = write(
        repo / "session.jsonl",
        json.dumps({"type": "tool_result", "content": f"blob {twice}"}) + "\n",
    )
    assert run("scan", "session.jsonl").code == 0  # two layers deep for code and config
    result = run("scan", "--log", str(log), "--json")
    assert [f["rule"] for f in json.loads(result.out)["findings"]] == ["github-pat"]


def test_hidden_unicode_is_reported(repo: Path, run: Run) -> None:
    write(repo / "AGENTS.md", "Always run the tests.\u202e\n")
    result = run("scan", "AGENTS.md")
    assert result.code == 1
    assert result.out.startswith(
        "AGENTS.md:1:22: hidden-unicode: hidden Unicode character U+202E (RIGHT-TO-LEFT OVERRIDE)\n"
    )


def test_baseline_then_allow_list_and_excludes_from_config(project: Path, run: Run) -> None:
    secret, other = ghp(), ghp()
    write(project / "docs" / "example.md", f"Use a token like {secret} (revoked).\n")
    write(project / "docs" / "odd #dir" / "a: b.md", f"token {secret}\n")  # a path YAML must quote
    write(project / "tests" / "fixtures" / "x.env", f"TOKEN={other}\n")
    baseline = run("scan", "docs", "--baseline")
    assert baseline.code == 0
    entries = [line for line in baseline.out.splitlines() if line.startswith("    - ")]
    [plain] = [line for line in entries if "example.md" in line]
    fingerprint = plain.split()[1]
    assert plain == f"    - {fingerprint}  # docs/example.md:1 github-pat"
    assert re.fullmatch(r"v3:docs/example\.md:github-pat:[0-9a-f]{16}:[0-9a-f]{16}", fingerprint)
    [quoted] = [line for line in entries if "odd" in line]
    assert quoted.startswith('    - "v3:docs/odd #dir/a: b.md:github-pat:')
    assert secret not in baseline.out
    block = baseline.out[baseline.out.index("scan:\n") :]
    assert "salt" not in block  # a v3 fingerprint needs none
    config = project / ".memory" / "config.yaml"
    config.write_text(config.read_text() + block + "  exclude:\n    - tests/fixtures/**\n")
    assert run("scan", "docs", "tests").code == 0
    assert (
        run("scan").code == 0
    )  # the same fingerprints from the root as from docs/: paths from the root
    # the allow list is by place: the same secret in another file is not allowed
    write(project / "docs" / "more.md", f"again {secret}\nnew {other}\n")
    result = run("scan", "docs", "--json")
    assert [(f["path"], f["line"]) for f in json.loads(result.out)["findings"]] == [
        ("docs/more.md", 1),
        ("docs/more.md", 2),
    ]


def test_staged_applies_config_excludes(project: Path, run: Run) -> None:
    config = project / ".memory" / "config.yaml"
    config.write_text(config.read_text() + "scan:\n  exclude:\n    - '*.snap'\n")
    write(project / "ui" / "view.snap", f"token {ghp()}\n")
    git(project, "add", "ui/view.snap")
    assert run("scan", "--staged").code == 0
    write(project / "ui" / "view.txt", f"token {ghp()}\n")
    git(project, "add", "ui/view.txt")
    assert run("scan", "--staged").code == 1


@pytest.mark.parametrize("how", ["git mv", "copy with diff.renames=copies", "rename and edit"])
def test_a_file_moved_or_copied_out_of_an_excluded_folder_is_scanned_whole(
    project: Path, run: Run, how: str
) -> None:
    """A rename adds no lines to the staged diff: its token, excluded where it was, must not pass where it lands."""
    config = project / ".memory" / "config.yaml"
    config.write_text(config.read_text() + "scan:\n  exclude:\n    - fixtures/\n")
    body = "".join(f"line_{n} = {n}\n" for n in range(30))
    write(project / "fixtures" / "client.py", f"{body}TOKEN = '{ghp()}'\n")
    git(project, "add", ".")
    git(project, "commit", "-qm", "fixtures")
    assert run("scan", "--staged").code == 0
    (project / "src").mkdir()
    if how == "git mv":
        git(project, "mv", "fixtures/client.py", "src/client.py")
    elif how == "rename and edit":
        git(project, "mv", "fixtures/client.py", "src/client.py")
        write(
            project / "src" / "client.py",
            (project / "src" / "client.py").read_text() + "DONE = True\n",
        )
    else:
        git(project, "config", "diff.renames", "copies")
        write(project / "src" / "client.py", (project / "fixtures" / "client.py").read_text())
        write(
            project / "fixtures" / "client.py",
            (project / "fixtures" / "client.py").read_text() + "X = 1\n",
        )
    git(project, "add", "-A")
    result = run("scan", "--staged", "--json")
    assert result.code == 1, (how, result.out)
    assert [(f["path"], f["line"]) for f in json.loads(result.out)["findings"]] == [
        ("src/client.py", 31)
    ]


def test_an_invalid_config_cannot_run(project: Path, run: Run) -> None:
    (project / ".memory" / "config.yaml").write_text("version: 1\nscan:\n  allow: [not-hex]\n")
    result = run("scan", "--staged")
    assert result.code == 3
    assert "scan.allow[0]: must be a finding fingerprint" in result.err


def test_help_has_an_example(run: Run) -> None:
    result = run("scan", "--help")
    assert result.code == 0 and "gitmem scan --staged" in result.out and "--baseline" in result.out


def test_this_repository_holds_nothing_its_own_scanner_flags(run_exe: Run) -> None:
    result = run_exe("scan", "--json", cwd=REPO_ROOT)
    assert json.loads(result.out) == {"findings": []}, result.out


def test_a_pragma_in_a_session_log_allows_nothing(repo: Path, run: Run) -> None:
    secret = ghp()
    log = write(repo / "session.md", f"agent: export GITHUB_TOKEN={secret}  # gitmem:allow\n")
    assert run("scan", "session.md").code == 0  # a reviewed file: the pragma counts
    result = run("scan", "--log", str(log))
    assert result.code == 1 and "session.md:1:28: github-pat" in result.out


@pytest.mark.parametrize("suffix", ["", "  # gitmem:allow"])
def test_add_refuses_a_memory_holding_a_secret(project: Path, run: Run, suffix: str) -> None:
    password = "Qm4%" + "".join(
        _rng.choice(string.ascii_letters + string.digits) for _ in range(14)
    )
    result = run("add", "Staging access", "--body", f"The staging password is {password}{suffix}")
    assert result.code == 1
    assert "secret-in-prose" in result.err and password not in result.out + result.err
    assert not list((project / ".memory" / "memories").glob("*.yaml"))


def test_the_hook_path_imports_no_heavy_library(project: Path, run: Run) -> None:
    """The hook runs on every commit: no YAML, JSON Schema or GitPython import once the settings are cached."""
    write(project / "a.py", "x = 1\n")
    git(project, "add", "a.py")
    assert run("scan", "--staged").code == 0  # reads the config once and caches its scan settings
    probe = (
        "import sys\nfrom gitmem.commands.cli import main\ncode = main(['scan', '--staged'])\n"
        "heavy = sorted({m.split('.')[0] for m in sys.modules} & {'ruamel', 'jsonschema', 'git', 'gitdb'})\n"
        "print(code, heavy)\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", probe], cwd=project, capture_output=True, text=True, check=False
    )
    assert done.stdout.splitlines()[-1] == "0 []", done.stdout + done.stderr


def test_a_file_over_the_limit_in_a_large_tree_is_reported_as_in_one_process(
    project: Path, run: Run, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A worker cannot hand TooLarge back (the pool unpickles an exception by its arguments): the scan waited forever
    for its result. The parent now reads that file again and reports it as one process does."""
    import threading

    from gitmem import gateway
    from gitmem.scan import parallel

    for n in range(70):
        write(project / "src" / f"m{n:02d}.py", f"value = {n}\n")
    (project / "src" / "huge.txt").write_text("a" * 5000)
    monkeypatch.setattr(gateway, "SCAN_LIMIT", 4096)
    single = run("scan", "src")
    monkeypatch.setattr(parallel, "PROCESS_BYTES", 1)
    results = []
    worker = threading.Thread(target=lambda: results.append(run("scan", "src")), daemon=True)
    worker.start()
    worker.join(timeout=60)
    assert not worker.is_alive(), "the two-process scan did not end"
    assert single.code == 1 and "larger than 4 KiB, the limit" in single.out + single.err
    assert (results[0].code, results[0].out, results[0].err) == (
        single.code,
        single.out,
        single.err,
    )


def test_a_large_tree_is_scanned_in_two_processes_with_the_same_result(
    project: Path, run: Run, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``scan PATH`` deals a large tree's files out to two processes (as kingfisher uses both cores): the same
    findings, in the same order, and the same count of files scanned; never on the hook's path."""
    from gitmem.scan import parallel

    for n in range(70):
        body = "".join(f"value_{i} = {i}\n" for i in range(n * 3))
        secret = f"TOKEN = '{ghp()}'\n" if n % 3 == 0 else ""
        write(
            project / "src" / f"m{n:02d}" / "mod.py",
            body + secret + ("a\u200bb\n" if n % 7 == 0 else ""),
        )
    (project / "src" / "blob.bin").write_bytes(b"\x00" * 100)
    single = run("scan", "--json", "src")
    calls: list[int] = []
    real = parallel.in_processes

    def counted(entries: list[object], settings: object) -> tuple[int, list[object]]:
        calls.append(len(entries))
        return real(entries, settings)  # type: ignore[arg-type]

    monkeypatch.setattr(parallel, "PROCESS_BYTES", 1)
    monkeypatch.setattr(parallel, "in_processes", counted)
    two = run("scan", "--json", "src")
    assert calls == [71]
    assert two == single and len(json.loads(single.out)["findings"]) == 24 + 10
    git(project, "add", "src")
    assert run("scan", "--staged", "--json").out == single.out  # the hook's path: one process
    assert calls == [71]
    # what scan.allow lets through is named by both paths alike (the two-process path dropped it)
    allow = [entry["fingerprint"] for entry in json.loads(single.out)["findings"][:2]]
    config = project / ".memory/config.yaml"
    data = yamlio.load(config.read_text(encoding="utf-8")).data
    config.write_text(yamlio.dump({**data, "scan": {"allow": allow}}), encoding="utf-8")
    monkeypatch.setattr(parallel, "PROCESS_BYTES", 10**12)
    single = run("scan", "--json", "src")
    monkeypatch.setattr(parallel, "PROCESS_BYTES", 1)
    assert run("scan", "--json", "src") == single and calls == [71, 71]
    assert len(json.loads(single.out)["allowed"]) == 2
    assert len(json.loads(single.out)["findings"]) == 24 + 10 - 2
    config.write_text(yamlio.dump(data), encoding="utf-8")
    # the count of files scanned is the same too
    for n in range(70):
        write(project / "src" / f"m{n:02d}" / "mod.py", "x = 1\n")
    assert run("scan", "src").out == "ok: no secrets in 70 files\n"
    assert calls == [71, 71, 71]
