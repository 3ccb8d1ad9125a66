"""What `gitmem init` sets up for a team: the pre-commit hooks, and the merge driver for rules
files.

- The gitmem hooks go into `.pre-commit-config.yaml` as `repo: local` hooks that run the installed
  gitmem, so they work offline. An existing config is edited as text: the new entry is inserted at
  the end of its `repos:` list, in the file's own indentation, and every other byte (comments,
  anchors, other hooks) is kept. The result is parsed again to prove it means the old config plus
  the new entry; when it does not, nothing is written and the user is shown the snippet to add by
  hand.
- `pre-commit install` (with `--hook-type pre-push` when asked) wires them into .git/hooks.
- `.gitattributes` gets a gitmem section marking the generated rules files `merge=gitmem`, and the
  local git config defines that driver (`gitmem-cli merge-driver %O %A %B %P`).
- Every command they run is ``gitmem-cli`` (``gitmem.COMMAND``), a name only this package installs;
  the entries an older gitmem wrote (``gitmem scan --staged``, ...) are moved to it, and so is the
  driver.

Running any of it twice changes nothing.
"""

from __future__ import annotations

import contextlib
import importlib.util
import re
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from gitmem import COMMAND, gateway, yamlio
from gitmem import gitcommand as command
from gitmem.errors import CannotRun, GitmemError
from gitmem.gateway import TEMP_PATTERN
from gitmem.linear import linear
from gitmem.project import Project
from gitmem.tools import TARGET_BY_NAME as BY_NAME

PRECOMMIT_CONFIG = ".pre-commit-config.yaml"
GITATTRIBUTES = ".gitattributes"
DRIVER_NAME = "gitmem: merge rules files memory by memory"
DRIVER_COMMAND = f"{COMMAND} merge-driver %O %A %B %P"
ATTR_BEGIN = (
    "# gitmem:begin: generated rules files, merged memory by memory (gitmem init keeps this "
    "section)"
)
ATTR_END = "# gitmem:end"
# The driver's keys in the local git config, their values, and what init says when it sets each
DRIVER_CONFIG = (
    ("merge.gitmem.name", DRIVER_NAME, ()),
    (
        "merge.gitmem.driver",
        DRIVER_COMMAND,
        ("registered the merge driver in .git/config (merge.gitmem.driver)",),
    ),
)


@dataclass(frozen=True)
class Hook:
    id: str
    name: str
    entry: str
    fields: tuple[tuple[str, str], ...]


HOOKS = (
    Hook("gitmem-scan", "gitmem scan (secrets and hidden Unicode in the staged changes)",
         f"{COMMAND} scan --staged", (("pass_filenames", "false"),)),
    Hook("gitmem-validate", "gitmem validate (memories and config)", f"{COMMAND} validate",
         (("files", r"^\.memory/(memories/[^/]+\.yaml|config\.yaml)$"),)),
    Hook("gitmem-compile", "gitmem compile (rules files)", f"{COMMAND} compile",
         (("files", r"^\.memory/"), ("pass_filenames", "false"))),
)  # fmt: skip
PRE_PUSH_HOOK = Hook(
    "gitmem-check", "gitmem check (what CI runs)", f"{COMMAND} check",
    (("pass_filenames", "false"), ("always_run", "true"), ("stages", "[pre-push]")),
)  # fmt: skip


def _entry_text(hooks: list[Hook], indent: int, dash: str) -> str:
    """A `repo: local` item of the `repos:` list, with the list's indentation and dash style
    (``"- "``, ``"-   "``)."""
    pad = " " * indent
    inner = " " * (indent + len(dash))
    lines = [f"{pad}{dash}repo: local", f"{inner}hooks:"]
    for hook in hooks:
        lines.append(f"{inner}{dash}id: {hook.id}")
        body = " " * (indent + 2 * len(dash))
        lines.append(f"{body}name: {_quote(hook.name)}")
        lines.append(f"{body}entry: {hook.entry}")
        lines.append(f"{body}language: system")
        for key, value in hook.fields:
            lines.append(f"{body}{key}: {_quote(value) if key == 'files' else value}")
    return "\n".join(lines) + "\n"


def _quote(value: str) -> str:
    return (
        "'" + value.replace("'", "''") + "'"
        if re.search(r"[:#\[\]{}&*!|>'\"%@`\\^$]", value)
        else value
    )


def wanted_hooks(pre_push: bool) -> list[Hook]:
    return [*HOOKS, PRE_PUSH_HOOK] if pre_push else list(HOOKS)


# The git hooks pre-commit installs, by whether ``--pre-push`` was given.
HOOK_TYPES = {False: ("pre-commit",), True: ("pre-commit", "pre-push")}


def _hook_ids(data: dict[str, Any]) -> set[str]:
    ids = set()
    for repo in data.get("repos") or []:
        for hook in repo.get("hooks") or [] if isinstance(repo, dict) else []:
            if isinstance(hook, dict) and isinstance(hook.get("id"), str):
                ids.add(hook["id"])
    return ids


def ensure_precommit_config(project: Project, pre_push: bool = False) -> str:
    """Add the missing gitmem hooks to .pre-commit-config.yaml, and move an older gitmem's entries
    to ``COMMAND``.
    Returns "created", "updated", "moved" (only entries moved) or "unchanged"."""
    path = gateway.require(project, project.root / PRECOMMIT_CONFIG, PRECOMMIT_CONFIG)
    if not path.exists():
        text = (
            "# pre-commit hooks (https://pre-commit.com); `gitmem init` added gitmem's.\nrepos:\n"
        )
        gateway.write(project, path, text + _entry_text(wanted_hooks(pre_push), 0, "-   "))
        return "created"
    text, data = _read_config(project, path)
    moved = _moved_entries(text)
    missing = [hook for hook in wanted_hooks(pre_push) if hook.id not in _hook_ids(data)]
    if not missing:
        if moved == text:
            return "unchanged"
        gateway.write(project, path, moved)
        return "moved"
    new_text = _insert_entry(moved, missing)
    if new_text is None or not _only_added(data, new_text, missing):
        snippet = _entry_text(missing, 2, "- ")
        raise CannotRun(
            f"could not add the gitmem hooks to {PRECOMMIT_CONFIG} safely (unusual layout); add "
            f"this under `repos:` by hand, then run `gitmem init` again:\n{snippet.rstrip()}"
        )
    gateway.write(project, path, new_text)
    return "updated"


def _read_config(project: Project, path: Path) -> tuple[str, dict[str, Any]]:
    """The pre-commit config's text and data (a mapping, empty when the file is)."""
    try:
        text = gateway.read_text(project, path, limit=gateway.CONFIG_LIMIT)
        data = yamlio.load_plain(text)
    except (OSError, UnicodeDecodeError) as exc:
        raise CannotRun(f"cannot read {PRECOMMIT_CONFIG}: {exc}") from None
    except yamlio.YamlProblem as exc:
        where = f"{PRECOMMIT_CONFIG}:{exc.line}:{exc.column}"
        raise CannotRun(f"{where}: {exc.message}: fix it, then run `gitmem init`") from None
    if data is None:
        return text, {}
    if isinstance(data, list):  # pre-commit 1's form, which pre-commit refuses now
        raise CannotRun(
            f"{PRECOMMIT_CONFIG} is a list of repos, the form old pre-commit read: run "
            "`pre-commit migrate-config`, then `gitmem init`"
        )
    if not isinstance(data, dict):
        raise CannotRun(f"{PRECOMMIT_CONFIG} is not a mapping: fix it, then run `gitmem init`")
    return text, data


def _only_added(old: dict[str, Any], new_text: str, missing: list[Hook]) -> bool:
    """Whether ``new_text`` reads as ``data`` with only the ``missing`` hooks added after its
    repos (every other key and repo as it was)."""
    try:
        new_data = yamlio.load_plain(new_text)
    except yamlio.YamlProblem:
        return False
    if not isinstance(new_data, dict):
        return False
    expected_repos = list(old.get("repos") or [])
    return (
        {**new_data, "repos": None} == {**old, "repos": None}  # every other key as it was
        and new_data.get("repos", [])[: len(expected_repos)] == expected_repos
        and {hook.id for hook in missing} <= _hook_ids(new_data)
    )


# An entry an older gitmem wrote, which ran `gitmem` from PATH (maybe another tool's): run COMMAND
# instead.
_OLD_ENTRY = linear(
    r"^([ \t]*(?:-[ \t]+)?entry:[ \t]*)gitmem([ \t]+(?:scan "
    r"--staged|validate|compile|check)[ \t]*\r?)$"
)


def _moved_entries(text: str) -> str:
    """``text`` with each of gitmem's hook entries that runs ``gitmem`` running ``COMMAND``;
    every other byte kept."""
    lines = text.split("\n")
    return "\n".join(
        f"{found.group(1)}{COMMAND}{found.group(2)}" if (found := _OLD_ENTRY.match(line)) else line
        for line in lines
    )


_REPOS_RE = re.compile(r"repos:[ \t]*(#.*)?")
_ITEM_RE = linear(r"( *)(-[ \t]+)\S")


def _insert_entry(text: str, hooks: list[Hook]) -> str | None:
    """``text`` with a `repo: local` entry for ``hooks`` at the end of its top-level `repos:`
    list, or ``None``."""
    newline = "\r\n" if "\r\n" in text else "\n"
    lines = text.splitlines(keepends=True)
    start = next(
        (i for i, line in enumerate(lines) if _REPOS_RE.fullmatch(line.rstrip("\r\n"))), None
    )
    if start is None:
        if re.search(r"^repos:", text, re.MULTILINE):
            return None  # e.g. `repos: []`, or a flow list: not edited as text
        entry = _entry_text(hooks, 0, "-   ").replace("\n", newline)
        return _line_ended(text, newline) + "repos:" + newline + entry
    found = _list_end(lines, start)
    if found is None:
        return None
    last, indent, dash = found
    entry = _entry_text(hooks, indent, dash).replace("\n", newline)
    head = "".join(lines[: last + 1])
    if not head.endswith(("\n", "\r")):
        head += newline
    return head + entry + "".join(lines[last + 1 :])


def _list_end(lines: list[str], start: int) -> tuple[int, int, str] | None:
    """The last line of the `repos:` list that begins after line ``start``, with its items' indent
    and dash (``None`` when its first item is not a block list item)."""
    last = start
    indent, dash = 0, "-   "
    first_item = True
    for i in range(start + 1, len(lines)):
        content = lines[i].rstrip("\r\n")
        stripped = content.lstrip()
        if not stripped or stripped.startswith("#"):
            continue
        if not content[0].isspace() and not content.startswith("-"):
            break  # the next top-level key
        if first_item:
            match = _ITEM_RE.match(content)
            if match is None:
                return None
            indent, dash = len(match.group(1)), "-" + " " * (len(match.group(2)) - 1)
            first_item = False
        last = i
    return last, indent, dash


def install_precommit(project: Project, pre_push: bool = False) -> list[str]:
    """Run `pre-commit install` for the hook types not installed yet. Returns what was done (or
    advice)."""
    done = []
    hook_dir = project.git_dir / "hooks"
    for hook_type in HOOK_TYPES[pre_push]:
        with contextlib.suppress(OSError, GitmemError):  # none yet, or unreadable: install it
            if "pre-commit" in gateway.read_git_file(hook_dir / hook_type):
                continue
        try:
            result = subprocess.run(
                [sys.executable, "-m", "pre_commit", "install", "--hook-type", hook_type],
                cwd=project.root, capture_output=True, text=True, check=False,
            )  # fmt: skip
        except OSError as exc:
            done.append(
                f"could not run pre-commit ({exc.strerror}): run `pre-commit install` yourself"
            )
            continue
        if result.returncode != 0:
            why = (result.stderr or result.stdout).strip().splitlines()
            done.append(
                f"`pre-commit install --hook-type {hook_type}` failed "
                f"({why[-1] if why else 'no output'}); fix that and run it yourself"
            )
        else:
            done.append(f"installed the {hook_type} hook (pre-commit)")
    return done


def precommit_missing() -> bool:
    return importlib.util.find_spec("pre_commit") is None


def attribute_lines(targets: tuple[str, ...]) -> list[str]:
    """The `.gitattributes` lines for the configured targets' generated files."""
    patterns: list[tuple[str, bool]] = []
    for name in targets:
        target = BY_NAME[name]
        root = (
            target.root_file
        )  # a bare name (AGENTS.md) matches at every level, nested files included
        patterns.append((root, target.root_whole))
        if target.dir_file and target.dir_file != root:
            patterns.append((target.dir_file, False))
        if target.scoped_dir:
            patterns.append((f"{target.scoped_dir}/gitmem-*{target.scoped_suffix}", True))
    lines = []
    for pattern, whole in dict.fromkeys(patterns):
        lines.append(f"{pattern} merge=gitmem" + (" linguist-generated=true" if whole else ""))
    return lines


def ensure_merge_driver(project: Project, targets: tuple[str, ...]) -> list[str]:
    """Declare the generated files in .gitattributes and define the driver in the local git
    config."""
    done = []
    path = gateway.require(project, project.root / GITATTRIBUTES, GITATTRIBUTES)
    try:
        text = gateway.read_text(project, path, limit=gateway.CONFIG_LIMIT) if path.exists() else ""
    except (OSError, UnicodeDecodeError) as exc:
        raise CannotRun(f"cannot read {GITATTRIBUTES}: {exc}") from None
    section = "\n".join([ATTR_BEGIN, *attribute_lines(targets), ATTR_END]) + "\n"
    new_text = _replace_section(text, section)
    if new_text != text:
        gateway.write(project, path, new_text)
        done.append(
            f"{'updated' if text else 'created'} {GITATTRIBUTES} (rules files merge=gitmem)"
        )
    for key, value, said in DRIVER_CONFIG:
        if _git_config(project, key) != value:
            command.git(project.root, "config", "--local", key, value)
            done.extend(said)
    return done


def _replace_section(text: str, section: str) -> str:
    lines = text.splitlines(keepends=True)
    begin = next((i for i, line in enumerate(lines) if line.startswith("# gitmem:begin")), -1)
    end = next((i for i, line in enumerate(lines) if line.rstrip("\r\n") == ATTR_END), -1)
    if 0 <= begin < end:  # a section, begun and then ended
        return "".join(lines[:begin]) + section + "".join(lines[end + 1 :])
    return _line_ended(text) + section


def _line_ended(text: str, newline: str = "\n") -> str:
    """``text`` ready for lines after it: its last line ended (with ``newline``) when it has one."""
    return text if not text or text.endswith("\n") else text + newline


def _git_config(project: Project, key: str) -> str | None:
    try:
        return command.git(project.root, "config", "--local", "--get", key).decode("utf-8").strip()
    except command.GitFailed:
        return None


def exclude_temp_files(project: Project) -> None:
    """Have git ignore gitmem's temporary files anywhere in this clone (``info/exclude``: a local
    setting like the merge driver's), so a write killed half-way next to a rules file is never
    committed.
    """

    relative = command.git(project.root, "rev-parse", "--git-path", "info/exclude").decode().strip()
    exclude = project.root / relative
    try:
        text = gateway.read_git_file(exclude)
    except FileNotFoundError:
        text = ""
    except (OSError, GitmemError):
        return  # a local convenience only: .memory/ is covered by its committed .gitignore
    if TEMP_PATTERN not in text.splitlines():
        added = f"# gitmem's temporary files\n{TEMP_PATTERN}\n"
        gateway.write_git_file(exclude, (_line_ended(text) + added).encode())
