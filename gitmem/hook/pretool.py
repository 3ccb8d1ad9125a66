"""``gitmem hook pre-tool``: before a tool call runs, refuse the calls that break an active memory's
``enforce`` (a shell command matching ``enforce.commands``, a write to a file matching
``enforce.edits``) and the calls that would change the memory layer behind the team's back (the
memory-layer gate): a write into ``.memory/``, into a file gitmem writes whole or into the managed
block of a rules file, and a ``gitmem`` command that would create or activate a memory (``add``
without ``--proposed``, ``accept``, ``edit``, ``sources add``). Reading stays free, and proposing
stays open (``gitmem add --proposed``, the MCP ``propose`` tool, ``/remember``).

A refusal is answered in the client's own shape (``Hooks.deny`` in ``gitmem/tools.py``) with a
reason that quotes the memory (id, title, body), so the model corrects itself; everything else gets
no answer at all. What the call is, is read from the payload's tool name and arguments whatever the
client calls them (``tool_name``/``toolName``/ ``tool``, ``tool_input``/``toolArgs``/``args``,
Cursor's top-level ``command``).
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import time
from collections.abc import Callable
from datetime import date
from pathlib import Path
from typing import TYPE_CHECKING, Any, NamedTuple

from gitmem import gateway, globmatch
from gitmem.errors import GitmemError
from gitmem.gateway import find_project
from gitmem.hook import shell
from gitmem.hook.payload import parse, session_id, text
from gitmem.project import Project, personal_scope
from gitmem.recall.index import RecallIndex

# The hook runs before every tool call: what only a refusal, a stale cache or a failure needs (the
# client table, the memory model, the recall index and the packs, dates) is imported where it is
# used.
if TYPE_CHECKING:
    from datetime import date

    from gitmem.hook.clients import Client
    from gitmem.memory.model import Memory
    from gitmem.tools import DenyShape

MAX_TEXT = 262_144  # characters of an edit's old or new text looked at for the managed block
REASON_BODY = 1_500  # characters of a memory's body quoted in a refusal

# The words of a tool's name that make it a write of its path argument (Claude Code's
# Write/Edit/MultiEdit/ NotebookEdit, Gemini CLI's and Qwen Code's write_file/replace/edit,
# opencode's write/edit/patch, the Copilot CLI's create/edit, MCP file servers'
# write_file/move_file...): any other tool with a path reads it.
WRITE_WORDS = (
    "write",
    "edit",
    "create",
    "replace",
    "patch",
    "insert",
    "delete",
    "remove",
    "move",
    "rename",
    "append",
)
SHELL_WORDS = ("bash", "shell", "exec", "command", "terminal", "run")
PATH_KEYS = (
    "file_path",
    "filePath",
    "path",
    "notebook_path",
    "absolute_path",
    "target_file",
    "TargetFile",  # Antigravity's write_to_file, replace_file_content
    "filename",
    "file",
)
TOOL_KEYS = ("tool_name", "toolName", "tool")
ARGUMENT_KEYS = ("tool_input", "toolArgs", "args", "input")
LINE_KEYS = ("command", "cmd", "CommandLine")  # CommandLine: Antigravity's run_command
OLD_KEYS = ("old_string", "oldString", "old_str", "TargetContent")
NEW_KEYS = ("new_string", "newString", "new_str", "ReplacementContent")
CONTENT_KEYS = ("content", "file_text", "text", "contents", "CodeContent")
EDIT_LISTS = ("edits", "ReplacementChunks")  # Claude Code's MultiEdit, Antigravity's chunks
PATCH_START = "*** Begin Patch"
PATCH_MARKS = ("*** Add File: ", "*** Update File: ", "*** Delete File: ", "*** Move to: ")

# Programs that only read the files they name: a shell command of another program naming a protected
# file (in .memory/, or holding a managed block) counts as writing it, unless it is one of these.
# fmt: off
READERS = frozenset((
    "cat", "less", "more", "head", "tail", "grep", "egrep", "fgrep", "rg", "ag", "ack", "ls",
    "tree", "find", "fd", "wc", "diff", "cmp", "stat", "file", "jq", "yq", "sort", "uniq", "cut",
    "bat", "nl", "od", "xxd", "hexdump", "strings", "md5sum", "sha1sum", "sha256sum", "du",
    "realpath", "readlink", "basename", "dirname", "echo", "printf", "test", "[", "cd", "pushd",
    "git", "gitmem", "gitmem-cli", "awk", "sed", "perl",
))
# ... and the sub-commands of git that only read.
GIT_READERS = frozenset((
    "log", "show", "diff", "status", "blame", "grep", "ls-files", "cat-file", "rev-parse",
    "shortlog", "whatchanged", "add", "commit", "push", "fetch", "tag", "branch", "remote",
    "config",
))
# Programs that write the files they name (for ``enforce.edits``; ``sed -i``/``perl -i`` too).
WRITERS = frozenset((
    "tee", "cp", "mv", "install", "ln", "rm", "rmdir", "touch", "mkdir", "truncate", "shred",
    "unlink", "chmod", "chown", "dd", "rsync", "patch",
))
# fmt: on


class Call(NamedTuple):
    """What a tool call would do: the shell commands it runs, the files it writes, and for an edit
    the text it replaces and the text it writes (for the managed block)."""

    tool: str
    commands: tuple[shell.Command, ...] = ()
    writes: tuple[str, ...] = ()  # as the call names them (absolute, or relative to ``cwd``)
    old_text: str = ""
    new_text: str = ""
    whole: bool = False  # the new text is the whole file (a write, not an edit)


class Refusal(NamedTuple):
    reason: str
    memory: str | None  # the memory's id, or None for the memory-layer gate
    rule: str  # "commands", "edits", "memory-layer"


def _dict(value: Any) -> dict[str, Any]:
    value = _json(value, "{")
    return value if isinstance(value, dict) else {}


def _json(value: Any, opener: str) -> Any:
    """``value``, or the JSON it holds when it is a bounded string starting with ``opener``."""
    match value:
        case str() if len(value) <= shell.MAX_LINE * 4 and value.lstrip().startswith(opener):
            try:
                return json.loads(value)
            except ValueError:
                return None
    return value


def _first(data: dict[str, Any], keys: tuple[str, ...]) -> Any:
    return next((data[key] for key in keys if data.get(key)), None)


def tool_and_args(payload: dict[str, Any]) -> tuple[str, dict[str, Any]]:
    """The tool's name and arguments, whatever the client calls them (Antigravity nests them in
    ``toolCall``; Cursor's beforeShellExecution has only a top-level ``command``)."""
    nested = payload.get("toolCall")
    if isinstance(nested, dict):
        payload = {"tool": nested.get("name"), "args": nested.get("args")}
    tool = _first(payload, TOOL_KEYS)
    tool = tool if isinstance(tool, str) else ""
    args = _dict(_first(payload, ARGUMENT_KEYS))
    match payload:
        case {"command": str(line)} if not tool:
            args = {"command": line}
    return tool, args


def call_of(payload: dict[str, Any]) -> Call:
    """The call a pre-tool payload describes."""
    tool, args = tool_and_args(payload)
    lowered = tool.lower()
    line = _shell_line(args)
    if line is not None:
        if lowered == "apply_patch" or line.lstrip().startswith(PATCH_START):
            return Call(tool, writes=_patch_paths(line))
        if not tool or "command" in args or any(word in lowered for word in SHELL_WORDS):
            return Call(tool, commands=tuple(shell.commands(line)))
    if not any(word in lowered for word in WRITE_WORDS):
        return Call(tool)
    return _write_call(tool, args)


def _shell_line(args: dict[str, Any]) -> str | None:
    line = _first(args, LINE_KEYS)
    if isinstance(line, list):
        return " ".join(str(part) for part in line[: shell.MAX_WORDS])
    return line if isinstance(line, str) else None


def _write_call(tool: str, args: dict[str, Any]) -> Call:
    """A write or edit tool's call: its file, and the texts it replaces and writes."""
    paths = [args[key] for key in PATH_KEYS if isinstance(args.get(key), str)]
    listed = _json(_first(args, EDIT_LISTS), "[")
    edits = [
        edit for edit in (listed if isinstance(listed, list) else [args]) if isinstance(edit, dict)
    ]
    old = "\n".join(_text(edit, *OLD_KEYS) for edit in edits)
    new = "\n".join(_text(edit, *NEW_KEYS) for edit in edits)
    content = _text(args, *CONTENT_KEYS)
    return Call(
        tool,
        writes=tuple(paths[:1]),
        old_text=old[:MAX_TEXT],
        new_text=(content or new)[:MAX_TEXT],
        whole=bool(content) or not old,
    )


def _text(data: dict[str, Any], *names: str) -> str:
    for name in names:
        if isinstance(data.get(name), str):
            return str(data[name])
    return ""


def _patch_paths(patch: str) -> tuple[str, ...]:
    """The files a Codex ``apply_patch`` envelope adds, changes, deletes or moves to."""
    out: list[str] = []
    for line in patch[: shell.MAX_LINE].splitlines():
        for mark in PATCH_MARKS:
            if line.startswith(mark):
                out.append(line[len(mark) :].strip())
    return tuple(out[: shell.MAX_COMMANDS])


# -- where a call writes ---------------------------------------------------------------------------


def _relative(root: str, cwd: str, path: str) -> str | None:
    """``path`` (absolute, or relative to ``cwd``) relative to ``root``, with links resolved;
    None outside it."""
    if not path or len(path) > 4096 or "\0" in path:
        return None
    full = os.path.realpath(os.path.join(cwd, os.path.expanduser(path)))
    if full == root:
        return "."
    if not full.startswith(root + os.sep):
        return None
    return full[len(root) + 1 :].replace(os.sep, "/")


def _none(words: tuple[str, ...], named: list[str]) -> list[str]:
    return []


def _all_named(words: tuple[str, ...], named: list[str]) -> list[str]:
    return named


def _in_place(words: tuple[str, ...], named: list[str]) -> list[str]:
    return named if any(word.startswith("-i") for word in words[1:]) else []


def _git(words: tuple[str, ...], named: list[str]) -> list[str]:
    return named[1:] if named and named[0] not in GIT_READERS else []


def _find(words: tuple[str, ...], named: list[str]) -> list[str]:
    return named if any(word in ("-delete", "-exec", "-execdir") for word in words) else []


# Program -> the files it writes of those its command names (any other program: those that are
# gitmem's).
WRITES_OF = {
    **dict.fromkeys(READERS, _none),
    **dict.fromkeys(WRITERS, _all_named),
    "sed": _in_place,
    "perl": _in_place,
    "git": _git,
    "find": _find,
}


def shell_writes(
    commands: tuple[shell.Command, ...], protected: Any
) -> list[tuple[str, shell.Command]]:
    """(path as written, command) for every file a shell line writes: its redirections, the files of
    the programs that write what they name, and any file ``protected(path)`` says is gitmem's that a
    program other than a reader names. ``cd`` moves the folder later relative paths start from
    (returned joined to it).
    """
    out: list[tuple[str, shell.Command]] = []
    folder = ""
    for command in commands:
        words = command.words
        program = command.program
        if program in ("cd", "pushd") and len(words) == 2:
            folder = os.path.join(folder, words[1])
            continue
        named = [word for word in words[1:] if not word.startswith("-")]  # "--" too
        rule = WRITES_OF.get(program)
        writes = [
            *command.redirects,
            *(
                rule(words, named)
                if rule is not None
                else [word for word in named if protected(os.path.join(folder, word))]
            ),
        ]
        out += [(os.path.join(folder, path), command) for path in writes if path != "/dev/null"]
    return out


# -- the memory-layer gate -------------------------------------------------------------------------

GATE_REASON = (
    "gitmem: refused: {what}. Only people make a memory live: the memories under .memory/ "
    "and the managed blocks "
    "of the rules files are reviewed by the team and written by gitmem. Propose the memory instead "
    '(`gitmem add --proposed "TITLE" --body "..."`, or the gitmem MCP tool propose) and a '
    "person accepts it."
)
# What code handed to an interpreter (``python -c``, ``node -e``) does when it writes a file it
# names.
WRITE_HINTS = (
    "open(",
    "write",
    "unlink",
    "remove",
    "rename",
    "Path(",
    "rm ",
    "mv ",
    "cp ",
    "touch ",
    ">",
)
# The files that may hold a managed block: every target's files are Markdown (or Cursor's .mdc); no
# other file is read to look for one.
RULES_SUFFIXES = (".md", ".mdc")
PROGRAMS = ("gitmem", "gitmem-cli")  # gitmem's commands (the package installs both)
# gitmem commands that create or activate a memory (``add`` only without ``--proposed``).
ACTIVATING = {("add",), ("accept",), ("edit",), ("sources", "add")}


def _activating(command: shell.Command) -> str | None:
    """The sub-command of a ``gitmem`` command line (``python -m gitmem``, ``uvx gitmem`` too) that
    would create or activate a memory (``add``, ``sources add``...), or None."""
    words = list(command.words)
    if command.program in ("uvx", "pipx", "uv"):
        words = [w for w in words[1:] if w not in ("run", "tool") and not w.startswith("-")]
    if words[1:3] == ["-m", "gitmem"] and words[0].rsplit("/", 1)[-1].startswith("python"):
        words = words[2:]
    if shell.Command(tuple(words)).program not in PROGRAMS:  # none without words
        return None
    names = [word for word in words[1:] if not word.startswith("-")]
    for size in (1, 2):
        if tuple(names[:size]) in ACTIVATING:  # ``add`` only without ``--proposed``
            return (
                None
                if names[:size] == ["add"] and "--proposed" in words
                else " ".join(names[:size])
            )
    return None


class Gate:
    """The memory layer of one project: ``.memory/``, and the files holding a managed block."""

    def __init__(self, project: Project, cwd: str) -> None:
        self.project = project
        self.root = os.path.realpath(project.root)
        self.cwd = cwd if os.path.isabs(cwd) else self.root  # "" is not absolute
        memory = os.path.realpath(project.memory_dir)
        self.memory = (
            memory[len(self.root) + 1 :].replace(os.sep, "/")
            if memory.startswith(self.root)
            else ".memory"
        )

    def relative(self, path: str) -> str | None:
        return _relative(self.root, self.cwd, path)

    def in_memory(self, relative: str | None) -> bool:
        """Whether ``relative`` (None: outside the repository) is .memory/ or under it."""
        return relative is not None and f"{relative}/".startswith(f"{self.memory}/")

    def block(self, relative: str) -> tuple[str, bool] | None:
        """The managed block of a file (its text, and whether the whole file is gitmem's), or
        None."""
        if self.in_memory(relative) or not relative.endswith(RULES_SUFFIXES):  # "." and "" too
            return None

        try:
            text = gateway.read_text(
                self.project, self.project.root / relative, limit=gateway.RULES_LIMIT
            )
        except (OSError, GitmemError, UnicodeDecodeError):
            return None
        begin = text.find("<!-- gitmem:begin")
        end = text.find("<!-- gitmem:end", begin + 1) if begin >= 0 else -1
        if end < 0:
            return None
        return text[begin : text.find("\n", end) + 1 or len(text)], text.startswith(
            "<!-- gitmem:begin file-hash", begin
        )

    def protected(self, path: str) -> bool:
        """Whether a word of a shell command names gitmem's files (or holds a path into .memory/, as
        code does: ``python -c "open('.memory/...', 'w')"``)."""
        relative = self.relative(path)
        return self.names_memory(path, relative) or (
            relative is not None and self.block(relative) is not None
        )

    def names_memory(self, path: str, relative: str | None) -> bool:
        """Whether ``path`` is in .memory/, or is a word that names a file there
        (``open('.memory/...')``)."""
        if self.in_memory(relative):
            return True
        if f"{self.memory}/" not in path or os.path.exists(os.path.join(self.cwd, path)):
            return False
        # a word of prose (a commit message, a PR body) names .memory/ without writing it; code that
        # writes does
        return set(path).isdisjoint(" \t\n") or any(hint in path for hint in WRITE_HINTS)

    def check(self, call: Call) -> Refusal | None:
        sub = next(filter(None, map(_activating, call.commands)), None)
        if sub is not None:
            what = f"`gitmem {sub}` would create or change a live memory"
            return Refusal(GATE_REASON.format(what=what), None, "memory-layer")
        writes = [path for path, _ in shell_writes(call.commands, self.protected)] + list(
            call.writes
        )
        for path in writes:
            relative = self.relative(path)
            if self.names_memory(path, relative):
                shown = relative if self.in_memory(relative) else f"{self.memory}/..."
                return Refusal(
                    GATE_REASON.format(what=f"a write into {self.memory}/ ({shown})"),
                    None,
                    "memory-layer",
                )
            if relative is None:
                continue
            found = self.block(relative)
            if found is not None and self._touches(call, found, path in call.writes):
                what = (
                    f"a write into gitmem's managed block of {relative} (`gitmem compile` "
                    "writes it)"
                )
                return Refusal(GATE_REASON.format(what=what), None, "memory-layer")
        return None

    @staticmethod
    def _touches(call: Call, found: tuple[str, bool], by_tool: bool) -> bool:
        """Whether a write to a file holding a managed block changes the block: any write of a whole
        gitmem file, a shell command's (it cannot be told), a tool's that rewrites the file without
        the block as it is, or an edit whose old text lies in the block or whose texts hold a
        marker.
        """
        block, whole_file = found
        if whole_file or not by_tool:
            return True
        if call.whole:
            return block.strip() not in call.new_text
        texts = call.old_text + call.new_text
        if "gitmem:begin" in texts or "gitmem:end" in texts:
            return True
        return bool(call.old_text) and call.old_text in block


# -- enforce ---------------------------------------------------------------------------------------


class Rule(NamedTuple):
    """What the hook keeps of a live memory with ``enforce``: its patterns, and what a refusal
    quotes (its id, title and body)."""

    id: str
    title: str
    body: str
    commands: tuple[str, ...] = ()
    edits: tuple[str, ...] = ()


def rule_of(memory: Memory, shown_id: str | None = None) -> Rule:
    enforce = memory.enforce
    commands, edits = (enforce.commands, enforce.edits) if enforce is not None else ((), ())
    return Rule(shown_id or memory.id, memory.title, memory.body, commands, edits)


# The fields of ``enforce``, and what a call that breaks one does.
ENFORCE_RULES = (("commands", "runs a command"), ("edits", "writes a file"))


def broken(rules: list[Rule], call: Call, gate: Gate) -> Refusal | None:
    """The first memory whose ``enforce`` the call breaks, as a refusal quoting it."""
    texts = [  # each command as written, and with its program's folder left out
        text
        for command in call.commands
        if command.words
        for text in (command.text, " ".join([command.program, *command.words[1:]]))
    ]
    paths = [path for path, _ in shell_writes(call.commands, lambda _path: False)]
    writes = [found for path in [*paths, *call.writes] if (found := gate.relative(path))]
    values = {"commands": texts, "edits": writes}
    for rule in rules:
        for field, why in ENFORCE_RULES:
            found = _breaks(getattr(rule, field), values[field], field == "commands")
            if found is not None:
                return Refusal(reason(rule, f"it {why} matching `{found}`"), rule.id, field)
    return None


def _breaks(patterns: tuple[str, ...], values: list[str], command: bool) -> str | None:
    """The first of ``patterns`` one of ``values`` matches: commands anywhere in their text, paths
    whole."""
    for pattern in patterns:
        glob = globmatch.parse(pattern, anywhere=command)
        if any(globmatch.match(glob, value, under=not command) for value in values):
            return pattern
    return None


def reason(rule: Rule, why: str) -> str:
    """The refusal's text: the memory quoted (id, title, body), so the model corrects itself."""
    from gitmem.memory.fields import inert  # lazy: the pre-tool hook's start-up

    # (not the prompt hook's renderer: importing it costs a refusal)
    paragraphs = inert(rule.body).split("\n\n")
    body = "\n".join(" ".join(part.split()) for part in paragraphs if part.strip())
    if len(body) > REASON_BODY:
        body = body[:REASON_BODY].rsplit(" ", 1)[0] + f" … (gitmem show {rule.id})"
    lines = [
        f"gitmem: refused: {why}, which the project memory [{rule.id}] forbids.",
        f"[{rule.id}] {inert(rule.title)}",
    ]
    if body:
        lines.append(body)
    lines.append(
        "Do it the way this memory says instead; if it is wrong, tell the user (people "
        "change memories)."
    )
    return "\n".join(lines)


# under gitmem's cache: the live memories with ``enforce``, and what says they are current
CACHE = "enforce.json"
TRUST_SECONDS = 30  # how long the cache is trusted while the memories folder is unchanged
PERSONAL = "~/"  # a personal memory's id as a refusal quotes it (the prompt hook's key for it too)


def enforced(project: Project, day: str) -> list[Rule]:
    """The rules of the live memories with an ``enforce`` field on ``day`` (ISO): the project's,
    the user's personal ones (``--user``, quoted ``~/ID``) and the shared packs' (``sources`` in
    the config, as pinned there; ``PACK/ID``).

    From the recall indexes (kept up to date as for recall), whose refresh stats every memory
    file: at 10,000 memories that is most of a hook's time, on every tool call. So the answer is
    kept in ``CACHE`` with the stat of both memories folders, the config and each enforced file,
    and trusted for ``TRUST_SECONDS`` while none of them changed: adding, removing or renaming a
    memory file (gitmem's own writes, git checkout) changes its folder and is seen at once, as is
    a pack pinned anew; a memory file edited in place is seen within ``TRUST_SECONDS``.
    """

    path = project.cache_dir / CACHE
    personal = personal_scope()
    now = time.time()
    try:
        cached = json.loads(gateway.read_bytes(project.cache_dir, path, limit=gateway.CONFIG_LIMIT))
        if (
            cached.get("day") == day
            and now - float(cached.get("checked", 0)) < TRUST_SECONDS
            and cached.get("stats") == _stats(project, personal, cached.get("files", []))
        ):
            return [Rule(*fields[:3], *map(tuple, fields[3:5])) for fields in cached["rules"]]
    except (OSError, ValueError, TypeError, KeyError, AttributeError, GitmemError):
        pass
    rules, files = _fresh(project, personal, day)
    data = {
        "day": day,
        "checked": now,
        "files": files,
        "stats": _stats(project, personal, files),
        "rules": rules,
    }
    with contextlib.suppress(OSError, GitmemError):
        gateway.write(project.cache_dir, path, json.dumps(data, separators=(",", ":")))
    return rules


def _fresh(project: Project, personal: Project | None, day: str) -> tuple[list[Rule], list[str]]:
    """The rules read anew (from the recall indexes and the packs), and the files they come from."""

    today = date.fromisoformat(day)
    rules: list[Rule] = []
    files: list[str] = []
    for scope in filter(None, (project, personal)):
        index = RecallIndex(scope)
        try:
            index.refresh()
            found = index.enforced(today)
        finally:
            index.close()
        prefix = PERSONAL if scope is personal else ""
        rules += [rule_of(memory, prefix + memory.id) for memory in found]
        files += [str(scope.memories_dir / f"{memory.id}.yaml") for memory in found]
    return rules + [rule_of(memory) for memory in _packs(project, today)], files


def _packs(project: Project, day: date) -> list[Memory]:
    """The shared packs' live memories with ``enforce`` (from the local cache; read only when the
    config names sources, since the YAML reader is slow to import)."""

    try:
        text = gateway.read_text(project, project.config_path, limit=gateway.CONFIG_LIMIT)
        if "sources:" not in text:
            return []
        from gitmem.memory.config import load_config  # lazy: the pre-tool hook's start-up
        from gitmem.scopes import packs  # lazy: the pre-tool hook's start-up

        found, _ = packs.recallable(project, load_config(project), day)
    except (OSError, UnicodeDecodeError, GitmemError):
        return []
    return [memory for memory, _ in found if memory.enforce is not None]


def _stats(project: Project, personal: Project | None, files: list[str]) -> list[list[int]]:
    """The stat keys of the memories folders, the config and ``files`` (a missing one as zeros)."""
    out: list[list[int]] = []
    folders = [project.memories_dir, personal.memories_dir if personal else ""]  # "": missing
    for path in [*folders, project.config_path, *files]:
        try:
            st = os.stat(path)
        except OSError:
            st = None
        out.append([st.st_ino, st.st_size, st.st_mtime_ns, st.st_ctime_ns] if st else [0, 0, 0, 0])
    return out


class Answered(NamedTuple):
    text: str  # what the hook prints: the refusal in the client's shape, or nothing
    keys: tuple[str, ...] = ()  # the memory it quoted, or the rule (for tests and benchmarks)


def run(client_name: str | None, raw: bytes, today: date | None = None) -> Answered:
    """``gitmem hook pre-tool``: the client's payload in, its answer out (``__main__`` calls this
    directly, so the hook imports neither click nor the prompt hook's modules)."""

    return respond(client_name, parse(raw), today)


def respond(client_name: str | None, payload: dict[str, Any], day: date | None) -> Answered:
    """A refusal in the client's shape for a call that breaks an active memory's ``enforce`` or
    writes the memory layer; nothing for every other call. Errors reach the caller, which lets the
    call run.
    """
    call = call_of(payload)
    if not call.commands and not call.writes:
        return Answered("")  # a read, a search...: nothing to look at (no repository opened)

    cwd = text(payload, "cwd", "directory") or _workspace(payload)
    try:
        project = find_project(Path(cwd) if os.path.isabs(cwd) else None)  # "" is not absolute
    except GitmemError:
        return Answered("")  # not in a repository: nothing of gitmem's to enforce
    if not project.memory_dir.is_dir():
        return Answered("")
    iso = day.isoformat() if day is not None else time.strftime("%Y-%m-%d")
    refused = check(project, call, cwd, iso)
    if refused is None:
        return Answered("")
    from gitmem.hook import clients, receipts  # lazy: the pre-tool hook's start-up

    client = clients.BY_NAME.get(client_name or "") or clients.detect(payload)
    ids = list(filter(None, [refused.memory]))  # none for the memory-layer gate
    receipts.record(project, "block", client.name, session_id(payload), ids, refused.rule)
    return Answered(answer(client, refused.reason), (refused.memory or refused.rule,))


def _workspace(payload: dict[str, Any]) -> str:
    """Antigravity's first workspace folder (its payload has no ``cwd``)."""
    match payload.get("workspacePaths"):
        case [str(first), *_]:
            return first
    return ""


def check(project: Project, call: Call, cwd: str, day: str) -> Refusal | None:
    """The refusal of ``call`` (run from ``cwd``, and running or writing something) on ``day``
    (ISO), or None to let it run."""
    gate = Gate(project, cwd)
    return gate.check(call) or broken(enforced(project, day), call, gate)


def _hook_specific(client: Client, text: str) -> dict[str, Any]:
    name = client.event_name("pre-tool") or "PreToolUse"
    inner = {"hookEventName": name, "permissionDecision": "deny", "permissionDecisionReason": text}
    return {"hookSpecificOutput": inner}


# How each client reads a refusal (``Hooks.deny``) -> the answer it gets; None: the text itself.
DENY: dict[DenyShape, Callable[[Client, str], dict[str, Any]] | None] = {
    "plain": None,  # gitmem's opencode plugin throws it
    "decision": lambda _client, text: {"decision": "deny", "reason": text},
    "permissionDecision": lambda _client, text: {
        "permissionDecision": "deny",
        "permissionDecisionReason": text,
    },
    "permission": lambda _client, text: {
        "permission": "deny",
        "user_message": text,
        "agent_message": text,
    },
    "hookSpecificOutput": _hook_specific,
}


def answer(client: Client, text: str) -> str:
    """A refusal in ``client``'s own shape."""
    shape = DENY[client.deny]
    return text if shape is None else json.dumps(shape(client, text), ensure_ascii=False)


FAILED = "pre-tool-failed"  # under gitmem's cache: the sessions told that the hook failed


def failure_note(raw: bytes, error: BaseException) -> str | None:
    """The one line a failed hook prints (on stderr) before letting the call through; None when this
    session was told already."""
    note = (
        f"gitmem: the pre-tool hook failed ({type(error).__name__}); tool calls pass "
        "unchecked: run `gitmem doctor`"
    )
    try:
        payload = parse(raw)
        cwd = payload.get("cwd")
        project = find_project(Path(cwd) if isinstance(cwd, str) and os.path.isabs(cwd) else None)
        key = hashlib.sha256(session_id(payload).encode("utf-8", "surrogatepass")).hexdigest()[:32]
        gateway.write(project.cache_dir, project.cache_dir / FAILED / key, b"", overwrite=False)
    except FileExistsError:
        return None
    except Exception:  # no repository, no cache: say it every time rather than never
        return note
    return note
