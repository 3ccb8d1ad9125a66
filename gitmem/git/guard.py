"""The guard's settings, as a pull request changes them: ``scan.exclude``, ``scan.allow``,
``scan.salt`` and ``sources`` of .memory/config.yaml decide what the secret scan checks and which
packs reach every rules file, so a pull request that changes one must say so where it is reviewed
(``gitmem diff``, ``gitmem check``): a PR adding ``scan: {exclude: ['*']}`` is not "no memory
changes".

``guard_changes`` compares the config at a base commit with the config at a head commit (or in the
working tree), item by item. A config that cannot be read on one side counts as empty there (its
problems are ``gitmem validate``'s to report). An added ``scan.allow`` entry that allows nothing in
the tree under review (the file it names, scanned at the head) is flagged: an entry written for a
line not yet there would let a later secret on that line through the hook.
"""

from __future__ import annotations

import contextlib
from typing import Any, NamedTuple

from gitmem import gateway, gitcommand
from gitmem.errors import GitmemError, shown
from gitmem.git import history
from gitmem.git.provenance import _code
from gitmem.memory.schema import MAX_FILE_BYTES, check_config
from gitmem.project import Project
from gitmem.scan.engine import entry_place
from gitmem.scan.policy import LOG, policy, scan

CONFIG = ".memory/config.yaml"
SETTINGS = ("scan.exclude", "scan.allow", "scan.salt", "sources")
NOTHING = (
    "no finding of the file it names matches it; a secret written there later would pass the hook"
)


class GuardChange(NamedTuple):
    """One setting's items added and removed (strings as they read in the config, sources as
    ``name repo@rev``)."""

    setting: str
    added: tuple[str, ...]
    removed: tuple[str, ...]
    allows_nothing: tuple[
        str, ...
    ] = ()  # added scan.allow entries that allow no finding of the tree under review

    def to_dict(self) -> dict[str, Any]:
        data: dict[str, Any] = {
            "setting": self.setting,
            "added": list(self.added),
            "removed": list(self.removed),
        }
        if self.setting == "scan.allow":
            data["allows_nothing"] = list(self.allows_nothing)
        return data


def settings_of(raw: bytes | None) -> dict[str, tuple[str, ...]]:
    """The guard's settings in a config file's bytes (none when it is missing, unreadable or
    invalid: a valid config's values have the schema's types, so they are read as they are)."""
    checked, _ = check_config(raw, CONFIG) if raw is not None else (None, [])
    data = checked or {}
    scan = data.get("scan", {})
    return {
        "scan.exclude": tuple(scan.get("exclude", ())),
        "scan.allow": tuple(scan.get("allow", ())),
        "scan.salt": tuple(filter(None, [scan.get("salt")])),
        "sources": tuple(_source(item) for item in data.get("sources", ())),
    }


def _source(item: dict[str, Any]) -> str:
    text = f"{item.get('name')} {item.get('repo')}@{item.get('rev')}"
    if item.get("track"):
        text += f" (tracking {item['track']})"
    if item.get("mute"):
        text += f" (muting {', '.join(str(m) for m in item['mute'])})"
    return text


def compare(
    before: dict[str, tuple[str, ...]], after: dict[str, tuple[str, ...]]
) -> list[GuardChange]:
    changes = []
    for setting in SETTINGS:
        old, new = before.get(setting, ()), after.get(setting, ())
        added = tuple(item for item in new if item not in old)
        removed = tuple(item for item in old if item not in new)
        if added or removed:
            changes.append(GuardChange(setting, added, removed))
    return changes


def config_at(project: Project, commit: str | None) -> bytes | None:
    """The config's bytes at ``commit`` (``None``: the working tree), or ``None`` when there is
    none."""

    if commit is None:
        if not project.config_path.exists():
            return None
        with contextlib.suppress(GitmemError, OSError):
            return gateway.read_bytes(
                project, project.config_path, limit=MAX_FILE_BYTES + 1
            )  # over it: refused
        return None
    entries = history.tree_entries(project.root, commit, ".memory")
    blob = entries.get("config.yaml")
    return history.read_blobs(project.root, [blob])[blob] if blob else None


def guard_changes(project: Project, base: str, head: str | None) -> list[GuardChange]:
    """What changed in the guard's settings from ``base`` (a commit) to ``head`` (a commit;
    ``None``: the working tree), each added scan.allow entry that allows nothing at ``head`` named.
    """
    changes = compare(settings_of(config_at(project, base)), settings_of(config_at(project, head)))
    return [
        change._replace(
            allows_nothing=tuple(e for e in change.added if not allows_anything(project, e, head))
        )
        if change.setting == "scan.allow"
        else change
        for change in changes
    ]


def allows_anything(project: Project, entry: str, head: str | None) -> bool:
    """Whether the scan.allow ``entry`` allows a finding of the file it names, at ``head`` (a
    commit; ``None``: the working tree). The file is scanned as deep as the hook scans anything (a
    session log's depth, pragmas not honoured), so an entry the hook would use is never flagged. An
    old (v1, v2) entry names no file: it counts as allowing something (``gitmem scan`` asks to renew
    those).
    """

    place = entry_place(entry)
    if place is None:
        return not entry.startswith("v3:")
    path, _rule = place
    raw = _file_at(project, path, head)
    if raw is None:
        return False
    text = raw.decode("utf-8", "replace")
    # as the hook reads it, as deep as it reads a log
    how = policy(path, path, text)._replace(decode=LOG.decode, pragmas=LOG.pragmas)
    found = scan(text, path, how)
    return any(finding._replace(where=path).fingerprint() == entry for finding in found)


def _file_at(project: Project, path: str, head: str | None) -> bytes | None:
    """The bytes of the repository's file ``path`` at ``head`` (``None``: the working tree), or
    None."""

    if head is None:
        with contextlib.suppress(GitmemError, OSError):
            return gateway.read_bytes(project, project.root / path, limit=gateway.SCAN_LIMIT)
        return None

    try:
        size = int(gitcommand.git(project.root, "cat-file", "-s", f"{head}:{path}").strip() or 0)
        if size > gateway.SCAN_LIMIT:  # bounded as any scanned file is, before a byte of it is read
            return None
        return gitcommand.git(project.root, "cat-file", "blob", f"{head}:{path}")
    except (GitmemError, ValueError):
        return None


def to_markdown(changes: list[GuardChange]) -> str:
    """The changes as a Markdown section of a pull-request comment (values in code spans,
    escaped), or ``""``."""
    if not changes:
        return ""

    lines = [
        "#### Guard settings changed: review them (they decide what the secret scan checks)",
        "",
    ]
    for change in changes:
        if (
            change.setting == "scan.salt"
        ):  # not shown: every fingerprint of the repository depends on it
            lines.append("- `scan.salt`: changed (every `scan.allow` fingerprint depends on it)")
            continue
        parts = [
            f"{verb} {', '.join(_code(item) for item in items)}"
            for verb, items in (("added", change.added), ("removed", change.removed))
            if items
        ]
        lines.append(f"- `{change.setting}`: {'; '.join(parts)}")
        for item in change.allows_nothing:
            lines.append(f"  - **{_code(item)} allows nothing in this tree**: {NOTHING}")
    return "\n".join(lines) + "\n"


def lines(changes: list[GuardChange]) -> list[str]:
    """The changes as plain lines (``gitmem check``), values escaped for the terminal."""

    out = []
    for change in changes:
        if change.setting == "scan.salt":
            out.append("scan.salt: changed")
            continue
        out += [
            f"{change.setting}: added '{shown(item)}'"
            + (
                f": allows nothing in this tree ({NOTHING})"
                if item in change.allows_nothing
                else ""
            )
            for item in change.added
        ]
        out += [f"{change.setting}: removed '{shown(item)}'" for item in change.removed]
    return out
