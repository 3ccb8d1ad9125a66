"""What a value's surroundings say it is (issue 32, point 7, round 37).

Found on batch 21 of benchmarks/realcode_repos.txt (client libraries of services with published key
formats, scanned once before it was looked at): Shopify's REST examples keep an API's responses in
its tests' mocks, records of checkouts and orders whose ``token`` and ``cart_token`` name the
resource (798 places); Twilio's reference shows an RSA key cut short after 48 bytes, in 24
docstrings. A record's token and a key's first bytes are no secret; a credential beside them, a
token in an object that is no record, and a key with its private part are found. Every value is
drawn at run time.
"""

from __future__ import annotations

import base64
import random
import string
import subprocess
from pathlib import Path

import pytest

from gitmem.scan import scan_text
from gitmem.scan.engine import Finding
from gitmem.scan.kinds import CODE, PROSE
from gitmem.scan.policy import LOG, TYPED, policy, scan
from tests.random_values import random_value

HEX = "0123456789abcdef"
ALNUM = string.ascii_letters + string.digits


@pytest.fixture
def rng(request: pytest.FixtureRequest) -> random.Random:
    return random.Random(f"37:{request.node.nodeid}")


def _record(rng: random.Random, value: str, padding: int = 0) -> str:
    fields = ", ".join(f'"note_{n}": "{random_value(rng, 12, HEX)}"' for n in range(padding))
    return (
        '{"orders": [{"id": 450789469, "email": "bob@example.com", '
        f'"cart_token": "{value}", "billing_address": {{"city": "Ottawa", "zip": "K2P 1L4"}}, '
        f'{fields}{", " if fields else ""}"created_at": "2012-10-12T07:05:27-04:00"}}]}}'
    )


def _in_file(text: str, path: str) -> list[Finding]:
    """``text`` scanned as the hook and ``gitmem scan`` scan a repository's file at ``path``."""
    return scan(text, path, policy(path, path, text))


@pytest.mark.parametrize("padding", [0, 60, 120])
def test_a_stored_records_token_names_the_resource(rng: random.Random, padding: int) -> None:
    """An object with an ``id`` and a date and time is a stored resource's record, as an API returns
    it and a test's mock keeps it: its tokens name the resource. Its members are read however far
    apart (120 more members: some 5,400 characters, as far as GitHub's repository record holds its
    temp_clone_token from its id), in JSON, a JavaScript object, a Python dict or
    a Ruby hash."""
    token = random_value(rng, 32, HEX)
    texts = (
        f"queueMockResponse(JSON.stringify({_record(rng, token, padding)}));",
        f"RESPONSE = {_record(rng, token, padding)}",
        f'order = {{ id: 42, cart_token: "{token}", created_at: "2024-03-01 10:00:00" }}',
        f'order = {{ :id => 42, :cart_token => "{token}", :created_at => "2024-03-01T10:00:00Z" }}',
    )
    for text in texts:
        assert _in_file(text, "test/order.test.ts") == [], text[:80]


def test_a_token_beside_a_record_or_in_an_object_that_is_none_is_found(
    rng: random.Random,
) -> None:
    """The record's own members decide: an ``id`` and a time in an object the value's object
    holds (or that holds it) make no record of it, nor does an ``id`` without a time, a
    ``userId`` (a cached login's owner), or a time alone (a token's expiry). A provider's format is
    found in a record as anywhere."""
    token = random_value(rng, 32, HEX)
    found = (
        f'{{"user": {{"id": 1, "created_at": "2012-10-12T07:05:27Z"}}, "cart_token": "{token}"}}',
        f'{{"cart_token": "{token}", "owner": {{"id": 1, "created_at": "2012-10-12T07:05:27Z"}}}}',
        f'{{"id": 1, "cart_token": "{token}", "expires_in": 7200}}',
        f'{{"userId": "a@example.com", "refreshToken": "{token}", '
        '"expiresOn": "2024-03-01 10:00:00.000"}',
        f'{{"access_token": "{token}", "expires_at": "2024-03-01T10:00:00Z"}}',
    )
    for text in found:
        assert [f.rule for f in _in_file(text, "cache.json")] == ["generic-secret"], text
    live = "ghp_" + random_value(rng, 36, ALNUM)
    text = f'{{"id": 1, "token": "{live}", "created_at": "2012-10-12T07:05:27Z"}}'
    assert [f.rule for f in _in_file(text, "cache.json")] == ["github-pat"]


def test_a_record_in_a_log_a_memory_or_pasted_text_is_a_live_answer(rng: random.Random) -> None:
    """A record is a fixture only in a file people review. In a session log or an agent's
    transcript it is what an API answered, its token as real as any; in a memory, or text pasted
    into ``gitmem scan -``, nobody has said otherwise: found, as by every reader that scans with
    the defaults (a memory's check, a proposal, the journal)."""
    token = random_value(rng, 32, HEX)
    text = f'{{"id": 7, "cart_token": "{token}", "created_at": "2024-03-01T10:00:00Z"}}\n'
    assert _in_file(text, "test/fixtures/order.json") == []
    for how in (
        LOG,
        TYPED,
        policy(".memory/journal/2026-12.jsonl", "x", text),
        policy(".memory/memories/orders.yaml", "x", text),
    ):
        assert [f.rule for f in scan(text, "x", how)] == ["generic-secret"], how
    assert [f.rule for f in scan_text(text)] == ["generic-secret"]


def _pem(der: bytes, label: str, cut: int | None = None) -> str:
    body = base64.b64encode(der).decode()
    if cut is not None:
        body = body[:cut] + "."
    lines = "\n".join(body[i : i + 64] for i in range(0, len(body), 64))
    return f"-----BEGIN {label}-----\n{lines}\n-----END {label}-----\n"


@pytest.fixture(scope="module")
def rsa_keys(tmp_path_factory: pytest.TempPathFactory) -> dict[str, bytes]:
    """A 2048-bit RSA key, made now, in PKCS#1 and PKCS#8 DER."""
    work = tmp_path_factory.mktemp("rsa")
    pkcs8 = work / "key.der"
    subprocess.run(
        [
            "openssl",
            "genpkey",
            "-algorithm",
            "RSA",
            "-pkeyopt",
            "rsa_keygen_bits:2048",
            "-outform",
            "DER",
            "-out",
            str(pkcs8),
        ],
        check=True,
        capture_output=True,
    )
    pkcs1 = work / "key1.der"
    subprocess.run(
        [
            "openssl",
            "rsa",
            "-inform",
            "DER",
            "-in",
            str(pkcs8),
            "-outform",
            "DER",
            "-traditional",
            "-out",
            str(pkcs1),
        ],
        check=True,
        capture_output=True,
    )
    return {"RSA PRIVATE KEY": Path(pkcs1).read_bytes(), "PRIVATE KEY": pkcs8.read_bytes()}


def test_an_rsa_key_cut_within_its_modulus_is_no_key(rsa_keys: dict[str, bytes]) -> None:
    """An RSA key's DER begins with the public modulus; a block that ends within it (Twilio's
    reference: 64 characters and a full stop) holds no private part. The same key whole, or cut
    after its modulus, is found, in PKCS#1 and PKCS#8."""
    for label, der in rsa_keys.items():
        for cut in (64, 128, 300):
            assert scan_text(_pem(der, label, cut), "credential.py", kind=CODE) == [], (label, cut)
        for cut in (None, 420, 1200):
            found = scan_text(_pem(der, label, cut), "credential.py", kind=CODE)
            assert [f.rule for f in found] == ["private-key"], (label, cut)


def test_a_short_key_of_another_kind_is_judged_as_ever(rng: random.Random) -> None:
    """An EC key puts its secret first: 48 bytes of one are a secret's, and found."""
    scalar = bytes(rng.randrange(256) for _ in range(32))
    der = (
        bytes.fromhex("307702010104")
        + bytes([32])
        + scalar
        + bytes.fromhex("a00a06082a8648ce3d030107")
    )
    found = scan_text(_pem(der, "EC PRIVATE KEY", 64), "credential.py", kind=CODE)
    assert [f.rule for f in found] == ["private-key"]


def test_reading_a_values_object_costs_little_beside_judging_the_value() -> None:
    """A value's object is read back to its opening brace and on to its closing one, within a reach
    of characters and of braces: values on every line with braces all around cost per byte at most
    three times what the same values cost on lines of their own (whose cost tests/test_scan_cost.py
    bounds)."""
    from tests.cpu import least_cpu
    from tests.test_scan_cost import _sized

    size = 64_000

    def cpu(text: str, runs: int = 1) -> float:  # as the hook scans a reviewed file
        return least_cpu(lambda: scan_text(text, kind=CODE, records=True), runs)

    def token(n: int) -> str:
        return f"{random.Random(n).getrandbits(128):032x}"

    lines = range(2000)  # 64,000 characters of each: many times the reach
    plain = _sized("\n".join(f'cart_token: "{token(n)}"' for n in lines), size)
    cases = {
        "a record's token in every object": "".join(
            f'{{"id": {n}, "cart_token": "{token(n)}", "created_at": "2012-10-12T07:05:27Z"}}, '
            for n in lines
        ),
        "a token in nested objects on every line": "\n".join(
            f'{{"a": {{"b": {{"cart_token": "{token(n)}"}}}}}}' for n in lines
        ),
        "a token before a run of opening braces": "\n".join(
            f'{{"cart_token": "{token(n)}" ' + "{" * 200 for n in lines
        ),
        "a token after a run of closed objects": "\n".join(
            "{" + "{}" * 200 + f' "cart_token": "{token(n)}"}}' for n in lines
        ),
        "an API description's tokens, each line more indented": "openapi: 3.0.0\n"
        + "\n".join(" " * (n % 400) + f'cart_token: "{token(n)}"' for n in lines),
        "an API description's tokens under examples": "openapi: 3.0.0\nexamples:\n"
        + "\n".join(f'  - cart_token: "{token(n)}"' for n in lines),
    }
    cpu(plain)  # warm up
    slow = []
    for name, text in cases.items():
        text = _sized(text, size)
        for runs in (1, 3, 5):  # measured again when over: one busy moment is not a fail
            ratio = cpu(text, runs) / len(text) / (cpu(plain, runs) / len(plain))
            if ratio <= 3.0:
                break
        else:
            slow.append(f"{name}: {ratio:.1f}x")
    assert not slow, slow


def test_a_restructuredtext_roles_text_is_no_credential(rng: random.Random) -> None:
    """sphinx's production lists refer to a grammar's tokens with a role (``:token:`~MyTitle
    <P1:A>```, batch 23), and a guide names the role in prose: the role's name is no credential's,
    for the prose rule and the name-and-value one alike. The same value after a credential's name
    and a colon, no role, is found."""
    value = random_value(rng, 20, ALNUM)
    for text in (
        "- Tilde explicit title P1:A: :token:`~MyTitle <P1:A>`",
        "not a reStructuredText role (`:token:`~MyTitle``, a reference)",
        f"See :token:`{value}` in the grammar.",
    ):
        assert scan_text(text, "index.rst", kind=PROSE) == [], text
    assert scan_text(f"my token: `{value}`", "notes.md", kind=PROSE)


def _api_description(value: str, header: str = "openapi: 3.0.3\n") -> str:
    """An OpenAPI document as spree's API reference writes one: an OAuth response's example under
    ``examples``, a list of carts under ``example``, a request's under ``x-examples``."""
    return (
        f"{header}info:\n  title: Storefront API\npaths:\n  /oauth/token:\n    post:\n"
        "      responses:\n        '200':\n          content:\n            application/json:\n"
        "              examples:\n                Storefront User Token:\n                  value:\n"
        f"                    access_token: {value}\n                    token_type: Bearer\n"
        "                    expires_in: 7200\n  /carts:\n    get:\n      responses:\n"
        "        '200':\n          content:\n            application/json:\n"
        "              example:\n                data:\n                - id: cart_UkLWZg9DAJ\n"
        f"                  token: {value}\n                  state: cart\n"
        "components:\n  schemas:\n    Token:\n      x-examples:\n        create token:\n"
        f"          refresh_token: {value}\n"
    )


def test_an_api_descriptions_examples_are_documentation(rng: random.Random) -> None:
    """An OpenAPI, Swagger or AsyncAPI document shows its requests and responses under
    ``example``, ``examples`` and ``x-examples`` (batch 28: spree's API reference, 74 places): an
    example's token is documentation, in YAML or in JSON printed with indentation."""
    token = random_value(rng, 43, ALNUM)
    for header in ("openapi: 3.0.3\n", "---\nswagger: '2.0'\n", "asyncapi: 2.6.0\n"):
        assert _in_file(_api_description(token, header), "docs/api/store.yaml") == [], header
    as_json = (
        '{\n  "openapi": "3.1.0",\n  "paths": {\n    "/oauth/token": {\n      "post": {\n'
        '        "responses": {\n          "200": {\n            "content": {\n'
        '              "application/json": {\n                "examples": {\n'
        '                  "token": {\n                    "value": {\n'
        f'                      "access_token": "{token}",\n'
        '                      "token_type": "Bearer"\n                    }\n'
        "                  }\n                }\n              }\n            }\n          }\n"
        "        }\n      }\n    }\n  }\n}\n"
    )
    assert _in_file(as_json, "openapi.json") == []


def test_a_value_outside_an_examples_block_or_an_api_description_is_found(
    rng: random.Random,
) -> None:
    """Only an examples key's block is documentation: a value after the block ends (at the
    examples key's indentation or less), a key beside it, the same text in a file that is no API
    description (a configuration with an ``examples`` section), and the same document in a session
    log or a memory are found. A credential with a provider's format is found in an example as
    anywhere."""
    token = random_value(rng, 43, ALNUM)
    after = _api_description(random_value(rng, 43, ALNUM)) + f"  x-api-token: {token}\n"
    assert [(f.rule, f.line) for f in _in_file(after, "openapi.yaml")] == [
        ("generic-secret", after.count("\n"))
    ]
    beside = "openapi: 3.0.3\nexamples:\n  a: 1\nclient_secret: " + token + "\n"
    assert [f.line for f in _in_file(beside, "openapi.yaml")] == [4]
    config = _api_description(token, header="version: 3\n")
    lines = [n for n, line in enumerate(config.split("\n"), 1) if token in line]
    assert len(lines) == 3
    assert [f.line for f in _in_file(config, "settings.yaml")] == lines
    text = _api_description(token)
    for how in (LOG, policy(".memory/memories/api.yaml", "x", text)):
        assert [f.line for f in scan(text, "x", how)] == lines, how
    live = "ghp_" + random_value(rng, 36, ALNUM)
    found = _in_file(_api_description(live), "openapi.yaml")
    assert [(f.rule, f.line) for f in found] == [("github-pat", n) for n in lines]
