"""Shared memory packs: another git repository's memories, pinned at a revision, compiled into this project.

A source (``sources:`` in .memory/config.yaml, ``gitmem.config.Source``) names a repository (URL, or a path: a
relative one is relative to this repository's root) and a pinned revision: a tag or a commit (``sources add --rev
BRANCH`` pins the branch's head commit and records ``track: BRANCH``). The pack's memories are the files under
``.memory/memories/`` at that revision, read from git objects (nothing is checked out) and checked like any memory
file (``gitmem.schema.check_memory``: schema, secrets, hidden Unicode). Their ids are namespaced ``NAME/ID``: a
project id never holds a slash, so they cannot collide, and the compiled blocks' entries stay keyed by id.

The clone is a bare repository under the git directory (``.git/gitmem/sources/NAME-HASH.git``, the hash that of
the recorded repository, so changing the URL makes a new clone), fetched only when the pinned revision is not in
it yet, or by ``sources update``. What a pin holds is cached next to it as JSON, so a warm compile runs no git at
all and works offline. Every git command on a clone strips the variables git exports to hooks (``foreign=True``).
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import re
import shutil
import tempfile
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from datetime import date
from pathlib import Path
from typing import Any

from gitmem import gitrepo
from gitmem.config import Config, Source, save_config
from gitmem.errors import CannotRun, Problem, UsageError
from gitmem.fsutil import write_atomic
from gitmem.memory.model import ID_PATTERN, Memory
from gitmem.project import Project

MEMORIES_PATH = ".memory/memories"
SUFFIX = ".yaml"
_FORMAT = 1
_SHA = re.compile(r"[0-9a-f]{40}|[0-9a-f]{64}")


class Unreachable(CannotRun):
    """A source's repository could not be fetched."""


@dataclass
class Pack:
    """A source's memories at its pinned revision (ids as written in the pack, not namespaced)."""

    source: Source
    commit: str
    memories: dict[str, Memory] = field(default_factory=dict)
    problems: list[Problem] = field(default_factory=list)

    @property
    def name(self) -> str:
        return self.source.name

    def qualified(self, memory: Memory) -> Memory:
        """``memory`` as this project sees it: id (and supersedes) namespaced ``NAME/ID``."""
        return replace(
            memory,
            id=f"{self.name}/{memory.id}",
            supersedes=tuple(f"{self.name}/{target}" for target in memory.supersedes),
        )

    def muted(self, memory_id: str) -> bool:
        return memory_id in self.source.mute

    def live(self, today: date) -> list[Memory]:
        """The memories compile includes: active, unexpired, not muted; namespaced."""
        return [
            self.qualified(memory)
            for memory_id, memory in sorted(self.memories.items())
            if memory.is_live(today) and not self.muted(memory_id)
        ]

    def display(self, memory_id: str) -> str:
        """Where a memory comes from, as ``NAME@REV:.memory/memories/ID.yaml``."""
        return f"{self.name}@{short_rev(self.source.rev)}:{MEMORIES_PATH}/{memory_id}{SUFFIX}"


def short_rev(rev: str) -> str:
    return rev[:12] if _SHA.fullmatch(rev) else rev


def is_url(repo: str) -> bool:
    """Whether git reads ``repo`` as a URL (``scheme://...`` or scp-like ``host:path``) rather than a local path."""
    if "://" in repo:
        return True
    head = repo.split("/", 1)[0]
    return ":" in head and not re.fullmatch(r"[A-Za-z]:", head[:2])  # not a Windows drive


def location(project: Project, repo: str) -> str:
    """Where git fetches ``repo`` from: a URL as it is, a relative path from the repository root."""
    if is_url(repo) or os.path.isabs(repo):
        return repo
    return str(project.root / repo)


def clone_dir(project: Project, source: Source) -> Path:
    digest = hashlib.sha256(source.repo.encode("utf-8")).hexdigest()[:10]
    return project.cache_dir / "sources" / f"{source.name}-{digest}.git"


def _index_path(project: Project, source: Source) -> Path:
    return clone_dir(project, source).with_suffix(".json")


# -- git on a clone ------------------------------------------------------------------------------------------------


def _git(clone: Path, *args: str, input: bytes | None = None) -> bytes:
    return gitrepo.git(clone, *args, foreign=True, input=input)


def _fetch_env() -> dict[str, str]:
    """A fetch must fail rather than wait for a user name or password nobody will type, or hang on a dead network
    (it may run inside a commit hook): HTTP gives up after 30 s below 1 KB/s, and ssh connections (with the user's
    own keys, agent and settings otherwise) time out after 20 s."""
    env = {"GIT_TERMINAL_PROMPT": "0", "GIT_HTTP_LOW_SPEED_LIMIT": "1000", "GIT_HTTP_LOW_SPEED_TIME": "30"}
    if "GIT_SSH_COMMAND" not in os.environ and "GIT_SSH" not in os.environ:
        env["GIT_SSH_COMMAND"] = "ssh -o ConnectTimeout=20"
    return env


def fetch(project: Project, source: Source) -> Path:
    """Clone the source (or fetch into its clone): every branch and tag. ``Unreachable`` when git cannot."""
    clone = clone_dir(project, source)
    where = location(project, source.repo)
    try:
        if clone.is_dir():
            gitrepo.git(
                clone,
                "fetch",
                "--quiet",
                "--prune",
                "--force",
                "--tags",
                "--",
                where,
                "+refs/heads/*:refs/heads/*",
                foreign=True,
                env=_fetch_env(),
            )
        else:
            clone.parent.mkdir(parents=True, exist_ok=True)
            scratch = Path(tempfile.mkdtemp(dir=clone.parent, prefix=f".{clone.name}."))
            try:
                gitrepo.git(
                    clone.parent,
                    "clone",
                    "--bare",
                    "--quiet",
                    "--",
                    where,
                    str(scratch),
                    foreign=True,
                    env=_fetch_env(),
                )
                with contextlib.suppress(OSError):  # another process cloned it meanwhile: theirs is as good
                    os.rename(scratch, clone)
            finally:
                shutil.rmtree(scratch, ignore_errors=True)
    except gitrepo.GitFailed as exc:
        raise Unreachable(f"source {source.name!r}: cannot fetch {source.repo}: {exc.reason}") from None
    with contextlib.suppress(FileNotFoundError):
        _index_path(project, source).unlink()  # a branch name may mean another commit now
    return clone


def resolve(clone: Path, rev: str) -> str | None:
    """The commit ``rev`` names in ``clone``, or None."""
    try:
        out = _git(clone, "rev-parse", "--verify", "--quiet", "--end-of-options", f"{rev}^{{commit}}")
    except gitrepo.GitFailed:
        return None
    return out.decode("ascii").strip() or None


def tags(clone: Path) -> list[str]:
    """The clone's tags, newest version first (``v10`` after ``v9``)."""
    out = _git(clone, "tag", "--list", "--sort=-v:refname").decode("utf-8", "replace")
    return [line for line in out.splitlines() if line]


def is_branch(clone: Path, name: str) -> bool:
    return resolve(clone, f"refs/heads/{name}") is not None and resolve(clone, f"refs/tags/{name}") is None


def default_branch(clone: Path) -> str:
    """The branch the source's HEAD names (its default branch)."""
    try:
        ref = _git(clone, "symbolic-ref", "--quiet", "HEAD").decode("utf-8").strip()
    except gitrepo.GitFailed:
        ref = ""
    return ref.removeprefix("refs/heads/") or "main"


def _is_ancestor(clone: Path, older: str, newer: str) -> bool:
    try:
        _git(clone, "merge-base", "--is-ancestor", older, newer)
    except gitrepo.GitFailed:
        return False
    return True


def _read_tree(clone: Path, commit: str) -> dict[str, bytes | None]:
    """The memory files at ``commit``: file name -> bytes (one ``cat-file --batch`` for all of them), or ``None``
    for a symbolic link."""
    listing = _git(clone, "ls-tree", "-z", commit, "--", f"{MEMORIES_PATH}/").decode("utf-8", "surrogateescape")
    blobs: dict[str, str] = {}
    links: list[str] = []
    for record in listing.split("\0"):
        if not record:
            continue
        meta, _, path = record.partition("\t")
        mode, kind, oid = meta.split()
        name = path.rsplit("/", 1)[-1]
        if kind != "blob" or not name.endswith(SUFFIX) or name.startswith("."):
            continue
        if mode == "120000":
            links.append(name)
        else:
            blobs[name] = oid
    out: dict[str, bytes | None] = dict.fromkeys(links)
    if not blobs:
        return out
    raw = _git(clone, "cat-file", "--batch", input="".join(f"{oid}\n" for oid in blobs.values()).encode("ascii"))
    position = 0
    contents: dict[str, bytes] = {}
    for _ in blobs:
        end = raw.index(b"\n", position)
        oid, _kind, size = raw[position:end].decode("ascii").split()
        start = end + 1
        contents[oid] = raw[start : start + int(size)]
        position = start + int(size) + 1
    for name, oid in blobs.items():
        out[name] = contents[oid]
    return out


# -- reading a pack ------------------------------------------------------------------------------------------------


def _salt() -> str:
    from gitmem.memory.store import _salt as store_salt

    return f"{_FORMAT}:{store_salt()}"


def read(project: Project, source: Source, *, fetch_missing: bool = True) -> Pack | None:
    """The source's memories at its pinned revision: from the cache, else from the clone, fetching it first when
    the revision is not there yet (``fetch_missing``; otherwise ``None`` then)."""
    with contextlib.suppress(OSError, ValueError, KeyError, TypeError):
        stored = json.loads(_index_path(project, source).read_bytes())
        if stored["salt"] == _salt() and stored["repo"] == source.repo and stored["rev"] == source.rev:
            return _pack_from(source, stored)
    clone = clone_dir(project, source)
    commit = resolve(clone, source.rev) if clone.is_dir() else None
    if commit is None:
        if not fetch_missing:
            return None
        clone = fetch(project, source)
        commit = resolve(clone, source.rev)
        if commit is None:
            raise CannotRun(
                f"source {source.name!r}: no revision {source.rev!r} in {source.repo}; "
                f"pin one with `gitmem sources update {source.name}`"
            )
    pack = _check(source, commit, _read_tree(clone, commit))
    _remember(project, pack)
    return pack


def _remember(project: Project, pack: Pack) -> None:
    """Cache what the source's pin holds (a cache: when it cannot be written, the next run reads the clone)."""
    payload = {
        "salt": _salt(),
        "repo": pack.source.repo,
        "rev": pack.source.rev,
        "commit": pack.commit,
        "memories": {memory_id: memory.to_dict() for memory_id, memory in pack.memories.items()},
        "problems": [[p.path, p.line, p.column, p.field, p.message] for p in pack.problems],
    }
    with contextlib.suppress(OSError):
        write_atomic(_index_path(project, pack.source), json.dumps(payload, separators=(",", ":")).encode("utf-8"))


def _pack_from(source: Source, stored: dict[str, Any]) -> Pack:
    return Pack(
        source,
        stored["commit"],
        {memory_id: Memory.from_dict(data) for memory_id, data in stored["memories"].items()},
        [Problem(*row) for row in stored["problems"]],
    )


def _check(source: Source, commit: str, files: dict[str, bytes | None]) -> Pack:
    """Check every memory file of the pack, and that what they supersede is in the pack."""
    from gitmem.schema import check_memory

    pack = Pack(source, commit)
    for name, raw in sorted(files.items()):
        memory_id = name[: -len(SUFFIX)]
        display = pack.display(memory_id)
        if raw is None:
            pack.problems.append(Problem(display, 1, 1, "file", "a symbolic link; a pack's memories must be files"))
            continue
        data, problems = check_memory(raw, memory_id, display)
        if problems:
            pack.problems.extend(problems)
        elif data is not None:
            pack.memories[memory_id] = Memory.from_dict(data)
    for memory in pack.memories.values():
        for index, target in enumerate(memory.supersedes):
            if f"{target}{SUFFIX}" not in files:
                pack.problems.append(
                    Problem(pack.display(memory.id), 1, 1, f"supersedes[{index}]", f"no memory {target!r}")
                )
    pack.problems.sort()
    return pack


def check_sources(config: Config) -> None:
    names = [source.name for source in config.sources]
    for name in names:
        if names.count(name) > 1:
            raise CannotRun(f".memory/config.yaml: two sources are named {name!r}: rename one")


def load(project: Project, config: Config, *, fetch_missing: bool = True) -> tuple[list[Pack], list[Source]]:
    """Every source's pack; with ``fetch_missing=False``, the sources not in the cache yet come back apart."""
    check_sources(config)
    packs: list[Pack] = []
    missing: list[Source] = []
    for source in config.sources:
        pack = read(project, source, fetch_missing=fetch_missing)
        if pack is None:
            missing.append(source)
        else:
            packs.append(pack)
    return packs, missing


def problems(packs: Sequence[Pack]) -> list[Problem]:
    return sorted(problem for pack in packs for problem in pack.problems)


def live(packs: Sequence[Pack], today: date) -> list[Memory]:
    return [memory for pack in packs for memory in pack.live(today)]


def find(packs: Sequence[Pack], qualified_id: str) -> tuple[Pack, Memory]:
    """The pack memory ``NAME/ID``; a usage error naming what exists when there is none."""
    import difflib

    name, _, memory_id = qualified_id.partition("/")
    pack = next((pack for pack in packs if pack.name == name), None)
    if pack is None:
        known = ", ".join(pack.name for pack in packs) or "none"
        raise UsageError(f"no source {name!r} (sources: {known}); `gitmem sources list` shows them")
    memory = pack.memories.get(memory_id)
    if memory is None:
        hint = difflib.get_close_matches(memory_id, list(pack.memories), n=1)
        suggestion = f" (did you mean '{name}/{hint[0]}'?)" if hint else ""
        raise UsageError(f"no memory {memory_id!r} in source {name!r} at {short_rev(pack.source.rev)}{suggestion}")
    return pack, memory


# -- changing the sources ------------------------------------------------------------------------------------------


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
    from gitmem.memory.model import slugify

    last = re.split(r"[/:\\]", repo.rstrip("/\\"))[-1].removesuffix(".git")
    return slugify(last)


def recorded_repo(project: Project, repo: str) -> str:
    """The repository as the config records it: a relative path given here becomes relative to the root."""
    if is_url(repo) or os.path.isabs(repo):
        return repo
    absolute = os.path.normpath(os.path.join(os.getcwd(), repo))
    return Path(os.path.relpath(absolute, project.root)).as_posix()


@dataclass
class Added:
    source: Source
    pack: Pack


def add(project: Project, config: Config, repo: str, rev: str | None, name: str | None, track: str | None) -> Added:
    """Record a new source pinned at ``rev`` (default: its newest tag), after fetching and checking it."""
    from gitmem.credentials import refuse_credentials

    refuse_credentials(repo)
    check_sources(config)
    name = name or default_name(repo)
    if not name:
        raise UsageError(f"cannot make a source name from {repo!r}: pass one with --name")
    if not ID_PATTERN.match(name):
        raise UsageError(
            f"invalid source name {name!r}: use 1 to 64 lower-case letters, digits or hyphens, "
            "starting with a letter or digit"
        )
    existing = next((source for source in config.sources if source.name == name), None)
    if existing is not None:
        raise UsageError(f"a source named {name!r} exists ({existing.repo}): choose another name with --name")
    source = Source(name, recorded_repo(project, repo), rev or "HEAD", track)
    clone = fetch(project, source)
    if track is not None and not is_branch(clone, track):
        raise UsageError(f"source {name!r}: --track {track!r} is not a branch of {source.repo}")
    if rev is None:
        newest = [] if track else tags(clone)
        if not track and not newest:
            raise UsageError(
                f"source {name!r} has no tags: pin a revision with --rev (a tag, a commit, or a branch to follow)"
            )
        rev = track or newest[0]
    commit = resolve(clone, rev)
    if commit is None:
        known = tags(clone)[:5]
        hint = f" (newest tags: {', '.join(known)})" if known else ""
        raise UsageError(f"source {name!r}: no revision {rev!r} in {source.repo}{hint}")
    # A tag is pinned by name; anything else (a short sha, HEAD~1) by its full commit. A branch is followed, not
    # pinned by name: its head commit is pinned, and the branch tracked.
    branch = is_branch(clone, rev)
    pinned = rev if resolve(clone, f"refs/tags/{rev}") == commit else commit
    source = replace(source, rev=pinned, track=(track or rev) if branch else track)
    pack = _check(source, commit, _read_tree(clone, commit))
    if pack.problems:
        from gitmem.errors import CheckFailed

        raise CheckFailed(pack.problems, f"source {name!r} at {short_rev(source.rev)} has invalid memories: not added")
    save_sources(project, [*config.sources, source])
    _remember(project, pack)
    return Added(source, pack)


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


def update(project: Project, config: Config, names: Sequence[str], branch: bool, today: date) -> list[Update]:
    """Move each source's pin to its newest tag (or, with ``track`` or ``branch``, to its branch's head), and say
    what that changes. A source that cannot be fetched is reported and left as it is; the others move."""
    check_sources(config)
    by_name = {source.name: source for source in config.sources}
    for name in names:
        if name not in by_name:
            raise UsageError(f"no source {name!r} (sources: {', '.join(by_name) or 'none'})")
    chosen = [by_name[name] for name in dict.fromkeys(names)] if names else list(config.sources)
    results: list[Update] = []
    for source in chosen:
        result = Update(source, source.rev)
        results.append(result)
        try:
            old = read(project, source, fetch_missing=False)
            clone = fetch(project, source)
            # Read before the fetch when the cache had it (a branch name may mean another commit after it).
            old = old or read(project, source, fetch_missing=False) or Pack(source, "")
        except CannotRun as exc:
            result.error = str(exc)
            continue
        if branch or source.track:
            name = source.track or default_branch(clone)
            commit = resolve(clone, f"refs/heads/{name}")
            if commit is None:
                result.error = f"source {source.name!r}: no branch {name!r} in {source.repo}"
                continue
            new_rev = commit
        else:
            newest = tags(clone)
            if not newest:
                result.note = "no tags: the pin stays (use --branch to move to the branch head)"
                continue
            new_rev = newest[0]
            commit = resolve(clone, new_rev)
            if commit is not None and old.commit and commit != old.commit and _is_ancestor(clone, commit, old.commit):
                result.note = f"already past the newest tag {new_rev}: the pin stays"
                continue
        if commit is None:
            result.error = f"source {source.name!r}: cannot resolve {new_rev!r}"
            continue
        moved = replace(source, rev=new_rev)
        new = _check(moved, commit, _read_tree(clone, commit))
        if new.problems:
            result.problems = new.problems
            result.note = f"{short_rev(new_rev)} has invalid memories: the pin stays"
            continue
        _diff(old, new, today, result)
        result.source = moved
        result.pack = new
    updated = {result.source.name: result.source for result in results}
    if any(result.moved for result in results):
        save_sources(project, [updated.get(source.name, source) for source in config.sources])
    for result in results:
        if result.moved and result.pack is not None:
            _remember(project, result.pack)
    return results


def _diff(old: Pack, new: Pack, today: date, result: Update) -> None:
    before = {memory.id: memory for memory in old.live(today)}
    after = {memory.id: memory for memory in new.live(today)}
    result.added = sorted(set(after) - set(before))
    result.removed = sorted(set(before) - set(after))
    result.changed = sorted(key for key in set(before) & set(after) if before[key] != after[key])
    result.titles = {key: memory.title for key, memory in {**before, **after}.items()}


def mute(project: Project, config: Config, name: str, ids: Sequence[str], muted: bool) -> list[str]:
    """Mute (or unmute) pack memories by id; returns the ids whose state changed."""
    check_sources(config)
    source = next((source for source in config.sources if source.name == name), None)
    if source is None:
        known = ", ".join(source.name for source in config.sources) or "none"
        raise UsageError(f"no source {name!r} (sources: {known})")
    local = [memory_id.removeprefix(f"{name}/") for memory_id in dict.fromkeys(ids)]
    if muted:
        pack = read(project, source)
        assert pack is not None
        for memory_id in local:
            find([pack], f"{name}/{memory_id}")
    current = list(source.mute)
    if muted:
        changed = [memory_id for memory_id in local if memory_id not in current]
        current += changed
    else:
        changed = [memory_id for memory_id in local if memory_id in current]
        current = [memory_id for memory_id in current if memory_id not in changed]
    if changed:
        new = replace(source, mute=tuple(current))
        save_sources(project, [new if s.name == name else s for s in config.sources])
    return changed


def remove(project: Project, config: Config, name: str) -> Source:
    """Forget a source and delete its clone."""
    source = next((source for source in config.sources if source.name == name), None)
    if source is None:
        known = ", ".join(source.name for source in config.sources) or "none"
        raise UsageError(f"no source {name!r} (sources: {known})")
    save_sources(project, [s for s in config.sources if s.name != name])
    shutil.rmtree(clone_dir(project, source), ignore_errors=True)
    with contextlib.suppress(FileNotFoundError):
        _index_path(project, source).unlink()
    return source


def recallable(project: Project, config: Config, today: date) -> tuple[list[tuple[Memory, str]], list[Source]]:
    """The live, unmuted memories of the shared packs in the local cache (never fetched here: recall must be
    quick and offline), each with where it comes from, and the sources not fetched yet."""
    if not config.sources:
        return [], []
    loaded, missing = load(project, config, fetch_missing=False)
    memories = [
        (pack.qualified(memory), pack.display(memory_id))
        for pack in loaded
        for memory_id, memory in sorted(pack.memories.items())
        if memory.is_live(today) and not pack.muted(memory_id)
    ]
    return memories, list(missing)
