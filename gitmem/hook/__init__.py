"""The session life cycle through each client's own hooks: memories injected at a prompt when they
matter, a status at session start, and a reminder to write the journal at the end. Setting it up
(``gitmem init --agent-hooks``) and the `/remember` commands are in ``gitmem.init.agent_hooks`` and
``gitmem.init.remember``.

- ``clients``: every AI client's hook mechanism as data (events, input and output shapes, the rules
  files it loads).
- ``state``: what a session has been given already (under .git/gitmem/sessions/), pruned.
- ``inject``: the memories relevant to a prompt that the client has not loaded, bounded, above a
  relevance bar.
- ``status``: the session-start status and the stop reminder.
- ``run``: one hook call: the client's JSON in, the client's answer out (never fails the client's
  turn).

The prompt hook is on every prompt's path: ``run`` and ``inject`` import nothing heavy (no
GitPython, jsonschema or ruamel.yaml), and ``gitmem/__main__.py`` reaches them without importing
click.
"""
