"""The `/remember` command: asks the agent to write the session journal and store it with `gitmem
journal add -`.

One text, wrapped in each client's custom-command format (its record's ``commands`` in
gitmem/tools.py). The journal is scanned for secrets and hidden Unicode before it is written; a log
that holds one is refused, and the command tells the agent to take it out and try again.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from gitmem.tools import BY_NAME, Commands, CommandStyle

INSTRUCTIONS = """\
Write the journal of this session for gitmem, then store it.

1. Write it in exactly this format (Markdown). One bullet per item; an item may run over a few
   lines. Keep only what the next session on this repository needs; leave a section empty rather
   than pad it.

   # Session: TITLE (what the session was about, a few words)

   ## Decisions
   - What was chosen, and why.

   ## Difficulties
   - What went wrong or cost time, and what fixed it.

   ## Conventions
   - How things are done here, learned or agreed this session.

   ## To do
   - What is left for the next session.

   Under an item of the first three sections, add a line `Words: a, b, c` with a few words a
   teammate would use when it matters but the item does not say: the symptom they would see, the
   words they would search for (e.g. `Words: tests hang, build never finishes`). gitmem matches them
   when someone asks in other words.

2. Never write secrets, tokens, passwords, keys, connection strings or personal data, and do not
   paste command output or file contents: describe them.

3. Store it by piping it to gitmem's journal command, which scans it before writing it:

   gitmem journal add - <<'GITMEM_JOURNAL'
   (the journal)
   GITMEM_JOURNAL

   If gitmem refuses it because it found a secret or hidden text, remove that part and run the
   command again.
   Reply with the path gitmem printed, and nothing else.
"""


@dataclass(frozen=True)
class CommandFile:
    client: str
    path: str  # relative to the repository root (or, with --user, to the home directory)
    text: str


def _markdown(description: str, extra: str = "") -> str:
    return f"---\ndescription: {description}\n{extra}---\n\n{INSTRUCTIONS}\n$ARGUMENTS\n"


def _toml(description: str) -> str:
    body = INSTRUCTIONS.replace("\\", "\\\\").replace('"""', '\\"\\"\\"')
    return f'description = "{description}"\nprompt = """\n{body}\n{{{{args}}}}\n"""\n'


DESCRIPTION = "Write this session's journal (gitmem journal add -)"

# every command gitmem writes holds it: how `--remove` knows a file is gitmem's
MARK = "gitmem journal add -"


def text_for(commands: Commands) -> str:
    """The command in the client's format (``Commands.style``)."""
    return TEXTS[commands.style](commands)


# ``Commands.style`` -> the command's file.
TEXTS: dict[CommandStyle, Callable[[Commands], str]] = {
    "toml": lambda _commands: _toml(DESCRIPTION),
    "markdown": lambda commands: _markdown(DESCRIPTION, commands.frontmatter),
    "plain": lambda _commands: INSTRUCTIONS,
}


def files(clients: list[str], user: bool) -> list[CommandFile]:
    """The `/remember` files of ``clients`` (their records' ``commands``), in the project or
    (``user``) the home."""
    out = []
    for client in clients:
        commands = BY_NAME[client].commands  # every client named is a tool's
        if commands is None:
            continue
        path = commands.user if user else commands.project
        if path:
            out.append(CommandFile(client, path, text_for(commands)))
    return out
