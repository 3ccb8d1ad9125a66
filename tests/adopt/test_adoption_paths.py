"""Issue 30's adoption path: a hand-written AGENTS.md already over Codex's 32 KiB is reported at
`init` and `import`, and `import --accept --move --left-out` takes out only its list rules
(headings, the table of contents, prose and code stay byte for byte; no file is deleted, no link
left dangling); `init` finds nested rules files."""

from __future__ import annotations

import json
import os
from pathlib import Path

from tests.conftest import Run, git

WORDS = [
    "cache",
    "queue",
    "worker",
    "retry",
    "module",
    "request",
    "disk",
    "build",
    "schema",
    "index",
    "route",
    "handler",
    "token",
    "batch",
    "shard",
    "replica",
    "fixture",
    "snapshot",
    "buffer",
    "stream",
]


def _words(seed: int, count: int) -> str:
    return " ".join(WORDS[(seed * 7 + i * 3) % len(WORDS)] for i in range(count))


SECTIONS = 8
RULES = 28  # per section


def _rule(section: int, number: int) -> str:
    return f"- Always keep the {_words(section * 100 + number, 14)} in order {section}.{number} for the release."


def over_limit_agents() -> tuple[str, set[str]]:
    """A hand-written AGENTS.md of about 34.5 KB and 310 lines: a title, a table of contents, and
    sections of prose, a code block and list rules; and the rule lines."""
    lines = ["# Service guide", "", "## Contents", ""]
    lines += [f"- [Area {i}](#area-{i})" for i in range(1, SECTIONS + 1)] + [""]
    rules: set[str] = set()
    for section in range(1, SECTIONS + 1):
        lines += [
            f"## Area {section}",
            "",
            f"The {_words(section, 30)} explains area {section}.",
            "",
        ]
        lines += ["```sh", f"make area-{section} && ./bin/check --area {section}", "```", ""]
        for number in range(RULES):
            rule = _rule(section, number)
            rules.add(rule)
            lines.append(rule)
        lines.append("")
    return "\n".join(lines) + "\n", rules


def _hand_written(text: str) -> str:
    """The text outside gitmem's managed block."""
    begin = text.find("<!-- gitmem:begin")
    if begin < 0:
        return text
    end = text.index("<!-- gitmem:end -->", begin) + len("<!-- gitmem:end -->\n")
    return text[:begin] + text[end:]


def test_an_agents_md_over_codex_limit_is_reported_and_moving_keeps_every_other_line(
    repo: Path, run: Run
) -> None:
    text, rules = over_limit_agents()
    assert 33_000 < len(text.encode()) < 36_000 and 300 < text.count("\n") < 320
    (repo / "AGENTS.md").write_text(text, encoding="utf-8")
    os.symlink("AGENTS.md", repo / "CLAUDE.md")
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "hand-written rules")

    init = run("init", "--no-hooks")
    assert init.code == 0, init.err
    said = [line for line in init.out.splitlines() if line.startswith("over a limit: AGENTS.md:")]
    assert len(said) == 1 and "32,768" in said[0] and "Codex" in said[0] and "--move" in said[0]

    imported = run("import", "--accept", "--json")
    assert imported.code == 0, imported.err
    over = json.loads(imported.out)["over_limit"]
    assert [(o["path"], o["target"], o["limit"]) for o in over] == [
        ("AGENTS.md", "agents", 32 * 1024)
    ]
    first = run(
        "compile"
    )  # past the hard limit by the team's own text: written, the block first, and said
    assert first.code == 0 and "the hand-written text alone is" in first.err, first.err
    assert (repo / "AGENTS.md").read_text(encoding="utf-8").startswith("<!-- gitmem:begin")

    moved = run("import", "--accept", "--move", "--left-out")
    assert moved.code == 0, moved.err
    assert (
        f"made {SECTIONS} memories on demand" in moved.out
    )  # the prose the first import made memories: kept once
    assert "over a limit" not in moved.out  # the moved rules brought it under
    assert (repo / "CLAUDE.md").is_symlink() and os.readlink(repo / "CLAUDE.md") == "AGENTS.md"
    after = _hand_written((repo / "AGENTS.md").read_text(encoding="utf-8"))
    kept = [line for line in text.splitlines() if line not in rules]
    assert [line for line in after.splitlines() if line.strip()] == [
        line for line in kept if line.strip()
    ]
    assert not rules & set(after.splitlines())  # every rule moved: it is a memory now

    assert run("compile").code == 0
    assert len((repo / "AGENTS.md").read_bytes()) <= 32 * 1024
    assert (repo / "CLAUDE.md").read_text(encoding="utf-8") == (repo / "AGENTS.md").read_text(
        encoding="utf-8"
    )
    assert run("compile", "--check").code == 0
    compiled = (repo / "AGENTS.md").read_text(encoding="utf-8")
    assert all(
        compiled.count(f"explains area {n}") == 1 for n in range(1, SECTIONS + 1)
    )  # read once, by hand


def test_init_finds_a_nested_rules_file_in_a_monorepo(repo: Path, run: Run) -> None:
    package = repo / "packages" / "foo"
    package.mkdir(parents=True)
    (package / "AGENTS.md").write_text(
        "# foo\n\n- Run `pnpm test` in packages/foo.\n", encoding="utf-8"
    )
    (repo / "apps" / "web" / ".cursor" / "rules").mkdir(parents=True)
    (repo / "apps" / "web" / ".cursor" / "rules" / "react.mdc").write_text(
        "---\nalwaysApply: true\n---\n- Components are functions.\n", encoding="utf-8"
    )
    (repo / ".gitignore").write_text("vendor/\n", encoding="utf-8")
    (repo / "vendor" / "lib").mkdir(parents=True)
    (repo / "vendor" / "lib" / "CLAUDE.md").write_text(
        "- Ignored by git: not ours.\n", encoding="utf-8"
    )
    skill = repo / "tools" / "skills" / "deploy"  # a vendored skill bundle: not the project's rules
    skill.mkdir(parents=True)
    (skill / "SKILL.md").write_text(
        "---\nname: deploy\ndescription: Deploying\n---\n", encoding="utf-8"
    )
    (skill / "GEMINI.md").write_text("- Deploy with the skill.\n", encoding="utf-8")
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "monorepo")

    result = run("init", "--no-hooks")
    assert result.code == 0, result.err
    assert "found rules files of: agents, cursor" in result.out
    assert "packages/foo/AGENTS.md" in result.out
    config = (repo / ".memory" / "config.yaml").read_text(encoding="utf-8")
    assert "targets: [agents, cursor]\n" in config


def test_move_takes_a_tool_folder_rule_whose_client_reads_it_from_the_hub(
    repo: Path, run: Run
) -> None:
    """Cursor reads AGENTS.md: a .cursor/rules line whose memory compile writes into AGENTS.md
    reaches Cursor, so it moves (it was kept before, "compile would write them into no file of this
    tool"); the file itself stays."""
    (repo / "AGENTS.md").write_text("- Use pnpm, never npm.\n", encoding="utf-8")
    rule = repo / ".cursor" / "rules" / "react.mdc"
    rule.parent.mkdir(parents=True)
    rule.write_text("---\nalwaysApply: true\n---\n- Components are functions.\n", encoding="utf-8")
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "rules")
    assert run("init", "--no-hooks").code == 0
    moved = json.loads(run("import", "--accept", "--move", "--json").out)
    assert moved["kept"] == []
    assert rule.read_text(encoding="utf-8") == "---\nalwaysApply: true\n---\n"  # never deleted
    assert run("compile").code == 0
    explained = json.loads(run("explain", "--client", "cursor", "--json").out)["clients"][0]
    assert len(explained["full"]) == 2


def test_prose_an_earlier_import_made_a_memory_is_read_once_after_move(
    repo: Path, run: Run
) -> None:
    """`import --accept`, then `import --accept --move`: the prose stays in the file, so its memory
    (made by the first import) becomes on demand instead of being compiled beside it."""
    agents = repo / "AGENTS.md"
    agents.write_text(
        "# Guide\n\nThe API lives in api/ and serves JSON only.\n\n- Use pnpm, never npm.\n",
        "utf-8",
    )
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "rules")
    assert run("init", "--no-hooks").code == 0
    assert run("import", "--accept").code == 0
    moved = json.loads(run("import", "--accept", "--move", "--json").out)
    assert len(moved["on_demand"]) == 1
    assert run("compile").code == 0
    text = agents.read_text(encoding="utf-8")
    assert text.startswith("# Guide\n\nThe API lives in api/ and serves JSON only.\n")
    assert text.count("serves JSON only") == 1 and text.count("Use pnpm, never npm") == 1


def test_move_keeps_a_code_block_that_follows_a_list_rule_at_the_list_column(
    repo: Path, run: Run
) -> None:
    """A fence at the list's own column ends the list (Markdown): the code block is the team's
    document and stays byte for byte when the rule above it moves (openai-agents-js/-python in the
    field corpus); a block indented under the rule's text is part of it and moves with it."""
    agents = repo / "AGENTS.md"
    stays = "```sh\npnpm run build:all\n```\n"
    nested = "- Run the linter before pushing.\n  ```sh\n  pnpm lint\n  ```\n"
    agents.write_text(
        f"# Guide\n\n- Use pnpm, never npm.\n{stays}{nested}\nProse stays.\n", encoding="utf-8"
    )
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "rules")
    assert run("init", "--no-hooks").code == 0
    moved = run("import", "--accept", "--move")
    assert moved.code == 0, moved.err
    assert agents.read_text(encoding="utf-8") == f"# Guide\n\n{stays}\nProse stays.\n"


def _prose(bytes_: int, seed: int) -> str:
    """Hand-written prose (no list rules) of about ``bytes_`` bytes under one heading."""
    lines = ["# Notes", ""]
    while sum(len(line) + 1 for line in lines) < bytes_:
        lines += [f"The {_words(seed + len(lines), 16)} is described here.", ""]
    return "\n".join(lines) + "\n"


def test_a_nested_agents_md_chain_near_codex_limit_is_named_and_compile_fits_it(
    repo: Path, run: Run
) -> None:
    """Field corpus, pydantic-ai: AGENTS.md (15.5 KB) and .github/workflows/AGENTS.md (13.9 KB) are
    under Codex's 32 KiB together, but gitmem's blocks pushed the chain over and compile failed on
    every run. `init` and `import` now name the chain and what it leaves gitmem; compile keeps its
    block to that room, the chain stays under."""
    nested = repo / ".github" / "workflows" / "AGENTS.md"
    nested.parent.mkdir(parents=True)
    (repo / "AGENTS.md").write_text(_prose(15_500, 1), encoding="utf-8")
    nested.write_text(_prose(13_900, 2) + "\n- Pin every action to a full commit sha.\n", "utf-8")
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "rules")
    init = run("init", "--no-hooks")
    assert init.code == 0
    said = [line for line in init.out.splitlines() if line.startswith("near a limit:")]
    assert len(said) == 1 and ".github/workflows/AGENTS.md" in said[0] and "Codex" in said[0]
    imported = run("import", "--accept", "--json")
    assert [near["path"] for near in json.loads(imported.out)["near_limit"]] == [
        ".github/workflows/AGENTS.md"
    ]
    for number in range(30):
        assert (
            run("add", f"Team rule {number}: {_words(number, 12)}", "--id", f"r{number}").code == 0
        )
    compiled = run("compile")
    assert compiled.code == 0, compiled.err
    assert "agents: its block is kept to" in compiled.err
    chain = (repo / "AGENTS.md").read_bytes() + nested.read_bytes()
    assert len(chain) <= 32 * 1024 and b"Pin every action" in chain
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "gitmem")
    assert run("check").code == 0


def test_init_does_not_choose_a_target_whose_root_file_git_ignores(
    repo: Path, run: Run, tmp_path: Path
) -> None:
    """Field corpus, Effect-TS/effect: the team keeps .agents/AGENTS.md and git-ignores the root
    AGENTS.md. On main, init chose agents and compile wrote the root file, which no commit holds: a
    fresh clone (CI, a cloud agent, code review) got nothing and its check was red. init now leaves
    such a target out and says how to add it."""
    (repo / ".gitignore").write_text("/AGENTS.md\n.claude/\n", encoding="utf-8")
    (repo / ".agents").mkdir()
    (repo / ".agents" / "AGENTS.md").write_text("# Guide\n\n- Use pnpm, never npm.\n", "utf-8")
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "rules")
    init = run("init", "--no-hooks")
    assert init.code == 0
    assert "not added: agents (AGENTS.md is ignored by git" in init.out
    assert "targets: []" in (repo / ".memory" / "config.yaml").read_text(encoding="utf-8")
    assert run("import", "--accept").code == 0
    compiled = run("compile")
    assert compiled.code == 0 and "no target configured" in compiled.out
    assert not (repo / "AGENTS.md").exists()
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "gitmem")
    clone = tmp_path / "clone"
    git(tmp_path, "clone", "-q", str(repo), str(clone))
    os.chdir(clone)
    assert run("check").code == 0


def test_a_chain_over_codex_limit_is_said_once_at_its_top_whatever_the_folder_names(
    repo: Path,
) -> None:
    """A chain over because the file above it is, is said once, there: for a folder whose name sorts
    before the file's name too ("0/" < "AGENTS.md"), not only for one that sorts after it."""
    from gitmem.gateway import find_project
    from gitmem.importing.oversize import oversized

    for folder in ("b", "b/0", "b/z"):
        (repo / folder).mkdir(parents=True, exist_ok=True)
    (repo / "b" / "AGENTS.md").write_text(_prose(33_000, 1), encoding="utf-8")
    for nested in ("b/0/AGENTS.md", "b/z/AGENTS.md"):
        (repo / nested).write_text("- Keep it short.\n", encoding="utf-8")
    project = find_project(repo)
    for paths in (
        ["b/AGENTS.md", "b/0/AGENTS.md", "b/z/AGENTS.md"],
        ["b/z/AGENTS.md", "b/0/AGENTS.md", "b/AGENTS.md"],
    ):
        said = [item.path for item in oversized(project, paths) if item.target == "agents"]
        assert said == ["b/AGENTS.md"]
