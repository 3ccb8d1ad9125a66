"""``gitmem`` and ``python -m gitmem``: the hooks run on every prompt and every commit go straight
to their code, without click: the AI clients' ``gitmem hook EVENT``, git's ``gitmem hook git`` and
the pre-commit hook's ``gitmem scan --staged`` (those exact command lines, ``_FAST``; any other
option, ``--help`` included, goes through click). Everything else goes through ``cli``.
"""

from __future__ import annotations

import gc
import os
import sys
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from collections.abc import Callable

    # What answers a fast line, given its second word and its option's value (None: not given);
    # None sends the line through click.
    Answer = Callable[[str, str | None], int | None]


def _say(text: str) -> int:
    if text:
        sys.stdout.write(text + "\n")
        sys.stdout.flush()
    return 0


def _hook(event: str, client: str | None) -> int | None:
    """``gitmem hook EVENT [--client NAME]`` (an unknown client goes through click). A hook never
    breaks the client's turn: an error answers nothing (`gitmem hook ... --debug` shows it)."""
    from gitmem.hook.clients import BY_NAME  # each line loads only what it runs

    if client is not None and client not in BY_NAME:
        return None
    raw = sys.stdin.buffer.read()
    try:
        from gitmem.hook.run import run  # each line loads only what it runs

        text = run(event, client, raw).stdout
    except Exception:
        return 0
    return _say(text)


def _pre_tool(_: str, client: str | None) -> int:
    """``gitmem hook pre-tool [--client NAME]``, before every tool call: its own lean path (no
    prompt hook modules). It looks its client up only to answer a refusal (an unknown name then
    answers in the shape its payload shows; it never stops a call). On an error the call goes
    through unchecked, and it says so, once a session."""
    raw = sys.stdin.buffer.read()
    try:
        from gitmem.hook import pretool  # each line loads only what it runs

        text = pretool.run(client, raw).text
    except Exception as error:
        from gitmem.hook.pretool import failure_note  # only on a failure

        note = failure_note(raw, error)
        if note:
            sys.stderr.write(note + "\n")
        return 0
    return _say(text)


def _scan_staged(_: str, __: str | None) -> int:
    """``gitmem scan --staged``: the same output and exit code as through click
    (gitmem.commands.scanhook)."""
    from gitmem.commands.scanhook import plain_echo, staged  # each line loads only what it runs

    return staged(plain_echo)


def _after_git(_: str, command: str | None) -> int:
    """``gitmem hook git [--rewrite COMMAND]`` (git's post-commit, post-merge, post-rewrite hooks,
    after every commit), as ``gitmem.commands.hook.git_operation`` does."""
    from gitmem.git.refresh import after_operation  # each line loads only what it runs

    if command is None:
        command = os.environ.get("PRE_COMMIT_REWRITE_COMMAND", "")
    return _say(after_operation(command))


# The lines answered without click: their first two words, the one option each may take (with its
# value), and what answers them.
_FAST: dict[tuple[str, ...], tuple[str | None, Answer]] = {
    **{("hook", event): ("--client", _hook) for event in ("prompt", "session-start", "stop")},
    ("hook", "pre-tool"): ("--client", _pre_tool),
    ("hook", "git"): ("--rewrite", _after_git),
    ("scan", "--staged"): (None, _scan_staged),
}


def _fast(args: list[str]) -> int | None:
    """The answer to a line of ``_FAST``; None for any other line. An error becomes its message
    and exit code in ``cli.exit_code``, as for every command."""
    line = _FAST.get(tuple(args[:2]))
    if line is None or len(args) not in (2, 4) or (len(args) == 4 and args[2] != line[0]):
        return None
    try:
        return line[1](args[1], args[3] if len(args) == 4 else None)
    except (Exception, KeyboardInterrupt) as exc:
        from gitmem.commands.cli import exit_code  # click, only on an error

        return exit_code(exc, bool(os.environ.get("GITMEM_DEBUG")))


def main() -> int:
    # A hook's process lives for a few milliseconds: the cyclic garbage collector's passes over what
    # the hook imports, and its last pass at exit, cost more than the memory they could free
    # (measured in benchmarks/bench_hooks.py and bench_hook_scan.py). Reference counting still frees
    # everything else as it goes.
    gc.disable()
    fast = _fast(sys.argv[1:])
    if fast is not None:
        gc.freeze()  # nothing left for the pass at exit
        return fast
    gc.enable()
    from gitmem.commands.cli import main as cli_main  # click: every other command line

    return cli_main()


if __name__ == "__main__":
    raise SystemExit(main())
