from __future__ import annotations

import json
from collections.abc import Callable
from datetime import date, timedelta
from pathlib import Path
from typing import Any

import pytest

from gitmem import yamlio
from gitmem.checks.command import commands
from tests.conftest import Run

MEMORIES = Path(".memory/memories")
PAST = "2000-01-01"
FUTURE = "2999-01-01"


def on_path() -> str:
    """The line where doctor says which `gitmem` is on PATH (this one, in the tests' environment)."""
    return commands().describe()


def write(memory_id: str, title: str | None = None, **fields: Any) -> Path:
    """A memory file written as it is on disk (doctor reads what is there, however it got there)."""
    data = {
        "id": memory_id,
        "title": title or f"Memory {memory_id}",
        "kind": "fact",
        "status": "active",
        **fields,
    }
    path = MEMORIES / f"{memory_id}.yaml"
    path.write_text(yamlio.dump(data), encoding="utf-8")
    return path


def findings(run: Run, *args: str) -> tuple[int, list[dict[str, Any]]]:
    result = run("doctor", "--json", *args)
    return result.code, json.loads(result.out)["findings"]


def test_clean_store(project: Path, run: Run) -> None:
    write("one", "Deploys go through the release train")
    write("two", "Integration tests need a running database", review_after=FUTURE, expires=FUTURE)
    result = run("doctor")
    assert (result.code, result.out, result.err) == (
        0,
        f"{on_path()}\nok: 2 memories checked, nothing to report\n",
        "",
    )


def test_empty_store(project: Path, run: Run) -> None:
    result = run("doctor")
    assert (result.code, result.out) == (
        0,
        f"{on_path()}\nok: 0 memories checked, nothing to report\n",
    )


def test_not_initialised(repo: Path, run: Run) -> None:
    result = run("doctor")
    assert result.code == 3
    assert result.err == f"error: no .memory/ in {repo}: run `gitmem init` first\n"


# Each finding: how to make it, then exactly what doctor says (code, severity, line, message, command).
def _expired() -> None:
    write("old-api", expires=PAST)


def _review() -> None:
    write("check-me", review_after=PAST)


def _broken() -> None:
    write("new-way", supersedes=["ghost"])


def _circle() -> None:
    write("a", supersedes=["b"], status="retired")
    write("b", supersedes=["c"])
    write("c", supersedes=["a"])


def _superseded_active() -> None:
    write("use-npm", "Install packages with npm")
    write("use-pnpm", "Install packages with pnpm, it is faster", supersedes=["use-npm"])


def _stale_proposal() -> None:
    # (dated from today when written, not when the module was imported: a run across midnight
    # counted one day more than the expectation built at import)
    created = date.today() - timedelta(days=DAYS)
    write("maybe", status="proposed", created=created.isoformat())


def _invalid() -> None:
    write("typo", colour="blue")


def _near_duplicate() -> None:
    write("pin-node", "Pin Node to version 20 in CI and locally")
    write("pin-node-20", "Pin Node to version 20 locally and in CI")


def _near_duplicate_proposal() -> None:
    write("pin-node", "Pin Node to version 20 in CI and locally", status="proposed")
    write("pin-node-20", "Pin Node to version 20 locally and in CI")


DAYS = 400  # how long the stale proposal has waited

CASES: list[tuple[str, Callable[[], None], dict[str, Any]]] = [
    (
        "expired-active",
        _expired,
        {
            "severity": "error",
            "id": "old-api",
            "path": ".memory/memories/old-api.yaml",
            "line": 5,
            "message": "old-api expired on 2000-01-01 but is still active (it is no longer compiled): retire it, "
            "or move its expiry date on with `gitmem edit`",
            "command": "gitmem retire old-api --reason 'expired on 2000-01-01'",
            "fixable": True,
        },
    ),
    (
        "review-due",
        _review,
        {
            "severity": "warning",
            "id": "check-me",
            "path": ".memory/memories/check-me.yaml",
            "line": 5,
            "message": "check-me was due for review after 2000-01-01: check it still holds, then move review_after "
            "on (or retire it)",
            "command": "gitmem edit check-me",
            "fixable": False,
        },
    ),
    (
        "supersedes-broken",
        _broken,
        {
            "severity": "error",
            "id": "new-way",
            "path": ".memory/memories/new-way.yaml",
            "line": 5,
            "message": "new-way supersedes ghost, which does not exist: correct the id, or remove it from supersedes",
            "command": "gitmem edit new-way",
            "fixable": False,
        },
    ),
    (
        "supersedes-circle",
        _circle,
        {
            "severity": "error",
            "id": "a",
            "path": ".memory/memories/a.yaml",
            "line": 5,
            "message": "supersedes chain is circular: a → b → c → a; a memory can only replace older ones",
            "command": "gitmem edit a",
            "fixable": False,
        },
    ),
    (
        "superseded-active",
        _superseded_active,
        {
            "severity": "warning",
            "id": "use-npm",
            "path": ".memory/memories/use-npm.yaml",
            "line": 4,
            "message": "use-npm is still active but use-pnpm supersedes it: retire it",
            "command": "gitmem retire use-npm --superseded-by use-pnpm",
            "fixable": False,
        },
    ),
    (
        "stale-proposal",
        _stale_proposal,
        {
            "severity": "warning",
            "id": "maybe",
            "path": ".memory/memories/maybe.yaml",
            "line": 4,
            "message": f"maybe has waited {DAYS} days for a decision (doctor.proposal_max_age_days is 30): accept "
            "it, or drop it with `gitmem forget maybe`",
            "command": "gitmem accept maybe",
            "fixable": False,
        },
    ),
    (
        "invalid-memory",
        _invalid,
        {
            "severity": "error",
            "id": "typo",
            "path": ".memory/memories/typo.yaml",
            "line": 5,
            "message": "‹c… (6 chars)›: unknown field",
            "command": "gitmem validate .memory/memories/typo.yaml",
            "fixable": False,
        },
    ),
    (
        "near-duplicate",
        _near_duplicate,
        {
            "severity": "warning",
            "id": "pin-node-20",
            "path": ".memory/memories/pin-node-20.yaml",
            "line": 2,
            "message": "pin-node-20 nearly duplicates pin-node (similarity 1.00): keep one (merge what pin-node-20 "
            "adds into pin-node) and retire the other",
            "command": "gitmem retire pin-node-20 --superseded-by pin-node",
            "fixable": False,
        },
    ),
    (
        "near-duplicate",
        _near_duplicate_proposal,
        {
            "severity": "warning",
            "id": "pin-node",
            "path": ".memory/memories/pin-node.yaml",
            "line": 2,
            "message": "pin-node nearly duplicates pin-node-20 (similarity 1.00): the proposal pin-node repeats "
            "pin-node-20: drop it (or merge what it adds into pin-node-20)",
            "command": "gitmem forget pin-node",
            "fixable": False,
        },
    ),
]


@pytest.mark.parametrize(
    ("code", "make", "expected"), CASES, ids=[f"{c[0]}-{c[1].__name__}" for c in CASES]
)
def test_each_finding(
    project: Path, run: Run, code: str, make: Callable[[], None], expected: dict[str, Any]
) -> None:
    make()
    exit_code, found = findings(run)
    assert found == [{"code": code, **expected}]
    assert exit_code == (1 if expected["severity"] == "error" else 0)
    strict = run("doctor", "--strict")
    assert strict.code == 1
    text = f"{expected['path']}:{expected['line']}: {expected['severity']}: {code}: {expected['message']}"
    assert strict.lines[:2] == [text, f"    run: {expected['command']}"]


def test_what_is_not_a_finding(project: Path, run: Run) -> None:
    write("expired-proposal", status="proposed", expires=PAST, created=date.today().isoformat())
    write("expired-retired", status="retired", expires=PAST, review_after=PAST)
    write(
        "fresh-proposal",
        "Something else entirely",
        status="proposed",
        created=date.today().isoformat(),
    )
    write("retired-duplicate", "Pin Node to version 20 in CI and locally", status="retired")
    write("pin-node", "Pin Node to version 20 in CI and locally")
    write("successor", "Another subject altogether", supersedes=["expired-retired"])
    assert findings(run) == (0, [])


def test_summary_line_and_exit_code(project: Path, run: Run) -> None:
    _expired()
    _review()
    result = run("doctor")
    assert result.code == 1
    assert (
        result.lines[-1]
        == "1 error, 1 warning in 2 memories; `gitmem doctor --fix` repairs 1 of them"
    )
    assert result.lines[0].startswith(
        ".memory/memories/old-api.yaml:5: error: expired-active: "
    )  # errors first


def test_warnings_only_pass_unless_strict(project: Path, run: Run) -> None:
    _review()
    assert run("doctor").code == 0
    assert run("doctor", "--strict").code == 1
    result = run("doctor", "--json", "--strict")
    assert result.code == 1
    assert json.loads(result.out)["summary"] == {
        "memories": 1,
        "errors": 0,
        "warnings": 1,
        "fixed": 0,
    }


def test_stale_proposal_age_is_configurable(project: Path, run: Run) -> None:
    write("recent", status="proposed", created=(date.today() - timedelta(days=10)).isoformat())
    assert findings(run) == (0, [])
    config = Path(".memory/config.yaml")
    config.write_text(config.read_text() + "doctor:\n  proposal_max_age_days: 7\n")
    _, found = findings(run)
    assert [(f["code"], f["id"]) for f in found] == [("stale-proposal", "recent")]
    assert (
        "has waited 10 days for a decision (doctor.proposal_max_age_days is 7)"
        in found[0]["message"]
    )


def test_similarity_threshold_is_configurable(project: Path, run: Run) -> None:
    write("tabs", "Indent Makefiles with tabs")
    write("tabs-go", "Indent Makefiles and Go files with tabs")
    assert findings(run) == (0, [])
    config = Path(".memory/config.yaml")
    config.write_text(config.read_text() + "doctor:\n  similarity: 0.7\n")
    _, found = findings(run)
    assert [(f["code"], f["id"], f["message"].split(":")[0]) for f in found] == [
        ("near-duplicate", "tabs-go", "tabs-go nearly duplicates tabs (similarity 0.75)")
    ]


def test_copies_of_one_memory_are_each_named_once_against_the_one_to_keep(
    project: Path, run: Run
) -> None:
    """A pull request of many copies of one memory: each copy is one warning naming the memory to
    keep, not one per pair (300 copies were 44,850 warnings, and 4,000 took doctor minutes)."""
    copies = [f"pin-node-{n:03}" for n in range(300)]
    for memory_id in copies:
        write(memory_id, "Pin Node to version 20 in CI and locally")
    write("pin-node-000", "Pin Node to version 20 in CI and locally", status="proposed")
    _, found = findings(run)
    near = [(f["id"], f["message"].split(" (")[0]) for f in found if f["code"] == "near-duplicate"]
    # the proposal goes rather than an accepted memory; else the later id
    assert sorted(near) == sorted(
        (copy, f"{copy} nearly duplicates pin-node-001")
        for copy in copies
        if copy != "pin-node-001"
    )


def test_broken_chain_is_reported_once(project: Path, run: Run) -> None:
    write("new-way", supersedes=["exists", "ghost"])
    write("exists", status="retired")
    _, found = findings(run)
    assert [(f["code"], f["line"]) for f in found] == [("supersedes-broken", 5)]
    assert "supersedes ghost," in found[0]["message"]


def test_two_memories_superseding_each_other(project: Path, run: Run) -> None:
    write("left", supersedes=["right"])
    write("right", supersedes=["left"])
    _, found = findings(run)
    # The circle is the error; "still active but superseded" would only repeat it.
    assert [(f["code"], f["message"].split(";")[0]) for f in found] == [
        ("supersedes-circle", "supersedes chain is circular: left → right → left")
    ]


def test_invalid_file_every_problem(project: Path, run: Run) -> None:
    (MEMORIES / "bad.yaml").write_text(
        "id: bad\ntitle: x\nkind: fact\nstatus: maybe\n", encoding="utf-8"
    )
    (MEMORIES / "worse.yaml").write_text("id: [unclosed\n", encoding="utf-8")
    (MEMORIES / "notes.txt").write_text("stray\n", encoding="utf-8")
    write("fine")
    code, found = findings(run)
    assert code == 1
    assert [(f["code"], f["id"], f["path"], f["line"], f["command"]) for f in found] == [
        (
            "invalid-memory",
            "bad",
            ".memory/memories/bad.yaml",
            4,
            "gitmem validate .memory/memories/bad.yaml",
        ),
        ("invalid-memory", None, ".memory/memories/notes.txt", 1, None),
        (
            "invalid-memory",
            "worse",
            ".memory/memories/worse.yaml",
            2,
            "gitmem validate .memory/memories/worse.yaml",
        ),
    ]
    assert (
        found[0]["message"]
        == "status: must be one of proposed, active, retired, not other text (5 characters)"
    )
    assert found[1]["message"] == "file: not a memory file: memories are named ID.yaml"
    assert json.loads(run("doctor", "--json").out)["summary"]["memories"] == 3


# -- evidence ------------------------------------------------------------------------------------------------------


@pytest.fixture
def cited(project: Path, run: Run) -> Path:
    """A memory added with `gitmem add --evidence notes.txt:2-3`: what it stores is what doctor checks against."""
    notes = project / "notes.txt"
    notes.write_text("one\ntwo\nthree\nfour\n")
    result = run("add", "Keep notes short", "--id", "short-notes", "--evidence", "notes.txt:2-3")
    assert result.code == 0, result.err
    return notes


def test_evidence_unchanged(cited: Path, run: Run) -> None:
    cited.write_text(cited.read_text() + "five\n")  # lines after the citation do not matter
    assert findings(run) == (0, [])


def test_evidence_file_gone(cited: Path, run: Run) -> None:
    cited.unlink()
    code, found = findings(run)
    assert code == 1
    assert [(f["code"], f["severity"], f["line"], f["command"]) for f in found] == [
        ("evidence-missing", "error", 7, "gitmem edit short-notes")
    ]
    assert found[0]["message"] == (
        "evidence[0] cites notes.txt, which no longer exists: check short-notes still holds, then update or remove "
        "the citation (or retire the memory)"
    )


def test_evidence_lines_gone(cited: Path, run: Run) -> None:
    cited.write_text("only\n")
    code, found = findings(run)
    assert code == 1
    assert [(f["code"], f["message"]) for f in found] == [
        (
            "evidence-missing",
            "evidence[0] cites lines 2-3 of notes.txt, which now has 1 line(s): check short-notes still holds, "
            "then update the citation",
        )
    ]


def test_evidence_changed(cited: Path, run: Run) -> None:
    cited.write_text("one\nTWO\nthree\nfour\n")
    code, found = findings(run)
    assert code == 0
    assert [(f["code"], f["severity"], f["command"]) for f in found] == [
        ("evidence-changed", "warning", "gitmem doctor --refresh-evidence short-notes")
    ]
    assert found[0]["message"] == (
        "evidence[0]: notes.txt:2-3 changed since it was cited: check short-notes still holds "
        "(`git log -p -- notes.txt` shows what changed), then record the citation again"
    )
    result = run("doctor", "--refresh-evidence", "short-notes")
    assert result.code == 0
    assert result.lines == [
        "fixed: .memory/memories/short-notes.yaml: evidence[0] of short-notes: recorded again",
        on_path(),
        "ok: 1 memory checked, nothing to report",
    ]
    assert findings(run) == (0, [])


def test_evidence_moved_is_fixed(cited: Path, run: Run) -> None:
    cited.write_text("zero\nminus one\none\ntwo\nthree\nfour\n")
    code, found = findings(run)
    assert code == 0
    assert [(f["code"], f["message"], f["fixable"]) for f in found] == [
        (
            "evidence-moved",
            "evidence[0]: the lines cited from notes.txt:2-3 are unchanged but now at lines 4-5",
            True,
        )
    ]
    result = run("doctor", "--fix")
    assert result.code == 0
    assert result.lines == [
        "fixed: .memory/memories/short-notes.yaml: evidence[0] of short-notes: notes.txt lines 2-3 → 4-5",
        on_path(),
        "ok: 1 memory checked, nothing to report",
    ]
    assert "    lines: 4-5\n" in (MEMORIES / "short-notes.yaml").read_text()


def test_evidence_whole_file_and_outside_repository(
    project: Path, run: Run, tmp_path: Path
) -> None:
    (project / "README.txt").write_text("read me\n")
    assert run("add", "Read the readme", "--id", "readme", "--evidence", "README.txt").code == 0
    outside = tmp_path / "outside.txt"
    outside.write_text("secret plans\n")
    (project / "link.txt").symlink_to(outside)
    write("escapes", evidence=[{"path": "link.txt"}])
    (project / "README.txt").write_text("read me, please\n")
    _, found = findings(run)
    assert [(f["code"], f["id"]) for f in found] == [
        ("evidence-missing", "escapes"),
        ("evidence-changed", "readme"),
    ]


def test_refresh_refused_while_a_citation_is_gone(cited: Path, run: Run) -> None:
    before = (MEMORIES / "short-notes.yaml").read_text()
    cited.unlink()
    result = run("doctor", "--refresh-evidence", "short-notes")
    assert result.code == 2
    assert result.err == (
        "error: short-notes: evidence[0] (notes.txt) no longer exists: update the citation with "
        "`gitmem edit short-notes` first\n"
    )
    assert (MEMORIES / "short-notes.yaml").read_text() == before
    assert (
        run("doctor", "--refresh-evidence", "nope").err
        == "error: no memory 'nope'; `gitmem list` shows the ids\n"
    )


def test_evidence_of_retired_memories_is_not_checked(cited: Path, run: Run) -> None:
    assert run("retire", "short-notes").code == 0
    cited.unlink()
    assert findings(run) == (0, [])


# -- --fix ---------------------------------------------------------------------------------------------------------


def test_fix_retires_expired_memories(project: Path, run: Run) -> None:
    write("old-api", expires=PAST)
    write("older-api", "Another expired thing", expires="1999-12-31")
    _review()
    result = run("doctor", "--fix")
    assert result.code == 0  # what is left is a warning
    assert result.lines[:2] == [
        "fixed: .memory/memories/old-api.yaml: retired old-api (expired on 2000-01-01)",
        "fixed: .memory/memories/older-api.yaml: retired older-api (expired on 1999-12-31)",
    ]
    assert result.lines[-1] == "0 errors, 1 warning in 3 memories"
    shown = json.loads(run("show", "old-api", "--json").out)
    assert (shown["status"], shown["retired"], shown["reason"]) == (
        "retired",
        date.today().isoformat(),
        "expired on 2000-01-01",
    )
    again = run("doctor", "--fix", "--json")
    assert json.loads(again.out)["fixed"] == []


def test_fix_json_reports_what_it_did(project: Path, run: Run) -> None:
    write("old-api", expires=PAST)
    result = run("doctor", "--fix", "--json")
    assert result.code == 0
    data = json.loads(result.out)
    assert data["fixed"] == [
        {
            "id": "old-api",
            "path": ".memory/memories/old-api.yaml",
            "action": "retired old-api (expired on 2000-01-01)",
        }
    ]
    assert data["findings"] == []


def test_fix_leaves_errors_it_cannot_fix(project: Path, run: Run) -> None:
    write(
        "new-way", supersedes=["ghost"], expires=PAST
    )  # expired, but retiring it would write an invalid file
    before = (MEMORIES / "new-way.yaml").read_text()
    result = run("doctor", "--fix")
    assert result.code == 1
    assert not any(line.startswith("fixed") for line in result.lines)
    assert result.lines[-1] == "2 errors, 0 warnings in 1 memory"
    assert (MEMORIES / "new-way.yaml").read_text() == before


def test_help_has_an_example(run: Run) -> None:
    result = run("doctor", "--help")
    assert result.code == 0
    assert "gitmem doctor --fix" in result.out


@pytest.mark.parametrize(
    ("graph", "circles"),
    [
        ({"a": ["b"], "b": []}, []),
        ({"a": ["b"], "b": ["a"]}, [["a", "b"]]),
        (
            {"a": ["b"], "b": ["c"], "c": ["a", "d"], "d": ["e"], "e": ["d"]},
            [["a", "b", "c"], ["d", "e"]],
        ),
        # A long chain: the search is iterative, so no recursion limit is hit.
        (
            {f"m{i}": [f"m{i + 1}"] for i in range(5000)} | {"m5000": ["m0"]},
            [sorted(f"m{i}" for i in range(5001))],
        ),
        ({f"m{i}": [f"m{i + 1}"] for i in range(5000)} | {"m5000": []}, []),
    ],
)
def test_circles_in_supersedes_graphs(
    graph: dict[str, list[str]], circles: list[list[str]]
) -> None:
    from gitmem.checks.chains import _strongly_connected

    found = sorted(c for c in _strongly_connected(graph) if len(c) > 1)
    assert found == circles


def test_target_over_budget_is_a_warning(project: Path, run: Run) -> None:
    (project / ".memory" / "config.yaml").write_text("version: 1\ntargets: [agents]\nbudget: 60\n")
    write("first", "Deploys go through the release train", priority="high")
    write(
        "second", "Integration tests need a running database", body="Start it with `make db`." * 4
    )
    write(
        "third",
        "Feature flags live in flags.yaml",
        priority="low",
        body="Never hard-code a flag." * 4,
    )
    code, found = findings(run)
    assert code == 0
    (budget,) = [f for f in found if f["code"] == "over-budget"]
    assert budget["severity"] == "warning"
    assert budget["path"] == ".memory/config.yaml"
    assert budget["message"].startswith("target agents is over its budget of 60 tokens: ")
    assert "third" in budget["message"]
    assert budget["command"] == "gitmem stats"
    assert run("doctor", "--strict").code == 1


# -- near-duplicates must mean the same thing (issue 23): what an import of deno's rules gave doctor ---------------

LEAD = (
    "Listed under: PR titles are validated by CI (see `.github/workflows/pr.ts`). The title must follow "
    "Conventional Commits and start with one of these prefixes:"
)


def test_rules_that_read_alike_but_say_different_things_are_not_near_duplicates(
    project: Path, run: Run
) -> None:
    # different commands
    write(
        "insta-accept",
        "Review snapshots, then run `cargo insta accept` to keep the new ones",
        kind="convention",
    )
    write(
        "insta-reject",
        "Review snapshots, then run `cargo insta reject` to drop the new ones",
        kind="convention",
    )
    # antonyms
    write(
        "minor-bump",
        "A new lint rule in the nursery group is a minor version bump",
        kind="convention",
    )
    write(
        "major-bump",
        "A new lint rule in the nursery group is a major version bump",
        kind="convention",
    )
    # a negation
    write(
        "target-next", "A change that affects end users goes to the next branch", kind="convention"
    )
    write(
        "target-main",
        "A change that doesn't affect end users goes to the next branch's main",
        kind="convention",
    )
    # items sharing only their lead-in (an enumeration of commit prefixes)
    for prefix, meaning in (
        ("ci", "CI changes"),
        ("docs", "documentation"),
        ("perf", "performance improvements"),
    ):
        write(f"prefix-{prefix}", f"`{prefix}:` — {meaning}", kind="convention", body=LEAD)
    # and a real near-duplicate still is one
    write("pin-node", "Pin Node to version 20 in CI and locally")
    write("pin-node-20", "Pin Node to version 20 locally and in CI")
    _, found = findings(run)
    pairs = [f["message"].split()[0] for f in found if f["code"] == "near-duplicate"]
    assert pairs == ["pin-node-20"], [f["message"] for f in found]


def test_doctor_says_which_gitmem_is_on_path_and_warns_when_it_is_another_program(
    project: Path, run: Run, tmp_path: Path
) -> None:
    """Another memory tool installs a `gitmem` command (dev-boz/gitmem): first on PATH, typing `gitmem` runs it.
    doctor names it; with the repository's hooks set up and no `gitmem-cli` on PATH, it says the hooks will fail."""
    import os

    other = tmp_path / "other-bin" / "gitmem"
    other.parent.mkdir()
    other.write_text("#!/bin/sh\necho 'another gitmem'\n")
    other.chmod(0o755)
    path = f"{other.parent}{os.pathsep}{os.environ['PATH']}"
    text = run("doctor", env={"PATH": path})
    assert text.code == 0, text.out
    assert f"`gitmem` on PATH: {other} (another program)" in text.lines
    data = json.loads(run("doctor", "--json", env={"PATH": path}).out)
    assert data["command"]["gitmem"] == str(other) and data["command"]["ours"] is False
    assert [(f["code"], f["severity"], f["path"]) for f in data["findings"]] == [
        ("foreign-gitmem", "warning", str(other))
    ]
    assert run("doctor", "--strict", env={"PATH": path}).code == 1
    # The hooks run gitmem-cli: without it on PATH they fail on every commit.
    (project / ".pre-commit-config.yaml").write_text(
        "repos:\n- repo: local\n  hooks:\n  - id: gitmem-scan\n    name: scan\n    entry: gitmem-cli scan --staged\n"
        "    language: system\n"
    )
    bare = f"{other.parent}{os.pathsep}/usr/bin{os.pathsep}/bin"
    codes = [
        f["code"] for f in json.loads(run("doctor", "--json", env={"PATH": bare}).out)["findings"]
    ]
    assert sorted(codes) == ["foreign-gitmem", "no-gitmem-cli"]
    assert [
        f["code"] for f in json.loads(run("doctor", "--json").out)["findings"]
    ] == []  # this gitmem's PATH
