"""``gitmem hook``: what AI clients' hooks run (set up by ``gitmem init --agent-hooks``).

``gitmem/__main__.py`` answers ``gitmem hook EVENT [--client NAME]`` without importing click; this
module serves ``--help`` and ``--debug`` (which shows an error instead of swallowing it).
"""

from __future__ import annotations

import os
import sys

import click

from gitmem.hook.clients import NAMES

_CLIENT = click.option(
    "--client",
    type=click.Choice(NAMES),
    help="The client whose JSON comes in and whose answer goes out (default: guessed from the "
    "input).",
)
_DEBUG = click.option("--debug", is_flag=True, help="Raise errors instead of answering nothing.")


@click.group()
def hook() -> None:
    """Run by AI clients' hooks: read the client's JSON on stdin, answer in the client's format.

    Set up by `gitmem init --agent-hooks`. A hook never fails the client's turn: on any problem it
    answers nothing.

    \b
    Example:
      echo '{"session_id": "s1", "prompt": "paginate the orders list"}' |
        gitmem hook prompt --client claude
    """


def _run(event: str, client: str | None, debug: bool) -> int:
    from gitmem.hook.run import run  # each hook loads only its own modules (start-up)

    raw = sys.stdin.buffer.read()
    try:
        answer = run(event, client, raw)
    except Exception as error:
        if debug:
            raise
        if event == "pre-tool":
            from gitmem.hook.pretool import failure_note  # only on a pre-tool failure

            note = failure_note(raw, error)
            if note:
                click.echo(note, err=True)
        return 0
    if answer.stdout:
        click.echo(answer.stdout)
    return 0


@hook.command("prompt")
@_CLIENT
@_DEBUG
def prompt(client: str | None, debug: bool) -> int:
    """Inject the memories relevant to the prompt that the client has not loaded (at most 3, 400
    tokens).

    \b
    Example:
      echo '{"session_id": "s1", "prompt": "how do we paginate", "cwd": "."}' | gitmem hook prompt
    """
    return _run("prompt", client, debug)


@hook.command("session-start")
@_CLIENT
@_DEBUG
def session_start(client: str | None, debug: bool) -> int:
    """A short status: memories, what the budget left out, proposals waiting for review."""
    return _run("session-start", client, debug)


@hook.command("stop")
@_CLIENT
@_DEBUG
def stop(client: str | None, debug: bool) -> int:
    """Remind once to write the journal when the session changed files and wrote none."""
    return _run("stop", client, debug)


@hook.command("git")
@click.option(
    "--rewrite",
    metavar="COMMAND",
    help="Git's post-rewrite hook's argument (rebase, amend); default: pre-commit's "
    "PRE_COMMIT_REWRITE_COMMAND.",
)
def git_operation(rewrite: str | None) -> int:
    """Run by git's post-commit, post-merge and post-rewrite hooks (`gitmem init` adds them to
    .pre-commit-config.yaml): keep the rules files compiled after a merge, pull, revert, cherry-pick
    or rebase.

    When the operation left rules files that are not what `gitmem compile` writes for the resulting
    store (over the budget, a merged block cannot know which memory the merged store leaves out),
    compiles, and puts the recompiled files into the commit the operation just made when no other
    branch has it (same parents, author and message), else into a commit of its own. Does nothing
    while a rebase or a conflicted merge is unfinished, or when the store or a rules file has
    uncommitted changes. Exit 1 when the store does not compile.

    \b
    Example (what .pre-commit-config.yaml runs, at the post-commit, post-merge and post-rewrite
    stages):
      gitmem hook git
    """
    from gitmem.git.refresh import after_operation  # each hook loads only its own modules

    summary = after_operation(rewrite or os.environ.get("PRE_COMMIT_REWRITE_COMMAND", ""))
    if summary:
        click.echo(summary)
    return 0


@hook.command("pre-tool")
@_CLIENT
@_DEBUG
def pre_tool(client: str | None, debug: bool) -> int:
    """Refuse a tool call that breaks an active memory's `enforce`, or writes the memory layer.

    Answers in the client's shape, quoting the memory; any other call gets no answer and runs.
    Writes into .memory/ or a managed block, and `gitmem add` (without --proposed), `accept`,
    `edit`, `sources add`, are refused too: only people make a memory live.

    \b
    Example:
      echo '{"tool_name": "Bash", "tool_input": {"command": "npm install x"}}' |
        gitmem hook pre-tool --client claude
    """
    return _run("pre-tool", client, debug)
