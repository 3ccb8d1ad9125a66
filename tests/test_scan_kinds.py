"""Precision on real code (issue 14): code shapes seen in popular repositories are not secrets, in either kind of
text; the prose rules and the looser generic judgement apply to memories, journals and session logs only."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from gitmem.scan import policy, scan_text
from gitmem.scan.kinds import CODE, PROSE, file_kind

# Lines from TypeScript, Rust, Python and lockfiles that an earlier version reported as secrets.
CODE_SHAPES = (
    "const apiKey = options?.apiKey ?? process.env.OPENAI_API_KEY;",
    "credentials: init?.credentials",
    "const token = this.session!.token;",
    "use ruff_python_ast::token::TokenKind;",
    "SemanticTokenModifier::DEFINITION",
    "Token::RecursivePrefix => 1,",
    "token: 'workos:old-access'",
    '"@aws-sdk/credential-provider-node": "^3.922.0",',
    '"token": "~3.922.0",',
    '"password-validator": ">=5.1.0",',
    "ANTHROPIC_API_KEY=sk-ant-api03-...",
    "curl https://api.example.org/v1?token=abc",
    "token=abc",
    "password: self.password.clone(),",
    "let token = tokens.next()?;",
    "secret_key: Option<String>,",
    "apiKey: this.apiKey ?? undefined,",
    "\f\ndef main():\n    pass\n",  # a form feed: a page break, not hidden text
)

# Hand-written test fixtures: no provider format, and words where a generated secret has random characters.
FIXTURES = (
    "const syntheticCredential = 'sk-" + "synthetic-private-assistant-" + "token-91a7';",
    "const ACCESS_SECRET = 'private-openai-access-" + "token-44b9';",
    '"client_secret": "chatkit_' + 'token_123",',
    "{ name: 'prefixed', secret: 'whsec_" + "eA==' }",
    "const unicodeSecret = 's\u00ebcret-\u2713-x';",
)

# What people and agents write in memories and session logs: found in prose, as before.
PROSE_ONLY = (
    "The staging password is " + "Qm7" + "vT2kX9!" + " so log in with that.",
    "use the token " + "Tz8qLw3nR5" + "Vb6mK1pXy9Hs4J" + " for the deploy",
)


@pytest.mark.parametrize("line", CODE_SHAPES)
@pytest.mark.parametrize("kind", [CODE, PROSE])
def test_code_shapes_are_not_secrets(line: str, kind: str) -> None:
    assert scan_text(line, hidden=True, kind=kind) == []


@pytest.mark.parametrize("line", FIXTURES)
def test_hand_written_fixtures_in_code_are_not_secrets(line: str) -> None:
    assert scan_text(line, kind=CODE) == []


@pytest.mark.parametrize("line", PROSE_ONLY)
def test_prose_credentials_are_found_in_prose_only(line: str) -> None:
    assert [f.rule for f in scan_text(line, kind=PROSE)] == ["secret-in-prose"]
    assert scan_text(line, kind=CODE) == []


def test_generated_values_are_found_in_code_too() -> None:
    value = "Xk39dLq0Pz8vNw2RtYb7"
    for line in (
        f'const apiKey = "{value}";',
        f'{{"client_secret": "{value}"}}',
        f"export SERVICE_TOKEN={value}",
    ):
        assert [f.rule for f in scan_text(line, kind=CODE)] == ["generic-secret"], line


def test_a_credential_inside_another_assignment_s_string_is_found() -> None:
    """The outer assignment's name is no credential's, so its match is rejected; the one inside it is still found:
    a query string, a command line's option, an environment prefix before a command."""
    value = "Xk39dLq0" + "Pz8vNw2RtYb7"
    lines = (
        f'url = "https://api.example.org/v1/items?user=bob&token={value}"',
        f'config = "user=admin&password={value}"',
        f'run(["mysql", "--password={value}"])',
        f'os.system("API_TOKEN={value} ./deploy.sh")',
    )
    for line in lines:
        found = scan_text(line, kind=CODE)
        assert [f.rule for f in found] == ["generic-secret"], line
        assert line[found[0].start : found[0].end] == value, line


def test_random_values_that_split_like_camel_case_are_found_and_names_are_not() -> None:
    """A random value can split into camel-case parts (muis, RSZ, Tu, JIF, 88): a two-letter part that is no word of
    code (``Tu``) says it is random; names made of words, acronyms, their plurals and versions stay quiet."""
    for value in ("muis" + "RSZTuJIF88", "Qx3qu0" + "oyrrNC", "Lm4" + "TkHuvQwZ9e"):
        assert [f.rule for f in scan_text(f'db_password = "{value}"', kind=CODE)] == [
            "generic-secret"
        ], value
    for name in (
        "labelsById2",
        "makeMockFn42",
        "requestedURLs",
        "ZodCheckIPv4Params",
        "PyStringIO2Test",
    ):
        assert scan_text(f'db_password = "{name}"', kind=CODE) == [], name


def test_the_kind_of_a_file_comes_from_its_place() -> None:
    assert file_kind(".memory/memories/deploy.yaml") == PROSE
    assert file_kind(".memory/journal/2026-11-30.jsonl") == PROSE
    assert file_kind("docs/deploy.md") == PROSE
    assert file_kind("src/client.ts") == CODE
    assert file_kind("") == CODE


def test_gitmem_scan_judges_memories_and_documents_as_prose_and_source_files_as_code(
    tmp_path: Path,
) -> None:
    subprocess.run(["git", "init", "-q", str(tmp_path)], check=True)
    subprocess.run(["gitmem", "init"], cwd=tmp_path, check=True, capture_output=True)
    line = PROSE_ONLY[0] + "\n"
    (tmp_path / "deploy.py").write_text(f"# {line}")
    (tmp_path / "notes.md").write_text(line)
    memories = tmp_path / ".memory" / "memories"
    memories.mkdir(parents=True, exist_ok=True)
    (memories / "staging.md").write_text(line)
    result = subprocess.run(
        ["gitmem", "scan", "--json", "."], cwd=tmp_path, capture_output=True, text=True
    )
    assert result.returncode == 1, result.stderr
    import json

    paths = {f["path"] for f in json.loads(result.stdout)["findings"]}
    assert paths == {".memory/memories/staging.md", "notes.md"}


def test_pdf_illustrator_and_compressed_files_are_binary() -> None:
    from gitmem.scan.inputs import is_binary

    assert is_binary(
        b"%PDF-1.5\r%\xe2\xe3\xcf\xd3\r\n1 0 obj\r<</Metadata 2 0 R>>" + b"\x07\x1b" * 50
    )
    assert is_binary(bytes(range(1, 256)) * 4)  # control bytes and invalid UTF-8, no NUL
    assert not is_binary("caf\u00e9 \x1b[0m colour codes in a test\n".encode() * 20)
    assert not is_binary("na\u00efve text cut in the middle of a character: \u00e9".encode()[:-1])


def test_joiners_inside_persian_and_indic_words_are_spelling_not_hidden_text() -> None:
    from gitmem.scan.unicode import find_hidden

    assert (
        find_hidden("\u0645\u06cc\u200c\u062e\u0648\u0627\u0647\u0645") == []
    )  # Persian: mi-khaham
    assert find_hidden("\u0ca8\u0ccd\u200d\u0caf") == []  # Kannada: a joiner after a virama
    assert [c.codepoint for c in find_hidden("ab\u200ccd \u062e\u200c")] == [0x200C, 0x200C]


def test_a_non_joiner_ends_a_sorani_kurdish_word_on_its_heh() -> None:
    """Sorani Kurdish writes a word's last heh with a ZERO WIDTH NON-JOINER after it, before a space
    or a quote (authelia's ku-TR translations); before a letter, another hidden character or
    nothing, it is no spelling."""
    from gitmem.scan.unicode import find_hidden

    kurdish = '"\u06a9\u06ce\u0634\u0647\u200c \u0647\u06d5\u0628\u0648\u0648", "\u0628\u06a9\u0647\u200c"'
    assert find_hidden(kurdish) == []
    assert find_hidden("\u0647\u200c.") == []
    for text in (
        "\u0647\u200c1",
        "\u0647\u200c\u200b ",
        "\u0647\u200c\u2028",
        "a\u200c ",
        "\u0647\u200c",
    ):
        assert [c.codepoint for c in find_hidden(text)][:1] == [0x200C], text


def test_malayalams_chillu_and_persians_suffix_after_a_latin_word_are_spelling() -> None:
    """Malayalam writes a word's last consonant as a chillu, its virama then a ZERO WIDTH JOINER
    (listmonk's ml.json: 37 lines); Persian joins a suffix to a Latin word with a non-joiner
    (logto's fa-ir: ``URI\u200cهای``). A joiner between Latin letters, or a non-joiner before a
    Latin letter after another, is not."""
    from gitmem.scan.unicode import find_hidden

    assert find_hidden('"\u0d2a\u0d19\u0d4d\u0d15\u0d41\u0d15\u0d33\u0d4d\u200d",') == []
    assert find_hidden("\u0d32\u0d4b\u0d17\u0d3f\u0d28\u0d4d\u200d \u0d38") == []
    assert find_hidden("'URI\u200c\u0647\u0627\u06cc'") == []
    for text in ("a\u200db", "URI\u200cs", "a\u200d "):
        assert [c.codepoint for c in find_hidden(text)][:1] in ([0x200C], [0x200D]), text


def test_a_non_joiner_after_a_space_before_a_persian_suffix_is_spelling() -> None:
    """Persian writers set a suffix apart from the Latin word before it with a space and a ZERO
    WIDTH NON-JOINER (vitepress's Persian guide: ``API \u200cها``, ``slot \u200cهای``; batch 23):
    the mirror of Sorani Kurdish's non-joiner after a word's last heh. Before a Latin letter, or
    beside another hidden character, it is a finding."""
    from gitmem.scan.unicode import find_hidden

    assert find_hidden("## slot \u200c\u0647\u0627\u06cc \u0637\u0631\u062d") == []
    assert find_hidden("(\u200c\u0647\u0627)") == []
    for text in ("a \u200cb", "\u200b\u200c\u0647", " \u200c\u200c\u0647"):
        assert [c.codepoint for c in find_hidden(text)] != [], text


def test_one_zero_width_space_quoted_alone_says_nothing() -> None:
    """mkdocs-material's GitHub discussion templates give a field the label ``"\u200b"`` so that it
    looks empty (batch 23); code keeps the character as a constant the same way. One, quoted alone,
    carries nothing; two, or one inside a word or beside other text, stay findings."""
    from gitmem.scan.unicode import find_hidden

    for text in ('    label: "\u200b"', "ZWSP = '\u200b'", "`\u200b`"):
        assert find_hidden(text) == [], text
    for text in ('label: "\u200b\u200b"', "it'\u200b's", 'say "\u200bhi"', '"\u200b'):
        assert find_hidden(text) != [], text


def test_what_translators_tools_leave_is_allowed_in_translation_files_only() -> None:
    """Machine translation leaves two ZERO WIDTH SPACEs beside a space (outline's Hebrew, logto's
    Spanish, memos' Portuguese, listmonk's Dutch…); a German translator hyphenates a long word with
    soft hyphens. In a translation file those are allowed; elsewhere, and one zero-width space
    alone or three, or a soft hyphen outside a word, stay findings."""
    from gitmem.scan.unicode import find_hidden

    pair = '"Import data": "\u05d9\u05d9\u05d1\u05d5\u05d0 \u200b\u200b\u05e0\u05ea\u05d5\u05e0\u05d9\u05dd",'
    shy = '"t": "Status der Seiten\xadschutz\xadma\xdfnahmen"'
    for text in (pair, shy, "usados\u200b\u200b ao"):
        assert find_hidden(text, marks=True) == [], text
        assert find_hidden(text) != [], text
    for text in ("a \u200bb", "a \u200b\u200b\u200bb", "ab\u200b\u200bcd", "a \xadb", "a\xad"):
        assert find_hidden(text, marks=True) != [], text


def test_a_mark_after_a_right_to_left_abbreviations_full_stop() -> None:
    """CLDR writes the Egyptian pound's symbol as an abbreviation and a RIGHT-TO-LEFT MARK after
    its last full stop (medusa's currency tables); after a Latin abbreviation's, it is a finding."""
    from gitmem.scan.unicode import find_hidden

    assert find_hidden('symbol_native: "\u062c.\u0645.\u200f",') == []
    assert [c.codepoint for c in find_hidden('symbol_native: "E.P.\u200f",')] == [0x200F]


def test_a_zero_width_space_ends_a_word_of_khmer_thai_or_myanmar() -> None:
    """Scripts written without spaces mark a word's end with ZERO WIDTH SPACE (umami's Khmer
    messages); beside Latin letters, or in a run of them, it hides text."""
    from gitmem.scan.unicode import find_hidden

    assert find_hidden('"\u200b\u178a\u17c6\u178e\u17be\u179a \u178f\u17b7\u1785\u200b"') == []
    assert find_hidden("\u0e20\u0e32\u0e29\u0e32\u200b\u0e44\u0e17\u0e22") == []  # Thai
    assert find_hidden("\u1019\u103c\u1014\u103a\u200b\u1019\u102c") == []  # Myanmar
    assert [c.column for c in find_hidden("use\u200bpnpm")] == [4]
    assert [c.column for c in find_hidden("\u1780\u200b\u200b\u200b\u1781")] == [3]


def test_a_url_password_that_is_a_word_is_a_secret_in_prose_only() -> None:
    line = "The prod database is postgres://admin:" + "sun" + "shine" + "@db.internal:5432/app"
    assert [f.rule for f in scan_text(line, kind=PROSE)] == ["database-url"]
    assert scan_text(line, kind=CODE) == []
    for quiet in (
        "postgres://postgres:postgres@localhost:5432/app",
        "https://user:password@example.com/",
    ):
        assert scan_text(quiet, kind=PROSE) == []


def test_a_document_in_a_folder_of_test_data_is_a_fixture() -> None:
    """rclone's bisync tests keep their expected output as ``testdata/…/golden/test.log``, a
    terminal's colours and all (10,842 escapes in batch 27, each a hidden-Unicode finding while a
    ``.log`` read as prose). In a folder of test data a ``.log``, ``.txt`` or ``.md`` is a test's
    input or expected output: code, whose colours that hide nothing are its own. A document
    elsewhere, and a memory, is prose still; a concealed line in a golden file is still found."""
    for path in ("cmd/bisync/testdata/test_resolve/golden/test.log", "tests/fixtures/readme.md"):
        assert file_kind(path) == CODE, path
    for path in ("docs/testdata.md", "tests/notes.txt", "run.log", ".memory/memories/fixtures.md"):
        assert file_kind(path) == PROSE, path
    golden = "\x1b[36m(01)  :\x1b[0m \x1b[34mtest volatile\x1b[0m\n" * 20
    reviewed = policy.policy("cmd/bisync/testdata/golden/test.log", "test.log", golden)
    assert [
        f for f in policy.scan(golden, "test.log", reviewed) if f.rule == "hidden-unicode"
    ] == []
    document = policy.policy("docs/run.log", "run.log", golden)
    assert [f for f in policy.scan(golden, "run.log", document) if f.rule == "hidden-unicode"]
    concealed = golden + "\x1b[8mconcealed\x1b[0m\n"
    assert [f for f in policy.scan(concealed, "test.log", reviewed) if f.rule == "hidden-unicode"]
