"""A secret split over two journal appends (MCP ``append_journal``) is refused: what the log will hold is scanned,
not only each new part."""

from __future__ import annotations

import base64
import random
from datetime import date
from pathlib import Path

import pytest

from gitmem.errors import UsageError
from gitmem.gateway import find_project
from gitmem.mcp.tools import append_journal

TODAY = date(2026, 11, 30)


def key_halves() -> tuple[str, str]:
    """A private key block cut in two after its BEGIN line (built at run time, so this file holds no key): neither
    half is a key on its own (a BEGIN line with key material and no END line would be one)."""
    rng = random.Random(13)
    body = base64.b64encode(bytes(rng.randrange(256) for _ in range(480))).decode()
    lines = [body[i : i + 64] for i in range(0, len(body), 64)]
    begin, end = "-----BEGIN RSA " + "PRIVATE KEY-----", "-----END RSA " + "PRIVATE KEY-----"
    first = "## Difficulties\n- The deploy key was:\n" + begin
    second = "\n".join([*lines, end])
    return first, second


def test_a_key_split_over_two_appends_never_lands_in_the_journal(project: Path) -> None:
    first, second = key_halves()
    here = find_project(project)
    assert append_journal(here, first, TODAY).startswith(
        "Appended to "
    )  # on its own, no whole key: accepted
    log = project / ".memory/journal" / f"{TODAY.isoformat()}-session.md"
    before = log.read_bytes()
    with pytest.raises(UsageError) as refused:
        append_journal(here, second, TODAY)
    message = str(refused.value)
    assert message.startswith("refused: line 5 (Difficulties): possible secret")
    assert "Nothing was written" in message
    assert second.splitlines()[0] not in message
    assert log.read_bytes() == before  # the second half never joined the first


def test_clean_appends_still_accumulate(project: Path) -> None:
    here = find_project(project)
    append_journal(here, "## Decisions\n- Use FTS5 for recall.", TODAY)
    append_journal(here, "## Conventions\n- Run ruff format before committing.", TODAY)
    text = (project / ".memory/journal" / f"{TODAY.isoformat()}-session.md").read_text(
        encoding="utf-8"
    )
    assert "- Use FTS5 for recall." in text and "- Run ruff format before committing." in text
