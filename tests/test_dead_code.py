"""No definition in gitmem that nothing uses (issue 34: "less, not smaller pieces").

Every function, class, method and module-level name defined in ``gitmem/`` must be named somewhere
else: in gitmem, its tests, its benchmarks or hooks (an identifier, an attribute, an import, or a
string such as ``getattr``'s or the command table's ``module:function``). Exempt are what a
framework calls by itself: decorated functions (click registers its commands), methods a base class
declares (``click.Group.get_command``, ``__repr__``), dunder names. As vulture does, a name counts
as used wherever that identifier appears: two definitions sharing one name hold each other up, which
errs on the side of keeping."""

from __future__ import annotations

import ast
import importlib
import re
from collections.abc import Iterator
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PACKAGE = ROOT / "gitmem"
USERS = (PACKAGE, ROOT / "tests", ROOT / "benchmarks", ROOT / "hooks", ROOT / "schema")
_WORD = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


def _names_used(tree: ast.AST) -> Iterator[str]:
    for node in ast.walk(tree):
        if isinstance(node, ast.Name) and not isinstance(node.ctx, ast.Store):
            yield node.id
        elif isinstance(node, ast.Attribute):
            yield node.attr
        elif isinstance(node, ast.alias):
            yield from node.name.split(".")
        elif (
            isinstance(node, ast.Constant) and isinstance(node.value, str) and " " not in node.value
        ):
            yield from _WORD.findall(
                node.value
            )  # names (getattr's, the command table's), not prose


def _used() -> set[str]:
    used: set[str] = set()
    for folder in USERS:
        for path in folder.rglob("*.py"):
            if ".clients" not in path.parts:
                used.update(_names_used(ast.parse(path.read_text(encoding="utf-8"))))
    return used


def _module(path: Path) -> str:
    parts = path.relative_to(ROOT).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _overrides(module: str, cls: str, name: str) -> bool:
    """Whether a base class of ``module.cls`` declares ``name`` (a framework calls it)."""
    owner = getattr(importlib.import_module(module), cls)
    return any(name in vars(base) for base in owner.__mro__[1:])


def _definitions() -> Iterator[tuple[str, str, str | None, str]]:
    """(where, module, class or None, name) of every definition that a framework does not call."""
    for path in sorted(PACKAGE.rglob("*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        module = _module(path)
        for node in tree.body:
            where = f"{path.relative_to(ROOT)}:{node.lineno}"
            definition = isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef)
            if definition and not node.decorator_list:
                yield where, module, None, node.name
            if isinstance(node, ast.ClassDef):
                for item in node.body:
                    if isinstance(item, ast.FunctionDef) and not item.decorator_list:
                        yield (
                            f"{path.relative_to(ROOT)}:{item.lineno}",
                            module,
                            node.name,
                            item.name,
                        )
            targets = (
                node.targets
                if isinstance(node, ast.Assign)
                else [node.target]
                if isinstance(node, ast.AnnAssign)
                else []
            )
            for target in targets:
                if isinstance(target, ast.Name):
                    yield where, module, None, target.id


def test_every_definition_is_used_somewhere() -> None:
    used = _used()
    dead = [
        f"{where}: {f'{cls}.' if cls else ''}{name}"
        for where, module, cls, name in _definitions()
        if not (name.startswith("__") and name.endswith("__"))
        and name not in used
        and not (cls and _overrides(module, cls, name))
    ]
    assert not dead, "defined, used nowhere (remove, or use):\n" + "\n".join(dead)


def test_no_module_defines_a_name_twice() -> None:
    """A module-level name given a second value further down silently replaces the first for
    every use above it too: round 36's ``_CREDENTIAL_WORDS`` (a tuple of the words a stand-in
    password spells) took the name of the frozenset a name's words are judged by, and a Basic
    header's password holding "key" stopped being found."""
    twice = []
    for path in PACKAGE.rglob("*.py"):
        seen: set[str] = set()
        for node in ast.parse(path.read_text(encoding="utf-8")).body:
            if isinstance(node, ast.Assign):
                names = [t.id for t in node.targets if isinstance(t, ast.Name)]
            elif isinstance(node, ast.AnnAssign) and node.value is not None:
                names = [node.target.id] if isinstance(node.target, ast.Name) else []
            elif isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
                names = [node.name]
            else:
                continue
            twice += [f"{path.relative_to(ROOT)}: {name}" for name in names if name in seen]
            seen.update(names)
    assert twice == []
