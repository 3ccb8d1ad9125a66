"""Secret and hidden-Unicode scanning: nothing secret or invisible enters memory.

The public interface: ``scan_text`` returns ``Finding`` values (finding a secret is a result, not an
exception) at offsets into the text it was given, ``redact`` replaces them, ``find_hidden`` returns
the hidden Unicode characters of a text. Rules are data, in ``gitmem.scan.rules``.
"""

from __future__ import annotations

from gitmem.scan.engine import HIDDEN_RULE, Finding, redact, scan_text, without_allowed
from gitmem.scan.unicode import HiddenChar, find_hidden


def without_secrets(message: str) -> str:
    """``message`` with each secret in it redacted: every error gitmem shows, on stderr (the CLI's
    one echo of an error) or to an MCP client, goes through here, so a value quoted back (an id,
    an option's value, a title's file name) never prints a whole secret."""
    return redact(message, scan_text(message))


__all__ = [
    "HIDDEN_RULE",
    "Finding",
    "HiddenChar",
    "find_hidden",
    "redact",
    "scan_text",
    "without_allowed",
    "without_secrets",
]
