"""Ext: fixext/ext8/16/32 at every length boundary, signed tags, ext_hook and its errors."""

from __future__ import annotations

import struct
from typing import Any

import msgpack  # type: ignore[import-untyped]
import msgspec
import pytest
from conftest import assert_same

import fastmsgpack
from fastmsgpack import Ext, MsgpackDecodeError

EXT_LENGTHS = [0, 1, 2, 3, 4, 5, 7, 8, 9, 15, 16, 17, 255, 256, 65535, 65536]
TAGS = [-128, -1, 0, 1, 127]
FIXEXT_HEADERS = {1: 0xD4, 2: 0xD5, 4: 0xD6, 8: 0xD7, 16: 0xD8}


def payload(length: int) -> bytes:
    return bytes((i * 7) % 256 for i in range(length))


def oracle_ext(tag: int, data: bytes) -> bytes:
    """msgspec encodes ext types with any tag in -128..127 (msgpack-python only 0..127)."""
    return msgspec.msgpack.encode(msgspec.msgpack.Ext(tag, data))


@pytest.mark.parametrize("length", EXT_LENGTHS)
@pytest.mark.parametrize("tag", TAGS)
def test_pack_matches_oracle(tag: int, length: int) -> None:
    data = payload(length)
    packed = fastmsgpack.packb(Ext(tag, data))
    assert packed == oracle_ext(tag, data)
    if tag >= 0:
        assert packed == msgpack.packb(msgpack.ExtType(tag, data))


@pytest.mark.parametrize("length", EXT_LENGTHS)
def test_header_by_length(length: int) -> None:
    packed = fastmsgpack.packb(Ext(3, payload(length)))
    if length in FIXEXT_HEADERS:
        expected_header = bytes([FIXEXT_HEADERS[length], 3])
    elif length < 256:
        expected_header = struct.pack(">BBb", 0xC7, length, 3)
    elif length < 65536:
        expected_header = struct.pack(">BHb", 0xC8, length, 3)
    else:
        expected_header = struct.pack(">BIb", 0xC9, length, 3)
    assert packed == expected_header + payload(length)


@pytest.mark.parametrize("length", EXT_LENGTHS)
@pytest.mark.parametrize("tag", TAGS)
def test_round_trip(tag: int, length: int) -> None:
    result = fastmsgpack.unpackb(fastmsgpack.packb(Ext(tag, payload(length))))
    assert type(result) is Ext
    assert result.tag == tag
    assert type(result.data) is bytes
    assert result.data == payload(length)


@pytest.mark.parametrize("length", [0, 1, 2, 4, 8, 16, 17, 300])
@pytest.mark.parametrize("tag", TAGS)
def test_decode_every_ext_width(tag: int, length: int) -> None:
    data = payload(length)
    encodings = [
        struct.pack(">BHb", 0xC8, length, tag) + data,
        struct.pack(">BIb", 0xC9, length, tag) + data,
    ]
    if length < 256:
        encodings.append(struct.pack(">BBb", 0xC7, length, tag) + data)
    if length in FIXEXT_HEADERS:
        encodings.append(struct.pack(">Bb", FIXEXT_HEADERS[length], tag) + data)
    for encoded in encodings:
        assert_same(fastmsgpack.unpackb(encoded), Ext(tag, data))


def test_tag_byte_is_signed() -> None:
    assert fastmsgpack.unpackb(b"\xd4\xff\x00") == Ext(-1, b"\x00")
    assert fastmsgpack.unpackb(b"\xd4\x80\x00") == Ext(-128, b"\x00")
    assert fastmsgpack.unpackb(b"\xd4\x7f\x00") == Ext(127, b"\x00")


def test_timestamp_is_plain_ext() -> None:
    for stamp in (msgpack.Timestamp(1, 0), msgpack.Timestamp(1, 2), msgpack.Timestamp(2**34, 5)):
        encoded = msgpack.packb(stamp)
        result = fastmsgpack.unpackb(encoded)
        assert_same(result, Ext(-1, stamp.to_bytes()))
        assert fastmsgpack.packb(result) == encoded


def test_ext_in_containers() -> None:
    doc = {"a": [Ext(1, b"x"), Ext(-2, b"")], "b": Ext(127, payload(300))}
    packed = fastmsgpack.packb(doc)
    expected = msgspec.msgpack.encode(
        {
            "a": [msgspec.msgpack.Ext(1, b"x"), msgspec.msgpack.Ext(-2, b"")],
            "b": msgspec.msgpack.Ext(127, payload(300)),
        }
    )
    assert packed == expected
    assert_same(fastmsgpack.unpackb(packed), doc)


# --- ext_hook ---------------------------------------------------------------------------------


def test_ext_hook_receives_tag_and_bytes() -> None:
    calls: list[tuple[Any, Any]] = []

    def hook(tag: int, data: bytes) -> Any:
        calls.append((tag, data))
        return ("hooked", tag, data)

    doc = [Ext(5, b"abc"), {"k": Ext(-7, b"")}, Ext(0, payload(70000))]
    result = fastmsgpack.unpackb(fastmsgpack.packb(doc), ext_hook=hook)
    assert result == [
        ("hooked", 5, b"abc"),
        {"k": ("hooked", -7, b"")},
        ("hooked", 0, payload(70000)),
    ]
    assert [tag for tag, _ in calls] == [5, -7, 0]
    assert all(type(tag) is int and type(data) is bytes for tag, data in calls)


def test_ext_hook_result_can_be_anything() -> None:
    packed = fastmsgpack.packb([Ext(1, b"a"), Ext(2, b"b")])
    assert fastmsgpack.unpackb(packed, ext_hook=lambda tag, data: None) == [None, None]
    assert fastmsgpack.unpackb(packed, ext_hook=lambda tag, data: [tag]) == [[1], [2]]


def test_ext_hook_not_called_without_ext() -> None:
    def hook(tag: int, data: bytes) -> Any:
        raise AssertionError("must not be called")

    doc = {"a": [1, "b", b"c", 1.5, None]}
    assert fastmsgpack.unpackb(fastmsgpack.packb(doc), ext_hook=hook) == doc


def test_ext_hook_none_gives_ext() -> None:
    assert fastmsgpack.unpackb(b"\xd4\x01\x02", ext_hook=None) == Ext(1, b"\x02")


@pytest.mark.parametrize("error", [ValueError("v"), TypeError("t"), ZeroDivisionError()], ids=repr)
def test_exception_in_ext_hook_is_chained(error: Exception) -> None:
    def hook(tag: int, data: bytes) -> Any:
        raise error

    packed = fastmsgpack.packb({"a": [1, 2, Ext(9, b"z")]})
    with pytest.raises(MsgpackDecodeError) as info:
        fastmsgpack.unpackb(packed, ext_hook=hook)
    assert info.value.__cause__ is error


def test_ext_hook_failing_after_some_calls() -> None:
    seen: list[int] = []

    def hook(tag: int, data: bytes) -> Any:
        seen.append(tag)
        if tag == 3:
            raise RuntimeError("third")
        return tag

    packed = fastmsgpack.packb([Ext(1, b""), Ext(2, b""), Ext(3, b""), Ext(4, b"")])
    with pytest.raises(MsgpackDecodeError) as info:
        fastmsgpack.unpackb(packed, ext_hook=hook)
    assert isinstance(info.value.__cause__, RuntimeError)
    assert seen == [1, 2, 3]


@pytest.mark.parametrize(
    "wrap", [bytearray, lambda b: memoryview(bytearray(b))], ids=["bytearray", "memoryview"]
)
def test_ext_hook_changing_a_writable_input_does_not_change_the_result(wrap: Any) -> None:
    doc = [Ext(1, b"a"), "after", [1, 2, 3], {"k": "v" * 40}]
    buf = wrap(fastmsgpack.packb(doc))
    target = buf.obj if isinstance(buf, memoryview) else buf
    assert isinstance(target, bytearray)

    def hook(tag: int, data: bytes) -> Any:
        target[:] = b"\xc1" * len(target)  # overwrite everything still to be read
        return Ext(tag, data)

    assert fastmsgpack.unpackb(buf, ext_hook=hook) == doc
    assert bytes(target) == b"\xc1" * len(target)
