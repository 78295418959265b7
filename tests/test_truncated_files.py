"""The native Unpacker reading a file raises when the file ends inside an object (with the offset
where that object starts), as AsyncUnpacker does; fed by hand it waits for more, and
fastmsgpack.compat's Unpacker keeps msgpack-python's quiet end."""

from __future__ import annotations

import io

import pytest

import fastmsgpack
from fastmsgpack import MsgpackDecodeError, Unpacker
from fastmsgpack import compat as msgpack_compat


def test_unpacker_on_a_truncated_file_raises_with_the_offset() -> None:
    data = fastmsgpack.packb(1) + b"\x92\x01"
    unpacker = Unpacker(io.BytesIO(data))
    assert next(unpacker) == 1
    with pytest.raises(MsgpackDecodeError) as info:
        next(unpacker)
    assert str(info.value) == (
        "the stream ended inside an object (2 bytes of it read) at byte offset 1"
    )
    assert (info.value.kind, info.value.offset) == ("truncated", 1)
    with pytest.raises(MsgpackDecodeError, match="ended inside an object"):
        list(Unpacker(io.BytesIO(data)))
    with pytest.raises(MsgpackDecodeError, match="ended inside an object"):
        Unpacker(io.BytesIO(b"\x92\x01")).unpack()
    with pytest.raises(MsgpackDecodeError, match="ended inside an object"):
        Unpacker(io.BytesIO(b"\x92\x01")).skip()


def test_unpacker_small_reads_and_whole_files() -> None:
    objects = [{"a": list(range(50))}, "x" * 300, 7]
    data = b"".join(fastmsgpack.packb(o) for o in objects)
    assert list(Unpacker(io.BytesIO(data), read_size=3)) == objects
    # Cut anywhere inside the last object: an error, never a shorter list.
    last = len(data) - len(fastmsgpack.packb(7))
    for cut in (last - 1, last - 100, 5):
        with pytest.raises(MsgpackDecodeError, match="ended inside an object"):
            list(Unpacker(io.BytesIO(data[:cut]), read_size=7))


def test_fed_unpacker_still_waits_for_more() -> None:
    # Fed by hand, more may come: no error, the object is simply not complete yet.
    unpacker = Unpacker()
    unpacker.feed(b"\x92\x01")
    assert list(unpacker) == []
    unpacker.feed(b"\x02")
    assert list(unpacker) == [[1, 2]]


def test_compat_unpacker_keeps_msgpack_python_behaviour() -> None:
    data = fastmsgpack.packb(1) + b"\x92\x01"
    assert list(msgpack_compat.Unpacker(io.BytesIO(data))) == [1]
