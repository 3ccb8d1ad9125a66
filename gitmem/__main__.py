"""``gitmem`` and ``python -m gitmem``: the hooks run on every prompt and every commit go straight
to their code, without click: the AI clients' ``gitmem hook EVENT`` and the pre-commit hook's
``gitmem scan --staged`` (that exact command line; any other option, ``--help`` included, goes
through click). Everything else goes through ``cli``.
"""

from __future__ import annotations

import gc
import os
import sys

_FAST_EVENTS = ("prompt", "session-start", "stop", "pre-tool")


def _fast(args: list[str]) -> int | None:
    """``gitmem hook EVENT [--client NAME]``, answered directly; ``None`` for anything else
    (help, bad options)."""
    if len(args) < 2 or args[0] != "hook" or args[1] not in _FAST_EVENTS:
        return None
    rest = args[2:]
    client = None
    if rest[:1] == ["--client"] and len(rest) == 2:
        client = rest[1]
    elif rest:
        return None
    # The pre-tool hook runs before every tool call: it looks its client up only to answer a refusal
    # (an unknown name then answers in the shape its payload shows; it never stops a call).
    if args[1] != "pre-tool":
        from gitmem.hook.clients import BY_NAME  # each line loads only what it runs

        if client is not None and client not in BY_NAME:
            return None
    raw = sys.stdin.buffer.read()
    try:
        if (
            args[1] == "pre-tool"
        ):  # before every tool call: its own lean path (no prompt hook modules)
            from gitmem.hook import pretool  # each line loads only what it runs

            text = pretool.run(client, raw).text
        else:
            from gitmem.hook.run import run  # each line loads only what it runs

            text = run(args[1], client, raw).stdout
    except (
        Exception
    ) as error:  # a hook never breaks the client's turn; `gitmem hook ... --debug` shows the error
        if args[1] == "pre-tool":  # the call goes through unchecked: say so, once a session
            from gitmem.hook.pretool import failure_note  # only on a failure

            note = failure_note(raw, error)
            if note:
                sys.stderr.write(note + "\n")
        return 0
    if text:
        sys.stdout.write(text + "\n")
        sys.stdout.flush()
    return 0


def _scan_staged(args: list[str]) -> int | None:
    """``gitmem scan --staged``: the same output and exit code as through click
    (gitmem.commands.scanhook), and an error becomes its message and exit code in ``cli.exit_code``,
    as for every command.
    """
    if args != ["scan", "--staged"]:
        return None
    from gitmem.commands.scanhook import plain_echo, staged  # each line loads only what it runs

    try:
        return staged(plain_echo)
    except (Exception, KeyboardInterrupt) as exc:
        from gitmem.commands.cli import exit_code  # click, only on an error

        return exit_code(exc, bool(os.environ.get("GITMEM_DEBUG")))


def _after_git(args: list[str]) -> int | None:
    """``gitmem hook git [--rewrite COMMAND]`` (git's post-commit, post-merge, post-rewrite hooks,
    after every commit), answered without click, as ``gitmem.commands.hook.git_operation`` does;
    ``None`` for other lines.
    """
    if (
        args[:2] != ["hook", "git"]
        or len(args) not in (2, 4)
        or (len(args) == 4 and args[2] != "--rewrite")
    ):
        return None
    from gitmem.git.refresh import after_operation  # each line loads only what it runs

    try:
        summary = after_operation(
            args[3] if len(args) == 4 else os.environ.get("PRE_COMMIT_REWRITE_COMMAND", "")
        )
    except (Exception, KeyboardInterrupt) as exc:
        from gitmem.commands.cli import exit_code  # click, only on an error

        return exit_code(exc, bool(os.environ.get("GITMEM_DEBUG")))
    if summary:
        sys.stdout.write(summary + "\n")
    return 0


def main() -> int:
    # A hook's process lives for a few milliseconds: the cyclic garbage collector's passes over what
    # the hook imports, and its last pass at exit, cost more than the memory they could free
    # (measured in benchmarks/bench_hooks.py and bench_hook_scan.py). Reference counting still frees
    # everything else as it goes.
    gc.disable()
    fast = _fast(sys.argv[1:])
    if fast is None:
        fast = _scan_staged(sys.argv[1:])
    if fast is None:
        fast = _after_git(sys.argv[1:])
    if fast is not None:
        gc.freeze()  # nothing left for the pass at exit
        return fast
    gc.enable()
    from gitmem.commands.cli import main as cli_main  # click: every other command line

    return cli_main()


if __name__ == "__main__":
    raise SystemExit(main())
