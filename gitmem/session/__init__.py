"""The session life cycle through each client's own hooks: memories injected at a prompt when they matter, a status
at session start, a reminder to write the journal at the end, the `/remember` commands, and setting all of it up.

- ``clients``: every AI client's hook mechanism as data (events, input and output shapes, the rules files it loads).
- ``state``: what a session has been given already (under .git/gitmem/sessions/), pruned.
- ``inject``: the memories relevant to a prompt that the client has not loaded, bounded, above a relevance bar.
- ``status``: the session-start status and the stop reminder.
- ``run``: one hook call: the client's JSON in, the client's answer out (never fails the client's turn).
- ``remember``: the `/remember` command of each client with custom commands.
- ``setup``: ``gitmem init --agent-hooks``: writing and removing gitmem's entries in each client's settings.

The prompt hook is on every prompt's path: ``run`` and ``inject`` import nothing heavy (no GitPython, jsonschema or
ruamel.yaml), and ``gitmem/__main__.py`` reaches them without importing click.
"""
