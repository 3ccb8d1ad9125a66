"""The tool records (gitmem/tools.py): consistent, the only place a tool is named, and the source of every table."""

from __future__ import annotations

import ast
import importlib.util
import json
from pathlib import Path
from types import ModuleType

import pytest

from gitmem import tools
from gitmem.tools import BY_NAME, EVENTS, FALLBACK, FORMATS, READ_KINDS, TARGET_NAMES, TOOLS

ROOT = Path(__file__).resolve().parent.parent
PACKAGE = ROOT / "gitmem"


def _generator() -> ModuleType:
    spec = importlib.util.spec_from_file_location(
        "schema_generate", ROOT / "schema" / "generate.py"
    )
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_a_tools_name_is_written_in_at_most_two_modules() -> None:
    """Code asks a record's fields, not a tool's name: a name as a string literal in a third module is a table or a
    special case the records should hold."""
    names = {tool.name for tool in TOOLS}
    where: dict[str, set[str]] = {}
    for path in PACKAGE.rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if (
                isinstance(node, ast.Constant)
                and isinstance(node.value, str)
                and node.value in names
            ):
                where.setdefault(node.value, set()).add(path.relative_to(ROOT).as_posix())
    spread = {name: sorted(modules) for name, modules in where.items() if len(modules) > 2}
    assert spread == {}


@pytest.mark.parametrize("folder", ["schema", "gitmem/schemas"])
@pytest.mark.parametrize("name", ["config.schema.json", "memory.schema.json"])
def test_the_committed_schemas_enums_are_the_records(folder: str, name: str) -> None:
    """`python schema/generate.py` writes the schemas' target names from the records: the committed files are
    current."""
    text = (ROOT / folder / name).read_text(encoding="utf-8")
    assert _generator().render(name, text) == text


def test_the_schema_generator_rewrites_a_stale_enum_in_place() -> None:
    """A schema with names missing (one-line and one-item-a-line enums) gets every record's name back, and only
    that: the committed text."""
    generate = _generator()
    for name in ("config.schema.json", "memory.schema.json"):
        current = (ROOT / "schema" / name).read_text(encoding="utf-8")
        enum = json.loads(current)["properties"]["targets"]["items"]["enum"]
        stale = current.replace(json.dumps(enum), json.dumps(enum[:2]))
        if stale == current:  # one item a line
            lines = ",\n".join(f'          "{n}"' for n in enum)
            stale = current.replace(lines, ",\n".join(f'          "{n}"' for n in enum[:2]))
        assert stale != current
        assert generate.render(name, stale) == current


def test_every_record_is_consistent() -> None:
    names = [tool.name for tool in TOOLS]
    assert len(names) == len(set(names))
    for tool in TOOLS:
        assert tool.doc.startswith("https://"), tool.name
        assert tool.checked, tool.name
        if (
            tool.retired is not None
        ):  # gone: only what replaces it and the files gitmem once wrote for it
            assert tool.retired.replacement in TARGET_NAMES, tool.name
            assert not (
                tool.reads or tool.detect or tool.formats or tool.hooks or tool.commands or tool.mcp
            )
            continue
        if tool.target is not None:
            assert tool.target.name == tool.name
            assert tool.serves == tool.name
            assert tool.detect, f"{tool.name}: init cannot detect it"
            assert tool.formats, f"{tool.name}: import cannot read its files"
        if tool.reads:
            assert tool.serves in TARGET_NAMES, tool.name
        for read in tool.reads:
            assert read.target in TARGET_NAMES and read.how in READ_KINDS, (tool.name, read)
            assert (read.unless is not None) == (read.how == FALLBACK), (tool.name, read)
        if tool.hooks is not None:
            assert {event for event, _ in tool.hooks.events} <= set(EVENTS), tool.name
            assert tool.hooks.rules_files, tool.name
        assert set(tool.hooks_for) <= set(TARGET_NAMES), tool.name


def test_each_formats_scope_has_a_reader() -> None:
    """A record's ``Format.scope`` names how import reads its frontmatter: a scope no reader knows would silently
    make every rule of that tool a whole-project one."""
    from gitmem.importing.rulesfiles import _SCOPES

    assert {fmt.scope for fmt in FORMATS} - {"none"} <= set(_SCOPES)


def test_each_format_reads_a_file_where_import_discovers_it() -> None:
    """Every format's discovery globs find files that the format reads (a glob with no format would read nothing)."""
    from gitmem.importing.rulesfiles import format_of

    for fmt in FORMATS:
        assert fmt.discover, fmt.label
        for glob in fmt.discover:
            sample = glob.replace("**/", "").replace("/**", "/sub").replace("*", "rule")
            assert format_of(sample) == fmt, (fmt.label, sample)
            if glob.startswith("**/"):
                assert format_of(f"web/{sample}") == fmt, (fmt.label, glob)


@pytest.mark.parametrize("name", TARGET_NAMES)
def test_init_detects_each_target_from_its_detect_files(tmp_path: Path, name: str) -> None:
    from gitmem.init.initialise import detect_targets

    for relative in BY_NAME[name].detect:
        root = tmp_path / relative.replace("/", "_").replace("*", "x")
        path = root / relative.replace("*", "rules")
        if relative.endswith("/"):
            path.mkdir(parents=True)
        else:
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text("# Rules\n- Use pnpm.\n", encoding="utf-8")
        assert name in detect_targets(root), relative


def test_every_table_is_derived_from_the_records() -> None:
    from gitmem.compile.readers import READERS
    from gitmem.hook import clients
    from gitmem.init import agent_hooks, mcp, remember
    from gitmem.memory.config import DEFAULT_TARGETS
    from gitmem.memory.config import TARGET_NAMES as CONFIG_NAMES

    assert CONFIG_NAMES is tools.TARGET_NAMES and DEFAULT_TARGETS is tools.DEFAULT_TARGETS
    assert not (
        PACKAGE / "compile" / "targets.py"
    ).exists()  # the targets are the records' (gitmem/tools.py)
    # compile's readers are the records' readers as compile reads them (``readers._reader``), one for one
    assert [(r.name, r.own, r.private) for r in READERS] == [
        (t.name, t.serves, t.private) for t in tools.READERS
    ]
    assert clients.CLIENTS is tools.CLIENTS
    assert not hasattr(clients, "FOR_TARGET") and not hasattr(agent_hooks, "FOR_TARGET")
    assert not hasattr(remember, "COMMANDS")
    assert [client.tool for client in mcp.CLIENTS] == [
        tool.title for tool in TOOLS if tool.mcp is not None
    ]
