"""The import rules of docs/architecture.md, checked on every module's imports (function-level imports included)."""

from __future__ import annotations

import ast
import re
from functools import cache
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parent.parent / "gitmem"
DOC = PACKAGE.parent / "docs" / "architecture.md"

# The command layer: the only modules that may import click and the commands.
COMMAND_LAYER = ("gitmem.commands", "gitmem.__main__")

# Each third-party dependency, and the one module that owns it.
OWNERS = {
    "ruamel": "gitmem.yamlio",
    "jsonschema": "gitmem.memory.schema",
    "git": "gitmem.git.history",  # GitPython
    "mcp": "gitmem.mcp.server",
    "sqlite3": "gitmem.recall.index",
    "ahocorasick_rs": "gitmem.scan.engine",  # ahocorasick-rs
    "re2": "gitmem.linear",  # google-re2
}

# The layers, bottom first: each folder of gitmem/ is one layer ("gitmem": the modules at its top).
# A module may import (at its top or inside a function) only modules of its own layer or of a layer
# below. docs/architecture.md draws the same list.
LAYERS: tuple[tuple[str, tuple[str, ...]], ...] = (
    (
        "primitives",
        ("gitmem",),
    ),  # errors, files, paths, YAML text, the tool records, git's command line
    ("scanner", ("scan",)),
    ("memory", ("memory",)),  # the model, its schema, the store and the config
    ("sources", ("recall", "scopes")),  # what the compiler and the hooks read besides the store
    ("compiler", ("compile",)),
    ("workflow", ("git", "journal", "hook")),
    ("features", ("checks", "mcp", "importing", "init")),
    ("commands", ("commands",)),
)
# Where Python looks for `python -m gitmem` (and the installed command's entry): the program, with
# the commands.
PROGRAM = "gitmem.__main__"


def folder_of(name: str) -> str:
    """The folder of gitmem/ that holds the module ``name`` ("gitmem": the top)."""
    parts = name.split(".")
    return parts[1] if len(parts) > 1 and (PACKAGE / parts[1]).is_dir() else "gitmem"


def layer_of(name: str) -> int | None:
    """The index in ``LAYERS`` of the module ``name`` (None: not a module of gitmem, or a folder
    without a layer)."""
    if not within(name, "gitmem"):
        return None
    folder = "commands" if name == PROGRAM else folder_of(name)
    return next((index for index, (_, folders) in enumerate(LAYERS) if folder in folders), None)


# The modules at the top of gitmem/ (described on the page as the shared modules).
SHARED = (
    "errors",
    "gateway",
    "globmatch",
    "project",
    "tools",
    "yamlio",
    "yamlfast",
    "markdown",
    "linear",
    "clientstores",
    "clientsettings",
    "gitcommand",
    "records",
)


def module_name(path: Path) -> str:
    parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


@cache
def imports() -> dict[str, set[str]]:
    """Every module of the package -> the absolute names it imports (``from a import b`` gives ``a.b`` when
    ``a.b`` is a module of the package, else ``a``)."""
    modules = {module_name(path): path for path in PACKAGE.rglob("*.py")}
    found: dict[str, set[str]] = {}
    for name, path in modules.items():
        names: set[str] = set()
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Import):
                names.update(alias.name for alias in node.names)
            elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
                for alias in node.names:
                    full = f"{node.module}.{alias.name}"
                    names.add(full if full in modules else node.module)
        found[name] = names
    return found


def within(name: str, prefix: str) -> bool:
    return name == prefix or name.startswith(prefix + ".")


def test_the_rules_see_the_imports() -> None:
    """The reader works: known imports, including one made inside a function, are found."""
    found = imports()
    assert "click" in found["gitmem.commands.cli"]
    assert (
        "gitmem.compile.compiler" in found["gitmem.commands.compile"]
    )  # imported inside the command function
    assert "gitmem.gitcommand" in found["gitmem.scan.inputs"]


def test_click_stays_in_the_command_layer() -> None:
    offenders = sorted(
        f"{module} imports {name}"
        for module, names in imports().items()
        if not any(within(module, layer) for layer in COMMAND_LAYER)
        for name in names
        if within(name, "click") or any(within(name, layer) for layer in COMMAND_LAYER)
    )
    assert offenders == []


@pytest.mark.parametrize("dependency", sorted(OWNERS))
def test_one_module_owns_each_dependency(dependency: str) -> None:
    users = sorted(
        module for module, names in imports().items() if any(within(n, dependency) for n in names)
    )
    assert users == [OWNERS[dependency]]


def test_every_module_has_a_layer() -> None:
    assert sorted(module for module in imports() if layer_of(module) is None) == []


def test_every_import_points_to_its_own_layer_or_below() -> None:
    offenders = sorted(
        f"{module} ({LAYERS[mine][0]}) imports {name} ({LAYERS[theirs][0]})"
        for module, names in imports().items()
        if (mine := layer_of(module)) is not None
        for name in names
        if (theirs := layer_of(name)) is not None and theirs > mine
    )
    assert offenders == []


def test_the_layer_rule_sees_an_upward_import() -> None:
    """The rule can fail: the scanner importing the config (which it once did) is an upward import."""
    scanner, memory = layer_of("gitmem.scan.inputs"), layer_of("gitmem.memory.config")
    assert scanner is not None and memory is not None and scanner < memory
    assert layer_of("gitmem.memory.schema") == layer_of("gitmem.memory.store") == memory
    assert layer_of("gitmem.__main__") == layer_of("gitmem.commands.cli") == len(LAYERS) - 1
    assert layer_of("gitmem.errors") == 0 and layer_of("click") is None


def test_the_page_draws_the_layers() -> None:
    """docs/architecture.md's table of layers lists the same folders, in the same order."""
    text = DOC.read_text(encoding="utf-8")
    table = text[text.index("| layer | folders |") :].split("\n\n", 1)[0].splitlines()[2:]
    drawn = [
        (row.split("|")[1].strip(), tuple(re.findall(r"`(\w+)/`", row.split("|")[2])))
        for row in table
    ]
    assert drawn == list(LAYERS)


def unit_of(name: str) -> str:
    """The package (or module at the top) of gitmem that holds the module ``name``."""
    folder = folder_of(name)
    return f"gitmem.{folder}" if folder != "gitmem" else name


def cycles(edges: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected parts of a graph with more than one node (Tarjan's algorithm)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    found: list[list[str]] = []
    for root in sorted(edges):
        if root in index:
            continue
        work = [(root, iter(sorted(edges.get(root, ()))))]
        index[root] = low[root] = len(index)
        stack.append(root)
        while work:
            node, children = work[-1]
            child = next(children, None)
            if child is not None:
                if child not in index:
                    index[child] = low[child] = len(index)
                    stack.append(child)
                    work.append((child, iter(sorted(edges.get(child, ())))))
                elif child in stack:
                    low[node] = min(low[node], index[child])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                part = stack[stack.index(node) :]
                del stack[stack.index(node) :]
                if len(part) > 1:
                    found.append(sorted(part))
    return found


def package_imports() -> dict[str, set[str]]:
    """Every package (or module at the top) of gitmem -> the others it imports (every import)."""
    modules = imports()
    edges: dict[str, set[str]] = {}
    for module, names in modules.items():
        for name in names:
            if name in modules and name != "gitmem" and unit_of(name) != unit_of(module):
                edges.setdefault(unit_of(module), set()).add(unit_of(name))
    return edges


def test_no_two_packages_import_each_other() -> None:
    """No cycle between packages, imports inside functions and under TYPE_CHECKING counted."""
    assert cycles(package_imports()) == []


def test_the_cycle_finder_finds_cycles() -> None:
    assert cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]
    assert cycles({"a": {"b"}, "b": set()}) == []


# Imports inside a function hide what a module depends on: they are kept only where a hook's
# start-up (or an optional dependency) needs them, each saying why in a comment on its line or the
# line above. Those that say nothing yet are counted, and the count may only go down (6dd9a58: 352
# of 1,300 imports inside functions, none explained).
UNEXPLAINED_FUNCTION_IMPORTS = 0


def function_imports() -> list[tuple[str, int, bool]]:
    """Every import made inside a function: (module, line, whether a comment says why)."""
    found = []
    for path in sorted(PACKAGE.rglob("*.py")):
        lines = path.read_text(encoding="utf-8").splitlines()
        tree = ast.parse("\n".join(lines))
        for function in ast.walk(tree):
            if not isinstance(function, ast.FunctionDef | ast.AsyncFunctionDef):
                continue
            for node in ast.walk(function):
                if isinstance(node, ast.Import | ast.ImportFrom):
                    text = lines[node.lineno - 2 : node.end_lineno]
                    said = "#" in "".join(text[1:]) or text[0].strip().startswith("#")
                    found.append((module_name(path), node.lineno, said))
    return sorted(set(found))


def test_imports_inside_functions_say_why() -> None:
    unexplained = [f"{module}:{line}" for module, line, said in function_imports() if not said]
    assert len(unexplained) <= UNEXPLAINED_FUNCTION_IMPORTS, unexplained


def test_the_function_import_reader_works() -> None:
    found = {(module, said) for module, _, said in function_imports()}
    assert ("gitmem.commands", True) in found  # open_store's store: not on the scan hook's path
    assert all(module != "gitmem.commands.add" for module, _ in found)  # all at its head


# The prompt hook's modules (run by AI clients on every prompt): nothing slow to import.
HOOK_PATH = (
    "gitmem.__main__",
    "gitmem.hook.run",
    "gitmem.hook.inject",
    "gitmem.hook.state",
    "gitmem.hook.pretool",
    "gitmem.hook.shell",
    "gitmem.hook.receipts",
    "gitmem.hook.payload",
)
SLOW = (
    "click",
    "git",
    "jsonschema",
    "ruamel",
    "gitmem.yamlio",
    "gitmem.memory.schema",
    "gitmem.memory.store",
    "gitmem.commands.cli",
)

# Every module the two hooks import, and what none of them may import when it is imported (inside a function, only
# where that function runs: the hook's processes below check what is really loaded). Each of these standard modules
# costs more to import than a typical commit costs to scan.
PROMPT_HOOK_MODULES = (
    "gitmem",
    "gitmem.__main__",
    "gitmem.records",
    "gitmem.errors",
    "gitmem.project",
    "gitmem.gateway",
    "gitmem.globmatch",
    "gitmem.memory",
    "gitmem.memory.model",
    "gitmem.memory.cache",
    "gitmem.recall",
    "gitmem.recall.files",
    "gitmem.recall.globs",
    "gitmem.recall.index",
    "gitmem.recall.results",
    "gitmem.hook",
    "gitmem.hook.clients",
    "gitmem.hook.inject",
    "gitmem.hook.run",
    "gitmem.hook.state",
    "gitmem.hook.status",
    "gitmem.hook.pretool",
    "gitmem.hook.shell",
    "gitmem.hook.receipts",
    "gitmem.hook.payload",
    "gitmem.clientstores",
)
SCAN_HOOK_MODULES = (
    "gitmem",
    "gitmem.__main__",
    "gitmem.records",
    "gitmem.errors",
    "gitmem.gateway",
    "gitmem.project",
    "gitmem.commands",
    "gitmem.commands.scanhook",
    "gitmem.git",
    "gitmem.gitcommand",
    "gitmem.scan",
    "gitmem.scan.decode",
    "gitmem.scan.engine",
    "gitmem.scan.filters",
    "gitmem.scan.kinds",
    "gitmem.scan.lazyre",
    "gitmem.scan.rules",
    "gitmem.scan.inputs",
    "gitmem.scan.transcripts",
    "gitmem.scan.unicode",
)
# The hooks' records are NamedTuples or plain classes: dataclasses (it imports inspect) costs more than their work.
SLOW_AT_IMPORT = (
    *SLOW,
    "gitmem.memory.config",
    "subprocess",
    "tempfile",
    "unicodedata",
    "base64",
    "dataclasses",
    "inspect",
)
SCAN_SLOW_AT_IMPORT = (
    *SLOW_AT_IMPORT,
    "hashlib",
    "sqlite3",
    "datetime",
    "gitmem.memory",
    "gitmem.recall",
)


def test_the_prompt_hook_imports_nothing_slow() -> None:
    offenders = sorted(
        f"{module} imports {name}"
        for module in HOOK_PATH
        for name in imports()[module]
        if any(within(name, slow) for slow in SLOW)
        and not (module == "gitmem.__main__" and name == "gitmem.commands.cli")
    )
    assert offenders == []


def module_level_imports(module: str) -> set[str]:
    """What importing ``module`` imports: its top-level import statements (``if TYPE_CHECKING:`` blocks aside)."""
    path = PACKAGE.parent / (module.replace(".", "/") + ".py")
    if not path.exists():
        path = PACKAGE.parent / module.replace(".", "/") / "__init__.py"
    names: set[str] = set()
    for node in ast.parse(path.read_text(encoding="utf-8")).body:
        if isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            names.update(f"{node.module}.{alias.name}" for alias in node.names)
    return names


@pytest.mark.parametrize(
    ("modules", "slow"),
    [(PROMPT_HOOK_MODULES, SLOW_AT_IMPORT), (SCAN_HOOK_MODULES, SCAN_SLOW_AT_IMPORT)],
    ids=["prompt hook", "scan hook"],
)
def test_the_hooks_modules_import_nothing_slow_when_imported(
    modules: tuple[str, ...], slow: tuple[str, ...]
) -> None:
    offenders = sorted(
        f"{module} imports {name}"
        for module in modules
        for name in module_level_imports(module)
        if any(within(name, heavy) for heavy in slow)
    )
    assert offenders == []


def test_the_reader_of_module_level_imports_works() -> None:
    assert "click" in module_level_imports("gitmem.commands.cli")
    assert "gitmem.scan.engine.Finding" in module_level_imports("gitmem.scan.inputs")
    assert not any(
        within(name, "gitmem.scan.unicode") for name in module_level_imports("gitmem.scan.engine")
    )
    assert not any(
        within(name, "subprocess") for name in module_level_imports("gitmem.gitcommand")
    )  # in functions


def test_the_page_describes_every_package() -> None:
    text = DOC.read_text(encoding="utf-8")
    described = set(re.findall(r"\*\*`(\w+)/`\*\*", text))
    packages = {path.parent.name for path in PACKAGE.glob("*/__init__.py")}
    assert packages == described
    top = {path.stem for path in PACKAGE.glob("*.py")} - {"__init__", "__main__", "cli"}
    assert top == set(SHARED)


def test_the_core_never_prints_or_exits() -> None:
    """Output and exit codes belong to the command layer: the core returns values and raises gitmem's errors."""
    offenders = []
    for path in PACKAGE.rglob("*.py"):
        module = module_name(path)
        if any(within(module, layer) for layer in COMMAND_LAYER):
            continue
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if (
                isinstance(node, ast.Call)
                and isinstance(node.func, ast.Name)
                and node.func.id in ("print", "exit")
            ):
                offenders.append(f"{module}:{node.lineno}: {node.func.id}()")
            if (
                isinstance(node, ast.Attribute)
                and isinstance(node.value, ast.Name)
                and node.value.id == "sys"
                and node.attr in ("exit", "stdout", "stderr")
            ):
                offenders.append(f"{module}:{node.lineno}: sys.{node.attr}")
    assert offenders == []


def test_the_repository_root_holds_only_the_project_s_own_entries() -> None:
    """A file a shell redirect left at the root (``null``, a listing of the workplace's snapshots,
    committed in round 57 with a scanner change) is no part of the project: the root's tracked
    entries are these, and a new one is added here on purpose."""
    import subprocess

    root = Path(__file__).resolve().parent.parent
    if not (root / ".git").exists():
        pytest.skip("not a git checkout")
    tracked = subprocess.run(
        ["git", "ls-files"], cwd=root, capture_output=True, text=True, check=True
    ).stdout.split("\n")
    entries = {path.split("/", 1)[0] for path in tracked if path}
    assert entries == {
        ".ci",
        ".gitignore",
        ".pre-commit-config.yaml",
        ".pre-commit-hooks.yaml",
        "README.md",
        "benchmarks",
        "docs",
        "gitmem",
        "hooks",
        "pyproject.toml",
        "schema",
        "tests",
    }
