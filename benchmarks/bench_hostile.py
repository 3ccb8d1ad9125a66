"""Benchmark hostile memory files: how long checking one takes (what validate, add, propose, compile
and the MCP server do to every file), for the worst inputs found for issue 13, next to an ordinary
file of the same size.

    python benchmarks/bench_hostile.py [--runs 5]

Then round 36's and 37's repository files (an e-mail preview's padding in code, a translation's
zero-width spaces, a stored record's tokens among braces), scanned as the hook scans a file, beside
prose of the same size.

Then issue 22's cases, each beside a benign input of the same size (time and peak memory,
tracemalloc, as ratios): the journal's and import's Markdown, the scanner's JSON strings, aider's
``read:`` list, the config schema's credentials look-ahead, a pack whose tree names one blob 3,000
times (against an ordinary pack), and the effects that are not a matter of time (a tag with U+202E,
``</gitmem>`` in a memory, a file name with a newline, ``scan.exclude`` over .memory/).

Then the file-system attacks of issue 22 (benchmarks/hostile_files.py): committed links to /dev/zero
and into the home folder, huge files, a memory scoped to .git/hooks/**, each as a new gitmem process
beside the same command on a benign repository, as ratios of time and peak memory.

Each hostile file is as large as gitmem accepts (just under 64 KiB) and is compared with an ordinary
memory of the same size (the peer). Goal: no hostile input costs more than a few times its peer
(linear time, no blow-up).
"""

from __future__ import annotations

import argparse
import base64
import contextlib
import json
import random
import string
import time
import tracemalloc
from collections.abc import Callable
from pathlib import Path

import hostile_files

from gitmem.memory.braces import count
from gitmem.memory.schema import MAX_FILE_BYTES, check_memory
from gitmem.recall.globs import matches

HEAD = "id: x\ntitle: T\nkind: fact\nstatus: active\n"


def body_file(body: str) -> bytes:
    return (HEAD + f"body: {json.dumps(body, ensure_ascii=False)}\n").encode()


def fill(unit: str) -> bytes:
    """A memory whose body repeats ``unit`` to just under the size limit."""
    low, high = 1, MAX_FILE_BYTES
    while low < high:  # the largest count that fits
        middle = (low + high + 1) // 2
        if len(body_file(unit * middle)) <= MAX_FILE_BYTES:
            low = middle
        else:
            high = middle - 1
    return body_file(unit * low)


def block_file(body: str) -> bytes:
    return (HEAD + "body: |\n" + "".join(f"  {line}\n" for line in body.split("\n"))).encode()


def finding_lines(values: int, lines: int) -> list[str]:
    """``lines`` lines ``api_key: VALUE``, VALUE one of ``values`` random ones: a finding each."""
    rng = random.Random(32)
    alphabet = string.ascii_letters + string.digits
    keys = ["".join(rng.choice(alphabet) for _ in range(32)) for _ in range(values)]
    return [f"api_key: {keys[number % values]}" for number in range(lines)]


def _nested_base64(seed: int) -> str:
    """A made-up value, base64-encoded six times over."""
    value = "".join(random.Random(seed).choice(string.ascii_letters) for _ in range(20))
    for _ in range(6):
        value = base64.b64encode(value.encode()).decode()
    return value


def _hs256_token(seed: int) -> str:
    """A made-up JSON Web Token, HS256 with a signature of 32 random bytes (built at run time)."""
    rng = random.Random(seed)
    parts = (
        {"alg": "HS256", "typ": "JWT"},
        {"sub": str(seed), "iat": 1700000000 + seed, "exp": 1900000000},
    )
    encoded = [json.dumps(part).encode() for part in parts] + [rng.randbytes(32)]
    return ".".join(base64.urlsafe_b64encode(part).rstrip(b"=").decode() for part in encoded)


CASES: dict[str, bytes] = {
    "tag characters after a black flag": fill("\U0001f3f4" + "\U000e0061" * 50),
    "a run of tag characters": fill("\U000e0061"),
    "zero-width spaces": fill("\u200b"),
    "U+2028 line separators": fill("\u2028"),
    "carriage returns": fill("\r"),
    "emoji ZWJ sequences": fill("\U0001f468\u200d\U0001f469\u200d\U0001f467"),
    "a private key without END": block_file(
        "-----BEGIN RSA " + "PRIVATE KEY-----\n" + "\n".join("Ab3+/" * 13 for _ in range(900))
    )[:MAX_FILE_BYTES],
    "many '-----' runs": fill("-----"),
    "one long line of base64": fill("QUJD"),
    "key=value pairs": fill("password=hunter2 "),
    # issue 32: candidates that overlap (each starts inside the one before and was read to its
    # longest value)
    "?token= repeated": fill("?token="),
    "?token= on every line": block_file("?token=\n" * 7000)[:MAX_FILE_BYTES],
    "[DEBUG] a b c KEY= repeated": fill("[DEBUG] a b c KEY="),
    "KEY= repeated": fill("KEY="),
    "&password= repeated": fill("&password="),
    "token: repeated": fill("token:"),
    "--password= repeated": fill("--password="),
    # issue 32: a finding on every line, each value judged by shape and reported (built at run
    # time: the repository holds no string its scanner flags)
    "a finding on every line, one value": block_file("\n".join(finding_lines(1, 1500)))[
        :MAX_FILE_BYTES
    ],
    "a finding on every line, each its own": block_file("\n".join(finding_lines(1500, 1500)))[
        :MAX_FILE_BYTES
    ],
    # round 34: hidden characters between spaces are one run, read a gap at a time; a value that
    # is base64 of lines is decoded to be judged (built at run time)
    "zero-width characters between spaces": fill("\u200b\xa0"),
    "base64 of a document on every line": block_file(
        "\n".join(
            "secret_key: "
            + base64.b64encode(f"-----BEGIN {n}-----\n-----END-----".encode()).decode()
            for n in range(2000)
        )
    )[:MAX_FILE_BYTES],
    # round 35: a query's parameter in prose ends at its fragment; a dotted name is judged by its
    # last member; an escaped quote ends a value in prose
    "?api_key=…#fragment repeated": fill("?api_key=abcdefgh#x"),
    "dotted names on every line": block_file(
        "\n".join(f'"token_embd.blk.{n}.weight": "{n:064x}",' for n in range(1500))
    )[:MAX_FILE_BYTES],
    'the password is \\" repeated': fill('the password is abcdefgh\\" '),
    # round 36: spelling's joiners and marks, each judged by the characters beside it
    "a word-final non-joiner on every word": fill("\u06a9\u0647\u200c "),
    "Malayalam chillus": fill("\u0d15\u0d33\u0d4d\u200d "),
    "a mark after a right-to-left abbreviation": fill("\u062c.\u0645.\u200f "),
    # round 36: a hex key is looked at beside its line and the lines around it (a search box's key)
    "a hex key on every line, no index": block_file(
        "\n".join(f"apiKey: {random.Random(n).getrandbits(128):032x}" for n in range(1500))
    )[:MAX_FILE_BYTES],
    # round 37: a key's DER is read for where its modulus ends
    "an RSA key cut short, repeated": block_file(
        "\n".join(
            "-----BEGIN RSA " + "PRIVATE KEY-----\nMIIEpQIBAAKCAQEAuyf/lNrH9ck8DmNyo3fGgvCI1l9s+cmB"
            "Y3WIz+cUDqmxiieR.\n-----END RSA " + "PRIVATE KEY-----"
            for _ in range(500)
        )
    )[:MAX_FILE_BYTES],
    # round 38: a brace opens an initialiser when the string it holds is whole (read to the
    # string's end); a value is judged by the value it carries (base64 of text, a setting's)
    "Token{ and an unclosed string, repeated": fill('Token{"' + "a" * 60 + " "),
    "Token{ before a line of spaces": block_file(("Token{" + " " * 2000 + "\n") * 30)[
        :MAX_FILE_BYTES
    ],
    "settings chained in one value": fill('token = "' + "ABC_D=" * 300 + '" '),
    "base64 of base64 of a value, on every line": block_file(
        "\n".join(f"token: {_nested_base64(n)}" for n in range(400))
    )[:MAX_FILE_BYTES],
    # round 58: an HMAC-signed token is signed again under each key anyone would guess first
    "a JSON Web Token on every line, each its own": block_file(
        "\n".join(f"jwt: {_hs256_token(n)}" for n in range(300))
    )[:MAX_FILE_BYTES],
    "braces in a path": (HEAD + "paths:\n  - '" + "src/{a,b}" * 33 + "'\n").encode(),
    "deep nesting": (HEAD + "tags: " + "[" * 40 + "]" * 40 + "\n").encode(),
}
PEER = fill("The quick brown fox jumps over the lazy dog. ")


def best(function: Callable[[], object], runs: int) -> float:
    samples = []
    for _ in range(runs):
        start = time.perf_counter()
        function()
        samples.append(time.perf_counter() - start)
    return min(samples)


def main() -> None:
    import fair  # (benchmarks/, this script's folder)

    fair.bytecode()
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--runs", type=int, default=5)
    args = parser.parse_args()
    check_memory(PEER, "x")  # warm up: imports, compiled patterns
    peer = best(lambda: check_memory(PEER, "x"), args.runs)
    print(f"{'input':40} {'bytes':>7} {'check (ms)':>10} {'x peer':>7}")
    print(f"{'peer: ordinary prose':40} {len(PEER):7} {peer * 1000:10.1f} {1.0:7.1f}")
    worst = ("", 0.0)
    for name, raw in CASES.items():
        seconds = best(lambda raw=raw: check_memory(raw, "x"), args.runs)  # type: ignore[misc]
        worst = max(worst, (name, seconds), key=lambda item: item[1])
        print(f"{name:40} {len(raw):7} {seconds * 1000:10.1f} {seconds / peer:7.1f}")
    glob = "src/{a,b}" * 40
    seconds = best(lambda: count(glob), args.runs)
    print(f"{'counting the braces of (src/{a,b})x40':40} {len(glob):7} {seconds * 1000:10.3f}")
    star, name = (
        "*a" * 5 + "b",
        "a" * 200,
    )  # a memory's paths glob against a file name (recall --path)
    seconds = best(lambda: matches(star, name), args.runs)
    print(f"{'recall glob *a*a*a*a*a*b, 200-char name':40} {len(name):7} {seconds * 1000:10.3f}")
    star, name = "*a" * 100 + "b", "a" * 4000
    seconds = best(lambda: matches(star, name), args.runs)
    print(f"{'recall glob (*a)x100 b, 4000-char name':40} {len(name):7} {seconds * 1000:10.3f}")
    print(f"slowest: {worst[0]}, {worst[1] * 1000:.1f} ms ({worst[1] / peer:.1f}x the peer)")
    print()
    repository_files(args.runs)
    print()
    issue_22(args.runs)
    hostile_files.run(
        args.runs
    )  # the file-system attacks (issue 22): links and huge files, process by process
    print()
    prompt_hook_on_a_hostile_store()


# Rounds 36 to 38: what is allowed only in a repository's files (an e-mail preview's padding in
# code, the zero-width spaces machine translation leaves in a translation file, a stored record's
# tokens), each as large as a memory,
# scanned as the hook scans a file, beside prose of the same size at the same path
_TOKEN = f"{random.Random(37).getrandbits(128):032x}"  # (made at run time, as every value here)
FILE_CASES: dict[str, tuple[str, str]] = {
    "React Email's preview padding": ("mail.html", "\xa0\u200c\u200b\u200d\u200e\u200f\ufeff"),
    "the padding, one character short": ("mail.html", "\xa0\u200c\u200b\u200d\u200e\u200f"),
    "paired zero-width spaces in a translation": ("locales/fi-FI.json", "a \u200b\u200bb "),
    "soft hyphens in a translation": ("locales/de-DE.json", "Seiten\xadschutz "),
    # round 37: in a file people review, a value's object is read for its own members (a stored
    # resource's record), back to its opening brace and on to its closing one, within a reach
    "a record's token in every object": (
        "test/fixtures/orders.json",
        '{"id": 1, "cart_token": "' + _TOKEN + '", "created_at": "2012-10-12T07:05:27Z"}, ',
    ),
    "a token in nested objects on every line": (
        "test/fixtures/orders.json",
        '{"a": {"b": {"cart_token": "' + _TOKEN + '"}}}\n',
    ),
    # round 38: white space after a name's operator is read once, however long its run
    "token: before a line of spaces": ("config.yml", "token:" + " " * 2000 + "\n"),
    "Token{ before a line of spaces": ("src/main.cc", "Token{" + " " * 2000 + "\n"),
    "a token before a run of opening braces": (
        "test/fixtures/orders.json",
        '{"cart_token": "' + _TOKEN + '" ' + "{" * 200 + "\n",
    ),
    # round 39: an API description's example blocks are read from its lines' indentation, once
    "an API description's tokens, a staircase": (
        "docs/openapi.yaml",
        "openapi: 3.0.0\n" + "".join(f"{' ' * n}cart_token: {_TOKEN}\n" for n in range(200)),
    ),
    "an API description's tokens under examples": (
        "docs/openapi.yaml",
        "openapi: 3.0.0\nexamples:\n" + f"  - cart_token: {_TOKEN}\n" * 200,
    ),
    # round 49: a minified bundle, one line of objects whose names wake the generic rule
    # (cline's and Next.js' chunks: every name's value was a candidate, judged and rejected)
    "a minified bundle's objects, one line": (
        "dist/index.js",
        'releaseDate:"2025-12-18",apiKeyEnv:"OPENAI_API_KEY",maxTokens:"8192",passive:"yes",',
    ),
}


def repository_files(runs: int) -> None:
    from gitmem.scan.inputs import Settings, Source, findings_in

    def scan(path: str, text: str) -> float:
        return best(lambda: findings_in(Source(path, text, root_relative=path), Settings()), runs)

    print(f"{'repository file':40} {'chars':>7} {'scan (ms)':>10} {'x peer':>7}")
    for name, (path, unit) in FILE_CASES.items():
        text = unit * (MAX_FILE_BYTES // len(unit.encode()))
        prose = ("The quick brown fox jumps over the lazy dog. " * 2000)[: len(text)]
        scan(path, prose)  # warm up
        peer, seconds = scan(path, prose), scan(path, text)
        print(f"{name:40} {len(text):7} {seconds * 1000:10.1f} {seconds / peer:7.1f}")


def prompt_hook_on_a_hostile_store(
    files: int = 12, prompts: int = 3, timeout: float = 10.0
) -> None:
    """Issue 32: a pull request of twelve 64 KB memories of ``?token=`` repeated, then prompts, each
    a new ``gitmem hook prompt`` process with a client's 10 s timeout, on a cold index (seconds, or
    killed).
    """
    import os
    import subprocess
    import sys
    import tempfile

    with tempfile.TemporaryDirectory() as folder:
        root = Path(folder) / "repo"
        root.mkdir()
        subprocess.run(["git", "init", "-q", str(root)], check=True)
        gitmem = [sys.executable, "-m", "gitmem"]
        subprocess.run([*gitmem, "init", "--no-hooks"], cwd=root, check=True, capture_output=True)
        for n in range(files):
            name = chr(ord("a") + n)  # one-letter ids: the file stays as large as the limit allows
            raw = CASES["?token= repeated"].replace(b"id: x", f"id: {name}".encode())
            (root / ".memory" / "memories" / f"{name}.yaml").write_bytes(raw)
        shown = []
        for prompt in range(prompts):
            payload = {
                "session_id": f"s{prompt}",
                "cwd": str(root),
                "hook_event_name": "UserPromptSubmit",
            }
            payload["prompt"] = "how do we run the deploy queue"
            start = time.perf_counter()
            try:
                subprocess.run(
                    [*gitmem, "hook", "prompt", "--client", "claude"],
                    cwd=root,
                    input=json.dumps(payload).encode(),
                    capture_output=True,
                    timeout=timeout,
                    env=dict(os.environ),
                    check=False,
                )
                shown.append(f"{time.perf_counter() - start:.2f} s")
            except subprocess.TimeoutExpired:
                shown.append(f"killed at {timeout:.0f} s")
    print(
        f"prompt hook, {files} memories of ?token= x 64 KB, cold index, {prompts} prompts: "
        f"{', '.join(shown)}"
    )


def peak(function: Callable[[], object]) -> int:
    tracemalloc.start()
    try:
        function()
        return tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


def _text_cases() -> list[tuple[str, Callable[[str], object], str, str]]:
    """(name, reader, hostile input, benign input of the same size)."""
    from gitmem.compile.aider import reads_conventions
    from gitmem.importing import markdown as adopt_md
    from gitmem.importing.rulesfiles import read_frontmatter
    from gitmem.journal import markdown as journal_md
    from gitmem.memory.schema import check_config
    from gitmem.scan import scan_text

    def prose(size: int) -> str:
        return ("The quick brown fox jumps over the lazy dog " * (size // 44 + 1))[:size]

    def config(repo: str) -> bytes:
        return f"version: 1\nsources:\n  - name: acme\n    repo: {repo}\n    rev: v1\n".encode()

    hostile_repo = "a://" + ":" * 30_000
    return [
        ("journal: a 2.5 KB heading of spaces", lambda t: journal_md.parse(t),
         "## Decisions\n# a" + " " * 2500 + "b\n", "## Decisions\n# " + prose(2502) + "\n"),
        ("import: a 30 KB ATX heading", lambda t: adopt_md.parse(t.split("\n")),
         "## a" + " " * 30_000 + "b", "## " + prose(30_002)),
        ("import: a 30 KB frontmatter key", lambda t: read_frontmatter(t.split("\n")),
         "---\ndescription: a" + " " * 30_000 + "b\n---",
         "---\ndescription: " + prose(30_002) + "\n---"),
        ("scan: 60 KB of \\\" with no closing quote", lambda t: scan_text(t, hidden=True),
         'x = "' + '\\"' * 30_000, 'x = "' + prose(60_000)),
        ("aider: a 30 KB read: item", lambda t: reads_conventions(t),
         "read:\n  - a" + " " * 30_000 + "b\n", "read:\n  - " + prose(30_002) + "\n"),
        ("config: a 30 KB repo: (credentials check)", lambda t: check_config(t.encode()),
         config(hostile_repo).decode(),
         config("https://example.com/" + "a" * (len(hostile_repo) - 20)).decode()),
    ]  # fmt: skip


def _pack(root: Path, names: int, blob_bytes: int, distinct: bool) -> tuple[Path, str]:
    """A bare-enough repository whose .memory/memories names ``names`` files (one blob, or one
    each)."""
    import subprocess

    root.mkdir()
    subprocess.run(["git", "init", "-q", str(root)], check=True)

    def run(*args: str, data: bytes = b"") -> str:
        return subprocess.run(
            ["git", *args], cwd=root, input=data, capture_output=True, check=True
        ).stdout.decode()

    entries = []
    shared = ""
    for index in range(names):
        if distinct or not shared:
            body = (
                f"id: m{index}\ntitle: T{index}\nkind: fact\nstatus: active\nbody: '"
                + "x" * blob_bytes
                + "'\n"
            )
            shared = run("hash-object", "-w", "--stdin", data=body.encode()).strip()
        entries.append(f"100644 blob {shared}\tm{index}.yaml\n")
    tree = run("mktree", data="".join(entries).encode()).strip()
    tree = run("mktree", data=f"040000 tree {tree}\tmemories\n".encode()).strip()
    tree = run("mktree", data=f"040000 tree {tree}\t.memory\n".encode()).strip()
    return root, run("commit-tree", "-m", "pack", tree).strip()


def _pack_case() -> tuple[float, float, float, float]:
    """(hostile seconds, benign seconds, hostile peak, benign peak) of reading a pack's tree."""
    import tempfile

    from gitmem.errors import CannotRun
    from gitmem.scopes.clone import read_tree
    from gitmem.scopes.packs import check_pack

    with tempfile.TemporaryDirectory() as scratch:
        hostile = _pack(Path(scratch) / "hostile", 3000, 60_000, distinct=False)
        benign = _pack(Path(scratch) / "benign", 100, 600, distinct=True)

        def read(pack: tuple[Path, str]) -> None:
            with contextlib.suppress(CannotRun):  # the hostile one is refused from its listing
                from gitmem.memory.config import Source

                check_pack(Source("x", "x", "v1"), pack[1], read_tree(pack[0], pack[1], "x"))

        return (best(lambda: read(hostile), 3), best(lambda: read(benign), 3),
                peak(lambda: read(hostile)), peak(lambda: read(benign)))  # fmt: skip


def _effects() -> list[tuple[str, str]]:
    from gitmem.errors import shown
    from gitmem.memory.fields import inert
    from gitmem.scan.inputs import Settings
    from gitmem.scopes.clone import rev_problem

    exclude_all = Settings(exclude=("*",))
    tag = "v9.0\u202e1.0v"
    return [
        ("a pack tag v9.0\\u202e1.0v", f"refused: {rev_problem(tag)}"),
        ("</gitmem> in a memory", inert("a </gitmem> b")),
        ("a file name 'a.env\\nok: ...'", shown("a.env\nok: no secrets")),
        (
            "scan.exclude ['*'] over .memory/x.yaml",
            f"excluded: {exclude_all.excluded('.memory/x.yaml')}",
        ),
    ]


def issue_22(runs: int) -> None:
    print(
        f"{'issue 22 case':44} {'bytes':>7} {'ms':>8} {'x peer':>7} {'peak KiB':>9} {'x peer':>7}"
    )
    worst = ("", 0.0)
    for name, read, hostile, benign in _text_cases():
        read(benign)  # warm up
        on_hostile, on_benign = (lambda r=read, t=hostile: r(t)), (lambda r=read, t=benign: r(t))
        seconds, peer = best(on_hostile, runs), best(on_benign, runs)
        memory, peer_memory = peak(on_hostile), peak(on_benign)
        ratio = seconds / peer
        worst = max(worst, (name, ratio), key=lambda item: item[1])
        print(f"{name:44} {len(hostile):7} {seconds * 1000:8.1f} {ratio:7.1f} {memory / 1024:9.0f} "
              f"{memory / max(peer_memory, 1):7.1f}")  # fmt: skip
    seconds, peer, memory, peer_memory = _pack_case()
    print(f"{'pack: one 60 KB blob named 3,000 times':44} {'':7} {seconds * 1000:8.1f} "
          f"{seconds / peer:7.1f} {memory / 1024:9.0f} "
          f"{memory / max(peer_memory, 1):7.1f}   (peer: 100 small files)")  # fmt: skip
    print(f"worst time ratio: {worst[0]}, {worst[1]:.1f}x its peer")
    for name, effect in _effects():
        print(f"{name:44} {effect}")


if __name__ == "__main__":
    main()
