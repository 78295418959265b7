"""msgpack-c data files (see DATA/msgpack-c/README.md).

cases.mpac and cases_compact.mpac are streams of 51 values with no outer array. fastmsgpack has
no streaming API, so split_stream() cuts a stream into one byte slice per value by walking the
MessagePack headers, and each slice is decoded with unpackb.
"""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any

import msgpack  # type: ignore[import-untyped]
import pytest
from conftest import DATA, assert_same, oracle_packb

import fastmsgpack

MSGPACK_C = DATA / "msgpack-c"
SEED_CORPUS = MSGPACK_C / "fuzz" / "unpack_pack_fuzzer_seed_corpus"
REGRESSIONS = MSGPACK_C / "fuzz" / "unpack_pack_fuzzer_regressions"

# The list in msgpack-c/README.md (JSON there: false/true/null, "a", {"a": 97}).
EXPECTED: list[Any] = [
    *[False, True, None],
    *[0] * 9,
    *[-1] * 5,
    *[127, 127, 255, 65535, 4294967295, -32, -32, -128, -32768, -2147483648],
    *[0.0, -0.0, 1.0, -1.0],
    *["a", "a", "a", "", "", ""],
    *[[0], [0], [0], [], [], []],
    *[{}, {}, {}, {"a": 97}, {"a": 97}, {"a": 97}],
    *[[[]], [["a"]]],
]

# Header byte -> size of the length field that follows it (str/bin/ext/array/map), or of the
# fixed-size payload (numbers). Ext payloads carry one extra type byte.
_LENGTH_FIELD = {0xC4: 1, 0xC5: 2, 0xC6: 4, 0xD9: 1, 0xDA: 2, 0xDB: 4}
_EXT_LENGTH_FIELD = {0xC7: 1, 0xC8: 2, 0xC9: 4}
_FIXED_PAYLOAD = dict.fromkeys((0xC0, 0xC2, 0xC3), 0)  # nil, false, true
_FIXED_PAYLOAD |= {0xCA: 4, 0xCB: 8}  # float32, float64
_FIXED_PAYLOAD |= {0xCC: 1, 0xCD: 2, 0xCE: 4, 0xCF: 8, 0xD0: 1, 0xD1: 2, 0xD2: 4, 0xD3: 8}
_FIXED_PAYLOAD |= {0xD4: 2, 0xD5: 3, 0xD6: 5, 0xD7: 9, 0xD8: 17}  # fixext: type + 1/2/4/8/16
_COUNT_FIELD = {0xDC: (2, 1), 0xDD: (4, 1), 0xDE: (2, 2), 0xDF: (4, 2)}  # size, items per entry


def _read_uint(data: bytes, pos: int, size: int) -> int:
    if pos + size > len(data):
        raise ValueError(f"truncated length field at {pos}")
    return int.from_bytes(data[pos : pos + size], "big")


def skip_value(data: bytes, pos: int) -> int:
    """Return the offset just past the one MessagePack value that starts at ``pos``.

    Iterative: ``pending`` counts the values still to skip (containers add their items).
    """
    pending = 1
    while pending:
        if pos >= len(data):
            raise ValueError("truncated stream")
        head = data[pos]
        pos += 1
        pending -= 1
        if head <= 0x7F or head >= 0xE0:
            continue
        if head <= 0x8F:
            pending += 2 * (head & 0x0F)
        elif head <= 0x9F:
            pending += head & 0x0F
        elif head <= 0xBF:
            pos += head & 0x1F
        elif head in _FIXED_PAYLOAD:
            pos += _FIXED_PAYLOAD[head]
        elif head in _LENGTH_FIELD:
            size = _LENGTH_FIELD[head]
            pos += size + _read_uint(data, pos, size)
        elif head in _EXT_LENGTH_FIELD:
            size = _EXT_LENGTH_FIELD[head]
            pos += size + 1 + _read_uint(data, pos, size)
        elif head in _COUNT_FIELD:
            size, per_entry = _COUNT_FIELD[head]
            pending += per_entry * _read_uint(data, pos, size)
            pos += size
        else:
            raise ValueError(f"invalid header byte 0x{head:02x} at {pos - 1}")
    if pos > len(data):
        raise ValueError("truncated stream")
    return pos


def split_stream(data: bytes) -> list[bytes]:
    """Cut a stream of concatenated MessagePack values into one slice per value."""
    slices = []
    pos = 0
    while pos < len(data):
        end = skip_value(data, pos)
        slices.append(data[pos:end])
        pos = end
    return slices


def test_split_stream_agrees_with_msgpack_unpacker() -> None:
    for name in ("cases.mpac", "cases_compact.mpac"):
        data = (MSGPACK_C / name).read_bytes()
        unpacker = msgpack.Unpacker(raw=False)
        unpacker.feed(data)
        ends = []
        for _ in unpacker:
            ends.append(unpacker.tell())
        slices = split_stream(data)
        assert [len(s) for s in slices] == [b - a for a, b in zip([0, *ends], ends)]
        assert b"".join(slices) == data
    with pytest.raises(ValueError):
        split_stream(b"\x92\x01")
    with pytest.raises(ValueError):
        split_stream(b"\xda\x00\x05abc")


def decode_stream(name: str) -> list[Any]:
    data = (MSGPACK_C / name).read_bytes()
    slices = split_stream(data)
    assert len(slices) == 51
    return [fastmsgpack.unpackb(piece) for piece in slices]


@pytest.mark.parametrize("name", ["cases.mpac", "cases_compact.mpac"])
def test_cases_decode_to_the_documented_list(name: str) -> None:
    values = decode_stream(name)
    assert_same(values, EXPECTED)
    assert math.copysign(1.0, values[28]) == -1.0
    assert math.copysign(1.0, values[27]) == 1.0


def test_both_files_decode_to_equal_values() -> None:
    assert_same(decode_stream("cases.mpac"), decode_stream("cases_compact.mpac"))


def test_wide_file_uses_non_minimal_encodings() -> None:
    wide = split_stream((MSGPACK_C / "cases.mpac").read_bytes())
    compact = split_stream((MSGPACK_C / "cases_compact.mpac").read_bytes())
    assert sum(map(len, wide)) > sum(map(len, compact))
    assert sum(a != b for a, b in zip(wide, compact)) > 20


def test_packb_reproduces_the_compact_file() -> None:
    compact = split_stream((MSGPACK_C / "cases_compact.mpac").read_bytes())
    for value, piece in zip(EXPECTED, compact):
        assert fastmsgpack.packb(value) == piece, value


SEED_FILES = sorted(SEED_CORPUS.iterdir())


def test_seed_corpus_is_complete() -> None:
    assert [p.name for p in SEED_FILES] == [
        "EmptyArray",
        "EmptyObject",
        "ExcessiveNesting",
        "OpenWeatherMap",
        "WeatherUnderground",
    ]


@pytest.mark.parametrize("path", SEED_FILES, ids=lambda p: p.name)
def test_seed_corpus_decodes_like_msgpack(path: Path) -> None:
    data = path.read_bytes()
    expected = msgpack.unpackb(data, raw=False)
    result = fastmsgpack.unpackb(data)
    assert_same(result, expected)
    assert fastmsgpack.packb(result) == oracle_packb(expected)


def test_excessive_nesting_seed_is_120_deep() -> None:
    value = fastmsgpack.unpackb((SEED_CORPUS / "ExcessiveNesting").read_bytes())
    depth = 0
    while True:
        depth += 1
        assert value[0] == depth
        if len(value) == 1:
            break
        value = value[1]
    assert depth == 120


REGRESSION_FILES = sorted(REGRESSIONS.iterdir())


def test_regression_count() -> None:
    assert len(REGRESSION_FILES) == 2


@pytest.mark.parametrize("path", REGRESSION_FILES, ids=lambda p: p.name[-16:])
@pytest.mark.parametrize("option", [None, fastmsgpack.OPT_NON_STR_KEYS], ids=["default", "nonstr"])
def test_fuzz_regressions_raise_decode_error(path: Path, option: int | None) -> None:
    data = path.read_bytes()
    with pytest.raises(fastmsgpack.MsgpackDecodeError):
        fastmsgpack.unpackb(data, option=option)
