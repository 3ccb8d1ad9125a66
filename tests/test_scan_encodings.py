"""Secrets in the encodings a terminal or an editor puts them in: ``base64 .env`` wrapped at 76 columns, ``xxd``
and ``hexdump -C`` dumps, as they land in a session log, a JSON transcript or a staged file. Every secret is made at
run time, every dump by the real tool."""

from __future__ import annotations

import base64
import json
import random
import shutil
import string
import subprocess
from pathlib import Path

import pytest

from gitmem.scan import scan_text
from tests.conftest import Run, git

_rng = random.Random(26)


def _chars(alphabet: str, n: int) -> str:
    return "".join(_rng.choice(alphabet) for _ in range(n))


def dotenv() -> tuple[str, dict[str, str]]:
    """A .env file, and the rule each of its secrets is found by."""
    github = "ghp_" + _chars(string.ascii_letters + string.digits, 36)
    aws = _chars(string.ascii_letters + string.digits + "+/", 40)
    text = (
        "LOG_LEVEL=debug\nFEATURE_FLAGS=search,export,beta\n"
        f"AWS_SECRET_ACCESS_KEY={aws}\nGITHUB_TOKEN={github}\nPORT=8080\n"
    )
    return text, {"aws-secret-access-key": aws, "github-pat": github}


def _rules(result_out: str) -> set[str]:
    return {f["rule"] for f in json.loads(result_out)["findings"]}


def test_wrapped_base64_in_a_session_log_is_decoded_whole(tmp_path: Path, run: Run) -> None:
    env, secrets = dotenv()
    wrapped = base64.encodebytes(env.encode()).decode()  # 76 columns, as base64(1) prints
    assert len(wrapped.splitlines()) >= 3
    log = tmp_path / "session.log"
    log.write_text(f"$ base64 .env\n{wrapped}$ echo done\ndone\n")
    result = run("scan", "--log", str(log), "--json")
    assert result.code == 1
    assert _rules(result.out) >= set(secrets)
    assert not any(value in result.out + result.err for value in secrets.values())


@pytest.mark.parametrize("width", [76, 64])
def test_each_wrapped_secret_is_reported_and_redacted_where_its_lines_are(width: int) -> None:
    env, secrets = dotenv()
    one_line = base64.b64encode(env.encode()).decode()
    lines = [one_line[i : i + width] for i in range(0, len(one_line), width)]
    text = "output:\n" + "\n".join(lines) + "\n"
    found = scan_text(text, decode=2)
    assert {f.rule for f in found} >= set(secrets)
    for finding in found:
        assert 2 <= finding.line <= 1 + len(lines)
    from gitmem.scan.engine import redact

    redacted = redact(text, found)
    decoded_again = scan_text(redacted, decode=2)
    assert not {f.rule for f in decoded_again} & set(secrets)


def test_wrapped_base64_in_a_json_transcript_and_staged(repo: Path, run: Run) -> None:
    env, secrets = dotenv()
    wrapped = base64.encodebytes(env.encode()).decode()
    record = {
        "sessionId": "s1",
        "message": {"role": "tool", "content": f"$ base64 .env\n{wrapped}"},
    }
    (repo / "transcript.jsonl").write_text(json.dumps(record) + "\n")
    result = run("scan", "--log", "transcript.jsonl", "--json")
    assert _rules(result.out) >= set(secrets), result.out
    git(repo, "add", "transcript.jsonl")
    result = run("scan", "--staged", "--json")
    assert result.code == 1
    assert _rules(result.out) >= set(secrets)


def test_wrapped_blocks_with_short_last_lines_and_crlf_decode() -> None:
    env, secrets = dotenv()
    for tail in (
        b"",
        b"X=1\n",
        b"NAME=" + b"n" * 40 + b"\n",
    ):  # last lines of several lengths, under 24 too
        wrapped = base64.encodebytes(env.encode() + tail).decode()
        assert {f.rule for f in scan_text(wrapped, decode=1)} >= set(secrets), tail
    wrapped = base64.encodebytes(env.encode() + b"X=1\n").decode()
    assert len(wrapped.splitlines()[-1]) < 24
    assert {f.rule for f in scan_text(wrapped.replace("\n", "\r\n"), decode=1)} >= set(
        secrets
    )  # CRLF
    # base64 that decodes to nothing printable (a certificate body) is left alone, wrapped or not
    noise = base64.encodebytes(bytes(_rng.randrange(256) for _ in range(400))).decode()
    assert scan_text(noise, decode=2) == []


def _dump(tool: list[str], data: bytes) -> str:
    if shutil.which(tool[0]) is None:
        pytest.fail(f"{tool[0]} is not installed")
    return subprocess.run([*tool], input=data, capture_output=True, check=True).stdout.decode()


@pytest.mark.parametrize("tool", [["xxd"], ["hexdump", "-C"]])
def test_a_hex_dump_of_a_secret_is_found(tool: list[str], tmp_path: Path, run: Run) -> None:
    env, secrets = dotenv()
    dump = _dump(tool, env.encode())
    log = tmp_path / "dump.log"
    log.write_text(f"$ {' '.join(tool)} .env\n{dump}")
    result = run("scan", "--log", str(log), "--json")
    assert result.code == 1
    assert _rules(result.out) >= set(secrets)
    found = json.loads(result.out)["findings"]
    assert all(f["line"] >= 2 for f in found)
    assert not any(value in result.out for value in secrets.values())


# -- UTF-16 files --------------------------------------------------------------------------------------------------


def _powershell(text: str, encoding: str = "utf-16-le", bom: bool = True) -> bytes:
    """What PowerShell 5's ``>`` writes: UTF-16 LE with a byte-order mark and CRLF line ends."""
    marks = {"utf-16-le": b"\xff\xfe", "utf-16-be": b"\xfe\xff"}
    return (marks[encoding] if bom else b"") + text.replace("\n", "\r\n").encode(encoding)


@pytest.mark.parametrize(
    ("encoding", "bom"),
    [("utf-16-le", True), ("utf-16-be", True), ("utf-16-le", False), ("utf-16-be", False)],
)
def test_a_utf16_file_is_scanned_as_text(encoding: str, bom: bool, repo: Path, run: Run) -> None:
    env, secrets = dotenv()
    (repo / "settings.env").write_bytes(_powershell(env, encoding, bom))
    result = run("scan", "--json", "settings.env")
    assert result.code == 1, result.err
    found = json.loads(result.out)["findings"]
    assert {f["rule"] for f in found} >= set(secrets)
    assert {f["line"] for f in found if f["rule"] == "github-pat"} == {4}
    git(repo, "add", "settings.env")
    staged = run("scan", "--staged", "--json")
    assert staged.code == 1
    assert {f["rule"] for f in json.loads(staged.out)["findings"]} >= set(secrets)


def test_a_staged_utf16_change_reports_its_new_lines_only(repo: Path, run: Run) -> None:
    env, _secrets = dotenv()
    (repo / "out.txt").write_bytes(_powershell(env))
    git(repo, "add", "out.txt")
    git(repo, "commit", "-qm", "a reviewed file", "--no-verify")
    token = "ghp_" + _chars(string.ascii_letters + string.digits, 36)
    (repo / "out.txt").write_bytes(_powershell(env + f"NEW_TOKEN={token}\n"))
    git(repo, "add", "out.txt")
    result = run("scan", "--staged", "--json")
    assert result.code == 1
    found = json.loads(result.out)["findings"]
    assert [(f["rule"], f["line"]) for f in found] == [("github-pat", 6)]
    assert token not in result.out


def test_redacting_a_utf16_file_keeps_its_encoding(repo: Path, run: Run) -> None:
    env, secrets = dotenv()
    (repo / "out.txt").write_bytes(_powershell(env))
    result = run("scan", "--redact", "out.txt")
    assert result.code == 1
    raw = (repo / "out.txt").read_bytes()
    assert raw.startswith(b"\xff\xfe")
    text = raw.decode("utf-16")
    assert "‹redacted:github-pat›" in text and "LOG_LEVEL=debug\r\n" in text
    assert not any(value in text for value in secrets.values())


def test_binary_files_with_nul_bytes_are_still_skipped(repo: Path, run: Run) -> None:
    token = "ghp_" + _chars(string.ascii_letters + string.digits, 36)
    (repo / "blob.bin").write_bytes(
        bytes(_rng.randrange(256) for _ in range(2000)) + token.encode()
    )
    (repo / "controls.bin").write_bytes(
        b"\xff\xfe" + "\x01\x02\x03\x04".encode("utf-16-le") * 100 + token.encode()
    )
    (repo / "odd.bin").write_bytes(b"\xff\xfe" + f"TOKEN={token}\n".encode("utf-16-le") + b"\x00")
    result = run("scan", ".")
    assert result.code == 0, result.out


def test_base64_beside_characters_that_are_not_ascii_is_found_where_it_is() -> None:
    """The base64 runs of a text that is not all ASCII are found as in ASCII text, at their columns: each character
    counts one, an emoji, a lone surrogate (an undecodable byte) and "İ" alike."""
    env, secrets = dotenv()
    encoded = base64.b64encode(env.encode()).decode()
    ascii_columns = {f.column for f in scan_text(f"note: xxxxxx {encoded} (the .env)\n", decode=2)}
    assert len(ascii_columns) == len(secrets)
    for before in ("café, ", "🔑 ", "\udc80 ", "İzmir "):
        found = scan_text(f"note: {before.ljust(7)}{encoded} (the .env)\n", decode=2)
        assert {f.rule for f in found} >= set(secrets), before
        assert {f.column for f in found} == ascii_columns, before
