"""bytes, bytearray and memoryview: bin8/16/32 at every length boundary; decoding gives bytes."""

from __future__ import annotations

import struct
from collections.abc import Callable

import pytest
from conftest import BYTE_LENGTHS, oracle_packb

import fastmsgpack

BytesLike = bytes | bytearray | memoryview
MAKERS: dict[str, Callable[[bytes], BytesLike]] = {
    "bytes": bytes,
    "bytearray": bytearray,
    "memoryview": memoryview,
    "memoryview-bytearray": lambda b: memoryview(bytearray(b)),
    "memoryview-slice": lambda b: memoryview(b"<" + b + b">")[1:-1],
}


def payload(length: int) -> bytes:
    return bytes(i % 251 for i in range(length))


@pytest.mark.parametrize("length", BYTE_LENGTHS)
@pytest.mark.parametrize("kind", MAKERS)
def test_pack_matches_msgpack(length: int, kind: str) -> None:
    data = payload(length)
    value = MAKERS[kind](data)
    assert fastmsgpack.packb(value) == oracle_packb(data)
    assert fastmsgpack.packb(value) == oracle_packb(value)


@pytest.mark.parametrize("length", BYTE_LENGTHS)
@pytest.mark.parametrize("kind", MAKERS)
def test_round_trip_gives_bytes(length: int, kind: str) -> None:
    data = payload(length)
    result = fastmsgpack.unpackb(fastmsgpack.packb(MAKERS[kind](data)))
    assert type(result) is bytes
    assert result == data


@pytest.mark.parametrize(
    ("length", "header"),
    [(0, 0xC4), (31, 0xC4), (32, 0xC4), (255, 0xC4), (256, 0xC5), (65535, 0xC5), (65536, 0xC6)],
)
def test_header_by_length(length: int, header: int) -> None:
    assert fastmsgpack.packb(payload(length))[0] == header


@pytest.mark.parametrize("length", [0, 1, 2, 255, 256])
def test_decode_every_bin_width(length: int) -> None:
    data = payload(length)
    encodings = [
        struct.pack(">BI", 0xC6, length) + data,
        struct.pack(">BH", 0xC5, length) + data,
    ]
    if length < 256:
        encodings.append(struct.pack(">BB", 0xC4, length) + data)
    for encoded in encodings:
        result = fastmsgpack.unpackb(encoded)
        assert type(result) is bytes
        assert result == data


def test_bytes_is_not_str() -> None:
    assert fastmsgpack.packb(b"abc") != fastmsgpack.packb("abc")
    assert fastmsgpack.unpackb(fastmsgpack.packb(b"abc")) == b"abc"
    assert fastmsgpack.unpackb(fastmsgpack.packb("abc")) == "abc"


def test_non_utf8_bytes_are_fine() -> None:
    data = b"\xff\xfe\xc1\xc0\x00\xed\xa0\x80"
    assert fastmsgpack.unpackb(fastmsgpack.packb(data)) == data


def test_bin_in_containers() -> None:
    doc = {"b": [payload(n) for n in (0, 1, 300)], "ba": bytearray(b"xyz")}
    packed = fastmsgpack.packb(doc)
    assert packed == oracle_packb(doc)
    assert fastmsgpack.unpackb(packed) == {"b": [payload(n) for n in (0, 1, 300)], "ba": b"xyz"}


def test_packing_does_not_keep_a_view_of_mutable_input() -> None:
    buf = bytearray(b"before")
    packed = fastmsgpack.packb(buf)
    buf[:] = b"AFTER!"
    assert fastmsgpack.unpackb(packed) == b"before"


def test_packing_a_view_releases_its_export() -> None:
    # While a bytearray is exported it cannot be resized: packing a view of it must not keep
    # the export, whether the view packs alone, in a list, or as one of many, nor when it is
    # refused (bytes have no JSON form).
    buf = bytearray(b"abc")
    view = memoryview(buf)
    for obj in (view, [view], [view] * 1000, {"v": view}):
        fastmsgpack.packb(obj)
        with pytest.raises(fastmsgpack.MsgpackEncodeError, match="no JSON form"):
            fastmsgpack.packb(obj, option=fastmsgpack.OPT_JSON_COMPAT)
    view.release()
    buf.extend(b"def")
    assert buf == bytearray(b"abcdef")


@pytest.mark.parametrize(
    "view",
    [memoryview(b"a-b-c-")[::2], memoryview(bytearray(range(10)))[1::3], memoryview(b"ab")[::-1]],
    ids=["strided", "strided-bytearray", "reversed"],
)
def test_non_contiguous_view_is_an_encode_error(view: memoryview) -> None:
    with pytest.raises(fastmsgpack.MsgpackEncodeError, match="not C-contiguous") as info:
        fastmsgpack.packb([1, view])
    assert isinstance(info.value.__cause__, BufferError)


def test_released_view_is_an_encode_error() -> None:
    view = memoryview(b"abc")
    view.release()
    with pytest.raises(fastmsgpack.MsgpackEncodeError) as info:
        fastmsgpack.packb(view)
    assert isinstance(info.value.__cause__, ValueError)
    assert "released" in str(info.value.__cause__)


def test_view_of_many_dimensions_packs_its_bytes_in_order() -> None:
    view = memoryview(bytearray(range(12))).cast("B", (3, 4))
    assert fastmsgpack.unpackb(fastmsgpack.packb(view)) == bytes(range(12))
    empty = memoryview(b"")
    assert fastmsgpack.packb(empty) == b"\xc4\x00"
