from __future__ import annotations

import json
import time
from pathlib import Path

import pytest

from gitmem.errors import CannotRun
from gitmem.gateway import find_project
from gitmem.memory.config import load_config


def test_the_config_cache_never_returns_stale_data(project: Path) -> None:
    config = project / ".memory/config.yaml"
    config.write_text("version: 1\ntargets: [agents]\n", encoding="utf-8")
    time.sleep(1.1)  # only files a second old are cached (a racily clean file could change unseen)
    assert load_config(find_project()).targets == ("agents",)
    cache = json.loads((project / ".git/gitmem/config.json").read_text(encoding="utf-8"))
    assert cache["entries"]["config.yaml"][1]["targets"] == ["agents"]
    assert load_config(find_project()).targets == ("agents",)  # from the cache
    with config.open("r+", encoding="utf-8") as handle:  # same size, same inode
        handle.write("version: 1\ntargets: [gemini]\n")
    assert load_config(find_project()).targets == ("gemini",)


def test_an_invalid_config_is_never_cached(project: Path) -> None:
    config = project / ".memory/config.yaml"
    config.write_text("version: 1\ntargets: [nope]\n", encoding="utf-8")
    time.sleep(1.1)
    for _ in range(2):
        with pytest.raises(CannotRun) as info:
            load_config(find_project())
        assert "targets[0]: must be one of" in str(info.value)
    assert not (project / ".git/gitmem/config.json").exists()
