"""Objects read from a loopback TCP connection with asyncio: ``async for obj in
fastmsgpack.AsyncUnpacker(reader)`` against msgpack-python's ``Unpacker`` fed by hand from the
same kind of reader (``while data := await reader.read(READ): unpacker.feed(data)``).

Three streams, sent by a server in the same event loop: 100,000 small messages (records of an
id, a name, a float, a flag and two tags, about 50 bytes each), 100,000 tiny ones (a queue
consumer's ``{"id": i, "name": f"n{i}", "p": [i / 3, -i / 7]}``, about 30 bytes each), and
100 messages of 1 MB (each a list of 19,800 small records). A round opens a connection, reads
every object and counts them. Groups ``aio-100k-small``, ``aio-100k-tiny`` and
``aio-100x1mb``. ``read-only`` is the floor both libraries
share: the same connection and reads, nothing decoded. With ``scripts/bench --baseline REV``,
the earlier build is timed too, as ``fastmsgpack-before``: ``AsyncUnpacker`` (this build's Python
layer) over the earlier build's ``Unpacker``, iterated by the earlier core's iterator when it
has one, else as ``AsyncUnpacker`` iterated before its core had one.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Callable, Coroutine, Iterator
from typing import Any

import msgpack  # type: ignore[import-untyped]
import pytest
from baseline import BEFORE
from baseline import NAME as BEFORE_NAME

import fastmsgpack


def record(i: int) -> dict[str, Any]:
    return {
        "id": i,
        "name": f"user {i:06d}",
        "score": i * 0.25,
        "ok": i % 2 == 0,
        "tags": ["a", "b"],
    }


STREAMS: dict[str, tuple[bytes, int]] = {}


def stream(name: str) -> tuple[bytes, int]:
    if name not in STREAMS:
        if name == "100k-small":
            messages = [fastmsgpack.packb(record(i)) for i in range(100_000)]
        elif name == "100k-tiny":
            messages = [
                fastmsgpack.packb({"id": i, "name": f"n{i}", "p": [i / 3, -i / 7]})
                for i in range(100_000)
            ]
        else:
            messages = [fastmsgpack.packb([record(i) for i in range(19_800)]) for _ in range(100)]
        STREAMS[name] = (b"".join(messages), len(messages))
    return STREAMS[name]


@pytest.fixture(scope="module")
def loop() -> Iterator[asyncio.AbstractEventLoop]:
    loop = asyncio.new_event_loop()
    yield loop
    loop.close()


@pytest.fixture(scope="module")
def port(loop: asyncio.AbstractEventLoop) -> Iterator[int]:
    async def serve(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        name = (await reader.readline()).decode().strip()
        writer.write(stream(name)[0])
        await writer.drain()
        writer.close()

    server = loop.run_until_complete(asyncio.start_server(serve, "127.0.0.1", 0))
    yield server.sockets[0].getsockname()[1]
    server.close()
    loop.run_until_complete(server.wait_closed())


# The reader both libraries read from buffers up to 1 MiB (asyncio's default, 64 KiB, pauses the
# socket every 128 KiB), and each read asks for up to READ bytes.
LIMIT = 1 << 20
READ = 1 << 20


async def connect(port: int, name: str) -> tuple[asyncio.StreamReader, asyncio.StreamWriter]:
    reader, writer = await asyncio.open_connection("127.0.0.1", port, limit=LIMIT)
    writer.write(name.encode() + b"\n")
    return reader, writer


async def read_fastmsgpack(port: int, name: str) -> int:
    reader, writer = await connect(port, name)
    count = 0
    async for _ in fastmsgpack.AsyncUnpacker(reader, read_size=READ):
        count += 1
    writer.close()
    return count


async def read_before(port: int, name: str) -> int:
    reader, writer = await connect(port, name)
    unpacker = fastmsgpack.AsyncUnpacker(reader, read_size=READ)
    unpacker._unpacker = BEFORE.Unpacker(read_size=READ)
    count = 0
    async for _ in before_objects(unpacker):
        count += 1
    writer.close()
    return count


def before_objects(unpacker: fastmsgpack.AsyncUnpacker) -> AsyncIterator[Any]:
    """The iteration of ``AsyncUnpacker`` over the earlier build's ``Unpacker``: by its core's
    iterator when it has one, else as ``AsyncUnpacker`` iterated before the core had it."""
    if hasattr(BEFORE, "_AsyncObjects"):
        objects: AsyncIterator[Any] = BEFORE._AsyncObjects(
            unpacker._unpacker, unpacker._next_after_read
        )
        return objects

    async def generator() -> AsyncIterator[Any]:
        while True:
            for obj in unpacker._unpacker:
                yield obj
            if not await unpacker._more():
                return

    return generator()


async def read_msgpack(port: int, name: str) -> int:
    reader, writer = await connect(port, name)
    unpacker = msgpack.Unpacker(max_buffer_size=100 << 20)
    count = 0
    while data := await reader.read(READ):
        unpacker.feed(data)
        for _ in unpacker:
            count += 1
    writer.close()
    return count


async def read_only(port: int, name: str) -> int:
    """The bytes read and let go: the event loop's and the socket's share of both times."""
    reader, writer = await connect(port, name)
    size = 0
    while data := await reader.read(READ):
        size += len(data)
    writer.close()
    return size


READERS: dict[str, Callable[[int, str], Coroutine[Any, Any, int]]] = {
    "fastmsgpack": read_fastmsgpack,
    "msgpack": read_msgpack,
    "read-only": read_only,
}
if BEFORE is not None and hasattr(BEFORE, "Unpacker"):
    READERS[BEFORE_NAME] = read_before


@pytest.mark.parametrize("library", list(READERS))
@pytest.mark.parametrize("name", ["100k-small", "100k-tiny", "100x1mb"])
def test_aio_read(
    benchmark: Any, loop: asyncio.AbstractEventLoop, port: int, name: str, library: str
) -> None:
    benchmark.group = f"aio-{name}"
    benchmark.extra_info["library"] = library
    data, count = stream(name)
    benchmark.extra_info["bytes"] = len(data)
    read = READERS[library]

    def run() -> int:
        return loop.run_until_complete(read(port, name))

    assert run() == (len(data) if library == "read-only" else count)
    benchmark(run)
