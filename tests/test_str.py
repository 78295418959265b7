"""str: UTF-8 fixstr/str8/16/32 at every byte-length boundary, non-ASCII, lone surrogates."""

from __future__ import annotations

import struct
import sys
from typing import Any

import pytest
from conftest import BYTE_LENGTHS, oracle_packb

import fastmsgpack

# Code units of 1, 2, 3 and 4 UTF-8 bytes.
UNITS = ["a", "\u00e9", "\u20ac", "\U0001f37a"]


def text_with_utf8_length(length: int, unit: str) -> str:
    """A str whose UTF-8 encoding is exactly ``length`` bytes, made mostly of ``unit``."""
    width = len(unit.encode("utf-8"))
    text = unit * (length // width) + "a" * (length % width)
    assert len(text.encode("utf-8")) == length
    return text


STR_CASES = [(n, unit) for n in BYTE_LENGTHS for unit in UNITS]
STR_IDS = [f"{n}-{len(u.encode())}byte" for n, u in STR_CASES]


@pytest.mark.parametrize(("length", "unit"), STR_CASES, ids=STR_IDS)
def test_pack_matches_msgpack(length: int, unit: str) -> None:
    text = text_with_utf8_length(length, unit)
    assert fastmsgpack.packb(text) == oracle_packb(text)


@pytest.mark.parametrize(("length", "unit"), STR_CASES, ids=STR_IDS)
def test_round_trip(length: int, unit: str) -> None:
    text = text_with_utf8_length(length, unit)
    result = fastmsgpack.unpackb(fastmsgpack.packb(text))
    assert type(result) is str
    assert result == text


@pytest.mark.parametrize(
    ("length", "header"),
    [(0, 0xA0), (31, 0xBF), (32, 0xD9), (255, 0xD9), (256, 0xDA), (65535, 0xDA), (65536, 0xDB)],
)
def test_header_chosen_by_utf8_byte_length(length: int, header: int) -> None:
    for unit in UNITS:
        assert fastmsgpack.packb(text_with_utf8_length(length, unit))[0] == header


SAMPLES = [
    "",
    "\x00",
    "nul\x00inside",
    "\x7f",
    "\x80",
    "\u07ff",
    "\u0800",
    "\ufeff",
    "\uffff",
    "\U00010000",
    "\U0010ffff",
    "\u041a\u0438\u0440\u0438\u043b\u043b\u0438\u0446\u0430",
    "\u3072\u3089\u304c\u306a",
    "mixed \u00e9\u20ac\U0001f37a text",
]


@pytest.mark.parametrize("text", SAMPLES, ids=ascii)
def test_non_ascii_samples(text: str) -> None:
    packed = fastmsgpack.packb(text)
    assert packed == oracle_packb(text)
    assert fastmsgpack.unpackb(packed) == text


@pytest.mark.parametrize("text", SAMPLES, ids=ascii)
def test_decode_every_str_width(text: str) -> None:
    raw = text.encode("utf-8")
    encodings = [
        struct.pack(">BB", 0xD9, len(raw)) + raw,
        struct.pack(">BH", 0xDA, len(raw)) + raw,
        struct.pack(">BI", 0xDB, len(raw)) + raw,
    ]
    if len(raw) < 32:
        encodings.append(bytes([0xA0 | len(raw)]) + raw)
    for data in encodings:
        result = fastmsgpack.unpackb(data)
        assert type(result) is str
        assert result == text


def test_long_text_with_non_ascii_far_inside() -> None:
    for position in (0, 15, 16, 31, 32, 63, 64, 1000, 1999):
        text = "a" * position + "\u00e9\U0001f37a" + "b" * (2000 - position)
        packed = fastmsgpack.packb(text)
        assert packed == oracle_packb(text)
        assert fastmsgpack.unpackb(packed) == text


LONE_SURROGATES = ["\ud800", "\udfff", "a\udc80b", "\ud83c", "x" * 40 + "\udbff"]


@pytest.mark.parametrize("text", LONE_SURROGATES, ids=ascii)
@pytest.mark.parametrize(
    "wrap",
    [lambda s: s, lambda s: [1, s], lambda s: {"k": s}, lambda s: {s: 1}],
    ids=["top", "in-list", "dict-value", "dict-key"],
)
def test_lone_surrogate_is_encode_error(text: str, wrap: Any) -> None:
    with pytest.raises(fastmsgpack.MsgpackEncodeError):
        fastmsgpack.packb(wrap(text))


@pytest.mark.parametrize(
    ("text", "replaced"),
    [
        ("\ud800", "?"),
        ("a\ud800b\udfffc", "a?b?c"),
        ("\udc00\ud800", "??"),  # reversed order: two lone surrogates
        ("\u00e9\udcff\U0001f37a", "\u00e9?\U0001f37a"),
        ("x" * 40 + "\udbff", "x" * 40 + "?"),
        ("no surrogates \u20ac", "no surrogates \u20ac"),
    ],
    ids=ascii,
)
def test_replace_surrogates(text: str, replaced: str) -> None:
    option = fastmsgpack.OPT_REPLACE_SURROGATES
    assert fastmsgpack.packb(text, option=option) == oracle_packb(replaced)
    doc = {text: [text, {"inner": text}]}
    expected = {replaced: [replaced, {"inner": replaced}]}
    assert fastmsgpack.packb(doc, option=option) == oracle_packb(expected)


def test_repeated_strings_decode_equal() -> None:
    doc = ["same", "same", {"same": "same"}]
    result = fastmsgpack.unpackb(fastmsgpack.packb(doc))
    assert result == doc
    assert all(type(s) is str for s in (result[0], result[1], *result[2], *result[2].values()))


def test_every_single_ascii_character_decodes_to_itself() -> None:
    # One-character strings are CPython's cached ones: equal, exact str, and not leaked.
    chars = [chr(c) for c in range(128)]
    packed = fastmsgpack.packb([chars, {c: c for c in chars}, ["", "é", "ab"]])
    fastmsgpack.unpackb(packed)  # the decoder's key cache now holds the keys it keeps
    before = [sys.getrefcount(c) for c in chars]
    for _ in range(50):
        decoded = fastmsgpack.unpackb(packed)
        assert decoded == [chars, {c: c for c in chars}, ["", "é", "ab"]]
        assert all(type(c) is str and len(c) == 1 for c in decoded[0])
    del decoded
    assert [sys.getrefcount(c) for c in chars] == before
