"""``explain`` stays linear in the number of memories: which of a client's memories arrive in
full, as index lines or on demand is decided by hashed membership, never by scanning a list
(counted, not timed: a list scan compares the id with every earlier one)."""

from __future__ import annotations

from typing import Any

import pytest

from gitmem.compile import delivery, explain, reading
from gitmem.compile.readers import Reader
from gitmem.compile.reading import FileRead, How, Tracked


class _Id(str):
    """A memory id that counts how often it is compared for equality."""

    compared = 0

    def __eq__(self, other: object) -> bool:
        _Id.compared += 1
        return str.__eq__(self, other)

    __hash__ = str.__hash__


def _file(path: str, ids: list[str], listed: list[str]) -> FileRead:
    return FileRead(
        path, path, "claude", How.ROOT, Tracked.TRACKED, 1, 0, ids=tuple(ids), listed=tuple(listed)
    )


@pytest.mark.parametrize("count", [2000])
def test_explain_compares_each_id_a_bounded_number_of_times(
    monkeypatch: pytest.MonkeyPatch, count: int
) -> None:
    full = [_Id(f"full-{n:05d}") for n in range(count)]
    # the index names fresh copies of the ids: a list scan could not stop at the same object
    listed = [_Id(f"left-{n:05d}") for n in range(count)] + [_Id(str(i)) for i in full[:10]]
    files = (_file("CLAUDE.md", full, listed),)

    def read(*_: Any, **__: Any) -> reading.Reading:
        return reading.Reading(reader, "", files)

    monkeypatch.setattr(reading, "read", read)
    monkeypatch.setattr(delivery, "globbed", lambda *_: [])
    reader = Reader("Claude Code", "claude", ("claude",), name="claude")
    _Id.compared = 0
    view = explain._view(reader, {}, [], "", "", (), None)  # type: ignore[arg-type]
    assert view.full == full
    assert view.index == listed[:count]
    assert _Id.compared <= 4 * count
