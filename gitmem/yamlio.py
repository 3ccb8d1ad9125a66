"""All YAML reading and writing (the only module that uses ruamel.yaml).

Reading is strict: one mapping document, no duplicate keys, no anchors or aliases, no custom tags,
dates kept as strings (so an impossible date is a validation message, not a crash). Every key's
position is kept so messages can name the line and column. Writing is canonical (stable key order,
block scalars for multi-line text) and can update a file in place while keeping its comments.
"""

from __future__ import annotations

import contextlib
import io
import re
from datetime import date
from typing import Any

from gitmem import yamlfast
from gitmem.errors import Problem
from gitmem.records import Record

Path_ = tuple[str | int, ...]  # a field's path in the document, e.g. ("evidence", 0, "path")


class YamlProblem(Exception):
    """The text is not the strict YAML gitmem accepts."""

    def __init__(self, line: int, column: int, message: str, field: str = "yaml") -> None:
        super().__init__(message)
        self.line = line
        self.column = column
        self.message = message
        self.field = field

    def problem(self, path: str) -> Problem:
        return Problem(path, self.line, self.column, self.field, self.message)


# A Record, not a dataclass: importing dataclasses (and inspect with it) cost the prompt hook's
# first prompt, which reads every memory file, more than the class is worth.
class Document(Record):
    """A parsed YAML mapping as plain Python data, with the 1-based position of every key and
    item."""

    data: dict[str, Any]
    marks: dict[Path_, tuple[int, int]]

    def position(self, where: Path_) -> tuple[int, int]:
        """The position of ``where``, or of its nearest ancestor that has one, or 1:1."""
        while where:
            if where in self.marks:
                return self.marks[where]
            where = where[:-1]
        return (1, 1)


_yaml_cache: dict[str, Any] = {}


def _loader() -> Any:
    if "load" in _yaml_cache:
        return _yaml_cache["load"]
    from ruamel.yaml import YAML  # lazy: the pre-commit hook's start-up
    from ruamel.yaml.composer import Composer, ComposerError  # lazy: the pre-commit hook's start-up
    from ruamel.yaml.constructor import RoundTripConstructor  # lazy: the pre-commit hook's start-up
    from ruamel.yaml.events import AliasEvent  # lazy: the pre-commit hook's start-up

    class StrictComposer(Composer):
        def compose_node(self, parent: Any, index: Any) -> Any:
            event = self.parser.peek_event()
            if isinstance(event, AliasEvent) or getattr(event, "anchor", None) is not None:
                raise ComposerError(
                    None, None, "anchors and aliases are not allowed", event.start_mark
                )
            return super().compose_node(parent, index)

    class StrictConstructor(RoundTripConstructor):
        pass

    def keep_string(constructor: Any, node: Any) -> str:
        return str(constructor.construct_scalar(node))

    StrictConstructor.add_constructor("tag:yaml.org,2002:timestamp", keep_string)

    yaml = YAML(typ="rt", pure=True)
    yaml.Composer = StrictComposer
    yaml.Constructor = StrictConstructor
    yaml.allow_duplicate_keys = False
    yaml.max_depth = 32
    _yaml_cache["load"] = yaml
    return yaml


def _ruamel_load(text: str) -> Any:
    """``text`` read by ruamel.yaml (imported here, as the hook's start-up needs); its errors as
    ``YamlProblem``."""
    from ruamel.yaml.error import MarkedYAMLError, YAMLError  # lazy: the pre-commit hook's start-up

    try:
        try:
            return _loader().load(text)
        except BaseException:
            # A failed load can leave the reused loader in a bad state (ruamel's composer keeps the
            # depth it had reached when "maximum depth exceeded" stopped it, so every later file
            # would fail too): start afresh.
            _yaml_cache.pop("load", None)
            raise
    except MarkedYAMLError as exc:
        raise _marked_problem(exc) from None
    except YAMLError as exc:
        raise YamlProblem(1, 1, _tidy(str(exc) or "invalid YAML")) from None
    except Exception as exc:  # ruamel fails on some odd inputs (a bare "-_"): still just bad YAML
        raise YamlProblem(1, 1, f"cannot be parsed as YAML ({type(exc).__name__})") from None


def _marked_problem(exc: Any) -> YamlProblem:
    """A ruamel error with a position, as a ``YamlProblem`` that quotes no value."""
    from ruamel.yaml.constructor import DuplicateKeyError  # lazy: the pre-commit hook's start-up

    mark = exc.problem_mark or exc.context_mark
    line, column = (mark.line + 1, mark.column + 1) if mark is not None else (1, 1)
    if isinstance(exc, DuplicateKeyError):
        # ruamel's message quotes both values, which may be secrets: name the key only.
        key = re.search(r'duplicate key "(.*?)"', str(exc.problem))
        if key:
            return YamlProblem(line, column, "duplicate key", key.group(1))
        message = "duplicate key"
    else:
        message = " ".join(str(part) for part in (exc.context, exc.problem) if part).strip()
    return YamlProblem(line, column, _tidy(message or "invalid YAML"))


def load(text: str) -> Document:
    """Parse ``text`` as one strict YAML mapping. Raises ``YamlProblem``.

    The simple YAML gitmem writes is read by ``yamlfast`` (same result, a fraction of the time: a
    cold read of a large store is mostly this); everything else, and every error, by ruamel.yaml."""
    fast = yamlfast.load(text)
    if fast is not None:
        return Document(*fast)
    root = _ruamel_load(text)
    if root is None:
        raise YamlProblem(1, 1, "the document is empty; expected a mapping of fields")
    if not isinstance(root, dict):
        kind = "a list" if isinstance(root, list) else "a single value"
        raise YamlProblem(1, 1, f"the document is {kind}; expected a mapping of fields")
    marks: dict[Path_, tuple[int, int]] = {}
    data = _plain(root, (), marks)
    assert isinstance(data, dict)
    return Document(data, marks)


def _tidy(message: str) -> str:
    return " ".join(message.replace('"<unicode string>"', "").split())


def _plain(node: Any, where: Path_, marks: dict[Path_, tuple[int, int]]) -> Any:
    """ruamel's round-trip types as plain Python data, recording each key's and item's position."""
    # lazy: the pre-commit hook's start-up
    from ruamel.yaml.comments import CommentedMap, CommentedSeq, TaggedScalar

    if isinstance(node, CommentedMap):
        out: dict[str, Any] = {}
        for key in node:
            line, col = node.lc.key(key)
            if not isinstance(key, str):
                raise YamlProblem(line + 1, col + 1, f"keys must be text, not {_kind_of(key)}")
            marks[(*where, key)] = (line + 1, col + 1)
            out[key] = _plain(node[key], (*where, key), marks)
        return out
    if isinstance(node, CommentedSeq):
        items = []
        for index, item in enumerate(node):
            line, col = node.lc.item(index)
            marks[(*where, index)] = (line + 1, col + 1)
            items.append(_plain(item, (*where, index), marks))
        return items
    if isinstance(node, TaggedScalar):
        line, col = marks.get(where, (1, 1))
        raise YamlProblem(line, col, "custom tags (!name) are not allowed")
    if node is None:
        return None
    plain = next((kind for kind in _SCALARS if isinstance(node, kind)), None)
    if plain is None:
        line, col = marks.get(where, (1, 1))
        raise YamlProblem(line, col, f"unsupported YAML value of type {type(node).__name__}")
    return plain(node)


# The scalars a file may hold, each read as its plain type (bool before int: a bool is an int).
_SCALARS: tuple[type, ...] = (bool, str, int, float)


_KINDS = (
    (bool, "true or false"),
    (int | float, "a number"),
    (type(None), "empty"),
    (tuple | list | dict, "a list or mapping"),
)


def _kind_of(value: Any) -> str:
    """What a value read from a file is, without quoting it (it may be a secret)."""
    return next((said for kind, said in _KINDS if isinstance(value, kind)), "such a value")


def _dumper() -> Any:
    if "dump" in _yaml_cache:
        return _yaml_cache["dump"]
    from ruamel.yaml import YAML  # lazy: the pre-commit hook's start-up

    yaml = YAML(typ="rt", pure=True)
    yaml.width = (
        4096  # never fold a line: a folded plain scalar leaves a trailing space, which hooks reject
    )
    yaml.indent(mapping=2, sequence=4, offset=2)
    yaml.preserve_quotes = True
    _yaml_cache["dump"] = yaml
    return yaml


_DATE = re.compile(r"\d{4}-\d{2}-\d{2}")
_FLOW_LISTS = frozenset({"paths", "tags", "supersedes", "targets"})


def _rich(value: Any, key: str = "") -> Any:
    """Plain data as ruamel types that dump canonically: block text for multi-line strings,
    short lists inline."""
    # lazy: the pre-commit hook's start-up
    from ruamel.yaml.comments import CommentedMap, CommentedSeq
    from ruamel.yaml.scalarstring import LiteralScalarString  # lazy: the pre-commit hook's start-up

    if isinstance(value, dict):
        mapping = CommentedMap()
        for k, v in value.items():
            mapping[k] = _rich(v, k)
        return mapping
    if isinstance(value, list | tuple):
        seq = CommentedSeq(_rich(item) for item in value)
        if key in _FLOW_LISTS and all(isinstance(item, str) for item in value):
            seq.fa.set_flow_style()
        return seq
    if not isinstance(value, str):
        return value
    if "\n" in value:
        # Trailing spaces would be kept verbatim in a block scalar, and the common
        # trailing-whitespace hook rejects them: gitmem writes none.
        text = "\n".join(line.rstrip(" \t") for line in value.split("\n"))
        return LiteralScalarString(text.removesuffix("\n") + "\n")  # one final newline at least
    if _DATE.fullmatch(value):
        with contextlib.suppress(ValueError):
            return date.fromisoformat(value)  # written as a plain YAML date, not a quoted string
    return value


def dump(data: dict[str, Any], header: str = "") -> str:
    """``data`` as canonical YAML text, after ``header`` (comment lines, each ending in a
    newline)."""
    stream = io.StringIO()
    stream.write(header)
    _dumper().dump(_rich(data), stream)
    return stream.getvalue()


def update(text: str, changes: dict[str, Any]) -> str:
    """``text`` with top-level fields set (or removed, for ``None``), keeping comments and key
    order."""
    from ruamel.yaml.comments import CommentedMap  # lazy: the pre-commit hook's start-up

    try:
        root = _dumper().load(text)
    except BaseException:
        _yaml_cache.pop(
            "dump", None
        )  # as in load(): a failed load must not leave the reused instance broken
        raise
    assert isinstance(root, CommentedMap)
    for key, value in changes.items():
        if value is None:
            root.pop(key, None)
        else:
            root[key] = _rich(value, key)
    stream = io.StringIO()
    _dumper().dump(root, stream)
    return stream.getvalue()


def load_plain(text: str) -> Any:
    """Another tool's YAML (e.g. .pre-commit-config.yaml) as plain data: anchors allowed, nothing
    kept for writing.

    Raises ``YamlProblem``.
    """
    from ruamel.yaml import YAML  # lazy: the pre-commit hook's start-up
    from ruamel.yaml.error import MarkedYAMLError  # lazy: the pre-commit hook's start-up

    try:
        return YAML(typ="safe", pure=True).load(text)
    except MarkedYAMLError as exc:
        mark = exc.problem_mark or exc.context_mark
        line, column = (mark.line + 1, mark.column + 1) if mark is not None else (1, 1)
        raise YamlProblem(line, column, _tidy(str(exc.problem or "invalid YAML"))) from None
    except Exception as exc:
        raise YamlProblem(1, 1, f"cannot be parsed as YAML ({type(exc).__name__})") from None
