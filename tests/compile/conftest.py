"""Helpers for the compiler's tests: memories written as real files, the config set through the real writer."""

from __future__ import annotations

import re
from collections.abc import Callable
from datetime import date
from pathlib import Path
from typing import Any

import pytest

from gitmem.gateway import find_project
from gitmem.memory.config import save_config
from gitmem.memory.model import Memory
from gitmem.memory.store import Store
from tests.conftest import Run, git

WriteMemory = Callable[..., Path]


def write_memory(root: Path, memory_id: str, title: str, **fields: Any) -> Path:
    """Write one memory file as `gitmem add` would (through the store's renderer), without the command's checks."""
    fields.setdefault("kind", "convention")
    fields.setdefault("status", "active")
    fields.setdefault("created", date(2026, 1, 1))
    for name in ("paths", "tags", "targets"):
        if name in fields:
            fields[name] = tuple(fields[name])
    memory = Memory(id=memory_id, title=title, **fields)
    store = Store(find_project(root))
    path = store.path_of(memory_id)
    path.write_text(store.render(memory), encoding="utf-8")
    return path


@pytest.fixture
def memory(project: Path) -> WriteMemory:
    """``memory("use-pnpm", "Use pnpm", priority="high", paths=["web/**"])`` writes .memory/memories/use-pnpm.yaml."""

    def _write(memory_id: str, title: str, **fields: Any) -> Path:
        return write_memory(project, memory_id, title, **fields)

    return _write


def set_config(root: Path, **changes: Any) -> None:
    save_config(find_project(root), changes)


_IGNORE_FIX = re.compile(r"add ((?:`[^`]+`(?:, | and )?)+) at the end of (\S*\.gitignore)")


def apply_ignore_fix(root: Path, message: str) -> None:
    """Do what the first .gitignore fix in ``message`` says (``add `!/.claude/`, … at the end of
    .gitignore``), as a user would: the lines it names, appended to the file it names."""
    found = _IGNORE_FIX.search(message)
    assert found, message
    lines = re.findall(r"`([^`]+)`", found[1])
    ignore = root / found[2]
    before = ignore.read_text(encoding="utf-8") if ignore.exists() else ""
    if before and not before.endswith("\n"):
        before += "\n"
    ignore.write_text(before + "".join(f"{line}\n" for line in lines), encoding="utf-8")


def said_until_mended(root: Path, run: Run, said: str, mend: Callable[[str], None]) -> None:
    """Compile and `gitmem check` say ``said`` (check failing) until the user does what it says
    (``mend``, given compile's message); then compile says nothing of it and check passes."""
    result = run("compile")
    assert said in result.err, result.err
    git(root, "add", "-A")
    failed = run("check")
    assert failed.code == 1 and said in failed.out, failed.out
    mend(result.err)
    fixed = run("compile")
    assert said not in fixed.err and "more than once" not in fixed.err, fixed.err
    git(root, "add", "-A")
    checked = run("check")
    assert checked.code == 0, checked.out
