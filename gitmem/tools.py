"""Every AI tool gitmem knows, as data: ONE record per tool, and every other table derives from
these records.

A record says what gitmem knows of one tool: the files it reads and how (``reads``), how to
recognise it in a repository (``detect``), the rules files gitmem compiles for it (``target``) and
how ``gitmem import`` reads its files (``formats``), its limits (in ``target``), its session hooks
(``hooks``), its custom-command folder (``commands``), its MCP configuration (``mcp``), where it
keeps its transcripts (``transcripts``) and its own memories (``memory``: ``gitmem import --from``),
and the documentation and version each fact was checked against (``doc``, ``checked``; the
sub-records carry their own ``doc`` or ``source`` where a fact came from elsewhere). docs/clients.md
tells what was measured.

Adding a tool is one record plus its tests: the config's target names, ``gitmem init``'s detection,
import's formats and ranks, compile's targets, the duplicate warnings, the session hooks,
``/remember``, ``init --mcp``, ``scan --log`` and both JSON schemas' enums (``schema/generate.py``)
are all read from here. A tool's name is written as a string in this module and at most one other
(``tests/test_tools.py`` checks it): code asks a record's fields, never a name.

Records are NamedTuples, not dataclasses: the prompt hook and the pre-commit hook read them, and
importing dataclasses costs those processes more than their own work (docs/architecture.md).

How a target places a memory (``compile/scoping.py`` reads these fields):

- no ``paths``: the target's ``root_file``;
- ``paths`` that are all directory globs (``web/**``) and a ``dir_file``: that file in each
  directory (``web/AGENTS.md``);
- other ``paths`` and a ``scoped_dir``: a file of that folder per set of globs, named
  ``gitmem-<slug><suffix>``, whose frontmatter carries the globs natively;
- otherwise: the root file, under a heading that names the globs.

Frontmatter lines are templates. Placeholders, filled from a file's globs by
``compile/render.frontmatter``: ``{csv}`` globs joined by commas, unquoted (Cursor's own parser is
not YAML: it wants no quotes and no brackets); ``{csv_quoted}`` the same as one double-quoted YAML
string; ``{list}`` a YAML block list of double-quoted globs; ``{pattern}`` one double-quoted glob,
or a flow list of them when there are several; ``{description}`` a double-quoted sentence naming the
globs. Brace patterns (``*.{ts,tsx}``) are expanded for the comma-separated forms, where their comma
would split the glob.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Literal

from gitmem.records import Record

# Names of the files gitmem creates whole start with this, so cleaning up never touches anyone
# else's file.
WHOLE_PREFIX = "gitmem"
# What `compile --user` writes into a tool's user-level rules folder.
USER_FOLDER_FILE = f"{WHOLE_PREFIX}.md"

# gitmem's session events (``Hooks.events`` maps them to the client's own names).
PROMPT = "prompt"
START = "session-start"
STOP = "stop"
PRE_TOOL = "pre-tool"  # before a tool call runs: refuse what an active memory's ``enforce`` forbids
EVENTS = (PROMPT, START, STOP, PRE_TOOL)

# How a tool reads a target's files (``Read.how``): ``READS`` below.
ReadKind = Literal["always", "by-path", "fallback", "imports"]
# the root file at start (and the nested files of the start directory where the target has them)
ALWAYS: ReadKind = "always"
# only the target's path-scoped files (its ``scoped_dir``), when gitmem writes some
BY_PATH: ReadKind = "by-path"
FALLBACK: ReadKind = "fallback"  # only where the root file of ``Read.unless`` does not exist
# through an ``@FILE`` import in the tool's own root file (not counted as a read)
IMPORTS: ReadKind = "imports"

# The kinds of behaviour the records name, each a Literal: mypy refuses a misspelt one in a record
# or a comparison, and each has one interpreter table, keyed by exactly these names
# (tests/test_kinds.py holds both).
Measure = Literal["chars", "lines", "chain_bytes"]  # ``Limit.measure``: ``MEASURES`` below
# ``Format.scope``: importing/rulesfiles.py's ``_SCOPES``
ScopeKind = Literal[
    "directory",
    "paths",
    "applyTo",
    "always-apply",
    "always-apply-or-globs",
    "trigger",
    "inclusion",
    "type",
    "folder",
    "none",
]
# ``Hooks.output``: hook/run.py's ``ANSWERS``
HookOutput = Literal["hookSpecificOutput", "additionalContext", "additional_context", "plain"]
# ``Hooks.deny``: hook/pretool.py's ``DENY``
DenyShape = Literal["hookSpecificOutput", "permissionDecision", "decision", "permission", "plain"]
CommandStyle = Literal["markdown", "toml", "plain"]  # ``Commands.style``: init/remember.py's TEXTS
McpShape = Literal["mcp", "workspace", "trust", "stdio"]  # ``Mcp.shape``: init/mcp.py's SHAPES
# ``Transcripts.layout``: scan/transcripts.py's ``FINDERS``
TranscriptLayout = Literal["slug", "rollout", "tmp", "storage"]
# ``MemoryStore.layout``: clientstores.py's ``LAYOUTS``
StoreLayout = Literal["auto-memory", "git-root-memory", "registry", "task-groups"]
READ_KINDS = (ALWAYS, BY_PATH, FALLBACK, IMPORTS)


class Reading(Record):
    """What a ``Read.how`` means for the target read (``READS``)."""

    reads: bool  # the tool reads the target's files itself, wherever they are
    fallback: bool  # only where the root file of ``Read.unless`` does not exist
    imported: bool  # through an ``@FILE`` import in the tool's own root file


READS: dict[ReadKind, Reading] = {
    ALWAYS: Reading(reads=True, fallback=False, imported=False),
    BY_PATH: Reading(reads=True, fallback=False, imported=False),
    FALLBACK: Reading(reads=False, fallback=True, imported=False),
    IMPORTS: Reading(reads=False, fallback=False, imported=True),
}


class UserFile(Record):
    """A tool's user-level rules file, which `gitmem compile --user` writes the personal memories
    into.

    ``path`` starts with ``~/`` (``~/.config/`` stands for ``$XDG_CONFIG_HOME/``); one ending in
    ``/`` is a folder of rules files, where gitmem writes a whole file of its own. ``installed`` is
    the directory that exists when the tool is installed: without ``targets`` in the user's config,
    compile --user writes the files whose ``installed`` directory exists.
    """

    path: str
    tool: str
    installed: str

    @property
    def folder(self) -> bool:
        return self.path.endswith("/")


class Limit(Record):
    """A size past which a tool truncates or warns.

    ``measure``: ``chars`` or ``lines`` of one file (hand-written text included: the tool reads it
    all), or ``chain_bytes``: the bytes of the root file plus the nested files on the way down to a
    directory (Codex joins them). A ``hard`` limit is where the tool cuts silently: compiling past
    it is an error. A soft one warns. ``client``: the record name of the one client that has it
    when the others reading the same files do not (Codex's chain, not opencode's or Qwen Code's).
    """

    measure: Measure
    value: int
    hard: bool
    reason: str
    client: str = ""


def _lines(text: str) -> int:
    return text.count("\n") + (0 if text.endswith("\n") or not text else 1)


class Measuring(Record):
    """What a ``Limit.measure`` means: how it counts a file, the unit a message names, and what
    compile and import do with a limit of it."""

    noun: str  # what a file's size is counted in
    count: Callable[[str], int]
    chain: bool
    """The limit is on the root file and the nested files on the way down to a folder, summed (the
    AGENTS.md chain Codex joins), not on one file."""
    lines: bool
    """Counted in lines: no token budget maps to it, so compile cannot fit gitmem's block within it
    by lowering the budget (it warns instead)."""

    @property
    def unit(self) -> str:
        return self.noun + (" with the AGENTS.md files above it" if self.chain else "")

    @property
    def room(self) -> bool:
        """A size the hand-written text eats into, beside which compile fits gitmem's block by
        lowering its budget (and the index's share)."""
        return not self.lines


MEASURES: dict[Measure, Measuring] = {
    "chars": Measuring("characters", len, chain=False, lines=False),
    "lines": Measuring("lines", _lines, chain=False, lines=True),
    "chain_bytes": Measuring(
        "bytes", lambda text: len(text.encode("utf-8")), chain=True, lines=False
    ),
}


class Target(Record):
    """The rules files gitmem compiles for a tool (``name`` is the record's name, the target
    name of config.yaml)."""

    name: str
    tool: str
    doc: str
    root_file: str
    """Always-loaded file, relative to the repository root."""
    root_whole: bool
    """True: gitmem creates the file whole. False: gitmem owns only a managed block in it."""
    root_frontmatter: tuple[str, ...] = ()
    """Frontmatter lines of a whole root file (no placeholders)."""
    dir_file: str | None = None
    """File name loaded per directory, for memories whose globs are all directory globs."""
    scoped_dir: str | None = None
    """Folder of glob-scoped files gitmem creates whole."""
    scoped_suffix: str = ".md"
    scoped_frontmatter: tuple[str, ...] = ()
    limits: tuple[Limit, ...] = ()
    user_files: tuple[UserFile, ...] = ()
    """The tool's user-level rules files, for `compile --user`."""
    reads_config: str | None = None
    """A YAML config file whose `read:` list must name the root file (aider)."""
    always_frontmatter: tuple[str, ...] | None = None
    """Frontmatter that makes a whole file of ``scoped_dir`` load at every start (Claude Code: a
    .claude/rules file without ``paths``; Copilot: ``applyTo: "**"``): where compile puts the root
    memories when the root file is a link to a document for people (``CLAUDE.md ->
    CONTRIBUTING.md``). ``None``: the tool has no such file.
    """
    personal: bool = False
    """A user-level variant (``compile.targets.user_variant``): ``root_file`` is relative to the
    home directory."""
    imports: str = ""
    """A bridge (``compile.delivery``): the root file and each nested one import this file of
    their folder."""


class Format(Record):
    """How ``gitmem import`` reads one kind of the tool's rules files, and the scope its frontmatter
    gives them.

    A file is of this format when its name is one of ``names`` (in any directory), its path one of
    ``paths``, or it sits in ``folder`` (at the root, or nested in a directory unless ``root_only``)
    and ends in one of ``suffixes``. ``scope`` names how its scope is written
    (``importing/rulesfiles.scope_of``): ``directory`` (the file's directory), ``paths``
    (``paths:``/``globs:``), ``applyTo``, ``always-apply`` (``alwaysApply``/``globs``/
    ``description``), ``always-apply-or-globs`` (the same, but no field at all means always),
    ``trigger``, ``inclusion``, ``type``, ``folder`` (the folder's directory) or ``none`` (the whole
    project).
    """

    label: str  # what the import report calls it
    scope: ScopeKind
    rank: int
    """The order files are read in: what a team most likely wrote first keeps the memory when
    two say the same."""
    names: tuple[str, ...] = ()
    paths: tuple[str, ...] = ()
    folder: str | None = None
    suffixes: tuple[str, ...] = (".md",)
    root_only: bool = False
    discover: tuple[str, ...] = ()
    """git pathspec globs: where ``gitmem import`` looks for these files when no PATH is given."""
    home: str | None = None
    """A folder whose directory-scoped file belongs to the folder's parent
    (``.claude/CLAUDE.md``)."""
    ignore: tuple[tuple[str, str], ...] = ()
    """Sub-folders of ``folder`` that hold no rules, and why (``(folder, reason)``)."""
    tool: str = ""  # the record's name (filled in by ``FORMATS``)


class Read(Record):
    """A gitmem target whose files the tool reads, and how (one of ``READ_KINDS``)."""

    target: str
    how: ReadKind = ALWAYS
    unless: str | None = (
        None  # FALLBACK: the target whose root file, where it exists, is read instead
    )


class Hooks(Record):
    """The tool's session-hook mechanism (``gitmem hook``, ``init --agent-hooks``);
    ``session.clients`` hands these out as its clients, named."""

    tool: str
    doc: str
    rules_files: tuple[str, ...]
    """Files under the repository root the client always loads: what they hold is never injected
    again."""
    user_rules_files: tuple[str, ...] = ()
    """The client's user-level rules files (``~/``-relative): personal memories compiled there
    are loaded."""
    events: tuple[tuple[str, str], ...] = ()
    """gitmem's event -> the client's event name, for the events the client has."""
    output: HookOutput = "hookSpecificOutput"
    """How the client reads a hook's answer: ``hookSpecificOutput`` (JSON
    ``hookSpecificOutput.additionalContext``, Stop as ``{"decision": "block"}``),
    ``additionalContext`` (the same, with ``additionalContext`` at the top level too),
    ``additional_context`` (only ``{"additional_context": ...}``), ``plain`` (the text itself, for
    gitmem's own plugin).
    """
    settings: str | None = None
    """The project file gitmem's hook entries go into (``init --agent-hooks``); ``None``: a
    plugin or nothing."""
    fallback_files: tuple[str, ...] = ()
    """What the client loads instead when none of ``rules_files`` exists (measured for issue 16)."""
    user_settings: str | None = None
    """``settings`` in the home directory (``--user``), when it is not the same relative path."""
    flat: bool = False
    """The settings' hooks are ``{"version": 1, "hooks": {EVENT: [{"command": ...}]}}``, entries
    straight under the event (Cursor's hooks.json), not Claude Code's groups of ``{"hooks":
    [...]}``.
    """
    own_file: bool = False
    """``settings`` is a hooks file of gitmem's own (``{"version": 1, "hooks": ...}``, commands as
    ``bash``), not entries merged into the client's settings."""
    timeout_scale: int = 1
    """The client's hook timeouts are in seconds times this (1000: milliseconds; 0: none written,
    the client's own default holds)."""
    matcher: str | None = None
    """The ``matcher`` of gitmem's hook groups, for a client that wants one (``*``: every tool)."""
    named_entries: bool = False
    """Each hook entry carries a ``name``."""
    plugin: str | None = None
    """gitmem's plugin file (project-relative), for a client whose hooks are a plugin."""
    user_plugin: str | None = None
    """The plugin file relative to the home directory (``--user``)."""
    detect_events: tuple[str, ...] = ()
    """Payload event names only this client sends (how ``gitmem hook`` without ``--client``
    knows it)."""
    session_key: str = "session_id"
    """The key that names the session in the client's payloads."""
    deny: DenyShape = "hookSpecificOutput"
    """How the client reads a pre-tool hook's refusal: ``hookSpecificOutput`` (``permissionDecision:
    deny`` and its reason under ``hookSpecificOutput``), ``permissionDecision`` (the same at the top
    level), ``decision`` (``{"decision": "deny", "reason": ...}``), ``permission`` (Cursor's
    ``permission``/``agent_message``), ``plain`` (the text: gitmem's plugin throws it)."""
    name: str = ""
    """The record's name (filled in by ``CLIENTS``)."""

    def event_name(self, event: str) -> str | None:
        return dict(self.events).get(event)


class Commands(Record):
    """Where the tool reads custom commands (gitmem's ``/remember``), and in what format."""

    project: str | None  # relative to the repository root; None: per user only
    user: str | None  # relative to the home directory
    # "markdown" (frontmatter with a description), "toml" (description and prompt), "plain" (the
    # text)
    style: CommandStyle
    frontmatter: str = ""  # extra frontmatter lines of the markdown style


class Mcp(Record):
    """The tool's project-level MCP configuration (``init --mcp``)."""

    files: tuple[str, ...]  # candidate files: the first existing one is used (else the first)
    shape: McpShape
    """``mcp`` (servers under ``mcp``, a ``local`` command list), ``workspace`` (``--repo
    ${workspaceFolder}``), ``trust`` (``trust: true``: the client cannot ask in ``-p`` mode),
    ``stdio`` (a plain stdio server).
    """


class NamesSetting(Record):
    """A project setting that names the rules files the tool reads (Gemini CLI's
    ``context.fileName`` in ``.gemini/settings.json``: a name or a list of names). A name that is
    another target's root file (``AGENTS.md``) makes the tool a reader of that target's files in
    this project (``compile.delivery``).
    """

    file: str  # under the repository root
    key: tuple[str, ...]  # the JSON keys down to the value
    checked: str


class Transcripts(Record):
    """Where the tool keeps its session transcripts (``gitmem scan --log NAME --user``).

    ``layout``: ``slug`` (``BASE/projects/<project path, non-alphanumerics as "-">/*.jsonl``),
    ``rollout`` (``BASE/sessions/**/rollout-*.jsonl`` whose first record names the project), ``tmp``
    (``BASE/tmp/<sha256 of the project path>/`` and ``BASE/tmp/<project name>/``, and
    ``BASE/projects/<slug>/``), ``storage`` (``BASE/storage/``: session, message and part files).
    ``base`` starts with ``~/``; ``xdg_data`` is where it lives under ``$XDG_DATA_HOME`` when that
    is set (``base`` is then its default).
    """

    layout: TranscriptLayout
    base: str
    xdg_data: str | None = None


class MemoryStore(Record):
    """Where the tool keeps the memories it writes on its own, for one repository (``gitmem import
    --from NAME``; ``gitmem.clientstores`` derives each place from ``layout``, docs/import.md
    describes them).

    ``layout``: ``auto-memory`` (``BASE/projects/<the main working tree's path, key as Claude Code
    makes it>/memory/``, ``BASE`` from ``$CLAUDE_CONFIG_DIR``), ``git-root-memory``
    (``BASE/projects/<the git root's path, non-alphanumerics as "-">/memory/``, the repository's
    ``.qwen/team-memory/``, and the user's ``BASE/memories/`` and ``QWEN.md`` section), ``registry``
    (``BASE/projects.json`` names each project's ``BASE/tmp/<id>/memory/``; the user's
    ``BASE/GEMINI.md`` section), ``task-groups`` (``BASE/memories/MEMORY.md``: the blocks whose
    ``applies_to: cwd=`` is the repository). ``base`` starts with ``~/``; ``version``: the installed
    version whose package was read (and whose client wrote the store in tests/clients where it
    could); ``where``: one line for --help and the docs.
    """

    layout: StoreLayout
    base: str
    version: str
    where: str


class Retired(Record):
    """A tool that no longer exists: a config or memory that still names its target gets
    ``replacement``'s files, and a one-line note saying so (``why``)."""

    replacement: str
    why: str


class Tool(Record):
    """Everything gitmem knows about one AI tool (or one shared file format: ``agents``, the
    AGENTS.md standard)."""

    name: str
    """gitmem's name for it: the target name in config.yaml (when ``target``), the ``--client``
    name (hooks)."""
    title: str
    doc: str
    checked: str
    """What the facts were checked against: ``measured: <tool> <version>`` (tests/clients) or
    the docs read."""
    target: Target | None = None
    serves: str | None = None
    """The target gitmem writes for this tool (a duplicate is reported only while it is configured);
    its own name when it has a target."""
    reads: tuple[Read, ...] = ()
    """The targets whose files the tool reads (empty: not a reader, e.g. a file format)."""
    detect: tuple[str, ...] = ()
    """Files (or folders, ending in ``/``; ``DIR/*.md``: a folder holding .md files itself) whose
    presence shows a repository uses the tool: ``gitmem init`` adds its target. Matched with their
    exact case.
    """
    formats: tuple[Format, ...] = ()
    default: bool = False
    """In the targets of a new config."""
    hooks: Hooks | None = None
    hooks_for: tuple[str, ...] = ()
    """Targets whose configuration has ``init --agent-hooks`` set this client up."""
    commands: Commands | None = None
    mcp: Mcp | None = None
    transcripts: Transcripts | None = None
    follows_imports: tuple[str, ...] = ()
    """Targets whose files' ``@path`` imports the client follows (measured: Gemini CLI in GEMINI.md,
    Claude Code and the Copilot CLI in CLAUDE.md; the Copilot CLI not in GEMINI.md):
    ``compile.delivery`` bridges such a file to AGENTS.md with one where no other client in use
    follows it.
    """
    imports_apart: bool = False
    """A file its imports bring is read apart from the files it reads itself: one it reads and
    imports too reaches the model twice (measured, the Copilot CLI 1.0.102, with a CLAUDE.md of
    ``@AGENTS.md``; a file imported twice arrives once, as Claude Code's does)."""
    links_apart: bool = False
    """A file it reads under two names in the folders it reads (a link and the file it leads to:
    a root AGENTS.md that is a link to web/AGENTS.md, started in web/) reaches the model twice
    (measured: Codex 0.171.0 and opencode 1.18.33; Qwen Code 0.24.4, Claude Code 2.1.332, Gemini
    CLI 0.61.0 and the Copilot CLI 1.0.102 read it once: tests/clients/test_reader.py)."""
    imports_above: bool = True
    """The client follows the imports of the files above the folder it starts in too (Claude Code
    2.1.332 does not: such "external" imports need an approval, and ``-p`` skips them; those of the
    folders below, loaded when it touches a file there, it follows: measured)."""
    chain: bool = True
    """Started in a subfolder, the client loads the files of the root and of every folder down to
    it; ``False``:
    only those of the folder it starts in (Cline, aider: measured)."""
    names_setting: NamesSetting | None = None
    """Where a project may name other files for the tool to read (``NamesSetting``)."""
    touches: tuple[str, ...] = ()
    """Files (by their path within a folder) the client loads in a folder below the one it starts in
    when it touches a file there (reads or edits it), beside the path-scoped files of its own target
    that match the file (measured where the client runs here: tests/clients/test_delivery.py; empty:
    it loads nothing more, or not measured).
    """
    private: str = ""
    """A file this client reads at the root that no other client reads there (Claude Code's
    ``.claude/CLAUDE.md``; the Copilot CLI 1.0.102 does not read it at the start, but does load a
    subfolder's when it touches a file in that
    subfolder: measured): where its copy goes, in one file at the root, when another client in use
    reads its usual file (``compile.delivery``)."""
    own_words: tuple[str, ...] = ()
    """Words only this tool understands (lower case): a line using one, read from this tool's own
    rules file, is imported for this tool alone (``targets:``), not compiled for every tool (Copilot
    Chat's ``#problems``).
    """
    memory: MemoryStore | None = None
    """Where it keeps the memories it writes on its own (``gitmem import --from``)."""
    tracked_only: bool = False
    """It reads the repository's files as git tracks them, not a working tree (Copilot code review
    on GitHub reads the pull request's tree): a file git does not track never reaches it."""
    retired: Retired | None = None
    """The tool is gone: its name still reads (as ``replacement``), and its ``target`` only says
    which files gitmem wrote for it before (compile cleans them up)."""


_CODEX_CHAIN = Limit(
    "chain_bytes",
    32 * 1024,
    True,
    "Codex reads at most 32 KiB of AGENTS.md files (root to leaf together) and silently "
    "cuts the rest",
    client="codex",
)
_CLAUDE_SHAPED = (
    (PROMPT, "UserPromptSubmit"),
    (START, "SessionStart"),
    (STOP, "Stop"),
    (PRE_TOOL, "PreToolUse"),
)

TOOLS: tuple[Tool, ...] = (
    Tool(
        name="agents",
        title="AGENTS.md",
        doc="https://agents.md/",
        checked="https://agents.md/; read by the clients whose records name it (measured: see "
        "their records)",
        target=Target(
            name="agents",
            tool="AGENTS.md readers (opencode, Codex, Zed, Amp, Copilot agent, Cursor, "
            "Windsurf, Kiro; Junie when set to)",
            doc="https://agents.md/",
            root_file="AGENTS.md",
            root_whole=False,
            dir_file="AGENTS.md",
            limits=(_CODEX_CHAIN,),
            user_files=(
                UserFile("~/.config/opencode/AGENTS.md", "opencode", "~/.config/opencode"),
                UserFile("~/.codex/AGENTS.md", "Codex", "~/.codex"),
            ),
        ),
        serves="agents",
        detect=("AGENTS.md",),
        formats=(
            Format("AGENTS.md", "directory", 0, names=("AGENTS.md",), discover=("**/AGENTS.md",)),
        ),
        default=True,
    ),
    Tool(
        name="claude",
        own_words=("claude code", "/compact", "/clear", "/memory"),
        title="Claude Code",
        doc="https://code.claude.com/docs/en/memory",
        checked="measured: Claude Code 2.1.332 (AGENTS.md only without a CLAUDE.md: "
        "https://code.claude.com/docs/en/memory)",
        target=Target(
            name="claude",
            tool="Claude Code",
            doc="https://code.claude.com/docs/en/memory",
            root_file="CLAUDE.md",
            root_whole=False,
            dir_file="CLAUDE.md",
            scoped_dir=".claude/rules",
            scoped_suffix=".md",
            scoped_frontmatter=("paths:", "{list}"),
            always_frontmatter=(),
            limits=(
                # Claude Code 2.1 sent a 59,375-character CLAUDE.md in full (measured): the 40,000
                # is its warning only.
                Limit(
                    "chars",
                    40_000,
                    False,
                    "Claude Code warns about a CLAUDE.md above 40,000 characters",
                ),
                Limit(
                    "lines",
                    200,
                    False,
                    "Claude Code's documentation advises keeping CLAUDE.md under 200 lines",
                ),
            ),
            user_files=(UserFile("~/.claude/CLAUDE.md", "Claude Code", "~/.claude"),),
        ),
        serves="claude",
        reads=(Read("claude"), Read("agents", FALLBACK, unless="claude"), Read("agents", IMPORTS)),
        follows_imports=("claude",),
        imports_above=False,
        touches=("CLAUDE.md", ".claude/CLAUDE.md"),  # measured, Claude Code 2.1.332
        private=".claude/CLAUDE.md",
        detect=("CLAUDE.md", ".claude/CLAUDE.md", ".claude/rules/"),
        formats=(
            Format(
                "CLAUDE.md",
                "directory",
                1,
                names=("CLAUDE.md", "CLAUDE.local.md"),
                discover=("**/CLAUDE.md",),
                home=".claude",
            ),
            Format(
                "Claude Code rule",
                "paths",
                7,
                folder=".claude/rules",
                discover=("**/.claude/rules/**/*.md",),
            ),
        ),
        default=True,
        hooks=Hooks(
            tool="Claude Code",
            doc="https://code.claude.com/docs/en/hooks",
            rules_files=("CLAUDE.md", ".claude/CLAUDE.md"),
            user_rules_files=("~/.claude/CLAUDE.md",),
            events=_CLAUDE_SHAPED,
            settings=".claude/settings.json",
            fallback_files=("AGENTS.md",),
        ),
        hooks_for=("claude",),
        commands=Commands(
            ".claude/commands/remember.md",
            ".claude/commands/remember.md",
            "markdown",
            "allowed-tools: Bash(gitmem journal add:*)\n",
        ),
        mcp=Mcp((".mcp.json",), "stdio"),  # the Copilot CLI reads .mcp.json too
        transcripts=Transcripts("slug", "~/.claude"),
        memory=MemoryStore(
            "auto-memory",
            "~/.claude",
            "2.1.332",
            "~/.claude/projects/<key>/memory/ (and its team/ folder)",
        ),
    ),
    Tool(
        name="opencode",
        title="opencode",
        doc="https://opencode.ai/docs/rules/",
        checked="measured: opencode 1.18.33",
        links_apart=True,
        serves="agents",
        reads=(Read("agents"), Read("claude", FALLBACK, unless="agents")),
        touches=("AGENTS.md",),  # measured, opencode 1.18.33
        hooks=Hooks(
            tool="opencode",
            doc="https://opencode.ai/docs/plugins/",
            rules_files=("AGENTS.md",),
            user_rules_files=("~/.config/opencode/AGENTS.md",),
            # tool.execute.before: gitmem's plugin throws the refusal, which opencode hands the
            # model as the tool's error (https://opencode.ai/docs/plugins/)
            events=(
                (PROMPT, "chat.message"),
                (START, "chat.message"),
                (PRE_TOOL, "tool.execute.before"),
            ),
            output="plain",
            deny="plain",
            fallback_files=("CLAUDE.md",),
            plugin=".opencode/plugin/gitmem.js",
            user_plugin=".config/opencode/plugin/gitmem.js",
        ),
        hooks_for=("agents",),
        commands=Commands(
            ".opencode/command/remember.md", ".config/opencode/command/remember.md", "markdown"
        ),
        mcp=Mcp(("opencode.json", "opencode.jsonc"), "mcp"),
        transcripts=Transcripts("storage", "~/.local/share/opencode", xdg_data="opencode"),
    ),
    Tool(
        name="codex",
        title="Codex",
        doc="https://developers.openai.com/codex/guides/agents-md",
        checked="measured: Codex 0.171.0",
        links_apart=True,
        serves="agents",
        reads=(Read("agents"),),
        hooks=Hooks(
            tool="Codex CLI",
            doc="https://developers.openai.com/codex/hooks",
            rules_files=("AGENTS.md",),
            user_rules_files=("~/.codex/AGENTS.md",),
            events=_CLAUDE_SHAPED,
            settings=".codex/hooks.json",
        ),
        hooks_for=("agents",),
        # Codex has custom prompts only in the user's home (~/.codex/prompts/): with --user.
        commands=Commands(None, ".codex/prompts/remember.md", "markdown"),
        transcripts=Transcripts("rollout", "~/.codex"),
        memory=MemoryStore(
            "task-groups",
            "~/.codex",
            "0.171.0",
            "~/.codex/memories/MEMORY.md and raw_memories.md (this repository's task "
            "groups and raw memories)",
        ),
    ),
    Tool(
        name="gemini",
        own_words=("gemini cli", "/memory refresh"),
        title="Gemini CLI",
        doc="https://github.com/google-gemini/gemini-cli/blob/main/docs/cli/gemini-md.md",
        checked="measured: Gemini CLI 0.61.0",
        target=Target(
            name="gemini",
            tool="Gemini CLI",
            doc="https://github.com/google-gemini/gemini-cli/blob/main/docs/cli/gemini-md.md",
            root_file="GEMINI.md",
            root_whole=False,
            dir_file="GEMINI.md",
            # No size limit: Gemini CLI 0.61 sent a 29,895-character GEMINI.md in full (measured,
            # tests/clients).
            user_files=(UserFile("~/.gemini/GEMINI.md", "Gemini CLI", "~/.gemini"),),
        ),
        serves="gemini",
        reads=(Read("gemini"),),
        follows_imports=("gemini",),
        touches=("GEMINI.md",),  # measured, Gemini CLI 0.61.0
        names_setting=NamesSetting(
            ".gemini/settings.json",
            ("context", "fileName"),
            "measured: Gemini CLI 0.61.0 reads AGENTS.md when the setting names it, and "
            "GEMINI.md all the same",
        ),
        detect=("GEMINI.md",),
        formats=(
            Format("GEMINI.md", "directory", 2, names=("GEMINI.md",), discover=("**/GEMINI.md",)),
        ),
        hooks=Hooks(
            tool="Gemini CLI",
            doc="https://geminicli.com/docs/hooks/reference",
            rules_files=("GEMINI.md",),
            user_rules_files=("~/.gemini/GEMINI.md",),
            # BeforeTool: `{"decision": "deny", "reason": ...}` blocks the call and the reason
            # reaches the model (Gemini CLI 0.61's bundle: isBlockingDecision is "block" or "deny").
            events=((PROMPT, "BeforeAgent"), (START, "SessionStart"), (PRE_TOOL, "BeforeTool")),
            deny="decision",
            settings=".gemini/settings.json",
            timeout_scale=1000,  # Gemini counts milliseconds
            named_entries=True,
            detect_events=("BeforeAgent", "AfterAgent"),
        ),
        hooks_for=("gemini",),
        commands=Commands(
            ".gemini/commands/remember.toml", ".gemini/commands/remember.toml", "toml"
        ),
        mcp=Mcp((".gemini/settings.json",), "trust"),
        transcripts=Transcripts("tmp", "~/.gemini"),
        memory=MemoryStore(
            "registry",
            "~/.gemini",
            "0.61.0",
            "~/.gemini/tmp/<id>/memory/ (private project memory); ~/.gemini/GEMINI.md's "
            "saved memories (--user)",
        ),
    ),
    Tool(
        name="qwen",
        title="Qwen Code",
        doc="https://qwenlm.github.io/qwen-code-docs/",
        checked="measured: Qwen Code 0.24.4 (it reads QWEN.md too)",
        serves="agents",
        reads=(Read("agents"),),
        hooks=Hooks(
            tool="Qwen Code",
            doc="https://qwenlm.github.io/qwen-code-docs/",
            rules_files=("QWEN.md", "AGENTS.md"),
            user_rules_files=("~/.qwen/QWEN.md",),
            events=_CLAUDE_SHAPED,
            settings=".qwen/settings.json",
        ),
        commands=Commands(".qwen/commands/remember.toml", ".qwen/commands/remember.toml", "toml"),
        mcp=Mcp((".qwen/settings.json",), "trust"),
        transcripts=Transcripts("tmp", "~/.qwen"),
        memory=MemoryStore(
            "git-root-memory",
            "~/.qwen",
            "0.24.4",
            "~/.qwen/projects/<key>/memory/, .qwen/team-memory/; ~/.qwen/memories/ and "
            "QWEN.md (--user)",
        ),
    ),
    Tool(
        name="cursor",
        own_words=("cursor", "@codebase", "@docs", "@web"),
        title="Cursor",
        doc="https://cursor.com/docs/context/rules",
        checked="https://cursor.com/docs/context/rules (not installable here: not measured)",
        target=Target(
            name="cursor",
            tool="Cursor",
            doc="https://cursor.com/docs/context/rules",
            root_file=".cursor/rules/gitmem.mdc",
            root_whole=True,
            root_frontmatter=(
                "description: Reviewed project memories of this team (compiled by gitmem)",
                "globs:",
                "alwaysApply: true",
            ),
            scoped_dir=".cursor/rules",
            scoped_suffix=".mdc",
            scoped_frontmatter=(
                "description: Reviewed project memories of this team for matching files "
                "(compiled by gitmem)",
                "globs: {csv}",
                "alwaysApply: false",
            ),
            limits=(Limit("lines", 500, False, "Cursor recommends rules under 500 lines"),),
        ),
        serves="cursor",
        reads=(Read("cursor"), Read("agents")),
        detect=(".cursor/rules/", ".cursorrules"),
        formats=(
            Format(
                ".cursorrules (legacy)",
                "none",
                3,
                paths=(".cursorrules",),
                discover=(".cursorrules",),
            ),
            Format(
                "Cursor rule",
                "always-apply",
                4,
                folder=".cursor/rules",
                suffixes=(".mdc", ".md"),
                discover=("**/.cursor/rules/**/*.mdc", "**/.cursor/rules/**/*.md"),
            ),
        ),
        # Cursor's hooks (https://cursor.com/docs/agent/hooks): only sessionStart's answer reaches
        # the model (`additional_context`); beforeSubmitPrompt can only let a prompt through or stop
        # it (`continue`, `user_message`), so no memory is injected per prompt. Checked against the
        # hook shapes reported from Cursor 2.5 (https://github.com/mindfold-ai/Trellis/issues/18)
        # and its forum (https://github.com/yvgude/lean-ctx/issues/752); Cursor is not installable
        # here: not measured.
        hooks=Hooks(
            tool="Cursor",
            doc="https://cursor.com/docs/agent/hooks",
            rules_files=(".cursor/rules/gitmem.mdc", "AGENTS.md"),
            # beforeShellExecution and beforeMCPExecution answer {"permission": "deny",
            # "agent_message": ...}; Cursor has no hook before its own file edits (afterFileEdit
            # only): edits pass (docs/security.md).
            events=(
                (START, "sessionStart"),
                (PRE_TOOL, "beforeShellExecution"),
                (PRE_TOOL, "beforeMCPExecution"),
            ),
            deny="permission",
            output="additional_context",
            settings=".cursor/hooks.json",
            flat=True,
            detect_events=("sessionStart",),
        ),
        hooks_for=("cursor",),
        commands=Commands(".cursor/commands/remember.md", ".cursor/commands/remember.md", "plain"),
        # Cursor may start servers elsewhere; it expands ${workspaceFolder} in mcp.json.
        mcp=Mcp((".cursor/mcp.json",), "workspace"),
    ),
    Tool(
        name="copilot",
        own_words=(
            "#problems",
            "#codebase",
            "#selection",
            "#terminalselection",
            "#terminallastcommand",
            "#changes",
            "#testfailure",
            "#usages",
            "#fetch",
            "@workspace",
            "@terminal",
            "@vscode",
            "copilot",
            "firewall",
        ),
        title="GitHub Copilot CLI",
        doc="https://docs.github.com/en/copilot/how-tos/copilot-cli",
        checked="measured: Copilot CLI 1.0.102 (.claude/rules: issue 16; "
        "https://docs.github.com/en/copilot/how-tos/copilot-cli)",
        target=Target(
            name="copilot",
            tool="GitHub Copilot",
            doc="https://docs.github.com/en/copilot/how-tos/configure-custom-instructions/add-repository-instructions",
            root_file=".github/copilot-instructions.md",
            root_whole=False,
            scoped_dir=".github/instructions",
            scoped_suffix=".instructions.md",
            # Copilot lists path-scoped instruction files by their description (empty without one).
            scoped_frontmatter=("applyTo: {csv_quoted}", "description: {description}"),
            always_frontmatter=('applyTo: "**"',),
            limits=(
                # The Copilot CLI 1.0.102 sent 400 lines and 29,895 characters in full (measured):
                # no line limit.
                Limit(
                    "chars",
                    4_000,
                    False,
                    "Copilot code review on GitHub reads only the first 4,000 characters; the "
                    "Copilot CLI and the IDEs read it all",
                ),
            ),
            user_files=(
                UserFile("~/.copilot/copilot-instructions.md", "GitHub Copilot CLI", "~/.copilot"),
            ),
        ),
        serves="copilot",
        # CLAUDE.md too, and .claude/rules (measured, 1.0.102); it follows CLAUDE.md's @imports, not
        # GEMINI.md's
        reads=(Read("copilot"), Read("agents"), Read("gemini"), Read("claude")),
        follows_imports=("claude",),
        imports_apart=True,
        # measured, Copilot CLI 1.0.102: AGENTS.md, GEMINI.md and .claude/CLAUDE.md (CLAUDE.md as
        # Claude Code does)
        touches=("AGENTS.md", "GEMINI.md", "CLAUDE.md", ".claude/CLAUDE.md"),
        detect=(".github/copilot-instructions.md", ".github/instructions/"),
        formats=(
            Format(
                "Copilot instructions",
                "none",
                5,
                paths=(".github/copilot-instructions.md",),
                discover=(".github/copilot-instructions.md",),
            ),
            Format(
                "Copilot path instructions",
                "applyTo",
                6,
                folder=".github/instructions",
                suffixes=(".instructions.md",),
                root_only=True,
                discover=(".github/instructions/**/*.instructions.md",),
            ),
        ),
        hooks=Hooks(
            tool="GitHub Copilot CLI",
            doc="https://docs.github.com/en/copilot/reference/copilot-cli-reference/cli-hooks-reference",
            rules_files=(".github/copilot-instructions.md", "AGENTS.md", "CLAUDE.md", "GEMINI.md"),
            # preToolUse: {"permissionDecision": "deny", "permissionDecisionReason": ...}
            # (https://docs.github.com/en/copilot/reference/copilot-cli-reference/cli-hooks-reference)
            events=(
                (PROMPT, "UserPromptSubmit"),
                (START, "SessionStart"),
                (PRE_TOOL, "preToolUse"),
            ),
            deny="permissionDecision",
            output="additionalContext",
            settings=".github/hooks/gitmem.json",  # Copilot CLI reads every .github/hooks/*.json
            user_settings=".copilot/hooks/gitmem.json",
            own_file=True,
            session_key="sessionId",
        ),
        hooks_for=("copilot",),
    ),
    Tool(
        name="copilot-review",
        title="GitHub Copilot code review",
        doc="https://docs.github.com/en/copilot/reference/custom-instructions-support",
        checked="https://docs.github.com/en/copilot/reference/custom-instructions-support "
        "(December 2026: repository-wide, path-specific and agent instructions, AGENTS.md, "
        "CLAUDE.md, GEMINI.md; older versions of the page, github/docs#41237, listed only the "
        "first two); on GitHub: not measured",
        serves="copilot",
        # what the Copilot CLI reads at the root, from the pull request's tree: only files git
        # tracks
        reads=(Read("copilot"), Read("agents"), Read("gemini"), Read("claude")),
        chain=False,
        tracked_only=True,
    ),
    Tool(
        name="windsurf",
        title="Windsurf",
        doc="https://docs.devin.ai/desktop/cascade/memories",
        checked="https://docs.devin.ai/desktop/cascade/memories (Devin Desktop, 2026: Windsurf's "
        "next generation)",
        # What gitmem wrote for Windsurf (compile cleans it up); its rules folder is read as Devin
        # Desktop's legacy one.
        target=Target(
            name="windsurf",
            tool="Windsurf",
            doc="https://docs.windsurf.com/windsurf/cascade/memories#rules",
            root_file=".windsurf/rules/gitmem.md",
            root_whole=True,
            root_frontmatter=("trigger: always_on",),
            scoped_dir=".windsurf/rules",
            scoped_suffix=".md",
            scoped_frontmatter=("trigger: glob", "globs: {csv_quoted}"),
        ),
        retired=Retired(
            "devin",
            "Windsurf is now Devin Desktop, which reads .devin/rules (compiled there) and "
            "AGENTS.md",
        ),
    ),
    Tool(
        name="devin",
        title="Devin Desktop",
        doc="https://docs.devin.ai/desktop/cascade/memories",
        checked="https://docs.devin.ai/desktop/cascade/memories and "
        "https://cli.devin.ai/docs/extensibility/rules (2026; not installable here: not measured)",
        target=Target(
            name="devin",
            tool="Devin Desktop (formerly Windsurf)",
            doc="https://docs.devin.ai/desktop/cascade/memories",
            root_file=".devin/rules/gitmem.md",
            root_whole=True,
            root_frontmatter=("trigger: always_on",),
            scoped_dir=".devin/rules",
            scoped_suffix=".md",
            # A YAML list: Devin Desktop also takes one string, but the Devin CLI refuses a rule
            # whose globs are not a sequence (https://github.com/stbenjam/skillsaw,
            # docs/rules/devin-rules-valid.md).
            scoped_frontmatter=("trigger: glob", "globs:", "{list}"),
            limits=(
                Limit(
                    "chars",
                    12_000,
                    True,
                    "Devin Desktop reads at most 12,000 characters of a rule file",
                ),
            ),
            user_files=(
                UserFile(
                    "~/.codeium/windsurf/memories/global_rules.md",
                    "Devin Desktop",
                    "~/.codeium/windsurf",
                ),
            ),
        ),
        serves="devin",
        # Devin Desktop reads .devin/rules, the legacy .windsurf/rules (which gitmem no longer
        # writes), and its default agent AGENTS.md and CLAUDE.md both as always-on rules (its docs;
        # root: always, nested: by glob).
        reads=(Read("devin"), Read("agents"), Read("claude")),
        detect=(".devin/rules/", ".windsurf/rules/", ".windsurfrules"),
        formats=(
            Format(
                "Devin rule",
                "trigger",
                24,
                folder=".devin/rules",
                discover=("**/.devin/rules/**/*.md",),
            ),
            # Windsurf's files, which teams still have: imported as Devin Desktop's (its docs name
            # .windsurf/rules as the legacy folder; .windsurfrules, Windsurf's first single file, is
            # not in them: read as whole-project rules, like before).
            Format(
                ".windsurfrules (legacy)",
                "none",
                8,
                paths=(".windsurfrules",),
                discover=(".windsurfrules",),
            ),
            Format(
                "Windsurf rule (legacy)",
                "trigger",
                9,
                folder=".windsurf/rules",
                discover=("**/.windsurf/rules/**/*.md",),
            ),
        ),
    ),
    Tool(
        name="cline",
        title="Cline",
        doc="https://docs.cline.bot/features/cline-rules",
        checked="measured: Cline CLI 3.0.65 (https://docs.cline.bot)",
        target=Target(
            name="cline",
            tool="Cline",
            doc="https://docs.cline.bot/features/cline-rules",
            root_file=".clinerules/gitmem.md",
            root_whole=True,
            # No scoped files: Cline CLI 3.0.65 ignores `paths:` in .clinerules (measured: a scoped
            # file was sent in every session, and started in a subfolder it loaded no rules at all).
            # A memory with paths goes into the always-loaded file under a heading that names its
            # globs, which the model reads the same in the CLI and in the editor extension. (Files
            # gitmem wrote there before are cleaned up: see `compiler._candidates`.)
            user_files=(UserFile("~/Documents/Cline/Rules/", "Cline", "~/Documents/Cline"),),
        ),
        serves="cline",
        reads=(Read("cline"), Read("agents")),
        chain=False,
        detect=(".clinerules/*.md", ".clinerules"),  # rules files, not only workflows/ or hooks/
        formats=(
            Format(
                ".clinerules (single file)",
                "none",
                10,
                paths=(".clinerules",),
                discover=(".clinerules",),
            ),
            Format(
                "Cline rule",
                "paths",
                11,
                folder=".clinerules",
                discover=("**/.clinerules/**/*.md",),
                ignore=(
                    (
                        ".clinerules/workflows",
                        "a Cline workflow (a procedure run on demand with /name), not an "
                        "always-on rule",
                    ),
                    (".clinerules/hooks", "Cline hooks (scripts and their notes), not rules"),
                ),
            ),
        ),
    ),
    Tool(
        name="kiro",
        title="Kiro",
        doc="https://kiro.dev/docs/steering/",
        checked="https://kiro.dev/docs/steering/ (not installable here: not measured)",
        target=Target(
            name="kiro",
            tool="Kiro",
            doc="https://kiro.dev/docs/steering/",
            root_file=".kiro/steering/gitmem.md",
            root_whole=True,
            root_frontmatter=("inclusion: always",),
            scoped_dir=".kiro/steering",
            scoped_suffix=".md",
            scoped_frontmatter=("inclusion: fileMatch", "fileMatchPattern: {pattern}"),
            user_files=(UserFile("~/.kiro/steering/", "Kiro", "~/.kiro"),),
        ),
        serves="kiro",
        reads=(Read("kiro"), Read("agents")),
        detect=(".kiro/steering/",),
        formats=(
            Format(
                "Kiro steering",
                "inclusion",
                12,
                folder=".kiro/steering",
                discover=("**/.kiro/steering/**/*.md",),
            ),
        ),
    ),
    Tool(
        name="aider",
        title="Aider",
        doc="https://aider.chat/docs/usage/conventions.html",
        checked="measured: aider 0.86.2",
        target=Target(
            name="aider",
            tool="Aider",
            doc="https://aider.chat/docs/usage/conventions.html",
            root_file="CONVENTIONS.md",
            root_whole=False,
            reads_config=".aider.conf.yml",
            # No user-level rules file: ~/.aider.conf.yml can only `read:` one, which compile --user
            # does not write.
        ),
        serves="aider",
        # what .aider.conf.yml's `read:` names, resolved from the folder it starts in: from a
        # subfolder, nothing
        reads=(Read("aider"),),
        chain=False,
        detect=("CONVENTIONS.md", ".aider.conf.yml"),
        formats=(
            Format(
                "aider conventions",
                "none",
                13,
                paths=("CONVENTIONS.md",),
                discover=("CONVENTIONS.md",),
            ),
        ),
    ),
    # Tools with a rules folder of their own that read none of the files above (from their
    # documentation; not installable here, so not measured). No path scoping for Amazon Q and Zoo
    # Code: a memory with paths goes into the one file under a heading that names its globs.
    Tool(
        name="amazonq",
        title="Amazon Q Developer",
        doc="https://docs.aws.amazon.com/amazonq/latest/qdeveloper-ug/context-project-rules.html",
        checked="https://docs.aws.amazon.com/amazonq/latest/qdeveloper-ug/context-project-rules.html"
        " (not measured)",
        target=Target(
            name="amazonq",
            tool="Amazon Q Developer",
            doc="https://docs.aws.amazon.com/amazonq/latest/qdeveloper-ug/context-project-rules.html",
            root_file=".amazonq/rules/gitmem.md",
            root_whole=True,
        ),
        serves="amazonq",
        detect=(".amazonq/rules/",),
        formats=(
            Format(
                "Amazon Q rule",
                "folder",
                14,
                folder=".amazonq/rules",
                discover=(".amazonq/rules/**/*.md",),
            ),
        ),
    ),
    Tool(
        name="continue",
        title="Continue",
        doc="https://docs.continue.dev/customize/deep-dives/rules",
        checked="https://docs.continue.dev/customize/deep-dives/rules (not measured)",
        target=Target(
            name="continue",
            tool="Continue",
            doc="https://docs.continue.dev/customize/deep-dives/rules",
            root_file=".continue/rules/gitmem.md",
            root_whole=True,
            root_frontmatter=("name: Project memories (gitmem)", "alwaysApply: true"),
            scoped_dir=".continue/rules",
            scoped_suffix=".md",
            scoped_frontmatter=(
                "name: Project memories for matching files (gitmem)",
                "globs: {pattern}",
                "alwaysApply: false",
            ),
        ),
        serves="continue",
        detect=(".continue/rules/",),
        formats=(
            Format(
                "Continue rule",
                "always-apply-or-globs",
                15,
                folder=".continue/rules",
                discover=(".continue/rules/**/*.md",),
            ),
        ),
    ),
    Tool(
        name="roo",
        title="Roo Code",
        doc="https://github.com/RooCodeInc/Roo-Code#disclaimer",
        checked="https://github.com/RooCodeInc/Roo-Code#disclaimer (archived; shut down on "
        "2026-05-15)",
        retired=Retired(
            "zoo",
            "Roo Code was shut down in May 2026; Zoo Code, its community fork, reads the "
            "same .roo/rules (compiled there)",
        ),
    ),
    Tool(
        name="zoo",
        title="Zoo Code",
        doc="https://zoocode.dev/",
        checked="Zoo Code 3.82.0 source (Zoo-Code-Org/Zoo-Code, "
        "src/core/prompts/sections/custom-instructions.ts): .roo/rules (recursive), else "
        ".roorules or .clinerules, and AGENTS.md (useAgentRules, on by default); not "
        "installable here: not measured",
        target=Target(
            name="zoo",
            tool="Zoo Code (Roo Code's fork)",
            doc="https://zoocode.dev/",
            root_file=".roo/rules/gitmem.md",
            root_whole=True,
        ),
        serves="zoo",
        reads=(Read("zoo"), Read("agents")),
        detect=(".roo/rules/", ".roorules"),
        formats=(
            Format(".roorules (legacy)", "none", 16, paths=(".roorules",), discover=(".roorules",)),
            Format(
                "Zoo Code rule", "folder", 17, folder=".roo/rules", discover=(".roo/rules/**/*.md",)
            ),
        ),
    ),
    # More tools with a rules file of their own, from their documentation (desktop or editor tools,
    # not installable here, so not measured). None documents path scoping but Warp, which reads a
    # WARP.md per directory.
    Tool(
        name="junie",
        title="Junie",
        doc="https://www.jetbrains.com/help/junie/customize-guidelines.html",
        checked="https://www.jetbrains.com/help/junie/customize-guidelines.html (not measured)",
        target=Target(
            name="junie",
            tool="Junie (JetBrains)",
            # Junie reads one guidelines file: .junie/guidelines.md unless its "Guidelines path"
            # setting names another (AGENTS.md, which the agents target writes). A block: teams (and
            # Junie itself) write the file by hand.
            doc="https://www.jetbrains.com/help/junie/customize-guidelines.html",
            root_file=".junie/guidelines.md",
            root_whole=False,
        ),
        serves="junie",
        # Junie reads one guidelines file (.junie/guidelines.md, or AGENTS.md when its settings say
        # so): not both.
        reads=(Read("junie"),),
        detect=(".junie/guidelines.md",),
        formats=(
            Format(
                "Junie guidelines",
                "none",
                18,
                paths=(".junie/guidelines.md",),
                discover=(".junie/guidelines.md",),
            ),
        ),
    ),
    Tool(
        name="augment",
        title="Augment Code",
        doc="https://docs.augmentcode.com/cli/rules",
        checked="https://docs.augmentcode.com/cli/rules (auggie needs Augment's service: not "
        "measured)",
        target=Target(
            name="augment",
            tool="Augment Code",
            # Workspace rules are the .md files of .augment/rules (searched recursively); `type:
            # always_apply` includes one in every prompt (the IDE extensions treat a rule without it
            # as manual).
            doc="https://docs.augmentcode.com/setup-augment/guidelines",
            root_file=".augment/rules/gitmem.md",
            root_whole=True,
            root_frontmatter=("type: always_apply",),
            user_files=(UserFile("~/.augment/rules/", "Augment Code", "~/.augment"),),
        ),
        serves="augment",
        # Augment loads CLAUDE.md, AGENTS.md and the .augment/rules files
        # (https://docs.augmentcode.com/cli/rules).
        reads=(Read("augment"), Read("claude"), Read("agents")),
        detect=(".augment/rules/", ".augment-guidelines", ".augment/guidelines.md"),
        formats=(
            Format(
                "Augment guidelines (legacy)",
                "none",
                19,
                paths=(".augment-guidelines", ".augment/guidelines.md"),
                discover=(".augment-guidelines", ".augment/guidelines.md"),
            ),
            Format(
                "Augment rule",
                "type",
                20,
                folder=".augment/rules",
                discover=(".augment/rules/**/*.md",),
            ),
        ),
    ),
    Tool(
        name="trae",
        title="Trae",
        doc="https://www.w3cschool.cn/traeworkdocs/traework-rules.html",
        checked="https://www.w3cschool.cn/traeworkdocs/traework-rules.html (not measured)",
        target=Target(
            name="trae",
            tool="Trae",
            # The project rules file Trae creates (its Rules panel: "+ Create project_rules.md"); a
            # block, since the file is Trae's own and may hold hand-written rules. (Trae's docs,
            # https://docs.trae.ai, were not in the stored corpus: this follows Trae's own
            # announcement of rules, cited here.)
            doc="https://xie.infoq.cn/article/777f1b3c8018ef863d898001e",
            root_file=".trae/rules/project_rules.md",
            root_whole=False,
        ),
        serves="trae",
        # Trae reads AGENTS.md and CLAUDE.md only when they are switched on in its settings: not by
        # default.
        reads=(Read("trae"),),
        detect=(".trae/rules/",),
        formats=(
            Format(
                "Trae project rules",
                "none",
                21,
                paths=(".trae/rules/project_rules.md",),
                discover=(".trae/rules/project_rules.md",),
            ),
        ),
    ),
    Tool(
        name="warp",
        title="Warp",
        doc="https://docs.warp.dev/agents/capabilities/rules",
        checked="https://docs.warp.dev/agents/capabilities/rules, "
        "https://github.com/warpdotdev/warp/pull/9325",
        target=Target(
            name="warp",
            tool="Warp",
            # Warp applies the WARP.md (or AGENTS.md) of the root and of the current directory; in
            # one directory a WARP.md shadows AGENTS.md
            # (https://github.com/warpdotdev/warp/pull/9325): a project with a hand-written WARP.md
            # needs the memories there, or Warp never sees AGENTS.md's. Nested files carry directory
            # scopes.
            doc="https://docs.warp.dev/agents/capabilities/rules",
            root_file="WARP.md",
            root_whole=False,
            dir_file="WARP.md",
        ),
        serves="warp",
        # Warp reads AGENTS.md where a directory has no WARP.md (a WARP.md shadows it): like Claude
        # Code's fallback.
        reads=(Read("warp"), Read("agents", FALLBACK, unless="warp")),
        detect=("WARP.md",),
        formats=(Format("WARP.md", "directory", 22, names=("WARP.md",), discover=("**/WARP.md",)),),
    ),
    Tool(
        name="antigravity",
        title="Antigravity CLI",
        doc="https://antigravity.google/docs/gcli-migration#context-files-and-workspace-rules",
        checked="agy 1.0.3 binary's customization roots, ~/.gemini/config/ and the workspace's "
        ".agents/ (https://github.com/google-antigravity/antigravity-cli/issues/60); GEMINI.md and "
        "AGENTS.md as context files and .agents/rules trigger frontmatter from third-party guides "
        "(Google's own pages were not in the stored corpus; agy is a Go binary, not on npm: not "
        "measured)",
        target=Target(
            name="antigravity",
            tool="Antigravity (agy, the IDE)",
            doc="https://antigravity.google/docs/gcli-migration#context-files-and-workspace-rules",
            root_file=".agents/rules/gitmem.md",
            root_whole=True,
            root_frontmatter=("trigger: always_on",),
            scoped_dir=".agents/rules",
            scoped_suffix=".md",
            scoped_frontmatter=("trigger: glob", "globs: {csv_quoted}"),
            # From third-party guides (https://skly.ai/docs/rules/antigravity): a warning, not a
            # cut.
            limits=(
                Limit(
                    "chars",
                    12_000,
                    False,
                    "Antigravity's rule files are said to hold at most 12,000 characters",
                ),
            ),
        ),
        serves="antigravity",
        # Gemini CLI's successor (Gemini CLI stopped serving consumer accounts on 2026-06-18): it
        # reads the same context files, GEMINI.md and AGENTS.md, besides its own .agents/rules.
        reads=(Read("antigravity"), Read("gemini"), Read("agents")),
        detect=(".agents/rules/",),
        formats=(
            Format(
                "Antigravity rule",
                "trigger",
                25,
                folder=".agents/rules",
                discover=("**/.agents/rules/**/*.md",),
            ),
        ),
        mcp=Mcp((".agents/mcp_config.json",), "stdio"),
        hooks=Hooks(
            tool="Antigravity CLI",
            doc="https://github.com/google-antigravity/antigravity-cli/issues/1053",
            rules_files=(".agents/rules/gitmem.md", "GEMINI.md", "AGENTS.md"),
            user_rules_files=("~/.gemini/GEMINI.md",),
            # From agy's issues (not run here): `.agents/hooks.json` in the workspace and
            # `~/.gemini/config/hooks.json` hold named hooks, `{NAME: {EVENT: [{matcher, hooks}]}}`
            # (the name `hooks` fired on agy 1.1.7); PreToolUse gets `{"conversationId", "toolCall":
            # {"name", "args"}}` and `{"decision": "deny", "reason"}` blocks the call with the
            # reason shown to the model. Empty output lets it run; `{}`, a failure or a timeout
            # denies it, so no timeout is written (agy's unit is not documented) and a failing hook
            # prints nothing.
            events=((PRE_TOOL, "PreToolUse"),),
            deny="decision",
            settings=".agents/hooks.json",
            user_settings=".gemini/config/hooks.json",
            timeout_scale=0,
            matcher="*",
            session_key="conversationId",
        ),
        hooks_for=("antigravity",),
    ),
)

# Plain Markdown: what `gitmem import PATH` makes of a file that is no tool's (last in rank).
MARKDOWN = Format("Markdown", "none", 99, tool="markdown")

BY_NAME: dict[str, Tool] = {tool.name: tool for tool in TOOLS}
LIVE: tuple[Tool, ...] = tuple(tool for tool in TOOLS if tool.retired is None)
TARGETS: tuple[Target, ...] = tuple(tool.target for tool in LIVE if tool.target is not None)
TARGET_NAMES: tuple[str, ...] = tuple(target.name for target in TARGETS)
# Retired tool -> what replaces it; the targets gitmem once wrote for them (compile cleans their
# files up).
RETIRED: dict[str, Retired] = {
    tool.name: tool.retired for tool in TOOLS if tool.retired is not None
}
RETIRED_TARGETS: tuple[Target, ...] = tuple(
    tool.target for tool in TOOLS if tool.retired is not None and tool.target is not None
)
TARGET_BY_NAME: dict[str, Target] = {target.name: target for target in TARGETS}
# Every target whose files gitmem may have written: the live ones and those of retired tools
# (compile cleans the files of the targets not configured, so a retired tool's files go once its
# replacement is compiled).
CLEANUP_TARGETS: tuple[Target, ...] = (*TARGETS, *RETIRED_TARGETS)
# The target names the JSON schemas accept (schema/generate.py writes them): a retired name still
# validates.
SCHEMA_TARGETS: tuple[str, ...] = (*TARGET_NAMES, *RETIRED)
DEFAULT_TARGETS: tuple[str, ...] = tuple(tool.name for tool in LIVE if tool.default)
FORMATS: tuple[Format, ...] = tuple(
    fmt._replace(tool=tool.name) for tool in LIVE for fmt in tool.formats
)
READERS: tuple[Tool, ...] = tuple(tool for tool in LIVE if tool.reads)
# The clients with session hooks, named (``session.clients``).
CLIENTS: tuple[Hooks, ...] = tuple(
    tool.hooks._replace(name=tool.name) for tool in LIVE if tool.hooks is not None
)
# The clients `init --agent-hooks` can set up: a hook mechanism or a custom-command folder.
AGENT_HOOK_CLIENTS: tuple[str, ...] = tuple(
    tool.name for tool in LIVE if tool.hooks is not None or tool.commands is not None
)
TRANSCRIPT_CLIENTS: tuple[str, ...] = tuple(
    tool.name for tool in LIVE if tool.transcripts is not None
)


def user_variant(target: Target, user_file: UserFile, root_file: str) -> Target:
    """``target`` as `compile --user` writes it: one always-loaded file, ``root_file`` (relative to
    the home directory: ``user_file``'s path, or ``gitmem.md`` in its folder), and no path scoping
    (a memory with ``paths`` goes into that file under a heading that names its globs)."""
    return target._replace(
        tool=user_file.tool,
        root_file=root_file,
        root_whole=user_file.folder,
        root_frontmatter=target.root_frontmatter if user_file.folder else (),
        dir_file=None,
        scoped_dir=None,
        scoped_frontmatter=(),
        limits=tuple(limit for limit in target.limits if not MEASURES[limit.measure].chain),
        user_files=(user_file,),
        reads_config=None,
        personal=True,
    )


def current(name: str) -> str:
    """The target name ``name`` stands for today: itself, or what replaces a retired tool."""
    seen = {name}
    while name in RETIRED:
        name = RETIRED[name].replacement
        if name in seen:  # a cycle in the records (a test forbids it): stop
            break
        seen.add(name)
    return name


def retired_note(name: str, fix: str = "rename it in targets") -> str:
    """The one-line note for a config, memory or command line that names the retired target ``name``
    (``fix``: what to do instead)."""
    return (
        f"target {name} is retired: {RETIRED[name].why}; its memories go to {current(name)} ({fix})"
    )


def target(name: str) -> Target:
    """The target called ``name`` (a KeyError for a name that is no target)."""
    found = BY_NAME[name].target
    if found is None:
        raise KeyError(name)
    return found
