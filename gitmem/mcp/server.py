"""The MCP server on stdio, on the official SDK: tools recall, propose, list_memories and append_journal.

Imported only by `gitmem mcp` (the SDK is an optional extra and slow to import). The tools' logic lives in
``gitmem.mcp.tools``; here they are registered with their descriptions, and a ``GitmemError`` becomes a tool error whose
text tells the agent why nothing was done. Nothing but the protocol is written to stdout.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import date
from typing import Annotated, Literal

from mcp.server.mcpserver import MCPServer
from mcp.server.mcpserver.exceptions import ToolError
from mcp.types import ToolAnnotations
from pydantic import Field

from gitmem import __version__
from gitmem.config import TARGET_NAMES
from gitmem.errors import GitmemError
from gitmem.mcp import tools
from gitmem.memory.store import Store
from gitmem.project import Project

Kind = Literal["convention", "decision", "pitfall", "preference", "fact"]
Status = Literal["active", "proposed", "retired", "all"]

Query = Annotated[str, Field(description="What you are about to do or want to know, in a few words.")]
K = Annotated[int, Field(ge=1, le=50, description="How many memories to return.")]
FilePath = Annotated[
    str | None, Field(description="The file you are working on, relative to the repository root (e.g. web/app.ts).")
]
Title = Annotated[str, Field(description="One line: what the next session should know or do.")]
Body = Annotated[str, Field(description="Why, and how (Markdown). Optional.")]
Paths = Annotated[
    list[str], Field(description="Globs of the files it applies to, relative to the root (e.g. web/**). Optional.")
]
Tags = Annotated[list[str], Field(description="Short labels without spaces (e.g. build, testing). Optional.")]
Words = Annotated[
    list[str],
    Field(
        description="A few words or short phrases a teammate would use when this memory matters, other than the "
        "title's: symptoms, error messages in your own words, synonyms (e.g. 'tests hang', 'build is slow'). Recall "
        "matches them, so a question worded differently still finds the memory. Recommended."
    ),
]
Targets = Annotated[
    list[str],
    Field(
        description="Only for a rule one tool needs: the tools it is for, by target name "
        f"({', '.join(TARGET_NAMES)}). Optional; default: every tool."
    ),
]
JournalText = Annotated[
    str, Field(description="Markdown with ## Decisions, ## Difficulties, ## Conventions and ## To do sections.")
]


def build_server(project: Project) -> MCPServer:
    """An MCP server bound to ``project``'s memory."""
    from gitmem.config import load_config

    server: MCPServer = MCPServer(
        name="gitmem", instructions=tools.INSTRUCTIONS, version=__version__, log_level="WARNING"
    )
    store = Store(project)

    def guarded(call: Callable[[], str]) -> str:
        try:
            return call()
        except GitmemError as exc:
            raise ToolError(str(exc)) from None

    def recall(query: Query, k: K = 5, path: FilePath = None) -> str:
        return guarded(lambda: tools.recall(project, query, k, path, date.today()))

    def propose(
        title: Title,
        body: Body = "",
        kind: Kind = "convention",
        paths: Paths = [],  # noqa: B006
        tags: Tags = [],  # noqa: B006
        targets: Targets = [],  # noqa: B006
        words: Words = [],  # noqa: B006
    ) -> str:
        return guarded(
            lambda: tools.propose(
                project,
                store,
                title,
                body,
                kind,
                list(paths),
                list(tags),
                date.today(),
                load_config(project).similarity,
                list(targets),
                list(words),
            )
        )

    def list_memories(
        status: Status = "active", kind: Kind | None = None, tag: str | None = None, path: FilePath = None
    ) -> str:
        return guarded(lambda: tools.list_memories(project, store, status, kind, tag, path, date.today()))

    def append_journal(text: JournalText) -> str:
        return guarded(lambda: tools.append_journal(project, text, date.today()))

    # Read-only tools say so: a client that runs without approvals (`codex exec`) calls those and refuses the others.
    reads = ToolAnnotations(read_only_hint=True, destructive_hint=False, idempotent_hint=True, open_world_hint=False)
    writes = ToolAnnotations(read_only_hint=False, destructive_hint=False, idempotent_hint=False, open_world_hint=False)
    server.add_tool(recall, description=tools.RECALL, annotations=reads, structured_output=False)
    server.add_tool(propose, description=tools.PROPOSE, annotations=writes, structured_output=False)
    server.add_tool(list_memories, description=tools.LIST_MEMORIES, annotations=reads, structured_output=False)
    server.add_tool(append_journal, description=tools.APPEND_JOURNAL, annotations=writes, structured_output=False)
    return server


def serve(project: Project) -> None:
    """Answer MCP requests on stdin/stdout until the client disconnects."""
    build_server(project).run("stdio")
