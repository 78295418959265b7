"""Objects read from a stream: ``fastmsgpack.Unpacker`` fed by hand or reading a file, and
``fastmsgpack.unpack(fp)``, against msgpack-python's ``Unpacker`` and ``unpack``.

Groups (``extra_info`` holds the library, the size of the stream in bytes and, for the large
objects, its size in MB):

- ``unpacker-feed-small-100k``: 100,000 small messages (generators.make_small_messages, dicts of
  10 fields, some 150 bytes each) packed one after the other into one stream of some 15 MB, fed
  64 KiB at a time; after each piece, every message now complete is taken and let go, as a
  reader that handles each message in turn would. fastmsgpack's ``Unpacker`` against
  msgpack-python's ``Unpacker(raw=False)``. For reference, without a stream reader:
  ``fastmsgpack-unpackb``, ``ormsgpack`` and ``msgspec`` (a ``msgspec.msgpack.Decoder``) decode
  each message with its own call, from offsets known in advance (a memoryview of the stream
  sliced at each message), the floor for a reader that must find the ends itself; neither
  ormsgpack nor msgspec has a stream API. ``fastmsgpack-compat`` is
  ``fastmsgpack.compat.Unpacker(raw=False)``, called as code written for msgpack-python calls it.
- ``unpacker-feed-small-100k-kept``: the two Unpackers again, with all the messages kept in a
  list. The 200,000 containers that stay alive make the garbage collector walk more at each
  collection, and the memory they take is new: both add about the same time per message to each
  library, so the ratio is closer than when the messages are let go.
- ``unpacker-feed-tiny-100k`` and ``unpacker-feed-tiny-100k-kept``: a queue consumer's case,
  100,000 messages ``{"id": i, "name": f"n{i}", "p": [i / 3, -i / 7]}`` (some 30 bytes each)
  fed 64 KiB at a time, each message let go once taken, or all kept in a list. Beside the two
  Unpackers, ``fastmsgpack-unpackb-array`` and ``msgpack-unpackb-array`` decode the same messages
  packed as one array in one call (the messages all kept, as in the second group): the Unpacker's
  cost per message over one-shot decoding.
- ``unpacker-file-small-100k``: the same stream read from a file-like object
  (``Unpacker(io.BytesIO(stream))``), each library with its default read size, each message let
  go.
- ``unpacker-feed-list-<N>mb`` and ``unpacker-feed-bin-<N>mb``, N = 1, 10, 100: one object of
  (at most) N MB, a list of float 64s or one bin, fed 64 KiB at a time, so that the reader is
  asked for an object after each piece and gets one only after the last. A reader that parsed the
  incomplete object again from its start on every piece would take time in the square of N; the
  time per MB (the median divided by N) shows whether it grows. ``fastmsgpack-unpackb`` decodes
  the same bytes in one call, the floor. The 100 MB objects run only in the full run
  (``scripts/bench`` without ``--quick``: they are marked ``large``).
- ``unpack-file-route-100000``: the route-planning snapshot with N=100,000 (test_route.py), some
  6 MB, read from a file written once to a temporary directory (in the page cache after the first
  read). ``fastmsgpack`` calls ``fastmsgpack.unpack(f)``; ``fastmsgpack-unpackb`` reads the file
  and calls ``unpackb`` on the bytes, which is what ``unpack`` does; ``fastmsgpack-unpacker``
  takes the one object from an ``Unpacker(f)``, which reads the file 64 KiB at a time;
  ``msgpack`` calls ``msgpack.unpack(f, raw=False)``; ormsgpack and msgspec read the file and
  decode the bytes. Opening the file is timed too.

Every stream is packed by msgpack-python, the reference implementation, and every library's
output must equal the objects packed before it is timed. With ``scripts/bench --baseline REV``,
an earlier build that has the Unpacker is timed beside the current one.
"""

from __future__ import annotations

import collections
import functools
import io
import random
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import msgpack  # type: ignore[import-untyped]
import msgspec
import ormsgpack
import pytest
from baseline import BEFORE
from baseline import NAME as BEFORE_NAME
from generators import freeze_inputs, route, small_messages

import fastmsgpack
from fastmsgpack import compat

PIECE = 65536
MESSAGES = 100_000
MB = 1_000_000
SIZES_MB = (1, 10, 100)
ROUTE_N = 100_000

# The fastmsgpack builds timed: this one and, with --baseline, an earlier one with an Unpacker.
BUILDS: dict[str, Any] = {"fastmsgpack": fastmsgpack}
if BEFORE is not None and hasattr(BEFORE, "Unpacker"):
    BUILDS[BEFORE_NAME] = BEFORE

MSGSPEC_DECODER = msgspec.msgpack.Decoder()


def _pack(obj: Any) -> bytes:
    data = msgpack.packb(obj, use_bin_type=True)
    assert isinstance(data, bytes)
    return data


def _pieces(data: bytes) -> list[memoryview]:
    view = memoryview(data)
    return [view[i : i + PIECE] for i in range(0, len(data), PIECE)]


# Takes every item of an iterable and keeps none, in C: the loop of a reader that handles each
# message and lets it go.
_drain: Callable[[Iterable[Any]], None] = collections.deque(maxlen=0).extend


def _fed(make: Callable[[], Any], pieces: list[memoryview]) -> list[Any]:
    """The objects of a stream fed piece by piece to the unpacker ``make()`` returns, each taken
    as soon as it is complete."""
    unpacker = make()
    out: list[Any] = []
    for piece in pieces:
        unpacker.feed(piece)
        out.extend(unpacker)
    return out


def _fed_dropped(make: Callable[[], Any], pieces: list[memoryview]) -> None:
    """``_fed``, with each object dropped as soon as it is taken."""
    unpacker = make()
    for piece in pieces:
        unpacker.feed(piece)
        _drain(unpacker)


class SmallStream:
    def __init__(self) -> None:
        self.messages = small_messages(MESSAGES)
        packed = [_pack(m) for m in self.messages]
        self.stream = b"".join(packed)
        self.pieces = _pieces(self.stream)
        view = memoryview(self.stream)
        self.views: list[memoryview] = []
        start = 0
        for item in packed:
            self.views.append(view[start : start + len(item)])
            start += len(item)


@functools.cache
def small_stream() -> SmallStream:
    stream = SmallStream()
    freeze_inputs()
    return stream


@dataclass(frozen=True)
class Reader:
    """A way to read the 100,000 messages: ``kept`` returns them in a list, ``dropped`` lets
    each go once it is read."""

    kept: Callable[[], list[Any]]
    dropped: Callable[[], None]


def _feeding(make: Callable[[], Any]) -> Reader:
    return Reader(
        lambda: _fed(make, small_stream().pieces), lambda: _fed_dropped(make, small_stream().pieces)
    )


def _each(decode: Callable[[Any], Any]) -> Reader:
    return Reader(
        lambda: list(map(decode, small_stream().views)),
        lambda: _drain(map(decode, small_stream().views)),
    )


def _reading(make: Callable[[io.BytesIO], Any]) -> Reader:
    return Reader(
        lambda: list(make(io.BytesIO(small_stream().stream))),
        lambda: _drain(make(io.BytesIO(small_stream().stream))),
    )


FEED_SMALL: dict[str, Reader] = {
    **{name: _feeding(build.Unpacker) for name, build in BUILDS.items()},
    "fastmsgpack-compat": _feeding(lambda: compat.Unpacker(raw=False)),
    "msgpack": _feeding(lambda: msgpack.Unpacker(raw=False)),
    "fastmsgpack-unpackb": _each(fastmsgpack.unpackb),
    "ormsgpack": _each(ormsgpack.unpackb),
    "msgspec": _each(MSGSPEC_DECODER.decode),
}
KEPT_SMALL = [*BUILDS, "fastmsgpack-compat", "msgpack"]
FILE_SMALL: dict[str, Reader] = {
    **{name: _reading(build.Unpacker) for name, build in BUILDS.items()},
    "fastmsgpack-compat": _reading(lambda f: compat.Unpacker(f, raw=False)),
    "msgpack": _reading(lambda f: msgpack.Unpacker(f, raw=False)),
}


def _label(benchmark: Any, group: str, library: str, size: int) -> None:
    benchmark.group = group
    benchmark.extra_info["library"] = library
    benchmark.extra_info["bytes"] = size


# The readers whose messages were found equal to those packed (a reader is checked once).
_CHECKED: set[int] = set()


def _checked(benchmark: Any, group: str, library: str, reader: Reader) -> None:
    _label(benchmark, group, library, len(small_stream().stream))
    if id(reader) not in _CHECKED:
        assert reader.kept() == small_stream().messages, f"{library}: the messages differ"
        _CHECKED.add(id(reader))


@pytest.mark.parametrize("library", list(FEED_SMALL))
def test_unpacker_feed_small(benchmark: Any, library: str) -> None:
    reader = FEED_SMALL[library]
    _checked(benchmark, "unpacker-feed-small-100k", library, reader)
    benchmark(reader.dropped)


@pytest.mark.parametrize("library", KEPT_SMALL)
def test_unpacker_feed_small_kept(benchmark: Any, library: str) -> None:
    reader = FEED_SMALL[library]
    _checked(benchmark, "unpacker-feed-small-100k-kept", library, reader)
    benchmark(reader.kept)


@pytest.mark.parametrize("library", list(FILE_SMALL))
def test_unpacker_file_small(benchmark: Any, library: str) -> None:
    reader = FILE_SMALL[library]
    _checked(benchmark, "unpacker-file-small-100k", library, reader)
    benchmark(reader.dropped)


class TinyStream:
    """The queue consumer's messages: as a stream in 64 KiB pieces, and as one array."""

    def __init__(self) -> None:
        self.messages = [{"id": i, "name": f"n{i}", "p": [i / 3, -i / 7]} for i in range(MESSAGES)]
        self.stream = b"".join(_pack(m) for m in self.messages)
        self.pieces = _pieces(self.stream)
        self.array = _pack(self.messages)


@functools.cache
def tiny_stream() -> TinyStream:
    stream = TinyStream()
    freeze_inputs()
    return stream


def _tiny_feeding(make: Callable[[], Any]) -> Reader:
    return Reader(
        lambda: _fed(make, tiny_stream().pieces), lambda: _fed_dropped(make, tiny_stream().pieces)
    )


def _tiny_array(decode: Callable[[bytes], Any]) -> Reader:
    return Reader(lambda: list(decode(tiny_stream().array)), lambda: decode(tiny_stream().array))


FEED_TINY: dict[str, Reader] = {
    **{name: _tiny_feeding(build.Unpacker) for name, build in BUILDS.items()},
    "fastmsgpack-compat": _tiny_feeding(lambda: compat.Unpacker(raw=False)),
    "msgpack": _tiny_feeding(lambda: msgpack.Unpacker(raw=False)),
    "fastmsgpack-unpackb-array": _tiny_array(fastmsgpack.unpackb),
    "msgpack-unpackb-array": _tiny_array(lambda b: msgpack.unpackb(b, raw=False)),
}
ARRAYS_TINY = ("fastmsgpack-unpackb-array", "msgpack-unpackb-array")


def _tiny_checked(benchmark: Any, group: str, library: str, reader: Reader) -> None:
    _label(benchmark, group, library, len(tiny_stream().stream))
    if id(reader) not in _CHECKED:
        assert reader.kept() == tiny_stream().messages, f"{library}: the messages differ"
        _CHECKED.add(id(reader))


@pytest.mark.parametrize("library", [lib for lib in FEED_TINY if lib not in ARRAYS_TINY])
def test_unpacker_feed_tiny(benchmark: Any, library: str) -> None:
    reader = FEED_TINY[library]
    _tiny_checked(benchmark, "unpacker-feed-tiny-100k", library, reader)
    benchmark(reader.dropped)


@pytest.mark.parametrize("library", list(FEED_TINY))
def test_unpacker_feed_tiny_kept(benchmark: Any, library: str) -> None:
    reader = FEED_TINY[library]
    _tiny_checked(benchmark, "unpacker-feed-tiny-100k-kept", library, reader)
    benchmark(reader.kept)


class LargeObject:
    """One object of at most ``mb`` MB: a list of float 64s, or one bin."""

    def __init__(self, kind: str, mb: int) -> None:
        rng = random.Random(mb)
        # Headers: 5 bytes (array 32, bin 32); a float 64 takes 9.
        if kind == "list":
            self.obj: Any = [rng.random() for _ in range((mb * MB - 5) // 9)]
        else:
            self.obj = rng.randbytes(mb * MB - 5)
        self.stream = _pack(self.obj)
        assert len(self.stream) <= mb * MB
        self.pieces = _pieces(self.stream)


@functools.cache
def large_object(kind: str, mb: int) -> LargeObject:
    large = LargeObject(kind, mb)
    freeze_inputs()
    return large


def _large_runs(kind: str, mb: int) -> dict[str, Callable[[], list[Any]]]:
    large = large_object(kind, mb)
    return {
        **{
            name: functools.partial(_fed, build.Unpacker, large.pieces)
            for name, build in BUILDS.items()
        },
        "msgpack": functools.partial(_fed, lambda: msgpack.Unpacker(raw=False), large.pieces),
        "fastmsgpack-unpackb": lambda: [fastmsgpack.unpackb(large.stream)],
    }


LARGE_LIBRARIES = [*BUILDS, "msgpack", "fastmsgpack-unpackb"]
LARGE_CASES = [
    pytest.param(kind, mb, marks=[pytest.mark.large] if mb >= 100 else [], id=f"{kind}-{mb}mb")
    for kind in ("list", "bin")
    for mb in SIZES_MB
]


@pytest.mark.parametrize("library", LARGE_LIBRARIES)
@pytest.mark.parametrize(("kind", "mb"), LARGE_CASES)
def test_unpacker_feed_large(benchmark: Any, kind: str, mb: int, library: str) -> None:
    run = _large_runs(kind, mb)[library]
    large = large_object(kind, mb)
    _label(benchmark, f"unpacker-feed-{kind}-{mb:03d}mb", library, len(large.stream))
    benchmark.extra_info["mb"] = mb
    got = run()
    assert len(got) == 1 and got[0] == large.obj, f"{library}: the object differs"
    del got
    benchmark(run)


@pytest.fixture(scope="module")
def route_file(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("streams") / f"route-{ROUTE_N}.msgpack"
    path.write_bytes(_pack(route(ROUTE_N)))
    freeze_inputs()
    return path


def _opened(read: Callable[[Any], Any]) -> Callable[[Path], Any]:
    def run(path: Path) -> Any:
        with path.open("rb") as f:
            return read(f)

    return run


ROUTE_FILE: dict[str, Callable[[Path], Any]] = {
    **{name: _opened(build.unpack) for name, build in BUILDS.items()},
    "fastmsgpack-unpackb": _opened(lambda f: fastmsgpack.unpackb(f.read())),
    "fastmsgpack-unpacker": _opened(lambda f: next(fastmsgpack.Unpacker(f))),
    "msgpack": _opened(lambda f: msgpack.unpack(f, raw=False)),
    "ormsgpack": _opened(lambda f: ormsgpack.unpackb(f.read())),
    "msgspec": _opened(lambda f: msgspec.msgpack.decode(f.read())),
}


@pytest.mark.parametrize("library", list(ROUTE_FILE))
def test_unpack_file_route(benchmark: Any, library: str, route_file: Path) -> None:
    run = ROUTE_FILE[library]
    _label(benchmark, f"unpack-file-route-{ROUTE_N}", library, route_file.stat().st_size)
    assert run(route_file) == route(ROUTE_N), f"{library}: the snapshot differs"
    benchmark(run, route_file)
