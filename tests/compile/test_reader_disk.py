"""The reader model on the disk (issue 30): a root AGENTS.md that is a link into the repository gets
gitmem's block written through it, `stats` never counts negative tokens, `explain` reads the files
from the disk (for any client that reads them), and `check` fails, one line per difference, when a
client would read a file git ignores."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

from tests.compile.conftest import WriteMemory, apply_ignore_fix, set_config
from tests.conftest import Run


def _git(project: Path, *args: str) -> None:
    subprocess.run(
        ["git", "-c", "user.name=t", "-c", "user.email=t@e", *args], cwd=project, check=True
    )


def test_a_linked_root_agents_md_gets_the_block_and_each_client_counts_it_once(
    project: Path, memory: WriteMemory, run: Run
) -> None:
    (project / ".agents").mkdir()
    (project / ".agents" / "AGENTS.md").write_text("# Team\n\nOur own words.\n", encoding="utf-8")
    (project / "AGENTS.md").symlink_to(".agents/AGENTS.md")
    (project / "CLAUDE.md").symlink_to("AGENTS.md")
    memory("use-pnpm", "Use pnpm")
    result = run("compile")
    assert result.code == 0, result.err
    text = (project / ".agents" / "AGENTS.md").read_text(encoding="utf-8")
    assert text.startswith("# Team\n\nOur own words.\n") and text.count("(`use-pnpm`)") == 1
    assert (project / "AGENTS.md").is_symlink() and (project / "CLAUDE.md").is_symlink()
    assert not (
        project / ".claude" / "CLAUDE.md"
    ).exists()  # Claude Code reads the hub through CLAUDE.md
    stats = json.loads(run("stats", "--json").out)["targets"]
    assert all(target["tokens"] >= 0 for target in stats)
    agents = next(target for target in stats if target["name"] == "agents")
    views = {v["name"]: v for v in json.loads(run("explain", "--json").out)["clients"]}
    for name in ("claude", "codex"):
        assert [item["id"] for item in views[name]["full"]] == ["use-pnpm"], name
        (read,) = views[name]["files"]
        assert read["real"] == ".agents/AGENTS.md" and read["hand_written_tokens"] > 0
        assert read["tokens"] == agents["files"][0]["tokens"]  # the same count as stats
    # a client whose target is not configured, but which reads AGENTS.md
    (copilot,) = json.loads(run("explain", "--client", "copilot", "--json").out)["clients"]
    assert [item["id"] for item in copilot["full"]] == ["use-pnpm"]
    _git(project, "add", "-A")
    assert run("check").code == 0


def test_check_fails_when_a_client_relies_on_a_file_git_ignores(
    project: Path, memory: WriteMemory, run: Run
) -> None:
    (project / ".agents").mkdir()
    (project / ".agents" / "AGENTS.md").write_text("# Team\n", encoding="utf-8")
    (project / "AGENTS.md").symlink_to(".agents/AGENTS.md")
    memory("use-pnpm", "Use pnpm")
    assert run("compile").code == 0
    _git(project, "add", "-A")
    _git(project, "commit", "-qm", "init")
    assert run("check").code == 0
    (project / ".gitignore").write_text(".agents/\n", encoding="utf-8")
    _git(project, "rm", "-q", "--cached", ".agents/AGENTS.md")
    _git(project, "add", ".gitignore")
    checked = run("check")
    assert checked.code == 1
    assert (
        "AGENTS.md is ignored by git: git never looks inside .agents/, which it ignores: add "
        "`!/.agents/`, `/.agents/*` and `!/.agents/AGENTS.md` at the end of .gitignore"
        in checked.out
    )  # on 60c3904, `!.agents/AGENTS.md` alone, which changed nothing
    apply_ignore_fix(project, checked.out)
    _git(project, "add", "-A")
    assert run("check").code == 0


def test_a_linked_claude_md_beside_copilot_gets_no_second_copy(
    project: Path, memory: WriteMemory, run: Run
) -> None:
    """Shape 3: CLAUDE.md -> AGENTS.md beside a Copilot file. On 6dd9a58 compile added
    .claude/CLAUDE.md with a second copy of the block (Claude Code read each memory twice) and
    `explain` named only that file."""
    set_config(project, targets=["agents", "claude", "copilot"])
    (project / "AGENTS.md").write_text("# Team\n", encoding="utf-8")
    (project / "CLAUDE.md").symlink_to("AGENTS.md")
    memory("use-pnpm", "Use pnpm")
    memory("claude-only", "Use the /review command", targets=["claude"])
    memory("tabs", "Web uses tabs", paths=["web/**"])
    result = run("compile")
    assert result.code == 0, result.err
    assert "more than once" not in result.err
    private = (project / ".claude" / "CLAUDE.md").read_text(encoding="utf-8")
    assert "(`claude-only`)" in private and "(`use-pnpm`)" not in private  # only what the hub lacks
    assert (
        "(`tabs`)" in private
    )  # Claude Code reads no web/AGENTS.md beside a root CLAUDE.md (measured)
    (claude,) = json.loads(run("explain", "--client", "claude", "--json").out)["clients"]
    assert [f["path"] for f in claude["files"]] == ["CLAUDE.md", ".claude/CLAUDE.md"]
    assert sorted(item["id"] for item in claude["full"]) == [
        "claude-only",
        "tabs",
        "use-pnpm",
    ]  # tabs: a heading
    _git(project, "add", "-A")
    assert run("check").code == 0


def test_nothing_is_placed_in_a_claude_folder_git_ignores(
    project: Path, memory: WriteMemory, run: Run
) -> None:
    """Shape 3, git-ignored: beside Copilot, Claude Code's copy went to .claude/CLAUDE.md even where
    git ignores .claude/ (6dd9a58): `check` passed here and failed in every fresh clone. Now no file
    of its own: without a CLAUDE.md, Claude Code reads AGENTS.md, and `check` passes in a fresh
    clone too."""
    set_config(project, targets=["agents", "claude", "copilot"])
    (project / ".gitignore").write_text(".claude/\n", encoding="utf-8")
    memory("use-pnpm", "Use pnpm")
    result = run("compile")
    assert result.code == 0, result.err
    assert not (project / ".claude" / "CLAUDE.md").exists() and not (project / "CLAUDE.md").exists()
    (claude,) = json.loads(run("explain", "--client", "claude", "--json").out)["clients"]
    assert [(f["path"], f["how"]) for f in claude["files"]] == [("AGENTS.md", "fallback")]
    _git(project, "add", "-A")
    _git(project, "commit", "-qm", "compiled")
    assert run("check").code == 0
    clone = project.parent / "clone"
    subprocess.run(["git", "clone", "-q", str(project), str(clone)], check=True)
    checked = subprocess.run(
        ["gitmem", "check"], cwd=clone, capture_output=True, text=True, check=False
    )
    assert checked.returncode == 0, checked.stdout + checked.stderr


def test_check_in_a_fresh_clone_of_a_linked_layout(
    project: Path, memory: WriteMemory, run: Run
) -> None:
    """Shape 1 in CI: AGENTS.md -> .agents/AGENTS.md and CLAUDE.md -> AGENTS.md, nested the same;
    `gitmem check` in a fresh clone finds every memory arriving once for every client."""
    (project / ".agents").mkdir()
    (project / ".agents" / "AGENTS.md").write_text("# Team\n", encoding="utf-8")
    (project / "AGENTS.md").symlink_to(".agents/AGENTS.md")
    (project / "CLAUDE.md").symlink_to("AGENTS.md")
    (project / "web").mkdir()
    (project / "web" / "AGENTS.md").write_text("# Web\n", encoding="utf-8")
    (project / "web" / "CLAUDE.md").symlink_to("AGENTS.md")
    memory("use-pnpm", "Use pnpm")
    memory("tabs", "Web uses tabs", paths=["web/**"])
    result = run("compile")
    assert result.code == 0, result.err
    assert (project / "web" / "CLAUDE.md").is_symlink()
    assert "(`tabs`)" in (project / "web" / "AGENTS.md").read_text(encoding="utf-8")
    (claude,) = json.loads(run("explain", "web", "--client", "claude", "--json").out)["clients"]
    assert sorted(item["id"] for item in claude["full"]) == ["tabs", "use-pnpm"]
    _git(project, "add", "-A")
    _git(project, "commit", "-qm", "compiled")
    clone = project.parent / "clone"
    subprocess.run(["git", "clone", "-q", str(project), str(clone)], check=True)
    checked = subprocess.run(
        ["gitmem", "check"], cwd=clone, capture_output=True, text=True, check=False
    )
    assert checked.returncode == 0, checked.stdout + checked.stderr


def test_devin_desktop_reading_agents_and_claude_md_gets_each_memory_once(
    project: Path, memory: WriteMemory, run: Run
) -> None:
    """Devin Desktop's default agent reads AGENTS.md and CLAUDE.md both as always-on rules (its
    docs): on 6dd9a58 both held every memory (each reached it twice). Now CLAUDE.md keeps the team's
    text and Claude Code's copy goes where Devin does not read it."""
    set_config(project, targets=["agents", "claude", "devin"])
    (project / "CLAUDE.md").write_text("# Claude notes\n", encoding="utf-8")
    memory("use-pnpm", "Use pnpm")
    result = run("compile")
    assert result.code == 0, result.err
    assert "(`use-pnpm`)" not in (project / "CLAUDE.md").read_text(encoding="utf-8")
    (devin,) = json.loads(run("explain", "--client", "devin", "--json").out)["clients"]
    assert [item["id"] for item in devin["full"]] == ["use-pnpm"]
    assert sorted(f["path"] for f in devin["files"]) == ["AGENTS.md", "CLAUDE.md"]
    _git(project, "add", "-A")
    assert run("check").code == 0


def test_copilot_code_review_gets_the_hub_from_what_git_tracks(
    project: Path, memory: WriteMemory, run: Run
) -> None:
    """Copilot code review reads .github/copilot-instructions.md and AGENTS.md from the pull
    request's tree (GitHub's support table): `check` verifies that it gets each memory once, and
    fails when the file it relies on is not tracked (6dd9a58 knew no such reader: `explain --client
    copilot-review` was a usage error)."""
    set_config(project, targets=["agents", "copilot"])
    memory("use-pnpm", "Use pnpm")
    memory("review-only", "Flag raw SQL in reviews", targets=["copilot"])
    assert run("compile").code == 0
    _git(project, "add", "-A")
    (review,) = json.loads(run("explain", "--client", "copilot-review", "--json").out)["clients"]
    assert sorted(item["id"] for item in review["full"]) == ["review-only", "use-pnpm"]
    assert run("check").code == 0
    _git(project, "rm", "-q", "--cached", "AGENTS.md")
    checked = run("check")
    assert checked.code == 1
    assert "GitHub Copilot code review: memory use-pnpm does not reach it" in checked.out


def test_a_memory_missed_only_in_a_folder_is_not_told_to_compile_again(
    project: Path, memory: WriteMemory, run: Run
) -> None:
    """The team's .gemini/settings.json names AGENTS.md: Gemini CLI started at the root reads it,
    started in web/ it reads no root settings (measured), so it misses the hub's memories there.
    Compiling again changes nothing: check says why, not `gitmem compile`."""
    set_config(project, targets=["agents", "gemini"])
    (project / ".gemini").mkdir()
    (project / ".gemini" / "settings.json").write_text(
        '{"context": {"fileName": ["AGENTS.md"]}}\n', "utf-8"
    )
    memory("use-pnpm", "Use pnpm")
    memory("web-only", "Web uses vite", paths=["web/**"])
    assert run("compile").code == 0
    _git(project, "add", "-A")
    _git(project, "commit", "-q", "-m", "rules")
    checked = run("check")
    assert checked.code == 1  # web-only misses Gemini CLI in web/ (it reads no web/GEMINI.md)
    assert "use-pnpm" not in checked.out  # the client's own limit: said, not failed
    line = next(line for line in checked.out.splitlines() if "started in web/: 1 of" in line)
    assert "reach it only when started at the root" in line
    assert "started here it follows none of the root's settings or imports" in line
    assert "run `gitmem compile`" not in line


def test_claude_md_importing_agents_md_is_green_for_sessions_at_the_root(
    project: Path, memory: WriteMemory, run: Run
) -> None:
    """Field corpus, vitest: CLAUDE.md is only `@AGENTS.md`, and docs/ has its own AGENTS.md. Claude
    Code started in docs/ follows no import above its folder (measured), so there it gets none of
    the root's memories; a second copy in CLAUDE.md would reach every root session twice. gitmem's
    placement is right: check passes, and says which sessions read less and why (before, it failed
    and said `gitmem compile`, which changed nothing)."""
    set_config(project, targets=["agents", "claude"])
    (project / "CLAUDE.md").write_text("@AGENTS.md\n", encoding="utf-8")
    (project / "docs").mkdir()
    (project / "docs" / "AGENTS.md").write_text("# Docs\n\nWrite short pages.\n", "utf-8")
    memory("use-pnpm", "Use pnpm")
    memory("docs-style", "Docs pages use sentence case", paths=["docs/**"])
    compiled = run("compile")
    assert compiled.code == 0, compiled.err
    _git(project, "add", "-A")
    _git(project, "commit", "-q", "-m", "rules")
    checked = run("check")
    assert checked.code == 0, checked.out
    assert "Claude Code started in docs/: 1 of its memories reach it only when started at" in (
        checked.out
    )
    assert "run `gitmem compile`" not in checked.out


def test_codex_chain_limit_is_codex_s_not_every_agents_md_reader(
    project: Path, memory: WriteMemory, run: Run
) -> None:
    """Codex cuts the AGENTS.md files of a chain past 32 KiB; opencode and Qwen Code read the same
    files whole. A chain over by the team's text alone is Codex's fault line only (on main it named
    opencode, Codex and Qwen Code)."""
    set_config(project, targets=["agents"])
    (project / "AGENTS.md").write_text("# Guide\n\n" + "Prose line of the guide.\n" * 900, "utf-8")
    (project / "web").mkdir()
    (project / "web" / "AGENTS.md").write_text("# Web\n\n" + "Web prose line.\n" * 800, "utf-8")
    memory("use-pnpm", "Use pnpm")
    memory("web-vite", "Web uses vite", paths=["web/**"])
    assert run("compile").code == 0
    _git(project, "add", "-A")
    _git(project, "commit", "-q", "-m", "rules")
    checked = run("check")
    over = [line for line in checked.out.splitlines() if "is past a hard size limit" in line]
    assert len(over) == 1 and over[0].strip().startswith("Codex started in web/: web/AGENTS.md")


def test_stats_counts_what_each_targets_client_reads_through_a_link_or_an_import(
    project: Path, memory: WriteMemory, run: Run
) -> None:
    """Round 45, on real layouts: fluidd's `CLAUDE.md` and `.github/copilot-instructions.md` are
    links to `AGENTS.md`; authorizer's `CLAUDE.md` is the one line `@AGENTS.md`, its Copilot file a
    link to it. Compile writes the block once, into `AGENTS.md`; `stats` counted nothing for
    `claude` and `copilot`, whose clients read it. It counts what each target's client reads, as
    `explain` does."""
    set_config(project, targets=["agents", "claude", "copilot"])
    (project / "AGENTS.md").write_text("# Team\n\nOur own words.\n", encoding="utf-8")
    (project / ".github").mkdir()
    memory("use-pnpm", "Use pnpm")
    for claude in ("link", "import"):
        for path in (project / "CLAUDE.md", project / ".github" / "copilot-instructions.md"):
            path.unlink(missing_ok=True)
        if claude == "link":
            (project / "CLAUDE.md").symlink_to("AGENTS.md")
            (project / ".github" / "copilot-instructions.md").symlink_to("../AGENTS.md")
        else:
            (project / "CLAUDE.md").write_text("@AGENTS.md\n", encoding="utf-8")
            (project / ".github" / "copilot-instructions.md").symlink_to("../CLAUDE.md")
        result = run("compile")
        assert result.code == 0, result.err
        assert (project / "AGENTS.md").read_text(encoding="utf-8").count("(`use-pnpm`)") == 1
        stats = {t["name"]: t for t in json.loads(run("stats", "--json").out)["targets"]}
        views = {v["name"]: v for v in json.loads(run("explain", "--json").out)["clients"]}
        hub = stats["agents"]["tokens"]
        assert hub > 0
        # the Copilot CLI reads AGENTS.md, and again through CLAUDE.md's import (measured:
        # tests/clients/test_reader.py); Claude Code reads it once
        twice = 2 if claude == "import" else 1
        for target, times in (("claude", 1), ("copilot", twice)):
            assert stats[target]["tokens"] == hub * times, (claude, target)
            assert sum(item["tokens"] for item in views[target]["files"]) == hub * times, claude


def test_a_linked_root_file_with_no_file_of_its_own_names_the_fix_that_mends_it(
    project: Path, memory: WriteMemory, run: Run
) -> None:
    """`CLAUDE.md -> AGENTS.md` beside Copilot, where git ignores `.claude/`: a memory for Claude Code alone has no
    file to go to (its copy would go to `.claude/CLAUDE.md`, which a fresh clone lacks). Compile fails naming it, with
    the fix: letting git track `.claude/CLAUDE.md`, which, applied, makes `check` pass. On ed89a6a the error's fix was
    "run `gitmem compile`", which changed nothing; on 69dad26 it named a copy in place of the link first, which keeps
    Claude Code's copy where the Copilot CLI reads it beside `AGENTS.md` (the next test)."""
    set_config(project, targets=["agents", "claude", "copilot"])
    (project / "AGENTS.md").write_text("# Team\n\nOur own words.\n", encoding="utf-8")
    (project / "CLAUDE.md").symlink_to("AGENTS.md")
    (project / ".gitignore").write_text(".claude/\n", encoding="utf-8")
    memory("use-pnpm", "Use pnpm")
    memory("claude-only", "Use the Read tool", targets=["claude"])
    result = run("compile")
    assert result.code == 1, result.err
    assert "memory claude-only does not reach it" in result.err, result.err
    assert "`rm CLAUDE.md && cp AGENTS.md CLAUDE.md`" not in result.err, result.err
    assert "let git track .claude/CLAUDE.md" in result.err, result.err
    apply_ignore_fix(project, result.err)  # as the message says (60c3904's changed nothing)
    assert run("compile").code == 0
    _git(project, "add", "-A")
    _git(project, "commit", "-qm", "compiled")
    checked = run("check")
    assert checked.code == 0, checked.out


def test_a_root_file_linked_to_another_target_s_own_file_names_the_fix_that_works(
    project: Path, memory: WriteMemory, run: Run
) -> None:
    """`GEMINI.md -> CLAUDE.md`, where `CLAUDE.md` is the team's own file, not the hub: a memory for Gemini CLI alone
    can go to no file (what `GEMINI.md` holds, Claude Code reads). Compile fails naming the copy, and the copy, made as
    the message says, makes the next compile and `check` pass."""
    set_config(project, targets=["agents", "claude", "gemini"])
    (project / "CLAUDE.md").write_text("# Claude notes\n", encoding="utf-8")
    (project / "GEMINI.md").symlink_to("CLAUDE.md")
    memory("use-pnpm", "Use pnpm")
    memory("tabs", "Web uses tabs", paths=["web/**"])
    memory("gemini-only", "Use the shell tool", targets=["gemini"])
    (project / "web").mkdir()
    (project / "web" / "app.ts").write_text("export {}\n", encoding="utf-8")
    result = run("compile")
    assert result.code == 1, result.err
    assert "memory gemini-only does not reach it" in result.err, result.err
    copy = "rm GEMINI.md && cp CLAUDE.md GEMINI.md"
    assert f"make GEMINI.md a copy (`{copy}`)" in result.err, result.err
    (project / "GEMINI.md").unlink()
    (project / "GEMINI.md").write_bytes((project / "CLAUDE.md").read_bytes())
    assert run("compile").code == 0
    assert "(`gemini-only`)" not in (project / "CLAUDE.md").read_text(encoding="utf-8")
    _git(project, "add", "-A")
    _git(project, "commit", "-qm", "compiled")
    checked = run("check")
    assert checked.code == 0, checked.out


def test_a_memory_for_claude_code_alone_where_git_ignores_its_folder_names_the_ignore_fix(
    project: Path, memory: WriteMemory, run: Run
) -> None:
    """Field layout (argo-cd's `.gitignore` holds `.claude`), beside Copilot and with no `CLAUDE.md`: a memory for
    Claude Code alone has no file to go to (a root `CLAUDE.md` the Copilot CLI would read too). On 13804d0 compile
    failed saying "run `gitmem compile`", which changed nothing; now it names letting git track `.claude/CLAUDE.md`,
    and that fix, applied as written, makes compile and `check` pass."""
    set_config(project, targets=["agents", "claude", "copilot"])
    (project / ".gitignore").write_text(".claude\n", encoding="utf-8")
    memory("use-pnpm", "Use pnpm")
    memory("claude-only", "Use the Read tool", targets=["claude"])
    result = run("compile")
    assert result.code == 1, result.err
    assert (
        "memory claude-only does not reach it: no file of its own holds it: let git track"
        in result.err
    )
    assert "run `gitmem compile` (then" not in result.err.split("let git track")[0]
    apply_ignore_fix(project, result.err)
    assert run("compile").code == 0
    assert "(`claude-only`)" in (project / ".claude" / "CLAUDE.md").read_text(encoding="utf-8")
    _git(project, "add", "-A")
    _git(project, "commit", "-qm", "compiled")
    checked = run("check")
    assert checked.code == 0, checked.out


def test_a_linked_claude_md_where_git_ignores_claude_s_folder_names_only_the_fix_that_mends_it(
    project: Path, memory: WriteMemory, run: Run
) -> None:
    """ragflow's layout, in the new-user run: ``CLAUDE.md -> AGENTS.md``, ``.claude/`` in `.gitignore`, a
    hand-written ``web/CLAUDE.md``, beside Copilot. A memory for ``web/**`` reaches Claude Code started in `web/`
    from no file. On 69dad26 compile named two fixes, making ``CLAUDE.md`` a copy first: done as written, the copy
    held Claude Code's copy of the root memory, which the Copilot CLI then read twice, and `check` failed again. Now
    it names the one that mends it, letting git track ``.claude/CLAUDE.md``, and done as written, compile and
    `check` pass."""
    set_config(project, targets=["agents", "claude", "copilot"])
    (project / ".gitignore").write_text(".claude/\n", encoding="utf-8")
    (project / "AGENTS.md").write_text("# Agents\n\nUse the Makefile.\n", encoding="utf-8")
    (project / "CLAUDE.md").symlink_to("AGENTS.md")
    (project / "web").mkdir()
    (project / "web" / "CLAUDE.md").write_text("# Web\n\nRun `npm test` here.\n", encoding="utf-8")
    memory("use-pnpm", "Use pnpm")
    memory("web-tests", "Run the folder's own tests first", paths=["web/**"])
    result = run("compile")
    assert (
        "CLAUDE.md is a link to AGENTS.md, and no file of its own holds it: let git track"
        in result.err
    )
    assert "a copy" not in result.err, result.err
    apply_ignore_fix(project, result.err)
    assert run("compile").code == 0
    _git(project, "add", "-A")
    _git(project, "commit", "-qm", "compiled")
    checked = run("check")
    assert checked.code == 0, checked.out
    assert (project / "CLAUDE.md").is_symlink()
