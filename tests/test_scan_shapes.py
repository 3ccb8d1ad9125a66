"""Shapes of credentials the peers' published tests hold and the rules did not know (issue 26, last round): a log line
printing the key in use, curl's options on the lines a backslash continues, ``curl -u KEY:``, a name and its value
given as two strings, a URL's ``key=`` parameter, and providers' formats. Every token is made here, at run time."""

from __future__ import annotations

import base64
import random
import string

import pytest

from gitmem.scan import scan_text
from gitmem.scan.engine import CONTINUED_LINES, _continued
from gitmem.scan.filters import logged_secret_name
from gitmem.scan.kinds import CODE, PROSE

_rng = random.Random(2603)
ALNUM = string.ascii_letters + string.digits
HEX = "0123456789abcdef"


def made(n: int = 36, alphabet: str = ALNUM) -> str:
    return "".join(_rng.choice(alphabet) for _ in range(n))


def rules(text: str, kind: str = CODE) -> list[str]:
    return [finding.rule for finding in scan_text(text, "config.cfg", kind=kind)]


# -- log lines ------------------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "line",
    [
        "[DEBUG] Using Key={}",
        "\t\t[DEBUG] Using acme KEY={}",
        "2026-05-01 12:00:03 [info] sending request: using key = {}",
        "[DEBUG] Using Old Format acme Key={}",
        "[DEBUG] phrase token2 = '{}'",
        "[WARN] Admin Key={}",
        "DEBUG:root:connecting with secret={}",
    ],
)
@pytest.mark.parametrize("kind", [CODE, PROSE])
def test_a_credential_a_log_line_prints_is_found(line: str, kind: str) -> None:
    secret = made(40)
    text = (
        "[INFO] Sending request to the API\n"
        + line.format(secret)
        + "\n[INFO] Response received: 200 OK\n"
    )
    found = scan_text(text, "build.cfg", kind=kind)
    assert [f.rule for f in found] == ["secret-in-log"]
    assert text[found[0].start : found[0].end] == secret


@pytest.mark.parametrize(
    "line",
    [
        "[DEBUG] Using ID={}",  # an identifier, not a credential
        "[DEBUG] cacheKey={}",  # a data structure's key
        "[DEBUG] Using public key={}",
        "[DEBUG] Using Email={}",
        "[DEBUG] token_url=https://auth.example.org/{}",
        "[DEBUG] Using Key=${{ACME_KEY}} {}",
        "[DEBUG] Using Key=production-eu-west {}",
        "Using Key={}",  # no log level: an assignment of a word's name, judged elsewhere
    ],
)
def test_a_log_line_without_a_credential_is_quiet(line: str) -> None:
    assert "secret-in-log" not in rules(line.format(made(40)))


def test_a_logged_name_says_credential_with_a_key_alone_or_after_a_service() -> None:
    for name in (
        "Key",
        "KEY",
        "Using Key",
        "acme KEY",
        "Secret",
        "phrase token1",
        "Admin Key",
        "api_key",
        "password",
    ):
        assert logged_secret_name(name), name
    for name in (
        "ID",
        "Email",
        "cacheKey",
        "partition key",
        "public key",
        "token_url",
        "host",
        "Used",
    ):
        assert not logged_secret_name(name), name


# -- curl -----------------------------------------------------------------------------------------------------------


def test_curl_options_on_continued_lines_are_found() -> None:
    password, key, basic = made(16), made(36), made(40)
    user = (
        "curl -k -X POST https://api.example.org/v1/items \\\n  -H 'Content-type: text/plain' \\\n"
    )
    user += f"  -u deploy:{password}\n"
    header = (
        f'curl -X GET \\\r\n     -H "apikey: {key}" \\\r\n     -H "Accept: application/json"\r\n'
    )
    comment = f"#curl -X POST \\\n#  https://api.example.org/messages \\\n#  -H 'Authorization: Basic {basic}' \\\n"
    assert rules(user) == ["curl-basic-auth"]
    assert rules(header) == ["curl-auth-header"]
    assert rules(comment) == ["curl-auth-header"]


def test_a_line_without_a_backslash_ends_the_command() -> None:
    text = f"curl -X POST https://api.example.org/v1/items\n  -u deploy:{made(16)}\n"
    assert rules(text) == []


def test_a_continued_window_stops_after_its_bound_and_at_a_line_without_a_backslash() -> None:
    text = "curl \\\n" + "  -d a=1 \\\n" * (CONTINUED_LINES + 5) + "  -d b=2\nnext\n"
    [(start, end)] = _continued(text, [(0, text.index("\n"))])
    assert start == 0 and text[:end].count("\n") == CONTINUED_LINES
    short = "curl \\\n  -d a=1\nnext line\n"
    assert _continued(short, [(0, 6)]) == [(0, short.index("next") - 1)]


def test_curl_with_an_api_key_as_the_user_and_no_password() -> None:
    key = made(24)
    assert rules(f"curl https://api.example.org/v1/charges -u {key}:") == ["curl-token-user"]
    assert rules(f'curl -u "{key}:" https://localhost:9200') == ["curl-token-user"]
    assert rules(f'curl -u ":{made(14)}" https://localhost:9200') == ["curl-basic-auth"]
    assert rules("curl -u deploy-bot: https://example.org") == []
    assert rules(f'curl -u "{key}" https://example.org') == []  # curl asks for the password
    assert rules("curl -u $ACME_API_KEY: https://example.org") == []


# -- generic: a name and its value as two strings --------------------------------------------------------------------


def test_a_name_and_its_value_given_as_two_strings() -> None:
    value = made(40)
    assert rules(f'{{ "AccountKey", "{value}" }},') == ["generic-secret"]
    assert rules(f'req.Header.Set("X-Acme-Api-Key", "{value}")') == ["generic-secret"]
    assert rules(f"headers.append(('X-Auth-Token', 'Token {value}'))") == ["generic-secret"]
    assert (
        rules(f'this.Context.Add("StorageAccount", "{value}");') == []
    )  # an account's name, not a credential
    assert rules('os.environ.get("SECRET_KEY", "dev-secret-key")') == []
    assert rules('translations = [("password", "Passwort"), ("token", "Jeton")]') == []
    # a list (or set) of names, one of which says credential, holds no pair: the next string is another name
    assert (
        rules(f"INTERFACES = {{'ACAccount', 'ACAccountCredential', '{value}', 'ACAccountStore'}}")
        == []
    )


# -- a URL's key= parameter ------------------------------------------------------------------------------------------


def test_a_random_value_of_a_urls_key_parameter() -> None:
    value = made(36, string.ascii_lowercase + string.digits)
    assert rules(f'url := "https://api.example.org/v1/users?key={value}"') == ["url-key-parameter"]
    assert rules(f"https://api.example.org/v1/rates?format=json&key={value}&limit=5") == [
        "url-key-parameter"
    ]
    assert rules("https://example.org/search?key=user_profile_settings_v2") == []
    assert rules("https://storage.example.org/get?key=reports/2024/summary.csv") == []
    assert rules("https://example.org/?monkey=" + value) == []


@pytest.mark.parametrize(
    "alphabet", [ALNUM, ALNUM + "-_", string.ascii_lowercase + string.digits, HEX]
)
def test_a_key_parameter_finds_random_keys_of_every_alphabet(alphabet: str) -> None:
    """Random characters are no words, whatever their alphabet: a key of mixed case has long runs of letters too."""
    rng = random.Random(len(alphabet))
    keys = ["".join(rng.choice(alphabet) for _ in range(rng.randrange(32, 41))) for _ in range(100)]
    found = sum(
        rules(f"https://api.example.org/v1/q?key={key}") == ["url-key-parameter"] for key in keys
    )
    assert found >= 95


# -- providers' formats ----------------------------------------------------------------------------------------------


def test_providers_formats() -> None:
    b64 = ALNUM + "+/"
    cases = {
        "aws-bedrock-api-key": [
            f"AWS_BEARER_TOKEN_BEDROCK=ABSKQmVkcm9ja0FQSUtleS1{made(110, b64)}=",
            f"# expires at noon: bedrock-api-key-YmVkcm9jay5hbWF6b25hd3MuY29t{made(700, b64)}",
        ],
        "dynatrace-token": [
            f"dt0c01.{made(24, string.ascii_uppercase)}.{made(64, string.ascii_uppercase + '0123')}"
        ],
        "sourcegraph-access-token": [f"src login --token sgp_{made(40, HEX)}"],
        "sidekiq-credentials": [
            f"BUNDLE_GEMS__CONTRIBSYS__COM: {made(8, HEX)}:{made(8, HEX)}",
            f"source 'https://{made(8, HEX)}:{made(8, HEX)}@gems.contribsys.com/'",
        ],
        "harness-token": [f"harness = 'pat.{made(22)}.{made(24, HEX)}.{made(20)}'"],
        "newrelic-key": [
            f"new relic license key = '{made(32, HEX)}FFFFNRAL'",
            f"new relic mobile app token = 'AA{made(40, HEX)}-NRMA'",
            f"new relic insights query key = 'NRIQ-{made(25)}'",
        ],
        "bitbucket-datacenter-token": [f"BBDC-{made(44)}"],
        "aws-appsync-api-key": [
            f'const key = "da2-{made(26, string.ascii_lowercase + string.digits)}";'
        ],
        "azure-app-configuration-key": [
            f"Endpoint=https://cfg.azconfig.io;Id={made(4)};Secret={made(43)}="
        ],
        "maxmind-license-key": [
            f"# GeoIP.conf\nLicenseKey {made(7)}4{made(5)}9{made(3)}\n",
            f"{made(6)}_{made(29)}_mmk",
        ],
        "typeform-token": [f"typeform_token = 'tfp_{made(44)}_{made(14)}'"],
        "shippo-live-token": [f"shippo = 'shippo_live_{made(40, HEX)}'"],
        "twitter-bearer-token": ["A" * 22 + made(30) + "%2F" + made(30) + "%3D" + made(30)],
        "uuid-api-key": [
            f"snyk_token = '{made(8, HEX)}-{made(4, HEX)}-{made(4, HEX)}-{made(4, HEX)}-{made(12, HEX)}'"
        ],
    }
    for rule, texts in cases.items():
        for text in texts:
            assert rules(text) == [rule], text
    assert (
        rules(f"shippo = 'shippo_test_{made(40, HEX)}'") == []
    )  # test-mode keys are not secrets to gitmem
    assert rules("NRIQ-" + made(24)) == []  # one character short
    assert rules("A" * 22 + "B" * 90) == []
    assert rules(f"BUNDLE_GEMS__CONTRIBSYS__COM={made(8, HEX)}") == []


def test_cloudflares_scannable_credentials_are_found_without_a_name() -> None:
    """Cloudflare's scannable format (cfk_, cfut_, cfat_: 40 characters, then an 8-hex-digit checksum) says
    credential by itself, in a comment or a list as under a name; one character short or long, it is not that."""
    for prefix in ("cfk_", "cfut_", "cfat_"):
        token = f"{prefix}{made(40)}{made(8, HEX)}"
        for text in (f"# rotated to {token} on Monday", f"tokens:\n  - {token}\n"):
            assert rules(text) == ["cloudflare-api-token"], text
        for wrong in (token[:-1], token + "a"):
            assert rules(f"# rotated to {wrong} on Monday") == []


def test_anthropic_keys_and_gitlab_application_secrets_have_their_published_length() -> None:
    """An Anthropic API or admin key is 93 characters and "AA" after its prefix; a GitLab OAuth application
    secret (gloas-) 64. Found without a name in a comment; shorter, longer or with another ending, the value
    is not that provider's key (under a credential's name the generic rule still judges it)."""
    urlsafe = ALNUM + "-_"
    for prefix in ("sk-ant-api03-", "sk-ant-admin01-"):
        key = f"{prefix}{made(93, urlsafe)}AA"
        assert rules(f"# rotated {key} today") == ["anthropic-api-key"], key
        for wrong in (
            f"{prefix}{made(61, urlsafe)}AA",
            f"{prefix}{made(93, urlsafe)}BB",
            key + "A",
        ):
            assert rules(f"# rotated {wrong} today") == [], wrong
    secret = f"gloas-{made(64, HEX)}"
    assert rules(f"# rotated {secret} today") == ["gitlab-token"]
    for wrong in (secret[:38], secret + "a"):
        assert rules(f"# rotated {wrong} today") == [], wrong


def test_githubs_stateless_installation_tokens_are_found() -> None:
    """GitHub App installation tokens issued since 2026-05-15: ghs_, the app's id, "_" and a signed JWT (some 520
    characters, dots inside), found where the older 36-character ones are; without the JWT's three parts, not."""
    urlsafe = ALNUM + "-_"
    jwt = f"eyJ{made(33, urlsafe)}.eyJ{made(300, urlsafe)}.{made(171, urlsafe)}"
    token = f"ghs_{made(7, '0123456789')}_{jwt}"
    for text in (f"installation_tokens:\n  - {token}\n", f"[DEBUG] minted {token} for the job"):
        found = scan_text(text, "config.cfg", kind=CODE)
        assert [(f.rule, text[f.start : f.end]) for f in found] == [("github-app-token", token)], (
            text
        )
    assert rules(f"  - ghs_{made(7, '0123456789')}_{made(400, urlsafe)}") == []


def test_the_rfcs_sample_websocket_key_is_a_documented_example() -> None:
    """RFC 6455's handshake example (the key that is base64 of "the sample nonce") is in every WebSocket test, as
    jwt.io's token is in every JWT one: a documented example, no secret, under whatever name."""
    sample = base64.b64encode(b"the sample nonce").decode()
    assert rules(f'c.Request.Header.Set("Sec-WebSocket-Key", "{sample}")') == []
    assert rules(f'websocket_key = "{sample}"') == []


def test_the_key_uri_formats_example_totp_secret_is_one_however_often_written() -> None:
    """Google Authenticator's Key Uri Format gives one example secret (base32 of "Hello!" and four
    bytes), and one-time-password tests copy it, once or several times end to end (authelia's PAM
    suite); another secret of that shape, or the example with a character changed, is found."""
    example = base64.b32encode(b"Hello!\xde\xad\xbe\xef").decode()
    for text in (f'totp_secret: "{example}"', f'const pamTOTPSecret = "{example * 3}"'):
        assert rules(text) == [], text
    changed = example[:-1] + ("Q" if example[-1] != "Q" else "R")
    assert rules(f'const pamTOTPSecret = "{changed * 3}"') == ["generic-secret"]
    assert rules(f'totp_secret: "{made(48, string.ascii_uppercase + "234567")}"') == [
        "generic-secret"
    ]


def test_a_long_quoted_token_and_a_value_padded_inside_its_quotes() -> None:
    """An access token of a thousand characters (three base64url parts) is a value like any other; a value pasted
    with a space or a carriage return inside its quotes is found without them."""
    urlsafe = ALNUM + "-_"
    long_token = f"{made(36, urlsafe)}.{made(300, urlsafe)}.{made(680, urlsafe)}"
    found = scan_text(f"acme_token = '{long_token}'", "config.cfg", kind=CODE)
    assert [f.rule for f in found] == ["generic-secret"] and found[0].end - found[0].start == len(
        long_token
    )
    padded = made(40)
    for text in (f"acme_token = ' {padded} '", f"acme_token = '{padded}\r'"):
        [finding] = scan_text(text, "config.cfg", kind=CODE)
        assert text[finding.start : finding.end] == padded
    assert (
        rules(f"acme_token = '{made(2100, urlsafe)}'") == []
    )  # beyond any token's length: data, not a secret
    assert rules("acme_token = ' changeme '") == []


@pytest.mark.parametrize("kind", [CODE, PROSE])
def test_a_secret_key_named_skey_is_found(kind: str) -> None:
    """Duo's configurations name the secret key ``skey`` beside the integration key ``ikey``
    (``DUO_SKEY=…``, ``"duo_skey": "…"``, an INI's ``skey = …``); the integration key alone is an
    identifier."""
    secret = made(40)
    for line in (f"DUO_SKEY={secret}", f'"duo_skey": "{secret}"', f"skey = {secret}"):
        assert rules(line, kind) == ["generic-secret"], line
    assert rules(f"ikey = DI{made(18, string.ascii_uppercase)}", kind) == []
