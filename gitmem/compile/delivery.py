"""Where each memory goes so that every configured client receives it once: placement only (the text
of the files is ``render``'s; the files of one target are ``plan``'s).

Clients read each other's files (``readers.READERS``): the Copilot CLI reads ``AGENTS.md``,
``GEMINI.md`` and ``CLAUDE.md`` beside its own file, Cline ``AGENTS.md`` beside ``.clinerules``.
Copying every memory into every target's file therefore feeds those clients each memory two or three
times. Instead ``AGENTS.md`` (and the nested ``AGENTS.md`` files) is the hub when the ``agents``
target is configured, and every other target is laid out from what its client reads:

- a client that reads ``AGENTS.md`` itself (Copilot CLI, Cline, Cursor, ...): its target's files
  carry only the memories it gets from no other file it reads (those whose ``targets`` leave the hub
  out);
- where another client in use reads both the hub and a target's files (the Copilot CLI reads
  ``GEMINI.md`` and ``CLAUDE.md``), that target is bridged to the hub (otherwise its full copy
  reaches each client once):
- a client that can import a file (Gemini CLI's ``@AGENTS.md``): its files are bridges, one beside
  each file of the hub, importing it, and carrying only what the hub does not;
- a client with a file of its own that the others do not read (Claude Code reads
  ``.claude/CLAUDE.md`` beside ``CLAUDE.md``, the Copilot CLI does not: measured): its full copy
  goes there, at the root only (the Copilot CLI does load a subfolder's ``.claude/CLAUDE.md`` when
  it touches a file in it: measured), path-scoped memories under headings naming their globs;
  ``CLAUDE.md`` keeps only what the team wrote in it; a hand-written ``CLAUDE.md`` that imports
  ``@AGENTS.md`` gets only what the hub lacks, and so does a folder's (``web/CLAUDE.md`` of
  ``@AGENTS.md``: ``Layout.imported``);
- any other client reads only its own files: a full copy, as without the hub.

Without the ``agents`` target the same rule applies to the files clients do read (the Copilot CLI
reading ``GEMINI.md``): what a client gets from another target's files is left out of its own.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass
from types import MappingProxyType
from typing import TYPE_CHECKING, Literal

from gitmem.compile.readers import READERS, Reader, imports_file
from gitmem.globmatch import match, parse
from gitmem.records import Record
from gitmem.tools import Target

if TYPE_CHECKING:
    from gitmem.compile.plan import TargetPlan

HUB = "agents"
HUB_FILE = "AGENTS.md"


# How a target's client reaches the hub (``Layout.bridge``): "" (it does not), "native" (it reads
# AGENTS.md itself), "import" (its files import AGENTS.md), "own-import" (a hand-written
# @AGENTS.md), "fallback" (it reads AGENTS.md where its own file is missing), "private" (its copy in
# a file only it reads), "linked" (its root file is a link), "linked-import" (its root file is a
# link, and its nested files import the hub's). A Literal: mypy refuses a misspelt one; ``BRIDGES``
# says what each means.
Bridge = Literal[
    "", "native", "import", "own-import", "fallback", "private", "linked", "linked-import"
]


class Way(Record):
    """What a ``Bridge`` means for the files of its target."""

    # its root file is where its client gets its memories: kept with none in it
    # (``Layout.keeps_root``); the others hold only what their client lacks of the files it reads
    keeps_root: bool = False
    reads_hub: bool = False  # its client reads the hub's files (imported, or where its own lack)
    # its files are where other clients read them (not a private copy, a link or no files at all)
    shared: bool = True
    own_only: bool = False  # only its own client reads its files (its copy is its client's alone)
    linked: bool = False  # its client reads another target's root file through a link
    # the files of its written importing the hub's, beside each: those of the hub's folders, and
    # its root file
    imports: bool = False
    imports_root: bool = False
    hand_import: bool = False  # its root file is the team's, importing the hub itself


# ``Bridge``'s interpreter: one entry a kind.
BRIDGES: dict[Bridge, Way] = {
    "": Way(keeps_root=True),
    "native": Way(),
    "import": Way(keeps_root=True, reads_hub=True, imports=True, imports_root=True),
    "own-import": Way(reads_hub=True, imports=True, hand_import=True),
    "fallback": Way(reads_hub=True, shared=False),
    "private": Way(keeps_root=True, shared=False, own_only=True),
    "linked": Way(shared=False, own_only=True, linked=True),
    "linked-import": Way(reads_hub=True, shared=False, own_only=True, linked=True, imports=True),
}


@dataclass(frozen=True)
class Layout:
    """A target's place in the delivery: the target as compiled (a variant when bridged), how its
    client reaches the hub, and the other configured targets whose files that client reads (their
    memories are left out here).
    """

    target: Target
    bridge: Bridge = ""
    reads: tuple[str, ...] = ()
    # its root file is written even with no memory in it: a merge that brings the first memory then
    # changes the file instead of creating it, so `git revert -m 1` of that merge is no
    # modify/delete conflict (which stops git before any gitmem code runs); not where the team's
    # own text keeps the file
    keeps_root: bool = False
    # the target whose root file alone its client reads, through a link ("" when it reads none so,
    # or reads that target's files itself: the Copilot CLI reads the nested AGENTS.md files too)
    root_only: str = ""
    # the folders whose file of it the team wrote to import the hub's beside it (rallly's
    # web/CLAUDE.md of `@AGENTS.md`): what the hub's file there holds is left out of its own, which
    # its client reads with the import started in that folder or above it and touching a file there
    # (measured: Claude Code 2.1.332; ``readers.follows``)
    imported: frozenset[str] = frozenset()
    # the folders whose nested file of it is, through a link on the disk, its root file or another
    # folder's (AGENTS.md -> docs/AGENTS.md), each with the folder of the file gitmem writes for
    # both ("" for the root): a memory for such a folder goes there, under a heading naming its
    # globs (``plan._rehomed``)
    homes: tuple[tuple[str, str], ...] = ()

    @property
    def name(self) -> str:
        return self.target.name

    @property
    def after(self) -> tuple[str, ...]:
        """The targets to lay out before this one: those it reads, and the hub where it imports
        the hub's files (``imported``)."""
        return self.reads + (HUB,) * bool(self.imported)


def readers_of(name: str, readers: Sequence[Reader] = READERS) -> list[Reader]:
    return [reader for reader in readers if reader.own == name]


def with_settings(also: Mapping[str, Sequence[str]]) -> tuple[Reader, ...]:
    """The readers, those named in ``also`` (a record's name -> targets) reading those targets'
    files too when started at the root: what a project's settings make them read (Gemini CLI's
    ``context.fileName`` naming ``AGENTS.md``; started in a subfolder, it reads no settings of the
    root's: measured).
    """
    out = []
    for reader in READERS:
        more = tuple(name for name in also.get(reader.name, ()) if name not in reader.reads)
        out.append(reader._replace(reads=(*reader.reads, *more), at_root=more))  # at_root was ()
    return tuple(out)


def layouts(
    targets: Sequence[Target],
    hand_written: Mapping[str, str] = MappingProxyType({}),
    readers: Sequence[Reader] = READERS,
    linked: Mapping[str, tuple[str, str]] = MappingProxyType({}),
    ignored: Collection[str] = (),
    importing: Mapping[str, Collection[str]] = MappingProxyType({}),
    homes: Mapping[str, Mapping[str, str]] = MappingProxyType({}),
) -> list[Layout]:
    """How each of ``targets`` (the configured ones compiled) is laid out, in the order their plans
    must be made (a target after those whose files its client reads). ``hand_written``: target name
    -> the hand-written text of its root file (outside gitmem's block), for the targets whose root
    file has some (those without keep their root file with no memory in it:
    ``Layout.keeps_root``). ``readers``: the clients as this project's settings make them read
    (``with_settings``). ``linked``: target name -> (the target whose root file its root file is,
    through a link on the disk: ``CLAUDE.md -> AGENTS.md``; the file where its client reads what
    that one lacks, "" for none that git tracks). ``ignored``: the private files
    (``Reader.private``) and the root files of targets that fall back to the hub that git ignores
    here: nothing is placed in them. ``importing``: target name -> the folders whose file of it
    the team wrote to import the hub's beside it (``Layout.imported``). ``homes``: target name ->
    its folders whose nested file is another's through a link (``Layout.homes``)."""
    names = {target.name for target in targets}
    laid: dict[str, tuple[Target, Bridge]] = {}
    for target in targets:
        if target.name in linked and linked[target.name][0] in names:
            laid[target.name] = _linked(
                target,
                linked[target.name][1],
                _read_by_others(target.name, names, readers),
                linked[target.name][0] == HUB and _imports_hub(target.name, names, readers),
            )
            continue
        laid[target.name] = _bridge(
            target, names, hand_written.get(target.name, ""), readers, ignored
        )
    out = []
    for target in targets:
        variant, bridge = laid[target.name]
        reads = [
            name
            for reader in readers_of(target.name, readers)
            for name in reader.reads
            if name in names and name != target.name and BRIDGES[laid[name][1]].shared
        ]
        if BRIDGES[bridge].reads_hub:
            reads.append(HUB)
        root_only = ""
        if BRIDGES[bridge].linked and linked[target.name][0] not in reads:
            root_only = linked[target.name][0]
            reads.append(root_only)
        keeps = _keeps_root(variant, bridge, hand_written.get(target.name, ""))
        imported = frozenset(importing.get(target.name, ()))
        own = tuple(homes.get(target.name, {}).items())
        out.append(
            Layout(variant, bridge, tuple(dict.fromkeys(reads)), keeps, root_only, imported, own)
        )
    return _ordered(out)


def _bridge(
    target: Target,
    names: Collection[str],
    hand_written: str,
    every: Sequence[Reader] = READERS,
    ignored: Collection[str] = (),
) -> tuple[Target, Bridge]:
    """``target`` as laid out beside the ``names`` configured, and how its client reaches the hub
    ("" when it does not; "private" when its copy goes to a file only its own client reads)."""
    readers = readers_of(target.name, every)
    hub = HUB in names and target.name != HUB
    if hub and any(HUB in reader.reads for reader in readers):
        return target, "native"
    if hub and falls_back(target) and imports_file(hand_written, HUB_FILE):
        return (
            target,
            "own-import",
        )  # its hand-written file imports the hub: the block holds only what it lacks
    private = _private_layout(target, names, hand_written, every, ignored)
    if private is not None:
        return private
    if not hub or not _read_beside_hub(target.name, names, every):
        return target, ""  # no client in use reads both: the full copy reaches each of them once
    if _imports_hub(target.name, names, every):
        return target._replace(imports=HUB_FILE), "import"
    return target, ""


def _imports_hub(name: str, configured: Collection[str], every: Sequence[Reader]) -> bool:
    """Whether ``name``'s files may import the hub's: its client follows their imports wherever it
    starts, and no other client in use that reads the hub itself follows them."""
    return any(
        name in r.imports and r.imports_above for r in readers_of(name, every)
    ) and not _followed_by_others(name, configured, every)


def _private_layout(
    target: Target,
    names: Collection[str],
    hand_written: str,
    every: Sequence[Reader],
    ignored: Collection[str],
) -> tuple[Target, Bridge] | None:
    """``target`` laid out in the file only its own client reads (``Reader.private``), when another
    client in use reads its usual files, or in none at all; ``None`` when it keeps its usual files
    (also where git ignores the private file: a copy there, and `gitmem check` says the rest)."""
    private = next((r.private for r in readers_of(target.name, every) if r.private), "")
    shared = _read_by_others(target.name, names, every)  # another client reads its usual files
    own = HUB in names and target.name != HUB and falls_back(target) and not hand_written.strip()
    if own and (target.root_file in ignored or (private in ignored and shared)):
        # its copy would go where git ignores it (never in a clone, a cloud agent or code review):
        # its root file (a team's `CLAUDE.md` line, for each developer's own), or its private file
        # where another client reads the root one; no file of its own at all, so its client reads
        # the hub, as it does without one; what only it should get is said
        return target._replace(root_file="", dir_file=None, scoped_dir=None), "fallback"
    if not private or private in ignored or not shared:
        return None
    # a full copy in one file at the root, where only its own client looks: no nested copies
    # (the Copilot CLI started at the root loads web/.claude/CLAUDE.md when it touches a file in
    # web/: measured) and no glob-scoped files (it reads .claude/rules): a path-scoped memory
    # goes under a heading naming its globs
    return target._replace(root_file=private, dir_file=None, scoped_dir=None), "private"


def _keeps_root(variant: Target, bridge: Bridge, hand_written: str) -> bool:
    """Whether a target laid out so keeps its root file with no memory in it
    (``Layout.keeps_root``): the file is where its client gets its memories, and no hand-written
    text keeps it anyway."""
    return BRIDGES[bridge].keeps_root and bool(variant.root_file) and not hand_written.strip()


def _linked(target: Target, instead: str, shared: bool, importing: bool) -> tuple[Target, Bridge]:
    """``target`` whose root file is another target's through a link: its client reads that file,
    and what it lacks goes to ``instead``, its private file or a whole file of its rules folder that
    it loads always, where the other clients do not look; "" (no such file git tracks) leaves it
    out, and compile and ``gitmem check`` name the memories that then miss the client. Its nested
    files stay (Claude Code reads no web/AGENTS.md beside a root CLAUDE.md: measured), unless
    another client in use reads them too (``shared``): then the root file holds them, under headings
    naming their globs; or, where its client follows their imports and that other client does not
    (``importing``: Gemini CLI's beside the Copilot CLI's), they import the hub's nested files,
    beside each, and hold only what those lack.
    """
    if instead.startswith(f"{target.scoped_dir}/"):
        front = target.always_frontmatter or ()
        variant = target._replace(root_file=instead, root_whole=True, root_frontmatter=front)
    else:
        variant = target._replace(root_file=instead)
    if shared and importing:
        return variant._replace(scoped_dir=None), "linked-import"
    if shared:
        variant = variant._replace(dir_file=None, scoped_dir=None)
    return variant, "linked"


def follows_own(name: str, readers: Sequence[Reader] = READERS) -> bool:
    """Whether ``name``'s client follows the ``@FILE`` imports of its own files (Claude Code's
    CLAUDE.md, Gemini CLI's GEMINI.md): a folder's file of it that imports the hub's beside it
    brings the client what that holds (``Layout.imported``)."""
    return any(name in reader.imports for reader in readers_of(name, readers))


def _read_by_others(name: str, configured: Collection[str], readers: Sequence[Reader]) -> bool:
    """Whether another client in use reads ``name``'s files (the Copilot CLI reads CLAUDE.md)."""
    return any(
        reader.own in configured and reader.own != name and name in reader.reads
        for reader in readers
    )


def private_files(target: Target) -> tuple[str, ...]:
    """The private files (``Reader.private``) a target's layout may write in each folder:
    compile cleans them up."""
    return tuple(reader.private for reader in readers_of(target.name) if reader.private)


def falls_back(target: Target) -> bool:
    """Whether ``target``'s client reads the hub where the project has no root file of its own:
    whether that root file holds hand-written text decides its layout (``layouts``'
    ``hand_written``).
    """
    return any(t == HUB for reader in readers_of(target.name) for t, _ in reader.fallbacks)


def _read_beside_hub(name: str, configured: Collection[str], readers: Sequence[Reader]) -> bool:
    """Whether a client in use (its own target configured) reads both the hub and ``name``'s
    files."""
    return any(
        reader.own in configured
        and reader.own != name
        and HUB in reader.reads
        and name in reader.reads
        for reader in readers
    )


def _followed_by_others(name: str, configured: Collection[str], readers: Sequence[Reader]) -> bool:
    """Whether a client in use that reads the hub itself also reads ``name``'s files and follows
    their imports: a bridge importing the hub would feed it the hub twice."""
    return any(
        reader.own in configured
        and reader.own != name
        and HUB in reader.reads
        and name in reader.imports
        for reader in readers
    )


def _ordered(items: list[Layout]) -> list[Layout]:
    """Each layout after those it reads (a cycle, which no client makes, is broken by taking the
    next as it is)."""
    done: list[Layout] = []
    placed: set[str] = set()
    waiting = list(items)
    while waiting:
        ready = [item for item in waiting if placed.issuperset(item.after)] or waiting[:1]
        for item in ready:
            done.append(item)
            placed.add(item.name)
            waiting.remove(item)
    return done


def standalone(targets: Sequence[Target]) -> list[Layout]:
    """Every target a full copy of its memories (``compile --user``: each user-level file is
    read alone)."""
    return [Layout(target) for target in targets]


def excluded(
    layout: Layout,
    candidates: Mapping[str, Collection[str]],
    at_root: Mapping[str, Collection[str]],
) -> set[str]:
    """The memories ``layout``'s client gets from the other targets' files it reads (of the target
    its root file alone is read through a link, only its root file's: ``at_root``)."""
    out: set[str] = set()
    for name in layout.reads:
        out.update((at_root if name == layout.root_only else candidates).get(name, ()))
    return out


# -- what a client receives: the check that every memory arrives once, and `gitmem explain` --------


def in_use(plans: Mapping[str, TargetPlan], readers: Sequence[Reader] = READERS) -> list[Reader]:
    """The clients whose own target is compiled (``readers``: as the project's settings make
    them read)."""
    return [reader for reader in readers if reader.own in plans]


def globbed(reader: Reader, plans: Mapping[str, TargetPlan], file: str) -> list[str]:
    """The path-scoped files of ``reader``'s own target whose globs match ``file`` (Cursor's globs,
    Copilot's ``applyTo``, Claude Code's ``paths:``): the client loads them when it works on the
    file.
    """
    own = plans.get(reader.own)
    if not file or own is None:
        return []
    return [
        path
        for path, file_plan in own.files.items()
        if any(match(parse(glob), file) for glob in file_plan.spec.globs)
    ]
