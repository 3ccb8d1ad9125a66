"""Shared packs: another repository's memories pinned at a revision, tested against local bare repositories.

A pack pinned at v1 contributes only v1's memories; `sources update` moves it to v2 and says what changed; a muted
pack memory is not compiled; an unreachable source is a one-line error (exit 3) while `compile --check` still works
from the cache."""

from __future__ import annotations

import json
import random
import shutil
import string
from pathlib import Path
from typing import Any

import pytest

from gitmem.compile import block
from gitmem.scan import scan_text
from tests.compile.conftest import write_memory
from tests.conftest import Run, git


def fake_token(seed: int) -> str:
    """A GitHub token, built at run time, random-looking (scanners ignore repeated patterns as placeholders)."""
    return "ghp_" + "".join(random.Random(seed).choices(string.ascii_letters + string.digits, k=36))


def _commit(work: Path, message: str, tag: str | None = None) -> str:
    git(work, "add", "-A")
    git(work, "commit", "-q", "-m", message)
    if tag:
        git(work, "tag", tag)
    return git(work, "rev-parse", "HEAD").strip()


def _memory(work: Path, memory_id: str, title: str, **fields: Any) -> None:
    write_memory(work, memory_id, title, **fields)


@pytest.fixture
def pack(tmp_path: Path) -> Path:
    """A bare repository of a pack: v1 (two memories and one to mute), v2 (one added, one retired, one changed),
    then one untagged commit on main."""
    work = tmp_path / "pack-work"
    (work / ".memory" / "memories").mkdir(parents=True)
    git(work, "init", "-q", "-b", "main")
    git(work, "config", "commit.gpgsign", "false")
    _memory(work, "no-force-push", "Never force-push to main", priority="high")
    _memory(work, "squash-merge", "Squash-merge pull requests", kind="decision")
    _memory(work, "use-tabs", "Indent with tabs")
    _commit(work, "v1", "v1")
    _memory(work, "sign-commits", "Sign every commit")
    _memory(work, "squash-merge", "Squash-merge pull requests", kind="decision", status="retired")
    _memory(work, "use-tabs", "Indent with tabs, width 4")
    _commit(work, "v2", "v2")
    _memory(work, "branch-only", "A rule on main only")
    _commit(work, "after v2")
    bare = tmp_path / "pack.git"
    git(tmp_path, "clone", "-q", "--bare", str(work), str(bare))
    return bare


def _ids(path: Path) -> list[str]:
    return sorted(entry.id for entry in block.entries_of(path.read_text(encoding="utf-8")))


def _config(project: Path) -> str:
    return (project / ".memory" / "config.yaml").read_text(encoding="utf-8")


V1 = ["acme/no-force-push", "acme/squash-merge", "acme/use-tabs"]


def test_a_pack_pinned_at_v1_contributes_only_v1_memories(
    project: Path, pack: Path, run: Run
) -> None:
    write_memory(project, "use-pnpm", "Use pnpm")
    added = run("sources", "add", str(pack), "--rev", "v1", "--name", "acme")
    assert added.code == 0, added.err
    assert added.out == f"added source acme ({pack}) pinned at v1: 3 active memories (acme/ID)\n"
    assert _config(project).endswith(f"sources:\n  - name: acme\n    repo: {pack}\n    rev: v1\n")
    result = run("compile")
    assert result.code == 0, result.err
    assert (
        result.lines[-1]
        == "compiled 4 memories (3 from acme) for agents, claude: 2 file(s) changed"
    )
    for name in ("AGENTS.md", "CLAUDE.md"):
        assert _ids(project / name) == [*V1, "use-pnpm"]
    text = (project / "AGENTS.md").read_text()
    assert "- Never force-push to main (`acme/no-force-push`, high priority)\n" in text
    assert "or for an id `PACK/ID` the shared memory pack PACK (`gitmem sources list`)" in text
    assert run("compile", "--check").code == 0


def test_sources_update_moves_to_the_newest_tag_and_says_what_changed(
    project: Path, pack: Path, run: Run
) -> None:
    assert run("sources", "add", str(pack), "--rev", "v1", "--name", "acme").code == 0
    assert run("compile").code == 0
    updated = run("sources", "update")
    assert updated.code == 0, updated.err
    assert updated.lines == [
        "acme: v1 -> v2: 1 added, 1 changed, 1 removed",
        "  + acme/sign-commits  Sign every commit",
        "  ~ acme/use-tabs  Indent with tabs, width 4",
        "  - acme/squash-merge  Squash-merge pull requests",
    ]
    assert updated.err == "updated 1 pin(s) in .memory/config.yaml: run `gitmem compile`\n"
    assert "    rev: v2\n" in _config(project)
    stale = run("compile", "--check")
    assert (stale.code, stale.lines) == (1, ["AGENTS.md: out of date", "CLAUDE.md: out of date"])
    assert run("compile").code == 0
    assert _ids(project / "AGENTS.md") == [
        "acme/no-force-push",
        "acme/sign-commits",
        "acme/use-tabs",
    ]
    again = run("sources", "update", "--json")
    assert json.loads(again.out) == [
        {
            "name": "acme",
            "old": "v2",
            "new": "v2",
            "moved": False,
            "added": [],
            "changed": [],
            "removed": [],
            "note": None,
            "error": None,
            "problems": [],
        }
    ]


def test_update_branch_follows_the_head_and_never_goes_back(
    project: Path, pack: Path, run: Run
) -> None:
    head = git(pack, "rev-parse", "main").strip()
    assert run("sources", "add", str(pack), "--rev", "v2", "--name", "acme").code == 0
    moved = run("sources", "update", "acme", "--branch")
    assert moved.lines == [
        f"acme: v2 -> {head[:12]}: 1 added, 0 changed, 0 removed",
        "  + acme/branch-only  A rule on main only",
    ]
    assert f"    rev: {head}\n" in _config(project)
    back = run("sources", "update")
    assert back.lines == ["acme: already past the newest tag v2: the pin stays"]
    assert f"    rev: {head}\n" in _config(project)


def test_a_branch_rev_pins_its_head_and_tracks_it(
    project: Path, pack: Path, run: Run, tmp_path: Path
) -> None:
    head = git(pack, "rev-parse", "main").strip()
    added = run("sources", "add", str(pack), "--rev", "main")
    assert (
        added.out
        == f"added source pack ({pack}) pinned at {head[:12]}, following main: 4 active memories (pack/ID)\n"
    )
    assert _config(project).endswith(f"rev: {head}\n    track: main\n")
    work = tmp_path / "pack-work"
    _memory(work, "later", "A later rule")
    _commit(work, "later")
    git(work, "push", "-q", str(pack), "main")
    updated = run("sources", "update")
    newer = git(pack, "rev-parse", "main").strip()
    assert updated.lines == [
        f"pack: {head[:12]} -> {newer[:12]}: 1 added, 0 changed, 0 removed",
        "  + pack/later  A later rule",
    ]


def test_a_muted_pack_memory_is_not_compiled(project: Path, pack: Path, run: Run) -> None:
    assert run("sources", "add", str(pack), "--rev", "v1", "--name", "acme").code == 0
    muted = run("sources", "mute", "acme", "use-tabs")
    assert (muted.code, muted.out) == (0, "muted acme/use-tabs\n")
    assert _config(project).endswith("    rev: v1\n    mute:\n      - use-tabs\n")
    assert run("compile").code == 0
    assert _ids(project / "AGENTS.md") == ["acme/no-force-push", "acme/squash-merge"]
    listed = json.loads(run("list", "--packs", "--json").out)
    assert [(m["id"], m["muted"], m["path"]) for m in listed] == [
        ("acme/no-force-push", False, "acme@v1:.memory/memories/no-force-push.yaml"),
        ("acme/squash-merge", False, "acme@v1:.memory/memories/squash-merge.yaml"),
        ("acme/use-tabs", True, "acme@v1:.memory/memories/use-tabs.yaml"),
    ]
    table = run("list", "--packs")
    assert table.lines[-1].split()[:3] == ["acme/use-tabs", "convention", "muted"]
    unknown = run("sources", "mute", "acme", "use-tab")
    assert (unknown.code, unknown.err) == (
        2,
        "error: no memory 'use-tab' in source 'acme' at v1 (did you mean 'acme/use-tabs'?)\n",
    )
    assert run("sources", "unmute", "acme", "acme/use-tabs").out == "unmuted acme/use-tabs\n"
    assert "    mute:" not in _config(project)
    assert run("compile").code == 0
    assert _ids(project / "AGENTS.md") == V1


def test_an_unreachable_source_is_a_one_line_error_and_check_works_from_the_cache(
    project: Path, pack: Path, run: Run, tmp_path: Path
) -> None:
    missing = tmp_path / "nowhere.git"
    refused = run("sources", "add", str(missing), "--rev", "v1", "--name", "gone")
    assert refused.code == 3
    assert (
        refused.err
        == f"error: source 'gone': cannot fetch {missing}: repository '{missing}' does not exist\n"
    )
    assert "sources" not in _config(project)

    assert run("sources", "add", str(pack), "--rev", "v1", "--name", "acme").code == 0
    assert run("compile").code == 0
    moved = tmp_path / "moved.git"
    pack.rename(moved)
    offline = run("compile", "--check")
    assert (offline.code, offline.out) == (0, "up to date: 2 file(s)\n")
    update = run("sources", "update")
    assert update.code == 3
    assert update.err == (
        f"error: source 'acme': cannot fetch {pack}: '{pack}' does not appear to be a git repository\n"
    )
    shutil.rmtree(project / ".git" / "gitmem" / "sources")
    cold = run("compile", "--check")
    assert cold.code == 3
    assert (
        cold.err
        == f"error: source 'acme': cannot fetch {pack}: repository '{pack}' does not exist\n"
    )


def test_check_works_from_the_clone_without_the_index(
    project: Path, pack: Path, run: Run, tmp_path: Path
) -> None:
    """With the cached answer gone but the clone kept (e.g. after upgrading gitmem), nothing needs the network."""
    assert run("sources", "add", str(pack), "--rev", "v1", "--name", "acme").code == 0
    assert run("compile").code == 0
    for index in (project / ".git/gitmem/sources").glob("*.json"):
        index.unlink()
    pack.rename(tmp_path / "moved.git")
    assert run("compile", "--check").code == 0


def test_pack_ids_cannot_collide_and_blocks_merge_by_id(
    project: Path, pack: Path, run: Run
) -> None:
    write_memory(project, "no-force-push", "Our own force-push rule")
    assert run("sources", "add", str(pack), "--rev", "v1", "--name", "acme").code == 0
    assert run("compile").code == 0
    text = (project / "AGENTS.md").read_text()
    assert _ids(project / "AGENTS.md") == [*V1, "no-force-push"]
    found = block.scan(text).found
    assert found is not None
    parsed = block.split(found.body)
    assert block.assemble(parsed) == found.body
    # Three-way: ours mutes a pack memory, theirs adds a project memory; the merge keeps both changes, by id.
    ours = block.Block(parsed.preamble, tuple(e for e in parsed.entries if e.id != "acme/use-tabs"))
    extra = block.Entry("zz-new", "convention", "", "normal", "- New (`zz-new`)\n")
    theirs = block.Block(parsed.preamble, (*parsed.entries, extra))
    merged = block.merge(parsed, ours, theirs)
    assert merged.conflicts == []
    assert [e.id for e in merged.block.entries] == [
        "acme/no-force-push",
        "acme/squash-merge",
        "no-force-push",
        "zz-new",
    ]


def test_pack_memories_are_read_only(project: Path, pack: Path, run: Run) -> None:
    assert run("sources", "add", str(pack), "--rev", "v1", "--name", "acme").code == 0
    for command in (
        ("edit", "acme/use-tabs"),
        ("retire", "acme/use-tabs"),
        ("forget", "acme/use-tabs"),
    ):
        result = run(*command)
        assert (result.code, result.err) == (
            2,
            "error: acme/use-tabs is a memory of the shared pack 'acme', read-only here: change it in that pack's "
            "repository, or stop compiling it with `gitmem sources mute acme use-tabs`\n",
        )
    shown = run("show", "acme/use-tabs")
    assert shown.lines[0] == "acme/use-tabs  Indent with tabs"
    assert "  file         acme@v1:.memory/memories/use-tabs.yaml" in shown.lines
    assert shown.lines[-1] == "  pack         acme: read-only, from a shared pack"
    missing = run("show", "acme/use-tab")
    assert (
        missing.err
        == "error: no memory 'use-tab' in source 'acme' at v1 (did you mean 'acme/use-tabs'?)\n"
    )


def test_an_invalid_pack_is_refused_and_nothing_recorded(
    project: Path, run: Run, tmp_path: Path
) -> None:
    work = tmp_path / "bad"
    (work / ".memory" / "memories").mkdir(parents=True)
    git(work, "init", "-q", "-b", "main")
    git(work, "config", "commit.gpgsign", "false")
    token = fake_token(1)
    _memory(work, "leaky", "A leaky memory", body=f"token {token}")
    _commit(work, "v1", "v1")
    before = _config(project)
    result = run("sources", "add", str(work), "--name", "bad")
    assert result.code == 1
    assert result.err.splitlines() == [
        f"bad@v1:.memory/memories/leaky.yaml:6:13: body: {scan_text(token)[0].describe()}; "
        "secrets must never be stored in memory",
        "source 'bad' at v1 has invalid memories: not added",
    ]
    assert token not in result.out + result.err
    assert _config(project) == before


def test_fetching_in_a_hook_ignores_the_hook_git_variables(
    project: Path, pack: Path, run: Run
) -> None:
    """git exports GIT_DIR and GIT_INDEX_FILE to hooks; the pack's clone must not pick them up."""
    assert run("sources", "add", str(pack), "--rev", "v1", "--name", "acme").code == 0
    shutil.rmtree(project / ".git" / "gitmem" / "sources")
    env = {"GIT_DIR": str(project / ".git"), "GIT_INDEX_FILE": str(project / ".git" / "index")}
    result = run("compile", env=env)
    assert result.code == 0, result.err
    assert _ids(project / "AGENTS.md") == V1


def test_recall_list_and_stats_see_the_packs(project: Path, pack: Path, run: Run) -> None:
    write_memory(project, "use-pnpm", "Use pnpm, never npm", body="npm rewrites the lockfile")
    assert run("sources", "add", str(pack), "--rev", "v1", "--name", "acme").code == 0
    assert run("sources", "mute", "acme", "squash-merge").code == 0
    hits = json.loads(run("recall", "force-push main", "--json").out)
    assert [(hit["id"], hit["file"]) for hit in hits] == [
        ("acme/no-force-push", "acme@v1:.memory/memories/no-force-push.yaml")
    ]
    assert json.loads(run("recall", "squash merge", "--json").out) == []  # muted
    from datetime import date

    from gitmem.gateway import find_project
    from gitmem.mcp.tools import recall as mcp_recall  # what the MCP `recall` tool answers

    assert "acme/no-force-push" in mcp_recall(
        find_project(), "force-push main", 5, None, date.today()
    )
    assert "acme/squash-merge" not in mcp_recall(
        find_project(), "squash merge", 5, None, date.today()
    )
    assert [hit["id"] for hit in json.loads(run("recall", "npm lockfile", "--json").out)] == [
        "use-pnpm"
    ]
    assert [m["id"] for m in json.loads(run("list", "--json").out)] == ["use-pnpm"]
    stats = json.loads(run("stats", "--json").out)
    assert stats["sources"] == [
        {
            "name": "acme",
            "rev": "v1",
            "commit": git(pack, "rev-parse", "v1^{commit}").strip(),
            "memories": 3,
            "compiled": 2,
            "muted": ["squash-merge"],
        }
    ]
    assert stats["memories"]["total"] == 1  # the project's own files
    assert stats["targets"][0]["compiled"] == ["acme/no-force-push", "acme/use-tabs", "use-pnpm"]
    text = run("stats")
    assert text.lines[-2:] == [
        "SOURCE  REV  MEMORIES  COMPILED  MUTED",
        "acme    v1   3         2         1",
    ]
    listed = json.loads(run("sources", "list", "--json").out)
    assert listed == [
        {
            "name": "acme",
            "repo": str(pack),
            "rev": "v1",
            "track": None,
            "mute": ["squash-merge"],
            "commit": stats["sources"][0]["commit"],
            "memories": 3,
            "compiled": 2,
        }
    ]


def test_relative_paths_are_recorded_from_the_root_and_remove_forgets(
    project: Path, pack: Path, run: Run, monkeypatch: pytest.MonkeyPatch
) -> None:
    shutil.move(str(pack), str(project.parent / "shared.git"))
    (project / "sub").mkdir()
    monkeypatch.chdir(project / "sub")
    added = run("sources", "add", "../../shared.git", "--rev", "v1")
    assert added.code == 0, added.err
    assert "    repo: ../shared.git\n" in _config(project)
    assert (project / ".git/gitmem/sources").is_dir()
    text = run("sources", "list")
    assert text.lines == [
        "NAME    REV  COMPILED  MUTED  REPO",
        "shared  v1   3         0      ../shared.git",
    ]
    removed = run("sources", "remove", "shared")
    assert (
        removed.out
        == "removed source shared (../shared.git): run `gitmem compile` to take its memories out\n"
    )
    assert "sources" not in _config(project)
    assert list((project / ".git/gitmem/sources").iterdir()) == []


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (
            ("sources", "add", "PACK", "--rev", "v9", "--name", "other"),
            "error: source 'other': no revision 'v9' in PACK (newest tags: v2, v1)",
        ),
        (
            ("sources", "add", "PACK", "--name", "Acme"),
            "error: invalid source name 'Acme': use 1 to 64 lower-case letters, digits or hyphens, starting with a "
            "letter or digit",
        ),
        (
            ("sources", "add", "PACK", "--track", "nope"),
            "error: source 'pack': --track 'nope' is not a branch of PACK",
        ),
        (("sources", "update", "other"), "error: no source 'other' (sources: acme)"),
        (("sources", "mute", "other", "x"), "error: no source 'other' (sources: acme)"),
        (
            ("sources", "add", "PACK", "--name", "acme"),
            "error: a source named 'acme' exists (PACK): choose another name with --name",
        ),
    ],
)
def test_usage_errors(
    project: Path, pack: Path, run: Run, args: tuple[str, ...], message: str
) -> None:
    assert run("sources", "add", str(pack), "--rev", "v1", "--name", "acme").code == 0
    before = _config(project)
    result = run(*(str(pack) if arg == "PACK" else arg for arg in args))
    assert (result.code, result.err) == (2, message.replace("PACK", str(pack)) + "\n")
    assert _config(project) == before


def test_every_sources_command_has_help_with_an_example(run: Run) -> None:
    for name in ("add", "update", "list", "mute", "unmute", "remove"):
        result = run("sources", name, "--help")
        assert result.code == 0, name
        assert "Example" in result.out, f"gitmem sources {name} --help has no example"


def test_compile_refuses_invalid_pack_memories_and_a_missing_pin(
    project: Path, pack: Path, run: Run, tmp_path: Path
) -> None:
    assert run("sources", "add", str(pack), "--rev", "v1", "--name", "acme").code == 0
    work = tmp_path / "pack-work"
    token = fake_token(2)
    _memory(work, "leaky", "A leaky memory", body=f"token {token}")
    _commit(work, "v3", "v3")
    git(work, "push", "-q", "--tags", str(pack), "main")
    config = project / ".memory" / "config.yaml"
    config.write_text(
        config.read_text().replace("rev: v1", "rev: v3")
    )  # a hand edit, past `sources update`
    refused = run("compile")
    assert refused.code == 1
    assert refused.err.splitlines() == [
        "warning: source 'acme' has invalid memories at v3: pin another revision (`gitmem sources update acme`) or "
        "remove it (`gitmem sources remove acme`)",
        f"acme@v3:.memory/memories/leaky.yaml:6:13: body: {scan_text(token)[0].describe()}; "
        "secrets must never be stored in memory",
        "nothing was written",
    ]
    assert not (project / "AGENTS.md").exists()
    update = run("sources", "update")
    assert update.code == 1  # v3 is the newest tag, and invalid: the pin does not move there
    assert update.lines == ["acme: v3 has invalid memories: the pin stays"]
    config.write_text(config.read_text().replace("rev: v3", "rev: v9"))
    gone = run("compile")
    assert (gone.code, gone.err) == (
        3,
        f"error: source 'acme': no revision 'v9' in {pack}; pin one with `gitmem sources update acme`\n",
    )


def test_a_commit_is_pinned_by_its_full_id(project: Path, pack: Path, run: Run) -> None:
    v1 = git(pack, "rev-parse", "v1^{commit}").strip()
    added = run("sources", "add", str(pack), "--rev", v1[:7], "--name", "acme")
    assert (
        added.out
        == f"added source acme ({pack}) pinned at {v1[:12]}: 3 active memories (acme/ID)\n"
    )
    assert _config(project).endswith(f"    rev: {v1}\n")
    assert json.loads(run("list", "--packs", "--json").out)[0]["path"] == (
        f"acme@{v1[:12]}:.memory/memories/no-force-push.yaml"
    )


def test_supersedes_are_checked_within_the_pack(project: Path, run: Run, tmp_path: Path) -> None:
    work = tmp_path / "chain"
    (work / ".memory" / "memories").mkdir(parents=True)
    git(work, "init", "-q", "-b", "main")
    git(work, "config", "commit.gpgsign", "false")
    _memory(work, "use-npm", "Use npm", status="retired")
    _memory(work, "use-pnpm", "Use pnpm", supersedes=("use-npm",))
    _commit(work, "v1", "v1")
    _memory(work, "use-bun", "Use bun", supersedes=("use-yarn",))
    _commit(work, "v2", "v2")
    bad = run(
        "sources", "add", str(work), "--name", "chain"
    )  # the newest tag: v2, whose use-bun dangles
    assert bad.code == 1
    assert bad.err.splitlines() == [
        "chain@v2:.memory/memories/use-bun.yaml:1:1: supersedes[0]: no memory 'use-yarn'",
        "source 'chain' at v2 has invalid memories: not added",
    ]
    good = run("sources", "add", str(work), "--name", "chain", "--rev", "v1")
    assert good.code == 0, good.err
    assert [m["supersedes"] for m in json.loads(run("list", "--packs", "--json").out)] == [
        [],
        ["chain/use-npm"],
    ]


def test_a_fresh_checkout_fetches_on_compile_and_reads_only_the_cache_elsewhere(
    project: Path, pack: Path, run: Run
) -> None:
    """A teammate's clone has the config but no cache: list and recall say so; compile fetches."""
    assert run("sources", "add", str(pack), "--rev", "v1", "--name", "acme").code == 0
    shutil.rmtree(project / ".git" / "gitmem" / "sources")
    listed = run("sources", "list")
    assert (
        listed.lines[1].split()[:3] == ["acme", "v1", "not"]
        and "not fetched yet" in listed.lines[1]
    )
    recalled = run("recall", "force-push")
    assert recalled.err == (
        "warning: source 'acme' is not fetched yet, so left out (`gitmem compile` fetches it)\n"
        "no active memory matches 'force-push': try other words (recall matches words, not meaning) or `gitmem list`\n"
    )
    compiled = json.loads(run("compile", "--json").out)
    assert compiled["sources"] == [
        {
            "name": "acme",
            "rev": "v1",
            "commit": git(pack, "rev-parse", "v1^{commit}").strip(),
            "memories": 3,
            "compiled": 3,
            "muted": [],
        }
    ]
    assert [hit["id"] for hit in json.loads(run("recall", "force-push", "--json").out)] == [
        "acme/no-force-push"
    ]
