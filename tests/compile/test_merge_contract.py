"""The merge-driver contract: blocks merged memory by memory give exactly what compile writes.

The scenario is the hard one: a memory's commit is reverted after later commits added other memories, so the
rules files the revert has to change were rewritten since.
"""

from __future__ import annotations

import subprocess
from pathlib import Path

from gitmem.compile import block
from gitmem.memory.config import TARGET_NAMES
from tests.compile.conftest import WriteMemory, set_config
from tests.compile.test_golden import tree
from tests.conftest import Run, git


def _merge_file(base: str | None, ours: str | None, theirs: str | None) -> str | None:
    """What a merge driver built on the contract does with one rules file. The text outside the block is the same
    on every side here, so only the blocks need merging; a side without the file has an empty block."""
    found = [block.scan(text).found if text is not None else None for text in (base, ours, theirs)]
    template = next(f for f in (found[1], found[2], found[0]) if f is not None)
    empty = block.Block(block.split(template.body).preamble)
    base_block, ours_block, theirs_block = (block.split(f.body) if f else empty for f in found)
    merged = block.merge(base_block, ours_block, theirs_block)
    assert merged.conflicts == []
    if not merged.block.holds_anything:
        return None  # no memory left for this file: the driver deletes it (or removes the block)
    body = block.assemble(merged.block)
    unsealed = template.before + template.begin + body + block.END_LINE + "\n" + template.after
    return block.seal(unsealed)


def test_reverting_a_memory_after_later_commits_merges_to_exactly_what_compile_writes(
    project: Path, memory: WriteMemory, run: Run
) -> None:
    set_config(project, targets=list(TARGET_NAMES), budget=100_000)
    memory("use-pnpm", "Use pnpm", priority="high", body="npm breaks the lockfile.")
    memory("typed", "Type every function", kind="pitfall", paths=["**/*.py"])
    assert run("compile").code == 0
    before_bad = tree(project)
    bad = memory("bad-idea", "A memory that turns out wrong", paths=["web/**"], body="Wrong.")
    assert run("compile").code == 0
    with_bad = tree(project)  # the commit to revert
    memory("later", "Added after the bad one", kind="decision", priority="low")
    memory("later-py", "Also for Python", kind="pitfall", paths=["**/*.py"])
    assert run("compile").code == 0
    head = tree(project)  # later commits rewrote the same rules files
    bad.unlink()
    assert run("compile").code == 0
    expected = {p: t for p, t in tree(project).items() if not p.endswith(".aider.conf.yml")}

    # `git revert`: a three-way merge of HEAD (ours) and the reverted commit's parent (theirs), based on the commit
    merged = {}
    for path in sorted(set(with_bad) | set(head) | set(before_bad)):
        if path.endswith(".aider.conf.yml"):
            continue
        result = _merge_file(with_bad.get(path), head.get(path), before_bad.get(path))
        if result is not None:
            merged[path] = result
    # A bridge (web/GEMINI.md importing web/AGENTS.md) holds no entry: merged, it outlives the hub's file it imports,
    # which the merge removed; the next compile removes it (the driver sees one file at a time).
    stale = {
        p
        for p, t in merged.items()
        if "\n@AGENTS.md\n" in t and p.replace("GEMINI", "AGENTS") not in merged
    }
    assert stale == {"web/GEMINI.md"}
    assert {p: t for p, t in merged.items() if p not in stale} == expected
    assert any("web/" in path for path in with_bad) and not any("web/" in path for path in expected)


def test_a_real_git_revert_is_healed_by_compile(
    project: Path, memory: WriteMemory, run: Run
) -> None:
    set_config(
        project, targets=["agents", "claude", "amazonq"]
    )  # three full copies (no client reads two)
    memory("use-pnpm", "Use pnpm")
    assert run("compile").code == 0
    git(project, "add", "-A")
    git(project, "commit", "-qm", "base")
    memory("bad-idea", "A memory that turns out wrong")
    assert run("compile").code == 0
    git(project, "add", "-A")
    git(project, "commit", "-qm", "add bad-idea")
    bad_commit = git(project, "rev-parse", "HEAD").strip()
    memory("later", "Added later")
    assert run("compile").code == 0
    git(project, "add", "-A")
    git(project, "commit", "-qm", "add later")
    revert = subprocess.run(
        ["git", "revert", "--no-edit", bad_commit],
        cwd=project,
        capture_output=True,
        text=True,
        check=False,
    )
    assert revert.returncode != 0  # without the merge driver, the rules files conflict
    assert not (project / ".memory/memories/bad-idea.yaml").exists()
    result = run("compile")
    assert result.code == 0, result.err
    for path in ("AGENTS.md", "CLAUDE.md", ".amazonq/rules/gitmem.md"):
        text = (project / path).read_text(encoding="utf-8")
        assert "<<<<<<<" not in text and "`bad-idea`" not in text and "`later`" in text, path
    assert run("compile", "--check").code == 0
