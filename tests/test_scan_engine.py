"""The scanner's rules, engine, decoding, pragmas and redaction (the core, without the command line)."""

from __future__ import annotations

import base64
import json
import random
import re
import string
import urllib.parse

import pytest

from gitmem.scan import HIDDEN_RULE, redact, scan_text
from gitmem.scan.engine import fingerprint, preview
from gitmem.scan.kinds import CODE
from gitmem.scan.rules import RULES, Rule, counter_examples_of, examples_of

_rng = random.Random(7)


def token(alphabet: str = string.ascii_letters + string.digits, n: int = 36) -> str:
    return "".join(_rng.choice(alphabet) for _ in range(n))


def ghp() -> str:
    return "ghp_" + token()


def rules_found(text: str) -> list[str]:
    return [finding.rule for finding in scan_text(text)]


# -- rules as data -------------------------------------------------------------------------------------------------


def test_rules_are_data_with_stable_unique_ids_and_examples() -> None:
    ids = [rule.id for rule in RULES]
    assert len(ids) == len(set(ids))
    assert len(ids) >= 45
    for rule in RULES:
        assert re.fullmatch(r"[a-z0-9]+(?:-[a-z0-9]+)*", rule.id), rule.id
        assert rule.keywords and all(k == k.lower() for k in rule.keywords), rule.id
        assert examples_of(rule), f"{rule.id} has no example"
        assert "secret" in re.compile(rule.pattern).groupindex or rule.generic, rule.id


@pytest.mark.parametrize("rule", RULES, ids=lambda rule: rule.id)
def test_every_example_is_found_by_its_rule(rule: Rule) -> None:
    for example in examples_of(rule):
        assert rule.id in rules_found(example), example


@pytest.mark.parametrize(
    "rule", [r for r in RULES if counter_examples_of(r)], ids=lambda rule: rule.id
)
def test_no_counter_example_is_found_by_any_rule(rule: Rule) -> None:
    for example in counter_examples_of(rule):
        assert rules_found(example) == [], example


def test_every_keyword_occurs_in_its_rule_examples() -> None:
    """A rule only runs where a keyword (or its trigger) occurs: its examples prove each rule can wake up."""
    for rule in RULES:
        for example in examples_of(rule):
            by_trigger = rule.trigger is not None and re.search(rule.trigger, example) is not None
            assert by_trigger or any(k in example.lower() for k in rule.keywords), (
                rule.id,
                example,
            )


def test_a_trigger_wakes_its_rule_without_the_keyword() -> None:
    """The Discord rule runs on lines without the word "discord" (its trigger), and only in the published shape."""
    import base64

    [rule] = [r for r in RULES if r.id == "discord-bot-token"]
    assert rule.trigger is not None
    user = base64.b64encode(("1" + token(string.digits, 18)).encode()).decode().rstrip("=")
    secret = f"{user}.{token(n=6)}.{token(n=38)}"
    text = f"import os\n\nclient.run('{secret}')\n"
    assert "discord" not in text.lower()
    [finding] = scan_text(text, kind="code")
    assert finding.rule == "discord-bot-token" and text[finding.start : finding.end] == secret
    # the same shape with a first part that is not a user id: base64 of random bytes
    other = base64.urlsafe_b64encode(token().encode()[:18]).decode().rstrip("=")
    assert scan_text(f"client.run('{other}.{token(n=6)}.{token(n=38)}')\n", kind="code") == []
    # discord.py's documented sample token (the shape is real; it is in every tutorial) is not a finding
    sample = (
        base64.b64encode(b"245559087524216832").decode()
        + "."
        + "Duly"
        + "xA."
        + "brcD2xRAqj"
        + "ACTuMcGPwy4TWVQdg"
    )
    assert scan_text(f"client.run('{sample}')\n", kind="code") == []
    # on a long line (windowed around each trigger match) the token is still found
    long_line = "x = 1; " * 2000 + f"client.run('{secret}'); " + "y = 2; " * 2000
    assert [f.rule for f in scan_text(long_line, kind="code")] == ["discord-bot-token"]


# -- findings ------------------------------------------------------------------------------------------------------


def test_finding_offsets_line_column_and_preview() -> None:
    secret = ghp()
    text = f"first line\n  TOKEN = '{secret}'\n"
    [finding] = scan_text(text, "config.py")
    assert (finding.rule, finding.line, finding.column, finding.path) == (
        "github-pat",
        2,
        12,
        "config.py",
    )
    assert text[finding.start : finding.end] == secret
    assert finding.preview == "ghp_… (40 chars)"
    assert secret not in finding.describe() and secret[4:12] not in finding.preview
    assert finding.place() == fingerprint("config.py", "github-pat", "TOKEN = '\u2039secret\u203a'")
    assert re.fullmatch(
        r"v3:config\.py:github-pat:[0-9a-f]{16}:[0-9a-f]{16}", finding.fingerprint()
    )


@pytest.mark.parametrize(
    ("secret", "shown"),
    [("abcdefgh", "ab… (8 chars)"), ("abc", "… (3 chars)"), ("x" * 100, "xxxx… (100 chars)")],
)
def test_preview_shows_at_most_a_quarter_and_four_characters(secret: str, shown: str) -> None:
    assert preview(secret) == shown


def test_fingerprint_is_the_place_and_kind_and_nothing_of_the_value() -> None:
    """Path, rule and the masked line: the same for another secret on the same line, not for the same secret on
    another line or in another file; lines added above change nothing."""
    secret, other = ghp(), ghp()
    a = scan_text(f"x = '{secret}'", "a.py")[0]
    assert (
        a.place() == scan_text(f"x = '{other}'", "a.py")[0].place()
    )  # the value is not in the place
    # a provider's format: the entry names the value too (issue 32, point 4)
    assert a.fingerprint() != scan_text(f"x = '{other}'", "a.py")[0].fingerprint()
    assert (
        a.fingerprint() == scan_text(f"\n\n  x = '{secret}'\r", "a.py")[0].fingerprint()
    )  # nor the line number
    assert a.fingerprint() != scan_text(f"y = '{secret}'", "a.py")[0].fingerprint()
    assert a.fingerprint() != scan_text(f"x = '{secret}'", "b.py")[0].fingerprint()
    assert fingerprint("a.py", "github-pat", "x") != fingerprint("a.py", "npm-token", "x")
    assert secret[4:] not in a.fingerprint() and secret[-8:] not in a.fingerprint()


def test_overlapping_rules_report_the_most_specific_once() -> None:
    secret = ghp()
    assert rules_found(f'GITHUB_TOKEN="{secret}"') == ["github-pat"]  # not also generic-secret


def test_redact_replaces_each_secret_and_keeps_everything_else() -> None:
    a, b = ghp(), "npm_" + token()
    text = f"a = '{a}'  # keep\nb: {b}\nend\n"
    clean = redact(text, scan_text(text))
    assert clean == "a = '‹redacted:github-pat›'  # keep\nb: ‹redacted:npm-token›\nend\n"


# -- decoys stay quiet ---------------------------------------------------------------------------------------------

DECOYS = [
    "password = os.environ['DB_PASSWORD']",
    'api_key = "<YOUR_API_KEY>"',
    "password: changeme",
    "GITHUB_TOKEN=ghp_xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx",
    "token: ${{ secrets.GITHUB_TOKEN }}",
    "secret: {{ vault_secret }}",
    "aws_access_key_id = AKIA" + "IOSFODNN7EXAMPLE",
    "commit = '" + "0a1b2c3d4e5f" * 3 + "01234567'",
    'integrity: "sha512-' + base64.b64encode(bytes(range(64))).decode() + '"',
    "id: 123e4567-e89b-12d3-a456-426614174000",
    "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAI" + token(n=43) + " user@host",
    "STRIPE_PUBLISHABLE_KEY=pk_test_" + token(n=24),
    "STRIPE_KEY=sk_live_****************abcd",
    "token = self.tokenizer.next_token()",
    "The password is stored in the vault.",
]


@pytest.mark.parametrize("line", DECOYS)
def test_decoys_are_quiet(line: str) -> None:
    assert scan_text(line) == []


# -- session logs: decoding ----------------------------------------------------------------------------------------


def test_secret_behind_json_escapes_is_found_at_its_place_in_the_raw_text() -> None:
    secret = ghp()
    nested = json.dumps({"content": json.dumps({"url": f"https://{secret}@github.com/o/r"})})
    [finding] = scan_text(nested)
    assert finding.rule == "github-pat"
    assert nested[finding.start : finding.end] == secret


def test_generic_assignment_inside_a_json_string_with_newlines() -> None:
    password = "Xq7#" + token(n=14)
    line = json.dumps(
        {"type": "tool_result", "content": f"$ cat .env\nDEBUG=0\nDB_PASSWORD={password}\n"}
    )
    [finding] = scan_text(line)
    assert (finding.rule, line[finding.start : finding.end]) == ("generic-secret", password)


def test_json_unicode_escapes_are_decoded_and_mapped_back() -> None:
    secret = ghp()
    escaped = "".join(f"\\u{ord(c):04x}" for c in secret[:6]) + secret[6:]
    line = '{"content": "token ' + escaped + '"}'
    [finding] = scan_text(line)
    assert line[finding.start : finding.end] == escaped
    assert redact(line, [finding]) == '{"content": "token ‹redacted:github-pat›"}'


@pytest.mark.parametrize("path", ["tokens.go", "tokens.py", "notes.md"])
def test_a_string_literal_s_hex_escapes_are_decoded_and_mapped_back(path: str) -> None:
    """A token written as ``\\x67\\x68…`` in a string literal (Go, Python, JavaScript, C, Rust,
    PHP), in double quotes or single, is the token: the escapes are decoded as JSON's ``\\u0067``
    are, and the finding covers them in the raw text."""
    secret = ghp()
    escaped = "".join(f"\\x{ord(c):02x}" for c in secret)
    for line in (f'const token = "{escaped}";', f"token = '{escaped}'"):
        [finding] = scan_text(line, path)
        assert (finding.rule, line[finding.start : finding.end]) == ("github-pat", escaped)


def test_url_encoded_credentials_are_found() -> None:
    password = "Vb9!" + token(n=16)
    body = urllib.parse.urlencode(
        {"user": "deploy", "client_secret": password, "grant_type": "password"}
    )
    [finding] = scan_text(f"curl -d '{body}' https://auth.example.org/token")
    assert finding.rule == "generic-secret"
    assert urllib.parse.unquote(f"curl -d '{body}'"[finding.start : finding.end]) == password


def test_base64_encoded_env_file_is_found_and_the_covering_text_redacted() -> None:
    secret = ghp()
    blob = base64.b64encode(f"APP=1\nGITHUB_TOKEN={secret}\n".encode()).decode()
    text = f"data:\n  env: {blob}\n"
    [finding] = scan_text(text)
    assert finding.rule == "github-pat" and finding.line == 2
    assert (
        blob.find(text[finding.start : finding.end]) >= 0
    )  # a run of the base64 covering the secret
    assert len(text[finding.start : finding.end]) >= len(secret) * 4 // 3
    redacted = redact(text, [finding])
    assert "‹redacted:github-pat›" in redacted and scan_text(redacted) == []


def test_decoding_is_bounded_and_can_be_turned_off() -> None:
    secret = ghp()
    once = base64.b64encode(f"GITHUB_TOKEN={secret}".encode()).decode()
    thrice = base64.b64encode(base64.b64encode(once.encode())).decode()
    assert rules_found(once) == ["github-pat"]
    assert scan_text(once, decode=0) == []
    assert scan_text(thrice, decode=2) == []
    assert [f.rule for f in scan_text(thrice, decode=3)] == ["github-pat"]


@pytest.mark.parametrize(
    "sentence",
    [
        "the staging password is {pw}, log in with that",
        "Password: {pw}",
        "try again with the password `{pw}`.",
        "I set the token to {pw} in CI",
    ],
)
def test_credentials_in_prose_are_found(sentence: str) -> None:
    pw = "Kd8%" + token(n=12)
    text = sentence.format(pw=pw)
    [finding] = scan_text(text)
    assert text[finding.start : finding.end] == pw


# -- allow pragmas -------------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "comment",
    [
        "# gitmem:allow",
        "// gitmem:allow",
        "/* gitmem:allow */",
        "-- gitmem:allow",
        "<!-- gitmem:allow -->",
        "# pragma: allowlist secret",
        "// gitleaks:allow",
    ],
)
def test_inline_pragmas_allow_a_line_in_any_comment_syntax(comment: str) -> None:
    secret = ghp()
    assert scan_text(f"token = '{secret}'  {comment}", pragmas=True) == []
    assert [f.rule for f in scan_text(f"token = '{secret}'\n{comment}", pragmas=True)] == [
        "github-pat"
    ]
    # by default (memories, session logs: text an agent may write) a pragma allows nothing
    assert rules_found(f"token = '{secret}'  {comment}") == ["github-pat"]


@pytest.mark.parametrize(
    "comment", ["# gitmem:allow-next-line", "# pragma: allowlist nextline secret"]
)
def test_next_line_pragmas(comment: str) -> None:
    secret = ghp()
    assert scan_text(f"{comment}\ntoken = '{secret}'", pragmas=True) == []
    assert [f.rule for f in scan_text(f"{comment}\n\ntoken = '{secret}'", pragmas=True)] == [
        "github-pat"
    ]


# -- hidden Unicode ------------------------------------------------------------------------------------------------


def test_hidden_unicode_findings_only_when_asked() -> None:
    text = "use pnpm\u200b, never npm\n"
    assert scan_text(text) == []
    [finding] = scan_text(text, hidden=True)
    assert (finding.rule, finding.line, finding.column) == (HIDDEN_RULE, 1, 9)
    assert finding.describe() == "hidden Unicode character U+200B (ZERO WIDTH SPACE)"
    assert redact(text, [finding]) == "use pnpm, never npm\n"


@pytest.mark.parametrize(
    ("text", "hidden"),
    [
        ("\ufeffleading byte-order mark", []),
        ("a byte-order mark\ufeff inside", [0xFEFF]),
        ("family \U0001f468\u200d\U0001f469\u200d\U0001f467", []),
        ("heart \u2764\ufe0f", []),
        ("flag \U0001f3f4\U000e0067\U000e0062\U000e0073\U000e0063\U000e0074\U000e007f", []),
        ("tag smuggling \U000e0041\U000e0042", [0xE0041]),  # one run: one finding
        ("bidi \u202eevil", [0x202E]),
        ("joiner\u200dalone", [0x200D]),
    ],
)
def test_hidden_unicode_exceptions(text: str, hidden: list[int]) -> None:
    found = [f for f in scan_text(text, hidden=True) if f.rule == HIDDEN_RULE]
    assert [int(f.preview[2:].split()[0], 16) for f in found] == hidden


def test_a_run_of_hidden_characters_is_one_finding() -> None:
    """An e-mail's preheader pads with hundreds of zero-width characters between no-break spaces:
    one finding for the run, where it starts, saying how many; removed whole by redaction. A
    visible character between two runs makes two."""
    padding = "\xa0\u200c\u200b\u200d\u200e\u200f\ufeff" * 100
    text = f"<div>Reset your password<div>{padding}</div></div>\nnext\u200b line\u200c\n"
    found = scan_text(text, "mail.html", hidden=True)
    assert [(f.line, f.column, f.preview) for f in found] == [
        (1, 31, "U+200C (ZERO WIDTH NON-JOINER) and 599 more beside it"),
        (2, 5, "U+200B (ZERO WIDTH SPACE)"),
        (2, 11, "U+200C (ZERO WIDTH NON-JOINER)"),
    ]
    assert redact(text, found) == "<div>Reset your password<div>\xa0</div></div>\nnext line\n"
    assert len(scan_text("a\u200bb\u200bc", hidden=True)) == 2


def test_react_emails_preview_padding_is_allowed_in_code_only() -> None:
    """React Email's ``<Preview>`` pads with whole units of a no-break space and six zero-width
    characters, in that order (authelia's and full-stack-fastapi-template's compiled templates): in
    code, a whole unit is allowed; a part of one, another order, or the same text in a memory is
    not."""
    padding = "\xa0\u200c\u200b\u200d\u200e\u200f\ufeff"  # react-email's Preview, written out
    text = f"<div>Reset your password<div>{padding * 100}</div></div>\nnext\u200b line\n"
    found = scan_text(text, "mail.html", hidden=True, kind=CODE)
    assert [(f.line, f.column) for f in found] == [(2, 5)]
    assert len(scan_text(text, "mail.html", hidden=True)) == 2  # a memory: the run is a finding
    for unit in (
        padding[:-1],
        padding[:3] + padding[4:2:-1] + padding[5:],
    ):
        found = scan_text(f"<div>{unit * 3}</div>", "mail.html", hidden=True, kind=CODE)
        assert [f.rule for f in found] == [HIDDEN_RULE], repr(unit)


def test_the_documentation_lists_every_rule() -> None:
    from pathlib import Path

    doc = (Path(__file__).resolve().parent.parent / "docs" / "scanning.md").read_text(
        encoding="utf-8"
    )
    missing = [rule.id for rule in RULES if f"| `{rule.id}` |" not in doc]
    assert missing == []


def test_crlf_line_endings() -> None:
    password = "Xk9#" + token(n=12)
    text = f"A=1\r\nDB_PASSWORD={password}\r\nB=2\r\n"
    [finding] = scan_text(text)
    assert (finding.line, text[finding.start : finding.end]) == (2, password)


# -- the decoders' fast paths find what their plain patterns find ----------------------------------------------------


def _random_texts() -> list[str]:
    rng = random.Random(14)
    alphabet = string.ascii_letters + string.digits + "+/_-==\"'\\%2F3A40 \n\t\u00e9<>`&?"
    texts = ["".join(rng.choice(alphabet) for _ in range(rng.randint(0, 400))) for _ in range(400)]
    runs = [
        "A" * 30,
        "=" * 3,
        "ab==",
        "x=",
        "\\n",
        '\\"',
        "\\u0041",
        "%2F",
        "%3a",
        "\n",
        " ",
        "-",
        "_",
    ]
    texts += ["".join(rng.choice(runs) for _ in range(rng.randint(0, 60))) for _ in range(400)]
    return texts


def test_base64_runs_are_the_runs_of_the_plain_pattern() -> None:
    from gitmem.scan import decode

    for text in _random_texts():
        expected = [(m.start(), m.group()) for m in decode._B64_RUN_RE.finditer(text)]
        assert decode._b64_runs(text) == expected, text


def test_json_and_url_runs_are_read_on_hinted_lines_only_with_the_same_result() -> None:
    """On the hinted lines only, the runs the plain patterns find in the whole text: the JSON strings of
    ``"((?:[^"\\\n]|\\.){4,})"`` (found by a hand loop, line by line) and the URL-encoded runs."""
    from gitmem.scan import decode

    json_string = re.compile(r'"((?:[^"\\\n]|\\.){4,})"')
    for text in _random_texts():
        for hint, pattern, reference, group in (
            (decode._JSON_HINT_RE, decode._JSON_STRING_RE, json_string, 1),
            (decode._URL_HINT_RE, decode._URL_RUN_RE, decode._URL_RUN_RE, 0),
        ):
            everywhere = [
                (m.start(group), m.group(group))
                for m in reference.finditer(text)
                if hint.search(m.group(group))
            ]
            lines = [
                (m.start(group), m.group(group)) for m in decode._in_lines(text, hint, pattern)
            ]
            assert [run for run in lines if hint.search(run[1])] == everywhere, text


def test_string_literals_are_the_strings_of_the_plain_pattern() -> None:
    """The JSON strings and single-quoted literals the decoders walk to are those
    ``"((?:[^"\\\n]|\\.){4,})"`` finds, everywhere in the text, hinted or not (round 45: the
    walk crosses runs of plain characters in one step of ``re``), on random texts and on texts of
    quotes, escapes and line ends."""
    from gitmem.scan import decode

    rng = random.Random(45)
    pieces = ['"', "'", "\\", "\\\n", "\n", "ab", "\\'", '\\"', "x"]
    texts = _random_texts()
    texts += ["".join(rng.choice(pieces) for _ in range(rng.randint(0, 80))) for _ in range(2000)]
    for mark, walk in (('"', decode._JSON_STRING_RE), ("'", decode._QUOTED_STRING_RE)):
        reference = re.compile(mark + r"((?:[^" + mark + r"\\\n]|\\.){4,})" + mark)
        for text in texts:
            expected = [m.span(1) for m in reference.finditer(text)]
            assert [found.span(1) for found in walk.finditer(text)] == expected, text


def test_a_decoded_layer_maps_every_character_back_to_its_source() -> None:
    from gitmem.scan import decode

    secret = ghp()
    seen: set[str] = set()
    text = (
        'a "x\\u0041\\n'
        + secret
        + '" b=%2F'
        + secret
        + " "
        + base64.b64encode(secret.encode()).decode()
    )
    for layer in decode.layers(text):
        at = layer.text.find(secret)
        if at == -1:
            continue
        start, end = layer.outer(at, at + len(secret))
        if layer.kind == "base64":  # whole groups of four: the source decodes to the secret
            assert base64.b64decode(text[start:end]).decode() == secret
        else:
            assert text[start:end] == secret, layer.kind
        seen.add(layer.kind)
    assert seen == {"json", "url", "base64"}


def test_each_character_of_an_escaped_string_maps_to_its_own_escape_or_itself() -> None:
    """A string is decoded in one step, its escapes mapped as they go: every character of the
    layer maps back to the escape it came from (which decodes to it) or to itself, and decoding
    changed a window exactly where the window holds an escape's character."""
    import json as json_module

    from gitmem.scan import decode

    rng = random.Random(51)
    pieces = ["ab", "\\u0041", "\\x42", '\\"', "\\\\", "\\/", "\\n", "%2F", "%41", "xyz", "\\t"]
    for _ in range(200):
        body = "".join(rng.choice(pieces) for _ in range(rng.randint(4, 30)))
        for text in (f'v = "{body}"', f"v = '{body}'", f"https://h/?q={body.replace(chr(92), '')}"):
            for layer in decode.layers(text):
                if layer.kind not in ("json", "quoted", "url"):
                    continue
                escaped = set()  # where an escape's character (or a separator) is
                for at, char in enumerate(layer.text):
                    start, end = layer.outer(at, at + 1)
                    source = text[start:end]
                    if end - start == 1:
                        assert source == char, (text, at)
                        continue
                    escaped.add(at)
                    if source.startswith("%"):
                        assert chr(int(source[1:], 16)) == char, (text, at)
                    elif source.startswith("\\x"):
                        assert chr(int(source[2:], 16)) == char, (text, at)
                    elif source != "":  # JSON's own escapes decode as JSON does
                        assert json_module.loads(f'"{source}"') == char, (text, at)
                for at in range(len(layer.text)):  # a window and a character either side of it
                    near = not escaped.isdisjoint(range(at - 1, at + 2))
                    assert layer.changed(at, at + 1) == near, (text, at)


def test_scanning_computes_no_slow_fingerprint_unless_the_allow_list_holds_one(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """scrypt (some 25-50 ms a finding) runs only to compare with old v2 entries of scan.allow; a v3 fingerprint
    (what --json and --baseline print) costs a hash of one line."""
    from gitmem.scan import engine

    calls: list[str] = []
    real = engine._slow_fingerprint

    def counted(digest: str, salt: str) -> str:
        calls.append(digest)
        return real(digest, salt)

    monkeypatch.setattr(engine, "_slow_fingerprint", counted)
    text = "".join(f"TOKEN_{n} = '{ghp()}'\n" for n in range(5))
    found = scan_text(text, kind="code")
    assert len(found) == 5 and calls == []
    assert len({f.fingerprint() for f in found}) == 5 and calls == []
    legacy = [found[0].legacy]
    assert len(engine.without_allowed(found, legacy)) == 4 and calls == []  # a v1 entry: no scrypt
    assert (
        len(engine.without_allowed(found, [found[0].fingerprint()])) == 4 and calls == []
    )  # a v3 entry
    allowed = engine.without_allowed(
        found, [found[1].salted("")]
    )  # a v2 entry: each finding is compared
    assert len(allowed) == 4 and len(calls) == 6
    assert len(engine.without_allowed(found, [found[1].salted(""), found[2].fingerprint()])) == 3
    assert (
        len(calls) == 6 + 1 + 4
    )  # the entry, then the four findings no v3 entry allows: none for the fifth


def test_random_characters_in_one_case_cut_by_digits_are_not_a_name() -> None:
    """``yzmil2yrmu5qfd09`` splits like camel-case words, but one case cut by numbers again and again is random
    (the peers' tests hold such tokens); ``sha256sum``-like names, with one number, stay names. A UUID assigned to a
    credential's name is a credential (many providers' keys are UUIDs)."""
    rng = random.Random(261)
    letters = "".join(rng.sample("abcdefghijklmnopqrstuvwxyz", 12))
    value = f"{letters[:5]}{rng.randrange(2, 9)}{letters[5:9]}{rng.randrange(2, 9)}{letters[9:]}{rng.randrange(10, 99)}"
    assert [f.rule for f in scan_text(f"api_token = '{value}'", kind="code")] == ["generic-secret"]
    assert [f.rule for f in scan_text(f"api_token = '{value.upper()}'", kind="code")] == [
        "generic-secret"
    ]
    assert scan_text("api_token = 'credentials256sum'", kind="code") == []
    hexes = ["".join(rng.choice("0123456789abcdef") for _ in range(n)) for n in (8, 4, 4, 4, 12)]
    uuid = "-".join(hexes)
    assert [f.rule for f in scan_text(f"zenscrape_token = '{uuid}'", kind="code")] == [
        "generic-secret"
    ]
    assert scan_text(f"request_id = '{uuid}'", kind="code") == []


def test_a_services_key_is_found_when_its_value_is_unmistakably_random() -> None:
    """``azureKey`` names no credential word, but a key of a service whose value is 24 or more random characters is
    one; a data structure's key (``cacheKey``, ``partition_key``) or a value that could be written by hand is not."""
    rng = random.Random(262)
    value = "".join(rng.choice(string.ascii_letters + string.digits) for _ in range(40))
    assert [f.rule for f in scan_text(f'azureKey := "{value}"', kind="code")] == ["generic-secret"]
    assert [f.rule for f in scan_text(f"adzuna_key: '{value}'", kind="code")] == ["generic-secret"]
    assert scan_text(f'cacheKey := "{value}"', kind="code") == []
    assert scan_text(f"partition_key = '{value}'", kind="code") == []
    assert scan_text("azureKey := 'tenant-settings-default-v2'", kind="code") == []
    assert scan_text(f"KEY = '{value[:20]}'", kind="code") == []


def test_each_format_s_own_place_is_a_format_rule_s() -> None:
    """engine.FORMAT_PLACES names rules by id: an entry that names no rule, or a rule without a
    provider's format (judged by ``_cleared_by_place`` instead), would never run."""
    from gitmem.scan.engine import FORMAT_PLACES, value_bound
    from gitmem.scan.rules import RULES_BY_ID

    assert FORMAT_PLACES
    for rule in FORMAT_PLACES:
        assert rule in RULES_BY_ID and value_bound(rule), rule
