"""What kind of text is scanned: prose an agent wrote, or code people review. The kind decides how strict a rule is.

- ``prose``: memories, journal entries, session logs, and text given to the scanner directly (stdin, the MCP
  server, ``gitmem add``). People and agents write credentials there in sentences ("the password is …"), in YAML
  bodies and in JSON-escaped tool output, so every rule runs, prose rules included, and a generic value needs only
  to look chosen to be hard to guess (``filters.plausible``).
- ``prose`` too: documents (``.md``, ``.txt``, ``.rst``…) and transcripts (``.jsonl``, ``.log``) anywhere.
- ``code``: every other file of a repository (source, configuration, data, fixtures). Prose rules do not
  run, and a generic assignment's value must also look generated (``filters.plausible_in_code``): in code, names
  such as ``token`` and ``credentials`` hold variables, test fixtures and words far more often than secrets.

Rules with a provider's fixed format (``ghp_…``, ``AKIA…``, private keys) run the same on both kinds.
"""

from __future__ import annotations

PROSE = "prose"
CODE = "code"

_PROSE_DIRECTORIES = (".memory/memories/", ".memory/journal/")
# Documents people write in sentences, and agents' transcripts
_PROSE_SUFFIXES = (".md", ".markdown", ".mdx", ".txt", ".rst", ".adoc", ".org", ".jsonl", ".log")


def file_kind(path: str) -> str:
    """The kind of a file, from its path (relative to the repository root when inside one)."""
    if path.startswith(_PROSE_DIRECTORIES) or path.lower().endswith(_PROSE_SUFFIXES):
        return PROSE
    return CODE
