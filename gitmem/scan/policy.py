"""How one text is scanned: how deep its encodings are read, whether an allow pragma in it counts,
which kind of text it is, whether it is a translation, and whether hidden Unicode is looked for.
One place decides it for the pre-commit hook, ``gitmem scan``, ``gitmem check`` and the guard's
check of allow entries, so each reads a file as the others do.

- gitmem's session logs (``.memory/journal/``) and AI clients' transcripts are logs: decoded
  deeper (JSON escapes inside base64 inside URL-encoding), prose, and a pragma in them allows
  nothing (an agent writes that text; nobody reviews it line by line); a record in one is an
  API's live answer, its token as real as any;
- memories are prose, and a pragma or a record in them allows nothing either;
- every other file is judged by its path (``gitmem.scan.kinds``), and its pragmas count: people
  review it, and a stored resource's record in it is a test's mock or a fixture (in a test's file,
  so is a key beside the public key or signature it yields: a test vector). A translation file
  allows what right-to-left text and translators' tools need, and its strings, like a web page a
  test saved, are text shown to people; the copy of Yarn that Yarn itself commits
  (``.yarn/releases/``, ``.yarn/plugins/``) is looked at for secrets only.
"""

from __future__ import annotations

from typing import NamedTuple

from gitmem.scan.engine import DEFAULT_DECODE_DEPTH, Finding, scan_text
from gitmem.scan.kinds import (
    PROSE,
    Kind,
    file_kind,
    in_tests,
    is_detection_rules,
    is_environment_settings,
    is_locale,
    is_messages,
    is_saved_page,
    is_vendored_tool,
)
from gitmem.scan.transcripts import recognise

LOG_DECODE_DEPTH = 3
_HEAD = 4096  # the characters a transcript is recognised by


class Policy(NamedTuple):
    """How to scan one text."""

    decode: int  # layers of encoding looked through (engine.scan_text's ``decode``)
    pragmas: bool  # a ``gitmem:allow`` pragma on a line allows what it finds there
    kind: Kind
    locale: bool = False  # a translation file (engine.scan_text's ``locale``)
    hidden: bool = True  # hidden Unicode characters are findings too
    # text shown to people, or looked for (engine.scan_text's ``messages``)
    messages: bool = False
    # a file people review, where a stored resource's record is a fixture (engine.scan_text's
    # ``records``); in a log, a memory or pasted text a record is an API's live answer
    records: bool = False
    tests: bool = False  # a test's file (engine.scan_text's ``tests``)
    # the development environment's or the tests' settings file (engine.scan_text's
    # ``environment``): the whole file is such a section
    environment: bool = False


LOG = Policy(LOG_DECODE_DEPTH, False, PROSE)  # a session log, a transcript
TYPED = Policy(LOG_DECODE_DEPTH, True, PROSE)  # text given on standard input: someone typed it


def scan(text: str, shown: str, how: Policy) -> list[Finding]:
    """``text``'s secrets and hidden characters, read as ``how`` says: the one place a policy
    becomes a scan, so a field added to it reaches every reader."""
    return scan_text(
        text,
        shown,
        decode=how.decode,
        hidden=how.hidden,
        pragmas=how.pragmas,
        kind=how.kind,
        locale=how.locale,
        messages=how.messages,
        records=how.records,
        tests=how.tests,
        environment=how.environment,
    )


def policy(relative: str, shown: str, text: str) -> Policy:
    """The policy for a file holding ``text``: ``relative`` is its path from the repository's root
    (empty outside one), ``shown`` the path it was given by."""
    if relative.startswith(".memory/journal/") or recognise(relative, text[:_HEAD]):
        return LOG
    where = relative or shown
    reviewed = not relative.startswith(".memory/memories/")
    return Policy(
        DEFAULT_DECODE_DEPTH,
        reviewed,
        file_kind(where),
        is_locale(where),
        not is_vendored_tool(where),
        is_messages(where)
        or (reviewed and (is_saved_page(where, text) or is_detection_rules(where))),
        reviewed,
        reviewed and in_tests(where),
        reviewed and is_environment_settings(where),
    )
