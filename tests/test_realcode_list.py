"""benchmarks/realcode_repos.txt lists each tree once: a batch that lists again what an earlier batch
measured would count trees already looked at as fresh (round 45 listed three of batch 18's trees
again before it was caught). bench_realcode.py refuses such a list, and the list itself passes."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

BENCHMARKS = Path(__file__).resolve().parent.parent / "benchmarks"
sys.path.insert(0, str(BENCHMARKS))

import bench_realcode  # noqa: E402

ENTRY = "{}  Go  {}  fresh  {}"
COMMIT = "0" * 40


def test_the_list_names_each_tree_and_repository_once() -> None:
    repos = bench_realcode.read_repos(Path("/nowhere"))
    assert len({name for name, *_ in repos}) == len(repos) > 300


@pytest.mark.parametrize(
    ("first", "second"),
    [
        (("lldap", "lldap/lldap"), ("lldap", "someone/lldap")),
        (("authelia", "authelia/authelia"), ("authelia2", "Authelia/authelia")),
    ],
)
def test_a_tree_or_repository_listed_twice_is_refused(
    tmp_path: Path, first: tuple[str, str], second: tuple[str, str]
) -> None:
    listing = tmp_path / "repos.txt"
    lines = [
        "# a batch",
        ENTRY.format(first[0], COMMIT, first[1]),
        ENTRY.format("other", COMMIT, "o/o"),
    ]
    listing.write_text(
        "\n".join([*lines, "# a later batch", ENTRY.format(second[0], COMMIT, second[1])])
    )
    with pytest.raises(SystemExit, match=r"repos\.txt:5: .* is listed on line 2 too"):
        bench_realcode.read_repos(tmp_path, listing)
    listing.write_text("\n".join(lines))
    assert [name for name, *_ in bench_realcode.read_repos(tmp_path, listing)] == [
        first[0],
        "other",
    ]
