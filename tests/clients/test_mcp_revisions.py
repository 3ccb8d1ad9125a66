"""Which MCP revision each real client speaks to `gitmem mcp`, and that each is served (issue 35): the server's input
is logged by a wrapper first on PATH, the client runs a session against the fake model, and recall is answered."""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

import pytest

from tests.clients.conftest import sh
from tests.clients.drivers import CLIENTS, run
from tests.clients.fake_model import FakeModel

# client -> (how it opens: the first request's method, the revision it asks for); measured with the pinned clients
OPENS = {
    "claude": ("server/discover", "2026-07-28"),  # Claude Code 2.1.332: the stateless revision
    "gemini": ("initialize", "2025-06-18"),  # Gemini CLI 0.61.0
    "opencode": ("initialize", "2025-11-25"),  # opencode 1.18.33
}
TARGETS = {"claude": "claude", "gemini": "gemini", "opencode": "agents"}


@pytest.mark.parametrize("client", sorted(OPENS))
def test_each_client_opens_at_its_revision_and_recall_is_answered(
    client: str, model: FakeModel, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    log = tmp_path / "server-input.jsonl"
    wrapper = tmp_path / "wrapper"
    wrapper.mkdir()
    real = Path(sys.executable).parent / "gitmem-cli"
    (wrapper / "gitmem-cli").write_text(
        f'#!/bin/sh\nif [ "$1" = mcp ]; then tee -a {log} | {real} "$@"; else exec {real} "$@"; fi\n'
    )
    (wrapper / "gitmem-cli").chmod(0o755)
    monkeypatch.setenv("PATH", f"{wrapper}{os.pathsep}{os.environ['PATH']}")
    repo = tmp_path / "repo"
    repo.mkdir()
    sh(repo, "git", "init", "-q", "-b", "main")
    sh(repo, "gitmem", "init", "--no-hooks", "--mcp", "--target", TARGETS[client])
    sh(repo, "gitmem", "add", "Use pnpm, never npm", "--body", "npm rewrites pnpm-lock.yaml.")
    sh(repo, "gitmem", "compile")
    session = run(
        CLIENTS[client],
        repo,
        "Which package manager? Check the project memory.",
        model,
        tmp_path / "home",
    )
    assert session.code == 0, session.err[-2000:]
    requests = [json.loads(line) for line in log.read_text().splitlines() if line.strip()]
    first = next(request for request in requests if "id" in request and "method" in request)
    method, revision = OPENS[client]
    params = first.get("params") or {}
    asked = params.get("protocolVersion") or (params.get("_meta") or {}).get(
        "io.modelcontextprotocol/protocolVersion"
    )
    assert (first["method"], asked) == (method, revision)
    calls = [
        r
        for r in requests
        if r.get("method") == "tools/call" and r["params"]["name"].endswith("recall")
    ]
    assert calls, f"{client} never called recall"
    answered = [
        request
        for request in session.main()
        if any("recall" in call for call in request.answered())
    ]
    assert answered and "] Use pnpm, never npm" in answered[0].text()
