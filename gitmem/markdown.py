"""Markdown primitives shared by the readers of session logs (journal) and of hand-written rules files (import):
headings, bullets, fences and HTML comments, as people and agents really write them."""

from __future__ import annotations

import re

ATX = re.compile(r"^ {0,3}(#{1,6})(?:[ \t]+(.*?))?[ \t]*(?:[ \t]#+[ \t]*)?$")
SETEXT = re.compile(r"^ {0,3}(=+|-+)[ \t]*$")
BULLET = re.compile(r"^([ \t]*)([-*+]|\d{1,9}[.)])(?:[ \t]+(.*))?$")
CHECKBOX = re.compile(r"^\[[ xX]\][ \t]*")
FENCE = re.compile(r"^([ \t]*)(`{3,}|~{3,})")
BREAK = re.compile(r"^ {0,3}([-*_])(?:[ \t]*\1){2,}[ \t]*$")


def indent(line: str) -> int:
    """The column a line's text starts at (tabs count as 4)."""
    expanded = line.expandtabs(4)
    return len(expanded) - len(expanded.lstrip(" "))


def dedent(line: str, columns: int) -> str:
    """``line`` without up to ``columns`` columns of leading white space."""
    expanded = line.expandtabs(4)
    return expanded[min(columns, indent(line)) :]


def closes(line: str, marker: str) -> bool:
    """Whether ``line`` closes the code fence opened with ``marker``."""
    stripped = line.strip()
    return stripped.startswith(marker[0] * len(marker)) and not stripped.strip(marker[0])


def strip_comments(lines: list[str]) -> list[str]:
    """Lines with HTML comments blanked out (outside code fences); line numbers are kept."""
    out: list[str] = []
    in_comment = False
    fence: str | None = None
    for line in lines:
        if not in_comment:
            match = FENCE.match(line)
            if fence is None and match:
                fence = match.group(2)
            elif fence is not None and closes(line, fence):
                fence = None
                out.append(line)
                continue
            if fence is not None:
                out.append(line)
                continue
        kept = ""
        rest = line
        while rest:
            if in_comment:
                end = rest.find("-->")
                if end < 0:
                    break
                rest = rest[end + 3 :]
                in_comment = False
            else:
                start = rest.find("<!--")
                if start < 0:
                    kept += rest
                    break
                kept += rest[:start]
                rest = rest[start + 4 :]
                in_comment = True
        out.append(kept.rstrip() if kept.strip() else "")
    return out
