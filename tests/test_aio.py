"""fastmsgpack.aio: AsyncUnpacker, write and the length-prefixed frames, over real loopback TCP
connections (asyncio and anyio) and over readers that hand the bytes out in random pieces."""

from __future__ import annotations

import asyncio
import dataclasses
import datetime
import itertools
import tracemalloc
from collections.abc import Awaitable, Callable, Coroutine
from typing import Any, TypeVar

import anyio
import pytest
from conftest import examples, json_values, same
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import fastmsgpack
from fastmsgpack import aio
from fastmsgpack.compat import Unpacker as CompatUnpacker

T = TypeVar("T")
TIMEOUT = 10


def run(coro: Coroutine[Any, Any, T]) -> T:
    """Runs ``coro`` in a fresh event loop, with a bound on its time."""

    async def bounded() -> T:
        return await asyncio.wait_for(coro, TIMEOUT)

    return asyncio.run(bounded())


class PieceReader:
    """An awaitable ``read(n)`` that gives the stream in the pieces it was cut into (never more
    than ``n`` bytes), suspending the task before each piece as a socket would."""

    def __init__(self, pieces: list[bytes]) -> None:
        self.pieces = list(pieces)
        self.asked: list[int] = []

    async def read(self, n: int) -> bytes:
        self.asked.append(n)
        await asyncio.sleep(0)
        if not self.pieces:
            return b""
        piece = self.pieces.pop(0)
        if len(piece) > n:
            self.pieces.insert(0, piece[n:])
            piece = piece[:n]
        return piece


def cut(data: bytes, cuts: list[int]) -> list[bytes]:
    points = sorted({c % (len(data) + 1) for c in cuts} | {0, len(data)})
    return [data[a:b] for a, b in itertools.pairwise(points)]


async def loopback(
    serve: Callable[[asyncio.StreamReader, asyncio.StreamWriter], Awaitable[None]],
) -> tuple[asyncio.StreamReader, asyncio.StreamWriter, asyncio.Server]:
    """A server on a free 127.0.0.1 port running ``serve`` for its one connection, and a client
    connected to it."""
    server = await asyncio.start_server(serve, "127.0.0.1", 0)
    port = server.sockets[0].getsockname()[1]
    reader, writer = await asyncio.open_connection("127.0.0.1", port)
    return reader, writer, server


# Random chunking against unpackb: the fuzz of the async reader.
VALUES = st.lists(json_values() | st.binary(max_size=300), min_size=1, max_size=12)


@settings(
    max_examples=examples(100),
    derandomize=True,
    database=None,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
@given(
    values=VALUES, cuts=st.lists(st.integers(0, 10**6), max_size=40), read_size=st.integers(1, 64)
)
def test_random_pieces_give_what_unpackb_gives(
    values: list[Any], cuts: list[int], read_size: int
) -> None:
    messages = [fastmsgpack.packb(v) for v in values]
    expected = [fastmsgpack.unpackb(m) for m in messages]
    stream = b"".join(messages)

    async def read_both() -> tuple[list[Any], list[Any], int]:
        up = aio.AsyncUnpacker(PieceReader(cut(stream, cuts)), read_size=read_size)
        iterated = [obj async for obj in up]
        up = aio.AsyncUnpacker(PieceReader(cut(stream, cuts)), read_size=read_size)
        one_by_one = [await up.unpack() for _ in expected]
        with pytest.raises(fastmsgpack.OutOfData):
            await up.unpack()
        return iterated, one_by_one, up.tell()

    iterated, one_by_one, offset = run(read_both())
    assert same(iterated, expected)
    assert same(one_by_one, expected)
    assert offset == len(stream)


@dataclasses.dataclass
class Reading:
    sensor: str
    value: float
    at: datetime.datetime


def test_tcp_typed_objects_written_with_drain() -> None:
    when = datetime.datetime(2026, 1, 2, 3, 4, 5, tzinfo=datetime.timezone.utc)
    readings = [Reading(f"s{i}", i / 4, when + datetime.timedelta(seconds=i)) for i in range(500)]

    async def serve(_: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        for r in readings:
            await aio.write(writer, r)
        writer.close()
        await writer.wait_closed()

    async def client() -> list[Reading]:
        reader, writer, server = await loopback(serve)
        async with server:
            got = [r async for r in aio.AsyncUnpacker(reader, type=Reading, read_size=1000)]
            writer.close()
            await writer.wait_closed()
        return got

    assert run(client()) == readings


def test_write_waits_for_a_slow_peer() -> None:
    big = b"x" * (8 << 20)
    peer_may_read = asyncio.Event

    async def client() -> tuple[bool, int]:
        go = peer_may_read()
        received = bytearray()

        async def serve(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
            await go.wait()
            while chunk := await reader.read(1 << 20):
                received.extend(chunk)
            # The server's side of the connection is closed too: from Python 3.12 on, leaving
            # the server's `async with` waits until every connection has been dropped.
            writer.close()
            await writer.wait_closed()

        _, writer, server = await loopback(serve)
        async with server:
            writer.transport.set_write_buffer_limits(high=1 << 16)
            task = asyncio.create_task(aio.write(writer, big))
            await asyncio.sleep(0.3)
            waited = not task.done()  # drain() holds it: the peer reads nothing yet
            go.set()
            await task
            writer.close()
            await writer.wait_closed()
            while len(received) < len(big) + 5:
                await asyncio.sleep(0.01)
        assert fastmsgpack.unpackb(bytes(received)) == big
        return waited, len(received)

    waited, size = run(client())
    assert waited
    assert size == len(big) + 5  # bin 32 header and the bytes


@pytest.mark.parametrize(
    ("stream", "message"),
    [
        (fastmsgpack.packb({"a": 1}) + fastmsgpack.packb([1, 2, "three"])[:-3], "ended inside"),
        (fastmsgpack.packb({"a": 1}) + b"\xc1\x01", "0xc1 at byte offset 4"),
        (fastmsgpack.packb({"a": 1}) + b"\x92\xa2\xff\xfe\x01", "UTF-8 at byte offset 5"),
    ],
    ids=["truncated", "reserved marker", "bad utf-8"],
)
def test_bad_stream_raises_a_typed_error_and_closes_cleanly(stream: bytes, message: str) -> None:
    async def serve(_: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        writer.write(stream)
        await writer.drain()
        writer.close()
        await writer.wait_closed()

    async def client() -> list[Any]:
        reader, writer, server = await loopback(serve)
        got: list[Any] = []
        async with server:
            with pytest.raises(fastmsgpack.MsgpackDecodeError, match=message):
                async for obj in aio.AsyncUnpacker(reader):
                    got.append(obj)
            writer.close()
            await writer.wait_closed()
        return got

    assert run(client()) == [{"a": 1}]


def test_huge_declared_length_a_byte_at_a_time_is_refused_at_its_header() -> None:
    header = b"\xdb\xff\xff\xff\xf0"  # str 32 of nearly 4 GiB

    async def client() -> tuple[int, int]:
        sent = 0

        async def serve(_: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
            nonlocal sent
            try:
                for byte in header + b"x" * 1000:
                    writer.write(bytes([byte]))
                    await writer.drain()
                    sent += 1
                    await asyncio.sleep(0.002)
            except ConnectionError:
                pass

        reader, writer, server = await loopback(serve)
        async with server:
            up = aio.AsyncUnpacker(reader, max_buffer_size=64 << 20, read_size=1)
            tracemalloc.start()
            try:
                with pytest.raises(fastmsgpack.BufferFull, match="declares at least 4294967281"):
                    await up.unpack()
                peak = tracemalloc.get_traced_memory()[1]
            finally:
                tracemalloc.stop()
            writer.close()
            await writer.wait_closed()
            read = up.tell() + 5
        return read, peak

    read, peak = run(client())
    assert read == 5
    assert peak < 1 << 20  # nothing sized by the header, nor by max_buffer_size
    # The same in the Unpacker fed by hand, at the byte that completes the header.
    up = fastmsgpack.Unpacker(max_buffer_size=1 << 20)
    for byte in header[:-1]:
        up.feed(bytes([byte]))
        assert list(up) == []
    up.feed(header[-1:])
    for _ in range(2):  # the stream stays stopped
        with pytest.raises(fastmsgpack.BufferFull):
            up.unpack()
    # An array that declares more items than max_buffer_size bytes can hold, likewise.
    up = fastmsgpack.Unpacker(max_buffer_size=1000)
    up.feed(b"\x91\xdd\x00\x01\x00\x00")
    with pytest.raises(fastmsgpack.BufferFull, match="at least 65542"):
        up.unpack()
    # fastmsgpack.compat waits, as msgpack-python does.
    compat = CompatUnpacker(max_buffer_size=1 << 20)
    compat.feed(header)
    assert list(compat) == []


def test_objects_that_fit_are_not_refused() -> None:
    body = fastmsgpack.packb({"k": "v" * 900, "n": list(range(20))})
    up = fastmsgpack.Unpacker(max_buffer_size=len(body))
    for i in range(len(body)):
        up.feed(body[i : i + 1])
        if i < len(body) - 1:
            assert list(up) == []
    assert up.unpack() == fastmsgpack.unpackb(body)


def test_object_larger_than_the_buffer_without_a_header_saying_so() -> None:
    # 2000 items of one byte each: no header declares it too large, the buffer fills.
    body = fastmsgpack.packb([1] * 2000)

    async def read() -> Any:
        return await aio.AsyncUnpacker(PieceReader([body]), max_buffer_size=1500).unpack()

    with pytest.raises(fastmsgpack.BufferFull):
        run(read())


def test_skip_and_options() -> None:
    when = datetime.datetime(2026, 3, 1, tzinfo=datetime.timezone.utc)
    option = fastmsgpack.OPT_DATETIME_AS_TIMESTAMP_EXT | fastmsgpack.OPT_NON_STR_KEYS
    stream = fastmsgpack.packb("skipped") + fastmsgpack.packb({1: when}, option=option)

    async def read() -> Any:
        up = aio.AsyncUnpacker(PieceReader(cut(stream, [3, 9])), option=option)
        await up.skip()
        obj = await up.unpack()
        with pytest.raises(fastmsgpack.OutOfData):
            await up.skip()
        return obj

    assert run(read()) == {1: when}


def test_reader_must_have_read_or_receive() -> None:
    with pytest.raises(TypeError, match="neither"):
        aio.AsyncUnpacker(object())
    with pytest.raises(TypeError, match="neither"):
        run(aio.write(object(), 1))


def test_anyio_byte_streams() -> None:
    messages = [{"n": i, "blob": bytes(i)} for i in range(300)]

    async def main() -> list[Any]:
        async def serve(stream: anyio.abc.SocketStream) -> None:
            async with stream:
                for m in messages:
                    await aio.write(stream, m)

        listener = await anyio.create_tcp_listener(local_host="127.0.0.1")
        port = listener.extra(anyio.abc.SocketAttribute.local_port)
        got: list[Any] = []
        async with listener, anyio.create_task_group() as tg:
            tg.start_soon(listener.serve, serve)
            async with await anyio.connect_tcp("127.0.0.1", port) as client:
                got = [m async for m in aio.AsyncUnpacker(client, read_size=777)]
            tg.cancel_scope.cancel()
        return got

    assert anyio.run(main) == messages


def test_frames_round_trip_and_refusals() -> None:
    values: list[Any] = [{"op": "ping"}, [1, 2.5, None], "x" * 70000, b"\x00" * 10]
    good = b"".join(aio.frame(v) for v in values)
    assert good[:5] == b"\x00\x00\x00\x09\x82"[:4] + good[4:5]

    async def read(stream: bytes, **kw: Any) -> list[Any]:
        return [v async for v in aio.frames(PieceReader(cut(stream, [1, 2, 5, 77])), **kw)]

    assert run(read(good)) == values
    # A prefix over the limit is refused before any of the frame is read.
    reader = PieceReader([b"\xff\xff\xff\xff", b"never read"])
    with pytest.raises(fastmsgpack.BufferFull, match="4294967295"):
        run(aio.read_frame(reader, max_frame_size=1 << 20))
    assert reader.pieces == [b"never read"]
    # Ended inside a frame: an error; between frames: the end.
    with pytest.raises(fastmsgpack.MsgpackDecodeError, match="ended inside a frame"):
        run(read(good[:-3]))
    with pytest.raises(fastmsgpack.OutOfData):
        run(aio.read_frame(PieceReader([])))
    # A frame that is not one object is an error; the next frame can still be read.
    bad = b"\x00\x00\x00\x02\x01\x02" + aio.frame("next")
    reader = PieceReader([bad])
    with pytest.raises(fastmsgpack.MsgpackDecodeError, match="trailing"):
        run(aio.read_frame(reader))
    assert run(aio.read_frame(reader)) == "next"
    # Typed frames.
    when = datetime.datetime(2026, 1, 1, tzinfo=datetime.timezone.utc)
    typed = aio.frame(Reading("t", 1.5, when))
    assert run(read(typed, type=Reading)) == [Reading("t", 1.5, when)]


def test_frames_over_tcp() -> None:
    async def serve(_: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        for i in range(100):
            await aio.write_frame(writer, {"i": i})
        writer.close()
        await writer.wait_closed()

    async def client() -> list[Any]:
        reader, writer, server = await loopback(serve)
        async with server:
            got = [v async for v in aio.frames(reader)]
            writer.close()
            await writer.wait_closed()
        return got

    assert run(client()) == [{"i": i} for i in range(100)]


def test_each_anext_result_is_awaited_once_and_keeps_its_object() -> None:
    messages = [{"n": i} for i in range(6)]
    stream = b"".join(fastmsgpack.packb(m) for m in messages)

    async def read() -> list[Any]:
        up = aio.AsyncUnpacker(PieceReader([stream]))
        it = aix(up)
        got = [await anext(it)]  # read from the stream first, then decoded from the bytes held
        pending = it.__anext__()  # decoded, not awaited yet: the next __anext__ gives it again
        again = it.__anext__()
        assert again is pending
        got.append(await again)
        with pytest.raises(RuntimeError, match="twice"):
            await pending
        # Awaitables driven by tasks, and by hand.
        got.append(await asyncio.ensure_future(anext(it)))
        got.append(await asyncio.wait_for(anext(it), TIMEOUT))
        with pytest.raises(StopIteration) as stop:
            it.__anext__().__await__().__next__()
        got.append(stop.value.value)
        # Leaving the iteration leaves the rest in the AsyncUnpacker.
        got.append(await up.unpack())
        assert [m async for m in up] == []
        return got

    assert run(read()) == messages


def aix(up: aio.AsyncUnpacker) -> Any:
    return up.__aiter__()


def test_a_cancelled_wait_for_more_bytes_loses_nothing() -> None:
    messages = [{"n": i, "s": "x" * i} for i in range(50)]
    stream = b"".join(fastmsgpack.packb(m) for m in messages)
    half = len(stream) // 2 + 3  # inside an object

    async def client() -> list[Any]:
        more = asyncio.Event()

        async def serve(_: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
            writer.write(stream[:half])
            await writer.drain()
            await more.wait()
            writer.write(stream[half:])
            writer.close()
            await writer.wait_closed()

        reader, writer, server = await loopback(serve)
        got: list[Any] = []
        async with server:
            it = aix(aio.AsyncUnpacker(reader, read_size=100))
            while len(got) < 10:
                got.append(await anext(it))
            timeouts = 0
            while timeouts < 3:
                try:
                    got.append(await asyncio.wait_for(anext(it), 0.05))
                except asyncio.TimeoutError:
                    timeouts += 1  # the bytes held end inside an object: waiting for the rest
            more.set()
            got.extend([m async for m in it])
            writer.close()
            await writer.wait_closed()
        return got

    assert run(client()) == messages


@pytest.mark.parametrize("bad_at", [0, 1, 31, 32, 33, 70])
def test_a_bad_message_inside_a_run_comes_in_its_turn_and_the_stream_goes_on(bad_at: int) -> None:
    """Small messages are decoded in runs ahead of the caller: a message that cannot be decoded,
    anywhere in a run or at its edges, is raised after every message before it, at its own
    offset, and the messages after it are read next."""
    good = [fastmsgpack.packb({"id": i, "name": f"n{i}", "p": [i / 3, -i / 7]}) for i in range(100)]
    bad = b"\x81\xa1k\xa2\xff\xfe"  # {"k": <a str that is not UTF-8>}
    data = b"".join(good[:bad_at]) + bad + b"".join(good[bad_at:])
    str_at = sum(map(len, good[:bad_at])) + 3

    async def client() -> tuple[list[Any], list[Any]]:
        unpacker = aio.AsyncUnpacker(PieceReader([data]))
        before: list[Any] = []
        with pytest.raises(fastmsgpack.MsgpackDecodeError, match=f"UTF-8 at byte offset {str_at}$"):
            async for obj in unpacker:
                before.append(obj)
        return before, [obj async for obj in unpacker]

    before, after = run(client())
    assert before == [fastmsgpack.unpackb(m) for m in good[:bad_at]]
    assert after == [fastmsgpack.unpackb(m) for m in good[bad_at:]]
