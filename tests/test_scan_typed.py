"""A type annotation never hides a credential (issue 32, point 6).

``pub const AWS_SECRET_ACCESS_KEY: &str = "…"`` passed the hook while the same line without ``: &str`` was caught.
For every rule of the table whose examples assign a value to a name (``NAME = value``, ``NAME: value``: a rule added
later is covered by its examples), the name and value are written as a declaration in each language below, with its
type and without: the typed line must be found by the same rules as the untyped one. The values are the rules' own
examples, built at run time.
"""

from __future__ import annotations

import re

import pytest

from gitmem.scan import scan_text
from gitmem.scan.kinds import CODE
from gitmem.scan.rules import RULES, Rule, examples_of

# (language, declaration with {T} where the type goes, the type)
DECLARATIONS: tuple[tuple[str, str, str], ...] = (
    ("Rust const", 'pub const {N}{T} = "{V}";', ": &str"),
    ("Rust static", 'static {N}{T} = "{V}";', ": &'static str"),
    ("TypeScript", 'const {N}{T} = "{V}";', ": string"),
    ("TypeScript union", "export let {N}{T} = '{V}';", ": string | undefined"),
    ("TypeScript field", '  private readonly {N}{T} = "{V}";', ": string"),
    ("Kotlin", 'val {N}{T} = "{V}"', ": String"),
    ("Kotlin nullable", 'private const val {N}{T} = "{V}"', ": String?"),
    ("Swift", 'let {N}{T} = "{V}"', ": String"),
    ("Swift optional", 'static var {N}{T} = "{V}"', ": String?"),
    ("Scala", 'val {N}{T} = "{V}"', ": String"),
    ("Go const", 'const {N}{T} = "{V}"', " string"),
    ("Go var", 'var {N}{T} = "{V}"', " string"),
    ("Java", 'private static final{T} {N} = "{V}";', " String"),
    ("C#", 'public const{T} {N} = "{V}";', " string"),
    ("C# nullable", 'private{T} {N} = "{V}";', " string?"),
    ("Python", '{N}{T} = "{V}"', ": str"),
    ("Python Final", '{N}{T} = "{V}"', ": Final[str]"),
    ("Python typing", '{N}{T} = "{V}"', ": typing.Final[str]"),
    ("Python union", '{N}{T} = "{V}"', ": str | None"),
    ("PHP typed property", "    private{T} ${N} = '{V}';", " string"),
    ("PHP nullable property", '    public{T} ${N} = "{V}";', " ?string"),
    ("Dart", "final{T} {N} = '{V}';", " String"),
    ("C++", 'const{T} {N} = "{V}";', " char*"),
    ("C++ string_view", 'constexpr{T} {N} = "{V}";', " std::string_view"),
    ("Julia", 'const {N}{T} = "{V}"', "::String"),
    ("Zig", 'const {N}{T} = "{V}";', ": []const u8"),
    ("Nim", 'let {N}{T} = "{V}"', ": string"),
)

# An example that assigns a value to a name: NAME = value, NAME: value, "NAME": "value", export NAME=value
_ASSIGNMENT = re.compile(
    r"""^\s*(?:export\s+)?(?P<q>["']?)(?P<name>[A-Za-z_]\w*)(?P=q)\s*(?:=|:)\s*(?P<vq>["'`]?)(?P<value>[^\s"'`]+)"""
    r"""(?P=vq)\s*[;,]?\s*$"""
)


def assignments(rule: Rule) -> list[tuple[str, str]]:
    """The (name, value) pairs of ``rule``'s examples that assign a value to a name."""
    found = []
    for example in examples_of(rule):
        match = _ASSIGNMENT.match(example)
        if match:
            found.append((match.group("name"), match.group("value")))
    return found


NAMED = [rule for rule in RULES if assignments(rule)]


def rules_found(line: str) -> set[str]:
    return {finding.rule for finding in scan_text(line, kind=CODE)}


def test_the_rules_that_read_a_name_and_a_value_are_covered() -> None:
    """The rules the issue named, and the generic one, have examples of the shape (else the test tests nothing)."""
    assert {"aws-secret-access-key", "generic-secret", "datadog-api-key"} <= {
        rule.id for rule in NAMED
    }


@pytest.mark.parametrize("rule", NAMED, ids=[rule.id for rule in NAMED])
def test_a_typed_declaration_is_found_as_the_untyped_one(rule: Rule) -> None:
    missed = []
    for name, value in assignments(rule):
        for language, template, type_ in DECLARATIONS:
            untyped = template.format(N=name, T="", V=value)
            expected = rules_found(untyped)
            if rule.id not in expected:
                continue  # this declaration does not carry the rule's secret (a name a language cannot spell)
            typed = template.format(N=name, T=type_, V=value)
            found = rules_found(typed)
            if not expected <= found:
                missed.append(
                    f"{language}: {sorted(expected - found)} in {template.format(N=name, T=type_, V='…')}"
                )
    assert not missed, missed


def test_the_issue_s_three_lines() -> None:
    rule = next(rule for rule in RULES if rule.id == "aws-secret-access-key")
    _, value = assignments(rule)[0]
    for line in (
        f'pub const AWS_SECRET_ACCESS_KEY: &str = "{value}";',
        f'const awsSecretAccessKey: string = "{value}";',
        f'val awsSecretAccessKey: String = "{value}"',
    ):
        assert "aws-secret-access-key" in rules_found(line), line.split("=")[0]


def test_a_type_is_not_taken_for_a_value() -> None:
    """``token: string`` (a field, no value) and ``password: str = ""`` say nothing; nor does a type spelt like a
    secret."""
    for line in (
        "  token: string;",
        'password: str = ""',
        "apiKey: Option<String> = None",
        "let secret_key: &str = &config.secret_key;",
        "private readonly apiToken: string = process.env.API_TOKEN!;",
    ):
        assert rules_found(line) == set(), line


def test_every_rule_that_reads_an_assignment_takes_a_type() -> None:
    """A rule that writes its own assignment (``(?:=|:|=>)``) instead of _ASSIGN would miss typed declarations:
    every pattern with an assignment's operators holds the type annotation piece."""
    from gitmem.scan import rules

    for rule in RULES:
        if "(?:=|" in rule.pattern:
            assert rules._TYPED in rule.pattern, rule.id
