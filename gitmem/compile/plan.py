"""What every target's files should hold for a set of memories: pure, nothing is read or written
here."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass, field, replace
from functools import cached_property
from types import MappingProxyType

from gitmem.compile import block, budget, delivery, leftout, render
from gitmem.compile.delivery import BRIDGES, Bridge, Layout
from gitmem.compile.scoping import (
    FileSpec,
    Placement,
    dir_spec,
    directory_of,
    folder_spec,
    globs_phrase,
    place,
    root_spec,
    scope_key,
)
from gitmem.memory.model import Memory
from gitmem.tools import Target


@dataclass(frozen=True)
class FilePlan:
    """One file of a target: its frontmatter, framing, entries and (when memories were left out)
    recall line and the index after it (``listed``: the ids of the left-out memories its index
    names, one a line: ``leftout``). Built once, in ``_file_plans``; its text assembled once."""

    spec: FileSpec
    frontmatter: str
    preamble: str
    entries: tuple[block.Entry, ...] = ()
    footer: str = ""
    listed: tuple[str, ...] = ()

    @property
    def ids(self) -> tuple[str, ...]:
        """The ids of the memories it holds in full."""
        return tuple(entry.id for entry in self.entries)

    def text(self) -> str:
        """What gitmem owns of the file: the whole file, or the block (markers included)."""
        return self._text

    @cached_property
    def _text(self) -> str:  # assembled once: compile's checks, limits and delivery all read it
        body = block.assemble(block.Block(self.preamble, self.entries, self.footer))
        if self.spec.whole:
            return block.whole_text(self.frontmatter, body, self.spec.personal)
        return block.block_text(body, self.spec.personal)


@dataclass(frozen=True)
class TargetPlan:
    """One target's files for the memories it gets, and what its budget kept and left out."""

    target: Target
    budget: int
    files: dict[str, FilePlan]
    compiled: list[str]  # ids of the memories in the target, in the order the budget keeps them
    omitted: list[str]  # ids left out by the budget, in the same order
    chars: int = 0  # characters gitmem writes for the target (frontmatter and blocks)
    # characters of the index of left-out memories (``leftout``), beside the budget
    index_chars: int = 0
    elsewhere: list[str] = field(default_factory=list)  # ids whose `targets` leave it out
    # ids of memories for this target that its client gets from other targets' files (``delivery``),
    # by target
    delivered: dict[str, list[str]] = field(default_factory=dict)
    bridge: Bridge = ""  # how its client reaches the hub (``delivery.Layout.bridge``)
    homes: tuple[tuple[str, str], ...] = ()  # ``delivery.Layout.homes``

    @property
    def tokens(self) -> int:
        return budget.tokens(self.chars)


def _templates(target: Target, spec: FileSpec) -> tuple[str, ...]:
    if not spec.whole:
        return ()
    return target.root_frontmatter if spec.root else target.scoped_frontmatter


class _Sizes:
    """Exact character counts of the pieces a target's files are made of (the text is their
    concatenation)."""

    def __init__(self, target: Target, entries: dict[str, str], packs: bool = False) -> None:
        self.target = target
        self.entries = entries
        self.packs = packs
        self._overheads: dict[FileSpec, tuple[str, str, int]] = {}

    def overhead(self, spec: FileSpec) -> tuple[str, str, int]:
        known = self._overheads.get(spec)
        if known is None:
            front, pre = render.overhead(spec, _templates(self.target, spec), self.packs)
            known = (
                front,
                pre,
                len(front) + len(pre) + render.marker_chars(spec.whole, spec.personal),
            )
            self._overheads[spec] = known
        return known

    def cost(
        self,
        memory: Memory,
        placements: Sequence[Placement],
        files: set[str],
        groups: set[tuple[str, str, str]],
    ) -> int:
        """What adding ``memory`` costs, given the files and groups already opened."""
        total = 0
        for placement in placements:
            spec = placement.file
            total += len(self.entries[memory.id])
            if (spec.path, memory.kind, placement.label) not in groups:
                total += len(block.group_text(memory.kind, placement.label))
            if spec.path not in files:
                total += self.overhead(spec)[2]
        return total


def _opening(sizes: _Sizes, root: FileSpec, bridges: Sequence[FileSpec]) -> int:
    """What opening the root file costs when the bridges (already counted) do not include it."""
    return 0 if root.path in {spec.path for spec in bridges} else sizes.overhead(root)[2]


def _fill(
    sizes: _Sizes,
    memories: Sequence[Memory],
    placements: dict[str, tuple[Placement, ...]],
    opened: tuple[set[str], set[tuple[str, str, str]]],
    used: int,
    limit: int,
) -> tuple[list[Memory], list[Memory], int]:
    """Over the budget: the memories kept in full, those left out, and the characters used. The
    longest run of the keep order that fits is kept, so a memory added takes the place of the
    lowest-ranked ones and nothing else moves (two changes that each fit combine as predictably). A
    memory too long to fit even alone is passed over and the next ones are still tried (one long
    memory does not crowd out every one after it), except the later lines of the same imported file
    and kind: the block holds the top of that file in one piece, not fragments.
    """
    files, groups = opened
    alone = (set(files), set(groups))
    start = used
    kept: list[Memory] = []
    omitted: list[Memory] = []
    stopped = (
        False  # a memory that would fit alone did not fit: every lower-ranked one is left out too
    )
    cut: set[tuple[str, str]] = (
        set()
    )  # (rules file, kind) an imported memory was passed over in: stop there
    for memory in memories:
        origin = budget.origin_place(memory)
        stretch = (origin[0], memory.kind) if origin else None
        if not stopped and stretch not in cut:
            delta = sizes.cost(memory, placements[memory.id], files, groups)
            if used + delta <= limit:
                used += delta
                for placement in placements[memory.id]:
                    files.add(placement.file.path)
                    groups.add((placement.file.path, memory.kind, placement.label))
                kept.append(memory)
                continue
            if start + sizes.cost(memory, placements[memory.id], *alone) <= limit:
                stopped = True
            elif stretch is not None:
                cut.add(stretch)
        omitted.append(memory)
    return kept, omitted, used


def plan_target(
    target: Target,
    memories: Sequence[Memory],
    entries: dict[str, str],
    budget_tokens: int,
    placements: dict[str, tuple[Placement, ...]],
    mcp: bool = False,
    reserved: int = 0,
    bridges: Sequence[FileSpec] = (),
) -> TargetPlan:
    """The files of ``target`` for ``memories`` (live ones, in keep order), within
    ``budget_tokens``.

    ``entries`` maps every memory id to its entry text (``render.entry_text``), shared by all
    targets; ``placements``, each memory's places in the target's files (``scoping.place``). Ids
    of the form ``PACK/ID`` are shared packs' memories: the framing then says where those come
    from. ``reserved``: the hand-written characters of the target's always-loaded file
    (its index of left-out memories keeps within the target's hard size limit with them).
    ``bridges``: files written even without a memory of their own (they import the hub:
    ``delivery``); their framing counts first.
    """
    sizes = _Sizes(target, entries, packs=any("/" in memory.id for memory in memories))
    limit = budget_tokens * budget.CHARS_PER_TOKEN
    bridged = {spec.path for spec in bridges}
    base = sum(sizes.overhead(spec)[2] for spec in bridges)
    footer = render.footer(mcp, target.personal)
    tail = len(block.footer_text(footer))
    # every memory, when all fit with the recall line's room kept
    opened = (set(bridged), set[tuple[str, str, str]]())
    kept, omitted, used = _fill(sizes, memories, placements, opened, base, limit - tail)
    written, tails = list(bridges), {}
    if omitted or used > limit - tail:  # the recall line, then the index of those left out
        root = root_spec(target)
        opened = ({root.path, *bridged}, set())
        start = tail + base + _opening(sizes, root, bridges)
        kept, omitted, used = _fill(sizes, memories, placements, opened, start, limit)
        room = leftout.room(target, used, reserved)
        index = leftout.index_text(omitted, len(kept), room, target.personal)
        written.append(root)
        tails[root.path] = (footer + ("\n" + index.text if index.text else ""), index.listed)
    return TargetPlan(
        target,
        budget_tokens,
        _file_plans(sizes, written, kept, placements, tails),
        [m.id for m in kept],
        [m.id for m in omitted],
        used,
        sum(len(text) - len(footer) for text, _ in tails.values()),  # the index, beside it
    )


def _file_plans(
    sizes: _Sizes,
    written: Sequence[FileSpec],
    kept: Sequence[Memory],
    placements: dict[str, tuple[Placement, ...]],
    tails: dict[str, tuple[str, tuple[str, ...]]],
) -> dict[str, FilePlan]:
    """The plans of the files the ``kept`` memories are placed in and of those ``written`` even
    with none (the bridges; the root file when it holds the recall line and index: ``tails``), each
    with its entries, by path."""
    specs = {spec.path: spec for spec in written}
    held = defaultdict[str, list[block.Entry]](list)
    for memory in kept:
        for placement in placements[memory.id]:
            specs.setdefault(placement.file.path, placement.file)
            held[placement.file.path].append(
                block.Entry(
                    memory.id,
                    memory.kind,
                    placement.label,
                    memory.priority,
                    sizes.entries[memory.id],
                )
            )
    return {
        path: FilePlan(
            spec, *sizes.overhead(spec)[:2], tuple(held[path]), *tails.get(path, ("", ()))
        )
        for path, spec in sorted(specs.items())
    }


def plan_targets(
    targets: Sequence[Target],
    memories: Sequence[Memory],
    budgets: dict[str, int],
    mcp: bool = False,
    reserved: Mapping[str, int] = MappingProxyType({}),
    layouts: Sequence[Layout] | None = None,
) -> list[TargetPlan]:
    """Every target's plan for the live ``memories`` (any order): each gets the memories that are
    for it (no ``targets``, or ``targets`` naming it; never an on-demand one, which the prompt hook
    and recall bring) and that its client gets from no other target's files it reads
    (``layouts``, from ``delivery.layouts``; default: every target a full copy). Plans come in
    ``targets``' order (compile --user has two targets of one name: opencode's and Codex's
    AGENTS.md).
    ``reserved``: hand-written characters of targets' always-loaded files."""
    ordered = budget.keep_order(memories)
    entries = {memory.id: render.entry_text(memory) for memory in ordered}
    made: list[TargetPlan] = []
    plans: dict[str, TargetPlan] = {}  # by name: the hub's
    candidates: dict[str, set[str]] = {}
    at_root: dict[str, set[str]] = {}  # of those, the ones in the target's root file
    for layout in layouts if layouts is not None else delivery.standalone(targets):
        target = layout.target
        ours, others = list[Memory](), list[str]()  # is_for asked once a memory
        for memory in ordered:
            if not memory.is_for(target.name):
                others.append(memory.id)
            elif not memory.on_demand:
                ours.append(memory)
        elsewhere = delivery.excluded(layout, candidates, at_root)
        placements = _not_imported(
            layout,
            candidates.get(delivery.HUB, ()),
            {m.id: (_rehomed(layout, m.paths), m.paths) for m in ours if m.id not in elsewhere},
        )
        mine = [memory for memory in ours if placements.get(memory.id)]
        candidates[target.name] = {memory.id for memory in mine}
        at_root[target.name] = _in_root_file(placements)
        plan = plan_target(
            target,
            mine,
            entries,
            budgets[target.name],
            placements,
            mcp,
            reserved.get(target.name, 0),
            _bridges(layout, plans.get(delivery.HUB)),
        )
        plans[target.name] = replace(
            plan,
            elsewhere=others,
            delivered=_delivered(layout, ours, candidates, placements),
            bridge=layout.bridge,
            homes=layout.homes,
        )
        made.append(plans[target.name])
    names = [target.name for target in targets]
    return sorted(made, key=lambda plan: names.index(plan.target.name))


def _rehomed(layout: Layout, paths: tuple[str, ...]) -> tuple[Placement, ...]:
    """The files of ``layout``'s target a memory with ``paths`` goes to (``place``), a folder's
    nested file that is another's through a link (``Layout.homes``) replaced by that file, where
    the memory goes under a heading naming its globs of that folder: gitmem writes the file once,
    for its other name, and each client that reads it there gets the memory."""
    target, homes = layout.target, dict(layout.homes)
    out: list[Placement] = []
    for placement in place(target, paths):
        home = homes.get(placement.file.directory)  # (never the root's "")
        if home is None:
            out.append(placement)
            continue
        globs = tuple(g for g in scope_key(paths) if directory_of(g) == placement.file.directory)
        out.append(Placement(folder_spec(target, home), globs_phrase(globs)))
    return tuple(dict.fromkeys(out))


def _not_imported(
    layout: Layout,
    hub: Collection[str],
    placements: dict[str, tuple[tuple[Placement, ...], tuple[str, ...]]],
) -> dict[str, tuple[Placement, ...]]:
    """``placements`` (memory id -> the files of ``layout``'s target it goes to, and its globs)
    less those the client reads through an import of the hub's file of their folder, which the
    team wrote (``Layout.imported``), of the memories the hub gets (``hub``): the hub's file there
    holds them. A memory placed by its folder globs goes to the same folders for each; one under a
    heading naming its globs (Claude Code's .claude/CLAUDE.md, beside the Copilot CLI) goes to the
    hub's file of each glob's folder, and is brought so where each of those is imported (harvester's
    vendored otel/CLAUDE.md of `@AGENTS.md`: the heading's copy reached Claude Code twice)."""
    return {
        memory_id: tuple(
            p
            for p in places
            if memory_id not in hub
            or not layout.imported.issuperset(
                {directory_of(g) for g in scope_key(paths)} if p.label else {p.file.directory}
            )
        )
        for memory_id, (places, paths) in placements.items()
    }


def _delivered(
    layout: Layout,
    ours: Sequence[Memory],
    candidates: dict[str, set[str]],
    placements: dict[str, tuple[Placement, ...]],
) -> dict[str, list[str]]:
    """The memories for ``layout``'s target its client gets from each other target's files it
    reads, and from the hub's it imports in folders (``_not_imported``) (target name -> ids)."""
    out = {}
    for name in layout.reads:
        got = [memory.id for memory in ours if memory.id in candidates.get(name, ())]
        if got:
            out[name] = got
    imported = [memory_id for memory_id, places in placements.items() if not places]
    if imported:  # (never beside the hub among ``reads``: its memories are not placed at all)
        out[delivery.HUB] = imported
    return out


def _in_root_file(placements: dict[str, tuple[Placement, ...]]) -> set[str]:
    """The ids of the memories placed in their target's root file (what a client whose root file is
    a link to it reads of it: ``delivery.excluded``)."""
    return {
        memory_id for memory_id, places in placements.items() if any(p.file.root for p in places)
    }


def _bridges(layout: Layout, hub: TargetPlan | None) -> list[FileSpec]:
    """The files of ``layout``'s target written even with no memory of their own: its root file
    where it keeps it (``Layout.keeps_root``), and those importing the hub's, one beside each: every
    one for an ``import`` bridge; for a hand-written root file importing the hub (``own-import``),
    those of the folders, where the client started there follows no import of the root's (Claude
    Code in docs/: measured); and those beside the hub's files of other names
    (``_beside_homes``)."""
    kept = [root_spec(layout.target)] if layout.keeps_root else []
    way = BRIDGES[layout.bridge]
    target = layout.target._replace(imports=delivery.HUB_FILE)
    if hub is None or not way.imports or not (way.imports_root or target.dir_file is not None):
        return kept
    imports = [
        _bridge_of(target, spec)
        for spec in hub.files.values()
        if not spec.spec.globs and (way.imports_root or not spec.spec.root)
    ]
    imports += _beside_homes(target, hub, {spec.directory for spec in imports} - {""})
    return list({spec.path: spec for spec in [*kept, *imports]}.values())  # each file once


def _beside_homes(target: Target, hub: TargetPlan, bridged: set[str]) -> list[FileSpec]:
    """The files of ``target`` importing the hub's in a folder whose hub file is, through a link,
    that of another folder ``bridged`` (``TargetPlan.homes``): the import brings that file."""
    if not target.dir_file:
        return []
    return [dir_spec(target, folder) for folder, home in hub.homes if home in bridged]


def _bridge_of(target: Target, hub: FilePlan) -> FileSpec:
    """The file of ``target`` beside one of the hub's, importing it."""
    return folder_spec(target, hub.spec.directory)
