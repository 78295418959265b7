"""Integers: shortest encoding at every width boundary, decoding of every width, range errors."""

from __future__ import annotations

import struct

import msgpack  # type: ignore[import-untyped]
import orjson
import pytest
from conftest import INT_BOUNDARIES, INT_OUT_OF_RANGE, examples, oracle_packb
from hypothesis import given, settings
from hypothesis import strategies as st

import fastmsgpack
import fastmsgpack.json

# Every integer format: header byte and struct format of its payload.
INT_FORMATS = [
    (0xCC, ">B"),
    (0xCD, ">H"),
    (0xCE, ">I"),
    (0xCF, ">Q"),
    (0xD0, ">b"),
    (0xD1, ">h"),
    (0xD2, ">i"),
    (0xD3, ">q"),
]


def _fits(fmt: str, value: int) -> bool:
    try:
        struct.pack(fmt, value)
    except struct.error:
        return False
    return True


@pytest.mark.parametrize("value", INT_BOUNDARIES, ids=str)
def test_pack_matches_msgpack(value: int) -> None:
    assert fastmsgpack.packb(value) == oracle_packb(value)


@pytest.mark.parametrize("value", INT_BOUNDARIES, ids=str)
def test_round_trip(value: int) -> None:
    result = fastmsgpack.unpackb(fastmsgpack.packb(value))
    assert type(result) is int
    assert result == value


def test_every_value_between_boundaries_near_zero() -> None:
    for value in range(-300, 70000):
        packed = fastmsgpack.packb(value)
        assert packed == oracle_packb(value), value
        assert fastmsgpack.unpackb(packed) == value


def test_shortest_header_families() -> None:
    # Hand-checked header bytes at the edges of each format.
    assert fastmsgpack.packb(0) == b"\x00"
    assert fastmsgpack.packb(127) == b"\x7f"
    assert fastmsgpack.packb(128)[0] == 0xCC
    assert fastmsgpack.packb(256)[0] == 0xCD
    assert fastmsgpack.packb(65536)[0] == 0xCE
    assert fastmsgpack.packb(2**32)[0] == 0xCF
    assert fastmsgpack.packb(2**63)[0] == 0xCF
    assert fastmsgpack.packb(-1) == b"\xff"
    assert fastmsgpack.packb(-32) == b"\xe0"
    assert fastmsgpack.packb(-33)[0] == 0xD0
    assert fastmsgpack.packb(-129)[0] == 0xD1
    assert fastmsgpack.packb(-32769)[0] == 0xD2
    assert fastmsgpack.packb(-(2**31) - 1)[0] == 0xD3
    assert len(fastmsgpack.packb(2**64 - 1)) == 9
    assert len(fastmsgpack.packb(-(2**63))) == 9


@pytest.mark.parametrize("value", INT_BOUNDARIES, ids=str)
def test_decode_every_width_that_holds_the_value(value: int) -> None:
    widths = 0
    for head, fmt in INT_FORMATS:
        if _fits(fmt, value):
            widths += 1
            data = bytes([head]) + struct.pack(fmt, value)
            result = fastmsgpack.unpackb(data)
            assert type(result) is int
            assert result == value, data.hex()
    assert widths >= 1


def test_fixint_ranges_decode() -> None:
    for byte in range(0x80):
        assert fastmsgpack.unpackb(bytes([byte])) == byte
    for byte in range(0xE0, 0x100):
        assert fastmsgpack.unpackb(bytes([byte])) == byte - 256


def test_high_bit_sign_handling() -> None:
    all_ones = b"\xff" * 8
    assert fastmsgpack.unpackb(b"\xcf" + all_ones) == 2**64 - 1
    assert fastmsgpack.unpackb(b"\xd3" + all_ones) == -1
    assert fastmsgpack.unpackb(b"\xce" + all_ones[:4]) == 2**32 - 1
    assert fastmsgpack.unpackb(b"\xd2" + all_ones[:4]) == -1
    assert fastmsgpack.unpackb(b"\xcd\x80\x00") == 32768
    assert fastmsgpack.unpackb(b"\xd1\x80\x00") == -32768
    assert fastmsgpack.unpackb(b"\xcc\x80") == 128
    assert fastmsgpack.unpackb(b"\xd0\x80") == -128


@pytest.mark.parametrize("value", INT_OUT_OF_RANGE, ids=str)
def test_out_of_range_is_encode_error(value: int) -> None:
    with pytest.raises(OverflowError):
        msgpack.packb(value)  # the oracle refuses it too
    with pytest.raises(fastmsgpack.MsgpackEncodeError):
        fastmsgpack.packb(value)
    with pytest.raises(fastmsgpack.MsgpackEncodeError):
        fastmsgpack.packb([1, {"k": value}])


def test_bool_is_not_int() -> None:
    assert fastmsgpack.packb(True) == b"\xc3"
    assert fastmsgpack.packb(False) == b"\xc2"
    assert fastmsgpack.unpackb(b"\xc3") is True
    assert fastmsgpack.unpackb(b"\xc2") is False
    assert type(fastmsgpack.unpackb(b"\x01")) is int
    assert type(fastmsgpack.unpackb(b"\x00")) is int


def test_ints_in_containers() -> None:
    doc = {"ints": INT_BOUNDARIES, "nested": [[v] for v in INT_BOUNDARIES]}
    packed = fastmsgpack.packb(doc)
    assert packed == oracle_packb(doc)
    assert fastmsgpack.unpackb(packed) == doc


def _digit_edges() -> list[int]:
    """Ints around CPython's 30-bit digit edges (one, two and three digits), both signs."""
    values = []
    for bits in (29, 30, 31, 59, 60, 61, 62, 63):
        for edge in (2**bits - 1, 2**bits, 2**bits + 1):
            values += [edge, -edge]
    values += [-(2**63), 2**64 - 1, 0, -1]
    return [v for v in values if -(2**63) <= v < 2**64]


@pytest.mark.parametrize("value", _digit_edges(), ids=str)
def test_internal_digit_edges_pack_like_msgpack(value: int) -> None:
    assert fastmsgpack.packb(value) == oracle_packb(value)
    assert fastmsgpack.packb([value, {"k": value}]) == oracle_packb([value, {"k": value}])


@pytest.mark.parametrize("value", _digit_edges(), ids=str)
def test_internal_digit_edges_as_json_like_orjson(value: int) -> None:

    doc = [value, {"k": value}]
    assert fastmsgpack.json.dumps(doc) == orjson.dumps(doc)
    keyed = {value: value}
    assert fastmsgpack.json.dumps(keyed, option=fastmsgpack.OPT_NON_STR_KEYS) == orjson.dumps(
        keyed, option=orjson.OPT_NON_STR_KEYS
    )


def test_json_integer_text_at_every_length() -> None:

    values = []
    for digits in range(1, 21):
        low = 10 ** (digits - 1)
        values += [low, low + 1, 10**digits - 1, 5 * low + 3]
    values = [v for v in values if v < 2**64]
    values += [-v for v in values if v <= 2**63]
    assert fastmsgpack.json.dumps(values) == orjson.dumps(values)
    assert [int(t) for t in fastmsgpack.json.dumps(values)[1:-1].split(b",")] == values


class IntSubclass(int):
    pass


# Where an int's internal representation gains a 30-bit digit, and where 64 bits end.
DIGIT_EDGES = [
    sign * (2**bits + delta)
    for bits in (30, 60, 62, 63, 64, 90)
    for delta in (-1, 0, 1)
    for sign in (1, -1)
]


def _packs_or_refuses(value: int) -> None:
    in_range = -(2**63) <= value < 2**64
    for obj in (value, IntSubclass(value), [value], {"k": value}):
        if in_range:
            assert fastmsgpack.packb(obj) == oracle_packb(obj)
        else:
            with pytest.raises(fastmsgpack.MsgpackEncodeError):
                fastmsgpack.packb(obj)
    key = {value: 1}
    if in_range:
        packed = fastmsgpack.packb(key, option=fastmsgpack.OPT_NON_STR_KEYS)
        assert packed == oracle_packb(key)
        assert fastmsgpack.json.dumps(value) == orjson.dumps(value)
    else:
        with pytest.raises(fastmsgpack.MsgpackEncodeError):
            fastmsgpack.packb(key, option=fastmsgpack.OPT_NON_STR_KEYS)


@pytest.mark.parametrize("value", DIGIT_EDGES, ids=str)
def test_ints_around_digit_and_64_bit_edges(value: int) -> None:
    _packs_or_refuses(value)


@settings(max_examples=examples(500))
@given(st.integers(min_value=-(2**66), max_value=2**66))
def test_any_int_near_64_bits_packs_or_is_refused(value: int) -> None:
    _packs_or_refuses(value)
