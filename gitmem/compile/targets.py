"""Every AI tool gitmem compiles for, as data: one table, one entry per tool (see ../shared/TARGETS.md).

Tools change their formats often: what each one loads, how it scopes and where it truncates lives here and only
here, each with a link to the documentation it follows.

How a target places a memory (``scoping.py`` reads these fields):

- no ``paths``: the target's ``root_file``;
- ``paths`` that are all directory globs (``web/**``) and a ``dir_file``: that file in each directory
  (``web/AGENTS.md``);
- other ``paths`` and a ``scoped_dir``: a file of that folder per set of globs, named ``gitmem-<slug><suffix>``, whose
  frontmatter carries the globs natively;
- otherwise: the root file, under a heading that names the globs.

Frontmatter lines are templates. Placeholders, filled from a file's globs by ``render.frontmatter``:
``{csv}`` globs joined by commas, unquoted (Cursor's own parser is not YAML: it wants no quotes and no brackets);
``{csv_quoted}`` the same as one double-quoted YAML string; ``{list}`` a YAML block list of double-quoted globs;
``{pattern}`` one double-quoted glob, or a flow list of them when there are several; ``{description}`` a
double-quoted sentence naming the globs. Brace patterns
(``*.{ts,tsx}``) are expanded for the comma-separated forms, where their comma would split the glob.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

# Names of the files gitmem creates whole start with this, so cleaning up never touches anyone else's file.
WHOLE_PREFIX = "gitmem"
# What `compile --user` writes into a tool's user-level rules folder.
USER_FOLDER_FILE = f"{WHOLE_PREFIX}.md"


@dataclass(frozen=True)
class UserFile:
    """A tool's user-level rules file, which `gitmem compile --user` writes the personal memories into.

    ``path`` starts with ``~/`` (``~/.config/`` stands for ``$XDG_CONFIG_HOME/``); one ending in ``/`` is a folder
    of rules files, where gitmem writes a whole file of its own. ``installed`` is the directory that exists when
    the tool is installed: without ``targets`` in the user's config, compile --user writes the files whose
    ``installed`` directory exists.
    """

    path: str
    tool: str
    installed: str

    @property
    def folder(self) -> bool:
        return self.path.endswith("/")


@dataclass(frozen=True)
class Limit:
    """A size past which a tool truncates or warns.

    ``measure``: ``chars`` or ``lines`` of one file (hand-written text included: the tool reads it all), or
    ``chain_bytes``: the bytes of the root file plus the nested files on the way down to a directory (Codex joins
    them). A ``hard`` limit is where the tool cuts silently: compiling past it is an error. A soft one warns.
    """

    measure: str
    value: int
    hard: bool
    reason: str


@dataclass(frozen=True)
class Target:
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
    personal: bool = False
    """A user-level variant (``user_variant``): ``root_file`` is relative to the home directory."""
    imports: str = ""
    """A bridge (``delivery``): the root file and each nested one import this file of their folder (``AGENTS.md``)."""


_CODEX_CHAIN = Limit(
    "chain_bytes",
    32 * 1024,
    True,
    "Codex reads at most 32 KiB of AGENTS.md files (root to leaf together) and silently cuts the rest",
)

TARGETS: tuple[Target, ...] = (
    Target(
        name="agents",
        tool="AGENTS.md readers (opencode, Codex, Zed, Amp, Copilot agent, Cursor, Windsurf, Kiro; Junie when set to)",
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
    Target(
        name="claude",
        tool="Claude Code",
        doc="https://code.claude.com/docs/en/memory",
        root_file="CLAUDE.md",
        root_whole=False,
        dir_file="CLAUDE.md",
        scoped_dir=".claude/rules",
        scoped_suffix=".md",
        scoped_frontmatter=("paths:", "{list}"),
        limits=(
            # Claude Code 2.1 sent a 59,375-character CLAUDE.md in full (measured): the 40,000 is its warning only.
            Limit("chars", 40_000, False, "Claude Code warns about a CLAUDE.md above 40,000 characters"),
            Limit("lines", 200, False, "Claude Code's documentation advises keeping CLAUDE.md under 200 lines"),
        ),
        user_files=(UserFile("~/.claude/CLAUDE.md", "Claude Code", "~/.claude"),),
    ),
    Target(
        name="gemini",
        tool="Gemini CLI",
        doc="https://github.com/google-gemini/gemini-cli/blob/main/docs/cli/gemini-md.md",
        root_file="GEMINI.md",
        root_whole=False,
        dir_file="GEMINI.md",
        # No size limit: Gemini CLI 0.61 sent a 29,895-character GEMINI.md in full (measured, tests/clients).
        user_files=(UserFile("~/.gemini/GEMINI.md", "Gemini CLI", "~/.gemini"),),
    ),
    Target(
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
            "description: Reviewed project memories of this team for matching files (compiled by gitmem)",
            "globs: {csv}",
            "alwaysApply: false",
        ),
        limits=(Limit("lines", 500, False, "Cursor recommends rules under 500 lines"),),
    ),
    Target(
        name="copilot",
        tool="GitHub Copilot",
        doc="https://docs.github.com/en/copilot/how-tos/configure-custom-instructions/add-repository-instructions",
        root_file=".github/copilot-instructions.md",
        root_whole=False,
        scoped_dir=".github/instructions",
        scoped_suffix=".instructions.md",
        # Copilot lists path-scoped instruction files by their description (empty without one).
        scoped_frontmatter=("applyTo: {csv_quoted}", "description: {description}"),
        limits=(
            # The Copilot CLI 1.0.102 sent 400 lines and 29,895 characters in full (measured): no line limit.
            Limit(
                "chars",
                4_000,
                False,
                "Copilot code review on GitHub reads only the first 4,000 characters; the Copilot CLI and the IDEs "
                "read it all",
            ),
        ),
        user_files=(UserFile("~/.copilot/copilot-instructions.md", "GitHub Copilot CLI", "~/.copilot"),),
    ),
    Target(
        name="windsurf",
        tool="Windsurf (Devin Desktop)",
        doc="https://docs.windsurf.com/windsurf/cascade/memories#rules",
        root_file=".windsurf/rules/gitmem.md",
        root_whole=True,
        root_frontmatter=("trigger: always_on",),
        scoped_dir=".windsurf/rules",
        scoped_suffix=".md",
        scoped_frontmatter=("trigger: glob", "globs: {csv_quoted}"),
        limits=(Limit("chars", 12_000, True, "Windsurf reads at most 12,000 characters of a rule file"),),
        user_files=(UserFile("~/.codeium/windsurf/memories/global_rules.md", "Windsurf", "~/.codeium/windsurf"),),
    ),
    Target(
        name="cline",
        tool="Cline",
        doc="https://docs.cline.bot/features/cline-rules",
        root_file=".clinerules/gitmem.md",
        root_whole=True,
        # No scoped files: Cline CLI 3.0.65 ignores `paths:` in .clinerules (measured: a scoped file was sent in
        # every session, and started in a subfolder it loaded no rules at all). A memory with paths goes into the
        # always-loaded file under a heading that names its globs, which the model reads the same in the CLI and
        # in the editor extension. (Files gitmem wrote there before are cleaned up: see `compiler._candidates`.)
        user_files=(UserFile("~/Documents/Cline/Rules/", "Cline", "~/Documents/Cline"),),
    ),
    Target(
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
    Target(
        name="aider",
        tool="Aider",
        doc="https://aider.chat/docs/usage/conventions.html",
        root_file="CONVENTIONS.md",
        root_whole=False,
        reads_config=".aider.conf.yml",
        # No user-level rules file: ~/.aider.conf.yml can only `read:` one, which compile --user does not write.
    ),
)

# Tools with a rules folder of their own that read none of the files above (from their documentation; not installable
# here, so not measured). No path scoping for Amazon Q and Roo Code: a memory with paths goes into the one file under
# a heading that names its globs.
TARGETS += (
    Target(
        name="amazonq",
        tool="Amazon Q Developer",
        doc="https://docs.aws.amazon.com/amazonq/latest/qdeveloper-ug/context-project-rules.html",
        root_file=".amazonq/rules/gitmem.md",
        root_whole=True,
    ),
    Target(
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
    Target(
        name="roo",
        tool="Roo Code",
        doc="https://docs.roocode.com/features/custom-instructions",
        root_file=".roo/rules/gitmem.md",
        root_whole=True,
    ),
)

# More tools with a rules file of their own, from their documentation (desktop or editor tools, not installable here,
# so not measured). None documents path scoping but Warp, which reads a WARP.md per directory.
TARGETS += (
    Target(
        name="junie",
        tool="Junie (JetBrains)",
        # Junie reads one guidelines file: .junie/guidelines.md unless its "Guidelines path" setting names another
        # (AGENTS.md, which the agents target writes). A block: teams (and Junie itself) write the file by hand.
        doc="https://www.jetbrains.com/help/junie/customize-guidelines.html",
        root_file=".junie/guidelines.md",
        root_whole=False,
    ),
    Target(
        name="augment",
        tool="Augment Code",
        # Workspace rules are the .md files of .augment/rules (searched recursively); `type: always_apply` includes one
        # in every prompt (the IDE extensions treat a rule without it as manual). Augment reads CLAUDE.md and AGENTS.md
        # too (https://docs.augmentcode.com/cli/rules): see readers.py.
        doc="https://docs.augmentcode.com/setup-augment/guidelines",
        root_file=".augment/rules/gitmem.md",
        root_whole=True,
        root_frontmatter=("type: always_apply",),
        user_files=(UserFile("~/.augment/rules/", "Augment Code", "~/.augment"),),
    ),
    Target(
        name="trae",
        tool="Trae",
        # The project rules file Trae creates (its Rules panel: "+ Create project_rules.md"); a block, since the file
        # is Trae's own and may hold hand-written rules. (Trae's docs, https://docs.trae.ai, were not in the stored
        # corpus: this follows Trae's own announcement of rules, cited here.)
        doc="https://xie.infoq.cn/article/777f1b3c8018ef863d898001e",
        root_file=".trae/rules/project_rules.md",
        root_whole=False,
    ),
    Target(
        name="warp",
        tool="Warp",
        # Warp applies the WARP.md (or AGENTS.md) of the root and of the current directory; in one directory a WARP.md
        # shadows AGENTS.md (https://github.com/warpdotdev/warp/pull/9325): a project with a hand-written WARP.md
        # needs the memories there, or Warp never sees AGENTS.md's. Nested files carry directory scopes.
        doc="https://docs.warp.dev/agents/capabilities/rules",
        root_file="WARP.md",
        root_whole=False,
        dir_file="WARP.md",
    ),
)

BY_NAME: dict[str, Target] = {target.name: target for target in TARGETS}


def get(name: str) -> Target:
    return BY_NAME[name]


def user_variant(target: Target, user_file: UserFile, root_file: str) -> Target:
    """``target`` as `compile --user` writes it: one always-loaded file, ``root_file`` (relative to the home
    directory: ``user_file``'s path, or ``gitmem.md`` in its folder), and no path scoping (a memory with ``paths``
    goes into that file under a heading that names its globs)."""
    return replace(
        target,
        tool=user_file.tool,
        root_file=root_file,
        root_whole=user_file.folder,
        root_frontmatter=target.root_frontmatter if user_file.folder else (),
        dir_file=None,
        scoped_dir=None,
        scoped_frontmatter=(),
        limits=tuple(limit for limit in target.limits if limit.measure != "chain_bytes"),
        user_files=(user_file,),
        reads_config=None,
        personal=True,
    )
