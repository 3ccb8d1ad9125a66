"""Judging a candidate secret: placeholders, documented examples, entropy, and the context of
generic assignments.

Rules with a fixed token format need little judging (a placeholder or a documented example is all
that can go wrong). Generic rules (``password = …`` in code, ``TOKEN=…`` in ``.env``, "the password
is …" in prose) have no format to lean on: a candidate is kept only when its name says it is a
credential, its value is not code, a path, a placeholder, a hash or an identifier, and it has the
entropy of something chosen to be hard to guess.
"""

from __future__ import annotations

import itertools
import math
import re
from collections import Counter
from collections.abc import Callable, Iterable
from functools import cache
from typing import Literal

from gitmem.scan.lazyre import lazy

# A credential's word after a determiner, written as one word, says what goes in its place:
# mypassword, your_token, NodeBB's ?token=sometoken; and "your" anywhere in a value (YourApiKeyHere)
# is a guide speaking to its reader. One table for the stand-ins, the passwords everyone tries and
# the placeholders.
_DETERMINERS = ("my", "your", "some", "another", "the", "our", "their")
_CREDENTIAL_NOUNS = ("password", "passwd", "pass", "pwd", "secret", "token", "key", "apikey", "api")
_DETERMINED = frozenset(det + noun for det in _DETERMINERS for noun in _CREDENTIAL_NOUNS)

# Markers of a value someone wrote to stand for a secret, not a secret; and of an interpolation,
# whose value is the program's (${VAR}, {{ var }}, %(var)s, Ruby's and Elixir's #{var}).
_PLACEHOLDER_RE = lazy(
    r"example|x{4}|\*{3}|•••|placeholder|redacted|removed|dummy|change[_-]?(?:me|this)|your[_-]"
    r"|<[^>]*>"
    rf"|your(?:{'|'.join(_CREDENTIAL_NOUNS)})"
    # what to do in the value's place: REPLACE_WITH_32_CHAR_KEY, replace-this, PUT_KEY_HERE
    r"|replace[_-]?(?:me|with|this)|[_-]here\b"
    r"|\$\{|\{\{|%\(\w+\)|#\{\w|\.{3}|…|0123456789|123456789|abcdefgh|(.)\1{7}"
    r"|(?-i:[Yy]our[A-Z])"  # your in camel case: pathToYourServiceAccountJsonFile
    r"|lorem|ipsum"  # Lorem ipsum is placeholder text by definition: LoremIpsum86
    r"|\*\*[\w-]+\*\*"  # a name set in bold, in a guide's code block: **github-token**
    # <API_KEY> as JSON escapes it (Go's encoder: \u003cAPI_KEY\u003e), in a string literal too
    r"|\\+u003c\w*\\+u003e"
    # a marker a build or a deployment replaces, between hashes: #RELATIVE_TO_CHANGELOG_FILE#
    r"|(?-i:#[A-Z][A-Z0-9]*(?:_[A-Z0-9]+)+#)",
    re.IGNORECASE,
)

# sha256 (first 16 hex digits) of keys published in providers' documentation: they are in every
# tutorial.
_DOCUMENTED_EXAMPLES = frozenset(
    {
        "7f75367e78812551",  # jwt.io's sample token
        # ... and its signature (SflKxw…), which a test keeps under claims of its own: the sample
        # edited, signing nothing
        "051d093c4bdedbf2",
        # YouTube's web client's InnerTube key (AIzaSyAO_FJ2…), in every page youtube.com serves and
        # every downloader's recorded requests
        "31043aae8be22df7",
        # Bitwarden Secrets Manager's documented access token (0.48c78342-…), its CLI's example
        "e377db8ee3a4ea37",
        # scaffold-eth-2's shared Alchemy and Etherscan keys ("ours Alchemy's default API key"),
        # which every app made from the template ships until its own are set
        *("d250f040bc1f4ecd", "5cd3848e7a38b12c"),
        # Google Authenticator's Key Uri Format's two TOTP secrets (JBSWY3DP…, HXDMVJEC…)
        *("8be5d113c0871ce1", "d3873980f248ddeb"),
        "0011cc25eb432071",  # the Azure storage emulator's well-known account key
        "02bb725a5e3ae162",  # NZBGet's default control password (tegbzn6789), in every guide to it
        "aa6547439583c3a2",  # the Azure Cosmos DB emulator's well-known key (C2y6yDjf5/R+ob0N…)
        # Azure Storage's documentation's sample shared access signature (myaccount's
        # pictures/profile.jpg, sv=2012-02-12: its sig=dD80…, its URL escapes undone)
        "b4804f991484314d",
        "c540b83e89787594",  # discord.py's documentation's sample bot token
        # GitHub's documented password for a token given as a URL's user name, the same for every
        # token (https://<token>:x-oauth-basic@github.com/…: the token is the user's part)
        "737c8fcb2bfcfe13",
        # GitHub's REST API reference's example installation access token and user access token
        # (ghs_16C7e42F…, ghu_16C7e42F…), in the tests of every client of GitHub Apps' tokens
        *("797c0ce414586cc8", "82e74299544e0073"),
        # Discord's API reference's example bot token and Bearer token (Authorization: Bot
        # MTk4NjIy…, Bearer CZhtkLDp…), in every Discord library's tests of tokens
        *("02f7ce3c263f85c0", "35cd205c3caa8aa9"),
        "15cef4b629cc2d07",  # RFC 6455's sample WebSocket handshake key ("the sample nonce")
        "2598f7d6adc142d8",  # Flask's documented SECRET_KEY (its configuration docs, its tutorial)
        "9cb335cb7b5fb805",  # Flask's documented FLASK_SECRET_KEY (its configuration docs)
        # MinIO's public playground (play.min.io): the secret key and access key its every SDK's
        # README gives
        "df452eef23e8cf2c",
        "1bbb9293c38acc5e",
        "4556efab24262947",  # MinIO's documented MINIO_KMS_SECRET_KEY (after "my-minio-key:")
        # The UUID tutorials and API references print as a version 4 example (f47ac10b-58cc-…);
        # the others they print (123e4567-e89b-12d3-…, 550e8400-e29b-41d4-…) the rules pass already
        "8f400c257611ed5d",
        # The OAuth RFCs' examples, quoted by every OAuth library's docs and tests: RFC 6749's
        # client secret, access and refresh tokens and code; RFC 6750's tokens
        *("53f5da0aaa93d64c", "6c96130f130ab0d6", "00cf4c781dc37003", "a35b81a7d7927b70"),
        *("b8e148545b13c78b", "a71b359a87afde13", "9e309cccd311ea64"),
        # RFC 5849's (OAuth 1.0): the client's secret and key, the temporary and token credentials,
        # the verifier
        *("cb87c87e4a138d9a", "6aa14267d94944e6", "649e1f5c769e718b", "4c20e6f5cc11b937"),
        *("bb9b1163338b2a51", "5586407997f5e849", "293257ab6495ebb1"),
        # Twitter's OAuth 1.0a documentation ("Obtaining access tokens", "Creating a signature")
        *("74878a808fc945f0", "bfaf2b987c05e6d3", "00b3dc640c9c99fc", "5aac38e542b76b97"),
        *("0401312bb13f6aff", "616fe34ce8031621", "0e04efa6bc7d2d51", "8e0628300c16fe38"),
        # OpenID Connect Core's example access token (its refresh token is RFC 6750's, above), RFC
        # 7662's introspection example bearer token, and the client secret OAuth documentation
        # pairs with RFC 6749's client id s6BhdRkqt3 (OpenIddict's tests, Swagger samples)
        *("ad71fb4165536675", "c97b628dec750655", "e9974c507d2a8021"),
        "5cc1e9113bbaa704",  # Django REST framework's documented token ("Token 9944b091…")
        # Hardhat's and Anvil's default accounts' private keys (#0 to #9, of the mnemonic "test
        # test … junk"), which both print at every start, with 0x and without
        *("60a09e4357868c1e", "bc1a50966c9e6486", "095101cf732c298a", "8335c55334821eef"),
        *("bb4978fbe7638de8", "b26ab6529d20ebeb", "f02322197a196ceb", "64034b44c579b335"),
        *("5de22089c247b9b2", "4d3e46eec8244d1d", "59feecfa04eb096b", "0aedba9d586f34f9"),
        *("b69d88ff1ad5834a", "28e543d3753fc9d1", "b6b9ee08c38f62da", "f070994a85994785"),
        *("be394de37f9d6cf6", "38e69fdd19aefeb4", "dd0102d1cd0c6ac7", "967f21586cdf1248"),
        # the Ethereum test suite's sender key (0x45a915e4…, of 0xa94f5374…), in every client's
        # state and transaction tests, and Hyperledger Besu's three documented dev-network accounts'
        # keys (0x8f2a5594…, 0xc87509a1…, 0xae6ae8e5…), with 0x and without
        *("a0efb9e8a46c197c", "02522f20463c8f61", "07056658c7497e88", "4cfb016765dfceca"),
        *("49f88a1ebbd7c5d4", "f24167accb5d690f", "efe8fca5524a213b", "07f935b61d37e0e5"),
        "87c8a239755951b0",  # Vault's documented Duo secret key (its Duo MFA API docs, 8C7THtrI…)
        # NIP-47's (Nostr Wallet Connect) example connection URI's secret
        # (nostr+walletconnect://b889…?relay=…&secret=71a8…), in every NWC library's tests and docs
        "131a3c8cd9e92490",
        # Svix's webhook signing secrets: the Standard Webhooks test vector its verifying guide and
        # every library's tests use (whsec_MfKQ…), and its API reference's example (whsec_C2FV…)
        *("96ad2ccd81462a76", "2dd745ff991276ae"),
        # Yarn's documentation search (Algolia DocSearch): a search-only key, public by design, in
        # every copy of Yarn's release
        "2f21fd9c81678e39",
        # Google Authenticator's Key Uri Format's example TOTP secret (otpauth://…?secret=JBSW…),
        # in every one-time-password library's tests, often written two or three times over
        "8be5d113c0871ce1",
        # Slack's Events API documentation: the verification token of its url_verification
        # request ("token": "Jhj5…"), in Bolt's tests and every Slack bot's
        "304779c4de12ef17",
        # Google's reCAPTCHA v2 test keys (its FAQ: "I'd like to run automated tests"), whose
        # every verification passes: the secret key and the site key
        *("f5e95c9954635b65", "03b970ed8171d73b"),
        # RFC 7628's OAUTHBEARER example token ("auth=Bearer vF9dft4q…"), as its text prints it
        # and as stalwart's tests spell it
        *("d8467a36fb39799e", "2d5b07fb8139fde8"),
        # RFC 5849's request example's client key and token credentials (9djdj82h…, kkk9d7dh…),
        # which RFC 7628's OAuth 1.0a example quotes
        *("80f8b7c904d4a43f", "2ff8b0fb93aca981"),
        # Docker Engine API's documented registry login (mobydock's "conta1n3rize14"), in every
        # vendored copy of its swagger.yaml
        "ce9b398823bd4e00",
        # Uptrace's secret_key as its configuration template and examples ship it (102c1a55…)
        "91ce102a78ea8998",
        # Roundcube's des_key as its defaults ship it ("rcmail-!24ByteDESkey*Str"), and Tyk's
        # gateway secret as its example configuration ships it ("352d20ee…"), which every
        # install's sample configuration prints until it is changed
        *("f7096f4025da84b0", "45c3523c41d3a547"),
        # Ceph's S3 compatibility tests' sample configuration: its main user's secret key
        # (h7Ghxu…), in every S3 server's copy of the suite's settings
        "f8577d37397676fa",
        # Binance's API documentation's examples, in every connector generated from it and in their
        # tests: the signing example's API key (vmPUZE6m…, spelt two ways) and secret key
        # (NhqPtmdS…), a sub-account's API key (k5V49ldt…), a low-latency special key, another and
        # its secret (npOzOAeL…, znpOzOAe…, 87ssWB7a…), and the listen keys and listen token of its
        # user data streams (T3ee22BI…, pqia91ma…, xs0mRXdA…, 3HBntNTe…, 6xXxePXw…)
        *("5ba1ed8425baaa72", "99e4a93125ad8855", "23e9efa3ced6e70c", "657f0dfc876ce54a"),
        *("fc5a6c54a2079828", "c2242140f15ceee1", "e031e4ca7b8238b8", "816cca135d7effdb"),
        *("6ea05159099a1f97", "5d3f8063e4250802", "d220e908b229c75e", "499ef8bdaade84e8"),
        # RFC 8693's token exchange's example subject token (accVkjcJ…), in its client's javadoc
        "b18cf97d6c8ac382",
        # go-oauth2's README's example access token (J86XVRYS…), and the refresh token that
        # go-pkgz/auth's development provider hands every caller (IwOGYzYT…), in its users' tests
        *("43752d4db5f0a8bd", "efd9e2f1b57704c1"),
        # RFC 7635's example keys (Appendix B: the long-term key HGkj32KJ…, the MAC key
        # Zksjpweo…), in every STUN and TURN server's and client's tests, base64 or not
        *("b3f6825b62804673", "3fb4a3903d549b7b"),
        # hostapd's test SIM's OPc (cb9cccc4…, after its Ki in an EAP-SIM or EAP-AKA password,
        # Ki:OPc), in its own database of test SIMs and in every fork's tests
        "da13548982004634",
        # pgBackRest's reference's example repository cipher passphrase (zWaf6Xtp…), in its user
        # guide's every configuration
        "20aa5da0031dafee",
        # Checkmarx SAST's OAuth client secret for its resource owner client (014DF517-…), the
        # same in every installation, written in every client of its REST API
        "ecf5c380a3af0e71",
        # Unity's default PS4 package passcode (frAQBc8W…), which the editor writes into every
        # project's ProjectSettings.asset
        "88353154ca476dbf",
        # the Terraform AzureRM provider's documentation's database administrator password
        # (H@Sh1CoR3!), in its every example of a database server and every project that starts
        # from one
        "fda767a5d2129e29",
        # the secret key of the Supabase CLI's local development stack (sb_secret_N7UND0Ug…), the
        # same in every stack ``supabase start`` runs, in the tests and scripts of its users
        "c85debb55f2f204d",
        # GitHub's documentation's examples: its OAuth guide's access token (e72e16c7…, in every
        # copy of its web flow's answer), its REST API reference's personal access token
        # (ghp_16C7e42F…, of the ghs_ and ghu_ family above), and the app its "create an app from
        # a manifest" answer gives: its client secret, webhook secret and private key (the key's
        # base64, MIIEogIB… and, in later versions of the description, MIIEowIB…), in every copy
        # of GitHub's OpenAPI description
        *("86007eb367696d32", "3543c50b0cb9cea8", "dacf711e6bb5d6da", "08147b72a6a4d699"),
        *("e561f71e7201e0fe", "ec6edcdcf1521317"),
        # Instagram's API documentation's access token (fb2e77d.47a0…), in its every example URL
        # and in Swagger's sample descriptions of it
        "449d437ea9e5e79f",
        # Apache APISIX's default Admin API keys, the admin's and the viewer's (edd1c9f0…,
        # 4054f7cf…), which its default settings ship, every guide's curl to the Admin API sends
        # and its ingress controller's and plugin runner's tests use
        *("477a2767fa27931d", "228ab1b6080ec417"),
        # python-gitlab's documentation's tokens (JVNSESs8…, glpat-JVNSESs8…, and its settings
        # file's vTbFeqJY…), in every guide and script copied from it
        *("34eefbded8d87d61", "f3465df121bff78a", "e28c0a0deca6684a"),
        # SeleniumBase's default ENCRYPTION_KEY (Pg^.l!8U…), which its settings ship to obfuscate
        # the passwords of tests, the same in every install until one sets one's own
        "74a88a4bf10e1ce5",
    }
)
# ... and the same, their first characters (sha256 of them, first 16 hex digits, by how many): AWS's
# documented access key ids and secret keys (AKIAIOSFODNN7EXAMPLE and its secret, AKIAI44QH8DHB…),
# which tests edit where the word "EXAMPLE" stood (AKIAIOSFODNN7CHANGED) or cut short
_DOCUMENTED_BEGINNINGS = {
    13: frozenset({"e6158b6f8c69c942", "828600bb7512dc96"}),
    16: frozenset({"d7fba1f34ef15651", "51dd2d3546005914"}),
}
# Signing keys published in a framework's tutorial, copied into every project built from it. The key
# is an example, and so is a JSON Web Token it signs: anyone can make one.
_EXAMPLE_SIGNING_KEYS = frozenset(
    {
        # FastAPI's "OAuth2 with Password (and hashing), Bearer with JWT tokens" tutorial
        "09d25e094faa6ca2556c818166b7a9563b93f7099f6f0f4caa6cf63b88e8d3e7",
        # jwt.io's debugger's default keys, the old and the new; node-jsonwebtoken's README's
        "your-256-bit-secret",
        "a-string-secret-at-least-256-bits-long",
        "shhhhh",
        "secret",  # every library's tests: a token anyone can sign
    }
)
_HMAC_DIGESTS = {"hs256": "sha256", "hs384": "sha384", "hs512": "sha512"}


def _words(text: str) -> tuple[str, ...]:
    return tuple(text.split())


def digest16(value: str) -> str:
    import hashlib  # lazy: the pre-commit hook's start-up

    return hashlib.sha256(value.encode("utf-8", "surrogatepass")).hexdigest()[:16]


def entropy(value: str) -> float:
    """Shannon entropy in bits per character."""
    if not value:
        return 0.0
    total = len(value)  # -sum(p log p), p = n / total, as log(total) - sum(n log n) / total
    return math.log2(total) - sum(n * math.log2(n) for n in Counter(value).values()) / total


def is_placeholder(value: str) -> bool:
    return _PLACEHOLDER_RE.search(value) is not None


def is_documented_example(value: str) -> bool:
    """A published key, whole, after the name it is given (MinIO's ``name:key``), or written again
    and again end to end (a test's longer secret made of the example thrice), as a URL escapes it
    or not (a signature's ``%2f``, its decoded layer's ``/``); or one edited, its beginning kept
    (``_DOCUMENTED_BEGINNINGS``)."""
    period = (value + value).find(value, 1)  # the shortest piece the value repeats, if any
    readings = {value, value.rpartition(":")[2], value[:period], _unescaped(value)}
    return (
        value in _EXAMPLE_SIGNING_KEYS
        or not _DOCUMENTED_EXAMPLES.isdisjoint(map(digest16, readings))
        or any(
            digest16(value[:size]) in beginnings
            for size, beginnings in _DOCUMENTED_BEGINNINGS.items()
            if len(value) >= size
        )
    )


# -- checks for rules with a format ----------------------------------------------------------------

_B64_BODY_RE = lazy(r"[A-Za-z0-9+/=]{16,}")
# What may come between a key's header and its body: line ends, escaped (in a string, in XML) or
# not, a string's quotes and concatenation, and PEM's own header lines (Proc-Type: 4,ENCRYPTED; a
# PGP block's Version:)
_KEY_LEAD_RE = lazy(
    r"(?:\\[nr]|&#(?:1[03]|x[aAdD]);|[\s\"'`+,;\\]|[A-Za-z-]{1,40}: [^\n\\&]{0,200})*"
)
# A key's body: its lines of base64, in the quotes, concatenation and escaped line ends a string
# or markup writes around them, up to the first other text. A line may hold several pieces of 16
# characters or more (a key's lines run together with spaces between), and one shorter piece at its
# end; a line of prose or code holds shorter words, or other characters. A key cut short in a
# comment (``MIIEpAIBAAKCAQEA...``) is no key, however much code follows it.
_LINE_END_RE = lazy(r"\\[nr]|&#(?:1[03]|x[aAdD]);")
# Where code joins a string's pieces (``"…DEK-Inf" +\n "o: AES-128-CBC,…"``): read as one string
_STRING_JOIN_RE = lazy(r"[\"'`][ \t]*+\+?[ \t\r\n]*+[\"'`]")
_KEY_BODY_RE = lazy(
    r"(?:[ \t\"'`+,;\\]*+(?:[A-Za-z0-9+/=]{16,}+[ \t\"'`+,;\\]*+)*+"
    r"(?:[A-Za-z0-9+/=]++[ \t\"'`+,;\\]*+)?(?:\r?\n|\Z))++"
)
_NOT_BASE64_RE = lazy(r"[^A-Za-z0-9+/=]++")
_KEY_MAGIC = (b"openssh-key-v1\x00",)  # the body of ssh-keygen's default format


def key_material(secret: str) -> bool:
    """A private key block holds real key material: base64 right after its header, enough of it,
    and either a key's structure (OpenSSH's magic, a DER ``SEQUENCE``: PEM and PKCS#8) or the
    entropy of random bytes (PGP, PuTTY, a key cut short).

    The one filter a private-key rule runs (``Rule.key``): a key's body has runs of ``A`` (zero
    bytes) and the structure of its format, which the placeholder and example filters would take for
    a stand-in.
    """
    after = secret[5:].partition("-----")[2] if secret.startswith("-----BEGIN") else secret
    after = _STRING_JOIN_RE.sub("", _LINE_END_RE.sub("\n", after))
    start = _KEY_LEAD_RE.match(after)  # the body, past its header when the match holds it
    if start is None or not _B64_BODY_RE.match(after, start.end()):
        return False  # the header named in code or prose (`indexOf('-----BEGIN …-----')`)
    lines = _KEY_BODY_RE.match(after, start.end())
    body = _NOT_BASE64_RE.sub("", lines[0]) if lines else ""
    if len(body) < 40 or digest16(body) in _DOCUMENTED_EXAMPLES:
        return False
    head = _b64decode(body[:64].rstrip("="))
    if head is not None and (head.startswith(_KEY_MAGIC) or _der_sequence(head)):
        return not _rsa_public_part_only(head, len(body.rstrip("=")) * 3 // 4)
    return entropy(body) >= 4.0


# The curves a public key's point is read on (y² = x³ + ax + b over the prime p): NIST P-256, whose
# keys sign web push's VAPID requests, and secp256k1
_POINT_CURVES = (
    (
        2**256 - 2**224 + 2**192 + 2**96 - 1,
        -3,
        0x5AC635D8AA3A93E7B3EBBD55769886BC651D06B0CC53B0F63BCE3C3E27D2604B,
    ),
    (2**256 - 2**32 - 977, 0, 7),
)
_POINT_CHARACTERS = 87  # base64 of an uncompressed point's 65 bytes, unpadded


def public_point(value: str) -> bool:
    """An elliptic-curve public key, uncompressed: base64 of 65 bytes, 4 and then the x and y of a
    point on the curve (web push's VAPID key, which every browser that subscribes is sent:
    ``BOgQ…``). Random bytes are a point on a curve once in 2^256 draws; a private key is a number,
    32 bytes. Or any public key in DER (``_public_key_info``)."""
    unpadded = value.rstrip("=")
    if len(unpadded) != _POINT_CHARACTERS or not unpadded.startswith("B"):
        return _public_key_info(unpadded)
    raw = _b64decode(unpadded)
    if raw is None or len(raw) != 65 or raw[0] != 4:
        return False
    x, y = int.from_bytes(raw[1:33]), int.from_bytes(raw[33:])
    return any((y * y - x * x * x - a * x - b) % p == 0 for p, a, b in _POINT_CURVES)


_INFO_HEAD = 64  # base64 characters: 48 bytes, the algorithm's SEQUENCE and more


def _public_key_info(unpadded: str) -> bool:
    """base64 of DER's SubjectPublicKeyInfo, a public key: a SEQUENCE whose first item is the
    algorithm's SEQUENCE, its OID first, and whose next is the key's BIT STRING (a browser
    extension's manifest key, ``MIIBIjANBgkqhkiG9w0BAQEFAAOCAQ8A…``, that fixes its id). A private
    key's DER (PKCS#8, PKCS#1) begins with its version, an INTEGER; random bytes take this shape
    once in 2^40 draws. (A SEQUENCE's tag, 0x30, is an "M" in base64: no other value is
    decoded.)"""
    head = (_b64decode(unpadded[:_INFO_HEAD]) if unpadded.startswith("M") else None) or b""
    try:
        tag, inner, _ = _der_item(head, 0)
        algorithm, start, end = _der_item(head, inner)
        return (tag, algorithm, head[start], head[end]) == (0x30, 0x30, 0x06, 0x03)
    except IndexError:
        return False


def _der_sequence(head: bytes) -> bool:
    """The start of a DER ``SEQUENCE`` of some length, holding an ``INTEGER`` (a version) or a
    ``SEQUENCE``."""
    if len(head) < 6 or head[0] != 0x30:
        return False
    width = head[1] - 0x80 if head[1] > 0x80 else 0
    if width > 3 or (width == 0 and head[1] < 0x20):
        return False
    return head[2 + width] in (0x02, 0x30)


# An RSA key's DER (PKCS#1's RSAPrivateKey, alone or in PKCS#8's PrivateKeyInfo) begins with its
# public part, the modulus; the private exponent and the primes follow it. A block that holds fewer
# bytes than the key's own modulus takes up is a key cut short to show its shape (Twilio's
# reference: `MIIEpQIBAAKCAQEAuyf…R.` and its END line; a blog's `...TRUNCATED...` between a key's
# first and last lines): part of a public key, no key. Other keys put their secret first (an EC
# key's scalar, an Ed25519 seed) and are judged as ever.
_RSA_ENCRYPTION = bytes.fromhex("06092a864886f70d010101")  # the OID 1.2.840.113549.1.1.1


def _rsa_public_part_only(head: bytes, size: int) -> bool:
    """Whether an RSA key's DER, of which ``head`` is the start and ``size`` bytes are given, ends
    within its modulus."""
    try:
        _, position, _ = _der_item(head, 0)  # the key's SEQUENCE
        _, _, position = _der_item(head, position)  # its version
        tag, inner, after = _der_item(head, position)
        if tag == 0x30:  # PKCS#8: the algorithm, then the RSA key in an OCTET STRING
            if not head[inner:after].startswith(_RSA_ENCRYPTION):
                return False
            _, inner, _ = _der_item(head, after)
            _, position, _ = _der_item(head, inner)  # the RSA key's SEQUENCE
            _, _, position = _der_item(head, position)  # its version
            tag, inner, after = _der_item(head, position)
    except IndexError:  # a header longer than the head: no key this checks
        return False
    return tag == 0x02 and after - inner >= 64 and size < after  # a modulus of 512 bits or more


def _der_item(data: bytes, position: int) -> tuple[int, int, int]:
    """A DER item's tag, where its content starts and where it ends (IndexError past ``data``)."""
    tag, length = data[position], data[position + 1]
    start = position + 2
    if length > 0x80:
        width = length - 0x80
        if start + width > len(data):
            raise IndexError(position)
        length = int.from_bytes(data[start : start + width], "big")
        start += width
    return tag, start, start + length


def _b64decode(value: str) -> bytes | None:
    import base64  # lazy: the pre-commit hook's start-up
    import binascii  # lazy: the pre-commit hook's start-up

    padded = value + "=" * (-len(value) % 4)
    try:
        if "-" in value or "_" in value:
            return base64.urlsafe_b64decode(padded)
        return base64.b64decode(padded, validate=True)
    except (binascii.Error, ValueError):
        return None


def jwt_token(secret: str) -> bool:
    """A signed JSON Web Token: three parts, a header naming an algorithm other than "none", claims
    that are not all stand-ins (``{"foo":"bar"}``), and a signature as long as an algorithm makes
    one, which no published example key made. A signature cut short (a test's ``.S``, ruby-jwt's
    ``custom_signature``) signs nothing. Nor a Wi-Fi Easy Connect (DPP) connector, typed
    ``dppCon``: a device shows it to every peer it meets, as a certificate is shown."""
    header, _, rest = secret.partition(".")
    parts = rest.split(".")
    head = _json_part(header)
    algorithm = _named_algorithm(head)
    return (
        len(parts) == 2
        and algorithm not in ("", "none")
        and head.get("typ") not in _PUBLIC_TOKEN_TYPES
        and _signature_fits(parts[1], algorithm)
        and not is_documented_example(parts[1])
        and not _signed_with_example_key(secret, algorithm)
        and not _not_issued(_json_part(parts[0]))
    )


_PUBLIC_TOKEN_TYPES = frozenset({"dppCon"})
# jwt.io's sample claims name a person no server has: its every example token's, whatever it signs
# with, and the tests that add claims of their own to them (tyk's scope, kratos' email)
_SAMPLE_PERSON = {"sub": "1234567890", "name": "John Doe"}


def _not_issued(claims: dict[str, object]) -> bool:
    """Claims no server issued as a credential: stand-ins, jwt.io's sample person, a publishable
    token's, or dated before tokens were."""
    return (
        _stand_in_claims(claims)
        or _SAMPLE_PERSON.items() <= claims.items()
        or _publishable_claims(claims)
        or _dated_before_tokens(claims)
    )


# The fewest bytes of signature each algorithm of RFC 7518 and 8037 makes: HMAC's is its hash's,
# ECDSA's two numbers of its curve's size, EdDSA's 64 (Ed25519) or 114 (Ed448), RSA's its
# modulus', 512 bits in the smallest key anyone made; any algorithm's, HMAC with SHA-256's 32. A
# signature shorter than the algorithm its header names makes is cut short, or made up (faker's
# tokens: 48 random bytes under ES256, ES384, HS512 or PS512): it signs nothing.
_SIGNATURE_LEAST = {
    "hs256": 32,
    "hs384": 48,
    "hs512": 64,
    "es256": 64,
    "es256k": 64,
    "es384": 96,
    "es512": 132,
    "eddsa": 64,
    "ed25519": 64,
    "ed448": 114,
    **{f"{kind}{bits}": 64 for kind in ("rs", "ps") for bits in (256, 384, 512)},
}
_ANY_SIGNATURE_LEAST = 32


def _signature_fits(signature: str, algorithm: str) -> bool:
    """Whether a token's signature is as long as the algorithm its header names makes one, at
    the least."""
    size = len(signature.rstrip("=")) * 3 // 4
    return size >= _SIGNATURE_LEAST.get(algorithm, _ANY_SIGNATURE_LEAST)


# The claims RFC 7519 registers: their names say nothing of the token's use
_REGISTERED_CLAIMS = frozenset({"iss", "sub", "aud", "exp", "nbf", "iat", "jti"})


def _stand_in_claims(claims: dict[str, object]) -> bool:
    """A token's claims whose every name (past the registered ones) and text is a stand-in, as a
    library's tests write them: ``{"foo":"bar"}``, ``{"test":1234}``,
    ``{"urn:example:claim":true}``, ``{"iss":"issuer"}``. No server issues those; a real token
    names a user, a scope, a role."""
    texts = [name for name in claims if name not in _REGISTERED_CLAIMS]
    texts += [value for value in claims.values() if isinstance(value, str)]
    return bool(texts) and all(_stand_in(text, text.lower()) for text in texts)


# 2010-01-01: JSON Web Tokens were first drafted in 2010 (RFC 7519 came in 2015)
_TOKENS_BEGAN = 1262304000
_TIME_CLAIMS = ("exp", "iat", "nbf")


def _dated_before_tokens(claims: dict[str, object]) -> bool:
    """A token issued, valid or expiring before any server issued one: a test's, its time written
    by hand (taiga's ``{"exp": 946684800}``, the year 2000; ``"exp": 0``)."""
    times = [claims.get(name) for name in _TIME_CLAIMS]
    return any(
        isinstance(time, int | float) and not isinstance(time, bool) and time < _TOKENS_BEGAN
        for time in times
    )


def _publishable_claims(claims: dict[str, object]) -> bool:
    """A token its issuer hands out to be public: Supabase's anon key (issuer supabase, role anon),
    which every browser page of a project holds and row-level security governs; the project's
    service_role key, which bypasses it, is a secret."""
    return claims.get("role") == "anon" and str(claims.get("iss", "")).startswith("supabase")


def _signed_with_example_key(token: str, algorithm: str) -> bool:
    """Whether an HMAC-signed token's signature is one of the example signing keys' or of a
    password everyone tries (remark42's development tokens, signed with its guide's secret 12345):
    a token from a tutorial or its tests, which anyone can sign again."""
    return signed_with(token, algorithm, _KEYS_ANYONE_SIGNS_WITH)


def hmac_algorithm(token: str) -> str | None:
    """The HMAC algorithm a JSON Web Token's header names (``hs256``…), or None for another
    token or text."""
    if not token.startswith("eyJ") or token.count(".") != 2:
        return None
    algorithm = _algorithm(token.partition(".")[0])
    return algorithm if algorithm in _HMAC_DIGESTS else None


def signed_with(token: str, algorithm: str, keys: Iterable[str]) -> bool:
    """Whether ``token``'s signature is the HMAC of ``algorithm`` (``hmac_algorithm``) with one of
    ``keys``."""
    digest = _HMAC_DIGESTS.get(algorithm)
    if digest is None:
        return False
    import base64  # lazy: the pre-commit hook's start-up
    import hmac  # lazy: the pre-commit hook's start-up

    signed, _, signature = (
        part.encode("utf-8", "surrogatepass") for part in token.rpartition(".")
    )  # any text: a generic value is asked too (made_up)
    return any(
        base64.urlsafe_b64encode(
            hmac.digest(key.encode("utf-8", "surrogatepass"), signed, digest)
        ).rstrip(b"=")
        == signature
        for key in keys
    )


def _json_part(segment: str) -> dict[str, object]:
    """A JSON Web Token's part, its header or its claims, decoded (empty when the segment is no
    base64 of a JSON object)."""
    import json  # lazy: the pre-commit hook's start-up

    try:
        data = json.loads(_b64decode(segment) or b"")
    except ValueError:
        return {}
    return data if isinstance(data, dict) else {}


def _algorithm(header: str) -> str:
    """The algorithm a JSON Web Token's header names ("" when it is no JSON naming one)."""
    return _named_algorithm(_json_part(header))


def _named_algorithm(head: dict[str, object]) -> str:
    """The algorithm a decoded header names ("" when it names none)."""
    return str(head.get("alg", "")).lower()


# A JOSE header's own parameters (RFC 7515, 7516, 7519): none holds a secret key, as a JWK's "k" or
# "d" would
_HEADER_NAMES = frozenset(
    {"alg", "typ", "kid", "cty", "crit", "x5t", "x5t#S256", "x5u", "jku", "b64", "enc", "zip"}
)


def _header_alone(value: str) -> bool:
    """A token's header and nothing after it: ``{"alg":"HS256","typ":"JWT"}``, encoded."""
    header = _json_part(value)
    return "alg" in header and _HEADER_NAMES.issuperset(header)


def discord_user_id(secret: str) -> bool:
    """A Discord token's first part is unpadded base64 of the bot's user id: a snowflake of 17
    to 20 digits."""
    raw = _b64decode(secret.partition(".")[0])
    return raw is not None and 17 <= len(raw) <= 20 and raw.isdigit() and raw[:1] != b"0"


# The passwords everyone tries, and "password" in the languages guides are written in, accents
# dropped (freshrss's French guide: curl -u alice:motdepasse123)
_COMMON_PASSWORDS = (
    frozenset(
        _words(
            """
        password passwd pass secret admin root toor guest user test tester testing postgres mysql
        redis mongo rabbitmq oracle sa changeme default letmein qwerty welcome hunter2 foo bar baz
        foobar none null pwd pw 123456 12345678 1234 token apikey key example sample dummy fake
        public
        tiger motdepasse passwort contrasena contrasenya senha wachtwoord haslo parola salasana
        losenord passord adgangskode heslo jelszo sifre geslo lozinka
        """
        )
    )
    | _DETERMINED
)
# ... and a token's HMAC key anyone would guess first: each is one more HMAC for every token judged,
# so the few at the top of every list of passwords, not all of them
_KEYS_ANYONE_SIGNS_WITH = _EXAMPLE_SIGNING_KEYS | frozenset(
    _words("1234 12345 123456 12345678 123456789 password changeme admin test key qwerty")
)


def url_password(secret: str) -> bool:
    """The password of ``scheme://user:password@host`` is real: not empty, a variable, a mask, a
    default, a word or a piece said again (``url_password_in_prose``, ``_password``)."""
    return _before_a_raw_at(secret, _password) and _password(secret)


def _password(secret: str) -> bool:
    """A password is real (``_password_in_prose``), and not ten lower-case letters or fewer, not
    ``repeated``: ``url_password``'s looks, for a password a URL does not hold (Basic's)."""
    return (
        _password_in_prose(secret)
        and not re.fullmatch(r"[a-z]{1,10}", secret.lower())
        and not repeated(secret)
    )


def _before_a_raw_at(secret: str, check: Callable[[str], bool]) -> bool:
    """A URL's password that holds a raw "@" (read to the authority's last one, as a URL parser
    does: a guide's ``sa:Adm1nP@ssw0rd@localhost``) is real only if what comes before its first
    "@" would be on its own too: a URL parser's tests (``user:pass@ex@mple.com``, ``pa@sword``)
    say no more than that."""
    return "@" not in secret or check(secret.partition("@")[0])


_PIECE_MOST = 6


def repeated(value: str) -> bool:
    """One piece of ``_PIECE_MOST`` characters or fewer, written again and again end to end
    (``nyuknyuknyuk``, ``abcabc``, ``1234512345``): typed, not drawn."""
    length = len(value)
    return any(
        value == value[:size] * (length // size)
        for size in range(1, min(_PIECE_MOST, length // 2) + 1)
        if length % size == 0
    )


# A constant's name: upper-case words joined by "_", a digit or three among them (AUTH_AZURE_AD_B2C,
# AWS_S3_BUCKET_V2); a generator drawing upper-case letters and digits draws a digit in every third
# place or so
# (its words, and a number last: a port's, SERVICE_FQDN_POSTGRES_5432; or a number between them, a
# test's fourth role's: timescaledb's ROLE_4_PASS)
_CONSTANT_NAME_RE = lazy(
    r"([A-Z][A-Z0-9]*+(?:_(?:[A-Z][A-Z0-9]*+|[0-9]{1,3}(?=_)))+)(?:_[0-9]{1,5})?"
)
_CONSTANT_DIGITS_MOST = 3  # in its words


def constant_name(value: str) -> bool:
    """A constant's name, in a credential's place where the credential is meant to come from it:
    ``SAS_KEY``, ``AUTH_AZURE_AD_B2C_CLIENT_SECRET``, ``SERVICE_FQDN_POSTGRES_5432``."""
    named = _CONSTANT_NAME_RE.fullmatch(value)
    return named is not None and sum(map(str.isdigit, named[1])) <= _CONSTANT_DIGITS_MOST


# A variable's name: words in snake or camel case, no digit among them
_VARIABLE_NAME_RE = lazy(r"[a-z]+(?:_[a-z]+)+|[a-z]+(?:[A-Z][a-z]+)+")


def variable_name(value: str) -> bool:
    """A variable's name that says it holds a credential, in the credential's place where the
    credential is meant to come from it: ``master_key``, ``appSecret``."""
    return _VARIABLE_NAME_RE.fullmatch(value) is not None and secret_name(value)


# The words that name a credential, which a credential drawn at random does not spell; "%20", a
# space: a sentence, not a password
_CREDENTIALS_NAMED = ("password", "passwd", "secret", "token", "apikey", "api_key", "%20")


def url_password_in_prose(secret: str) -> bool:
    """In a memory or a session log a URL's password is real even when it is a word
    (``admin:sunshine@prod-db``): only the defaults, masks and placeholders stay quiet
    (``_password_in_prose``; a raw "@" as ``_before_a_raw_at`` says)."""
    return _before_a_raw_at(secret, _password_in_prose) and _password_in_prose(secret)


def _password_in_prose(secret: str) -> bool:
    """A password is real even when it is a word: not a default, a mask, a placeholder, a
    documented example, a credential's name or a constant's."""
    lowered = secret.lower()
    if (
        _default_words(lowered)
        or is_placeholder(secret)
        or is_documented_example(secret)  # RFC 6749's Basic gX1fBat3bV, MinIO's playground
        or secret.startswith(("$", "%", "{", "<", ":"))
    ):
        return False
    spelt = _spelt(lowered)
    if any(word in form for form in (lowered, spelt) for word in _CREDENTIALS_NAMED):
        # a credential's name in its place, as written or respelled: user:password,
        # api_username:access_token, sa:YourStrong!Passw0rd (SQL Server's guides)
        return False
    if constant_name(secret) or variable_name(secret):
        return False  # a name in the password's place: SAS_KEY, DB_PASS, app_id:master_key
    if any(_STAND_IN_SAID_RE.search(form) for form in (lowered, spelt)):
        # a stand-in says so in words (user:fakepass, bot:correcthorsebatterystaple); a run typed
        # into a token (abc123, deadbeef) is no word, and a URL's password may be anything typed
        return False
    # (its URL escapes undone: ffmpeg's tests' ``u:p%2B%2F2`` is "p+/2", four characters)
    return len(_unescaped(secret)) >= 6 and not re.fullmatch(r"\*+|x+|\.+|-+|_+", lowered)


_ALPHABET = "abcdefghijklmnopqrstuvwxyz"
_JOINTS_RE = lazy(r"[^a-z0-9]+")
_ESCAPE_RE = lazy(r"%[0-9A-Fa-f]{2}")  # a URL's percent-escape
_ESCAPE_LAYERS = 3  # a URL encoded again, twice at most: %252520 is %2520, %20, a space
# The letters a word's usual respellings stand for: p@ssw0rd, s3cr3t, adm1n, $ecret
_LEET_LETTERS = str.maketrans("@$§", "ass")  # the signs that only ever stand for a letter
_LEET_SIGNS = _LEET_LETTERS | str.maketrans("!", "i")  # and one that may end a password: s3cr3t!
_LEET_DIGITS = str.maketrans("4031576", "aoeistg")  # ch4n63m3: changeme
# A digit stands for a letter in a run of one or two (adm1n, r00t), or of any length inside a word
# (P455W0Rd); three or more at a word's end or start are a number, kept as written (T0k3n2024 is
# token2024, not token2o2a)
_LEET_DIGITS_RE = lazy(r"(?<![0-9])[0-9]{1,2}(?![0-9])|(?<=[A-Za-z])[0-9]+(?=[A-Za-z])")


def _spelt(lowered: str) -> str:
    """A value's letters as its respellings stand for them (``p@ssw0rd``: password), its URL
    escapes undone first (``passw%40rd``); an exclamation mark that ends it is one, not an i
    (``s3cr3t!``, ``Sup3rSecret!``). Its case is kept (but an escaped value's, lowered)."""
    signs = _plain(lowered).rstrip("!").translate(_LEET_SIGNS)
    return _LEET_DIGITS_RE.sub(lambda digits: digits[0].translate(_LEET_DIGITS), signs)


# Keys in the order a keyboard or the alphabet has them, either way: a run along one is typed, not
# drawn (and the signs over the digits, shifted: nacos!@#$%^&*). The German and French keyboards'
# rows where they differ (wg-easy's Qweasdyxcv!2: qwe, asd, yxcv down a QWERTZ keyboard's columns).
_ROWS = (
    "qwertyuiop",
    "asdfghjkl",
    "zxcvbnm",
    "qwertzuiop",
    "yxcvbnm",
    "azertyuiop",
    "qsdfghjklm",
    "wxcvbn",
    _ALPHABET,
    "0123456789",
    "1234567890",
    "!@#$%^&*()",
)
_TYPED_ROWS = (*_ROWS, *(row[::-1] for row in _ROWS))  # and back along them: juicefs' ZYXwvuts…
_TYPED_PIECE_RE = lazy(r"[a-z]+|[0-9]+")


def _typed_run(word: str) -> bool:
    """Letters and digits that each run three keys or more along a keyboard's row or the
    alphabet, or such runs end to end: ``asd123``, ``qwe123``, ``zxcvbnm``, ``abc789``,
    ``asdqwe12345``."""
    pieces = (piece[0] for piece in _TYPED_PIECE_RE.finditer(word))  # a random word fails at once
    ran = False
    for piece in pieces:
        # (a run's first three keys are a run: most drawn pieces are refused by one lookup)
        if piece[:3] not in _RUNS or not _end_to_end(piece, _RUNS):
            return False
        ran = True
    return ran


_DEFAULT_DIGITS_MOST = 4  # the digits a default password takes on: admin123, bar002, root2024
# ... and what _end_to_end reads one after another: those and the runs of three keys or more
_RUNS = frozenset(
    row[start:end]
    for row in _TYPED_ROWS
    for start in range(len(row))
    for end in range(start + 3, len(row) + 1)
)
_END_TO_END_PIECES = _COMMON_PASSWORDS | _RUNS
_END_TO_END_LONGEST = max(map(len, _END_TO_END_PIECES))


# (six characters drawn from hex digits are two of them once in 2,000; a shorter word may be
# anyone's name: "ada")
_KEYS_PRESSED_MOST, _KEYS_PRESSED_LENGTH = 2, 6


def _default_words(lowered: str) -> bool:
    """A password made of default passwords or runs along the keyboard only, whatever joins them
    (``pass%23pass``, ``admin-admin``, ``asd123``), written end to end (``adminadmin``) or with a
    few digits after (``admin123``, ``bar002``), or one word said again (``alice:alice123``), as
    written or respelled (``p%40ssword``: ``p@ssword``, ``P@ssw0rd``; ``p%C3%A4ssword``:
    ``pässword``, its accents dropped), or one such word cut by signs (``p%40ss%3Aword``:
    ``p@ss:word``, ``pass!word``, ``p@ss!word#123``), a short number of their own after them
    (``asdQWE12345_3``); or words beside one such run (``_words_and_a_typed_run``); or two keys
    at most, each pressed again and again (``aaaaaa1111aa``: a sanitizer's test input)."""
    text = _plain(lowered)
    if len(text) >= _KEYS_PRESSED_LENGTH and len(set(text)) <= _KEYS_PRESSED_MOST:
        return True
    spelt = _spelt(lowered)
    signed = _JOINTS_RE.sub("", text.translate(_LEET_LETTERS))  # p@ss!word#123: password123
    for form in (text, spelt, _JOINTS_RE.sub("", text), _JOINTS_RE.sub("", spelt), signed):
        words = [word for word in _JOINTS_RE.split(form) if word]
        if words and (all(map(_default_word, words)) or _said_again(words)):
            return True
        # ... and a number of their own after them: admin_2024_3, asdqwe12345_3
        typed = [word for word in words if not _short_number(word)]
        if typed and typed != words and all(map(_default_word, typed)):
            return True
    return _words_and_a_typed_run(text)


def of_its_user(user: str, password: str) -> bool:
    """A URL's password that is its user's name (three letters or more) and at most
    ``_DEFAULT_DIGITS_MOST`` digits around it: ``serro:47serro11``, ``csps:47csps11`` (kamailio's
    sample databases), ``demo:demo``; or the first three letters or more of its user's name and a
    password's word (patroni's ``replicator:rep-pass``, ``repuser:rep-pass``, ``admin:adminpw``):
    a name taken for a password, typed."""
    lowered = password.lower()
    rest = lowered.replace(user.lower(), "", 1)
    named = _USERS_PASSWORD_RE.fullmatch(lowered)
    return len(user) >= 3 and (
        (rest != lowered and len(rest) <= _DEFAULT_DIGITS_MOST and (rest.isdigit() or not rest))
        or (named is not None and user.lower().startswith(named[1]))
    )


# a name's beginning and a password's word, joined or not, a few digits after
_USERS_PASSWORD_RE = lazy(r"([a-z]{3,})[-_.]?(?:pass(?:word|wd)?|pwd?|secret)[0-9]{0,4}")


def _said_again(words: list[str]) -> bool:
    """One word said again, with at most ``_DEFAULT_DIGITS_MOST`` digits after it: a user's name
    for its password (``alice:alice123``), ``demo-demo``."""
    stem = words[0].rstrip("0123456789")
    return (
        len(words) >= 2
        and stem.isalpha()
        and all(
            word.rstrip("0123456789") == stem and len(word) - len(stem) <= _DEFAULT_DIGITS_MOST
            for word in words
        )
    )


def _unescaped(value: str) -> str:
    """A value with its URL escapes undone once, each to the character of its byte."""
    return _ESCAPE_RE.sub(lambda escape: chr(int(escape[0][1:], 16)), value)


def _plain(lowered: str) -> str:
    """A value with its URL escapes undone (as UTF-8, or each a byte; an escaped escape too:
    ``abc%2520xyz`` is ``abc xyz``) and its accents dropped."""
    for _ in range(_ESCAPE_LAYERS):
        if _ESCAPE_RE.search(lowered) is None:
            break
        raw = _unescaped(lowered)
        try:
            lowered = raw.encode("latin-1").decode("utf-8")
        except UnicodeError:  # no UTF-8, or a character past latin-1 beside the escapes
            lowered = raw
        lowered = lowered.lower()  # an escape of a capital: %C3%96 is Ö
    if lowered.isascii():
        return lowered
    import unicodedata  # lazy: the pre-commit hook's start-up

    decomposed = unicodedata.normalize("NFKD", lowered)
    return "".join(c for c in decomposed if not unicodedata.combining(c))


def _short_number(word: str) -> bool:
    return word.isdigit() and len(word) <= _DEFAULT_DIGITS_MOST


def _default_word(word: str) -> bool:
    """One word of a default password: a run along the keyboard (``asd123``), or default passwords
    end to end and at most ``_DEFAULT_DIGITS_MOST`` digits after them."""
    if _typed_run(word):
        return True
    letters = word.rstrip("0123456789")
    return len(word) - len(letters) <= _DEFAULT_DIGITS_MOST and _end_to_end(letters)


def _end_to_end(letters: str, pieces: frozenset[str] = _END_TO_END_PIECES) -> bool:
    """Default passwords and runs of three keys or more along a keyboard's row (or ``pieces``),
    one after another with nothing between: ``admin``, ``rootpassword``, ``adminqwerty``,
    ``qweasd``."""
    ends = {0}
    for start in range(len(letters)):
        if start in ends:
            ends.update(
                start + size
                for size in range(2, _END_TO_END_LONGEST + 1)
                if letters[start : start + size] in pieces
            )
    return bool(letters) and len(letters) in ends


_BASE64_RE = lazy(r"[A-Za-z0-9+/]{8,}={0,2}")
# ... or shorter, its padding saying it is base64: YWRtaW4= (admin), cm9vdA== (root)
_PADDED_BASE64_RE = lazy(r"[A-Za-z0-9+/]{6,7}={1,2}")
_HEX_TEXT_RE = lazy(r"(?:[0-9a-fA-F]{2}){8,}")  # hex of eight bytes or more
_TEXT_RE = lazy(r"[ -~]{4,}")  # printable ASCII: what a person types (and echo's newline after)


def _encoded_text(value: str) -> str | None:
    """The text a hex, base32 or base64 value encodes, when it encodes printable ASCII; else
    ``None``. Random bytes are never all printable: 32 of them are, once in 10^13 (and the text is
    only ever judged a stand-in: a word, a placeholder). Base32 is a TOTP secret's (RFC 6238's
    test secret, GEZDGNBV…, is "12345678901234567890"); a value of its alphabet that encodes no
    text is read as base64 too."""
    if _HEX_TEXT_RE.fullmatch(value):
        return _printable(bytes.fromhex(value))
    text = _printable(_b32decode(value)) if _BASE32_RE.fullmatch(value) else None
    if text is None and (_BASE64_RE.fullmatch(value) or _PADDED_BASE64_RE.fullmatch(value)):
        text = _printable(_b64decode(value))
    return text


_BASE32_RE = lazy(r"(?:[A-Z2-7]{16,}|[a-z2-7]{16,})={0,6}")  # one case: a TOTP secret's


def _printable(raw: bytes | None) -> str | None:
    text = "" if raw is None else raw.decode("latin-1").removesuffix("\n")
    return text if _TEXT_RE.fullmatch(text) else None


def _b32decode(value: str) -> bytes | None:
    import base64  # lazy: the pre-commit hook's start-up
    import binascii  # lazy: the pre-commit hook's start-up

    stripped = value.rstrip("=").upper()
    try:
        return base64.b32decode(stripped + "=" * (-len(stripped) % 8))
    except (binascii.Error, ValueError):
        return None


def _encoded_document(value: str) -> bool:
    """base64 of lines of text (a PEM block, a kubeconfig, an ``.env``: Kubernetes keeps a
    secret's files so): the engine decodes it (``decode.base64_runs``) and scans the document,
    which holds whatever secret there is. A password encoded alone is one line, and judged here."""
    from gitmem.scan.decode import decode_run  # lazy: the pre-commit hook's start-up

    text = decode_run(value) if len(value) >= 24 else None
    return text is not None and len(text.strip().splitlines()) > 1


_USER_NAME_RE = lazy(r"[\w.@+-]{1,128}")


def _basic_pair(secret: str) -> tuple[str, str] | None:
    """base64 of ``user:password``, decoded: the user's name and the password; else ``None``."""
    raw = _b64decode(secret)
    try:
        text = "" if raw is None else raw.decode("utf-8")
    except UnicodeDecodeError:
        return None
    user, sep, password = text.partition(":")
    return (user, password) if sep and user and "\n" not in text else None


def _base64_pair(value: str) -> bool:
    """base64 of a user's name and a printable password, what a Basic ``Authorization`` header
    carries: a secret only as its password is one (``basic_credentials``). Not base64 of a
    document (``{"auths": …}``), whose secrets the decoded layer's own scan finds."""
    pair = _basic_pair(value) if _BASE64_RE.fullmatch(value) else None
    return (
        pair is not None
        and _USER_NAME_RE.fullmatch(pair[0]) is not None
        and pair[1].isascii()
        and pair[1].isprintable()
    )


def basic_credentials(secret: str) -> bool:
    """``Authorization: Basic …`` and docker's ``"auth"``: base64 of ``user:password`` with a
    real password, for a user who can be (not at a domain kept for examples)."""
    pair = _basic_pair(secret)
    return (
        pair is not None
        and not _example_address(pair[0])
        and _password(pair[1])
        and plausible(pair[1], short=True)
    )


# The domains kept for documentation and tests (RFC 2606, RFC 6761): no account is at one
_EXAMPLE_ADDRESS_RE = lazy(
    r"[^@\s]+@(?:[\w-]+\.)*(?:example\.(?:com|net|org)|example|test|invalid|localhost)",
    re.IGNORECASE,
)


def _example_address(user: str) -> bool:
    """Whether ``user`` is an address at a domain kept for examples (``root@example.com``)."""
    return _EXAMPLE_ADDRESS_RE.fullmatch(user) is not None


# -- generic assignments and prose -----------------------------------------------------------------

_CAMEL_RE = lazy(r"(?<=[a-z0-9])(?=[A-Z])|(?<=[A-Z])(?=[A-Z][a-z])")  # apiKey; CSRFToken
_SPLIT_RE = lazy(r"[^A-Za-z0-9]+")

_SECRET_WORDS = frozenset(
    {
        "password",
        "passwd",
        "passphrase",
        "passcode",
        "pwd",
        "pass",
        "pw",
        "secret",
        "token",
        "apikey",
        "credential",
        "credentials",
        "creds",
        "skey",  # a secret key, as Duo's configurations name it beside ikey
    }
)
# "key" is a credential only after one of these ("api_key", "SECRET_KEY", "accessKey").
_KEY_QUALIFIERS = frozenset(
    {
        "api",
        "access",
        "secret",
        "private",
        "auth",
        "master",
        "encryption",
        "signing",
        "app",
        "client",
        "account",
        "service",
        "license",
        "webhook",
        "subscription",
        "admin",
        "consumer",
        "session",
        "hmac",
    }
)
# The words of a digest's name (sha1, sha256, md5: a name's number dropped): after a credential's
# word, however the name goes on, they name its digest (secret_name)
_DIGEST_WORDS = frozenset(
    _words("sha md5 hash hashed digest checksum bcrypt scrypt argon pbkdf crc blake sig signature")
)
# A name ending in one of these holds something about a secret, not the secret ("token_url",
# "password_file"; Vault's "secret_id_accessor", a handle that looks a credential up and cannot
# stand in for it; a test's "SECRET_MARKER", a string it looks for in output; a JSON Web Token's
# "jti", its id), and so does one
# ending in a digest's word.
_NOT_SECRET_TAILS = _DIGEST_WORDS | frozenset(
    _words(
        """
        id ids uid uuid guid identifier identifiers spec specs name names type types url uri urls
        endpoint path paths
        file files filename dir len length size count max min format fmt header headers
        field fields env var vars prefix suffix pattern regex re policy
        expiry expires expiration expired ttl timeout lifetime algorithm alg hint
        label placeholder prompt kind mode method scheme location version index idx position
        pos char chars class cls limit rule rules validator reset required enabled strength
        store manager provider source param params arg args option options opt question
        confirm confirmation policy label input form box widget dialog field_name reference
        ref arn help error errors message msg text title description desc display mask
        masked changed set get check validate validation regexp count counter lock kwarg
        callback handler fn func function factory audience aud issuer iss scope scopes realm
        phone email filter start end begin offset thru user users username usernames accessor
        accessors marker markers sentinel canary address addr host hostname port nonce denom denoms
        namespace ns jti sender
        """
    )
)
# Parts that say the value is no working credential: public, a flag about one, hashed (a digest of
# one: detect-secrets' baseline keeps each finding as its "hashed_secret"), a stand-in
# (``nonMatchingToken``, ``fake_password``, ``BAD_KEY``, motioneye's ``CLIENT_NOT_SO_SECRET``: an
# installed app's OAuth client secret, which Google calls no secret), ciphertext, made to be sent
# in the clear (a JSON Web Encryption's ``encrypted_key``, a sealed secret's ``encryptedData``,
# star-history's ``sealed_token`` in a README's chart URL),
# or a cursor or a request's id that an API calls a token (``continuationToken``, OAI-PMH's
# ``resumptionToken``, ``idempotency-token``: Azure's pagination, AWS's retries; and ``_cursor``'s
# names); a
# cross-site request forgery token, whose names run together in capitals too (Django's
# ``HTTP_X_CSRFTOKEN``, ``csrfmiddlewaretoken``, Rails' ``authenticity_token``: a page's nonce, no
# credential without the session); a password kept crypted (restful_authentication's and Authlogic's
# ``crypted_password`` column: its digest, in every user fixture);
# and Boomerang's (Akamai mPulse's) BOOMR_API_key, which every page it measures carries to every
# visitor (juriscraper's saved court pages, by the dozen)
_NOT_SECRET_PARTS = frozenset(
    _words(
        """
        public pub publishable is has use no not csrf xsrf csrftoken xsrftoken csrfmiddlewaretoken
        authenticity crypted
        old fake dummy mock invalid wrong bad boomr
        sample example expired revoked nonmatching nonexistent nonexisting nonvalid encrypted
        sealed continuation resumption pagination idempotency description hashed redir redirect
        """
    )
)
_NON_RE = lazy(r"(?<![a-z])non_(?=[a-z])")  # English's prefix: non-matching is one word
_TRAILING_DIGITS_RE = lazy(r"[0-9]+$")  # a name's number: token1, and a tail's: password_sha256


def name_parts(name: str) -> list[str]:
    """A name's words, lower-cased: ``nonMatchingToken`` is nonmatching, token."""
    snake = _NON_RE.sub("non", _CAMEL_RE.sub("_", name).lower().replace("-", "_"))
    return [part for part in _SPLIT_RE.split(snake) if part]


def _owned(name: str) -> tuple[str, list[str]]:
    """A member's own words and the word before them: what a dotted name holds is named by its
    last member (``token_embd.weight`` is a tensor's weight, ollama's digests of them;
    ``db.password`` a password); its owner's last word can only qualify it (``aws.secret.key``)."""
    *owners, own = _MEMBER_SEPARATOR_RE.split(name)
    parts = name_parts(own)
    if not parts:  # "token." or "a.-": no member of its own
        return "", name_parts(name)
    return next((p[-1] for p in map(name_parts, reversed(owners)) if p), ""), parts


# The next or previous page's token, as AWS and Google name a page's cursor: NextToken,
# nextPageToken, nextForwardToken, NextLockToken, prev_page_token, whatever words are before them (a
# test's TEST_NEXT_PAGE_TOKEN), and a page's own (pageToken, page_token: kratos' pagination links;
# with no word before it: fb_page_token is a Facebook page's credential); not NEXT_API_TOKEN
# (Next.js's setting) nor page_access_token (a Facebook page's credential). And the tokens AWS's
# APIs take so that a request is done once (ClientRequestToken, EFS's CreationToken) or a resource
# is changed only as last read (WAF's LockToken, Network Firewall's UpdateToken): a caller's own
# label, echoed in every recorded response (cloud-custodian's and cloudsploit's, by the hundred).
# And an item's feedback token, its handle for saying what one thinks of it (YouTube Music's
# feedbackToken and addToLibraryFeedbackToken, one per track in every recorded response; not a
# feedback service's API token). And Drupal's theme_token, in every page's ajaxPageState: which
# theme drew the page. And the App Store's appAccountToken, the id an app gives a user's account, in
# every transaction Apple signs, and its testNotificationToken, a test notification's id. And a
# task's token, the handle a workflow engine gives a task to be completed by (Temporal's and Step
# Functions' taskToken: completing one takes the engine's own credentials); and a token named for
# its place in a text, a marker (a tokenizer's bos_token and mask_token, SeleniumBase's
# OBFUSCATION_START_TOKEN), not a credential.
_CURSOR_RE = lazy(
    r"(?:next|prev|previous|page)(?:_(?:page|forward|backward|lock|sync))*_token"
    r"|(?:[a-z0-9_]*_)?(?:next|prev|previous)(?:_(?:page|forward|backward|lock|sync))*_token"
    r"|(?:client_request|lock|update|creation|theme|app_account|test_notification"
    r"|lifecycle_action|task)_token"
    r"|(?:[a-z0-9_]*_)?(?:feedback|start|end|stop|begin|bos|eos|pad|unk|sep|cls|mask)_token"
)
# AWS's ClientToken (clientToken in its events) is one of those too; Vault's client_token is its
# credential, so only AWS's spelling is read so (a Go struct of Vault's, ``ClientToken:``, is
# then missed; its hvs. tokens are found by their own rule)
_AWS_CLIENT_TOKEN = frozenset({"ClientToken", "clientToken"})
# The parts of a signed request that every such request carries in the clear, the secret it was
# signed with never among them: an STS session token (X-Amz-Security-Token, in every presigned URL
# and recorded request made with temporary credentials: the secret access key stays with the
# signer) and OAuth 1.0's client identifier (oauth_consumer_key, RFC 5849, in every Authorization
# header beside the signature: the consumer secret is never sent); and the id Postman gives each
# request it sends (Postman-Token, in every saved example and echo of one)
_SENT_IN_THE_CLEAR = frozenset({"x_amz_security_token", "oauth_consumer_key", "postman_token"})


def _says_no_secret(parts: list[str]) -> bool:
    """Whether a name's words say it holds no working credential, whatever its last word: one of
    them does (``_NOT_SECRET_PARTS``), or its last ones name what a request sends in the clear,
    whatever words come before them (a setter's ``setOauthConsumerKey``)."""
    joined = "_".join(parts)
    return not _NOT_SECRET_PARTS.isdisjoint(parts) or any(
        joined == sent or joined.endswith("_" + sent) for sent in _SENT_IN_THE_CLEAR
    )


def _cursor(parts: list[str]) -> bool:
    return _CURSOR_RE.fullmatch("_".join(parts)) is not None


# The first word of a call that looks a credential up, tests or derives it from its argument: a
# getter's key (wxjava's ``getAccessToken(code)``), a map's (``containsKey("dataId…")``), a
# document's (gspread's ``open_by_key(…)``), an assertion's expected text (lua-resty-openidc's
# ``assert_token_endpoint_call_contains(…)``), a file name a word is read from (unsloth's
# ``extract_quant_token("model-F16.gguf")``), a code exchanged for a token
_LOOKUP_VERBS = frozenset(
    _words(
        "get has is contains remove delete find lookup open check verify validate assert expect "
        "parse decode extract detect load read fetch revoke exchange hash compare match"
    )
)


_JENKINS_CREDENTIALS_STEP = "credentials"  # (as written: a class's Credentials("…") may take one)


def given_by_call(name: str) -> bool:
    """Whether a call of ``name`` gives its one argument as the credential it names: a setter's or
    a builder's (``setPassword``, ``withToken``, ``.apiKey``, ``setMchKey``), the credential's word
    its last; not a call that looks one up, tests or derives it (``_LOOKUP_VERBS``), nor Jenkins'
    pipeline step that gives a stored credential by its id (``TOKEN = credentials('<its id>')``)."""
    if name == _JENKINS_CREDENTIALS_STEP:
        return False
    owner, parts = _owned(name)
    before = parts[-2] if len(parts) > 1 else owner
    return bool(parts) and parts[0] not in _LOOKUP_VERBS and _names_one(before, parts[-1], "key")


def secret_name(name: str) -> bool:
    """Whether a variable, key or flag name says it holds a credential: not a getter's name, which
    names what it returns (a mock's ``On("GetKvSecret", "team1/appCredentials1")``, the method
    and the path it is asked for)."""
    owner, parts = _owned(name)
    if (
        not parts
        or parts[0] == "get"
        or _NOT_SECRET_TAILS.intersection((parts[-1], _TRAILING_DIGITS_RE.sub("", parts[-1])))
        or _says_no_secret(name_parts(name))
        or _cursor(parts)
        or _MEMBER_SEPARATOR_RE.split(name)[-1] in _AWS_CLIENT_TOKEN
    ):
        return False
    named = [
        place
        for place, (before, part) in enumerate(zip([owner, *parts[:-1]], parts, strict=True))
        if _names_one(before, part)
    ]
    return bool(named) and not _of_its_digest_or_id(parts, named[-1])


def _names_one(before: str, part: str, also: str = "") -> bool:
    """Whether a name's word ``part`` (after ``before``) names a credential: a credential's word,
    one ending in one (``accesstoken``), or "key" after a word that makes it one (``api_key``);
    ``also``: a word that names one here whatever comes before it (a setter's ``setKey``)."""
    return (
        part in _SECRET_WORDS
        or part.endswith(("password", "passwd", "secret", "token", "apikey"))
        or (part == "key" and before in _KEY_QUALIFIERS)
        or part == also
    )


def _of_its_digest_or_id(parts: list[str], at: int) -> bool:
    """Whether a name goes on, after its credential's word, to name the credential's digest,
    however it goes on (ClickHouse's ``password_double_sha1_hex``, ``token_sha256_b64``), or a
    password's salt, which is stored beside its digest (deluge's ``pwd_salt``, appwrite's
    ``passwordSalt``; a token's or a key's salt may be a key: tinode's ``api_key_salt`` signs), or
    the credential's id, however it goes on (go-webauthn's ``credentialIDHex``, ``credentialIDOne``,
    as ``credential_id`` is). And a password's digest named by its algorithm before the word
    (Graylog's ``GRAYLOG_SHA256_PASSWORD``, ``md5_password``: a key after one is an HMAC's)."""
    after = {_TRAILING_DIGITS_RE.sub("", part) for part in parts[at + 1 :]}
    before = _TRAILING_DIGITS_RE.sub("", parts[at - 1]) if at else ""
    return (
        (at + 1 < len(parts) and parts[at + 1] in _ID_WORDS)
        or not _DIGEST_WORDS.isdisjoint(after)
        or (before in _DIGEST_WORDS and parts[at] in _PASSWORD_WORDS)
        or (
            "salt" in after and (parts[at] in _PASSWORD_WORDS or parts[at].endswith(_PASSWORD_ENDS))
        )
    )


_PASSWORD_WORDS = frozenset({"password", "passwd", "passphrase", "passcode", "pwd", "pass", "pw"})
_ID_WORDS = frozenset({"id", "ids", "identifier"})  # right after a credential's word: its id
_PASSWORD_ENDS = ("password", "passwd")


def password_name(name: str) -> bool:
    """Whether a credential's name says password (people choose those, symbols and all), not key or
    token."""
    return any(p in _PASSWORD_WORDS or p.endswith(_PASSWORD_ENDS) for p in _owned(name)[1])


# Keys that are no credential whatever their value looks like: of data structures, databases,
# caches, keyboards, a WebSocket handshake's (Sec-WebSocket-Key, whose camel case reads "web
# socket": a nonce the client draws for each connection and sends in the clear, RFC 6455), and a
# CAPTCHA's site key, or its key named by the CAPTCHA alone (reCAPTCHA's, hCaptcha's, Turnstile's,
# Solve Media's: pyload's RECAPTCHA_KEY, the public half, in every page that shows one; its secret
# half is a "secret key" or a "private key"), and an analytics source's write key, which sends
# events and reads nothing (Segment's and RudderStack's, in every browser that loads the page, in
# every copy of a CLI's telemetry: ory's, novu's, taiga's, pygwalker's); a record's key in an API's
# data, an entity's or a template's (YouTube Music's entityKey and formItemEntityKey by the hundred
# in ytmusicapi's recorded responses, Box's templateKey; not a resource's: Azure calls its AI
# services' API key a resource key); and a minisign key, the public key a signed list is checked
# with (dnscrypt-proxy's minisign_key: a minisign secret key is a file of its own, encrypted, and
# a name for it says secret or private); a citation key, a work's label in a bibliography
# (citationKey, citation-key: Zotero's and Better BibTeX's, by the hundred in their tests); not a
# search key (Algolia's search-only key is public, but Bing's BING_SEARCH_KEY is a paid API's)
_DATA_KEYS = frozenset(
    _words(
        """
        primary foreign sort partition cache map dict hash hot short route i18n idempotency row
        column object storage lookup index unique composite natural surrogate group order dedup
        dedupe bucket s3 redis react list item registry translation message state query event config
        field websocket socket site captcha recaptcha hcaptcha turnstile solvemedia write entity
        template minisign citation
        """
    )
)


def service_key_name(name: str) -> bool:
    """A name ending in "key" after a word that is not a data structure's (``azureKey``,
    ``adzuna_key``; not ``KEY`` alone, nor ``cacheKey``): a service's key, if its value says so
    (``random_key``).
    """
    owner, own = _owned(name)
    parts = [owner, *own] if owner else own
    if not parts or parts[-1] != "key" or _says_no_secret(name_parts(name)):
        return False
    return len(parts) > 1 and parts[-2] not in _DATA_KEYS


def logged_secret_name(name: str) -> bool:
    """Whether the name a log line prints a value under says credential: as ``secret_name``
    (``phrase token1``: numbered), and also a key alone or after a service's name (``Using Key=…``,
    ``Using adobe KEY=…``), which a program's log prints as the key it is using; never a data
    structure's key (``cacheKey``) nor a public one.
    """
    parts = name_parts(name)
    if parts:
        parts[-1] = _TRAILING_DIGITS_RE.sub("", parts[-1]) or parts[-1]
    if not parts or _says_no_secret(parts) or parts[-1] in _NOT_SECRET_TAILS:
        return False
    key = parts[-1] == "key" and _DATA_KEYS.isdisjoint(parts[-2:-1])
    return key or secret_name("_".join(parts))


# The access key of a pair (an access key and a secret key: S3's, MinIO's, Scaleway's, AWS's
# AccessKey): like a user's name, it is sent in the clear with every request, and the secret key
# signs them. Its shape is an id's: capitals and digits (SCW… and 17, AKIA… and 16), where a secret
# key is random in both cases, or a UUID. A provider's format is its own rule's (aws-access-key-id).
_KEY_ID_RE = lazy(r"(?=[A-Z]*[0-9])(?=[0-9]*[A-Z])[A-Z0-9]{16,32}")


def access_key_id(name: str, value: str) -> bool:
    """Whether ``value``, under ``name``, is the id half of an access key pair: an access key
    (not a secret access key) of an id's shape."""
    parts = _owned(name)[1]
    return (
        parts[-2:] == ["access", "key"]
        and "secret" not in parts
        and _KEY_ID_RE.fullmatch(value) is not None
    )


_SPELLING_MOST = 4  # letters a value may add to its name: my, the, this


# A comment after a value that tells the reader to put their own in its place: a template's value,
# drawn once for the example (a Compose file's ``MINIO_ROOT_PASSWORD=… # change this``, ``… #
# Replace with a strong password``, ``# set a secure vpn password; e.g. via openssl rand``)
_COMMENT_START_RE = lazy(r"(?:^|\s)(?:#|//)")
_REPLACE_SAID = (
    r"\b(?:(?:change|replace|adjust|regenerate)\s+(?:this|me|it|with)\b"
    r"|(?:set|generate|use)\s+(?:a|your\s+own)\s+(?:secure|strong|random|new|unique)\b)"
)
_REPLACE_SAID_RE = lazy(_REPLACE_SAID, re.IGNORECASE)


def said_to_replace(rest_of_line: str) -> bool:
    """Whether what follows a value on its line is a comment that says to replace the value with
    one's own (``# change this``): a template's stand-in, however random it looks."""
    comment = _COMMENT_START_RE.search(rest_of_line)
    return comment is not None and _REPLACE_SAID_RE.search(rest_of_line, comment.end()) is not None


# ... and a comment line over values that tells the reader so, in a sentence of its own (``#
# Replace with your values``, ``# Note: You should change this value``, ``… YOU SHOULD CHANGE
# THIS.``); not one that says what a change does (Rails' ``# If you change this key, all old signed
# cookies will become invalid!``, over the secret it generated) or that one may (``You can change
# it below``)
_TOLD_TO_REPLACE_RE = lazy(
    r"(?:^[ \t]*(?:#|//)+|[.!])[ \t]*(?:(?:note|important|todo)[ \t]*:[ \t]*)?"
    r"(?:please[ \t]+|you[ \t]+(?:should|must|need[ \t]+to)[ \t]+)?" + _REPLACE_SAID,
    re.IGNORECASE,
)


def told_to_replace(comment_line: str) -> bool:
    """Whether a comment line says, in a sentence of its own, to replace the values under it."""
    return _TOLD_TO_REPLACE_RE.search(comment_line) is not None


# Words that give what follows them as an example: a value after them on their line is one
_EXAMPLE_SAID_RE = lazy(r"\b(?:for\s+(?:example|instance)|e\.\s?g\.)", re.IGNORECASE)


def said_to_be_an_example(line_before: str) -> bool:
    """Whether what precedes a value on its line says that an example follows (``For example
    'http://…?key=…'``, ``e.g. token=…``): a value shown, not a value kept."""
    return _EXAMPLE_SAID_RE.search(line_before) is not None


def spells_its_name(name: str, value: str) -> bool:
    """A value that is its name again, letters apart: code passing a variable on
    (``this.changePwdFlowV1 = changePwdFlowV1``), a stand-in that says what it stands for
    (``ConsumerKey = "my@consumer!key"``), respelled too (``client_secret: Cl1ent$ecret!``). A
    name of six letters or more: a random value never holds one. Or a value made mostly of its
    name's words, two of them side by side as in the name: a setting's key that names itself
    (``END_OF_YEAR_MODAL_KEY = "EndOfYearModalShowModal2025Key"``, ``wrappedPrivateKey =
    "v2PrivateKey"``). Or its name's last words, an option's key named after them
    (``OPTION_X509_PRIVATE_KEY = "x509privatekey"``). Or its name and a UUID: a record's key its
    code made so (``_named_id``). Or a member of its name (Bicep's ``radiusServerSecret:
    parameters.?vpn.?radiusServerSecret``: code passing an object's member on)."""
    own = _MEMBER_SEPARATOR_RE.split(name)[-1]
    named = own.lower().translate(_LETTERS_ONLY)  # _auth.Key
    if len(named) >= _RUN and _MEMBER_SEPARATOR_RE.search(value) is not None:
        member = _MEMBER_SEPARATOR_RE.split(value)[-1]
        if member.lower().translate(_LETTERS_ONLY) == named:
            return True
    for spelt in (value.lower(), _spelt(value.lower())):  # Cl1ent$ecret!
        short, long = sorted((named, spelt.translate(_LETTERS_ONLY)), key=len)
        if len(short) >= _RUN and short in long and len(long) - len(short) <= _SPELLING_MOST:
            return True
    return _its_last_words(own, value) or _of_its_names_words(name, value) or _named_id(own, value)


def _its_last_words(name: str, value: str) -> bool:
    """``value`` is the last words of ``name``, run together, six characters or more (an SDK's
    ``OPTION_X509_PRIVATE_KEY = "x509privatekey"``: the key an option is set by)."""
    parts = name_parts(name)
    joined = value.lower()
    return len(joined) >= _RUN and any(
        "".join(parts[start:]) == joined for start in range(1, len(parts))
    )


def _named_id(name: str, value: str) -> bool:
    """``value`` is ``name`` (of two words or more), a separator and a UUID: the key of a record
    that its code names after its kind (fides' ``"system_key": "system_key-8fe42cdb-…"``, by the
    dozen in its fixtures). A name of one word may be a credential's own (``apikey-<uuid>``, a key
    made so), and is judged as any."""
    return (
        len(name_parts(name)) > 1
        and value[: len(name)].lower() == name.lower()
        and _SEPARATED_UUID_RE.fullmatch(value, len(name)) is not None
    )


_LETTER_RUN_RE = lazy(r"[a-z]+")


def _letter_words(text: str) -> list[str]:
    """An identifier's words as a name's are read (``name_parts``), without their digits:
    ``Modal2025Key`` is modal, key."""
    return [word for part in name_parts(text) for word in _LETTER_RUN_RE.findall(part)]


def _of_its_names_words(name: str, value: str) -> bool:
    """Two of the name's words side by side in the value, as in the name, and the name's words at
    least half the value's letters: a random value holds no two words of its name, and one with a
    random part after them (``bedrock-api-key-<base64>``) is mostly that part."""
    words = _letter_words(name)
    pairs = set(itertools.pairwise(words))
    pieces = _letter_words(value)
    if pairs.isdisjoint(itertools.pairwise(pieces)):
        return False
    known = set(words)
    return 2 * sum(len(piece) for piece in pieces if piece in known) >= sum(map(len, pieces))


_DIGITS = frozenset("0123456789")
_LETTERS = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz")


def random_key(value: str) -> bool:
    """A value no one wrote by hand: 24 to 500 characters, letters and digits mixed, the entropy
    of random ones (ASCII: ``plausible_in_code``)."""
    if not 24 <= len(value) <= 500 or not plausible_in_code(value) or not plausible(value):
        return False
    return (
        entropy(value) >= 4.0 and not _DIGITS.isdisjoint(value) and not _LETTERS.isdisjoint(value)
    )


# a.b, a?.b (optional chaining), a!.b (TypeScript's non-null assertion), a::b, a->b
# (in any script: a translated guide's placeholder is a constant's name in its own language,
# DEIN_SUCH_API_SCHLÜSSEL, TU_LLAVE_DE_API_DE_BÚSQUEDA; no generator draws a letter past ASCII)
_IDENTIFIER_RE = lazy(r"(?:[^\W\d]|\$)[\w]*(?:(?:[?!]?\.|::|->)(?:[^\W\d]|\$)\w*)*(?:\(\))?")
# A digest's length in hex: MD5's, SHA-1's, SHA-256's and SHA-512's
DIGEST_HEX_LENGTHS = (32, 40, 64, 128)
_DIGEST_LENGTHS = frozenset(DIGEST_HEX_LENGTHS)


def hex_digest(dropped: int = 0) -> str:
    """A pattern for a digest in hex, of one of ``DIGEST_HEX_LENGTHS`` or up to ``dropped`` digits
    fewer (a number printed without its leading zeros)."""
    return "|".join(f"[0-9a-fA-F]{{{size - dropped},{size}}}" for size in DIGEST_HEX_LENGTHS)


# A password's hash: bcrypt, argon2 (an htpasswd line's, its user first: john:$2y$…), PostgreSQL's
# SCRAM verifier (SCRAM-SHA-256$4096:…), Django's (pbkdf2_sha256$600000$…), or a salt and a hex
# digest of MD5's to SHA-512's length after it (openlibrary's "enc_password": "ffe5d$98df…")
_PASSWORD_HASH = (
    r"^(?:[\w.@-]{1,64}:)?\$(?:2[abxy]?|argon2\w*|pbkdf2\S*|\d)\$|(?i:^scram-sha-\d+\$)"
    r"|^(?:pbkdf2_sha\d+|bcrypt_sha256|argon2|scrypt)\$"
    # The Things Stack's: PBKDF2$sha256$<iterations>$<salt>$<digest>, each key and token it stores
    r"|^PBKDF2\$sha\d+\$\d+\$"
    rf"|^[\w./+]{{1,32}}\$(?:{hex_digest()})$"
    # MySQL's own (mysql_native_password: "*" and SHA-1 twice, in capitals), as mysql.user keeps it
    # and Puppet's and Chef's MySQL modules take it
    r"|^\*[0-9A-F]{40}$"
)
_PASSWORD_HASH_RE = lazy(_PASSWORD_HASH)
# The date after a key's id in a signed request's credential scope (Signature Version 4's:
# <key id>/<date>/<region>/<service>/aws4_request), its slashes written or URL-encoded: the
# generic rule's values and the AWS key id rule read the scope by it
SCOPE_DATE = r"(?:/|%2[Ff])\d{8}(?:/|%2[Ff])"
# What a value in a credential's place is when it is no secret: code, a path, a hash, a version, a
# URL, a host name, a query string, addresses, a dunder name or a reference to a secret kept
# elsewhere. One pattern, each line one shape.
_REFERENCE_RE = lazy(
    "|".join(
        (
            # the rest of a path or chain whose name was taken for the name: Token::ZeroOrMore,
            # a?.b; or of a strict comparison, its first "=" taken for an assignment's (minified
            # code's ``t.currentPass===oV.ACTOR_PASS``)
            r"^[:.?!]|^==",
            r"^(?=__).*__$",  # a dunder name: __snapshotRegression_019ffd14__
            # a dotted quad (an address, a network: 10.0.0.0/8,127.0.0.1): no generated secret
            # holds one
            r"(?<![\w.])\d{1,3}(?:\.\d{1,3}){3}(?![\w.])",
            # code: a call, a variable (a Makefile's or compose file's $$ one too), an operator
            r"[()\[\]{}<>]|^(?:\$\$|[$@%&])\w|::|=>|\s",
            # an id: a type's name and numbers (Figma's ``VariableID:519:32875``)
            r"^[A-Za-z]+:\d+(?::\d+)*$",
            # a member joined to the strings either side of it, minified (an AWS signature's header:
            # ``"Credential="+this.accessKeyId+"/"``, the quotes read as the value's): no generated
            # secret holds a dot beside a plus
            r"^\+?(?:[A-Za-z_$][\w$]*\.)+[A-Za-z_$][\w$]*\+$|^\+(?:[A-Za-z_$][\w$]*\.)+[A-Za-z_$][\w$]*$",
            # a pointer's member, dereferenced (mediamtx's ``pass = *pconf.PublishPass``), or a YAML
            # alias (``password: *db_password``): what another place holds
            r"^\*(?:[a-z_]\w*\.)+[A-Za-z_]\w*$|^\*[a-z][a-z0-9]*(?:[_-][a-z0-9]+)*$",
            # a record's fields joined by bars or semicolons, each a name and its value (a
            # composite key: netdata's ``gpu=0|uuid=GPU-aaa|nvlink=1``; a style: draw.io's
            # ``strokeColor=none;shape=mxgraph.aws3.sts_2;…``), each of whose settings is read
            # on its own
            r"^[A-Za-z_][\w.]*=[^|;=]*(?:[|;][A-Za-z_][\w.]*=[^|;=]*)+;?$",
            # a path, or a JSON pointer into the document (a schema's #/definitions/…)
            r"^(?:[~.]{0,2}/|[A-Za-z]:\\|#/)",
            # an element's id, as a CSS selector or jQuery names it (#fe_login_username)
            r"^#[a-z][a-z0-9]*(?:[_-][a-z0-9]+)+$",
            # a date and time, as ISO 8601 writes it (a password's last change:
            # admin.passwordMtime: 2019-03-20T17:54:53Z)
            r"^\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?(?:Z|[+-]\d{2}:?\d{2})?$",
            # a command's next option (`gpg --list-secret-keys --keyid-format LONG`), not the value
            # of the one before it, or a CSS custom property (a design token: --color-series-2,
            # --color-apiKeys)
            # (or a switch: PowerShell's -PassThru -NoNewWindow, ffmpeg's -hide_banner, a compiler's
            # -Wno-c++98-compat-pedantic), its value after it (kubectl's -ojsonpath=, in a chart's
            # notes)
            r"^--[a-z]+(?:-[A-Za-z0-9]+)*=?$|^-[A-Za-z]+(?:[-_][a-z0-9+]+)*=?$",
            # ... in camel case (vsce's --packagePath), or a list of a build's options, comma
            # separated (Yocto's PACKAGECONFIG[libsecret] = "--with-libsecret=yes,…",
            # "-DUSE_LIBSECRET=ON,…")
            r"^--[a-z]+(?:[A-Z][a-z]+)+$|^(?:--[a-z]+(?:-[a-z0-9]+)*|-D[A-Za-z][A-Za-z0-9_]*)=[\w.-]*,",
            # an environment variable named in a configuration's own syntax (octodns'
            # ``api_key: env/NS1_API_KEY``, ``env:TOKEN``): where the secret is kept; or in
            # OpenSSL's, a passphrase given from a shell's variable (``-password pass:$KEYSTOREPW``)
            r"^env[/:][A-Za-z_]\w*$|^pass:\$\{?[A-Za-z_]\w*\}?$",
            # a number as code writes it in hex, a machine word at most (SIOCGLIFTOKEN = -0x3f87…);
            # a key written so is longer (an Ethereum key: 0x and 64 digits)
            r"^[-+]?0[xX][0-9a-fA-F]{1,16}$",
            # numbers joined by commas, one with a fraction at least: a point, a vector (nba_api's
            # passReleasePoint: -423.611,-13.237,104.683), never a generated secret
            r"^(?=[^.]*+\.)[-+]?\d+(?:\.\d+)?(?:, ?[-+]?\d+(?:\.\d+)?)+$",
            # an Ethereum address, an account's or a contract's (an ERC-20 token's, which web3 code
            # calls a token: "burnToken": "0xaf88…"): 20 bytes, public; a private key is 32
            r"^0x[0-9a-fA-F]{40}$",
            # a validation's rules (Laravel's 'password' => 'required|string|min:6'), or the first
            # of them, the others added in code ('confirmed|'.Setting::passwordComplexityRules())
            r"^[a-z_]+(?::[\w,.-]*)?(?:\|(?:[a-z_]+(?::[\w,.-]*)?)?)+$",
            # a string's placeholder in Crowdin's in-context pseudo-language, in a translation file
            # (snipe-it's resources/lang/aa-ER: 'password' => 'crwdns6846:0crwdne6846:0'), its
            # colons escaped in Java's properties (maptool's ``crwdns468\:0crwdne468\:0``)
            r"^crwdns\d+\\?:\d+crwdne\d+\\?:\d+$",
            # a relative path to a file (a cache's key: files/default/logs/2022/10/6982_2_1.parquet)
            # ... or to a stored object, by the day it was stored (apitable's attachments'
            # tokens: space/2021/05/29/a1cd…): no generated secret holds a date between slashes
            r"(?:^|/)(?:19|20)\d{2}/[01]?\d/[0-3]?\d/",
            r"^[\w-]+(?:/[\w.-]+)+\.[A-Za-z][A-Za-z0-9]{1,7}$",
            # a file's name: a key's, a configuration's, a program's or a library's
            # (BinaryKey='MicrosoftEdgeWebView2RuntimeInstaller.exe'), a document's, an image's, a
            # model's (unsloth's ``gguf_variant_key("model-IQ4_XS-….gguf")``)
            r"\.(?:pem|key|crt|cer|json|txt|p12|pfx|ya?ml|env|cfg|ini|conf|toml|xml|exe|dll|msi"
            r"|so|dylib|jar|wasm|js|mjs|ts|py|rb|sh|ps1|html?|md|pdf|png|jpe?g|gif|svg|zip|tar|gz"
            r"|gguf|safetensors|onnx|ckpt)$",
            # a hash: sha256:…, and an HMAC's (Vault's audit log: hmac-sha256:…), or one a tool
            # names as its own (ReversingLabs' reports give each secret found as rl-sha256:…)
            r"(?i:^(?:[a-z]{1,8}-)?(?:hmac-)?(?:sha\d*|md5|blake2[bs]?|xxh\d*)[:\-$])",
            _PASSWORD_HASH,
            # a media type's suffix, a token's "typ" (RFC 9068's at+jwt, OpenIddict's oi_reft+jwt)
            r"^[\w.-]+\+(?:jwt|json|xml|cwt)$",
            # 1.2.3, v1.2, and the ranges of package manifests and lockfiles: ^3.922.0, ~1.2, >=2.0
            # (yarn's and pnpm's with their protocol: npm:^4.0.23, workspace:~1.2)
            r"^(?:(?:npm|workspace|jsr):)?(?:[~^]|[<>]=?|=)?v?\d+(?:\.(?:\d+|[xX*]))+"
            r"(?:[-+.][A-Za-z0-9.]+)?$",
            # a package and the versions it takes: langchain-core==1.5.1, requests>=2.31
            r"^[A-Za-z][\w.-]{0,80}(?:\[[\w,.-]{1,80}\])?(?:===?|[<>!~]=|[<>])v?\d+(?:\.[\w*]+){0,6}$",
            # a signed request's credential scope (AWS Signature Version 4's, which Google's V4
            # signing copies: X-Amz-Credential=<key id>/<date>/<region>/<service>/aws4_request), in
            # a presigned URL: it names the key and holds none of it
            r"(?:/|%2[Ff])(?:aws4|goog4)_request$",
            # ... its beginning, where a string is cut: the key's id and the date (aiobotocore's
            # ``X-Amz-Credential=akid%2F20161107%2F'``)
            r"^\w{3,128}" + SCOPE_DATE,
            # the key a token cache keeps an entry under, as Microsoft's authentication libraries
            # (MSAL) write it: <account>-<environment>-<credential type>-<client id>-<tenant>-…,
            # and their iOS keychain's keys, which begin with the type (idtoken-<client id>-…)
            r"(?:^|-)(?:accesstoken(?:_with_authscheme)?|idtoken|refreshtoken|appmetadata)-"
            r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}",
            # a URL, a name (ARN, URN, a DID: did:key: names a public key; a WebDAV lock's:
            # Lock-Token, opaquelocktoken:), a secret
            # kept elsewhere, or kept encrypted or obfuscated, as it says first (dotenvx's
            # encrypted:…, made to be committed; netmiko's __encrypt__…, Foreman's encrypted-…,
            # @vates/obfuscate's obfuscated-…)
            r"://|^(?:file:|arn:|urn:|did:|opaquelocktoken:|ref\+|vault:)"
            r"|^_{0,2}(?:encrypt(?:ed)?|obfuscated)(?:__|[:-])",
            # ciphertext in its tool's format, its key kept elsewhere: SOPS' ENC[AES256_GCM,…],
            # Ansible Vault's, OpenSSL's salted (base64 of "Salted__"), Bitwarden's EncString
            # (<type>.<iv>|<data>|<mac>: bitwarden's and vaultwarden's wrapped keys)
            r"^(?:ENC\[AES256_GCM,|\$ANSIBLE_VAULT;|U2FsdGVkX1)"
            r"|^[0-9]\.[A-Za-z0-9+/]{16,}={0,2}\|[A-Za-z0-9+/]{16,}={0,2}(?:\|[A-Za-z0-9+/]+={0,2})?$"
            # ... or Windows CryptoAPI's: a block cipher's key wrapped by a machine's RSA
            # key-exchange key, as IIS's AesProtectedConfigurationProvider keeps its sessionKey in
            # every applicationhost.config (base64 of a SIMPLEBLOB: 01 02 00 00, the cipher's
            # ALG_ID, CALG_RSA_KEYX)
            r"|^AQIAA[A-P][A-Za-z0-9+/]mAAAApAAA",
            # ... or DevEco's (HarmonyOS' signing passwords in build-profile.json5: a length in
            # four bytes, then the ciphertext, in upper-case hex)
            r"^0{5}[0-9A-F]{3}(?:[0-9A-F]{2}){32,}$",
            # a marker written between signs: PostScript's comments (``$endToken =
            # '%%EndICCProfile'``), SpamAssassin's magic tokens (``'**LASTEXPIRE'``)
            r"^(?:%%|\*\*)[A-Za-z]+$",
            # a host name: 4f2a9c.acme-invoices.com
            r"^(?:[a-z0-9-]+\.)+(?:com|net|org|io|dev|app|cloud|ai|co|us|eu|uk|de)$",
            # a query string or a form's body, each of its parameters judged on its own
            # (names and URL-encoded values: dates, versions, words; Django's keys hold "&" and "=",
            # and symbols no query leaves unescaped)
            r"^[A-Za-z_][\w.-]*=[\w.~%:+/,-]*(?:&[A-Za-z_][\w.-]*=[\w.~%:+/,-]*)+$",
        )
    )
)
# (an elliptic curve's name is one part: Secp256k1Keypair, P256Keypair, X25519PublicKey)
_CURVE_NAMES = r"(?i:secp(?:256|384|521)[kr]1|[pk](?:256|384|521)|ed(?:25519|448)|x(?:25519|448))"
# ... and so is a numeronym, a name spelt with its number (s3AccessKeySecret, k8sSecretName,
# OAuth2ClientCredentialsAuthenticationStrategy)
_NUMERONYMS = (
    r"(?i:s3|ec2|k8s|e2e|i18n|l10n|a11y|p2p|b2[bc]|x86|x64|amd64|arm64|aarch64|i[36]86|oauth[12])"
)
_CAMEL_PART = (
    rf"{_CURVE_NAMES}|{_NUMERONYMS}|[A-Z][a-z]+|[a-z]{{2,}}|[A-Z]{{2,}}(?![a-z])"
    r"|[A-Z](?=[A-Z][a-z])|\d{1,4}"
)
_CAMEL_WORDS_RE = lazy(rf"(?:{_CAMEL_PART}){{2,6}}")
_CAMEL_PART_RE = lazy(_CAMEL_PART)
# Two-letter words and abbreviations of names in code (isOptedIn, labelsById, userMsgBg,
# makeMockFn, render2FaUserSettings: two-factor): a camel-case value with any other two-letter part
# (muisRSZTuJIF88: "Tu") is more likely random than a name.
_SHORT_PARTS = frozenset(
    _words(
        """
        is to by in on of at as id ai ui vs ms or if my no up do go db io os js ts ok be we me it an
        am re un de en ip tx rx fs qr pr ci cd dx hz kb mb gb px em ex eq ne lt gt le ge op fn ws bg
        fg md lm lg qs rm mc na fd ca py fa
        """
    )
)
# A name of any length, its words of three letters or more (twilio-node's
# ``credentialListMappings: AuthRegistrationsCredentialListMappingListInstance;``, a type), or
# a sentence in camel case, the short parts names hold among them (mbin's guide's
# ``aLargeEncodedTokenToBeUsedInTheAuthorizationHeader``; eShopOnWeb's
# ``AuthKeyOfDoomThatMustBeAMinimumNumberOfBytes``, its article and all): random characters do not
# fall into words from end to end
_TYPE_WORD = rf"(?:A|I|{'|'.join(sorted(map(str.capitalize, _SHORT_PARTS)))})*[A-Z][a-z]{{2,}}"
_TYPE_NAME_RE = lazy(rf"[a-z]+(?:{_TYPE_WORD}){{2,}}|(?:{_TYPE_WORD}){{3,}}")
# ... and an identifier of words with numbers and acronyms among them, in camel case, its parts
# joined by dots or not (IntuneManagement's resource keys:
# ``mediaContentRatingAppsAgesAbove12Option``, ``…RunIn64BitPSOptionPicker.label``): a word of three
# letters or more has a vowel and no four consonants in a row, and only the first, or one after a
# joint, begins in small letters; IDENTIFIER_WORDS_LEAST words of three letters or more, four
# fifths of the value's characters at least. One random value of 24 characters in some 300,000
# falls into such words.
_IDENTIFIER_PART_RE = lazy(r"[A-Z]?[a-z]{2,}|[A-Z][a-z]|[A-Z]{2,4}(?![a-z])|\d{1,4}|[._-]")
IDENTIFIER_WORDS_LEAST = 5


def identifier_of_words(value: str) -> bool:
    """Whether ``value`` is words in camel case from end to end, numbers and acronyms among them."""
    end = words = letters = 0
    joint = True  # the value's start, as after a joint: a word may begin in small letters
    for part in _IDENTIFIER_PART_RE.finditer(value):
        text = part[0]
        if part.start() != end or (text[0].islower() and not joint):
            return False
        end, joint = part.end(), text in _WORD_JOINTS
        if len(text) >= 3 and not text.isupper() and text.isalpha():
            if not _spoken(text.lower()):
                return False
            words += 1
            letters += len(text)
    return end == len(value) and words >= IDENTIFIER_WORDS_LEAST and 5 * letters >= 4 * len(value)


# between an identifier's names (_IDENTIFIER_RE): TypeScript's and C#'s ``?.``, Bicep's ``.?``
_MEMBER_SEPARATOR_RE = lazy(r"[?!]?\.\??|::|->")
# ... and Django's development keys, which startproject marks insecure (django-insecure-…), and
# the keys their providers publish to be public, in a browser's page or an app: Stripe's and
# Clerk's publishable keys (pk_live_), Mapbox's public tokens (pk.), Supabase's publishable keys,
# a Salesforce connected app's consumer key (3MVG9), PostHog's project keys (phc_, which only
# send events; its personal keys, phx_, are secret), and the public halves of Tailscale's keys as
# its control protocol writes them (a node's, a machine's, a disco key, a challenge's, a network
# lock's: nodekey:<hex>, mkey:, discokey:, chalpub:, nlpub:; never privkey: nor nlpriv:)
_TEST_RE = lazy(
    r"(?:^|[^a-z])test(?:[^a-z]|$)|^test|^django-insecure-"
    r"|^acc[-_]?test"  # a Terraform provider's acceptance tests' values (its acctest package)
    r"|^pk_live_|^pk\.|^sb_publishable_|^3mvg9|^phc_"
    r"|^(?:nodekey|mkey|discokey|chalpub|nlpub):[0-9a-f]{64}$"
    r"|^(?:access|link|public)-sandbox-"  # Plaid's sandbox: made-up banks and accounts
    # Elastic App Search's public search key (search-…), made for a browser's search box: its
    # private keys are private-…
    r"|^search-[a-z0-9]{24}$"
    # a BIP 32 extended public key (xpub…; testnet's tpub, SegWit's ypub, zpub, upub, vpub): a
    # wallet's public half, given out to watch it (its private half is xprv…)
    r"|^[tuvxyz]pub[1-9a-z]{100,112}$"
    # Nx Cloud's read-only access token, base64 of its id and "|read-only", committed in nx.json
    r"|^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\|read(?:-only)?$"
    # Microsoft's 1DS (Aria) telemetry tenant token, the ingestion key every copy of Office.js and
    # its telemetry libraries gives the browser (ariaTenantToken): 32 hex digits, a UUID, a number
    r"|^[0-9a-f]{32}-[0-9a-f]{8}-(?:[0-9a-f]{4}-){3}[0-9a-f]{12}-[0-9]{4}$"
)
_LETTERS_RE = lazy(r"[^a-z]+")
# The words a stand-in says it is by (…ThisIsNotARealKey, a super or a totally secret, XKCD's
# horse, a test database's root:for_testing@localhost, a strong one, where one goes, or what it is)
# ...
_STAND_IN_SAID = (
    r"password|passwd|passphrase|changeme|sample|fake|dummy|mock|invalid|notvalid|foobar|hunter2"
    r"|correcthorse|(?:super|top|very|totally|really|ultra|extra)secret|secretkey|notareal|notreal"
    r"|notactual|strongpass|for_?test|rotate_?me"
    # a guide's reader's strong password (sa:myStr0ngP%40assword), where a token goes (a guide's
    # k0met4t0k3nh3r3, r3fr3sht0k3ng0e5h3r3: "token here", "goes here" respelled)
    r"|(?:my|your)_?strong_?p|goes_?here|(?:token|key|secret|password)_?here"
    # a value that says what it is, in a sentence (cjdns' guides' thisisauniquestring_001, a
    # test's 1-THISVALUEMUSTNEVERAPPEARINANERRORRESPONSE)
    r"|this_?(?:is|value)"
)
_STAND_IN_SAID_RE = lazy(_STAND_IN_SAID)  # in words: what a URL's password is judged by
# ... and runs typed into a made-up value (a credential's word counted on: PR0DUCT10nS3CRET12345;
# a test's word: an STS session token's head and test1234, FwoGZXIvYXdz…test1234==;
# a value that says it is random: AIRaNdOmX4ULR…), and the words hex can spell, which programmers
# write for a value that stands for one (deadbeef, cafebabe): a random hex string holds eight of
# them in a row once in four billion
_STAND_IN_MARKERS_RE = lazy(
    _STAND_IN_SAID
    + r"|abc123|123abc|(?:secret|token|key|test)123|random|s3cr3t|canary"
    + r"|deadbeef|cafebabe|feedface|baadf00d|deadc0de|8badf00d|decafbad|c0ffee"
)
_STAND_IN_WORDS = (
    frozenset(
        _words(
            """
        password passwd pass passw pw pwd secret secrets token apikey key test testing tester
        testpass testpassword testsecret testtoken secretkey supersecret topsecret letmein qwerty
        admin adminpass administrator root default foo bar baz hunter dev devpass demo local
        localpass abc abcd abcdef xyz user username pa ssword accesstoken refreshtoken authtoken
        apitoken
        """
        )
    )
    | _DETERMINED
)
_HEX_RE = lazy(r"^[0-9a-fA-F]+$")
# words joined, in any script: old-access, workos:old-access, API-токен (a guide's "API token")
_WORDS_RE = lazy(r"^[^\W\d_]+(?:[-_.:/][^\W\d_]+)*$")
_LOWER_OR_DIGITS_RE = lazy(r"^[a-z0-9]+(?:[-_.][a-z0-9]+)+$")
_NOT_VALUES = frozenset(
    _words(
        """ none null nil undefined true false yes no on off required optional unknown empty string
        str bytes int data todo
        tbd fixme secret password token hidden masked redacted env environ
        issuer subject audience
        """
    )
)
_NOT_SECRETS = _NOT_VALUES | _COMMON_PASSWORDS  # words, and passwords everyone tries


_CLAUSE_ENDS = frozenset(".,:;")
# A sentence in another script going on after a value: full-width and CJK punctuation ends the value
# as a space would (a guide's ``&token=yyy）を含めます。``), and a typographic dash joins words as
# "-" does (``password=strong‑pw‑here``, its hyphens non-breaking)
_SENTENCE_GOES_ON_RE = lazy("[\u3000-\u303f\uff01-\uff0f\uff1a-\uff20]")
_DASHES = str.maketrans(dict.fromkeys("\u2010\u2011\u2012\u2013\u2014\u2015\u2212", "-"))


def _own_part(value: str) -> str:
    """A value without the sentence in another script that goes on after it, its dashes "-"."""
    if value.isascii():
        return value
    return _SENTENCE_GOES_ON_RE.split(value, maxsplit=1)[0].translate(_DASHES)


# an environment variable's name, or a setting's or a cookie's in camel case or lower case, three
# letters or more (a test's ``apimlAuthenticationToken=tokenValue``; a drawn password's first
# letter and its "=", ``z=KN36.6``, are not a name)
_ASSIGNED_RE = lazy(r"_?[A-Z][A-Z0-9_]{2,}|[a-z]{3}[a-z0-9]*+(?:[A-Z][a-z0-9]*+)*+")
_BASE64_MARK = "base64:"
_DOCUMENT_MARKS = frozenset("{}[]<>\"'=")


# A quote as HTML escapes it, which closes a value written in an attribute's or a page's text
# (tiddlywiki's guide: --listen username=joe &quot;password=bloggs&quot;)
_HTML_QUOTE_RE = lazy(r"&(?:quot|apos|#3[49]|#[xX]2[27]);?$")
# A backslash before a sign, Markdown's escape of it (a guide's ``the token is org\-scoped``)
_MARKDOWN_ESCAPE_RE = lazy(r"\\(?=[-_*#+.!|~`])")
# A character written as its code, as Java's properties files, JSON and JavaScript write one
# (zanata's ``jsf.Password=\u015Eifre``: "Şifre", Turkish for the word)
_CODE_ESCAPE_RE = lazy(r"\\u([0-9a-fA-F]{4})")
# A setting's name and its "=", after an empty setting (``key= password= queue_dir=``)
_NEXT_SETTING_RE = lazy(r"[a-z][a-z0-9]*+(?:_[a-z0-9]++)++=")


# base64's padding in a URL's query, escaped (``…TXpreg%3D%3D``)
_ESCAPED_PADDING_RE = lazy(r"(?:%3[Dd]){1,2}$")


def _as_meant(value: str) -> str:
    """A value without what the text around it adds: the quote HTML escapes (bloggs&quot;),
    Markdown's escapes of signs (org\\-scoped), the sign that ends a clause, the "=" of the next
    setting's name (``password= queue_dir=``) and "about" before a number (``~50-100ms``); its
    characters written as codes (``\\u015E``) read as themselves, and base64's padding a URL
    escaped (``%3D``) as itself."""
    value = _CODE_ESCAPE_RE.sub(lambda code: chr(int(code[1], 16)), value)
    value = _MARKDOWN_ESCAPE_RE.sub("", _HTML_QUOTE_RE.sub("", _own_part(value)))
    if value[-1:] in _CLAUSE_ENDS and value[-2:-1] not in _CLAUSE_ENDS:  # not an ellipsis
        value = value[:-1]
    if _NEXT_SETTING_RE.fullmatch(value):  # (base64 padded so would draw capitals too)
        value = value[:-1]
    value = _ESCAPED_PADDING_RE.sub(lambda pad: "=" * (len(pad[0]) // 3), value)
    return value[1:] if value[:1] == "~" and value[1:2].isdigit() else value


def plausible(value: str, *, short: bool = False) -> bool:
    """Whether a value in a credential's place looks chosen to be hard to guess, rather than
    code or a stand-in, read without the escapes of the document it is in (HTML's quote,
    Markdown's signs). The full stop, comma, colon or semicolon that ends a clause or an argument
    is not the value's: ``-token verwenden.`` is a word, ``password=PGVECTOR_PASS,`` a constant."""
    value = _as_meant(value)
    length = len(value)
    if length < (6 if short else 8) or length > 2000:
        return False
    if _base64_pair(value):
        return basic_credentials(value)
    inner = _inner_value(value)
    if inner is not None:
        return plausible(inner, short=short)
    lowered = value.lower()
    if (
        _stand_in(value, lowered)
        or _code_or_reference(value)
        or _TYPE_NAME_RE.fullmatch(value) is not None
        or identifier_of_words(value)
        or made_up(value)
        or _encoded_document(value)
        or public_point(value)
    ):
        return False
    verdict = _name_like(value, length)
    if verdict is not None:
        return verdict
    return _mixed_and_random(value, length)


def _inner_value(value: str) -> str | None:
    """The value a value carries, to be judged instead: the text base64 or hex encodes (a
    Kubernetes Secret's data, echo's newline and all: "TOKEN was templated", "great-name"; a text
    too short to be found written plain is as short encoded: "dante"), what follows the encoding
    a value names (Laravel's ``base64:…``), a password's hash encoded (rauthy's dashboard
    password: base64 of ``$argon2id$v=19$…``), or the
    value of the setting it is (tox's ``py312: _TESTPATH=tests/unit``, a shell's ``env FOO=bar``, a
    cookie's ``apimlAuthenticationToken=tokenValue``).
    Not a document's ({"auths": …}: a credential as a whole, whose members the decoded layer's scan
    reads), nor base32's padding (``…IJIQ====``)."""
    if value.startswith(_BASE64_MARK):  # Laravel's APP_KEY names its encoding: base64:somekey
        return value.removeprefix(_BASE64_MARK)
    text = _encoded_text(value) if len(value) % 4 == 0 else None
    if text is not None and (
        _DOCUMENT_MARKS.isdisjoint(text) or _PASSWORD_HASH_RE.match(text) is not None
    ):
        return text
    assigned, _, rest = value.partition("=")
    if (
        rest[:1] not in ("", "=")
        and "=" not in rest.rstrip("=")  # one setting, not a chain of them judged one by one
        and _ASSIGNED_RE.fullmatch(assigned)
    ):
        return rest
    return None


# a number, or numbers in a list (ids a link carries, base64 of base64 of
# ``1189349&7044&0&42536,42537``: a spam mail's tracking link), which no generator of secrets writes
_NUMBERS_RE = lazy(r"\d+(?:[,;&|]++\d+)*")


_MADE_UP_PART = 8  # a token's header or signature shorter than a JWT's shortest (eyJhbGciOi…)


def _encoded_texts(value: str) -> list[str]:
    """The texts a value's pieces encode, where a stand-in may say what it is: its last piece,
    after a name or a prefix (MinIO's ``name:key``, ``DMS_<base64>``), and a token's middle between
    two parts made up short (teams-toolkit's mocks' ``a.<base64 of {"userId":"test@test.com"}>.c``;
    a signed token's claims may say "test" of anything, and its header and signature are long)."""
    pieces = [_LAST_PIECE_RE.split(value)[-1]]
    parts = value.split(".")
    if len(parts) == 3 and max(len(parts[0]), len(parts[2])) < _MADE_UP_PART:
        pieces.append(parts[1])
    return [text for text in map(_encoded_text, pieces) if text is not None]


def _stand_in(value: str, lowered: str) -> bool:
    """A word, a number, numbers in a list, a placeholder, a documented example, a test or
    publishable key, hex or base64 of one (``bXktc2VjcmV0LWtleTEy…``: ``my-secret-key12…``;
    ``6368616e676520…``: ``change this password…``), or the digest of a password everyone tries:
    not a real secret."""
    if (
        lowered in _NOT_SECRETS
        or _NUMBERS_RE.fullmatch(value) is not None
        or is_placeholder(value)
        or is_documented_example(value)
        or repeated(lowered)  # base64 of "Selfselfself…" (matrix-js-sdk's test key)
        or _default_words(lowered)
        or _common_digest(lowered)
    ):
        return True
    if any(_stand_in(text, text.lower()) for text in _encoded_texts(value)):
        return True
    spelt = _spelt(lowered)  # p@ssw0rd, s3cr3t: the same words in digits and symbols
    # "fake-token", "Secret123!", "testpass1": a stand-in, or a password nobody should use; and
    # test-mode and publishable keys (sk_test_…, pk_live_…), fixtures
    return (
        any(
            _STAND_IN_MARKERS_RE.search(form)
            for form in (lowered, spelt, _JOINTS_RE.sub("", spelt))  # correct_hor$e_battery
        )
        or not _STAND_IN_WORDS.isdisjoint(
            (_LETTERS_RE.sub("", lowered), _LETTERS_RE.sub("", spelt))
        )
        or _TEST_RE.search(lowered) is not None
        # respelled, at its start only: t3stc0ntain3rs! (random hex spells one anywhere: 527e579)
        or spelt.startswith("test")
        # s3cret-not-a-number; a provider's prefix and words in camel case (fbk_validApiKey123),
        # respelled too (S0meVeryL0ngT0ken)
        or any(map(_names_itself, (lowered, spelt, *map(_camel_words, _cased_forms(value)))))
    )


def _cased_forms(value: str) -> tuple[str, str]:
    """A value's last piece as written and respelled, its case kept: camel case's words are read
    in both (``fbk_validApiKey123``, ``S0meVeryL0ngT0ken``)."""
    last = _LAST_PIECE_RE.split(value)[-1]
    return last, _spelt(last)


def _words_and_a_typed_run(lowered: str) -> bool:
    """Words and one run along the keyboard or the alphabet of six keys or more (appwrite's
    ``organization_abcd1234``, ``prod-qwerty123``): no generator draws the run; a person typing a
    stand-in does."""
    typed = [piece for piece in _PIECES_SPLIT_RE.split(lowered) if not piece.isalpha()]
    return len(typed) == 1 and len(typed[0]) >= _RUN and _typed_run(typed[0])


_DIGESTS = ("md5", "sha1", "sha256", "sha512")
# ... and the NT hashes (MD4 of UTF-16) of the few tried first, which wpa_supplicant takes for a
# password as ``hash:<hex>`` (hostapd's tests: ``hash:8846f7ea…``, "password"); hashlib has no MD4
# where OpenSSL 3 leaves it out, so they are written here, each beside its password
# (tests/test_scan_nt_hashes.py computes them again)
NT_HASH_OF = {
    "": "31d6cfe0d16ae931b73c59d7e0c089c0",
    "password": "8846f7eaee8fb117ad06bdd830b7586c",
    "Password": "a4f49c406510bdcab6824ee7c30fd852",
    "admin": "209c6174da490caeb422f3fa5a7ae634",
    "secret": "878d8014606cda29677a44efa1353fc7",
    "123456": "32ed87bdb5fdc5e9cba88547376818d4",
    "12345678": "259745cb123a52aa2e693aaacca2db52",
    "test": "0cb6948805f797bf2a82807973b89537",
    "changeme": "6597d9fe8469e21d840e2cbff8d43c8b",
    "letmein": "becedb42ec3c5c7f965255338be4453c",
    "qwerty": "2d20d252a479f485cdf5e171d93985bf",
    "root": "329153f560eb329c0e1deea55e88a1e9",
}
_COMMON_NT_HASHES = frozenset(NT_HASH_OF.values())


def _common_digest(lowered: str) -> bool:
    """The digest of a password everyone tries, in hex, a prefix that names it before it or not
    (``hash:``)."""
    digest = lowered.rpartition(":")[2]
    return len(digest) in _DIGEST_LENGTHS and (
        digest in _common_digests() or digest in _COMMON_NT_HASHES
    )


@cache
def _common_digests() -> frozenset[str]:
    """The hex digests of the passwords everyone tries, as written, capitalised or in capitals, of
    nothing and of a tutorial's "hello" (a sample database's ``sha1('12345')``, a test's
    ``md5('password')``, an empty body's SHA-256): in every rainbow table, no secret."""
    import hashlib  # lazy: the pre-commit hook's start-up

    words = _COMMON_PASSWORDS | {"", "12345", "123456789", "1234567890", "111111", "000000"}
    words |= {"hello", "hello world"}  # every hashing tutorial's (tyk's sample token: sha1 'hello')
    words |= set("0123456789")  # a digit's: matomo's test users' token is md5('1')
    words |= {*map(str.capitalize, words), *map(str.upper, words)}  # guacamole's md5('PASSWORD')
    pairs = itertools.product(_DIGESTS, words)
    return frozenset(hashlib.new(name, word.encode()).hexdigest() for name, word in pairs)


_LAST_PIECE_RE = lazy(r"[:_]")  # what comes before a value's encoded part: its name, a prefix
_PIECES_SPLIT_RE = lazy(r"[-_.:]+")
# ... and the words that say what a made-up value is made of (SomeRandomStringOf32CharsExactly)
_CREDENTIAL_WORDS = frozenset(
    _words(
        """
        key keys apikey token tokens secret secrets password passwd pwd credential credentials
        random string chars characters
        """
    )
)
_WORDS_BESIDE = 3  # words among a value's pieces, a credential's word one of them
_LONGEST_PIECE = 12  # a word's, or a number's typed beside them (12345)


# Words in camel case, numbers among them, an acronym last: aTokenWithLengthOf30characters,
# averyLongSecretToSeedTheDB, a sentence, not a draw (each capital begins a word; a random value
# puts two capitals side by side within a few letters)
_CAMEL_SENTENCE_RE = lazy(r"[a-z]?+(?:[A-Z][a-z]++|[0-9]++|[a-z]{2,}+)++(?:[A-Z]{2,}+)?+")
_CAMEL_WORD_RE = lazy(r"[A-Z]?[a-z]+|[0-9]+|[A-Z]{2,}$")


def _camel_words(value: str) -> str:
    """A camel-case sentence's words joined by "-" (``a-token-with-length-of-30-characters``), or
    nothing for another value."""
    if _CAMEL_SENTENCE_RE.fullmatch(value) is None:
        return ""
    return "-".join(_CAMEL_WORD_RE.findall(value)).lower()


# a word, a name numbered (consumer1), an algorithm's name (hs512, rsa2048), a year (user2024)
_NUMBERED_WORD_RE = lazy(r"[a-z]+[0-9]{0,4}")


def _names_itself(lowered: str) -> bool:
    """A value of words that say what it stands in for, and of short pieces:
    ``gw_valid_api_key_12345`` (vercel/ai's tests), ``m0-old-platform-key`` (mem0's), or of
    words alone, one of them a credential's (apisix's ``consumer1_pwd``). A key that spells its
    kind holds its random part too (AWS Bedrock's ``bedrock-api-key-<base64>``)."""
    pieces = _PIECES_SPLIT_RE.split(lowered)
    if _CREDENTIAL_WORDS.isdisjoint(pieces) or max(map(len, pieces)) > _LONGEST_PIECE:
        return False
    return sum(piece.isalpha() for piece in pieces) >= _WORDS_BESIDE or (
        len(pieces) >= 2 and all(map(_NUMBERED_WORD_RE.fullmatch, pieces))
    )


# A class of characters a generator draws from is in a long value many times or not at all; once or
# twice is a character typed into, or over, a made-up value (a test's "invalid" key, a stand-in
# edited by hand).
_STRAY_MOST = 2
_STRAY_LETTERS = 20  # letters enough that a random mix of cases holds each more than twice
_STRAY_PIECE = 20  # a hex piece this long holds no letter past f by chance
_PIECES_RE = lazy(r"[-_.|]")
_ASCII = "".join(map(chr, range(128)))
_DROP_HEX = str.maketrans("", "", "0123456789abcdefABCDEF")
_LETTERS_ONLY = str.maketrans("", "", "".join(c for c in _ASCII if not "a" <= c <= "z"))
_DIGITS_ONLY = str.maketrans("", "", "".join(c for c in _ASCII if not c.isdigit()))
# keys in order along one of _ROWS: abcdef, 123456, qwerty (a run inside a value, forward only: a
# hex value's digits hold one of six either way once in a thousand)
_RUN = 6
_IN_ORDER_RE = lazy(
    "|".join(
        dict.fromkeys(
            re.escape(row[i : i + _RUN]) for row in _ROWS for i in range(len(row) - _RUN + 1)
        )
    )
)


def made_up(value: str) -> bool:
    """A value no generator makes: a case that occurs once or twice among many letters
    (``LY027c40U2KNNZLFO1``), a hex piece with a letter or two past f (``c09761h99f39f79ae28e``;
    the x of a number's ``0x`` is none: an Ethereum key is written so), or
    letters or digits that run through the alphabet or along a keyboard's row (``a1B2c3D4e5F6g7``,
    ``abc123def456ghi789``, ``q9w8e7r6t5y4``; each said again: ``0000111122223333…``), or a piece
    typed three times in a row (tusd's
    ``…RF39FjrCRF39FjrCRF39FjrC…``), a keyboard mashed (``_mashed``), or base64 of a few bytes over
    and over
    (``AQIDBAUGBwgBAgME…``), or
    a JSON Web Token's shape (``eyJ…``, ``e30…``, three parts) whose header no library wrote: it
    does not decode to JSON naming an algorithm, as the jwt rule asks; or a token's header and
    less, its signature cut off (documentation's ``Bearer eyJhbGciOi….eyJ…``), or the header
    alone. Decided by shape, whatever name the value is under.
    """
    if len(value) < 2 * _RUN or not value.isascii():
        return False
    token = _token_made_up(value) if _token_shaped(value) else None
    if token is not None:
        return token
    lower, upper = sum(map(str.islower, value)), sum(map(str.isupper, value))
    if lower + upper >= _STRAY_LETTERS and 0 < min(lower, upper) <= _STRAY_MOST:
        return True
    if _typed_into_hex(value):
        return True
    lowered = value.lower()
    if _typed_thrice(value) or _repeating_bytes(value) or _mashed(value):
        return True
    letters = lowered.translate(_LETTERS_ONLY)
    if not letters.translate(_DROP_HEX):
        # hex draws from six letters: six of them in order come by chance once the digits between
        # are dropped, never side by side (abcdef12-1234-…)
        letters = ""
    # ... and each character said again, as placeholders count (0000111122223333…ffff)
    text = " ".join(
        (letters, value.translate(_DIGITS_ONLY), lowered, _SAID_AGAIN_RE.sub(r"\1", lowered))
    )
    return _IN_ORDER_RE.search(text) is not None


_SAID_AGAIN_RE = lazy(r"(.)\1+")  # a character and its repeats side by side

# Four keys side by side on a keyboard's row of letters, either way (asdf, qwer, kljh): a hand
# mashing the keyboard for a made-up value strikes them again and again (panoptes' test token,
# ``asd;lkfjas;dflkjasdfasdfha;…``; bike_index's development secrets). Each holds a letter past f,
# so hex never does; 40 random letters hold three of them once in 70 million values, 128 once in
# two million.
_MASH = 4
_MASHED_MOST = 2
_MASH_RE = lazy(
    "|".join(
        dict.fromkeys(
            row[i : i + _MASH]
            for row in _TYPED_ROWS
            if row.isalpha() and row not in (_ALPHABET, _ALPHABET[::-1])
            for i in range(len(row) - _MASH + 1)
        )
    )
)


# ... or twelve letters or more in a row, all on one of a keyboard's rows of letters, struck in no
# order (zap's examples' ``asdlkfjsaklfdj``), which twelve letters drawn fall into once in 20,000
_LETTER_ROWS = tuple(frozenset(row) for row in _ROWS if row.isalpha() and row != _ALPHABET)
_MASHED_RUN_RE = lazy(r"[a-z]{12,}|[A-Z]{12,}")  # (in one case: mixed, drawn letters run long)


def _mashed(value: str) -> bool:
    """Whether a hand mashed the keyboard: keys side by side struck again and again, or a run of
    letters in one case that keeps to one row (QWERTY's, QWERTZ's and AZERTY's)."""
    return len(_MASH_RE.findall(value.lower())) > _MASHED_MOST or any(
        set(run[0].lower()) <= row for run in _MASHED_RUN_RE.finditer(value) for row in _LETTER_ROWS
    )


# A piece of six to twelve characters, six of them different, typed three times in a row (tusd's
# test token, ``H3l5321N123sdI4HLY/RF39FjrCRF39FjrCRF39FjrC…``): random characters never repeat
# so. A run of one byte or three encodes to a piece of few characters repeated (an STS session
# token's ``%2F%2F%2F…``, base64's ``AAAA…``): real, and not what this looks for.
_TYPED_THRICE_RE = lazy(r"(.{6,12}?)\1\1")


def _typed_thrice(value: str) -> bool:
    return any(len(set(typed[1])) >= 6 for typed in _TYPED_THRICE_RE.finditer(value))


# Base64 of bytes that repeat a piece of eight bytes or fewer from end to end (Cloudflare's
# documented tunnel secret, AQIDBAUGBwgBAgME…: bytes 1 to 8, four times): no key is drawn so
_B64_VALUE_RE = lazy(r"[A-Za-z0-9+/_-]{22,}={0,2}")
_REPEATED_PIECE = 8


def _repeating_bytes(value: str) -> bool:
    if not _B64_VALUE_RE.fullmatch(value):
        return False
    raw = _b64decode(value.rstrip("="))
    if raw is None or len(raw) < 2 * _REPEATED_PIECE:
        return False
    return any(
        raw == (raw[:size] * (len(raw) // size + 1))[: len(raw)]
        for size in range(1, _REPEATED_PIECE + 1)
    )


# A UUID's group of four that is one digit said four times: a draw makes one in 4,096 groups, two
# in a UUID once in five million (spring-cloud-vault's guides' ``19aefa97-cccc-bbbb-aaaa-…``)
_SAID_FOUR_TIMES_RE = lazy(r"-(.)\1{3}(?=-)")
_GROUPS_SAID_MOST = 1


def _typed_into_hex(value: str) -> bool:
    """A hex piece with a letter or two past f (the x of a number's ``0x`` is none), or a UUID's
    shape whose digits hold "xxx", digits masked (a guide's ``693axxx6-7aoc-…``: a UUID holds no
    x, and a run of three is a person's mark, not a draw), or two of its groups of four each one
    digit said again (``…-cccc-bbbb-…``)."""
    if _UUID_SHAPE_RE.fullmatch(value):
        lowered = value.lower()
        if "xxx" in lowered or len(_SAID_FOUR_TIMES_RE.findall(lowered)) > _GROUPS_SAID_MOST:
            return True
    return any(
        len(piece) >= _STRAY_PIECE
        and piece.isalnum()
        and 0 < len(piece.lower().removeprefix("0x").translate(_DROP_HEX)) <= _STRAY_MOST  # 0x, 0X
        for piece in _pieces(value)
    )


def _pieces(value: str) -> list[str]:
    """A value's pieces between its joints, and a UUID's digits as the one piece they are (a hex
    number's 32 digits: tf-vault's ``905ae89e-6ee8-40rd-ab12-613t8e3fe836`` holds two letters past
    f, typed in)."""
    pieces = _PIECES_RE.split(value)
    return [*pieces, "".join(pieces)] if _UUID_SHAPE_RE.fullmatch(value) else pieces


# A UUID's shape, whatever letters it holds
_UUID_SHAPE = r"[0-9A-Za-z]{8}(?:-[0-9A-Za-z]{4}){3}-[0-9A-Za-z]{12}"
_UUID_SHAPE_RE = lazy(_UUID_SHAPE)
_SEPARATED_UUID_RE = lazy(rf"[-_:.]{_UUID_SHAPE}")  # (after a name: _named_id)


def _token_shaped(value: str) -> bool:
    """Whether a value starts as a JSON Web Token does: base64url of a JSON object (``eyJ`` is
    ``{"``, ``e30`` is ``{}``, ``eyAi`` is ``{ "``: every object's encoding starts with ``e``)."""
    if not value.startswith("e"):
        return False
    head = _b64decode(value.partition(".")[0][:8])
    # an object's brace and what comes next in JSON: a quote, the closing brace or a space (any
    # value that starts "ey" decodes to "{", and random ones to "{" and anything)
    return head is not None and head[:2] in (b'{"', b"{}", b"{ ", b"{\n", b"{\r", b"{\t")


def _token_made_up(value: str) -> bool | None:
    """The verdict on a JSON Web Token's shape (``eyJ…``): three parts are made up unless
    ``jwt_token`` takes them; a header and its payload with the signature cut off, or a header
    alone, are made up; ``None`` for any other value, which is judged as any value is."""
    dots = value.count(".")
    if dots == 2:
        return not jwt_token(value)
    cut = _algorithm(value.partition(".")[0]) if dots == 1 else dots == 0 and _header_alone(value)
    return True if cut else None


_TOKEN_PUNCTUATION = frozenset("+/=_-.~:|")


def stray_symbols(value: str) -> bool:
    """A key or token with one character outside the alphabets tokens are drawn from (letters,
    digits, ``+/=_-.~:|`` and ``%XX`` escapes): ``hysqa?25w3gq…``, ``WAgP6m4gYc1qe$Hnj…``; or
    two, one a ``%`` that escapes nothing (``…gSD%c^``): a token holds ``%`` to URL-encode, and an
    alphabet that holds it draws it again and again. A generator that draws symbols draws many
    (Django's keys: two in 32 characters by chance now and then, one hardly ever); a password may
    hold one, so names of passwords are not asked this.
    """
    symbols = [
        c
        for c in _ESCAPE_RE.sub("", value)
        if not (c.isascii() and c.isalnum()) and c not in _TOKEN_PUNCTUATION
    ]
    return len(symbols) == 1 or (len(symbols) == 2 and symbols.count("%") == 1)


_DRAWN_SYMBOLS = frozenset("!@#$%^&*()")


def _code_or_reference(value: str) -> bool:
    """Code, a path, a hash, a version, a URL, a host name, a query string, addresses, a dunder
    name (``__name__``) or a reference to a secret kept elsewhere (``vault:``): ``_REFERENCE_RE``'s
    shapes. Not a value drawn from an alphabet of symbols (Django's keys: ``!@#$%^&*(-_=+)``,
    four of its symbols or more), whatever shape a bracket or a leading ``$`` gives it, unless its
    letters are names (``_code_of_names``) or it is a regular expression (``_regular_expression``).
    """
    return (
        _REFERENCE_RE.search(value) is not None
        and (
            len(_DRAWN_SYMBOLS.intersection(value)) < 4
            or _code_of_names(value)
            or _regular_expression(value)
        )
    ) or _entry_point(value)


# A Python entry point: an object named by its module (a plugin's or a command's, in pyproject.toml
# or setup.cfg: ``ec2_credentials_create = "openstackclient.identity.v3.ec2creds:CreateEC2Creds"``)
_ENTRY_POINT_RE = lazy(r"[a-z_][a-z0-9_]*(?:\.[a-z_][a-z0-9_]*)+:([A-Za-z_]\w*)")


def _entry_point(value: str) -> bool:
    """A Python entry point whose object is a class named in words (``CreateEC2Creds``; a
    function's name in snake case is read as a name already): a user and password joined by a
    colon (``jane.doe:Xk93mQz7``) has a module's shape too, but not a password drawn at random."""
    found = _ENTRY_POINT_RE.fullmatch(value)
    return found is not None and _camel_name(found[1]) and not _random_part(found[1])


# A regular expression's pieces: a group's flag or assertion ((?i), (?:, (?=, (?<name>), any
# character repeated (.*, .+), a negated class ([^;&]) or one that opens with a range ([a-z_],
# [0-9a-f]), a class's escape (\d, \w, \s)
_REGEX_PIECE_RE = lazy(r"\(\?[:=!<a-zP]|\.[*+]|\[\^|\[\w-\w|\\[dwsDWS]")


def _regular_expression(value: str) -> bool:
    """A pattern that finds credentials, in a credential's place (liquibase's
    ``FILTER_CREDS_USER_TO_BLANK = "(?i)[?&:;]user(.*?)=(.+)[^;&]"``; Doctrine's ``NAMED_TOKEN =
    '(?<!:):[a-zA-Z_][a-zA-Z0-9_]*'``, a parameter's name): two kinds of a regular
    expression's pieces (``_REGEX_PIECE_RE``) or more, which a drawn value's symbols never spell
    together (Django's alphabet has no ``?``, ``.``, ``[`` nor ``\\``)."""
    kinds = {piece[0][0] for piece in _REGEX_PIECE_RE.finditer(value)}
    return len(kinds) >= 2


_MEMBER_RE = lazy(r"[A-Za-z_]\w*(?:\.|->|::)[A-Za-z_]")  # a.b, a->b, a::b
_MIXED_RE = lazy(r"[A-Za-z][0-9]|[0-9][A-Za-z]")  # letters and digits in one run
_NAME_RE = lazy(r"[A-Za-z]{5,}")  # letters enough that a drawn run seldom reads as a name


def _code_of_names(value: str) -> bool:
    """Code written with a drawn value's symbols (Go's conversion
    ``*(*[]string)(unsafe.Pointer(&in.TokenAudiences))``): a member of a name, letters and digits
    never in one run, two names of five letters or more (words or camel case), and most of it
    letters. A drawn value mixes letters and digits in its runs: a Django key (no ``.`` in its
    alphabet) never reads so, a drawn password with ``.`` and ``:`` about once in 13,000."""
    return (
        _MEMBER_RE.search(value) is not None
        and _MIXED_RE.search(value) is None
        and sum(map(str.isalpha, value)) * 5 >= len(value) * 3
        and sum(run.islower() or _type_name(run) for run in _NAME_RE.findall(value)) >= 2
    )


# A name made of lower-case words (or camel-case ones) and version or number segments, joined: a
# cache key, a queue, a metric, a topic (``billing:v4:legacy-usage:heartbeat:v1``,
# ``app.v5.checkout-flow.rate-limit.v2``), a cloud resource's name
# (``projects/p/locations/l/keyRings/r/cryptoKeys/k``). Decided by its shape, not by the name it is
# assigned to: no list of words says which names hold such keys.
# One piece may be a short hex id or hash, as a slug ends (``survey-targeting-835605292e``): hex
# API keys are 32 digits or more (``_short_hex``).
# a word, or words in camel case (keyRings) or in Pascal case (SemanticJobSearch, a type's name in
# Pulumi's aws:s3/BucketWebsite:BucketWebsite), or a numeronym (s3, k8s)
_JOINED_WORD = rf"(?:[a-z]{{2,}}|[A-Z][a-z]{{2,}})(?:[A-Z][a-z]+)*[0-9]{{0,2}}|{_NUMERONYMS}"
_JOINED_PIECE = rf"(?:{_JOINED_WORD}|v[0-9]{{1,4}}|[0-9]{{1,4}}|[0-9a-f]{{5,16}})"
_JOINED_NAME_RE = lazy(rf"^_?{_JOINED_PIECE}(?:[:/._~,-]{{1,2}}{_JOINED_PIECE}){{2,}}$")
_JOINED_SPLIT_RE = lazy(r"[:/._~,-]{1,2}")
_JOINED_WORD_RE = lazy(_JOINED_WORD)
_JOINED_HASH_RE = lazy(r"(?=[a-f]*[0-9])(?=[0-9]*[a-f])[0-9a-f]{5,16}")


def joined_name(value: str) -> bool:
    """Lower-case words and version segments joined by ``:`` ``/`` ``.`` ``_`` ``~`` ``-`` (or
    listed, with ``,``: ``letters,digits,symbols,32``): three pieces or more, two of them words
    (``service:v4:legacy-usage:heartbeat:v1``), one at most a short hex id
    (``survey-targeting-835605292e``), an underscore before them or not (a private cache key's
    ``_sys_cache_v2``). An identifier, not a secret.
    """
    if _JOINED_NAME_RE.match(value) is None:
        return False
    pieces = _JOINED_SPLIT_RE.split(value)
    hashes = [_JOINED_HASH_RE.fullmatch(piece) is not None for piece in pieces]
    words = sum(
        not hashed and _JOINED_WORD_RE.fullmatch(piece) is not None
        for piece, hashed in zip(pieces, hashes, strict=True)
    )
    return words >= 2 and sum(hashes) <= 1


def _identifier(value: str) -> bool:
    """A variable, an attribute, a constant's name: ``a.b``, ``Token::ZeroOrMore``, ``MAX_LEN``.

    A path's parts are names: random characters cut by dots (``xK3…f9.Qz7…``, a JWT's three
    parts) are a key or a token."""
    chain = value.removesuffix("!")  # TypeScript's non-null assertion: config.value?.key!
    if not _IDENTIFIER_RE.fullmatch(chain):
        return False
    parts = _MEMBER_SEPARATOR_RE.split(chain.removesuffix("()"))
    if len(parts) > 1:
        return all(map(_name_part, parts))
    return (
        chain == value
        and "_" in value
        and (not any(c.isdigit() for c in value) or constant_name(value))
    )


def _name_part(part: str) -> bool:
    """One name of a path: one case (``environ``, ``API_KEY``), camel-case words, or not random;
    a private member's underscores, or a variable's sign, before it (``_globalSettings``)."""
    part = part.lstrip("_$") or "_"
    return (
        part.islower()
        or part.isupper()
        or _camel_name(part)
        or not _mixed_and_random(part, len(part))
    )


def _type_name(value: str) -> bool:
    """A type or class name: ``PKCS7PrivateKeyTypes``."""
    return _camel_name(value) and not _random_part(value)


def _short_hex(value: str) -> bool:
    """A short hex id or hash prefix; hex API keys are 32 digits or more."""
    return len(value) < 32 and _HEX_RE.match(value) is not None


def _slug(value: str) -> bool:
    """A slug, a host name, a date."""
    return _LOWER_OR_DIGITS_RE.match(value) is not None and entropy(value) < 3.5


# A UUID of RFC 9562's variant, and its clock's start: 15 October 1582, in 100 ns before 1970
_UUID_RE = lazy(r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[89ab][0-9a-f]{3}-[0-9a-f]{12}")
_UUID_CLOCK_AT_1970 = 0x01B21DD213814000
_TIME_UUID_YEARS = (631_152_000, 2_208_988_800)  # 1990 to 2040, in seconds since 1970


def time_uuid(value: str) -> bool:
    """A version 1 UUID whose clock reads a date from 1990 to 2040 (``743b294a-cd03-11ec-…``): a
    time and a network card's address, an id no one drew at random, never a key. A random one
    reads so once in about 5,000 (the version, the variant, and a date in 50 years of 3,650)."""
    lowered = value.lower()
    if lowered[14:15] != "1" or not _UUID_RE.fullmatch(lowered):
        return False
    ticks = int(lowered[15:18] + lowered[9:13] + lowered[0:8], 16)
    since_1970 = (ticks - _UUID_CLOCK_AT_1970) // 10_000_000
    return _TIME_UUID_YEARS[0] <= since_1970 <= _TIME_UUID_YEARS[1]


def random_uuid(value: str) -> bool:
    """A UUID that may be a key: any but a ``time_uuid``."""
    return not time_uuid(value)


# Shapes of names, not of secrets (service:v4:legacy-usage:heartbeat:v1 is a key's name)
_NAME_SHAPES: tuple[Callable[[str], bool], ...] = (
    joined_name,
    _identifier,
    _type_name,
    _short_hex,
    _slug,
    time_uuid,
)


_JOINERS = "-_.:/"
# A name's number: a count (SERVICE_NAME-2), or the Unix time a test named its resource by and its
# count (Terraform's acceptance tests: tf-TestAccIntegrationConfluentAccountBasic-local-1680633323)
_NUMBERED_RE = lazy(r"(?<=[A-Za-z])[-_.](?:[0-9]{1,3}|1[0-9]{9}(?:[-_.][0-9]{1,3})?)$")
_NAME_JOINER_RE = lazy(r"[A-Za-z0-9][-_.:/][A-Za-z]")


def _name_like(value: str, length: int) -> bool | None:
    """The verdict on a value shaped like a name (an identifier, a type name, words, a short hex id,
    a slug), or ``None`` when it has no such shape."""
    # a name's first part, to which code adds the rest ('auto-identify-' + uuidv7())
    value = value.rstrip(_JOINERS) or value
    # ... and a name of words numbered (SERVICE_NAME-2; a word and a number, silverhand_1, is a
    # password as people make them), or padded as base64 is (swoosh's ``"base64encodedkey=="``)
    numbered = _NUMBERED_RE.sub("", value)
    stems = (value, numbered) if _NAME_JOINER_RE.search(numbered) else (value,)
    if any(shape(stem) for stem in {*stems, value.rstrip("=")} for shape in _NAME_SHAPES):
        return False
    value = stems[-1]
    if _WORDS_RE.match(value):
        # Letters only: a word or an identifier, unless long, mixed case, in one piece and
        # random-looking.
        return (
            length >= 20
            and value.isalpha()
            and not value.islower()
            and not value.isupper()
            and entropy(value) >= 3.8
        )
    return None


def _mixed_and_random(value: str, length: int) -> bool:
    """At least two classes of characters, and the entropy of random ones (the bar rising with
    length)."""
    chars = set(value)
    classes = sum(
        (
            any(c.islower() for c in chars),
            any(c.isupper() for c in chars),
            any(c.isdigit() for c in chars),
        )
    )
    classes += not value.isalnum()  # a symbol (a value is never empty here)
    if classes < 2:
        return False
    threshold = 2.5 if length < 12 else 3.0 if length < 20 else 3.3
    return entropy(value) >= threshold


_DIGIT_RUN_RE = lazy(r"\d+")


def _camel_name(value: str) -> bool:
    """Words in camel case (``labelsById``, ``PKCS7PrivateKeyTypes``), as type and variable names
    are: both cases, or one case with at most one number (``sha256sum``). One case cut by numbers
    again and again (``yzmil2yrmu5qfd09``, ``JJ4ZIC9EJNWVIS86``) is how random characters look, not
    a name.
    """
    if not _CAMEL_WORDS_RE.fullmatch(value):
        return False
    if value.lower() != value and value.upper() != value:
        return True
    return len(_DIGIT_RUN_RE.findall(value)) <= 1


def _random_part(camel: str) -> bool:
    """Whether a camel-case value has a two-letter part that no name would: not a word of code
    (``Id``, ``Fn``), nor the end of an acronym's plural (``URLs``) or version (``IPv4``,
    ``UUIDv7``).
    """
    for part in _CAMEL_PART_RE.finditer(camel):
        text = part.group()
        if len(text) != 2 or not text.isalpha() or text.isupper() or text.lower() in _SHORT_PARTS:
            continue
        after = camel[part.end() : part.end() + 1]
        if text[0].isupper() and (text[1] == "s" or (text[1] == "v" and after.isdigit())):
            continue
        return True
    return False


# In code, a credential's name more often holds a word, a fixture or a variable than a secret: the
# value must look generated as well as plausible.
_FIXTURE_WORDS = frozenset(
    _words(
        """
        token tokens secret secrets password passwd credential credentials private synthetic fake
        mock dummy test example sample placeholder invalid wrong your access refresh
        """
    )
)
_SEGMENT_RE = lazy(r"[A-Za-z]{4,}")  # shorter runs occur by chance in random values


# An e-mail address (a test user's password that is its address: btcpayserver's
# Password = "admin@admin.com"): no generator draws one
_MAIL_ADDRESS_RE = lazy(r"[\w.+-]+@[\w-]+(?:\.[\w-]+)*\.[A-Za-z]{2,6}")


# A Django migration's name: its number and what it does (``0005_integrationauthtoken``), which a
# later migration names in its dependencies beside its app's label (grafana oncall's
# ``("auth_token", "0005_integrationauthtoken")``, read as a default for ``auth_token``)
_MIGRATION_RE = lazy(r"[0-9]{4}_[a-z][a-z0-9_]*")


def plausible_in_code(value: str) -> bool:
    """Whether a generic value in source code looks generated: ASCII, 10 characters or more, not
    an e-mail address, nor made of words, nor a password a person typed to a policy's rules
    (``typed_password``).

    ``sk-synthetic-private-token-91a7``, ``chatkit_token_123``, ``whsec_eA==`` and ``sëcret-✓`` are
    test fixtures written by hand; a generated secret is a run of random characters, not a sentence
    of credential words.
    """
    value = _own_part(value)
    if not value.isascii() or len(value) < 10 or _MAIL_ADDRESS_RE.fullmatch(value):
        return False
    if _MIGRATION_RE.fullmatch(value):
        return False
    if any(part.lower() in _FIXTURE_WORDS for part in _SEGMENT_RE.findall(value)):
        return False
    return (
        entropy(value) >= (3.0 if len(value) < 16 else 3.3)
        and not _words_joined(value)
        and not typed_password(value)
    )


# a piece that is a word, in small letters or capitals (not a random mix of the two), between
# separators or in a list's commas (br,input,link,meta: a beautifier's tags), a namespace's colon
# or a path's slash (rancher's ``cattle-global-data:cc-26b5h``, a Secret's name; kops'
# ``kops.k8s.io/scheduled-for-update``, a taint's key)
_WORD_OF_ONE_CASE_RE = lazy(r"(?<![^-_.~,:/])(?:[a-z]{3,}|[A-Z]{3,})(?![^-_.~,:/])")
_WORDS_JOINED_LEAST = 3  # a prefix of two words goes before a token's random part: dag_dagger_…


def _words_joined(value: str) -> bool:
    """Words joined by separators, in small letters or capitals, three at least and half of its
    characters or more (bruno's ``INITIAL_VALUE_collection_env_e2e_001``): a name or a sentence.
    A token's prefix of words goes before its random part, longer than they are
    (``salad_cloud_org_<51 random>``, ``bedrock-api-key-<base64>``)."""
    words = _WORD_OF_ONE_CASE_RE.findall(value)
    return len(words) >= _WORDS_JOINED_LEAST and 2 * sum(map(len, words)) >= len(value)


# A password typed to a policy's rules is words, a number and a sign. Its pieces: a run of letters,
# respelled or not (P@ss, R00t, Pu11er: a sign is a letter before a small one), a number, signs.
_POLICY_PIECE_RE = lazy(r"[A-Za-z](?:[A-Za-z0-9]|[@$](?=[a-z]))*(?<=[A-Za-z])|[0-9]+|[^A-Za-z0-9]+")
_RESPELT = _LEET_DIGITS | _LEET_LETTERS  # one for one: a word's letters keep their places
# A word of a letter run: capitalised or lower-case, three to ten letters
_TYPED_WORD_RE = lazy(r"[A-Z][a-z]{2,9}|[a-z]{3,10}")
_ACRONYM_LONGEST = 4  # a run of capitals this long, after a sign, is an acronym (Jacqueline@OHRM)
_VOWELS = frozenset("aeiouy")
_CONSONANTS_RE = lazy(r"[^aeiouy]{4}")  # no word of a language people type in runs four


def _spoken(word: str) -> bool:
    """Whether a run of small letters could be a word people speak: a vowel, and no four
    consonants in a row (random letters seldom are: ``prwm``)."""
    return not _VOWELS.isdisjoint(word) and _CONSONANTS_RE.search(word) is None


_TYPED_WORDS_MOST = 6
_WORD_JOINTS = frozenset("-_.")  # one between two pieces joins them: no sign a policy asks for
_TYPED_RESPELT_MOST = 2  # signs or digits standing for letters in one word: P@ssw0rd
_TYPED_NUMBERS_MOST = 2
_TYPED_SIGNS_MOST = 2  # runs of signs


def typed_password(value: str) -> bool:
    """A password a person typed to a policy's rules (a capital, a number or a sign): words first,
    each capitalised or respelled or not, an acronym after a sign, then a number of four digits at
    most and a sign or two (``SecurePass123!``, ``HelloLago!1``, ``Str0ngP@ss!``,
    ``Jacqueline@OHRM123``), its pieces joined by a hyphen, an underscore or a dot or not
    (``Smoke-Pass-123!``). Test users' and seeds' passwords, in code; no generator draws words (a
    random run of letters has no vowel in its words, or four consonants in a row:
    ``Tb1prwm3dErm``).
    """
    words = numbers = signs = letters = joints = 0
    for piece in _POLICY_PIECE_RE.finditer(value):
        text = piece[0]
        if text[0].isdigit():
            numbers += 1
            if len(text) > _DEFAULT_DIGITS_MOST:
                return False
        elif not text[0].isalpha():
            if not words:  # a word goes first
                return False
            if text in _WORD_JOINTS and piece.end() < len(value):  # Smoke-Pass-123!
                joints += 1
            else:
                signs += 1
        else:
            found = None if numbers else _typed_words(text, after=words > 0)  # the number last
            if found is None:
                return False
            words += found
            letters += len(text)
    return (
        0 < words <= _TYPED_WORDS_MOST
        and numbers + signs + joints > 0
        and numbers <= _TYPED_NUMBERS_MOST
        and signs <= _TYPED_SIGNS_MOST
        and not value.islower()  # a policy asks for a capital
        and 5 * letters >= 3 * (len(value) - joints)
    )


def _typed_words(run: str, *, after: bool) -> int | None:
    """How many words a run of letters is (``HubPu11er``: two), or None when it is not words:
    each capitalised but the value's first (``zipapiSecurePass``); a run after the first may be
    an acronym (``OHRM``)."""
    if after and run.isupper() and 2 <= len(run) <= _ACRONYM_LONGEST:
        return 1
    plain = run.translate(_RESPELT)
    count = 0
    end = 0
    for word in _TYPED_WORD_RE.finditer(plain):
        lowered = word[0].lower()
        respelt = sum(not c.isalpha() for c in run[word.start() : word.end()])
        if (
            word.start() != end
            or ((after or count > 0) and lowered == word[0])
            or respelt > _TYPED_RESPELT_MOST
            or not _spoken(lowered)
        ):
            return None
        end = word.end()
        count += 1
    return count if end == len(plain) else None


def generated(value: str) -> bool:
    """A value that looks both chosen to be hard to guess and generated (``plausible`` and
    ``plausible_in_code``): what a rule without a name to lean on (``curl -u KEY:``) asks of its
    value in code."""
    return plausible(value) and plausible_in_code(value)


def twitter_bearer(secret: str) -> bool:
    """A Twitter app-only bearer token: after its twenty-two A's, URL-encoded random characters (an
    escape at least, and the entropy of random ones), not a run of one character."""
    rest = secret.lstrip("A")
    return "%" in rest and entropy(rest) >= 4.0 and not is_placeholder(rest)


# The pieces of a value between its separators, and those that are lower-case words
_PIECE_RE = lazy(r"[^-_.~]+")
_WORD_PIECE_RE = lazy(r"(?<![^-_.~])[a-z]{3,}(?![^-_.~])")


def random_value(value: str) -> bool:
    """A generated value that is no words joined either (``user_profile_settings_v2`` is a name): of
    the pieces between its separators, not two or more, and half or more, are lower-case words, as a
    random key's never are.
    """
    if not generated(value):
        return False
    words = len(_WORD_PIECE_RE.findall(value))
    return not (words >= 2 and words * 2 >= len(_PIECE_RE.findall(value)))


_SHA256_BYTES = 32


def sha256_signature(secret: str) -> bool:
    """An HMAC-SHA256 signature as a URL's query carries it: base64 of 32 bytes once its escapes
    are undone (escaped twice at most). Azure signs every shared access signature's ``sig=`` so; a
    value that is not one (an escape of no byte, ``%2R``, or base64 of another length) was written
    for a test, not signed (azure-functions-host's ``notarealstorageaccount``)."""
    text = _unescaped(secret)
    if "%" in text:
        text = _unescaped(text)
    decoded = _b64decode(text)
    return decoded is not None and len(decoded) == _SHA256_BYTES


# The last looks a rule may take at its secret (Rule.check, Rule.prose_check), by name
Check = Literal[
    "basic_credentials",
    "discord_user_id",
    "generated",
    "jwt_token",
    "key_material",
    "plausible",
    "random_uuid",
    "random_value",
    "sha256_signature",
    "twitter_bearer",
    "url_password",
    "url_password_in_prose",
]
CHECKS: dict[Check, Callable[[str], bool]] = {
    "basic_credentials": basic_credentials,
    "discord_user_id": discord_user_id,
    "generated": generated,
    "jwt_token": jwt_token,
    "key_material": key_material,
    "plausible": plausible,
    "random_uuid": random_uuid,
    "random_value": random_value,
    "sha256_signature": sha256_signature,
    "twitter_bearer": twitter_bearer,
    "url_password": url_password,
    "url_password_in_prose": url_password_in_prose,
}
