"""Every AI client's hook mechanism, as data: where its hooks are configured, its event names, and how it talks.

Each entry follows the client's documentation (``doc``) and was run against the version in ``tested`` where the
client test harness installs it. A client with no mechanism for an event has ``None`` for it.
"""

from __future__ import annotations

from typing import NamedTuple

PROMPT = "prompt"
START = "session-start"
STOP = "stop"
EVENTS = (PROMPT, START, STOP)


# NamedTuples and plain classes, not dataclasses: importing dataclasses (and inspect with it) costs the prompt hook,
# a new process on every prompt, more than its own work.


class Client(NamedTuple):
    """An AI client with hooks: its name, tool and rules files."""

    name: str
    tool: str
    doc: str
    rules_files: tuple[str, ...]
    """Files under the repository root the client always loads: what they hold is never injected again."""
    user_rules_files: tuple[str, ...] = ()
    """The client's user-level rules files (``~/``-relative): personal memories compiled there are loaded."""
    events: tuple[tuple[str, str], ...] = ()
    """gitmem's event -> the client's event name, for the events the client has."""
    output: str = "claude"
    """How the client reads a hook's answer: ``claude`` (JSON ``hookSpecificOutput.additionalContext``, Stop as
    ``{"decision": "block"}``), ``gemini`` (the same JSON, its own event names), ``copilot`` (``additionalContext``
    at the top level), ``plain`` (the text itself, for gitmem's own opencode plugin)."""
    settings: str | None = None
    """The project file gitmem's hook entries go into (``init --agent-hooks``); ``None``: a plugin or nothing."""
    fallback_files: tuple[str, ...] = ()
    """What the client loads instead when none of ``rules_files`` exists (measured for issue 16)."""

    def event_name(self, event: str) -> str | None:
        return dict(self.events).get(event)


CLIENTS: tuple[Client, ...] = (
    Client(
        name="claude",
        tool="Claude Code",
        doc="https://code.claude.com/docs/en/hooks",
        rules_files=("CLAUDE.md", ".claude/CLAUDE.md"),
        user_rules_files=("~/.claude/CLAUDE.md",),
        events=((PROMPT, "UserPromptSubmit"), (START, "SessionStart"), (STOP, "Stop")),
        output="claude",
        settings=".claude/settings.json",
        fallback_files=("AGENTS.md",),
    ),
    Client(
        name="gemini",
        tool="Gemini CLI",
        doc="https://geminicli.com/docs/hooks/reference",
        rules_files=("GEMINI.md",),
        user_rules_files=("~/.gemini/GEMINI.md",),
        events=((PROMPT, "BeforeAgent"), (START, "SessionStart")),
        output="gemini",
        settings=".gemini/settings.json",
    ),
    Client(
        name="qwen",
        tool="Qwen Code",
        doc="https://qwenlm.github.io/qwen-code-docs/",
        rules_files=("QWEN.md", "AGENTS.md"),
        user_rules_files=("~/.qwen/QWEN.md",),
        events=((PROMPT, "UserPromptSubmit"), (START, "SessionStart"), (STOP, "Stop")),
        output="claude",
        settings=".qwen/settings.json",
    ),
    Client(
        name="codex",
        tool="Codex CLI",
        doc="https://developers.openai.com/codex/hooks",
        rules_files=("AGENTS.md",),
        user_rules_files=("~/.codex/AGENTS.md",),
        events=((PROMPT, "UserPromptSubmit"), (START, "SessionStart"), (STOP, "Stop")),
        output="claude",
        settings=".codex/hooks.json",
    ),
    Client(
        name="copilot",
        tool="GitHub Copilot CLI",
        doc="https://docs.github.com/en/copilot/reference/copilot-cli-reference/cli-hooks-reference",
        rules_files=(".github/copilot-instructions.md", "AGENTS.md", "CLAUDE.md", "GEMINI.md"),
        events=((PROMPT, "UserPromptSubmit"), (START, "SessionStart")),
        output="copilot",
        settings=".github/hooks/gitmem.json",
    ),
    Client(
        name="opencode",
        tool="opencode",
        doc="https://opencode.ai/docs/plugins/",
        rules_files=("AGENTS.md",),
        user_rules_files=("~/.config/opencode/AGENTS.md",),
        events=((PROMPT, "chat.message"), (START, "chat.message")),
        output="plain",
        fallback_files=("CLAUDE.md",),
    ),
)

BY_NAME = {client.name: client for client in CLIENTS}
NAMES = tuple(BY_NAME)

# The clients that read each compile target's root file (init --agent-hooks sets up these for the targets).
FOR_TARGET: dict[str, tuple[str, ...]] = {
    "claude": ("claude",),
    "agents": ("opencode", "codex", "copilot"),
    "gemini": ("gemini",),
    "copilot": ("copilot",),
}


def get(name: str | None) -> Client:
    """The client called ``name``; Claude Code's shapes when unknown (most clients copy them)."""
    return BY_NAME.get(name or "claude", BY_NAME["claude"])


def detect(payload: dict[str, object]) -> Client:
    """The client a hook payload comes from, by its event name, when the command line did not say."""
    event = payload.get("hook_event_name") or payload.get("hookEventName")
    if event in ("BeforeAgent", "AfterAgent"):
        return BY_NAME["gemini"]
    if "sessionId" in payload and "session_id" not in payload:
        return BY_NAME["copilot"]
    return BY_NAME["claude"]
