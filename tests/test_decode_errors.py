"""Malformed input: every error is MsgpackDecodeError with "at byte offset N" in its message.

Truncation at every prefix, the reserved byte 0xc1, trailing bytes, empty input, invalid UTF-8,
huge declared lengths (must fail fast without allocating), and very deep nesting.
"""

from __future__ import annotations

import struct
import subprocess
import sys
import textwrap
import time
from typing import Any

import msgpack  # type: ignore[import-untyped]
import msgspec
import pytest
from conftest import assert_same, error_offset, oracle_packb

import fastmsgpack
from fastmsgpack import OPT_NON_STR_KEYS, Ext, MsgpackDecodeError


def decode_error(data: bytes | bytearray | memoryview, **kwargs: Any) -> MsgpackDecodeError:
    """Decode ``data``, which must fail; return the error after checking its offset."""
    with pytest.raises(MsgpackDecodeError) as info:
        fastmsgpack.unpackb(data, **kwargs)
    assert 0 <= error_offset(info.value) <= len(data), str(info.value)
    return info.value


def _parts() -> list[tuple[bytes, Any]]:
    """(encoding, decoded value) for one value of every format family and width."""
    ints = [1, -1, 200, 60000, 2**31, 2**40, 2**64 - 1, -100, -30000, -(2**31), -(2**40)]
    parts: list[tuple[bytes, Any]] = [(oracle_packb(v), v) for v in ints]
    parts += [(oracle_packb(v), v) for v in (None, True, False, 1.5, -0.0)]
    parts.append((b"\xca" + struct.pack(">f", 2.5), 2.5))
    for text in ("abc", "x" * 40, "\u00e9" * 200):
        parts.append((oracle_packb(text), text))
    parts.append((b"\xdb" + struct.pack(">I", 3) + b"xyz", "xyz"))
    for blob in (b"\x00\x01", bytes(300)):
        parts.append((oracle_packb(blob), blob))
    parts.append((b"\xc6" + struct.pack(">I", 2) + b"\xff\xfe", b"\xff\xfe"))
    parts.append((oracle_packb(list(range(20))), list(range(20))))
    parts.append((b"\xdd" + struct.pack(">I", 2) + b"\x01\xa1a", [1, "a"]))
    big_map = {f"key{i}": [i, {"n": None}] for i in range(17)}
    parts.append((oracle_packb(big_map), big_map))
    parts.append((b"\xdf" + struct.pack(">I", 1) + b"\xa1k\x90", {"k": []}))
    for tag, data in ((1, b"z"), (-1, b"\x00" * 8), (2, b"12345"), (3, bytes(300))):
        encoded = msgspec.msgpack.encode(msgspec.msgpack.Ext(tag, data))
        parts.append((encoded, Ext(tag, data)))
    parts.append((b"\xc9" + struct.pack(">Ib", 2, 4) + b"ab", Ext(4, b"ab")))
    return parts


PARTS = _parts()
DOCUMENT = b"\xdc" + struct.pack(">H", len(PARTS)) + b"".join(data for data, _ in PARTS)
DOCUMENT_VALUE = [value for _, value in PARTS]


def test_document_is_valid() -> None:
    assert_same(fastmsgpack.unpackb(DOCUMENT), DOCUMENT_VALUE)
    assert_same(fastmsgpack.unpackb(DOCUMENT, option=OPT_NON_STR_KEYS), DOCUMENT_VALUE)


@pytest.mark.parametrize("option", [None, OPT_NON_STR_KEYS], ids=["default", "non_str_keys"])
def test_every_prefix_of_the_document_is_truncated(option: int | None) -> None:
    for end in range(len(DOCUMENT)):
        decode_error(DOCUMENT[:end], option=option)
        decode_error(memoryview(DOCUMENT)[:end], option=option)


@pytest.mark.parametrize("index", range(len(PARTS)))
def test_every_prefix_of_each_value_is_truncated(index: int) -> None:
    data, value = PARTS[index]
    assert_same(fastmsgpack.unpackb(data), value)
    for end in range(len(data)):
        decode_error(data[:end])


@pytest.mark.parametrize("data", [b"", bytearray(), memoryview(b"")], ids=type)
def test_empty_input(data: bytes | bytearray | memoryview) -> None:
    assert error_offset(decode_error(data)) == 0


@pytest.mark.parametrize(
    ("data", "position"),
    [
        (b"\xc1", 0),
        (b"\x93\x01\x02\xc1", 3),
        (b"\x81\xc1\x01", 1),
        (b"\x81\xa1k\xc1", 3),
        (b"\x91\x91\x81\xa1k\x92\x01\xc1", 7),
        (b"\xc1\x01", 0),
    ],
)
def test_reserved_byte_c1(data: bytes, position: int) -> None:
    assert error_offset(decode_error(data)) == position
    assert error_offset(decode_error(data, option=OPT_NON_STR_KEYS)) == position


@pytest.mark.parametrize(
    ("valid", "extra"),
    [
        (b"\x01", b"\x02"),
        (b"\xc0", b"\xc0"),
        (b"\x90", b"\x90"),
        (b"\xa1a", b"\x00"),
        (DOCUMENT, b"\x00"),
        (DOCUMENT, DOCUMENT),
        (b"\x01", b"\xc1"),
    ],
    ids=["int", "nil", "array", "str", "document", "twice", "c1"],
)
def test_trailing_bytes(valid: bytes, extra: bytes) -> None:
    fastmsgpack.unpackb(valid)
    assert error_offset(decode_error(valid + extra)) == len(valid)


INVALID_UTF8 = [
    b"\xff",
    b"\xc0\x80",  # overlong NUL
    b"\xe0\x80\xaf",  # overlong
    b"\xed\xa0\x80",  # encoded surrogate U+D800
    b"\xf4\x90\x80\x80",  # above U+10FFFF
    b"\xe2\x82",  # truncated sequence
    b"\x80",  # lone continuation byte
    b"abc\xfe",
    b"a" * 100 + b"\xe9" + b"a" * 100,  # latin-1, not UTF-8, far inside a long str
]


@pytest.mark.parametrize("raw", INVALID_UTF8, ids=lambda b: b[:8].hex())
def test_invalid_utf8(raw: bytes) -> None:
    encodings = [struct.pack(">BI", 0xDB, len(raw)) + raw, struct.pack(">BH", 0xDA, len(raw)) + raw]
    if len(raw) < 256:
        encodings.append(struct.pack(">BB", 0xD9, len(raw)) + raw)
    if len(raw) < 32:
        encodings.append(bytes([0xA0 | len(raw)]) + raw)
    for data in encodings:
        with pytest.raises(ValueError):
            msgpack.unpackb(data, raw=False)  # the oracle agrees the input is bad
        decode_error(data)
        decode_error(b"\x92\x01" + data)
        decode_error(b"\x81\xa1k" + data)
        decode_error(b"\x81" + data + b"\x01")  # as a map key
        decode_error(b"\x81" + data + b"\x01", option=OPT_NON_STR_KEYS)


HUGE_HEADERS = {
    "str8": b"\xd9\xff",
    "str16": b"\xda\xff\xff",
    "str32": b"\xdb\xff\xff\xff\xff",
    "bin8": b"\xc4\xff",
    "bin16": b"\xc5\xff\xff",
    "bin32": b"\xc6\xff\xff\xff\xff",
    "array16": b"\xdc\xff\xff",
    "array32": b"\xdd\xff\xff\xff\xff",
    "map16": b"\xde\xff\xff",
    "map32": b"\xdf\xff\xff\xff\xff",
    "ext8": b"\xc7\xff\x01",
    "ext16": b"\xc8\xff\xff\x01",
    "ext32": b"\xc9\xff\xff\xff\xff\x01",
}
TAILS = [b"", b"\x01\x02\x03", b"\xa1a\x01" * 20]


def _huge_inputs() -> list[bytes]:
    inputs = []
    for header in HUGE_HEADERS.values():
        for tail in TAILS:
            inputs += [header + tail, b"\x91" + header + tail, b"\x81\xa1k" + header + tail]
    return inputs


@pytest.mark.parametrize("name", HUGE_HEADERS)
@pytest.mark.parametrize("option", [None, OPT_NON_STR_KEYS], ids=["default", "non_str_keys"])
def test_huge_declared_length_fails_fast(name: str, option: int | None) -> None:
    header = HUGE_HEADERS[name]
    for tail in TAILS:
        for data in (header + tail, b"\x91" + header + tail, b"\x81\xa1k" + header + tail):
            start = time.perf_counter()
            decode_error(data, option=option)
            assert time.perf_counter() - start < 0.5, data.hex()


def test_huge_declared_lengths_allocate_nothing() -> None:
    """Run all huge-length inputs in a child process whose address space is capped."""
    child = textwrap.dedent(
        """
        import resource, sys
        import fastmsgpack
        inputs = [bytes.fromhex(h) for h in sys.stdin.read().split()]
        with open("/proc/self/statm") as f:
            size = int(f.read().split()[0]) * resource.getpagesize()
        soft, hard = resource.getrlimit(resource.RLIMIT_AS)
        resource.setrlimit(resource.RLIMIT_AS, (size + 256 * 2**20, hard))
        for _ in range(20):
            for data in inputs:
                try:
                    fastmsgpack.unpackb(data)
                except fastmsgpack.MsgpackDecodeError:
                    pass
                else:
                    sys.exit("accepted " + data.hex())
        print("ok", len(inputs))
        """
    )
    inputs = _huge_inputs()
    result = subprocess.run(
        [sys.executable, "-c", child],
        input=" ".join(data.hex() for data in inputs),
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert result.returncode == 0, result.stdout + result.stderr
    assert result.stdout.split() == ["ok", str(len(inputs))]


DEEP = 100_000


@pytest.mark.parametrize(
    ("data", "option"),
    [
        (b"\x91" * DEEP + b"\xc0", None),
        (b"\xdc\x00\x01" * DEEP + b"\xc0", None),
        (b"\x81\xa0" * DEEP + b"\xc0", None),
        (b"\x91\x81\xa0" * DEEP + b"\xc0", None),
        (b"\x91" * DEEP, None),  # deep and truncated
        (b"\x81" + b"\x91" * DEEP + b"\xc0\xc0", OPT_NON_STR_KEYS),  # deep array as a map key
        (b"\x81\x01" * DEEP + b"\xc0", OPT_NON_STR_KEYS),
    ],
    ids=["arrays", "array16s", "maps", "mixed", "truncated", "key-arrays", "int-key-maps"],
)
def test_very_deep_nesting(data: bytes, option: int | None) -> None:
    decode_error(data, option=option)
