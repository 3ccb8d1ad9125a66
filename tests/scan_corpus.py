"""A labelled corpus of secrets and decoys for measuring the scanner (and its peers) by recall and precision.

Everything is generated at run time from a fixed seed: the tokens follow the providers' published formats, so the
repository never holds a string its own scanner would flag. ``build()`` returns files in five formats (code,
config, .env, JSON, session logs); every line is labelled with the kind of secret it holds, or as a decoy, or as
neither (structure, such as a bracket or the middle of a key block). ``evaluate`` scores line-level findings.
"""

from __future__ import annotations

import base64
import json
import random
import string
import urllib.parse
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field

UPPER = string.ascii_uppercase
LOWER = string.ascii_lowercase
DIGITS = string.digits
ALNUM = UPPER + LOWER + DIGITS
HEX = "0123456789abcdef"
B64 = ALNUM + "+/"
URLSAFE = ALNUM + "_-"
B32 = UPPER + "234567"

DECOY = "decoy"
STRUCTURE = ""  # a line that is neither: brackets, key bodies, prose


@dataclass
class CorpusFile:
    name: str
    format: str  # code | config | env | json | log
    entries: list[list[tuple[str, str]]] = field(
        default_factory=list
    )  # each entry: its lines and their labels

    def add(self, text: str, label: str) -> None:
        """One entry; a multi-line one is labelled on the line a scanner reports (a key block's BEGIN line)."""
        parts = text.split("\n")
        at = next((i for i, part in enumerate(parts) if "-----BEGIN" in part), 0)
        self.entries.append(
            [(part, label if i == at else STRUCTURE) for i, part in enumerate(parts)]
        )

    @property
    def lines(self) -> list[str]:
        return [line for entry in self.entries for line, _ in entry]

    @property
    def labels(self) -> list[str]:
        return [label for entry in self.entries for _, label in entry]

    @property
    def text(self) -> str:
        return "\n".join(self.lines) + "\n"


class Gen:
    def __init__(self, seed: int) -> None:
        self.rng = random.Random(seed)

    def s(self, alphabet: str, n: int) -> str:
        return "".join(self.rng.choice(alphabet) for _ in range(n))

    def pick(self, options: list[str] | tuple[str, ...]) -> str:
        return self.rng.choice(list(options))

    def password(self) -> str:
        """A password a person or a generator chose: mixed classes, 10 to 24 characters."""
        symbols = "!#%&*+-=?@^_~"
        body = [self.rng.choice(ALNUM) for _ in range(self.rng.randint(10, 22))]
        body.insert(self.rng.randrange(len(body)), self.rng.choice(symbols))
        body.insert(self.rng.randrange(len(body)), self.rng.choice(DIGITS))
        body.insert(self.rng.randrange(len(body)), self.rng.choice(UPPER))
        return "".join(body)

    def uuid(self) -> str:
        h = self.s(HEX, 32)
        return f"{h[:8]}-{h[8:12]}-4{h[13:16]}-a{h[17:20]}-{h[20:]}"


# -- the kinds of secret: an environment-variable name, and a token generator --------------------------------------

Kind = tuple[str, str, Callable[[Gen], str]]  # (kind, variable name, token)


def _pem(g: Gen, kind: str = "RSA ") -> str:
    body = "\n".join(g.s(B64, 64) for _ in range(g.rng.randint(4, 9)))
    return f"-----BEGIN {kind}PRIVATE KEY-----\n{body}\n{g.s(B64, 20)}=\n-----END {kind}PRIVATE KEY-----"


def _jwt(g: Gen) -> str:
    header = base64.urlsafe_b64encode(
        json.dumps({"alg": g.pick(["HS256", "RS256", "ES256"]), "typ": "JWT"}).encode()
    )
    claims = {
        "sub": g.s(DIGITS, 8),
        "name": g.pick(["ana", "bo", "chen"]),
        "iat": 1700000000 + g.rng.randint(0, 10**7),
    }
    payload = base64.urlsafe_b64encode(json.dumps(claims).encode())
    return f"{header.decode().rstrip('=')}.{payload.decode().rstrip('=')}.{g.s(URLSAFE, 43)}"


KINDS: list[Kind] = [
    ("aws-access-key-id", "AWS_ACCESS_KEY_ID", lambda g: g.pick(["AKIA", "ASIA"]) + g.s(B32, 16)),
    ("aws-secret-access-key", "AWS_SECRET_ACCESS_KEY", lambda g: g.s(B64, 40)),
    ("gcp-api-key", "GOOGLE_API_KEY", lambda g: "AIza" + g.s(URLSAFE, 35)),
    ("gcp-oauth-client-secret", "GOOGLE_CLIENT_SECRET", lambda g: "GOCSPX-" + g.s(URLSAFE, 28)),
    (
        "azure-storage-key",
        "AZURE_STORAGE_CONNECTION_STRING",
        lambda g: (
            f"DefaultEndpointsProtocol=https;AccountName=st{g.s(LOWER, 8)};AccountKey={g.s(B64, 86)}==;"
            "EndpointSuffix=core.windows.net"
        ),
    ),
    (
        "azure-ad-client-secret",
        "AZURE_CLIENT_SECRET",
        lambda g: g.s(ALNUM, 3) + g.s(DIGITS, 1) + "Q~" + g.s(URLSAFE, 34),
    ),
    ("github-pat", "GITHUB_TOKEN", lambda g: "ghp_" + g.s(ALNUM, 36)),
    ("github-oauth-token", "GH_OAUTH_TOKEN", lambda g: "gho_" + g.s(ALNUM, 36)),
    (
        "github-app-token",
        "GH_INSTALLATION_TOKEN",
        lambda g: g.pick(["ghs_", "ghu_"]) + g.s(ALNUM, 36),
    ),
    (
        "github-fine-grained-token",
        "GH_TOKEN",
        lambda g: "github_pat_11" + g.s(UPPER + DIGITS, 20) + "_" + g.s(ALNUM, 59),
    ),
    ("gitlab-pat", "GITLAB_TOKEN", lambda g: "glpat-" + g.s(URLSAFE, 20)),
    ("gitlab-token", "CI_RUNNER_TOKEN", lambda g: "glrt-" + g.s(URLSAFE, 20)),
    (
        "slack-token",
        "SLACK_BOT_TOKEN",
        lambda g: f"xoxb-{g.s(DIGITS, 11)}-{g.s(DIGITS, 13)}-{g.s(ALNUM, 24)}",
    ),
    (
        "slack-webhook",
        "SLACK_WEBHOOK_URL",
        lambda g: (
            f"https://hooks.slack.com/services/T{g.s(UPPER + DIGITS, 8)}/B{g.s(UPPER + DIGITS, 10)}/{g.s(ALNUM, 24)}"
        ),
    ),
    (
        "discord-bot-token",
        "DISCORD_BOT_TOKEN",
        # the published shape: unpadded base64 of the bot's user id (a snowflake), a timestamp, an HMAC
        lambda g: (
            base64.b64encode(("1" + g.s(DIGITS, 18)).encode()).decode().rstrip("=")
            + "."
            + g.s(URLSAFE, 6)
            + "."
            + g.s(URLSAFE, 38)
        ),
    ),
    (
        "discord-webhook",
        "DISCORD_WEBHOOK",
        lambda g: f"https://discord.com/api/webhooks/{g.s(DIGITS, 19)}/{g.s(URLSAFE, 68)}",
    ),
    (
        "telegram-bot-token",
        "TELEGRAM_BOT_TOKEN",
        lambda g: g.s(DIGITS, 10) + ":AA" + g.s(URLSAFE, 33),
    ),
    (
        "stripe-secret-key",
        "STRIPE_SECRET_KEY",
        lambda g: g.pick(["sk_live_", "rk_live_"]) + g.s(ALNUM, 99),
    ),
    ("stripe-webhook-secret", "STRIPE_WEBHOOK_SECRET", lambda g: "whsec_" + g.s(ALNUM, 32)),
    ("square-token", "SQUARE_ACCESS_TOKEN", lambda g: "EAAA" + g.s(URLSAFE, 60)),
    (
        "shopify-token",
        "SHOPIFY_ACCESS_TOKEN",
        lambda g: g.pick(["shpat_", "shpss_"]) + g.s(HEX, 32),
    ),
    ("openai-api-key", "OPENAI_API_KEY", lambda g: "sk-proj-" + g.s(URLSAFE, 156)),
    ("anthropic-api-key", "ANTHROPIC_API_KEY", lambda g: "sk-ant-api03-" + g.s(URLSAFE, 93) + "AA"),
    ("huggingface-token", "HF_TOKEN", lambda g: "hf_" + g.s(UPPER + LOWER, 34)),
    ("groq-api-key", "GROQ_API_KEY", lambda g: "gsk_" + g.s(ALNUM, 52)),
    ("replicate-api-token", "REPLICATE_API_TOKEN", lambda g: "r8_" + g.s(ALNUM, 37)),
    ("perplexity-api-key", "PPLX_API_KEY", lambda g: "pplx-" + g.s(ALNUM, 48)),
    ("xai-api-key", "XAI_API_KEY", lambda g: "xai-" + g.s(ALNUM, 80)),
    ("npm-token", "NPM_TOKEN", lambda g: "npm_" + g.s(ALNUM, 36)),
    ("pypi-token", "PYPI_API_TOKEN", lambda g: "pypi-AgEIcHlwaS5vcmc" + g.s(URLSAFE, 120)),
    (
        "sendgrid-api-key",
        "SENDGRID_API_KEY",
        lambda g: "SG." + g.s(URLSAFE, 22) + "." + g.s(URLSAFE, 43),
    ),
    ("mailgun-api-key", "MAILGUN_API_KEY", lambda g: "key-" + g.s(HEX, 32)),
    (
        "mailchimp-api-key",
        "MAILCHIMP_API_KEY",
        lambda g: g.s(HEX, 32) + "-us" + str(g.rng.randint(1, 21)),
    ),
    ("digitalocean-token", "DIGITALOCEAN_TOKEN", lambda g: "dop_v1_" + g.s(HEX, 64)),
    ("databricks-token", "DATABRICKS_TOKEN", lambda g: "dapi" + g.s(HEX, 32)),
    ("twilio-api-key", "TWILIO_API_KEY", lambda g: "SK" + g.s(HEX, 32)),
    ("newrelic-key", "NEW_RELIC_API_KEY", lambda g: "NRAK-" + g.s(UPPER + DIGITS, 27)),
    ("datadog-api-key", "DD_API_KEY", lambda g: g.s(HEX, 32)),
    ("sentry-token", "SENTRY_AUTH_TOKEN", lambda g: "sntryu_" + g.s(HEX, 64)),
    ("linear-api-key", "LINEAR_API_KEY", lambda g: "lin_api_" + g.s(ALNUM, 40)),
    ("vault-token", "VAULT_TOKEN", lambda g: "hvs." + g.s(URLSAFE, 90)),
    (
        "grafana-token",
        "GRAFANA_SERVICE_ACCOUNT_TOKEN",
        lambda g: "glsa_" + g.s(ALNUM, 32) + "_" + g.s(HEX, 8),
    ),
    ("dockerhub-token", "DOCKERHUB_TOKEN", lambda g: "dckr_pat_" + g.s(URLSAFE, 27)),
    ("doppler-token", "DOPPLER_TOKEN", lambda g: "dp.st.prd." + g.s(ALNUM, 43)),
    (
        "tailscale-key",
        "TS_AUTHKEY",
        lambda g: "tskey-auth-k" + g.s(ALNUM, 10) + "CNTRL-" + g.s(ALNUM, 32),
    ),
    ("jwt", "SESSION_JWT", _jwt),
    (
        "database-url",
        "DATABASE_URL",
        lambda g: (
            f"{g.pick(['postgres', 'postgresql', 'mysql', 'mongodb+srv', 'redis'])}://"
            f"{g.pick(['app', 'svc_api', 'admin', 'report'])}:{g.password().replace('@', 'x').replace('/', 'y')}"
            f"@{g.pick(['db.internal', 'prod-db.eu-west-1.rds.amazonaws.com', 'cluster0.mongodb.net'])}"
            f":5432/{g.s(LOWER, 5)}"
        ),
    ),
    ("generic-password", "DB_PASSWORD", lambda g: g.password()),
    ("generic-api-key", "PAYMENTS_API_KEY", lambda g: g.s(ALNUM, g.rng.randint(24, 48))),
    ("generic-token", "SERVICE_AUTH_TOKEN", lambda g: g.s(HEX, 40)),
]

CODE_FORMATS = ("py", "js", "go", "rb")


def _camel(name: str) -> str:
    head, *rest = name.lower().split("_")
    return head + "".join(part.title() for part in rest)


def _secret_lines(g: Gen, kind: str, name: str, token: str) -> dict[str, list[str]]:
    """The ways one token is written, by format (one line each, a PEM block excepted)."""
    lower, camel = name.lower(), _camel(name)
    return {
        "code": [
            f'{lower} = "{token}"',
            f"const {camel} = '{token}';",
            f'    {camel} := "{token}"',
            f'client = Client(api_key="{token}", timeout=30)'
            if kind not in ("database-url",)
            else f'engine = create_engine("{token}")',
            f'    ENV["{name}"] ||= "{token}"',
        ],
        "config": [
            f"{lower}: {token}",
            f'  {lower}: "{token}"',
            f'{lower} = "{token}"',
            f"    - {name}={token}",
        ],
        "env": [
            f"{name}={token}",
            f'export {name}="{token}"',
            f"{name}='{token}'  # rotated 2026-05",
        ],
        "json": [f'  "{lower}": "{token}",', f'{{"name": "{name}", "value": "{token}"}}'],
        "log": [
            json.dumps(
                {"type": "tool_use", "input": {"command": f"export {name}={token} && ./deploy.sh"}}
            ),
            json.dumps(
                {
                    "type": "tool_result",
                    "content": f"$ cat .env\nAPP_ENV=production\n{name}={token}\nDEBUG=0\n",
                }
            ),
            json.dumps(
                {
                    "role": "user",
                    "content": f"here is the {name.lower().replace('_', ' ')}: {token} — use it",
                }
            ),
            json.dumps(
                {
                    "type": "tool_result",
                    "content": json.dumps({"config": {lower: token, "region": "eu-west-1"}}),
                }
            ),
            json.dumps(
                {
                    "type": "tool_use",
                    "input": {
                        "command": "curl -X POST https://api.internal/v1/login -d '"
                        + urllib.parse.urlencode({"user": "deploy", lower: token})
                        + "'"
                    },
                }
            ),
            json.dumps(
                {
                    "type": "tool_result",
                    "content": "secret data (base64): "
                    + base64.b64encode(f"{name}={token}\n".encode()).decode(),
                }
            ),
        ],
    }


def _prose_lines(g: Gen) -> list[str]:
    """Credentials people type into an agent's chat, in a session log."""
    pw = g.password()
    return [
        json.dumps(
            {
                "role": "user",
                "content": f"The staging admin password is {pw} — please log in and check",
            }
        ),
        json.dumps({"role": "user", "content": f"try logging in with the password {pw}"}),
        json.dumps(
            {"role": "user", "content": f"my api key is {g.s(ALNUM, 32)}, the old one was revoked"}
        ),
        json.dumps(
            {
                "role": "assistant",
                "content": f"I set the token to `{g.s(ALNUM, 40)}` in the CI settings.",
            }
        ),
    ]


def _decoy_lines(g: Gen) -> dict[str, list[str]]:
    """Things that look like secrets and are not: every one of these must stay quiet."""
    sha = g.s(HEX, 40)
    sha256 = g.s(HEX, 64)
    uuid = g.uuid()
    b64 = base64.b64encode(bytes(g.rng.getrandbits(8) for _ in range(48))).decode()
    masked = g.pick(
        [
            "sk_live_" + "*" * 20 + g.s(ALNUM, 4),
            "ghp_" + "•" * 8 + g.s(ALNUM, 4),
            "****" + g.s(ALNUM, 4),
        ]
    )
    return {
        "code": [
            'password = os.environ["DB_PASSWORD"]',
            "api_key = os.getenv('OPENAI_API_KEY')",
            "const token = process.env.GITHUB_TOKEN;",
            'secret := os.Getenv("APP_SECRET")',
            "password = getpass.getpass('Password: ')",
            "token = request.headers.get('Authorization', '').removeprefix('Bearer ')",
            'password = ""',
            "password = None",
            'api_key = "<YOUR_API_KEY>"',
            'OPENAI_API_KEY = "sk-..."',
            'password = "changeme"',
            f'commit_sha = "{sha}"',
            f'digest = "sha256:{sha256}"',
            f'request_id = "{uuid}"',
            f'secret_id = "{uuid}"',
            'token_type = "Bearer"',
            'password_field = "user_password"',
            "if not password or len(password) < 12:",
            'raise ValueError("invalid token: expected 40 characters")',
            f'aws_access_key_id = "AKIA{"IOSFODNN7"}EXAMPLE"',
            f'stripe.api_key = "pk_test_{g.s(ALNUM, 24)}"',
            f'publishable_key = "pk_live_{g.s(ALNUM, 24)}"',
            f"masked = '{masked}'",
            "token = self._next_token()",
            "password = hash_password(form.password.data)",
            "CSRF_TOKEN_NAME = 'csrftoken'",
            f'key = "{sha256}"  # cache key',
            f"session_key = cache_key({g.s(LOWER, 6)!r})",
            'headers = {"Authorization": f"Bearer {token}"}',
            "api_key = settings.API_KEY",
            'password_hash = "$2b$12$' + g.s(B64.replace("+", "."), 53) + '"',
            f'ssh_public_key = "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAI{g.s(B64, 43)} ana@laptop"',
            "print(f'the token is {token[:4]}…')",
            f'image = "data:image/png;base64,{b64}"',
            f'etag = "W/\\"{g.s(HEX, 32)}\\""',
            "password_reset_timeout = 3600",
            "secret = secrets.token_hex(32)",
            'token = jwt.encode(payload, signing_key, algorithm="HS256")',
            'password = request.form["password"]',
            'api_key = config["api_key"]',
            "self.password = password",
            "def login(username: str, password: str) -> Token:",
            'TOKEN_RE = re.compile(r"ghp_[A-Za-z0-9]{36}")',
            'assert token.startswith("ghp_")',
            'API_KEY_HEADER = "X-API-Key"',
            'password = click.prompt("Password", hide_input=True)',
            "secret_key = Fernet.generate_key()",
            'token = base64.b64encode(f"{user}:{password}".encode()).decode()',
            'SECRET_KEY = env("DJANGO_SECRET_KEY")',
            'access_token = response.json()["access_token"]',
            "password = ''.join(random.choices(string.ascii_letters + string.digits, k=16))",
            "# TODO: rotate the API key before the release",
            'logger.info("token refreshed for %s", user_id)',
            'tokenizer = AutoTokenizer.from_pretrained("bert-base-uncased")',
            "private_key = rsa.generate_private_key(public_exponent=65537, key_size=2048)",
            f'expected_sha1 = "{sha}"',
            f'ICON_PNG = "iVBORw0KGgoAAAANSUhEUgAAABAAAAAQCAYAAAAf8/9h{g.s(B64, 60)}"',
            'password = "correct horse battery staple"',
            'api_key = "test"',
            'token = "fake-token-for-tests"',
            'password = "hunter2"',
            'password := r.FormValue("password")',
            'String password = System.getenv("DB_PASSWORD");',
            'var apiKey = Configuration["ApiKey"];',
            'let token = std::env::var("GITHUB_TOKEN")?;',
            'if token == "":',
            'AWS_REGION = "eu-west-1"',
            "SECRET_KEY_BASE_LENGTH = 128",
            "const secret = await vault.read('kv/data/app');",
            'let apiKey = localStorage.getItem("apiKey");',
            f'key_id = "{g.uuid()}"',
            "auth = HTTPBasicAuth(username, password)",
        ],
        "config": [
            "password: ${DB_PASSWORD}",
            "api_key: {{ vault_api_key }}",
            "token: !ENV ${TOKEN}",
            "client_secret: ${{ secrets.CLIENT_SECRET }}",
            "password: changeme",
            "password: xxxxxxxxxxxx",
            "secret_key: <generate with: openssl rand -hex 32>",
            f"commit: {sha}",
            f"rev: {sha}",
            f'integrity: "sha512-{g.s(B64, 86)}=="',
            f"checksum: sha256:{sha256}",
            f"uuid: {uuid}",
            "token_url: https://oauth2.googleapis.com/token",
            "password_file: /run/secrets/db_password",
            "secretName: postgres-credentials",
            "api_key_header: X-API-Key",
            "database_url: postgres://postgres:postgres@localhost:5432/dev",
            "database_url: postgres://app:${DB_PASSWORD}@db:5432/app",
            "smtp_password: ''",
            "token_ttl: 3600",
            f"  version: {g.rng.randint(1, 9)}.{g.rng.randint(0, 30)}.{g.rng.randint(0, 9)}",
            "  tag: v2.14.3-rc1",
            "use_token_auth: true",
            f"image: ghcr.io/acme/api@sha256:{sha256}",
            "password: !vault |",
            f"  {g.s(HEX, 80)}",
            "secret: {{ .Values.app.secret }}",
            "password: \"{{ lookup('env', 'DB_PASSWORD') }}\"",
            f"api_key: ENC[AES256_GCM,data:{g.s(B64, 40)}=,iv:{g.s(B64, 43)}=,tag:{g.s(B64, 22)}==,type:str]",
            "        secretKeyRef:",
            'token: "{{ env.TOKEN }}"',
            "password_policy: strong",
            "secret_key: '%(SECRET_KEY)s'",
            "auth_token: ${{ secrets.GITHUB_TOKEN }}",
            "password: ${SPRING_DATASOURCE_PASSWORD:postgres}",
            'token = { env = "CARGO_REGISTRY_TOKEN" }',
            "sonar.login=${SONAR_TOKEN}",
            "password = %(db_password)s",
            "secretRef: app-secrets",
            f"fingerprint: SHA256:{g.s(B64, 43)}",
            f"host_key: ssh-rsa AAAAB3NzaC1yc2EAAAADAQABAAABAQ{g.s(B64, 60)}",
            "key: value",
            "tokenizer: sentencepiece",
            "credentials: ~/.aws/credentials",
        ],
        "env": [
            "DB_PASSWORD=",
            "API_KEY=your-api-key-here",
            "SECRET_KEY=change_me",
            "GITHUB_TOKEN=ghp_xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx",
            "AWS_SECRET_ACCESS_KEY=wJalrXUtnFEMI/K7MDENG/bPxRfiCY" + "EXAMPLEKEY",
            "STRIPE_SECRET_KEY=sk_test_" + g.s(ALNUM, 24),
            "STRIPE_PUBLISHABLE_KEY=pk_live_" + g.s(ALNUM, 24),
            "DATABASE_URL=postgres://user:password@localhost/db",
            "TOKEN=${CI_JOB_TOKEN}",
            "PASSWORD=$(cat /run/secrets/pw)",
            "AUTH_TOKEN_EXPIRY=86400",
            "SESSION_SECRET_LENGTH=64",
            f"GIT_COMMIT={sha}",
            f"BUILD_ID={uuid}",
            "API_KEY=REPLACE_ME",
            "SLACK_BOT_TOKEN=xoxb-your-bot-token",
            "OPENAI_API_KEY=sk-proj-...",
            "PASSWORD=********",
            "DJANGO_SECRET_KEY=",
            "JWT_SECRET=${JWT_SECRET:-dev-secret}",
            "PASSWORD_MIN_LENGTH=12",
            "TOKEN_AUDIENCE=api://default",
            "API_KEY_ROTATION_DAYS=90",
            "NEXT_PUBLIC_STRIPE_KEY=pk_test_" + g.s(ALNUM, 24),
            "SECRETS_DIR=/run/secrets",
            "PGPASSFILE=~/.pgpass",
            f"GPG_KEY_ID=0x{g.s(HEX.upper(), 16)}",
            f"COMMIT_SHA={sha}",
            "API_TOKEN=op://Engineering/stripe/credential",
            "DB_PASSWORD=vault:secret/data/db#password",
            "AWS_PROFILE=prod",
            "SECRET_ARN=arn:aws:secretsmanager:eu-west-1:123456789012:secret:db-AbCdEf",
            "TOKEN_FILE=/var/run/secrets/kubernetes.io/serviceaccount/token",
            "AUTH_PROVIDER=github",
        ],
        "json": [
            f'  "integrity": "sha512-{g.s(B64, 86)}==",',
            f'  "resolved": "https://registry.npmjs.org/left-pad/-/left-pad-1.3.0.tgz#{sha}",',
            f'  "commit": "{sha}",',
            f'  "id": "{uuid}",',
            '  "password": "",',
            '  "token": null,',
            '  "apiKey": "YOUR_API_KEY",',
            '  "secret": "${SECRET}",',
            '  "client_secret": "{{CLIENT_SECRET}}",',
            f'  "publicKey": "-----BEGIN PUBLIC KEY-----\\n{g.s(B64, 64)}\\n-----END PUBLIC KEY-----",',
            f'  "certificate": "-----BEGIN CERTIFICATE-----\\n{g.s(B64, 64)}\\n-----END CERTIFICATE-----",',
            '  "passwordMinLength": 12,',
            '  "tokenEndpoint": "https://login.example.org/oauth2/token",',
            f'  "sha256": "{sha256}",',
            f'  "x5t": "{g.s(URLSAFE, 27)}",',
            f'  "kid": "{g.s(HEX, 16)}",',
            f'  "nonce": "{g.s(HEX, 8)}",',
            '  "masked_key": "sk_live_************************abcd",',
            '  "access_key_id": "AKIA' + "IOSFODNN7" + 'EXAMPLE",',
            '  "password": "********",',
            '  "token": "<token>",',
            '  "apiKey": "%API_KEY%",',
            '  "secretRef": {"name": "db-credentials"},',
            '  "Authorization": "Bearer {{token}}",',
            f'  "hash": "{sha256}",',
            '  "accessTokenExpiry": 3600,',
            '  "passwordRegex": "^(?=.*[A-Z])(?=.*\\\\d).{12,}$",',
            f'  "sessionId": "{g.uuid()}",',
            '  "x-api-key": "{{apiKey}}",',
            '  "github_token": "${{ secrets.GITHUB_TOKEN }}",',
            f'  "etag": "{g.s(HEX, 32)}",',
            '  "tokenizer_class": "LlamaTokenizer",',
            '  "secretsManagerArn": "arn:aws:secretsmanager:us-east-1:123456789012:secret:prod/db",',
            '  "node_modules/js-tokens": {"version": "4.0.0"},',
        ],
        "log": [
            json.dumps(
                {"role": "user", "content": "The password is stored in 1Password, not in the repo."}
            ),
            json.dumps(
                {
                    "role": "assistant",
                    "content": "I'll read the token from the GITHUB_TOKEN environment variable.",
                }
            ),
            json.dumps(
                {"type": "tool_use", "input": {"command": "export GITHUB_TOKEN=$(gh auth token)"}}
            ),
            json.dumps(
                {"type": "tool_result", "content": f"commit {sha}\nAuthor: Ana <ana@example.org>\n"}
            ),
            json.dumps(
                {"type": "tool_result", "content": f"Successfully built image sha256:{sha256}"}
            ),
            json.dumps(
                {
                    "role": "user",
                    "content": "set the password to something long, at least 16 characters",
                }
            ),
            json.dumps(
                {
                    "type": "tool_result",
                    "content": "OPENAI_API_KEY=sk-proj-**************** (hidden)",
                }
            ),
            json.dumps({"type": "tool_result", "content": f"request {uuid} finished in 35 ms"}),
            json.dumps(
                {
                    "role": "assistant",
                    "content": "The API key is missing: set OPENAI_API_KEY and retry.",
                }
            ),
            json.dumps(
                {
                    "type": "tool_use",
                    "input": {"command": 'curl -H "Authorization: Bearer $TOKEN" https://api'},
                }
            ),
            json.dumps({"type": "tool_result", "content": f"integrity sha512-{g.s(B64, 86)}== ok"}),
            json.dumps({"type": "tool_result", "content": "token: <redacted>"}),
            json.dumps(
                {"role": "user", "content": "my token expired yesterday, can you refresh it?"}
            ),
            json.dumps({"type": "tool_result", "content": f"data: {b64}"}),
            json.dumps(
                {
                    "type": "tool_use",
                    "input": {"file_path": "/home/ana/app/src/auth/token_store.py"},
                }
            ),
            json.dumps(
                {
                    "type": "tool_result",
                    "content": "The token has expired (401). Run `gh auth login` again.",
                }
            ),
            json.dumps(
                {
                    "type": "tool_result",
                    "content": 'FATAL: password authentication failed for user "app"',
                }
            ),
            json.dumps(
                {
                    "role": "assistant",
                    "content": "I won't print the API key; it stays in .env (git-ignored).",
                }
            ),
            json.dumps(
                {
                    "type": "tool_result",
                    "content": f"{sha[:7]} Rotate deploy token\n{g.s(HEX, 7)} Fix login",
                }
            ),
            json.dumps(
                {"type": "tool_result", "content": "added 312 packages, audited 313 packages in 4s"}
            ),
            json.dumps(
                {
                    "role": "assistant",
                    "content": "Your token starts with ghp_ and is 40 characters long.",
                }
            ),
            json.dumps(
                {
                    "type": "tool_result",
                    "content": 'HTTP/1.1 401 Unauthorized\nWWW-Authenticate: Bearer realm="api"',
                }
            ),
            json.dumps({"type": "tool_result", "content": "api_key=REDACTED"}),
            json.dumps(
                {
                    "type": "tool_use",
                    "input": {"command": 'export OPENAI_API_KEY="$(pass show openai/api)"'},
                }
            ),
            json.dumps(
                {
                    "role": "user",
                    "content": "the password must contain 12 characters, a digit and a symbol",
                }
            ),
            json.dumps({"type": "tool_result", "content": "token usage: 1532 input, 210 output"}),
            json.dumps(
                {
                    "type": "tool_result",
                    "content": "config: "
                    + base64.b64encode(b"log_level=debug\nworkers=4\n").decode(),
                }
            ),
            json.dumps(
                {
                    "type": "tool_use",
                    "input": {"url": "https://example.org/search?q=password%20reset&page=2"},
                }
            ),
            json.dumps(
                {
                    "type": "tool_result",
                    "content": json.dumps({"token_type": "Bearer", "expires_in": 3600}),
                }
            ),
            json.dumps(
                {
                    "type": "tool_result",
                    "content": f"Generated key: ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAI{g.s(B64, 43)} ana@laptop",
                }
            ),
            json.dumps(
                {"role": "user", "content": "Use the secret from the vault, never paste it here."}
            ),
            json.dumps(
                {
                    "type": "tool_result",
                    "content": f"Pushed {sha[:12]}..{g.s(HEX, 12)} main -> main",
                }
            ),
        ],
    }


def build(seed: int = 4, copies: int = 2) -> list[CorpusFile]:
    """The corpus: ``copies`` rounds of every kind in every format, and the decoys, in 5 formats."""
    g = Gen(seed)
    files: dict[str, CorpusFile] = {}

    def file(fmt: str, round_: int) -> CorpusFile:
        key = f"{fmt}-{round_}"
        if key not in files:
            suffix = {
                "code": ".py",
                "config": ".yaml",
                "env": ".env",
                "json": ".json",
                "log": ".jsonl",
            }[fmt]
            files[key] = CorpusFile(f"{key}{suffix}", fmt)
        return files[key]

    for round_ in range(copies):
        for kind, name, make in KINDS:
            for fmt, options in _secret_lines(g, kind, name, make(g)).items():
                # each round writes a different pair of each format's templates, with a fresh token each
                for index in sorted(g.rng.sample(range(len(options)), k=min(2, len(options)))):
                    token = make(g)
                    line = _secret_lines(g, kind, name, token)[fmt][index]
                    file(fmt, round_).add(line, kind)
        for _ in range(4):
            file("code", round_).add(f"rsa_key = '''{_pem(g)}'''", "private-key")
            file("config", round_).add(
                f"tls_key: |\n  {_pem(g, 'EC ').replace(chr(10), chr(10) + '  ')}", "private-key"
            )
            file("json", round_).add(
                json.dumps(
                    {
                        "type": "service_account",
                        "project_id": "p",
                        "private_key": _pem(g, "") + "\n",
                    }
                ),
                "gcp-service-account",
            )
            file("log", round_).add(
                json.dumps(
                    {"type": "tool_result", "content": "$ cat id_ed25519\n" + _pem(g, "OPENSSH ")}
                ),
                "private-key",
            )
        for line in _prose_lines(g):
            file("log", round_).add(line, "secret-in-prose")
        for line in _prose_lines(g):
            file("log", round_).add(line, "secret-in-prose")
        for fmt, lines in _decoy_lines(g).items():
            for line in lines:
                file(fmt, round_).add(line, DECOY)
    for corpus_file in files.values():
        _shuffle(g, corpus_file)
    return list(files.values())


def _shuffle(g: Gen, corpus_file: CorpusFile) -> None:
    g.rng.shuffle(corpus_file.entries)


@dataclass
class Score:
    secrets: int = 0
    decoys: int = 0
    found: int = 0  # secret lines with a finding
    false: int = 0  # lines with a finding that hold no secret
    missed: list[tuple[str, int, str]] = field(default_factory=list)  # (file, line, kind)
    wrong: list[tuple[str, int, str]] = field(default_factory=list)  # (file, line, label)

    @property
    def recall(self) -> float:
        return self.found / self.secrets if self.secrets else 1.0

    @property
    def precision(self) -> float:
        flagged = self.found + self.false
        return self.found / flagged if flagged else 1.0


def evaluate(files: Iterable[CorpusFile], flagged: Callable[[CorpusFile], set[int]]) -> Score:
    """Score a scanner: ``flagged(file)`` returns the 1-based numbers of the lines it reported.

    A finding on any line of a secret's entry (a key block's body) counts for that secret; a finding on a decoy or
    on a line of no secret's entry is false.
    """
    score = Score()
    for corpus_file in files:
        lines = flagged(corpus_file)
        number = 0
        for entry in corpus_file.entries:
            numbers = range(number + 1, number + len(entry) + 1)
            number += len(entry)
            label = next((lab for _, lab in entry if lab), STRUCTURE)
            hit = [n for n in numbers if n in lines]
            if label == DECOY:
                score.decoys += 1
            if label in (DECOY, STRUCTURE):
                if hit:
                    score.false += 1
                    score.wrong.append((corpus_file.name, hit[0], label or "structure"))
                continue
            score.secrets += 1
            if hit:
                score.found += 1
            else:
                score.missed.append((corpus_file.name, numbers[0], label))
    return score


def kinds_of(files: Iterable[CorpusFile]) -> set[str]:
    return {label for f in files for label in f.labels if label not in (DECOY, STRUCTURE)}
