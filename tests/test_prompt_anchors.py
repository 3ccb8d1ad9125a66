"""The prompt hook's paths and identifiers: a path deep in a service brings the memory scoped to the service's folder,
a rare identifier carries a match on its own, the prompt's component wins over near-identical memories of others,
and a body's code block keeps its lines. In a real repository, through the hook's own entry (``run``)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from gitmem.hook import inject
from gitmem.hook.run import run
from gitmem.recall import anchors
from tests.conftest import store_repo


@pytest.mark.parametrize(
    ("text", "paths"),
    [
        (
            "Fix services/billing/src/refunds/handler.py now",
            ["services/billing/src/refunds/handler.py"],
        ),
        ("Add an icon to web/src/icons/.", ["web/src/icons/"]),
        ("Look at ./api/app.py, then `infra/k8s/x.yaml`", ["api/app.py", "infra/k8s/x.yaml"]),
        ("Bump package.json", ["package.json"]),
        ("See https://example.com/a/b and ../outside/file.py", []),
        (
            "Use and/or, e.g. 3/4 of it",
            ["and/or"],
        ),  # a slash word is a path; no memory is scoped to it
        ("no paths at all here", []),
    ],
)
def test_paths_of_a_prompt(text: str, paths: list[str]) -> None:
    assert anchors.paths(text) == paths


@pytest.mark.parametrize(
    ("text", "identifiers"),
    [
        ("Call get_session() in the report", ["get_session"]),
        ("Why is CHECKOUT_V2_ENABLED off?", ["CHECKOUT_V2_ENABLED"]),
        ("Change an OrderSnapshot and a getUser call", ["OrderSnapshot", "getUser"]),
        ("Send X-Tenant-Id with it", ["X-Tenant-Id"]),
        ("Mask it with redact() first", ["redact"]),
        ("A plain Sentence with Capitals and a react-hook-form word", []),
        ("Edit web/src/app_main.py", []),  # a path, not an identifier
    ],
)
def test_identifiers_of_a_prompt(text: str, identifiers: list[str]) -> None:
    assert anchors.identifiers(text) == identifiers


def test_anchors_take_linear_time_on_a_hostile_prompt() -> None:
    # one enormous word, and very many short ones: bounded, no regex, no quadratic work
    assert anchors.paths("a/" * 200_000) == []
    assert len(anchors.identifiers("x_y " * 100_000)) <= anchors.MAX_ANCHORS
    assert len(anchors.paths("a/b " * 100_000)) <= anchors.MAX_ANCHORS


@pytest.mark.parametrize(
    ("glob", "level"), [("services/billing/**", 2), ("api/**", 1), ("**/*.py", 0), ("x/y/z", 3)]
)
def test_specificity(glob: str, level: int) -> None:
    assert anchors.specificity(glob) == level


MEMORIES: list[dict[str, Any]] = [
    {
        "id": "billing-tests",
        "title": "Run the billing tests with make test-billing",
        "paths": ["services/billing/**"],
    },
    {
        "id": "search-tests",
        "title": "Run the search tests with make test-search",
        "paths": ["services/search/**"],
    },
    {
        "id": "notify-tests",
        "title": "Run the notify tests with make test-notify",
        "paths": ["services/notify/**"],
    },
    {"id": "services-owner", "title": "Every service has an owning team", "paths": ["services/**"]},
    {
        "id": "db-session",
        "title": "Never keep a database handle in a module global",
        "body": "Open one with `with get_session() as s:` for each request.",
    },
    {
        "id": "retry",
        "title": "Use the shared retry helper for network calls",
        "body": "It adds jitter:\n\n```python\n@retry_with_backoff(attempts=5)\ndef call():\n    return fetch()\n```",
    },
    {"id": "unrelated", "title": "Commit messages follow Conventional Commits"},
]


@pytest.fixture(scope="module")
def repo(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return store_repo(tmp_path_factory.mktemp("anchors") / "repo", MEMORIES)


def _ask(root: Path, prompt: str, session: str, **more: Any) -> tuple[tuple[str, ...], str]:
    payload = {"session_id": session, "cwd": str(root), "prompt": prompt, **more}
    answer = run("prompt", "claude", json.dumps(payload).encode())
    text = (
        json.loads(answer.stdout)["hookSpecificOutput"]["additionalContext"]
        if answer.stdout
        else ""
    )
    return answer.keys, text


def test_a_file_deep_in_a_service_brings_the_services_memory(repo: Path) -> None:
    keys, _ = _ask(repo, "Fix the off-by-one in services/billing/src/refunds/handler.py", "deep")
    assert keys[0] == "billing-tests"
    assert (
        "search-tests" not in keys and "notify-tests" not in keys
    )  # other components' near-twins give way


def test_the_prompts_component_wins_over_near_identical_memories(repo: Path) -> None:
    keys, _ = _ask(repo, "Run the tests of services/search/src/query/parser.py", "component")
    assert keys[0] == "search-tests"
    assert "billing-tests" not in keys and "notify-tests" not in keys


def test_a_file_the_client_attached_counts_as_a_path_of_the_prompt(repo: Path) -> None:
    attached = [{"type": "file", "filePath": str(repo / "services/notify/src/email.py")}]
    keys, _ = _ask(repo, "why does this fail?", "attached", attachments=attached)
    assert keys and keys[0] == "notify-tests"
    outside = [{"type": "file", "filePath": "/etc/services/notify/x.py"}]
    assert _ask(repo, "why does this fail?", "outside", attachments=outside)[0] == ()


def test_a_rare_identifier_carries_a_match_on_its_own(repo: Path) -> None:
    keys, _ = _ask(repo, "Call get_session() inside the report generator", "identifier")
    assert keys == ("db-session",)


def test_an_injected_code_block_keeps_its_lines(repo: Path) -> None:
    keys, text = _ask(repo, "Wrap the call in retry_with_backoff", "code")
    assert keys == ("retry",)
    lines = text.splitlines()
    assert "  ```python" in lines and "  @retry_with_backoff(attempts=5)" in lines
    assert "      return fetch()" in lines  # the code's own indentation kept under the entry's


def test_unrelated_prompts_with_paths_inject_nothing(repo: Path) -> None:
    for number, prompt in enumerate(
        ["Rename x in utils.py", "Show me README.md", "What is 2/3 of 9?"]
    ):
        assert _ask(repo, prompt, f"quiet-{number}")[0] == ()


def test_a_cut_code_block_is_closed() -> None:
    memory = inject.Candidate(
        "m",
        inject.Memory(
            id="m",
            title="T",
            kind="fact",
            status="active",
            body="Do this:\n\n```\n" + "line\n" * 200 + "```",
        ),
        1.0,
        1,
    )
    entry = inject.render(memory, 400)
    assert entry is not None and len(entry) <= 400
    lines = entry.splitlines()
    assert lines[-2] == "  ```" and lines[-1].strip().startswith("…")
