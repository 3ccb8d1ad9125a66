"""Which of gitmem's targets each AI client reads (the records' ``reads`` in ``gitmem/tools.py``): so compile can
tell when one client would get the same memory twice (from two rules files), and init can leave out a target whose
client already reads another.

Figures marked *measured* come from tests/clients (the client run against a fake model server, its requests
recorded); the others from the client's documentation (``doc``). See docs/clients.md.
"""

from __future__ import annotations

from collections.abc import Collection
from dataclasses import dataclass
from typing import NamedTuple

from gitmem.tools import ALWAYS, BY_NAME, BY_PATH, FALLBACK, IMPORTS, READERS, Target, Tool, target

__all__ = ["IMPORTS_OF", "READERS", "Duplicate", "Import", "covered", "duplicates", "imports_file", "read_by"]


@dataclass(frozen=True)
class Duplicate:
    client: str
    targets: tuple[str, ...]  # the configured targets the client reads, two or more
    droppable: tuple[str, ...]  # those of them that no other client in use reads
    needed: dict[str, tuple[str, ...]]  # the others: the clients that read each

    def describe(self, files: dict[str, str]) -> str:
        names = " and ".join(files.get(target, target) for target in self.targets)
        head = f"{self.client} reads {names}, so it gets the same memories {len(self.targets)} times"
        drop = " and ".join(f"`{target}`" for target in self.droppable)
        if self.droppable and len(self.targets) - len(self.droppable) <= 1:
            return f"{head}: remove {drop} from `targets` in .memory/config.yaml"
        kept = "; ".join(f"{files.get(t, t)} for {', '.join(clients)}" for t, clients in self.needed.items())
        if self.droppable:
            return f"{head}: remove {drop} from `targets` in .memory/config.yaml; the others are needed ({kept})"
        return f"{head}; each is needed by another client ({kept}): drop the one your team needs least"


def read_by(reader: Tool, configured: Collection[str], scoped: Collection[str] | None = None) -> tuple[str, ...]:
    """The configured targets ``reader`` reads (``scoped``: the targets that write path-scoped files; ``None``: all
    of them may)."""
    out = []
    for read in reader.reads:
        if read.target not in configured or read.how == IMPORTS:
            continue
        if read.how == BY_PATH and scoped is not None and read.target not in scoped:
            continue
        if read.how == FALLBACK and read.unless in configured:
            continue
        out.append(read.target)
    return tuple(dict.fromkeys(out))


def duplicates(configured: Collection[str], scoped: Collection[str] | None = None) -> list[Duplicate]:
    """Clients whose own target is configured that read two or more configured targets."""
    found = []
    for reader in READERS:
        if reader.serves not in configured:
            continue
        read = read_by(reader, configured, scoped)
        if len(read) < 2:
            continue
        needed = {target: _others(target, configured, reader) for target in read}
        droppable = tuple(target for target in read if not needed[target])
        if len(droppable) == len(read):  # nobody else needs any: keep the client's own
            droppable = tuple(target for target in read if target != reader.serves)
        found.append(
            Duplicate(
                reader.title, read, droppable, {t: clients for t, clients in needed.items() if t not in droppable}
            )
        )
    return found


def _others(target: str, configured: Collection[str], duplicated: Tool) -> tuple[str, ...]:
    """The other clients in use (their own target is configured) that read ``target``."""
    return tuple(
        reader.title
        for reader in READERS
        if reader is not duplicated and reader.serves in configured and target in read_by(reader, configured)
    )


def covered(target: str, chosen: Collection[str]) -> Tool | None:
    """For ``gitmem init``: the client of ``target`` when the target cannot scope (no per-directory or per-glob files)
    and the client already reads one of the ``chosen`` targets: adding ``target`` would only feed it every memory
    twice. None otherwise."""
    tool = BY_NAME.get(target)
    spec = tool.target if tool is not None else None
    if spec is None or spec.scoped_dir or spec.dir_file:
        return None
    for reader in READERS:
        if (
            reader.serves == target
            and target not in chosen
            and any(read.target in chosen for read in reader.reads if read.how in (ALWAYS, BY_PATH))
        ):
            return reader
    return None


class Import(NamedTuple):
    """A client whose own root file may import another target's with a whole-line ``@FILE`` (Claude Code's
    ``@AGENTS.md``): the client then reads the imported file itself, and its own target is not needed for it."""

    client: str  # the client's title
    own: Target  # the target whose root file imports
    imported: Target  # the target whose root file is imported


IMPORTS_OF: tuple[Import, ...] = tuple(
    Import(tool.title, target(tool.serves), target(read.target))
    for tool in READERS
    if tool.serves is not None
    for read in tool.reads
    if read.how == IMPORTS
)


def imports_file(text: str, name: str) -> bool:
    """Whether ``text`` has a line that is only ``@NAME`` (or ``@./NAME``), blanks around it allowed."""
    for line in text.splitlines():
        line = line.strip(" \t")
        if line in (f"@{name}", f"@./{name}"):
            return True
    return False
