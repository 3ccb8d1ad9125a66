"""What a provider publishes, and what a value's own punctuation is not (issue 32, point 7).

Found on batch 17 of benchmarks/realcode_repos.txt (AI applications, scanned once before it was
looked at) and batch 16 (mealie's saved recipe pages): PostHog's project keys, Supabase's anon key
and a CAPTCHA's site key, which their providers hand out to be public; a page's CSRF token, which
its camel case hid; the credential scope of a presigned URL, which names a key and holds none of it; a
constant passed as an argument (``password=PGVECTOR_PASS,``), a word before the escaped quote
of the JSON a sentence is in (``one password is breached\\"``) and a URL's parameter before its
fragment (``?api_key=sua_chave#web_search_exa``), each judged with a character that was not the
value's. Every value is drawn at run time, and a secret in the same place is found.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import json
import random
import string

import pytest

from gitmem.scan import scan_text
from gitmem.scan.kinds import CODE, PROSE
from tests.random_values import random_value

ALNUM = string.ascii_letters + string.digits


@pytest.fixture
def rng(request: pytest.FixtureRequest) -> random.Random:
    return random.Random(f"35:{request.node.nodeid}")


def _b64url(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


def supabase_key(rng: random.Random, role: str) -> str:
    header = _b64url(json.dumps({"alg": "HS256", "typ": "JWT"}).encode())
    claims = {"iss": "supabase", "ref": random_value(rng, 20, string.ascii_lowercase), "role": role}
    payload = _b64url(json.dumps(claims | {"iat": 1719257579, "exp": 2034833579}).encode())
    key = random_value(rng, 40, ALNUM).encode()
    signature = _b64url(hmac.new(key, f"{header}.{payload}".encode(), hashlib.sha256).digest())
    return f"{header}.{payload}.{signature}"


@pytest.mark.parametrize(
    "line",
    [
        'const POSTHOG_API_KEY = "{v}";',
        'PROJECT_API_KEY = "{v}"',
        '{{"event": "$pageview", "api_key": "{v}"}}',
    ],
)
def test_a_posthog_project_key_is_public_and_a_personal_key_is_not(
    rng: random.Random, line: str
) -> None:
    """PostHog's project keys (phc_) only send events and sit in every page that sends them (mem0's
    telemetry, crewai's recorded requests); its personal keys (phx_) read a project's data."""
    value = random_value(rng, 43, ALNUM)
    assert scan_text(line.format(v=f"phc_{value}"), "telemetry.ts", kind=CODE) == []
    assert scan_text(line.format(v=f"phx_{value}"), "telemetry.ts", kind=CODE)


@pytest.mark.parametrize("name", ["SUPABASE_PUBLIC_API_KEY", "SUPABASE_ANON_KEY", "token"])
def test_supabase_s_anon_key_is_public_and_its_service_key_is_not(
    rng: random.Random, name: str
) -> None:
    """langgraph's CLI ships its Supabase project's anon key: a browser holds it, row-level
    security decides what it may do. The service_role key bypasses that."""
    assert scan_text(f'{name} = "{supabase_key(rng, "anon")}"', "constants.py", kind=CODE) == []
    assert scan_text(f'{name} = "{supabase_key(rng, "service_role")}"', "constants.py", kind=CODE)


def test_a_presigned_url_s_credential_scope_is_no_credential(rng: random.Random) -> None:
    """pinecone's notebooks print signed Google Cloud Storage URLs: X-Goog-Credential is the
    signing account, a date, a region and a service, as AWS's X-Amz-Credential is (Signature
    Version 4). The signature in the same URL is one request's, and expires."""
    account = f"{random_value(rng, 12, string.ascii_lowercase)}%40proj.iam.gserviceaccount.com"
    scope = f"{account}%2F20250220%2Fauto%2Fstorage%2Fgoog4_request"
    signature = random_value(rng, 256, "0123456789abcdef")
    google = (
        "https://storage.googleapis.com/files/a.pdf?X-Goog-Algorithm=GOOG4-RSA-SHA256"
        f"&X-Goog-Credential={scope}"
        f"&X-Goog-Date=20250220T183837Z&X-Goog-Expires=3600&X-Goog-Signature={signature}"
    )
    assert scan_text(f"signed_url='{google}'", "notebook.ipynb", kind=CODE) == []
    assert scan_text(f"Open {google} to read it.", "README.md", kind=PROSE) == []
    # the same parameter holding anything else is judged as any credential
    secret = random_value(rng, 40, ALNUM)
    assert scan_text(google.replace(scope, secret), "notebook.ipynb", kind=CODE)


def test_a_comma_that_ends_an_argument_is_not_the_value_s(rng: random.Random) -> None:
    """mem0's tests pass ``password=PGVECTOR_PASS,``: a constant's name, judged as a value with its
    comma (``PGVECTOR_PASS,`` is no name). An ellipsis stays: a value cut short is no secret."""
    call = "store = PGVector(\n    host=PGVECTOR_HOST,\n    password={v},\n    dbname=DB,\n)\n"
    assert scan_text(call.format(v="PGVECTOR_PASS"), "test_store.py", kind=CODE) == []
    assert scan_text(call.format(v=random_value(rng, 16, ALNUM)), "test_store.py", kind=CODE)
    elided = f'"refresh_token": "0.{random_value(rng, 40, ALNUM)}..."'
    assert scan_text(elided, "test_oauth.py", kind=CODE) == []


def test_a_quote_s_escape_ends_a_value_in_prose(rng: random.Random) -> None:
    """anthropic-cookbook's fine-tuning set, JSON lines of JSON: ``if one password is
    breached\\"`` read the escape's backslash as the value's last character, and a word with a
    backslash looked typed at random. Two backslashes are one of the value's."""
    line = '{"explanation": "Prevents multiple account compromises if one password is breached\\"}'
    assert scan_text(line, "dataset.jsonl", kind=PROSE) == []
    value = f"{random_value(rng, 12, ALNUM)}{rng.randint(0, 9)}{random_value(rng, 12, ALNUM)}"
    assert scan_text(f'{{"text": "use the token {value}\\" now"}}', "d.jsonl", kind=PROSE)
    doubled = f"{value[:5]}\\\\{value[5:]}"
    found = scan_text(f'{{"text": "the password is {doubled}\\" now"}}', "d.jsonl", kind=PROSE)
    assert [f.preview.endswith(f"({len(doubled)} chars)") for f in found] == [True]


@pytest.mark.parametrize("name", ["recaptchaSiteKey", "RECAPTCHA_SITE_KEY", "turnstileSiteKey"])
def test_a_captcha_s_site_key_is_public_and_its_secret_key_is_not(
    rng: random.Random, name: str
) -> None:
    """mealie's saved recipe pages hold ``recaptcha:{recaptchaSiteKey: "6Le…"}``: the site key is
    the half of a CAPTCHA's pair every page that shows one sends; the secret key, of the same
    shape, is the server's."""
    value = f"6Le{random_value(rng, 37, ALNUM + '_-')}"
    assert scan_text(f'recaptcha:{{{name}: "{value}",}}', "page.html", kind=CODE) == []
    secret = name.replace("Site", "Secret").replace("SITE", "SECRET")
    assert scan_text(f'recaptcha:{{{secret}: "{value}",}}', "page.html", kind=CODE)


@pytest.mark.parametrize("name", ["CSRFToken", "XSRFToken", "csrfToken"])
def test_an_acronym_s_end_is_a_word_s_end_in_a_camel_case_name(
    rng: random.Random, name: str
) -> None:
    """``{ "CSRFToken": "06af…" }`` in a saved page read as one word ending in "token": an acronym
    ends before the capital that starts the next word (``CSRFToken`` is CSRF, token; ``APIKey``
    api, key). A page's anti-forgery token is no credential."""
    value = random_value(rng, 32, "0123456789abcdef")
    assert scan_text(f'$.extend(data, {{ "{name}": "{value}" }})', "page.html", kind=CODE) == []
    for secret in ("APIKey", "JWTSecret", "OAuthToken"):
        assert scan_text(f'{{ "{secret}": "{random_value(rng, 32, ALNUM)}" }}', "a.js", kind=CODE)


def test_a_query_s_parameter_ends_at_the_fragment_in_prose(rng: random.Random) -> None:
    """crewai's Portuguese docs, in 39 versions: ``https://mcp.exa.ai/mcp?api_key=sua_chave#web_
    search_exa`` ("your key") was read with its fragment, and a placeholder of words and a "#"
    looked random. In a URL the fragment and the next parameter are not the value's; in a sentence
    a "#" is a password's as any symbol."""
    url = "https://mcp.exa.ai/mcp?api_key={v}#web_search_exa"
    assert scan_text(f"Conecte em {url.format(v='sua_chave')}", "dsl.mdx", kind=PROSE) == []
    # a parameter too short to be a value is not read again as a sentence's (miniflux's README)
    fever = "curl -s 'https://miniflux.example.com/fever/?api_key=TOKEN&groups'"
    assert scan_text(fever, "README.md", kind=PROSE) == []
    value = f"{random_value(rng, 12, ALNUM)}{rng.randint(0, 9)}{random_value(rng, 12, ALNUM)}"
    found = scan_text(f"Connect to {url.format(v=value)} now", "dsl.mdx", kind=PROSE)
    assert [f.preview.endswith(f"({len(value)} chars)") for f in found] == [True]
    password = f"{value[:6]}#{value[6:]}"
    found = scan_text(f"The staging password is {password} now.", "notes.md", kind=PROSE)
    assert [f.preview.endswith(f"({len(password)} chars)") for f in found] == [True]


def test_a_credentials_name_in_its_place_is_no_password(rng: random.Random) -> None:
    """listmonk's API docs, 24 times: ``curl -u 'api_username:access_token'``. A password that
    spells a credential's name (a token, an API key, a secret, a password) stands in for one; a
    password drawn at random does not spell one, and is found in the same place."""
    for stand_in in ("access_token", "API_KEY", "my-apikey", "the_secret"):
        text = f"curl -u 'api_username:{stand_in}' -X DELETE 'http://localhost:9000/api/lists/1'"
        assert scan_text(text, "lists.md", kind=PROSE) == [], stand_in
        assert scan_text(f"redis://app:{stand_in}@cache:6379/0", "app.cfg", kind=CODE) == []
    password = random_value(rng, 16, ALNUM)
    text = f"curl -u 'api_username:{password}' -X DELETE 'http://localhost:9000/api/lists/1'"
    assert [f.rule for f in scan_text(text, "lists.md", kind=PROSE)] == ["curl-basic-auth"]


def test_a_search_boxs_key_beside_its_index_is_public(rng: random.Random) -> None:
    """A documentation site's search box (Algolia DocSearch, create-t3-app's site config) loads
    its search-only key in every reader's browser, with the index it searches. The same key with
    no index named, a key named as an admin's or a writer's, or a value of another shape beside an
    index's name, is a secret."""
    key = random_value(rng, 32, "0123456789abcdef")
    published = (
        f'export const ALGOLIA = {{\n  indexName: "acme",\n  appId: "0LE5592BV4",\n  apiKey: "{key}",\n}};',
        f"algolia:\n  appId: 0LE5592BV4\n  apiKey: {key}\n  indexName: acme-docs\n",
        f"NEXT_PUBLIC_ALGOLIA_SEARCH_KEY={key}\nNEXT_PUBLIC_ALGOLIA_INDEX_NAME=acme\n",
    )
    for text in published:
        assert scan_text(text, "config.ts", kind=CODE) == [], text
    secret = (
        f'const algolia = {{ appId: "0LE5592BV4", apiKey: "{key}" }};',
        f'const algolia = {{ indexName: "acme", adminApiKey: "{key}" }};',
        f"ALGOLIA_WRITE_API_KEY={key}\nALGOLIA_INDEX_NAME=acme\n",
        f'const algolia = {{ indexName: "acme", apiKey: "{random_value(rng, 32, ALNUM)}" }};',
    )
    for text in secret:
        assert [f.rule for f in scan_text(text, "config.ts", kind=CODE)] == ["generic-secret"], text


def test_a_translations_strings_are_text_people_are_shown(rng: random.Random) -> None:
    """flutter's gallery translates a form's label (its name ``demoTextFieldPassword``, in Catalan
    ``Contrasenya*``) into 80 languages (batch 20, six of them found). A translation file's strings are what people
    are shown: a name and its value there are no credential. A provider's key is found in one as
    anywhere, and the same lines in code, a translation's code included, are judged as any value is
    (round 45: "password" in Catalan is a stand-in wherever it is)."""
    from gitmem.scan.inputs import Settings, Source, findings_in

    line = '  "{}": "{}",\n'.format
    label = line("demoTextField" + "Password", "Contra" + "senya*")
    drawn = line("demoTextField" + "Password", random_value(rng, 12, ALNUM) + "*")
    for path in ("lib/l10n/intl_ca.arb", "locales/ca.json", "config/locales/ca-ES.yml"):
        for text in (label, drawn):
            assert findings_in(Source(path, text, root_relative=path), Settings()) == [], path
    token = "ghp_" + random_value(rng, 36, ALNUM)
    found = findings_in(
        Source("locales/ca.json", f'"t": "{token}"\n', root_relative="locales/ca.json"), Settings()
    )
    assert [f.rule for f in found] == ["github-pat"]
    # the same line in code, or in a translation's code (which may set a service up), is judged:
    # "password" in Catalan is a stand-in there too, a drawn value is found
    for path in ("lib/form.dart", "src/i18n/index.ts"):
        assert findings_in(Source(path, label, root_relative=path), Settings()) == [], path
        found = findings_in(Source(path, drawn, root_relative=path), Settings())
        assert [f.rule for f in found] == ["generic-secret"], path


def test_a_value_made_of_its_names_words_is_a_name(rng: random.Random) -> None:
    """A setting's key that names itself (pocket-casts' ``END_OF_YEAR_SHOW_MODAL_2025_KEY =
    "EndOfYearModalShowModal2025Key"``, bitwarden's ``wrappedPrivateKey = "v2PrivateKey"``,
    logto's ``accessKeySecret: 'accessKeySecret+cltHAJ'``) holds two of its name's words side by
    side, and they are most of it. A random value holds no two; one whose random part follows them
    is mostly that part, and is found."""
    for text in (
        'private const val END_OF_YEAR_SHOW_MODAL_2025_KEY = "EndOfYearModalShowModal2025Key"',
        'wrappedPrivateKey = "v2PrivateKey",',
        "accessKeySecret: 'accessKeySecret+cltHAJ',",
    ):
        assert scan_text(text, "Settings.kt", kind=CODE) == [], text
    tail = random_value(rng, 32, ALNUM)
    for text in (
        f'bedrock_api_key = "bedrock-api-key-{tail}"',
        f"accessKeySecret: 'accessKey{tail}',",
    ):
        assert [f.rule for f in scan_text(text, "Settings.kt", kind=CODE)] == ["generic-secret"], (
            text
        )
