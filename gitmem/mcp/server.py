"""The MCP server on stdio, on the official SDK: tools recall, propose, list_memories and
append_journal.

Imported only by `gitmem mcp` (the SDK is an optional extra and slow to import). The tools' logic
lives in ``gitmem.mcp.tools``; here they are registered with their descriptions, and a
``GitmemError`` becomes a tool error whose text tells the agent why nothing was done. Every tool
error, gitmem's own and the SDK's (which quotes an argument that fails the input schema back), is
shown without secrets (``GitmemMCPServer.call_tool``). Nothing but the protocol is written to
stdout.

Both protocol eras are served on one stdio connection (the SDK's dual-era loop; the client's first
request decides): the 2026-07-28 revision (stateless: ``server/discover``, and every request carries
its protocol version in ``_meta``) and the 2025-06-18 / 2025-11-25 ``initialize`` handshake, which
many clients still speak. A ``server/discover`` that comes without the ``_meta`` envelope is
answered as one at the latest revision: the SDK would route it to the handshake era and say "Method
not found", which a client takes for a server of the old protocol only.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from datetime import date
from typing import Annotated, Any, Literal

import anyio
from anyio.abc import ObjectReceiveStream
from mcp.server.mcpserver import MCPServer
from mcp.server.mcpserver.context import Context
from mcp.server.mcpserver.exceptions import ToolError
from mcp.server.stdio import stdio_server
from mcp.shared.message import SessionMessage
from mcp.types import (
    CLIENT_CAPABILITIES_META_KEY,
    PROTOCOL_VERSION_META_KEY,
    CallToolResult,
    InputRequiredResult,
    JSONRPCRequest,
    ToolAnnotations,
)
from mcp.types.version import LATEST_MODERN_VERSION
from pydantic import Field

from gitmem import __version__
from gitmem.errors import GitmemError
from gitmem.mcp import tools
from gitmem.memory.config import TARGET_NAMES, load_config
from gitmem.memory.store import Store
from gitmem.project import Project
from gitmem.scan import without_secrets

Kind = Literal["convention", "decision", "pitfall", "preference", "fact"]
Status = Literal["active", "proposed", "retired", "all"]

Query = Annotated[
    str, Field(description="What you are about to do or want to know, in a few words.")
]
K = Annotated[int, Field(ge=1, le=50, description="How many memories to return.")]
FilePath = Annotated[
    str | None,
    Field(
        description="The file you are working on, relative to the repository root "
        "(e.g. web/app.ts)."
    ),
]
Title = Annotated[str, Field(description="One line: what the next session should know or do.")]
Body = Annotated[str, Field(description="Why, and how (Markdown). Optional.")]
Paths = Annotated[
    list[str],
    Field(
        description="Globs of the files it applies to, relative to the root (e.g. web/**). "
        "Optional."
    ),
]
Tags = Annotated[
    list[str], Field(description="Short labels without spaces (e.g. build, testing). Optional.")
]
Words = Annotated[
    list[str],
    Field(
        description="A few words or short phrases a teammate would use when this memory matters, "
        "other than the title's: symptoms, error messages in your own words, synonyms "
        "(e.g. 'tests hang', 'build is slow'). Recall matches them, so a question worded "
        "differently still finds the memory. Recommended."
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
    str,
    Field(
        description="Markdown with ## Decisions, ## Difficulties, ## Conventions "
        "and ## To do sections."
    ),
]


class GitmemMCPServer(MCPServer[Any]):
    """The SDK's server, with one outlet for a tool call's errors: each is shown without secrets,
    gitmem's own (a refused path is quoted back) and the SDK's (pydantic quotes the value of an
    argument that fails the input schema: a token given as a memory's kind)."""

    async def call_tool(
        self, name: str, arguments: dict[str, Any], context: Context[Any, Any] | None = None
    ) -> CallToolResult | InputRequiredResult:
        try:
            return await super().call_tool(name, arguments, context)
        except ToolError as exc:  # the SDK's UnexpectedToolError too: its type and cause are kept
            exc.args = (without_secrets(str(exc)),)
            raise


def build_server(project: Project) -> MCPServer[Any]:
    """An MCP server bound to ``project``'s memory."""

    server = GitmemMCPServer(
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
                tools.Proposal(title, body, kind, paths, tags, targets, words),
                date.today(),
                load_config(project).similarity,
            )
        )

    def list_memories(
        status: Status = "active",
        kind: Kind | None = None,
        tag: str | None = None,
        path: FilePath = None,
    ) -> str:
        return guarded(
            lambda: tools.list_memories(project, store, status, kind, tag, path, date.today())
        )

    def append_journal(text: JournalText) -> str:
        return guarded(lambda: tools.append_journal(project, text, date.today()))

    # Read-only tools say so: a client that runs without approvals (`codex exec`) calls those and
    # refuses the others.
    reads = ToolAnnotations(
        read_only_hint=True, destructive_hint=False, idempotent_hint=True, open_world_hint=False
    )
    writes = ToolAnnotations(
        read_only_hint=False, destructive_hint=False, idempotent_hint=False, open_world_hint=False
    )
    server.add_tool(recall, description=tools.RECALL, annotations=reads, structured_output=False)
    server.add_tool(propose, description=tools.PROPOSE, annotations=writes, structured_output=False)
    server.add_tool(
        list_memories, description=tools.LIST_MEMORIES, annotations=reads, structured_output=False
    )
    server.add_tool(
        append_journal,
        description=tools.APPEND_JOURNAL,
        annotations=writes,
        structured_output=False,
    )
    return server


DISCOVER = "server/discover"


def enveloped(message: SessionMessage | Exception) -> SessionMessage | Exception:
    """``message``, or for a ``server/discover`` without the 2026-07-28 envelope, the same request
    with it (the latest revision, no client capabilities): a discover is only ever a 2026-07-28
    request.
    """
    if not isinstance(message, SessionMessage):
        return message
    request = message.message
    if not isinstance(request, JSONRPCRequest) or request.method != DISCOVER:
        return message
    params: dict[str, Any] = dict(request.params or {})
    meta = params.get("_meta")
    meta = dict(meta) if isinstance(meta, dict) else {}
    if PROTOCOL_VERSION_META_KEY in meta:
        return message
    meta[PROTOCOL_VERSION_META_KEY] = LATEST_MODERN_VERSION
    meta.setdefault(CLIENT_CAPABILITIES_META_KEY, {})
    params["_meta"] = meta
    return SessionMessage(request.model_copy(update={"params": params}), message.metadata)


@asynccontextmanager
async def _discover_enveloped(
    source: ObjectReceiveStream[SessionMessage | Exception],
) -> AsyncIterator[ObjectReceiveStream[SessionMessage | Exception]]:
    """``source`` with every message passed through ``enveloped``."""
    send, receive = anyio.create_memory_object_stream[SessionMessage | Exception]()

    async def relay() -> None:
        async with send, source:
            async for message in source:
                await send.send(enveloped(message))

    async with anyio.create_task_group() as group:
        group.start_soon(relay)
        try:
            yield receive
        finally:
            group.cancel_scope.cancel()


async def serve_streams(server: MCPServer, read: Any, write: Any) -> None:
    """Serve one connection over a stream pair (stdio's, or a test's)."""
    lowlevel = server._lowlevel_server
    async with _discover_enveloped(read) as enveloped_read:
        await lowlevel.run(enveloped_read, write, lowlevel.create_initialization_options())


def serve(project: Project) -> None:
    """Answer MCP requests on stdin/stdout until the client disconnects."""
    server = build_server(project)

    async def main() -> None:
        async with stdio_server() as (read, write):
            await serve_streams(server, read, write)

    anyio.run(main)
