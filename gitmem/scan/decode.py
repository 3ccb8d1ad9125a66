"""Decoding what agents' transcripts carry: JSON-escaped strings, URL-encoding and base64; and the
shell's defaults (``${KEY:-value}``), read as the assignments they are.

Each decoder finds the encoded runs of a text and returns one ``Layer``: the decoded runs joined by
newlines, and for every decoded character the span of the text it came from, so a secret found in
the layer is reported (and redacted) at its place in the text that was scanned. The engine scans a
layer like any text, and decodes it again, to a bounded depth.
"""

from __future__ import annotations

import bisect
import re
from collections.abc import Callable, Iterator
from typing import NamedTuple, Protocol, TypeVar, cast

from gitmem.scan.lazyre import lazy

_VERBATIM, _SPAN, _BASE64, _ESCAPED = (
    0,
    1,
    2,
    3,
)  # how a piece's characters map back to the text they were decoded from

# An escaped piece's map: where each escape's character is in the piece, and the span of the text
# each came from (all from the piece's start)
_EscapeMap = tuple[list[int], list[int], list[int]]


class Layer(NamedTuple):
    """Decoded text, in pieces: ``pieces[i]`` is ``(mode, base, limit)`` for the run of ``text``
    from ``offsets[i]`` on. In a verbatim piece character ``j`` came from ``base + j``; a span
    piece (one escape) came from ``base:limit``; in a base64 piece character ``j`` came from its
    group of four, ``base + 4 * (j // 3)``; an escaped piece (a string and its escapes, decoded in
    one step) is mapped by ``escapes[limit]``: where each escape's character is in the piece, and
    the span of the text it came from (both from the piece's start, and ``base``).
    The map is kept in pieces and read only for a finding, so decoding costs nothing per character.
    ``changed`` holds the spans of ``text`` that decoding changed (each escape's character, each
    base64 or span piece), in order.
    """

    kind: str
    text: str
    offsets: list[int]
    pieces: list[tuple[int, int, int]]
    escapes: list[_EscapeMap]
    changed_starts: list[int]
    changed_ends: list[int]

    def _origin(self, index: int) -> tuple[int, int]:
        at = bisect.bisect_right(self.offsets, index) - 1
        mode, base, limit = self.pieces[at]
        relative = index - self.offsets[at]
        if mode == _VERBATIM:
            return base + relative, base + relative + 1
        if mode == _SPAN:
            return base, limit
        if mode == _ESCAPED:
            at_escape, starts, ends = self.escapes[limit]
            k = bisect.bisect_right(at_escape, relative) - 1
            if k >= 0 and at_escape[k] == relative:
                return base + starts[k], base + ends[k]
            source = base + relative if k < 0 else base + ends[k] + relative - at_escape[k] - 1
            return source, source + 1
        group = base + 4 * (relative // 3)
        return group, min(group + 4, limit)

    def outer(self, start: int, end: int) -> tuple[int, int]:
        """The span of the source text that decoded to ``text[start:end]``."""
        return self._origin(start)[0], self._origin(end - 1)[1]

    def changed(self, start: int, end: int) -> bool:
        """Whether decoding changed a character of ``text[start - 1 : end + 1]``. Where it changed
        none, the layer reads as the text it came from, which the text's own scan has read."""
        at = bisect.bisect_right(self.changed_ends, start - 1)
        return at < len(self.changed_starts) and self.changed_starts[at] < end + 1

    def touched(self, windows: list[tuple[int, int]]) -> list[tuple[int, int]]:
        """The ``windows`` (spans of ``text``) where decoding changed something."""
        return [window for window in windows if self.changed(*window)]


class _Builder:
    def __init__(self, kind: str) -> None:
        self.kind = kind
        self.parts: list[str] = []
        self.offsets: list[int] = []
        self.pieces: list[tuple[int, int, int]] = []
        self.escapes: list[_EscapeMap] = []
        self.length = 0

    def _add(self, text: str, mode: int, base: int, limit: int) -> None:
        self.parts.append(text)
        self.offsets.append(self.length)
        self.pieces.append((mode, base, limit))
        self.length += len(text)

    def verbatim(self, text: str, offset: int) -> None:
        """Characters copied one for one from ``offset`` on."""
        self._add(text, _VERBATIM, offset, 0)

    def char(self, char: str, start: int, end: int) -> None:
        self._add(char, _SPAN, start, end)

    def escaped(self, decoded: str, escapes: _EscapeMap, base: int) -> None:
        """``decoded`` from the run at ``base``, with where each of its escapes' characters is and
        the span each came from (``Layer.escapes``)."""
        self.escapes.append(escapes)
        self._add(decoded, _ESCAPED, base, len(self.escapes) - 1)

    def base64(self, decoded: str, start: int, end: int) -> None:
        """``decoded`` from the base64 run ``start:end``: three characters from each group of
        four."""
        self._add(decoded, _BASE64, start, end)

    def separator(self, offset: int) -> None:
        if self.parts:
            self.char("\n", offset, offset)

    def layer(self) -> Layer | None:
        if not self.parts:
            return None
        starts: list[int] = []
        ends: list[int] = []
        for offset, part, (mode, _, limit) in zip(
            self.offsets, self.parts, self.pieces, strict=True
        ):
            if mode == _ESCAPED:
                at_escape = self.escapes[limit][0]
                starts += [offset + at for at in at_escape]
                ends += [offset + at + 1 for at in at_escape]
            elif mode != _VERBATIM:
                starts.append(offset)
                ends.append(offset + len(part))
        text = "".join(self.parts)
        return Layer(self.kind, text, self.offsets, self.pieces, self.escapes, starts, ends)


def _in_lines(text: str, hint: re.Pattern[str], pattern: _Finder[_M]) -> Iterator[_M]:
    """``pattern.finditer(text)`` on the lines that hold a ``hint`` only: the same matches, for a
    pattern whose matches never hold a newline (a string literal, a run without spaces), without
    reading the other lines.
    """
    found = hint.search(text)
    while found is not None:
        line_start = text.rfind("\n", 0, found.start()) + 1
        line_end = text.find("\n", found.end())
        if line_end == -1:
            line_end = len(text)
        yield from pattern.finditer(text, line_start, line_end)
        found = hint.search(text, line_end)  # the next line that holds a hint


_M = TypeVar("_M", covariant=True)


class _Finder(Protocol[_M]):
    def finditer(self, text: str, start: int, end: int, /) -> Iterator[_M]: ...


# -- JSON string escapes ---------------------------------------------------------------------------

# Escapes that can hide a secret from the patterns: "\/" in URLs, "\"" in nested JSON, "\\",
# "\u0041", the "\x41" of a string literal in Go, Python, JavaScript, C, Rust or PHP, and the "\n"
# that puts a .env line inside one JSON string.
_JSON_HINT_RE = lazy(r'\\(?:u[0-9a-fA-F]{4}|x[0-9a-fA-F]{2}|[/"\\nrt])')


class _String:
    """A JSON string found by :class:`_JsonStrings`, read as a match of its pattern: group 0 is the
    string with its quotes, group 1 its contents."""

    __slots__ = ("_end", "_start", "_text")

    def __init__(self, text: str, start: int, end: int) -> None:
        self._text, self._start, self._end = text, start, end  # the contents' span

    def span(self, index: int = 0) -> tuple[int, int]:
        return (self._start, self._end) if index else (self._start - 1, self._end + 1)

    def group(self, index: int = 0) -> str:
        start, end = self.span(index)
        return self._text[start:end]

    def start(self, index: int = 0) -> int:
        return self.span(index)[0]


class _JsonStrings:
    """What ``re.compile(r'"((?:[^"\\\n]|\\.){4,})"').finditer`` finds (or the same in single
    quotes, ``mark``: a string literal of Python, JavaScript, PHP), in linear time by construction:
    the pattern retried its walk from every quote of an unterminated string (a line of many
    ``\\"``: quadratic). A walk that reaches the end of the line fails for every later quote of
    that line too: those are escaped, so a walk from them is in step with this one; the next try
    starts on the next line. A walk is one step of ``re`` over the string's characters and escapes,
    to a quote, a line's end or an escape of nothing (liwan's 3.4 MB line of JSON strings: 0.2 s,
    against 1.2 s for a step of Python per character; 30,000 escaped quotes: 0.9 ms, against 3.7).
    """

    def __init__(self, mark: str = '"') -> None:
        self.mark = mark
        # the string's characters: each stands for itself, or is an escape and what it escapes
        self.walk = lazy("(?:[^" + mark + r"\\\n]|\\.)*+")

    def finditer(self, text: str, start: int = 0, end: int | None = None) -> Iterator[_String]:
        end = len(text) if end is None else min(end, len(text))
        quote = text.find(self.mark, start, end)
        while quote != -1:
            index = cast("re.Match[str]", self.walk.match(text, quote + 1, end)).end()
            size = index - quote - 1
            if index < end and text[index] == "\\":  # an escape of nothing, last on its line
                index += 1
            if index >= end:
                return
            if text[index] == "\n":
                # unterminated on its line: so is every string opening before the line ends
                quote = text.find(self.mark, index + 1, end)
            elif size >= 8 or size - len(_ESCAPE_PAIR_RE.findall(text, quote + 1, index)) >= 4:
                yield _String(text, quote + 1, index)  # four characters or more, escapes as one
                quote = text.find(self.mark, index + 1, end)
            else:
                quote = index  # its closing quote may open the next string


_ESCAPE_PAIR_RE = lazy(r"\\.")  # an escape and what it escapes, in a string's walk


_JSON_STRING_RE = _JsonStrings()
_QUOTED_STRING_RE = _JsonStrings("'")
_JSON_ESCAPE_RE = lazy(r"\\(?:u([0-9a-fA-F]{4})|x([0-9a-fA-F]{2})|(.))", re.DOTALL)
_SIMPLE_ESCAPES = {
    "n": "\n",
    "t": "\t",
    "r": "\r",
    "b": "\b",
    "f": "\f",
    "/": "/",
    '"': '"',
    "\\": "\\",
}


def _json_escape(escape: re.Match[str]) -> str:
    simple = escape.group(3)  # most escapes: \" \\ \/ \n
    if simple is not None:
        return _SIMPLE_ESCAPES.get(simple, simple)
    return chr(int(escape.group(1) or escape.group(2), 16))


def json_strings(text: str) -> Layer | None:
    return _unescaped(text, _JSON)


def quoted_strings(text: str) -> Layer | None:
    return _unescaped(text, _QUOTED)


# -- URL encoding ----------------------------------------------------------------------------------

# Percent-escapes of the punctuation secrets are written around: space " # % & + / : ; = ? @ [ ]
_URL_HINT_RE = lazy(r"%(?:2[0-9A-Fa-f]|3[A-Fa-f]|40|5[BDbd])")
_URL_RUN_RE = lazy(r"[^\s\"'<>`]+")  # a run that may be a URL; decoded only when it holds a hint
_URL_ESCAPE_RE = lazy(r"%([0-7][0-9A-Fa-f])")


def _url_escape(escape: re.Match[str]) -> str:
    return chr(int(escape.group(1), 16))


def url_encoded(text: str) -> Layer | None:
    return _unescaped(text, _URL)


class _Escapes(NamedTuple):
    """An encoding by escapes (JSON strings, URL-encoding): where runs of it are and how each of
    their escapes decodes."""

    kind: str
    mark: str  # what every escape starts with
    hint: re.Pattern[str]  # an escape that may hide a secret: a run without one is left alone
    runs: _Finder[re.Match[str] | _String]  # the runs that may hold escapes
    group: int  # the group of a run's match that holds what is decoded
    escape: re.Pattern[str]  # an escape (every other character stands for itself)
    decode: Callable[[re.Match[str]], str]  # what an escape stands for


_JSON = _Escapes("json", "\\", _JSON_HINT_RE, _JSON_STRING_RE, 1, _JSON_ESCAPE_RE, _json_escape)
# ... and a string literal in single quotes, whose escapes are the same (Python's '\x67\x68…')
_QUOTED = _JSON._replace(kind="quoted", runs=_QUOTED_STRING_RE)
_URL = _Escapes("url", "%", _URL_HINT_RE, _URL_RUN_RE, 0, _URL_ESCAPE_RE, _url_escape)


def _unescaped(text: str, escapes: _Escapes) -> Layer | None:
    """The runs of ``text`` that hold a hint, decoded, each to the span of text it came from."""
    if escapes.mark not in text or not escapes.hint.search(text):
        return None
    out = _Builder(escapes.kind)
    for match in _in_lines(text, escapes.hint, escapes.runs):
        run, base = match.group(escapes.group), match.start(escapes.group)
        if escapes.mark in run and escapes.hint.search(run):
            out.separator(base)
            out.escaped(*_decoded(run, escapes), base)
    return out.layer()


def _decoded(run: str, escapes: _Escapes) -> tuple[str, _EscapeMap]:
    """``run`` with its escapes decoded, in one step of ``re`` (a call of Python for each escape,
    none for the characters between: praw's cassettes hold 900,000 escapes in 3 MB); and where
    each escape's character is in it, with the span of ``run`` each came from."""
    at_escape: list[int] = []
    starts: list[int] = []
    ends: list[int] = []
    shrunk = 0  # how many characters the escapes so far took away

    def decoded(escape: re.Match[str]) -> str:
        nonlocal shrunk
        start, end = escape.span()
        at_escape.append(start - shrunk)
        starts.append(start)
        ends.append(end)
        shrunk += end - start - 1
        return escapes.decode(escape)

    return escapes.escape.sub(decoded, run), (at_escape, starts, ends)


# -- base64 ----------------------------------------------------------------------------------------

_B64_RUN_RE = lazy(r"(?<![A-Za-z0-9+/_=-])[A-Za-z0-9+/_-]{24,}={0,2}(?![A-Za-z0-9+/_=-])")
_HAS_UPPER_RE = lazy(r"[A-Z]")
_HAS_LOWER_RE = lazy(r"[a-z]")
_PRINTABLE_RE = lazy(r"[^\x20-\x7e\t\r\n]")


def decode_run(run: str) -> str | None:
    """The printable text (tabs and line breaks too) a run of base64 encodes, as the base64 layer
    decodes it; ``None`` when the layer would not decode it."""
    import base64  # lazy: the pre-commit hook's start-up

    body = run.rstrip("=")
    urlsafe = "-" in body or "_" in body
    if urlsafe and ("+" in body or "/" in body):
        return None
    if "__" in body or body.startswith(("_", "-")) or len(body) % 4 == 1:
        return None
    if not (_HAS_UPPER_RE.search(body) and _HAS_LOWER_RE.search(body)):
        return None
    padded = body + "=" * (-len(body) % 4)
    try:  # one alphabet or the other (never both: above), "-_" read as "+/"
        decoded = base64.b64decode(padded, altchars=b"-_", validate=True).decode("ascii")
    except ValueError:  # binascii.Error and UnicodeDecodeError are ValueErrors
        return None
    if len(decoded) < 12 or _PRINTABLE_RE.search(decoded):
        return None
    return decoded


def base64_runs(text: str) -> Layer | None:
    """Each base64 run decoded, and each block of wrapped base64 (``base64 .env`` prints 76 columns
    a line) decoded whole, its lines joined: a secret split over two lines is found at its place in
    both.
    """
    out = _Builder("base64")
    runs = _b64_runs(text)
    index = 0
    while index < len(runs):
        block, taken = _wrapped_block(text, runs, index)
        decoded = decode_run("".join(run for _, run in block)) if block else None
        if decoded is not None:
            out.separator(block[0][0])
            position = 0
            for number, (start, run) in enumerate(block):
                size = len(run) * 3 // 4 if number < len(block) - 1 else len(decoded) - position
                out.base64(decoded[position : position + size], start, start + len(run))
                position += size
        else:  # each run alone (a block that decodes to nothing is looked at line by line, once)
            for start, run in runs[index : index + max(taken, 1)]:
                alone = decode_run(run)
                if alone is not None:
                    out.separator(start)
                    out.base64(alone, start, start + len(run))
        index += max(taken, 1)
    return out.layer()


_WRAP_MIN = 40  # the narrowest wrapping joined: base64(1) wraps at 76, PEM and openssl at 64


def _line_end(text: str, end: int) -> int | None:
    """Where the line after a run ending at ``end`` begins, when the run ends its line; else
    ``None``."""
    if end < len(text) and text[end] == "\r":
        end += 1
    if end < len(text) and text[end] == "\n":
        return end + 1
    return None


def _alone_on_line(text: str, start: int) -> bool:
    """Whether only indentation comes before ``start`` on its line."""
    line_start = text.rfind("\n", 0, start) + 1
    return not text[line_start:start].strip(" \t")


def _wrapped_block(
    text: str, runs: list[tuple[int, str]], index: int
) -> tuple[list[tuple[int, str]], int]:
    """The lines of wrapped base64 from ``runs[index]`` on: two or more runs, each alone on its
    line, all of the width of the first (a multiple of 4) but the last, which may be shorter (even
    shorter than a run); and how many of ``runs`` they are. Empty when ``runs[index]`` starts no
    such block.
    """
    start, run = runs[index]
    width = len(run)
    if width < _WRAP_MIN or width % 4 or "=" in run or not _alone_on_line(text, start):
        return [], 0
    block = [(start, run)]
    following = _line_end(text, start + width)  # where the next line must start (None: no line)
    for start, run in runs[index + 1 :]:
        end = start + len(run)
        if (
            start != following
            or len(run) > width
            or (_line_end(text, end) is None and end != len(text))
        ):
            break
        block.append((start, run))
        # a shorter line or padding is the last
        following = _line_end(text, end) if len(run) == width and "=" not in run else None
    taken = len(block)
    block += _short_tail(text, following)  # a last line of fewer than 24 characters is no run
    return (block, taken) if len(block) > 1 else ([], 0)


_TAIL_RE = lazy(r"([A-Za-z0-9+/]{0,24}={0,2})\r*(?:\n|\Z)")


def _short_tail(text: str, following: int | None) -> list[tuple[int, str]]:
    """The line at ``following`` and where it starts when it is a short run of base64 (the end of a
    wrapped block), else nothing."""
    tail = None if following is None else _TAIL_RE.match(text, following)
    return [(tail.start(), tail[1])] if tail and 0 < len(tail[1]) < 24 else []


# -- hex dumps -------------------------------------------------------------------------------------

# xxd's lines ("00000000: 4150 495f …  API_…") and hexdump -C's
# ("00000000  41 50 49 5f …  |API_…|"): a dump of a file starts at offset 0, so a plain search
# finds where one begins
_DUMP_STARTS = ("00000000: ", "00000000  ")
# A dump's line: its offset (8 hex digits), then xxd's ": " or hexdump's "  ", and its bytes in hex
# up to the text column (after "  ", or "  |" for hexdump), 16 at most
_DUMP_OFFSET_RE = lazy(r"[0-9A-Fa-f]{8}(: |  )")
_DUMP_COLUMN = {": ": "  ", "  ": "  |"}
_DUMP_DIGITS_RE = lazy(r"(?:[0-9A-Fa-f]{2}){1,32}")


def _dump_bytes(line: str) -> bytes | None:
    """The bytes one line of an xxd or ``hexdump -C`` dump shows, or ``None`` for any other line."""
    offset = _DUMP_OFFSET_RE.match(line)
    if offset is None or len(line) < 12:
        return None
    digits = line[10:].partition(_DUMP_COLUMN[offset[1]])[0].replace(" ", "")
    return bytes.fromhex(digits) if _DUMP_DIGITS_RE.fullmatch(digits) else None


def hex_dumps(text: str) -> Layer | None:
    """The bytes of each xxd or ``hexdump -C`` dump, as text: a secret split over the dump's lines
    is whole again.
    Each decoded line maps back to its whole line of the dump (its hex and its text column)."""
    out = _Builder("hex")
    for marker in _DUMP_STARTS:
        position = text.find(marker)
        while position != -1:
            if position == 0 or text[position - 1] == "\n":
                out.separator(position)
                position = _dump_lines(text, position, out)
            position = text.find(marker, position + 1)
    return out.layer()


def _dump_lines(text: str, position: int, out: _Builder) -> int:
    """Decode the dump's lines from ``position`` on, until a line that is not one; where that
    line begins."""
    while position < len(text):
        end = text.find("\n", position)
        if end == -1:
            end = len(text)
        data = _dump_bytes(text[position:end].rstrip("\r"))
        if data is None:
            break
        out.char(data.decode("latin-1"), position, end)
        position = end + 1
    return position


# Bytes with each base64 character or "=" as "a" and every other byte as " ", where a run of 24 is
# found by bytes.find (a few nanoseconds a character, where a pattern takes some 20)
_B64_BYTES = frozenset(b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/_=-")
_B64_MASK = bytes(0x61 if byte in _B64_BYTES else 0x20 for byte in range(256))
_B64_MASK_RUN = b"a" * 24


def _maximal_runs(text: str) -> list[tuple[int, str]]:
    """Every maximal run of 24 or more base64 characters and "=", with its start."""
    # each character that is not ASCII is one "?" (no base64 character): offsets stay aligned
    mask = text.encode("ascii", "replace").translate(_B64_MASK)
    runs = []
    start = mask.find(_B64_MASK_RUN)
    while start != -1:
        end = mask.find(b" ", start + 24)
        if end == -1:
            end = len(mask)
        runs.append((start, text[start:end]))
        start = mask.find(_B64_MASK_RUN, end)
    return runs


def _b64_runs(text: str) -> list[tuple[int, str]]:
    """What ``_B64_RUN_RE`` finds (its start and text): a run of 24 or more base64 characters and at
    most two "=", with no base64 character or "=" on either side."""
    found = []
    for start, run in _maximal_runs(text):
        body = run.rstrip("=")
        if len(run) - len(body) <= 2 and len(body) >= 24 and "=" not in body:
            found.append((start, run))
    return found


# -- the shell's defaults --------------------------------------------------------------------------

# ${DB_PASSWORD:-…}, ${DB_PASSWORD:=…} (a shell script's, a compose file's): a name and its value,
# which every rule reads as it reads DB_PASSWORD=…
_DEFAULT_RE = lazy(r"""\$\{([A-Za-z_]\w{0,80}):?[-=]([^\s}"'`$]{1,2000})\}""")


def shell_defaults(text: str) -> Layer | None:
    """Each default of a variable in ``text``, as ``NAME="value"`` on a line of its own (quoted: a
    "#" in it is no comment)."""
    if "${" not in text:
        return None
    out = _Builder("default")
    for match in _DEFAULT_RE.finditer(text):
        out.separator(match.start())
        out.verbatim(match[1], match.start(1))
        out.char('="', match.end(1), match.start(2))
        out.verbatim(match[2], match.start(2))
        out.char('"', match.end(2), match.end())
    return out.layer()


DECODERS = (json_strings, quoted_strings, url_encoded, base64_runs, hex_dumps, shell_defaults)


def layers(text: str) -> list[Layer]:
    """Every decoding of ``text`` that yielded something."""
    found = []
    for decoder in DECODERS:
        layer = decoder(text)
        if layer is not None:
            found.append(layer)
    return found
