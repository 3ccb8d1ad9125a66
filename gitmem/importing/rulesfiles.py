"""The rules files gitmem knows how to import, and the scope each one gives its rules.

The records' ``formats`` (``gitmem/tools.py``): every target's files, plus the legacy single files
``.cursorrules``, ``.windsurfrules``, ``.roorules`` and Augment's ``.augment-guidelines`` (and
``.clinerules`` as a file). A file's scope becomes the ``paths`` (and for rules a tool loads only on
request, the ``priority``) of the memories made from it:

| file | scope |
|---|---|
| ``AGENTS.md``, ``CLAUDE.md``, ``GEMINI.md`` | the root: the whole project; ``DIR/AGENTS.md``:
``DIR/**`` |
| ``.cursor/rules/*.mdc`` | ``alwaysApply: true``: everything; ``globs``: those; neither:
agent-requested or manual |
| ``.github/instructions/*.instructions.md`` | ``applyTo`` globs (``**``: everything) |
| ``.claude/rules/*.md``, ``.clinerules/*.md`` | ``paths`` globs; none: everything |
| ``.windsurf/rules/*.md`` | ``trigger: always_on``: everything; ``glob``: ``globs``;
``model_decision``/``manual`` |
| ``.kiro/steering/*.md`` | ``inclusion: always``: everything; ``fileMatch``: its
``fileMatchPattern``; |
| | ``manual``/``auto`` |
| ``.amazonq/rules/**/*.md``, ``.roo/rules/**/*.md`` | everything (no scoping) |
| ``.continue/rules/*.md`` | ``alwaysApply: true``: everything; ``globs``: those; ``alwaysApply:
false``: |
| | agent-requested; neither: everything |
| ``.augment/rules/**/*.md`` | ``type: always_apply``: everything; ``agent_requested``/``manual`` or
none: on demand |
| ``.junie/guidelines.md``, ``.trae/rules/project_rules.md`` | the whole project |
| ``.augment-guidelines``, ``.augment/guidelines.md`` | the whole project (Augment's legacy
guidelines) |
| ``WARP.md`` | the root: the whole project; ``DIR/WARP.md``: ``DIR/**`` |

Rules a tool loads only when the agent asks for them or a person mentions them (Cursor
agent-requested and manual rules, Windsurf ``model_decision``/``manual``, Kiro ``manual``/``auto``,
Continue ``alwaysApply: false`` without globs, Augment ``agent_requested``/``manual``) stay on
demand: ``priority: on-demand`` memories, never compiled into a rules file, brought by the prompt
hook and recall when a task needs them. A tool folder nested in a directory (``web/.cursor/rules/``)
scopes its rules to that directory.

Frontmatter is read line by line, not as YAML: Cursor's globs are written unquoted (``globs:
*.ts,src/**``), which a YAML parser rejects.
"""

from __future__ import annotations

import os
import posixpath
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import NamedTuple

from gitmem import markdown as md
from gitmem.errors import GitmemError
from gitmem.gitcommand import list_matching
from gitmem.memory.model import ON_DEMAND
from gitmem.project import MEMORY_DIR
from gitmem.tools import FORMATS, ScopeKind
from gitmem.tools import MARKDOWN as MARKDOWN
from gitmem.tools import Format as Format

ALWAYS: tuple[str, ...] = ()


def _format(label: str) -> Format:
    return next(fmt for fmt in FORMATS if fmt.label == label)


# The formats tests and callers name (all of them are in the records' ``formats``).
AGENTS = _format("AGENTS.md")
CLAUDE = _format("CLAUDE.md")
CLAUDE_RULE = _format("Claude Code rule")
CLINE_RULE = _format("Cline rule")
COPILOT_SCOPED = _format("Copilot path instructions")
CURSOR_RULE = _format("Cursor rule")
KIRO = _format("Kiro steering")
WINDSURF_RULE = _format("Windsurf rule (legacy)")
DEVIN_RULE = _format("Devin rule")
ANTIGRAVITY_RULE = _format("Antigravity rule")
AMAZONQ_RULE = _format("Amazon Q rule")
AUGMENT_LEGACY = _format("Augment guidelines (legacy)")
AUGMENT_RULE = _format("Augment rule")
CONTINUE_RULE = _format("Continue rule")
JUNIE = _format("Junie guidelines")
ROO_LEGACY = _format(".roorules (legacy)")
ROO_RULE = _format("Zoo Code rule")
TRAE = _format("Trae project rules")
WARP = _format("WARP.md")

# Where each is found, as git pathspec globs (what `gitmem import` reads when no PATH is given).
DISCOVER: tuple[str, ...] = tuple(glob for fmt in FORMATS for glob in fmt.discover)

_BY_NAME = {name: fmt for fmt in FORMATS for name in fmt.names}
_BY_PATH = {path: fmt for fmt in FORMATS for path in fmt.paths}
_IN_FOLDER = tuple((fmt.folder, fmt) for fmt in FORMATS if fmt.folder is not None)
_IGNORED = tuple(entry for fmt in FORMATS for entry in fmt.ignore)


def format_of(path: str) -> Format | None:
    """The format of the file at ``path`` (relative to the repository root, / separators); ``None``
    when gitmem does not know it as a rules file."""
    name = path.rsplit("/", 1)[-1]
    found = _BY_NAME.get(name) or _BY_PATH.get(path)
    if found is not None:
        return found
    for folder, fmt in _IN_FOLDER:
        if fmt.root_only:
            inside = path.startswith(folder + "/")
        else:
            inside = _in_folder(path, folder) is not None
        if inside and name.endswith(fmt.suffixes):
            return fmt
    return None


def nested_rules(root: Path) -> list[tuple[str, str]]:
    """The rules files below the root that ``gitmem import`` reads (tracked, or untracked and not
    ignored), with the tool of each: a nested ``AGENTS.md``/``CLAUDE.md``/``GEMINI.md``, a tool
    folder inside a package (``web/.cursor/rules/x.mdc``); ``gitmem init`` adds their tools to the
    targets.
    """
    try:
        found = discovered(root)
    except GitmemError:
        return []
    linked = {  # AGENTS.md -> .agents/AGENTS.md: the root's file, not a nested one
        os.path.realpath(root / path)
        for path, _ in found
        if "/" not in path and (root / path).is_symlink()
    }
    return [
        (path, fmt.tool)
        for path, fmt in found
        if os.path.realpath(root / path) not in linked
        and base_directory(path, fmt)
        and not_rules(path) is None
        and skill_bundle(root, path) is None
    ]


def discovered(root: Path) -> list[tuple[str, Format]]:
    """The rules files in the repository at ``root`` (tracked, or untracked and not ignored) with
    their formats: the files a format names, outside gitmem's own folder."""
    return [
        (path, fmt)
        for path in list_matching(root, DISCOVER)
        if not path.startswith(MEMORY_DIR + "/")
        and (fmt := format_of(path)) is not None
        and (root / path).is_file()
    ]


SKILL_FILE = "SKILL.md"


def skill_bundle(root: Path, path: str) -> str | None:
    """The folder of the skill bundle ``path`` belongs to (a folder named ``skills`` on its way, or
    one holding a ``SKILL.md`` below the root), or ``None``. A bundle's ``AGENTS.md`` files are
    loaded with their skill, on demand (vendored guides of a hundred rules and their
    counter-examples), not as the project's always-on rules.
    """
    parts = path.split("/")[:-1]
    for depth in range(len(parts), 0, -1):
        folder = "/".join(parts[:depth])
        if parts[depth - 1] == "skills" or (root / folder / SKILL_FILE).is_file():
            return folder + "/"
    return None


def rank(path: str, fmt: Format) -> tuple[int, int, str]:
    """Sort key: root files before nested ones, formats in their records' ``rank`` order, then
    by path."""
    return (path.count("/") if _SCOPES[fmt.scope].directory else 0, fmt.rank, path)


def _in_folder(path: str, folder: str) -> str | None:
    """The directory a tool folder sits in ("" at the root) when ``path`` is inside ``folder``;
    else ``None``."""
    if path.startswith(folder + "/"):
        return ""
    marker = f"/{folder}/"
    if marker in path:
        return path.split(marker, 1)[0]
    return None


def not_rules(path: str) -> str | None:
    """Why a file found in a tool's rules folder is not an always-on rules file, or ``None``
    when it is one."""
    name = path.rsplit("/", 1)[-1]
    for folder, reason in _IGNORED:
        if _in_folder(path, folder) is not None:
            return reason
    if name.lower() in ("readme.md", "readme.mdc") and "/" in path:
        return "a README of a rules folder (about the rules, not a rule)"
    return None


def base_directory(path: str, fmt: Format) -> str:
    """The directory a file's rules apply under ("" for the whole project). A directory-scoped file
    in its format's ``home`` folder (``.claude/CLAUDE.md``, Claude Code's project memory like
    ``CLAUDE.md`` beside it) belongs to the directory that holds the folder."""
    if _SCOPES[fmt.scope].directory:
        directory = posixpath.dirname(path)
        home = fmt.home
        if home is not None and f"/{directory}".endswith("/" + home):
            directory = directory.removesuffix(home).rstrip("/")
        return directory
    if fmt.folder is not None:
        return _in_folder(path, fmt.folder) or ""
    return ""


# -- frontmatter -----------------------------------------------------------------------------------

Value = str | list[str]


@dataclass(frozen=True)
class Frontmatter:
    fields: dict[str, Value]
    lines: int  # how many lines it takes, fences included (0: none)


def read_frontmatter(lines: list[str]) -> Frontmatter:
    """The ``---`` fenced frontmatter at the top of ``lines``: simple ``key: value`` lines and
    ``- item`` lists."""
    if next(iter(lines), "").strip() != "---":
        return Frontmatter({}, 0)
    fields: dict[str, Value] = {}
    last: str | None = None
    for index, line in enumerate(lines[1:], start=1):
        if line.strip() in ("---", "..."):
            return Frontmatter(fields, index + 1)
        key = md.front_key(line)
        if key is not None:
            last = key[0]
            fields[last] = _scalar(key[1])
            continue
        item = md.front_item(line)
        if item is not None and last is not None:
            current = fields.get(last)
            values = current if isinstance(current, list) else []
            fields[last] = [*values, _unquote(item)]
    return Frontmatter({}, 0)  # never closed: not frontmatter


def _unquote(text: str) -> str:
    text = text.strip()
    if len(text) >= 2 and text[0] == text[-1] and text[0] in "'\"":
        return text[1:-1]
    return text


def _scalar(text: str) -> Value:
    text = text.strip()
    if text.startswith("[") and text.endswith("]"):
        return [_unquote(part) for part in split_top(text[1:-1]) if part.strip()]
    if text and text[0] not in "'\"":
        text = md.without_comment(text)
    return _unquote(text)


_DEPTH = {"{": 1, "}": -1}  # how a character changes the brace depth


def split_top(text: str) -> list[str]:
    """``text`` split at commas outside braces and quotes: ``a,{b,c}`` -> ``a``, ``{b,c}``."""
    parts: list[str] = []
    depth = 0
    quote = ""
    current = ""
    for char in text:
        if quote:
            quote = "" if char == quote else quote
        elif char in "'\"":
            quote = char
        elif char == "," and depth == 0:
            parts.append(current)
            current = ""
            continue
        else:  # a '}' with no '{' open is text
            depth = max(0, depth + _DEPTH.get(char, 0))
        current += char
    parts.append(current)
    return [part.strip() for part in parts]


def review_only(fmt: Format, front: Frontmatter) -> bool:
    """Whether a Copilot path-instructions file is for Copilot code review only:
    ``excludeAgent: "coding-agent"``
    (https://docs.github.com/en/copilot/how-tos/configure-custom-instructions/add-repository-instructions).
    Such rules stay where only code review reads them: imported, every client would get them.
    """
    value = front.fields.get("excludeAgent")
    excluded = _globs(value) if _SCOPES[fmt.scope].exclude_agent else []
    return "coding-agent" in excluded


# -- scope -----------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Scope:
    """Where a file's rules apply: ``paths`` (empty: everywhere), the priority they get, and how
    it was read."""

    paths: tuple[str, ...]
    priority: str
    note: str


class ScopeError(ValueError):
    """A file's frontmatter names a scope that cannot become memory paths."""


def _globs(value: Value | None) -> list[str]:
    if value is None:
        return []
    items = value if isinstance(value, list) else split_top(value)
    return [_unquote(item) for item in items if _unquote(item)]


def _under(directory: str, globs: list[str]) -> tuple[str, ...]:
    """Globs relative to the repository root (``directory`` prefixed); () when one of them
    covers everything."""
    out: list[str] = []
    for glob in globs:
        glob = glob.strip()
        while glob.startswith("./"):
            glob = glob[2:]
        glob = glob.lstrip("/")
        if ".." in glob.split("/"):
            raise ScopeError(f"the glob {glob!r} points outside the repository")
        if glob in ("", "*", "**", "**/*"):
            if not directory:
                return ALWAYS
            glob = "**"
        out.append(f"{directory}/{glob}" if directory else glob)
    return tuple(dict.fromkeys(out))


def _true(value: Value | None) -> bool:
    return isinstance(value, str) and value.strip().lower() in ("true", "yes", "on")


def scope_of(path: str, fmt: Format, front: Frontmatter) -> Scope:
    """The scope of the rules in the file at ``path``. Raises ``ScopeError`` for globs outside
    the repository."""
    directory = base_directory(path, fmt)
    here = f"under {directory}/" if directory else "the whole project"
    return _SCOPES[fmt.scope].read(_Where(directory, here), front.fields)


class _Where(NamedTuple):
    directory: str  # the directory the file's rules apply under ("" for the whole project)
    here: str  # how a report says it

    def everywhere(self, priority: str, note: str) -> Scope:
        return Scope(_under(self.directory, ["**"]), priority, note)

    def globs(self, globs: list[str], note: str) -> Scope:
        return Scope(_under(self.directory, globs), "normal", note)


_Reader = Callable[[_Where, dict[str, Value]], Scope]


def _directory(where: _Where, fields: dict[str, Value]) -> Scope:
    return where.everywhere("normal", where.here)


def _always_apply(where: _Where, fields: dict[str, Value]) -> Scope:
    """Cursor's: ``alwaysApply: true`` everywhere; ``globs``; a ``description`` alone:
    agent-requested; else manual."""
    globs = _globs(fields.get("globs"))
    if _true(fields.get("alwaysApply")):
        return where.everywhere("normal", f"{where.here} (alwaysApply)")
    if globs:
        return where.globs(globs, f"globs {', '.join(globs)}")
    if str(fields.get("description") or "").strip():
        return where.everywhere(ON_DEMAND, "agent-requested rule (description only): on demand")
    return where.everywhere(ON_DEMAND, "manual rule: on demand")


def _apply_to(where: _Where, fields: dict[str, Value]) -> Scope:
    globs = _globs(fields.get("applyTo"))
    if not globs:
        return Scope(ALWAYS, "normal", "no applyTo: the whole project")
    return where.globs(globs, f"applyTo {', '.join(globs)}")


def _paths(where: _Where, fields: dict[str, Value]) -> Scope:
    globs = _globs(fields.get("paths") or fields.get("globs"))
    if globs:
        return where.globs(globs, f"paths {', '.join(globs)}")
    return where.everywhere("normal", where.here)


def _mode(key: str, default: str, scoped: str, globs_key: str, low: tuple[str, ...]) -> _Reader:
    """A scope read from one mode field: ``key: scoped`` with globs in ``globs_key``, a ``low`` mode
    (loaded on request), or ``default`` (always)."""

    def read(where: _Where, fields: dict[str, Value]) -> Scope:
        mode = str(fields.get(key) or default).strip()
        globs = _globs(fields.get(globs_key))
        if mode == scoped and globs:
            return where.globs(globs, f"{key}: {scoped}, {globs_key} {', '.join(globs)}")
        if mode in low:
            return where.everywhere(ON_DEMAND, f"{key}: {mode}: on demand")
        return where.everywhere("normal", f"{where.here} ({key}: {mode})")

    return read


def _always_apply_or_globs(where: _Where, fields: dict[str, Value]) -> Scope:
    """Continue's (https://docs.continue.dev/customize/deep-dives/rules): alwaysApply true: always;
    false: when its globs match or the agent asks for it; unset: always without globs, else when
    they match.
    """
    always = fields.get("alwaysApply")
    globs = _globs(fields.get("globs"))
    if _true(always):
        return where.everywhere("normal", f"{where.here} (alwaysApply)")
    if globs:
        return where.globs(globs, f"globs {', '.join(globs)}")
    if always is not None and str(always).strip().lower() in ("false", "no", "off"):
        return where.everywhere(
            ON_DEMAND, "alwaysApply: false, no globs: agent-requested, on demand"
        )
    return where.everywhere("normal", where.here)


def _type(where: _Where, fields: dict[str, Value]) -> Scope:
    """Augment's ``type``: ``always_apply``, ``agent_requested``, ``manual``; none: manual in the
    IDE extensions (see the augment record in gitmem/tools.py)."""
    kind = str(fields.get("type") or "").strip()
    if kind == "always_apply":
        return where.everywhere("normal", f"{where.here} (type: always_apply)")
    if kind in ("agent_requested", "manual"):
        return where.everywhere(ON_DEMAND, f"type: {kind}: on demand")
    return where.everywhere(ON_DEMAND, "no type (manual in the IDE extensions): on demand")


def _whole(_where: _Where, _fields: dict[str, Value]) -> Scope:
    return Scope(ALWAYS, "normal", "the whole project")


class _Scoping(NamedTuple):
    """What a ``Format.scope`` means for a file of that format."""

    read: _Reader  # how its frontmatter gives the scope
    directory: bool = False
    """It applies under its own directory: nested files rank after the root's, and its base
    directory is its folder's (its format's ``home`` folder aside)."""
    exclude_agent: bool = False
    """Its frontmatter may keep it from the coding agent (``excludeAgent``: Copilot's code review
    only)."""


# ``Format.scope`` -> what it means.
_SCOPES: dict[ScopeKind, _Scoping] = {
    "none": _Scoping(_whole),
    "directory": _Scoping(_directory, directory=True),
    "always-apply": _Scoping(_always_apply),
    "applyTo": _Scoping(_apply_to, exclude_agent=True),
    "paths": _Scoping(_paths),
    # Devin Desktop's (Windsurf's) and Antigravity's `trigger`; Kiro's `inclusion`.
    "trigger": _Scoping(
        _mode("trigger", "always_on", "glob", "globs", ("model_decision", "manual"))
    ),
    "inclusion": _Scoping(
        _mode("inclusion", "always", "fileMatch", "fileMatchPattern", ("manual", "auto"))
    ),
    "always-apply-or-globs": _Scoping(_always_apply_or_globs),
    "type": _Scoping(_type),
    "folder": _Scoping(_directory),
}
