"""The client tests run only where the pinned clients are installed (``python tests/clients/install.py``; CI does it
in .ci/run). Elsewhere they are skipped at once; on CI (``CI`` set) a missing client is an error, not a skip."""

from __future__ import annotations

import os
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.clients import install
from tests.clients.fake_model import FakeModel

TESTS = Path(__file__).resolve().parent


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    mine = [item for item in items if Path(str(item.fspath)).resolve().is_relative_to(TESTS)]
    for item in mine:
        item.add_marker(pytest.mark.clients)
    missing = install.missing()
    if not missing or os.environ.get("CI"):
        return
    skip = pytest.mark.skip(
        reason=f"clients not installed (run `python tests/clients/install.py`): {missing[0]} ..."
    )
    for item in mine:
        item.add_marker(skip)


@pytest.fixture
def model() -> Iterator[FakeModel]:
    """The fake model server, recording; it calls gitmem's recall tool once per conversation, with ``pnpm``."""
    with FakeModel(tool_args={"query": "pnpm"}) as server:
        yield server


def sh(cwd: Path, *args: str) -> str:
    done = subprocess.run(args, cwd=cwd, capture_output=True, text=True, check=False)
    assert done.returncode == 0, f"{' '.join(args)} failed: {done.stderr}"
    return done.stdout
