from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from gitmem import yamlio
from gitmem.errors import GitmemError
from gitmem.git import history
from tests.conftest import Run, git

MEMORIES = Path(".memory/memories")


def write(memory_id: str, title: str | None = None, **fields: Any) -> Path:
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


def commit(root: Path, message: str) -> str:
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", message)
    return git(root, "rev-parse", "HEAD").strip()


# -- history -------------------------------------------------------------------------------------------------------


def test_history_newest_first_following_renames(project: Path, run: Run) -> None:
    commit(project, "set up gitmem")
    write("pin-node", "Pin Node 18")
    first = commit(project, "Add pin-node")
    write("pin-node", "Pin Node 20")
    second = commit(project, "Node 20 now")
    git(project, "mv", str(MEMORIES / "pin-node.yaml"), str(MEMORIES / "pin-node-version.yaml"))
    write("pin-node-version", "Pin Node 20")
    third = commit(project, "Rename pin-node")
    write("other", "Something else")
    commit(project, "Unrelated memory")

    data = json.loads(run("history", "pin-node-version", "--json").out)
    assert [(c["sha"], c["subject"], c["change"], c["path"], c["old_path"]) for c in data] == [
        (
            third,
            "Rename pin-node",
            "R",
            ".memory/memories/pin-node-version.yaml",
            ".memory/memories/pin-node.yaml",
        ),
        (second, "Node 20 now", "M", ".memory/memories/pin-node.yaml", None),
        (first, "Add pin-node", "A", ".memory/memories/pin-node.yaml", None),
    ]
    assert {c["author"] for c in data} == {"Test Author"}
    assert all(c["short"] == c["sha"][:7] and len(c["date"]) == 10 for c in data)

    result = run("history", "pin-node-version")
    assert result.code == 0
    assert result.lines[0].split() == ["COMMIT", "DATE", "AUTHOR", "SUBJECT"]
    day = data[0]["date"]
    assert result.lines[1] == (
        f"{third[:7]}  {day}  Test Author  Rename pin-node  (renamed from .memory/memories/pin-node.yaml)"
    )
    assert result.lines[3].split()[-2:] == ["Add", "pin-node"]


def test_history_of_a_forgotten_memory(project: Path, run: Run) -> None:
    write("gone", "Soon gone")
    added = commit(project, "Add gone")
    assert run("forget", "gone").code == 0
    removed = commit(project, "Forget gone")
    data = json.loads(run("history", "gone", "--json").out)
    assert [(c["sha"], c["change"]) for c in data] == [(removed, "D"), (added, "A")]
    assert "Forget gone  (deleted)" in run("history", "gone").out


def test_history_of_uncommitted_memory(project: Path, run: Run) -> None:
    commit(project, "set up gitmem")
    write("draft")
    result = run("history", "draft")
    assert (result.code, result.out, result.err) == (
        0,
        "(working tree: .memory/memories/draft.yaml is untracked, not committed)\n",
        "no commits touched .memory/memories/draft.yaml yet\n",
    )
    commit(project, "Add draft")
    write("draft", "Changed")
    assert (
        run("history", "draft").lines[0]
        == "(working tree: .memory/memories/draft.yaml is modified, not committed)"
    )
    assert run("history", "draft", "--json").code == 0


@pytest.mark.parametrize(
    ("memory_id", "code", "message"),
    [
        (
            "never",
            2,
            "error: no memory 'never' now or in this branch's history; `gitmem list` shows the ids\n",
        ),
        (
            "Bad_Id",
            2,
            "error: invalid id 'Bad_Id': use 1 to 64 lower-case letters, digits or hyphens, starting with a letter "
            "or digit\n",
        ),
    ],
)
def test_history_errors(project: Path, run: Run, memory_id: str, code: int, message: str) -> None:
    commit(project, "set up gitmem")
    result = run("history", memory_id)
    assert (result.code, result.err) == (code, message)


def test_history_without_commits(project: Path, run: Run) -> None:
    write("first")
    result = run("history", "first")
    assert (result.code, result.err) == (
        3,
        "error: this repository has no commits yet: commit something first, then try again\n",
    )


def test_git_advice_outside_a_repository(tmp_path: Path) -> None:
    with pytest.raises(GitmemError) as caught:
        history.file_history(tmp_path, "x.yaml")
    assert str(caught.value) == (
        f"git failed. Is it installed, and are you in a Git repository? ({tmp_path} is not one)"
    )
    assert caught.value.exit_code == 3


# -- diff ----------------------------------------------------------------------------------------------------------


@pytest.fixture
def branched(project: Path, run: Run) -> Path:
    """main has four memories; the feature branch changes them; main moves on after the branch point."""
    write("keep", "Unchanged memory")
    write("edit-me", "Run tests with pytest", tags=["testing"], body="Use -n 2.\nKeep it fast.\n")
    write("retire-me", "Use npm")
    write("remove-me", "Old advice")
    commit(project, "memories on main")
    git(project, "checkout", "-q", "-b", "feature")
    write(
        "edit-me",
        "Run tests with pytest",
        tags=["testing", "ci"],
        priority="high",
        body="Use -n 4.\nKeep it fast.\n",
    )
    assert run("retire", "retire-me", "--reason", "we use pnpm").code == 0
    (MEMORIES / "remove-me.yaml").unlink()
    write(
        "new-one",
        "Use pnpm, never npm",
        paths=["web/**"],
        targets=["claude", "cursor"],
        body="npm rewrites the lock file.",
    )
    commit(project, "feature memories")
    git(project, "checkout", "-q", "main")
    write("main-only", "Landed on main after the branch point")
    commit(project, "main moves on")
    git(project, "checkout", "-q", "feature")
    return project


def test_diff_default_is_from_the_merge_base(branched: Path, run: Run) -> None:
    write("uncommitted", "Still in the working tree")
    result = run("diff", "--json")
    assert result.code == 0, result.err
    data = json.loads(result.out)
    merge_base = git(branched, "merge-base", "main", "HEAD").strip()
    assert data["base"] == {
        "label": "merge base of main and HEAD",
        "commit": merge_base,
        "default_branch": "main",
        "merge_base_of": None,
    }
    assert data["head"] == {
        "label": "working tree",
        "commit": None,
        "default_branch": None,
        "merge_base_of": None,
    }
    assert data["summary"] == {"added": 2, "changed": 1, "retired": 1, "removed": 1}
    assert [(c["change"], c["id"]) for c in data["changes"]] == [
        ("added", "new-one"),
        ("added", "uncommitted"),
        ("changed", "edit-me"),
        ("retired", "retire-me"),
        ("removed", "remove-me"),
    ]  # main-only landed on main after the branch point: not this branch's change
    changed = data["changes"][2]
    assert changed["fields"] == [
        {"field": "priority", "old": "normal", "new": "high"},
        {"field": "body", "old": "Use -n 2.\nKeep it fast.\n", "new": "Use -n 4.\nKeep it fast.\n"},
        {"field": "tags", "old": ["testing"], "new": ["testing", "ci"]},
    ]
    assert changed["before"]["priority"] == "normal" and changed["after"]["priority"] == "high"
    retired = data["changes"][3]
    assert [f["field"] for f in retired["fields"]] == ["status", "retired", "reason"]
    assert retired["after"]["reason"] == "we use pnpm"
    removed = data["changes"][4]
    assert (removed["title"], removed["after"], removed["before"]["title"]) == (
        "Old advice",
        None,
        "Old advice",
    )


def test_diff_markdown(branched: Path, run: Run) -> None:
    result = run("diff")
    assert result.code == 0
    base = git(branched, "merge-base", "main", "HEAD").strip()[:7]
    assert (
        result.out
        == f"""\
### gitmem: memory changes from the merge base of `main` and HEAD ({base}) to the working tree

1 added · 1 changed · 1 retired · 1 removed

#### Added

- **`new-one`**: Use pnpm, never npm
  - fact · active · priority normal · paths `web/**` · targets `claude`, `cursor`
  ```text
  npm rewrites the lock file.
  ```

#### Changed

- **`edit-me`**: Run tests with pytest
  - `priority`: `normal` → `high`
  - `body`:
    ```diff
    @@ -1,2 +1,2 @@
    -Use -n 2.
    +Use -n 4.
     Keep it fast.
    ```
  - `tags`: added `ci`

#### Retired

- **`retire-me`**: Use npm
  - reason: we use pnpm

#### Removed

- **`remove-me`**: Old advice
  - fact · active · priority normal

#### Budget

| target | budget | tokens before → after | in full before → after |
|---|---:|---:|---:|
| agents | 2000 | 135 → 126 | 4 → 2 |
| claude | 2000 | 135 → 247 | 4 → 3 |
"""
    )


def test_diff_base_to_working_tree_and_between_commits(branched: Path, run: Run) -> None:
    write("keep", "Unchanged memory, now changed")
    data = json.loads(run("diff", "feature", "--json").out)
    assert data["base"]["label"] == "feature"
    assert [(c["change"], c["id"], c["fields"]) for c in data["changes"]] == [
        (
            "changed",
            "keep",
            [{"field": "title", "old": "Unchanged memory", "new": "Unchanged memory, now changed"}],
        )
    ]
    data = json.loads(run("diff", "main", "feature", "--json").out)
    assert data["head"] == {
        "label": "feature",
        "commit": git(branched, "rev-parse", "feature").strip(),
        "default_branch": None,
        "merge_base_of": None,
    }
    merge_base = git(branched, "merge-base", "main", "feature").strip()
    assert data["base"] == {
        "label": "merge base of main and feature",
        "commit": merge_base,
        "default_branch": None,
        "merge_base_of": "main",
    }
    # main has main-only, landed after feature branched: the pull request does not remove it (issue 23).
    assert [(c["change"], c["id"]) for c in data["changes"]] == [
        ("added", "new-one"),
        ("changed", "edit-me"),
        ("retired", "retire-me"),
        ("removed", "remove-me"),
    ]
    markdown = run("diff", "main", "feature").out
    assert markdown.startswith(
        "### gitmem: memory changes from the merge base of `main` and `feature` ("
    )
    assert "main-only" not in markdown
    assert [c["id"] for c in json.loads(run("diff", "main", "--json").out)["changes"]] == [
        "new-one",
        "edit-me",
        "keep",
        "retire-me",
        "remove-me",
    ]  # BASE alone: from the merge base too, to the working tree
    ancestor = json.loads(run("diff", "HEAD~1", "HEAD", "--json").out)
    assert ancestor["base"]["label"] == "HEAD~1" and ancestor["base"]["merge_base_of"] is None
    same = run("diff", "HEAD", "HEAD")
    assert same.out.endswith("\n\nNo memory changes.\n")


def test_diff_layout_only_change(project: Path, run: Run) -> None:
    path = write("tidy", "Tidy memory")
    commit(project, "add")
    path.write_text(path.read_text() + "# a comment\n")
    assert (
        "- **`tidy`**: Tidy memory\n  - only comments or layout changed\n"
        in run("diff", "HEAD").out
    )


def test_diff_shows_invalid_files(project: Path, run: Run) -> None:
    write("was-bad")
    (MEMORIES / "was-bad.yaml").write_text("id: was-bad\ntitle: [\n")
    write("turns-bad", "Fine for now")
    commit(project, "one bad, one good")
    write("was-bad", "Fixed now")
    (MEMORIES / "turns-bad.yaml").write_text(
        "id: turns-bad\ntitle: Broken\nkind: fact\nstatus: active\nextra: 1\n"
    )
    result = run("diff", "HEAD", "--json")
    assert result.code == 0
    changes = {c["id"]: c for c in json.loads(result.out)["changes"]}
    assert changes["turns-bad"]["problems"] == [
        ".memory/memories/turns-bad.yaml:5:1: ‹e… (5 chars)›: unknown field"
    ]
    assert (changes["turns-bad"]["after"], changes["turns-bad"]["title"]) == (None, "Fine for now")
    assert changes["was-bad"]["base_problems"][0].startswith(".memory/memories/was-bad.yaml:")
    assert changes["was-bad"]["after"]["title"] == "Fixed now"
    markdown = run("diff", "HEAD").out
    assert (
        "- **`turns-bad`**: Fine for now\n"
        "  - **invalid**: this file does not pass `gitmem validate`:\n"
        "    - `.memory/memories/turns-bad.yaml:5:1: ‹e… (5 chars)›: unknown field`\n"
    ) in markdown
    assert "- **`was-bad`**: Fixed now\n  - was invalid before; valid now\n" in markdown


def test_diff_markdown_cannot_be_formatted_by_memory_text(project: Path, run: Run) -> None:
    commit(project, "set up gitmem")
    write("sneaky", "Ping @alice about <img src=x> and **this** [link](http://x) #12")
    write("fenced", "Body with a fence", body="```\ncode\n```\n")
    out = run("diff", "HEAD").out
    assert (
        "- **`sneaky`**: Ping \\@alice about \\<img src=x\\> and \\*\\*this\\*\\* \\[link\\](http://x) \\#12\n"
    ) in out
    assert "  ````text\n  ```\n  code\n  ```\n  ````\n" in out


def test_diff_default_branch_from_origin_head(
    project: Path, run: Run, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    write("upstream", "From upstream")
    commit(project, "upstream memory")
    clone = tmp_path / "clone"
    git(project, "clone", "-q", str(project), str(clone))
    git(clone, "checkout", "-q", "-b", "topic")
    (clone / MEMORIES / "topic.yaml").write_text(
        yamlio.dump({"id": "topic", "title": "T", "kind": "fact", "status": "active"})
    )
    git(clone, "branch", "-m", "main", "trunk")  # the local default branch is not what decides
    monkeypatch.chdir(clone)
    data = json.loads(run("diff", "--json").out)
    assert data["base"]["default_branch"] == "origin/main"
    assert [(c["change"], c["id"]) for c in data["changes"]] == [("added", "topic")]


def test_diff_default_branch_master(repo: Path, run: Run) -> None:
    git(repo, "checkout", "-q", "-b", "master")
    assert run("init", "--no-hooks").code == 0
    commit(repo, "set up")
    git(repo, "checkout", "-q", "-b", "work")
    write("on-work")
    data = json.loads(run("diff", "--json").out)
    assert data["base"]["default_branch"] == "master"
    assert [c["id"] for c in data["changes"]] == ["on-work"]


@pytest.mark.parametrize(
    ("setup", "args", "code", "message"),
    [
        (
            "trunk",
            (),
            2,
            "error: cannot tell the default branch (no origin/HEAD, origin/main, origin/master, main or master): "
            "name the base, e.g. `gitmem diff develop`\n",
        ),
        (
            "commit",
            ("no-such-branch",),
            2,
            "error: unknown revision 'no-such-branch': name a branch, tag or commit (`git branch -a` lists the "
            "branches)\n",
        ),
        (
            "commit",
            ("--", "-n"),
            2,
            "error: unknown revision '-n': name a branch, tag or commit (`git branch -a` lists the branches)\n",
        ),
        (
            "commit",
            ("HEAD", "nope"),
            2,
            "error: unknown revision 'nope': name a branch, tag or commit (`git branch -a` lists the branches)\n",
        ),
        (
            "none",
            (),
            3,
            "error: this repository has no commits yet: commit something first, then try again\n",
        ),
        (
            "none",
            ("main",),
            3,
            "error: this repository has no commits yet: commit something first, then try again\n",
        ),
    ],
)
def test_diff_errors(
    project: Path, run: Run, setup: str, args: tuple[str, ...], code: int, message: str
) -> None:
    if setup != "none":
        commit(project, "set up")
    if setup == "trunk":
        git(project, "branch", "-m", "main", "trunk")
    result = run("diff", *args)
    assert (result.code, result.err) == (code, message)


def test_diff_unrelated_histories(project: Path, run: Run) -> None:
    commit(project, "set up")
    git(project, "checkout", "-q", "--orphan", "elsewhere")
    commit(project, "new root")
    result = run("diff")
    assert (result.code, result.err) == (
        2,
        "error: main and HEAD share no history: name the base, e.g. `gitmem diff main`\n",
    )
    named = run("diff", "main", "HEAD")
    assert (named.code, named.err) == (
        2,
        "error: main and HEAD share no history: there is no merge base to compare from\n",
    )


def test_help_has_examples(run: Run) -> None:
    assert "gitmem history use-pnpm" in run("history", "--help").out
    assert 'gitmem diff "origin/$GITHUB_BASE_REF...HEAD" --json' in run("diff", "--help").out


def test_git_failure_becomes_one_line(project: Path) -> None:
    commit(project, "set up")
    with pytest.raises(GitmemError) as caught, history._repo(project) as repo:
        repo.git.log("--no-such-option")
    assert str(caught.value) == "git log failed: fatal: unrecognized argument: --no-such-option"


def _summary(run: Run, *args: str) -> tuple[str | None, dict[str, int], list[tuple[str, str]]]:
    result = run("diff", *args, "--json")
    assert result.code == 0, result.err
    data = json.loads(result.out)
    return (
        data["base"]["commit"],
        data["summary"],
        [(c["change"], c["id"]) for c in data["changes"]],
    )


def test_diff_ranges_mean_what_git_means(branched: Path, run: Run) -> None:
    """`A...B`: from the merge base of A and B to B (what a pull request shows); `A..B`: from A to B; an end left
    out is HEAD. Each agrees with `git diff` over the memory folder."""
    point = git(branched, "merge-base", "main", "feature").strip()
    main = git(branched, "rev-parse", "main").strip()
    write("uncommitted", "Not in any commit: never in a range")
    three = _summary(run, "main...feature")
    assert three[0] == point
    assert three == _summary(run, "main...") == _summary(run, "main", "feature")
    assert ("added", "main-only") not in three[2] and ("removed", "main-only") not in three[2]
    two = _summary(run, "main..feature")
    assert two[0] == main
    assert ("removed", "main-only") in two[2]  # main moved on: from main's tip, feature lacks it
    assert two == _summary(run, "main..")
    back = _summary(run, "feature...main")
    assert back[2] == [("added", "main-only")]
    for spec, expected in (
        ("main...feature", f"{point}...feature"),
        ("main..feature", "main..feature"),
    ):
        named = git(branched, "diff", "--name-only", expected, "--", ".memory/memories").split()
        changed = _summary(run, spec)[2]
        assert sorted(f".memory/memories/{memory_id}.yaml" for _, memory_id in changed) == sorted(
            named
        ), spec
    markdown = run("diff", "main...feature", "--format", "markdown").out
    assert markdown.startswith(
        "### gitmem: memory changes from the merge base of `main` and `feature`"
    )


@pytest.mark.parametrize(
    ("spec", "message"),
    [
        ("...", "error: cannot read the range '...': write BASE...HEAD or BASE..HEAD"),
        (
            "main....feature",
            "error: cannot read the range 'main....feature': write BASE...HEAD or BASE..HEAD",
        ),
        ("main...nope", "error: unknown revision 'nope'"),
    ],
)
def test_diff_bad_ranges(branched: Path, run: Run, spec: str, message: str) -> None:
    result = run("diff", spec)
    assert result.code == 2
    assert result.err.startswith(message) and result.err.count("\n") == 1


def test_diff_range_with_a_second_revision(branched: Path, run: Run) -> None:
    result = run("diff", "main...feature", "HEAD")
    assert result.code == 2
    assert "names both ends already" in result.err


def test_stage_reads_its_paths_once(project: Path) -> None:
    """``stage`` takes any iterable of paths: a generator is read once, its files staged and its
    removed files unstaged alike."""
    write("kept")
    write("gone")
    commit(project, "set up")
    (project / MEMORIES / "gone.yaml").unlink()
    (project / MEMORIES / "new.yaml").write_text("x: 1\n", encoding="utf-8")
    names = ("kept", "gone", "new")
    history.stage(project, (f"{MEMORIES}/{name}.yaml" for name in names))
    staged = git(project, "diff", "--cached", "--name-status")
    assert sorted(staged.split()) == sorted(
        ["D", f"{MEMORIES}/gone.yaml", "A", f"{MEMORIES}/new.yaml"]
    )
