"""Exit codes, the problem record every check reports, and gitmem's exceptions.

Each exception carries its exit code; the CLI turns them into a message and that code in one place.
"""

from __future__ import annotations

from collections.abc import Iterable
from enum import IntEnum

from gitmem.records import Record


class ExitCode(IntEnum):
    """The exit codes of every gitmem command (README.md lists them)."""

    OK = 0
    FOUND = 1  # a check found something: secret, invalid memory, stale output, doctor finding
    USAGE = 2  # the command was called wrongly
    CANNOT_RUN = 3  # not a git repository, unreadable config
    INTERNAL = 4  # a bug


# A NamedTuple, not a dataclass: importing dataclasses (and inspect with it) costs the pre-commit
# hook more than scanning a typical commit.
# Characters a terminal acts on rather than shows (C0 and C1 controls, DEL, line and paragraph
# separators) and the bidirectional and zero-width formatting ones: printed escaped, so a file name
# cannot forge or hide output.
_UNSHOWN = frozenset(
    [*range(0x20), *range(0x7F, 0xA0), 0x2028, 0x2029, *range(0x200B, 0x2010),
     *range(0x202A, 0x202F), *range(0x2066, 0x206A), 0xFEFF]
)  # fmt: skip


def shown(path: str) -> str:
    """``path`` as printed: every control or formatting character escaped (``\\n``, ``\\u202e``),
    the rest as it is.
    The one function every message that names a file prints it through."""
    if path.isprintable():
        return path
    return "".join(_escape(char) if ord(char) in _UNSHOWN else char for char in path)


def _escape(char: str) -> str:
    code = ord(char)
    named = {"\n": "\\n", "\r": "\\r", "\t": "\\t"}
    return named.get(char) or (f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}")


class Problem(Record):
    """One thing wrong with one file, printed as ``path:line:col: field: message``; problems sort by
    file, line, column, field and message."""

    path: str
    line: int
    column: int
    field: str
    message: str

    def __str__(self) -> str:
        return f"{shown(self.path)}:{self.line}:{self.column}: {self.field}: {self.message}"


class GitmemError(Exception):
    """An error the user can act on; ``str()`` is the one-line message shown to them (its secrets
    redacted where it is shown: ``gitmem.scan.without_secrets``)."""

    exit_code: ExitCode = ExitCode.CANNOT_RUN

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message

    def __str__(self) -> str:
        return self.message


class UsageError(GitmemError):
    """The command line asked for something impossible (bad id, unknown memory, bad date)."""

    exit_code = ExitCode.USAGE


class CannotRun(GitmemError):
    """gitmem cannot work here: not a git repository, no .memory/, unreadable config."""

    exit_code = ExitCode.CANNOT_RUN


class CheckFailed(GitmemError):
    """A check found problems; each is printed on its own line."""

    exit_code = ExitCode.FOUND

    def __init__(self, problems: Iterable[Problem], summary: str = "") -> None:
        self.problems = sorted(problems)
        lines = [str(problem) for problem in self.problems]
        if summary:
            lines.append(summary)
        super().__init__("\n".join(lines))
