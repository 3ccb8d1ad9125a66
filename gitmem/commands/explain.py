from __future__ import annotations

from itertools import repeat
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

import click

from gitmem import gateway
from gitmem.commands import open_store, today
from gitmem.commands.output import echo, echo_json, some
from gitmem.compile import budget
from gitmem.compile.compiler import Request, compile_store, compiled_memories
from gitmem.compile.explain import explain as explain_path
from gitmem.compile.explain import index_tokens, memory_tokens
from gitmem.compile.reading import Disk, FileRead, Tracked
from gitmem.errors import CheckFailed, GitmemError, UsageError
from gitmem.hook.clients import BY_NAME, PRE_TOOL, PROMPT
from gitmem.init.agent_hooks import plan
from gitmem.memory.config import load_config

if TYPE_CHECKING:
    from gitmem.compile.explain import ClientView


# How a client holds the memories' ``enforce`` (``_gate``).
Gate = Literal["hook", "not-set-up", "none"]


@click.command()
@click.argument("path", required=False, default="")
@click.option(
    "--client",
    "client",
    metavar="NAME",
    help="Only this client (claude, codex, gemini, copilot, ...).",
)
@click.option("--json", "as_json", is_flag=True, help="Print it as JSON.")
def explain(path: str, client: str | None, as_json: bool) -> int:
    """Show what each configured AI client receives when it works on PATH (default: the repository
    root).

    For each client whose target is configured (or the one --client names, configured or not): the
    files it loads in a session started in PATH's folder, read from the disk as the client walks it
    (links followed, imports, hand-written text with its tokens, whether git tracks each file, hard
    limits passed; for a file, also the glob-scoped files it loads when it touches it), the memories
    that arrive in full and gitmem's tokens, those the budget left out that it sees as one line of
    the index (the title and where to read the memory), and those for it that reach it only on
    demand: through the prompt hook where `gitmem init --agent-hooks` set one up for that client,
    else through `gitmem recall`. Files out of date are noted: run `gitmem compile` first.

    \b
    Examples:
      gitmem explain
      gitmem explain web/src/app.ts --client claude
      gitmem explain --json | jq '.clients[] | {client, full}'
    """
    project, store = open_store()
    result = compile_store(project, store, load_config(project), Request(today(), force=True))
    if result.invalid:
        raise CheckFailed(
            result.invalid, "memory files are invalid: fix them (`gitmem validate` lists them)"
        )
    relative = _relative(project.root, path)
    memories = compiled_memories(result, today())
    hooked = _prompt_hooked(project.root)
    views = explain_path(result.report, memories, relative, client, hooked, Disk(project))
    if client is not None and not views:
        raise UsageError(
            f"no configured target is read by a client called {client!r}: see `gitmem explain`"
        )
    tokens = memory_tokens(memories)
    lines = index_tokens(memories)
    if as_json:
        clients = [
            {**_json(view, tokens, lines), "enforce": _gate(project.root, view.key)}
            for view in views
        ]
        echo_json({"path": relative, "clients": clients})
        return 0
    if result.report.stale:
        echo(f"note: {len(result.report.stale)} rules file(s) out of date: this is what the "
             "clients read now; run `gitmem compile`", err=True)  # fmt: skip
    enforced = sum(memory.enforce is not None for memory in result.live)
    for view in views:
        _print(view, tokens, lines)
        echo(GATES[_gate(project.root, view.key)].format(count=enforced))
    if not views:
        echo("no targets configured: gitmem init --target NAME")
    return 0


def _prompt_hooked(root: Path) -> set[str]:
    """The clients whose prompt hook `gitmem init --agent-hooks` set up in this repository."""
    return {
        name for name, hooks in BY_NAME.items() if hooks.event_name(PROMPT) and _hooked(root, name)
    }


def _relative(root: Any, path: str) -> str:
    """``path`` (as typed, from the current directory) relative to the repository root, /
    separators."""
    if not path:
        cwd = gateway.real(Path.cwd())
        return cwd.relative_to(root).as_posix() if cwd != root and cwd.is_relative_to(root) else ""
    full = gateway.real(Path.cwd() / path)
    if not full.is_relative_to(gateway.real(root)):
        raise UsageError(f"{path}: not inside the repository")
    relative = full.relative_to(gateway.real(root)).as_posix()
    return "" if relative == "." else relative


def _hooked(root: Any, name: str) -> bool:
    """Whether `gitmem init --agent-hooks` set up the client's prompt hook in this repository."""
    try:
        changes = plan(
            root, [name], remove=True
        )  # removing gitmem's entries would change its settings or plugin
    except GitmemError:
        return False
    return bool(changes) and changes[0].action != "unchanged"


def _gate(root: Any, name: str) -> Gate:
    """How the client holds the memories' ``enforce`` and the memory-layer gate: ``hook`` (gitmem's
    pre-tool hook is set up), ``not-set-up`` (the client has one: `gitmem init --agent-hooks`),
    ``none`` (the client has no pre-tool hook: enforce is advice there, and receipts count the calls
    that broke it from its transcripts).
    """
    client = BY_NAME.get(name)
    if client is None or client.event_name(PRE_TOOL) is None:
        return "none"
    return "hook" if _hooked(root, name) else "not-set-up"


# What ``explain`` says of each way a client holds the memories' ``enforce`` (``_gate``).
GATES: dict[Gate, str] = {
    "hook": "  enforce: refused before they run by the pre-tool hook ({count} memories with "
    "enforce)",
    "not-set-up": "  enforce: no pre-tool hook set up (gitmem init --agent-hooks): enforce and the "
    "memory-layer gate are off",
    "none": "  enforce: this client has no pre-tool hook: enforce is advice only and the "
    "memory-layer gate is off (gitmem receipts counts what broke it)",
}


def _json(view: ClientView, tokens: dict[str, int], lines: dict[str, int]) -> dict[str, Any]:
    return {
        "client": view.client,
        "name": view.key,
        "target": view.target,
        "files": [
            {
                "path": item.path,
                "target": item.target,
                "when": "start",
                "via": item.via or None,
                "memories": list(item.ids),
                "tokens": budget.tokens(item.chars),
                **_disk(item),
            }
            for item in view.files
        ]
        + [
            {
                "path": item.path,
                "target": item.target,
                "when": "touch",
                "via": None,
                "memories": list(item.ids),
                "tokens": budget.tokens(item.chars),
            }
            for item in view.touched
        ],
        "full": [{"id": memory_id, "tokens": tokens.get(memory_id, 0)} for memory_id in view.full],
        "index": [{"id": memory_id, "tokens": lines.get(memory_id, 0)} for memory_id in view.index],
        "on_demand": [
            {"id": memory_id, "tokens": tokens.get(memory_id, 0)} for memory_id in view.on_demand
        ],
        "through": "hook" if view.hook else "recall",
        "tokens": view.tokens,
    }


def _disk(item: FileRead) -> dict[str, Any]:
    """What the disk says of a file a client reads."""
    return {
        "real": item.real,
        "how": item.how.value,
        "tracked": item.tracked.value,
        "index": list(item.listed),
        "hand_written_tokens": item.hand_tokens,
        "over": [limit.reason for limit in item.over],
    }


def _print(view: ClientView, tokens: dict[str, int], lines: dict[str, int]) -> None:
    echo(
        f"{view.client} (target {view.target}): {len(view.full)} memories in full, "
        f"{view.tokens:,} tokens"
    )
    touching = " (when it touches the file)"
    loaded: list[tuple[FileRead, str]] = [
        *zip(view.files, repeat("")),
        *zip(view.touched, repeat(touching)),
    ]
    for item, when in loaded:
        via = f" (imported by {item.via})" if item.via else ""
        echo(
            f"  {item.path}{via}{when}: {len(item.ids)} memories, "
            f"{budget.tokens(item.chars):,} tokens{_more(item)}"
        )
    if view.index:
        cost = sum(lines.get(memory_id, 0) for memory_id in view.index)
        echo(f"  as index lines only ({len(view.index)}, {cost:,} tokens): {some(view.index, 8)}")
    if view.on_demand:
        how = "the prompt hook (or recall)" if view.hook else "recall only (no prompt hook set up)"
        echo(f"  on demand, through {how}: {some(view.on_demand, 8)}")


def _more(item: FileRead) -> str:
    """A file's link, hand-written tokens, git state and limits, as read from the disk."""
    parts = [f"-> {item.real}"] if item.linked else []
    if item.hand_chars:
        parts.append(f"hand-written {item.hand_tokens:,} tokens")
    if item.tracked is not Tracked.TRACKED:
        parts.append(item.tracked.value)
    parts += [f"over: {limit.reason}" for limit in item.over]
    return f" ({'; '.join(parts)})" if parts else ""
