"""A large tree scanned in two processes, as kingfisher spreads a tree over the cores: the files
dealt out by size, each process reading and scanning its share, the findings put back in the order
one process gives them. ``gitmem scan PATH`` only: the pre-commit hook (--staged) and small trees
stay in one process, which costs some 30 ms less to start.
"""

from __future__ import annotations

import multiprocessing
import os
from itertools import accumulate, chain, count

from gitmem.scan import inputs as src
from gitmem.scan.engine import Finding

# A tree this large (in files and bytes) is worth a second process
PROCESS_FILES = 64
PROCESS_BYTES = 4_000_000
WORKERS = 2

Numbered = list[tuple[int, src.Entry]]  # a worker's share: each entry with its index in the tree
Scanned = list[tuple[int, list[Finding] | None]]  # each entry's findings (None: it failed to read)


def worth_processes(entries: list[src.Entry]) -> bool:
    """Whether ``entries`` are enough files and bytes to scan in ``WORKERS`` forked processes (spawn
    would import gitmem again in each)."""
    return (
        len(entries) >= PROCESS_FILES
        and (os.cpu_count() or 1) >= WORKERS
        and "fork" in multiprocessing.get_all_start_methods()
        and any(total >= PROCESS_BYTES for total in accumulate(map(_size, entries)))
    )


def in_processes(entries: list[src.Entry], settings: src.Settings) -> tuple[int, list[Finding]]:
    """Scan ``entries`` in ``WORKERS`` forked processes, the files dealt out by size so each gets as
    many bytes; the files scanned and every finding (scan.allow not applied: the caller splits off
    what it allows, as for one process), in the order one process would give them.

    The first entry a worker could not read is read again here, where its error is raised as one
    process raises it (or, if it reads now, it is scanned)."""

    work = [([(i, entries[i]) for i in sorted(part)], settings) for part in _dealt(entries)]
    with multiprocessing.get_context("fork").Pool(len(work)) as pool:
        found = dict(chain.from_iterable(pool.map(_scan_part, work)))
    failed = min((index for index, items in found.items() if items is None), default=None)
    if failed is not None:
        again = src.read_entry(entries[failed])
        found[failed] = (
            None if again is None else src.findings_in(again, settings, honour_allow=False)
        )
    done = [items for _index, items in sorted(found.items()) if items is not None]
    return len(done), list(chain.from_iterable(done))


def _size(entry: src.Entry) -> int:
    try:
        return entry[1].stat().st_size
    except OSError:
        return 0


def _dealt(entries: list[src.Entry]) -> list[list[int]]:
    """The entries' indexes dealt out to at most ``WORKERS`` parts, largest file first to the
    lightest part, so each part gets as many bytes."""
    parts: list[list[int]] = [[] for _ in range(WORKERS)]
    loads = [0] * WORKERS
    for size, index in sorted(zip(map(_size, entries), count()), reverse=True):
        lightest = loads.index(min(loads))
        parts[lightest].append(index)
        loads[lightest] += size
    return [part for part in parts if part]


def _scan_part(work: tuple[Numbered, src.Settings]) -> Scanned:
    """In a worker: read and scan each file of one part, as the single process does. A file that
    cannot be read (larger than the limit, unreadable) is given back as ``None``: the parent reads
    it again and raises its error, which may not survive the way back (the pool unpickles an
    exception by its arguments, and TooLarge's are not those it was raised with: the pool's result
    thread died on it and the scan waited forever).
    """

    numbered, settings = work
    out: Scanned = []
    for index, entry in numbered:
        try:
            source = src.read_entry(entry)
        except Exception:  # any error: raised again in the parent
            out.append((index, None))
            continue
        if source is not None:
            out.append((index, src.findings_in(source, settings, honour_allow=False)))
    return out
