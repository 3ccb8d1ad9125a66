"""A name and its value are found however the assignment is written out (round 34; a setter's or a
builder's call, round 60; a form body's first parameter, round 61).

The peer suite's misses showed credentials the scanner passed because of how the line was laid out, not what it
held: a value given as the default of an environment variable (``process.env.ACCOUNT_KEY || "…"``, ``${DB_PASSWORD:-…}``
in a compose file), and an assignment a formatter wrapped (black's ``KEY = (\\n    "…"\\n)``, Java's ``KEY\\n    =
"…"``). For every rule of the table whose examples assign a value to a name (a rule added later is covered by its
examples), each layout below must be found by the same rules as the plain ``NAME = "value"``. The values are the
rules' own examples, built at run time.
"""

from __future__ import annotations

import pytest

from gitmem.scan import rules, scan_text
from gitmem.scan.kinds import CODE
from gitmem.scan.rules import Rule
from tests.test_scan_typed import NAMED, assignments

# (layout, the line with {N} for the name and {V} for the value)
LAYOUTS: tuple[tuple[str, str], ...] = (
    ("JavaScript ||", 'const value = process.env.{N} || "{V}";'),
    ("TypeScript ??", "export const value = process.env.{N} ?? '{V}';"),
    ("JavaScript || wrapped", 'export const value =\n  process.env.{N} ||\n  "{V}";'),
    ("Kotlin ?:", 'val value = System.getenv("{N}") ?: "{V}"'),
    ("C# ??", 'var value = Environment.GetEnvironmentVariable("{N}") ?? "{V}";'),
    ("Swift ??", 'let value = ProcessInfo.processInfo.environment["{N}"] ?? "{V}"'),
    ("PHP ??", "$value = $_ENV['{N}'] ?? '{V}';"),
    ("Ruby ||", 'value = ENV["{N}"] || "{V}"'),
    ("Python or", 'value = os.environ.get("{N}") or "{V}"'),
    ("Lua or", 'local value = os.getenv("{N}") or "{V}"'),
    ("compose default", "      {N}: ${{{N}:-{V}}}"),
    ("shell default", 'export {N}="${{{N}:-{V}}}"'),
    ("black's parentheses", '{N} = (\n    "{V}"\n)'),
    ("wrapped after =", '{N} =\n    "{V}"'),
    ("Java, = on the next line", 'public static final String {N}\n        = "{V}";'),
    ("C++ braces", 'static const std::string {N}{{"{V}"}};'),
    ("C++ braces wrapped", 'static const std::string {N}{{\n    "{V}"}};'),
    ("a setter's call", 'client.{N}("{V}");'),
    ("a builder's chained call", '        .{N}("{V}")'),
    ("a form body's first parameter", 'body = "{N}={V}&grant_type=client_credentials"'),
    ("a string of one setting", "cookie = '{N}={V}'"),
)


def rules_found(text: str) -> set[str]:
    return {finding.rule for finding in scan_text(text, kind=CODE)}


def value_found(text: str, value: str) -> bool:
    """Whether a finding lies in the value (a more specific rule may take it: ``storageAccountKey=…``
    is a connection string's ``AccountKey=…`` too; a URL's ``hapikey=…`` is the key, not the URL)."""
    at = text.index(value)
    return any(f.start < at + len(value) and at < f.end for f in scan_text(text, kind=CODE))


# The rules that read a name, then its value (through rules._ASSIGN, or the generic rule's own
# alternatives); a rule that reads a whole token (a URL, a connection string) has no name to move
JOINED = [rule for rule in NAMED if rules._ASSIGN in rule.pattern or rule.judged == "generic"]


def test_the_rules_that_read_a_name_then_a_value_are_covered() -> None:
    assert {"aws-secret-access-key", "generic-secret", "azure-storage-account-key"} <= {
        rule.id for rule in JOINED
    }


@pytest.mark.parametrize("rule", JOINED, ids=[rule.id for rule in JOINED])
def test_a_default_or_a_wrapped_assignment_is_found_as_the_plain_one(rule: Rule) -> None:
    missed = []
    for name, value in assignments(rule):
        if rule.id not in rules_found(f'{name} = "{value}"'):
            continue  # the plain line does not carry the rule's secret either
        for layout, template in LAYOUTS:
            if not value_found(template.format(N=name, V=value), value):
                missed.append(f"{layout}: {template.format(N=name, V='…')}")
    assert not missed, missed


@pytest.mark.parametrize(
    "text",
    [
        'const value = process.env.API_TOKEN || "";',
        "const value = process.env.API_TOKEN ?? defaultToken;",
        "      POSTGRES_PASSWORD: ${POSTGRES_PASSWORD:-postgres}",
        "      POSTGRES_PASSWORD: ${POSTGRES_PASSWORD:-changeme}",
        "      API_KEY: ${API_KEY:-}",
        'password = os.environ.get("DB_PASSWORD") or "password"',
        "const token = user.token || fallbackToken;",
        "if (secret) {\n  return true;\n}",
        "TOKEN=\nOTHER_SETTING=on",
        'String password = config.getPassword("database");',
        'const token = lookupToken("github");',
        "The password (`usuario:contrasena@`) is a URL's.",
    ],
)
def test_a_default_that_is_empty_a_name_or_a_stand_in_says_nothing(text: str) -> None:
    assert rules_found(text) == set(), text


def test_a_wrapped_line_reaches_one_line_on_at_most() -> None:
    """The window runs on from a line that ends in an operator (or to a line that starts with one), not over the rest
    of the file: a value three lines on is not the name's."""
    name, value = next(
        pair for rule in NAMED if rule.id == "generic-secret" for pair in assignments(rule)
    )
    assert rules_found(f'{name} =\n    "{value}"') == {"generic-secret"}
    assert rules_found(f'{name} =\n\n\n    "{value}"') == set()


def test_a_map_s_first_key_after_its_type_s_brace_is_no_value() -> None:
    """external-secrets' e2e suite (batch 25): ``Secrets = map[string]SecretEntry{`` and, on the next
    line, ``"e2e-crd-getonly-find": {…}``. A brace opens C++'s initialiser only when the string
    is all it holds; the map's first key is a name, whatever the type is called. Its value is
    read as any map's."""
    entries = '\n    "e2e-crd-getonly-find": {Value: `{"marker":"nope"}`},\n}'
    assert scan_text(f"tc.Secrets = map[string]framework.SecretEntry{{{entries}", kind=CODE) == []
    value = rules._r(rules._ALNUM, 32)
    line = f'tokens := map[string]SecretEntry{{\n    "deploy": {{Token: "{value}"}},\n}}'
    assert value_found(line, value)


def test_a_call_s_one_argument_is_the_name_s_value_and_no_other_call_s() -> None:
    """A setter's or a builder's one argument is the value its name takes (``setPassword("…")``,
    ``.apiKey("…")``); a call of more arguments checks or derives (``check_password("…",
    digest)``), and a parenthesis after a space is prose's aside."""
    value = rules._r(rules._ALNUM, 24)
    assert value_found(f'client.setPassword("{value}");', value)
    assert value_found(f'    .apiKey("{value}")', value)
    assert rules_found(f'ok = check_password("{value}", digest)') == set()
    # a call that looks a credential up by its argument, or tests for it
    assert rules_found(f'token = oauth.getAccessToken("{value}");') == set()
    assert rules_found(f'assertTrue(data.containsKey("{value}"));') == set()
    assert rules_found(f'sheet = client.open_by_key("{value}")') == set()
    assert (
        rules_found('assert extract_quant_token("Foo-BF16-UD-Q4_K_XL.gguf") == "UD-Q4_K_XL"')
        == set()
    )
    assert rules_found('assert gguf_variant_key("model-IQ4_XS-3.53bpw.gguf") == key') == set()
    assert rules_found(f"The password (`{value}`) is set in the vault.") == set()
