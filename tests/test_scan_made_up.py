"""Values no generator makes are not secrets, whatever name they stand under (issue 32, point 7).

A generator draws every character from one alphabet: a class of characters it uses shows up many
times in a long value, one it does not use never. A test's "invalid" key, a stand-in edited by hand
or a value typed over shows a class once or twice: one upper-case letter among forty lower-case
ones, a letter past ``f`` in a hex string, a ``?`` or ``$`` in a token, letters that run through the
alphabet. Each value here is made at run time from a random one of the same length, which is still
found (the shape, not the name or a list, decides), and a password may hold a symbol or two (people
choose those).
"""

from __future__ import annotations

import base64
import json
import random
import string
from collections.abc import Callable

import pytest

from gitmem.scan import scan_text
from gitmem.scan.kinds import CODE, PROSE
from tests.random_values import random_value

_rng = random.Random(3207)
LOWER_DIGITS = string.ascii_lowercase + string.digits
ALNUM = string.ascii_letters + string.digits
HEX = "0123456789abcdef"


def made(alphabet: str, n: int = 40) -> str:
    return random_value(_rng, n, alphabet)


def typed_over(value: str, char: str, at: int) -> str:
    return value[:at] + char + value[at + 1 :]


def one_upper(value: str) -> str:
    letter = next(i for i, c in enumerate(value) if c.isalpha())
    return typed_over(value, value[letter].upper(), letter)


def one_lower(value: str) -> str:
    letter = next(i for i, c in enumerate(value) if c.isalpha())
    return typed_over(value, value[letter].lower(), letter)


def in_order(value: str) -> str:
    return "abc123def456ghi789" + value[18:]


# (what was done to a random value of the alphabet, the alphabet, the edit): in code and in prose
EDITS = [
    ("one upper-case letter among lower-case ones", LOWER_DIGITS, one_upper),
    (
        "one lower-case letter among upper-case ones",
        string.ascii_uppercase + string.digits,
        one_lower,
    ),
    ("a letter past f in hex", HEX, lambda v: typed_over(v, "j", 9)),
    ("two letters past f in hex", HEX, lambda v: typed_over(typed_over(v, "q", 5), "r", 30)),
    ("letters and digits in alphabetical order", ALNUM, in_order),
    # the same table as a typed password's (filters._TYPED_ROWS): a keyboard's row, not the alphabet
    ("letters along a keyboard's row", ALNUM, lambda v: "q9w8e7r6t5y4" + v[12:]),
    # social-core's tests: AUTH_KEY = "abcdef12-1234-9876-0000-abcdef098765"
    ("the alphabet's letters side by side in hex", HEX, lambda v: v[:9] + "abcdef" + v[15:]),
    # a word hex spells, which programmers write for a value that stands for one (typer's docs:
    # pypi-wubalubadubdub-deadbeef1234)
    ("a word hex spells", HEX, lambda v: v[:20] + "deadbeef" + v[28:]),
    ("a word hex spells, in digits", ALNUM, lambda v: v[:4] + "BAADF00D" + v[12:]),
    # zap's examples' token: twelve letters or more, all on the home row, in no order
    ("letters mashed along one row", LOWER_DIGITS, lambda v: v[:10] + "7asdlkfjsaklfdj7" + v[26:]),
]
# In code, where a key's or a token's name stands before it (prose's "?" may end a sentence)
SYMBOLS = [
    ("a question mark in a token", ALNUM, lambda v: typed_over(v, "?", 6)),
    ("a dollar in a token", ALNUM, lambda v: typed_over(v, "$", 20)),
    # a token holds "%" to URL-encode ("%2F"); one that escapes nothing is typed in, with others
    ("a percent sign that escapes nothing", ALNUM, lambda v: v[:-3] + "%c^"),
]
PLACES = [
    'const apiKey = "{}";',
    "ACME_API_TOKEN={}",
    "client_secret: {}",
    "[DEBUG] Using Key={}",
]


CASES = [(*edit, kind) for edit in EDITS for kind in (CODE, PROSE)] + [(*e, CODE) for e in SYMBOLS]


@pytest.mark.parametrize("place", PLACES)
@pytest.mark.parametrize(
    ("edit", "alphabet", "change", "kind"), CASES, ids=[f"{c[0]}-{c[3]}" for c in CASES]
)
def test_a_value_no_generator_makes_is_no_secret(
    place: str, edit: str, alphabet: str, change: object, kind: str
) -> None:
    for _ in range(5):
        value = made(alphabet)
        assert callable(change)
        edited = change(value)
        assert scan_text(place.format(value), "app.cfg", kind=kind), (
            value
        )  # the random one is found
        assert scan_text(place.format(edited), "app.cfg", kind=kind) == [], (edit, edited)


@pytest.mark.parametrize(
    "place", ['DB_PASSWORD = "{}"', "smtp_passwd: {}", "export ADMIN_PASSPHRASE={}"]
)
def test_a_password_may_hold_a_symbol_or_two(place: str) -> None:
    for _ in range(5):
        password = typed_over(made(ALNUM, 24), "!", 7)
        found = scan_text(place.format(password), "app.cfg", kind=CODE)
        assert [f.rule for f in found] == ["generic-secret"], password


@pytest.mark.parametrize("n", [32, 40, 64])
def test_random_values_of_every_alphabet_are_still_found(n: int) -> None:
    """A few random values in ten thousand hold a stand-in's marker by chance (``…fakEz…``): the
    same values whichever tests ran before (pytest-xdist), from a generator of this test's own."""
    rng = random.Random(n)
    for alphabet in (LOWER_DIGITS, ALNUM, HEX, string.ascii_uppercase + string.digits):
        for _ in range(20):
            value = random_value(rng, n, alphabet)
            found = scan_text(f'SECRET_KEY = "{value}"', "settings.cfg", kind=CODE)
            assert found, value


@pytest.mark.parametrize("place", PLACES[:3])
def test_a_token_may_hold_url_escapes_or_draw_percent_signs(place: str) -> None:
    """A "%" that escapes nothing marks a typed-in value only once: an alphabet that holds it
    (a generator's, or a regex's in a test table) draws it again and again."""
    for _ in range(5):
        escaped = typed_over(typed_over(made(ALNUM), "%2F", 9), "%3D", 30)
        drawn = "%q".join(made(ALNUM)[i : i + 10] for i in (0, 10, 20, 30))  # "%q": no escape
        for value in (escaped, drawn):
            assert scan_text(place.format(value), "app.cfg", kind=CODE), value


def test_a_generator_that_draws_symbols_draws_many() -> None:
    """Django's secret keys: 50 characters, symbols among them (a value led by one reads as code, as
    before). The same hundred keys whichever tests ran before in the process (pytest-xdist deals
    them out): about one key in 500 is taken for a hand-made one (a single stray symbol, "***")."""
    alphabet = string.ascii_lowercase + string.digits + "!@#$%^&*-_=+"
    rng = random.Random(3207)
    for _ in range(100):
        value = rng.choice(string.ascii_lowercase) + "".join(
            rng.choice(alphabet) for _ in range(49)
        )
        assert scan_text(f"SECRET_KEY = '{value}'", "settings.cfg", kind=CODE), value


@pytest.mark.parametrize("word", ["p@ssw0rd1", "P@$$w0rd2024", "S3cr3tP@ssw0rd!"])
def test_a_stand_in_spelt_in_digits_and_symbols_is_no_secret(word: str) -> None:
    """``{ "password": "p@ssw0rd1" }`` in a project's FAQ (found on fresh real code, jj): the word
    every example uses, in digits and symbols."""
    for text in (f'{{ "password": "{word}" }}', f"DB_PASSWORD={word}"):
        assert scan_text(text, "docs/FAQ.md", kind=PROSE) == [], text


@pytest.mark.parametrize(
    "line",
    [
        "    py3.10-langchain-notiktoken-v1.3.14: langchain-core==1.5.1",
        "    py3.10-langchain-notiktoken-v1.3.14: langgraph-checkpoint==4.1.1",
    ],
)
def test_a_package_and_its_version_is_no_secret(line: str) -> None:
    """A tox.ini's factor-conditional dependencies (getsentry/sentry-python, found replaying its
    commits through the hook: five commits blocked): a name holding "token" (``tiktoken``) and a
    requirement, ``package==version``."""
    text = f"[testenv]\ndeps =\n{line}\n"
    assert scan_text(text, "tox.ini", kind=CODE) == [], line


def test_django_keys_are_found_whatever_brackets_they_hold() -> None:
    """``get_random_secret_key()``'s alphabet holds ``(`` and ``)``, and most of its keys one of
    them; a bracket made a value code, so 87 keys in 100 passed. A value drawn from an alphabet of
    symbols (four of Django's or more) is no code for a bracket or a leading ``$``, and ``%(`` is
    no placeholder without the ``%(name)`` of one: 2 in 100 still pass (a common word inside,
    ``test``, or under four symbols and a code shape)."""
    alphabet = "abcdefghijklmnopqrstuvwxyz0123456789!@#$%^&*(-_=+)"
    rng = random.Random(3207)
    keys = ["".join(rng.choice(alphabet) for _ in range(50)) for _ in range(400)]
    missed = [k for k in keys if not scan_text(f"SECRET_KEY = '{k}'", "settings.cfg", kind=CODE)]
    assert len(missed) <= 12, len(missed)


def _b64url(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).decode().rstrip("=")


def _jwt() -> str:
    header = _b64url(json.dumps({"alg": "HS256", "typ": "JWT"}).encode())
    payload = _b64url(json.dumps({"sub": made(ALNUM, 12), "iat": 1700000000}).encode())
    return f"{header}.{payload}.{made(ALNUM + '_-', 43)}"


@pytest.mark.parametrize(
    "place", ['apiKey := "{}"', "ACME_TOKEN={}", 'client_secret: "{}"', "acme token = '{}'"]
)
@pytest.mark.parametrize(
    "edit",
    [
        lambda t: typed_over(t, "^", 17),  # a symbol no base64 holds, typed into the header
        lambda t: t[:14] + t[15:],  # a character of the header dropped: it decodes no more
        lambda t: "eyJ" + made(ALNUM, 30) + t[t.index(".") :],  # a header of random characters
    ],
    ids=["symbol", "dropped", "random"],
)
def test_a_json_web_token_whose_header_no_library_wrote_is_no_secret(
    place: str, edit: Callable[[str], str]
) -> None:
    """A value shaped as a JSON Web Token (``eyJ…``, three parts) under a credential's name is one
    only if its header decodes to JSON naming an algorithm, as the jwt rule asks: one edited by hand
    (trufflehog's tests' negatives: a ``^`` typed into jwt.io's sample) is a stand-in."""
    for _ in range(5):
        token = _jwt()
        assert scan_text(place.format(token), "app.cfg", kind=CODE), token
        edited = edit(token)
        assert scan_text(place.format(edited), "app.cfg", kind=CODE) == [], edited


def test_random_values_seldom_fall_into_an_identifiers_words() -> None:
    """An identifier of words in camel case (``mediaContentRatingAppsAgesAbove12Option``) is no
    secret (``filters.identifier_of_words``); random values of letters and digits fall into such
    words about once in 300,000 at 24 characters, and never among these 30,000."""
    from gitmem.scan.filters import identifier_of_words

    rng = random.Random(2024)
    drawn = [random_value(rng, n, ALNUM) for n in (20, 24, 32) for _ in range(10_000)]
    assert [value for value in drawn if identifier_of_words(value)] == []
    assert identifier_of_words("mediaContentRatingAppsAgesAbove12Option")


def test_random_values_seldom_keep_to_one_row_of_the_keyboard() -> None:
    """Twelve letters or more in a row, in one case, all on one of a keyboard's rows are a hand
    mashing it (``filters.made_up``); drawn letters keep to one row about once in 20,000 runs of
    twelve, and never among these 190,000 values (runs in one case: a value of mixed case, lowered,
    would run its letters long)."""
    from gitmem.scan.filters import _mashed

    rng = random.Random(2026)
    drawn = [random_value(rng, n, ALNUM) for n in (24, 40, 64, 128) for _ in range(10_000)]
    drawn += [random_value(rng, n, LOWER_DIGITS) for n in (16, 24, 32) for _ in range(20_000)]
    drawn += [random_value(rng, n, string.ascii_lowercase) for n in (12, 20) for _ in range(30_000)]
    # (and hex, where a rule by the home row's share of letters flagged 1.6% at 20 characters)
    drawn += [random_value(rng, n, HEX) for n in (20, 40, 64) for _ in range(10_000)]
    assert [value for value in drawn if _mashed(value)] == []
    assert _mashed("rot47-asdlkfjsaklfdj") and _mashed("QWERTYTRUOIPWEUR")
    assert not _mashed("rot47-asdlkfjsaklfdjx")  # (a letter off the row is in the run)
