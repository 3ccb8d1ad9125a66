"""``Record``: gitmem's typed, immutable records, read by mypy as ``typing.NamedTuple`` and made
at run time without compiling code.

``class Tool(Record)`` declares its fields as a NamedTuple does (annotations, defaults, methods),
and its instances are the same tuples: fields by position or by keyword, defaults, equality, hash,
``repr``, ``_replace``, ``_asdict``, pickling. What differs is the cost of the class: a NamedTuple
compiles its ``__new__`` from source (and each postponed annotation) when its module is imported,
about 0.1 ms a class, and the hooks' processes import some thirty of them for a few milliseconds of
work; a ``Record`` class costs what a plain class costs. Making one by keyword is a little slower
(one generic ``__new__``): records made by the thousand (``memory.model``) stay NamedTuples.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

__all__ = ["Record"]

if TYPE_CHECKING:
    from typing import NamedTuple as Record  # what mypy reads a Record as
else:
    from collections import _tuplegetter  # namedtuple's own field reader (C)

    def _annotations(body: dict[str, Any]) -> dict[str, Any]:
        """The class body's annotations: its ``__annotations__`` (Python 3.11 to 3.13, and later
        under ``from __future__ import annotations``), or what its ``__annotate__`` gives (3.14's
        lazy annotations): only their names are used."""
        if "__annotations__" in body or "__annotate__" not in body:
            return dict(body.get("__annotations__", {}))
        import annotationlib  # 3.14 and later only

        return dict(
            annotationlib.call_annotate_function(
                body["__annotate__"], annotationlib.Format.FORWARDREF
            )
        )

    class _Fields(type):
        """Makes each ``Record`` class: its annotations are its fields, in order, and the values
        given them in the class body their defaults."""

        def __new__(cls, name: str, bases: tuple[type, ...], body: dict[str, Any]) -> type:
            fields = tuple(_annotations(body))
            if not fields and any(isinstance(base, _Fields) for base in bases):
                raise TypeError(f"{name}: a Record declares its fields as annotations")
            defaults = {field: body[field] for field in fields if field in body}
            body.update({field: _tuplegetter(at, None) for at, field in enumerate(fields)})
            body.update(__slots__=(), _fields=fields, _field_defaults=defaults)
            body["__match_args__"] = fields
            return super().__new__(cls, name, bases, body)

    class Record(tuple, metaclass=_Fields):
        def __new__(cls, *args: Any, **named: Any) -> Any:
            fields = cls._fields
            if named or len(args) != len(fields):
                args = _filled(cls, args, named)
            return tuple.__new__(cls, args)

        @classmethod
        def _make(cls, values: Any) -> Any:
            return cls(*values)

        def _replace(self, **changes: Any) -> Any:
            unknown = set(changes) - set(self._fields)
            if unknown:
                raise ValueError(f"Got unexpected field names: {sorted(unknown)!r}")
            pairs = zip(self._fields, self, strict=True)
            return tuple.__new__(type(self), [changes.get(field, value) for field, value in pairs])

        def _asdict(self) -> dict[str, Any]:
            return dict(zip(self._fields, self, strict=True))

        def __getnewargs__(self) -> tuple[Any, ...]:
            return tuple(self)

        def __repr__(self) -> str:
            pairs = zip(self._fields, self, strict=True)
            shown = ", ".join(f"{field}={value!r}" for field, value in pairs)
            return f"{type(self).__name__}({shown})"

    def _filled(cls: Any, args: tuple[Any, ...], named: dict[str, Any]) -> tuple[Any, ...]:
        """The values of every field, from those given by position and by name and the defaults;
        ``TypeError`` for a missing, unknown or repeated field, as a NamedTuple raises it."""
        fields = cls._fields
        given = dict(zip(fields, args, strict=False))
        values = {**cls._field_defaults, **given, **named}
        try:
            if len(args) <= len(fields) == len(values) and not given.keys() & named.keys():
                return tuple(map(values.__getitem__, fields))
        except KeyError:
            pass
        raise TypeError(f"{cls.__name__}() takes the fields {', '.join(fields)}, each once")
