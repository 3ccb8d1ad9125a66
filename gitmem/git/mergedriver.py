"""The git merge driver for rules files: the managed block merged memory by memory, the rest by git.

Two branches that each add memories both rewrite the block of AGENTS.md (and its hash); a `git
revert` of an old memory's commit has to change a block that later commits rewrote. Line by line,
git sees conflicts in both. Here the text outside the block is merged by git's own merge (``git
merge-file``), and the block three-way by memory id (``block.merge``), then re-assembled exactly as
compile writes it and sealed with a fresh hash.

A side without a block is treated as having an empty one where compile would put it (appended at the
end), so a merge with a version from before gitmem, or with a file that holds no memory any more,
works the same way.
"""

from __future__ import annotations

import secrets
from dataclasses import dataclass, field

from gitmem import gitcommand as command
from gitmem.compile import block


@dataclass
class MergeResult:
    text: str
    conflicts: int  # conflict hunks left in the text (outside the block): the merge is not clean
    notes: list[str] = field(default_factory=list)


def merge_rules_bytes(base: bytes, ours: bytes, theirs: bytes) -> MergeResult:
    """Merge three versions as git hands them over. A version that is not UTF-8 text is merged line
    by line as ``git merge-file`` does (conflict markers where the sides differ), its bytes kept:
    the other side is never dropped. ``text`` holds undecodable bytes as surrogates (encode it with
    ``surrogateescape``).
    """
    try:
        texts = [raw.decode("utf-8") for raw in (base, ours, theirs)]
    except UnicodeDecodeError:
        decoded = [raw.decode("utf-8", "surrogateescape") for raw in (base, ours, theirs)]
        text, conflicts = command.merge_text(decoded[1], decoded[0], decoded[2])
        return MergeResult(text, conflicts, ["not UTF-8 text: merged line by line as git does"])
    return merge_rules_file(*texts)


def merge_rules_file(base: str, ours: str, theirs: str) -> MergeResult:
    """Merge three versions of a rules file. Falls back to git's plain merge when the blocks
    cannot be read."""
    try:
        return _merge_blocks(base, ours, theirs)
    except block.BlockError:
        text, conflicts = command.merge_text(ours, base, theirs)
        return MergeResult(
            text, conflicts, ["a gitmem block could not be read: merged line by line instead"]
        )


def _merge_blocks(base: str, ours: str, theirs: str) -> MergeResult:
    texts = (base, ours, theirs)
    found = [block.scan(text).found for text in texts]
    if found.count(None) == len(found):  # no version has a block
        text, conflicts = command.merge_text(ours, base, theirs)
        return MergeResult(text, conflicts)
    template = next(filter(None, (found[1], found[2], found[0])))  # ours, theirs, base
    placeholder = f"<!-- gitmem:merging {secrets.token_hex(8)} -->"

    def outside(text: str, f: block.Found | None) -> str:
        if f is not None:
            return f.before + placeholder + "\n" + f.after
        newline = block.newline_of(text)
        return (
            text + ("" if text[-1:] in ("", "\n") else newline) + placeholder + "\n"
        )  # empty, or ends a line

    merged_outside, conflicts = command.merge_text(
        outside(ours, found[1]), outside(base, found[0]), outside(theirs, found[2])
    )
    empty = block.Block(block.split(template.body).preamble)
    sides = [block.split(f.body) if f is not None else empty for f in found]
    merged = block.merge(sides[0], sides[1], sides[2])
    notes = [
        f"memory {memory_id!r} changed on both sides: its entry was taken from ours; "
        "run `gitmem compile` once its file is resolved"
        for memory_id in merged.conflicts
    ]
    if not merged.block.holds_anything:  # no memory left here: the block goes (as compile does)
        return MergeResult(_put_back(merged_outside, placeholder, None), conflicts, notes)
    begin = block.begin_line(template.kind, "0" * block.HASH_LENGTH)
    replacement = block.with_newline(
        f"{begin}\n{block.assemble(merged.block)}{block.END_LINE}", block.newline_of(ours or theirs)
    )
    text = _put_back(merged_outside, placeholder, replacement)
    return MergeResult(block.seal(text), conflicts, notes)


def _put_back(merged: str, placeholder: str, replacement: str | None) -> str:
    """``merged`` with its first placeholder line replaced by ``replacement`` (the merged block;
    ``None``: no block) and any other placeholder line dropped (both sides had moved the block)."""
    out = []
    for line in merged.splitlines(keepends=True):
        if line.rstrip("\r\n") != placeholder:
            out.append(line)
        elif replacement is not None:
            out.append(replacement + line[len(placeholder) :])
            replacement = None
    return "".join(out)
