from __future__ import annotations

import json
import os
from datetime import date, timedelta
from pathlib import Path
from typing import Any

import pytest

from gitmem import yamlio
from gitmem.gateway import find_project
from gitmem.recall.globs import matches
from gitmem.recall.index import RecallIndex
from gitmem.recall.results import query_terms
from tests.conftest import Run
from tests.recall_set import QUERIES, memory_files


def write_memory(root: Path, memory_id: str, title: str, **fields: Any) -> Path:
    data = {"id": memory_id, "title": title, "kind": fields.pop("kind", "convention")}
    data["status"] = fields.pop("status", "active")
    data.update(fields)
    path = root / ".memory" / "memories" / f"{memory_id}.yaml"
    path.write_text(yamlio.dump(data), encoding="utf-8")
    return path


def recall_ids(run: Run, query: str, *args: str) -> list[str]:
    result = run("recall", query, "--json", *args)
    assert result.code == 0, result.err
    return [hit["id"] for hit in json.loads(result.out)]


# -- relevance -------------------------------------------------------------------------------------------------------


def test_relevance_set_recall_at_3_is_at_least_0_9(project: Path, run: Run) -> None:
    for memory_id, data in memory_files().items():
        write_memory(project, memory_id, **{k: v for k, v in data.items() if k != "id"})
    assert len(memory_files()) >= 40 and len(QUERIES) >= 30
    found = []
    misses = []
    for query, expected, path in QUERIES:
        ids = recall_ids(run, query, "-k", "3", *(("--path", path) if path else ()))
        found.append(expected in ids)
        if expected not in ids:
            misses.append((query, expected, ids))
    score = sum(found) / len(found)
    assert score >= 0.9, f"recall@3 = {score:.3f}; misses: {misses}"


# -- output ----------------------------------------------------------------------------------------------------------


def test_json_gives_id_title_kind_and_score_best_first(project: Path, run: Run) -> None:
    write_memory(
        project,
        "use-pnpm",
        "Use pnpm, never npm",
        body="npm rewrites the lock file.",
        tags=["build"],
    )
    write_memory(
        project, "lock-files", "Commit the lock file with every dependency change", kind="fact"
    )
    result = run("recall", "lock file npm", "--json")
    assert result.code == 0, result.err
    hits = json.loads(result.out)
    assert [h["id"] for h in hits] == ["use-pnpm", "lock-files"]
    assert hits[0]["score"] > hits[1]["score"] > 0
    assert {
        k: hits[0][k] for k in ("id", "title", "kind", "body", "tags", "file", "path_match")
    } == {
        "id": "use-pnpm",
        "title": "Use pnpm, never npm",
        "kind": "convention",
        "body": "npm rewrites the lock file.",
        "tags": ["build"],
        "file": ".memory/memories/use-pnpm.yaml",
        "path_match": False,
    }


def test_text_presents_memories_as_possibly_stale_knowledge_with_ids(
    project: Path, run: Run
) -> None:
    write_memory(
        project,
        "use-pnpm",
        "Use pnpm, never npm",
        body="npm rewrites the lock file.",
        paths=["web/**"],
    )
    result = run("recall", "npm")
    assert result.code == 0, result.err
    assert result.out == (
        "1 project memory recalled for 'npm'. They are notes from earlier work on this repository and may be out "
        "of date: check them against the code before relying on them. Ids are in brackets; `gitmem show ID` "
        "prints one in full.\n"
        "\n"
        "1. [use-pnpm] Use pnpm, never npm\n"
        "   (convention; applies to web/**)\n"
        "   npm rewrites the lock file.\n"
    )


def test_no_match_says_so_on_stderr(project: Path, run: Run) -> None:
    write_memory(project, "use-pnpm", "Use pnpm, never npm")
    result = run("recall", "kubernetes")
    assert (result.code, result.out, result.err) == (
        0,
        "",
        "no active memory matches 'kubernetes': try other words (recall matches words, not meaning) or `gitmem list`\n",
    )
    assert run("recall", "kubernetes", "--json").out == "[]\n"


# -- what is recalled ------------------------------------------------------------------------------------------------


def test_only_live_memories_are_recalled(project: Path, run: Run) -> None:
    yesterday = (date.today() - timedelta(days=1)).isoformat()
    tomorrow = (date.today() + timedelta(days=1)).isoformat()
    write_memory(project, "active-one", "Deploy with the release workflow")
    write_memory(project, "proposed-one", "Deploy on Fridays", status="proposed")
    write_memory(project, "retired-one", "Deploy by hand with rsync", status="retired")
    write_memory(project, "expired-one", "Deploy from the old Jenkins", expires=yesterday)
    write_memory(project, "expiring-one", "Deploy freeze over the holidays", expires=tomorrow)
    assert sorted(recall_ids(run, "deploy", "-k", "10")) == ["active-one", "expiring-one"]


def test_path_boost_ranks_memories_scoped_to_the_file_first(project: Path, run: Run) -> None:
    write_memory(project, "api-tests", "Run the tests with pytest", paths=["api/**"])
    write_memory(project, "web-tests", "Run the tests with vitest", paths=["web/**"])
    write_memory(project, "all-tests", "Run the tests before pushing")
    web = json.loads(run("recall", "run the tests", "--json", "--path", "web/src/app.ts").out)
    assert web[0]["id"] == "web-tests" and web[0]["path_match"] is True
    assert [h["path_match"] for h in web[1:]] == [False, False]
    api = recall_ids(run, "run the tests", "--path", "api/app/main.py")
    assert api[0] == "api-tests"


def test_path_is_taken_relative_to_the_current_directory(
    project: Path, run: Run, monkeypatch: Any
) -> None:
    write_memory(project, "api-tests", "Run the tests with pytest", paths=["api/**"])
    write_memory(project, "web-tests", "Run the tests with vitest", paths=["web/**"])
    (project / "web" / "src").mkdir(parents=True)
    monkeypatch.chdir(project / "web" / "src")
    assert recall_ids(run, "run the tests", "--path", "app.ts")[0] == "web-tests"


# -- never stale -----------------------------------------------------------------------------------------------------


def test_index_follows_every_change_to_the_memory_files(project: Path, run: Run) -> None:
    write_memory(project, "use-pnpm", "Use pnpm, never npm")
    assert recall_ids(run, "pnpm") == ["use-pnpm"]
    # Changed at once, to the same size: only the racily-clean rule (re-reading recent files) can see this.
    write_memory(project, "use-pnpm", "Use bun!, never npm")
    assert recall_ids(run, "pnpm") == []
    assert recall_ids(run, "bun") == ["use-pnpm"]
    write_memory(project, "use-ruff", "Format with ruff")
    assert recall_ids(run, "ruff") == ["use-ruff"]
    (project / ".memory/memories/use-ruff.yaml").unlink()
    assert recall_ids(run, "ruff") == []
    write_memory(project, "use-pnpm", "Use bun!, never npm", status="retired")
    assert recall_ids(run, "bun") == []


def test_unchanged_files_are_not_read_again_and_changed_ones_are(
    project: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import time

    from gitmem.recall import index as module

    path = write_memory(project, "use-pnpm", "Use pnpm, never npm")
    write_memory(project, "use-ruff", "Format with ruff")
    index = RecallIndex(find_project(project))
    first = index.refresh()
    assert (first.read, first.checked) == (2, 2)
    # Just written, the files are "racily clean": they are read again (not re-checked) until a second has passed.
    second = index.refresh()
    assert (second.read, second.checked) == (2, 0)
    monkeypatch.setattr(
        module, "_now_ns", lambda: time.time_ns() + 5_000_000_000
    )  # ... and now it has
    assert index.refresh().read == 2
    assert (
        index.refresh().read == 0
    )  # trusted: nothing is read, one signature of every stat is compared
    path.write_text(path.read_text(encoding="utf-8").replace("pnpm,", "yarn!,"), encoding="utf-8")
    assert (index.refresh().read, index.refresh().read) == (1, 0)
    assert [h.memory.id for h in index.search(["yarn"], 5, date.today())] == ["use-pnpm"]
    (project / ".memory/memories/use-ruff.yaml").unlink()
    assert index.refresh().removed == 1
    assert index.search(["ruff"], 5, date.today()) == []
    index.close()


def test_a_kept_listing_is_taken_again_only_while_the_folder_is_unchanged(
    project: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The warm refresh takes the folder's last listing again when the folder's stat is the one
    kept with it; a name added, removed or renamed (even with the folder's mtime put back) lists it
    again."""
    import time

    from gitmem.recall import files
    from gitmem.recall import index as module

    listings: list[int] = []
    listed = files.listed

    def counting(folder: Any) -> list[str]:
        listings.append(1)
        return listed(folder)

    monkeypatch.setattr(files, "listed", counting)
    folder = project / ".memory/memories"
    write_memory(project, "use-pnpm", "Use pnpm, never npm")
    index = RecallIndex(find_project(project))
    try:
        index.refresh()  # just changed: the folder's stat is racily clean, nothing kept
        index.refresh()
        assert len(listings) == 2
        monkeypatch.setattr(module, "_now_ns", lambda: time.time_ns() + 5_000_000_000)
        index.refresh()  # listed, and the listing kept
        listings.clear()
        assert index.refresh().read == 0 and listings == []

        def ids(term: str) -> list[str]:
            index.refresh()
            return [h.memory.id for h in index.search([term], 5, date.today())]

        before = folder.stat()
        write_memory(project, "use-ruff", "Format with ruff")
        os.utime(folder, ns=(before.st_atime_ns, before.st_mtime_ns))  # the ctime still moves
        assert ids("ruff") == ["use-ruff"] and listings == [1]
        (folder / "use-ruff.yaml").rename(folder / "use-black.yaml")
        assert ids("ruff") == [] and len(listings) == 2
        (folder / "use-pnpm.yaml").unlink()
        assert ids("pnpm") == [] and len(listings) == 3
        listings.clear()
        assert ids("pnpm") == [] and listings == []  # kept again once written
    finally:
        index.close()


def test_invalid_files_are_left_out_with_a_warning(project: Path, run: Run) -> None:
    write_memory(project, "use-pnpm", "Use pnpm, never npm")
    (project / ".memory/memories/broken.yaml").write_text(
        "id: broken\ntitle: npm is broken\nkind: rumour\n"
    )
    result = run("recall", "npm", "--json")
    assert result.code == 0
    assert [h["id"] for h in json.loads(result.out)] == ["use-pnpm"]
    assert result.err == (
        "warning: .memory/memories/broken.yaml:1:1: status: required field is missing (invalid memory file left "
        "out of recall; see `gitmem validate`)\n"
    )
    again = run("recall", "npm", "--json")  # from the index this time: the warning stays
    assert again.err == result.err


def test_a_link_to_nothing_is_left_out_with_a_warning_until_its_file_exists(
    project: Path, run: Run
) -> None:
    """A committed link whose file was not committed: recall says so, as `validate` does, and
    finds the memory once the file is there."""
    write_memory(project, "use-pnpm", "Use pnpm, never npm")
    kept = write_memory(project, "use-ruff", "Format with ruff")
    target = project / "shared" / "use-ruff.yaml"
    target.parent.mkdir()
    kept.rename(target)
    (project / ".memory/memories/use-ruff.yaml").symlink_to(Path("../../shared/use-ruff.yaml"))
    target.rename(project / "elsewhere.yaml")
    for _ in range(2):  # found by the refresh, then kept in the index
        result = run("recall", "npm", "--json")
        assert [h["id"] for h in json.loads(result.out)] == ["use-pnpm"]
        assert result.err == (
            "warning: .memory/memories/use-ruff.yaml:1:1: file: a link to a file that does not "
            "exist (invalid memory file left out of recall; see `gitmem validate`)\n"
        )
    (project / "elsewhere.yaml").rename(target)
    result = run("recall", "ruff", "--json")
    assert [h["id"] for h in json.loads(result.out)] == ["use-ruff"] and result.err == ""


def test_a_corrupt_index_is_rebuilt(project: Path, run: Run) -> None:
    write_memory(project, "use-pnpm", "Use pnpm, never npm")
    assert recall_ids(run, "pnpm") == ["use-pnpm"]
    db = project / ".git/gitmem/recall.sqlite3"
    for suffix in ("-wal", "-shm"):
        Path(f"{db}{suffix}").unlink(missing_ok=True)
    db.write_bytes(b"this is not a database" * 100)
    assert recall_ids(run, "pnpm") == ["use-pnpm"]


def test_recall_works_when_the_cache_directory_cannot_be_written(project: Path, run: Run) -> None:
    write_memory(project, "use-pnpm", "Use pnpm, never npm")
    (project / ".git/gitmem").write_text("a file where the cache directory should be")
    assert recall_ids(run, "pnpm") == ["use-pnpm"]


# -- errors ----------------------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (
            ("?!",),
            "error: nothing to search for: give a few words, e.g. gitmem recall 'how do we run the tests'\n",
        ),
        (
            ("npm", "--path", "/elsewhere/x.py"),
            "error: --path '/elsewhere/x.py' is outside the repository\n",
        ),
    ],
)
def test_usage_errors(project: Path, run: Run, args: tuple[str, ...], message: str) -> None:
    result = run("recall", *args)
    assert (result.code, result.err) == (2, message)


def test_recall_outside_a_git_repository_cannot_run(
    tmp_path: Path, run: Run, monkeypatch: Any
) -> None:
    monkeypatch.chdir(tmp_path)
    result = run("recall", "npm")
    assert result.code == 3


# -- pieces ----------------------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("query", "terms"),
    [
        ("How do we run the tests?", ["run", "tests"]),
        (
            "what is it",
            ["what", "is", "it"],
        ),  # only stop words: search for them rather than nothing
        ("pnpm pnpm PNPM", ["pnpm"]),
        ("test_merge.py fails", ["test_merge", "py", "fails"]),
        ("Node 20 or 22", ["node", "20", "22"]),
    ],
)
def test_query_terms(query: str, terms: list[str]) -> None:
    assert query_terms(query) == terms


@pytest.mark.parametrize(
    ("pattern", "path", "expected"),
    [
        ("web/**", "web/src/app.ts", True),
        ("web/**", "web", False),  # a file named web is not under web/
        ("web/**", "webapp/x.ts", False),
        ("web", "web/src/app.ts", True),
        ("web/", "web/src/app.ts", True),
        ("*.py", "api/app/main.py", True),
        ("*.py", "api/app/main.pyc", False),
        ("api/*.py", "api/main.py", True),
        ("api/*.py", "api/app/main.py", False),
        ("api/**/*.py", "api/main.py", True),
        ("api/**/*.py", "api/app/deep/main.py", True),
        ("src/[ab]*.ts", "src/app.ts", True),
        ("src/[!ab]*.ts", "src/app.ts", False),
        ("api/Dockerfile", "api/Dockerfile", True),
        ("api/Dockerfile", "api/Dockerfile.dev", False),
        ("docs/?.md", "docs/a.md", True),
    ],
)
def test_glob_matching(pattern: str, path: str, expected: bool) -> None:
    assert matches(pattern, path) is expected


def test_live_memories_are_found_below_many_better_matching_retired_ones(
    project: Path, run: Run
) -> None:
    for number in range(30):
        write_memory(
            project, f"old-{number}", f"Deploy deploy deploy the old way {number}", status="retired"
        )
    write_memory(
        project, "deploy-now", "Deploy with the release workflow and a long explanation of why"
    )
    assert recall_ids(run, "deploy", "-k", "1") == ["deploy-now"]


def test_a_locked_index_does_not_stop_recall_or_make_it_stale(
    project: Path, run: Run, monkeypatch: pytest.MonkeyPatch
) -> None:
    import sqlite3

    from gitmem.recall import index

    write_memory(project, "use-pnpm", "Use pnpm, never npm")
    assert recall_ids(run, "pnpm") == ["use-pnpm"]
    monkeypatch.setattr(index, "LOCK_TIMEOUT", 0.05)
    other = sqlite3.connect(project / ".git/gitmem/recall.sqlite3", isolation_level=None)
    other.execute("BEGIN IMMEDIATE")  # another process is writing the index, and takes its time
    try:
        write_memory(project, "use-pnpm", "Use bun!, never npm")
        assert recall_ids(run, "bun") == ["use-pnpm"]
    finally:
        other.execute("ROLLBACK")
        other.close()
    assert recall_ids(run, "bun") == ["use-pnpm"]


def test_a_warm_refresh_never_waits_for_another_writer_to_keep_its_listing(
    project: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Keeping the listing is a note that saves time. While another process holds the index's
    write lock (a compile indexing 10,000 memories), the prompt's refresh answers without it, and
    keeps it once the lock is free; it does not wait LOCK_TIMEOUT (here an hour) for it."""
    import sqlite3
    import threading
    import time

    from gitmem.recall import index as module

    monkeypatch.setattr(module, "LOCK_TIMEOUT", 3600.0)
    write_memory(project, "use-pnpm", "Use pnpm, never npm")
    monkeypatch.setattr(module, "_now_ns", lambda: time.time_ns() + 5_000_000_000)
    first = RecallIndex(find_project(project))
    first.refresh()  # indexed; the listing kept
    first.conn.execute("DELETE FROM info WHERE key IN ('listed', 'names')")
    first.close()
    other = sqlite3.connect(first.path, isolation_level=None)
    answers: list[tuple[object, str, int]] = []

    def prompt() -> None:  # the index opened and refreshed in a thread of its own
        index = RecallIndex(find_project(project))
        try:
            refreshed = index.refresh()
            (timeout,) = index.conn.execute("PRAGMA busy_timeout").fetchone()
            answers.append((refreshed, index._info("listed"), timeout))
        finally:
            index.close()

    try:
        other.execute("BEGIN IMMEDIATE")  # another process writing
        worker = threading.Thread(target=prompt, daemon=True)
        worker.start()
        worker.join(60)
        assert not worker.is_alive(), "the refresh waited for the other writer"
        # answered; the listing not kept; the index's own writes still wait as long as before
        assert answers == [(module.Refreshed(), "", 3_600_000)]
        other.execute("ROLLBACK")
        prompt()
        assert answers[-1][1] != ""  # kept once the lock is free
    finally:
        other.close()
