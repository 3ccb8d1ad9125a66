"""The NT hashes the scanner holds for the passwords tried first (``filters.NT_HASH_OF``), computed
again: hashlib has no MD4 where OpenSSL 3 leaves it out, so the table is written by hand, and a
wrong entry would pass silently (the hash would never match). MD4 here is RFC 1320's, checked
against the RFC's own test suite first."""

from __future__ import annotations

import struct

import pytest

from gitmem.scan import scan_text
from gitmem.scan.filters import NT_HASH_OF
from gitmem.scan.kinds import CODE

_MASK = 0xFFFFFFFF


def _rotated(value: int, by: int) -> int:
    value &= _MASK
    return ((value << by) | (value >> (32 - by))) & _MASK


def md4(data: bytes) -> str:
    """RFC 1320's MD4 of ``data``, in hex."""
    message = data + b"\x80" + b"\x00" * ((55 - len(data)) % 64) + struct.pack("<Q", len(data) * 8)
    state = [0x67452301, 0xEFCDAB89, 0x98BADCFE, 0x10325476]
    rounds = (
        (lambda x, y, z: (x & y) | (~x & z), 0, range(16), (3, 7, 11, 19)),
        (lambda x, y, z: (x & y) | (x & z) | (y & z), 0x5A827999,
         (0, 4, 8, 12, 1, 5, 9, 13, 2, 6, 10, 14, 3, 7, 11, 15), (3, 5, 9, 13)),
        (lambda x, y, z: x ^ y ^ z, 0x6ED9EBA1,
         (0, 8, 4, 12, 2, 10, 6, 14, 1, 9, 5, 13, 3, 11, 7, 15), (3, 9, 11, 15)),
    )  # fmt: skip
    for offset in range(0, len(message), 64):
        words = struct.unpack("<16I", message[offset : offset + 64])
        a, b, c, d = state
        for function, constant, order, shifts in rounds:
            for step, index in enumerate(order):
                shift = shifts[step % 4]
                a = _rotated(a + function(b, c, d) + words[index] + constant, shift)
                a, b, c, d = d, a, b, c
        state = [(old + new) & _MASK for old, new in zip(state, (a, b, c, d), strict=True)]
    return struct.pack("<4I", *state).hex()


@pytest.mark.parametrize(
    ("text", "digest"),
    [
        (b"", "31d6cfe0d16ae931b73c59d7e0c089c0"),
        (b"a", "bde52cb31de33e46245e05fbdbd6fb24"),
        (b"abc", "a448017aaf21d8525fc10ae87aa6729d"),
        (b"message digest", "d9130a8164549fe818874806e1c7014b"),
        (b"abcdefghijklmnopqrstuvwxyz", "d79e1c308aa5bbcdeea8ed63df412da9"),
        (b"1234567890" * 8, "e33b4ddc9c38f2199c3e7b164fcc0536"),
    ],
)
def test_md4_is_rfc_1320_s(text: bytes, digest: str) -> None:
    assert md4(text) == digest


def test_each_nt_hash_is_its_password_s() -> None:
    wrong = [w for w, digest in NT_HASH_OF.items() if md4(w.encode("utf-16-le")) != digest]
    assert wrong == []


def test_an_nt_hash_of_a_password_tried_first_is_no_secret_and_another_is() -> None:
    line = 'network={{\n    password_hex="hash:{}"\n}}\n'
    for word in NT_HASH_OF:
        assert scan_text(line.format(md4(word.encode("utf-16-le"))), kind=CODE) == [], word
    drawn = md4("a password drawn for a test, k3Qx9".encode("utf-16-le"))
    assert [f.rule for f in scan_text(line.format(drawn), kind=CODE)] == ["generic-secret"]
