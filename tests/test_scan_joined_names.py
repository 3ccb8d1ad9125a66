"""A key's name is not a credential, whatever it is assigned to (issue 32, point 7).

``const heartbeatKey = "billing-service:v4:legacy-usage-export:heartbeat:v1"`` was blocked: ``heartbeat`` is not a
data structure's word, so "<word>Key" read as a service's key, and the value, long and varied, as random. A list of
words always misses the next one; the value's shape decides: lower-case words and version segments joined by
colons, slashes, dots or dashes name something. Generated here from words, versions and separators at run time;
random values of the same length under the same names are still found.
"""

from __future__ import annotations

import random

from gitmem.scan import scan_text
from gitmem.scan.kinds import CODE, PROSE

WORDS = (
    "service",
    "billing",
    "legacy",
    "usage",
    "export",
    "heartbeat",
    "quota",
    "window",
    "sync",
    "job",
    "payments",
)
WORDS += (
    "webhook",
    "retry",
    "dead",
    "letter",
    "checkout",
    "flow",
    "rate",
    "limit",
    "session",
    "refresh",
    "queue",
)
NAMES = (
    "heartbeatKey",
    "lockKey",
    "HEARTBEAT_KEY",
    "metricKey",
    "topic_key",
    "cacheKey",
    "redisKey",
    "leaseKey",
)
FORMS = (
    'const {n} = "{v}";',
    '{n}: "{v}"',
    "{n} = '{v}'",
    'private static final String {n} = "{v}";',
)


def joined(rng: random.Random) -> str:
    pieces = []
    for _ in range(rng.randint(4, 6)):
        kind = rng.random()
        if kind < 0.25:
            pieces.append(f"v{rng.randint(1, 12)}")
        elif kind < 0.35:
            pieces.append(str(rng.randint(1, 2026)))
        else:
            pieces.append("-".join(rng.sample(WORDS, rng.randint(1, 2))))
    pieces[0] = rng.choice(WORDS)  # a namespace first
    pieces[1] = rng.choice(WORDS)
    return rng.choice(":/.").join(pieces)


def test_words_and_versions_joined_are_a_name_not_a_secret() -> None:
    rng = random.Random(32)
    flagged = []
    for _ in range(300):
        value = joined(rng)
        line = rng.choice(FORMS).format(n=rng.choice(NAMES), v=value)
        for kind in (CODE, PROSE):
            if scan_text(line, kind=kind):
                flagged.append((kind, line))
    assert not flagged, flagged[:5]


def test_the_issue_s_line() -> None:
    value = ":".join(["billing-service", "v4", "legacy-usage-export", "heartbeat", "v1"])
    assert scan_text(f'const heartbeatKey = "{value}"', kind=CODE) == []


def test_random_values_under_the_same_names_are_still_found() -> None:
    rng = random.Random(7)
    alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789"
    for name in NAMES:
        if name in (
            "cacheKey",
            "redisKey",
        ):  # a data structure's key: never a credential, whatever it holds
            continue
        value = "".join(rng.choice(alphabet) for _ in range(36))
        assert scan_text(f'const {name} = "{value}";', kind=CODE), name


# ollama's conversion fixtures: a model's tensors by name, each with a digest of its weights
TENSORS = ("token_embd.weight", "token_embd_norm.bias", "token_types.weight", "blk.0.attn_k.weight")
# ... and names whose last member holds a credential, or is a key its owner says is secret
MEMBERS = ("db.password", "spring.datasource.password", "aws.secret.key", "app.jwt.token")


def test_a_dotted_name_holds_what_its_last_member_names() -> None:
    """``"token_embd.weight": "<sha256>"`` was a token: a dotted name's words were read as one
    name's. The last member names what the value is; the word before it only qualifies a key."""
    rng = random.Random(35)
    for name in TENSORS:
        digest = "".join(rng.choice("0123456789abcdef") for _ in range(64))
        assert scan_text(f'  "{name}": "{digest}",', "testdata/model.json", kind=CODE) == [], name
    alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789"
    for name in MEMBERS:
        value = "".join(rng.choice(alphabet) for _ in range(36))
        assert scan_text(f'  "{name}": "{value}",', "config.json", kind=CODE), name
        assert scan_text(f"{name}={value}", "app.properties", kind=CODE), name


# Names of things a product keys by name (a feature flag, a survey's targeting): each is a slug whose
# last piece is a short hex id, as generated names end (posthog-js' surveys: batch 24)
SLUG_NAMES = ("targeting_flag_key", "flagKey", "token", "experiment_key")


def _hex(rng: random.Random, size: int) -> str:
    value = "".join(rng.choice("0123456789abcdef") for _ in range(size))
    return (
        value
        if any(c.isdigit() for c in value) and any(c.isalpha() for c in value)
        else "9" + value[1:-1] + "a"
    )


def test_a_slug_that_ends_in_a_short_hex_id_is_a_name() -> None:
    rng = random.Random(38)
    for _ in range(100):
        words = rng.sample(WORDS, rng.randint(2, 3))
        pieces = [*words, _hex(rng, rng.randint(6, 12))]
        if rng.random() < 0.3:
            pieces.append(rng.choice(WORDS))  # a variant's name after the id: -custom
        line = f"{rng.choice(SLUG_NAMES)}: '{'-'.join(pieces)}',"
        assert scan_text(line, "t.ts", kind=CODE) == [], line


def test_a_slug_around_a_key_s_worth_of_random_characters_is_still_found() -> None:
    """A hex piece of 32 digits is an API key's length; two short hex pieces are no slug's."""
    rng = random.Random(39)
    for value in (
        f"billing-export-{_hex(rng, 32)}",
        f"billing-{_hex(rng, 12)}-{_hex(rng, 12)}-export",
    ):
        assert scan_text(f"token: '{value}',", "t.ts", kind=CODE), value


def test_the_first_part_of_a_name_code_completes_is_no_secret() -> None:
    """``const token = 'auto-identify-same-' + uuidv7()`` (posthog-js' tests): words and the joiner
    the rest is added after. A random value that ends in a joiner (base64url's ``-`` and ``_``) is
    still found."""
    rng = random.Random(40)
    for _ in range(50):
        prefix = "-".join(rng.sample(WORDS, rng.randint(2, 4))) + rng.choice("-_:")
        line = f"const token = '{prefix}' + uuidv7()"
        assert scan_text(line, "t.ts", kind=CODE) == [], line
    alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789"
    value = "".join(rng.choice(alphabet) for _ in range(30)) + "-"
    assert scan_text(f"const token = '{value}'", "t.ts", kind=CODE), value


def test_a_list_of_words_a_numbered_name_and_an_id_are_names() -> None:
    """Batch 25: 1Password's CLI takes ``--generate-password=letters,digits,symbols,32`` (a recipe);
    external-secrets' ``{SecretKey: "SERVICE_NAME-2"}`` names a key in a Kubernetes Secret, and
    ``secretUUID = "<uuid>"`` an IBM secret's id. Random values in the same places are found."""
    rng = random.Random(41)
    for _ in range(30):
        recipe = ",".join([*rng.sample(WORDS, rng.randint(2, 4)), str(rng.randint(8, 64))])
        assert scan_text(f'op("item", "--generate-password={recipe}")', kind=CODE) == [], recipe
        name = "_".join(rng.sample(WORDS, rng.randint(2, 3))).upper() + f"-{rng.randint(1, 99)}"
        assert scan_text(f'{{SecretKey: "{name}"}},', kind=CODE) == [], name
    uuid = "-".join(_hex(rng, size) for size in (8, 4, 4, 4, 12))
    uuid = uuid[:14] + "4" + uuid[15:19] + "a" + uuid[20:]
    assert scan_text(f'secretUUID = "{uuid}"', kind=CODE) == []
    assert scan_text(f'secretToken = "{uuid}"', kind=CODE)
    alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789"
    value = "".join(rng.choice(alphabet) for _ in range(32))
    assert scan_text(f"op --generate-password={value}", kind=CODE)
    assert scan_text(f'{{SecretKey: "{value}-2"}},', kind=CODE)
