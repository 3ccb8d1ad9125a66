"""The compiler: active memories into each AI tool's rules files, inside managed blocks.

- ``targets``: every tool as data (files, frontmatter, scoping, limits, user-level files, doc link).
- ``scoping``: which file of a target a memory goes to, by its ``paths`` globs.
- ``budget``: the token estimate and which memories a target keeps under its budget.
- ``render``: entries, groups, framing and frontmatter as text.
- ``block``: the managed block: finding it (markers quoted in prose ignored), its hash, hand edits,
  conflict healing, splicing it into hand-written text, and the merge-driver contract (split into
  entries, re-assemble, three-way merge by memory id).
- ``plan``: the files every target should hold for a set of memories (pure: no file is read).
- ``compiler``: compares the plan with the working tree, and writes it (or reports, with ``check``).

Nothing here prints, exits or imports click.
"""
