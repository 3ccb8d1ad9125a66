"""A source's bare clone under the git directory (``.git/gitmem/sources/NAME-HASH.git``): where git
fetches it from, fetching it without prompts or hangs, and reading revisions and the pack's memory
files from its objects (nothing is checked out). Every git command on a clone strips the variables
git exports to hooks.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import re
from pathlib import Path

from gitmem import gateway
from gitmem import gitcommand as command
from gitmem.errors import CannotRun
from gitmem.memory.config import Source
from gitmem.memory.schema import MAX_FILE_BYTES
from gitmem.project import Project
from gitmem.scan import find_hidden

MEMORIES_PATH = ".memory/memories"
MAX_PACK_FILES = 1000  # memory files in one pack
MAX_PACK_BYTES = (
    8 * 1024 * 1024
)  # their sizes added up, as the tree names them (a blob named twice counts twice)


SUFFIX = ".yaml"


class Unreachable(CannotRun):
    """A source's repository could not be fetched."""


class PackTooLarge(CannotRun):
    """A pack holds more memory files, or more bytes, than a pack may."""


def rev_problem(rev: str) -> str | None:
    """Why ``rev`` (a tag, branch or commit of a source) cannot be printed or pinned, or ``None``:
    hidden Unicode (U+202E shows another version than the one pinned), control characters, or a line
    break.
    """

    hidden = find_hidden(rev)
    if hidden:
        return f"a {hidden[0].describe()}"
    if any(ord(char) < 32 or 0x7F <= ord(char) < 0xA0 for char in rev):
        return "a control character"
    return None


def is_url(repo: str) -> bool:
    """Whether git reads ``repo`` as a URL (``scheme://...`` or scp-like ``host:path``) rather
    than a local path."""
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


def index_path(project: Project, source: Source) -> Path:
    return clone_dir(project, source).with_suffix(".json")


def _git(clone: Path, *args: str, input: bytes | None = None) -> bytes:
    return command.git(clone, *args, foreign=True, input=input)


def _fetch_env() -> dict[str, str]:
    """A fetch must fail rather than wait for a user name or password nobody will type, or hang on a
    dead network (it may run inside a commit hook): HTTP gives up after 30 s below 1 KB/s, and ssh
    connections (with the user's own keys, agent and settings otherwise) time out after 20 s."""
    env = {
        "GIT_TERMINAL_PROMPT": "0",
        "GIT_HTTP_LOW_SPEED_LIMIT": "1000",
        "GIT_HTTP_LOW_SPEED_TIME": "30",
    }
    if "GIT_SSH_COMMAND" not in os.environ and "GIT_SSH" not in os.environ:
        env["GIT_SSH_COMMAND"] = "ssh -o ConnectTimeout=20"
    return env


FETCH_TIMEOUT = 120.0  # seconds (packs are small YAML files); GITMEM_FETCH_TIMEOUT overrides


def fetch_timeout() -> float:
    """How long a clone or fetch may take in all, whatever the transport: ``git://`` has no timeout
    of its own, so a server that accepts and never answers would hold a commit hook for ever.
    ``GITMEM_FETCH_TIMEOUT`` (seconds) overrides the default."""
    value = os.environ.get("GITMEM_FETCH_TIMEOUT", "")
    try:
        seconds = float(value)
    except ValueError:
        return FETCH_TIMEOUT
    return seconds if seconds > 0 else FETCH_TIMEOUT


def fetch(project: Project, source: Source) -> Path:
    """Clone the source (or fetch into its clone): every branch and tag. ``Unreachable`` when
    git cannot."""
    clone = clone_dir(project, source)
    where = location(project, source.repo)
    try:
        if clone.is_dir():
            command.git(
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
                timeout=fetch_timeout(),
            )
        else:
            scratch = gateway.scratch_dir(project, clone.parent, prefix=f".{clone.name}.")
            try:
                command.git(
                    clone.parent,
                    "clone",
                    "--bare",
                    "--quiet",
                    "--",
                    where,
                    str(scratch),
                    foreign=True,
                    env=_fetch_env(),
                    timeout=fetch_timeout(),
                )
                with contextlib.suppress(
                    OSError
                ):  # another process cloned it meanwhile: theirs is as good
                    gateway.rename(project, scratch, clone)
            finally:
                gateway.remove_tree(project, scratch)
    except command.GitFailed as exc:
        raise Unreachable(
            f"source {source.name!r}: cannot fetch {source.repo}: {exc.reason}"
        ) from None
    gateway.remove(
        project, index_path(project, source), missing_ok=True
    )  # a branch name may mean another commit now
    return clone


def resolve(clone: Path, rev: str) -> str | None:
    """The commit ``rev`` names in ``clone``, or None."""
    try:
        out = _git(
            clone, "rev-parse", "--verify", "--quiet", "--end-of-options", f"{rev}^{{commit}}"
        )
    except command.GitFailed:
        return None
    return out.decode("ascii").strip() or None


def tags(clone: Path) -> list[str]:
    """The clone's tags, newest version first (``v10`` after ``v9``)."""
    out = _git(clone, "tag", "--list", "--sort=-v:refname").decode("utf-8", "replace")
    return [
        line for line in out.splitlines() if line and rev_problem(line) is None
    ]  # never printed nor pinned


def is_branch(clone: Path, name: str) -> bool:
    return (
        resolve(clone, f"refs/heads/{name}") is not None
        and resolve(clone, f"refs/tags/{name}") is None
    )


def default_branch(clone: Path) -> str:
    """The branch the source's HEAD names (its default branch)."""
    try:
        ref = _git(clone, "symbolic-ref", "--quiet", "HEAD").decode("utf-8").strip()
    except command.GitFailed:
        ref = ""
    return ref.removeprefix("refs/heads/") or "main"


def is_ancestor(clone: Path, older: str, newer: str) -> bool:
    try:
        _git(clone, "merge-base", "--is-ancestor", older, newer)
    except command.GitFailed:
        return False
    return True


def short(commit: str) -> str:
    return commit[:12]


def read_tree(clone: Path, commit: str, source: str) -> dict[str, bytes | int | None]:
    """The memory files at ``commit``: file name -> bytes (one ``cat-file --batch`` for all of
    them), ``None`` for a symbolic link, or the size of a blob over the size limit: its size is read
    from the tree listing (``ls-tree -l``) and the blob itself never is, so a pack holding a huge
    blob costs no memory.
    """

    listing = _git(clone, "ls-tree", "-z", "-l", commit, "--", f"{MEMORIES_PATH}/")
    blobs: dict[str, str] = {}
    out: dict[str, bytes | int | None] = {}
    total = 0
    for record in filter(None, listing.decode("utf-8", "surrogateescape").split("\0")):
        meta, _, path = record.partition("\t")
        mode, kind, oid, size = meta.split()
        name = path.rsplit("/", 1)[-1]
        if kind != "blob" or not name.endswith(SUFFIX) or name.startswith("."):
            continue
        if mode == "120000":
            out[name] = None
        elif int(size) > MAX_FILE_BYTES:
            out[name] = int(size)
        else:
            blobs[name] = oid
            total += int(size)
        if len(out) + len(blobs) > MAX_PACK_FILES:
            raise PackTooLarge(
                f"source {source!r}: {short(commit)} holds more than {MAX_PACK_FILES} "
                "memory files (a pack's limit)"
            )
    if total > MAX_PACK_BYTES:
        raise PackTooLarge(
            f"source {source!r}: {short(commit)} holds {total} bytes of memory files (a "
            f"pack may hold {MAX_PACK_BYTES})"
        )
    contents = command.cat_blobs(clone, blobs.values(), foreign=True)  # each blob read once
    out.update((name, contents[oid]) for name, oid in blobs.items())
    return out
