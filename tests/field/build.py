"""Build a recorded layout (``tests/field/layouts.json``) as a real git repository with generated text of its shape.

Every recorded file is written at its path with the same bytes and lines as far as the shape allows: the same
frontmatter keys (and the values that decide activation), the same headings (levels and order), and in each section
the same number of bullets, numbered items, code blocks and their lines, table rows, quotes, blank lines and `@`
imports; links are links to the same targets; the `.gitignore` lines that name tool files are the recorded ones;
husky's `core.hooksPath` is set as `npm install` would set it. The words are generated (seeded by the repository and
path, so a build is reproducible): nothing of the original text is in the fixture or here.
"""

from __future__ import annotations

import json
import os
import random
import subprocess
from pathlib import Path, PurePosixPath
from typing import Any

HERE = Path(__file__).parent
LAYOUTS = HERE / "layouts.json"

WORD_TEXT = (
    "build cache client config test module parser request handler schema index layer service worker "
    "queue record field value option flag token stream buffer socket route model view store state event "
    "hook plugin adapter driver runner task job step stage check lint format docs guide example sample "
    "fixture helper util error retry timeout limit budget scope path folder package import export "
    "release version branch commit merge review change patch update migrate upgrade deploy bundle "
    "compile render layout style theme widget panel dialog button input output result report metric "
    "trace span log level prefer avoid keep use add run write read call pass return raise wrap split "
    "join sort group filter map small clear local shared public private stable async typed pure strict "
    "simple explicit single every"
)
WORDS = WORD_TEXT.split()
VERB_TEXT = "prefer avoid keep use add run write read call pass return wrap split sort filter check"
VERBS = VERB_TEXT.split()


class Words:
    """Deterministic filler: sentences of common words, never a token the scanner would flag."""

    def __init__(self, seed: str) -> None:
        self.rng = random.Random(seed)
        self.count = 0

    def line(self, size: int, capital: bool = True) -> str:
        """About ``size`` characters of words (at least one word); exact when ``size`` allows."""
        words: list[str] = []
        length = -1
        # a counter word keeps lines unique, so no two generated rules read the same
        self.count += 1
        words.append(f"{self.rng.choice(VERBS)}{self.count}" if capital else self.rng.choice(WORDS))
        length = len(words[0])
        while length < size:
            word = self.rng.choice(WORDS)
            words.append(word)
            length += len(word) + 1
        text = " ".join(words)
        if capital:
            text = text[0].upper() + text[1:]
        if len(text) > size >= 8:
            text = text[:size].rstrip()
            text = text + "s" * (size - len(text))
        return text


def load() -> list[dict[str, Any]]:
    data: list[dict[str, Any]] = json.loads(LAYOUTS.read_text(encoding="utf-8"))
    return data


def slug(name: str) -> str:
    return name.replace("/", "__")


def markdown(item: dict[str, Any], words: Words) -> str:
    """Generated Markdown of the recorded shape."""
    out: list[str] = []
    fm = item.get("frontmatter")
    if fm:
        out.extend(frontmatter(fm, words))
    imports = [list(i) for i in item.get("imports", [])]
    for section in item.get("sections", []):
        out.extend(section_lines(section, words, imports))
    pad(out, item.get("bytes", 0) - sum(len(line.encode()) + 1 for line in out), words)
    text = "\n".join(out)
    if not item.get("no_final_newline"):
        text += "\n"
    return text


PADDABLE = ("- ", "    ", "> ")


def pad(lines: list[str], missing: int, words: Words) -> None:
    """Lengthen the prose, bullet and code lines (not headings, fences, imports or frontmatter) by ``missing``
    characters in all, spread evenly, so the file has the recorded size."""
    body = 0
    if lines and lines[0] == "---":
        body = lines.index("---", 1) + 1 if "---" in lines[1:] else 0
    spots = [
        i
        for i in range(body, len(lines))
        if lines[i]
        and (lines[i][0].isalnum() or lines[i].startswith(PADDABLE))
        and not lines[i].startswith("@")
    ]
    if missing <= 0 or not spots:
        return
    each, rest = divmod(missing, len(spots))
    for n, i in enumerate(spots):
        size = each + (1 if n < rest else 0)
        if size > 1:
            lines[i] += " " + words.line(size - 1, capital=False)[: size - 1]
        elif size == 1:
            lines[i] += "s"


def frontmatter(fm: dict[str, Any], words: Words) -> list[str]:
    keys: dict[str, Any] = fm.get("keys", {})
    lines = ["---"]
    free = [k for k, v in keys.items() if v is None]
    for key, value in keys.items():
        if value is None:
            continue
        if isinstance(value, bool):
            lines.append(f"{key}: {'true' if value else 'false'}")
        elif isinstance(value, list):
            lines.append(f"{key}:" if value else f"{key}: []")
            lines.extend(f"  - {json.dumps(v)}" for v in value)
        else:
            lines.append(f"{key}: {json.dumps(value)}")
    want_lines = max(fm.get("lines", 0) - 2, len(keys))
    extra = want_lines - len(lines) + 1 - len(free)
    budget = max(fm.get("bytes", 0) - sum(len(x) + 1 for x in lines) - 4, 0)
    per = max(budget // max(len(free) + max(extra, 0), 1) - 8, 8)
    for i, key in enumerate(free):
        if i == 0 and extra > 0:
            lines.append(f"{key}: >-")
            lines.extend("  " + words.line(per) for _ in range(extra))
        else:
            lines.append(f"{key}: {words.line(per)}")
    if not free and extra > 0:
        lines.extend("# " + words.line(per) for _ in range(extra))
    lines.append("---")
    return lines


def section_lines(section: dict[str, Any], words: Words, imports: list[list[Any]]) -> list[str]:
    level = section.get("h", 0)
    total = section.get("lines", 0)
    get = section.get
    bullets, numbered, tables, quotes = (
        get("bullets", 0),
        get("numbered", 0),
        get("table", 0),
        get("quote", 0),
    )
    blocks, code_lines, blank, n_imports = (
        get("code", 0),
        get("code_lines", 0),
        get("blank", 0),
        get("imports", 0),
    )
    heading = 1 if level else 0
    text = max(
        total - heading - bullets - numbered - tables - quotes - code_lines - blank - n_imports, 0
    )
    inner = max(code_lines - 2 * blocks, 0)
    content = text + bullets + numbered + tables + quotes + inner + heading
    overhead = (
        total + 2 * bullets + 3 * numbered + 4 * tables + 2 * quotes + 3 * 2 * blocks + 4 * inner
    )
    overhead += 18 * n_imports + level + 1
    per = max((section.get("bytes", 0) - overhead) // max(content, 1), 6)
    groups: list[list[str]] = []
    if text:
        groups.append([words.line(per) for _ in range(text)])
    if bullets:
        groups.append(["- " + words.line(per) for _ in range(bullets)])
    if numbered:
        groups.append([f"{i + 1}. " + words.line(per) for i in range(numbered)])
    if blocks:
        block: list[str] = []
        sizes = [inner // blocks + (1 if i < inner % blocks else 0) for i in range(blocks)]
        for size in sizes:
            block.append("```text")
            block.extend("    " + words.line(per, capital=False) for _ in range(size))
            block.append("```")
        groups.append(block)
    if tables:
        rows = ["| " + words.line(max(per - 4, 4)) + " |" for _ in range(tables)]
        if tables >= 2:
            rows[1] = "| --- |"
        groups.append(rows)
    if quotes:
        groups.append(["> " + words.line(per) for _ in range(quotes)])
    for _ in range(n_imports):
        if imports:
            target, inline = imports.pop(0)
            groups.append([f"See @{target} for more." if inline else f"@{target}"])
    out: list[str] = []
    if level:
        out.append("#" * level + " " + words.line(min(per, 60)))
    for group in groups:
        if out and blank > 0:
            out.append("")
            blank -= 1
        out.extend(group)
    out.extend([""] * blank)
    return out


def filler(item: dict[str, Any], words: Words) -> str:
    """A file that is not Markdown (scripts, TOML, YAML, XML): comment lines of the same count and size."""
    lines = max(item.get("lines", 1), 1)
    per = max(item.get("bytes", 0) // lines - 3, 6)
    return "\n".join("# " + words.line(per) for _ in range(lines)) + "\n"


def settings(item: dict[str, Any], words: Words) -> str:
    """A JSON settings file with the recorded top-level keys (and `context.fileName`)."""
    data: dict[str, Any] = {}
    for key in item.get("keys", []):
        data[key] = {}
    name = item.get("context_file_name")
    if name is not None:
        if "contextFileName" in data:
            data["contextFileName"] = name
        else:
            data["context"] = {"fileName": name}
    return json.dumps(data, indent=2) + "\n"


def content(layout: dict[str, Any], item: dict[str, Any]) -> str:
    path = item["path"]
    words = Words(layout["name"] + ":" + path)
    name = PurePosixPath(path).name
    if "sections" in item or "frontmatter" in item:
        return markdown(item, words)
    if path.endswith(".json"):
        return settings(item, words)
    if name == ".aider.conf.yml":
        reads = item.get("aider_read", [])
        return f"read: [{', '.join(reads)}]\n"
    if item.get("bytes", 0) == 0:
        return ""
    return filler(item, words)


def build(layout: dict[str, Any], root: Path) -> Path:
    """Write ``layout`` at ``root`` as a git repository on branch main with one commit; return ``root``."""
    root.mkdir(parents=True, exist_ok=True)
    git(root, "init", "-q", "-b", "main")
    git(root, "config", "commit.gpgsign", "false")
    links = []
    for item in layout["files"]:
        target = root / item["path"]
        target.parent.mkdir(parents=True, exist_ok=True)
        if "link" in item:
            links.append(item)
            continue
        target.write_bytes(content(layout, item).encode())
        if item.get("exec"):
            target.chmod(0o755)
    for folder, (count, size) in layout.get("skill_extras", {}).items():
        words = Words(layout["name"] + ":" + folder)
        per = max(size // max(count, 1), 40)
        for i in range(count):
            ref = root / folder / "references" / f"ref{i}.md"
            ref.parent.mkdir(parents=True, exist_ok=True)
            lines = max(per // 60, 1)
            ref.write_text(
                "# "
                + words.line(30)
                + "\n\n"
                + "\n".join(words.line(58) for _ in range(lines))
                + "\n"
            )
    for item in links:
        link = root / item["path"]
        if not link.exists() and not link.is_symlink():
            os.symlink(item["link"], link)
    for path, lines in layout.get("gitignore", {}).items():
        ignore = root / path
        ignore.parent.mkdir(parents=True, exist_ok=True)
        ignore.write_text("".join(line + "\n" for line in ["node_modules/", *lines]))
    if not (root / ".gitignore").exists():
        (root / ".gitignore").write_text("node_modules/\n")
    (root / "README.md").write_text("# " + Words(layout["name"]).line(40) + "\n")
    hooks = layout.get("hooks", {})
    if hooks.get("manager") == "husky":
        husky(root, hooks)
    git(root, "add", "-A", "-f", "--", *tracked(root, layout))
    git(
        root,
        "commit",
        "-q",
        "--no-verify",
        "-m",
        f"layout of {layout['name']} at {layout['commit'][:12]}",
    )
    return root


def tracked(root: Path, layout: dict[str, Any]) -> list[str]:
    """Every path the original repository tracks: recorded files (even where its .gitignore names them), skill
    extras, .gitignore files and the README."""
    paths = [item["path"] for item in layout["files"]]
    paths += list(layout.get("gitignore", {}))
    paths += list(layout.get("skill_extras", {}))
    paths += [".gitignore", "README.md"]
    return sorted({p for p in paths if (root / p).exists() or (root / p).is_symlink()})


def husky(root: Path, hooks: dict[str, Any]) -> None:
    """What `npm install` does with husky: core.hooksPath set, husky 9's own `.husky/_` (git-ignored) calling the
    team's `.husky/<hook>` scripts."""
    path = hooks.get("hooks_path", ".husky/_")
    if path == ".husky/_":
        folder = root / ".husky" / "_"
        folder.mkdir(parents=True, exist_ok=True)
        (folder / ".gitignore").write_text("*\n")
        for hook in hooks.get("hooks", []):
            script = folder / hook
            script.write_text(f'#!/bin/sh\nexec sh "$(dirname "$0")/../{hook}" "$@"\n')
            script.chmod(0o755)
    else:
        for hook in hooks.get("hooks", []):
            (root / ".husky" / hook).chmod(0o755)
    git(root, "config", "core.hooksPath", path)


def git(cwd: Path, *args: str) -> str:
    done = subprocess.run(["git", *args], cwd=cwd, capture_output=True, text=True, check=False)
    if done.returncode:
        raise RuntimeError(f"git {' '.join(args)} failed in {cwd}: {done.stderr.strip()}")
    return done.stdout


def measure(root: Path, layout: dict[str, Any]) -> list[tuple[str, str, Any, Any]]:
    """Where the built repository differs from the layout in size or lines: (path, what, recorded, built)."""
    out = []
    for item in layout["files"]:
        path = root / item["path"]
        if item["path"].endswith(".json"):
            continue  # settings: the keys are kept, not the size
        if "link" in item:
            if not path.is_symlink() or os.readlink(path) != item["link"]:
                out.append(
                    (
                        item["path"],
                        "link",
                        item["link"],
                        os.readlink(path) if path.is_symlink() else None,
                    )
                )
            continue
        data = path.read_bytes()
        lines = data.count(b"\n") + (0 if data.endswith(b"\n") or not data else 1)
        if lines != item.get("lines"):
            out.append((item["path"], "lines", item.get("lines"), lines))
        if abs(len(data) - item.get("bytes", 0)) > max(item.get("bytes", 0) // 10, 64):
            out.append((item["path"], "bytes", item.get("bytes"), len(data)))
    return out


if __name__ == "__main__":
    import argparse
    import tempfile

    parser = argparse.ArgumentParser(
        description="Build the recorded layouts and print how close each came."
    )
    parser.add_argument("names", nargs="*", help="layout names (default: all)")
    parser.add_argument("--into", type=Path, help="build here (default: a temporary folder)")
    args = parser.parse_args()
    base = args.into or Path(tempfile.mkdtemp(prefix="field-"))
    for layout in load():
        if args.names and layout["name"] not in args.names:
            continue
        root = build(layout, base / slug(layout["name"]))
        off = measure(root, layout)
        print(
            f"{layout['name']}: {len(layout['files'])} files, {len(off)} off", *off[:5], sep="\n  "
        )
