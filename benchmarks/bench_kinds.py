"""Recall on the kinds issue 14 found missing, side by side with betterleaks and kingfisher, in one
run.

Each positive is a line in the shape of the providers' documented formats and of the peers'
published rule tests (gitleaks' and betterleaks' test cases), with random characters generated at
run time, so the repository holds no secret. Each negative is a code shape or placeholder that must
stay quiet. Every case is written to its own file; each scanner scans the directory once. A positive
counts as found when the scanner reports anything in its file; a negative counts as a false positive
when it does.

Usage:  python benchmarks/bench_kinds.py [--show]
"""

from __future__ import annotations

import argparse
import base64
import random
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from benchmarks.bench_realcode import SCANNERS, _tool

_rng = random.Random(14)
ALNUM = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789"
HEX = "0123456789abcdef"
DIGITS = "0123456789"
B64 = ALNUM + "+/"
URLSAFE = ALNUM + "_-"
BECH32 = "QPZRY9X8GF2TVDW0S3JN54KHCE6MUA7L"


def r(alphabet: str, n: int) -> str:
    return "".join(_rng.choice(alphabet) for _ in range(n))


def uuid() -> str:
    return f"{r(HEX, 8)}-{r(HEX, 4)}-4{r(HEX, 3)}-a{r(HEX, 3)}-{r(HEX, 12)}"


def discord_user() -> str:
    """A Discord token's first part (discord.py's token docs): unpadded base64 of an 18-19 digit
    user id."""
    return base64.b64encode(("1" + r(DIGITS, _rng.choice((17, 18)))).encode()).decode().rstrip("=")


def pem() -> str:
    return "\\n".join(r(B64, 64) for _ in range(8))


def positives() -> dict[str, str]:
    dash = "-" * 5
    return {
        "curl -u user:password": f"curl -u admin:{r(ALNUM, 18)} https://api.example.org/v1/items\n",
        "curl -H Authorization": f"curl -X GET -H 'Authorization: Bearer {r(ALNUM, 40)}' https://api.example.org\n",
        "curl -H X-API-Key": f'curl https://api.example.org/v2 -H "X-API-Key: {r(ALNUM, 32)}"\n',
        "Slack legacy xoxs": (
            f"token='xoxs-{r(DIGITS, 10)}-{r(DIGITS, 10)}-{r(DIGITS, 11)}-{r(HEX, 64)}'\n"
        ),
        "Slack legacy xoxo": (
            f"SLACK=xoxo-{r(DIGITS, 11)}-{r(DIGITS, 11)}-{r(DIGITS, 12)}-{r(HEX, 32)}\n"
        ),
        "Slack xoxa-2": f"SLACK_TOKEN=xoxa-2-{r(ALNUM, 40)}\n",
        "Slack xoxr": f"refresh = 'xoxr-{r(ALNUM, 40)}'\n",
        "Slack xoxe.xoxp config token": f"config_token: xoxe.xoxp-1-{r(ALNUM.upper()[:36], 164)}\n",
        "Slack workflow webhook (4 segments)": (
            f"url = 'https://hooks.slack.com/workflows/T{r('ABCDEFGHIJ0123456789', 9)}"
            f"/A{r('ABCDEFGHIJ0123456789', 10)}"
            f"/{r(DIGITS, 18)}/{r(ALNUM, 24)}'\n"
        ),
        "Slack http:// webhook": (
            f"WEBHOOK=http://hooks.slack.com/services/T{r('ABCDEFGH0123456789', 8)}"
            f"/B{r('ABCDEFGH0123456789', 10)}"
            f"/{r(ALNUM, 24)}\n"
        ),
        "Teams webhook": (
            f"TEAMS=https://contoso.webhook.office.com/webhookb2/{uuid()}@{uuid()}"
            f"/IncomingWebhook/{r(HEX, 32)}/{uuid()}\n"
        ),
        "Teams legacy webhook": (
            f"url: https://outlook.office.com/webhook/{uuid()}@{uuid()}"
            f"/IncomingWebhook/{r(HEX, 32)}/{uuid()}\n"
        ),
        "Power Automate webhook": (
            f"FLOW=https://prod-27.westeurope.logic.azure.com:443/workflows/{r(HEX, 32)}"
            "/triggers/manual/paths/invoke"
            f"?api-version=2016-06-01&sp=%2Ftriggers%2Fmanual%2Frun&sv=1.0&sig={r(URLSAFE, 43)}\n"
        ),
        "Azure storage key by name": f"AZURE_STORAGE_KEY={r(B64, 86)}==\n",
        "MongoDB URL with password": (
            f"MONGO_URL=mongodb+srv://app:{r(ALNUM, 16)}@cluster0.ab1cd.mongodb.net/prod\n"
        ),
        "JDBC URL with password": (
            f"url=jdbc:mysql://db.internal:3306/app?user=app&password={r(ALNUM, 16)}\n"
        ),
        "URL password that is a word": "DATABASE_URL=postgres://admin:"
        + "sunshine"
        + "@db.internal:5432/app\n",
        "Discord bot token, no 'discord'": (
            f"BOT_TOKEN = '{discord_user()}.{r(URLSAFE, 6)}.{r(URLSAFE, 38)}'\n"
        ),
        "Discord bot token in client.run()": (
            f"client.run('{discord_user()}.{r(URLSAFE, 6)}.{r(URLSAFE, 27)}')\n"
        ),
        "Entra refresh token": f'"refresh_token": "1.A{r(URLSAFE, 110)}.Ag{r(URLSAFE, 700)}"\n',
        "Entra refresh token, three segments": (
            f"AZURE_RT=0.A{r(URLSAFE, 80)}.0.Ag{r(URLSAFE, 420)}.A{r(URLSAFE, 260)}\n"
        ),
        "Heroku UUID key": f"HEROKU_API_KEY={uuid()}\n",
        "HubSpot hapikey": f"https://api.hubapi.com/contacts/v1/lists?hapikey={uuid()}\n",
        "npm legacy authToken": f"//registry.npmjs.org/:_authToken={uuid()}\n",
        "Vault hvs.": f"VAULT_TOKEN=hvs.{r(URLSAFE, 90)}\n",
        "Vault hvb.": f"VAULT_TOKEN=hvb.{r(URLSAFE, 138)}\n",
        "Vault legacy s.": f"vault_token: s.{r(ALNUM, 24)}\n",
        "Fly.io macaroon": f"FLY_API_TOKEN='FlyV1 fm2_lJPECAAAAAAAA{r(B64, 150)}'\n",
        "age secret key": f"AGE-SECRET-KEY-1{r(BECH32, 58)}\n",
        "GCP service account JSON": (
            '{"type": "service_account", "project_id": "p", "private_key_id": "'
            + r(HEX, 40)
            + '", "private_key": "'
            + dash
            + "BEGIN PRIVATE "
            + "KEY"
            + dash
            + "\\n"
            + pem()
            + "\\n"
            + dash
            + "END PRIVATE "
            + "KEY"
            + dash
            + '\\n", "client_email": "a@p.iam.gserviceaccount.com"}\n'
        ),
        "Sonar hex token": f"sonar.login={r(HEX, 40)}\n",
        "Sonar squ_ token": f"SONAR_TOKEN=squ_{r(HEX, 40)}\n",
        "Basic auth header": "Authorization: Basic "
        + base64.b64encode(f"deploy:{r(ALNUM, 16)}".encode()).decode()
        + "\n",
    }


NEGATIVES = {
    "optional chaining": "const apiKey = options?.apiKey ?? process.env.OPENAI_API_KEY;\n",
    "credentials attribute": "credentials: init?.credentials\n",
    "Rust path": "use ruff_python_ast::token::TokenKind;\n",
    "Rust enum": "SemanticTokenModifier::DEFINITION\n",
    "test token": "token: 'workos:old-access'\n",
    "semver range": '"@aws-sdk/credential-provider-node": "^3.922.0",\n',
    "doc placeholder": "ANTHROPIC_API_KEY=sk-ant-api03-...\n",
    "short token": "token=abc\n",
    "env variable": 'password = os.environ["DB_PASSWORD"]\n',
    "curl with a variable": "curl -H 'Authorization: Bearer $TOKEN' https://api.example.org\n",
    "placeholder webhook": "https://hooks.slack.com/services/T00000000/B00000000/XXXXXXXXXXXXXXXXXXXXXXXX\n",
    "git commit hash": f"commit {r(HEX, 40)}\n",
    "app id UUID": f"heroku_app_id = {uuid()}\n",
    "JWT-like triple": f"data = '{r(ALNUM, 24)}.{r(URLSAFE, 6)}.{r(URLSAFE, 38)}'\n",
    "minified JS": "a.b=function(){return this.render.apply(this,arguments)},c.d=e.f.g.h;\n",
    "base64 data line": f"blob = '{r(B64, 76)}'\n",
    "version 1.A text": "see section 1.A.Agreement of the 0.API terms\n",
}


def main() -> None:
    import fair  # (benchmarks/, this script's folder)

    fair.bytecode()
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument(
        "--show", action="store_true", help="print which case each scanner missed or flagged"
    )
    args = parser.parse_args()
    cases = {
        **{("+", k): v for k, v in positives().items()},
        **{("-", k): v for k, v in NEGATIVES.items()},
    }
    scanners = {name: scan for name, scan in SCANNERS.items() if _tool(name)}
    with tempfile.TemporaryDirectory() as work_dir:
        work = Path(work_dir)
        tree = work / "cases"
        tree.mkdir()
        names = {}
        for index, ((sign, name), text) in enumerate(cases.items()):
            file = f"case{index:03d}.cfg"  # a config file: code to gitmem, as the peers' tests are
            (tree / file).write_text(text)
            names[file] = (sign, name)
        results = {}
        for scanner, scan in scanners.items():
            out = work / scanner
            out.mkdir()
            hit = {path for path, *_ in scan(tree, out)}
            results[scanner] = hit
        positive = [f for f, (sign, _) in names.items() if sign == "+"]
        negative = [f for f, (sign, _) in names.items() if sign == "-"]
        print(
            f"{'scanner':12s} {'recall':>8s} {'false pos.':>11s}   ({len(positive)} "
            f"positives, {len(negative)} negatives)"
        )
        for scanner, hit in results.items():
            found = sum(1 for f in positive if f in hit)
            false = sum(1 for f in negative if f in hit)
            print(f"{scanner:12s} {found / len(positive):8.2f} {false:11d}")
        if args.show:
            for file, (sign, name) in names.items():
                marks = " ".join(f"{s}={'Y' if file in hit else '.'}" for s, hit in results.items())
                print(f"  {sign} {name:38s} {marks}")


if __name__ == "__main__":
    main()
