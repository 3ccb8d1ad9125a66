"""The three ways in (rules files, a client's store, a session log) decide the same item the same way:
each asks ``gitmem.journal.intake`` (issue 34)."""

from __future__ import annotations

from datetime import date
from pathlib import Path

import pytest

from gitmem.clientstores import qwen_key
from gitmem.commands import open_store
from gitmem.importing import fromclients, importer
from gitmem.journal import harvest
from gitmem.memory.model import Memory

THRESHOLD = 0.8
TODAY = date(2026, 12, 2)
# Built at run time: the repository never holds a string its own scanner would flag.
TOKEN = "ghp_" + "aB3dE5fG7hJ9kL2mN4pQ6rS8tU0vW1xY" + "z9Qk"
ITEMS = {  # an item's title -> its fate on every way in
    "Pin Node 20 in every workflow": "duplicate",
    "Use npm for the web app": "removed",
    "Releases are frozen on Fridays": "new",
}


@pytest.fixture
def stored(project: Path) -> Path:
    """A store holding an active memory and a retired one (a memory a human removed)."""
    _, store = open_store()
    for memory_id, title, status in (
        ("pin-node", "Pin Node 20 in every workflow", "active"),
        ("use-npm", "Use npm for the web app", "retired"),
    ):
        store.create(Memory(id=memory_id, title=title, kind="convention", status=status))
    return project


def rules_file_fates(root: Path) -> dict[str, str]:
    (root / "AGENTS.md").write_text(
        "# Rules\n\n" + "".join(f"- {title}.\n" for title in ITEMS), encoding="utf-8"
    )
    project, store = open_store()
    report = importer.import_rules(project, store, importer.Request(TODAY, THRESHOLD, dry_run=True))
    fates = {draft.title: "new" for draft in report.drafts}
    fates |= {known.title: known.why for known in report.known}
    return fates | {rejected.title: "removed" for rejected in report.rejected}


def client_fates(root: Path, home: Path) -> dict[str, str]:
    folder = home / ".qwen" / "projects" / qwen_key(str(root)) / "memory"
    folder.mkdir(parents=True)
    for number, title in enumerate(ITEMS):
        text = f"---\nname: item-{number}\ndescription: {title}\ntype: project\n---\n\n{title}.\n"
        (folder / f"project_{number}.md").write_text(text, encoding="utf-8")
    project, store = open_store()
    request = fromclients.Request(("qwen",), TODAY, THRESHOLD, home=home, dry_run=True)
    report = fromclients.import_clients(project, store, request)
    fates = {proposal.entry.title: "new" for proposal in report.proposals}
    return fates | {outcome.title: outcome.why for outcome in (*report.known, *report.rejected)}


def log_fates(root: Path) -> dict[str, str]:
    log = root / ".memory" / "journal" / "2026-12-02-intake.md"
    log.parent.mkdir(parents=True, exist_ok=True)
    log.write_text(
        "# Session\n\n## Decisions\n" + "".join(f"- {title}.\n" for title in ITEMS),
        encoding="utf-8",
    )
    project, store = open_store()
    request = harvest.Request(log, TODAY, THRESHOLD, dry_run=True)
    report = harvest.harvest(project, store, request)
    fates = {proposed.title: "new" for proposed in report.proposed}
    fates |= {known.title: "duplicate" for known in report.duplicates}
    return fates | {title: "removed" for _, title, _ in report.rejected}


def test_the_three_ways_in_agree_on_each_items_fate(stored: Path, tmp_path: Path) -> None:
    expected = {title.rstrip("."): fate for title, fate in ITEMS.items()}
    assert rules_file_fates(stored) == expected
    assert client_fates(stored, tmp_path / "home") == expected
    assert log_fates(stored) == expected


def test_a_secret_is_refused_by_the_one_check(project: Path) -> None:
    from gitmem.journal.intake import LOGS, Intake, sensitive

    assert sensitive(f"Log in with {TOKEN}.") is not None
    fate = Intake[str]([], None, THRESHOLD, LOGS).fate("Login", "", text=f"Log in with {TOKEN}.")
    assert (fate.why, fate.found is not None) == ("secret", True)
    assert sensitive("Releases are frozen on Fridays.") is None
