"""What tests/test_subinterpreters.py runs inside interpreters with a GIL of their own, and the
child process that makes those interpreters.

The child is this file run as a script, so that its directory (tests/) is on the path of every
interpreter the child makes and each of them imports this module by name:

    python tests/_in_interpreters.py isolated DIR   # every API in one isolated interpreter
    python tests/_in_interpreters.py pool DIR       # two at once (InterpreterPoolExecutor)
    python tests/_in_interpreters.py cycles N DIR   # N interpreters made, used and destroyed

DIR is where the snapshot files go. The child prints one JSON record a line. An interpreter that
cannot import fastmsgpack, or a check that fails in one, ends the child with that interpreter's
traceback and a non-zero status, so the test fails and names it. Isolated interpreters come from
``concurrent.interpreters`` (3.14) or from ``_interpreters`` with its default configuration,
which is isolated (3.13).
"""

from __future__ import annotations

import dataclasses
import datetime
import decimal
import enum
import gc
import importlib
import io
import os
import sys
import threading
import time
import uuid
import zlib
from collections.abc import Callable, Coroutine
from typing import Any

import fastmsgpack
import fastmsgpack.compat as msgpack_api
from fastmsgpack import aio, snapshot
from fastmsgpack import json as fjson

# The standard modules above are ones that fastmsgpack's first call imports anyway (the classes
# it looks up once per interpreter), so that a cycle of `cycles` costs little beyond fastmsgpack's
# own start; asyncio, a large import, only where it is used.


def report(**fields: object) -> None:
    import json

    print(json.dumps(fields), flush=True)


class Colour(enum.Enum):
    RED = 1
    BLUE = 2


@dataclasses.dataclass
class Stop:
    name: str
    at: datetime.datetime
    colour: Colour


@dataclasses.dataclass
class Route:
    id: uuid.UUID
    stops: list[Stop]
    fare: decimal.Decimal


class Point:
    def __init__(self, x: int) -> None:
        self.x = x


def route_snapshot(n: int) -> dict[str, Any]:
    """A route-planning snapshot of ``n`` values and ``n`` children, the same in every
    interpreter."""
    return {
        "id": 4711,
        "name": "route from the depot to the port",
        "values": [i * 0.25 for i in range(n)],
        "children": [
            {"id": i, "name": f"stop {i}", "point": [48.1 + i / 1000, 11.5 - i / 1000]}
            for i in range(n)
        ],
    }


def raised(call: Callable[[], object]) -> BaseException:
    try:
        call()
    except Exception as err:  # noqa: BLE001 - the caller checks its class
        return err
    raise AssertionError(f"{call} raised nothing")


class Reader:
    """A reader whose awaitable ``read(n)`` gives the next ``n`` bytes of ``data`` at once."""

    def __init__(self, data: bytes) -> None:
        self.data = data

    async def read(self, n: int) -> bytes:
        chunk, self.data = self.data[:n], self.data[n:]
        return chunk


def without_loop(coroutine: Coroutine[Any, Any, Any]) -> Any:
    """Runs a coroutine that never waits on anything but ``Reader``, without an event loop."""
    for _ in range(10_000):
        try:
            coroutine.send(None)
        except StopIteration as done:
            return done.value
    raise AssertionError("the coroutine did not finish")


def every_api(directory: str, *, with_asyncio: bool = True) -> dict[str, Any]:
    """Uses every public API of fastmsgpack and checks each result; gives the ids of this
    interpreter's classes for the caller to compare with another interpreter's. ``directory``:
    where the snapshot file goes. Without ``with_asyncio``, ``AsyncUnpacker`` reads from a
    reader that never waits, run without an event loop (asyncio is not imported)."""
    at = datetime.datetime(2024, 5, 1, 12, 30, tzinfo=datetime.timezone.utc)
    stops = [Stop("a", at, Colour.RED), Stop("b", at, Colour.BLUE)]
    route = Route(uuid.UUID(int=7), stops, decimal.Decimal("2.50"))

    # packb / unpackb, with options, a default hook and typed decoding of a dataclass.
    data = fastmsgpack.packb(route)
    plain = fastmsgpack.unpackb(data)
    assert plain == {
        "id": "00000000-0000-0000-0000-000000000007",
        "stops": [
            {"name": "a", "at": "2024-05-01T12:30:00+00:00", "colour": 1},
            {"name": "b", "at": "2024-05-01T12:30:00+00:00", "colour": 2},
        ],
        "fare": "2.50",
    }, plain
    back = fastmsgpack.unpackb(data, type=Route)
    assert back == route, back
    # The objects the extension built are of this interpreter's classes.
    assert type(back.id) is uuid.UUID and type(back.fare) is decimal.Decimal
    assert type(back.stops[0].at) is datetime.datetime and back.stops[1].colour is Colour.BLUE
    assert fastmsgpack.Decoder(Route).decode(data) == route
    sorted_keys = fastmsgpack.packb({"b": 1, "a": 2}, option=fastmsgpack.OPT_SORT_KEYS)
    assert sorted_keys == b"\x82\xa1a\x02\xa1b\x01", sorted_keys
    assert fastmsgpack.packb(Point(5), default=lambda p: {"x": p.x}) == b"\x81\xa1x\x05"
    exact = fastmsgpack.unpackb(
        fastmsgpack.packb((route.id, {1, 2}), option=fastmsgpack.OPT_EXACT),
        option=fastmsgpack.OPT_EXACT,
    )
    assert exact == (route.id, {1, 2}) and type(exact[0]) is uuid.UUID, exact

    # pack / unpack on a file; Packer; Unpacker fed in pieces and iterated.
    one = io.BytesIO()
    fastmsgpack.pack({"n": 0}, one)
    one.seek(0)
    assert fastmsgpack.unpack(one) == {"n": 0}
    packer = fastmsgpack.Packer()
    stream = b"".join(packer.pack({"n": i}) for i in range(1, 4))
    unpacker = fastmsgpack.Unpacker()
    for i in range(0, len(stream), 2):
        unpacker.feed(stream[i : i + 2])
    assert [o["n"] for o in unpacker] == [1, 2, 3]

    # Registry: a class of this interpreter, packed by a code and built back.
    registry = fastmsgpack.Registry()
    registry.register(Point, 1, lambda p: p.x, Point)
    point = fastmsgpack.unpackb(fastmsgpack.packb(Point(3), registry=registry), registry=registry)
    assert type(point) is Point and point.x == 3

    # Ext and Fragment.
    ext = fastmsgpack.unpackb(fastmsgpack.packb(fastmsgpack.Ext(5, b"xy")))
    assert type(ext) is fastmsgpack.Ext and ext == fastmsgpack.Ext(5, b"xy")
    cached = fastmsgpack.Fragment(fastmsgpack.packb({"k": "v"}))
    assert fastmsgpack.unpackb(fastmsgpack.packb([cached, cached])) == [{"k": "v"}, {"k": "v"}]

    # Lazy views.
    view = fastmsgpack.View(fastmsgpack.packb({"k": [1, 2, {"n": "v"}]}))
    assert isinstance(view, fastmsgpack.MapView) and isinstance(view["k"], fastmsgpack.ArrayView)
    assert view["k"][2]["n"] == "v" and view.to_python() == {"k": [1, 2, {"n": "v"}]}

    # JSON.
    text = fjson.dumps({"a": [1, None], "at": at})
    assert text == b'{"a":[1,null],"at":"2024-05-01T12:30:00+00:00"}', text
    assert fjson.dumps({"f": fjson.Fragment(b"[1]")}) == b'{"f":[1]}'
    assert fjson.from_msgpack(fastmsgpack.packb({"a": [1, "x"]})) == b'{"a":[1,"x"]}'

    # Out-of-band buffers: the message, then the large buffer, and back.
    big = b"x" * 100_000
    frames = fastmsgpack.packb_frames({"big": big, "n": 1}, buffer_threshold=1024)
    assert len(frames) == 2 and bytes(frames[1]) == big, [len(f) for f in frames]
    got = fastmsgpack.unpackb(frames[0], buffers=frames[1:])
    assert bytes(got["big"]) == big and got["n"] == 1

    # Snapshots: a file saved durably and loaded back; framed bytes.
    path = os.path.join(directory, f"snapshot-{os.getpid()}-{threading.get_native_id()}.fmp")
    snapshot.save(path, route, compress="zstd")
    assert snapshot.load(path, type=Route) == route
    os.remove(path)
    assert snapshot.loads(snapshot.dumps({"a": [1, 2]}, compress="lz4")) == {"a": [1, 2]}

    # msgpack-python's API.
    assert msgpack_api.unpackb(msgpack_api.packb([1, b"x", "y"])) == [1, b"x", "y"]
    ext_type = msgpack_api.unpackb(msgpack_api.packb(msgpack_api.ExtType(3, b"z")))
    assert type(ext_type) is msgpack_api.ExtType and ext_type == msgpack_api.ExtType(3, b"z")
    compat_unpacker = msgpack_api.Unpacker()
    compat_unpacker.feed(msgpack_api.packb([1, 2]) + msgpack_api.packb({"a": 1}))
    assert list(compat_unpacker) == [[1, 2], {"a": 1}]

    # AsyncUnpacker, typed, over a reader that gives 3 bytes at a time.
    async def read_stops(reader: Any) -> list[Stop]:
        return [s async for s in aio.AsyncUnpacker(reader, type=Stop, read_size=3)]

    packed_stops = b"".join(fastmsgpack.packb(stop) for stop in stops)
    if with_asyncio:
        import asyncio

        async def over_a_stream() -> list[Stop]:
            reader = asyncio.StreamReader()
            reader.feed_data(packed_stops)
            reader.feed_eof()
            return await read_stops(reader)

        assert asyncio.run(over_a_stream()) == stops
    assert without_loop(read_stops(Reader(packed_stops))) == stops

    # Errors: each of this interpreter's classes, with its data.
    short = fastmsgpack.Unpacker()
    short.feed(b"\x92\x01")
    errors: dict[str, tuple[BaseException, type[BaseException]]] = {
        "MsgpackDecodeError": (
            raised(lambda: fastmsgpack.unpackb(b"\xc1")),
            fastmsgpack.MsgpackDecodeError,
        ),
        "OutOfData": (raised(short.unpack), fastmsgpack.OutOfData),
        "MsgpackEncodeError": (
            raised(lambda: fastmsgpack.packb(object())),
            fastmsgpack.MsgpackEncodeError,
        ),
        "ValidationError": (
            raised(lambda: fastmsgpack.unpackb(fastmsgpack.packb({"id": 1}), type=Route)),
            fastmsgpack.ValidationError,
        ),
        "JSONEncodeError": (raised(lambda: fjson.dumps(object())), fjson.JSONEncodeError),
        "SnapshotError": (
            raised(lambda: snapshot.loads(b"not a snapshot")),
            snapshot.SnapshotError,
        ),
    }
    for name, (err, cls) in errors.items():
        assert type(err) is cls, (name, type(err), cls)
    assert getattr(errors["MsgpackDecodeError"][0], "kind", None) == "reserved"
    assert getattr(errors["ValidationError"][0], "path", None) is not None
    try:
        fastmsgpack.unpackb(b"\xc1")
    except fastmsgpack.MsgpackDecodeError:
        pass  # caught by the class as this interpreter names it
    return {
        "classes": {
            "MsgpackDecodeError": id(fastmsgpack.MsgpackDecodeError),
            "MsgpackEncodeError": id(fastmsgpack.MsgpackEncodeError),
            "ValidationError": id(fastmsgpack.ValidationError),
            "Ext": id(fastmsgpack.Ext),
            "Packer": id(fastmsgpack.Packer),
            "Decoder": id(fastmsgpack.Decoder),
            "MapView": id(fastmsgpack.MapView),
        },
        "packed": data.hex(),
    }


def report_every_api(directory: str) -> None:
    """``every_api``'s record, printed (run inside an interpreter by ``exec``)."""
    report(inside=every_api(directory))


def pool_task(queues: tuple[Any, Any], k: int, directory: str) -> dict[str, Any]:
    """Task ``k`` of two that must run at once: each puts its number on its own queue and waits
    for the other's before it packs and unpacks a route snapshot 20 times and uses every API."""
    interpreters = importlib.import_module("concurrent.interpreters")
    queues[k].put(k)
    other = queues[1 - k].get(timeout=60)
    assert other == 1 - k, other
    document = route_snapshot(2000)
    checksums = set()
    for _ in range(20):
        data = fastmsgpack.packb(document)
        assert fastmsgpack.unpackb(data) == document
        checksums.add(zlib.crc32(data))
    found = every_api(directory, with_asyncio=False)
    return {
        "interpreter": interpreters.get_current().id,
        "thread": threading.get_native_id(),
        "checksums": sorted(checksums),
        "classes": found["classes"],
    }


def rss_kib() -> int:
    with open("/proc/self/status") as status:
        for line in status:
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    raise AssertionError("no VmRSS in /proc/self/status")


class Isolated:
    """A new interpreter with its own GIL: ``run(code)`` raises if the code did."""

    def __init__(self) -> None:
        try:
            interpreters = importlib.import_module("concurrent.interpreters")
        except ImportError:
            import _interpreters  # type: ignore[import-not-found]

            ident = _interpreters.create()  # isolated: its own GIL and allocator

            def run(code: str) -> None:
                failed = _interpreters.exec(ident, code)
                if failed is not None:
                    raise RuntimeError(failed.errdisplay)

            self.run: Callable[[str], None] = run
            self.close: Callable[[], None] = lambda: _interpreters.destroy(ident)
        else:
            interp = interpreters.create()
            self.run = interp.exec
            self.close = interp.close


def cycles(count: int, directory: str) -> None:
    """``count`` interpreters, each made, used (every API) and destroyed, on two threads at
    once; the resident memory is reported after the first half (the warm-up) and at the end."""
    code = f"import _in_interpreters; _in_interpreters.every_api({directory!r}, with_asyncio=False)"
    failures: list[BaseException] = []

    def loop(n: int) -> None:
        try:
            for _ in range(n):
                interp = Isolated()
                try:
                    interp.run(code)
                finally:
                    interp.close()
        except BaseException as err:  # noqa: BLE001 - raised below, in the main thread
            failures.append(err)

    for done in (count // 2, count):
        began = time.perf_counter()
        threads = [threading.Thread(target=loop, args=(count // 4,)) for _ in range(2)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        if failures:
            raise failures[0]
        gc.collect()
        report(
            cycles=done,
            rss_kib=rss_kib(),
            # A debug build counts every reference, those an ended interpreter left included.
            refs=getattr(sys, "gettotalrefcount", lambda: None)(),
            seconds=round(time.perf_counter() - began, 2),
        )


def main() -> None:
    mode, directory = sys.argv[1], sys.argv[-1]
    # Used in the main interpreter first, so that all it keeps is made there: another
    # interpreter must get its own.
    mine = every_api(directory)["classes"]
    report(main=mine, pid=os.getpid())
    if mode == "isolated":
        interp = Isolated()
        try:
            interp.run(f"import _in_interpreters; _in_interpreters.report_every_api({directory!r})")
        finally:
            interp.close()
    elif mode == "pool":
        interpreters = importlib.import_module("concurrent.interpreters")
        pool_executor = importlib.import_module("concurrent.futures").InterpreterPoolExecutor

        expected = fastmsgpack.packb(route_snapshot(2000))
        report(expected=zlib.crc32(expected))
        with pool_executor(max_workers=2) as pool:
            for _ in range(2):  # the second time in the interpreters the first time made
                queues = (interpreters.create_queue(), interpreters.create_queue())
                # By the module's name, not this script's __main__: an interpreter given a
                # function of __main__ runs this file again as its own __main__, where the
                # dataclasses' annotations would not resolve.
                task = importlib.import_module("_in_interpreters").pool_task
                tasks = [pool.submit(task, queues, k, directory) for k in (0, 1)]
                for task in tasks:
                    report(task=task.result(timeout=120))
    elif mode == "cycles":
        cycles(int(sys.argv[2]), directory)
    else:
        raise SystemExit(f"unknown mode {mode!r}")
    # The main interpreter's classes are the same and still work after the others ended.
    assert every_api(directory)["classes"] == mine
    report(done=True)


if __name__ == "__main__":
    main()
