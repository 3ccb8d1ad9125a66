"""Changing the sources (``gitmem sources add / update / mute / unmute / remove``): each change is
checked against the pack it pins before .memory/config.yaml is written, so a source never points at
invalid memories.
"""

from __future__ import annotations

import os
import re
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from datetime import date
from pathlib import Path
from typing import Any

from gitmem import gateway
from gitmem.errors import CannotRun, CheckFailed, Problem, UsageError
from gitmem.memory.config import Config, Source, save_config
from gitmem.memory.model import ID_PATTERN, slugify
from gitmem.project import Project
from gitmem.scopes.clone import (
    clone_dir,
    default_branch,
    fetch,
    index_path,
    is_ancestor,
    is_branch,
    is_url,
    read_tree,
    resolve,
    rev_problem,
    tags,
)
from gitmem.scopes.credentials import refuse_credentials
from gitmem.scopes.packs import Pack, check_pack, check_sources, find, read, remember, short_rev


def source_dict(source: Source) -> dict[str, Any]:
    out: dict[str, Any] = {"name": source.name, "repo": source.repo, "rev": source.rev}
    if source.track:
        out["track"] = source.track
    if source.mute:
        out["mute"] = list(source.mute)
    return out


def save_sources(project: Project, sources: Sequence[Source]) -> None:
    save_config(project, {"sources": [source_dict(source) for source in sources] or None})


def default_name(repo: str) -> str:
    """A source name from its repository: the last part of the path, without ``.git``, as an id."""

    last = re.split(r"[/:\\]", repo.rstrip("/\\"))[-1].removesuffix(".git")
    return slugify(last)


def recorded_repo(project: Project, repo: str) -> str:
    """The repository as the config records it: a relative path given here becomes relative to
    the root."""
    if is_url(repo) or os.path.isabs(repo):
        return repo
    absolute = os.path.normpath(os.path.join(os.getcwd(), repo))
    return Path(os.path.relpath(absolute, project.root)).as_posix()


@dataclass
class Added:
    source: Source
    pack: Pack


def add(
    project: Project,
    config: Config,
    repo: str,
    rev: str | None,
    name: str | None,
    track: str | None,
) -> Added:
    """Record a new source pinned at ``rev`` (default: its newest tag), after fetching and
    checking it."""
    name = _new_name(config, repo, rev, name, track)
    source = Source(name, recorded_repo(project, repo), rev or "HEAD", track)
    clone = fetch(project, source)
    if track is not None and not is_branch(clone, track):
        raise UsageError(f"source {name!r}: --track {track!r} is not a branch of {source.repo}")
    source, commit = _pinned(clone, source, rev, track)
    pack = check_pack(source, commit, read_tree(clone, commit, source.name))
    if pack.problems:
        raise CheckFailed(
            pack.problems,
            f"source {name!r} at {short_rev(source.rev)} has invalid memories: not added",
        )
    save_sources(project, [*config.sources, source])
    remember(project, pack)
    return Added(source, pack)


def _new_name(
    config: Config, repo: str, rev: str | None, name: str | None, track: str | None
) -> str:
    """The name of a source to add (``name``, else made from ``repo``), once the options are
    checked: no credentials in the address, revisions as a repository names them, a free name."""

    refuse_credentials(repo)
    for option, value in (("--rev", rev), ("--track", track)):
        problem = rev_problem(value) if value is not None else None
        if problem is not None:
            raise UsageError(
                f"{option} holds {problem}: pass the revision as the source's repository names it"
            )
    check_sources(config)
    name = name or default_name(repo)
    if not name:
        raise UsageError(f"cannot make a source name from {repo!r}: pass one with --name")
    if not ID_PATTERN.match(name):
        raise UsageError(
            f"invalid source name {name!r}: use 1 to 64 lower-case letters, digits or hyphens, "
            "starting with a letter or digit"
        )
    existing = {source.name: source for source in config.sources}.get(name)  # names are unique
    if existing is not None:
        raise UsageError(
            f"a source named {name!r} exists ({existing.repo}): choose another name with --name"
        )
    return name


def _pinned(clone: Path, source: Source, rev: str | None, track: str | None) -> tuple[Source, str]:
    """``source`` pinned at ``rev`` (default: the branch it tracks, else its newest tag), and the
    commit."""
    name = source.name
    if rev is None:
        rev = track or next(iter(tags(clone)), None)
        if rev is None:
            raise UsageError(
                f"source {name!r} has no tags: pin a revision with --rev (a tag, a commit, "
                "or a branch to follow)"
            )
    commit = resolve(clone, rev)
    if commit is None:
        known = tags(clone)[:5]
        hint = f" (newest tags: {', '.join(known)})" if known else ""
        raise UsageError(f"source {name!r}: no revision {rev!r} in {source.repo}{hint}")
    # A tag is pinned by name; anything else (a short sha, HEAD~1) by its full commit. A branch is
    # followed, not pinned by name: its head commit is pinned, and the branch tracked.
    branch = is_branch(clone, rev)
    pinned = rev if resolve(clone, f"refs/tags/{rev}") == commit else commit
    return replace(source, rev=pinned, track=(track or rev) if branch else track), commit


@dataclass
class Update:
    """What ``sources update`` did to one source."""

    source: Source  # as it is now
    old_rev: str
    added: list[str] = field(default_factory=list)  # qualified ids of memories compile now includes
    changed: list[str] = field(default_factory=list)
    removed: list[str] = field(default_factory=list)
    titles: dict[str, str] = field(default_factory=dict)
    note: str = ""
    error: str = ""
    problems: list[Problem] = field(default_factory=list)
    pack: Pack | None = None  # the new pin's pack, when it moved

    @property
    def moved(self) -> bool:
        return self.source.rev != self.old_rev


def update(
    project: Project, config: Config, names: Sequence[str], branch: bool, today: date
) -> list[Update]:
    """Move each source's pin to its newest tag (or, with ``track`` or ``branch``, to its branch's
    head), and say what that changes. A source that cannot be fetched is reported and left as it is;
    the others move.
    """
    check_sources(config)
    chosen = [_named(config, name) for name in dict.fromkeys(names)] if names else config.sources
    results: list[Update] = []
    for source in chosen:
        result = Update(source, source.rev)
        results.append(result)
        try:
            _update_one(project, source, branch, today, result)
        except CannotRun as exc:
            result.error = str(exc)
    moved = [result for result in results if result.moved]
    if moved:
        updated = {result.source.name: result.source for result in moved}
        save_sources(project, [updated.get(source.name, source) for source in config.sources])
    for pack in filter(None, (result.pack for result in moved)):  # a moved pin has its pack
        remember(project, pack)
    return results


def _update_one(
    project: Project, source: Source, branch: bool, today: date, result: Update
) -> None:
    """Move one source's pin (``result`` says what happened); ``CannotRun`` when it cannot be
    fetched or read."""
    old = read(project, source, fetch_missing=False)
    clone = fetch(project, source)
    # Read before the fetch when the cache had it (a branch name may mean another commit after it).
    old = old or read(project, source, fetch_missing=False) or Pack(source, "")
    if branch or source.track:
        name = source.track or default_branch(clone)
        commit = resolve(clone, f"refs/heads/{name}")
        if commit is None:
            result.error = f"source {source.name!r}: no branch {name!r} in {source.repo}"
            return
        new_rev = commit
    else:
        newest = tags(clone)
        if not newest:
            result.note = "no tags: the pin stays (use --branch to move to the branch head)"
            return
        new_rev = newest[0]
        commit = resolve(clone, new_rev)
        if commit is None:
            result.error = f"source {source.name!r}: cannot resolve {new_rev!r}"
            return
        if old.commit and commit != old.commit and is_ancestor(clone, commit, old.commit):
            result.note = f"already past the newest tag {new_rev}: the pin stays"
            return
    moved = replace(source, rev=new_rev)
    new = check_pack(moved, commit, read_tree(clone, commit, source.name))
    if new.problems:
        result.problems = new.problems
        result.note = f"{short_rev(new_rev)} has invalid memories: the pin stays"
        return
    _diff(old, new, today, result)
    result.source = moved
    result.pack = new


def _diff(old: Pack, new: Pack, today: date, result: Update) -> None:
    before = {memory.id: memory for memory in old.live(today)}
    after = {memory.id: memory for memory in new.live(today)}
    result.added = sorted(set(after) - set(before))
    result.removed = sorted(set(before) - set(after))
    # kept, but not as it was: an item of before's that after has not, under a key after has
    result.changed = sorted({key for key, _ in before.items() - after.items()} & after.keys())
    result.titles = {key: memory.title for key, memory in {**before, **after}.items()}


def mute(project: Project, config: Config, name: str, ids: Sequence[str], muted: bool) -> list[str]:
    """Mute (or unmute) pack memories by id; returns the ids whose state changed."""
    check_sources(config)
    source = _named(config, name)
    local = [memory_id.removeprefix(f"{name}/") for memory_id in dict.fromkeys(ids)]
    if muted:  # each id must name a memory of the pack
        pack = read(project, source)
        assert pack is not None
        for memory_id in local:
            find([pack], f"{name}/{memory_id}")
    changed = [memory_id for memory_id in local if (memory_id in source.mute) is not muted]
    kept = tuple(memory_id for memory_id in source.mute if memory_id not in changed)
    if changed:
        new = replace(source, mute=(*kept, *changed) if muted else kept)
        save_sources(project, [new if s.name == name else s for s in config.sources])
    return changed


def _named(config: Config, name: str) -> Source:
    """The configured source called ``name`` (a usage error naming the others when none is)."""
    source = next((source for source in config.sources if source.name == name), None)
    if source is None:
        known = ", ".join(source.name for source in config.sources) or "none"
        raise UsageError(f"no source {name!r} (sources: {known})")
    return source


def remove(project: Project, config: Config, name: str) -> Source:
    """Forget a source and delete its clone."""
    source = _named(config, name)
    save_sources(project, [s for s in config.sources if s.name != name])
    gateway.remove_tree(project, clone_dir(project, source))
    gateway.remove(project, index_path(project, source), missing_ok=True)
    return source
