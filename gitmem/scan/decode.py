"""Decoding what agents' transcripts carry: JSON-escaped strings, URL-encoding and base64.

Each decoder finds the encoded runs of a text and returns one ``Layer``: the decoded runs joined by newlines, and
for every decoded character the span of the text it came from, so a secret found in the layer is reported (and
redacted) at its place in the text that was scanned. The engine scans a layer like any text, and decodes it again,
to a bounded depth.
"""

from __future__ import annotations

import re
from typing import NamedTuple

from gitmem.scan.lazyre import lazy


class Layer(NamedTuple):
    """Decoded text; character ``i`` came from ``starts[i]:ends[i]`` of the text it was decoded from."""

    kind: str
    text: str
    starts: list[int]
    ends: list[int]

    def outer(self, start: int, end: int) -> tuple[int, int]:
        """The span of the source text that decoded to ``text[start:end]``."""
        return self.starts[start], self.ends[end - 1]


class _Builder:
    def __init__(self, kind: str) -> None:
        self.kind = kind
        self.parts: list[str] = []
        self.starts: list[int] = []
        self.ends: list[int] = []

    def verbatim(self, text: str, offset: int) -> None:
        """Characters copied one for one from ``offset`` on."""
        self.parts.append(text)
        self.starts.extend(range(offset, offset + len(text)))
        self.ends.extend(range(offset + 1, offset + len(text) + 1))

    def char(self, char: str, start: int, end: int) -> None:
        self.parts.append(char)
        self.starts.append(start)
        self.ends.append(end)

    def separator(self, offset: int) -> None:
        if self.parts:
            self.char("\n", offset, offset)

    def layer(self) -> Layer | None:
        if not self.parts:
            return None
        return Layer(self.kind, "".join(self.parts), self.starts, self.ends)


# -- JSON string escapes ----------------------------------------------------------------------------------------

# Escapes that can hide a secret from the patterns: "\/" in URLs, "\"" in nested JSON, "\\", "\u0041", and the
# "\n" that puts a .env line inside one JSON string.
_JSON_HINT_RE = lazy(r'\\(?:u[0-9a-fA-F]{4}|[/"\\nrt])')
_JSON_STRING_RE = lazy(r'"((?:[^"\\\n]|\\.){4,})"')
_JSON_TOKEN_RE = lazy(r"\\(?:u([0-9a-fA-F]{4})|(.))|[^\\]+", re.DOTALL)
_SIMPLE_ESCAPES = {"n": "\n", "t": "\t", "r": "\r", "b": "\b", "f": "\f", "/": "/", '"': '"', "\\": "\\"}


def json_strings(text: str) -> Layer | None:
    if "\\" not in text or not _JSON_HINT_RE.search(text):
        return None
    out = _Builder("json")
    for match in _JSON_STRING_RE.finditer(text):
        content = match.group(1)
        if not _JSON_HINT_RE.search(content):
            continue
        out.separator(match.start(1))
        base = match.start(1)
        for token in _JSON_TOKEN_RE.finditer(content):
            start, end = base + token.start(), base + token.end()
            hex_digits, simple = token.group(1), token.group(2)
            if hex_digits is not None:
                out.char(chr(int(hex_digits, 16)), start, end)
            elif simple is not None:
                out.char(_SIMPLE_ESCAPES.get(simple, simple), start, end)
            else:
                out.verbatim(token.group(), start)
    return out.layer()


# -- URL encoding -----------------------------------------------------------------------------------------------

# Percent-escapes of the punctuation secrets are written around: space " # % & + / : ; = ? @ [ ]
_URL_HINT_RE = lazy(r"%(?:2[0-9A-Fa-f]|3[A-Fa-f]|40|5[BDbd])")
_URL_RUN_RE = lazy(r"[^\s\"'<>`]+")  # a run that may be a URL; decoded only when it holds a hint
_URL_TOKEN_RE = lazy(r"%([0-7][0-9A-Fa-f])|[^%]+|%")


def url_encoded(text: str) -> Layer | None:
    if "%" not in text or not _URL_HINT_RE.search(text):
        return None
    out = _Builder("url")
    for match in _URL_RUN_RE.finditer(text):
        if "%" not in match.group() or not _URL_HINT_RE.search(match.group()):
            continue
        out.separator(match.start())
        base = match.start()
        for token in _URL_TOKEN_RE.finditer(match.group()):
            start = base + token.start()
            if token.group(1) is not None:
                out.char(chr(int(token.group(1), 16)), start, base + token.end())
            else:
                out.verbatim(token.group(), start)
    return out.layer()


# -- base64 -----------------------------------------------------------------------------------------------------

_B64_RUN_RE = lazy(r"(?<![A-Za-z0-9+/_=-])[A-Za-z0-9+/_-]{24,}={0,2}(?![A-Za-z0-9+/_=-])")
_HAS_UPPER_RE = lazy(r"[A-Z]")
_HAS_LOWER_RE = lazy(r"[a-z]")
_PRINTABLE_RE = lazy(r"[^\x20-\x7e\t\r\n]")


def _decode_run(run: str) -> str | None:
    import base64
    import binascii

    body = run.rstrip("=")
    urlsafe = "-" in body or "_" in body
    if urlsafe and ("+" in body or "/" in body):
        return None
    if "__" in body or body.startswith(("_", "-")) or len(body) % 4 == 1:
        return None
    if not (_HAS_UPPER_RE.search(body) and _HAS_LOWER_RE.search(body)):
        return None
    padded = body + "=" * (-len(body) % 4)
    try:
        raw = base64.urlsafe_b64decode(padded) if urlsafe else base64.b64decode(padded, validate=True)
    except (binascii.Error, ValueError):
        return None
    try:
        decoded = raw.decode("ascii")
    except UnicodeDecodeError:
        return None
    if len(decoded) < 12 or _PRINTABLE_RE.search(decoded):
        return None
    return decoded


def base64_runs(text: str) -> Layer | None:
    out = _Builder("base64")
    for match in _B64_RUN_RE.finditer(text):
        decoded = _decode_run(match.group())
        if decoded is None:
            continue
        out.separator(match.start())
        base, limit = match.start(), match.end()
        out.parts.append(decoded)
        for index in range(len(decoded)):
            group = base + 4 * (index // 3)
            out.starts.append(group)
            out.ends.append(min(group + 4, limit))
    return out.layer()


DECODERS = (json_strings, url_encoded, base64_runs)


def layers(text: str) -> list[Layer]:
    """Every decoding of ``text`` that yielded something."""
    found = []
    for decoder in DECODERS:
        layer = decoder(text)
        if layer is not None:
            found.append(layer)
    return found
