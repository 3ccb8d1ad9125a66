"""The scanning engine: a keyword prefilter, then only the rules whose keywords occur, compiled lazily."""

from __future__ import annotations

import hashlib
import hmac
import re
from dataclasses import dataclass
from functools import cache

from gitmem.scan.rules import RULES, Rule

_FINGERPRINT_KEY = b"gitmem-fingerprint-v1"


@dataclass(frozen=True)
class Finding:
    """A secret found in a text. It never holds the secret: only where it is and a short preview."""

    rule: str
    line: int  # 1-based
    column: int  # 1-based
    start: int  # offset of the secret in the scanned text
    end: int
    preview: str
    fingerprint: str
    path: str = "-"

    def describe(self) -> str:
        return f"possible secret ({self.rule}): {self.preview}"


def preview(secret: str) -> str:
    """At most a few leading characters of a secret, and its length."""
    shown = min(4, len(secret) // 4)
    return f"{secret[:shown]}… ({len(secret)} chars)"


def fingerprint(rule: str, secret: str) -> str:
    """A keyed hash of rule and secret: lets a team allow a finding without storing the secret."""
    digest = hmac.new(_FINGERPRINT_KEY, f"{rule}:{secret}".encode(), hashlib.sha256)
    return digest.hexdigest()[:32]


@cache
def _compiled(rule: Rule) -> re.Pattern[str]:
    return re.compile(rule.pattern)


def _position(text: str, offset: int) -> tuple[int, int]:
    line = text.count("\n", 0, offset) + 1
    column = offset - (text.rfind("\n", 0, offset) + 1) + 1
    return line, column


def scan_text(text: str, path: str = "-") -> list[Finding]:
    """Every secret in ``text``, in order of position."""
    lowered = text.lower()
    findings: list[Finding] = []
    for rule in RULES:
        if not any(keyword in lowered for keyword in rule.keywords):
            continue
        for match in _compiled(rule).finditer(text):
            group = "secret" if "secret" in match.re.groupindex else 0
            secret = match.group(group)
            start, end = match.span(group)
            line, column = _position(text, start)
            findings.append(
                Finding(rule.id, line, column, start, end, preview(secret), fingerprint(rule.id, secret), path)
            )
    findings.sort(key=lambda f: (f.start, f.rule))
    return findings
