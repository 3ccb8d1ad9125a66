"""What each AI client reads of gitmem's targets, as compile and ``gitmem explain`` use it: one
``Reader`` per client, derived from the records' ``reads`` and reading facts in ``gitmem/tools.py``.
Compile places each memory from these so that every client in use receives it once (``delivery``).

Figures marked *measured* come from tests/clients (the client run against a fake model server, its
requests recorded); the others from the client's documentation. See docs/clients.md.
"""

from __future__ import annotations

from pathlib import PurePosixPath

from gitmem.linear import linear
from gitmem.records import Record
from gitmem.tools import READERS as TOOLS
from gitmem.tools import READS, Target, Tool, target

__all__ = ["IMPORTS_OF", "READERS", "Import", "Reader", "follows", "imported", "imports_file"]


class Reader(Record):
    """One client as a reader of gitmem's files (see the fields of ``gitmem.tools.Tool`` of the
    same names)."""

    client: str  # its title
    own: str  # the target made for it
    reads: tuple[str, ...]  # targets whose files it reads (always, or their path-scoped files)
    fallbacks: tuple[
        tuple[str, str], ...
    ] = ()  # (target, unless): read only where unless's root file is missing
    source: str = ""
    imports: tuple[str, ...] = ()
    imports_above: bool = True
    chain: bool = True
    private: str = ""
    name: str = ""  # the record's name (``gitmem explain --client``)
    touches: tuple[str, ...] = ()
    # targets of ``reads`` it reads only when started at the root, where the project's settings that
    # name them are (Gemini CLI started in a subfolder reads no .gemini/settings.json of the root:
    # measured)
    at_root: tuple[str, ...] = ()
    tracked_only: bool = (
        False  # it reads only what git tracks (``Tool.tracked_only``: Copilot code review)
    )
    imports_apart: bool = False  # ``Tool.imports_apart``: the Copilot CLI
    links_apart: bool = False  # ``Tool.links_apart``: Codex, opencode


def _reader(tool: Tool) -> Reader:
    assert tool.serves is not None
    return Reader(
        tool.title,
        tool.serves,
        tuple(dict.fromkeys(read.target for read in tool.reads if READS[read.how].reads)),
        tuple(
            (read.target, read.unless)
            for read in tool.reads
            if READS[read.how].fallback and read.unless
        ),
        tool.checked,
        tool.follows_imports,
        tool.imports_above,
        tool.chain,
        tool.private,
        tool.name,
        tool.touches,
        tracked_only=tool.tracked_only,
        imports_apart=tool.imports_apart,
        links_apart=tool.links_apart,
    )


READERS: tuple[Reader, ...] = tuple(_reader(tool) for tool in TOOLS if tool.serves is not None)


class Import(Record):
    """A client whose own root file may import another target's with an ``@FILE`` (Claude Code's
    ``@AGENTS.md``): the client then reads the imported file itself, and its own target is not
    needed for it.
    """

    client: str  # the client's title
    own: Target  # the target whose root file imports
    imported: Target  # the target whose root file is imported


IMPORTS_OF: tuple[Import, ...] = tuple(
    Import(tool.title, target(tool.serves), target(read.target))
    for tool in TOOLS
    if tool.serves is not None
    for read in tool.reads
    if READS[read.how].imported
)


def imported(text: str) -> list[str]:
    """The files ``text`` imports, as Claude Code finds them (measured from its 2.x code; Gemini
    CLI's rule is the same): an ``@PATH`` at the start of a line or after a blank, anywhere in a
    line ("See @AGENTS.md"), outside code blocks, code spans and HTML comments; a ``#fragment``
    dropped; a path that starts with a letter, digit, ``.``, ``_`` or ``-`` (``./`` dropped), never
    one from the home folder or the file system's root.
    """
    out: list[str] = []
    if "@" not in text:  # the patterns (and their engine) are not loaded for none
        return out
    fence = ""
    for line in _COMMENT.sub(" ", text).splitlines():
        stripped = line.strip(" \t")
        if stripped.startswith(("```", "~~~")):
            marker = stripped[:3]
            fence = "" if fence == marker else (fence or marker)
            continue
        if fence or "@" not in line:
            continue
        for match in _IMPORT.finditer(_SPAN.sub(" ", line)):
            name = match.group(1).split("#", 1)[0].removeprefix("./")
            if name[:1].isalnum() or name[:1] in {".", "_", "-"}:  # none when empty
                out.append(name)
    return out


def follows(reader: Reader, target: str, directory: str, folder: str) -> bool:
    """Whether ``reader``, started in ``folder``, follows the imports of ``target``'s file in
    ``directory``: the client follows imports at all, and those of folders above its start where
    it does (``Reader.imports_above``). Those of its start folder and of the folders below it, whose
    files it loads when it touches a file there, it follows (measured: Claude Code 2.1.332 started
    at the root and reading web/app.ts loads web/CLAUDE.md's ``@AGENTS.md``)."""
    at_or_below = PurePosixPath(directory).is_relative_to(folder)
    return target in reader.imports and (reader.imports_above or at_or_below)


def imports_file(text: str, name: str) -> bool:
    """Whether ``text`` imports ``name`` (``imported``: ``@NAME`` or ``@./NAME``, whole-line or
    within a line)."""
    return name in imported(text)


_IMPORT = linear(r"(?:^|\s)@(\S+)")
_SPAN = linear(r"`[^`]*`")
_COMMENT = linear(r"(?s)<!--.*?-->")
