"""What kind of text is scanned: prose an agent wrote, or code people review. The kind decides how
strict a rule is.

- ``prose``: memories, journal entries, session logs, and text given to the scanner directly (stdin,
  the MCP server, ``gitmem add``). People and agents write credentials there in sentences ("the
  password is …"), in YAML bodies and in JSON-escaped tool output, so every rule runs, prose rules
  included, and a generic value needs only to look chosen to be hard to guess
  (``filters.plausible``).
- ``prose`` too: documents (``.md``, ``.txt``, ``.rst``…) and transcripts (``.jsonl``, ``.log``)
  anywhere.
- ``code``: every other file of a repository (source, configuration, data, fixtures). Prose rules do
  not run, and a generic assignment's value must also look generated
  (``filters.plausible_in_code``): in code, names such as ``token`` and ``credentials`` hold
  variables, test fixtures and words far more often than secrets.

Rules with a provider's fixed format (``ghp_…``, ``AKIA…``, private keys) run the same on both
kinds.
"""

from __future__ import annotations

from typing import Literal

Kind = Literal["prose", "code"]
PROSE: Kind = "prose"
CODE: Kind = "code"

_PROSE_DIRECTORIES = (".memory/memories/", ".memory/journal/")
# Documents people write in sentences, and agents' transcripts
_PROSE_SUFFIXES = (".md", ".markdown", ".mdx", ".txt", ".rst", ".adoc", ".org", ".jsonl", ".log")


def file_kind(path: str) -> Kind:
    """The kind of a file, from its path (relative to the repository root when inside one)."""
    if path.startswith(_PROSE_DIRECTORIES) or path.lower().endswith(_PROSE_SUFFIXES):
        return PROSE
    return CODE


# Translation files: by their folder (locales/he-IL.json, i18n/ar.yml, he.lproj/), their format
# (gettext, XLIFF, Flutter's ARB, Apple's .strings, .NET's .resx, Fluent), or a name that is a
# locale with a region (he-IL.json, messages_fa_IR.properties)
_LOCALE_DIRECTORIES = frozenset(
    {"locale", "locales", "i18n", "l10n", "lang", "langs", "translations", "translation"}
)
_LOCALE_SUFFIXES = (
    ".po",
    ".pot",
    ".xlf",
    ".xliff",
    ".arb",
    ".strings",
    ".stringsdict",
    ".resx",
    ".ftl",
)
_LOCALE_DATA = (".json", ".yml", ".yaml", ".properties", ".js", ".ts", ".toml", ".ini")


def is_locale(path: str) -> bool:
    """Whether a file holds translated strings (``gitmem.scan.unicode``: the directional marks
    right-to-left text needs are ordinary there)."""
    lowered = path.lower()
    folders = lowered.split("/")[:-1]
    if lowered.endswith(_LOCALE_SUFFIXES) or any(
        f in _LOCALE_DIRECTORIES or f.endswith(".lproj") for f in folders
    ):
        return True
    stem, dot, suffix = path.rpartition("/")[2].rpartition(".")
    if not dot or f".{suffix.lower()}" not in _LOCALE_DATA:
        return False
    code = stem.replace("_", "-").split("-")
    if len(code) < 2 or len(code[-1]) != 2 or not code[-1].isalpha() or not code[-2].isalpha():
        return False
    # a region at the end of the name, after a language (he-IL, fa_ir, messages_pt_BR) or a script
    # (zh-Hant-TW)
    return 2 <= len(code[-2]) <= 3 or (len(code[-2]) == 4 and code[-1].isupper())
