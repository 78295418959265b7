"""An Unpacker fed `bytes` pieces keeps them rather than copying them, and decodes the objects
from the piece itself; the start of an object held when the next piece comes is joined to the
piece's first bytes (a bridge). Whatever the cut points, the kinds of input mixed in and the
calls made between feeds, the caller sees the objects, offsets and errors it saw when every piece
was copied, with msgpack-python's Unpacker (given the same pieces) as the oracle."""

from __future__ import annotations

import io
import random
from typing import Any

import msgpack  # type: ignore[import-untyped]
import pytest

import fastmsgpack
from fastmsgpack import BufferFull, MsgpackDecodeError, OutOfData, Unpacker


def message(rng: random.Random, i: int) -> Any:
    kind = rng.randrange(5)
    if kind == 0:
        return {"id": i, "name": f"n{i}", "p": [i / 3, -i / 7]}
    if kind == 1:
        return i
    if kind == 2:
        return [i, "x" * rng.randrange(40), None, True]
    if kind == 3:
        # Larger than a bridge's first copy (4 KiB), and than some of the pieces.
        return {"big": "y" * rng.randrange(3000, 20000), "i": i}
    return b"\x00" * rng.randrange(3)


def stream(seed: int, count: int) -> tuple[list[Any], bytes]:
    rng = random.Random(seed)
    messages = [message(rng, i) for i in range(count)]
    return messages, b"".join(msgpack.packb(m, use_bin_type=True) for m in messages)


def cuts(rng: random.Random, data: bytes) -> list[bytes]:
    """`data` cut into pieces of 1 byte to 64 KiB, most of them a few hundred bytes."""
    pieces = []
    at = 0
    while at < len(data):
        size = rng.choice([1, 2, 7, rng.randrange(1, 600), rng.randrange(1, 9000), 65536])
        pieces.append(data[at : at + size])
        at += size
    return pieces


def oracle(pieces: list[bytes]) -> list[Any]:
    unpacker = msgpack.Unpacker(raw=False)
    out = []
    for piece in pieces:
        unpacker.feed(piece)
        out.extend(unpacker)
    return out


@pytest.mark.parametrize("seed", range(12))
def test_bytes_pieces_mixed_with_copied_inputs(seed: int) -> None:
    rng = random.Random(seed)
    messages, data = stream(seed, 400)
    pieces = cuts(rng, data)
    unpacker = Unpacker()
    out: list[Any] = []
    offsets: list[int] = []
    fed = 0
    for piece in pieces:
        # Now and then a bytearray (changed after the feed) or a memoryview: copied.
        kind = rng.randrange(8)
        if kind == 0:
            mutable = bytearray(piece)
            unpacker.feed(mutable)
            mutable[:] = b"\xc1" * len(mutable)
        elif kind == 1:
            unpacker.feed(memoryview(b"!" + piece)[1:])
        else:
            unpacker.feed(piece)
        fed += len(piece)
        # Sometimes a second feed before the objects held are read.
        if rng.randrange(4) == 0:
            continue
        while True:
            at = unpacker.tell()
            try:
                obj = unpacker.unpack()
            except OutOfData:
                break
            offsets.append(at)
            out.append(obj)
        assert unpacker.tell() <= fed
    out.extend(unpacker)
    assert out == messages == oracle(pieces)
    lengths = [len(msgpack.packb(m, use_bin_type=True)) for m in messages]
    expected_offsets = [sum(lengths[:i]) for i in range(len(lengths))]
    assert offsets == expected_offsets[: len(offsets)]
    assert unpacker.tell() == len(data)


@pytest.mark.parametrize("seed", range(6))
def test_skip_and_raw_between_pieces(seed: int) -> None:
    rng = random.Random(100 + seed)
    messages, data = stream(100 + seed, 300)
    unpacker = Unpacker()
    out: list[Any] = []
    for piece in cuts(rng, data):
        unpacker.feed(piece)
        while True:
            try:
                if rng.randrange(5) == 0:
                    unpacker.skip()
                    out.append("skipped")
                else:
                    out.append(unpacker.unpack())
            except OutOfData:
                break
    expected = [m if o != "skipped" else "skipped" for m, o in zip(messages, out, strict=True)]
    assert out == expected
    assert unpacker.tell() == len(data)


def test_a_piece_held_is_the_callers_bytes_unchanged() -> None:
    # The piece is kept, not copied: the objects come from the caller's bytes object, which the
    # Unpacker only reads.
    data = fastmsgpack.packb({"a": 1}) * 3 + fastmsgpack.packb("start of")[:4]
    unpacker = Unpacker()
    unpacker.feed(data)
    assert list(unpacker) == [{"a": 1}] * 3
    unpacker.feed(fastmsgpack.packb("start of")[4:] + fastmsgpack.packb(7))
    assert list(unpacker) == ["start of", 7]
    assert data == fastmsgpack.packb({"a": 1}) * 3 + fastmsgpack.packb("start of")[:4]


def test_bytes_subclass_piece() -> None:
    class Data(bytes):
        pass

    unpacker = Unpacker()
    unpacker.feed(Data(fastmsgpack.packb([1, 2]) + b"\x92"))
    assert list(unpacker) == [[1, 2]]
    unpacker.feed(Data(b"\x03\x04"))
    assert list(unpacker) == [[3, 4]]


def test_max_buffer_size_counts_the_bytes_held_in_a_piece_and_its_bridge() -> None:
    one = fastmsgpack.packb("z" * 50)  # 52 bytes
    unpacker = Unpacker(max_buffer_size=100)
    unpacker.feed(one + one[:40])  # 92 held, one whole object
    with pytest.raises(BufferFull):
        unpacker.feed(one[40:] + one)  # 92 + 64 > 100: refused whole
    assert unpacker.unpack() == "z" * 50
    with pytest.raises(BufferFull):
        unpacker.feed(one[40:] + one)  # 40 held + 64 > 100: refused whole
    unpacker.feed(one[40:])
    assert list(unpacker) == ["z" * 50]
    assert unpacker.tell() == 104


def test_max_buffer_size_with_a_bridge_pending() -> None:
    one = fastmsgpack.packb("z" * 50)  # 52 bytes
    unpacker = Unpacker(max_buffer_size=200)
    unpacker.feed(one[:10])
    unpacker.feed(one[10:] + one * 2)  # 156 held: a bridge over the first object
    with pytest.raises(BufferFull):
        unpacker.feed(one)  # 156 + 52 > 200
    assert list(unpacker) == ["z" * 50] * 3
    unpacker.feed(one)
    assert list(unpacker) == ["z" * 50]


def test_declared_size_over_the_limit_across_a_bridge() -> None:
    header = b"\xdb" + (1 << 30).to_bytes(4, "big")  # a str of 1 GiB
    unpacker = Unpacker(max_buffer_size=1 << 20)
    unpacker.feed(fastmsgpack.packb(1) + header[:2])
    assert list(unpacker) == [1]
    unpacker.feed(header[2:] + b"x" * 100)
    with pytest.raises(BufferFull):
        unpacker.unpack()


def test_malformed_bytes_after_a_bridge_break_the_stream_at_their_offset() -> None:
    good = fastmsgpack.packb({"id": 1, "name": "n1"})
    unpacker = Unpacker()
    unpacker.feed(good + good[:5])
    assert list(unpacker) == [{"id": 1, "name": "n1"}]
    unpacker.feed(good[5:] + good + b"\xc1" + good)
    assert unpacker.unpack() == {"id": 1, "name": "n1"}
    assert unpacker.unpack() == {"id": 1, "name": "n1"}
    with pytest.raises(MsgpackDecodeError) as info:
        unpacker.unpack()
    assert info.value.offset == 3 * len(good)


def test_file_like_reading_bytes_pieces() -> None:
    messages, data = stream(7, 300)

    class Reader:
        def __init__(self) -> None:
            self.file = io.BytesIO(data)
            self.rng = random.Random(7)

        def read(self, n: int = -1, /) -> bytes:
            return self.file.read(min(n, self.rng.randrange(1, 5000)))

    assert list(Unpacker(Reader(), read_size=3000)) == messages


def test_file_like_ending_inside_a_bridge() -> None:
    data = fastmsgpack.packb([1, 2, 3]) + fastmsgpack.packb("abcdef")[:3]
    with pytest.raises(MsgpackDecodeError):
        list(Unpacker(io.BytesIO(data), read_size=5))


@pytest.mark.parametrize("seed", range(4))
def test_compat_unpacker_bytes_pieces(seed: int) -> None:
    from fastmsgpack import compat

    rng = random.Random(200 + seed)
    messages, data = stream(200 + seed, 300)
    pieces = cuts(rng, data)
    unpacker = compat.Unpacker(raw=False)
    out: list[Any] = []
    for piece in pieces:
        unpacker.feed(piece)
        out.extend(unpacker)
    assert out == messages == oracle(pieces)


def test_a_bridge_that_ends_where_an_object_ends() -> None:
    # The start of a 40,000-byte object is held when a piece comes whose first 20,000 bytes end
    # it: the bridge copies as many bytes as are held, so the object ends where the copy ends,
    # and the objects after it are read from the piece.
    big = fastmsgpack.packb("b" * 39997)
    assert len(big) == 40000
    after = [{"id": i} for i in range(50)]
    unpacker = Unpacker()
    unpacker.feed(big[:20000])
    assert list(unpacker) == []
    unpacker.feed(big[20000:] + b"".join(fastmsgpack.packb(m) for m in after))
    assert list(unpacker) == ["b" * 39997, *after]
