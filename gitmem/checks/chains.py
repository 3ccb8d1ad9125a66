"""``supersedes`` chains: links to memories that do not exist (``dangling_target``), circles (found
as strongly connected components), and active memories superseded by another active one."""

from __future__ import annotations

import re
from collections.abc import Iterator

from gitmem.checks.findings import ERROR, WARNING, Context, Finding
from gitmem.errors import Problem


def check_supersedes(ctx: Context) -> Iterator[Finding]:
    """Circles, and active memories superseded by active ones (a broken link, a superseded id that
    does not exist, is a problem of its file: doctor's check_invalid says it, with
    ``dangling_target``)."""
    memories = ctx.snapshot.memories
    graph = {m.id: [t for t in m.supersedes if t in memories] for m in ctx.snapshot.sorted()}
    in_circle: set[str] = set()
    for component in _strongly_connected(graph):
        if len(component) < 2:
            continue
        in_circle.update(component)
        circle = _circle(graph, set(component))
        first = circle[0]
        yield Finding(
            ERROR,
            "supersedes-circle",
            first,
            ctx.path(first),
            ctx.line_of(first, "supersedes"),
            f"supersedes chain is circular: {' → '.join([*circle, first])}; a memory can "
            "only replace older ones",
            f"gitmem edit {first}",
        )
    for memory in ctx.snapshot.sorted():
        if memory.status != "active":
            continue
        for target in memory.supersedes:
            old = memories.get(target)
            if old is None or old.status != "active" or {memory.id, target} <= in_circle:
                continue
            yield Finding(
                WARNING,
                "superseded-active",
                target,
                ctx.path(target),
                ctx.line_of(target, "status"),
                f"{target} is still active but {memory.id} supersedes it: retire it",
                f"gitmem retire {target} --superseded-by {memory.id}",
            )


def dangling_target(ctx: Context, memory_id: str | None, problem: Problem) -> str | None:
    """The id a store problem says ``memory_id`` supersedes but does not exist, when that is the
    problem."""
    match = re.fullmatch(r"supersedes\[(\d+)\]", problem.field)
    memory = ctx.snapshot.memories.get(memory_id) if memory_id else None
    if match is None or memory is None:
        return None
    index = int(match.group(1))
    if index >= len(memory.supersedes) or memory.supersedes[index] in ctx.snapshot.memories:
        return None
    return memory.supersedes[index]


def _strongly_connected(graph: dict[str, list[str]]) -> list[list[str]]:
    """Tarjan's algorithm, iterative (chains can be long): the strongly connected components of
    ``graph``."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    at: dict[str, int] = {}  # where each node went on the stack
    stack: list[str] = []
    on_stack: set[str] = set()
    components: list[list[str]] = []

    def enter(node: str) -> tuple[str, Iterator[str]]:
        index[node] = low[node] = len(index)
        at[node] = len(stack)
        stack.append(node)
        on_stack.add(node)
        return node, iter(graph[node])

    for root in graph:
        if root in index:
            continue
        work = [enter(root)]
        while work:
            node, successors = work[-1]
            nxt = next(successors, None)
            if nxt is None:  # every successor done: the node is finished
                work.pop()
                if work:
                    low[work[-1][0]] = min(low[work[-1][0]], low[node])
                if low[node] == index[node]:  # the root of a component: all above it on the stack
                    component = stack[at[node] :]
                    del stack[at[node] :]
                    on_stack.difference_update(component)
                    components.append(sorted(component))
            elif nxt not in index:
                work.append(enter(nxt))
            elif nxt in on_stack:
                low[node] = min(low[node], index[nxt])
    return components


def _circle(graph: dict[str, list[str]], members: set[str]) -> list[str]:
    """One circle through a strongly connected component, starting at its smallest id."""
    path = [min(members)]
    seen = {path[0]: 0}
    while True:
        nxt = min(members.intersection(graph[path[-1]]))
        if nxt in seen:
            circle = path[seen[nxt] :]
            start = circle.index(min(circle))
            return circle[start:] + circle[:start]
        seen[nxt] = len(path)
        path.append(nxt)
