"""The session-start status and the stop reminder.

The status is a few lines, not a copy of the rules file: how many memories there are, how many the
rules files the client loads hold and how many the token budget left out (the prompt hook brings
those when they matter), and how many proposals wait for review. The stop reminder asks once per
session for the journal, when the session changed files and wrote none.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
from collections.abc import Collection
from datetime import date
from pathlib import Path
from typing import NamedTuple

from gitmem.hook.state import SessionState
from gitmem.project import Project
from gitmem.recall.index import RecallIndex, Unavailable, hook_deadline
from gitmem.recall.results import Census

JOURNAL_CALL = "`gitmem journal add -`"


# NamedTuples and plain classes, not dataclasses: importing dataclasses (and inspect with it) costs
# the prompt hook, a new process on every prompt, more than its own work.
class Counts(NamedTuple):
    """The store's memories by state, for the session-start status."""

    active: int  # live
    scoped: int  # live and path-scoped
    proposed: int
    loaded: int  # live memories whose ids the client's rules files hold
    # live, not scoped, and not in the rules files: left out by the budget (or not compiled yet)
    left_out: int
    # live, not in the rules files, compiled only for targets whose files the client does not load
    elsewhere: int = 0
    costly: tuple[
        str, ...
    ] = ()  # files left out: a refresh was stopped while checking each (RecallIndex.costly)


def counts(
    project: Project, loaded: set[str], today: date, mine: Collection[str] = ()
) -> Counts | None:
    """The figures of the status; ``mine``: the compile targets whose files the client loads (a
    memory whose ``targets`` name none of them is for other tools, not left out by the budget)."""
    if not project.memories_dir.is_dir():
        return None
    index = RecallIndex(project)
    try:
        try:
            index.refresh(hook_deadline())
            census = index.census(today)
            costly = tuple(index.costly())
        except Unavailable:
            return None
    finally:
        index.close()
    n = dict.fromkeys(("active", "scoped", "proposed", "loaded", "left_out", "elsewhere"), 0)
    for entry in census:
        n["proposed"] += entry.status == "proposed"
        for key in _standing(entry, loaded, mine) if entry.live else ():
            n[key] += 1
    return Counts(**n, costly=costly)


def _standing(entry: Census, loaded: set[str], mine: Collection[str]) -> tuple[str, ...]:
    """The figures a live memory counts in: ``loaded`` (and ``scoped`` when it is), ``elsewhere``
    (compiled only for targets whose files the client does not load), or ``scoped``/``left_out``."""
    if entry.id in loaded:
        return ("active", "loaded", "scoped") if entry.scoped else ("active", "loaded")
    if entry.targets and set(entry.targets).isdisjoint(mine):
        return ("active", "elsewhere")
    return ("active", "scoped" if entry.scoped else "left_out")


# The figures after what the rules files hold, when not zero: (Counts field, text for one, for more)
_FIGURES = (
    ("left_out", "the token budget left {} out", "the token budget left {} out"),
    ("scoped", "{} apply only to some paths", "{} apply only to some paths"),
    ("elsewhere", "{} is compiled only for other tools", "{} are compiled only for other tools"),
)


def status_text(
    found: Counts, rules_names: list[str], pack_ids: int, personal: int, has_stop: bool
) -> str:
    where = " and ".join(rules_names) if rules_names else "no rules file"
    lines = [
        "gitmem: this repository keeps "
        f"{_n(found.active, '{} active project memory', '{} active project memories')}."
    ]
    held = f"{where} hold{'s' if len(rules_names) == 1 else ''} {found.loaded} of them"
    figures = [
        _n(count, one, many) for name, one, many in _FIGURES if (count := getattr(found, name))
    ]
    text = "; ".join([held, *figures])
    also = (
        (pack_ids, "{} shared pack memory", "{} shared pack memories"),
        (personal, "{} personal memory", "{} personal memories"),
    )
    extra = [_n(count, one, many) for count, one, many in also if count]
    if extra:
        text += "; there are also " + " and ".join(extra)
    lines.append(
        text + '. The ones that bear on a prompt are added to it; `gitmem recall "WORDS"` (or the '
        "MCP tool "
        "recall) searches them all."
    )
    costly = found.costly
    shown = ", ".join(costly[:3]) + (", …" if len(costly) > 3 else "")
    said_when = (  # (whether it applies, the line)
        (
            found.proposed,
            f"{_n(found.proposed, '{} proposed memory waits', '{} proposed memories wait')} for "
            "review by a human (`gitmem list --status proposed`); they are not instructions.",
        ),
        (
            costly,
            f"{_n(len(costly), '{} memory file was', '{} memory files were')} too costly to check "
            f"and left out of recall until changed ({shown}): `gitmem validate` checks them.",
        ),
        (
            has_stop,
            "Before you finish a session that changed files, write its journal (/remember, or "
            f"{JOURNAL_CALL}).",
        ),
    )
    return "\n".join([*lines, *(line for applies, line in said_when if applies)])


def client_stores_text(project: Project, home: Path) -> str | None:
    """A line when an AI client's own memory store for this repository has files that ``gitmem
    import --from`` has not seen (new, or changed since): compared by size and time only, never
    read.
    """
    from gitmem import clientstores  # lazy: the prompt, stop hooks' start-up

    seen = clientstores.load_record(project.cache_dir)["stores"]
    waiting = [
        (store, count)
        for store in clientstores.STORES
        if (count := clientstores.pending(store.name, project.root, home, seen.get(store.name, {})))
    ]
    if not waiting:
        return None
    named = " and ".join(
        f"{store.label} ({_n(count, '{} file', '{} files')})" for store, count in waiting
    )
    flag = waiting[0][0].name if len(waiting) == 1 else "all"
    return (
        f"{named} remembered things about this repository on its own that gitmem has not proposed "
        f"yet (new or changed since the last import); `gitmem import --from {flag} --dry-run` "
        "shows them, and without --dry-run they become proposals for a human to review."
    )


def _n(count: int, one: str, many: str) -> str:
    """``one`` or ``many`` as ``count`` asks, with ``count`` at its ``{}``."""
    return (one if count == 1 else many).format(count)


# -- the stop reminder -----------------------------------------------------------------------------


def worktree_digest(project: Project) -> str:
    """A digest of the work tree's changes (git status, with each changed file's size and mtime),
    the journal left out: equal before and after a session that changed nothing."""
    from gitmem.gitcommand import GitFailed, git_read  # lazy: the session-start hook's start-up

    try:
        out = git_read(
            project.root, "status", "--porcelain=v1", "-z", "--untracked-files=all", "--no-renames"
        )
    except GitFailed:
        return ""
    journal = Path(os.path.relpath(project.journal_dir, project.root)).as_posix() + "/"
    digest = hashlib.sha256()
    for record in out.split(b"\0"):
        if len(record) < 4:
            continue
        path = record[3:].decode("utf-8", "surrogateescape")
        if path.startswith(journal):
            continue
        digest.update(record + b"\0")
        with contextlib.suppress(OSError):
            st = os.stat(project.root / path)
            digest.update(f"{st.st_size}:{st.st_mtime_ns}\0".encode())
    return digest.hexdigest()


def journal_written_since(project: Project, since_ns: int) -> bool:
    try:
        entries = list(os.scandir(project.journal_dir))
    except OSError:
        return False
    for entry in entries:
        with contextlib.suppress(OSError):
            if entry.name.endswith(".md") and entry.stat().st_mtime_ns >= since_ns:
                return True
    return False


def stop_reminder(project: Project, state: SessionState, active: bool) -> str | None:
    """The reminder to give at the end of a turn, or ``None``; records that it was given."""
    if active or state.reminded or not project.memory_dir.is_dir():
        return None
    baseline = state.dirty if state.dirty is not None else worktree_digest_of_clean()
    if worktree_digest(project) == baseline:
        return None
    if journal_written_since(project, state.started_ns):
        return None
    state.reminded = True
    return (
        "This session changed files and wrote no journal. Before finishing, write the "
        "session journal in gitmem's format (# Session: TITLE, then ## Decisions, ## "
        "Difficulties, ## Conventions, ## To do; one bullet per item; no secrets, tokens or "
        "personal data) and pipe it to "
        + JOURNAL_CALL
        + " (run /remember where the client has it). If nothing is worth recording, "
        "say so in one line and stop."
    )


def worktree_digest_of_clean() -> str:
    return hashlib.sha256().hexdigest()
