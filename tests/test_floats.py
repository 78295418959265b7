"""Floats: always float64 on output, bit-exact (NaN payloads, infinities, -0.0); float32 input."""

from __future__ import annotations

import math
import struct
import sys

import pytest
from conftest import oracle_packb

import fastmsgpack


def bits(value: float) -> bytes:
    return struct.pack(">d", value)


def from_bits(hex_bits: str) -> float:
    value: float = struct.unpack(">d", bytes.fromhex(hex_bits))[0]
    return value


FLOATS = [
    0.0,
    -0.0,
    0.5,
    -0.5,
    1.0,
    0.1,
    -1.5,
    1e300,
    -1e-300,
    math.pi,
    math.inf,
    -math.inf,
    math.nan,
    -math.nan,
    sys.float_info.max,
    -sys.float_info.max,
    sys.float_info.min,
    5e-324,  # smallest subnormal
    2.0**53 + 2,
    float(2**64),
    from_bits("7ff8000000000001"),  # quiet NaN with a payload
    from_bits("fff0000000000f00"),  # negative NaN with a payload
]
FLOAT_IDS = [f"{v!r}-{bits(v).hex()}" for v in FLOATS]


@pytest.mark.parametrize("value", FLOATS, ids=FLOAT_IDS)
def test_pack_is_float64_bit_exact(value: float) -> None:
    packed = fastmsgpack.packb(value)
    assert packed == b"\xcb" + bits(value)
    assert packed == oracle_packb(value)


@pytest.mark.parametrize("value", FLOATS, ids=FLOAT_IDS)
def test_round_trip_bit_exact(value: float) -> None:
    result = fastmsgpack.unpackb(fastmsgpack.packb(value))
    assert type(result) is float
    assert bits(result) == bits(value)


def test_negative_zero_keeps_sign() -> None:
    result = fastmsgpack.unpackb(fastmsgpack.packb(-0.0))
    assert math.copysign(1.0, result) == -1.0
    assert math.copysign(1.0, fastmsgpack.unpackb(fastmsgpack.packb(0.0))) == 1.0


def test_float_never_packed_as_float32_or_int() -> None:
    for value in (0.5, 1.0, 0.0, 2.0, 1e10):
        packed = fastmsgpack.packb(value)
        assert packed[0] == 0xCB
        assert len(packed) == 9


FLOAT32_VALUES = [0.0, -0.0, 0.5, -2.25, 1.0e-45, 3.4028234663852886e38, math.inf, -math.inf, 0.1]


@pytest.mark.parametrize("value", FLOAT32_VALUES, ids=str)
def test_float32_decodes_to_python_float(value: float) -> None:
    payload = struct.pack(">f", value)
    expected: float = struct.unpack(">f", payload)[0]
    result = fastmsgpack.unpackb(b"\xca" + payload)
    assert type(result) is float
    assert bits(result) == bits(expected)


def test_float32_nan_decodes_to_nan_with_sign() -> None:
    for payload, sign in ((b"\x7f\xc0\x00\x00", 1.0), (b"\xff\xc0\x00\x00", -1.0)):
        result = fastmsgpack.unpackb(b"\xca" + payload)
        assert type(result) is float
        assert math.isnan(result)
        assert math.copysign(1.0, result) == sign


def test_float64_decodes_any_bits() -> None:
    for value in FLOATS:
        result = fastmsgpack.unpackb(b"\xcb" + bits(value))
        assert bits(result) == bits(value)


def test_floats_in_containers() -> None:
    finite = [v for v in FLOATS if not math.isnan(v)]
    doc = {"values": finite, "pairs": [[v, -v] for v in finite]}
    packed = fastmsgpack.packb(doc)
    assert packed == oracle_packb(doc)
    result = fastmsgpack.unpackb(packed)
    assert [bits(v) for v in result["values"]] == [bits(v) for v in finite]
    assert [bits(p[1]) for p in result["pairs"]] == [bits(-v) for v in finite]
