"""The memory's ``words``: what a teammate would say when it matters. Written by `gitmem add --word`, MCP `propose`
(tests/test_mcp.py) and journal harvest (a ``Words:`` line, which `/remember` asks for); checked by the schema;
shown in `gitmem diff` for review; matched like tags by recall and the prompt hook."""

from __future__ import annotations

import json
from pathlib import Path

from gitmem import yamlio
from gitmem.hook.run import run as hook_run
from gitmem.init.remember import INSTRUCTIONS
from gitmem.journal.harvest import take_words
from tests.conftest import Run, git

TITLE = "Run the integration suite with make itest"


def _add(run: Run, *words: str) -> None:
    args = [arg for word in words for arg in ("--word", word)]
    result = run(
        "add", TITLE, "--body", "It starts the stub servers first.", "--id", "itest", *args
    )
    assert result.code == 0, result.err


def test_recall_finds_a_memory_by_its_words_alone(project: Path, run: Run) -> None:
    _add(run, "tests hang", "build never finishes")
    stored = json.loads(run("show", "itest", "--json").out)
    assert stored["words"] == ["tests hang", "build never finishes"]
    found = json.loads(run("recall", "why does the build never finish", "--json").out)
    assert [hit["id"] for hit in found] == ["itest"]


def test_without_its_words_the_same_question_finds_nothing(project: Path, run: Run) -> None:
    _add(run)
    assert json.loads(run("recall", "why does the build never finish", "--json").out) == []


def test_the_prompt_hook_injects_a_paraphrase_through_the_words(project: Path, run: Run) -> None:
    _add(run, "tests hang", "build never finishes")
    directory = project / ".memory" / "memories"
    for number in range(20):  # other memories, so the index has a corpus to weigh words against
        data = {
            "id": f"other-{number}",
            "title": f"Rule {number} about naming modules",
            "kind": "fact",
            "status": "active",
        }
        (directory / f"other-{number}.yaml").write_text(yamlio.dump(data), encoding="utf-8")
    payload = {
        "session_id": "s",
        "cwd": str(project),
        "prompt": "the build never finishes and the tests hang",
    }
    assert hook_run("prompt", "claude", json.dumps(payload).encode()).keys == ("itest",)


def test_a_word_must_be_one_line(project: Path, run: Run) -> None:
    data = {
        "id": "bad",
        "title": "T",
        "kind": "fact",
        "status": "active",
        "words": ["fine", "two\nlines"],
    }
    path = project / ".memory" / "memories" / "bad.yaml"
    path.write_text(yamlio.dump(data), encoding="utf-8")
    result = run("validate")
    assert result.code == 1
    line = next(line for line in (result.out + result.err).splitlines() if "bad.yaml" in line)
    assert "words" in line and "one line" in line


def test_harvest_takes_the_words_line_of_an_item(project: Path, run: Run) -> None:
    log = (
        "# Session: tests\n\n## Difficulties\n- The integration suite hung until the stub servers were started first.\n"
        "  Words: tests hang, `build never finishes`, tests hang\n\n## Decisions\n\n## Conventions\n\n## To do\n"
    )
    stored = run("journal", "add", "-", "--date", "2026-05-01", "--json", input=log)
    assert stored.code == 0, stored.err
    result = run("journal", "harvest", json.loads(stored.out)["path"], "--json")
    assert result.code == 0, result.err
    (proposal,) = json.loads(result.out)["proposed"]
    memory = json.loads(run("show", proposal["id"], "--json").out)
    assert memory["words"] == ["tests hang", "build never finishes"]
    assert "Words:" not in memory["body"]


def test_take_words() -> None:
    assert take_words("why\n\nWords: a, b ,, c") == ("why", ("a", "b", "c"))
    assert take_words("no words here") == ("no words here", ())
    assert take_words("- words: x\nWords: y") == ("Words: y", ("x",))  # the first such line only


def test_remember_asks_for_the_words() -> None:
    assert "Words: " in INSTRUCTIONS and "teammate" in INSTRUCTIONS


def test_diff_shows_the_words_for_review(project: Path, run: Run) -> None:
    git(project, "add", ".")
    git(project, "commit", "-qm", "base")
    _add(run, "tests hang")
    result = run("diff")
    assert result.code == 0, result.err
    assert "words `tests hang`" in result.out
