"""What kind of text is scanned: prose an agent wrote, or code people review. The kind decides how
strict a rule is.

- ``prose``: memories, journal entries, session logs, and text given to the scanner directly (stdin,
  the MCP server, ``gitmem add``). People and agents write credentials there in sentences ("the
  password is …"), in YAML bodies and in JSON-escaped tool output, so every rule runs, prose rules
  included, and a generic value needs only to look chosen to be hard to guess
  (``filters.plausible``).
- ``prose`` too: documents (``.md``, ``.txt``, ``.rst``…) and transcripts (``.jsonl``, ``.log``)
  anywhere but in a folder of test data.
- ``code``: every other file of a repository (source, configuration, data, fixtures: a ``.log`` or
  ``.txt`` in ``testdata/``, ``fixtures/`` or ``golden/`` is a test's input or expected output,
  terminal colours and all; a transcript there is still read as one, by its content). Prose rules do
  not run, and a generic assignment's value must also look generated
  (``filters.plausible_in_code``): in code, names such as ``token`` and ``credentials`` hold
  variables, test fixtures and words far more often than secrets.

Rules with a provider's fixed format (``ghp_…``, ``AKIA…``, private keys) run the same on both
kinds.
"""

from __future__ import annotations

from typing import Literal

from gitmem.scan.lazyre import lazy

Kind = Literal["prose", "code"]
PROSE: Kind = "prose"
CODE: Kind = "code"

_PROSE_DIRECTORIES = (".memory/memories/", ".memory/journal/")
# Documents people write in sentences, and agents' transcripts
_PROSE_SUFFIXES = (".md", ".markdown", ".mdx", ".txt", ".rst", ".adoc", ".org", ".jsonl", ".log")


# Folders of tests' data: what a file holds there is a test's input or its expected output
_TEST_DATA_DIRECTORIES = frozenset(
    {"testdata", "test-data", "test_data", "fixtures", "__fixtures__", "golden", "__snapshots__"}
)


# Folders of tests, and the names of tests' own files (test_x.py, x_test.go, XTest.kt, x.spec.ts)
_TEST_DIRECTORIES = _TEST_DATA_DIRECTORIES | {
    "test",
    "tests",
    "__tests__",
    "spec",
    "specs",
    "androidtest",
    "unit_tests",
    "testing",
}
_TEST_FILE_RE = lazy(
    r"^tests?[_.]|^Test[A-Z]|_test\.|[a-z\d]Tests?\.\w+$|[._-](?:spec|test|vector)s?\."
)
# A build's test source set or test target, named as one: Kotlin's and Gradle's src/commonTest,
# src/jvmTest, src/androidUnitTest, src/integrationTest; Xcode's damusTests, RunnerTests; .NET's
# Acme.Api.Tests
_TEST_FOLDER_RE = lazy(r"(?:[a-z\d]Tests?|\.(?:Unit|Integration)?Tests)(?:/|$)")


def in_tests(path: str) -> bool:
    """Whether a file is a test's own, or its data: in a folder of tests, or named as a test."""
    folders, _, name = path.rpartition("/")
    return (
        not _TEST_DIRECTORIES.isdisjoint(folders.lower().split("/"))
        or _TEST_FOLDER_RE.search(folders) is not None
        or _TEST_FILE_RE.search(name) is not None
    )


PAGE_HEAD = 2048  # the characters a saved page is recognised by
_RESPONSE_HEAD = "HTTP/"  # a response's status line: HTTP/1.1 200 OK
_HEAD_END_RE = lazy(r"\r?\n\r?\n")  # the blank line after a response's headers
_TEST_RESOURCES = "/test/resources/"


def is_saved_page(path: str, text: str) -> bool:
    """Whether a file is a web page a test keeps as its input (a scraper's saved pages, in a folder
    of test data): the page as the site gave it to every visitor, its keys published with it, and
    the head of the response it came in, if the test kept that too (catarse's YouTube page)."""
    head = text[:PAGE_HEAD]
    if head.startswith(_RESPONSE_HEAD):
        head = _HEAD_END_RE.split(head, maxsplit=1)[-1]
    head = head.lstrip("\ufeff \t\r\n").lower()  # markup first, comments and all
    return (
        head.startswith("<")
        and ("<!doctype html" in head or "<html" in head)
        and _in_test_data(path)
    )


def _in_test_data(path: str) -> bool:
    """Whether a file is in a folder of test data (any folder above it), or in the resources of a
    build's tests (Maven's and Gradle's src/test/resources)."""
    lowered = path.lower()
    return (
        not _TEST_DATA_DIRECTORIES.isdisjoint(lowered.split("/")[:-1])
        or _TEST_RESOURCES in f"/{lowered}"
    )


def file_kind(path: str) -> Kind:
    """The kind of a file, from its path (relative to the repository root when inside one)."""
    if path.startswith(_PROSE_DIRECTORIES):
        return PROSE
    if path.lower().endswith(_PROSE_SUFFIXES) and not _in_test_data(path):
        return PROSE
    return CODE


# Translation files: by their folder (locales/he-IL.json, i18n/ar.yml, he.lproj/), their format
# (gettext, XLIFF, Flutter's ARB, Apple's .strings, .NET's .resx, Fluent), or a name that is a
# locale with a region (he-IL.json, messages_fa_IR.properties)
_LOCALE_DIRECTORIES = frozenset(
    {"locale", "locales", "i18n", "l10n", "lang", "langs", "translations", "translation"}
)
_LOCALE_SUFFIXES = (
    ".po",
    ".pot",
    ".xlf",
    ".xliff",
    ".arb",
    ".strings",
    ".stringsdict",
    ".resx",
    ".ftl",
)
_LOCALE_DATA = (".json", ".yml", ".yaml", ".properties", ".js", ".ts", ".toml", ".ini")


# A settings file for the development environment or the tests', named for it as dotenv's tools
# name them (``.env.development``, ``.env.test``: Vite's, Next.js's, dotenv-flow's), or as the
# frameworks that read one file per environment from their config folder do (Phoenix's and Mix's
# ``config/dev.exs`` and ``config/test.exs``, Rails' ``config/environments/development.rb``,
# Amber's ``config/environments/test.yml``, node-config's ``config/development.json``): the whole
# file is what a development section is in one (Rails' ``development:``), not a machine's own
# ``.env.development.local``, which is kept out of the repository and may hold one's real keys,
# nor the production's file, which reads its secrets from the environment.
_ENVIRONMENT_FILE_RE = lazy(
    r"(?:^|/)\.env\.(?:development|dev|test|testing|e2e)$"
    r"|(?:^|/)config/(?:environments/)?(?:development|dev|test|testing)\.(?:exs|rb|ya?ml|json|toml)$"
)


def is_environment_settings(path: str) -> bool:
    """Whether a file is the development environment's or the tests' settings, by its name."""
    return _ENVIRONMENT_FILE_RE.search(path) is not None


# What Yarn commits of itself (``yarn set version``, ``yarn plugin import``): its own minified
# release, whose strings hold raw control characters. Nobody reviews it line by line.
_VENDORED_TOOL_DIRECTORIES = (".yarn/releases/", ".yarn/plugins/")


def is_vendored_tool(path: str) -> bool:
    """Whether a file is a tool's copy of itself that the tool commits (Yarn's): scanned for
    secrets, not for hidden Unicode."""
    return any(
        path.startswith(folder) or f"/{folder}" in path for folder in _VENDORED_TOOL_DIRECTORIES
    )


# A translation's data, which holds nothing but strings (not its code: ``i18n/index.ts`` sets a
# translation service up, with its token)
_MESSAGE_SUFFIXES = tuple(s for s in _LOCALE_SUFFIXES + _LOCALE_DATA if s not in (".js", ".ts"))


def is_messages(path: str) -> bool:
    """Whether a file is a translation's strings, text people are shown (``gitmem.scan.engine``:
    a name and its value there are no credential)."""
    return path.lower().endswith(_MESSAGE_SUFFIXES) and is_locale(path)


# A detection rule's file (YARA's): its strings are what it looks for in a malware's files, the
# malware's own keys and passwords among them (``$apikey = "…"``), published to catch it
_DETECTION_RULE_SUFFIXES = (".yar", ".yara")


def is_detection_rules(path: str) -> bool:
    """Whether a file holds detection rules, whose strings are what they look for
    (``gitmem.scan.engine``: a name and its value there are no credential)."""
    return path.lower().endswith(_DETECTION_RULE_SUFFIXES)


def is_locale(path: str) -> bool:
    """Whether a file holds translated strings (``gitmem.scan.unicode``: the directional marks
    right-to-left text needs are ordinary there)."""
    lowered = path.lower()
    if (
        lowered.endswith(_LOCALE_SUFFIXES)
        or ".lproj/" in lowered
        or not _LOCALE_DIRECTORIES.isdisjoint(lowered.split("/")[:-1])
    ):
        return True
    if not lowered.endswith(_LOCALE_DATA):
        return False
    stem = path.rpartition("/")[2].rpartition(".")[0]
    # a region at the end of the name, after a language (he-IL, fa_ir, messages_pt_BR) or a script
    # (zh-Hant-TW); a name of one piece has no language ("")
    language, region = ("-" + stem.replace("_", "-")).split("-")[-2:]
    return (
        len(region) == 2
        and (language + region).isalpha()
        and (2 <= len(language) <= 3 or (len(language) == 4 and region.isupper()))
    )
