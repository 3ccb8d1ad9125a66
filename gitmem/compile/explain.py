"""``gitmem explain``: what each configured client receives when it works on a path, from the same
placement and reading records compile uses (``reading.read``: the files on the disk as the client
walks them, which compile's verification reads too), so what it says is what the clients read.

Per client: the files of gitmem's it loads in a session started in the path's folder (and, for a
file, the glob-scoped files a client loads when it touches that file), the memories that arrive in
full from them, the ones that arrive only as a line of the index of what the budget left out
(``compile.leftout``: the title and where to read the rest), and the ones that reach it only on
demand (the prompt hook, where the client has one, or recall), with their tokens.
"""

from __future__ import annotations

from collections.abc import Collection, Sequence
from dataclasses import dataclass

from gitmem.compile import budget, delivery, leftout, reading, render
from gitmem.compile.changes import Report
from gitmem.compile.plan import TargetPlan
from gitmem.compile.readers import Reader
from gitmem.compile.reading import Disk, FileRead
from gitmem.memory.model import Memory


@dataclass(frozen=True)
class ClientView:
    """What one client receives working on a path (built by ``_view``)."""

    client: str
    key: str
    target: str
    files: Sequence[FileRead]  # what it loads at the start, read from the disk
    touched: list[FileRead]  # glob-scoped files it loads when it touches the path (a file)
    full: list[str]  # memory ids arriving in full, in the order of the files
    index: list[str]  # ids arriving as index lines only (``compile.leftout``)
    on_demand: list[str]  # for its target, in no file it loads
    hook: (
        bool  # the client has a prompt hook gitmem sets up (else: only recall finds ``on_demand``)
    )

    @property
    def tokens(self) -> int:
        return budget.tokens(sum(item.chars for item in [*self.files, *self.touched]))


def explain(
    report: Report,
    memories: Sequence[Memory],
    path: str,
    client: str | None,
    hooked: Collection[str],
    disk: Disk,
) -> list[ClientView]:
    """Every client in use (or only ``client``, by its key, whether or not its own target is
    configured), as it reads the files on ``disk`` (``compile.reading``) working on ``path``
    (relative to the repository root, "" for the root; a folder, or a file whose folder it starts
    in). ``hooked``: the keys of the clients with a prompt hook.
    """
    plans: dict[str, TargetPlan] = {plan.target.name: plan for plan in report.plans}
    folder, file = _folder(path, plans)
    chosen = (
        delivery.in_use(plans, report.readers)
        if client is None
        else [reader for reader in report.readers if reader.name == client]
    )
    return [_view(reader, plans, memories, folder, file, hooked, disk) for reader in chosen]


def _folder(path: str, plans: dict[str, TargetPlan]) -> tuple[str, str]:
    """The folder a session on ``path`` starts in, and the file (or "") it touches."""
    path = path.strip("/")
    if path in ("", "."):
        return "", ""
    folders = {fp.spec.directory for plan in plans.values() for fp in plan.files.values()}
    if path in folders or "." not in path.rsplit("/", 1)[-1]:
        return path, ""
    return path.rpartition("/")[0], path


def _view(
    reader: Reader,
    plans: dict[str, TargetPlan],
    memories: Sequence[Memory],
    folder: str,
    file: str,
    hooked: Collection[str],
    disk: Disk,
) -> ClientView:
    globbed = delivery.globbed(reader, plans, file)
    seen = reading.read(disk, reader, folder, folder if file else "", globbed).files
    files = [item for item in seen if item.how is not reading.How.TOUCHED]
    touched = [item for item in seen if item.how is reading.How.TOUCHED]  # as check reads them
    full = dict.fromkeys(i for item in seen for i in item.ids)
    index = dict.fromkeys(i for item in files for i in item.listed if i not in full)
    got = full.keys() | index.keys()
    on_demand = [m.id for m in memories if m.is_for(reader.own) and m.id not in got]
    return ClientView(
        reader.client,
        reader.name,
        reader.own,
        files,
        touched,
        list(full),
        list(index),
        on_demand,
        reader.name in hooked,
    )


def memory_tokens(memories: Sequence[Memory]) -> dict[str, int]:
    """Each memory's tokens as compile writes its entry."""
    return {memory.id: budget.tokens(len(render.entry_text(memory))) for memory in memories}


def index_tokens(memories: Sequence[Memory]) -> dict[str, int]:
    """Each memory's tokens as a line of the index of left-out memories (``leftout.line``, with
    its newline)."""
    return {memory.id: budget.tokens(len(leftout.line(memory)) + 1) for memory in memories}
