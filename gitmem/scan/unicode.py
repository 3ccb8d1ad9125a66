"""Hidden Unicode: characters a reviewer cannot see but a model reads.

The "rules file backdoor" hides instructions in zero-width, bidirectional and tag characters. gitmem
refuses them in memories, session logs and everything it writes. Exceptions, because they are
harmless and common: a byte-order mark at the very start, form feeds (page breaks in source code),
a terminal's colours in code people review (``colours``: test output kept as golden files; a
manual page's overstrikes, the C1 controls of mojibake that stands for a character in sight), the
directional marks beside a right-to-left letter, joiners between the letters of Persian, Arabic and
Indic words (and after the last, before a space, in Sorani Kurdish), the zero-width spaces that end
the words of Khmer, Thai and Myanmar, the joiners, variation selectors and tag characters inside
emoji sequences (family emoji, and the tag characters of the three subdivision flags Unicode
recommends: England, Scotland, Wales), and an e-mail preview's padding as React Email writes it, in
code (``PREVIEW_PADDING``)."""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import NamedTuple

from gitmem.scan.lazyre import lazy

# Every format (Cf), line/paragraph separator (Zl, Zp) and control (Cc) character except tab, LF and
# CR, as of Unicode 14; tests check this table against the running Python's unicodedata. Added by
# hand: invisible combining marks and fillers, and the variation selectors that can encode hidden
# bytes.
# fmt: off
_HIDDEN_RANGES: tuple[tuple[int, int], ...] = (
    (0x0000, 0x0008), (0x000B, 0x000C), (0x000E, 0x001F), (0x007F, 0x009F), (0x00AD, 0x00AD),
    (0x034F, 0x034F), (0x0600, 0x0605), (0x061C, 0x061C), (0x06DD, 0x06DD), (0x070F, 0x070F),
    (0x0890, 0x0891), (0x08E2, 0x08E2), (0x115F, 0x1160), (0x17B4, 0x17B5), (0x180B, 0x180F),
    (0x200B, 0x200F), (0x2028, 0x202E), (0x2060, 0x2064), (0x2066, 0x206F), (0x3164, 0x3164),
    (0xFE00, 0xFE0F), (0xFEFF, 0xFEFF), (0xFFA0, 0xFFA0), (0xFFF9, 0xFFFB), (0x110BD, 0x110BD),
    (0x110CD, 0x110CD), (0x13430, 0x1343F), (0x1BCA0, 0x1BCA3), (0x1D173, 0x1D17A),
    (0xE0001, 0xE0001), (0xE0020, 0xE007F), (0xE0100, 0xE01EF),
)
# fmt: on

_ZWJ = 0x200D
_VS15, _VS16 = 0xFE0E, 0xFE0F
_BLACK_FLAG = 0x1F3F4
_CANCEL_TAG = 0xE007F
_FORM_FEED = 0x0C
_ZWNJ = 0x200C
_ZWSP = 0x200B
_SOFT_HYPHEN = 0x00AD
_BACKSPACE = 0x08
# The marks right-to-left text needs (LEFT-TO-RIGHT MARK, RIGHT-TO-LEFT MARK, ARABIC LETTER MARK):
# ordinary beside a right-to-left letter (``_beside_right_to_left``), and inside the strings of
# translation files (find_hidden's ``marks``). The overrides (U+202A-U+202E) and isolates
# (U+2066-U+2069) of Trojan Source reorder what a reviewer sees, and stay findings everywhere.
DIRECTIONAL_MARKS = frozenset({0x200E, 0x200F, 0x061C})
# where a translation file's line starts its value: its first quote, "=" or ":"
_VALUE_START_RE = lazy(r"[^\n\"'=:]*[\"'=:]")

# The names of the control characters, which unicodedata.name() does not know: their aliases in
# Unicode's NameAliases.txt (unicodedata.lookup() accepts them; tests check every one)
# fmt: off
_CONTROL_NAMES = (
    "NULL", "START OF HEADING", "START OF TEXT", "END OF TEXT", "END OF TRANSMISSION", "ENQUIRY",
    "ACKNOWLEDGE", "ALERT", "BACKSPACE", "CHARACTER TABULATION", "LINE FEED", "LINE TABULATION",
    "FORM FEED", "CARRIAGE RETURN", "SHIFT OUT", "SHIFT IN", "DATA LINK ESCAPE",
    "DEVICE CONTROL ONE", "DEVICE CONTROL TWO", "DEVICE CONTROL THREE", "DEVICE CONTROL FOUR",
    "NEGATIVE ACKNOWLEDGE", "SYNCHRONOUS IDLE", "END OF TRANSMISSION BLOCK", "CANCEL",
    "END OF MEDIUM", "SUBSTITUTE", "ESCAPE", "INFORMATION SEPARATOR FOUR",
    "INFORMATION SEPARATOR THREE", "INFORMATION SEPARATOR TWO", "INFORMATION SEPARATOR ONE",
)
_C1_NAMES = (
    "PADDING CHARACTER", "HIGH OCTET PRESET", "BREAK PERMITTED HERE", "NO BREAK HERE", "INDEX",
    "NEXT LINE", "START OF SELECTED AREA", "END OF SELECTED AREA", "CHARACTER TABULATION SET",
    "CHARACTER TABULATION WITH JUSTIFICATION", "LINE TABULATION SET", "PARTIAL LINE FORWARD",
    "PARTIAL LINE BACKWARD", "REVERSE LINE FEED", "SINGLE SHIFT TWO", "SINGLE SHIFT THREE",
    "DEVICE CONTROL STRING", "PRIVATE USE ONE", "PRIVATE USE TWO", "SET TRANSMIT STATE",
    "CANCEL CHARACTER", "MESSAGE WAITING", "START OF GUARDED AREA", "END OF GUARDED AREA",
    "START OF STRING", "SINGLE GRAPHIC CHARACTER INTRODUCER", "SINGLE CHARACTER INTRODUCER",
    "CONTROL SEQUENCE INTRODUCER", "STRING TERMINATOR", "OPERATING SYSTEM COMMAND",
    "PRIVACY MESSAGE", "APPLICATION PROGRAM COMMAND",
)
# fmt: on


def char_name(codepoint: int) -> str:
    """A character's Unicode name; for a control character (which has none), its alias (VT: LINE
    TABULATION); for a code point not assigned in this Python's Unicode, ``UNASSIGNED``."""
    import unicodedata  # lazy: the pre-commit, prompt hooks' start-up

    if codepoint < 0x20:
        return _CONTROL_NAMES[codepoint]
    if codepoint == 0x7F:
        return "DELETE"
    if 0x80 <= codepoint <= 0x9F:
        return _C1_NAMES[codepoint - 0x80]
    return unicodedata.name(chr(codepoint), "UNASSIGNED")


def _tag_sequence(region: str) -> str:
    return chr(_BLACK_FLAG) + "".join(chr(0xE0000 + ord(c)) for c in region) + chr(_CANCEL_TAG)


# The RGI emoji tag sequences of Unicode's emoji-sequences.txt (15.1): the flags of England,
# Scotland and Wales.
_SUBDIVISION_FLAGS = tuple(_tag_sequence(region) for region in ("gbeng", "gbsct", "gbwls"))


def _char_class(ranges: tuple[tuple[int, int], ...]) -> str:
    parts = []
    for start, end in ranges:
        parts.append(
            re.escape(chr(start))
            if start == end
            else f"{re.escape(chr(start))}-{re.escape(chr(end))}"
        )
    return "[" + "".join(parts) + "]"


_HIDDEN_RE = lazy(_char_class(_HIDDEN_RANGES))
_ASCII_HIDDEN = bytes(
    b for low, high in _HIDDEN_RANGES if low < 0x80 for b in range(low, min(high, 0x7F) + 1)
)
# The ASCII characters that are never hidden: deleting them from an ASCII text leaves nothing when
# it hides nothing
_ASCII_VISIBLE = bytes(range(0x80)).translate(None, _ASCII_HIDDEN)


class HiddenChar(NamedTuple):
    """A hidden character at a 1-based line and column."""

    line: int
    column: int
    codepoint: int

    @property
    def name(self) -> str:
        return char_name(self.codepoint)

    def describe(self) -> str:
        return f"hidden Unicode character U+{self.codepoint:04X} ({self.name})"


# The blocks of emoji and the symbols emoji sequences are built on, and single emoji elsewhere
_EMOJI_BLOCKS = (
    (0x1F000, 0x1FAFF),
    (0x2600, 0x27BF),
    (0x2300, 0x23FF),
    (0x2B00, 0x2BFF),
    (0x2190, 0x21FF),
    (0x25A0, 0x25FF),
)
_EMOJI_SINGLES = frozenset(
    (0x00A9, 0x00AE, 0x203C, 0x2049, 0x2122, 0x2139, 0x3030, 0x303D, 0x3297, 0x3299)
)


def _is_emoji(cp: int) -> bool:
    return cp in _EMOJI_SINGLES or any(low <= cp <= high for low, high in _EMOJI_BLOCKS)


def _joining_letter(cp: int) -> bool:
    """A letter of a script whose spelling uses ZWNJ/ZWJ: Arabic (Persian, Urdu), Syriac, and
    the Indic scripts."""
    import unicodedata  # lazy: the pre-commit, prompt hooks' start-up

    return (
        0x0620 <= cp <= 0x06FF or 0x0750 <= cp <= 0x077F or 0x0900 <= cp <= 0x0DFF
    ) and unicodedata.category(chr(cp))[0] in "LM"


class _Reading(NamedTuple):
    """What the text is: a whole file's (its leading BOM allowed), code people review (a
    terminal's colours that hide nothing allowed), a translation file (what translators and their
    tools leave allowed), and whether it holds any letter of a script written without spaces
    (looked for once, not at every zero-width space)."""

    file: bool
    colours: bool
    translation: bool
    unspaced: bool


def _after_visible(text: str, index: int, reading: _Reading) -> bool:
    """A variation selector after a visible character (its emoji or text presentation)."""
    return index > 0 and ord(text[index - 1]) >= 0x20 and not _HIDDEN_RE.match(text[index - 1])


# The exceptions: where each of these characters is part of ordinary text (and tags, U+E0020 on,
# within a subdivision flag: see _allowed)
_EXCEPTIONS: dict[int, Callable[[str, int, _Reading], bool]] = {
    0xFEFF: lambda text, index, reading: reading.file and index == 0,  # a file's leading BOM
    # a page break in source code (PEP 8, Emacs, C sources): visible to all
    _FORM_FEED: lambda text, index, reading: True,
    # spelling: Persian, Arabic and Indic words need joiners between their letters (and Persian
    # between a Latin word and its suffix: ``URI\u200cهای``, or after the word's space: ``API
    # \u200cها``), Sorani Kurdish ends a word with a non-joiner after its heh (``کێشه\u200c
    # هەبوو``), Malayalam a chillu with a joiner after its virama (``പങ്കുകള്\u200d``)
    _ZWNJ: lambda text, index, reading: (
        _in_joining_word(text, index) or _at_joining_word_edge(text, index)
    ),
    _ZWSP: lambda text, index, reading: (
        (reading.unspaced and _word_boundary(text, index))
        or (reading.translation and _translated_pair(text, index))
        or _quoted_alone(text, index)
    ),
    _ZWJ: lambda text, index, reading: (
        _between_joining_letters(text, index)
        or _at_joining_word_edge(text, index)
        or _joins_emoji(text, index)
    ),
    # a soft hyphen between a word's letters, in a translation (German's Seiten\xadschutz)
    _SOFT_HYPHEN: lambda text, index, reading: reading.translation and _inside_word(text, index),
    _VS15: _after_visible,
    _VS16: _after_visible,
    # a terminal's colours in code people review (golden test output), when they hide nothing
    0x1B: lambda text, index, reading: reading.colours and _colour_only(text, index),
    # a manual page's bold and underline (``N\bN``, ``_\bN``), in code people review
    _BACKSPACE: lambda text, index, reading: reading.colours and _overstrike(text, index),
    # the C1 controls of mojibake (``\u2717`` read as Latin-1: ``\xe2\x9c\x97``), in code people
    # review: notebooks' outputs
    **dict.fromkeys(
        range(0x80, 0xA0), lambda text, index, reading: reading.colours and _mojibake(text, index)
    ),
    **dict.fromkeys(
        DIRECTIONAL_MARKS, lambda text, index, reading: _beside_right_to_left(text, index)
    ),
}


def _allowed(text: str, index: int, cp: int, reading: _Reading) -> bool:
    """The exceptions: a file's leading BOM, characters that are part of an emoji sequence or a
    word, and a terminal's colours and an e-mail preview's padding in code."""
    exception = _EXCEPTIONS.get(cp)
    if exception is not None and exception(text, index, reading):
        return True
    if reading.colours and cp in _PADDING_AT:
        return text.startswith(PREVIEW_PADDING, index - _PADDING_AT[cp])
    return 0xE0020 <= cp <= _CANCEL_TAG and _in_subdivision_flag(text, index)


# What React Email's ``<Preview>`` writes after an e-mail's preview text, again and again, so that
# a mail client's preview shows nothing of the body after it: a no-break space and six zero-width
# characters, always these, in this order. Its templates, compiled and committed (authelia's,
# full-stack-fastapi-template's), hold hundreds; a whole unit carries nothing but where it is, and
# is allowed in code people review. A part of one, or the characters in another order, is not.
PREVIEW_PADDING = "\xa0\u200c\u200b\u200d\u200e\u200f\ufeff"
_PADDING_AT = {ord(char): at for at, char in enumerate(PREVIEW_PADDING) if at}


def _between_joining_letters(text: str, index: int) -> bool:
    return (
        index > 0
        and index + 1 < len(text)
        and _joining_letter(ord(text[index - 1]))
        and _joining_letter(ord(text[index + 1]))
    )


def _in_joining_word(text: str, index: int) -> bool:
    """Between two letters, at least one of a joining script's."""
    return _inside_word(text, index) and (
        _joining_letter(ord(text[index - 1])) or _joining_letter(ord(text[index + 1]))
    )


def _inside_word(text: str, index: int) -> bool:
    """Between two letters (or a letter and its combining mark)."""
    import unicodedata  # lazy: the pre-commit, prompt hooks' start-up

    return (
        0 < index < len(text) - 1
        and unicodedata.category(text[index - 1])[0] in "LM"
        and unicodedata.category(text[index + 1])[0] in "LM"
    )


def _translated_pair(text: str, index: int) -> bool:
    """One of two ZERO WIDTH SPACEs side by side, beside a space: what machine translation leaves
    in a translated sentence (``usados \u200b\u200bao redigir``), in language after language.
    One alone, three or more, or a pair inside a word, is not that."""
    at = index - 1 if index > 0 and text[index - 1] == "\u200b" else index  # the pair's first
    end = at + 2
    return (
        end <= len(text)
        and text[at + 1] == "\u200b"
        and (at == 0 or text[at - 1] != "\u200b")
        and (end == len(text) or text[end] != "\u200b")
        and ((at > 0 and text[at - 1] == " ") or (end < len(text) and text[end] == " "))
    )


def _quoted_alone(text: str, index: int) -> bool:
    """A ZERO WIDTH SPACE that is a whole quoted string (``label: "\u200b"``: a form's label
    meant to look empty, in mkdocs-material's GitHub discussion templates; a constant for the
    character in code): one character, which says nothing. Two or more, or one beside other
    text, can spell a message, and stay findings."""
    return (
        0 < index < len(text) - 1
        and text[index - 1] in "\"'`"
        and text[index + 1] == text[index - 1]
        and (index < 2 or not text[index - 2].isalnum())  # the quote opens: it's, don'\u200b't
    )


def _at_joining_word_edge(text: str, index: int) -> bool:
    """A joiner or non-joiner between a letter (or a virama) of a joining script and a space or a
    punctuation mark, on either side: where Sorani Kurdish ends a word on a heh that must not join
    on (ku-TR translations: ``فکر بکه\u200c``), Malayalam writes a chillu (``പങ്കുകള്\u200d``),
    and a Persian writer sets a suffix apart from the Latin word and space before it (vitepress's
    Persian guide: ``API \u200cها``). Beside another hidden character, between two letters of
    other scripts, or at the text's ends, it is not spelling."""
    import unicodedata  # lazy: the pre-commit, prompt hooks' start-up

    if not 0 < index < len(text) - 1:
        return False
    before, after = text[index - 1], text[index + 1]
    for letter, other in ((before, after), (after, before)):
        if (
            _joining_letter(ord(letter))
            and unicodedata.category(other)[0] in "ZP"
            and not _HIDDEN_RE.match(other)  # (a line separator is a Z too)
        ):
            return True
    return False


# The scripts written without spaces between words (Unicode's line-breaking class SA: Thai, Lao,
# Myanmar, Khmer and the Tai scripts), whose writers mark a word's end with a ZERO WIDTH SPACE
_UNSPACED_RE = lazy(
    "[\u0e00-\u0eff\u1000-\u109f\u1780-\u17ff\u1950-\u19ff\u1a20-\u1aaf\ua9e0-\ua9ff\uaa60-\uaadf]"
)


def _word_boundary(text: str, index: int) -> bool:
    """A ZERO WIDTH SPACE beside a letter of a script written without spaces (``ខ្មែរ\u200bភាសា``):
    where a word ends, as Khmer, Thai and Myanmar text marks it. Elsewhere, and in a run of them,
    it can hide a message."""
    import unicodedata  # lazy: the pre-commit, prompt hooks' start-up

    return any(
        0 <= at < len(text)
        and _UNSPACED_RE.match(text, at) is not None
        and unicodedata.category(text[at])[0] in "LM"
        for at in (index - 1, index + 1)
    )


def _beside_right_to_left(text: str, index: int) -> bool:
    """A directional mark beside a right-to-left letter (Hebrew, Arabic…) sets the direction at that
    letter's edge, as it is made to: a left-to-right mark ends the right-to-left run, and a
    right-to-left mark beside a right-to-left letter reorders nothing the letter does not. Away
    from right-to-left text, a right-to-left mark turns the numbers and signs around it over (``1 +
    2`` shown as ``2 + 1``), and stays a finding. After a right-to-left abbreviation's full stop,
    a mark keeps the stop with it (CLDR's Egyptian pound, ``ج.م.\u200f``)."""
    import unicodedata  # lazy: the pre-commit, prompt hooks' start-up

    before = index - 1
    if before > 0 and unicodedata.category(text[before])[0] == "P":
        before -= 1
    return any(
        0 <= at < len(text)
        and text[at].isalpha()  # a letter: the marks are R and AL too, and hide nothing beside
        and unicodedata.bidirectional(text[at]) in ("R", "AL")
        for at in (before, index + 1)
    )


def _joins_emoji(text: str, index: int) -> bool:
    prev = ord(text[index - 1]) if index > 0 else -1
    nxt = ord(text[index + 1]) if index + 1 < len(text) else -1
    before = _is_emoji(prev) or prev == _VS16 or 0x1F3FB <= prev <= 0x1F3FF
    return before and _is_emoji(nxt)


def _in_subdivision_flag(text: str, index: int) -> bool:
    """Only within one of the few subdivision flags Unicode recommends (RGI): U+1F3F4, five tag
    letters, CANCEL TAG. Any other run of tag characters can spell a hidden instruction. A constant
    amount of work per char."""
    start = text.rfind(chr(_BLACK_FLAG), max(0, index - len(_SUBDIVISION_FLAGS[0]) + 1), index)
    return start >= 0 and any(text.startswith(flag, start) for flag in _SUBDIVISION_FLAGS)


# A terminal's colours and styles: ESC [ parameters m (SGR). The parameters that hide text: 8
# (conceal), and the same colour for the text and its background (``_colour_hides``)
_SGR_RE = lazy(r"\x1b\[([0-9;]{0,48})m")
_CONCEAL = 8
_EXTENDED = {5: 1, 2: 3}  # 38;5;N and 38;2;R;G;B: the parameters after the 5 or the 2
# The 16 basic colours: code -> (3 for the text or 4 for its background, colour as 38;5;N has it)
_BASIC = {
    code: (layer, colour + 8 * bright)
    for layer in (3, 4)
    for bright in (0, 1)
    for colour in range(8)
    for code in (layer * 10 + 60 * bright + colour,)
}


def _overstrike(text: str, index: int) -> bool:
    """A BACKSPACE between a character and itself (bold) or after an underscore (underlined), as
    ``nroff`` writes a manual page: the character stays in sight. Any other pair shows the second
    character over the first, which it hides."""
    return (
        0 < index < len(text) - 1
        and text[index + 1] not in "\b\n"
        and text[index - 1] in (text[index + 1], "_")
    )


_UTF8_LENGTH = ((0xC2, 0xDF, 2), (0xE0, 0xEF, 3), (0xF0, 0xF4, 4))  # a lead byte's range, length


def _mojibake(text: str, index: int) -> bool:
    """A C1 control that is a byte of a character's UTF-8 read as Latin-1 (mojibake: ``\u2717``
    shown as ``\xe2\x9c\x97``), when that character is one a reader sees: the garble is in sight,
    and hides no more than the character it stands for. Mojibake of a hidden character (a tag, a
    zero-width space) stays a finding. A constant amount of work per character."""
    for lead_at in range(index - 1, max(-1, index - 4), -1):
        lead = ord(text[lead_at])
        for low, high, length in _UTF8_LENGTH:
            if low <= lead <= high and lead_at + length > index:
                piece = text[lead_at : lead_at + length]
                try:
                    char = piece.encode("latin-1").decode("utf-8")
                except (UnicodeEncodeError, UnicodeDecodeError):
                    return False
                return _HIDDEN_RE.match(char) is None
        if not 0x80 <= lead <= 0xBF:  # not a continuation byte: no lead before it reaches here
            return False
    return False


def _colour_only(text: str, index: int) -> bool:
    """Whether the ESCAPE at ``index`` starts a colour or style sequence that hides nothing: text
    in a terminal (``git diff`` through ``less -R``) stays visible. Cursor moves, titles, erasing,
    concealed text and a colour drawn on the same background stay findings."""
    match = _SGR_RE.match(text, index)
    if match is None:
        return False
    codes = [int(part or 0) for part in match[1].split(";")]  # an empty parameter is 0
    colours: dict[int, tuple[int, ...]] = {}  # 3: the text's, 4: the background's
    at = 0
    while at < len(codes):
        code, at = codes[at], at + 1
        if code == _CONCEAL:
            return False
        if code in (38, 48):  # an extended colour: 5;N (256 colours) or 2;R;G;B
            width = _EXTENDED.get(codes[at] if at < len(codes) else -1)
            if width is None or at + 1 + width > len(codes):
                return False
            colours[code // 10] = tuple(codes[at : at + 1 + width])
            at += 1 + width
        elif code in _BASIC:
            layer, colour = _BASIC[code]
            colours[layer] = (5, colour)
    return colours.get(3, "no text colour") != colours.get(4, "no background")


def find_hidden(
    text: str, *, marks: bool = False, file: bool = False, colours: bool = False
) -> list[HiddenChar]:
    """Every hidden character in ``text`` that is not one of the harmless exceptions. With ``marks``
    (a translation file: ``gitmem.scan.kinds.is_locale``), the directional marks inside a line's
    value (after its first quote, "=" or ":") are ordinary text too. With ``file`` (``text`` is a
    whole file's), a byte-order mark at its very start is allowed; anywhere else, and in a field's
    value (a title that is only U+FEFF lands mid-file once compiled), it is hidden. With
    ``colours`` (code people review), a terminal's colour sequences that hide nothing are allowed
    (``_colour_only``)."""
    if text.isascii() and not text.encode("ascii").translate(
        None, _ASCII_VISIBLE
    ):  # most files: 1 GB/s
        return []
    reading = _Reading(file, colours, marks, _UNSPACED_RE.search(text) is not None)
    found: list[HiddenChar] = []
    line, line_start, counted_to = (
        1,
        0,
        0,
    )  # line numbers counted as we go: linear time, however many there are
    value_line, value_start = (
        -1,
        -1,
    )  # the line whose value's start was looked for (once per line), and where
    for match in _HIDDEN_RE.finditer(text):
        index = match.start()
        cp = ord(text[index])
        if _allowed(text, index, cp, reading):
            continue
        line += text.count("\n", counted_to, index)
        line_start = max(line_start, text.rfind("\n", counted_to, index) + 1)
        counted_to = index
        if marks and cp in DIRECTIONAL_MARKS:
            if value_line != line:
                value = _VALUE_START_RE.match(text, line_start)
                value_line, value_start = line, value.end() - 1 if value else len(text)
            if index > value_start:
                continue
        found.append(HiddenChar(line, index - line_start + 1, cp))
    return found
