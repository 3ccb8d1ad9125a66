"""A link at any level of a client store's path cannot move the store's root (issue 32, point 3).

Every place of every client's store (``gitmem.clientstores.LAYOUTS``, so a new layout is covered as soon as it is
written) is built twice: as it is, where its memory is read, and with a symbolic link at each level of its path
below its root (the repository for a store inside it, the client's folder at home) leading to the same store
elsewhere. Then neither the reader (``gitmem.importing.stores.read_place``) nor the listing the session status and the
import's record use (``gitmem.clientstores.listing``) may see what is behind the link.
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable
from pathlib import Path

import pytest

from gitmem import clientstores
from gitmem.importing.stores import read_place
from gitmem.memory.store import Store
from gitmem.project import Project
from tests.conftest import Run, git

MARK = "Quokka-behind-the-link"  # a word only in the store a link leads to
ENVS: tuple[dict[str, str], ...] = ({}, {"QWEN_CODE_MEMORY_LOCAL": "1"})


def _no_setup(root: Path, home: Path) -> None:
    return None


def _registry(root: Path, home: Path) -> None:
    """Gemini CLI's store exists for a folder only once its registry names it."""
    gemini = home / ".gemini"
    (gemini / "tmp" / "repo").mkdir(parents=True, exist_ok=True)
    (gemini / "projects.json").write_text(json.dumps({"projects": {str(root): "repo"}}))
    (gemini / "tmp" / "repo" / ".project_root").write_text(str(root))


# What each layout needs before its places exist. Every layout must be here: a new one is tested from the start.
SETUP: dict[str, Callable[[Path, Path], None]] = {
    "auto-memory": _no_setup,
    "git-root-memory": _no_setup,
    "registry": _registry,
    "task-groups": _no_setup,
}


def _seed(place: clientstores.Place, path: Path, root: Path) -> None:
    """A store of ``place``'s format at ``path`` holding one memory that names ``MARK``."""
    if place.format == "typed":
        path.mkdir(parents=True, exist_ok=True)
        text = f"---\nname: quokka\ndescription: {MARK} is how releases are cut\ntype: project\n---\n\n{MARK}.\n"
        (path / "project_quokka.md").write_text(text)
    elif place.format == "notes":
        path.mkdir(parents=True, exist_ok=True)
        (path / "MEMORY.md").write_text(f"# Notes\n\n- {MARK} is how releases are cut\n")
    elif place.format == "task-groups":
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(
            f"# Task Group: releases\napplies_to: cwd={root}\n\n## Reusable knowledge\n\n"
            f"- {MARK} is how releases are cut\n"
        )
    elif place.format == "raw-memories":
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(
            f"## Thread `t1`\ncwd: {root}\n\nReusable knowledge:\n- {MARK} is how releases are cut\n"
        )
    else:
        assert place.format == "section", place.format
        path.parent.mkdir(parents=True, exist_ok=True)
        heading = "## Qwen Added Memories" if place.client == "qwen" else "## Gemini Added Memories"
        path.write_text(f"# Mine\n\n{heading}\n- {MARK} is how releases are cut\n")


def _cases() -> list[tuple[str, int, int, str]]:
    """(client, env index, place index, label) of every place of every store, as built in a scratch folder."""
    import tempfile

    cases = []
    with tempfile.TemporaryDirectory() as scratch:
        root, home = Path(scratch) / "repo", Path(scratch) / "home"
        root.mkdir()
        for store in clientstores.STORES:
            SETUP[store.layout](root, home)
            for number, env in enumerate(ENVS):
                for index, place in enumerate(clientstores.places(store.name, root, home, env)):
                    case = (store.name, number, index, place.label)
                    if (
                        number == 0 or not place.in_home
                    ):  # (the second environment: the stores inside)
                        cases.append(case)
    return cases


def test_every_layout_has_its_setup() -> None:
    assert set(SETUP) == set(clientstores.LAYOUTS)


def _levels(tmp_path: Path, client: str, env: dict[str, str], index: int) -> int:
    root, home = tmp_path / "probe" / "repo", tmp_path / "probe" / "home"
    root.mkdir(parents=True)
    SETUP[clientstores.store_of(client).layout](root, home)
    place = clientstores.places(client, root, home, env)[index]
    return len(place.path.relative_to(place.root).parts)


@pytest.mark.parametrize(("client", "env", "index", "label"), _cases())
def test_a_link_at_any_level_of_a_store_path_is_not_followed(
    tmp_path: Path, client: str, env: int, index: int, label: str
) -> None:
    environment = ENVS[env]
    for level in range(_levels(tmp_path, client, environment, index) + 1):
        case = tmp_path / f"level{level}"
        root, home, elsewhere = case / "repo", case / "home", case / "elsewhere"
        root.mkdir(parents=True)
        SETUP[clientstores.store_of(client).layout](root, home)
        place = clientstores.places(client, root, home, environment)[index]
        assert place.label == label
        parts = place.path.relative_to(place.root).parts
        if level == 0:  # no link: the store is read (the seed is a memory the reader takes)
            _seed(place, place.path, root)
        else:  # a link at this level leads to the same store outside the root
            mirror = elsewhere.joinpath(*parts)
            _seed(place, mirror, root)
            linked = place.root.joinpath(*parts[:level])
            linked.parent.mkdir(parents=True, exist_ok=True)
            if linked.exists():  # (a folder the setup made: moved behind the link)
                os.rename(linked, elsewhere.joinpath(*parts[:level]).with_name("setup"))
            linked.symlink_to(
                elsewhere.joinpath(*parts[:level]), target_is_directory=level < len(parts)
            )
        read = read_place(place, root)
        texts = " ".join(entry.text for entry in read.entries)
        listed = [path for path, _ in clientstores.listing(place)]
        if level == 0:
            assert MARK in texts, (client, label)
            assert listed, (client, label)
            continue
        assert MARK not in texts, (client, label, "/".join(parts[:level]))
        assert read.refused, (client, label, "/".join(parts[:level]))
        # a listing names a link as it is (its own lstat), never what is behind one
        behind = [
            p
            for p in listed
            if not p.is_symlink() and os.path.realpath(p).startswith(str(elsewhere))
        ]
        assert behind == [], (client, label, "/".join(parts[:level]))


def test_a_committed_qwen_link_to_another_checkout_imports_nothing(
    project: Path, run: Run, tmp_path: Path
) -> None:
    other = tmp_path / "other-checkout"
    team = other / ".qwen" / "team-memory"
    team.mkdir(parents=True)
    text = f"---\nname: quokka\ndescription: {MARK} is how releases are cut\ntype: project\n---\n\n{MARK}.\n"
    (team / "project_quokka.md").write_text(text)
    (project / ".qwen").symlink_to(os.path.relpath(other / ".qwen", project))
    git(project, "add", ".qwen")
    git(project, "commit", "-qm", "A link to another checkout's store")
    result = run("import", "--from", "qwen", "--json")
    assert MARK not in result.out + result.err
    data = json.loads(result.out)
    assert data["memories"] == []
    assert any("leads out of the repository" in refused["message"] for refused in data["refused"])


@pytest.mark.parametrize(
    ("target", "message"),
    [
        ("../../docs/gone.yaml", "file: a link to a file that does not exist"),
        ("linked.yaml", "path: a loop of symbolic links; gitmem does not follow it"),
    ],
)
def test_a_memory_link_that_leads_nowhere_is_a_problem_not_silence_nor_a_crash(
    tmp_path: Path, run: Run, target: str, message: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A committed link whose file was not committed lost its memory without a word; a committed
    loop of links stopped every command that reads the store, and the prompt hook, with an internal
    error. Each is one memory file's problem, in the store and in recall."""
    root = tmp_path / "repo"
    root.mkdir()
    git(root, "init", "-q")
    memories = root / ".memory" / "memories"
    memories.mkdir(parents=True)
    (memories / "linked.yaml").symlink_to(target)
    snapshot = Store(Project(root, root / ".git")).load()
    assert [
        (p.path.endswith(".memory/memories/linked.yaml"), f"{p.field}: {p.message}")
        for p in snapshot.problems
    ] == [(True, message)]
    monkeypatch.chdir(root)
    for _ in range(2):  # found by the index's refresh, then kept in it
        result = run("recall", "anything")
        assert result.code == 0
        assert result.err.startswith(
            f"warning: .memory/memories/linked.yaml:1:1: {message} (invalid memory file"
        )
