"""Values that say themselves they are no working credential (issue 32, point 7).

Each rule here is a fact about credentials, not about one test table: a name that calls its value
fake, invalid or non-matching holds a stand-in. Every value is made at run time, and the same random
value under an ordinary name is still found.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import itertools
import json
import random
import re
import string
import uuid
from collections.abc import Iterable

import pytest

from gitmem.scan import scan_text
from gitmem.scan.filters import typed_password
from gitmem.scan.kinds import CODE, PROSE
from gitmem.scan.rules import _ASSIGN, RULES
from tests.random_values import random_value

_rng = random.Random(3207)
ALNUM = string.ascii_letters + string.digits


@pytest.fixture(autouse=True)
def _draws_of_its_own(request: pytest.FixtureRequest) -> None:
    """Each test draws the same values whatever ran before it on its worker: the generator is
    seeded with the test's name (a value drawn after another test's draws was, now and then, one a
    filter rightly takes for typed, and the test failed by the order tests ran in)."""
    _rng.seed(f"3211:{request.node.nodeid}")


def made(n: int = 32, alphabet: str = ALNUM) -> str:
    return random_value(_rng, n, alphabet)


# (a name that calls its value a stand-in, the same name without the word)
NAMES = [
    ("nonMatchingToken", "token"),
    ("non_existent_api_key", "api_key"),
    ("fake_password", "password"),
    ("BAD_API_KEY", "API_KEY"),
    ("invalidSecret", "secret"),
    ("wrong_token", "token"),
    ("dummyApiKey", "apiKey"),
    ("mock_client_secret", "client_secret"),
    ("EXPIRED_ACCESS_TOKEN", "ACCESS_TOKEN"),
    ("revokedToken", "token"),
    ("sample_api_key", "api_key"),
]


@pytest.mark.parametrize(("name", "real"), NAMES)
@pytest.mark.parametrize("kind", [CODE, PROSE])
def test_a_name_that_calls_its_value_a_stand_in(name: str, real: str, kind: str) -> None:
    value = made()
    assert scan_text(f'{name} = "{value}"', "app.cfg", kind=kind) == [], name
    assert scan_text(f'{real} = "{value}"', "app.cfg", kind=kind), real


@pytest.mark.parametrize("name", ["non_prod_password", "NONPROD_DB_PASSWORD", "canon_token"])
def test_non_is_a_prefix_of_the_word_it_negates_only(name: str) -> None:
    """``non-matching`` is one word; ``non_prod`` names an environment, whose password is one."""
    value = made()
    assert scan_text(f'{name} = "{value}"', "app.cfg", kind=CODE), name


@pytest.mark.parametrize("tld", ["com", "net", "io"])
def test_a_host_name_is_no_secret(tld: str) -> None:
    """``secret = '4f2a9c.acme-invoices.com'``: an account's host, which the line names beside its
    key; random characters under the same name are still found."""
    host = f"{random.Random(tld).getrandbits(24):06x}.acme-invoices.{tld}"
    for place in ("secret = '{}'", "API_TOKEN={}"):
        assert scan_text(place.format(host), "app.cfg", kind=CODE) == [], host
        assert scan_text(place.format(made()), "app.cfg", kind=CODE)


def test_a_query_string_is_judged_by_its_parameters() -> None:
    """A token's name over a whole query string (an Azure SAS without its signature: dates,
    versions, words): no secret in it; a credential among its parameters is still found."""
    query = "st=2025-03-04T07:24:52Z&se=2025-04-04T15:24:52Z&spr=https&sv=2022-11-02&sr=c"
    assert scan_text(f"AZURE_BLOB_SAS_TOKEN={query}", "app.cfg", kind=CODE) == []
    value = made()
    found = scan_text(f"AZURE_BLOB_SAS_TOKEN=user=bob&access_token={value}", "a.cfg", kind=CODE)
    assert [(f.rule, f.end - f.start) for f in found] == [("generic-secret", len(value))]


@pytest.mark.parametrize("kind", [CODE, PROSE])
def test_a_query_string_is_read_a_parameter_at_a_time(kind: str) -> None:
    """An OAuth 1.0 server's reply, as its docs and tests write it (RFC 5849's
    ``oauth_token=hh5s93j4hdidpola&oauth_token_secret=…&oauth_callback_confirmed=true``), and a
    form's body (oauthlib's tests: ``payload = 'password=bar&username=foo'``): each value is judged
    on its own, the first as the others, not the rest of the line as one."""
    token, secret = made(20), made(24)
    line = f"oauth_token={token}&oauth_token_secret={secret}&oauth_callback_confirmed=true"
    found = scan_text(line, "docs/oauth1.md", kind=kind)
    assert [line[f.start : f.end] for f in found] == [token, secret]
    published = "oauth_token=hh5s93j4hdidpola&oauth_token_secret=hdhd0244k9j7ao03&x=true"
    assert scan_text(published, "docs/oauth1.md", kind=kind) == []
    assert scan_text("payload = 'password=bar&username=foo'", "t.py", kind=kind) == []
    body = f"payload = 'password={secret}&username=foo'"
    assert [body[f.start : f.end] for f in scan_text(body, "t.py", kind=kind)] == [secret]


def test_a_salesforce_consumer_key_is_public() -> None:
    """A connected app's consumer key (``3MVG9…``) is its OAuth client id, public as a Stripe
    publishable key is; its consumer secret beside it is still found."""
    body = made(80, ALNUM + ".")
    assert scan_text(f'salesforce_key = "3MVG9{body}"', "app.cfg", kind=CODE) == []
    assert scan_text(f'salesforce_key = "{body}"', "app.cfg", kind=CODE)
    secret = made(64, "0123456789ABCDEF")
    found = scan_text(f'consumer_key = "3MVG9{body}"\nconsumer_secret = "{secret}"', "a.cfg")
    assert [f.line for f in found] == [2]


def test_a_token_cut_after_its_header_is_no_secret() -> None:
    """Documentation shows a JSON Web Token cut after its header (``Bearer eyJhbGciOi….eyJ``):
    the header is public JSON, the signature is missing; a whole token is still found."""
    header = base64.urlsafe_b64encode(b'{"alg":"HS256","typ":"JWT"}').decode().rstrip("=")
    assert scan_text(f"Authorization: Bearer {header}.eyJ", "api.md", kind=PROSE) == []
    assert scan_text(f'auth_token = "{header}.eyJzdWIi"', "a.py", kind=CODE) == []
    payload = base64.urlsafe_b64encode(b'{"sub":"1234567890","name":"Ada"}').decode().rstrip("=")
    whole = f"{header}.{payload}.{made(43, ALNUM + '-_')}"
    assert scan_text(f"Authorization: Bearer {whole}", "api.md", kind=PROSE)


@pytest.mark.parametrize(
    "reference",
    ["settings.API_KEY", "process.env.STRIPE_SECRET", "Token::ZeroOrMore", "self.getAccessToken()"],
)
def test_a_random_key_with_one_dot_is_no_attribute_path(reference: str) -> None:
    """An attribute path's parts are names; random characters cut by one dot are a key (the
    Salesforce test's random body held one dot a run in three, and was read as ``a.b``)."""
    rng = random.Random(reference)
    key = ".".join("".join(rng.choice(ALNUM) for _ in range(40)) for _ in range(2))
    assert scan_text(f'service_key = "{key}"', "app.cfg", kind=CODE)
    assert scan_text(f'service_key = "{reference}"', "app.cfg", kind=CODE) == []


@pytest.mark.parametrize(
    "place",
    [
        '.header("sec-websocket-key", "{}")',
        'headers["Sec-WebSocket-Key"] = "{}"',
        "Sec-WebSocket-Key: {}",
        'websocket_key = "{}"',
    ],
)
def test_a_websocket_handshake_key_is_no_secret(place: str) -> None:
    """``Sec-WebSocket-Key`` (RFC 6455) is a nonce the client draws for each connection and sends
    in the clear, base64 of 16 random bytes (axum's tests, found on fresh real code); a service's
    key with the same value is still found."""
    nonce = base64.b64encode(random.Random(place).randbytes(16)).decode()
    assert scan_text(place.format(nonce), "ws.rs", kind=CODE) == [], nonce
    service = place.lower().replace("sec-websocket-key", "x-acme-key").replace("websocket", "acme")
    assert scan_text(service.format(nonce), "ws.rs", kind=CODE), service


# FastAPI's tutorial's signing key ("OAuth2 with Password (and hashing), Bearer with JWT tokens"),
# copied into every project built from it
FASTAPI_TUTORIAL_KEY = "09d25e094faa6ca2556c818166b7a9563b93f7099f6f0f4caa6cf63b88e8d3e7"


def _b64url(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


def signed_token(key: str, algorithm: str = "HS256") -> str:
    import hashlib
    import hmac
    import json

    header = _b64url(json.dumps({"alg": algorithm, "typ": "JWT"}).encode())
    payload = _b64url(json.dumps({"sub": "johndoe", "n": _rng.random()}).encode())
    digest = {"HS256": hashlib.sha256, "HS384": hashlib.sha384, "HS512": hashlib.sha512}[algorithm]
    signature = _b64url(hmac.new(key.encode(), f"{header}.{payload}".encode(), digest).digest())
    return f"{header}.{payload}.{signature}"


@pytest.mark.parametrize("kind", [CODE, PROSE])
def test_a_tutorial_s_signing_key_and_the_tokens_it_signs_are_examples(kind: str) -> None:
    """Anyone can sign a token with a key a tutorial publishes: the key is no secret, nor is a
    token it signed (FastAPI's tests hold three). The same token signed with another key is."""
    assert scan_text(f'SECRET_KEY = "{FASTAPI_TUTORIAL_KEY}"', "app.py", kind=kind) == []
    for algorithm in ("HS256", "HS384", "HS512"):
        example = signed_token(FASTAPI_TUTORIAL_KEY, algorithm)
        assert scan_text(f'"Authorization": "Bearer {example}"', "t.py", kind=kind) == []
        real = signed_token(made(64, string.hexdigits.lower()), algorithm)
        assert [f.rule for f in scan_text(f'token = "{real}"', "t.py", kind=kind)] == ["jwt"]
    own = made(64, string.hexdigits.lower())
    assert scan_text(f'SECRET_KEY = "{own}"', "app.py", kind=kind), "a key of one's own"


# Flask's configuration docs and tutorial: the output of ``secrets.token_hex()`` they show
FLASK_DOCUMENTED_KEYS = [
    "SECRET_KEY = '192b9bdd22ab9ed4d12e236c78afcb9a393ec15f71bbf5dc987d54727823bcbf'",
    '$ export FLASK_SECRET_KEY="5f352379324c22463451387a0aec5d2f"',
]


@pytest.mark.parametrize("line", FLASK_DOCUMENTED_KEYS)
@pytest.mark.parametrize("kind", [CODE, PROSE])
def test_a_framework_s_documented_secret_key_is_an_example(line: str, kind: str) -> None:
    """A key a framework's docs print is known to everyone who read them: no secret to keep (and
    no secret in a project that uses it). A key of one's own of the same shape is found."""
    assert scan_text(line, "docs/config.rst", kind=kind) == []
    documented = line.split("=", 1)[1].strip(" '\"")
    own = made(len(documented), string.hexdigits.lower())
    assert scan_text(line.replace(documented, own), "docs/config.rst", kind=kind)


@pytest.mark.parametrize("kind", [CODE, PROSE])
def test_a_url_password_made_of_default_passwords_is_a_stand_in(kind: str) -> None:
    """requests' tests: ``user:pass%23pass@``. A default password joined to another, by any
    character or a percent-escape or by nothing (next-auth's docs: ``postgres:adminadmin@``), or
    with a few digits after (poetry's tests: ``foo001:bar002@``), is no password either, nor one
    respelled (``p%40ssword`` is ``p@ssword``; werkzeug's tests: ``p%C3%A4ssword`` is ``pässword``);
    one word of another kind is, and so are more digits than a default takes on."""
    for password in (
        "pass%23pass",
        "admin-admin",
        "root_root",
        "test.123456",
        "p%40ssword",
        "s3cr3t",
        "adminadmin",
        "rootpassword",
        "bar002",
        "admin2024",
        "p%C3%A4ssword",
        "P%C3%A4SSW%C3%96RD",
    ):
        line = f'url = "https://user:{password}@db.internal/app"'
        assert scan_text(line, "t.py", kind=kind) == [], password
    for real in (
        "pass%23" + made(12),
        "admin" + made(12),
        "admin" + "".join(_rng.choice(string.digits) for _ in range(9)),
        made(12) + "admin",
    ):
        assert scan_text(f'url = "https://user:{real}@db.internal/app"', "t.py", kind=kind), real


@pytest.mark.parametrize("kind", [CODE, PROSE])
def test_a_url_password_that_repeats_its_user_or_scheme_or_names_a_constant_is_a_default(
    kind: str,
) -> None:
    """drizzle-orm's ``singlestore://root:singlestore@``, RabbitMQ's ``guest:guest@``: a local
    container's default, as ``postgres:postgres@`` is; kombu's ``SAS_POLICY_NAME:SAS_KEY@`` puts
    a constant's name where the password goes. A password of one's own is found beside them."""
    for url in (
        "singlestore://root:singlestore@localhost:3306/",
        "amqp://guest:guest@localhost//",
        "https://deploy:deploy@git.internal/app.git",
        "azureservicebus://SAS_POLICY_NAME:SAS_KEY@namespace",
        "postgres://app:DB_PASS@db/app",
        "postgres://app:AWS_RDS_PASSWORD_V2@db/app",
    ):
        assert scan_text(f'url = "{url}"', "t.py", kind=kind) == [], url
    real = made(16)
    for url in (
        f"singlestore://root:{real}@localhost:3306/",
        f"amqp://guest:{real}@localhost//",
        f"azureservicebus://SAS_POLICY_NAME:{real}@namespace",
    ):
        assert scan_text(f'url = "{url}"', "t.py", kind=kind), url


@pytest.mark.parametrize("kind", [CODE, PROSE])
def test_a_constant_s_name_in_a_secret_s_place_is_no_secret(kind: str) -> None:
    """next-auth's docs: ``clientSecret: AUTH_AZURE_AD_B2C_CLIENT_SECRET``, the name of the variable
    the secret comes from, digits and all. Upper-case letters and digits drawn at random, cut by
    underscores, are found: a generator draws a digit in every third place or so."""
    for name in ("AUTH_AZURE_AD_B2C_CLIENT_SECRET", "AWS_S3_SECRET_ACCESS_KEY_V2"):
        for line in (f"    clientSecret: {name}", f'client_secret = "{name}"'):
            assert scan_text(line, "docs/providers.mdx", kind=kind) == [], line
    rng = random.Random(2411)  # the same values whichever tests ran before (pytest-xdist)
    for _ in range(20):
        drawn = "_".join(
            "".join(rng.choice(string.ascii_uppercase + string.digits) for _ in range(8))
            for _ in "abc"
        )
        drawn = "K" + drawn[1:]  # a name starts with a letter
        if sum(map(str.isdigit, drawn)) <= 3:  # one in a hundred or so: a name's share of digits
            continue
        assert scan_text(f'client_secret = "{drawn}"', "docs/providers.mdx", kind=kind), drawn


@pytest.mark.parametrize("kind", [CODE, PROSE])
def test_a_url_password_with_an_escape_no_url_may_hold_is_a_parser_s_test(kind: str) -> None:
    """pgx's tests: ``user:sec%zzret@``, ``user:sec%00ret@``. A "%" escapes two hex digits, and
    no password holds a NUL: such a URL is a parser's test. Every other escape still makes one."""
    for password in ("sec%zzret", "sec%00ret", f"{made(12)}%4", f"{made(12)}%"):
        line = f'conn = "postgres://user:{password}@host/db"'
        assert scan_text(line, "t.go", kind=kind) == [], line
    line = f'conn = "postgres://user:{made(12)}%21%7E@host/db"'
    assert scan_text(line, "t.go", kind=kind), line


def test_a_piece_said_again_and_again_is_typed_not_drawn() -> None:
    """pgx's tests: ``postgres://curly:nyuknyuknyuk@``. One short piece written end to end is no
    generator's output, in a URL or under a credential's name; a random value is one."""
    for value in ("nyuknyuknyuk", "Ab3Ab3Ab3Ab3", "x9Q!x9Q!x9Q!"):
        assert scan_text(f'conn = "postgres://curly:{value}@test1/db"', "t.go", kind=CODE) == []
        assert scan_text(f'api_token = "{value}"', "t.go", kind=CODE) == [], value
    assert scan_text(f'api_token = "{made(14)}"', "t.go", kind=CODE)
    assert scan_text(f'conn = "postgres://curly:{made(14)}@test1/db"', "t.go", kind=CODE)


@pytest.mark.parametrize("kind", [CODE, PROSE])
def test_a_url_password_with_a_character_no_url_may_hold_is_a_mask(kind: str) -> None:
    """RFC 3986 lets no ``[ ] { } | \\ ^ ` `` stand raw in a URL's ``user:password@``: such a
    "password" is a mask a logger or a library printed (httpx's ``[secure]``) or a URL parser's
    test data, not a password a client sends. Every character a URL may hold still makes one."""
    for password in (
        "[secure]",
        "[REDACTED]",
        "foo(b]c",
        "pass[\\u007F",
        "x{" + made(16),
        made(16) + "|a",
    ):
        for scheme in ("https", "postgres"):
            line = f'url = "{scheme}://user:{password}@db.internal/app"'
            assert scan_text(line, "t.py", kind=kind) == [], line
    for symbols in ("", "!$&()*+,;=", "~._-%21"):
        real = made(16) + symbols
        for scheme in ("https", "postgres"):
            line = f'url = "{scheme}://user:{real}@db.internal/app"'
            assert scan_text(line, "t.py", kind=kind), line


@pytest.mark.parametrize("kind", [CODE, PROSE])
def test_base64_of_a_user_and_password_is_judged_by_its_password(kind: str) -> None:
    """hono's tests: ``credential = 'aG9ubzp…'``, base64 of ``hono-user-a:hono-password-a``, what a
    Basic ``Authorization`` header carries. It is as secret as its password: a stand-in or a word
    is none; a password of one's own is one."""
    for pair in ("hono-user-a:hono-password-a", "hono:ahotproject", "admin:changeme"):
        value = base64.b64encode(pair.encode()).decode()
        assert scan_text(f"const credential = '{value}'", "t.ts", kind=kind) == [], pair
    real = base64.b64encode(f"deploy:{made(20)}".encode()).decode()
    assert scan_text(f"const credential = '{real}'", "t.ts", kind=kind)
    document = base64.b64encode(f'{{"auths": {{"r.io": {{"auth": "{made(20)}"}}}}}}'.encode())
    assert scan_text(f"const credential = '{document.decode()}'", "t.ts", kind=kind), "a document"


@pytest.mark.parametrize("kind", [CODE, PROSE])
def test_a_urn_is_a_name(kind: str) -> None:
    """WebDAV's ``Lock-Token: urn:uuid:…`` (fastify's tests) names a lock, as an ARN names a
    resource: no secret. The same random value without ``urn:`` is one."""
    uuid = "-".join("".join(_rng.choices("0123456789abcdef", k=n)) for n in (8, 4, 4, 4, 12))
    assert scan_text(f"'Lock-Token': 'urn:uuid:{uuid}'", "t.js", kind=kind) == []
    assert scan_text(f"session_token = 'urn:isbn:{made(24)}'", "t.js", kind=kind) == []
    assert scan_text(f"session_token = '{made(24)}'", "t.js", kind=kind)


@pytest.mark.parametrize("kind", [CODE, PROSE])
def test_a_token_in_an_image_s_url_is_published(kind: str) -> None:
    """A README's badge (``codecov.io/…/badge.svg?token=…``, Travis CI's ``repo.svg?token=…``) is
    an image every reader's browser loads: its token is published to show it. The same token in an
    API's URL is a secret."""
    token = made(12)
    for image in ("graph/badge.svg", "sunburst.png", "status.gif", "a.jpg", "a.jpeg", "a.webp"):
        for query in (f"token={token}", f"branch=main&token={token}"):
            line = f"[![ci](https://codecov.io/gh/acme/app/{image}?{query})](https://x.io)"
            assert scan_text(line, "README.md", kind=kind) == [], line
            assert scan_text(f'<img src="https://x.io/{image}?{query}"/>', "a.md", kind=kind) == []
    # shields.io's badges have no extension: the URL is an image's by its place
    badge = f"https://img.shields.io/codecov/c/github/acme/app?token={token}&style=flat-square"
    assert scan_text(f'<img alt="Codecov" src="{badge}">', "README.md", kind=kind) == []
    assert scan_text(f"[![Codecov]({badge})](https://codecov.io)", "README.md", kind=kind) == []
    api = f"https://api.acme.io/v1/items?token={made(24)}"
    assert scan_text(f'<a href="{api}">items</a>', "README.md", kind=kind), "a link's"
    assert scan_text(f"[items]({api})", "README.md", kind=PROSE), "a Markdown link's"
    assert scan_text(f'<img src="x.png"> <a href="{api}">', "README.md", kind=kind), "beside one"
    assert scan_text(f'curl "https://api.acme.io/v1/items?token={made(24)}"', "a.sh", kind=kind)
    assert scan_text(f'curl "https://api.acme.io/v1/a.svg/x?token={made(24)}"', "a.sh", kind=kind)
    assert scan_text(f"get https://x.io/a.svg and TOKEN={made(24)}", "a.sh", kind=kind)


@pytest.mark.parametrize("kind", [CODE, PROSE])
def test_an_option_is_not_the_value_of_the_option_before_it(kind: str) -> None:
    """jedis' workflow: ``gpg --list-secret-keys --keyid-format LONG`` read ``--keyid-format`` as
    the value of ``--list-secret-keys``. An option's value is never the next option; a random
    value after it is still one."""
    assert scan_text("gpg --list-secret-keys --keyid-format LONG", "ci.yml", kind=kind) == []
    assert scan_text(f"deploy --api-token {made(24)} --verbose", "ci.sh", kind=kind)


def test_a_word_that_ends_its_sentence_is_a_word_in_prose() -> None:
    """fastapi's German docs: ``JWT</abbr>-Token verwenden.`` ("use JWT tokens") read as a
    ``-token`` flag whose value was ``verwenden.``: the full stop made a word look random."""
    for end in ".,;:":
        line = f"Im nächsten Kapitel werden Sie <abbr>JWT</abbr>-Token verwenden{end}"
        assert scan_text(line, "docs/de/x.md", kind=PROSE) == [], end
    value = made(14)
    assert scan_text(f"run it with -token {value}.", "docs/x.md", kind=PROSE)


@pytest.mark.parametrize("tail", ["\u00e9", "\udcff"])
def test_a_token_s_signature_of_any_text_is_checked_without_an_error(tail: str) -> None:
    """``jwt_token`` is a check any rule may name, and ``made_up`` asks it of a value of any text:
    a signature holding a non-ASCII letter or a byte that was no UTF-8 is no example's (with
    hmac.compare_digest it raised TypeError)."""
    from gitmem.scan.filters import jwt_token, made_up

    token = signed_token(made(64, string.hexdigits.lower())) + tail
    assert jwt_token(token)
    assert not made_up(token)


def test_a_random_value_too_short_to_be_random_is_refused_not_drawn_for_ever() -> None:
    """The helper every test here draws from: a length or alphabet that can never reach a random
    value's entropy raises at once, instead of hanging the suite."""
    for n, alphabet in ((11, ALNUM), (32, "0123456789")):
        with pytest.raises(ValueError):
            random_value(_rng, n, alphabet)
    assert len(random_value(_rng, 12, ALNUM)) == 12


# Keys published as examples: jwt.io's debugger's (the old and the new default), node-jsonwebtoken's
# README's, and "secret", which every library's tests sign with
PUBLISHED_SIGNING_KEYS = [
    "your-256-bit-secret",
    "a-string-secret-at-least-256-bits-long",
    "shhhhh",
    "secret",
]


@pytest.mark.parametrize("key", PUBLISHED_SIGNING_KEYS)
@pytest.mark.parametrize("kind", [CODE, PROSE])
def test_a_token_signed_with_a_published_key_is_an_example(key: str, kind: str) -> None:
    """node-jsonwebtoken's tests: ``TOKEN = 'eyJ…e30.t-IDc…'``, signed with ``secret``. Anyone can
    sign such a token, under any name; one signed with a key of one's own is found."""
    example = signed_token(key)
    for line in (f"var TOKEN = '{example}';", f'"Authorization": "Bearer {example}"'):
        assert scan_text(line, "t.js", kind=kind) == [], line
    real = signed_token(made(32))
    assert [f.rule for f in scan_text(f"var TOKEN = '{real}';", "t.js", kind=kind)] == ["jwt"]


@pytest.mark.parametrize("kind", [CODE, PROSE])
def test_a_token_s_header_alone_is_no_secret(kind: str) -> None:
    """jsonwebtoken's (Rust) tests: ``let token = "eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9"``, a
    header and nothing after it, the same in every HS256 token. A JSON Web Key with its secret
    ``k`` is no header, and is found."""
    import json

    for header in ({"alg": "HS256", "typ": "JWT"}, {"alg": "RS256", "kid": made(16)}):
        value = _b64url(json.dumps(header).encode())
        assert scan_text(f'let token = "{value}";', "t.rs", kind=kind) == [], header
    key = _b64url(json.dumps({"alg": "HS256", "kty": "oct", "k": made(43)}).encode())
    assert scan_text(f'let token = "{key}";', "t.rs", kind=kind)


@pytest.mark.parametrize("kind", [CODE, PROSE])
def test_a_version_with_its_package_manager_s_protocol_is_no_secret(kind: str) -> None:
    """sequelize's yarn.lock: ``"@inquirer/password": "npm:^4.0.23"``, a package named for a
    credential and the versions it takes. Any other value under that name is judged."""
    for version in ("npm:^4.0.23", "npm:3.1021.0", "workspace:~1.2.0", "jsr:^1.0.4"):
        line = f'    "@aws-sdk/token-providers": "{version}"'
        assert scan_text(line, "yarn.lock", kind=kind) == [], version
    assert scan_text(f'    "@aws-sdk/token-providers": "{made(24)}"', "yarn.lock", kind=kind)


@pytest.mark.parametrize("kind", [CODE, PROSE])
def test_a_password_typed_along_the_keyboard_is_a_stand_in(kind: str) -> None:
    """sequelize's tests: ``mysql://root:asd123@localhost``. Keys in a keyboard row's order, or
    the alphabet's, and digits in order are typed, not drawn, as a default password is. A password
    that only starts so is found."""
    for password in ("asd123", "qwe123", "zxcvbnm", "asdf1234", "123qwe", "abc789"):
        line = f"  url: 'mysql://root:{password}@localhost:3306/mydb',"
        assert scan_text(line, "t.js", kind=kind) == [], password
    for password in ("qwertyuiop123", "asdfghjkl-zxcvbnm"):
        assert scan_text(f'DB_PASSWORD = "{password}"', "t.py", kind=kind) == [], password
    real = f"asd{made(12)}9x"  # digits too: a password of letters only is a word to the rules
    assert scan_text(f"  url: 'mysql://root:{real}@localhost:3306/mydb',", "t.js", kind=kind)
    assert scan_text(f'DB_PASSWORD = "{real}"', "t.py", kind=kind)


@pytest.mark.parametrize("kind", [CODE, PROSE])
def test_lorem_ipsum_is_placeholder_text(kind: str) -> None:
    """gorm's tests: ``sqlserver://sa:LoremIpsum86@localhost``. Lorem ipsum stands for text by
    definition, in a password too."""
    for line in (
        'dsn = "sqlserver://sa:LoremIpsum86@localhost:9930?database=master"',
        'api_key = "LoremIpsumDolor42SitAmet"',
    ):
        assert scan_text(line, "t.go", kind=kind) == [], line
    assert scan_text(f'dsn = "sqlserver://sa:{made(14)}@localhost:9930"', "t.go", kind=kind)


@pytest.mark.parametrize("kind", [CODE, PROSE])
def test_base64_of_a_stand_in_is_a_stand_in(kind: str) -> None:
    """minio-go's tests: an SSE-C key ``bXktc2VjcmV0LWtleTEy…``, base64 of
    ``my-secret-key1234567890abcdefghi``; and ``IMDSTokenabc123==``. Encoding a placeholder makes
    no secret of it. base64 of random text, or of random bytes, is found."""
    # ... and a word written over and over, in any case (matrix-js-sdk's test key "Selfself…")
    texts = ("my-secret-key1234567890abcdefghi", "changeme-in-production", "P@ssw0rd-admin")
    for text in (*texts, "Self" + "self" * 7):
        value = base64.b64encode(text.encode()).decode()
        line = f'"X-Amz-Server-Side-Encryption-Customer-Key": "{value}",'
        assert scan_text(line, "t.go", kind=kind) == [], text
    assert scan_text('imdsToken := "IMDSTokenabc123=="', "t.go", kind=kind) == []
    # a default password, its padding saying it is base64 (a security guide's Kubernetes Secret)
    for text in ("admin", "root", "secret"):
        line = f"  password: {base64.b64encode(text.encode()).decode()}"
        assert scan_text(line, "secret.yaml", kind=kind) == [], text
    for value in (
        base64.b64encode(made(24).encode()).decode(),
        base64.b64encode(_rng.randbytes(32)).decode(),
        f"IMDSToken{made(16)}==",
    ):
        assert scan_text(f'secretKey := "{value}"', "t.go", kind=kind), value


@pytest.mark.parametrize("kind", [CODE, PROSE])
def test_hex_of_a_stand_in_is_a_stand_in(kind: str) -> None:
    """minio-go's CI: ``MINIO_KMS_MASTER_KEY: my-minio-key:6368616e…``, hex of "change this
    password to a secret". hex of random text, or of random bytes, is found."""
    for text in ("change this password to a secret", "my-secret-key1234567890"):
        line = f"MINIO_KMS_MASTER_KEY: my-minio-key:{text.encode().hex()}"
        assert scan_text(line, "ci.yml", kind=kind) == [], text
    for value in (made(24).encode().hex(), _rng.randbytes(32).hex()):
        assert scan_text(f"MINIO_KMS_MASTER_KEY: my-minio-key:{value}", "ci.yml", kind=kind), value


# Values documentation everywhere prints: MinIO's public playground's secret key and its KMS
# example key; the UUID tutorials and API references print as an example
PUBLISHED_VALUES = [
    'secretKey: "zuf+tfteSlswRu7BJ86wekitnifILbZam1KYY3TG",',
    "MINIO_KMS_SECRET_KEY: my-minio-key:OSMM+vkKUTCvQs9YL/CVMIMt43HFhkUpqJxTmGl6rYw=",
    'MINIO_KMS_SECRET_KEY="strata-key:OSMM+vkKUTCvQs9YL/CVMIMt43HFhkUpqJxTmGl6rYw="',
    "pass: 'f47ac10b-58cc-4372-a567-0e02b2c3d479',",
    # Django REST framework's documented token; Yarn's documentation search key (Algolia's
    # search-only keys are public), in every copy of Yarn's release
    "{ 'token' : '9944b09199c62bcf9418ad846dd0e4bbdfc6ee4b' }",
    'Tq={appId:"OFCNCOG2CU",apiKey:"6fe4476ee5a1832882e326b506d14126",indexName:"yarnpkg_next"}',
]


@pytest.mark.parametrize("line", PUBLISHED_VALUES)
@pytest.mark.parametrize("kind", [CODE, PROSE])
def test_a_value_documentation_publishes_is_an_example(line: str, kind: str) -> None:
    """Copied from a README into tests and configurations (minio-go, sequelize): known to every
    reader. Values of one's own of the same shape are found (a UUID's 122 random bits now and then
    fall short of the entropy a password's place asks: one in twenty)."""
    assert scan_text(line, "config.yml", kind=kind) == [], line
    documented = next(
        piece
        for piece in line.replace("'", '"').replace(":", '"').split('"')
        if len(piece) >= 32 and " " not in piece
    )
    alphabet = "0123456789abcdef" if "-" in documented else ALNUM + "+/"
    rng = random.Random(documented)  # the same values whichever tests ran before (pytest-xdist)
    owns = [
        "".join(c if c in "-=" else rng.choice(alphabet) for c in documented) for _ in range(20)
    ]  # the same shape, drawn afresh
    missed = [
        own for own in owns if not scan_text(line.replace(documented, own), "config.yml", kind=kind)
    ]
    assert len(missed) <= 2, missed


@pytest.mark.parametrize("kind", [CODE, PROSE])
def test_a_file_s_name_is_no_secret(kind: str) -> None:
    """tauri's installer template: ``BinaryKey='MicrosoftEdgeWebView2RuntimeInstaller.exe'``, a
    file named under a key's name, as ``ssl_key = "server.key"`` is. The same name without its
    extension is judged as any value."""
    stem = f"{made(20)}Installer"
    for extension in ("exe", "dll", "wasm", "js", "png", "tar.gz"):
        line = f"<CustomAction BinaryKey='{stem}.{extension}' Execute='deferred' />"
        assert scan_text(line, "main.wxs", kind=kind) == [], extension
    assert scan_text(f"<CustomAction BinaryKey='{stem}' />", "main.wxs", kind=kind)


# Lines in the shape the OAuth RFCs and Twitter's OAuth documentation print them, with their example
# values, which every OAuth library's docs and tests quote (authlib's docstrings, among many)
OAUTH_EXAMPLES = [
    "Authorization: Basic czZCaGRSa3F0MzpnWDFmQmF0M2JW",  # RFC 6749: s6BhdRkqt3:gX1fBat3bV
    "grant_type=client_credentials&client_id=s6BhdRkqt3&client_secret=gX1fBat3bV",
    '"access_token":"2YotnFZFEjr1zCsicMWpAA",',
    "grant_type=refresh_token&refresh_token=tGzv3JOkF0XG5Qx2TlKWIA",
    '"access_token":"mF_9.B5f-4.1JqM",',  # RFC 6750
    "http://www.example.com/path?access_token=h480djs93hd8",
    '"refresh_token":"8xLOxBtZp8",',
    'oauth_consumer_key="dpf43f3p2l4k3l03",',  # RFC 5849
    "oauth_token=hh5s93j4hdidpola&oauth_token_secret=hdhd0244k9j7ao03",
    "oauth_token=nnch734d00sl2jdk&oauth_token_secret=pfkkdhi9sl3r4s00",
    "oauth_token=Z6eEdO8MOmk394WozF5oKyuAv855l4Mlqo7hhlSLik",  # Twitter's
    "oauth_token_secret=Kd75W4OQfb2oJTV0vzGzeXftVAwgMnEK9MumzYcM",
    "oauth_token=6253282-eWudHldSbIaelX7swmsiHImEL4KinwaGloHANdrY",
    "&oauth_token_secret=2EEfA6BG5ly3sR3XjE0IBSnlQu4ZrUzPiYTmrkVU",
    'consumer_key = "xvz1evFS4wEEPTGEFPHBog"',
    'consumer_secret = "kAcSOqF21Fu85e7zjz7ZN2U4ZRhfV3WpwPAoE3Z7kBw"',
    'oauth_token = "370773112-GmHxMAgYyLbNEtIKZeRNFsMKPR9EyMZeS9weJAEb"',
    'oauth_token_secret = "LswwdoUaIvS8ltyTt5jkRh4J50vUPVVHtR2YPi5kE"',
    '"access_token": "SlAV32hkKG",',  # OpenID Connect Core's
    "Authorization: Bearer 23410913-abewfq.123483",  # RFC 7662's
    # the client secret OAuth documentation pairs with RFC 6749's client id (OpenIddict's tests)
    'ClientSecret = "7Fjfp0ZBr1KtDRbnfVdmIw",',
]
_LONG_VALUE_RE = re.compile(r"[A-Za-z0-9]{20,}")


@pytest.mark.parametrize("line", OAUTH_EXAMPLES)
@pytest.mark.parametrize("kind", [CODE, PROSE])
def test_the_oauth_specifications_examples_are_examples(line: str, kind: str) -> None:
    """Published with the protocol. A long value of one's own in its place is found, as is a
    Basic header of one's own password (most of them: a password of twelve letters may read as a
    word, one in eight)."""
    assert scan_text(line, "docs/oauth.rst", kind=kind) == [], line
    if line.startswith("Authorization: Basic"):
        rng = random.Random(line)  # the same passwords whichever tests ran before (pytest-xdist)
        headers = [
            "Authorization: Basic "
            + base64.b64encode(f"s6BhdRkqt3:{random_value(rng, 12, ALNUM)}".encode()).decode()
            for _ in range(20)
        ]
        missed = [own for own in headers if not scan_text(own, "docs/oauth.rst", kind=kind)]
        assert len(missed) <= 5, missed
        return
    own = _LONG_VALUE_RE.sub(lambda m: made(len(m.group())), line)
    if own != line:
        assert scan_text(own, "docs/oauth.rst", kind=kind), own


@pytest.mark.parametrize("kind", [CODE, PROSE])
@pytest.mark.parametrize(
    ("name", "secret"),
    [("encrypted_key", "encryption_key"), ("encryptedPassword", "password")],
)
def test_ciphertext_is_no_secret(name: str, secret: str, kind: str) -> None:
    """A JSON Web Encryption's ``encrypted_key`` (authlib's and jose's tests, RFC 7520's cookbook)
    and a sealed secret's ``encryptedData`` are made to be sent in the clear; the key that
    encrypts is a secret."""
    value = made(86, ALNUM + "-_")
    assert scan_text(f'"{name}": "{value}",', "tests/test_jwe.py", kind=kind) == [], name
    assert scan_text(f'"{secret}": "{value}",', "tests/test_jwe.py", kind=kind), secret


def token_with(claims: dict[str, object]) -> str:
    """An RS256 token of these claims and a signature of random bytes, made here."""
    import json

    header = _b64url(json.dumps({"alg": "RS256", "typ": "JWT"}).encode())
    signature = _b64url(bytes(_rng.randrange(256) for _ in range(256)))
    return f"{header}.{_b64url(json.dumps(claims).encode())}.{signature}"


# (claims a library's tests sign, claims a server issues): golang-jwt's, jjwt's, pyjwt's, jose's
STAND_IN_CLAIMS = [
    ({"foo": "bar"}, {"foo": "b3f1c2e9"}),
    ({"foo": "bar", "iat": 1659510608}, {"user": "ada", "iat": 1659510608}),
    ({"test": "test"}, {"role": "test"}),
    ({"test": 1234}, {"uid": 1234}),
    ({"urn:example:claim": True, "iss": "urn:example:issuer"}, {"admin": True, "iss": "acme"}),
    # judged as any value is (filters._stand_in): a mock, a default word respelt
    ({"user": "mock-user", "test": "4dm1n"}, {"user": "ada-lovelace", "role": "editor"}),
    # ruby-jwt's README, quoted in helpy's license report (batch 52): "data" is a word, as "string"
    ({"data": "test"}, {"data": "ada@acme.io"}),
    ({"test": "data"}, {"test": "ada-lovelace"}),
]


@pytest.mark.parametrize(("stand_in", "issued"), STAND_IN_CLAIMS)
@pytest.mark.parametrize("kind", [CODE, PROSE])
def test_a_token_whose_claims_are_stand_ins_is_a_test_s(
    stand_in: dict[str, object], issued: dict[str, object], kind: str
) -> None:
    """No server issues ``{"foo":"bar"}``: a token of stand-in claims is a test's, under any
    name. One that names a user, a role, an id is found."""
    assert scan_text(f'token = "{token_with(stand_in)}"', "parser_test.go", kind=kind) == []
    found = scan_text(f'token = "{token_with(issued)}"', "parser_test.go", kind=kind)
    assert [f.rule for f in found] == ["jwt"], issued


@pytest.mark.parametrize("kind", [CODE, PROSE])
def test_a_uuid_that_tells_the_time_is_an_id(kind: str) -> None:
    """detect-secrets' npm tests: ``_authToken=743b294a-cd03-11ec-9d64-0242ac120002``. A version 1
    UUID is a clock's reading (here 2022) and a network card's address, made by ``uuid.uuid1()``:
    an id, no key. Version 4's are drawn at random and found, and so is a version 1 shape whose
    clock reads no date of ours (random hex)."""
    import uuid

    rng = random.Random(2412)  # the same values whichever tests ran before (pytest-xdist)
    places = ("//registry.npmjs.org/:_authToken={}", 'heroku_api_key = "{}"')
    for place in places:
        for _ in range(5):
            made_now = uuid.uuid1(node=rng.getrandbits(48), clock_seq=rng.getrandbits(14))
            assert scan_text(place.format(made_now), ".npmrc", kind=kind) == [], made_now
        drawn = [uuid.UUID(int=rng.getrandbits(128), version=4) for _ in range(5)]
        low, mid, seq, node = (rng.getrandbits(n) for n in (32, 16, 8, 48))
        far = uuid.UUID(fields=(low, mid, 0x1FFF, 0x80 | seq >> 2, seq, node))  # the year 5,000
        assert far.version == 1
        for value in (*drawn, far):
            assert scan_text(place.format(value), ".npmrc", kind=kind), value


@pytest.mark.parametrize("kind", [CODE, PROSE])
def test_a_token_whose_signature_is_cut_short_signs_nothing(kind: str) -> None:
    """jsonwebtoken's tests: ``eyJ….eyJ….S``, ``eyJ….badz.sig``. No algorithm makes a signature
    shorter than HMAC with SHA-256's 32 bytes (43 characters), and RS256 makes one as long as its
    key's modulus, 64 bytes or more: a token with a shorter one is a test's, or a document's cut
    short. Under a token's name or none, as the jwt rule reads it."""
    token = token_with({"sub": "ada-lovelace", "role": "editor"})
    signed, _, signature = token.rpartition(".")
    for cut in (signature[:1], "sig", signature[:42], signature[:43]):
        for line in (f'let token = "{signed}.{cut}";', f"curl -d {signed}.{cut} https://x.org"):
            assert scan_text(line, "tests/hmac.rs", kind=kind) == [], line
    whole = f"{signed}.{signature}"  # RS256's signature, with a key of 2048 bits
    assert [f.rule for f in scan_text(f'let token = "{whole}";', "t.rs", kind=kind)] == ["jwt"]


@pytest.mark.parametrize("kind", [CODE, PROSE])
def test_a_password_s_hash_as_a_database_keeps_it_is_no_password(kind: str) -> None:
    """pgjdbc's tests: ``"SCRAM-SHA-256$" + iters``; django-oauth-toolkit's fixtures:
    ``"client_secret": "pbkdf2_sha256$600000$…"``. PostgreSQL keeps a password as its SCRAM
    verifier (``SCRAM-SHA-256$4096:salt$StoredKey:ServerKey``), Django as ``pbkdf2_sha256$…`` or
    ``argon2$…``: a hash, as bcrypt's is, not the password; the password beside it is found."""
    salt, stored, server = (base64.b64encode(_rng.randbytes(n)).decode() for n in (16, 32, 32))
    for value in (
        "SCRAM-SHA-256$",
        f"SCRAM-SHA-256$4096:{salt}${stored}:{server}",
        f"pbkdf2_sha256$600000${made(22)}${stored}",
        f"argon2$argon2id$v=19$m=102400,t=2,p=8${salt}${made(22)}",
    ):
        assert scan_text(f'"client_secret": "{value}",', "seed.json", kind=kind) == [], value
    assert scan_text(f'String password = "{made(16)}";', "T.java", kind=kind)


@pytest.mark.parametrize("kind", [CODE, PROSE])
def test_a_media_type_or_a_development_key_is_no_secret(kind: str) -> None:
    """OpenIddict's constants: ``RefreshToken = "oi_reft+jwt"``, a token's ``typ`` (RFC 9068's
    ``at+jwt``): a media type's suffix. Django's ``startproject`` writes ``SECRET_KEY =
    "django-insecure-…"``, marked as no key for use. A key of one's own in either place is found."""
    alphabet = string.ascii_lowercase + string.digits + "!@#$%^&*(-_=+)"
    rng = random.Random(2413)  # the same key whichever tests ran before (pytest-xdist)
    key = "k" + "".join(rng.choice(alphabet) for _ in range(49))
    for line in ('RefreshToken = "oi_reft+jwt";', 'token_type = "secevent+jwt"'):
        assert scan_text(line, "Constants.cs", kind=kind) == [], line
    assert scan_text(f'SECRET_KEY = "django-insecure-{key}"', "settings.py", kind=kind) == []
    assert scan_text(f'RefreshToken = "{made(24)}";', "Constants.cs", kind=kind)
    assert scan_text(f'SECRET_KEY = "{key}"', "settings.py", kind=kind)


@pytest.mark.parametrize("kind", [CODE, PROSE])
def test_the_minio_playground_s_access_key_is_an_example(kind: str) -> None:
    """Beside its secret key in every MinIO SDK's README and sample configuration. A secret key of one's own beside it
    is found (an access key of one's own is an id, as the playground's is: test_the_access_key_of_a_pair_is_its_id)."""
    assert scan_text('"accessKey": "Q3AM3UQ867SPQQA43P2F",', "config.json", kind=kind) == []
    own = made(40)
    assert scan_text(f'"secretKey": "{own}",', "config.json", kind=kind), own


# Values that spell their own name: code passing a variable on, and stand-ins that say what they are
SPELT_NAMES = [
    ("this.changePwdFlowV1 = changePwdFlowV1;", "changePwdFlowV1"),
    (
        "this.tokenEndpointAuthSigningAlgValuesSupported = "
        "tokenEndpointAuthSigningAlgValuesSupported;",
        "tokenEndpointAuthSigningAlgValuesSupported",
    ),
    ('_auth.ConsumerKey = "my@consumer!key";', "my@consumer!key"),
    ('client_secret = "the-client-secret"', "the-client-secret"),
]


@pytest.mark.parametrize(("line", "value"), SPELT_NAMES)
@pytest.mark.parametrize("kind", [CODE, PROSE])
def test_a_value_that_spells_its_own_name_is_none(line: str, value: str, kind: str) -> None:
    """auth0-java's generated setters and RestSharp's tests. A random value in its place is
    found."""
    assert scan_text(line, "Settings.java", kind=kind) == [], line
    head, _, tail = line.rpartition(value)  # the value, not the name
    own = head + (made(24) if '"' in line else f'"{made(24)}"') + tail
    assert scan_text(own, "Settings.java", kind=kind), own


@pytest.mark.parametrize("kind", [CODE, PROSE])
def test_base64_of_a_document_is_judged_by_what_the_document_holds(kind: str) -> None:
    """Kubernetes keeps a secret's files in base64: an empty PEM block (traefik's fixtures) holds
    no key, and is no secret encoded; a document with a password in it is found where it decodes,
    and a password encoded alone is still the value's own."""

    def encoded(text: str) -> str:
        return base64.b64encode(text.encode()).decode()

    marker = "-" * 5
    empty = f"{marker}BEGIN PRIVATE KEY{marker}\n{marker}END PRIVATE KEY{marker}"
    assert scan_text(f"  tls.key: {encoded(empty)}\n", "secret.yaml", kind=kind) == []
    password = made(24)
    document = f"host: db.internal\nuser: app\npassword: {password}\n"
    found = scan_text(f"  config.yaml: {encoded(document)}\n", "secret.yaml", kind=kind)
    assert [f.rule for f in found] == ["generic-secret"]
    assert scan_text(f"  password: {encoded(password + chr(10))}\n", "secret.yaml", kind=kind)


@pytest.mark.parametrize("kind", [CODE, PROSE])
def test_a_token_whose_header_is_an_empty_object_names_no_algorithm(kind: str) -> None:
    """ruby-jwt's ``e30.eyJ…``: ``e30`` is base64url of ``{}``, a header no library writes (it names
    no algorithm); the same claims and signature under a header that names one are a token."""

    def part(data: bytes) -> str:
        return base64.urlsafe_b64encode(data).decode().rstrip("=")

    claims = part(b'{"user_id":"' + made(12).encode() + b'"}')
    signature = made(43, ALNUM + "-_")
    empty = f"e30.{claims}.{signature}"
    header = part(b'{ "alg": "HS256" }')  # a library that writes spaces: eyAi…
    named = f"{header}.{claims}.{signature}"
    assert scan_text(f"  let(:token) {{ '{empty}' }}", "jwt_spec.rb", kind=kind) == []
    assert scan_text(f"  let(:token) {{ '{named}' }}", "jwt_spec.rb", kind=kind)
    # "ey7…" decodes to "{." (trufflehog's voicegain fixtures): no object, and still a secret
    rng = random.Random(34)  # its own: what the module's generator draws depends on test order
    drawn = ".".join(random_value(rng, size, ALNUM) for size in (32, 40, 43))
    drawn = "ey7" + drawn[3:]
    assert scan_text(f"token = '{drawn}'", "jwt_spec.rb", kind=kind)


@pytest.mark.parametrize("kind", [CODE, PROSE])
@pytest.mark.parametrize(
    "value",
    ["REPLACE_WITH_32_CHAR_KEY", "replace-this-with-a-secret", "PUT_YOUR_KEY_HERE", "api-key-here"],
)
def test_a_value_that_says_what_to_put_in_its_place_is_a_placeholder(value: str, kind: str) -> None:
    """documenso's Kubernetes guide: ``NEXT_PRIVATE_ENCRYPTION_KEY: 'REPLACE_WITH_32_CHAR_KEY'``."""
    assert scan_text(f"  NEXT_PRIVATE_ENCRYPTION_KEY: '{value}'", "values.yaml", kind=kind) == []
    assert scan_text(f"  NEXT_PRIVATE_ENCRYPTION_KEY: '{made(24)}'", "values.yaml", kind=kind)


@pytest.mark.parametrize(
    "value",
    [
        "DEIN_SUCH_API_SCHL\u00dcSSEL",
        "TU_LLAVE_DE_API_DE_B\u00daSQUEDA",
        "\u0412\u0410\u0428_\u041a\u041b\u042e\u0427",
    ],
)
@pytest.mark.parametrize("kind", [CODE, PROSE])
def test_a_translated_guides_constant_is_a_placeholder(value: str, kind: str) -> None:
    """starlight's German and Spanish guides translate ``apiKey: 'YOUR_SEARCH_API_KEY'`` into a
    constant's name in their own language (batch 23): an identifier in any script. A key in the
    same place is found."""
    assert scan_text(f"    apiKey: '{value}',", "site-search.mdx", kind=kind) == []
    assert scan_text(f"    apiKey: '{made(20)}9',", "site-search.mdx", kind=kind)


@pytest.mark.parametrize(
    "pieces",
    [
        ("gw", "valid", "api", "key", "{n}"),  # vercel/ai's gateway tests
        ("m0", "old", "platform", "key"),  # mem0's
        ("my", "staging", "token", "{n}"),
    ],
)
def test_a_value_whose_words_say_what_it_stands_in_for_is_a_stand_in(
    pieces: tuple[str, ...],
) -> None:
    """``optionsApiKey: 'gw_valid_api_key_12345'``: words, one of them the credential's, and a
    number typed beside them. A key that spells its kind still holds a random part, and is found
    (AWS Bedrock's short-lived keys: ``bedrock-api-key-`` and base64)."""
    number = str(_rng.randint(1, 99999))
    for joint in "_-":
        value = joint.join(pieces).format(n=number)
        assert scan_text(f"optionsApiKey: '{value}',", "gateway.test.ts", kind=CODE) == [], value
    encoded = base64.b64encode(made(30).encode()).decode()
    assert scan_text(f"apiKey: 'bedrock-api-key-{encoded}',", "gateway.test.ts", kind=CODE)
    assert scan_text(f"apiKey: 'gw_{made(12)}_key_{made(24)}',", "gateway.test.ts", kind=CODE)


@pytest.mark.parametrize("kind", [CODE, PROSE])
def test_a_value_that_is_another_assignment_is_judged_by_its_value(kind: str) -> None:
    """tox's ``langchain-notiktoken: _TESTPATH=tests/integrations/langchain`` (sentry-python, batch
    24): the factor's name reads as a token's, and its value is another setting, a path. The setting's
    value is what is judged: a random one is found."""
    line = "    langchain-notiktoken: _TESTPATH=tests/integrations/langchain"
    assert scan_text(line, "tox.ini", kind=kind) == []
    assert scan_text(f"    deploy-token: _DEPLOY_KEY={made(32)}", "tox.ini", kind=kind)
    # base32's padding is no assignment: a TOTP secret in upper case is still found
    secret = base64.b32encode(_rng.randbytes(40)).decode().rstrip("=") + "===="
    assert scan_text(f'totpSecret = "{secret}"', "t.go", kind=kind), secret


@pytest.mark.parametrize("kind", [CODE, PROSE])
def test_base64_of_a_value_is_as_secret_as_the_value(kind: str) -> None:
    """external-secrets' guides (batch 25): a Kubernetes Secret's data is base64, and ``echo`` adds
    a newline before it is encoded: ``VE9LRU4gd2FzIHRlbXBsYXRlZA==`` is "TOKEN was templated",
    ``Z3JlYXQtbmFtZQ==`` "great-name", and ``bXktc2VydmljZS1…`` "my-service-principle-client-secret"
    and a newline. Each is judged as its text is; a random password so encoded is found."""
    for text in ("TOKEN was templated", "great-name", "my-service-principle-client-secret\n"):
        value = base64.b64encode(text.encode()).decode()
        assert scan_text(f"  token: {value}", "secret.yaml", kind=kind) == [], text
    for text in (made(20), made(24) + "\n"):
        value = base64.b64encode(text.encode()).decode()
        assert scan_text(f"  token: {value}", "secret.yaml", kind=kind), text


@pytest.mark.parametrize("kind", [CODE, PROSE])
def test_a_value_its_tool_keeps_encrypted_is_no_secret(kind: str) -> None:
    """dotenvx commits ``.env`` files whose values are ciphertext, ``encrypted:<base64>``, made to
    be committed (its private key, in ``.env.keys``, is not). The same base64 alone is found."""
    cipher = base64.b64encode(_rng.randbytes(96)).decode()
    assert scan_text(f'API_TOKEN="encrypted:{cipher}"', ".env", kind=kind) == []
    assert scan_text(f'API_TOKEN="{cipher}"', ".env", kind=kind)


def test_an_empty_setting_in_prose_takes_no_value_from_the_next_line() -> None:
    """dotenvx's README shows an ``.env.example``: ``API_KEY=`` and, below it, ``SENTRY_DSN= #
    optional``; the next line's name was read as the key's value. A value on the same line is
    found."""
    assert scan_text("DATABASE_URL=\nAPI_KEY=\nSENTRY_DSN= # optional\n", "README.md") == []
    assert scan_text(f"API_KEY= {made(24)}\nSENTRY_DSN= # optional\n", "README.md")


@pytest.mark.parametrize("kind", [CODE, PROSE])
def test_slack_s_documented_verification_token_is_an_example(kind: str) -> None:
    """Slack's Events API documentation's url_verification request, copied into Bolt's tests
    (batch 26) and every Slack bot's. A token of one's own in its place is found."""
    assert scan_text('    "token": "Jhj5dZrVaK7ZwHHjRyZWjbDl",', "t.json", kind=kind) == []
    assert scan_text(f'    "token": "{made(24)}",', "t.json", kind=kind)


@pytest.mark.parametrize("kind", [CODE, PROSE])
def test_what_an_api_calls_a_token_and_is_none(kind: str) -> None:
    """The AWS CLI's examples (batch 27): a secret's ARN (``…:secret:MyTestSecret-a1b2c3``: the
    word is a segment of the resource's name), a page's cursor (``"NextToken": "eyJ…"``), a
    request's idempotency token and a key's spec (``"CustomerMasterKeySpec": "RSA_4096"``). A
    credential under a credential's name beside them is found."""
    cursor = base64.b64encode(b'{"Marker": null, "boto_truncate_amount": 3}').decode()
    lines = (
        '"ARN": "arn:aws:secretsmanager:us-west-2:123456789012:secret:MyTestSecret-a1b2c3",',
        f'"NextToken": "{cursor}"',
        f'"nextPageToken": "{made(40)}",',
        f'"continuationToken": "{made(40)}",',
        f"aws acm request-certificate --idempotency-token {made(12)}",
        '"CustomerMasterKeySpec": "RSA_4096",',
        '"KeySpec": "HMAC_256",',
    )
    for line in lines:
        assert scan_text(line, "example.rst", kind=kind) == [], line
    assert scan_text(f'"SessionToken": "{made(40)}"', "example.rst", kind=kind)
    assert scan_text(f"the secret: {made(24)}", "notes.md", kind=PROSE)


@pytest.mark.parametrize("kind", [CODE, PROSE])
def test_the_digest_of_a_password_everyone_tries_is_no_secret(kind: str) -> None:
    """beekeeper-studio's sample data (batch 29), as MySQL's Sakila database keeps its staff:
    ``"password": "8cb2237d…"``, SHA-1 of ``12345``. A digest of a password everyone tries (MD5,
    SHA-1, SHA-256 or SHA-512, of the word as written or capitalised) or of nothing is in every
    rainbow table. A digest of a password of one's own is found."""
    import hashlib

    for word in ("12345", "password", "Admin", "changeme", ""):
        for name in ("md5", "sha1", "sha256", "sha512"):
            value = hashlib.new(name, word.encode()).hexdigest()
            assert scan_text(f'"password": "{value}",', "t.json", kind=kind) == [], (word, name)
    for name in ("md5", "sha1", "sha256"):
        value = hashlib.new(name, made(12).encode()).hexdigest()
        assert scan_text(f'"password": "{value}",', "t.json", kind=kind), name


@pytest.mark.parametrize("kind", [CODE, PROSE])
def test_a_default_password_cut_by_a_sign_or_a_joke_s_password_is_a_stand_in(kind: str) -> None:
    """Batch 29's tests and docs: dbt's ``pass%21word`` and beekeeper-studio's ``p%40ss%3Aword``
    in a URL (``pass!word``, ``p@ss:word``), dlt's ``password="p@ss:word/123"``, the internet's
    joke password with a word after it (``hunter2-db``) and xkcd's passphrase respelled
    (``correct_hor$e_battery_$taple``). A password of one's own cut the same way is found."""
    for password in ("pass%21word", "p%40ss%3Aword", "ad-min", "root%2Eroot"):
        line = f'url = "https://user:{password}@github.com/org/repo.git"'
        assert scan_text(line, "t.rs", kind=kind) == [], password
    for value in (
        "p@ss:word/123",
        "hunter2-db",
        "hunter2-bastionpass",
        r"correct_hor\$e_battery_\$taple",
    ):
        assert scan_text(f'password = "{value}"', "t.py", kind=kind) == [], value
    own = f"{made(12)}%21{made(12)}"
    assert scan_text(f'url = "https://user:{own}@github.com/org/repo.git"', "t.rs", kind=kind)
    assert scan_text(f'password = "{made(12)}-{made(12)}:{made(12)}"', "t.py", kind=kind)


@pytest.mark.parametrize("kind", [CODE, PROSE])
def test_a_value_cut_short_by_an_ellipsis_is_no_secret(kind: str) -> None:
    """sqlmesh's Snowflake guide (batch 29): ``token: eyJhbGciOiJSUzI1NiIsImtpZCI6ImFmZmM...``, a
    token the writer cut short; the rule reads the value up to the dots. The same value whole is
    found, and so is one with dots inside it."""
    value = made(40)
    for line in (f"token: {value}...", f'token="{value}…",', f"the token is {value}..."):
        assert scan_text(line, "snowflake.md", kind=kind) == [], line
    assert scan_text(f"token: {value}", "snowflake.md", kind=kind)
    assert scan_text(f'token="{value}"', "snowflake.md", kind=kind)


@pytest.mark.parametrize("kind", [CODE, PROSE])
def test_a_variable_a_compose_file_or_a_makefile_escapes_is_a_variable(kind: str) -> None:
    """sqlpad's compose file (batch 29), its name's spelling as written:
    ``echo "{\\"master_password\\":\\"$$LOCAL_HANA_PASSSWORD\\"}"``. Compose and make write a
    shell's ``$NAME`` as ``$$NAME``. A value that only starts with ``$$`` before a sign is
    judged."""
    for name in ("LOCAL_HANA_PASSSWORD", "HANA_ADMIN_CREDENTIAL"):
        line = r'  - echo "{\"master_password\":\"$$' + name + r'\"}" > /tmp/pw.json'
        assert scan_text(line, "docker-compose.yml", kind=kind) == [], name
    assert scan_text(f'password: "$$-{made(20)}"', "docker-compose.yml", kind=kind)


@pytest.mark.parametrize("kind", [CODE, PROSE])
def test_what_batch_30_held_that_is_no_credential(kind: str) -> None:
    """Batch 30 (CI systems): a placeholder as Go's JSON encoder escapes it
    (``x-api-key: \\u003cAPI_KEY\\u003e``, harness' mocks), an htpasswd line's bcrypt hash, its user
    first (dagger's ``john:$2y$05$…``), a value that says what it is respelled
    (``s3cret-not-a-number``, buildkite's), a CSRF token, which forges nothing without its
    session (AWX's ``curl -H 'X-CSRFToken: …'``), and a string of a file's lines, whose value ends
    at its line's end (dagger's ``".env", "password=topsecret\\nsomekey=somevalue"``). A
    credential in each place is found, on the string's next line too."""
    bcrypt = "$2y$05$" + made(53, ALNUM + "./")
    lines = (
        "curl -L 'https://pkg.example.io/a.jar' --header 'x-api-key: \\u003cAPI_KEY\\u003e' -O",
        f'const htpasswd = "john:{bcrypt}"',
        'const secret = "s3cret-not-a-number"',
        f"curl -X POST -H 'X-CSRFToken: {made(64)}' https://awx.example.org/api/login/",
        'WithNewFile(".env", "password=topsecret\\nsomekey=somevalue\\n")',
    )
    found = (
        f"curl -L 'https://pkg.example.io/a.jar' --header 'x-api-key: {made(32)}' -O",
        f'const htpasswd = "john:{made(24)}"',
        f'const secret = "{made(12)}-not-a-number"',
        f"curl -X POST -H 'X-Auth-Token: {made(64)}' https://awx.example.org/api/login/",
        f'WithNewFile(".env", "password={made(20)}\\nsomekey=somevalue\\n")',
        f'WithNewFile(".env", "password=topsecret\\r\\nAPI_KEY={made(20)}\\r\\n")',
    )
    _none_then_each(lines, found, "t.go", kind)


@pytest.mark.parametrize("kind", [CODE, PROSE])
def test_what_batch_31_held_that_is_no_credential(kind: str) -> None:
    """Batch 31 (monitoring tools): a value that says in camel-case words what it stands for
    (gatus' ``ApplicationToken: "aTokenWithLengthOf30characters"``), its name respelled
    (prometheus' ``client_secret: Cl1ent$ecret!``), a relative path to a file (openobserve's cache
    keys, ``files/default/logs/…/6982652937134804993_2_1.parquet``), a CSS custom property (a
    design token, ``GOOD_TOKEN = "--color-chart-series-2"``) and Basic credentials of an address at
    a domain kept for examples (``root@example.com``). A credential in each place is found."""
    example = base64.b64encode(b"root@example.com:Complexpass#123").decode()
    lines = (
        'ApplicationToken: "aTokenWithLengthOf30characters",',
        'UserKey: "TokenWithLengthOf30Characters4",',
        "client_secret: Cl1ent$ecret!",
        'let file_key = "files/default/logs/disk/2022/10/03/10/6982652937134804993_2_1.parquet";',
        'const GOOD_TOKEN = "--color-chart-series-2";',
        f'let token = "Basic {example}";',
    )
    real = base64.b64encode(f"root@acme-corp.com:{made(16)}".encode()).decode()
    found = (
        f'ApplicationToken: "{made(30)}",',
        f'UserKey: "aToken{made(24)}",',
        f"client_secret: {made(14)}$ecret!",
        f'let file_key = "{made(20)}/{made(20)}";',
        f'const GOOD_TOKEN = "--{made(24)}";',
        f'let token = "Basic {real}";',
    )
    _none_then_each(lines, found, "t.rs", kind)


def _none_then_each(quiet: tuple[str, ...], found: tuple[str, ...], path: str, kind: str) -> None:
    """Nothing is found on each line of ``quiet``, and something on each line of ``found``."""
    for line in quiet:
        assert scan_text(line, path, kind=kind) == [], line
    for line in found:
        assert scan_text(line, path, kind=kind), line


@pytest.mark.parametrize("kind", [CODE, PROSE])
def test_what_batch_32_held_that_is_no_credential(kind: str) -> None:
    """Batch 32 (content management systems): Google's published reCAPTCHA test secret
    (apostrophe's tests), an AWS key id as a presigned URL's credential scope names it (decap-cms'
    recorded Git LFS answers: no secret beside it), a secret's phone number (payload's seed) and a
    description's key (sanity's ``descriptionKey: I18nSearchOperatorDescriptionKey``). A key of
    one's own in each place is found, a key id alone, and any other key's value."""
    key_id = "AKIA" + made(16, "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567")
    scope = f"{key_id}%2F20200513%2Fus-east-1%2Fs3%2Faws4_request"
    lines = (
        "recaptchaSecret: '6LeIxAcTAAAAAGG-vFI1TnRWxMZNFuojJ4WifJWe'",
        f'"href": "https://lfs.s3.amazonaws.com/b1d4?X-Amz-Algorithm=AWS4-HMAC-SHA256&X-Amz-Credential={scope}"',
        "Authorization: AWS4-HMAC-SHA256 Credential=" + scope.replace("%2F", "/"),
        "secretPhone: '+1-555-HIDDEN',",
        "descriptionKey: I18nSearchOperatorDescriptionKey",
    )
    found = (
        f"recaptchaSecret: '6LeIxAcTAAAAA{made(27)}'",
        f"aws_access_key_id = {key_id}",
        f"secretToken: '{made(24)}',",
        f"encryptionKey: {made(32)}",
    )
    _none_then_each(lines, found, "t.js", kind)


@pytest.mark.parametrize("kind", [CODE, PROSE])
def test_what_batch_33_held_that_is_no_credential(kind: str) -> None:
    """Batch 33 (mail servers): a prefix and base64 of a credential's name (docker-mailserver's
    ``DMS_YWNjZXNzX3Rva2Vu``, "access_token"), RFC 7628's OAUTHBEARER example token (stalwart's
    tests), Roundcube's shipped ``des_key``, a filter a password is looked up with
    (``DOVECOT_PASS_FILTER=(&(objectClass=…))``) and what goes in a password's place
    (``admin:yourpass``). A value of one's own in each place is found."""
    lines = (
        "  local ACCESS_TOKEN='DMS_YWNjZXNzX3Rva2Vu'",
        'token: "vF9dft4qmTc2Nvb3RlckBhbHRhdmlzdGEuY29tCg==".to_string(),',
        "$config['des_key'] = 'rcmail-!24ByteDESkey*Str';",
        "- DOVECOT_PASS_FILTER=(&(objectClass=PostfixBookMailAccount)(uniqueIdentifier=%n))",
        "curl -k -u admin:yourpass https://mail.example.org/api/update/webadmin",
    )
    encoded = base64.b64encode(made(12).encode()).decode()
    found = (
        f"  local ACCESS_TOKEN='DMS_{encoded}'",
        f'token: "{base64.b64encode(_rng.randbytes(29)).decode()}".to_string(),',
        f"$config['des_key'] = 'rcmail-{made(17)}';",
        f"- DOVECOT_PASS={made(16)}",
        f"curl -k -u admin:{made(14)} https://mail.example.org/api/update/webadmin",
    )
    _none_then_each(lines, found, "t.rs", kind)


@pytest.mark.parametrize("kind", [CODE, PROSE])
def test_what_batch_34_held_that_is_no_credential(kind: str) -> None:
    """Batch 34 (billing and accounting): a validation's rules in a credential's place (Laravel's
    ``'password' => 'required|string|min:6'``: akaunting, invoiceninja), a value that says what it
    is made of (firefly-iii's ``APP_KEY=SomeRandomStringOf32CharsExactly``) and Plaid's sandbox
    tokens (maybe's recorded ``link-sandbox-…``). A value of one's own in each place is found."""
    lines = (
        "'password' => 'required|string|confirmed',",
        "$rules['api_key'] = 'string|check';",
        "'token' => 'required|uuid|string|max:255',",
        "APP_KEY=SomeRandomStringOf32CharsExactly",
        '"link_token": "link-sandbox-33432e02-32e2-415d-8f00-e626c6f4c6a6",',
    )
    found = (
        f"'password' => '{made(16)}',",
        f"$rules['api_key'] = '{made(24)}|{made(16)}';",
        f"APP_KEY=Some{made(28)}",
        f'"link_token": "link-production-{made(32)}",',
    )
    _none_then_each(lines, found, "t.php", kind)


@pytest.mark.parametrize("kind", [CODE, PROSE])
def test_what_batch_35_held_that_is_no_credential(kind: str) -> None:
    """Batch 35 (API gateways): Tyk's gateway secret as its example configuration ships it, in
    every sample config and compose file of its own, and a sample server's token that is SHA-1 of
    "hello". A secret of one's own in each place is found."""
    lines = (
        '  "secret": "352d20ee67be67f6340b4c0605b044b7",',
        "  valid_token = 'aaf4c61ddcc5e8a2dabede0f3b482cd9aea9434d'",
    )
    found = (
        f'  "secret": "{made(32, "0123456789abcdef")}",',
        f"  valid_token = '{made(40, '0123456789abcdef')}'",
    )
    _none_then_each(lines, found, "tyk.conf", kind)


@pytest.mark.parametrize("kind", [CODE, PROSE])
def test_a_digest_a_scanner_keeps_of_a_secret_is_none(kind: str) -> None:
    """Batch 36 (machine-learning platforms; measured with the round's last rules): detect-secrets'
    ``.secrets.baseline`` keeps each finding as its SHA-1, ``"hashed_secret": "3e26d675…"`` (feast:
    161 places, kedro: 4). A hashed value is no credential. A secret that hashes (an HMAC key
    named ``HASH_SECRET``) is found."""
    digest = made(40, "0123456789abcdef")
    lines = (f'        "hashed_secret": "{digest}",', f'hashed_password = "{digest}"')
    found = (f'HASH_SECRET = "{made(24)}"', f'        "secret": "{digest}",')
    _none_then_each(lines, found, ".secrets.baseline", kind)


@pytest.mark.parametrize("kind", [CODE, PROSE])
def test_what_batch_37_held_that_is_no_credential(kind: str) -> None:
    """Batch 37 (Kubernetes operators and Helm charts): a password's last change as ISO 8601 writes
    it (argo-cd's ``admin.passwordMtime``), Go's conversion of a token's field through
    ``unsafe.Pointer`` (cert-manager's generated code: four of a drawn key's symbols, all names
    between them), a KMS key's resource name (where the key is, not the key) and base64 of a
    password too short to be found written plain (cloudnative-pg's ``ZGFudGU=``, "dante"). A value
    of one's own in each place is found, a Django key drawn from its symbols too."""
    kms = "projects/release/locations/europe-west1/keyRings/release/cryptoKeys/signing/cryptoKeyVersions/1"
    lines = (
        "  admin.passwordMtime: 2019-03-20T17:54:53Z",
        '  "tokenIssued": "2024-01-31 08:15:00.123+01:00",',
        "\tout.TokenAudiences = *(*[]string)(unsafe.Pointer(&in.TokenAudiences))",
        "\tout.SecretRef = (*core.SecretKeySelector)(unsafe.Pointer(in.SecretRef))",
        f'  _KMS_KEY: "{kms}"',
        "  password: ZGFudGU=",
    )
    drawn = made(50, string.ascii_lowercase + string.digits + "!@#$%^&*(-_=+)")
    found = (
        f"  admin.password: {made(20)}",
        f'  "tokenIssued": "2024-01-31T{made(24)}",',
        f"SECRET_KEY = '{drawn}'",
        f'  _KMS_KEY: "{made(32)}"',
        f"  password: {base64.b64encode((made(12) + '5x').encode()).decode()}",
    )
    _none_then_each(lines, found, "values.yaml", kind)


@pytest.mark.parametrize("kind", [CODE, PROSE])
def test_a_page_s_own_token_is_its_cursor(kind: str) -> None:
    """kratos' pagination links (batch 35, looked at again in round 40: 32 places), in JSON with
    its escapes: ``\\u0026page_token=eyJvZmZzZXQiOiIwIiwidiI6Mn0`` is base64 of ``{"offset":"0",
    "v":2}``, the next page's place, as Google's ``pageToken`` is. The previous page's too. A
    Facebook page's access token, and Next.js' API token, are credentials."""
    cursor = base64.b64encode(b'{"offset":"100","v":2}').decode().rstrip("=")
    lines = (
        f'  "\\u003chttp://example.com?page=2\\u0026page_token={cursor}\\u0026per_page=50\\u003e",',
        f'  "pageToken": "{made(40)}",',
        f"prev_page_token = '{made(40)}'",
    )
    found = (
        f'  "page_access_token": "{made(40)}",',
        f"NEXT_API_TOKEN={made(40)}",
        f'  "token": "{made(40)}",',
    )
    _none_then_each(lines, found, "links.json", kind)


@pytest.mark.parametrize("kind", [CODE, PROSE])
def test_what_batch_38_held_that_is_no_credential(kind: str) -> None:
    """Batch 38 (backend-as-a-service and workflow platforms): a design token named in camel case
    (trigger.dev's ``{ token: "--color-apiKeys" }``), a number in hex (a vendored ioctl constant,
    ``SIOCGLIFTOKEN = -0x3f879678``) and words beside a run along the alphabet (appwrite's
    ``'secret' => 'organization_abcd1234'``). A value of one's own in each place is found, and an
    Ethereum key written as a hex number (which the round's start missed: it took the x of ``0x``
    for a letter typed into hex)."""
    lines = (
        '  { token: "--color-apiKeys", usedBy: "API keys nav" },',
        "\tSIOCGLIFTOKEN                 = -0x3f879678",
        "'secret' => 'organization_abcd1234',",
        "'secret' => 'standard-qwerty123',",
    )
    found = (
        f'  {{ token: "--{made(24)}", usedBy: "API keys nav" }},',
        f'PRIVATE_KEY = "0x{made(64, "0123456789abcdef")}"',
        f'PRIVATE_KEY = "0X{made(64, "0123456789ABCDEF")}"',
        f"'secret' => 'organization_{made(16)}',",
    )
    _none_then_each(lines, found, "route.tsx", kind)


def test_a_google_token_s_prefix_inside_base64_is_data() -> None:
    """appwrite's sponsorship.svg (batch 38): a font in a data URI, whose base64 holds ``/1//0``
    and forty letters after it, bytes of the font. A refresh token starts after a quote, a space or
    a sign, never after base64's "/" or "+"."""
    body = made(40, string.ascii_letters + string.digits + "_-")
    assert scan_text(f'src: url("data:font/ttf;base64,AAEAAAv/1//0{body}+AAAA")', "a.svg") == []
    assert scan_text(f'src: url("data:font/ttf;base64,AAEAAAv+1//0{body}/AAAA")', "a.svg") == []
    assert scan_text(f'"refresh_token": "1//0{body}"', "a.json")


@pytest.mark.parametrize("kind", [CODE, PROSE])
def test_what_batch_39_held_that_is_no_credential(kind: str) -> None:
    """Batch 39 (home automation and IoT): a camera URL's template in each language of frigate's
    settings, whose password is the word for one (``usuario:contraseña@``: RFC 3986 lets no letter
    past ASCII stand raw in a URL) or whose port is a word (``@host:port/``, ``@värd:portnummer``),
    and EMQX's default ``admin:public``. A password of one's own in such a URL, at a host and port
    or an IPv6 address, is found, and in curl's ``-u``."""
    lines = (
        '"customUrlPlaceholder": "rtsp://usuari:contrasenya@host:port/ruta",',
        '"streamUrlPlaceholder": "p. ej., rtsp://usuario:contraseña@192.168.1.100/stream",',
        '"streamUrlPlaceholder": "rtsp://användarnamn:lösenord@värd:portnummer/plats",',
        "curl -u admin:public http://localhost:18083/api/v5/nodes",
    )
    password = made(16)
    found = (
        f'"url": "rtsp://admin:{password}@192.168.1.100:554/stream",',
        f'"url": "rtsp://admin:{password}@[fe80::1]:554/stream",',
        f'"url": "rtsp://admin:{password}@camera.local/stream",',
        f"curl -u admin:{password} http://localhost:18083/api/v5/nodes",
    )
    _none_then_each(lines, found, "settings.json", kind)


@pytest.mark.parametrize("kind", [CODE, PROSE])
def test_what_batch_40_held_that_is_no_credential(kind: str) -> None:
    """Batch 40 (forges, registries and dependency tools): a name set in bold where a guide's
    value goes (renovate's ``token: '**gitlab_token**'``), words after a provider's prefix where
    its random part goes (``glpat-token_for_different_git_platform``) and a default password
    respelled with a section sign (gogs' ``P4§$w0rd``). A value of one's own is found in each
    place, and a token of the provider's format."""
    lines = (
        "  token: '**gitlab_token**',",
        'export RENOVATE_GITHUB_COM_TOKEN="**github-token**"',
        '"token": "glpat-token_for_different_git_platform",',
        "    PASSWORD = 'P4§$w0rd'",
    )
    found = (
        f"  token: '**{made(24)}',",
        f'"token": "glpat-{made(20)}",',
        f"    PASSWORD = '{made(24)}'",
    )
    _none_then_each(lines, found, "self-hosting.md", kind)


def test_a_table_s_bar_ends_the_value_in_its_cell() -> None:
    """The Azure SDK's troubleshooting tables, vendored (batch 40): ``|An invalid client secret was
    provided.|Ensure the secret …|``: the word before the bar is the cell's end, not a value that
    runs into the next cell. A password in a table's cell is found."""
    lines = (
        "|AADSTS7000215|An invalid client secret was provided.|Ensure the secret provided to the "
        "credential constructor is valid.|",
        "|AADSTS50126|The provided username or password is invalid.|Ensure the username and "
        "password provided to the credential constructor are valid.|",
    )
    found = (
        f"| staging | the password is {made(16)} | monthly |",
        f"| staging | the password is {made(16)}|",
    )
    _none_then_each(lines, found, "TROUBLESHOOTING.md", PROSE)


@pytest.mark.parametrize("kind", [CODE, PROSE])
def test_a_credential_s_word_after_a_determiner_is_a_stand_in(kind: str) -> None:
    """Batch 41 (forums and chat; measured with the round's last rules, then looked at): NodeBB's
    feed test asks for ``?token=sometoken``. A credential's word after "my", "your", "some",
    "another", "the", "our" or "their", written as one word, says what goes there, as
    ``mypassword`` does. A random token in the same place is found."""
    feed = "const test2 = await request.get(`${nconf.get('url')}/category/${cid}.rss?token="
    lines = (feed + "sometoken`, { });", feed + "anothertoken`, { });")
    found = (feed + made(20) + "`, { });",)
    _none_then_each(lines, found, "feeds.js", kind)


def _token(claims: str, signature: str) -> str:
    """A JSON Web Token signed with HMAC-SHA256 in shape: its claims as given, its signature
    ``signature`` (made up)."""
    encode = lambda text: base64.urlsafe_b64encode(text.encode()).decode().rstrip("=")  # noqa: E731
    return ".".join((encode('{"alg":"HS256","typ":"JWT"}'), encode(claims), signature))


@pytest.mark.parametrize("kind", [CODE, PROSE])
def test_what_the_measured_trees_held_in_round_41_is_no_credential(kind: str) -> None:
    """Round 41, from the trees measured before it: a name numbered and a credential's word
    (apisix's consumers' ``consumer1_pwd``, a chart's ``existingSecret: "s3-credentials"``), a run
    along the signs over the digits (apisix's nacos test ``nacos!@#$%^&*()[]``, telegraf's
    ``PASS:!@#$%^&*(234)_+W0RD``), a JSON pointer where a schema's value goes (kratos'
    ``password: "#/definitions/…"``) and a guide's token whose only claim is a consumer's key's
    name (``{"key":"jack-key"}``). A value of one's own in each place is found."""
    signature = made(43, ALNUM + "-_")
    lines = (
        "    password: consumer1_pwd",
        "curl -i \"http://127.0.0.1:9080/anything\" -H 'apikey: consumer2_pwd'",
        '    existingSecret: "s3-credentials"',
        'body = ngx.encode_args({username = "nacos", password = "nacos!@#$%^&*()[]"}),',
        '    password:  "PASS:!@#$%^&*(234)_+W0RD",',
        'password: "#/definitions/selfServiceAfterDefaultLoginMethod"',
        "export jwt_token=" + _token('{"key":"jack-key","nbf":1729132271}', signature),
    )
    found = (
        f"    password: consumer1_{made(16)}",
        f'    existingSecret: "{made(20)}"',
        'body = ngx.encode_args({username = "nacos", password = "' + made(14) + '!@#"}),',
        f'    password:  "PASS:{made(16)}",',
        f'password: "{made(24)}"',
        "export jwt_token=" + _token(f'{{"key":"{made(16)}","nbf":1729132271}}', signature),
    )
    _none_then_each(lines, found, "multi-auth.md", kind)


def test_a_name_a_rule_reads_is_read_where_a_word_begins() -> None:
    """Batch 42 (low-code builders): formbricks' ``i18n.lock`` maps each message's key to its
    text's digest (``workspace/api_keys/add_api_key: 3c76…``), and the datadog rule read the
    "dd_api_key" inside "add_api_key". Every rule that reads a name before its value reads it where
    a word begins: in its examples, a name glued to the word before it is not read there; in camel
    case (``myDatadogApiKey``) it is."""
    named = [rule for rule in RULES if _ASSIGN in rule.pattern]
    assert len(named) >= 8
    for rule in named:
        pattern = re.compile(rule.pattern)
        for example in rule.examples():
            match = pattern.search(example)
            assert match is not None, (rule.id, example)
            start, value = match.start(), match.start("secret")
            if value <= start or not example[start].isalpha() or "://" in example[start:value]:
                continue
            head, name, tail = example[:start], example[start:value], example[value:]
            glued = head + "a" + name.lower() + tail
            camel = head + "my" + name[0].upper() + name[1:] + tail
            assert start + 1 not in {found.start() for found in pattern.finditer(glued)}, glued
            assert rule.id in {finding.rule for finding in scan_text(camel, "a.yml")}, camel
    digest = made(32, "0123456789abcdef")
    lock = scan_text(f"    workspace/api_keys/add_api_key: {digest}", "i18n.lock")
    assert "datadog-api-key" not in {finding.rule for finding in lock}
    assert scan_text(f"    DD_API_KEY: {digest}", "values.yaml")


@pytest.mark.parametrize("kind", [CODE, PROSE])
def test_what_batch_42_held_that_is_no_credential(kind: str) -> None:
    """Batch 42 (low-code builders; measured once, then looked at): a provider's prefix and words
    in camel case (formbricks' ``fbk_validApiKeySecret123``), a stand-in's word respelled and an
    exclamation mark after it (``Sup3rSecret!``), words joined by non-breaking hyphens (mathesar's
    ``password=strong‑pw‑here``), a placeholder that a Japanese sentence goes on after
    (nocobase's ``token=yyy）を含めます。``) and a Russian guide's words (``Token: API-токен``). A
    value of one's own in each place is found."""
    lines = (
        '      headers: { "x-api-key": "fbk_validApiKeySecret123" },',
        '      headers: { authorization: "Bearer fbk_validBearerKey123" },',
        '      body: { email: "alice@example.com", password: "Sup3rSecret!", name: "Alice" },',
        "postgres:///mathesar_django/?host=localhost&port=5432&user=mathesar"
        "&password=" + "\u2011".join(("strong", "pw", "here")),  # non-breaking hyphens
        "URLパラメータに `token` と認証器の識別子（例: `?authenticator=xxx&token=yyy`）を含めます。",
        "- Token: API-токен текущего запроса NocoBase.",
    )
    found = (
        f'      headers: {{ "x-api-key": "fbk_{made(24)}" }},',
        f'      headers: {{ authorization: "Bearer fbk_{made(24)}" }},',
        f'      body: {{ email: "alice@example.com", password: "{made(14)}!", name: "Alice" }},',
        "postgres:///mathesar_django/?host=localhost&user=mathesar&password=" + made(20),
        f"識別子（例: `?authenticator=xxx&token={made(24)}`）を含めます。",
    )
    _none_then_each(lines, found, "index.md", kind)


@pytest.mark.parametrize("kind", [CODE, PROSE])
def test_what_batch_43_held_that_is_no_credential(kind: str) -> None:
    """Batch 43 (search engines and vector databases; measured once, then looked at): PowerShell's
    next switch after ``-PassThru`` (manticore's release workflow), a token's end in C++
    (``pLastTokenEnd = pTokenStart+1;``), a password's digest named by its algorithm
    (``"password_sha256": "<hex>"``), the users of API keys (weaviate's
    ``AUTHENTICATION_APIKEY_USERS``), a header that says it is not valid, and a test account whose
    password is its name and a number, or "pass" (``httpuser1234`` for httpuser). A value of one's
    own in each place is found."""
    digest = made(64, "0123456789abcdef")
    lines = (
        "$process = Start-Process -FilePath $searchdPath -PassThru -NoNewWindow",
        "\t\t\t\tpLastTokenEnd = pTokenStart+iTagEnd+1; // fix it up",
        f'{{"username":"admin","hashes":{{"password_sha256":"{digest}"}}}}',
        "      AUTHENTICATION_APIKEY_USERS='jane@doe.com,ian-smith,jp-hwang' \\",
        'curl -s -i -H "Authorization: Basic not-valid-base64!!!" http://127.0.0.1:9308/sql',
        'curl -s -u httpuser:httpuser1234 -X POST http://127.0.0.1:9308/token -d "{}"',
        'curl -s -i -u scoped:scopedpass1 -X POST "http://127.0.0.1:9308/sql?mode=raw"',
        "amqp://worker:worker2024@localhost:5672/",
        "amqp://scoped:scopedpass1@localhost:5672/",
    )
    found = (
        f"Connect-Service -Uri $uri -Token {made(16)} -PassThru -NoNewWindow",
        f'{{"username":"admin","hashes":{{"password":"{made(20)}"}}}}',
        f"      AUTHENTICATION_APIKEY_ALLOWED_KEYS='{made(24)}' \\",
        "curl -s -u httpuser:httpuser" + made(12) + " -X POST http://127.0.0.1:9308/token",
        f"amqp://guest:{made(16)}@localhost:5672/",
    )
    _none_then_each(lines, found, "test-auth.rec", kind)


def test_a_credential_s_word_after_a_determiner_is_a_stand_in_in_every_place() -> None:
    """One table (``filters._DETERMINED``) says it for the stand-ins, the passwords everyone tries
    (a URL's and a command's defaults) and the placeholders: gotosocial's guide writes
    ``postgres://myUser:myPass@localhost/db``, which a URL's check, reading another table, took for
    a password. Each determiner's each credential word, as one word, is a stand-in in a URL, in a
    setting and in curl's ``-u``."""
    determiners = ("my", "your", "some", "another", "the", "our", "their")
    nouns = ("password", "passwd", "pass", "pwd", "secret", "token", "key", "apikey", "api")
    for determiner, noun in itertools.product(determiners, nouns):
        spelt = determiner + noun.capitalize()  # myPass, theApikey
        for line in (
            f"db-postgres-connection-string: 'postgres://myUser:{spelt}@localhost/db'",
            f'    password = "{spelt}"',
            f"curl -u admin:{spelt} https://example.org/api",
        ):
            assert scan_text(line, "database.md", kind=PROSE) == [], line
            assert scan_text(line, "settings.py", kind=CODE) == [], line


@pytest.mark.parametrize("kind", [CODE, PROSE])
def test_what_batch_44_held_that_is_no_credential(kind: str) -> None:
    """Batch 44 (message brokers; measured once, then looked at): the Azure Cosmos DB emulator's
    well-known key (redpanda-connect's docs and tests; Microsoft publishes it, and every emulator
    takes it), SQL Server's guides' ``YourStrong!Passw0rd`` in a URL, and ``s3cr3t!`` in one
    (nats-server's tests): a respelled word is read one way everywhere, an exclamation mark that
    ends it is one. A key, and a password, of one's own in each place is found."""
    emulator = "".join(
        (
            "C2y6yDjf5/R+ob0N8A7Cgv30VRDJIWEHLM+4QDU5DE2nQ9nDuVTqobD4b8mGG",
            "yPMbIZnqyMsEcaGQy67XIw/Jw==",
        )
    )
    lines = (
        f"    account_key: {emulator}",
        f"connection_string: AccountEndpoint=https://localhost:8081/;AccountKey={emulator};",
        "    connection_string: sqlserver://sa:YourStrong!Passw0rd@localhost:1433?database=testdb",
        'sysNc := natsConnect(t, fmt.Sprintf("nats://admin:s3cr3t!@127.0.0.1:%d", s.opts.Port))',
    )
    found = (
        f"    account_key: {made(86, ALNUM + '+/')}==",
        f"connection_string: AccountEndpoint=https://h:8081/;AccountKey={made(86, ALNUM + '+/')}==;",
        f"    connection_string: sqlserver://sa:{made(16)}!@localhost:1433?database=testdb",
        f'sysNc := natsConnect(t, fmt.Sprintf("nats://admin:{made(14)}!@127.0.0.1:%d", port))',
    )
    _none_then_each(lines, found, "azure_cosmosdb.adoc", kind)


@pytest.mark.parametrize("kind", [CODE, PROSE])
def test_what_batch_46_held_that_is_no_credential(kind: str) -> None:
    """Batch 46 (database migration tools, ORMs and clients; measured once, then looked at):
    liquibase's patterns that find credentials to mask them (``FILTER_CREDS_USER_TO_BLANK =
    "(?i)[?&:;]user(.*?)=(.+)[^;&]"``: a regular expression, in a credential's place, with more of
    a drawn password's symbols than a drawn password leaves to code), its marker
    ``#RELATIVE_TO_CHANGELOG_FILE#``, ClickHouse's ``<password_double_sha1_hex>`` (a digest of a
    password, however its name goes on), and usql's ``sqlserver://sa:Adm1nP@ssw0rd@localhost``,
    whose password runs to the last "@" as a URL parser reads it (and a URL parser's tests,
    ``user:pass@ex@mple.com``, say no more than the part before the first). Found while looking:
    vector's ``D1fficultP%40ssw0rd`` (a respelling is read with its escapes undone) and words in
    camel case respelled (``S0meVeryL0ngT0ken``). A value of one's own in each place is found."""
    drawn = made(12) + "#(" + made(12) + "^&*" + made(12) + ")"
    lines = (
        'private static final String FILTER_CREDS_USER_TO_BLANK = "(?i)[?&:;]user(.*?)=(.+)[^;&]";',
        'static final String FILTER_CREDS_MYSQL_TO_OBFUSCATE = "(?i).+://(.*?)([:])(.*?)((?=@))";',
        'def relativeToken = "#RELATIVE_TO_CHANGELOG_FILE#"',
        "    <password_double_sha1_hex>e395796d6546b1b65db9d665cd43f0e858dd4303"
        "</password_double_sha1_hex>",
        'mss: "sqlserver://sa:Adm1nP@ssw0rd@localhost"',
        'DB="postgres://app:P@ssw0rd@db.internal:5432/app"',
        '("https://user:pass@ex@mple.com/",',
        '"postgresql://matthew:pa@sword@free.1.cockroachlabs.cloud:26257/defaultdb"',
        'endpoint = "mongodb://myDBReader:D1fficultP%40ssw0rd@mongos0.example.com:27017/"',
        'AppToken = "S0meVeryL0ngT0ken"',
    )
    found = (
        f'private static final String FILTER_CREDS_USER_TO_BLANK = "{drawn}";',
        f'def relativeToken = "#{made(24)}#"',
        f"    <password_double>{made(40, '0123456789abcdef')}</password_double>",
        f'mss: "sqlserver://sa:{made(12)}@{made(12)}@localhost"',
        f'DB="postgres://app:{made(12)}@{made(12)}@db.internal:5432/app"',
        f'endpoint = "mongodb://myDBReader:{made(12)}%40{made(12)}@mongos0.example.com:27017/"',
        f'AppToken = "S0me{made(12)}T0ken"',
    )
    _none_then_each(lines, found, "JdbcConnectionPatterns.java", kind)


@pytest.mark.parametrize("kind", [CODE, PROSE])
def test_what_batch_47_held_that_is_no_credential(kind: str) -> None:
    """Batch 47 (VPNs and tunnels; measured once, then looked at): the public halves of Tailscale's
    keys as its control protocol writes them (headscale's policy tests: 126,932 places, every
    ``"NodeKey": "nodekey:<hex>"``, ``mkey:``, ``discokey:``), and a password typed down a German
    keyboard's columns (wg-easy's ``Qweasdyxcv!2``: qwe, asd, yxcv; runs along a row, end to end,
    beside default passwords or not). A private key (``privkey:``), a public key's prefix on
    anything but a key, and a password of one's own are found."""
    hex64 = "0123456789abcdef"
    lines = (
        f'\t\t\t"NodeKey":    "nodekey:{made(64, hex64)}",',
        f'\t\t\t"MachineKey": "mkey:{made(64, hex64)}",',
        f'\t\t\t\t"DiscoKey":   "discokey:{made(64, hex64)}",',
        f'\tnlKey := "nlpub:{made(64, hex64)}"',
        "      - INIT_PASSWORD=Qweasdyxcv!2",
        '    password: "adminqwerty"',
        '    password: "azerty2024"',
    )
    found = (
        f'\t\t\t"MachineKey": "privkey:{made(64, hex64)}",',
        f'\t\t\t"NodeKey":    "nodekey:{made(40)}",',
        f"      - INIT_PASSWORD={made(12)}!2",
    )
    _none_then_each(lines, found, "grant-v14.hujson", kind)


@pytest.mark.parametrize("kind", [CODE, PROSE])
def test_what_batch_48_held_that_is_no_credential(kind: str) -> None:
    """Batch 48 (backup and file-sync tools; measured once, then looked at): borg's quickstart
    exports ``BORG_PASSPHRASE='XYZl0ngandsecurepa_55_phrasea&&123'``, a value that spells
    "passphrase" (respelled, cut by a sign) as others spell "password": a stand-in. A passphrase
    of one's own is found."""
    lines = (
        "    export BORG_PASSPHRASE='XYZl0ngandsecurepa_55_phrasea&&123'",
        '    passphrase: "MyPassphrase2024"',
    )
    found = (
        f"    export BORG_PASSPHRASE='{made(16)}&&123'",
        f'    passphrase: "{made(16)}2024"',
    )
    _none_then_each(lines, found, "quickstart.rst", kind)


@pytest.mark.parametrize("kind", [CODE, PROSE])
def test_what_batch_49_held_that_is_no_credential(kind: str) -> None:
    """Batch 49 (password managers, secret stores, certificate authorities; measured once, then
    looked at): ciphertext in its tool's format (Bitwarden's EncString ``2.<iv>|<data>|<mac>``,
    OpenSSL's salted ``U2FsdGVkX1…``), a digest an HMAC wrote (Vault's audit log:
    ``hmac-sha256:…``), a name ending in "accessor" (Vault's handle of a token), a private member
    read in code (``_globalSettings.Braintree.PrivateKey``), AWS's documented keys edited where
    "EXAMPLE" stood, Google Authenticator's documented TOTP secrets, and base32 of printable text
    (RFC 6238's test secret, base32 of "12345678901234567890"); and a respelled value's year,
    which the spelling read as letters (``T0k3n2024``: token2o2a; a run of three digits or more
    is a number, but for one inside a word: oauth2-proxy's ``us3r2P455W0Rd!``): bitwarden's seeded
    vault, ``ghp_C1B0tS3rvic3T0k3n2024``; and an algorithm's name is a numbered word (apisix's
    tokens claim ``{"key": "user-key-rs256"}``). A value of one's own in each place is found."""
    b64 = ALNUM + "+/"
    enc = "2." + made(22, b64) + "==|" + made(22, b64) + "==|" + made(43, b64) + "="
    lines = (
        f'    private const string _wrappedUserKey = "{enc}";',
        f'  "password": "U2FsdGVkX1{made(54, b64)}",',
        f'  Token: "hmac-sha256:{made(64, "0123456789abcdef")}",',
        '    "secret_id_accessor": "84896a0c-1347-aa90-a4f6-aca8b7558780",',
        "            PrivateKey = _globalSettings.Braintree.PrivateKey",
        "CHANGED_VALID_AWS_KEY = 'AKIAIOSFODNN7CHANGED'",
        "CHANGED_VALID_AWS_SECRET = 'wJalrXUtnFEMI/K7MDENG/bPxRfiCYTGNCHANGED'",
        "  url: otpauth://totp/ACME%20Co:john@example.com?secret=HXDMVJECJJWSRB3HWIZR4IFUGFTMXBOZ",
        '    attr->set("TimeOtp-Secret-Base32", "GEZDGNBVGY3TQOJQGEZDGNBVGY3TQOJQ");',
        '    secret = "gezdgnbvgy3tqojqgezdgnbvgy3tqojq";',
        '        "password": "ghp_C1B0tS3rvic3T0k3n2024",',
        '        "password": "ghp_ZkL4b5R3p0S1t0ryT0k3n2024",',
        '\tuser2Password = "us3r2P455W0Rd!"',
        f'            local sign = "{token_with({"key": "user-key-rs256", "nbf": 1727274983})}"',
    )
    found = (
        f'    private const string _wrappedUserKey = "{made(44, b64)}";',
        f'  "password": "{made(64, b64)}",',
        f'  Token: "hvs_{made(64, "0123456789abcdef")}",',
        f'    "client_token": "{made(32)}",',
        f"            PrivateKey = {made(40)}",
        f"CHANGED_VALID_AWS_KEY = 'AKIA{made(16, 'ABCDEFGHIJKLMNOPQRSTUVWXYZ234567')}'",
        f"CHANGED_VALID_AWS_SECRET = '{made(40, b64)}'",
        f"  url: otpauth://totp/ACME%20Co:john@example.com?secret={made(32, 'ABCDEFGHIJKLMNOPQRSTUVWXYZ234567')}",
        f'    attr->set("TimeOtp-Secret-Base32", "{made(32, "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567")}");',
        f'        "password": "ghp_{made(20)}2024",',
        f'\tuser2Password = "{made(14)}!"',
        f'            local sign = "{token_with({"key": made(20), "nbf": 1727274983})}"',
    )
    _none_then_each(lines, found, "OrganizationTestHelpers.cs", kind)


@pytest.mark.parametrize("kind", [CODE, PROSE])
def test_what_batches_50_and_51_held_that_is_no_credential(kind: str) -> None:
    """Batches 50 and 51 (feature flags and analytics, notification services; each measured once,
    then looked at): a value that says it stands in (``…ThisIsNotARealKeyOMG.``, a super secret
    respelled, a secret key in words run together), Nx Cloud's read-only access token (base64 of
    its id and "|read-only"), and in a URL's password place a stand-in said in words (XKCD's horse)
    or a variable's name (``app_id:master_key``). A value of one's own in each place is found, and
    a run typed into a URL's token is no word: it stays found."""
    nx = base64.b64encode(b"e47c7721-3c6e-434e-b49b-f8f9ea5d5134|read-only").decode()
    lines = (
        '    smtp-sender-pass: "Abd13Kf+sfAk2DzifjafldkThisIsNotARealKeyOMG."',
        "const apiKey = 'TH!Si$ASup3RSeCreTAP!KEy';",
        "  apiKey='my-project:production.averylongsecretkeythatshouldgettruncated12345'",
        f'  "nxCloudAccessToken": "{nx}",',
        '  url.Parse("zulip://bot-name%40zulipchat.com:correcthorsebatterystaple@example.zulipchat.com")',
        '    "parsep://app_id:master_key@localhost:8080?device=ios",',
    )
    read_write = base64.b64encode(b"e47c7721-3c6e-434e-b49b-f8f9ea5d5134|read-write").decode()
    found = (
        f'    smtp-sender-pass: "{made(24, ALNUM + "+")}."',
        f"const apiKey = '{made(24)}';",
        f"  apiKey='my-project:production.{made(40)}'",
        f'  "nxCloudAccessToken": "{read_write}",',
        f'  url.Parse("zulip://bot-name%40zulipchat.com:{made(20)}@example.zulipchat.com")',
        f'    "parsep://app_id:{made(16)}@localhost:8080?device=ios",',
    )
    typed = "https://someone:ATBB" + made(12) + "abc123" + made(12) + "@bitbucket.org"
    _none_then_each(lines, (*found, typed), "provider.spec.ts", kind)


@pytest.mark.parametrize("kind", [CODE, PROSE])
def test_what_batch_52_held_that_is_no_credential(kind: str) -> None:
    """Batch 52 (helpdesks and CRMs; measured once, then looked at): a regular expression in a
    token's place whose class opens with a range (Doctrine's ``NAMED_TOKEN``, vendored in
    freescout). A value of one's own in its place is found."""
    lines = ("    public const NAMED_TOKEN      = '(?<!:):[a-zA-Z_][a-zA-Z0-9_]*';",)
    found = (f"    public const NAMED_TOKEN      = '{made(24)}';",)
    _none_then_each(lines, found, "SQLParserUtils.php", kind)


@pytest.mark.parametrize("kind", [CODE, PROSE])
def test_what_batch_53_held_that_is_no_credential(kind: str) -> None:
    """Batch 53 (project management tools and wikis; measured once, then looked at): a token dated
    before any server issued one, its time written by hand (taiga's tests: ``{"exp": 946684800}``,
    the year 2000; an ``iat`` of 0), and a camel-case sentence that ends in an acronym (vikunja's
    ``averyLongSecretToSe33dtheDB``). A token of this decade, and a drawn value, are found."""
    lines = (
        f"        '{token_with({'exp': 946684800})}',",
        f"        '{token_with({'sub': 'ada', 'iat': 0})}',",
        "          TEST_SECRET: averyLongSecretToSe33dtheDB",
        "  const testSecret = process.env.TEST_SECRET || 'averyLongSecretToSe33dtheDB'",
    )
    found = (
        f"        '{token_with({'exp': 1893456000})}',",
        f"        '{token_with({'sub': 'ada', 'iat': 1733400000})}',",
        f"          TEST_SECRET: {made(20)}DB",
        f"  const testSecret = process.env.TEST_SECRET || '{made(24)}'",
    )
    _none_then_each(lines, found, "test_backends.py", kind)


# Passwords typed for test users and seeds (lago's, bitwarden's seeder, tutor's smoke test, maybe's,
# netbird's): words, respelled or not, a number and a sign, as a password policy asks
TYPED_PASSWORDS = (
    "HelloLago!1",
    "SecureP@ss123!",
    "Xer0Ledger2026!",
    "D0ckerHubPu11er2026",
    "AwsR00tBreakGlass2026#",
    "SmokeTest@123!",
    "externalScreaming$123",
    "Jacqueline@OHRM123",
    "Fresh-Start-2024!",
    "Rest_Host_123!",
)


@pytest.mark.parametrize("typed", TYPED_PASSWORDS)
def test_a_password_typed_to_a_policy_is_no_generated_value_in_code(typed: str) -> None:
    """In code a generic value must look generated: a password typed to a policy's rules (words, a
    number, a sign) is a test user's or a seed's. In a memory or a log it is found: there it is
    someone's password. A drawn value of the same length is found in code."""
    line = f'    user.update!(password: "{typed}")'
    assert scan_text(line, "reset_spec.rb", kind=CODE) == []
    assert scan_text(line, "memory.md", kind=PROSE)
    drawn = made(max(12, len(typed) - 1)) + "!"
    assert scan_text(f'    user.update!(password: "{drawn}")', "reset_spec.rb", kind=CODE)


def test_few_drawn_values_read_as_typed_passwords() -> None:
    """A drawn value is rarely words with a number last: of 5,000 drawn 12-character values, under
    one in 500; of 20 characters or more, none."""
    symbols = ALNUM + "!@#$%^&*-_.~"
    short = sum(typed_password(made(12, symbols)) for _ in range(5000))
    assert short < 10
    assert not any(typed_password(made(n, symbols)) for n in (20, 24, 32) for _ in range(3000))


@pytest.mark.parametrize("kind", [CODE, PROSE])
def test_what_batch_55_held_that_is_no_credential(kind: str) -> None:
    """Batch 55 (learning platforms; measured once, then looked at): a test's marker, the string it
    looks for in output (frappe's ``SECRET_MARKER``), and a stand-in that counts on from a
    credential's word (ilios's documented ``PR0DUCT10nS3CRET12345``). A value drawn in their place
    is found."""
    lines = (
        'SECRET_MARKER = "ANSWER-KEY-8f21"',
        'SetEnvIf Host "ilios-production" ILIOS_SECRET=PR0DUCT10nS3CRET12345',
    )
    found = (
        f'SECRET = "{made(24)}"',
        f'SetEnvIf Host "ilios-production" ILIOS_SECRET={made(21)}',
    )
    _none_then_each(lines, found, "test_lesson_instructor_content.py", kind)


@pytest.mark.parametrize("kind", [CODE, PROSE])
def test_what_batch_56_held_that_is_no_credential(kind: str) -> None:
    """Batch 56 (HR, ERP and inventory tools; measured once, then looked at): a placeholder that
    addresses its reader in camel case (horilla's ``pathToYourServiceAccountJsonFile``). A value
    drawn in its place is found."""
    lines = ('GOOGLE_APPLICATION_CREDENTIALS="pathToYourServiceAccountJsonFile"',)
    found = (f'GOOGLE_APPLICATION_CREDENTIALS="{made(32)}"',)
    _none_then_each(lines, found, ".env.dist", kind)


@pytest.mark.parametrize("kind", [CODE, PROSE])
def test_what_batch_57_held_that_is_no_credential(kind: str) -> None:
    """Batch 57 (social networks and the fediverse; measured once, then looked at): a type named
    after its elliptic curve, in a key's place (atproto's ``jwtSigningKey: Secp256k1Keypair``). A
    value drawn in its place is found, and one that only holds a curve's name."""
    lines = (
        "  jwtSigningKey: Secp256k1Keypair",
        "  signingKey: P256Keypair",
        "  signingKey: X25519PublicKey",
    )
    found = (
        f"  jwtSigningKey: {made(16)}",
        f"  signingKey: {made(12)}P256{made(12)}",
    )
    _none_then_each(lines, found, "entryway-mock.ts", kind)


@pytest.mark.parametrize("kind", [CODE, PROSE])
def test_what_batch_58_held_that_is_no_credential(kind: str) -> None:
    """Batch 58 (self-hosted deployment platforms; measured once, then looked at): a constant's name
    that ends in a port's number, in a key's place (coolify's ``SERVICE_FQDN_POSTGRES_5432``). A
    value drawn in its place is found, and a name whose words hold more digits than a name's."""
    lines = ("        $portKey = 'SERVICE_FQDN_POSTGRES_5432';",)
    found = (
        f"        $portKey = '{made(24)}';",
        "        $portKey = 'SERVICE_FQDN_" + "P0S7GR35_5432';",  # built: this file is scanned
    )
    _none_then_each(lines, found, "ServicePortSpecificVariablesTest.php", kind)


@pytest.mark.parametrize("kind", [CODE, PROSE])
def test_what_batch_59_held_that_is_no_credential(kind: str) -> None:
    """Batch 59 (data annotation and labelling tools; measured once, then looked at): a secret said
    to be very secret, respelled (inception's documented ``t0t4llYSecreT``), as a super secret is.
    A value drawn in its place is found."""
    lines = (
        "database.password=t0t4llYSecreT",
        "* create a database user with the password `t0t4llYSecreT` which the application uses",
    )
    found = (f"database.password={made(14)}",)
    if kind == PROSE:  # a sentence is read as one in prose only
        found += (f"* create a database user with the password `{made(14)}` which it uses",)
    _none_then_each(lines, found, "installation_home.adoc", kind)


@pytest.mark.parametrize("kind", [CODE, PROSE])
def test_what_batch_62_held_that_is_no_credential(kind: str) -> None:
    """Batch 62 (personal data managers; measured once, then looked at): "change me" respelled with
    a 6 for its g (wallabag's ``APP_SECRET=ch4n63m31fy0uc4n``). A value drawn in its place is
    found."""
    lines = ("APP_SECRET=ch4n63m31fy0uc4n",)
    found = (f"APP_SECRET={made(16)}",)
    _none_then_each(lines, found, ".env", kind)


# The generator points of P-256 and secp256k1, published with each curve: public keys
P256_G = (
    "04"
    "6B17D1F2E12C4247F8BCE6E563A440F277037D812DEB33A0F4A13945D898C296"
    "4FE342E2FE1A7F9B8EE7EB4A7C0F9E162BCE33576B315ECECBB6406837BF51F5"
)
SECP256K1_G = (
    "04"
    "79BE667EF9DCBBAC55A06295CE870B07029BFCDB2DCE28D959F2815B16F81798"
    "483ADA7726A3C4655DA4FBFC0E1108A8FD17B448A68554199C47D08FFB10D4B8"
)


def _point(hex_point: str) -> str:
    return base64.urlsafe_b64encode(bytes.fromhex(hex_point)).decode().rstrip("=")


@pytest.mark.parametrize("kind", [CODE, PROSE])
def test_what_batch_63_held_that_is_no_credential(kind: str) -> None:
    """Batch 63 (chat servers; measured once, then looked at): an elliptic-curve public key, a point
    on its curve (tinode's web push ``FCM_VAPID_KEY``: browsers are sent it); a stand-in that says
    it is not actual (synapse's ``n0t4ctuAllymatr1Xd0Torg…``) or random (tinode's
    ``AIRaNdOmX4ULR…``); and a user's name for its password (tinode's ``alice:alice123``). A value
    drawn in each place is found, and the same bytes off the curve."""
    off_curve = P256_G[:-2] + ("00" if not P256_G.endswith("00") else "01")
    lines = (
        f'    "FCM_VAPID_KEY": "{_point(P256_G)}"',
        f'    "FCM_VAPID_KEY": "{_point(SECP256K1_G)}"',
        'turn_shared_secret: "n0t4ctuAllymatr1Xd0TorgSshar3d5ecret4obvIousreAsons"',
        "--env FCM_API_KEY=AIRaNdOmX4ULR-X6ranDomzZ2bHdRanDomq2tbQ \\",
        '{"schema": "basic", "secret": "alice:alice123"}',
    )
    found = (
        f'    "FCM_VAPID_KEY": "{_point(off_curve)}"',
        f'turn_shared_secret: "{made(48)}"',
        f"--env FCM_API_KEY={made(39)} \\",
        f'{{"schema": "basic", "secret": "alice:{made(16)}"}}',
    )
    _none_then_each(lines, found, "cluster.yml", kind)


@pytest.mark.parametrize("kind", [CODE, PROSE])
def test_what_batch_64_held_that_is_no_credential(kind: str) -> None:
    """Batch 64 (job schedulers and workflow engines; measured once, then looked at): an element's
    id as a selector names it (cronicle's ``'#fe_login_password' : '#fe_login_username'``), a name
    that ends in an address holds one (hatchet's ``EmbeddedTokenGRPCAddress``), and the password
    everyone tries, respelled and cut by signs (prefect's ``p@ss!word#123``). A value drawn in
    each place is found."""
    lines = (
        "$( app.getPref('username') ? '#fe_login_password' : '#fe_login_username' ).focus();",
        '    EmbeddedTokenGRPCAddress = "localhost:7077"',
        '    "password": "p@ss!word#123",',
    )
    found = (
        f"$( app.getPref('username') ? '#fe_login_password' : '{made(18)}' ).focus();",
        f'    EmbeddedToken = "{made(24)}"',
        f'    "password": "{made(14)}",',
    )
    _none_then_each(lines, found, "Login.class.js", kind)


@pytest.mark.parametrize("kind", [CODE, PROSE])
def test_what_batch_65_held_that_is_no_credential(kind: str) -> None:
    """Batch 65 (API clients and mock servers; measured once, then looked at): a stand-in encoded
    twice for a URL (bruno's ``token=abc%2520xyz``, "abc xyz"). A value drawn in its place is
    found."""
    lines = (
        "url: http://localhost:8081/api/echo/anything/login?redirect=https%3A%2F%2Fother.com&token=abc%2520xyz",
        "    token: abc%2520xyz",
    )
    # (a host of the network: a token in a URL to the loopback is the run's that printed it,
    # round 50)
    found = (
        f"url: http://api.example.org:8081/api/echo/anything/login?redirect=https%3A%2F%2Fother.com&token={made(24)}",
        f"    token: {made(24)}",
    )
    _none_then_each(lines, found, "query-double-encode.bru", kind)


def test_words_joined_are_no_generated_value_in_code() -> None:
    """In code, words joined by separators, three or more and half the value or more, are a name or
    a sentence (bruno's ``INITIAL_VALUE_collection_env_e2e_001``, unleash's
    ``some-strange-pass-123-GH``); a token whose prefix of words goes before a longer random part
    is found (``salad_cloud_org_…``), and so is a drawn value between words."""
    for value in ("INITIAL_VALUE_collection_env_e2e_001", "some-strange-pass-123-GH"):
        assert scan_text(f'bru.setEnvVar("apiToken", "{value}");', "seed.bru", kind=CODE) == []
    for value in (f"salad_cloud_org_{made(51)}", f"dev_env_{made(24)}_key"):
        assert scan_text(f'bru.setEnvVar("apiToken", "{value}");', "seed.bru", kind=CODE), value


def test_what_batch_66_held_that_is_no_credential() -> None:
    """Batch 66 (marketing automation and newsletter tools; measured once, then looked at): in
    code, a list of words in commas in a token's place (mautic's vendored beautifier:
    ``single_token: 'br,input,link,meta,…'``). A drawn value in its place is found."""
    line = "    single_token: '{}'.split(','),"
    words = "br,input,link,meta,source,!doctype,basefont,base,area,hr,wbr,param,img,isindex,embed"
    assert scan_text(line.format(words), "code_beautifier.js", kind=CODE) == []
    assert scan_text(line.format(made(40)), "code_beautifier.js", kind=CODE)


@pytest.mark.parametrize("kind", [CODE, PROSE])
def test_what_batch_67_held_that_is_no_credential(kind: str) -> None:
    """Batch 67 (game server panels; measured once, then looked at): what follows the encoding a
    Laravel key names is judged (gameap's tests: ``"APP_KEY": "base64:somekey"``, a stand-in). A
    key's base64 of drawn bytes after it is found."""
    drawn = base64.b64encode(bytes(_rng.randrange(256) for _ in range(32))).decode()
    lines = ('        "APP_KEY": "base64:somekey",',)
    found = (f'        "APP_KEY": "base64:{drawn}",',)
    _none_then_each(lines, found, "legacy_test.go", kind)


@pytest.mark.parametrize("kind", [CODE, PROSE])
def test_a_password_s_digest_beside_its_salt_is_no_password(kind: str) -> None:
    """Batch 68 (health records; measured once with the last rules, then looked at): a user's
    record keeps its password's digest beside the salt it was hashed with (openmrs's test datasets:
    ``<users username="admin" password="4a17…" salt="c788…"/>``, a SHA-1 printed without its leading
    zero; a SHA-512 too). The same digest with no salt on its line, and a drawn value beside a salt,
    are found."""
    sha1 = hashlib.sha1(made(12).encode()).hexdigest()[1:]  # as if printed without a leading zero
    sha512 = hashlib.sha512(made(12).encode()).hexdigest()
    salt = hashlib.sha1(made(12).encode()).hexdigest()
    record = '  <users user_id="5" username="admin" password="{}" {} secret_question="" />'
    lines = (
        record.format(sha1, f'salt="{salt}"'),
        record.format(sha512, f'salt="{salt}"'),
        f'    {{"username": "admin", "salt": "{salt}", "password": "{sha1}"}},',
    )
    found = (
        record.format(sha512, 'locale="en"'),
        record.format(made(40), f'salt="{salt}"'),
    )
    _none_then_each(lines, found, "standardTestDataset.xml", kind)


@pytest.mark.parametrize("kind", [CODE, PROSE])
def test_what_batch_69_held_that_is_no_credential(kind: str) -> None:
    """Batch 69 (identity providers; measured once, then looked at): a password's hash encoded in
    base64 is a hash (rauthy's dashboard password: base64 of ``$argon2id$v=19$…``; cloudnative-pg's
    of a SCRAM verifier). Base64 of drawn bytes of the same length is found."""

    def b64(raw: bytes) -> str:
        return base64.b64encode(raw).decode()

    def drawn(n: int) -> bytes:
        return bytes(_rng.randrange(256) for _ in range(n))

    argon = f"$argon2id$v=19$m=19456,t=2,p=1${b64(drawn(16))}${b64(drawn(32))}"
    scram = f"SCRAM-SHA-256$4096:{b64(drawn(16))}${b64(drawn(32))}:{b64(drawn(32))}"
    lines = tuple(f'password_dashboard = "{b64(text.encode())}"' for text in (argon, scram))
    found = (f'password_dashboard = "{b64(drawn(len(argon)))}"',)
    _none_then_each(lines, found, "config.toml", kind)


@pytest.mark.parametrize("kind", [CODE, PROSE])
def test_what_batch_70_held_that_is_no_credential(kind: str) -> None:
    """Batch 70 (web analytics; measured once, then looked at): the MD5 of a digit, in every
    rainbow table (matomo's test users' ``ADMIN_USER_TOKEN = md5('1')``), and a method's name
    with two-factor's "Fa" in it (``'afterPassword' => 'render2FaUserSettings'``). A drawn hex
    token and a drawn camel-case value are found."""
    digest = hashlib.md5(b"1").hexdigest()
    lines = (
        f"    public const ADMIN_USER_TOKEN = '{digest}';",
        "            'Template.userSecurity.afterPassword' => 'render2FaUserSettings',",
    )
    found = (
        f"    public const ADMIN_USER_TOKEN = '{made(32, '0123456789abcdef')}';",
        f"            'Template.userSecurity.afterPassword' => 'render2Fa{made(16)}',",
    )
    _none_then_each(lines, found, "Fixture.php", kind)


@pytest.mark.parametrize("kind", [CODE, PROSE])
def test_what_batch_71_held_that_is_no_credential(kind: str) -> None:
    """Batch 71 (note-taking apps; measured once, then looked at): a nonce, sent in the clear
    (standardnotes' key parameters' ``pw_nonce``); a TypeScript chain with its non-null assertion
    and a numeronym in a member's name (blinko's ``store.s3AccessKeySecret =
    blinko.config.value?.s3AccessKeySecret!``); and twenty capitals inside a run of base64, letters
    of both cases about them (pdf.js's embedded wasm), which no AWS key id is. Drawn values in
    their places are found."""
    b32 = "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567"
    key_id = "ABIA" + made(16, b32)
    blob = made(40, string.ascii_letters)
    lines = (
        f"      pw_nonce: '{made(64, '0123456789abcdef')}',",
        "    store.s3AccessKeySecret = blinko.config.value?.s3AccessKeySecret!",
        f'var wasm = "{blob}s{key_id}s{blob}";',
    )
    found = (
        f"      pw_secret: '{made(64, '0123456789abcdef')}',",
        f"    store.s3AccessKeySecret = blinko.config.value?.{made(20)}!",
        f'var key = "{key_id}";',
    )
    _none_then_each(lines, found, "KeyParamsFactory.spec.ts", kind)


@pytest.mark.parametrize("kind", [CODE, PROSE])
def test_what_batch_73_held_that_is_no_credential(kind: str) -> None:
    """Batch 73 (file-sharing servers; measured once, then looked at): Azure Storage's documented
    sample shared access signature (sftpgo's tests), which its decoded layer reads with its URL
    escapes undone. The same URL signed with a drawn signature is found."""
    url = (
        "https://myaccount.blob.core.windows.net/pictures/profile.jpg?sv=2012-02-12&st=2009-02-09"
        "&se=2009-02-10&sr=c&sp=r&si=YWJjZGVmZw%3d%3d&sig={}"
    )
    sample = "dD80ihBh5jfNpymO5" + "Hg1IdiJIEvHcJpCMiCMnN%2fRnbI%3d"
    line = '    user.FsConfig.AzBlobConfig.SASURL = kms.NewPlainSecret("{}")'
    drawn = made(42)
    found = (line.format(url.format(drawn[:38] + "%2f" + drawn[38:] + "%3d")),)
    _none_then_each((line.format(url.format(sample)),), found, "httpd_test.go", kind)


BASE58 = "123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz"


@pytest.mark.parametrize("kind", [CODE, PROSE])
def test_what_batch_74_held_that_is_no_credential(kind: str) -> None:
    """Batch 74 (payment servers; measured once, then looked at): a BIP 32 extended public key
    (btcpayserver's test vectors' ``"signingKey": "xpub6DAb…"``), a wallet's public half. Its
    private half, the same characters after ``xprv``, is found."""
    body = made(107, BASE58)
    lines = (f'          "signingKey": "xpub{body}",', f'          "accountKey": "tpub{body}",')
    _none_then_each(lines, (f'          "signingKey": "xprv{body}",',), "vectors.json", kind)


def test_an_address_is_no_generated_password_in_code() -> None:
    """In code a generic value must look generated, and an e-mail address is not: a test user whose
    password is its address (btcpayserver's ``Password = "admin@admin.com"``). In a memory it is
    found, and a drawn value in its place in code is."""
    line = '            Password = "{}",'
    assert scan_text(line.format("admin@admin.com"), "EmailsTests.cs", kind=CODE) == []
    assert scan_text(line.format("store.owner@shop.example.net"), "EmailsTests.cs", kind=CODE) == []
    assert scan_text(line.format("admin@admin.com"), "memory.md", kind=PROSE)
    assert scan_text(line.format(made(16)), "EmailsTests.cs", kind=CODE)


@pytest.mark.parametrize("kind", [CODE, PROSE])
def test_what_batch_75_held_that_is_no_credential(kind: str) -> None:
    """Batch 75 (feed readers; measured once, then looked at): "password" in another language,
    numbered (freshrss's French guide: ``curl -u alice:motdepasse123``), and a link's redirect
    token (a saved YouTube page's ``redirect?…&redir_token=…``), which authorizes nothing. A
    drawn password and a drawn access token in their places are found."""
    link = "https://www.youtube.com/redirect?event=video_description&{}={}&q=https%3A%2F%2Fx.org"
    lines = (
        "0 * * * * curl -u alice:motdepasse123 'https://freshrss.example.net/i/?a=actualize'",
        "curl -u bob:Passwort2024 https://rss.example.net/api",
        f'<a href="{link.format("redir_token", made(40))}">',
    )
    found = (
        f"0 * * * * curl -u alice:{made(14)} 'https://freshrss.example.net/i/?a=actualize'",
        f'<a href="{link.format("access_token", made(40))}">',
    )
    _none_then_each(lines, found, "03_Main_view.md", kind)


@pytest.mark.parametrize("kind", [CODE, PROSE])
def test_what_batch_77_held_that_is_no_credential(kind: str) -> None:
    """Batch 77 (remote access gateways; measured once, then looked at): the digest of a password
    everyone tries, written in capitals (guacamole's example user mapping: md5 of "PASSWORD"). The
    digest of a drawn password is found."""
    line = '            password="{}"'
    digest = hashlib.md5(b"PASSWORD").hexdigest()
    drawn = hashlib.md5(made(12).encode()).hexdigest()
    _none_then_each((line.format(digest),), (line.format(drawn),), "user-mapping.xml", kind)


@pytest.mark.parametrize("kind", [CODE, PROSE])
def test_what_batch_78_held_that_is_no_credential(kind: str) -> None:
    """Batch 78 (calendar and contacts servers; measured once, then looked at): a WebDAV lock's
    token (RFC 4918's ``opaquelocktoken:`` URI, sabre-dav's docblocks) names a lock. A drawn token
    in its place is found."""
    line = "     *                  'token'  => '{}',"
    lock = f"opaquelocktoken:{made(12, 'abcdef0123456789')[:8]}-7d8c-11d0-a765-00a0c91e6bf2"
    _none_then_each((line.format(lock),), (line.format(made(36)),), "Server.php", kind)


@pytest.mark.parametrize("kind", [CODE, PROSE])
def test_what_batch_79_held_that_is_no_credential(kind: str) -> None:
    """Batch 79 (wiki engines; measured once, then looked at): a value closed by a quote as HTML
    escapes it is judged without it (tiddlywiki's guide: ``--listen username=joe
    &quot;password=bloggs&quot;``, a placeholder's surname). A drawn password there is found."""
    line = (
        "** `arguments=&quot;tiddlywiki.js --listen username=joe &quot;password={}&quot; port=80`"
    )
    _none_then_each((line.format("bloggs"),), (line.format(made(14)),), "IIS.tid", kind)


@pytest.mark.parametrize("kind", [CODE, PROSE])
def test_what_batch_80_held_that_is_no_credential(kind: str) -> None:
    """Batch 80 (video surveillance; measured once, then looked at): a name that says its value is
    not secret (motioneye's ``CLIENT_NOT_SO_SECRET``, an installed app's OAuth client secret). The
    same value under the name without the word is found."""
    value = made(24)
    lines = (f"    CLIENT_NOT_SO_SECRET = '{value}'",)
    _none_then_each(lines, (f"    CLIENT_SO_SECRET = '{value}'",), "uploadservices.py", kind)


@pytest.mark.parametrize("kind", [CODE, PROSE])
def test_what_batch_81_held_that_is_no_credential(kind: str) -> None:
    """Batch 81 (download managers; measured once, then looked at): a password's salt, stored
    beside its hash (deluge's ``'pwd_salt': '7555…'``; a token's or a key's salt may sign, and is
    found); a CAPTCHA's key named by the CAPTCHA alone, its public site key (pyload's
    ``RECAPTCHA_KEY = "6Lc…"``; its ``RECAPTCHA_SECRET_KEY`` is found); and NZBGet's default
    control password, in every guide to it."""
    salt = made(40, "0123456789abcdef")
    site = "6Lc" + made(37, ALNUM + "_-")
    lines = (
        f"    'pwd_salt': '{salt}',",
        f'    RECAPTCHA_KEY = "{site}"',
        'server = ServerProxy("http://nzbget:' + "tegbzn" + '6789@localhost:6789/xmlrpc")',
    )
    found = (
        f'    "api_key_salt": "{salt}",',
        f'    RECAPTCHA_SECRET_KEY = "{site}"',
        f'server = ServerProxy("http://nzbget:{made(12)}@localhost:6789/xmlrpc")',
    )
    _none_then_each(lines, found, "server.py", kind)


@pytest.mark.parametrize("kind", [CODE, PROSE])
def test_what_batch_83_held_that_is_no_credential(kind: str) -> None:
    """Batch 83 (digital libraries; measured once, then looked at): a salt and a hex digest after
    it, a password's hash (openlibrary's development accounts: ``"enc_password": "ffe5d$98df…"``).
    A drawn value of the same length is found."""
    salt, digest = made(12, "0123456789abcdef")[:5], hashlib.md5(made(12).encode()).hexdigest()
    line = '{{"username": "admin", "enc_password": "{}", "created_on": "2013-03-20"}}'
    _none_then_each((line.format(f"{salt}${digest}"),), (line.format(made(38)),), "dev.dump", kind)


@pytest.mark.parametrize("kind", [CODE, PROSE])
def test_what_batch_85_held_that_is_no_credential(kind: str) -> None:
    """Batch 85 (network management tools; measured once, then looked at): a cross-site request
    forgery token under a name that runs its words together in capitals (a request logged by
    Django, nautobot's guide: ``'HTTP_X_CSRFTOKEN': '…'``), and Django's form field. The same value
    under the request's authorization header is found."""
    value = made(64)
    lines = (
        f"user=admin {{'HTTP_HOST': 'localhost:8080', 'HTTP_X_CSRFTOKEN': '{value}'}}",
        f'<input type="hidden" name="csrfmiddlewaretoken" value="{value}">',
    )
    found = (f"user=admin {{'HTTP_HOST': 'localhost:8080', 'HTTP_X_AUTHTOKEN': '{value}'}}",)
    _none_then_each(lines, found, "advanced_requests.md", kind)


@pytest.mark.parametrize("kind", [CODE, PROSE])
def test_what_batch_87_held_that_is_no_credential(kind: str) -> None:
    """Batch 87 (security testing tools; measured once, then looked at): a digest a tool names as
    its own (ReversingLabs' reports give each secret they find as ``rl-sha256:`` and its digest,
    defectdojo's fixtures), and a word whose sign Markdown escapes (``The token is org\\-scoped``,
    defectdojo's guide). A drawn value in either place is found."""
    digest = hashlib.sha256(made(12).encode()).hexdigest()
    lines = (
        f'          "secret": "rl-sha256:{digest}"',
        "a `read_only` token is sufficient. The token is org\\-scoped and is sent as a bearer token",
    )
    found = (f'          "secret": "rl-{made(40)}"',)
    if kind == PROSE:  # (code has no rule for a value given in words)
        found += (
            f"a `read_only` token is sufficient. The token is {made(12)}\\-{made(12)} and is sent",
        )
    _none_then_each(lines, found, "report.rl.md", kind)


@pytest.mark.parametrize("kind", [CODE, PROSE])
def test_what_batch_89_held_that_is_no_credential(kind: str) -> None:
    """Batch 89 (inventory and asset management; measured once, then looked at): a string's
    placeholder in Crowdin's in-context pseudo-language (snipe-it's translation files: 28 places),
    and the first of a validation's rules, the others added in code (Laravel's
    ``'confirmed|'.Setting::passwordComplexityRulesSaving('store')``). A drawn value in their
    places is found."""
    lines = (
        "    'password' => 'crwdns6846:0crwdne6846:0',",
        "            'password' => 'confirmed|'.Setting::passwordComplexityRulesSaving('store'),",
    )
    found = (
        f"    'password' => 'crwdns6846:{made(14)}',",
        f"            'password' => '{made(12)}|'.Setting::passwordComplexityRulesSaving('store'),",
    )
    _none_then_each(lines, found, "general.php", kind)


@pytest.mark.parametrize("kind", [CODE, PROSE])
def test_what_batch_94_held_that_is_no_credential(kind: str) -> None:
    """Batch 94 (object storage; measured once, then looked at): a token's UID (rustfs'
    ``registrationTokenUid``: 57 places), the alphabet typed backwards (juicefs' guides:
    ``--secret-key ZYXwvuts…``), the sample secret key of Ceph's S3 compatibility tests (seaweedfs'
    copies of their settings), the next setting's name after an empty one (``key= password=
    queue_dir=``) and a duration ("with token: ~50-100ms"). A drawn value in each place is
    found."""
    ceph = "h7GhxuBLTrlhVUyxSPUKUV8r" + "/2EI4ngqJxD7iBdBYLhwluN30JaT3Q=="
    lines = [
        '        "registrationTokenUid": "0198f4b0-6f00-7b60-9271-7d8e9fa0b1c5",',
        "    --secret-key ZYXwvutsrqpoNMLkJiHgfeDCBA \\",
        f"secret_key = {ceph}",
    ]
    found = [
        f'        "registrationToken": "{made(36)}",',
        f"    --secret-key {made(26)} \\",
        f"secret_key = {made(54)}==",
    ]
    if kind == PROSE:  # (code has no rule for a value given in words)
        lines += [
            "    notify_redis enable=off address= key= password= queue_dir= queue_limit=0",
            "- First request with token: ~50-100ms (network call to Keystone)",
        ]
        found += [f"    notify_redis enable=off address= key= password= {made(14)} queue_limit=0"]
    _none_then_each(tuple(lines), tuple(found), "gateway.md", kind)


@pytest.mark.parametrize("kind", [CODE, PROSE])
def test_what_batch_95_held_that_is_no_credential(kind: str) -> None:
    """Batch 95 (telephony servers; measured once, then looked at): a URL's password that is its
    user's name with a few digits around it (kamailio's sample databases: ``serro:47serro11``, 17
    places). A drawn password for the same user is found, and one that holds the name beside
    more than a few characters."""
    lines = (
        'Default value is "mysql://serro:47serro11@localhost/ser".',
        'modparam("usrloc", "db_url", "sql://csps:47csps11@dbhost/csps107")',
    )
    found = (
        f'Default value is "mysql://serro:{made(12)}@localhost/ser".',
        f'modparam("usrloc", "db_url", "sql://csps:{made(12)}csps{made(12)}@dbhost/csps107")',
    )
    _none_then_each(lines, found, "params.xml", kind)


@pytest.mark.parametrize("kind", [CODE, PROSE])
def test_what_batch_96_held_that_is_no_credential(kind: str) -> None:
    """Batch 96 (blockchain SDKs; measured once, then looked at): an Ethereum address, an
    account's or a contract's, which web3 code calls a token when the contract is an ERC-20 token's
    (web3.py's tests: ``"burnToken": "0xaf88…"``): 20 bytes, public. A private key, 32 bytes, in
    the same place is found."""
    line = '                    "burnToken": "0x{}",'
    address, key = made(40, "0123456789abcdefABCDEF"), made(64, "0123456789abcdef")
    _none_then_each((line.format(address),), (line.format(key),), "test_event_data.py", kind)


@pytest.mark.parametrize("kind", [CODE, PROSE])
def test_what_batch_98_held_that_is_no_credential(kind: str) -> None:
    """Batch 98 (configuration management; measured once, then looked at): MySQL's own password
    hash ("*" and SHA-1 twice, in capitals: puppetlabs-mysql's README, ``password =>
    '*6C89…'``), and a value removed from a guide (``alicloud_secret_key: "--REMOVED--"``). A
    drawn value in either place is found."""
    digest = hashlib.sha1(hashlib.sha1(made(12).encode()).digest()).hexdigest().upper()
    lines = (f"  password => '*{digest}',", '    alicloud_secret_key: "--REMOVED--"')
    found = (f"  password => '*{made(40)}',", f'    alicloud_secret_key: "--{made(24)}--"')
    _none_then_each(lines, found, "README.md", kind)


@pytest.mark.parametrize("kind", [CODE, PROSE])
def test_what_batch_101_held_that_is_no_credential(kind: str) -> None:
    """Batch 101 (webhook servers; measured once, then looked at): Svix's published signing secrets, the Standard
    Webhooks test vector its guide and every library's tests verify against and its API reference's example
    (svix-webhooks: 147 places). A drawn secret of the same shape in their places is found."""
    vector, example = (
        "whsec_" + "MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw",
        "whsec_" + "C2FVsBQIhrscChlQIMV+b5sSYspob7oD",
    )
    lines = (f'    const secret = "{vector}";', f'      "example": "{example}",')
    found = (f'    const secret = "whsec_{made(32)}";', f'      "example": "whsec_{made(32)}",')
    _none_then_each(lines, found, "webhook.test.ts", kind)


@pytest.mark.parametrize("kind", [CODE, PROSE])
def test_what_batch_103_held_that_is_no_credential(kind: str) -> None:
    """Batch 103 (JOSE and JWT libraries; measured once, then looked at): a token whose claims hold their own names
    (go-jose's ``{"iss":"issuer","sub":"subject"}``): no server issues it as a credential. The same token naming an
    issuer and a user is found, and so is a JWS of other content (RFC 7520's quote: the peer suite labels tokens of
    random content secrets)."""
    header = _b64url(b'{"alg":"HS256","typ":"JWT"}')
    own = _b64url(b'{"iss":"issuer","sub":"subject"}')
    quote = _b64url(b"It's a dangerous business, Frodo, going out your door.")
    real = _b64url(b'{"iss":"https://auth.acme.io","sub":"user-8812"}')
    lines = (
        f"\traw := `{header}.{own}.{made(43)}`",
        f'        token = "{header}.{own}.{made(43)}"',
    )
    found = (
        f"\traw := `{header}.{real}.{made(43)}`",
        f'        token = "{header}.{real}.{made(43)}"',
        f'        token = "{header}.{quote}.{made(43)}"',
    )
    _none_then_each(lines, found, "jws_test.go", kind)


@pytest.mark.parametrize("kind", [CODE, PROSE])
def test_what_batch_107_held_that_is_no_credential(kind: str) -> None:
    """Batch 107 (translation platforms; measured once, then looked at): a word written in character codes, as
    Java's properties files write any letter past ASCII (zanata's ``jsf.Password=\\u015Eifre``, "Şifre"; its
    Japanese and Chinese messages: 13 places), read as the word it is. A drawn password written so is found."""
    lines = (
        "jsf.Password=\\u015Eifre",
        "jsf.ChangePassword=\\u66F4\\u6539\\u5BC6\\u78BC",
        "jsf.NewPassword=\\u65B0\\u3057\\u3044\\u30D1\\u30B9\\u30EF\\u30FC\\u30C9",
    )
    drawn = made(14)
    coded = "".join(f"\\u{ord(c):04X}" for c in drawn[:4]) + drawn[4:]
    found = (f"jsf.Password={drawn}", f"jsf.Password={coded}")
    _none_then_each(lines, found, "messages_ja.properties", kind)


@pytest.mark.parametrize("kind", [CODE, PROSE])
def test_what_batch_109_held_that_is_no_credential(kind: str) -> None:
    """Batch 109 (Terraform providers; measured once, then looked at): a name a test gives its resource, numbered by
    the Unix time it ran (Terraform's acceptance tests: ``tf-TestAccIntegrationConfluentAccountBasic-local-1680633323``,
    in the recorded answers of tf-datadog: 27 places), as a count numbers one (``SERVICE_NAME-2``). A drawn key
    numbered so is found, and so is a word and a number, as people make passwords."""
    lines = (
        '{"data":{"attributes":{"api_key":"tf-TestAccIntegrationConfluentAccountBasic-local-1680633323"}}}',
        '{"policy":{"tag_key":"tf-TestAccDatadogMonitorConfigPoliciesDatasource-local-1749222063-1"}}',
    )
    found = (
        f'{{"data":{{"attributes":{{"api_key":"{made(20)}-1680633323"}}}}}}',
        '{"data":{"attributes":{"api_key":"silverhand_' + '1680633323"}}}',
    )
    _none_then_each(lines, found, "TestAccIntegrationConfluentAccountBasic.yaml", kind)


@pytest.mark.parametrize("kind", [CODE, PROSE])
def test_what_batch_112_held_that_is_no_credential(kind: str) -> None:
    """Batch 112 (web application firewalls; measured once, then looked at): a guide's password that says it is a
    strong one (bunkerweb's ``Str0ng&P@ss!``, in every language of its docs: 15 places; manticore's
    ``StrongPass#2026``: 12), and a key that spells "secret" in digits (``s3cr3tb0unc3rk3y``: 10). A drawn one in
    their places is found."""
    lines = (
        '    ADMIN_PASSWORD: "Str0ng&P@ss!" # Remember to set a stronger password',
        '    CROWDSEC_API_KEY: "s3cr3tb0unc3rk3y" # Remember to set a stronger key',
        "curl -u admin:StrongPass#2026 http://127.0.0.1:9308/sql",
    )
    found = (
        f'    ADMIN_PASSWORD: "{made(12)}" # Remember to set a stronger password',
        f'    CROWDSEC_API_KEY: "{made(16)}" # Remember to set a stronger key',
        f"curl -u admin:{made(14)} http://127.0.0.1:9308/sql",
    )
    _none_then_each(lines, found, "web-ui.md", kind)


@pytest.mark.parametrize("kind", [CODE, PROSE])
def test_a_uuid_with_letters_past_f_is_typed_in(kind: str) -> None:
    """Batch 109 (Terraform providers; measured once, then looked at): a UUID's shape whose 32 digits hold a letter or
    two past f (tf-vault's ``905ae89e-6ee8-40rd-ab12-613t8e3fe836``; apisix's Splunk guide ``…-ak0c-…``, huginn's
    ``…-j999c1973cc9``: 6 places of older batches) was typed in: no generator writes one. A UUID drawn in their
    places is found."""
    lines = (
        '\tupdatedPrivateKey := "905ae89e-6ee8-40rd-ab12-613t8e3fe836"',
        '          "token":"26b15ddd-31db-455b-ak0c-9b5be3decc4a"',
    )
    found = (
        f'\tupdatedPrivateKey := "{uuid.UUID(int=_rng.getrandbits(128), version=4)}"',
        f'          "token":"{uuid.UUID(int=_rng.getrandbits(128), version=4)}"',
    )
    _none_then_each(lines, found, "resource_test.go", kind)


@pytest.mark.parametrize("kind", [CODE, PROSE])
def test_vault_s_documented_duo_secret_key_is_an_example(kind: str) -> None:
    """Batch 109 (Terraform providers; measured once, then looked at): the Duo secret key of Vault's MFA API docs,
    which its Terraform provider's docs and tests copy (tf-vault: 17 places). A drawn key in its place is found."""
    duo = "8C7THtrIigh2rPZQ" + "Mbguugt8IUftWhMRCOBzbuyz"
    lines = (f'  secret_key            = "{duo}"', f'\t\t\t\t\t\t"secret_key": "{duo}",')
    found = (f'  secret_key            = "{made(40)}"', f'\t\t\t\t\t\t"secret_key": "{made(40)}",')
    _none_then_each(lines, found, "resource_mfa_duo_test.go", kind)


@pytest.mark.parametrize("kind", [CODE, PROSE])
def test_what_batch_117_held_that_is_no_credential(kind: str) -> None:
    """Batch 117 (trading bots; measured once, then looked at): the private keys of Hardhat's and Anvil's default
    accounts, which both print at every start (octobot's tests: 9 places), with 0x and without. A drawn key of the
    same shape in their places is found."""
    first = "ac0974bec39a17e36ba4a6b4d238ff944bacb478" + "cbed5efcae784d7bf4f2ff80"
    ninth = "2a871d0798f97d79848a013d4936a73bf4cc922c" + "825d33c1cf7073dff6d409c6"
    lines = (f'_TEST_PRIVATE_KEY = "0x{first}"', f'    private_key = "{ninth}"')
    found = (
        f'_TEST_PRIVATE_KEY = "0x{made(64, "0123456789abcdef")}"',
        f'    private_key = "{made(64, "0123456789abcdef")}"',
    )
    _none_then_each(lines, found, "test_accounts.py", kind)


@pytest.mark.parametrize("kind", [CODE, PROSE])
def test_the_access_key_of_a_pair_is_its_id(kind: str) -> None:
    """Batch 121 (cloud providers' command-line tools; measured once, then looked at): the access key of an access
    and secret key pair, in an id's shape (Scaleway's ``SCW`` and 17 capitals and digits: 66 places in scaleway-cli's
    recorded answers, where ``secret_key`` is null), is sent in the clear with every request, as a user's name is;
    the secret key signs them. A secret key of the same shape, a secret access key, and an access key drawn random in
    both cases are found."""
    key_id = "SCW2WH4M9Q" + "AC6PWEJSJA"
    lines = (
        f'    body: \'{{"access_key":"{key_id}","secret_key":null,"description":"my API key"}}\'',
        '    "access_key": "SCW3508ENX' + '0JCKRW0DKZ",',
        f"SCW_ACCESS_KEY={key_id}",
    )
    found = (
        f'    "secret_key": "{key_id}",',
        f'aws_secret_access_key = "{key_id}"',
        f'    "access_key": "{made(24)}",',
    )
    _none_then_each(lines, found, "test-iam-api-key-get.cassette.yaml", kind)


@pytest.mark.parametrize("kind", [CODE, PROSE])
def test_what_batches_121_to_125_held_that_is_published(kind: str) -> None:
    """Batches 121 to 125 (measured once, then looked at): RFC 7628's OAUTHBEARER example token as the RFC prints it
    (MailKit's copy of the RFC, lettre's tests), the client key and token of RFC 5849's request example, which RFC
    7628 quotes (gatling's tests too), the Docker Engine API's documented registry password (doctl's vendored
    swagger.yaml, caprover) and Uptrace's secret_key as its configuration template ships it (redis-py's docs, uptrace
    itself). Drawn values in their places are found."""
    bearer = "Bear" + "er"
    lines = (
        f'"user=username\\x01auth={bearer} vF9dft4qmTc2Nvb3RlckBhdHRhdmlzdGEuY29tCg==\\x01\\x01"',
        '              oauth_token="kkk9d7dh' + '3k39sjv7",',
        '              oauth_consumer_key="9djdj82h' + '48djs9d2",',
        '                "password": "conta1n3' + 'rize14"',
        "secret_key: 102c1a557c314fc2" + "8198acd017960843",
    )
    found = (
        f'"user=username\\x01auth={bearer} {made(38)}==\\x01\\x01"',
        f'              oauth_token="{made(16, string.ascii_lowercase + string.digits)}",',
        # (the consumer key is OAuth 1.0's client identifier, sent in the clear, and a drawn one is
        # quiet too: test_what_batches_540_to_549_held_that_is_no_credential)
        f'              oauth_consumer_secret="{made(16, string.ascii_lowercase + string.digits)}",',
        f'                "password": "{made(14)}"',
        f"secret_key: {made(32, '0123456789abcdef')}",
    )
    _none_then_each(lines, found, "examples.txt", kind)


@pytest.mark.parametrize("kind", [CODE, PROSE])
def test_jwt_io_s_sample_person_is_no_one_a_server_issued_to(kind: str) -> None:
    """Batch 127 (LLM API SDKs and gateways; measured once, then looked at): a token naming jwt.io's sample person
    (``"sub":"1234567890","name":"John Doe"``), signed with any algorithm, whatever claims a test adds to it
    (portkey's RS256 header over jwt.io's HS256 signature; tyk's scope; kratos' e-mail: 28 places of older batches).
    A token naming a person of its own, signed the same way, is found."""

    def token(claims: dict[str, object], algorithm: str = "RS256") -> str:
        header = _b64url(json.dumps({"alg": algorithm, "typ": "JWT"}).encode())
        payload = _b64url(json.dumps(claims).encode())
        return f"{header}.{payload}.{_b64url(_rng.randbytes(256))}"

    sample = {"sub": "1234567890", "name": "John Doe"}
    own = {"sub": str(_rng.randrange(10**9, 10**10)), "name": "Ada Quist"}
    lines = (
        f"          'Bearer {token({**sample, 'iat': 1516239022})}',",
        f'\ttoken := "{token({**sample, "admin": True, "scope": "foo bar baz"}, "HS256")}"',
    )
    found = (
        f"          'Bearer {token({**own, 'iat': 1516239022})}',",
        f'\ttoken := "{token({**own, "admin": True, "scope": "foo bar baz"}, "HS256")}"',
    )
    _none_then_each(lines, found, "default.test.ts", kind)


@pytest.mark.parametrize("kind", [CODE, PROSE])
def test_what_batches_128_to_132_held_that_is_no_credential(kind: str) -> None:
    """Batches 128 to 132 (measured once, then looked at): an analytics source's write key, which sends events and
    reads nothing (pygwalker's Segment key; ory's, novu's and taiga's in older trees: 10 places), jwt.io's sample
    signature under claims of a test's own (smtp4dev's ``fake_token``, openobserve's) and scaffold-eth-2's shared
    Alchemy and Etherscan keys, which every app made from the template ships. A write API key, another signature
    and keys of one's own in their places are found."""
    header = _b64url(json.dumps({"alg": "HS256", "typ": "JWT"}).encode())
    claims = _b64url(json.dumps({"sub": "test@example.com", "name": "Test User"}).encode())
    lines = (
        f'SEGMENT_WRITE_KEY = "{made(32)}"',
        f'    WriteKey:      "{made(32)}",',
        f'    fake_token = "{header}.{claims}.SflKxwRJSMeKKF2QT4fwpMeJ' + 'f36POk6yJV_adQssw5c"',
        'const providerApiKey = process.env.ALCHEMY_API_KEY || "IZYEU2cWBg' + 'nFmgiTAgpWD";',
        'const etherscanApiKey = process.env.ETHERSCAN_API_KEY || "DNXJA8RX2Q3VZ4'
        + 'URQIWP7Z68CJXQZSC6AW";',
    )
    found = (
        f'THINGSPEAK_WRITE_API_KEY = "{made(32)}"',
        f'    SigningKey:      "{made(32)}",',
        f'    fake_token = "{header}.{claims}.{_b64url(_rng.randbytes(32))}"',
        f'const providerApiKey = process.env.ALCHEMY_API_KEY || "{made(21)}";',
        f'const etherscanApiKey = process.env.ETHERSCAN_API_KEY || "{made(34, string.ascii_uppercase + string.digits)}";',
    )
    _none_then_each(lines, found, "hardhat.config.ts", kind)


@pytest.mark.parametrize("kind", [CODE, PROSE])
def test_what_batches_133_to_141_held_that_is_no_credential(kind: str) -> None:
    """Batches 133 to 141 (measured once, then looked at): Bitwarden Secrets Manager's documented access token
    (chezmoi's guide and tests), a credential's identifier, an id as the name says (node-oidc-provider's
    ``credential_identifier: 'CivilEngineeringDegree-2023'``), and the InnerTube key of YouTube's web client, which
    every page youtube.com serves holds (spotDL's recorded requests: 46 places), and a sealed token, ciphertext made
    for the clear (star-history's chart URLs in teslamate's README). A token of one's own, a credential's secret,
    another Google API key and a chart's access token are found."""
    youtube = "https://www.youtube.com/youtubei/v1/player?videoId=14CjyUYO8lE&key="
    lines = (
        '    accessToken = "0.48c78342-1635-48a6-accd-afbe01336365.C0tMmQqHnAp1h0gL8bngp'
        + 'rlPOYutt0:B3h5D+YgLvFiQhWkIq6Bow=="',
        "          credential_identifier: 'CivilEngineeringDegree-2023',",
        f"    uri: {youtube}AIzaSyAO_FJ2SlqU8Q4S" + "TEHLGCilw_Y9_11qcW8&prettyPrint=false",
        f'<source srcset="https://api.star-history.com/chart?repos=a/b&type=date&sealed_token={made(40)}" />',
    )
    found = (
        f'    accessToken = "0.{uuid.UUID(int=_rng.getrandbits(128), version=4)}.{made(30)}:{made(22)}=="',
        f"          credential_secret: '{made(24)}',",
        f"    uri: {youtube}AIza{made(35, ALNUM + '_-')}&prettyPrint=false",
        f'<source srcset="https://api.star-history.com/chart?repos=a/b&type=date&secret_token={made(40)}" />',
    )
    _none_then_each(lines, found, "bitwarden.md", kind)


@pytest.mark.parametrize("kind", [CODE, PROSE])
def test_what_batches_147_to_161_held_that_is_no_credential(kind: str) -> None:
    """Batches 147 to 161 (measured once, then looked at): Binance's API documentation's example keys, in every connector
    generated from it and their tests (the signing example's API key and secret key, a sub-account's API key, a special key
    and its secret, user data streams' listen keys); a pointer's member, dereferenced (mediamtx's ``pass =
    *pconf.PublishPass``); a type named in camel case (twilio-node's ``credentialListMappings:
    AuthRegistrationsCredentialListMappingListInstance;``); a record's fields joined by bars (netdata's composite key);
    a call's argument before ``=>``, no name given a value (stripe-node's doc comment of an HMAC's digest); a Secret's
    name and a taint's key, words joined by a namespace's colon or a path's slash (rancher's, kops'); a DID, which names
    a public key (indigo's ``did:key:…``); and a presigned URL's credential scope, cut where its string is (aiobotocore's
    ``X-Amz-Credential=akid%2F20161107%2F``); a piece typed again and again (tusd's test token). A key of one's own in
    each place is found."""
    hmac = hashlib.sha256(b"made").hexdigest()
    lines = (
        '    "apiKey": "vmPUZE6mv9SD5VNHk4HlWFsOr6aKE2zvsw0MuIgw' + 'CIPy6utIco14y7Ju91duEh8A",',
        '    "secretKey": "NhqPtmdSJYdKjVHjA7PZj4Mge3R5YNiP1e3UZjIn' + 'ClVN65XAbvqqM6A7H5fATj0j",',
        '    "sub_account_api_key": "k5V49ldtn4tszj6W3hystegdfvmGbqDzjmkC'
        + 'tpTvC0G74WhK7yd4rfCTo4lShf",',
        '    "secretKey": "87ssWB7azoy6ACRfyp6OVOL5U3rtZptX31QWw2kW' + 'jl1jHEYRbyM1pd6qykRBQw8p",',
        '        "listenKey": "xs0mRXdAKlIPDRFrlPcw0qI41Eh3ixNntmymGyhr' + 'hgqo7L6FuLaWArTD7RLP"',
        "\t\t\t\tpass = *pconf.PublishPass",
        "  credentialListMappings: AuthRegistrationsCredentialListMappingListInstance;",
        '\tmigKey := "gpu=0|uuid=GPU-aaa|gpu_i_id=2|gpu_i_profile=1g.10gb"',
        f"   * - computeHMACSignature('', 'test_secret') => '{hmac}'",
        'const rollingUpdateTaintKey = "kops.k8s.io/scheduled-for-update"',
        '\t\t\tdidKey:       "did:key:zDnaembgSGUhZULN2Caob4HLJPaxBh92N7rtH21TErzqf8HQo",',
        "        '&X-Amz-Expires=900&X-Amz-Credential=akid%2F20161107%2F'",
        '\t\t"access_token":  "H3l5321N123sdI4HLY/' + "RF39FjrC" * 6 + '",',
    )
    found = (
        f'    "apiKey": "{made(64)}",',
        f'    "secretKey": "{made(64)}",',
        f'    "sub_account_api_key": "{made(62)}",',
        f'    "secretKey": "{made(64)}",',
        f'        "listenKey": "{made(60)}"',
        f'\t\t\t\tpass = "{made(16)}"',
        f'  credentialListMappings: "{made(40)}";',
        f'\tmigKey := "{made(32)}"',
        f"   * - computeHMACSignature('', test_secret = '{made(40, string.hexdigits[:16])}')",
        f'const rollingUpdateTaintKey = "{made(32)}"',
        f'\t\t\tdidKey:       "{made(48)}",',
        f"        '&X-Amz-Expires=900&access_token={made(40)}'",
        f'\t\t"access_token":  "H3l5321N123sdI4HLY/{made(48)}",',
        # a run of bytes encodes to a short piece repeated: a token of one's own (an STS session
        # token's head; under X-Amz-Security-Token, as a presigned URL sends it, it is quiet:
        # test_what_batches_540_to_549_held_that_is_no_credential)
        f'  "Location": "https://t.s3.amazonaws.com/s?token=FQoDYXdzEJz{"%2F" * 10}wEaD{made(300)}",',
    )
    _none_then_each(lines, found, "client.ts", kind)
    # in code, where names hold words far more often than secrets (in a memory's prose it is still found)
    secret_name = "    azureCredentialSecret: cattle-global-data:cc-26b5h"
    assert scan_text(secret_name, "cluster.yaml", kind=CODE) == []
    assert scan_text(f"    azureCredentialSecret: {made(27)}", "cluster.yaml", kind=CODE)


@pytest.mark.parametrize("kind", [CODE, PROSE])
def test_what_batches_170_to_189_held_that_is_no_credential(kind: str) -> None:
    """Batches 170 to 189 (measured once, then looked at): a stored object's path, by the day it was stored (apitable's
    attachments' tokens); a key in the URL of what a page embeds or of a field that names an image's URL (Embedly's, in
    every reddit post's frame and thumbnail: praw's recorded answers); an AWS key id as any signed request's credential
    scope names it, in an upload form's fields (praw's: ``{"name": "X-Amz-Credential", "value": "ASIA…/20190223/…"}``);
    names joined from words in Pascal case and numeronyms (LinkedIn's ``lixKey:
    "chameleon.SemanticJobSearch_Global.web-copy-definition.77752"``, Pulumi's type tokens
    ``aws:s3/BucketWebsite:BucketWebsite``); a token in a URL to the loopback (a notebook server's, a dev server's:
    jupyter-server's docs, highlight's traces); a secret's signature (pulumi's ``specialSecretSig``); base64 of a few
    bytes over and over (Cloudflare's documented tunnel secret). A key of one's own in each place is found."""
    key_id = "ASIA" + made(16, "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567")
    counting = base64.b64encode(
        bytes(range(1, 9)) * 4
    ).decode()  # Cloudflare's documented tunnel secret
    lines = (
        '      "token": "space/2021/05/29/a1cda7f419364993930a8381b37e2684",',
        '<iframe class="embedly-embed" src="https://cdn.embedly.com/widgets/media.html?src=x&key='
        + "2aa3c4d5f3de4f5b9120b660ad850dc9"
        + '&type=video%2Fmp4" width="600"></iframe>',
        '"thumbnail_url": "https://i.embed.ly/1/image?url=http%3A%2F%2Fi.imgur.com%2FeoF76hj.gif&key='
        + "b1e305db91cf4aa5a86b732cc9fffceb"
        + '"',
        f'{{"name": "X-Amz-Credential", "value": "{key_id}/20190223/us-east-1/s3/aws4_request"}}',
        '"lixKey":"chameleon.SemanticJobSearch_Global.web-copy-definition.79529.child.79533"',
        '\t\t\ttoken:    "aws:s3/BucketWebsite:BucketWebsite",',
        "    http://localhost:8888/?token=c8de56fa4deed24899803e93c227592aef6538f93025fe01",
        '"stringValue": "http://127.0.0.1:36663/?key=b278380e14755cbbd0d28fe4baabd0fa7c99fb72b7824ae3497acbd9dbc9f2ca"',
        'export const specialSecretSig = "1b47061264138c4ac30d75fd1eb44270";',
        f'    tunnelSecret: "{counting}",',
    )
    found = (
        f'      "token": "space/{made(32)}",',
        f'<a href="https://cdn.embedly.com/widgets/media.html?src=x&key={made(32)}&type=video%2Fmp4">',
        f'"oembed_url": "https://api.embed.ly/1/oembed?url=http%3A%2F%2Fi.imgur.com%2Fx.gif&key={made(32)}"',
        # a name that says image, not an image's URL; a URI no browser loads
        f"const TOTP_URI_WITH_IMAGE = 'otpauth://totp/service:account?secret={made(16, 'ABCDEFGHIJKLMNOPQRSTUVWXYZ234567')}&image=';",
        f'"image_uri": "otpauth://totp/service:account?secret={made(32, "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567")}"',
        f'{{"name": "X-Amz-Credential", "value": "{key_id}"}}',
        f'"lixKey":"{made(40)}"',
        f'\t\t\ttoken:    "aws:s3/{made(32)}",',
        f"    http://notebooks.example.org:8888/?token={made(48)}",
        f'"stringValue": "http://127.0.0.2.example.org:36663/?key={made(64)}"',
        f'export const specialSecret = "{made(32)}";',
        f'    tunnelSecret: "{base64.b64encode(made(32).encode()).decode()}",',
    )
    _none_then_each(lines, found, "client.ts", kind)


def _found_by_policy(path: str, text: str) -> list[str]:
    """The rules ``gitmem scan`` finds in ``text`` as the file at ``path`` (its policy and all)."""
    from gitmem.scan.policy import policy, scan

    return [
        f.rule for f in scan(text, path, policy(path, path, text)) if f.rule != "hidden-unicode"
    ]


def _quiet_then_found(cases: Iterable[tuple[str, ...]]) -> None:
    """Each case is ``(path, quiet, found[, rule])``: ``quiet`` as the file at ``path`` is found by no
    rule, ``found`` by its rule alone (``generic-secret`` where a case names none)."""
    for path, quiet, found, *named in cases:
        assert _found_by_policy(path, quiet) == [], quiet
        assert _found_by_policy(path, found) == (named or ["generic-secret"]), found


def test_what_batches_190_to_209_held_that_is_no_credential() -> None:
    """Batches 190 to 209 (measured once, then looked at): a web page a scraper's test keeps as its
    input, as the site gave it to every visitor (recipe-scrapers' saved pages: a Cloudflare
    beacon's token, a form's data-token, a Bugsnag key); a key with the signature or the public
    key it yields, in a test's file (wallet-core's test vectors, 500 to a file); the private key
    a test signs with (wallet-core's ``val privateKey = "…"``, ethereumjs' ``privateKey:
    '0x…'``); each hex digit said again, in order (certbot's documented DNS token); a
    denomination's name; Discord's documented example token; an option's name with its "="
    (kubectl's ``-ojsonpath=``); an environment variable in a configuration's syntax (octodns'
    ``env/NS1_API_KEY``). The same values elsewhere are found, and a provider's key, a token or
    a password in those places."""
    hex64, hex128, token = made(64, "0123456789abcdef"), made(128, "0123456789abcdef"), made(40)
    provider = "ghp_" + made(36)
    page = (
        "\n\n<!-- a banner's scripts, once here -->\n<!DOCTYPE html><html><head>\n"
        f'<script data-cf-beacon=\'{{"version":"2024.11.0","token":"{made(32, "0123456789abcdef")}"}}\'></script>\n'
        f'<form data-token="{made(32, "0123456789abcdef")}"></form>\n'
        f'<script>bugsnag:{{apiKey:"{token}",environment:"production"}}</script>\n</head></html>\n'
    )
    assert _found_by_policy("tests/test_data/site.com/site_1.testhtml", page) == []
    assert _found_by_policy("web/index.html", page)  # a page of one's own: its source
    memory = _found_by_policy(".memory/memories/test_data/page.html", page)  # an agent writes it
    assert "generic-secret" in memory, memory
    assert _found_by_policy("tests/test_data/site.com/site.json", page.replace("<", "[")) != []
    assert _found_by_policy(
        "tests/test_data/site.com/site_1.testhtml", page + f'<a data-x="{provider}">'
    ) == ["github-pat"]

    vector = f'[\n  {{\n    "msg": "c6",\n    "secret": "{hex64}",\n    "signature": "{hex128}"\n  }}\n]\n'
    pair = f'[\n  {{\n    "public": "{made(64, "0123456789abcdef")}",\n    "secret": "{hex64}"\n  }}\n]\n'
    for text in (vector, pair):
        assert _found_by_policy("rust/tw_keypair/tests/ed25519_sign.json", text) == [], text
        assert _found_by_policy("config/keys.json", text) == ["generic-secret"], text
    alone = f'[{{"msg": "c6", "secret": "{hex64}", "note": "x"}}]'
    assert _found_by_policy("rust/tw_keypair/tests/ed25519_sign.json", alone) == ["generic-secret"]
    # a signature in a recorded URL's query, or a variable a test assigns, is no member of a vector
    query = f'{{"Location": "https://s3.example.com/k?token={token}&Signature=abc%3D", "Id": 1}}'
    code = f'func TestSign(t *testing.T) {{\n\tsecret := "{hex64}"\n\tsig := sign(secret)\n}}\n'
    assert _found_by_policy("tests/placebo/GetFunction_1.json", query) == ["generic-secret"]
    assert _found_by_policy("crypto/sign_test.go", code) == ["generic-secret"]

    signer = f'        val privateKey = "{hex64}".toHexBytesInByteString()\n'
    for path in ("android/app/src/androidTest/x/TestSolanaSigner.kt", "src/signer_test.go"):
        assert _found_by_policy(path, signer) == [], path
        assert _found_by_policy(path, f'        val apiToken = "{token}"\n') == ["generic-secret"]
    assert _found_by_policy("src/main/Signer.kt", signer) == ["generic-secret"]

    # each hex digit said four times, in order: the placeholder certbot's DNS plugins document
    counted = "".join(digit * 4 for digit in "0123456789abcdef")
    assert _found_by_policy("certbot_dns/__init__.py", f"   dns_token = {counted}\n") == []
    assert _found_by_policy("certbot_dns/__init__.py", f"   dns_token = {hex64}\n")

    # a Cosmos denomination, an IBC transfer's hash: wallet-core's swaps' "token_out_denom"
    denom = made(64, "0123456789ABCDEF")
    assert _found_by_policy("src/swap.rs", f'"token_out_denom": "ibc/{denom}",') == []
    assert _found_by_policy("src/swap.rs", f'"token_out": "{denom}",') == ["generic-secret"]

    # a command's option and its value after it (a chart's notes), an environment variable named
    # in a configuration's syntax (octodns' docs); a value in either place is found
    notes = (
        "  $ kubectl get secrets --namespace={{ .Release.Namespace }} "
        '{{ template "es.uname" . }}-credentials {} | base64 -d'
    )
    for quiet, shown in (
        (notes, "-ojsonpath='{.data.password}'"),
        ("      api_key: {}", "env/NS1_API_KEY"),
    ):
        assert _found_by_policy("templates/NOTES.txt", quiet.format(shown)) == [], shown
        assert _found_by_policy("templates/NOTES.txt", quiet.format(made(20))), shown

    # Discord's API reference's example bot token (discord-net's tests of tokens); a token of the
    # same shape is found
    documented = ".".join(("MTk4NjIyNDgzNDcxOTI1MjQ4", "Cl2FMQ", "ZnCjm1XVW7vRze4b7Cq4se7kKWs"))
    drawn = ".".join(("MTk4NjIyNDgzNDcxOTI1MjQ4", "Cl2FMQ", made(27)))
    line = '        [InlineData("{}")]\n'
    assert (
        _found_by_policy("test/Discord.Net.Tests.Unit/TokenUtilsTests.cs", line.format(documented))
        == []
    )
    assert _found_by_policy("test/Discord.Net.Tests.Unit/TokenUtilsTests.cs", line.format(drawn))


def test_what_batches_210_to_229_held_that_is_no_credential() -> None:
    """Batches 210 to 229 (measured once, then looked at): the tokens AWS's APIs take so that a
    request is done once or a resource changed only as last read, echoed in every recorded
    response (cloud-custodian's and cloudsploit's ``LockToken``, ``UpdateToken``,
    ``CreationToken``, ``ClientRequestToken``, ``ClientToken``, by the hundred); a credential's
    id however its name goes on (go-webauthn's ``credentialIDHex``); the key a test signs its
    tokens or webhooks with (slack-go's ``validSigningSecret``, a test's ``JWT_SECRET``). The same
    values elsewhere are found, and Vault's ``client_token``, a token or an API key in a test."""
    hex64, token = made(64, "0123456789abcdef"), made(32)
    uuid = "-".join((hex64[:8], hex64[8:12], hex64[12:16], hex64[16:20], hex64[20:32]))
    recorded = (
        f'    "LockToken": "{uuid}",',
        f'    "UpdateToken": "{uuid}",',
        f'    "CreationToken": "console-{uuid}",',
        f'    "ClientRequestToken": "Console-CreateStack-{uuid}",',
        f'    "clientRequestToken": "{uuid}",',
        f'    "ClientToken": "{made(16)[:5]}1469357832991",',
        f'    "clientToken": "{uuid}",',
    )
    for line in recorded:
        assert _found_by_policy("tests/data/placebo/ec2.DescribeInstances_1.json", line) == [], line
        assert _found_by_policy("app/state.json", line) == [], line
    for line in (f'    "client_token": "{token}",', f'    "SessionToken": "{uuid}",'):
        assert _found_by_policy("tests/data/placebo/sts.json", line) == ["generic-secret"], line

    for line in (f'credentialIDHex = "{hex64}"', f'credentialIDOne = "{made(76)}"'):
        assert _found_by_policy("protocol/assertion.go", line) == [], line
        credential = line.replace("credentialID", "credential")
        assert _found_by_policy("protocol/assertion.go", credential) == ["generic-secret"], line

    for line in (f'\tvalidSigningSecret = "{hex64[:32]}"', f'JWT_SECRET = "{token}"'):
        assert _found_by_policy("security_test.go", line) == [], line
        assert _found_by_policy("security.go", line) == ["generic-secret"], line
    for line in (f'\tapiToken = "{token}"', f'designKey = "{token}"'):
        assert _found_by_policy("security_test.go", line) == ["generic-secret"], line


def test_what_batches_230_to_249_held_that_is_no_credential() -> None:
    """Batches 230 to 249 (measured once, then looked at): a protocol's test vectors, raw key material in hex under a
    secret's or a key's name in a test's file that holds a set of them (MLS's path and epoch secrets by the thousand
    in amethyst, Lightning's basepoint secrets in eclair's BOLT 3 vectors), in test folders a build names as such
    (Kotlin's src/commonTest, Xcode's damusTests) and in files named as vectors (nip44.vectors.json); NIP-47's
    example connection secret; and a stored record that names itself by its token in its own URL (shopify-api-ruby's
    recorded checkouts). The same values outside tests are found; so are one such key alone in a test (what a test is
    given), a token, a password and an API key in a test, raw hex or not, and a record's token its URL does not name."""
    hexes = [made(64, "0123456789abcdef") for _ in range(4)]
    vectors = "\n".join(
        (
            "{",
            f'  "path_secret": "{hexes[0]}",',
            f'  "commit_secret": "{hexes[1] + hexes[2]}",',
            f'  "local_htlc_basepoint_secret": "{hexes[2].upper()}",',
            f'  "secret": "{hexes[3]}"',
            "}",
        )
    )
    places = (
        "quartz/src/commonTest/resources/mls/treekem.json",
        "damusTests/vectors.json",
        "nip44.vectors.json",
        "Acme.Api.Tests/keys.json",
        "src/test/resources/bolt3-tx-test-vectors.json",
    )
    for path in places:
        assert _found_by_policy(path, vectors) == [], path
    assert _found_by_policy("quartz/src/main/resources/mls.json", vectors) == ["generic-secret"] * 4
    assert (
        _found_by_policy("src/latest/keys.json", vectors) == ["generic-secret"] * 4
    )  # no test folder
    test = "quartz/src/commonTest/resources/mls/treekem.json"
    assert _found_by_policy(test, f'{{"path_secret": "{hexes[0]}"}}') == ["generic-secret"]  # alone
    for line in (
        f'  "token": "{made(64, "0123456789abcdef")}",',
        f'  "password": "{made(64, "0123456789abcdef")}",',
        f'  "api_key": "{made(64, "0123456789abcdef")}",',
        f'  "path_secret": "{made(40)}",',  # not raw hex: a value a person or a service chose
        f'  "path_secret": "{made(48, "0123456789abcdef")}",',  # under 32 bytes
    ):
        assert _found_by_policy(test, vectors.replace("{", "{\n" + line, 1)) == [
            "generic-secret"
        ], line

    nwc = "nostr+walletconnect://" + hexes[0] + "?relay=wss%3A%2F%2Frelay.damus.io&secret="
    example = bytes.fromhex(
        "3731613863313463313430376331313336303130373963343330326461623336"
        "3436306630636364306164353036663166326463373362353130306534663363"
    ).decode()  # NIP-47's, built here so that the repository does not hold it
    assert _found_by_policy("src/nwc.rs", f'let uri = "{nwc}{example}";') == []
    assert _found_by_policy("src/nwc.rs", f'let uri = "{nwc}{hexes[1]}";') == ["generic-secret"]

    token = made(32, "0123456789abcdef")
    checkout = (
        f'{{"checkout" => {{"created_at" => "2023-06-14T14:55:52-04:00", "token" => "{token}", '
        f'"total_price" => "995.00", "web_url" => "https://jsmith.myshopify.com/548380009/checkouts/{token}"}}}}'
    )  # shopify-api-ruby's recorded checkouts: the record names itself by its token, in its own URL
    assert _found_by_policy("test/rest/2022_04/checkout_test.rb", checkout) == []
    unnamed = checkout.replace(f"checkouts/{token}", "checkouts/")
    assert _found_by_policy("test/rest/2022_04/checkout_test.rb", unnamed) == ["generic-secret"]
    undated = checkout.replace("2023-06-14T14:55:52-04:00", "")
    assert _found_by_policy("test/rest/2022_04/checkout_test.rb", undated) == ["generic-secret"]


def test_what_batches_250_to_269_held_that_is_no_credential() -> None:
    """Batches 250 to 269 (measured once, then looked at): a record's key in an API's data (YouTube Music's
    entityKey by the hundred in ytmusicapi's recorded responses, Box's templateKey) and an item's feedback token; the AWS access key id a presigned URL of the older signature names in its query (S3
    label links in karrio's and shippo's recorded responses); a Django migration's name in a later one's
    dependencies (grafana oncall's); and dnscrypt-proxy's minisign_key, a public key. A key under a service's name,
    a token that is not a feedback one (nor a feedback service's), Azure's resource key, a minisign secret key, the
    EC2 tools' credential file and a secret beside a migration-like name are found."""
    value = made(64, string.ascii_letters + string.digits + "_-")
    for name in ("entityKey", "formItemEntityKey", "templateKey"):
        assert _found_by_policy("tests/data/get_album.json", f'{{"{name}": "{value}"}}') == [], name
    for name in ("feedbackToken", "addToLibraryFeedbackToken"):
        assert _found_by_policy("tests/data/get_album.json", f'{{"{name}": "{value}"}}') == [], name
    # a service's key, a session token, Azure's AI services' resource key, a feedback service's API token and key
    for name in (
        "stripeKey",
        "sessionToken",
        "resourceKey",
        "FEEDBACK_API_TOKEN",
        "feedbackApiKey",
    ):
        assert _found_by_policy("src/app.json", f'{{"{name}": "{value}"}}') == ["generic-secret"], (
            name
        )

    key_id = "AKIA" + made(16, "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567")
    signed = f"?AWSAccessKeyId={key_id}&Expires=1568274226&Signature={made(27)}%3D"
    link = "https://b.s3.amazonaws.com/labels/c2991876.pdf"
    for text in (f'"url": "{link}{signed}"', f'"url": "{link}?a=1&{signed[1:]}"'):
        assert _found_by_policy("schemas/label_response.json", text) == [], text
    escaped = f'"url": "{link}?Expires=1\\u0026AWSAccessKeyId={key_id}"'
    assert _found_by_policy("docs/manifest.md", escaped) == []
    assert _found_by_policy("aws.credentials", f"AWSAccessKeyId={key_id}\n") == [
        "aws-access-key-id"
    ]

    assert (
        _found_by_policy(
            "apps/x/migrations/0006_token.py", '("auth_token", "0005_integrationauthtoken"),'
        )
        == []
    )
    assert _found_by_policy("settings.py", f'os.environ.get("AUTH_TOKEN", "0005_{made(24)}")') == [
        "generic-secret"
    ]

    minisign = "RW" + made(54, string.ascii_letters + string.digits + "+/")
    assert _found_by_policy("dnscrypt-proxy.toml", f"  minisign_key = '{minisign}'") == []
    for name in ("signing_key", "minisign_secret_key", "MINISIGN_PRIVATE_KEY"):
        assert _found_by_policy("dnscrypt-proxy.toml", f"  {name} = '{minisign}'") == [
            "generic-secret"
        ], name


def test_what_batches_270_to_289_held_that_is_no_credential() -> None:
    """Batches 270 to 289 (measured once, then looked at): the Ethereum test suite's sender key and Besu's
    documented dev-network keys (by the hundred in go-ethereum's and Besu's test data), a point's coordinates under a
    name that says pass (nba_api's passReleasePoint), a citation key, Drupal's theme token, a UUID
    namespace, a symbol's prefix that names an architecture (radare2's x86_indirect_thunk_), a test's canary and the mPulse
    key every page Boomerang measures carries (juriscraper's saved pages). Any
    other key in those places, a random value in a point's place, and a token's or a key's own name are found."""
    known = "0x45a915e4d060149eb4365960e6a7a45f334393093061116b197e3240065ff2d8"
    besu = "8f2a55949038a9610f50fb23b5883af3b4ecb3c3bb792cbcefbd1542c692be63"
    for text in (f'"secretKey": "{known}"', f'"privateKey": "{besu}"', f'"secretKey": "0x{besu}"'):
        assert _found_by_policy("tests/testdata/txs.json", text) == [], text
    other = "0x" + made(64, "0123456789abcdef")
    assert _found_by_policy("tests/testdata/txs.json", f'"secretKey": "{other}"') == [
        "generic-secret"
    ]

    point = '"passReleasePoint": "-423.611,-13.237,104.683"'
    assert _found_by_policy("docs/responses/dunkscoreleaders.json", point) == []
    random_one = f'"passReleasePoint": "-423.611,{made(20)}"'
    assert _found_by_policy("docs/responses/dunkscoreleaders.json", random_one) == [
        "generic-secret"
    ]

    value = made(32, string.ascii_letters + string.digits + "_-")
    for name in (
        "citationKey",
        "citation-key",
        "theme_token",
        "LOGIN_TOKEN_NAMESPACE",
    ):
        assert _found_by_policy("tests/fixtures/export.json", f'{{"{name}": "{value}"}}') == [], (
            name
        )
    for name in (
        "citationApiKey",
        "BING_SEARCH_KEY",
        "theme_api_token",
        "LOGIN_TOKEN",
        "api_token",
    ):
        assert _found_by_policy("src/app.json", f'{{"{name}": "{value}"}}') == ["generic-secret"], (
            name
        )

    boomr = '"https://s2.go-mpulse.net/boomerang/";if(window.BOOMR_API_key="T5V7Y-Q8M8U-BKDFY-XWX7C-XPH3U",function(){'
    assert _found_by_policy("tests/examples/scotus/dockets/01-10063.htm", boomr) == []
    assert _found_by_policy("libr/anal/fcn.c", 'const char *token = "x86_indirect_thunk_";') == []
    assert (
        _found_by_policy("src/test/AgentTest.groovy", "final secret = 'sk-ant-canary-6b12'") == []
    )
    token = f'const char *token = "x86_{made(20)}";'
    assert _found_by_policy("libr/anal/fcn.c", token) == ["generic-secret"]
    # ... and a key under another name in the same page, and a secret in the test that is no canary
    mpulse = boomr.replace("BOOMR_API_key", "MPULSE_SECRET_key").replace(
        "T5V7Y-Q8M8U-BKDFY-XWX7C-XPH3U", made(29)
    )
    assert _found_by_policy("tests/examples/scotus/dockets/01-10063.htm", mpulse) == [
        "generic-secret"
    ]
    leaked = f"final secret = 'sk-ant-leak-{made(20)}'"
    assert _found_by_policy("src/test/AgentTest.groovy", leaked) == ["generic-secret"]


def test_what_batches_290_to_309_held_that_is_no_credential() -> None:
    """Batches 290 to 309 (measured once, then looked at): a comment's English "or" before a map's
    key on the next line (equal-access's archived rule sets: "…to confirm pass or" above
    ``"WCAG20_Html_HasLang": {``, by the dozen), GitHub's documented x-oauth-basic password and
    its API reference's example tokens, a JWT's id, a test database's password for testing, API
    Blueprint's example requests and responses (judge0's reference), a class named with OAuth2, a
    record's key made of its name and a UUID (fides' fixtures), a private cache key's name,
    OAI-PMH's resumption token, an old Google Sheets URL's key (the spreadsheet's id, in
    TimelineJS), and a template that "%" fills (cms' updater). The same values in a credential's
    place are found."""
    value = made(24)
    comment = '    // but needs other checking to confirm pass or\n    "WCAG20_Html_HasLang": {\n'
    assert _found_by_policy("rule-server/src/static/js/ace-debug.js", comment) == []
    for fallback in (
        f'password = os.environ.get("DB_PASSWORD") or "{value}"',
        f'password = os.environ.get("DB_PASSWORD") or (\n    "{value}"\n)',
    ):
        assert _found_by_policy("app/settings.py", fallback) == ["generic-secret"], fallback

    # (a lock file is no translation: a private registry's token in a resolved URL is found there)
    token = made(40, "0123456789abcdef")
    resolved = f'  resolved "https://npm.pkg.example.com/pkg/-/pkg-1.0.0.tgz?token={token}"\n'
    assert _found_by_policy("yarn.lock", resolved) == ["generic-secret"]

    insteadof = 'git config --global url."https://${{GITHUB_TOKEN}}:{}@github.com/".insteadOf x'
    documented = insteadof.format("x-oauth-" + "basic")
    assert _found_by_policy("preinstall.js", documented) == []
    typed = insteadof.format(value)
    assert _found_by_policy("preinstall.js", typed) == ["url-credentials"]
    example = "ghs_16C7e42F292c6912E7710c838347" + "Ae178B4a"
    assert _found_by_policy("src/test/GitHubAuthAlgTest.scala", f'val t = "{example}"') == []
    other = "ghs_" + made(36)
    assert _found_by_policy("src/test/GitHubAuthAlgTest.scala", f'val t = "{other}"') == [
        "github-app-token"
    ]

    an_id = str(uuid.UUID(int=_rng.getrandbits(128), version=4))
    cursor = made(40, "0123456789ABCDEF")
    drawn = made(32)
    shaped = f"{drawn[:8]}-{drawn[8:12]}-{drawn[12:16]}-{drawn[16:20]}-{drawn[20:]}"  # (its shape)
    fides = "8fe42cdb-af2e-4b9e-9b38-f75673180b88"  # (a random UUID may look typed, quiet anywhere)
    _quiet_then_found(
        (
            ("src/token.ts", f'const TOKEN_JTI = "{an_id}";', f'const TOKEN_SECRET = "{an_id}";'),
            (
                "src/systems.json",
                f'{{"system_key": "system_key-{fides}"}}',
                f'{{"system_key": "other_key-{fides}"}}',
            ),
            (  # (the name must begin the value: a separator and a UUID alone are judged as any)
                "src/systems.json",
                f'{{"system_key": "system_key-{fides}"}}',
                f'{{"system_key": "-{shaped}"}}',
            ),
            (  # (a name of one word may be a credential's: apikey-<uuid> under apikey is found)
                "src/systems.json",
                f'{{"systemKey": "systemKey-{fides}"}}',
                f'{{"apikey": "apikey-{fides}"}}',
            ),
            ("src/token.js", 'TOKEN: "_sys_cache_v2",', f'TOKEN: "_{value}",'),
            (
                "lib/oaipmh/xml_creater.php",
                f'"resumptionToken" => "{cursor}"',
                f'"sessionToken" => "{cursor}"',
            ),
            (
                "src/strategy_factory.py",
                "    oauth2_client_credentials = OAuth2ClientCredentialsAuthenticationStrategy",
                f"    oauth2_client_credentials = OAuth2{value}",
            ),
        )
    )

    sheet = "source: 'https://docs.google.com/spreadsheet/pub?key={}&output=html',"
    assert _found_by_policy("assets/timelinejs/js/timeline-embed.js", sheet.format(value)) == []
    api = sheet.replace("docs.google.com/spreadsheet/pub", "maps.example.net/v1/tiles")
    assert _found_by_policy("assets/timelinejs/js/timeline-embed.js", api.format(value)) == [
        "url-key-parameter"
    ]

    # a template that "%" fills (cms' updater), and the same value assigned as it is
    template = f'v["password"] = "{value[:6]}:%s" % v["password"]'
    assert _found_by_policy("cmscontrib/updaters/update_28.py", template) == []
    assigned = f'v["password"] = "{value[:6]}:{value[6:]}"'
    assert _found_by_policy("cmscontrib/updaters/update_28.py", assigned) == ["generic-secret"]

    url = "postgres://root:{}@localhost:5432/tlv2_test?sslmode=disable"
    assert _found_by_policy(".github/workflows/test.yml", url.format("for_testing")) == []
    assert _found_by_policy(".github/workflows/test.yml", url.format(value)) == ["database-url"]

    blueprint = (
        "### Create a Submission [POST]\n\n+ Request (application/json)\n    + Headers\n\n"
        f"            X-Auth-Token: {an_id}\n\n+ Response 201 (application/json)\n"
        f'    {{\n        "token": "{an_id}"\n    }}\n'
    )
    assert _found_by_policy("docs/api/submissions/create.md", blueprint) == []
    prose = f'Our staging instance takes `"token": "{an_id}"` for now.\n'
    assert _found_by_policy("docs/api/submissions/create.md", prose) == ["generic-secret"]
    # ... and a list's item that begins with the word is prose, its indented lines no example
    bullet = f"# Setup\n\n- Request a token from the admin:\n\n        export API_TOKEN={value}\n"
    assert _found_by_policy("docs/setup.md", bullet) == ["generic-secret"]


def _der(tag: int, content: bytes) -> bytes:
    size = len(content)
    width = (size.bit_length() + 7) // 8
    length = bytes([size]) if size < 0x80 else bytes([0x80 | width]) + size.to_bytes(width, "big")
    return bytes([tag]) + length + content


def _jwt(header: dict[str, str], claims: dict[str, object], signature: bytes) -> str:
    return ".".join(
        base64.urlsafe_b64encode(part).rstrip(b"=").decode()
        for part in (json.dumps(header).encode(), json.dumps(claims).encode(), signature)
    )


def _uuid_shaped(drawn: str) -> str:
    return f"{drawn[:8]}-{drawn[8:12]}-{drawn[12:16]}-{drawn[16:20]}-{drawn[20:32]}"


def test_what_batches_310_to_329_held_that_is_no_credential() -> None:
    """Batches 310 to 329 (measured once, then looked at): WordPress's embed nonce (a sample
    database's posts), faker's JSON Web Tokens (48 random bytes for a signature, shorter than most
    algorithms make), a guide's "my strong password" percent-encoded in a URL and a token respelled
    "goes here", a UUID's digits masked with "xxx", a password's digest under
    restful_authentication's ``crypted_password``, Rails' authenticity token, ffmpeg's switch
    (``-hide_banner``) under a pass's name, a test's token mashed on the keyboard, draw.io's style
    strings, a browser extension's public key, a badge's token in a README's
    reference definition, and PayPal's order id in its checkout's and return's URLs. The same
    values in a credential's place are found."""
    value = made(24)
    nonce = "".join(_rng.choices(ALNUM, k=10))  # (ten characters: below made()'s entropy)
    embed = (
        "(129, '_transient_feed_9bb', '<blockquote class=\\\"wp-embedded-content\\\" "
        f'data-secret=\\"{nonce}\\"><a href=\\"https://wordpress.org/news/x/\\">x</a></blockquote>'
        '<iframe class=\\"wp-embedded-content\\" sandbox=\\"allow-scripts\\" '
        f'src=\\"https://wordpress.org/news/x/embed/#?secret={nonce}\\" data-secret=\\"{nonce}\\" '
        'width=\\"600\\"></iframe>\'),\n'
    )
    assert _found_by_policy("sample-data/wordpress.sql", embed) == []
    widget = f'<div class="checkout" data-secret="{value}"></div>\n'
    assert _found_by_policy("templates/checkout.html", widget) == ["generic-secret"]

    claims = {"iat": 1577782760, "exp": 1577846004, "iss": "Crist Group", "sub": str(uuid.uuid4())}
    for algorithm, size in (("ES256", 64), ("ES384", 96), ("PS512", 256), ("HS512", 64)):
        faker = _jwt({"alg": algorithm}, claims, _rng.randbytes(48))
        assert _found_by_policy("src/modules/internet/index.ts", f"// '{faker}'") == [], algorithm
        signed = _jwt({"alg": algorithm}, claims, _rng.randbytes(size))
        assert _found_by_policy("src/modules/internet/index.ts", f"// '{signed}'") == ["jwt"]
    # (a signature longer than its algorithm makes is not cut short: found, as an ECDSA
    # signature in DER, as some libraries write it, and RSA's of a 512-bit test key are)
    for algorithm, size in (("HS256", 48), ("ES256", 71), ("RS256", 64)):
        token = _jwt({"alg": algorithm}, claims, _rng.randbytes(size))
        assert _found_by_policy("src/modules/internet/index.ts", f"// '{token}'") == ["jwt"]

    guide = 'New("sqlserver://sa:{}@localhost:1433?database=master")'
    assert _found_by_policy("backend/mssql_test.go", guide.format("myStr0ngP%40assword")) == []
    assert _found_by_policy("backend/mssql_test.go", guide.format(value)) == ["database-url"]
    for respelled in ("k0met4t0k3nh3r3", "r3fr3sht0k3ng0e5h3r3"):
        assert _found_by_policy("docs/config/myanimelist.md", f"access_token: {respelled}\n") == []
    assert _found_by_policy("docs/config/myanimelist.md", f"access_token: {value}\n") == [
        "generic-secret"
    ]

    an_id = str(uuid.UUID(int=_rng.getrandbits(128), version=4))
    typed = "693axxx6-7aoc-4bc4-97a0-0ec2sifa5aaa"
    digest = made(40, "0123456789abcdef")
    csrf = base64.b64encode(_rng.randbytes(64)).decode().replace("/", "%2F").replace("=", "%3D")
    style = 'AWSIAMSecurityTokenService2:"strokeColor=none;shape=mxgraph.aws3.sts_2;align=center",'
    _quiet_then_found(
        (
            ("python/examples/handler.py", f'auth_token = "{typed}"', f'auth_token = "{an_id}"'),
            (  # (a UUID's shape drawn from the whole alphabet, as trufflehog's tests draw one, is found)
                "python/examples/handler.py",
                f'auth_token = "{typed}"',
                f'auth_token = "{_uuid_shaped(made(32, string.ascii_lowercase + string.digits))}"',
            ),
            (
                "spec/fixtures/users.yml",
                f"  crypted_password: {digest}\n",
                f"  password: {value}\n",
            ),
            (
                "app/assets/javascripts/sign_in.test.js",
                f"'authenticity_token={csrf}',",
                f"'access_token={csrf}',",
            ),
            (
                "ScreenToGif/Util/EncodingManager.cs",
                'secondPass = "-hide_banner " + firstPass.Replace("-pass 1", "-pass 2");',
                f'secondPass = "-{value}" + firstPass;',
            ),
            (
                "spec/support/omniauth_hash.rb",
                '  token: "asd;lkfjas;dflkjasdfasdfha;vznxfhjasd;lfkhaweiuha;sdlkfjasdf",',
                f'  token: "{made(60)}",',
            ),
            (
                "src/main/webapp/js/extensions.min.js",
                style,
                f'ConnectionString:"Host=db;Username=app;Password={value}",',
            ),
        )
    )

    modulus = _der(0x02, b"\x00\xc1" + _rng.randbytes(255))
    rsa = _der(0x30, modulus + _der(0x02, b"\x01\x00\x01"))
    algorithm_id = bytes.fromhex("300d06092a864886f70d0101010500")
    spki = base64.b64encode(_der(0x30, algorithm_id + _der(0x03, b"\x00" + rsa))).decode()
    manifest = "      manifestConf.signingKey =\n        '{}';\n"
    assert _found_by_policy("packages/devtools/wxt.config.ts", manifest.format(spki)) == []
    drawn = made(len(spki) - 2, ALNUM + "+/") + "=="
    assert _found_by_policy("packages/devtools/wxt.config.ts", manifest.format(drawn)) == [
        "generic-secret"
    ]

    badge = "[codecov-shield]: https://img.shields.io/codecov/c/gh/o/r?token={}&style=flat-square\n"
    assert _found_by_policy("README.md", badge.format(nonce)) == []
    api = badge.replace("img.shields.io", "api.example.net")
    assert _found_by_policy("README.md", api.format(value)) == ["generic-secret"]

    order = made(17, string.ascii_uppercase + string.digits)
    payer = made(13, string.ascii_uppercase + string.digits)
    for quiet in (
        f"qs = '?token={order}&PayerID={payer}'",
        f'"href":"https://www.sandbox.paypal.com/checkoutnow?token={order}"',
    ):
        assert _found_by_policy("tests/py/test_payins.py", quiet) == [], quiet
    assert _found_by_policy("tests/py/test_payins.py", f"qs = '?token={order}&format=json'") == [
        "generic-secret"
    ]


def _hs256(claims: dict[str, object], key: str) -> str:
    unsigned = _jwt({"alg": "HS256", "typ": "JWT"}, claims, b"").rstrip(".")
    signature = hmac.digest(key.encode(), unsigned.encode(), "sha256")
    return unsigned + "." + base64.urlsafe_b64encode(signature).rstrip(b"=").decode()


def test_what_batches_330_to_349_held_that_is_no_credential() -> None:
    """Batches 330 to 349 (measured once, then looked at): a value that says what it is in a
    sentence (cjdns' guides' ``thisisauniquestring_001``, a test's ``THISVALUEMUSTNEVERAPPEAR…``,
    mbin's ``aLargeEncodedTokenToBeUsedInTheAuthorizationHeader``), a compiler's switches after a
    switch named for a token, Crowdin's placeholder with its colons escaped, minified code's
    comparison, the examples of RFC 8693 and go-oauth2's README, a JSON Web Token signed with a
    password everyone tries (remark42's guide's 12345), and an option's key named after the
    option (``OPTION_X509_PRIVATE_KEY = "x509privatekey"``). The same names with values drawn at
    random are found."""
    value = made(24)
    claims = {
        "aud": "remark",
        "exp": 1976056756,
        "iss": "remark42",
        "jti": made(40, "0123456789abcdef"),
    }
    options = "<BCC_UserSuppliedOptions>-Wno-padded -Wno-language-extension-token {} -Wno-comma"
    _quiet_then_found(
        (
            (
                "doc/peering.md",
                '{"password": "thisisauniquestring_001", "user": "k.alexander"}\n',
                f'{{"password": "{value}", "user": "k.alexander"}}\n',
            ),
            (
                "tests/unit/test_error_traceback_redaction.py",
                'SECRET_API_KEY = "1-THISVALUEMUSTNEVERAPPEARINANERRORRESPONSE"\n',
                f'SECRET_API_KEY = "1-{made(64)}"\n',
            ),
            (
                "docs/app_developers/README.md",
                '"access_token": "aLargeEncodedTokenToBeUsedInTheAuthorizationHeader",\n',
                f'"access_token": "{made(50)}",\n',
            ),
            (
                "source/My.cbproj",
                options.format("-Wno-c99-extensions -Wno-c++98-compat-pedantic"),
                options.format(f"-{value}"),
            ),
            (
                "src/main/resources/net/rptools/maptool/language/i18n_ach.properties",
                "action.newToken = crwdns468\\:0crwdne468\\:0\n",
                f"action.newToken = {value}\n",
            ),
            (
                "doc/_static/vtk.js",
                't.captureZValues&&t.currentPass===oV.ACTOR_PASS&&"function"==typeof n[0]',
                f't.captureZValues&&(t.currentPass="{value}")&&"function"==typeof n[0]',
            ),
            (
                "api/client/src/main/java/org/projectnessie/client/auth/TokenExchangeRequest.java",
                " * &subject_token=accVkjcJyb4BWCxGsndESCJQbdFMogUC5PbRDqceLTC\n",
                f" * &subject_token={made(43)}\n",
            ),
            (
                "vendor/github.com/go-oauth2/oauth2/v4/README.md",
                '  "access_token": "J86XVRYSNFCFI233KXDL0Q",\n',
                f'  "access_token": "{made(22, string.ascii_uppercase + string.digits)}",\n',
            ),
            (
                "tests/catalog/test_rest.py",
                '"refresh_token": "IwOGYzYTlmM2YxOTQ5MGE3YmNmMDFkNTVk",\n',
                f'"refresh_token": "{made(32)}",\n',
            ),
            (
                "iothub_client/inc/iothub_client_options.h",
                'static const char* OPTION_X509_PRIVATE_KEY = "x509privatekey";\n',
                f'static const char* OPTION_X509_PRIVATE_KEY = "{value}";\n',
            ),
        )
    )

    for guessed in ("12345", "secret", "changeme"):
        token = _hs256(claims, guessed)
        assert _found_by_policy("backend/remark.rest", f"X-JWT: {token}\n") == [], guessed
    token = _hs256(claims, made(32))
    assert _found_by_policy("backend/remark.rest", f"X-JWT: {token}\n") == ["jwt"]


def test_what_batches_350_to_369_held_that_is_no_credential() -> None:
    """Batches 350 to 369 (measured once, then looked at): a Python entry point named for a
    credential's command (python-openstackclient's ``ec2_credentials_create``), values that say
    first they are encrypted or obfuscated (netmiko's ``__encrypt__``, Foreman's ``encrypted-``,
    @vates/obfuscate's ``obfuscated-``), OpenSSL's passphrase from a shell's variable
    (``pass:$KEYSTOREPW``), a constant's name with a number between its words (timescaledb's
    ``ROLE_4_PASS``) and the App Store's ids called tokens (``appAccountToken``). The same names
    with values drawn at random are found."""
    value = made(24)
    entry = "openstackclient.identity.v3.ec2creds:{}"
    role = "CREATE SERVER s FOREIGN DATA WRAPPER d OPTIONS (user :'ROLE_4', password :'{}');\n"
    _quiet_then_found(
        (
            (
                "pyproject.toml",
                f'ec2_credentials_create = "{entry.format("CreateEC2Creds")}"\n',
                f'ec2_credentials_create = "{entry.format(value)}"\n',
            ),
            (
                "setup.cfg",
                f"    ec2_credentials_delete = {entry.format('DeleteEC2Creds')}\n",
                f"    ec2_credentials_delete = {entry.format(value)}\n",
            ),
            (
                "tests/unit/NETMIKO_YAML/netmiko-encr-aes128.yml",
                f"  password: __encrypt__{made(22)}==:{made(43)}=\n",
                f"  password: {made(22)}==:{made(43)}=\n",
            ),
            (
                "test/fixtures/compute_resources.yml",
                f"  password: encrypted-{made(88)}==--{made(40, '0123456789abcdef')}\n",
                f"  password: {made(88)}==--{made(40, '0123456789abcdef')}\n",
            ),
            (
                "@vates/obfuscate/README.md",
                f"//   password: 'obfuscated-{value}',\n",
                f"//   password: 'obscured-{value}',\n",
            ),
            (
                "scripts/renew-letsencrypt.sh",
                "openssl pkcs12 -export -in cert.pem -out a.p12 -password pass:$KEYSTOREPW\n",
                f"openssl pkcs12 -export -in cert.pem -out a.p12 -password pass:{value}\n",
            ),
            (
                "tsl/test/sql/chunk_utils_internal.sql",
                role.format("ROLE_4_PASS"),
                role.format(value),
            ),
        )
    )

    # Medusa's storefront key, made to be published, in a header that says so (in a guide and in
    # a script) and in a guide's prose
    key = f"pk_{made(16, string.ascii_uppercase + string.digits)}"
    curl = "curl http://localhost:9000/store/carts -H '{}: " + key + "'\n"
    for path in ("docs/api/store/carts/add-line-item.mdx", "scripts/carts.sh"):
        assert _found_by_policy(path, curl.format("x-publishable-api-key")) == [], path
        assert _found_by_policy(path, curl.format("x-api-key")) == ["curl-auth-header"], path
    prose = "docs/storefront.md"
    assert _found_by_policy(prose, f"The publishable API key: {key}\n") == []
    assert _found_by_policy(prose, f"The API key: {key}\n") == ["secret-in-prose"]

    # a UUID found under a token's name (not every UUID is: some read as an id) is quiet under the
    # App Store's names
    drawn = (str(uuid.UUID(int=_rng.getrandbits(128), version=4)) for _ in range(200))
    token = next(u for u in drawn if _found_by_policy("a.json", f'"accountToken": "{u}"\n'))
    for name in ("appAccountToken", "testNotificationToken"):
        assert _found_by_policy("resources/signedTransaction.json", f'"{name}": "{token}"\n') == []


def test_what_batches_370_to_389_held_that_is_no_credential() -> None:
    """Batches 370 to 389 (measured once, then looked at): a URL's password made of its user's
    name's beginning and a password's word (patroni's ``replicator:rep-pass``), one four characters
    long once its URL escapes are undone (ffmpeg's ``u:p%2B%2F2``), a build's options under a
    library's name (Yocto's ``PACKAGECONFIG[libsecret]``) or a camel-case option after a flag
    (``--azure-credential --packagePath``), DevEco's encrypted signing passwords, markers written
    between signs (``'%%EndICCProfile'``, SpamAssassin's ``'**LASTEXPIRE'``), a credential's UUID
    namespace (Movable Type's ``MT_SITE_SECRET_NS``), a spam mail's link whose ``PASS=`` is base64
    of base64 of numbers, its padding escaped, and the ids AWS and Tencent Cloud call a lifecycle
    action's token. The same places with values drawn at random are found."""
    value = made(24)
    url = "    'conn_url': 'postgres://{}@127.0.0.1:5435/postgres',\n"
    ffmpeg = 'test2("ftp://u:{}@ftp.pbt.com/ExportHD.mpg");\n'
    options = 'PACKAGECONFIG[libsecret] = "{}"\n'
    vsce = "    'vsce publish --azure-credential {} --manifestPath extension.manifest',\n"
    hex_upper = "0123456789ABCDEF"
    cipher = made(74, hex_upper)
    drawn = made(82, hex_upper)
    while drawn.startswith("0"):
        drawn = made(82, hex_upper)
    deveco = '      "storePassword": "{}",\n'
    numbers = base64.b64encode(base64.b64encode(b"1189349&9531&7044&42536&931393")).decode()
    noise = base64.b64encode(_rng.randbytes(40)).decode()
    link = "https://h50084.www5.hp.com/rd.asp?ID=MTE4OTM0OSY5NTMx&PASS={}\n"
    _quiet_then_found((
        ("tests/__init__.py", url.format("replicator:rep-pass"), url.format(f"replicator:{value}"),
         "database-url"),
        ("tests/test_zookeeper.py", url.format("repuser:rep-pass"), url.format(f"repuser:{value}"),
         "database-url"),
        ("libavformat/tests/url.c", ffmpeg.format("p%2B%2F2"), ffmpeg.format(f"p%2B%2F{value}"),
         "url-credentials"),
        ("meta-oe/recipes-support/webkitgtk/webkitgtk3_2.52.5.bb",
         options.format("--with-libsecret=yes,--with-libsecret=no,libsecret"),
         options.format(value), "generic-secret"),
        ("meta-oe/recipes-extended/wxwidgets/wxwidgets_3.2.11.bb",
         options.format("-DUSE_LIBSECRET=ON,-DUSE_LIBSECRET=OFF,libsecret"),
         options.format(value), "generic-secret"),
        ("azure-pipelines/release-extension.yml", vsce.format("--packagePath $(vsixFileName)"),
         vsce.format(value), "generic-secret"),
        ("src/harmony-configs/build-profile.json5", deveco.format(f"00000019{cipher}"),
         deveco.format(drawn), "generic-secret"),
        ("lib/Mail/SpamAssassin/BayesStore/DBM.pm",
         "my $DB0_LAST_EXPIRE_MAGIC_TOKEN = '**LASTEXPIRE';\n",
         f"my $DB0_LAST_EXPIRE_MAGIC_TOKEN = '**{value}';\n", "generic-secret"),
        # (ExifTool's name for it, $endToken, says marker too since batches 580 to 589: the value
        # is judged here under a token's name that says nothing of the kind)
        ("extlib/Image/ExifTool/WritePostScript.pl", "$psToken = '%%EndICCProfile';\n",
         f"$psToken = '%%{value}';\n", "generic-secret"),
        ("t.rules/OBFUSCATING_COMMENT/fp-bug6188-2",
         link.format(numbers.replace("=", "%3D")), link.format(noise.replace("=", "%3D")),
         "generic-secret"),
    ))  # fmt: skip

    # a UUID found under a credential's name (not every UUID is: some read as an id) is quiet as
    # the credential's namespace, and under the name of a lifecycle action's token
    drawn_ids = (str(uuid.UUID(int=_rng.getrandbits(128), version=4)) for _ in range(200))
    token = next(u for u in drawn_ids if _found_by_policy("a.pm", f"MT_SITE_SECRET => '{u}',\n"))
    assert _found_by_policy("lib/MT/Util/UniqueID.pm", f"MT_SITE_SECRET_NS => '{token}',\n") == []
    assert _found_by_policy("a.json", f'"SessionToken": "{token}"\n') == ["generic-secret"]
    for name in ("LifecycleActionToken", "lifecycle_action_token"):
        assert _found_by_policy("autoscaling_client.py", f'"{name}": "{token}"\n') == []


def test_a_page_saved_with_its_response_head_or_in_a_build_s_test_resources_is_a_saved_page() -> (
    None
):
    """Batches 310 to 329's "seen and left": a web page a test keeps with the head of the response
    it came in (catarse's spec/fixtures/youtube_request.txt: ``HTTP/1.1 200 OK`` and its headers,
    then the page), or keeps in its build's test resources (heritrix's src/test/resources), is a
    saved page: the page's own tokens, served to every visitor, are no credential. The same page
    kept elsewhere is read as any file."""
    value = made(52, ALNUM + "-_")
    page = (
        '<!DOCTYPE html><html lang="en"><head><script>\n'
        f"yt.setAjaxToken('promo_ajax_token', \"{value}\");\n"
        "</script></head><body></body></html>\n"
    )
    response = "HTTP/1.1 200 OK\r\nContent-Type: text/html; charset=utf-8\r\n\r\n" + page
    assert _found_by_policy("spec/fixtures/youtube_request.txt", response) == []
    assert _found_by_policy("contrib/src/test/resources/ExtractorYoutube.txt", "  " + page) == []
    assert _found_by_policy("spec/youtube_request.txt", response) == ["generic-secret"]
    assert _found_by_policy("contrib/src/main/resources/ExtractorYoutube.txt", page) == [
        "generic-secret"
    ]


def _jws(header: dict[str, str], claims: dict[str, object], signature: bytes) -> str:
    """A compact JWS of ``header`` and ``claims`` with ``signature`` (base64url, unpadded)."""
    return ".".join(
        base64.urlsafe_b64encode(part).rstrip(b"=").decode()
        for part in (json.dumps(header).encode(), json.dumps(claims).encode(), signature)
    )


def test_what_batches_390_to_409_held_that_is_no_credential() -> None:
    """Batches 390 to 409 (measured once, then looked at), and the AI clients' bundles: The Things
    Stack's stored tokens (``PBKDF2$sha256$…``), a setting's value that is a variable's name
    (``apimlAuthenticationToken=tokenValue``; not a drawn password's ``z=…``), Figma's ids
    (``VariableID:519:32875``), MediaWiki's ``$wgPasswordSender``, a password's digest named by its
    algorithm (``GRAYLOG_SHA256_PASSWORD``), a sentence in camel case with its article
    (eShopOnWeb's ``AuthKeyOfDoomThatMustBeAMinimumNumberOfBytes``), RFC 7635's example keys,
    hostapd's test SIM, Checkmarx's published client secret, pgBackRest's example passphrase, a Wi-Fi Easy Connect connector, the NT
    hash of "password", a mock's getter and the path it is asked for, a member joined to strings in
    minified code, a stand-in that says to rotate it, and a value whose comment says to replace it
    (``# change this``, a Compose example's). The same places with values drawn at random, or a
    comment that says something else, are found."""
    value = made(24)
    hex32, hex64 = made(32, "0123456789abcdef"), made(64, "0123456789abcdef")
    salt, digest = made(16), made(43, ALNUM + "-_")
    short = (
        "".join(_rng.choice(string.ascii_letters) for _ in range(3)) + f"{_rng.randrange(10, 99)}.7"
    )

    rfc7635_mac = base64.b64encode(b"ZksjpweoixXmvn67534m").decode()
    drawn_mac = base64.b64encode(_rng.randbytes(20)).decode()
    sim = "90dca4eda45b53cf0f12d7c9c3bc6a89:cb9cccc4b9258e6dca4760379fb82581"
    checkmarx = "014DF517-39D1-4453-B7B3-9930C563627C"
    body = 'body := "client_id=resource_owner_client&client_secret={}&grant_type=password"\n'
    drawn_ids = (str(uuid.UUID(int=_rng.getrandbits(128), version=4)).upper() for _ in range(200))
    drawn_id = next(u for u in drawn_ids if _found_by_policy("checkmarx.go", body.format(u)))
    claims = {"groups": [{"id": "*", "netRole": "sta"}], "netAccessKey": {"kty": "EC"}}
    signature = _rng.randbytes(64)
    connector = _jws({"typ": "dppCon", "kid": made(43), "alg": "ES256"}, claims, signature)
    signed = _jws({"typ": "JWT", "kid": made(43), "alg": "ES256"}, claims, signature)
    _quiet_then_found((
        ("pkg/oauth/server_test.go", f'RefreshToken: "PBKDF2$sha256$20000${salt}${digest}",\n',
         f'RefreshToken: "{salt}{digest}",\n', "generic-secret"),
        ("src/test/java/WebSocketProxyTest.java",
         'String validToken = "apimlAuthenticationToken=tokenValue";\n',
         f'String validToken = "apimlAuthenticationToken={value}";\n', "generic-secret"),
        ("tests/check_types.json", '{"AuthenticationToken": "jwt=authToken"}\n',
         f'{{"AuthenticationToken": "jwt={value}"}}\n', "generic-secret"),
        ("docs/guides/community-meeting.md", "Passcode: session=tokenValue\n", f"Passcode: z={short}\n",
         "generic-secret"),
        ("src/utils/tryApplyVariableId.test.ts", "refs.set('token', 'VariableID:519:32875');\n",
         f"refs.set('token', 'VariableID:{value}');\n", "generic-secret"),
        ("LocalSettings.php", f"$wgPasswordSender = '{value}';\n", f"$wgPassword = '{value}';\n",
         "generic-secret"),
        ("graylog/defaults.env", f"GRAYLOG_SHA256_PASSWORD={hex64}\n",
         f"GRAYLOG_SHA256_SECRET={hex64}\n", "generic-secret"),
        ("src/Constants.cs",
         'const string AUTH_KEY = "AuthKeyOfDoomThatMustBeAMinimumNumberOfBytes";\n',
         f'const string AUTH_KEY = "{made(44)}";\n', "generic-secret"),
        ("examples/tandoor/.env", "SECRET_KEY=ThisShouldBeAVerySecureAndLongSecretStringNobodyKnows\n",
         f"SECRET_KEY={made(52)}\n", "generic-secret"),
        ("iceserver_test.go", f'MACKey: "{rfc7635_mac}",\n', f'MACKey: "{drawn_mac}",\n',
         "generic-secret"),
        ("tests/hwsim/test_ap_eap.py", f'password="{sim}")\n', f'password="{hex32}:{made(32, "0123456789abcdef")}")\n',
         "generic-secret"),
        ("pkg/checkmarx/checkmarx_test.go", body.format(checkmarx), body.format(drawn_id),
         "generic-secret"),
        ("doc/resource/exe.cache",
         '    "repo1-cipher-pass=zWaf6XtpjIVZC5444yXB+cgFDFl7MxGlgkZSaoPvTGirhPygu4jOKOXf9LO4vjfO",\n',
         f'    "repo1-cipher-pass={base64.b64encode(_rng.randbytes(48)).decode()}",\n', "generic-secret"),
        ("tests/hwsim/test_dpp.py", f'ap_connector = "{connector}"\n', f'ap_connector = "{signed}"\n', "jwt"),
        ("tests/hwsim/test_eap_proto.py", 'x(password_hex="hash:8846f7eaee8fb117ad06bdd830b7586c")\n',
         f'x(password_hex="hash:{hex32}")\n', "generic-secret"),
        ("pkg/config/vault_test.go", 'm.On("GetKvSecret", "team1/appCredentials1")\n',
         f'm.On("KvSecret", "team1/{made(20)}")\n', "generic-secret"),
        ("dist/models.js", 'r=["AWS4-HMAC-SHA256 Credential="+this.accessKeyId+"/"+this.scope]\n',
         f'r=["AWS4-HMAC-SHA256 Credential="+{value}+"/"+this.scope]\n', "generic-secret"),
        ("examples/minio/docker-compose.yml", f"      - MINIO_ROOT_PASSWORD={value} # change this\n",
         f"      - MINIO_ROOT_PASSWORD={value} # rotate this every 90 days\n", "generic-secret"),
        ("examples/app/.env", f"DATABASE_URL=postgres://app:{value}@db:5432/app  # change this\n",
         f"DATABASE_URL=postgres://app:{value}@db:5432/app\n", "database-url"),
        ("examples/leantime/.env",
         f"LEAN_SESSION_PASSWORD = '{value}'  #Salting sessions. Replace with a strong password\n",
         f"LEAN_SESSION_PASSWORD = '{value}'  #Salting sessions.\n", "generic-secret"),
        ("documentation/role_based_security.md", '```js\nconst user = {\n  password: "RotateMe1!",\n};\n```\n',
         f'```js\nconst user = {{\n  password: "{value}!",\n}};\n```\n', "generic-secret"),
    ))  # fmt: skip


def test_what_batches_420_to_439_held_that_is_no_credential() -> None:
    """Batches 420 to 439 (measured once, then looked at), and round 61's held-out batches: an "@"
    after a URL's "?" (baresip's ``http://127.0.0.1:8000?d1234@target.com``), a Terraform
    provider's acceptance tests' password (``AccTest…``), the AzureRM provider's documented
    password, runs along the keyboard and a number (``asdQWE12345_3``), a value its line gives as
    an example (``For example '…?key=…'``), a UUID whose groups are one digit said four times
    (``…-cccc-bbbb-aaaa-…``), a test's word and number in a session token, and PayPal's ids in
    its URLs and with their prefixes (laravel-paypal's mocks). The same places with values drawn
    at random, or with no word that gives them as an example, are found."""
    value = made(24)
    drawn_uuid = str(uuid.UUID(int=_rng.getrandbits(128), version=4))
    order = f"wc_order_{made(13)}"
    upper_digits = string.ascii_uppercase + string.digits
    _quiet_then_found((
        ("modules/httpd/httpd.c", " * http://127.0.0.1:8000?d1234@target.com  -- Make a call\n",
         f" * http://127.0.0.1:{value}@target.com  -- Make a call\n", "url-credentials"),
        ("azure-test/tests/hdinsight/variables.tf", 'password = "AccTestvdSC4daf986!"\n',
         f'password = "{value}!"\n', "generic-secret"),
        ("azure-test/tests/mysql/variables.tf", 'administrator_login_password = "H@Sh1CoR3!"\n',
         f'administrator_login_password = "{made(16)}"\n', "generic-secret"),
        ("password_security/tests/test_signup.py", 'vals["password"] = "asdQWE12345_3"\n',
         f'vals["password"] = "{made(12)}_3"\n', "generic-secret"),
        ("src/Payment/UrlMiddleware.php",
         f" * For example 'http://shop.test/wc-api/return/?order_id=89&key={order}'.\n",
         f" * Returned to 'http://shop.test/wc-api/return/?order_id=89&key={order}'.\n",
         "url-key-parameter"),
        ("docs/quickstart.adoc", "token: 19aefa97-cccc-bbbb-aaaa-225940e63d76\n",
         f"token: {drawn_uuid}\n", "generic-secret"),
        ("tests/Mocks/Responses/Orders.php",
         '"href": "https://www.paypal.com/payment/alipay?token=5O190127TN364715T",\n',
         f'"href": "https://pay.example.net/payment/alipay?token={made(17, upper_digits)}",\n',
         "generic-secret"),
        ("tests/Mocks/Responses/Subscriptions.php",
         '"href": "https://www.paypal.com/webapps/billing/subscriptions?ba_token=BA-2M539689T3856352J",\n',
         f'"href": "https://www.paypal.com/webapps/billing/subscriptions?ba_token={value}",\n',
         "generic-secret"),
        ("tests/Mocks/Responses/PartnerReferrals.php", '"ec_token": "EC-1S970363DB536864M"\n',
         f'"ec_token": "{made(20, upper_digits)}"\n', "generic-secret"),
        ("e2e/fixtures/AWSCredentials.json", '{"SessionToken": "FwoGZXIvYXdztest1234=="}\n',
         f'{{"SessionToken": "FwoGZXIvYXdz{made(12)}=="}}\n', "generic-secret"),
    ))  # fmt: skip


def test_what_batches_440_to_449_held_that_is_no_credential() -> None:
    """Batches 440 to 449 (round 62's first held-out batches, measured once with its rules, then
    looked at): a Rails application's development and test secrets (the sections the framework's
    generated config/secrets.yml keeps in the repository, reading production's from the
    environment), and Unity's default PS4 package passcode. The same values in another section, or
    drawn at random, are found."""
    key_base = made(128, "0123456789abcdef")
    secrets = "# Rails\n\n{}:\n  secret_key_base: {}\n\nproduction:\n  adapter: postgresql\n"
    _quiet_then_found((
        ("spec/dummy/config/secrets.yml", secrets.format("development", key_base),
         secrets.format("staging", key_base), "generic-secret"),
        ("config/secrets.yml", secrets.format("test", key_base),
         f"# Rails\n\nsecret_key_base: {key_base}\n", "generic-secret"),
        ("ProjectSettings/ProjectSettings.asset", "  ps4Passcode: frAQBc8Wsa1xVPfvJcrgRYwTiizs2trQ\n",
         f"  ps4Passcode: {made(32)}\n", "generic-secret"),
    ))  # fmt: skip


def test_what_batches_450_to_459_held_that_is_no_credential() -> None:
    """Batches 450 to 459 (round 62's held-out check of its end's rules, measured once, then
    looked at): an interpolation in Ruby's or Elixir's strings (``#{es_admin_pass}``, a curl
    command's password the program fills in), as ``${VAR}`` is. A value written there is found."""
    value = made(24)
    path = "spec/integration/outputs/index_spec.rb"
    line = 'let(:curl_opts) {{ "#{{super()}} --tlsv1.2 -u #{{es_admin}}:{}" }}\n'
    _quiet_then_found(
        [(path, line.format("#{es_admin_pass}"), line.format(value), "curl-basic-auth")]
    )


def test_what_batches_460_to_479_held_that_is_no_credential() -> None:
    """Batches 460 to 479 (measured once, then looked at): Jenkins' pipeline step that gives a
    stored credential by its id (``GITHUB_TOKEN=credentials('<its id>')``, in every LinuxServer.io
    image's Jenkinsfile); a web analytics beacon's site token in a page's script tag (the
    Testcontainers sites' Cloudflare beacon); a test's value that respells ``test``
    (``t3stc0ntain3rs!``); a member of the value's own name (Bicep's ``radiusServerSecret:
    parameters.?radiusServerSecret``); values under a comment of their paragraph that says, in a
    sentence of its own, to replace them (docker-swag's certbot credentials: ``# Replace with your
    values``; not Rails' ``# If you change this key, …`` over the secret it made); a test's
    series of made-up values, each the one before with its last character counted on
    (serverless-offline's ``Bearer fc3e…6e5a``, ``…6e5b``, ``…6e5c``). The same values
    elsewhere, or in another place, are found."""
    hexdigits = "0123456789abcdef"
    key_id, token, beacon = (
        str(uuid.UUID(int=_rng.getrandbits(128), version=4)),
        made(34),
        made(32, hexdigits),
    )
    series = str(uuid.UUID(int=_rng.getrandbits(128), version=4))[:-1]  # and its last: a, b, c
    tag = "<script defer src='https://static.cloudflareinsights.com/beacon.min.js' "
    member = "radiusServerSecret: virtualWanParameters.?p2sVpnParameters.?"
    template = (
        "# Instructions: https://certbot-dns-azure.readthedocs.io/\n# Replace with your values\n"
    )
    bearer = '  Authorization: "Bearer {}",\n'
    _quiet_then_found(
        [
            (
                "Jenkinsfile",
                f"  GITHUB_TOKEN=credentials('{key_id}')\n",
                f"  X = Credentials('{key_id}')\n",
            ),
            (
                "docs/theme/main.html",
                f'{tag}data-cf-beacon=\'{{"token": "{beacon}"}}\'></script>\n',
                f'<div data-cf-beacon=\'{{"token": "{beacon}"}}\'></div>\n',
            ),
            (
                "modules/arangodb/arangodb_test.go",
                'const password = "t3stc0ntain3rs!"\n',
                f'const password = "{token}"\n',
            ),
            ("avm/main.bicep", f"{member}radiusServerSecret\n", f"{member}sharedKey\n"),
            (
                "root/defaults/dns-conf/azure.ini",
                f"{template}# Service principal\nclient_id = {key_id}\nclient_secret = {token}\n",
                f"{template}\nclient_secret = {token}\n",
            ),
            (  # a comment that says what a change does, over the secret a framework generated
                "config/initializers/secret_token.rb",
                f"# Note: You should change this value\nApp.config.secret_token = '{token}'\n",
                f"# If you change this key, old cookies will become invalid!\nApp.config.secret_token = '{token}'\n",
            ),
            (
                "tests/integration/authorizer.test.js",
                "".join(bearer.format(series + last) for last in "abc"),
                bearer.format(series + "b"),
                "bearer-token",
            ),
        ]
    )


def test_what_batches_480_to_489_held_that_is_no_credential() -> None:
    """Batches 480 to 489 (a held-out check of the rules made on batches 460 to 479, measured once,
    then looked at): words padded as base64 is (swoosh's ``access_key: "base64encodedkey=="``); a
    key wrapped by a machine's RSA key (IIS's ``sessionKey="AQIAAA5mAAAApAAA…"`` in every
    applicationhost.config Visual Studio keeps); Microsoft's 1DS telemetry tenant token, which
    every copy of Office.js gives the browser; a token's three parts whose middle says it is a
    test's (teams-toolkit's mocks' ``a.<base64 of {"userId":"test@test.com"}>.c``). The same
    places with a drawn value are found."""
    hexdigits = "0123456789abcdef"
    wrapped = made(300, string.ascii_letters + string.digits + "+/")
    tenant = f"{made(32, hexdigits)}-{uuid.UUID(int=_rng.getrandbits(128), version=4)}"
    said = base64.b64encode(b'{"userId":"test@test.com"}').decode()
    drawn = base64.b64encode(f'{{"userId":"bob@acme.io","sid":"{made(12)}"}}'.encode()).decode()
    config = '<add name="AesProvider" useMachineContainer="true" sessionKey="{}" />\n'
    _quiet_then_found(
        [
            (
                "lib/swoosh/adapters/acs.ex",
                'access_key: "base64encodedkey=="\n',
                f'access_key: "{made(22)}=="\n',
            ),
            (
                ".vs/App/config/applicationhost.config",
                config.format(f"AQIAAA5mAAAApAAA{wrapped}"),
                config.format(wrapped),
            ),
            (
                "Scripts/Office/1/office.debug.js",
                f"var ariaTenantToken = '{tenant}-7439';\n",
                f"var ariaTenantToken = '{made(40)}';\n",
            ),
            ("tests/core/utils.ts", f'  token: "a.{said}.c",\n', f'  token: "a.{drawn}.c",\n'),
        ]
    )


def test_what_batches_490_to_499_held_that_is_no_credential() -> None:
    """Batches 490 to 499 (round 63's held-out check of its end's rules, measured once, then looked
    at): the key a token cache keeps an entry under, as Microsoft's authentication libraries write
    it (msal-dotnet's tests: ``accesstoken-<client id>-<tenant>``, the account's and its
    environment's before it). A drawn value under the same name is found."""
    uid, client, tenant = (str(uuid.UUID(int=_rng.getrandbits(128), version=4)) for _ in range(3))
    line = 'string expectedGenericKey = "{}";\n'
    cache_key = f"{uid}.{tenant}-login.windows.net-idtoken-{client}-{tenant}-"
    _quiet_then_found(
        [
            (
                "tests/CacheTests/UnifiedSchemaValidationTests.cs",
                line.format(f"idtoken-{client}-{tenant}"),
                line.format(made(40)),
            ),
            (
                "tests/Resources/AADTestData.txt",
                f'"id_token_cache_key": "{cache_key}",\n',
                f'"id_token": "{made(40)}",\n',
            ),
        ]
    )


def test_what_batches_500_to_519_held_that_is_no_credential() -> None:
    """Batches 500 to 519 (measured once, then looked at): a token beside its expiry, as its
    issuer answers a request for one, in a test's mock (go-github's ``{"token": "…",
    "expires_at": …}`` for a runner's registration; an OAuth answer's ``access_token`` beside
    ``expires_in``), where a refresh token beside it, or a token with no expiry, is found; the
    Supabase CLI's local stack's secret key, the same in every stack it runs, where a drawn key of
    its format is found; a key in a test's record of a made-up account (drupal-cloudflare's
    ``'apikey' => '…', 'email' => 'test@test.com'``), where an account that may exist is found."""
    upper = string.ascii_uppercase + string.digits
    form = "  public function testValidCredentials() {{\n    $edit = [\n      'apikey' => '{}',\n"
    form += "      'email' => '{}',\n    ];\n  }}\n"
    apikey = made(37, string.ascii_lowercase + string.digits)
    token, other = made(29, upper), made(29, upper)
    mock = '\tfmt.Fprint(w, `{{"{}":"{}",{}}}`)\n'
    oauth = '"expires_in":3600,"token_type":"bearer"'
    helpers = '    public const string ApiKey = "sb_secret_{}";\n'
    _quiet_then_found(
        [
            (
                "github/actions_runners_test.go",
                mock.format("token", token, '"expires_at":`+referenceTimeStr+`'),
                mock.format("token", token, '"owner":"o"'),
            ),
            (
                "tests/test_oauth.py",
                mock.format("access_token", other, oauth),
                mock.format("refresh_token", other, oauth),
            ),
            (
                "packages/Realtime/Realtime.Tests/Helpers.cs",
                helpers.format("N7UND0UgjKTVK-Uodkm0Hg_xSvEMPvz"),
                helpers.format(made(31)),
                "supabase-token",
            ),
            (
                "src/Tests/CloudFlareAdminSettingsFormTest.php",
                form.format(apikey, "test@test.com"),
                form.format(apikey, "ops@acme.io"),
            ),
        ]
    )


def test_what_batches_520_to_529_held_that_is_no_credential() -> None:
    """Batches 520 to 529 (a held-out check of the rules made on batches 500 to 519, measured once,
    then looked at): an access key's id in a log of AWS's API calls (CloudTrail's ``userIdentity``,
    beside the caller's ``principalId``: Splunk's detections keep such events by the dozen), where
    the same id in an SDK's settings is found; a value in the development environment's or the
    tests' settings file (github-for-jira's ``.env.test``), where a provider's format is found, and
    the same value in ``.env`` or a machine's own ``.env.development.local``."""
    key_id = "AKIA" + made(16, string.ascii_uppercase + "234567")
    caller = '"userIdentity": {{"type": "IAMUser", "principalId": "AIDA{}", "arn": '.format(
        made(17, string.ascii_uppercase + "234567")
    )
    caller += '"arn:aws:iam::111111111111:user/cli", "accountId": "111111111111", '
    secret = f"STORAGE_SECRET={made(64, '0123456789abcdef')}\n"
    github = "ghp_" + made(36)
    _quiet_then_found(
        [
            (
                "data_sources/aws_cloudtrail_deleterule.yml",
                f'example_log: \'{{"eventVersion": "1.08", {caller}"accessKeyId": "{key_id}"}}}}\'\n',
                f'example_log: \'{{"region": "us-east-1", "accessKeyId": "{key_id}"}}\'\n',
                "aws-access-key-id",
            ),
            (".env.test", secret, f"{secret}GITHUB_TOKEN={github}\n", "github-pat"),
        ]
    )
    for path in (".env.development", ".env.e2e", "client/.env.test"):
        assert _found_by_policy(path, secret) == [], path
    for path in (".env", ".env.development.local", "config/.env.production"):
        assert _found_by_policy(path, secret) == ["generic-secret"], path


def _hs256(claims: dict[str, object], key: str) -> str:
    """A JSON Web Token of ``claims``, signed by HMAC-SHA256 with ``key``."""

    def part(data: bytes) -> str:
        return base64.urlsafe_b64encode(data).rstrip(b"=").decode()

    header = part(json.dumps({"typ": "JWT", "alg": "HS256"}).encode())
    signed = f"{header}.{part(json.dumps(claims).encode())}"
    return f"{signed}.{part(hmac.digest(key.encode(), signed.encode(), 'sha256'))}"


def test_a_tests_token_signed_with_a_key_its_file_holds_is_the_tests_own() -> None:
    """Batches 520 to 529: a test's token signed by HMAC with a string its own file holds
    (jenkins-for-jira's build events, signed with its mock's ``'this is a secret'``) is the test's
    own: anyone who reads the file can sign another. Signed with a key the file does not hold, or
    in a file that is not a test's, it is found."""
    claims = {"aud": "jenkins-forge-app", "iss": "jenkins-plugin", "exp": 3247482513, "n": made(16)}
    mock = "  mockResolvedValue(secret || '{}');\n"
    test = "const BUILD_EVENT_JWT = '{}';\n" + mock
    own, other = _hs256(claims, "this is a secret"), _hs256(claims, made(24))
    path = "app/src/webtrigger/handle-jenkins-request.test.ts"
    _quiet_then_found(
        [
            (
                path,
                test.format(own, "this is a secret"),
                test.format(other, "this is a secret"),
                "jwt",
            )
        ]
    )
    assert _found_by_policy(path.replace(".test", ""), test.format(own, "this is a secret")) == [
        "jwt"
    ]
    # the HMACs a scan may try are spent on tokens signed by HMAC only: other tokens before it
    # (RS256, which no string signs) leave the test's own token quiet
    rs256 = base64.urlsafe_b64encode(b'{"alg":"RS256","typ":"JWT"}').rstrip(b"=").decode()
    others = "".join(
        f"const T{n} = '{rs256}.{own.split('.')[1]}.{made(342, ALNUM + '-_')}';\n"
        for n in range(24)
    )
    strings = "".join(f"  expect(x).toBe('{made(12)}');\n" for _ in range(40))
    text = strings + others + test.format(own, "this is a secret")
    from gitmem.scan.policy import policy, scan

    own_line = text[: text.index(own)].count("\n") + 1
    assert [f.line for f in scan(text, path, policy(path, path, text))].count(own_line) == 0


def test_what_batches_530_to_539_held_that_is_no_credential() -> None:
    """Batches 530 to 539 (round 64's held-out check of its end's rules, measured once, then looked
    at): an identifier of words in camel case, numbers and acronyms among them, read as random
    (IntuneManagement's resource keys, ``"nameResourceKey": "mediaContentRating…Above12Option"``,
    by the hundred). A drawn value under the same name is found."""
    line = '    "nameResourceKey":  "{}",\n'
    _quiet_then_found(
        [
            (
                "Documentation/ObjectInfo/applicationsandgames_iosgeneral.json",
                line.format("mediaContentRatingAppsAgesAbove12Option")
                + line.format(
                    "ProactiveRemediations.Create.Settings.RunIn64BitPSOptionPicker.label"
                ),
                line.format(made(40)),
            )
        ]
    )


def test_what_batches_540_to_549_held_that_is_no_credential() -> None:
    """Batches 540 to 549 (round 64's third held-out check, measured once, then looked at): the
    parts of a signed request that every such request carries in the clear (an STS session token
    in a presigned URL's query, OAuth 1.0's consumer key in its Authorization header), the id
    Postman gives each request it sends (Postman-Token, in saved examples of API providers'
    collections), and GitHub's and Instagram's documented tokens (GitHub's OAuth guide's, its
    REST reference's personal access token; Instagram's in its example URLs). The same values
    under a credential's name are found, and a drawn token where the documented one stood."""
    collection = "tests/fixtures/pdfco.postman.json"
    session, consumer = made(296), made(24)
    url = (
        '"raw": "https://b.s3-us-west-2.amazonaws.com/k/test.pdf?X-Amz-Expires=3600&'
        '{}={}&X-Amz-Algorithm=AWS4-HMAC-SHA256&X-Amz-Date=20200302T143951Z"\n'
    )
    header = '"value": "OAuth {}=\\"{}\\",oauth_signature_method=\\"HMAC-SHA1\\""\n'
    echo = '"body": "{{\\n  \\"cache-control\\": \\"no-cache\\",\\n  \\"{}\\": \\"{}\\"\\n}}"\n'
    github = '"raw": "{{\\n  \\"access_token\\": \\"{}\\",\\n  \\"scope\\": \\"repo,gist\\"}}"\n'
    instagram = (
        '"next_url": "https://api.instagram.com/v1/tags/coffee/media/recent?access_token={}"\n'
    )
    _quiet_then_found(
        [
            (collection, url.format("x-amz-security-token", session), url.format("token", session)),
            (
                collection,
                header.format("oauth_consumer_key", consumer),
                header.format("oauth_consumer_secret", consumer),
            ),
            (
                collection,
                github.format("e72e16c7e42f292c6912e7710c838347ae178b4a"),
                github.format(made(40, "0123456789abcdef")),
            ),
            (
                "test/data/github.yaml",
                "          token: ghp_16C7e42F292c6912E7710c838347Ae178B4a\n",
                f"          token: ghp_{made(36)}\n",
                "github-pat",
            ),
            (
                "test/data/instagram.yaml",
                instagram.format("fb2e77d.47a0479900504cb3ab4a1f626d174d2d"),
                instagram.format(made(40)),
            ),
        ]
    )
    # Postman's ids are UUIDs, and a UUID drawn is read as a credential's only most of the time (a
    # few in a hundred look made up): five of them, all quiet as Postman's, most found as a token
    requests = [str(uuid.uuid4()) for _ in range(5)]
    assert not any(_found_by_policy(collection, echo.format("postman-token", r)) for r in requests)
    found = [_found_by_policy(collection, echo.format("x-api-token", r)) for r in requests]
    assert found.count(["generic-secret"]) >= 2, found


def test_every_name_judge_hears_a_name_that_says_no_secret() -> None:
    """What a signed request sends in the clear (``X-Amz-Security-Token``, ``oauth_consumer_key``,
    ``Postman-Token``) and a fake's word are heard alike by every judge of a generic rule's name
    (``engine._NAME_JUDGES``), after another word or a setter's verb too (``setOauthConsumerKey(``):
    one check (``filters._says_no_secret``). The same names with a credential's word are a
    credential's. A judge written without that check fails here."""
    from gitmem.scan.engine import _NAME_JUDGES

    quiet = ["oauth_consumer_key", "X-Amz-Security-Token", "Postman-Token", "fakeApiKey"]
    named = ["oauth_consumer_secret", "X-Api-Token", "Api-Token", "realApiKey"]
    quiet += [f"my_{quiet[0]}", "setOauthConsumerKey", "withPostmanToken", "setFakeApiKey"]
    named += [f"my_{named[0]}", "setOauthConsumerSecret", "withApiToken", "setApiKey"]
    for judge, after in itertools.product(_NAME_JUDGES.values(), (" ", "(")):
        assert [judge(name + after) for name in quiet] == [0] * len(quiet), (judge, after)
        assert all(judge(name + after) for name in named), (judge, after)


def test_what_batches_550_to_569_held_that_is_no_credential() -> None:
    """Batches 550 to 569 (measured once, then looked at): a value in the settings file a framework
    reads for the development environment or the tests from its config folder (Phoenix's generated
    ``config/dev.exs`` and ``config/test.exs``: their ``secret_key_base``; Rails' and Amber's
    ``config/environments/development.rb``, node-config's ``config/test.json``), where a provider's
    format is found, and the same value in the file every environment reads (``config/config.exs``)
    or in production's."""
    base = f'  secret_key_base: "{made(64)}",\n'
    endpoint = "config :live_beats, LiveBeatsWeb.Endpoint,\n  http: [port: 4002],\n" + base
    stripe = "sk_live_" + made(24)
    _quiet_then_found(
        [
            (
                "config/test.exs",
                endpoint,
                f'{endpoint}config :stripity_stripe, api_key: "{stripe}"\n',
                "stripe-secret-key",
            )
        ]
    )
    quiet = (
        "config/dev.exs",
        "apps/web/config/test.exs",
        "config/environments/development.rb",
        "config/environments/test.yml",
        "config/development.json",
        "config/testing.toml",
    )
    for path in quiet:
        assert _found_by_policy(path, endpoint) == [], path
    found = (
        "config/config.exs",
        "config/prod.exs",
        "config/runtime.exs",
        "config/environments/production.rb",
        "config/dev.exs.example",
        "test/dev.exs",
        "lib/config/devtools.exs",
    )
    for path in found:
        assert _found_by_policy(path, endpoint) == ["generic-secret"], path


def test_what_batches_570_to_579_held_that_is_no_credential() -> None:
    """Batches 570 to 579 (a held-out check of the rules made on batches 550 to 569, measured once,
    then looked at): a shared access signature whose ``sig=`` is no HMAC-SHA256 (an escape of no
    byte, ``%2R``: azure-functions-host's ``notarealstorageaccount``), where a signature of 32 bytes
    is found; a URL's password of two keys pressed again and again (``aaaaaa1111aa``, its sanitizer's
    tests); Apache APISIX's default Admin API key; a Zoom meeting's join link, which carries its
    passcode to everyone it invites; and a YARA rule's strings, what it looks for in a malware's
    files (``$apikey = "…"``), where a provider's format is found. The same values elsewhere are
    found."""
    sas = "https://acct.blob.core.windows.net/releases/test.zip?sv=2018-03-28&sr=b&sig={}"
    signature = (
        base64.b64encode(_rng.randbytes(32)).decode().replace("/", "%2F").replace("+", "%2B")
    )
    passcode, apikey = made(32), made(32, "0123456789abcdef")
    rule = 'rule RAT {{\n  strings:\n    $apikey = "{}"\n  condition:\n    $apikey\n}}\n'
    _quiet_then_found(
        [
            (
                "test/InstanceManagerTests.cs",
                f'    {{ "ScmRunFromPackage", "{sas.format(signature[:20] + "%2R" + signature[23:])}" }},\n',
                f'    {{ "ScmRunFromPackage", "{sas.format(signature)}" }},\n',
                "azure-sas-token",
            ),
            (
                "test/SanitizerTests.cs",
                '        [InlineData("test,aaa://aaa:aaaaaa1111aa@aaa.abc.io:1111")]\n',
                f'        [InlineData("test,aaa://aaa:{made(12)}@aaa.abc.io:1111")]\n',
                "url-credentials",
            ),
            (
                "docs/getting-started.md",
                "curl http://127.0.0.1:9180/apisix/admin/routes/1 "
                "-H 'X-API-KEY: edd1c9f034335f136f87ad84b625c8f1'\n",
                f"curl http://127.0.0.1:9180/apisix/admin/routes/1 -H 'X-API-KEY: {made(32)}'\n",
                "curl-auth-header",
            ),
            (
                ".github/workflows/reminder.yaml",
                f"  text: 'Join the zoom meeting: https://zoom.us/j/92717482035?pwd={passcode}'\n",
                f"  text: 'Join the call: https://calls.example.org/j/92717482035?pwd={passcode}'\n",
            ),
            (
                "malware/RAT_BlackShades.yara",
                rule.format(apikey),
                rule.format(apikey) + f"// ghp_{made(36)}\n",
                "github-pat",
            ),
        ]
    )
    assert _found_by_policy("malware/RAT_BlackShades.yar", rule.format(apikey)) == []
    assert _found_by_policy("malware/rat_blackshades.py", rule.format(apikey)) == ["generic-secret"]


def test_what_batches_580_to_589_held_that_is_no_credential() -> None:
    """Batches 580 to 589 (a second held-out check, measured once, then looked at):
    python-gitlab's documented tokens, SeleniumBase's default encryption key, a token named for
    its place in a text (SeleniumBase's ``OBFUSCATION_START_TOKEN``, a marker; a tokenizer's
    ``eos_token``), a workflow task's token (Temporal's ``taskToken``, a handle), a next page's
    token whatever words come before it, Elastic App Search's public search key, letters mashed
    along the keyboard's home row and Oracle's ``tiger``. The same places with a value of one's
    own, or the same values under a credential's name, are found."""
    task = base64.b64encode(_rng.randbytes(120)).decode()
    page = base64.b64encode(b'{"repo_treenode_id":' + str(_rng.randrange(10**15)).encode() + b"}")
    search = made(24, string.ascii_lowercase + string.digits)
    marker = "$^*" + "ENCRYPT="  # (written whole, the found line below would be this file's)
    _quiet_then_found(
        [
            (
                "docs/api-usage.rst",
                "   gl = gitlab.Gitlab(private_token='JVNSESs8EwWRx5yDxM5q')\n",
                f"   gl = gitlab.Gitlab(private_token='{made(20)}')\n",
            ),
            (
                "docs/api-usage-graphql.rst",
                "   gq = gitlab.GraphQL(token='glpat-JVNSESs8EwWRx5yDxM5q')\n",
                f"   gq = gitlab.GraphQL(token='glpat-{made(20)}')\n",
                "gitlab-pat",
            ),
            (
                "docs/cli-usage.rst",
                "   [somewhere]\n   url = https://some.whe.re\n   private_token = vTbFeqJYCY3sibBP7BZM\n",
                f"   [somewhere]\n   url = https://some.whe.re\n   private_token = {made(20)}\n",
            ),
            (
                "seleniumbase/config/settings.py",
                'ENCRYPTION_KEY = "Pg^.l!8UdJ+Y7dMIe&fl*%!p9@ej]/#tL~3E4%6?"\n'
                f'OBFUSCATION_START_TOKEN = "{marker}"\n',
                f'ENCRYPTION_KEY = "{made(40)}"\nOBFUSCATION_TOKEN = "{marker}"\n',
                "generic-secret",
                "generic-secret",
            ),
            (
                "custom-logger/README.md",
                f"  taskToken: '{task}',\n",
                f"  authToken: '{task}',\n",
            ),
            (
                "tests/repos/test_cli.py",
                f'TEST_NEXT_PAGE_TOKEN = "{page.decode()}"\n',
                f'TEST_API_TOKEN = "{page.decode()}"\n',
            ),
            (
                "src/config/engine.json.example",
                f'  "searchKey": "search-{search}",\n',
                f'  "searchKey": "{made(31)}",\n',
            ),
            (
                "examples/middleware/middleware.zig",
                '            .token = "rot47-asdlkfjsaklfdj",\n',
                f'            .token = "rot47-{made(14)}",\n',
            ),
            (
                "src/test/java/DownloadFileWithHttpRequestTest.java",
                '    assertThat(parseUrl("https://admin:tiger%3A%2F%2F@the-internet.herokuapp.com/"))\n',
                f'    assertThat(parseUrl("https://admin:{made(12)}%3A%2F%2F@the-internet.herokuapp.com/"))\n',
                "url-credentials",
            ),
        ]
    )
    assert _found_by_policy("tokenizer.py", f'eos_token = "{made(12)}"\n') == []


def test_a_documented_private_key_is_known_by_its_base64_however_it_is_escaped(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A private key a provider's documentation publishes (GitHub's app-manifest example) is known
    by the digest of its base64 alone: as a PEM file writes it and in a JSON string inside a JSON
    string (a Postman collection's saved example answer), its line ends escaped twice. Another
    key in the same places is found."""
    from gitmem.scan import filters

    lines, other = (
        [made(64, string.ascii_letters + string.digits + "+/") for _ in range(20)],
        made(64, string.ascii_letters + string.digits + "+/"),
    )
    documented = "".join(lines)
    monkeypatch.setattr(
        filters,
        "_DOCUMENTED_EXAMPLES",
        filters._DOCUMENTED_EXAMPLES | {filters.digest16(documented)},
    )
    head, tail = "-----BEGIN RSA PRIVATE KEY-----", "-----END RSA PRIVATE KEY-----"

    def written(body: list[str]) -> tuple[str, str]:
        pem = "\n".join([head, *body, tail]) + "\n"
        nested = '"body": "{\\n \\"pem\\": \\"' + "\\\\n".join([head, *body, tail]) + '\\"}"\n'
        return pem, nested

    for quiet, found in zip(written(lines), written([*lines[:-1], other]), strict=True):
        assert _found_by_policy("docs/app.pem", quiet) == [], quiet[:80]
        assert _found_by_policy("docs/app.pem", found) == ["private-key"], found[:80]


def test_what_a_values_author_says_of_it_counts_only_in_files_people_review() -> None:
    """A value's comment that says to replace it (on its line, or over its paragraph), words that
    give it as an example, a development or test section and a page's script tag are its author's
    word: in a file people review they make it quiet; in a memory, a session log or typed text (an
    agent's proposal, a live session) they are anyone's, and the value is found, as a record there
    is an API's live answer."""
    from gitmem.scan.policy import TYPED, policy, scan

    value, other, third, fourth, fifth = (made(24) for _ in range(5))
    text = (
        "id: x\n"
        f'said: "password={value} # change this"\n'
        f'shown: "e.g. token={other}"\n'
        f"# Replace with your values\nsecret_key: {fourth}\n"
        f"page: \"<script async data-token='{fifth}'></script>\"\n"
        f"development:\n  api_key: {third}\n"
    )
    reviewed = "config/settings.yml"
    assert _found_by_policy(reviewed, text) == []
    for path in (".memory/memories/x.yaml", ".memory/journal/session.jsonl"):
        assert len(_found_by_policy(path, text)) == 5, path
    typed = [f.rule for f in scan(text, "<stdin>", TYPED) if f.rule != "hidden-unicode"]
    assert len(typed) == 5
    assert policy(reviewed, reviewed, text).records  # the file people review is read as one
