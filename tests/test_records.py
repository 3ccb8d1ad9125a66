"""``gitmem.records.Record`` behaves as the ``typing.NamedTuple`` mypy reads it as: the same tuples,
built, compared, copied and pickled alike, and the same errors; every Record of the package has
fields (a class whose annotations the metaclass cannot see would be a tuple of nothing)."""

from __future__ import annotations

import importlib
import inspect
import pickle
import pkgutil
from typing import Any, NamedTuple

import pytest

import gitmem
from gitmem.records import Record


class Pair(Record):
    name: str
    size: int = 0
    tags: tuple[str, ...] = ()

    def shown(self) -> str:
        return f"{self.name}:{self.size}"


class Twin(NamedTuple):
    name: str
    size: int = 0
    tags: tuple[str, ...] = ()


CALLS: list[tuple[tuple[Any, ...], dict[str, Any]]] = [
    (("a",), {}),
    (("a", 2), {}),
    (("a", 2, ("x",)), {}),
    ((), {"name": "a"}),
    (("a",), {"tags": ("y",)}),
    ((), {"size": 3, "name": "b"}),
]
BAD_CALLS: list[tuple[tuple[Any, ...], dict[str, Any]]] = [
    ((), {}),  # a field without a default missing
    (("a", 1, (), 4), {}),  # one value too many
    (("a",), {"name": "b"}),  # a field given twice
    (("a",), {"colour": "red"}),  # no such field
]


@pytest.mark.parametrize(("args", "named"), CALLS)
def test_a_record_is_the_tuple_a_named_tuple_makes(
    args: tuple[Any, ...], named: dict[str, Any]
) -> None:
    record, twin = Pair(*args, **named), Twin(*args, **named)
    assert tuple(record) == tuple(twin) and record == twin and hash(record) == hash(twin)
    assert record._asdict() == twin._asdict()
    assert (record.name, record.size, record.tags) == (twin.name, twin.size, twin.tags)
    assert repr(record) == repr(twin).replace("Twin", "Pair")
    assert record._replace(size=9) == twin._replace(size=9)
    assert type(record._replace(size=9)) is Pair
    assert pickle.loads(pickle.dumps(record)) == record
    assert Pair._make(tuple(twin)) == record
    assert record.shown() == f"{twin.name}:{twin.size}"
    match record:
        case Pair(name, size, tags):
            assert (name, size, tags) == tuple(twin)
        case _:
            pytest.fail("a record matches by position")


@pytest.mark.parametrize(("args", "named"), BAD_CALLS)
def test_a_record_refuses_what_a_named_tuple_refuses(
    args: tuple[Any, ...], named: dict[str, Any]
) -> None:
    with pytest.raises(TypeError):
        Twin(*args, **named)
    with pytest.raises(TypeError):
        Pair(*args, **named)


def test_replace_refuses_an_unknown_field() -> None:
    with pytest.raises(ValueError):
        Pair("a")._replace(colour="red")
    with pytest.raises(AttributeError):
        Pair("a").size = 3  # type: ignore[misc]
    assert (Pair._fields, Pair._field_defaults) == (Twin._fields, Twin._field_defaults)


def test_a_record_without_fields_is_refused() -> None:
    with pytest.raises(TypeError, match="annotations"):

        class Empty(Record):
            pass


def test_every_record_of_the_package_has_its_annotated_fields() -> None:
    """Each Record subclass gitmem defines has exactly the fields its class body annotates."""
    for info in pkgutil.walk_packages(gitmem.__path__, "gitmem."):
        importlib.import_module(info.name)
    found = _subclasses(Record)
    assert len(found) >= 25
    for cls in found:
        annotated = tuple(inspect.get_annotations(cls))
        assert annotated and cls._fields == annotated, cls.__qualname__


def _subclasses(cls: type) -> list[Any]:
    out = []
    for sub in cls.__subclasses__():
        if sub.__module__.startswith("gitmem."):
            out.append(sub)
        out.extend(_subclasses(sub))
    return out
