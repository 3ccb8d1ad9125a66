"""Secret rules as data: a stable id, prefilter keywords, a pattern, an optional entropy floor, and
examples.

Each pattern is written from the provider's published token format. It marks the secret with the
named group ``secret``; generic rules also capture the ``name`` the value is assigned to, which must
say it is a credential.
A rule runs only on the lines where one of its ``keywords`` occurs (in lower case), or, when
its ``reach`` is ``"text"``, on the whole text. A rule that ``reads`` ``"prose"`` runs only on
text of the prose kind (memories, journals, session logs: see ``gitmem.scan.kinds``). How a match
is judged is its ``judged`` kind. Each of these kinds is a ``Literal`` with one interpreter table
beside the engine's code that reads it, and each check is named, from ``filters.CHECKS``.
Baselines and allow lists refer to rules by id, so ids never change; rules are listed most specific
first, and when two findings overlap the earlier rule's is kept.

Examples are generated from parts, so this file never holds a string its own scanner would flag, and
only when asked for (``examples_of``, ``counter_examples_of``): building them on import cost the
pre-commit hook two milliseconds on every commit. Tests run every example (each must be found by its
rule) and every counter-example (none may be found by any rule).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Literal, NamedTuple

from gitmem.scan.filters import SCOPE_DATE, Check

# How a match is judged before it is a finding (engine._JUDGES interprets each):
# - "format": a provider's token format: the entropy floor, no placeholder (filters.is_placeholder),
#   no documented example, then the rule's check;
# - "binary-format": the same, placeholders allowed: the format's bytes hold runs of "A" (zero
#   bytes);
# - "key": a private key: its check alone (filters.key_material), never the entropy floor,
#   placeholder or example filters, which take the runs of "A" in every OpenSSH key body for a
#   stand-in;
# - "generic": no format: the name the value is assigned to must say credential (Rule.names), the
#   value must look generated in code (filters.plausible_in_code), then the rule's check.
Judged = Literal["format", "binary-format", "key", "generic"]
# Where a rule looks (engine._REACH): "line", the lines its keywords (or trigger) are on; "text",
# the whole text (a secret that spans lines); "continued", the keywords' lines and those a
# backslash at their end continues (a shell command: engine._continued).
Reach = Literal["line", "text", "continued"]
# What a rule reads: "any" text, or "prose" only (memories, logs: "the password is …"), never code.
Reads = Literal["any", "prose"]
# How a generic rule judges the name a value is assigned to (engine._NAME_JUDGES): "credential"
# (filters.secret_name, or a service's key: filters.service_key_name) or "logged" (a log line
# names a credential in fewer words, "Using Key=…": filters.logged_secret_name).
Names = Literal["credential", "logged"]


# A NamedTuple, not a dataclass: importing dataclasses (and inspect with it) costs the pre-commit
# hook more than scanning a typical commit.
class Rule(NamedTuple):
    """One secret rule (see the module's docstring)."""

    id: str
    description: str
    keywords: tuple[str, ...]
    pattern: str
    entropy: float | None = None  # minimum Shannon entropy (bits per character) of the secret
    examples: Callable[[], tuple[str, ...]] = tuple  # lines the rule must find (see examples_of)
    counter_examples: Callable[[], tuple[str, ...]] = tuple  # lines no rule may find
    judged: Judged = "format"
    check: Check | None = None  # a last look at the secret (filters.CHECKS): True keeps it
    prose_check: Check | None = None  # the last look in prose, where it differs from code's
    reach: Reach = "line"
    reads: Reads = "any"
    names: Names = "credential"
    # a regex that also wakes the rule, on the lines it matches, where no keyword can
    trigger: str | None = None
    # a regex that every match holds (a necessary condition), cheaper to search for than the
    # pattern: a window without it is not searched (engine._candidates); "" is in every window
    precheck: str = ""


# -- example builders: deterministic pseudo-random strings -----------------------------------------

_UPPER = "ABCDEFGHIJKLMNOPQRSTUVWXYZ"
_LOWER = "abcdefghijklmnopqrstuvwxyz"
_DIGITS = "0123456789"
_ALNUM = _UPPER + _LOWER + _DIGITS
_HEX = "0123456789abcdef"
_B64 = _ALNUM + "+/"
_URLSAFE = _ALNUM + "_-"
_B32 = _UPPER + "234567"
_state = [20261130]


def _r(alphabet: str, n: int) -> str:
    """``n`` characters of ``alphabet``, different on every call, the same on every run."""
    out: list[str] = []
    append = out.append
    size = len(alphabet)
    x = _state[0]
    for _ in range(n):
        x = (x * 1103515245 + 12345) & 0x7FFFFFFF
        append(alphabet[(x >> 11) % size])
    _state[0] = x
    return "".join(out)


def examples_of(rule: Rule) -> tuple[str, ...]:
    """The lines ``rule`` must find, built now: the same on every run, whatever was built before."""
    _seed(rule)
    return rule.examples()


def counter_examples_of(rule: Rule) -> tuple[str, ...]:
    """The lines no rule may find."""
    _seed(rule)
    return rule.counter_examples()


def _seed(rule: Rule) -> None:
    _state[0] = sum(ord(c) * 31**i for i, c in enumerate(rule.id)) & 0x7FFFFFFF


def _j(*parts: str) -> str:
    return "".join(parts)


def _discord_id() -> str:
    """The first part of a Discord token: unpadded base64 of a user id (an 18-19 digit
    snowflake)."""
    digits = _j("1", _r(_DIGITS, 17 + int(_r("01", 1))))
    return _b64(digits).replace("+", "-").replace("/", "_").rstrip("=")


def _b64(text: str) -> str:
    import binascii  # (what base64.b64encode calls; the base64 module itself is slower to import)

    return binascii.b2a_base64(text.encode(), newline=False).decode()


# -- pattern pieces --------------------------------------------------------------------------------

# start of a token: not inside a word; a JSON "\n" before is fine
_B = r"(?:(?<![A-Za-z0-9_])|(?<=\\[nrt]))"
_E = r"(?![A-Za-z0-9_])"  # end of a token whose alphabet has no hyphen
_EH = r"(?![A-Za-z0-9_-])"  # end of a token whose alphabet has hyphens
# start of a name a rule reads before its value: where a word begins, after no letter or digit or at
# a change of case (myDatadogApiKey, AWSSessionToken), never inside a word (the "dd" of add_api_key)
_NAME_START = r"(?:(?<![A-Za-z0-9])|(?<=[a-z0-9])(?=[A-Z])|(?<=[A-Z])(?=[A-Z][a-z])|(?<=\\[nrt]))"
# A URL's "user:password@", after its scheme (group "scheme"). RFC 3986 lets no [ ] { } | \ ^ `
# stand raw in it (curl takes [] and {} for globs), so a password holding one is a mask
# (`[secure]`, `[REDACTED]`) or a URL parser's test data (`foo(b]c`), not a password a client sends.
# A "?" ends the authority where it stands: an "@" after it is the query's (baresip's
# `http://127.0.0.1:8000?d1234@target.com`, a number to call), and no password holds it raw.
# A password that repeats the user's name (and "pass" or a number after it: a test's account,
# `scoped:scopedpass1`, `httpuser:httpuser1234`) or the scheme is a local container's default
# (`guest:guest@`, `singlestore://root:singlestore@`), as `postgres:postgres@` is. A "%" escapes
# two hex digits, and never a NUL: `sec%zzret`, `sec%00ret` are a URL parser's tests. Nor does it
# let a letter past ASCII stand raw (a password is escaped to UTF-8's bytes): `usuario:contraseña@`
# is a translated template's word, as is a host whose port is a word
# (`rtsp://usuari:contrasenya@host:port/ruta`: frigate's settings in 16 languages). The password
# runs to the authority's last "@", as a URL parser reads it: a guide's `sa:Adm1nP@ssw0rd@localhost`
# holds a raw "@" (its password is no "Adm1nP").
_USERS_OWN = r"(?P=user)(?:pass(?:word)?)?[0-9]{0,4}"
_URL_USERINFO = (
    r"(?P<user>[^\s:@/\"'<>]{1,64}):(?!" + _USERS_OWN + r"@|(?P=scheme)@)"
    r"(?P<secret>(?:[^\s:@/?\"'<>\[\]{}|\\^`%\x80-\U0010ffff]|%(?!00)[0-9A-Fa-f]{2}"
    r"|@(?=[^\s/?#@\"'<>]{1,255}@)){1,128})@"
    r"(?![^\s/:@?#\[\]]{0,255}:[A-Za-z])"  # a host name is 253 characters at most
)
# A declaration's type between a name and its "=": `: &str`, `: &'static str` (Rust), `: string |
# undefined` (TypeScript), `: String?` (Kotlin, Swift), `: Final[str]`, `: str | None` (Python),
# `::String` (Julia), `: []const u8` (Zig), `: Option<T>`, and Go's `string` after a space. Types
# written before the name (Java, C#, PHP, Dart, C++) need nothing: the name is the last word before
# the "=". Every rule that reads a name and a value takes it (through _ASSIGN): a type must never
# hide the value (tests/test_scan_typed.py).
_TYPED = (
    r"""(?:\??[ \t]*::?[ \t]*(?:&(?:'\w{1,20}+[ \t]+)?|\[\][ \t]*(?:const[ \t]+)?|\?)?"""
    r"""[A-Za-z_][\w.]{0,40}+"""
    r"""(?:::[A-Za-z_]\w{0,40}+)*(?:<[^<>=\n"']{1,60}+>|\[[^\[\]=\n"']{1,60}+\])?\??"""
    r"""(?:[ \t]*\|[ \t]*[A-Za-z_][\w.]{0,30}+)?|[ \t]+(?:string|\[\]byte))(?=[ \t]*=(?!=))"""
)
# What joins a name to its value besides "=" and ":" (tests/test_scan_wrapped.py): the default of an
# environment variable (`process.env.KEY || "…"`, `?? "…"`, Kotlin's `?: "…"`, Python's and Lua's
# `or "…"`, its value on the same line: a comment's English "or" before a map's key on the next
# line is none) and C++'s braces (`std::string key{"…"}`: a string they hold whole, not a map's
# first key, Go's `map[string]SecretEntry{"e2e-name": …}`). After the name, the quote and bracket
# that close its lookup (`ENV["KEY"]`, `getenv("KEY")`); after the operator, the parenthesis black
# wraps a long string in. The shell's `${KEY:-…}` is a decoded layer instead
# (decode.shell_defaults).
_FALLBACK = (
    r"""\|\||\?\?|\?:|\bor\b(?=[ \t]*+[("'`])|\{(?=\s*["'`][^"'`\n]{0,2000}+["'`][ \t]*[},)])"""
)
# The bracket that closes a name's lookup: ``ENV["KEY"] = …``, or a call's, before a default only
# (``getenv("KEY") || "…"``): a call's argument before "=>" or ":" is no name given a value
# (stripe-node's ``computeHMACSignature('', 'test_secret') => '<its digest>'``)
_LOOKED_UP = r"""(?:\]|\)(?=\s*+(?:""" + _FALLBACK + r""")))?"""
# A call whose one argument is the value, its parenthesis right after the name: a setter's, a
# builder's (``setPassword("…")``, Java's and Kotlin's ``.apiKey("…")``, ``withToken('…')``); a call
# of more arguments (``check_password("…", digest)``) gives the name no value, and nor does prose's
# aside (the password (`…`))
_CALLED = r"""(?<=[\w$])\((?=\s*["'`][^"'`\n]{0,2000}+["'`]\s*\))"""
_ASSIGN = (
    r"""["']?"""
    + _LOOKED_UP
    + r"""(?:"""
    + _TYPED
    + r""")?\s*(?:=|:=|:|=>|->|"""
    + _FALLBACK
    + "|"
    + _CALLED
    + r""")\s*(?:\((?=\s*["'`])\s*)?["'`]?"""
)  # between a name and its value

# The next parameter of a query string or a form's body: a value that runs on to one ends there (the
# query alternative reads the next one), in every alternative whose value may hold "&" and "="
_NEXT_PARAMETER = r"""(?=&[A-Za-z_][\w.-]{0,60}+=)"""

_PEM = "-----BEGIN RSA " + "PRIVATE KEY-----"
_PEM_END = "-----END RSA " + "PRIVATE KEY-----"


# An option of a curl command: the rule runs on the lines that hold the word curl and on those their
# backslashes continue (reach "continued"), so the option is found where it stands, without scanning
# back to the word curl (which cost every "curl" of a line a bounded search of its own)
_CURL_OPTION = r"(?<!\S)"

_PROSE_NAMES = (
    r"(?:(?:aws\s+)?secret\s+access\s+key|(?:api|access|secret|private|auth)[ "
    r"_-]?key|password|passphrase|passcode"
    r"|passwd|pwd|token|secret|credentials?)"
)


def _pem_body() -> str:
    return "\n".join(_r(_B64, 64) for _ in range(4))


RULES: tuple[Rule, ...] = (
    # -- private keys ------------------------------------------------------------------------------
    Rule(
        id="gcp-service-account",
        description="Google Cloud service-account key (JSON with a private key)",
        keywords=('"private_key"',),
        pattern=(
            r'"private_key"\s*:\s*"(?P<secret>-----BEGIN[ A-Z]{0,20}PRIVATE '
            r"KEY-----(?:\\[nr]|[A-Za-z0-9+/=\s])+?"
            r'-----END[ A-Z]{0,20}PRIVATE KEY-----(?:\\n)?)"'
        ),
        check="key_material",
        judged="key",
        examples=lambda: (
            _j(
                '{"type": "service_account", "private_key": "-----BEGIN ',
                "PRIVATE KEY-----\\n",
                _r(_B64, 64),
                "\\n",
                _r(_B64, 40),
                '\\n-----END PRIVATE KEY-----\\n", "client_email": "a@b.iam.gserviceaccount.com"}',
            ),
        ),
        counter_examples=lambda: (
            '"private_key": "-----BEGIN PRIVATE KEY-----\\n...\\n-----END PRIVATE KEY-----\\n"',
        ),
    ),
    Rule(
        id="private-key",
        description="Private key block (PEM, OpenSSH, PGP)",
        keywords=("private key",),
        pattern=(
            r"-----BEGIN[ A-Z0-9]{0,30}PRIVATE KEY(?: "
            r"BLOCK)?-----(?P<secret>(?:[^-`]|-(?!----)){40,20000}?)"
            # Ended by its END line, or cut short: by another ----- line, by a backtick (a code
            # span's end in markdown), or by the end of the text.
            r"(?:-----END[ A-Z0-9]{0,30}PRIVATE KEY|(?=-----|`)|\Z)"
        ),
        check="key_material",
        judged="key",
        reach="text",
        examples=lambda: (
            _j(_PEM, "\n", _pem_body(), "\n", _PEM_END),
            _j(
                "-----BEGIN OPENSSH ",
                "PRIVATE KEY-----\\n",
                _r(_B64, 70),
                "\\n",
                _r(_B64, 70),
                "\\n-----END OPENSSH ",
                "PRIVATE KEY-----",
            ),
        ),
        counter_examples=lambda: (
            "-----BEGIN PUBLIC KEY-----\n" + _r(_B64, 64) + "\n-----END PUBLIC KEY-----",
            "-----BEGIN RSA PRIVATE KEY-----\n<paste your key here>\n-----END RSA PRIVATE KEY-----",
            "-----BEGIN CERTIFICATE-----\n" + _r(_B64, 64) + "\n-----END CERTIFICATE-----",
        ),
    ),
    Rule(
        id="putty-private-key",
        description="PuTTY private key file",
        keywords=("private-lines:",),
        pattern=r"Private-Lines: \d+\r?\n(?P<secret>(?:[A-Za-z0-9+/=]{8,}\r?\n?){1,64})",
        check="key_material",
        judged="key",
        reach="text",
        examples=lambda: (
            _j("PuTTY-User-Key-File-3: ssh-ed25519\nPrivate-Lines: 1\n", _r(_B64, 44), "\n"),
        ),
        counter_examples=lambda: ("Private-Lines: 1\nAAAA\n",),
    ),
    Rule(
        id="age-secret-key",
        description="age encryption secret key",
        keywords=("age-secret-key-1",),
        pattern=r"(?P<secret>AGE-SECRET-KEY-1[QPZRY9X8GF2TVDW0S3JN54KHCE6MUA7L]{58})" + _E,
        judged="key",
        examples=lambda: (_j("AGE-SECRET-KEY-1", _r("QPZRY9X8GF2TVDW0S3JN54KHCE6MUA7L", 58)),),
        counter_examples=lambda: ("AGE-SECRET-KEY-1...",),
    ),
    # -- cloud -------------------------------------------------------------------------------------
    Rule(
        id="aws-access-key-id",
        description="AWS access key id",
        keywords=("akia", "asia", "abia", "acca"),
        # not a signed request's credential scope, however it is written (a presigned URL's
        # X-Amz-Credential=AKIA…%2F20200513%2Fus-east-1%2Fs3%2Faws4_request, an upload form's
        # {"x-amz-credential": "ASIA…/20190223/…"}, a header's Credential=…): the id every signed
        # request names in the clear, no secret beside it, known by the date after it; nor a
        # presigned URL's of the older signature, its query's AWSAccessKeyId (an S3 label's or
        # audio file's link, with its Expires and Signature, in karrio's and shippo's recorded
        # responses); nor twenty capitals inside a run of letters of both cases (base64: pdf.js's
        # embedded wasm). Nor the id a log of calls names beside its caller (engine's
        # _logged_caller).
        pattern=(
            _B
            + r"(?<![?&;]AWSAccessKeyId=)(?<!\\u0026AWSAccessKeyId=)"
            + r"(?P<secret>(?:AKIA|ASIA|ABIA|ACCA)[A-Z2-7]{16})"
            + _E
            + rf"(?!{SCOPE_DATE})"
        ),
        entropy=3.0,
        examples=lambda: (
            _j("aws_access_key_id = AKIA", _r(_B32, 16)),
            _j('"AccessKeyId": "ASIA', _r(_B32, 16), '"'),
            _j("AWSAccessKeyId=AKIA", _r(_B32, 16)),  # the EC2 tools' credential file
        ),
        counter_examples=lambda: (
            "aws_access_key_id = AKIA" + "IOSFODNN7" + "EXAMPLE",
            "AKIA" + "A" * 16,
            _j(
                "https://b.s3.amazonaws.com/k?X-Amz-Credential=AKIA",
                _r(_B32, 16),
                "%2F20200513%2Fus-east-1%2Fs3%2Faws4_request&X-Amz-Expires=900",
            ),
            _j(
                '{"name": "X-Amz-Credential", "value": "ASIA',
                _r(_B32, 16),
                '/20190223/us-east-1/s3/aws4_request"}',
            ),
            _j(
                "https://b.s3.amazonaws.com/labels/1.pdf?AWSAccessKeyId=AKIA",
                _r(_B32, 16),
                "&Expires=1568274226&Signature=",
                _r(_ALNUM, 27),
                "%3D",
            ),
            # a log of a call names the key it was signed with: CloudTrail's caller (engine's
            # _logged_caller)
            _j(
                '"userIdentity": {"type": "IAMUser", "principalId": "AIDA',
                _r(_B32, 17),
                '", "accountId": "111111111111", "accessKeyId": "AKIA',
                _r(_B32, 16),
                '"}',
            ),
        ),
    ),
    Rule(
        id="aws-secret-access-key",
        description="AWS secret access key",
        keywords=("aws", "secret_access", "secretaccess", "secret-access"),
        pattern=(
            _NAME_START
            + r"(?i:aws[_.-]?secret[_.-]?(?:access[_.-]?)?key|secret[_.-]?access[_.-]?key"
            r"|aws[_.-]?secret)" + _ASSIGN + r"(?P<secret>[A-Za-z0-9/+]{40})(?![A-Za-z0-9/+=])"
        ),
        entropy=4.0,
        examples=lambda: (
            _j("aws_secret_access_key = ", _r(_B64, 40)),
            _j('"SecretAccessKey": "', _r(_B64, 40), '"'),
        ),
        counter_examples=lambda: (
            "aws_secret_access_key = wJalrXUtnFEMI/K7MDENG/bPxRfiCY" + "EXAMPLEKEY",
            "aws_secret_access_key = ${AWS_SECRET_ACCESS_KEY}",
        ),
    ),
    Rule(
        id="aws-session-token",
        description="AWS session token",
        keywords=("session_token", "sessiontoken", "session-token"),
        pattern=_NAME_START
        + r"(?i:aws[_.-]?session[_.-]?token|SessionToken)"
        + _ASSIGN
        + r"(?P<secret>[A-Za-z0-9/+=]{100,})",
        entropy=4.5,
        examples=lambda: (_j("aws_session_token = IQoJb3JpZ2luX2Vj", _r(_B64, 180)),),
        counter_examples=lambda: ("aws_session_token = $AWS_SESSION_TOKEN",),
    ),
    Rule(
        id="aws-bedrock-api-key",
        # Amazon Bedrock API keys (docs.aws.amazon.com/bedrock, "API keys"): long-term ones are ABSK
        # and base64 of "BedrockAPIKey-…"; short-term ones "bedrock-api-key-", base64 of
        # "bedrock.amazonaws.com" and of the presigned URL they carry
        description="Amazon Bedrock API key (long-term or short-term)",
        keywords=("absk", "bedrock-api-key-"),
        pattern=_B
        + r"(?P<secret>ABSK[A-Za-z0-9+/]{109,269}+={0,2}"
        + r"|bedrock-api-key-YmVkcm9jay5hbWF6b25hd3MuY29t[A-Za-z0-9+/%]{40,4000}+={0,2})"
        + r"(?![A-Za-z0-9+/=%])",
        entropy=4.0,
        examples=lambda: (
            _j("AWS_BEARER_TOKEN_BEDROCK=", "ABSKQmVkcm9ja0FQSUtleS1", _r(_B64, 110), "="),
            _j("token: bedrock-api-key-YmVkcm9jay5hbWF6b25hd3MuY29t", _r(_B64, 600)),
        ),
        counter_examples=lambda: ("ABSKQmVkcm9ja0FQSUtleS1EXAMPLE",),
    ),
    Rule(
        id="gcp-api-key",
        description="Google API key (Maps, Firebase, Gemini…)",
        keywords=("aiza",),
        pattern=_B + r"(?P<secret>AIza[0-9A-Za-z_-]{35})" + _EH,
        entropy=3.5,
        examples=lambda: (_j('GOOGLE_API_KEY="AIza', _r(_URLSAFE, 35), '"'),),
        counter_examples=lambda: ("AIza" + "x" * 35, "AIzaSy..."),
    ),
    Rule(
        id="gcp-oauth-client-secret",
        description="Google OAuth client secret",
        keywords=("gocspx-",),
        pattern=_B + r"(?P<secret>GOCSPX-[A-Za-z0-9_-]{28})" + _EH,
        entropy=3.5,
        examples=lambda: (_j('"client_secret": "GOCSPX-', _r(_URLSAFE, 28), '"'),),
    ),
    Rule(
        id="gcp-oauth-token",
        description="Google OAuth access or refresh token",
        keywords=("ya29.", "1//0"),
        # (not in base64's run, where "/" and "+" stand among letters: a font in an SVG's data URI)
        pattern=r"(?<![A-Za-z0-9_.+/])(?P<secret>ya29\.[A-Za-z0-9_-]{50,}|1//0[A-Za-z0-9_-]{40,})"
        + _EH,
        entropy=3.5,
        examples=lambda: (
            _j("Authorization: Bearer ya29.", _r(_URLSAFE, 120)),
            _j('"refresh_token": "1//0', _r(_URLSAFE, 90)),
        ),
    ),
    Rule(
        id="azure-storage-key",
        description="Azure storage account, Service Bus or Event Hubs key in a connection string",
        keywords=("accountkey=", "sharedaccesskey="),
        pattern=r"(?:AccountKey|SharedAccessKey)=(?P<secret>[A-Za-z0-9+/]{40,86}={0,2})(?![A-Za-z0-9+/=])",
        entropy=4.0,
        examples=lambda: (
            _j(
                "DefaultEndpointsProtocol=https;AccountName=prodstore;AccountKey=",
                _r(_B64, 86),
                "==;",
            ),
            _j(
                "Endpoint=sb://ns.servicebus.windows.net/;SharedAccessKeyName=Root;SharedAccessKey=",
                _r(_B64, 43),
                "=",
            ),
        ),
        counter_examples=lambda: (
            "AccountKey=" + "Eby8vdM02xNOcqFlqUwJPLlmEtlCDXJ1OUzFT50uSRZ6IFsuFq2UVErCz4I6tq/"
            "K1SZFPTOtr/KBHBeksoGMGw==",
            "AccountKey=<storage-account-key>",
        ),
    ),
    Rule(
        id="azure-sas-token",
        description="Azure shared access signature",
        keywords=("sig=",),
        pattern=r"\bsv=\d{4}-\d\d-\d\d&[^\s\"'<>]{0,300}?\bsig=(?P<secret>[A-Za-z0-9%+/]{40,}(?:%3D|=){0,2})",
        entropy=4.0,
        check="sha256_signature",
        examples=lambda: (
            _j(
                "https://a.blob.core.windows.net/c?sv=2022-11-02&ss=b&srt=co&sp=r&se=2030-01-01&sig=",
                _r(_ALNUM, 43),
                "%3D",
            ),
        ),
        counter_examples=lambda: (
            "https://a.blob.core.windows.net/c?sv=2022-11-02&sig=<signature>",
        ),
    ),
    Rule(
        id="azure-ad-client-secret",
        description="Microsoft Entra ID (Azure AD) client secret",
        keywords=("q~",),
        pattern=r"(?<![A-Za-z0-9_~.-])(?P<secret>[A-Za-z0-9_~.]{3}\dQ~[A-Za-z0-9_~.-]{31,34})(?![A-Za-z0-9_~.-])",
        entropy=3.5,
        examples=lambda: (_j("AZURE_CLIENT_SECRET=", _r(_ALNUM, 3), "8Q~", _r(_URLSAFE, 34)),),
    ),
    Rule(
        id="azure-entra-refresh-token",
        description="Microsoft Entra ID (Azure AD) refresh token",
        keywords=("0.a", "1.a"),
        # An opaque token: "0.A" or "1.A" and a base64url segment, an optional ".<digit>", then
        # ".Ag" and a long segment, and sometimes a third ".A…" one (the shape TruffleHog's Entra
        # refresh-token detector publishes; Microsoft documents the token as opaque). Bounded, so a
        # long run of token characters stays linear.
        pattern=(
            r"(?<![A-Za-z0-9_.-])(?P<secret>[01]\.A[A-Za-z0-9_-]{50,1000}(?:\.[0-9])?\.Ag[A-Za-z0-9_-]{250,4000}"
            r"(?:\.A[A-Za-z0-9_-]{200,4000})?)"
        )
        + _EH,
        entropy=4.0,
        examples=lambda: (
            _j('"refresh_token": "1.A', _r(_URLSAFE, 120), ".Ag", _r(_URLSAFE, 600), '"'),
            _j(
                "AZURE_REFRESH_TOKEN=0.A",
                _r(_URLSAFE, 90),
                ".0.Ag",
                _r(_URLSAFE, 400),
                ".A",
                _r(_URLSAFE, 240),
            ),
        ),
        counter_examples=lambda: (
            "version 1.Alpha of the 0.API, see section 1.A.Agreement",
            _j("refresh_token: 0.A", "A" * 60, ".Ag", "A" * 300),
        ),
    ),
    Rule(
        id="alibaba-access-key-id",
        description="Alibaba Cloud access key id",
        keywords=("ltai",),
        pattern=_B + r"(?P<secret>LTAI[A-Za-z0-9]{12,20})" + _E,
        entropy=3.5,
        examples=lambda: (_j("access_key_id: LTAI", _r(_ALNUM, 20)),),
    ),
    Rule(
        id="digitalocean-token",
        description="DigitalOcean personal access, OAuth or refresh token",
        keywords=("dop_v1_", "doo_v1_", "dor_v1_"),
        pattern=_B + r"(?P<secret>do[opr]_v1_[a-f0-9]{64})" + _E,
        entropy=3.0,
        examples=lambda: (_j("DIGITALOCEAN_TOKEN=dop_v1_", _r(_HEX, 64)),),
    ),
    Rule(
        id="cloudflare-origin-ca-key",
        description="Cloudflare origin CA key",
        keywords=("v1.0-",),
        pattern=_B + r"(?P<secret>v1\.0-[a-f0-9]{24}-[a-f0-9]{146})" + _E,
        examples=lambda: (_j("CF_ORIGIN_CA_KEY=v1.0-", _r(_HEX, 24), "-", _r(_HEX, 146)),),
    ),
    Rule(
        id="cloudflare-api-token",
        # Cloudflare's scannable credentials (developers.cloudflare.com, "Token formats"): a prefix
        # (cfk_ Global API Key, cfut_ user token, cfat_ account token), 40 characters and a checksum
        # (8 hex digits); a token one character short or long is none
        description="Cloudflare Global API Key, user or account API token (scannable format)",
        keywords=("cfk_", "cfut_", "cfat_"),
        pattern=_B + r"(?P<secret>cf(?:k|ut|at)_[A-Za-z0-9]{40}[a-f0-9]{8})" + _E,
        entropy=3.5,
        examples=lambda: (
            _j("CLOUDFLARE_API_TOKEN=cfut_", _r(_ALNUM, 40), _r(_HEX, 8)),
            _j("# rotated: cfat_", _r(_ALNUM, 40), _r(_HEX, 8), " (account token)"),
            _j("cf_global_key: cfk_", _r(_ALNUM, 40), _r(_HEX, 8)),
        ),
        counter_examples=lambda: (
            'return strings.HasPrefix(s, "cfut_")',
            "CF_API_TOKEN=cfut_" + "x" * 48,
        ),
    ),
    Rule(
        id="heroku-api-key",
        description="Heroku platform API key",
        keywords=("hrku-",),
        pattern=_B + r"(?P<secret>HRKU-AA[0-9A-Za-z_-]{58})" + _EH,
        entropy=3.5,
        examples=lambda: (_j("HEROKU_API_KEY=HRKU-AA", _r(_URLSAFE, 58)),),
    ),
    Rule(
        id="fly-token",
        description="Fly.io access token",
        keywords=("fo1_", "flyv1 fm"),
        pattern=r"(?P<secret>"
        + _B
        + r"fo1_[A-Za-z0-9_-]{43}"
        + _EH
        + r"|FlyV1 fm[12][a-z]?_[A-Za-z0-9+/=_,-]{100,})",
        entropy=3.5,
        # macaroons hold runs of "A" (zero bytes): entropy alone tells a stand-in
        judged="binary-format",
        counter_examples=lambda: ("FLY_API_TOKEN='FlyV1 fm2_" + "x" * 160 + "'",),
        examples=lambda: (
            _j("FLY_API_TOKEN=fo1_", _r(_URLSAFE, 43)),
            _j("FLY_API_TOKEN='FlyV1 fm2_", _r(_B64, 160), "'"),
        ),
    ),
    # -- version control ---------------------------------------------------------------------------
    Rule(
        id="github-pat",
        description="GitHub classic personal access token",
        keywords=("ghp_",),
        pattern=_B + r"(?P<secret>ghp_[A-Za-z0-9]{36})" + _E,
        entropy=3.5,
        examples=lambda: (
            _j("GITHUB_TOKEN=ghp_", _r(_ALNUM, 36)),
            _j("git clone https://ghp_", _r(_ALNUM, 36), "@github.com/o/r"),
        ),
        counter_examples=lambda: (
            "ghp_" + "x" * 36,
            "token: ghp_****************",
            "ghp_YOUR_TOKEN_HERE",
        ),
    ),
    Rule(
        id="github-oauth-token",
        description="GitHub OAuth access token",
        keywords=("gho_",),
        pattern=_B + r"(?P<secret>gho_[A-Za-z0-9]{36})" + _E,
        entropy=3.5,
        examples=lambda: (_j('{"oauth_token": "gho_', _r(_ALNUM, 36), '"}'),),
    ),
    Rule(
        id="github-app-token",
        description="GitHub App user-to-server or installation token",
        keywords=("ghu_", "ghs_"),
        # Installation tokens issued since GitHub's 2026-05-15 change are stateless: ghs_, the app's
        # id, "_" and a signed JWT (some 520 characters, dots inside); the older ones, and
        # user-to-server tokens, 36 letters and digits
        pattern=_B
        + r"(?P<secret>gh[us]_[A-Za-z0-9]{36}"
        + _E
        + r"|ghs_\d{1,12}+_[A-Za-z0-9_-]{16,1000}+\.[A-Za-z0-9_-]{16,2000}+"
        + r"\.[A-Za-z0-9_-]{16,1000}+(?![A-Za-z0-9_.-]))",
        entropy=3.5,
        examples=lambda: (
            _j("token ghs_", _r(_ALNUM, 36)),
            _j("GH_TOKEN=ghu_", _r(_ALNUM, 36)),
            _j(
                "- ghs_",
                _r(_DIGITS, 7),
                "_eyJhbGciOiJSUzI1NiIsInR5cCI6IkpXVCJ9.eyJ",
                _r(_URLSAFE, 300),
                ".",
                _r(_URLSAFE, 171),
            ),
        ),
    ),
    Rule(
        id="github-refresh-token",
        description="GitHub App refresh token",
        keywords=("ghr_",),
        pattern=_B + r"(?P<secret>ghr_[A-Za-z0-9]{36,76})" + _E,
        entropy=3.5,
        examples=lambda: (_j('"refresh_token": "ghr_', _r(_ALNUM, 76), '"'),),
    ),
    Rule(
        id="github-fine-grained-token",
        description="GitHub fine-grained personal access token",
        keywords=("github_pat_",),
        pattern=_B + r"(?P<secret>github_pat_[A-Za-z0-9]{22}_[A-Za-z0-9]{59})" + _E,
        entropy=3.5,
        examples=lambda: (_j("export GH_TOKEN=github_pat_", _r(_ALNUM, 22), "_", _r(_ALNUM, 59)),),
        counter_examples=lambda: ("github_pat_11ABCDEFG0_...",),
    ),
    Rule(
        id="gitlab-pat",
        description="GitLab personal, project or group access token",
        keywords=("glpat-",),
        pattern=_B + r"(?P<secret>glpat-[A-Za-z0-9_-]{20,}(?:\.[A-Za-z0-9_-]{2,}){0,2})" + _EH,
        entropy=3.5,
        examples=lambda: (
            _j("GITLAB_TOKEN=glpat-", _r(_URLSAFE, 20)),
            _j("private_token: glpat-", _r(_URLSAFE, 36), ".01.", _r(_ALNUM, 9)),
        ),
        counter_examples=lambda: ("GITLAB_TOKEN=glpat-xxxxxxxxxxxxxxxxxxxx",),
    ),
    Rule(
        id="gitlab-token",
        description="GitLab runner, deploy, trigger, feed, agent or OAuth token",
        keywords=(
            "glrt-",
            "gr1348941",
            "gldt-",
            "glptt-",
            "glft-",
            "glsoat-",
            "glcbt-",
            "glimt-",
            "glagent-",
            "gloas-",
        ),
        pattern=(
            _B + r"(?P<secret>(?:glrt-|GR1348941|gldt-|glft-|glsoat-|glcbt-|glimt-|glagent-)"
            r"[A-Za-z0-9_-]{20,}"
            r"|gloas-[A-Za-z0-9_-]{64}|glptt-[0-9a-f]{40})" + _EH
        ),
        entropy=3.5,
        examples=lambda: (
            _j("CI_RUNNER_TOKEN=glrt-", _r(_URLSAFE, 20)),
            _j("deploy_token: gldt-", _r(_URLSAFE, 20)),
            _j("TRIGGER=glptt-", _r(_HEX, 40)),
        ),
    ),
    Rule(
        id="bitbucket-app-password",
        description="Bitbucket app password",
        keywords=("atbb",),
        pattern=_B + r"(?P<secret>ATBB[A-Za-z0-9_=.-]{32})" + _EH,
        entropy=3.5,
        examples=lambda: (_j("BITBUCKET_APP_PASSWORD=ATBB", _r(_ALNUM, 32)),),
    ),
    Rule(
        id="atlassian-api-token",
        description="Atlassian (Jira, Confluence) API token",
        keywords=("atatt3",),
        pattern=_B + r"(?P<secret>ATATT3[A-Za-z0-9_=-]{150,260})" + _EH,
        entropy=4.0,
        examples=lambda: (
            _j("JIRA_API_TOKEN=ATATT3xFfGF0", _r(_URLSAFE, 170), "=", _r(_HEX.upper(), 8)),
        ),
    ),
    # -- chat --------------------------------------------------------------------------------------
    Rule(
        id="slack-token",
        description="Slack bot, user, workspace or configuration token",
        keywords=("xoxb-", "xoxp-", "xoxa-", "xoxr-", "xoxs-", "xoxo-", "xoxe"),
        pattern=(
            _B + r"(?P<secret>xox[bpars]-(?:[0-9]{6,}-){1,3}[A-Za-z0-9]{20,64}"
            r"|xox[os]-\d{6,}-\d{6,}-\d{6,}-[a-fA-F0-9]{20,}"  # legacy user and workspace tokens
            # legacy workspace app and refresh tokens (xoxa-2-…)
            r"|xox[ar]-(?:\d-)?[0-9a-zA-Z]{8,48}"
            r"|xoxe(?:\.xox[bp])?-\d-[A-Za-z0-9]{100,300})" + _EH
        ),
        entropy=3.0,
        examples=lambda: (
            _j("SLACK_BOT_TOKEN=xoxb-", _r(_DIGITS, 11), "-", _r(_DIGITS, 13), "-", _r(_ALNUM, 24)),
            _j(
                '"token": "xoxp-',
                _r(_DIGITS, 11),
                "-",
                _r(_DIGITS, 12),
                "-",
                _r(_DIGITS, 13),
                "-",
                _r(_HEX, 32),
                '"',
            ),
            _j("refresh: xoxe-1-", _r(_ALNUM, 146)),
            _j(
                "SLACK_LEGACY=xoxs-",
                _r(_DIGITS, 10),
                "-",
                _r(_DIGITS, 10),
                "-",
                _r(_DIGITS, 11),
                "-",
                _r(_HEX, 64),
            ),
            _j(
                "token: xoxo-",
                _r(_DIGITS, 11),
                "-",
                _r(_DIGITS, 11),
                "-",
                _r(_DIGITS, 12),
                "-",
                _r(_HEX, 32),
            ),
            _j("SLACK_APP_TOKEN=xoxa-2-", _r(_ALNUM, 40)),
            _j("refresh_token=xoxr-", _r(_ALNUM, 40)),
            _j("config: xoxe.xoxp-1-", _r(_UPPER + _DIGITS, 164)),
        ),
        counter_examples=lambda: ("SLACK_BOT_TOKEN=xoxb-your-bot-token", "xoxb-123-456-abc"),
    ),
    Rule(
        id="slack-app-token",
        description="Slack app-level token",
        keywords=("xapp-",),
        pattern=_B + r"(?P<secret>xapp-\d-[A-Z0-9]{9,12}-\d{10,14}-[a-f0-9]{64})" + _E,
        examples=lambda: (
            _j(
                "SLACK_APP_TOKEN=xapp-1-A",
                _r(_UPPER + _DIGITS, 10),
                "-",
                _r(_DIGITS, 13),
                "-",
                _r(_HEX, 64),
            ),
        ),
    ),
    Rule(
        id="slack-webhook",
        description="Slack incoming webhook or workflow URL",
        keywords=("hooks.slack.com",),
        pattern=(
            r"(?P<secret>(?:https?://)?hooks\.slack\.com/(?:services|workflows|triggers)/"
            # three or four segments
            r"T[A-Z0-9]{8,12}/(?:[A-Za-z0-9]{8,40}/){1,2}[A-Za-z0-9]{20,40}"
            r"|(?:https?://)?hooks\.slack\.com/(?:services|workflows|triggers)/[A-Za-z0-9+/]{43,56})"
            + _E
        ),
        entropy=3.5,
        examples=lambda: (
            _j(
                "SLACK_WEBHOOK=https://hooks.slack.com/services/T",
                _r(_UPPER + _DIGITS, 8),
                "/B",
                _r(_UPPER + _DIGITS, 10),
                "/",
                _r(_ALNUM, 24),
            ),
            _j(
                "http://hooks.slack.com/workflows/T",
                _r(_UPPER + _DIGITS, 9),
                "/A",
                _r(_UPPER + _DIGITS, 10),
                "/",
                _r(_DIGITS, 18),
                "/",
                _r(_ALNUM, 24),
            ),
        ),
        counter_examples=lambda: (
            "https://hooks.slack.com/services/T00000000/B00000000/XXXXXXXXXXXXXXXXXXXXXXXX",
        ),
    ),
    Rule(
        id="discord-bot-token",
        description="Discord bot token (with or without the word discord on the line)",
        keywords=("discord",),
        # Published shape (discord.py's token docs): base64 of the bot's user id (a snowflake, 17-20
        # digits), the token's timestamp (6 characters) and an HMAC (27 characters, 38 in newer
        # tokens). Base64 of ASCII digits has a fixed grammar per 4-character group, so the first
        # part alone rules out JWTs, base64 data and minified code; ``filters.discord_user_id`` then
        # decodes it. The trigger wakes the rule on lines without the word "discord": a dot, six
        # token characters and a dot, rare in code.
        trigger=r"\.[A-Za-z0-9_-]{6}\.[A-Za-z0-9_-]{27}",
        pattern=(
            r"(?<![A-Za-z0-9_.+/-])(?P<secret>(?:[MNO][DTjz][AEIMQUYcgk][w-z0-5]){5}[A-Za-z0-9_-]{3,7}"
            r"\.[A-Za-z0-9_-]{6}\.[A-Za-z0-9_-]{27,40})"
        )
        + _EH,
        entropy=3.5,
        check="discord_user_id",
        examples=lambda: (
            _j("DISCORD_TOKEN=", _discord_id(), ".", _r(_URLSAFE, 6), ".", _r(_URLSAFE, 38)),
            _j("client.run('", _discord_id(), ".", _r(_URLSAFE, 6), ".", _r(_URLSAFE, 27), "')"),
            _j('    bot.run("', _discord_id(), ".", _r(_URLSAFE, 6), ".", _r(_URLSAFE, 38), '")'),
        ),
        counter_examples=lambda: (
            # a random first part: base64 data, a JWT-like triple, not a user id
            _j("data = '", _r(_ALNUM, 24), ".", _r(_URLSAFE, 6), ".", _r(_URLSAFE, 38), "'"),
            _j("x = 'M", _r(_ALNUM, 23), ".", _r(_URLSAFE, 6), ".", _r(_URLSAFE, 27), "'"),
            _j("a.b=function(){return ", "this", ".", "render", ".", "apply(this,arguments)", "}"),
            _j("token = 'MTAwMDAwMDAwMDAwMDAw", "MDAw.", "AAAAAA.", "A" * 38, "'"),
            # the grammar of base64 digits, but ";00;00…": not a number
            _j("key = '", "OzAw" * 6, ".", _r(_URLSAFE, 6), ".", _r(_URLSAFE, 38), "'"),
        ),
    ),
    Rule(
        id="discord-webhook",
        description="Discord webhook URL",
        keywords=("/api/webhooks/",),
        pattern=(
            r"(?P<secret>https://(?:ptb\.|canary\.)?discord(?:app)?\.com/api/webhooks/\d{17,20}/[A-Za-z0-9_-]{60,68})"
            + _EH
        ),
        entropy=3.5,
        examples=lambda: (
            _j("https://discord.com/api/webhooks/", _r(_DIGITS, 18), "/", _r(_URLSAFE, 68)),
        ),
    ),
    Rule(
        id="telegram-bot-token",
        description="Telegram bot token",
        keywords=(":aa",),
        pattern=r"(?<![A-Za-z0-9_:])(?P<secret>\d{8,10}:AA[A-Za-z0-9_-]{33})" + _EH,
        entropy=3.5,
        examples=lambda: (_j("TELEGRAM_BOT_TOKEN=", _r(_DIGITS, 10), ":AA", _r(_URLSAFE, 33)),),
        counter_examples=lambda: ("time 12345678:AAbb",),
    ),
    Rule(
        id="teams-webhook",
        description="Microsoft Teams incoming webhook URL",
        keywords=(
            "webhook.office.com",
            "outlook.office.com/webhook",
            "outlook.office365.com/webhook",
        ),
        pattern=(
            r"(?P<secret>https://(?:[a-z0-9-]+\.webhook\.office\.com/webhookb2|outlook\.office(?:365)?\.com/webhook)"
            r"/[a-f0-9-]{36}@[a-f0-9-]{36}"
            r"/IncomingWebhook/[a-f0-9]{32}/[a-f0-9-]{36}(?:/[A-Za-z0-9_-]+)?)"
        ),
        examples=lambda: (
            _j(
                "https://contoso.webhook.office.com/webhookb2/",
                _r(_HEX, 8),
                "-",
                _r(_HEX, 4),
                "-",
                _r(_HEX, 4),
                "-",
                _r(_HEX, 4),
                "-",
                _r(_HEX, 12),
                "@",
                _r(_HEX, 8),
                "-",
                _r(_HEX, 4),
                "-",
                _r(_HEX, 4),
                "-",
                _r(_HEX, 4),
                "-",
                _r(_HEX, 12),
                "/IncomingWebhook/",
                _r(_HEX, 32),
                "/",
                _r(_HEX, 8),
                "-",
                _r(_HEX, 4),
                "-",
                _r(_HEX, 4),
                "-",
                _r(_HEX, 4),
                "-",
                _r(_HEX, 12),
            ),
        ),
    ),
    Rule(
        id="power-automate-webhook",
        description="Power Automate or Logic Apps HTTP trigger URL (its sig= signs every call)",
        keywords=("logic.azure.com", "powerplatform.com"),
        pattern=(
            r"https://[A-Za-z0-9.-]{1,120}\.(?:logic\.azure\.com|api\.powerplatform\.com)(?::\d{1,5})?/"
            r"[^\s\"'<>]{0,400}?[?&]sig=(?P<secret>[A-Za-z0-9_%-]{40,100})"
        ),
        entropy=4.0,
        examples=lambda: (
            _j(
                "https://prod-27.westeurope.logic.azure.com:443/workflows/",
                _r(_HEX, 32),
                "/triggers/manual/paths/invoke?api-version=2016-06-01&sp=%2Ftriggers%2Fmanual%2Frun&sv=1.0&sig=",
                _r(_URLSAFE, 43),
            ),
            _j(
                "https://default",
                _r(_HEX, 30),
                ".0e.environment.api.powerplatform.com:443/powerautomate/automations/direct/workflows/",
                _r(_HEX, 32),
                "/triggers/manual/paths/invoke?api-version=1&sp=%2Ftriggers%2Fmanual%2Frun&sv=1.0&sig=",
                _r(_URLSAFE, 43),
            ),
        ),
        counter_examples=lambda: (
            "https://prod-27.westeurope.logic.azure.com:443/workflows/abc/triggers?sig=<signature>",
        ),
    ),
    # -- payments and commerce ---------------------------------------------------------------------
    Rule(
        id="stripe-secret-key",
        description="Stripe live secret or restricted key",
        keywords=("sk_live_", "rk_live_"),
        pattern=_B + r"(?P<secret>[sr]k_live_[0-9A-Za-z]{20,247})" + _E,
        entropy=3.5,
        examples=lambda: (
            _j("STRIPE_SECRET_KEY=sk_live_", _r(_ALNUM, 99)),
            _j("stripe.api_key = 'rk_live_", _r(_ALNUM, 24), "'"),
        ),
        counter_examples=lambda: (
            "pk_live_" + _r(_ALNUM, 24),
            "sk_test_" + _r(_ALNUM, 24),
            "STRIPE_KEY=sk_live_...",
        ),
    ),
    Rule(
        id="stripe-webhook-secret",
        description="Stripe webhook signing secret",
        keywords=("whsec_",),
        pattern=_B + r"(?P<secret>whsec_[A-Za-z0-9+/=]{32,})",
        entropy=3.5,
        examples=lambda: (_j("STRIPE_WEBHOOK_SECRET=whsec_", _r(_ALNUM, 32)),),
        counter_examples=lambda: ("STRIPE_WEBHOOK_SECRET=whsec_...",),
    ),
    Rule(
        id="square-token",
        description="Square access token or OAuth secret",
        keywords=("eaaa", "sq0atp-", "sq0csp-"),
        pattern=_B + r"(?P<secret>EAAA[A-Za-z0-9_-]{60}|sq0(?:atp|csp)-[A-Za-z0-9_-]{22,43})" + _EH,
        entropy=3.5,
        examples=lambda: (
            _j("SQUARE_ACCESS_TOKEN=EAAA", _r(_URLSAFE, 60)),
            _j("oauth_secret: sq0csp-", _r(_URLSAFE, 43)),
        ),
    ),
    Rule(
        id="braintree-access-token",
        description="Braintree / PayPal production access token",
        keywords=("access_token$production$",),
        pattern=r"(?P<secret>access_token\$production\$[0-9a-z]{16}\$[0-9a-f]{32})" + _E,
        examples=lambda: (
            _j("BRAINTREE=access_token$production$", _r(_LOWER + _DIGITS, 16), "$", _r(_HEX, 32)),
        ),
    ),
    Rule(
        id="shopify-token",
        description="Shopify access token, custom app, private app or shared secret",
        keywords=("shpat_", "shpss_", "shpca_", "shppa_"),
        pattern=_B + r"(?P<secret>shp(?:at|ss|ca|pa)_[a-fA-F0-9]{32})" + _E,
        entropy=3.0,
        examples=lambda: (_j("SHOPIFY_ACCESS_TOKEN=shpat_", _r(_HEX, 32)),),
    ),
    # -- AI APIs -----------------------------------------------------------------------------------
    Rule(
        id="anthropic-api-key",
        description="Anthropic API or admin key",
        keywords=("sk-ant-",),
        # API and admin keys are 93 characters and "AA" (the format both peers match); the OAuth
        # tokens' length is not published
        pattern=(
            _B + r"(?P<secret>sk-ant-(?:api|admin)\d\d-[A-Za-z0-9_-]{93}AA"
            r"|sk-ant-(?:oat|ort)\d\d-[A-Za-z0-9_-]{32,200})" + _EH
        ),
        entropy=3.5,
        examples=lambda: (_j("ANTHROPIC_API_KEY=sk-ant-api03-", _r(_URLSAFE, 93), "AA"),),
        counter_examples=lambda: ("ANTHROPIC_API_KEY=sk-ant-api03-...",),
    ),
    Rule(
        id="openrouter-api-key",
        description="OpenRouter API key",
        keywords=("sk-or-v1-",),
        pattern=_B + r"(?P<secret>sk-or-v1-[a-f0-9]{64})" + _E,
        examples=lambda: (_j("OPENROUTER_API_KEY=sk-or-v1-", _r(_HEX, 64)),),
    ),
    Rule(
        id="openai-api-key",
        description="OpenAI API key (project, service account, admin or legacy)",
        keywords=("sk-proj-", "sk-svcacct-", "sk-admin-", "sk-none-", "t3blbkfj"),
        pattern=(
            _B + r"(?P<secret>sk-(?:(?:proj|svcacct|admin|None)-[A-Za-z0-9_-]{40,200}"
            r"|[A-Za-z0-9_-]{20,74}T3BlbkFJ[A-Za-z0-9_-]{20,74}))" + _EH
        ),
        entropy=3.5,
        examples=lambda: (
            _j("OPENAI_API_KEY=sk-proj-", _r(_URLSAFE, 156)),
            _j("openai.api_key = 'sk-", _r(_ALNUM, 20), "T3BlbkFJ", _r(_ALNUM, 20), "'"),
        ),
        counter_examples=lambda: ("OPENAI_API_KEY=sk-proj-...", "sk-proj-" + "x" * 48),
    ),
    Rule(
        id="deepseek-api-key",
        description="DeepSeek (and similar sk- plus 32 hex digits) API key",
        keywords=("sk-",),
        pattern=_B + r"(?P<secret>sk-[a-f0-9]{32})" + _EH,
        entropy=3.0,
        examples=lambda: (_j("DEEPSEEK_API_KEY=sk-", _r(_HEX, 32)),),
    ),
    Rule(
        id="moonshot-api-key",
        description=(
            "Moonshot (Kimi) API key, and the OpenAI-compatible gateways' (one-api, new-api): sk- "
            "plus 48 letters and digits"
        ),
        keywords=("sk-",),
        # (not OpenAI's legacy key, which holds T3BlbkFJ and is openai-api-key's)
        pattern=_B + r"(?P<secret>sk-(?![A-Za-z0-9]{20}T3BlbkFJ)[A-Za-z0-9]{48})" + _EH,
        entropy=3.5,
        examples=lambda: (_j('        .apiKey("sk-', _r(_ALNUM, 48), '")'),),
        counter_examples=lambda: ("sk-" + "X" * 48, "MOONSHOT_API_KEY=sk-..."),
    ),
    Rule(
        id="huggingface-token",
        description="Hugging Face user or organization token",
        keywords=("hf_", "api_org_"),
        pattern=_B + r"(?P<secret>(?:hf|api_org)_[A-Za-z]{34})" + _E,
        entropy=3.5,
        examples=lambda: (
            _j("HF_TOKEN=hf_", _r(_UPPER + _LOWER, 34)),
            _j("huggingface-cli login --token hf_", _r(_UPPER + _LOWER, 34)),
        ),
        counter_examples=lambda: ("HF_TOKEN=hf_xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx",),
    ),
    Rule(
        id="groq-api-key",
        description="Groq API key",
        keywords=("gsk_",),
        pattern=_B + r"(?P<secret>gsk_[A-Za-z0-9]{52})" + _E,
        entropy=3.5,
        examples=lambda: (_j("GROQ_API_KEY=gsk_", _r(_ALNUM, 52)),),
    ),
    Rule(
        id="replicate-api-token",
        description="Replicate API token",
        keywords=("r8_",),
        pattern=_B + r"(?P<secret>r8_[A-Za-z0-9]{37})" + _E,
        entropy=3.5,
        examples=lambda: (_j("REPLICATE_API_TOKEN=r8_", _r(_ALNUM, 37)),),
    ),
    Rule(
        id="perplexity-api-key",
        description="Perplexity API key",
        keywords=("pplx-",),
        pattern=_B + r"(?P<secret>pplx-[A-Za-z0-9]{48})" + _E,
        entropy=3.5,
        examples=lambda: (_j("PERPLEXITY_API_KEY=pplx-", _r(_ALNUM, 48)),),
    ),
    Rule(
        id="xai-api-key",
        description="xAI (Grok) API key",
        keywords=("xai-",),
        pattern=_B + r"(?P<secret>xai-[A-Za-z0-9]{80})" + _E,
        entropy=3.5,
        examples=lambda: (_j("XAI_API_KEY=xai-", _r(_ALNUM, 80)),),
    ),
    Rule(
        id="langsmith-api-key",
        description="LangSmith API key",
        keywords=("lsv2_",),
        pattern=_B + r"(?P<secret>lsv2_(?:pt|sk)_[a-f0-9]{32}_[a-f0-9]{10})" + _E,
        examples=lambda: (_j("LANGCHAIN_API_KEY=lsv2_pt_", _r(_HEX, 32), "_", _r(_HEX, 10)),),
    ),
    # -- package registries and CI -----------------------------------------------------------------
    Rule(
        id="npm-token",
        description="npm access token",
        keywords=("npm_",),
        pattern=_B + r"(?P<secret>npm_[A-Za-z0-9]{36})" + _E,
        entropy=3.5,
        examples=lambda: (_j("//registry.npmjs.org/:_authToken=npm_", _r(_ALNUM, 36)),),
        counter_examples=lambda: ("NPM_TOKEN=npm_" + "0" * 36,),
    ),
    Rule(
        id="pypi-token",
        description="PyPI or TestPyPI API token",
        keywords=("pypi-ag",),
        pattern=_B
        + r"(?P<secret>pypi-AgE(?:IcHlwaS5vcmc|NdGVzdC5weXBpLm9yZw)[A-Za-z0-9_-]{50,})"
        + _EH,
        entropy=3.5,
        examples=lambda: (
            _j(
                "[pypi]\nusername = __token__\npassword = ",
                "pypi-AgEIcHlwaS5vcmc",
                _r(_URLSAFE, 140),
            ),
        ),
    ),
    Rule(
        id="rubygems-api-key",
        description="RubyGems API key",
        keywords=("rubygems_",),
        pattern=_B + r"(?P<secret>rubygems_[a-f0-9]{48})" + _E,
        examples=lambda: (_j("GEM_HOST_API_KEY=rubygems_", _r(_HEX, 48)),),
    ),
    Rule(
        id="nuget-api-key",
        description="NuGet API key",
        keywords=("oy2",),
        pattern=_B + r"(?P<secret>oy2[a-z0-9]{43})" + _E,
        entropy=3.5,
        examples=lambda: (_j("dotnet nuget push -k oy2", _r(_LOWER + _DIGITS, 43)),),
    ),
    Rule(
        id="dockerhub-token",
        description="Docker Hub personal or organization access token",
        keywords=("dckr_pat_", "dckr_oat_"),
        pattern=_B + r"(?P<secret>dckr_(?:pat|oat)_[A-Za-z0-9_-]{27,})" + _EH,
        entropy=3.5,
        examples=lambda: (_j("DOCKERHUB_TOKEN=dckr_pat_", _r(_URLSAFE, 27)),),
    ),
    Rule(
        id="circleci-token",
        description="CircleCI personal API token",
        keywords=("ccipat_",),
        pattern=_B + r"(?P<secret>CCIPAT_[A-Za-z0-9]{22}_[a-f0-9]{40})" + _E,
        examples=lambda: (_j("CIRCLE_TOKEN=CCIPAT_", _r(_ALNUM, 22), "_", _r(_HEX, 40)),),
    ),
    Rule(
        id="buildkite-token",
        description="Buildkite API access token",
        keywords=("bkua_",),
        pattern=_B + r"(?P<secret>bkua_[a-f0-9]{40})" + _E,
        examples=lambda: (_j("BUILDKITE_API_TOKEN=bkua_", _r(_HEX, 40)),),
    ),
    Rule(
        id="sonarqube-token",
        description="SonarQube / SonarCloud token",
        keywords=("squ_", "sqa_", "sqp_", "sonar"),
        pattern=(
            r"(?:"
            + _NAME_START
            + r"(?i:sonar[\w.-]{0,20}?(?:login|token))"
            + _ASSIGN
            + r"(?=[a-f0-9]{40})|"
            + _B
            + r"(?=sq[uap]_))(?P<secret>sq[uap]_[a-f0-9]{40}|[a-f0-9]{40})"
            + _E
        ),
        entropy=3.0,
        examples=lambda: (_j("SONAR_TOKEN=squ_", _r(_HEX, 40)), _j("sonar.login=", _r(_HEX, 40))),
        counter_examples=lambda: ("commit " + _r(_HEX, 40), "sonar.login=" + "0" * 40),
    ),
    # -- mail --------------------------------------------------------------------------------------
    Rule(
        id="sendgrid-api-key",
        description="SendGrid API key",
        keywords=("sg.",),
        pattern=_B + r"(?P<secret>SG\.[A-Za-z0-9_-]{22}\.[A-Za-z0-9_-]{43})" + _EH,
        entropy=3.5,
        examples=lambda: (_j("SENDGRID_API_KEY=SG.", _r(_URLSAFE, 22), ".", _r(_URLSAFE, 43)),),
    ),
    Rule(
        id="mailgun-api-key",
        description="Mailgun API key",
        keywords=("key-",),
        pattern=_B + r"(?P<secret>key-[0-9a-f]{32})" + _E,
        entropy=3.0,
        examples=lambda: (_j("MAILGUN_API_KEY=key-", _r(_HEX, 32)),),
    ),
    Rule(
        id="mailchimp-api-key",
        description="Mailchimp API key",
        keywords=("-us",),
        pattern=_B + r"(?P<secret>[0-9a-f]{32}-us\d{1,2})" + _E,
        entropy=3.0,
        examples=lambda: (_j("MAILCHIMP_API_KEY=", _r(_HEX, 32), "-us21"),),
    ),
    Rule(
        id="brevo-api-key",
        description="Brevo (Sendinblue) API key",
        keywords=("xkeysib-",),
        pattern=_B + r"(?P<secret>xkeysib-[a-f0-9]{64}-[A-Za-z0-9]{16})" + _E,
        examples=lambda: (_j("BREVO_API_KEY=xkeysib-", _r(_HEX, 64), "-", _r(_ALNUM, 16)),),
    ),
    # -- other services with fixed prefixes --------------------------------------------------------
    Rule(
        id="databricks-token",
        description="Databricks personal access token",
        keywords=("dapi",),
        pattern=_B + r"(?P<secret>dapi[a-f0-9]{32}(?:-\d)?)" + _E,
        entropy=3.0,
        examples=lambda: (_j("DATABRICKS_TOKEN=dapi", _r(_HEX, 32)),),
    ),
    Rule(
        id="twilio-api-key",
        description="Twilio API key secret id",
        keywords=("sk",),
        pattern=_B + r"(?P<secret>SK[0-9a-f]{32})" + _E,
        entropy=3.0,
        examples=lambda: (_j("TWILIO_API_KEY=SK", _r(_HEX, 32)),),
    ),
    Rule(
        id="newrelic-key",
        description="New Relic user, browser, ingest, Insights, license key or mobile app token",
        keywords=("nrak-", "nrjs-", "nrii-", "nriq-", "nrbr-", "ffffnral", "-nrma"),
        pattern=(
            _B + r"(?P<secret>NRAK-[A-Za-z0-9]{27}|NR(?:JS|BR)-[a-f0-9]{19}"
            r"|NRI[IQ]-(?:[A-Za-z0-9_-]{32}|[A-Za-z0-9_-]{25})"
            # license keys end in FFFFNRAL, mobile app tokens in -NRMA (an EU account's begin with
            # eu01xx)
            r"|(?:[0-9a-f]{32}|eu01xx[0-9a-f]{26})FFFFNRAL|(?:AA[0-9a-f]{40}|eu01xx[0-9a-f]{36})-NRMA)"
            + _EH
        ),
        entropy=3.5,
        examples=lambda: (
            _j("NEW_RELIC_API_KEY=NRAK-", _r(_UPPER + _DIGITS, 27)),
            _j("NEW_RELIC_QUERY_KEY=NRIQ-", _r(_URLSAFE, 25)),
            _j("NEW_RELIC_LICENSE_KEY=", _r(_HEX, 32), "FFFFNRAL"),
            _j("license_key: eu01xx", _r(_HEX, 26), "FFFFNRAL"),
            _j('"appToken": "AA', _r(_HEX, 40), '-NRMA"'),
        ),
        counter_examples=lambda: (
            "NEW_RELIC_LICENSE_KEY=" + "0" * 32 + "FFFFNRAL",
            "NRIQ-xxxxxxxxxxxxxxxxxxxxxxxxx",
        ),
    ),
    Rule(
        id="dynatrace-token",
        # Dynatrace's token format (docs.dynatrace.com, "Access tokens"): dt0c01, a public part of
        # 24 characters and a secret of 64
        description="Dynatrace access token",
        keywords=("dt0c01.",),
        pattern=_B + r"(?P<secret>dt0c01\.[A-Za-z0-9]{24}\.[A-Za-z0-9]{64})" + _E,
        entropy=3.5,
        examples=lambda: (
            _j("DT_API_TOKEN=dt0c01.", _r(_UPPER + _DIGITS, 24), ".", _r(_UPPER + _DIGITS, 64)),
        ),
    ),
    Rule(
        id="datadog-api-key",
        description="Datadog API or application key",
        keywords=("datadog", "dd_api", "dd_app", "dd-api", "dd-app"),
        pattern=(
            _NAME_START
            + r"(?i:(?:datadog|dd)[_.-]?(?:api|app(?:lication)?)[_.-]?key)"
            + _ASSIGN
            + r"(?P<secret>[a-f0-9]{32}|[a-f0-9]{40})"
            + _E
        ),
        entropy=3.0,
        examples=lambda: (_j("DD_API_KEY=", _r(_HEX, 32)), _j("datadog_app_key: ", _r(_HEX, 40))),
    ),
    Rule(
        id="sentry-token",
        description="Sentry organization or user auth token",
        keywords=("sntrys_", "sntryu_"),
        pattern=_B + r"(?P<secret>sntrys_eyJ[A-Za-z0-9+/=_-]{60,}|sntryu_[a-f0-9]{64})" + _EH,
        entropy=3.5,
        examples=lambda: (_j("SENTRY_AUTH_TOKEN=sntryu_", _r(_HEX, 64)),),
    ),
    Rule(
        id="linear-api-key",
        description="Linear API key",
        keywords=("lin_api_",),
        pattern=_B + r"(?P<secret>lin_api_[A-Za-z0-9]{40})" + _E,
        entropy=3.5,
        examples=lambda: (_j("LINEAR_API_KEY=lin_api_", _r(_ALNUM, 40)),),
    ),
    Rule(
        id="notion-token",
        description="Notion integration token",
        keywords=("ntn_", "secret_"),
        pattern=_B + r"(?P<secret>ntn_\d{11}[A-Za-z0-9]{35}|secret_[A-Za-z0-9]{43})" + _E,
        entropy=4.0,
        examples=lambda: (
            _j("NOTION_TOKEN=ntn_", _r(_DIGITS, 11), _r(_ALNUM, 35)),
            _j("NOTION_KEY=secret_", _r(_ALNUM, 43)),
        ),
    ),
    Rule(
        id="figma-token",
        description="Figma personal access token",
        keywords=("figd_",),
        pattern=_B + r"(?P<secret>figd_[A-Za-z0-9_-]{40,})" + _EH,
        entropy=3.5,
        examples=lambda: (_j("FIGMA_TOKEN=figd_", _r(_URLSAFE, 40)),),
    ),
    Rule(
        id="doppler-token",
        description="Doppler service, personal or service-account token",
        keywords=("dp.pt.", "dp.st.", "dp.sa.", "dp.ct.", "dp.scim.", "dp.audit."),
        pattern=_B + r"(?P<secret>dp\.(?:pt|st|sa|ct|scim|audit)\.[A-Za-z0-9._]{40,60})" + _E,
        entropy=3.5,
        examples=lambda: (_j("DOPPLER_TOKEN=dp.st.prd.", _r(_ALNUM, 43)),),
    ),
    Rule(
        id="pulumi-token",
        description="Pulumi access token",
        keywords=("pul-",),
        pattern=_B + r"(?P<secret>pul-[a-f0-9]{40})" + _E,
        examples=lambda: (_j("PULUMI_ACCESS_TOKEN=pul-", _r(_HEX, 40)),),
    ),
    Rule(
        id="terraform-cloud-token",
        description="Terraform Cloud / Enterprise API token",
        keywords=(".atlasv1.",),
        pattern=_B + r"(?P<secret>[A-Za-z0-9]{14}\.atlasv1\.[A-Za-z0-9_=-]{60,70})" + _EH,
        entropy=3.5,
        examples=lambda: (_j('token = "', _r(_ALNUM, 14), ".atlasv1.", _r(_URLSAFE, 67), '"'),),
    ),
    Rule(
        id="vault-token",
        description="HashiCorp Vault service, batch or recovery token "
        "(and a legacy s. token named as one)",
        keywords=("hvs.", "hvb.", "hvr.", "vault"),
        pattern=(
            r"(?:"
            + _NAME_START
            + r"(?i:vault[_.-]?token|x-vault-token)"
            + _ASSIGN
            + r"(?=s\.)|"
            + _B
            + r"(?=hv[sbr]\.))"
            r"(?P<secret>hv[sbr]\.[A-Za-z0-9_-]{24,}|s\.[A-Za-z0-9]{24})" + _EH
        ),
        entropy=3.5,
        examples=lambda: (
            _j("VAULT_TOKEN=hvs.", _r(_URLSAFE, 90)),
            _j("VAULT_TOKEN=hvb.", _r(_URLSAFE, 138)),
            _j('X-Vault-Token: "s.', _r(_ALNUM, 24), '"'),
        ),
        counter_examples=lambda: (
            "model.s." + _r(_ALNUM, 24),
            "VAULT_TOKEN=s.xxxxxxxxxxxxxxxxxxxxxxxx",
        ),
    ),
    Rule(
        id="uuid-api-key",
        description="Heroku, HubSpot, npm or Snyk key in the shape of a UUID, "
        "where its name says which",
        keywords=("heroku", "hubspot", "hapikey", "npm", "_authtoken", "snyk"),
        pattern=(
            _NAME_START + r"(?i:(?:heroku|hubspot|npm|snyk)[\w.-]{0,30}?"
            r"(?:api[_.-]?key|key|token|auth|secret|password)|hapikey|_authToken)"
            + _ASSIGN
            + r"(?P<secret>[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-"
            r"[0-9a-fA-F]{12})(?![\w-])"
        ),
        entropy=3.0,
        check="random_uuid",  # a version 1 UUID is a time: an id
        examples=lambda: (
            _j(
                "HEROKU_API_KEY=",
                _r(_HEX, 8),
                "-",
                _r(_HEX, 4),
                "-",
                _r(_HEX, 4),
                "-",
                _r(_HEX, 4),
                "-",
                _r(_HEX, 12),
            ),
            _j(
                "hubspot_api_key: '",
                _r(_HEX, 8),
                "-",
                _r(_HEX, 4),
                "-",
                _r(_HEX, 4),
                "-",
                _r(_HEX, 4),
                "-",
                _r(_HEX, 12),
                "'",
            ),
            _j(
                "//registry.npmjs.org/:_authToken=",
                _r(_HEX, 8),
                "-",
                _r(_HEX, 4),
                "-4",
                _r(_HEX, 3),
                "-",
                _r(_HEX, 4),
                "-",
                _r(_HEX, 12),
            ),
            _j(
                "https://api.hubapi.com/contacts/v1/lists?hapikey=",
                _r(_HEX, 8),
                "-",
                _r(_HEX, 4),
                "-",
                _r(_HEX, 4),
                "-",
                _r(_HEX, 4),
                "-",
                _r(_HEX, 12),
            ),
        ),
        counter_examples=lambda: (
            "heroku_app_id = "
            + _r(_HEX, 8)
            + "-"
            + _r(_HEX, 4)
            + "-"
            + _r(_HEX, 4)
            + "-"
            + _r(_HEX, 4)
            + "-"
            + _r(_HEX, 12),
            "HEROKU_API_KEY=00000000-0000-0000-0000-000000000000",
        ),
    ),
    Rule(
        id="azure-storage-account-key",
        description="Azure storage account key named as one, outside a connection string",
        keywords=("azure", "storage", "accountkey", "account_key", "account-key"),
        pattern=(
            _NAME_START
            + r"(?i:(?:azure|storage|account)[\w.-]{0,40}?key)"
            + _ASSIGN
            + r"(?P<secret>[A-Za-z0-9+/]{86}==)(?![A-Za-z0-9+/=])"
        ),
        entropy=4.5,
        examples=lambda: (
            _j("AZURE_STORAGE_KEY=", _r(_B64, 86), "=="),
            _j('"storageAccountKey": "', _r(_B64, 86), '=="'),
        ),
        counter_examples=lambda: ("AZURE_STORAGE_KEY=" + "A" * 86 + "==",),
    ),
    Rule(
        id="grafana-token",
        description="Grafana Cloud or service-account token",
        keywords=("glc_", "glsa_"),
        pattern=_B
        + r"(?P<secret>glc_[A-Za-z0-9+/]{32,400}={0,2}|glsa_[A-Za-z0-9]{32}_[A-Fa-f0-9]{8})"
        + _E,
        entropy=3.5,
        examples=lambda: (
            _j("GRAFANA_TOKEN=glsa_", _r(_ALNUM, 32), "_", _r(_HEX, 8)),
            _j("GRAFANA_CLOUD=glc_", _r(_B64, 120)),
        ),
    ),
    Rule(
        id="planetscale-token",
        description="PlanetScale service token, password or OAuth token",
        keywords=("pscale_",),
        pattern=_B + r"(?P<secret>pscale_(?:tkn|pw|oauth)_[A-Za-z0-9_.=-]{32,64})" + _EH,
        entropy=3.5,
        examples=lambda: (_j("PLANETSCALE_PASSWORD=pscale_pw_", _r(_URLSAFE, 43)),),
    ),
    Rule(
        id="supabase-token",
        description="Supabase access token or secret key",
        keywords=("sbp_", "sb_secret_"),
        pattern=_B + r"(?P<secret>sbp_[a-f0-9]{40}|sb_secret_[A-Za-z0-9_-]{31,})" + _EH,
        entropy=3.0,
        examples=lambda: (_j("SUPABASE_ACCESS_TOKEN=sbp_", _r(_HEX, 40)),),
        counter_examples=lambda: ("SUPABASE_PUBLISHABLE_KEY=sb_publishable_" + _r(_URLSAFE, 31),),
    ),
    Rule(
        id="mapbox-secret-token",
        description="Mapbox secret access token",
        keywords=("sk.eyj",),
        pattern=_B + r"(?P<secret>sk\.eyJ[A-Za-z0-9_-]{20,}\.[A-Za-z0-9_-]{20,})" + _EH,
        entropy=3.5,
        examples=lambda: (
            _j("MAPBOX_TOKEN=", "sk.eyJ1Ijoi", _r(_URLSAFE, 50), ".", _r(_URLSAFE, 22)),
        ),
        counter_examples=lambda: (
            "MAPBOX_PUBLIC=pk.eyJ1Ijoi" + _r(_URLSAFE, 50) + "." + _r(_URLSAFE, 22),
        ),
    ),
    Rule(
        id="airtable-token",
        description="Airtable personal access token",
        keywords=("pat",),
        pattern=_B + r"(?P<secret>pat[A-Za-z0-9]{14}\.[a-f0-9]{64})" + _E,
        entropy=3.5,
        examples=lambda: (_j("AIRTABLE_TOKEN=pat", _r(_ALNUM, 14), ".", _r(_HEX, 64)),),
    ),
    Rule(
        id="postman-api-key",
        description="Postman API key",
        keywords=("pmak-",),
        pattern=_B + r"(?P<secret>PMAK-[a-f0-9]{24}-[a-f0-9]{34})" + _E,
        examples=lambda: (_j("POSTMAN_API_KEY=PMAK-", _r(_HEX, 24), "-", _r(_HEX, 34)),),
    ),
    Rule(
        id="netlify-token",
        description="Netlify personal access token",
        keywords=("nfp_",),
        pattern=_B + r"(?P<secret>nfp_[A-Za-z0-9]{36,40})" + _E,
        entropy=3.5,
        examples=lambda: (_j("NETLIFY_AUTH_TOKEN=nfp_", _r(_ALNUM, 36)),),
    ),
    Rule(
        id="tailscale-key",
        description="Tailscale auth, API or OAuth client key",
        keywords=("tskey-",),
        pattern=_B
        + r"(?P<secret>tskey-(?:auth|api|client|webhook|scim)-[A-Za-z0-9]{6,}-[A-Za-z0-9]{20,})"
        + _E,
        entropy=3.5,
        examples=lambda: (_j("TS_AUTHKEY=tskey-auth-k", _r(_ALNUM, 10), "CNTRL-", _r(_ALNUM, 32)),),
    ),
    Rule(
        id="onepassword-token",
        description="1Password service-account token",
        keywords=("ops_eyj",),
        pattern=_B + r"(?P<secret>ops_eyJ[A-Za-z0-9+/=_-]{250,})",
        entropy=4.0,
        examples=lambda: (_j("OP_SERVICE_ACCOUNT_TOKEN=ops_eyJ", _r(_B64, 300)),),
    ),
    Rule(
        id="dropbox-token",
        description="Dropbox short-lived access token",
        keywords=("sl.",),
        pattern=r"(?<![A-Za-z0-9_.])(?P<secret>sl\.(?:u\.)?[A-Za-z0-9_-]{130,})" + _EH,
        entropy=4.0,
        examples=lambda: (_j("DROPBOX_TOKEN=sl.B", _r(_URLSAFE, 137)),),
    ),
    Rule(
        id="hubspot-token",
        description="HubSpot private app access token",
        keywords=("pat-na1-", "pat-eu1-"),
        pattern=_B
        + r"(?P<secret>pat-(?:na|eu)1-[a-f0-9]{8}-[a-f0-9]{4}-[a-f0-9]{4}-[a-f0-9]{4}-[a-f0-9]{12})"
        + _E,
        examples=lambda: (
            _j(
                "HUBSPOT_TOKEN=pat-na1-",
                _r(_HEX, 8),
                "-",
                _r(_HEX, 4),
                "-",
                _r(_HEX, 4),
                "-",
                _r(_HEX, 4),
                "-",
                _r(_HEX, 12),
            ),
        ),
    ),
    Rule(
        id="prefect-api-key",
        description="Prefect Cloud API key",
        keywords=("pnu_",),
        pattern=_B + r"(?P<secret>pnu_[A-Za-z0-9]{36})" + _E,
        entropy=3.5,
        examples=lambda: (_j("PREFECT_API_KEY=pnu_", _r(_ALNUM, 36)),),
    ),
    Rule(
        id="contentful-token",
        description="Contentful personal access token",
        keywords=("cfpat-",),
        pattern=_B + r"(?P<secret>CFPAT-[A-Za-z0-9_-]{43})" + _EH,
        entropy=3.5,
        examples=lambda: (_j("CONTENTFUL_MANAGEMENT_TOKEN=CFPAT-", _r(_URLSAFE, 43)),),
    ),
    Rule(
        id="fcm-server-key",
        description="Firebase Cloud Messaging legacy server key",
        keywords=(":apa91b",),
        pattern=_B + r"(?P<secret>AAAA[A-Za-z0-9_-]{7}:APA91b[A-Za-z0-9_-]{134})" + _EH,
        entropy=3.5,
        examples=lambda: (
            _j("FCM_SERVER_KEY=AAAA", _r(_URLSAFE, 7), ":APA91b", _r(_URLSAFE, 134)),
        ),
    ),
    # issue 26: formats the peers' published tests hold that no rule here knew (their published
    # token formats)
    Rule(
        id="sourcegraph-access-token",
        description="Sourcegraph access token",
        keywords=("sgp_",),
        # sgp_, the instance's 16 hex digits (or "local") and 40 more; tokens made before the
        # instance part, sgp_ and 40 hex digits
        pattern=_B + r"(?P<secret>sgp_(?:(?:[A-Fa-f0-9]{16}|local)_)?[A-Fa-f0-9]{40})" + _E,
        entropy=3.0,
        examples=lambda: (
            _j("SRC_ACCESS_TOKEN=sgp_", _r(_HEX, 16), "_", _r(_HEX, 40)),
            _j("src login --token sgp_", _r(_HEX, 40)),
        ),
        counter_examples=lambda: ("sgp_" + "x" * 16 + "_" + "x" * 40,),
    ),
    Rule(
        id="facebook-page-access-token",
        description="Facebook (Meta) page or user access token",
        keywords=("eaam", "eaac"),
        pattern=_B + r"(?P<secret>EAA[MC][A-Za-z0-9]{100,400})" + _E,
        entropy=4.0,
        examples=lambda: (_j("FB_PAGE_TOKEN=EAAM", _r(_ALNUM, 160)),),
        counter_examples=lambda: ("EAAM" + "A" * 120,),
    ),
    Rule(
        id="rootly-api-key",
        description="Rootly API key",
        keywords=("rootly_",),
        pattern=_B + r"(?P<secret>rootly_[a-f0-9]{64})" + _E,
        entropy=3.0,
        examples=lambda: (_j("ROOTLY_TOKEN=rootly_", _r(_HEX, 64)),),
        counter_examples=lambda: ("rootly_" + "0" * 64,),
    ),
    Rule(
        id="intra42-client-secret",
        description="42 Network (intra) client secret",
        keywords=("s-s4t2",),
        pattern=_B + r"(?P<secret>s-s4t2(?:ud|af)-[a-f0-9]{64})" + _E,
        entropy=3.0,
        examples=lambda: (_j("CLIENT_SECRET=s-s4t2ud-", _r(_HEX, 64)),),
        counter_examples=lambda: ("s-s4t2ud-" + "0" * 64,),
    ),
    Rule(
        id="1password-secret-key",
        description="1Password account secret key",
        keywords=("a3-",),
        pattern=(
            r"(?<![A-Za-z0-9-])(?P<secret>A3-[A-Z0-9]{6}-(?:[A-Z0-9]{11}|[A-Z0-9]{6}-[A-Z0-9]{5})"
            r"-[A-Z0-9]{5}-[A-Z0-9]{5}-[A-Z0-9]{5})(?![A-Za-z0-9-])"
        ),
        entropy=3.0,
        examples=lambda: (
            _j(
                "OP_SECRET_KEY=A3-",
                *(_r(_UPPER + _DIGITS, n) + "-" for n in (6, 11, 5, 5)),
                _r(_UPPER + _DIGITS, 5),
            ),
        ),
        counter_examples=lambda: ("A3-XXXXXX-XXXXXXXXXXX-XXXXX-XXXXX-XXXXX",),
    ),
    Rule(
        id="teamwork-api-token",
        description="Teamwork (Desk, Spaces) API token",
        keywords=("tkn.v1_",),
        pattern=_B + r"(?P<secret>tkn\.v1_[A-Za-z0-9]{60,90}={0,2})" + _E,
        entropy=4.0,
        examples=lambda: (_j("TEAMWORK_TOKEN=tkn.v1_", _r(_ALNUM, 71), "="),),
        counter_examples=lambda: ("tkn.v1_" + "x" * 71,),
    ),
    Rule(
        id="sidekiq-credentials",
        description="Sidekiq Pro or Enterprise gem server credentials "
        "(Bundler's setting or command, or in the source URL)",
        keywords=("contribsys",),
        pattern=(
            r"(?:"
            + _NAME_START
            + r"(?i:BUNDLE_(?:ENTERPRISE|GEMS)__CONTRIBSYS__COM)\w{0,40}+"
            + _ASSIGN
            # the command Sidekiq's docs give: bundle config --local gems.contribsys.com user:pass
            + r"|"
            + _NAME_START
            + r"(?i:(?:gems|enterprise)\.contribsys\.com)[ \t]+"
            + r"|(?i:https?)://(?=[a-f0-9]{8}:[a-f0-9]{8}@(?i:gems|enterprise)\.contribsys\.com(?![\w.-])))"
            r"(?P<secret>[a-f0-9]{8}:[a-f0-9]{8})(?![\w:])"
        ),
        examples=lambda: (
            _j("export BUNDLE_ENTERPRISE__CONTRIBSYS__COM=", _r(_HEX, 8), ":", _r(_HEX, 8)),
            _j(
                'source "https://', _r(_HEX, 8), ":", _r(_HEX, 8), '@enterprise.contribsys.com/" do'
            ),
            _j("bundle config --local gems.contribsys.com ", _r(_HEX, 8), ":", _r(_HEX, 8)),
        ),
        counter_examples=lambda: (
            "BUNDLE_GEMS__CONTRIBSYS__COM=00000000:00000000",
            'source "https://gems.contribsys.com/" do',
            "BUNDLE_GEMS__CONTRIBSYS__COM=${SIDEKIQ_CREDENTIALS}",
        ),
    ),
    Rule(
        id="harness-token",
        description="Harness personal access or service-account token",
        keywords=("pat.", "sat."),
        pattern=_B
        + r"(?P<secret>[ps]at\.[A-Za-z0-9_-]{22}\.[A-Za-z0-9]{24}\.[A-Za-z0-9]{20})"
        + _E,
        entropy=3.5,
        examples=lambda: (
            _j("HARNESS_API_KEY=pat.", _r(_URLSAFE, 22), ".", _r(_HEX, 24), ".", _r(_ALNUM, 20)),
            _j('token: "sat.', _r(_URLSAFE, 22), ".", _r(_ALNUM, 24), ".", _r(_ALNUM, 20), '"'),
        ),
        counter_examples=lambda: ("pat." + "x" * 22 + "." + "x" * 24 + "." + "x" * 20,),
    ),
    Rule(
        id="shippo-live-token",
        description="Shippo live API token",
        keywords=("shippo_live_",),
        pattern=_B + r"(?P<secret>shippo_live_[a-fA-F0-9]{40})" + _E,
        entropy=3.0,
        examples=lambda: (_j("SHIPPO_API_TOKEN=shippo_live_", _r(_HEX, 40)),),
        counter_examples=lambda: ("SHIPPO_API_TOKEN=shippo_test_" + _r(_HEX, 40),),
    ),
    Rule(
        id="typeform-token",
        description="Typeform personal access token",
        keywords=("tfp_",),
        pattern=_B + r"(?P<secret>tfp_[A-Za-z0-9_.=-]{40,60})" + _EH,
        entropy=3.5,
        examples=lambda: (_j("TYPEFORM_TOKEN=tfp_", _r(_ALNUM, 44), "_", _r(_ALNUM, 14)),),
        counter_examples=lambda: ("tfp_" + "x" * 44,),
    ),
    Rule(
        id="twitter-bearer-token",
        description="Twitter (X) app-only bearer token",
        keywords=("aaaaaaaaaaaaaaaaaaaaaa",),
        # Twenty-two A's, then the URL-encoded token (its %2B, %2F, %3D are part of it): the A's are
        # the format, so the placeholder filter, which takes a run of one character for a stand-in,
        # is off and the check asks the rest for the entropy of a random token and one escape at
        # least.
        pattern=r"(?<![A-Za-z0-9%])(?P<secret>A{22}[A-Za-z0-9%]{80,110})(?![A-Za-z0-9%])",
        judged="binary-format",
        check="twitter_bearer",
        examples=lambda: (
            _j(
                "TWITTER_BEARER_TOKEN=",
                "A" * 22,
                _r(_ALNUM, 30),
                "%2B",
                _r(_ALNUM, 20),
                "%3D",
                _r(_ALNUM, 50),
            ),
        ),
        counter_examples=lambda: ("A" * 22 + "B" * 90, "A" * 22 + "x" * 40 + "%2B" + "x" * 40),
    ),
    Rule(
        id="bitbucket-datacenter-token",
        description="Bitbucket Data Center HTTP access token",
        keywords=("bbdc-",),
        pattern=_B + r"(?P<secret>BBDC-[A-Za-z0-9+/@_-]{40,50})(?![A-Za-z0-9+/@_-])",
        entropy=4.0,
        examples=lambda: (_j("BITBUCKET_TOKEN=BBDC-", _r(_B64, 44)),),
        counter_examples=lambda: ("BBDC-" + "A" * 44,),
    ),
    Rule(
        id="aws-appsync-api-key",
        description="AWS AppSync GraphQL API key",
        keywords=("da2-",),
        pattern=_B + r"(?P<secret>da2-[a-z0-9]{26})" + _E,
        entropy=3.5,
        examples=lambda: (_j('const apiKey = "da2-', _r(_LOWER + _DIGITS, 26), '";'),),
        counter_examples=lambda: ("da2-" + "x" * 26,),
    ),
    Rule(
        id="azure-app-configuration-key",
        description="Azure App Configuration connection string's secret",
        keywords=("azconfig.io",),
        pattern=(
            r"Endpoint=https://[A-Za-z0-9-]{1,63}\.azconfig\.io;Id=[A-Za-z0-9+/=:_-]{1,64};"
            r"Secret=(?P<secret>[A-Za-z0-9+/]{20,100}={0,2})(?![A-Za-z0-9+/=])"
        ),
        entropy=4.0,
        examples=lambda: (
            _j(
                "Endpoint=https://prod-cfg.azconfig.io;Id=",
                _r(_ALNUM, 4),
                "-l1-s0:",
                _r(_ALNUM, 20),
                ";Secret=",
                _r(_B64, 43),
                "=",
            ),
        ),
        counter_examples=lambda: ("Endpoint=https://prod-cfg.azconfig.io;Id=abcd;Secret=<secret>",),
    ),
    Rule(
        id="maxmind-license-key",
        description="MaxMind license key (GeoIP.conf, or the key's _mmk format)",
        keywords=("licensekey", "_mmk"),
        pattern=(
            r"(?:^[ \t]*LicenseKey[ \t]+(?=[A-Za-z0-9_]{12,64}[ \t]*\r?$)"
            r"|(?<![A-Za-z0-9_])(?=[A-Za-z0-9]{6}_[A-Za-z0-9]{29}_mmk(?![A-Za-z0-9_])))(?P<secret>[A-Za-z0-9_]{12,64}+)"
        ),
        check="generated",
        examples=lambda: (
            _j("AccountID 123456\nLicenseKey ", _r(_ALNUM, 16), "\nEditionIDs GeoLite2-City"),
            _j("MAXMIND_LICENSE_KEY=", _r(_ALNUM, 6), "_", _r(_ALNUM, 29), "_mmk"),
        ),
        counter_examples=lambda: ("LicenseKey YOUR_LICENSE_KEY_HERE", "LicenseKey 000000000000"),
    ),
    # -- tokens without a provider: JWTs, credentials in URLs and headers --------------------------
    Rule(
        id="jwt",
        description="Signed JSON Web Token",
        keywords=("eyj",),
        pattern=(
            r"(?<![A-Za-z0-9_.-])(?P<secret>eyJ[A-Za-z0-9_-]{10,}={0,2}\.eyJ[A-Za-z0-9_-]{10,}={0,2}"
            r"\.[A-Za-z0-9_-]{16,}={0,2})" + _EH
        ),
        check="jwt_token",
        examples=lambda: (
            _j(
                "Authorization: Bearer eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJ",
                _r(_URLSAFE, 60),
                ".",
                _r(_URLSAFE, 43),
            ),
        ),
        counter_examples=lambda: (
            "eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiIxMjM0NTY3ODkwIiwibmFtZSI6IkpvaG4gRG9lIiwiaWF0IjoxNTE2M"
            "jM5MDIyfQ.SflKxwRJSMeKKF2QT4fwpMeJf36POk6yJV_adQssw5c",
            "eyJhbGciOiJub25lIn0.eyJzdWIiOiIxMjM0NTY3ODkwIn0." + _r(_URLSAFE, 20),
        ),
    ),
    Rule(
        id="database-url",
        description="Database connection URL with an inline password",
        keywords=("://",),
        pattern=(
            r"(?<![A-Za-z0-9+.-])(?P<scheme>(?i:postgres(?:ql)?|mysql|mariadb|mongodb(?:\+srv)?|redis|"
            r"rediss|amqps?|mssql|sqlserver|oracle|cockroachdb|clickhouse|neo4j(?:\+s)?|couchdb|"
            r"cassandra|jdbc:[a-z]{2,20}|[a-z]{2,20}\+[a-z0-9]{1,20}))://"
            + _URL_USERINFO
            + r"[A-Za-z0-9_.\[\]-]"
        ),
        check="url_password",
        prose_check="url_password_in_prose",
        examples=lambda: (
            _j("DATABASE_URL=postgres://app:", _r(_ALNUM, 20), "@db.internal:5432/app"),
            _j('mongo_uri = "mongodb+srv://admin:', _r(_ALNUM, 16), '@cluster0.mongodb.net/prod"'),
        ),
        counter_examples=lambda: (
            "DATABASE_URL=postgres://postgres:postgres@localhost:5432/app",
            "DATABASE_URL=postgres://app:${DB_PASSWORD}@db:5432/app",
            "redis://:password@localhost:6379/0",
            "mysql://user:****@host/db",
            "postgresql://user@localhost/db",
        ),
    ),
    Rule(
        id="jdbc-password",
        description="JDBC connection string with a password parameter",
        keywords=("jdbc:",),
        pattern=r"jdbc:[a-z0-9]{2,20}:[^\s\"'<>`]{0,300}?[?&;](?i:password|pwd)=(?P<secret>[^&;\s\"'<>`]{1,128})",
        check="url_password",
        prose_check="url_password_in_prose",
        examples=lambda: (
            _j("url=jdbc:mysql://db.internal:3306/app?user=app&password=", _r(_ALNUM, 16)),
            _j(
                '"jdbc:sqlserver://db.internal:1433;databaseName=app;user=sa;password=',
                _r(_ALNUM, 14),
                ';"',
            ),
        ),
        counter_examples=lambda: (
            "jdbc:postgresql://localhost/app?user=app&password=${DB_PASSWORD}",
        ),
    ),
    Rule(
        id="url-credentials",
        description="URL with an inline password",
        keywords=("://",),
        pattern=(
            r"(?<![A-Za-z0-9.-])(?P<scheme>(?i:https?|ftps?|sftp|ssh|git|smtps?|imaps?|ldaps?|amqps?|"
            r"[a-z][a-z0-9]{2,15}))://" + _URL_USERINFO + r"[A-Za-z0-9_.\[\]-]"
        ),
        check="url_password",
        prose_check="url_password_in_prose",
        examples=lambda: (
            _j(
                "git remote add origin https://deploy:",
                _r(_ALNUM, 24),
                "@git.example.org/team/app.git",
            ),
        ),
        counter_examples=lambda: (
            "https://user:password@example.com/",
            "https://x-access-token:${GITHUB_TOKEN}@github.com/o/r",
            "ssh://git@github.com:22/o/r.git",
        ),
    ),
    Rule(
        id="url-key-parameter",
        description="An API key in a URL's key= query parameter (?key=…, as Google's and many REST "
        "APIs take it)",
        keywords=("?key=", "&key="),
        # (not an old Google Sheets URL's: its key is the published spreadsheet's id, TimelineJS's
        # docs/spreadsheet/pub?key=…)
        pattern=r"(?<!/spreadsheet/pub)(?<!/spreadsheet/ccc)[?&](?i:key)="
        r"(?P<secret>[A-Za-z0-9_.~-]{20,200}+)(?![^&#\s\"'`<>)\]])",
        check="random_value",
        examples=lambda: (
            _j('url := "https://api.example.org/v1/users?key=', _r(_LOWER + _DIGITS, 36), '"'),
            _j(
                "base_url: https://api.example.org/v1/rates?format=json&key=",
                _r(_ALNUM, 32),
                "&limit=5",
            ),
        ),
        counter_examples=lambda: (
            "https://example.org/search?key=user_profile_settings_v2",
            "https://storage.example.org/get?key=" + "reports/2024/summary.csv",
            "https://example.org/?key=${API_KEY}",
            "https://docs.google.com/spreadsheet/pub?key=0Agl_Dv6iEbDadFYzRjJPUGktY0NkWXF&output=html",
        ),
    ),
    Rule(
        id="basic-auth-header",
        description="HTTP Basic credentials (base64 of user:password)",
        keywords=("basic",),
        pattern=r"(?i:Authorization\s*[:=]\s*[\"']?Basic|\bBasic)\s+(?P<secret>[A-Za-z0-9+/]{8,}={0,2})(?![A-Za-z0-9+/=])",
        check="basic_credentials",
        examples=lambda: (_j("Authorization: Basic ", _b64("admin:" + _r(_ALNUM, 14) + "!")),),
        counter_examples=lambda: (
            _j("Authorization: Basic ", _b64("user:password")),
            "if auth.startswith('Basic YWxhZGRpbg'):",
        ),
    ),
    Rule(
        id="docker-config-auth",
        description="Docker registry credentials in config.json",
        keywords=('"auth"',),
        pattern=r'"auth"\s*:\s*"(?P<secret>[A-Za-z0-9+/]{8,}={0,2})"',
        check="basic_credentials",
        examples=lambda: (
            _j('{"auths": {"ghcr.io": {"auth": "', _b64("bot:" + _r(_ALNUM, 20)), '"}}}'),
        ),
        counter_examples=lambda: (
            _j('{"auths": {"ghcr.io": {"auth": "', _b64("user:password"), '"}}}'),
        ),
    ),
    Rule(
        id="bearer-token",
        description="Bearer token in an Authorization header",
        keywords=("bearer",),
        pattern=r"(?i:Authorization\s*[:=]\s*[\"']?Bearer|\bBearer)\s+(?P<secret>[A-Za-z0-9._~+/-]{20,}={0,2})",
        entropy=3.5,
        check="plausible",
        examples=lambda: (
            _j('curl -H "Authorization: Bearer ', _r(_ALNUM, 40), '" https://api.example.org'),
        ),
        counter_examples=lambda: (
            '-H "Authorization: Bearer $TOKEN"',
            "Authorization: Bearer <token>",
        ),
    ),
    Rule(
        id="curl-basic-auth",
        description="curl -u user:password on a command line",
        keywords=("curl",),
        pattern=(
            _CURL_OPTION
            # (not a URL given to -u by mistake: "http" and "//host/path" are no user and password)
            + r"(?:-u|--user)(?:[ \t]+|=)?[\"']?(?P<user>[^\s:\"'$`]{0,64}):[\"']?(?!//)"
            + r"(?!"
            + _USERS_OWN
            + r"(?![^\s\"'$`]))"
            + r"(?P<secret>[^\s\"'$`]{3,128})"
        ),
        reach="continued",
        check="url_password",
        prose_check="url_password_in_prose",
        examples=lambda: (
            _j("curl -u deploy:", _r(_ALNUM, 16), " https://api.example.org/v1/items"),
            _j("curl -s --user 'ci-bot:", _r(_ALNUM, 20), "' https://example.org/upload"),
            _j("curl --user app:'", _r(_ALNUM, 16), "' -iX PATCH https://example.org/oauth2/token"),
            _j(
                "curl -X POST https://example.org/api \\\n  -d 'q=1' \\\n  -u deploy:",
                _r(_ALNUM, 16),
                "\n",
            ),
            _j('curl -u ":', _r(_ALNUM, 14), '" https://localhost:9200'),
        ),
        counter_examples=lambda: (
            "curl -u user:password https://x.org",
            "curl -u 'http://localhost:9000/api/public/subscription' -d 'email=a@b.org'",
            "curl -u admin:$ADMIN_PASSWORD https://x.org",
            'curl -u ":" https://localhost:9200',
            "curl -X POST https://example.org/api\n  -u deploy:" + _r(_ALNUM, 16),
        ),
    ),
    Rule(
        id="curl-token-user",
        description="curl -u key: "
        "(an API key as the user name, no password, as Stripe's API documents)",
        keywords=("curl",),
        pattern=_CURL_OPTION
        + r"(?:-u|--user)(?:[ \t]+|=)?[\"']?(?P<secret>[^\s:\"'$`]{8,128}):[\"']?(?![^\s`])",
        reach="continued",
        check="generated",
        prose_check="plausible",
        examples=lambda: (
            _j('curl -u "', _r(_ALNUM, 12), '!:" https://localhost:9200'),
            _j(
                "curl https://api.example.org/v1/charges \\\n  -u key_",
                _r(_ALNUM, 24),
                ": \\\n  -d amount=2000",
            ),
        ),
        counter_examples=lambda: (
            'curl -u "myusername" http://localhost:15130/api',
            "curl -u deploy-bot: https://example.org",
            "curl -u $API_KEY: https://example.org",
        ),
    ),
    Rule(
        id="curl-auth-header",
        description="curl -H with an Authorization or API-key header",
        keywords=("curl",),
        pattern=(
            _CURL_OPTION + r"(?:-H|--header)[ \t]*[\"']"
            r"(?i:(?:proxy-)?authorization|x-(?![cx]srf|publishable)[a-z-]{0,30}?(?:api-?key|token|auth)|api-?key"
            r"|api-token|token"
            r"|private-token)[ \t]*:[ \t]*"
            r"(?:(?:Basic|Bearer|Token|token|Bot|bearer|Api-Token)[ "
            r"\t]+)?(?P<secret>[^\s\"'$`]{8,300})"
        ),
        check="plausible",
        reach="continued",
        examples=lambda: (
            _j("curl -X POST -H 'Authorization: ", _r(_ALNUM, 40), "' https://api.example.org"),
            _j(
                'curl -X GET \\\n     -H "apikey: ',
                _r(_ALNUM, 36),
                '" \\\n     -H "Accept: application/json"',
            ),
            _j('curl https://api.example.org -H "X-API-Key: ', _r(_ALNUM, 32), '"'),
            _j('curl -X GET https://example.org/ -H "X-Octopus-ApiKey: ', _r(_ALNUM, 32), '"'),
        ),
        counter_examples=lambda: (
            "curl -H 'Authorization: Bearer $TOKEN' https://x.org",
            'curl -H "X-API-Key: <your key>"',
            # a key made to be published (Medusa's storefront key, in every page's requests)
            "curl http://localhost:9000/store/carts -H 'x-publishable-api-key: pk_01JB2K3XYZ'",
        ),
    ),
    # -- generic: no format, judged by name, value and entropy -------------------------------------
    Rule(
        id="generic-secret",
        description="A password, secret, token or API key assigned in code or config",
        keywords=("pass", "pwd", "pw", "secret", "token", "key", "cred"),
        pattern=(
            # <add key="ApiKey" value="…"/> (.NET config; first, or key="…" would be taken for an
            # assignment)
            r"""\bkey\s*=\s*["'](?P<name8>[\w.:-]{1,80}+)["']\s+value\s*=\s*["'](?P<secret8>[^"'\s]{6,500}+)["']|"""
            # name = "value" (code, JSON, YAML, TOML), a quoted value of one word, optionally after
            # "Bearer " (a chained call's name after its dot too: a builder's ``.apiKey("…")``)
            r"""(?<![\w.$@-])\.?(?P<name>[A-Za-z_$@][\w.$@-]{0,80}+)["']?"""
            + _LOOKED_UP
            + r"""(?:"""
            + _TYPED
            + r""")?\s*(?:=|:=|:|=>|<-|\?=|\|\|=|"""
            + _FALLBACK
            + "|"
            + _CALLED
            + r""")\s*(?:\((?=\s*["'`])\s*)?"""
            r"""(?:[rbuRBU]{1,2}(?=["'])|\b(?:str|String)\()?"""
            r"""(?P<q>["'`])[ \t]?(?:(?:Bearer|Basic|Token|token)\s+)?"""
            r"""(?P<secret>[^"'`\s\\]{6,2000}+)[ \t\r]?(?P=q)"""
            # (not a template that "%" fills: Python's and Ruby's `"plaintext:%s" % password`)
            r"""(?![ \t]*%[ \t]*[\w(\[{])"""
            # NAME=value at the start of a line (.env, shell, YAML, INI, properties, Dockerfile)
            r"""|^[ \t]*(?:export[ \t]+|set[ \t]+|ENV[ \t]+|-[ \t]+)?"""
            r"""(?P<name2>[A-Za-z_][\w.-]{0,80}+)"""
            r"""[ \t]*[=:][ \t]*"""
            # to the end of the line, or a query string's first value, to where its next parameter
            # starts
            r"""(?P<secret2>[^\s"'`,;#&=]{1,500}+"""
            + _NEXT_PARAMETER
            + r"""|[^\s"'`,;#]{6,500}+(?=[ \t]*(?:[#;][^\r\n]*)?\r?$))"""
            r"""(?:[ \t]*(?:[#;][^\r\n]*)?\r?$)?"""
            # --password=value, --token value (command lines)
            r"""|(?<![\w-])--?(?P<name3>[A-Za-z][\w-]{1,40}+)(?:=|[ \t]+)"""
            r"""(?P<q3>["']?)(?P<secret3>[^\s"'`=]{6,500}+={0,2})(?P=q3)(?![^\s"'`])"""
            # <password>value</password> (XML)
            r"""|<(?P<name4>[A-Za-z][\w.-]{0,60}+)>(?P<secret4>[^<>\s]{6,500}+)</(?P=name4)>"""
            # ?token=value&… (query strings, form bodies: a body's first parameter after its
            # string's quote, "client_secret=…&grant_type=…")
            r"""|[?&"'`](?P<name5>[A-Za-z][\w.-]{0,60}+)=(?P<secret5>[^&\s"'`#<>?]{6,500}+)"""
            # API_KEY=value anywhere on a line (shell: export, env prefixes, docker run -e)
            r"""|(?<![\w$-])(?P<name6>[A-Z][A-Z0-9_]{1,60}+)=(?P<q6>["']?)(?P<secret6>(?:[^\s"'`;&|)=]|\)(?=[^\s;&|)=])){6,500}+={0,2})(?P=q6)"""
            r"""(?=[\s;&|)`"']|$)"""
            # {"name": "DB_PASSWORD", "value": "…"} (Kubernetes, ECS and CI variable lists)
            r'|"name"\s*:\s*"(?P<name7>[\w.-]{1,80}+)"\s*,\s*"value"\s*:\s*"(?P<secret7>[^"\s\\]{6,500}+)"'
            # define('DB_PASSWORD', '…') (PHP)
            r"""|\bdefine\(\s*["'](?P<name9>\w{1,80}+)["']\s*,"""
            r"""\s*["'](?P<secret9>[^"'\s]{6,500}+)["']"""
            # Server=db;User Id=sa;Password=…; (connection strings)
            r"""|(?:(?<=[;"'])|^)[ \t]*(?P<name10>(?i:password|pwd))[ \t]*=[ \t]*"""
            r"""(?P<secret10>[^;"'`\s&=]{1,500}+""" + _NEXT_PARAMETER + r"""|[^;"'`\s]{6,500}+)"""
            # { "AccountKey", "…" }, .Add("ApiKey", "…"), Header.Set("X-Api-Key", "…"): a name and
            # its value, two strings that are all a pair of brackets holds (in a list of names, one
            # holds a credential's word)
            r"""|(?<=[({\[])[ \t]*(?P<q11>["'])(?P<name11>[A-Za-z][\w.-]{0,60}+)(?P=q11)"""
            r"""[ \t]*,[ \t]*(?P<q12>["'])(?:(?:Bearer|Basic|Token|token)[ \t]+)?"""
            r"""(?P<secret11>[^"'`\s\\]{6,500}+)(?P=q12)(?=[ \t]*[)}\]])"""
        ),
        # Names and values end where their character class ends and the next piece cannot begin
        # inside them, so they are possessive (``{m,n}+``): the same matches, without backtracking
        # through every shorter name on a line of code. secret6 ends at a ")" that ends the command
        # it stands in (``$(… KEY=value)``), and takes in any other. A value that could hold the
        # start of the next candidate (``KEY=KEY=…``, ``--ab=--ab=…``, ``?a=?a=…``) would be read
        # again from each: these values hold no "=" but base64's padding, and a query's no "?", so
        # candidates on a line never overlap (engine._candidates bounds the rest).
        # What each alternative holds: an "=" (or "<-", "<tag>"); a ":" and a quote after it
        # ("name": "…"), or a ":" and one word to the end of the line; an option's "-" after no
        # word; a comma and a quote (two strings). It opens with a character class, which ``re``
        # finds with a fast scan, where the pattern is tried at every character: a line of prose
        # (a memory's body, which wakes the rule with the word "secret") costs a twentieth. White
        # space is read once (possessive), as one run with a parenthesis in it or not: two runs
        # in a row tried every split of a line of spaces (tests/test_scan_linear.py).
        precheck=(
            r"""[-=<,:|?{r(](?:(?<=[=<])|(?<=,)\s*["']|(?<=-)(?<![\w-]-)-?[A-Za-z]"""
            r"""|(?<=:)\s*+(?:\(\s*+)?(?:[rbuRBU]{1,2}|\b(?:str|String)\()?["'`]"""
            r"""|(?<=:)(?=[ \t]*[^\s"'`,;#]{6,500}+[ \t]*(?:[#;][^\r\n]*)?\r?$)"""
            # a fallback's or a brace's quote (`|| "…"`, `?? "…"`, `?: "…"`, `or "…"`, `key{"…"}`),
            # or a call's (`setPassword("…")`)
            r"""|(?:(?<=\|\||\?\?|\?:|\bor)|(?<=[{(]))\s*+(?:\(\s*+)?["'`])"""
        ),
        check="plausible",
        judged="generic",
        examples=lambda: (
            _j('DB_PASSWORD = "', _r(_ALNUM, 6), "#", _r(_ALNUM, 6), '"'),
            _j("api_key: ", _r(_ALNUM, 32)),
            _j("export SERVICE_TOKEN=", _r(_ALNUM, 30)),
            _j('{"client_secret": "', _r(_ALNUM, 24), '"}'),
            _j("mysql --password=", _r(_ALNUM, 12), "! -h db"),
            _j("<password>", _r(_ALNUM, 20), "</password>"),
            _j('const apiKey = "', _r(_ALNUM, 28), '";'),
            _j("curl 'https://api.example.org/v1/items?limit=5&access_token=", _r(_ALNUM, 32), "'"),
            _j("docker run -e STRIPE_API_KEY=", _r(_ALNUM, 32), " -p 80:80 app"),
            _j('{"name": "DB_PASSWORD", "value": "', _r(_ALNUM, 18), '"}'),
            _j('<add key="Payments:ApiKey" value="', _r(_ALNUM, 32), '" />'),
            _j("define( 'DB_PASSWORD', '", _r(_ALNUM, 10), "!', );"),
            _j('"Server=tcp:db.internal;Database=app;User Id=app;Password=', _r(_ALNUM, 16), ';"'),
            _j('this.Context.Add("AccountKey", "', _r(_ALNUM, 30), '");'),
            _j("req.Header.Set('X-Acme-Api-Key', '", _r(_ALNUM, 32), "')"),
            _j("const key =\n  process.env.ACCOUNT_KEY ||\n  '", _r(_ALNUM, 32), "';"),
            _j('API_TOKEN = (\n    "', _r(_ALNUM, 32), '"\n)'),
            _j('static const std::string AccountKey{"', _r(_ALNUM, 32), '"};'),
        ),
        counter_examples=lambda: (
            'password = os.environ["DB_PASSWORD"]',
            "password = getpass.getpass()",
            'password = "changeme"',
            'DB_PASSWORD="${DB_PASSWORD}"',
            "password: {{ vault_db_password }}",
            "api_key: <YOUR_API_KEY>",
            'token = "********"',
            "password_hash = 'pbkdf2_sha256$600000$abc$def'",
            'public_key = "' + _r(_B64, 40) + '"',
            'token_type = "Bearer"',
            "SECRET_KEY_FILE=/run/secrets/django_key",
            'password = ""',
            "token = self._tokens[index]",
            'secret_id = "4f0c6c1e-1e2a-4b7e-9c1d-2a3b4c5d6e7f"',
            "if password == 'x7!kLmP9q':",
            'integrity: "sha512-' + _r(_B64, 86) + '=="',
            'headers.Set("Authorization", "Bearer " + token)',
            'os.environ.get("SECRET_KEY", "dev-secret-key")',
            '("password", "Passwort"), ("token", "Jeton")',
            "NAMES = {'AccountCredential', '" + _r(_ALNUM, 30) + "', 'AccountStore'}",
            'const heartbeatKey = "'
            + ":".join(("billing-service", "v4", "legacy-usage-export", "heartbeat", "v1"))
            + '";',
            "const pollutionKey = '__assistantStreamSnapshotPollution_" + _r(_HEX, 8) + "__';",
            '("a_new_key", "192.168.0.0/24,127.0.0.1,localhost.localdomain"),',
            'const apiKey = process.env.API_KEY || "";',
            "POSTGRES_PASSWORD: ${POSTGRES_PASSWORD:-postgres}",
        ),
    ),
    Rule(
        id="secret-in-log",
        description="A credential a program's log line prints: "
        "[DEBUG] Using Key=…, DEBUG:root:token=…",
        # A log line after its level ("[DEBUG]", "[info]", Python logging's "DEBUG:root:"): up to
        # four words of the message, then a name (its last two words: "Using Key", "adobe KEY",
        # "public key") and a value. The name is judged by filters.logged_secret_name, which takes a
        # key after any word but a data structure's or a public one for a credential ("Using Key=…":
        # a log prints the key in use); the value as a generic one's.
        keywords=(
            "[debug]",
            "[trace]",
            "[info]",
            "[notice]",
            "[warn]",
            "[warning]",
            "[error]",
            "[fatal]",
            "debug:",
        ),
        pattern=(
            r"(?:\[(?i:debug|trace|info|notice|warn|warning|error|fatal)\]|(?<![\w-])(?:DEBUG|TRACE):(?:\w{1,40}:)?)"
            r"[ \t]*(?:[^\s=]{1,40}[ \t]+){0,4}?(?P<name>(?:[A-Za-z][\w.-]{0,40}[ "
            r"\t]+)?[A-Za-z][\w.-]{0,60}+)"
            r"[ \t]*[=:][ \t]*[\"']?"
            r"(?P<secret>[^\s\"'`,;]{6,500}+)"
        ),
        check="plausible",
        judged="generic",
        names="logged",
        examples=lambda: (
            _j("[DEBUG] Using Key=", _r(_ALNUM, 36)),
            _j("2026-05-01 12:00:03 [info] sending request: using acme key = ", _r(_HEX, 40)),
            _j("\t[DEBUG] phrase token2 = '", _r(_ALNUM, 8), _r(_HEX, 32), "'"),
            _j("DEBUG:root:connecting with secret=", _r(_URLSAFE, 30)),
        ),
        counter_examples=lambda: (
            "[DEBUG] Using ID=" + _r(_ALNUM, 24),
            "[DEBUG] cacheKey=" + _r(_ALNUM, 30),
            "[INFO] using key = ${ACME_KEY}",
            "[DEBUG] Using public key=" + _r(_ALNUM, 40),
            "[DEBUG] token_url=https://auth.example.org/oauth/token",
            "[INFO] Using Key=aaaaaaaaaaaaaaaaaaaaaaaa",
        ),
    ),
    Rule(
        id="secret-in-prose",
        description='A credential given in prose: "the password is …", "use token …"',
        reads="prose",
        keywords=("pass", "pwd", "secret", "token", "key", "cred"),
        pattern=(
            # (a name after a URL's "?" or "&" is a query's parameter, for good: its value ends at
            # the next parameter or the fragment, ``?api_key=sua_chave#web_search_exa``)
            # (a name that is a segment of a path or an ARN, ``…:secret:MyTestSecret-a1b2c3``, names
            # the resource, not its value; one a key made to be published qualifies, names no
            # secret: Medusa's ``x-publishable-api-key``, a "publishable API key")
            r"(?i:(?:(?<=[?&])(?P<query>))?+\b(?<![:/])(?<!publishable[-_ ])"
            r"(?:the\s+|my\s+|our\s+|your\s+)?"
            + _PROSE_NAMES
            # (an "=" and no value on its line is an empty setting: .env.example's ``API_KEY=``)
            + r"(?:\s+(?:for|of|on)\s+[\w.@:/-]{1,60})?"
            r"(?:\s*(?:\bis\b|\bwas\b|:|->|→)\s*|[ \t]*=[ \t]*)"
            r"(?:(?:now|set\s+to|still|just)\s+)?"
            r"|\b(?:use|with|using|try|set)\s+(?:the\s+|my\s+|this\s+)?"
            + _PROSE_NAMES
            + r"\s+(?:to\s+|=\s*)?)"
            # the value: read once (possessive), taking in punctuation only where more of it follows
            # ("abc.def."), not a shortest value tried longer and longer from each name; it holds no
            # "=" or ":" but base64's padding, so no value holds the next name's operator
            # (``token=`` repeated cost 200 characters at each); a backslash before a quote or a
            # letter is an escape of the JSON or string the prose is in (``is breached\"``), not
            # the value's, and two are one of the value's
            # (a table's "|" ends a cell, and the value in it: ``|A client secret was provided.|``)
            r"[`\"'*]{0,2}(?P<secret>(?:(?(query)[^\s`\"'*<>.,;:!?)=\\#&|]|[^\s`\"'*<>.,;:!?)=\\|])|\\\\|\\(?![\"'a-z\\])|[.,;!?)]++(?=[^\s`\"'*<>.,;:!?)=|])){6,200}+={0,2})"
            r"[`\"'*]{0,2}[.,;:!?)]*(?=[\s\"'`}\],\\|]|$|(?(query)[#&]|(?!)))"
        ),
        check="plausible",
        examples=lambda: (
            _j("The staging password is ", _r(_ALNUM, 8), "!9 so log in with that."),
            _j("use the token ", _r(_ALNUM, 32), " for the deploy"),
            _j('{"role": "user", "content": "try it with the password ', _r(_ALNUM, 12), '%!"}'),
            _j("I set the API key to `", _r(_ALNUM, 40), "` in the CI settings."),
        ),
        counter_examples=lambda: (
            "The password is stored in the vault and never committed.",
            "the token is None until login() is called",
            "Set the password to something long.",
            "- Tilde explicit title P1:A: :token:`~MyTitle <P1:A>`",
        ),
    ),
)

RULES_BY_ID: dict[str, Rule] = {rule.id: rule for rule in RULES}
