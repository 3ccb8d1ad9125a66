"""A shell line as the commands it runs and the files it writes: what the pre-tool hook matches a
memory's ``enforce`` against, and what the memory-layer gate reads.

Not a shell: one linear pass over at most ``MAX_LINE`` characters that knows quotes (``'...'``,
``"..."``, backslashes), the operators that separate commands (``&&``, ``||``, ``;``, ``|``, ``&``,
newlines, parentheses, ``$(...)`` and backticks), redirections (``>``, ``>>``, ``2>``, ``&>``,
``<``), comments and here-documents (their lines are data, not commands). Each command loses what
only wraps another one (``VAR=value``, ``sudo``, ``env``, ``nohup``, ``time``, ``timeout 5``,
``xargs``, ``if``/``then``/``do``...) and ``bash -c "..."`` is read as the line it runs
(``MAX_DEPTH`` deep). Bounded: ``MAX_COMMANDS`` commands of ``MAX_WORDS`` words at most.
"""

from __future__ import annotations

from typing import NamedTuple

MAX_LINE = 65_536  # characters of a shell line read; the rest is not looked at
MAX_COMMANDS = 512
MAX_WORDS = 256
MAX_DEPTH = 2  # bash -c "bash -c '...'" levels read


class Command(NamedTuple):
    """One simple command: its words (quotes removed, wrappers dropped) and the files its
    redirections write."""

    words: tuple[str, ...]
    redirects: tuple[str, ...] = ()  # targets of > and >> (not of <, not &N)

    @property
    def text(self) -> str:
        return " ".join(self.words)

    @property
    def program(self) -> str:
        """The program's name, without its folder (``/usr/bin/npm`` -> ``npm``)."""
        return self.words[0].rsplit("/", 1)[-1] if self.words else ""


def commands(line: str, depth: int = 0) -> list[Command]:
    """The simple commands of ``line``, in order (``bash -c`` lines opened)."""
    out: list[Command] = []
    for words, redirects in _split(line[:MAX_LINE]):
        words = _unwrap(words)
        inner = _inner_line(words) if depth < MAX_DEPTH else None
        if inner is not None:  # the line it runs, then the shell's own redirections
            out.extend(commands(inner, depth + 1))
            words = []
        if words or redirects:
            out.append(Command(tuple(words), tuple(redirects)))
        if len(out) >= MAX_COMMANDS:
            break
    return out[:MAX_COMMANDS]


class _Reader:
    """The state of one pass over a line: the command being read, its words and redirections."""

    def __init__(self, line: str) -> None:
        self.line = line
        self.size = len(line)
        self.done: list[tuple[list[str], list[str]]] = []
        self.words: list[str] = []
        self.redirects: list[str] = []
        self.word: list[str] = []
        self.quoted = False  # the current word has a quote (so "" is a word)
        self.target = False  # the next word is a redirection's target
        self.heredocs: list[str] = []  # delimiters whose bodies start at the next newline
        self.heredoc_next = False  # the next word is a here-document's delimiter

    def end_word(self) -> None:
        if not self.word and not self.quoted:
            return
        word = "".join(self.word)
        self.word, self.quoted = [], False
        if self.heredoc_next:
            self.heredocs.append(word)
            self.heredoc_next = False
        elif self.target:
            if not word.startswith("&"):
                self.redirects.append(word)
            self.target = False
        elif len(self.words) < MAX_WORDS:
            self.words.append(word)

    def end_command(self) -> None:
        self.end_word()
        if (self.words or self.redirects) and len(self.done) < MAX_COMMANDS:
            self.done.append((self.words, self.redirects))
        self.words, self.redirects, self.target = [], [], False

    # Each step reads what starts at ``index`` and returns the index after it.

    def plain(self, index: int) -> int:
        self.word.append(self.line[index])
        return index + 1

    def backslash(self, index: int) -> int:
        if index + 1 >= self.size:
            return self.plain(index)
        if self.line[index + 1] != "\n":  # a backslash-newline joins lines
            self.word.append(self.line[index + 1])
        return index + 2

    def single(self, index: int) -> int:
        end = self.line.find("'", index + 1)
        end = self.size if end < 0 else end
        self.word.append(self.line[index + 1 : end])
        self.quoted = True
        return end + 1

    def double(self, index: int) -> int:
        return _double(self.line, index + 1, self)

    def comment(self, index: int) -> int:
        if self.word or self.quoted:
            return self.plain(index)
        end = self.line.find("\n", index)
        return self.size if end < 0 else end

    def blank(self, index: int) -> int:
        self.end_word()
        return index + 1

    def redirect(self, index: int) -> int:
        return _redirect(self.line, index, self)

    def ampersand(self, index: int) -> int:
        if not self.line.startswith("&>", index):
            return self.separator(index)
        self.end_word()  # &> file
        self.target = True
        return index + (3 if self.line.startswith("&>>", index) else 2)

    def dollar(self, index: int) -> int:
        return self.separator(index) if self.line.startswith("$(", index) else self.plain(index)

    def separator(self, index: int) -> int:
        self.end_command()
        char = self.line[index]
        index += 2 if char == "$" else 1
        if char == "\n" and self.heredocs:
            index = _skip_heredocs(self.line, index, self.heredocs)
            self.heredocs = []
        return index


# What each character that means something to the shell starts (any other is part of a word).
_STEPS = {
    "\\": _Reader.backslash,
    "'": _Reader.single,
    '"': _Reader.double,
    "#": _Reader.comment,
    **dict.fromkeys(" \t\r", _Reader.blank),
    **dict.fromkeys("<>", _Reader.redirect),
    "&": _Reader.ampersand,
    "$": _Reader.dollar,
    **dict.fromkeys(";\n|()`", _Reader.separator),
}


def _split(line: str) -> list[tuple[list[str], list[str]]]:
    reader = _Reader(line)
    index = 0
    while index < reader.size:
        index = _STEPS.get(line[index], _Reader.plain)(reader, index)
    reader.end_command()
    return reader.done


def _double(line: str, index: int, reader: _Reader) -> int:
    """Read a double-quoted string from ``index`` (after the quote); returns the index after its
    closing quote."""
    reader.quoted = True
    size = len(line)
    while index < size:
        char = line[index]
        if char == '"':
            return index + 1
        if char == "\\" and index + 1 < size and line[index + 1] in '"\\$`':
            reader.word.append(line[index + 1])
            index += 2
            continue
        reader.word.append(char)
        index += 1
    return size


def _redirect(line: str, index: int, reader: _Reader) -> int:
    """A redirection at ``index`` (``>``, ``>>``, ``>|``, ``<``, ``<<``, ``<<<``, ``2>``...)."""
    word = "".join(reader.word)
    if word.isdigit() and not reader.quoted:  # 2> file: the 2 is the descriptor, not a word
        reader.word = []
    reader.end_word()
    if line.startswith("<<<", index):
        reader.target = False
        return index + 3  # a here-string: its word is data
    if line.startswith("<<", index):
        reader.heredoc_next = True
        return index + (3 if line.startswith("<<-", index) else 2)
    if line[index] == "<":  # an input file: read, never written
        return _input_target(line, index + 1, reader)
    end = index + 1 + (line[index + 1 : index + 2] in (">", "|"))  # >>, >|
    if line.startswith("&", end):  # >&2, 2>&1, >&-: to a descriptor, no file
        end += 1
        while end < len(line) and (line[end].isdigit() or line[end] == "-"):
            end += 1
        return end
    reader.target = True
    return end


def _input_target(line: str, index: int, reader: _Reader) -> int:
    """The index after the word that follows ``<`` (a file read, never written; ``<&3`` reads a
    descriptor)."""
    size = len(line)
    while index < size and line[index] in " \t":
        index += 1
    while index < size and line[index] not in " \t\r\n;&|()<>`":
        index += 1
    reader.target = False
    return index


def _skip_heredocs(line: str, index: int, delimiters: list[str]) -> int:
    """The index after the bodies of ``delimiters``' here-documents, which start at ``index``."""
    for delimiter in delimiters:
        while index < len(line):
            end = line.find("\n", index)
            end = len(line) if end < 0 else end
            found = line[index:end].lstrip("\t") == delimiter
            index = end + 1
            if found:
                break
    return min(index, len(line))


# Words that only run what follows them: dropped, with their options (and variable assignments),
# then the number of words they take after those (``timeout``: its duration, after its options
# only).
_WRAPPERS = {
    **dict.fromkeys(
        (
            "sudo",
            "env",
            "command",
            "exec",
            "nohup",
            "time",
            "nice",
            "ionice",
            "stdbuf",
            "xargs",
            "doas",
            "builtin",
        ),
        0,
    ),
    "timeout": 1,
}
_KEYWORDS = frozenset(
    {"if", "then", "else", "elif", "do", "while", "until", "!", "{", "}", "fi", "done", "time"}
)


def _assignment(word: str) -> bool:
    name, equals, _ = word.partition("=")
    return bool(equals) and name.isidentifier()


def _unwrap(words: list[str]) -> list[str]:
    index = 0
    while index < len(words):
        word = words[index]
        if word in _KEYWORDS or _assignment(word):
            index += 1
            continue
        takes = _WRAPPERS.get(word.rsplit("/", 1)[-1])
        if takes is None:
            break
        index += 1
        while index < len(words) and (
            words[index].startswith("-") or (not takes and _assignment(words[index]))
        ):
            index += 1
        index += takes
    return words[index:]


_SHELLS = frozenset({"sh", "bash", "zsh", "dash", "ksh", "fish"})


def _inner_line(words: list[str]) -> str | None:
    """The line ``bash -c LINE`` (``-lc``, ``-ec``...) runs, or None."""
    if not words or words[0].rsplit("/", 1)[-1] not in _SHELLS:
        return None
    for index, word in enumerate(words[1:], 1):
        if not word.startswith("-"):  # past the options: no -c
            return None
        if not word.startswith("--") and "c" in word:
            return next(iter(words[index + 1 :]), "")  # the word after it ("" when none)
    return None
