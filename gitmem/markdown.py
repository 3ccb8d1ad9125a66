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


_ABBREVIATIONS = frozenset({"e.g.", "i.e.", "etc.", "vs.", "cf.", "approx.", "incl.", "no.", "nr.", "fig.", "resp."})


def first_sentence(text: str, shortest: int = 12) -> tuple[str, str] | None:
    """``text`` split after its first sentence (at least ``shortest`` characters): ``(sentence, rest)``, or
    ``None`` when it is one sentence. Never inside a code span or parentheses, at an abbreviation ("e.g.", "i.e."),
    inside a number ("3. 11"), or before a lower-case word; linear in the length of ``text``."""
    depth = 0
    index = 0
    length = len(text)
    while index < length:
        char = text[index]
        if char == "`":
            run = index
            while run < length and text[run] == "`":
                run += 1
            ticks = text[index:run]
            close = text.find(ticks, run)
            while close != -1 and close + len(ticks) < length and text[close + len(ticks)] == "`":
                close = text.find(ticks, close + len(ticks) + 1)
            index = run if close == -1 else close + len(ticks)
            continue
        if char in "([{":
            depth += 1
        elif char in ")]}":
            depth = max(0, depth - 1)
        elif char in ".!?" and not depth and shortest <= index + 1 < length and text[index + 1].isspace():
            rest = text[index + 1 :].lstrip()
            word = text[: index + 1].rsplit(None, 1)[-1].lower()
            ends = bool(rest) and not rest[0].islower() and word not in _ABBREVIATIONS
            if ends and char == "." and index > 0 and text[index - 1].isdigit() and rest[0].isdigit():
                ends = False
            if ends and char == "." and re.fullmatch(r"\(?[a-z]\.", word):  # "a." in "item a. B" is not an end
                ends = False
            if ends:
                return text[: index + 1], rest
        index += 1
    return None
