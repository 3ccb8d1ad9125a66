"""Private keys as the tools make them: ``ssh-keygen``'s default (OpenSSH) format for ed25519, RSA and ECDSA, and
``openssl``'s PEM and PKCS#8, generated at run time (so the repository holds none), in every container a key is
pasted into: a raw file, a TypeScript template literal, base64 inside a Rust string, a JSON-escaped string.

Every OpenSSH key body holds ``AAAAAAAA`` (zero bytes), which the placeholder filter takes for a stand-in: a private
key rule is judged by the key's structure alone (``Rule.key``), and a test replaces every other filter with one that
rejects everything to show that none of them is consulted.
"""

from __future__ import annotations

import base64
import inspect
import json
import random
import shutil
import string
import subprocess
from pathlib import Path

import pytest

from gitmem.scan import filters
from gitmem.scan.engine import scan_text
from gitmem.scan.kinds import CODE
from gitmem.scan.rules import RULES
from tests.conftest import Run, git

KEY_RULES = {"private-key", "gcp-service-account", "putty-private-key", "age-secret-key"}


def _tool(name: str) -> str:
    found = shutil.which(name)
    if (
        found is None
    ):  # .ci/run installs both: a missing one is a broken machine, not a reason to skip
        pytest.fail(f"{name} is not installed (apt-get install openssh-client openssl)")
    return found


def _ssh_key(directory: Path, kind: str, *bits: str) -> str:
    path = directory / f"id_{kind}"
    subprocess.run(
        [_tool("ssh-keygen"), "-q", "-t", kind, *bits, "-N", "", "-C", "", "-f", str(path)],
        check=True,
    )
    return path.read_text()


def _openssl(directory: Path, name: str, command: str, *args: str) -> str:
    path = directory / name
    subprocess.run(
        [_tool("openssl"), command, "-out", str(path), *args], check=True, capture_output=True
    )
    return path.read_text()


@pytest.fixture(scope="module")
def keys(tmp_path_factory: pytest.TempPathFactory) -> dict[str, str]:
    """One key of each kind, made now."""
    directory = tmp_path_factory.mktemp("keys")
    return {
        "openssh-ed25519": _ssh_key(directory, "ed25519"),
        "openssh-rsa": _ssh_key(directory, "rsa", "-b", "2048"),
        "openssh-ecdsa": _ssh_key(directory, "ecdsa", "-b", "256"),
        "pem-rsa": _openssl(directory, "rsa.pem", "genrsa", "-traditional", "2048"),
        # Proc-Type: 4,ENCRYPTED and DEK-Info: lines between the header and the body
        "pem-rsa-encrypted": _openssl(
            directory, "rsa-enc.pem", "genrsa", "-traditional", "-aes128", "-passout", "pass:x"
        ),
        "pkcs8-rsa": _openssl(directory, "p8.pem", "genpkey", "-algorithm", "RSA"),
        "pkcs8-ec": _openssl(
            directory,
            "ec.pem",
            "genpkey",
            "-algorithm",
            "EC",
            "-pkeyopt",
            "ec_paramgen_curve:P-256",
        ),
    }


# Each container: the file name and the file's text for a key.
SHAPES = {
    "raw": ("id_key", lambda key: key),
    "typescript-template": ("keys.ts", lambda key: f"export const DEPLOY_KEY = `{key}`;\n"),
    "rust-base64": (
        "keys.rs",
        lambda key: f'const KEY: &str = "{base64.b64encode(key.encode()).decode()}";\n',
    ),
    "json-escaped": (
        "keys.json",
        lambda key: json.dumps({"deploy": {"key": key}}, indent=2) + "\n",
    ),
    "java-concatenated": (
        "Keys.java",
        lambda key: (
            "String KEY =\n" + " +\n".join(f'    "{line}\\n"' for line in key.splitlines()) + ";\n"
        ),
    ),
    "xml-escaped": ("keys.xml", lambda key: f"<key>{key.replace(chr(10), '&#10;')}</key>\n"),
    # a key's lines run together with spaces between (awx's "catted" key data)
    "lines-run-together": (
        "ssh.py",
        lambda key: f'KEY_DATA = """\n{key.replace(chr(10), " ")}\n"""\n',
    ),
    # a string of escaped line ends cut at a width of its own, not at the key's lines (keepassxc)
    "cut-string": (
        "keys.cpp",
        lambda key: (
            "const auto pem = QString("
            + "\n    ".join(f'"{piece}"' for piece in _pieces(key.replace(chr(10), "\\n"), 77))
            + ");\n"
        ),
    ),
}


def _pieces(text: str, width: int) -> list[str]:
    return [text[at : at + width] for at in range(0, len(text), width)]


CASES = [
    (kind, shape)
    for kind in (
        "openssh-ed25519",
        "openssh-rsa",
        "openssh-ecdsa",
        "pem-rsa",
        "pem-rsa-encrypted",
        "pkcs8-rsa",
        "pkcs8-ec",
    )
    for shape in SHAPES
]


def test_the_keys_are_what_the_tools_write(keys: dict[str, str]) -> None:
    for kind, key in keys.items():
        label = "OPENSSH PRIVATE KEY" if kind.startswith("openssh") else "PRIVATE KEY"
        assert key.startswith("-----BEGIN ") and label in key.splitlines()[0], kind
    # the run of zero bytes that made the placeholder filter drop every OpenSSH key
    assert all(
        "A" * 8 in keys[kind] for kind in ("openssh-ed25519", "openssh-rsa", "openssh-ecdsa")
    )


@pytest.mark.parametrize(("kind", "shape"), CASES)
def test_every_key_is_found_in_every_container_by_gitmem_scan(
    keys: dict[str, str], kind: str, shape: str, repo: Path, run: Run
) -> None:
    name, wrap = SHAPES[shape]
    (repo / name).write_text(wrap(keys[kind]))
    result = run("scan", "--json", name)
    assert result.code == 1, (kind, shape, result.err)
    rules = {f["rule"] for f in json.loads(result.out)["findings"]}
    assert "private-key" in rules, (kind, shape, rules)
    body = keys[kind].splitlines()[1]
    assert body not in result.out + result.err  # never the key itself


def test_every_key_in_every_container_is_blocked_by_the_hook(
    keys: dict[str, str], repo: Path, run: Run
) -> None:
    """``scan --staged`` (the pre-commit hook) on one commit adding all of them."""
    expected = set()
    for kind, key in keys.items():
        for shape, (name, wrap) in SHAPES.items():
            path = f"{kind}/{shape}/{name}"
            (repo / path).parent.mkdir(parents=True, exist_ok=True)
            (repo / path).write_text(wrap(key))
            expected.add(path)
    git(repo, "add", ".")
    result = run("scan", "--staged", "--json")
    assert result.code == 1
    found = {f["path"] for f in json.loads(result.out)["findings"] if f["rule"] == "private-key"}
    assert found == expected


def _rejecting(name: str, function: object) -> object:
    """A stand-in for a filter that rejects every value: ``is_*`` says yes (a placeholder, an example), a number is
    0, anything else says no (not plausible, not a secret)."""
    returns = inspect.signature(function).return_annotation  # type: ignore[arg-type]
    if name.startswith("is_"):
        return lambda *args, **kwargs: True
    if returns in ("float", float):
        return lambda *args, **kwargs: 0.0
    if returns in ("str | None",):
        return lambda *args, **kwargs: None
    return lambda *args, **kwargs: False


def _used_by(name: str) -> set[str]:
    """``name`` and the functions of gitmem.scan.filters it calls, and they call."""
    seen: set[str] = set()
    todo = [name]
    while todo:
        current = todo.pop()
        if current in seen or not inspect.isfunction(vars(filters).get(current)):
            continue
        seen.add(current)
        todo.extend(vars(filters)[current].__code__.co_names)
    return seen


def test_no_filter_but_the_key_structure_can_drop_a_private_key(
    keys: dict[str, str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Every function of gitmem.scan.filters (today's and the next one written) replaced by one that rejects all,
    but ``key_material`` and what it calls: each key, in each container, is still found."""
    keep = _used_by("key_material")
    replaced = []
    for name, function in vars(filters).items():
        if (
            inspect.isfunction(function)
            and function.__module__ == filters.__name__
            and name not in keep
        ):
            monkeypatch.setattr(filters, name, _rejecting(name, function))
            replaced.append(name)
    assert {
        "is_placeholder",
        "is_documented_example",
        "plausible",
        "plausible_in_code",
        "secret_name",
    } <= set(replaced)
    for kind, key in keys.items():
        for shape, (_name, wrap) in SHAPES.items():
            rules = {f.rule for f in scan_text(wrap(key), kind=CODE)}
            assert "private-key" in rules, (kind, shape)


def test_key_rules_are_judged_by_the_key_structure_alone() -> None:
    """A rule that finds private keys is a key rule, and its one check is the key's structure: no entropy floor."""
    for rule in RULES:
        if rule.id in KEY_RULES or "PRIVATE KEY" in rule.pattern:
            assert rule.judged == "key", rule.id
        if rule.judged == "key":
            assert rule.check in (None, "key_material") and rule.entropy is None, rule.id


@pytest.mark.parametrize(
    "body",
    ["<paste your key here>", "...", "A" * 64, "\n".join(["AAAA" * 16] * 4), "MIIE" + "." * 60],
)
def test_a_key_block_without_key_material_is_not_a_key(body: str) -> None:
    head, tail = "-----BEGIN OPENSSH PRIVATE", "-----END OPENSSH PRIVATE"
    assert scan_text(f"{head} KEY-----\n{body}\n{tail} KEY-----\n", kind=CODE) == []


@pytest.mark.parametrize(
    "line",
    [
        "if (pkcs8.indexOf('-----BEGIN PRIVATE KEY-----') !== 0) {",
        " * {@code -----BEGIN PRIVATE KEY-----} header, otherwise as DER/PKCS-8.</p>",
        "read as PEM if that prefix contains the `-----BEGIN PRIVATE KEY-----` header, otherwise",
    ],
)
def test_a_key_s_header_named_in_code_or_prose_is_not_a_key(line: str) -> None:
    """jose's and pgjdbc's code and docs name the header a parser looks for; what follows it is
    code and prose, whose long names added up to enough "base64" for a key. A key's body starts
    right after its header (past line ends, quotes, concatenation and PEM's own header lines)."""
    rng = random.Random(2031)
    names = [
        "".join(rng.choice(string.ascii_letters + string.digits) for _ in range(24))
        for _ in range(4)
    ]
    code = "\n".join(f"  const value = {name}(input, options);" for name in names)
    assert scan_text(f"{line}\n{code}\n", kind=CODE) == []


@pytest.mark.parametrize("kind", ["pem-rsa", "pkcs8-rsa", "pem-rsa-encrypted"])
def test_a_key_cut_short_is_no_key_whatever_follows_it(keys: dict[str, str], kind: str) -> None:
    """A key's first characters and an ellipsis, in a comment or a help text (portkey's ``// example: -----BEGIN RSA
    PRIVATE KEY-----\\nMIIEpAIBAAKCAQEA...``, ory's ``_KEY="-----BEGIN ENCRYPTED PRIVATE KEY-----\\nMIIFDjBA…..."``),
    is no key. Before, the code after it up to 20,000 characters on was read as the key's body (its long names are
    base64's letters), and 5,762 characters of portkey's types were found as a key."""
    header, body = keys[kind].split("-----\n", 1)
    start = body.replace("Proc-Type", "").split("\n\n")[-1][:16]
    names = [
        "".join(random.Random(f"{kind}{n}").choice(string.ascii_letters) for _ in range(24))
        for n in range(6)
    ]
    code = "\n".join(f"  {name}?: string; // example: {name.lower()}" for name in names)
    for line in (
        f"  privateKey?: string; // example: {header}-----\\n{start}...",
        f'\tExample: ` + prefix + `_KEY="{header}-----\\n{start}..."',
    ):
        assert scan_text(f"{line}\n{code}\n}}\n", kind=CODE) == [], line
