"""Golden files: the exact output of every target for one set of memories, path-scoped ones included.

Regenerate after an intended change of format with ``GITMEM_UPDATE_GOLDEN=1 pytest tests/compile/test_golden.py``
and review the diff like any other change.
"""

from __future__ import annotations

import os
import re
import shutil
from datetime import date
from pathlib import Path

import pytest

from gitmem import yamlio
from gitmem.tools import TARGETS
from tests.compile.conftest import WriteMemory, set_config
from tests.conftest import Run

GOLDEN = Path(__file__).parent / "golden"
UPDATE = bool(os.environ.get("GITMEM_UPDATE_GOLDEN"))


def golden_memories(memory: WriteMemory) -> None:
    memory(
        "use-pnpm",
        "Use pnpm, never npm",
        priority="high",
        body="npm rewrites `pnpm-lock.yaml` and breaks the workspace.\n\n```sh\npnpm install --frozen-lockfile\n",
        tags=["build"],
    )
    memory(
        "api-errors",
        "API errors are RFC 9457 problem details",
        kind="decision",
        body="We chose problem+json over ad-hoc error bodies.\nClients parse `type` and `title`.",
    )
    memory(
        "flaky-e2e",
        "The e2e suite is flaky on the first run after a cold start",
        kind="pitfall",
        priority="low",
    )
    memory(
        "tabs-in-go", "Go code is formatted by gofmt; do not argue about tabs", kind="preference"
    )
    memory("node-20", "Production runs Node 20", kind="fact", created=date(2025, 6, 1))
    memory("web-vitest", "Web tests use vitest, not jest", paths=["web/**"])
    memory(
        "typed-code",
        "Type every function signature",
        kind="pitfall",
        paths=["**/*.py", "src/**/*.{ts,tsx}"],
    )
    memory("docs-and-web", "Links in docs and web use relative paths", paths=["web/**", "*.md"])
    memory(
        "cursor-only", "Keep the Cursor agent out of generated/", targets=["cursor"]
    )  # in cursor's files only
    memory("only-proposed", "A proposal nobody accepted", status="proposed")
    memory("long-gone", "An expired memory", expires=date(2001, 1, 1))
    memory("old-rule", "A retired memory", status="retired")


def tree(root: Path) -> dict[str, str]:
    out = {}
    for path in sorted(root.rglob("*")):
        relative = path.relative_to(root).as_posix()
        if path.is_file() and not relative.startswith((".git/", ".memory/")):
            out[relative] = path.read_text(encoding="utf-8")
    return out


@pytest.mark.parametrize("target", [t.name for t in TARGETS])
def test_golden_output(project: Path, memory: WriteMemory, run: Run, target: str) -> None:
    set_config(project, targets=[target])
    golden_memories(memory)
    result = run("compile")
    assert result.code == 0, result.err
    produced = tree(project)
    expected_dir = GOLDEN / target
    if UPDATE:
        shutil.rmtree(expected_dir, ignore_errors=True)
        for relative, text in produced.items():
            (expected_dir / relative).parent.mkdir(parents=True, exist_ok=True)
            (expected_dir / relative).write_text(text, encoding="utf-8")
    assert produced == tree(expected_dir)
    for text in produced.values():
        assert "only-proposed" not in text and "long-gone" not in text and "old-rule" not in text
    again = run("compile", "--check")
    assert again.code == 0, again.out + again.err


def frontmatter(text: str) -> tuple[str, str]:
    match = re.match(r"---\n(.*?)\n---\n", text, re.S)
    assert match, text[:80]
    return match.group(1), text[match.end() :]


def cursor_fields(front: str) -> dict[str, str]:
    """Cursor's frontmatter reader is not YAML: one ``key: value`` per line, globs split at commas, no quotes."""
    fields = {}
    for line in front.splitlines():
        key, _, value = line.partition(":")
        fields[key.strip()] = value.strip()
    return fields


def golden_files(target: str) -> dict[str, str]:
    return tree(GOLDEN / target)


def test_cursor_frontmatter_is_what_its_parser_reads() -> None:
    files = golden_files("cursor")
    root = cursor_fields(frontmatter(files[".cursor/rules/gitmem.mdc"])[0])
    assert root == {
        "description": "Reviewed project memories of this team (compiled by gitmem)",
        "globs": "",
        "alwaysApply": "true",
    }
    scoped = {
        path: cursor_fields(frontmatter(text)[0])
        for path, text in files.items()
        if path != ".cursor/rules/gitmem.mdc"
    }
    globs = sorted(fields["globs"] for fields in scoped.values())
    assert globs == ["**/*.py,src/**/*.ts,src/**/*.tsx", "*.md,web/**", "web/**"]
    for fields in scoped.values():
        assert fields["alwaysApply"] == "false"
        assert (
            '"' not in fields["globs"] and "[" not in fields["globs"] and " " not in fields["globs"]
        )


@pytest.mark.parametrize(
    ("target", "folder", "key", "expected"),
    [
        (
            "copilot",
            ".github/instructions/",
            "applyTo",
            ["**/*.py,src/**/*.ts,src/**/*.tsx", "*.md,web/**", "web/**"],
        ),
        (
            "devin",
            ".devin/rules/gitmem-",
            "globs",
            [["**/*.py", "src/**/*.{ts,tsx}"], ["*.md", "web/**"], ["web/**"]],
        ),
        (
            "antigravity",
            ".agents/rules/gitmem-",
            "globs",
            ["**/*.py,src/**/*.ts,src/**/*.tsx", "*.md,web/**", "web/**"],
        ),
        (
            "kiro",
            ".kiro/steering/gitmem-",
            "fileMatchPattern",
            [["**/*.py", "src/**/*.{ts,tsx}"], ["*.md", "web/**"], "web/**"],
        ),
        (
            "claude",
            ".claude/rules/gitmem-",
            "paths",
            [["**/*.py", "src/**/*.{ts,tsx}"], ["*.md", "web/**"]],
        ),
        (
            "continue",
            ".continue/rules/gitmem-",
            "globs",
            [["**/*.py", "src/**/*.{ts,tsx}"], ["*.md", "web/**"], "web/**"],
        ),
    ],
)
def test_yaml_frontmatter_parses_and_carries_the_globs(
    target: str, folder: str, key: str, expected: list[object]
) -> None:
    values = []
    for path, text in golden_files(target).items():
        if not path.startswith(folder):
            continue
        data = yamlio.load(frontmatter(text)[0]).data
        values.append(data[key])
    assert sorted(values, key=str) == sorted(expected, key=str)


@pytest.mark.parametrize(
    ("target", "path", "expected"),
    [
        ("devin", ".devin/rules/gitmem.md", {"trigger": "always_on"}),
        ("antigravity", ".agents/rules/gitmem.md", {"trigger": "always_on"}),
        ("kiro", ".kiro/steering/gitmem.md", {"inclusion": "always"}),
    ],
)
def test_root_frontmatter_parses(target: str, path: str, expected: dict[str, str]) -> None:
    assert yamlio.load(frontmatter(golden_files(target)[path])[0]).data == expected


def test_whole_files_say_so_and_block_files_have_no_frontmatter() -> None:
    for target in TARGETS:
        for path, text in golden_files(target.name).items():
            if path.endswith(".aider.conf.yml"):
                continue
            whole = path.rsplit("/", 1)[-1].startswith("gitmem")
            marker = next(
                line for line in text.splitlines() if line.startswith("<!-- gitmem:begin")
            )
            if whole:
                assert "this whole file is generated by gitmem compile" in marker, path
            else:
                assert text.startswith("<!-- gitmem:begin hash="), path


def test_cline_gets_its_scoped_memories_in_the_one_file_with_the_scope_spelled_out() -> None:
    # Cline CLI 3.0.65 ignores `paths:` (measured with tests/clients): no scoped files, the globs in a heading.
    files = golden_files("cline")
    assert list(files) == [".clinerules/gitmem.md"]
    text = files[".clinerules/gitmem.md"]
    assert "### Conventions (files matching `*.md`, `web/**`)" in text
    assert "paths:" not in text
