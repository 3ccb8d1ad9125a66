"""Where each AI client keeps the memories it writes on its own, for one repository: its *store*.

Each tool record says which layout its store has and where its base folder is
(``gitmem.tools.Tool.memory``, with the version whose installed package was read for the folder, the
project key and the file format); this module turns a layout into the store's places for a
repository, with the client's own key derivation (docs/import.md). ``gitmem import --from CLIENT``
reads a store (``gitmem.importing.stores``); the session-start status only looks at its files' sizes
and times (``pending``), never at their text. The only contents read here are the small files a key
needs (a worktree's ``.git`` file, Gemini CLI's ``projects.json``) and gitmem's own record, all
through the file gateway; at import time it needs only ``os``, ``pathlib``, the tool records and the
gateway, so the session hook can use it.
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Callable, Iterator, Mapping
from itertools import islice
from pathlib import Path
from typing import Any, Literal, NamedTuple

from gitmem import gateway, tools
from gitmem.errors import CheckFailed

MAX_FILES = (
    200  # files of one store (Claude Code and Qwen Code scan at most 200 memory files themselves)
)
MAX_DEPTH = 3  # folders below a store's root
MAX_BYTES = (
    256 * 1024
)  # one file of a store (Claude Code keeps a memory under 4 KiB, its index under 25,000 B)
MAX_REGISTRY = 1024 * 1024  # Gemini CLI's projects.json


# How a place's files are written (each read by ``gitmem.importing.stores``): a folder of memory
# files with frontmatter ("typed") or of notes, or one file of task groups, of raw memories, or
# with a ``save_memory`` section.
StoreFormat = Literal["typed", "notes", "task-groups", "raw-memories", "section"]
# The formats whose place is one file (the others: a folder of memory files).
FILE_FORMATS: tuple[StoreFormat, ...] = ("task-groups", "raw-memories", "section")


class Place(NamedTuple):
    """One part of a client's store for this repository: a folder of memory files or one file."""

    client: str
    path: Path  # the folder or file
    base: Path  # links inside the store must stay under it
    # every part of every path read must resolve inside it: the repository, or the client's folder
    root: Path
    format: StoreFormat
    label: str  # how an origin names the part: "memory", "team", "MEMORY.md", ...
    personal: bool  # everything in it is the user's own (a global store): imported only with --user
    in_home: bool  # under the home folder (False: inside the repository)
    # The folder of the client's session transcripts kept under the same project key as the store,
    # each naming the folder its session ran in (``cwd``): the key is lossy (``acme-payroll`` and
    # ``acme.payroll`` share it), so they tell whose a memory is (``gitmem.importing.stores``).
    # None: the store's place is the repository's alone.
    logs: Path | None = None


class ClientStore(NamedTuple):
    name: str  # what --from takes: the tool's name
    label: str
    version: str  # the installed version whose package was read
    where: str  # one line for --help and the docs
    layout: tools.StoreLayout  # a key of ``LAYOUTS``
    base: str  # "~/.claude"


# -- the project keys, as each client derives them -------------------------------------------------

CLAUDE_KEY_MAX = 200  # Claude Code 2.1.332: `jae=200`


def claude_key(path: str) -> str:
    """Claude Code's project key (``J$``/``w`` in 2.1.332): every UTF-16 code unit other than an
    ASCII letter or digit becomes ``-``; a key over 200 characters keeps 200 and a hash of the path
    in base 36.
    """
    key = "".join(
        c if c.isascii() and c.isalnum() else ("--" if ord(c) > 0xFFFF else "-") for c in path
    )
    if len(key) <= CLAUDE_KEY_MAX:
        return key
    return f"{key[:CLAUDE_KEY_MAX]}-{_base36(abs(_java_hash(path)))}"


def _java_hash(text: str) -> int:
    """Claude Code's ``Nle``: ``h = (h << 5) - h + code unit | 0`` over the path's UTF-16 code
    units."""
    data = text.encode("utf-16-le", "surrogatepass")
    value = 0
    for index in range(0, len(data), 2):
        value = (value * 31 + (data[index] | data[index + 1] << 8)) & 0xFFFFFFFF
    return value - (1 << 32) if value >= 1 << 31 else value


def _base36(number: int) -> str:
    digits = "0123456789abcdefghijklmnopqrstuvwxyz"
    out = ""
    while True:
        number, rest = divmod(number, 36)
        out = digits[rest] + out
        if not number:
            return out


def qwen_key(path: str) -> str:
    """Qwen Code's ``sanitizeCwd``: every character other than an ASCII letter or digit becomes
    ``-``."""
    return "".join(c if c.isascii() and c.isalnum() else "-" for c in path)


def canonical_root(root: Path) -> Path:
    """The main working tree of the repository at ``root`` (Claude Code keys a linked worktree's
    memory on it): for a ``git worktree``, whose ``.git`` is a file naming its git directory, the
    folder holding the common ``.git``.
    """
    dot_git = root / ".git"
    if not dot_git.is_file():
        return root
    try:
        line = gateway.read_given(dot_git, limit=4096).decode("utf-8", "replace").strip()
    except (OSError, CheckFailed):
        return root
    if not line.startswith("gitdir:"):
        return root
    git_dir = gateway.real(root / line[7:].strip())
    try:
        common_dir = (
            gateway.read_given(git_dir / "commondir", limit=4096).decode("utf-8", "replace").strip()
        )
    except (OSError, CheckFailed):
        return root
    common = gateway.real(git_dir / common_dir)
    return common.parent if common.name == ".git" else root


# -- each client's store ---------------------------------------------------------------------------


def _env_dir(env: Mapping[str, str], name: str, default: Path) -> Path:
    value = env.get(name, "")
    return Path(value) if value and os.path.isabs(value) else default


# Each layout: (the client's name, the repository's root, the store's base folder, the home folder,
# the environment) -> the places of its store. The layouts are named in the tool records
# (``gitmem.tools.MemoryStore``).
Layout = Callable[[str, Path, Path, Path, Mapping[str, str]], list[Place]]


def _auto_memory(
    name: str, root: Path, base: Path, home: Path, env: Mapping[str, str]
) -> list[Place]:
    """Claude Code 2.1.332: ``$CLAUDE_CONFIG_DIR`` (default ``~/.claude``)/projects/<key>/memory/,
    ``team/`` in it."""
    config = _env_dir(env, "CLAUDE_CONFIG_DIR", base)
    memory = config / "projects" / claude_key(str(canonical_root(root))) / "memory"
    return [Place(name, memory, memory, config, "typed", "memory", False, True, memory.parent)]


def _git_root_memory(
    name: str, root: Path, base: Path, home: Path, env: Mapping[str, str]
) -> list[Place]:
    """Qwen Code 0.24.4's ``getAutoMemoryRoot``, ``getTeamAutoMemoryRoot``,
    ``getUserAutoMemoryRoot`` and the ``save_memory`` section of its global context file."""
    runtime = _env_dir(env, "QWEN_CODE_MEMORY_BASE_DIR", _env_dir(env, "QWEN_RUNTIME_DIR", base))
    team = root / ".qwen" / "team-memory"
    places = [Place(name, team, team, root, "typed", "team-memory", False, False)]
    if env.get("QWEN_CODE_MEMORY_LOCAL") == "1":
        local = root / ".qwen" / "memory"
        places.append(Place(name, local, local, root, "typed", "memory", False, False))
    else:
        memory = runtime / "projects" / qwen_key(str(root)) / "memory"
        places.append(
            Place(
                name,
                memory,
                memory,
                runtime,
                "typed",
                "memory",
                False,
                True,
                memory.parent / "chats",
            )
        )
    places.append(
        Place(
            name,
            runtime / "memories",
            runtime / "memories",
            runtime,
            "typed",
            "memories",
            True,
            True,
        )
    )
    places.append(Place(name, base / "QWEN.md", base, base, "section", "QWEN.md", True, True))
    return places


def _registry(name: str, root: Path, base: Path, home: Path, env: Mapping[str, str]) -> list[Place]:
    """Gemini CLI 0.61.0: the private project memory of each registered folder; the global
    file's section."""
    gemini_home = _env_dir(env, "GEMINI_CLI_HOME", home) / base.name
    places = [
        Place(
            name,
            memory,
            memory,
            gemini_home,
            "notes",
            f"tmp/{memory.parent.name}/memory",
            False,
            True,
        )
        for memory in gemini_project_dirs(root, gemini_home)
    ]
    places.append(
        Place(
            name,
            gemini_home / "GEMINI.md",
            gemini_home,
            gemini_home,
            "section",
            "GEMINI.md",
            True,
            True,
        )
    )
    return places


def gemini_project_dirs(root: Path, gemini_home: Path) -> list[Path]:
    """Gemini CLI's private project memory folders for the repository: ``~/.gemini/projects.json``
    maps each folder a session started in to a short id, whose ``tmp/<id>/.project_root`` names the
    folder back (Gemini CLI 0.61.0's ``ProjectRegistry``); every id of the root or a folder inside
    it.
    """
    import json  # only for the files that need it: not on the session hook's start-up

    try:
        data = json.loads(
            gateway.read_bytes(gemini_home, gemini_home / "projects.json", limit=MAX_REGISTRY)
        )
        projects = sorted(data["projects"].items())
    # not read, not JSON, or not {"projects": {...}} (TypeError, KeyError, AttributeError)
    except (OSError, ValueError, CheckFailed, LookupError, TypeError, AttributeError):
        return []
    found: list[Path] = []
    for folder, slug in projects:
        if not isinstance(slug, str) or slug in ("", ".", "..") or "/" in slug:
            continue  # (a slug is one folder's name)
        if not _inside(folder, root):
            continue
        tmp = gemini_home / "tmp" / slug
        try:
            owner = gateway.read_bytes(gemini_home, tmp / ".project_root", limit=4096).decode(
                "utf-8", "replace"
            )
        except (OSError, CheckFailed):
            owner = folder  # (an old folder without the marker: the registry alone says it)
        if os.path.normpath(owner.strip()) == os.path.normpath(folder):
            found.append(tmp / "memory")
    return found


def _task_groups(
    name: str, root: Path, base: Path, home: Path, env: Mapping[str, str]
) -> list[Place]:
    """Codex 0.171.0: ``$CODEX_HOME`` (default ``~/.codex``)/memories/: ``MEMORY.md`` (the
    consolidated task groups of every project) and ``raw_memories.md`` (each session's raw memory,
    the input of the next consolidation).
    Beside them Codex keeps ``memory_summary.md`` (a summary of ``MEMORY.md`` for its prompt:
    nothing of its own) and ``$CODEX_HOME/memories_1.sqlite`` (the raw memories again, as
    ``stage1_outputs`` rows, and the pipeline's jobs): not read, ``raw_memories.md`` holds the same
    text (docs/clients.md)."""
    codex = _env_dir(env, "CODEX_HOME", base)
    memories = codex / "memories"
    return [
        Place(
            name, memories / "MEMORY.md", memories, codex, "task-groups", "MEMORY.md", False, True
        ),
        Place(
            name,
            memories / "raw_memories.md",
            memories,
            codex,
            "raw-memories",
            "raw_memories.md",
            False,
            True,
        ),
    ]


def _inside(folder: str, root: Path) -> bool:
    """Whether ``folder`` (an absolute path a client recorded) is ``root`` or inside it."""
    if not os.path.isabs(folder):
        return False
    given, base = os.path.normpath(folder), os.path.normpath(str(root))
    return given == base or given.startswith(base.rstrip(os.sep) + os.sep)


LAYOUTS: dict[tools.StoreLayout, Layout] = {
    "auto-memory": _auto_memory,
    "git-root-memory": _git_root_memory,
    "registry": _registry,
    "task-groups": _task_groups,
}
# Each client's store is a field of its tool record (``gitmem.tools.Tool.memory``); this table
# derives from them.
STORES: tuple[ClientStore, ...] = tuple(
    ClientStore(
        tool.name,
        tool.title,
        tool.memory.version,
        tool.memory.where,
        tool.memory.layout,
        tool.memory.base,
    )
    for tool in tools.TOOLS
    if tool.memory is not None
)
NAMES = tuple(store.name for store in STORES)


def store_of(name: str) -> ClientStore:
    for store in STORES:
        if store.name == name:
            return store
    raise KeyError(name)


def places(name: str, root: Path, home: Path, env: Mapping[str, str] | None = None) -> list[Place]:
    """The places of the client ``name``'s store for the repository at ``root`` (``home``: the
    user's home)."""
    store = store_of(name)
    base = home / store.base.removeprefix("~/")
    return LAYOUTS[store.layout](name, root, base, home, os.environ if env is None else env)


# -- the files of a place, by their sizes and times (the session status; the import's record) ------


def refusal(place: Place) -> str | None:
    """Why nothing of ``place`` is read or listed, or None: its folder is a link, or a part of its
    path leads out of its root (a committed ``.qwen -> ../other-checkout/.qwen`` inside the
    repository; a link out of the client's folder at home). Every reader and every listing of a
    store asks this first.
    """
    single = place.format in FILE_FORMATS
    folder = place.path.parent if single else place.path
    if os.path.islink(place.base) or os.path.islink(folder):
        return "the store's folder is a link: not followed"
    if not gateway.is_inside(folder, [place.root]):
        where = "the client's folder" if place.in_home else "the repository"
        return f"a link on the way to the store leads out of {where}: not followed"
    return None


def listing(place: Place, limit: int = MAX_FILES) -> Iterator[tuple[Path, os.stat_result]]:
    """The files of ``place`` that a reader would consider (Markdown, at most ``limit``,
    ``MAX_DEPTH`` deep), with their ``lstat``; links are listed as they are (the reader refuses
    those leading out); nothing when the place is refused (``refusal``), so a listing follows no
    link out either.
    """
    if refusal(place) is not None:
        return
    if place.format not in FILE_FORMATS:
        yield from islice(_markdown_files(place.path), limit)
        return
    with contextlib.suppress(OSError):
        yield place.path, place.path.lstat()


def _markdown_files(top: Path) -> Iterator[tuple[Path, os.stat_result]]:
    """The Markdown files under ``top`` (``MAX_DEPTH`` deep, hidden folders passed over), in name
    order, each with its ``lstat``; a folder or file that cannot be read is passed over."""
    stack: list[tuple[Path, int]] = [(top, 0)]
    while stack:
        folder, depth = stack.pop()
        try:
            entries = sorted(os.scandir(folder), key=lambda entry: entry.name)
        except OSError:
            continue
        for entry in entries:
            with contextlib.suppress(OSError):
                if not entry.is_dir(follow_symlinks=False):
                    if entry.name.endswith(".md"):
                        yield Path(entry.path), entry.stat(follow_symlinks=False)
                elif depth + 1 < MAX_DEPTH and not entry.name.startswith("."):
                    stack.append((Path(entry.path), depth + 1))


def stamps(place: Place) -> dict[str, list[int]]:
    """Each file of ``place`` -> ``[size, mtime_ns]``."""
    return {str(path): [st.st_size, st.st_mtime_ns] for path, st in listing(place)}


def pending(
    name: str, root: Path, home: Path, seen: Mapping[str, list[int]], personal: bool = False
) -> int:
    """How many files of the client's store for ``root`` are new or changed since the import
    recorded ``seen`` (its files' sizes and times); the global, personal parts only with
    ``personal``.
    """
    return sum(
        seen.get(str(path)) != [st.st_size, st.st_mtime_ns]
        for place in places(name, root, home)
        if personal or not place.personal
        for path, st in listing(place)
        # (a typed store's MEMORY.md is the index of the memory files, not a memory)
        if not (place.format == "typed" and path.name == "MEMORY.md")
    )


# -- what the last import saw (written by gitmem.importing.fromclients) ----------------------------

RECORD = "client-imports.json"  # under .git/gitmem/: never committed
RECORD_FORMAT = 1
RECORD_MAX = 8 * 1024 * 1024


def load_record(cache_dir: Path) -> dict[str, Any]:
    """The import's record: ``entries`` (each entry's key -> the memory it became and a digest of
    its text) and ``stores`` (per client, each file -> ``[size, mtime_ns]`` as last seen); empty
    when missing or of another shape (the import then relies on the memories' origins and the
    near-duplicate test alone).
    """
    import json  # only for the files that need it: not on the session hook's start-up

    empty: dict[str, Any] = {"format": RECORD_FORMAT, "entries": {}, "stores": {}}
    try:
        data = json.loads(gateway.read_bytes(cache_dir, cache_dir / RECORD, limit=RECORD_MAX))
    except (OSError, ValueError, CheckFailed):
        return empty
    if not isinstance(data, dict) or data.get("format") != RECORD_FORMAT:
        return empty
    for part in ("entries", "stores"):  # each a mapping of mappings; others are left out
        if not isinstance(data.get(part), dict):
            return empty
        data[part] = {key: value for key, value in data[part].items() if isinstance(value, dict)}
    return data
