"""Strings, keys, binaries and float pairs of every short length, byte for byte against
msgpack-python: the writer copies up to 32 bytes with fixed-size moves by size class, and writes a
string under 32 bytes, and a pair of floats, with one check of the room left."""

from __future__ import annotations

import math
import struct

import msgpack  # type: ignore[import-untyped]
import pytest

import fastmsgpack

LENGTHS = range(70)


def reference(obj: object) -> bytes:
    packed: bytes = msgpack.packb(obj, use_bin_type=True)
    return packed


@pytest.mark.parametrize("n", LENGTHS)
def test_str_of_each_length(n: int) -> None:
    text = "".join(chr(ord("a") + i % 26) for i in range(n))
    assert fastmsgpack.packb(text) == reference(text)
    # Non-ASCII text takes the other path to its UTF-8.
    wide = "é" * n
    assert fastmsgpack.packb(wide) == reference(wide)


@pytest.mark.parametrize("n", LENGTHS)
def test_keys_and_values_of_each_length_in_sequence(n: int) -> None:
    # Many short writes one after another: each must start where the last one ended.
    obj = {f"{i:0{n}d}" if n else f"k{i}": "x" * ((n + i) % 40) for i in range(50)}
    assert fastmsgpack.packb(obj) == reference(obj)
    assert fastmsgpack.unpackb(fastmsgpack.packb(obj)) == obj


@pytest.mark.parametrize("n", LENGTHS)
def test_bin_of_each_length(n: int) -> None:
    data = bytes(range(n))
    assert fastmsgpack.packb(data) == reference(data)
    assert fastmsgpack.packb([data, data[::-1]]) == reference([data, data[::-1]])


SPECIAL = [0.0, -0.0, 1.5, -2.25, math.inf, -math.inf, 1e308, 5e-324, math.pi]


@pytest.mark.parametrize("a", SPECIAL)
def test_float_pairs(a: float) -> None:
    pairs = [[a, b] for b in SPECIAL]
    assert fastmsgpack.packb(pairs) == reference(pairs)
    nested = {"points": pairs, "tail": "t"}
    assert fastmsgpack.packb(nested) == reference(nested)


def test_float_pair_nan_bits_kept() -> None:
    nan = struct.unpack(">d", bytes.fromhex("7ff8000000000123"))[0]
    packed = fastmsgpack.packb([nan, -nan])
    assert packed == b"\x92\xcb" + bytes.fromhex("7ff8000000000123") + b"\xcb" + bytes.fromhex(
        "fff8000000000123"
    )


def test_float_pairs_across_the_first_buffer() -> None:
    # Outputs that outgrow the first buffer in the middle of a pair, at every offset.
    for pad in range(40):
        obj = ["p" * pad, *([[float(i), -float(i)] for i in range(200)])]
        assert fastmsgpack.packb(obj) == reference(obj)
