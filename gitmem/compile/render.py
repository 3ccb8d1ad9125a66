"""Memories as text: each memory's entry, the framing of a file, its frontmatter, and the recall
line.

Everything is deterministic (no timestamps, fixed order) and additive: a file's text is its overhead
plus one heading per group plus one entry per memory (plus the recall line), which is what lets the
budget count exactly.
"""

from __future__ import annotations

import json

from gitmem.compile import block
from gitmem.compile.scoping import FileSpec, expand_braces
from gitmem.memory.fields import one_line, shown_line, shown_text, split_lines
from gitmem.memory.model import Memory


def entry_text(memory: Memory) -> str:
    """A memory as a list item: its title and id (and priority unless normal), then its body
    indented."""
    suffix = "" if memory.priority == "normal" else f", {memory.priority} priority"
    # A memory that was checked holds no line break but "\n" (gitmem.memory.fields); should one slip
    # through, it still never starts a line of the rules file: the title is kept on one line, each
    # body line is indented.
    lines = [f"- {shown_line(memory.title)} (`{one_line(memory.id)}`{suffix})"]
    body = shown_text(memory.body.strip("\n"))
    fenced = "```" in body or "~~~" in body  # only then can a fence be left open
    if body.strip():
        for line in _close_fences(split_lines(body)) if fenced else split_lines(body):
            lines.append("  " + line if line.strip() else "")
    return "\n".join(lines) + "\n"


def _close_fences(lines: list[str]) -> list[str]:
    """The lines, with a code fence the body leaves open closed, so it cannot swallow the
    entries after it."""
    fence: block.Fence | None = None
    for number, line in enumerate(lines, 1):
        fence = block.fence_after(fence, line, number)
    if fence is not None:
        return [*lines, fence[0] * fence[1]]
    return lines


def preamble(spec: FileSpec, packs: bool = False) -> str:
    """The framing at the top of every block: what these are, where they come from, how to treat
    them.

    ``packs``: the memories include shared packs' (ids ``PACK/ID``), so say where those come from.
    """
    if spec.personal:
        return (
            f"{block.PERSONAL_TITLE}\n\n"
            "These are the user's personal memories: their own preferences and lessons, "
            "for every project, "
            "compiled by gitmem. Follow them where the project's own instructions do not "
            "say otherwise. "
            "Each ends with its id; `gitmem show --user <id>` shows its source. "
            "If one looks wrong or out of date, say so rather than ignore it.\n"
        )
    source = "`.memory/memories/<id>.yaml`"
    if packs:
        source += ", or for an id `PACK/ID` the shared memory pack PACK (`gitmem sources list`)"
    if (
        spec.imports
    ):  # a bridge: the import is a line of its own, outside any code span, so the tool follows it
        return (
            f"{block.TITLE}\n\n"
            f"This team's reviewed project memories{spec.scope_phrase} are compiled by "
            "gitmem into the "
            f"{spec.imports} beside this file, imported here:\n\n@{spec.imports}\n\n"
            "Any listed below are for this tool only. Each ends with its id; its source "
            f"is {source}. "
            "If one looks wrong or out of date, say so rather than ignore it.\n"
        )
    return (
        f"{block.TITLE}\n\n"
        f"These are this team's reviewed project memories{spec.scope_phrase}, compiled by "
        "gitmem. Follow them. "
        f"Each ends with its id; its source is {source}. "
        "If one looks wrong or out of date, say so rather than ignore it.\n"
    )


def footer(mcp: bool, personal: bool = False) -> str:
    """The one line that ends a block when the budget left memories out."""
    if personal:
        how = 'run `gitmem recall --user "QUERY"`'
        return (
            f"{block.PERSONAL_FOOTER_PREFIX} to fit the token budget: {how} to find the ones "
            "your task needs."
        )
    how = 'run `gitmem recall "QUERY"`'
    if mcp:
        how += " or call the `recall` tool of the `gitmem` MCP server"
    return f"{block.FOOTER_PREFIX} to fit the token budget: {how} to find the ones your task needs."


def frontmatter(templates: tuple[str, ...], globs: tuple[str, ...]) -> str:
    """Frontmatter (with its --- lines) from a target's templates (see ``targets.py`` for the
    placeholders)."""
    if not templates:
        return ""
    values: dict[str, str] = {}
    if globs:
        csv = ",".join(item for glob in globs for item in expand_braces(glob))
        values = {
            "csv": csv,
            "csv_quoted": _quote(csv),
            "list": "\n".join(f"  - {_quote(glob)}" for glob in globs),
            "pattern": _quote(globs[0])
            if len(globs) == 1
            else "[" + ", ".join(_quote(g) for g in globs) + "]",
            "description": _quote(
                f"Reviewed project memories of this team for files matching {', '.join(globs)}"
            ),
        }
    lines = [template.format(**values) for template in templates]
    return "---\n" + "\n".join(lines) + "\n---\n"


def _quote(text: str) -> str:
    """A YAML double-quoted scalar (JSON's string syntax is valid YAML)."""
    return json.dumps(text, ensure_ascii=False)


def overhead(spec: FileSpec, templates: tuple[str, ...], packs: bool = False) -> tuple[str, str]:
    """A file's text without groups, entries and footer: (frontmatter, preamble)."""
    return frontmatter(templates, spec.globs), preamble(spec, packs)


def marker_chars(whole: bool, personal: bool = False) -> int:
    """Characters of the two marker lines."""
    kind: block.MarkerKind = "file-hash" if whole else "hash"
    return (
        len(block.begin_line(kind, "0" * block.HASH_LENGTH, personal)) + 1 + len(block.END_LINE) + 1
    )
