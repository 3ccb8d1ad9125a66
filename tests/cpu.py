"""The one way the tests time work: ``least_cpu``. A test of linear time compares two sizes, and a
single measurement can be billed for a garbage collection of the worker's heap or a moment of
another process's load, while a quadratic path is slow every time: each figure is the least of
several runs, with the collector off while they run (none forced either: with a large heap, that
costs more than the work). tests/test_quality.py holds every test to this helper."""

from __future__ import annotations

import gc
import time
from collections.abc import Callable


def least_cpu(work: Callable[[], object], runs: int = 3) -> float:
    """The least CPU time of this thread over ``runs`` calls of ``work``."""
    best = float("inf")
    enabled = gc.isenabled()
    try:
        gc.disable()
        for _ in range(runs):
            start = time.thread_time()
            work()
            best = min(best, time.thread_time() - start)
    finally:
        if enabled:
            gc.enable()
    return best
