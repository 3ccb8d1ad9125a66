"""Record the layout of a public repository's AI rules files as a compact fixture (issue 30, the field corpus).

A layout is what gitmem meets when a team adopts it, never the text: the paths of the rules files and tool folders,
links and their targets, sizes, line counts, frontmatter keys (and the values that decide when a client loads a
rule: globs, applyTo, alwaysApply, ...), the heading structure (per section: level, lines, bytes, and how many bullets,
numbered items, code blocks, table rows and blank lines), `@` imports, the `.gitignore` lines that name a tool's
files, and the git hooks set-up (husky, which moves `core.hooksPath`).

Run it on the bare git directories the snapshot tool brings (``/work/.mirror/OWNER+NAME/repo``)::

    python tests/field/record.py --out tests/field/layouts.json /work/.mirror/*/repo

It reads the repository with ``git ls-tree`` and ``git cat-file`` only (nothing is checked out or run). The fixture
holds no prose: ``tests/field/build.py`` writes generated text of the same shape.
"""

from __future__ import annotations

import argparse
import json
import re
import subprocess
import sys
from pathlib import Path, PurePosixPath
from typing import Any

RULES_NAMES = {
    "AGENTS.md",
    "AGENT.md",
    "CLAUDE.md",
    "CLAUDE.local.md",
    "GEMINI.md",
    "QWEN.md",
    "WARP.md",
    "CONVENTIONS.md",
    ".cursorrules",
    ".windsurfrules",
    ".clinerules",
    ".roorules",
    ".rules",
}
TOOL_DIRS = (
    ".cursor/",
    ".claude/",
    ".windsurf/",
    ".devin/",
    ".clinerules/",
    ".kiro/",
    ".continue/",
    ".roo/",
    ".kilocode/",
    ".agents/",
    ".agent/",
    ".gemini/",
    ".codex/",
    ".opencode/",
    ".qwen/",
    ".junie/",
    ".augment/",
    ".trae/",
    ".amazonq/",
    ".husky/",
    ".github/instructions/",
    ".github/prompts/",
    ".github/agents/",
    ".github/chatmodes/",
    ".github/hooks/",
)
TOOL_FILES = {".github/copilot-instructions.md", ".mcp.json", "opencode.json", ".aider.conf.yml"}
SKIP_PARTS = {"node_modules", "vendor", "third_party", "__snapshots__"}
# Frontmatter values that decide when a client loads a rule: patterns and switches, never prose.
ACTIVATION_KEYS = {
    "alwaysApply",
    "globs",
    "applyTo",
    "trigger",
    "excludeAgent",
    "paths",
    "inclusion",
    "fileMatchPattern",
}
GITIGNORE_WORDS = re.compile(
    r"claude|agents?\b|agents?\.md|gemini|cursor|windsurf|devin|cline|kiro|continue|\.roo|kilocode|codex|opencode|qwen|"
    r"junie|augment|copilot|aider|\.mcp|\.memory|conventions|\.rules|skills|\.husky|\.github|warp",
    re.IGNORECASE,
)
MAX_FILES = 150  # per repository; the rest counted, not recorded

HEADING = re.compile(r"^(#{1,6})\s")
BULLET = re.compile(r"^\s*[-*+]\s")
NUMBERED = re.compile(r"^\s*\d+[.)]\s")
FENCE = re.compile(r"^\s*(```|~~~)")
IMPORT = re.compile(r"(?:^|\s)@([\w./~-]+\.md)\b")


def git(gitdir: Path, *args: str) -> bytes:
    return subprocess.run(
        ["git", f"--git-dir={gitdir}", *args], capture_output=True, check=True
    ).stdout


def is_interesting(path: str) -> bool:
    parts = PurePosixPath(path).parts
    if SKIP_PARTS & set(parts):
        return False
    name = parts[-1]
    if name in RULES_NAMES or path in TOOL_FILES or name.endswith(".mdc"):
        return True
    if name == "SKILL.md":
        return True
    padded = "/" + path
    return any(f"/{d}" in padded for d in TOOL_DIRS)


def frontmatter(lines: list[str]) -> tuple[int, dict[str, Any]]:
    """The number of frontmatter lines (fences included) and its keys (activation keys with their values)."""
    if not lines or lines[0].strip() != "---":
        return 0, {}
    keys: dict[str, Any] = {}
    for i in range(1, len(lines)):
        if lines[i].strip() == "---":
            return i + 1, keys
        match = re.match(r"^([A-Za-z_][\w-]*):\s*(.*)$", lines[i])
        if match:
            key, value = match.group(1), match.group(2).strip()
            keys[key] = _activation_value(value, lines, i) if key in ACTIVATION_KEYS else None
    return 0, {}


def _activation_value(value: str, lines: list[str], i: int) -> Any:
    if value:
        if value in ("true", "false"):
            return value == "true"
        return value.strip("\"'")
    items = []
    for line in lines[i + 1 :]:
        item = re.match(r"^\s+-\s+(.*)$", line)
        if not item:
            break
        items.append(item.group(1).strip().strip("\"'"))
    return items


def shape(text: str) -> dict[str, Any]:
    """Sections (split at headings outside code) with their counts; `@` import lines with their targets."""
    lines = text.split("\n")
    trailing_newline = text.endswith("\n")
    if trailing_newline:
        lines = lines[:-1]
    fm_lines, fm_keys = frontmatter(lines)
    fm_bytes = sum(len(line.encode()) + 1 for line in lines[:fm_lines])
    sections: list[dict[str, Any]] = []
    current = _section(0)
    sections.append(current)
    in_code = False
    imports: list[str] = []
    for line in lines[fm_lines:]:
        size = len(line.encode()) + 1
        if in_code:
            current["code_lines"] += 1
            if FENCE.match(line):
                in_code = False
        elif FENCE.match(line):
            in_code = True
            current["code"] += 1
            current["code_lines"] += 1
        elif heading := HEADING.match(line):
            current = _section(len(heading.group(1)))
            sections.append(current)
        elif not line.strip():
            current["blank"] += 1
        elif BULLET.match(line):
            current["bullets"] += 1
        elif NUMBERED.match(line):
            current["numbered"] += 1
        elif line.lstrip().startswith("|"):
            current["table"] += 1
        elif line.lstrip().startswith(">"):
            current["quote"] += 1
        elif imp := IMPORT.search(line):
            # [target, inline]: a bare `@AGENTS.md` line, or an import inside a sentence ("See @AGENTS.md")
            imports.append([imp.group(1), line.strip() != "@" + imp.group(1)])
            current["imports"] += 1
        current["lines"] += 1
        current["bytes"] += size
    if not trailing_newline and sections:
        sections[-1]["bytes"] -= 1
    if sections[0]["lines"] == 0:
        sections.pop(0)
    compact = [{k: v for k, v in s.items() if v or k in ("h", "lines", "bytes")} for s in sections]
    out: dict[str, Any] = {"sections": compact}
    if fm_lines:
        out["frontmatter"] = {"lines": fm_lines, "bytes": fm_bytes, "keys": fm_keys}
    if imports:
        out["imports"] = imports
    if not trailing_newline:
        out["no_final_newline"] = True
    return out


def _section(level: int) -> dict[str, Any]:
    return {
        "h": level,
        "lines": 0,
        "bytes": 0,
        "bullets": 0,
        "numbered": 0,
        "code": 0,
        "code_lines": 0,
        "table": 0,
        "quote": 0,
        "blank": 0,
        "imports": 0,
    }


def json_shape(data: bytes) -> dict[str, Any]:
    """Top-level keys of a JSON settings file, and the `context.fileName` a Gemini settings file names."""
    try:
        value = json.loads(data)
    except ValueError:
        return {"invalid_json": True}
    if not isinstance(value, dict):
        return {}
    out: dict[str, Any] = {"keys": sorted(value)}
    context = value.get("context")
    if isinstance(context, dict) and "fileName" in context:
        out["context_file_name"] = context["fileName"]
    if "contextFileName" in value:
        out["context_file_name"] = value["contextFileName"]
    return out


def aider_reads(data: bytes) -> list[str]:
    """The files `.aider.conf.yml` has aider read (`read: [A, B]` or a block list)."""
    text = data.decode(errors="replace")
    match = re.search(r"^read:\s*\[(.*?)\]", text, re.MULTILINE)
    if match:
        return [item.strip().strip("\"'") for item in match.group(1).split(",") if item.strip()]
    match = re.search(r"^read:\s*(\S+)\s*$", text, re.MULTILINE)
    if match:
        return [match.group(1).strip("\"'")]
    lines = text.splitlines()
    for i, line in enumerate(lines):
        if line.startswith("read:"):
            return [
                m.group(1).strip("\"'")
                for m in map(re.compile(r"^\s+-\s+(.*)$").match, lines[i + 1 :])
                if m
            ]
    return []


def record(gitdir: Path, name: str | None = None) -> dict[str, Any]:
    commit = git(gitdir, "rev-parse", "HEAD").decode().strip()
    listing = git(gitdir, "ls-tree", "-r", "-l", "-z", "HEAD").decode(errors="replace").split("\0")
    entries = []
    for row in listing:
        if not row:
            continue
        meta, path = row.split("\t", 1)
        mode, kind, sha, size = meta.split()
        entries.append((path, mode, kind, sha, size))
    all_paths = {e[0] for e in entries}
    files: list[dict[str, Any]] = []
    chosen = [e for e in entries if is_interesting(e[0]) and e[2] == "blob"]
    chosen = [e for e in chosen if not is_skill_extra(e[0])] + link_targets(gitdir, chosen, entries)
    skills = skill_bundles(entries)
    # rules files first, then tool folders, so the cap drops the long tails of tool folders (commands, scripts)
    chosen.sort(key=lambda e: (PurePosixPath(e[0]).name not in RULES_NAMES, e[0]))
    for entry in chosen[:MAX_FILES]:
        files.append(describe(gitdir, entry))
    # the files the recorded ones import (`@CONTRIBUTING.md`), where they are not recorded already
    by_path = {e[0]: e for e in entries}
    have = {f["path"] for f in files}
    for item in list(files):
        for target, _inline in item.get("imports", []):
            full = normalise(str(PurePosixPath(item["path"]).parent / target))
            if full in by_path and full not in have:
                files.append(describe(gitdir, by_path[full]))
                have.add(full)
    files.sort(key=lambda f: f["path"])
    layout: dict[str, Any] = {
        "name": name or gitdir.parent.name.replace("+", "/"),
        "commit": commit,
        "files_total": len(entries),
        "files": files,
    }
    if len(chosen) > MAX_FILES:
        layout["files_not_recorded"] = len(chosen) - MAX_FILES
    if skills:
        layout["skill_extras"] = skills
    ignores = {}
    for path, _mode, _kind, sha, _size in entries:
        if PurePosixPath(path).name == ".gitignore" and (
            path == ".gitignore" or is_interesting(path)
        ):
            text = git(gitdir, "cat-file", "blob", sha).decode(errors="replace")
            lines = [
                line
                for line in text.splitlines()
                if GITIGNORE_WORDS.search(line) and not line.startswith("#")
            ]
            if lines or path != ".gitignore":
                ignores[path] = lines
    if ignores:
        layout["gitignore"] = ignores
    hooks = hooks_setup(gitdir, all_paths)
    if hooks:
        layout["hooks"] = hooks
    return layout


def describe(gitdir: Path, entry: tuple[str, str, str, str, str]) -> dict[str, Any]:
    """One file's layout: a link and its target, or its size, lines and shape."""
    path, mode, _kind, sha, size = entry
    item: dict[str, Any] = {"path": path}
    if mode == "120000":
        item["link"] = git(gitdir, "cat-file", "blob", sha).decode()
        return item
    data = git(gitdir, "cat-file", "blob", sha)
    item["bytes"] = int(size)
    item["lines"] = data.count(b"\n") + (0 if data.endswith(b"\n") or not data else 1)
    if mode == "100755":
        item["exec"] = True
    if path.endswith((".md", ".mdc", ".markdown")) or PurePosixPath(path).name in RULES_NAMES:
        item.update(shape(data.decode(errors="replace")))
    elif path.endswith(".json"):
        item.update(json_shape(data))
    elif PurePosixPath(path).name == ".aider.conf.yml":
        item["aider_read"] = aider_reads(data)
    return item


def normalise(path: str) -> str:
    """``a/b/../c`` -> ``a/c`` (a link target or import, resolved inside the repository)."""
    parts: list[str] = []
    for part in PurePosixPath(path).parts:
        if part == "..":
            if parts:
                parts.pop()
        elif part != ".":
            parts.append(part)
    return "/".join(parts)


def skill_folder(path: str) -> str | None:
    """The skill folder a file belongs to (`…/skills/NAME`), or None."""
    parts = PurePosixPath(path).parts
    for i, part in enumerate(parts[:-2]):
        if part == "skills":
            return "/".join(parts[: i + 2])
    return None


def is_skill_extra(path: str) -> bool:
    """A file of a skill bundle other than its entry files: counted per bundle, not recorded one by one."""
    return skill_folder(path) is not None and PurePosixPath(path).name not in RULES_NAMES | {
        "SKILL.md"
    }


def skill_bundles(entries: list[tuple[str, str, str, str, str]]) -> dict[str, list[int]]:
    """Per skill folder: how many other files it holds and their total bytes."""
    out: dict[str, list[int]] = {}
    for path, mode, kind, _sha, size in entries:
        if kind == "blob" and mode != "120000" and is_interesting(path) and is_skill_extra(path):
            folder = skill_folder(path) or ""
            count = out.setdefault(folder, [0, 0])
            count[0] += 1
            count[1] += int(size)
    return out


def link_targets(
    gitdir: Path,
    chosen: list[tuple[str, str, str, str, str]],
    entries: list[tuple[str, str, str, str, str]],
) -> list[tuple[str, str, str, str, str]]:
    """The files links among ``chosen`` point to, where they are not chosen already (CLAUDE.md -> CONTRIBUTING.md)."""
    by_path = {e[0]: e for e in entries}
    have = {e[0] for e in chosen}
    extra = []
    for path, mode, _kind, sha, _size in chosen:
        if mode != "120000":
            continue
        target = git(gitdir, "cat-file", "blob", sha).decode()
        full = normalise(str(PurePosixPath(path).parent / target))
        if full in by_path and full not in have:
            extra.append(by_path[full])
            have.add(full)
    return extra


def hooks_setup(gitdir: Path, paths: set[str]) -> dict[str, Any]:
    """Which hook manager the repository uses, and the core.hooksPath it sets on `npm install`."""
    out: dict[str, Any] = {}
    if any(p.startswith(".husky/") for p in paths):
        prepare = ""
        if "package.json" in paths:
            try:
                scripts = json.loads(git(gitdir, "show", "HEAD:package.json")).get("scripts", {})
                prepare = str(scripts.get("prepare", "") or scripts.get("postinstall", ""))
            except (ValueError, AttributeError):
                prepare = ""
        # husky 9 (`prepare: husky`) points core.hooksPath at .husky/_; husky 5-8 (`husky install`) at .husky
        out["manager"] = "husky"
        out["hooks_path"] = ".husky" if "husky install" in prepare else ".husky/_"
        out["hooks"] = sorted(
            p.split("/", 1)[1] for p in paths if p.startswith(".husky/") and p.count("/") == 1
        )
    for name in (".pre-commit-config.yaml", "lefthook.yml", ".lefthook.yml"):
        if name in paths:
            out.setdefault("config", []).append(name)
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "gitdirs", nargs="+", type=Path, help="bare git directories (…/OWNER+NAME/repo)"
    )
    parser.add_argument("--out", type=Path, help="the fixture to update (default: print)")
    parser.add_argument(
        "--meta", type=Path, help="JSON {name: {language, note}} merged into each layout"
    )
    args = parser.parse_args(argv)
    layouts = {}
    if args.out and args.out.exists():
        layouts = {item["name"]: item for item in json.loads(args.out.read_text())}
    meta = json.loads(args.meta.read_text()) if args.meta else {}
    for gitdir in args.gitdirs:
        layout = record(gitdir)
        layout.update(meta.get(layout["name"], {}))
        layouts[layout["name"]] = layout
        print(f"{layout['name']}: {len(layout['files'])} files", file=sys.stderr)
    ordered = [layouts[k] for k in sorted(layouts)]
    text = "[\n" + ",\n".join(json.dumps(item, separators=(",", ":")) for item in ordered) + "\n]\n"
    if args.out:
        args.out.write_text(text)
    else:
        sys.stdout.write(text)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
