"""What each AI client loads at start from a repository's root, read from the disk: the field corpus's own oracle.

Independent of gitmem's plan (compile, explain, check), this follows the clients' reading rules as docs/clients.md
records them (measured with the real clients where it says so): which files each client loads when a session starts
at the root, links followed to their targets, `@` imports followed where the client follows them, Codex's 32 KiB cut.
A memory reaches a client as many times as its id appears in the text the client loads (gitmem ends each compiled
memory, full or index line, with its id in backticks). Nothing here imports gitmem.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Callable, Iterable
from pathlib import Path

CODEX_LIMIT = 32 * 1024
IMPORT = re.compile(r"(?:^|\s)@([\w./~-]+\.md)\b")
FRONTMATTER = re.compile(r"\A---\n(.*?)\n---\n", re.DOTALL)
# gitmem's targets -> the clients that are served when the target is configured (explain's client names)
SERVED = {
    "agents": ("codex", "opencode", "qwen"),
    "claude": ("claude",),
    "gemini": ("gemini",),
    "copilot": ("copilot",),
    "cline": ("cline",),
    "cursor": ("cursor",),
    "kiro": ("kiro",),
    "devin": ("devin",),
    "zoo": ("zoo",),
    "aider": ("aider",),
}


def read(path: Path) -> str | None:
    try:
        return path.read_text(encoding="utf-8", errors="replace") if path.is_file() else None
    except OSError:
        return None


def frontmatter(text: str) -> str:
    match = FRONTMATTER.match(text)
    return match.group(1) if match else ""


def imports(
    root: Path, path: Path, text: str, seen: set[Path], depth: int = 0
) -> list[tuple[Path, str]]:
    """The files ``text`` imports with `@path` (outside code), recursively (Claude Code follows 5 levels)."""
    out: list[tuple[Path, str]] = []
    if depth >= 5:
        return out
    in_code = False
    for line in text.splitlines():
        if line.lstrip().startswith(("```", "~~~")):
            in_code = not in_code
            continue
        if in_code:
            continue
        for match in IMPORT.finditer(line):
            target = (path.parent / match.group(1)).resolve()
            if not target.is_relative_to(root.resolve()) or target in seen:
                continue
            body = read(target)
            if body is None:
                continue
            seen.add(target)
            out.append((target, body))
            out.extend(imports(root, target, body, seen, depth + 1))
    return out


def files(root: Path, names: Iterable[str], follow: bool) -> list[tuple[Path, str]]:
    """The existing files of ``names`` under ``root`` (each real file once: a link and its target are one file, as a
    client that opens both reads the same text twice only where it opens two paths; see ``twice_through_links``),
    with their imports when ``follow``."""
    out: list[tuple[Path, str]] = []
    seen: set[Path] = set()
    for name in names:
        path = root / name
        text = read(path)
        if text is None:
            continue
        real = path.resolve()
        out.append((real, text))
        seen.add(real)
        if follow:
            out.extend(imports(root, path, text, seen))
    return out


def rule_files(
    root: Path, folder: str, keep: Callable[[str], bool], suffixes: tuple[str, ...]
) -> list[str]:
    base = root / folder
    if not base.is_dir():
        return []
    found = []
    for path in sorted(base.rglob("*")):
        if path.suffix in suffixes and path.is_file() and keep(read(path) or ""):
            found.append(str(path.relative_to(root)))
    return found


def always(front: str) -> bool:
    return True


def cursor_always(text: str) -> bool:
    return bool(re.search(r"^alwaysApply:\s*true\s*$", frontmatter(text), re.MULTILINE))


def devin_always(text: str) -> bool:
    return bool(re.search(r"^trigger:\s*always_on\s*$", frontmatter(text), re.MULTILINE))


def kiro_always(text: str) -> bool:
    front = frontmatter(text)
    return not re.search(r"^inclusion:", front, re.MULTILINE) or bool(
        re.search(r"^inclusion:\s*always\s*$", front, re.MULTILINE)
    )


def unscoped(text: str) -> bool:
    return not re.search(r"^(paths|globs|applyTo):", frontmatter(text), re.MULTILINE)


def gemini_context_names(root: Path) -> list[str]:
    """`context.fileName` of the project's `.gemini/settings.json` (a name or a list), else GEMINI.md."""
    import json

    text = read(root / ".gemini" / "settings.json")
    names: object = None
    if text:
        try:
            data = json.loads(re.sub(r"^\s*//.*$", "", text, flags=re.MULTILINE))
        except ValueError:
            data = {}
        if isinstance(data, dict):
            context = data.get("context")
            names = (
                context.get("fileName")
                if isinstance(context, dict)
                else data.get("contextFileName")
            )
    if isinstance(names, str):
        return [names]
    if isinstance(names, list):
        return [n for n in names if isinstance(n, str)]
    return ["GEMINI.md"]


def aider_reads(root: Path) -> list[str]:
    text = read(root / ".aider.conf.yml") or ""
    match = re.search(r"^read:\s*\[(.*?)\]", text, re.MULTILINE)
    if match:
        return [item.strip().strip("\"'") for item in match.group(1).split(",") if item.strip()]
    return (
        re.findall(r"^\s+-\s+(\S+)", text.split("read:", 1)[1], re.MULTILINE)
        if "read:" in text
        else []
    )


def loaded(root: Path, client: str) -> list[tuple[Path, str]]:
    """The files ``client`` loads at start in ``root`` (each with its text)."""
    exists = lambda name: (root / name).is_file()  # noqa: E731
    if client == "claude":
        names = ["CLAUDE.md", ".claude/CLAUDE.md", "CLAUDE.local.md"]
        if not any(exists(n) for n in names[:2]):
            names.insert(0, "AGENTS.md")
        names += rule_files(root, ".claude/rules", unscoped, (".md",))
        return files(root, names, follow=True)
    if client == "codex":
        name = "AGENTS.override.md" if exists("AGENTS.override.md") else "AGENTS.md"
        return [
            (p, t.encode()[:CODEX_LIMIT].decode(errors="ignore"))
            for p, t in files(root, [name], follow=False)
        ]
    if client == "opencode":
        return files(root, ["AGENTS.md"] if exists("AGENTS.md") else ["CLAUDE.md"], follow=False)
    if client == "qwen":
        return files(root, ["AGENTS.md", "QWEN.md"], follow=False)
    if client == "gemini":
        return files(root, gemini_context_names(root), follow=True)
    if client == "copilot":
        names = [".github/copilot-instructions.md", "AGENTS.md", "GEMINI.md"]
        names += rule_files(root, ".claude/rules", unscoped, (".md",))
        got = files(root, names, follow=False) + files(root, ["CLAUDE.md"], follow=True)
        return same_text_once(got)
    if client == "cline":
        names = ["AGENTS.md"] + (
            rule_files(root, ".clinerules", always, (".md", ".txt")) or [".clinerules"]
        )
        return files(root, names, follow=False)
    if client == "cursor":
        names = [
            "AGENTS.md",
            ".cursorrules",
            *rule_files(root, ".cursor/rules", cursor_always, (".mdc", ".md")),
        ]
        return files(root, names, follow=False)
    if client == "devin":
        names = ["AGENTS.md", *rule_files(root, ".windsurf/rules", devin_always, (".md",))]
        names += rule_files(root, ".devin/rules", devin_always, (".md",))
        return files(root, names, follow=False)
    if client == "kiro":
        return files(
            root,
            ["AGENTS.md", *rule_files(root, ".kiro/steering", kiro_always, (".md",))],
            follow=False,
        )
    if client == "zoo":
        names = rule_files(root, ".roo/rules", always, (".md", ".txt"))
        return files(root, ["AGENTS.md"] + (names or [".roorules", ".clinerules"]), follow=False)
    if client == "aider":
        return files(root, aider_reads(root), follow=False)
    raise ValueError(f"no reading rules for {client}")


def same_text_once(got: list[tuple[Path, str]]) -> list[tuple[Path, str]]:
    """The Copilot CLI merges files whose text is identical (docs/clients.md, measured)."""
    out, texts, paths = [], set(), set()
    for path, text in got:
        if path in paths or text in texts:
            continue
        paths.add(path)
        texts.add(text)
        out.append((path, text))
    return out


def reached(root: Path, client: str, ids: Iterable[str]) -> Counter[str]:
    """How many times each memory id reaches ``client`` started at ``root``."""
    texts = [text for _path, text in loaded(root, client)]
    return Counter({mid: sum(text.count(f"`{mid}`") for text in texts) for mid in ids})


def served(targets: Iterable[str]) -> list[str]:
    """The clients gitmem serves for these configured targets."""
    out: list[str] = []
    for target in targets:
        out.extend(c for c in SERVED.get(target, ()) if c not in out)
    return out
