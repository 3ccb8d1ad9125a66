"""Packs hold up under attack: a ``git://`` server that accepts and never answers does not hang ``sources add`` or
``compile`` (a timeout over every transport), and a pack holding a huge blob is not read into memory before the
size check. A real TCP server on 127.0.0.1, real clones."""

from __future__ import annotations

import os
import socket
import subprocess
import threading
import time
import tracemalloc
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.conftest import Run, git, gitmem_command

BIG = 48 * 1024 * 1024


@pytest.fixture
def silent_server() -> Iterator[str]:
    """A git:// address on 127.0.0.1 whose server accepts every connection and never says a word."""
    server = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    server.bind(("127.0.0.1", 0))
    server.listen(8)
    held: list[socket.socket] = []
    stop = threading.Event()

    def accept() -> None:
        server.settimeout(0.2)
        while not stop.is_set():
            try:
                connection, _ = server.accept()
            except TimeoutError:
                continue
            except OSError:
                return
            held.append(connection)

    thread = threading.Thread(target=accept, daemon=True)
    thread.start()
    try:
        yield f"git://127.0.0.1:{server.getsockname()[1]}/pack.git"
    finally:
        stop.set()
        thread.join()
        for connection in held:
            connection.close()
        server.close()


def gitmem(
    project: Path, *args: str, timeout: float = 60
) -> tuple[subprocess.CompletedProcess[str], float]:
    start = time.monotonic()
    done = subprocess.run(
        [*gitmem_command(), *args],
        cwd=project,
        capture_output=True,
        text=True,
        env={**os.environ, "GITMEM_FETCH_TIMEOUT": "2"},
        timeout=timeout,  # on a hang the test fails here instead of stalling the suite
        check=False,
    )
    return done, time.monotonic() - start


def test_sources_add_from_a_silent_git_server_times_out(project: Path, silent_server: str) -> None:
    done, seconds = gitmem(
        project, "sources", "add", silent_server, "--rev", "v1", "--name", "silent"
    )
    assert done.returncode == 3, done.stderr
    assert done.stderr == (
        f"error: source 'silent': cannot fetch {silent_server}: timed out after 2 s: the server does not answer\n"
    )
    assert seconds < 30
    assert "sources" not in (project / ".memory/config.yaml").read_text(encoding="utf-8")


def test_compile_with_a_silent_source_times_out(project: Path, silent_server: str) -> None:
    config = project / ".memory/config.yaml"
    config.write_text(
        config.read_text(encoding="utf-8")
        + f"sources:\n  - name: silent\n    repo: {silent_server}\n    rev: v1\n",
        encoding="utf-8",
    )
    done, seconds = gitmem(project, "compile")
    assert done.returncode == 3, done.stderr
    assert "timed out after 2 s" in done.stderr and len(done.stderr.splitlines()) == 1
    assert seconds < 30


@pytest.fixture
def huge_pack(tmp_path: Path) -> Path:
    """A pack whose one memory file is a 48 MiB blob (compressed, the pack is small)."""
    work = tmp_path / "huge"
    (work / ".memory/memories").mkdir(parents=True)
    git(work, "init", "-q", "-b", "main")
    with open(work / ".memory/memories/huge.yaml", "wb") as handle:
        handle.write(b"id: huge\ntitle: ")
        handle.write(b"x" * BIG)
        handle.write(b"\nkind: fact\nstatus: active\n")
    (work / ".memory/memories/fine.yaml").write_text(
        "id: fine\ntitle: Fine\nkind: fact\nstatus: active\n"
    )
    git(work, "add", "-A")
    git(work, "commit", "-q", "-m", "huge")
    return work


def test_a_huge_blob_in_a_pack_is_refused_without_reading_it(
    project: Path, huge_pack: Path, run: Run
) -> None:
    tracemalloc.start()
    try:
        result = run("sources", "add", str(huge_pack), "--rev", "main", "--name", "huge")
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert result.code == 1
    size = BIG + len("id: huge\ntitle: \nkind: fact\nstatus: active\n")
    first = result.err.splitlines()[0]
    assert first.startswith("huge@") and first.endswith(
        f":.memory/memories/huge.yaml:1:1: file: too large ({size} bytes; the limit is 65536)"
    )
    assert peak < BIG // 2, f"peak {peak / 2**20:.1f} MiB while checking the pack"


def test_a_huge_memory_file_in_the_store_is_not_read(project: Path, run: Run) -> None:
    with open(project / ".memory/memories/huge.yaml", "wb") as handle:
        handle.write(b"id: huge\ntitle: " + b"x" * BIG + b"\nkind: fact\nstatus: active\n")
    tracemalloc.start()
    try:
        result = run("validate")
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert result.code == 1
    assert ".memory/memories/huge.yaml:1:1: file: too large (" in result.err
    assert peak < BIG // 2, f"peak {peak / 2**20:.1f} MiB while validating"


def _tree_naming_one_blob(work: Path, blob: bytes, count: int) -> str:
    """A commit whose .memory/memories names one blob ``count`` times (git stores it once: the pack is small)."""
    work.mkdir()
    git(work, "init", "-q", "-b", "main")
    oid = subprocess.run(["git", "hash-object", "-w", "--stdin"], cwd=work, input=blob, capture_output=True,
                         check=True).stdout.decode().strip()  # fmt: skip
    entries = "".join(f"100644 blob {oid}\tm{index}.yaml\n" for index in range(count))
    memories = subprocess.run(
        ["git", "mktree"], cwd=work, input=entries.encode(), capture_output=True, check=True
    )
    memory = subprocess.run(["git", "mktree"], cwd=work, capture_output=True, check=True,
                            input=f"040000 tree {memories.stdout.decode().strip()}\tmemories\n".encode())  # fmt: skip
    root = subprocess.run(["git", "mktree"], cwd=work, capture_output=True, check=True,
                          input=f"040000 tree {memory.stdout.decode().strip()}\t.memory\n".encode())  # fmt: skip
    commit = git(work, "commit-tree", "-m", "many", root.stdout.decode().strip()).strip()
    git(work, "update-ref", "refs/heads/main", commit)
    return commit


LIMITS = [
    (3000, 60_000, "more than 1000 memory files"),
    (900, 20_000, "bytes of memory files (a pack may hold"),
]


@pytest.mark.parametrize(("count", "size", "limit"), LIMITS)
def test_a_pack_over_the_file_or_byte_limit_is_refused_before_its_blobs_are_read(
    project: Path, tmp_path: Path, run: Run, count: int, size: int, limit: str
) -> None:
    blob = b"id: m0\ntitle: T\nkind: fact\nstatus: active\nbody: '" + b"x" * size + b"'\n"
    _tree_naming_one_blob(tmp_path / "many", blob, count)
    config = (project / ".memory/config.yaml").read_bytes()
    tracemalloc.start()
    try:
        result = run("sources", "add", str(tmp_path / "many"), "--rev", "main", "--name", "many")
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert result.code == 3, result.err
    assert (
        result.err.startswith("error: source 'many': ")
        and limit in result.err
        and len(result.err.splitlines()) == 1
    )
    assert peak < 4 * 1024 * 1024, f"peak {peak / 2**20:.1f} MiB"
    assert (project / ".memory/config.yaml").read_bytes() == config


def test_a_tag_with_hidden_text_is_never_printed_or_pinned(
    project: Path, tmp_path: Path, run: Run
) -> None:
    pack = tmp_path / "pack"
    (pack / ".memory/memories").mkdir(parents=True)
    git(pack, "init", "-q", "-b", "main")
    (pack / ".memory/memories/one.yaml").write_text(
        "id: one\ntitle: One\nkind: fact\nstatus: active\n"
    )
    git(pack, "add", "-A")
    git(pack, "commit", "-q", "-m", "one")
    git(pack, "tag", "v1.0")
    git(pack, "tag", "v9.0\u202e1.0v")  # sorts newest, and a terminal shows it as another version
    config = (project / ".memory/config.yaml").read_bytes()
    refused = run("sources", "add", str(pack), "--rev", "v9.0\u202e1.0v", "--name", "acme")
    assert (
        refused.code == 2 and "U+202E" in refused.err and "\u202e" not in refused.out + refused.err
    )
    assert (project / ".memory/config.yaml").read_bytes() == config
    added = run("sources", "add", str(pack), "--name", "acme")  # the newest tag gitmem can pin
    assert added.code == 0, added.err
    assert "\u202e" not in added.out + added.err
    text = (project / ".memory/config.yaml").read_text(encoding="utf-8")
    assert "rev: v1.0" in text and "\u202e" not in text
    assert run("compile").code == 0
    updated = run("sources", "update")
    assert updated.code == 0 and "\u202e" not in updated.out + updated.err
