"""aider's config: ``.aider.conf.yml`` must ``read:`` CONVENTIONS.md while gitmem writes memories
there, and stop once gitmem removed it. Edited line by line where it can be (a block list under
``read:``), so the user's comments and layout stay; through the YAML round-trip otherwise."""

from __future__ import annotations

from typing import Any

from gitmem import yamlio
from gitmem.clientsettings import config_reads
from gitmem.compile.changes import FileChange, Report, read_file
from gitmem.linear import linear
from gitmem.project import Project
from gitmem.tools import TARGETS

# The target whose tool loads its rules file only when a YAML config's `read:` list names it (its
# record's ``reads_config``: aider's .aider.conf.yml).
TARGET = next(target for target in TARGETS if target.reads_config is not None)
AIDER_FILE = TARGET.root_file
CONFIG_FILE = TARGET.reads_config or ""  # .aider.conf.yml
AIDER_CREATED = (
    f"# Written by gitmem compile: aider loads the team's memories from {AIDER_FILE}.\nread: "
    f"{AIDER_FILE}\n"
)


def reads_conventions(text: str) -> bool | None:
    """Whether ``read:`` names CONVENTIONS.md (None: there is no ``read:`` key)."""
    names = config_reads(text)
    return None if names is None else AIDER_FILE in names


def config_change(project: Project, wanted: bool, kept: bool, report: Report) -> FileChange | None:
    """``.aider.conf.yml`` must read CONVENTIONS.md while gitmem writes memories there (``wanted``),
    and not once gitmem removed the file; while hand-written text keeps CONVENTIONS.md (``kept``),
    its ``read:`` stays.
    """
    path = CONFIG_FILE
    old, io_path = read_file(project, path, report)
    if io_path is None:
        return None
    change = FileChange(path, TARGET.name, "unchanged", old, io_path=io_path)
    if old is None:
        return change._replace(action="created", new=AIDER_CREATED) if wanted else None
    if wanted == bool(reads_conventions(old)) or (not wanted and kept):
        return change  # while the hand-written part of CONVENTIONS.md stays, so does the read
    if not wanted and old == AIDER_CREATED:
        return change._replace(action="removed")
    try:
        data = yamlio.load(old).data
    except yamlio.YamlProblem as exc:
        report.problems.append(exc.problem(path))
        return None
    return change._replace(action="updated", new=_read_changed(old, wanted, data.get("read")))


def _read_changed(old: str, wanted: bool, current: Any) -> str:
    """``old`` with CONVENTIONS.md added to (``wanted``) or dropped from its ``read:``
    (``current``)."""
    items = [current] if isinstance(current, str) else list(current or [])
    after = [*items, AIDER_FILE] if wanted else [item for item in items if item != AIDER_FILE]
    if current is None:  # wanted: a config with no ``read:`` does not read it
        return old + ("\n" if old[-1:] not in ("", "\n") else "") + f"read: {AIDER_FILE}\n"
    edited = (_edit_block_list(old, add=wanted) or _edit_inline(old, after)) if after else None
    return edited or yamlio.update(old, {"read": after or None})


def _edit_inline(text: str, items: list[str]) -> str | None:
    """``read:`` written on one line (``read: AGENTS.md``, ``read: [AGENTS.md]``) made the flow list
    ``items``, its comment and every other line kept; None when ``read:`` is not on one line."""
    lines = text.splitlines(keepends=True)
    for index, line in enumerate(lines):
        match = linear(r"(read:[ \t]*)([^#\r\n]*?)([ \t]*(?:#.*)?\r?\n?)").fullmatch(line)
        if match is None:
            continue
        plain = all(
            isinstance(item, str) and not any(char in item for char in ",[]{}#:'\"")
            for item in items
        )
        if not match.group(2) or not plain:
            return None
        lines[index] = f"{match.group(1)}[{', '.join(items)}]{match.group(3)}"
        return "".join(lines)
    return None


def _edit_block_list(text: str, add: bool) -> str | None:
    """Add CONVENTIONS.md to (or drop it from) a block list under ``read:``, touching no other line;
    None when ``read:`` is not a block list."""
    lines = text.splitlines(keepends=True)
    for index, line in enumerate(lines):
        if not linear(r"read:[ \t]*(?:#.*)?\r?\n?").fullmatch(line):
            continue
        end = index + 1
        while end < len(lines) and linear(r"[ \t]*-[ \t]").match(lines[end]):
            end += 1
        if end == index + 1:
            return None
        if add:
            last = lines[end - 1]
            indent = last[: len(last) - len(last.lstrip(" \t"))]
            newline = "\r\n" if last.endswith("\r\n") else "\n"
            if not last.endswith("\n"):
                lines[end - 1] = last + newline
            lines.insert(end, f"{indent}- {AIDER_FILE}{newline}")
        else:
            lines[index + 1 : end] = [
                item
                for item in lines[index + 1 : end]
                if linear(r"#.*").sub("", item).strip().lstrip("-").strip().strip("'\"")
                != AIDER_FILE
            ]
        return "".join(lines)
    return None
