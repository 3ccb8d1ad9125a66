"""Glob matching in linear time (issue 13): the same answers as the regular expressions it replaces, without their
backtracking on hostile globs (``*a*a*a*a*a*b`` took 85 s on a 200-character name)."""

from __future__ import annotations

import random
import re

from gitmem.recall.globs import matches
from gitmem.scan.inputs import _excluded_by
from tests.cpu import least_cpu


def regex_recall(pattern: str, path: str) -> bool:
    """The previous implementation of ``recall.globs.matches``: the glob as a regular expression."""
    glob = pattern.strip().lstrip("/")
    if glob.startswith("./"):
        glob = glob[2:]
    if "/" not in glob.rstrip("/"):
        glob = "**/" + glob
    if glob.endswith("/"):
        glob += "**"
    out, index = [], 0
    while index < len(glob):
        char = glob[index]
        if glob.startswith("**/", index):
            out.append("(?:.*/)?")
            index += 3
            continue
        if glob.startswith("**", index):
            out.append(".*")
            index += 2
            continue
        if char == "*":
            out.append("[^/]*")
        elif char == "?":
            out.append("[^/]")
        elif char == "[" and glob.find("]", index + 2) >= 0:
            end = glob.find("]", index + 2)
            out.append(f"[{glob[index + 1 : end]}]")
            index = end + 1
            continue
        else:
            out.append(re.escape(char))
        index += 1
    return re.compile("".join(out) + "(?:/.*)?").fullmatch(path.lstrip("/")) is not None


def regex_scan(pattern: str, relative: str) -> bool:
    """The previous implementation of scan.exclude matching."""
    body = pattern.strip().lstrip("/")
    anchored = "/" in body.rstrip("/")
    if body.endswith("/"):
        body += "**"
    out, index = "", 0
    while index < len(body):
        if body.startswith("**/", index):
            out, index = out + "(?:.*/)?", index + 3
        elif body.startswith("**", index):
            out, index = out + ".*", index + 2
        else:
            char = body[index]
            out += "[^/]*" if char == "*" else "[^/]" if char == "?" else re.escape(char)
            index += 1
    return (
        re.compile(("" if anchored else "(?:.*/)?") + out + "(?:/.*)?").match(relative) is not None
    )


PIECES = ["a", "b", "/", "*", "**", "**/", "?", ".", "[ab]", "[a-b]", "x", "web/", "**/*.py"]


def test_the_same_answers_as_the_regular_expressions() -> None:
    rnd = random.Random(13)
    for _ in range(3_000):
        glob = "".join(rnd.choice(PIECES) for _ in range(rnd.randint(1, 6)))
        path = "".join(
            rnd.choice(["a", "b", "/", ".", "x", "py"]) for _ in range(rnd.randint(1, 12))
        ).strip("/")
        path = path or "a"
        assert matches(glob, path) == regex_recall(glob, path), (glob, path)
        assert _excluded_by(glob, path) == regex_scan(glob, path), (glob, path)


def test_examples() -> None:
    assert (
        matches("web/**", "web/src/a.ts")
        and matches("web", "web/src/a.ts")
        and matches("*.py", "a/b/c.py")
    )
    assert not matches("web/*.ts", "web/src/a.ts") and matches("src/[ab].ts", "src/a.ts")
    assert not matches("[!a]", "/")  # a class, like ?, stands for a character within a segment
    assert _excluded_by("tests/fixtures/**", "tests/fixtures/x.env") and _excluded_by(
        "*.snap", "ui/view.snap"
    )


def test_hostile_globs_take_linear_time() -> None:
    def cost(n: int) -> float:
        def work() -> None:
            assert not matches("*a" * 20 + "b", "a" * n)
            assert not matches("**/" * 20 + "x", "a/" * (n // 2) + "y")
            assert not _excluded_by("*a" * 20 + "b", "a" * n)

        return least_cpu(work)

    cost(100)
    small, big = cost(500), cost(2000)
    assert big < small * 4 * 3 + 0.05, (small, big)  # linear: ~4x; backtracking never finished
