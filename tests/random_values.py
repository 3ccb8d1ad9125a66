"""Random values for the scan tests, made at run time, so that the repository holds no string its
own scanner would flag."""

from __future__ import annotations

import math
import random

from gitmem.scan.filters import entropy

ENTROPY = 3.5  # bits a character: what a random value of a token's alphabet has


def random_value(rng: random.Random, n: int, alphabet: str) -> str:
    """``n`` characters of ``alphabet`` with a random value's entropy (a short one can fall short
    of it by chance, and is drawn again). A length or an alphabet too small ever to reach it is
    refused: the loop would not end (it hung twice in round 30, on ``made(8)`` and ``made(4)``)."""
    if math.log2(max(1, min(n, len(set(alphabet))))) < ENTROPY:
        raise ValueError(f"{n} characters of {len(set(alphabet))} never reach {ENTROPY} bits")
    while True:
        value = "".join(rng.choice(alphabet) for _ in range(n))
        if entropy(value) >= ENTROPY:
            return value
