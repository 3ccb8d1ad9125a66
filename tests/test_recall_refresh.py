"""The recall index's refresh is bounded whatever the store holds (issue 32, point 1): a refresh killed part way (the
prompt hook's timeout) keeps what it did (all but its last quarter second), the refresh after a kill goes one file
a transaction, and a file it is killed checking is recorded as too costly and skipped with a status line; a hook's
refresh stops at its deadline and leaves the rest to the next prompt."""

from __future__ import annotations

import subprocess
import sys
import textwrap
import time
from datetime import date
from pathlib import Path

from gitmem.gateway import find_project
from gitmem.hook.status import counts, status_text
from gitmem.recall.index import COSTLY, RecallIndex
from tests.test_recall import write_memory

FILES = 40
KILLER = "m-025"

# A refresh in a process of its own that dies (no cleanup, as a hook killed at its timeout) while checking KILLER.
KILLED = textwrap.dedent(
    """
    import os, sys
    from pathlib import Path
    from gitmem.memory import schema
    from gitmem.gateway import find_project
    from gitmem.recall.index import RecallIndex

    check = schema.check_memory
    def dying(raw, stem, *args, **kwargs):
        if stem == sys.argv[1]:
            os._exit(9)
        return check(raw, stem, *args, **kwargs)
    schema.check_memory = dying
    RecallIndex(find_project(Path.cwd())).refresh()
    """
)


def _store(project: Path) -> None:
    for n in range(FILES):
        write_memory(
            project,
            f"m-{n:03d}",
            f"Memory number {n} about the deploy queue",
            body="Use the queue.",
        )
    time.sleep(1.1)  # older than a second: trusted on their stat, once indexed


def test_a_killed_refresh_keeps_its_progress_and_the_file_it_was_checking_is_skipped(
    project: Path,
) -> None:
    _store(project)
    # Killed twice: the first time in a batch of files, the second (one file a transaction, after a kill) at KILLER
    for _ in range(2):
        killed = subprocess.run(
            [sys.executable, "-c", KILLED, KILLER], cwd=project, capture_output=True, check=False
        )
        assert killed.returncode == 9, killed.stderr

    index = RecallIndex(find_project(project))
    try:
        again = index.refresh()
        costly = index.costly()
        size = index.size()
    finally:
        index.close()
    done_before = int(KILLER.split("-")[1])
    assert again.checked == FILES - done_before - 1, (
        again
    )  # the files before it were kept; it was not checked again
    assert again.costly == [f"{KILLER}.yaml"]
    assert costly == [f".memory/memories/{KILLER}.yaml"]
    assert size == FILES - 1

    found = counts(find_project(project), set(), date.today())
    assert found is not None and found.costly == tuple(costly)
    text = status_text(found, ["CLAUDE.md"], 0, 0, False)
    assert "1 memory file was too costly to check" in text and f"{KILLER}.yaml" in text

    # changed, it is checked again
    write_memory(project, KILLER, "Memory number 25, rewritten", body="Use the queue.")
    index = RecallIndex(find_project(project))
    try:
        index.refresh()
        assert index.costly() == [] and index.size() == FILES
    finally:
        index.close()
    assert COSTLY not in status_text(
        counts(find_project(project), set(), date.today()) or found, [], 0, 0, False
    )


def test_a_refresh_stops_at_its_deadline_and_the_next_goes_on_from_there(project: Path) -> None:
    _store(project)
    index = RecallIndex(find_project(project))
    try:
        stopped = index.refresh(deadline=time.monotonic() - 1)
        assert not stopped.complete and stopped.checked == 0
        assert index.costly() == []  # the file it did not begin is not blamed
        whole = index.refresh()
        assert whole.complete and whole.checked == FILES and index.costly() == []
    finally:
        index.close()


def test_an_interrupted_refresh_blames_no_file(project: Path) -> None:
    """^C (KeyboardInterrupt) is not a kill: the file being checked is checked again next time."""
    _store(project)
    from gitmem.memory import schema

    check = schema.check_memory

    def interrupted(raw: bytes, stem: str, *args: object, **kwargs: object) -> object:
        if stem == KILLER:
            raise KeyboardInterrupt
        return check(raw, stem, *args, **kwargs)  # type: ignore[arg-type]

    index = RecallIndex(find_project(project))
    try:
        schema.check_memory = interrupted  # type: ignore[assignment]
        try:
            index.refresh()
        except KeyboardInterrupt:
            pass
        finally:
            schema.check_memory = check
        again = index.refresh()
        assert again.costly == [] and index.size() == FILES
    finally:
        index.close()
