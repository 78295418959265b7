#!/usr/bin/env python3
"""Run one benchmark row's call in a loop, for a profiler: callgrind, perf or plain timing.

Usage (from the repository root, with the benchmark virtualenv):

    .venv/bin/python scripts/profile_row.py WORKLOAD LIBRARY [ITERATIONS]
    valgrind --tool=callgrind --callgrind-out-file=OUT \\
        .venv/bin/python scripts/profile_row.py WORKLOAD LIBRARY ITERATIONS

WORKLOAD is one of the names in ``WORKLOADS`` below (``route-unpack-1000``, ``github-unpack``,
``vocab-pack``, ``dataclasses-pack``, ``view-walk-1000``, ...; and from ``CALLS``, rows whose
calls differ by more than the function: ``fragment-insert``, ``stream-pack-join-100k``,
``json-dumps-twitter``, ``route-pack-calls-1000`` with protobuf, ..., whose libraries are the
benchmark's own and ``noop``) and LIBRARY one of ``LIBRARIES`` (``fastmsgpack``,
``fastmsgpack-unpackb``, ``msgspec``, ``ormsgpack``, ``msgpack``, ``marshal``, ``noop``, and
``fastmsgpack-before`` when the environment variable ``FASTMSGPACK_BASELINE`` names an earlier
build's extension module, as ``scripts/bench --baseline`` sets it: ``benchmarks/baseline.py``).
The inputs come from the
benchmarks' own generators (``benchmarks/generators.py``, the fixtures of ``benchmarks/conftest.py``,
``benchmarks/test_rich.py``); each library unpacks what it packed itself. The inputs are frozen
out of the collector's view as the benchmarks freeze theirs. The rows of
``benchmarks/test_streams_unpack.py`` and ``benchmarks/test_langgraph.py`` (``CALL_WORKLOADS``:
``feed-small-100k``, ``feed-bin-1mb``, ``langgraph-loads-records``, ...) run those files' own
calls, by their library names (``fastmsgpack``, ``msgpack``, ``ormsgpack``,
``fastmsgpack-unpackb``, ``langgraph-jsonplus``, ...; ``hooks`` for the LangGraph rows, see
``_langgraph_calls``).

Instruction counts under callgrind are the same from run to run on a busy machine; the count of
one call is that of a run with ITERATIONS calls less that of a run with 0 (the set-up alone),
divided by ITERATIONS. ``--callgrind`` does that: it runs both under valgrind (both with
``PYTHONHASHSEED=0``) and prints the instructions per call. ``--cachegrind`` does the same with
cachegrind's cache and branch simulation: per call, the instructions (Ir), first-level instruction
and data cache misses (I1mr, D1mr, D1mw), last-level misses, and conditional and indirect branches
with their mispredictions (Bc, Bcm, Bi, Bim). ``--no-gc`` disables the collector around the loop
(object creation measured without collections). Without a profiler the script prints the median
time of one call.

``noop`` calls ``len`` on the packed bytes (or the object): the loop's and the call's own cost, to
subtract from the others. ``marshal`` is not a MessagePack library: it makes the same Python
objects from its own format with the least work CPython has, though not always with fewer
instructions than a MessagePack decoder.

The task-queue rows (``arq-roundtrip-100kb``, ``celery-roundtrip-1kb``, ...) run the serializer
calls of one round trip in this one process (``benchmarks/_queue_calls.py``), for ``fastmsgpack``
and the framework's default as named in the benchmark tables (``arq-pickle``, ``rq-pickle``,
``dramatiq-json``, ``kombu-msgpack``, ``kombu-json``): the serializer's share of the round trip.

``walk`` runs ``packb``'s walk over the object with nothing written (every value read, as for
packing, and dropped): the reading of the Python objects alone. It needs a build with the
``walk-probe`` feature, named by the environment variable ``FASTMSGPACK_WALK_PROBE``::

    CARGO_TARGET_DIR=target/probe .venv/bin/maturin build --release --features walk-probe \
        --out target/probe/wheel
    .venv/bin/python -m zipfile -e target/probe/wheel/*.whl target/probe/module
    FASTMSGPACK_WALK_PROBE=$(find target/probe/module -name '_fastmsgpack*.so') \
        .venv/bin/python scripts/profile_row.py route-pack-1000 walk 300 --callgrind

``native`` (route rows only, from the same build) packs the route held as Rust values, read out
of the Python objects beforehand, with ``packb``'s own emitter and writer: the writing alone. The
``route-pack-calls-<N>`` rows list ``walk`` and ``native`` too when the build is named, for
``profile_pair.py``.

``fastmsgpack-packer`` packs with one ``Packer``, whose output starts at the size of its last one.

``slices`` (``stream-pack-join-100k``) makes the row's 100,000 ``bytes`` objects by CPython alone,
as slices of the packed stream, keeps them in a list and joins them: the part of the row that is
not packing (``_joined_slices``).
"""

from __future__ import annotations

import argparse
import functools
import gc
import marshal
import os
import re
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "benchmarks"))


def _route(n: int) -> Callable[[], Any]:
    def make() -> Any:
        from generators import route

        return route(n)

    return make


def _document(name: str) -> Callable[[], Any]:
    def make() -> Any:
        from conftest import load_document

        return load_document(name)

    return make


def _vocabulary() -> Any:
    from generators import vocabulary

    return vocabulary()


def _members() -> Any:
    from test_rich import make_members

    return make_members(1000)


def _records() -> Any:
    from test_rich import make_records

    return make_records(5000)


def _trades() -> Any:
    from test_rich import make_trades

    return make_trades(10_000)


def _small_message() -> Any:
    from generators import small_message

    return small_message()


# name: (input, direction)
WORKLOADS: dict[str, tuple[Callable[[], Any], str]] = {
    **{f"route-unpack-{n}": (_route(n), "unpack") for n in (1, 100, 1000, 10000, 100000)},
    **{f"route-pack-{n}": (_route(n), "pack") for n in (1, 100, 1000, 10000, 100000)},
    **{f"{d}-unpack": (_document(d), "unpack") for d in ("github", "twitter", "canada")},
    **{f"{d}-pack": (_document(d), "pack") for d in ("github", "twitter", "canada")},
    "vocab-pack": (_vocabulary, "pack"),
    "vocab-unpack": (_vocabulary, "unpack"),
    "dataclasses-pack": (_members, "pack"),
    "records-pack": (_records, "pack"),
    "namedtuples-pack": (_trades, "pack"),
    "small-unpack": (_small_message, "unpack"),
    **{f"view-walk-{n}": (_route(n), "walk") for n in (1, 100, 1000, 10000)},
    "small-pack": (_small_message, "pack"),
    "citm_catalog-unpack": (_document("citm_catalog"), "unpack"),
    "citm_catalog-pack": (_document("citm_catalog"), "pack"),
}
"""Direction "walk" is ``benchmarks/test_view.py``'s ``view-walk`` row: for ``fastmsgpack`` (and
``fastmsgpack-before``) a ``View`` of the packed route walked fully, for any other library its
decoder followed by the same walk over the dicts and lists it made (``fastmsgpack-unpackb`` is
``unpackb`` and the walk)."""


def _queue_calls(row: str) -> Callable[[], Any]:
    def make() -> Any:
        from _queue_calls import ROWS, check

        check(row)
        return ROWS[row]()

    return make


# The serializer calls of one round trip of a task-queue row (direction "calls": the input is a
# call by library, fastmsgpack against the framework's default, named as in the benchmark
# tables: arq-pickle, rq-pickle, dramatiq-json, kombu-msgpack, kombu-json), from
# benchmarks/_queue_calls.py.
WORKLOADS.update(
    {
        f"{framework}-roundtrip-{size}": (_queue_calls(f"{framework}-roundtrip-{size}"), "calls")
        for framework in ("arq", "rq", "dramatiq", "celery")
        for size in ("1kb", "100kb")
    }
)


def _insert_calls() -> dict[str, Callable[[], Any]]:
    import test_fragment

    # The floor: the same output made by CPython with one allocation and one copy of the
    # sub-document, as the envelope's header (20 bytes) followed by the cached bytes.
    head = test_fragment.EXPECTED[: len(test_fragment.EXPECTED) - len(test_fragment.CACHED)]
    assert head + test_fragment.CACHED == test_fragment.EXPECTED
    cached = test_fragment.CACHED
    return {**test_fragment.INSERT, "concat": lambda: head + cached}


def _stream_calls(group: str) -> Callable[[], dict[str, Callable[[], Any]]]:
    def make() -> dict[str, Callable[[], Any]]:
        import test_streams_pack
        from generators import route, small_messages

        test_streams_pack.MESSAGES[:] = small_messages()
        test_streams_pack.ROUTE.update(route(100_000))
        calls = dict(test_streams_pack.WORKLOADS[group])
        if group == "stream-pack-join-100k":
            calls["slices"] = _joined_slices(test_streams_pack.MESSAGES)
        return calls

    return make


def _joined_slices(messages: list[Any]) -> Callable[[], Any]:
    """The part of ``stream-pack-join-100k`` that is not packing: as many ``bytes`` objects as
    there are messages, of the packed messages' sizes and contents, made by CPython (slices of
    the packed stream, each a new object and a copy, from CPython's own allocator), kept in a
    list, joined, then freed."""
    import fastmsgpack

    outputs = [fastmsgpack.packb(m) for m in messages]
    stream = b"".join(outputs)
    bounds, at = [], 0
    for out in outputs:
        bounds.append((at, at + len(out)))
        at += len(out)
    return lambda: b"".join([stream[a:b] for a, b in bounds])


def _numpy_calls(name: str, table: str) -> Callable[[], dict[str, Callable[[], Any]]]:
    def make() -> dict[str, Callable[[], Any]]:
        import test_numpy

        array = test_numpy.ARRAYS[name]
        calls = getattr(test_numpy, table)
        return {lib: functools.partial(pack, array) for lib, pack in calls.items()}

    return make


def _json_dumps_calls(name: str) -> Callable[[], dict[str, Callable[[], Any]]]:
    def make() -> dict[str, Callable[[], Any]]:
        import test_json

        document = _document(name)()
        return {lib: functools.partial(dumps, document) for lib, dumps in test_json.DUMPS.items()}

    return make


def _json_lists() -> dict[str, Callable[[], Any]]:
    """16,000-item lists of one kind of value each, for ``json-dumps-list-<kind>``: strings of
    1-3 bytes, of 30-49 bytes, non-ASCII strings of 13 or 26 bytes of UTF-8, and empty lists
    (lengths drawn from a seeded generator)."""
    import random

    rng = random.Random(1)
    return {
        "short-str": lambda: ["abc"[: rng.randrange(1, 4)] for _ in range(16000)],
        "str-30-49": lambda: ["y" * rng.randrange(30, 50) for _ in range(16000)],
        "non-ascii-str": lambda: [
            "caf\u00e9 na\u00efve " * rng.randrange(1, 3) for _ in range(16000)
        ],
        "empty-list": lambda: [[] for _ in range(16000)],
    }


def _json_list_calls(kind: str) -> Callable[[], dict[str, Callable[[], Any]]]:
    def make() -> dict[str, Callable[[], Any]]:
        import test_json

        value = _json_lists()[kind]()
        return {lib: functools.partial(dumps, value) for lib, dumps in test_json.DUMPS.items()}

    return make


def _model_dumps(value: Any) -> None:
    if isinstance(value, (list, tuple)):
        for item in value:
            _model_dumps(item)
    elif isinstance(value, dict):
        for item in value.values():
            _model_dumps(item)
    elif callable(getattr(value, "model_dump", None)):
        value.model_dump()


def _langgraph_dumps_calls(name: str) -> Callable[[], dict[str, Callable[[], Any]]]:
    def make() -> dict[str, Callable[[], Any]]:
        import test_langgraph

        value = test_langgraph.VALUES[name]
        calls: dict[str, Callable[[], Any]] = {
            lib: functools.partial(serde.dumps_typed, value)
            for lib, serde in test_langgraph.SERIALIZERS.items()
        }
        # The share both serializers leave to pydantic: `model_dump()` of every model in the value.
        calls["model-dump"] = functools.partial(_model_dumps, value)
        return calls

    return make


def _route_pack_calls(n: int) -> Callable[[], dict[str, Callable[[], Any]]]:
    def make() -> dict[str, Callable[[], Any]]:
        import test_route

        obj = _route(n)()
        calls: dict[str, Callable[[], Any]] = {}
        for lib in test_route.LIBRARIES.values():
            prepared = lib.prepare(obj)
            calls[lib.name] = functools.partial(lib.pack, prepared, **lib.pack_kwargs)
        probe = os.environ.get("FASTMSGPACK_WALK_PROBE")
        if probe:
            calls["walk"] = functools.partial(_load_probe(probe)._walk, obj)
            calls["native"] = _native_call(obj)
        return calls

    return make


def _document_pack_calls(name: str) -> Callable[[], dict[str, Callable[[], Any]]]:
    """``packb`` of a document by every library of ``LIBRARIES`` (and ``walk`` with the
    walk-probe build), for ``profile_pair.py``."""

    def make() -> dict[str, Callable[[], Any]]:
        obj = _document(name)()
        calls: dict[str, Callable[[], Any]] = {
            library: functools.partial(pack, obj)
            for library, (pack, _) in _libraries().items()
            if library != "noop"
        }
        calls["noop"] = functools.partial(len, b"")
        return calls

    return make


def _bins_calls() -> dict[str, Callable[[], Any]]:
    import test_zero_copy as z

    # The floor: one allocation of the bin's size and one copy of it, by CPython alone (a slice).
    message, skip = z.MESSAGE, len(z.MESSAGE) - len(z.BLOB)
    assert message[skip:] == z.BLOB
    return {
        **{lib: functools.partial(decode, message) for lib, decode in z.BINS.items()},
        "copy": lambda: message[skip:],
    }


def _dask_serialize_calls(name: str) -> Callable[[], dict[str, Callable[[], Any]]]:
    def make() -> dict[str, Callable[[], Any]]:
        import test_dask
        from distributed.protocol.serialize import serialize

        value = test_dask._inputs()[name]
        return {
            family: functools.partial(serialize, value, serializers=[family], on_error="raise")
            for family in test_dask.FAMILIES[name]
        }

    return make


# Rows whose calls differ from library to library by more than the function (direction "calls"),
# each library's call as the benchmark's own module makes it (benchmarks/test_*.py), and "noop".
CALLS: dict[str, Callable[[], dict[str, Callable[[], Any]]]] = {
    "fragment-insert": _insert_calls,
    **{
        f"stream-pack-{kind}": _stream_calls(f"stream-pack-{kind}")
        for kind in ("bytesio-100k", "join-100k", "into-100k", "file-route-100000")
    },
    **{f"numpy-{t}-pack": _numpy_calls(t, "ELEMENTWISE") for t in ("int32", "uint8", "float64")},
    "numpy-raw-float64-pack": _numpy_calls("float64", "RAW_PACK"),
    **{f"json-dumps-{d}": _json_dumps_calls(d) for d in ("github", "twitter", "canada")},
    "json-dumps-citm_catalog": _json_dumps_calls("citm_catalog"),
    **{
        f"json-dumps-list-{k}": _json_list_calls(k)
        for k in ("short-str", "str-30-49", "non-ascii-str", "empty-list")
    },
    **{
        f"langgraph-dumps-{v}": _langgraph_dumps_calls(v)
        for v in ("messages", "documents", "records")
    },
    **{f"route-pack-calls-{n}": _route_pack_calls(n) for n in (1, 100, 1000, 10000, 100000)},
    **{f"{d}-pack-calls": _document_pack_calls(d) for d in ("github", "twitter", "canada")},
    "bins-memoryview-1MiB": _bins_calls,
    **{
        f"dask-serialize-{n}": _dask_serialize_calls(n) for n in ("float64-1000000", "route-100000")
    },
}


def _with_noop(make: Callable[[], dict[str, Callable[[], Any]]]) -> Callable[[], Any]:
    return lambda: {**make(), "noop": lambda: len(b"")}


WORKLOADS.update({name: (_with_noop(make), "calls") for name, make in CALLS.items()})


def _stream_readers(workload: str) -> dict[str, Callable[[], Any]]:
    """The calls of a row of benchmarks/test_streams_unpack.py, by library: the stream of 100,000
    small messages fed 64 KiB at a time (``feed-small-100k``, each message let go;
    ``feed-small-100k-kept``, all kept in a list), or one large object fed so
    (``feed-list-1mb``, ``feed-bin-1mb``, ...)."""
    import test_streams_unpack as streams

    if workload.startswith("feed-small-100k"):
        streams.small_stream()  # made now: part of the set-up, not of the first call
        readers = streams.FEED_SMALL
        if workload.endswith("-kept"):
            # ``marshal``: the same 100,000 dicts made by CPython from its own format, with the
            # least work it has: the memory the kept objects take, and the collections their
            # making sets off, without any reader.
            data = marshal.dumps(streams.small_stream().messages)
            kept = {name: readers[name].kept for name in streams.KEPT_SMALL}
            return {**kept, "marshal": lambda: marshal.loads(data)}
        return {name: reader.dropped for name, reader in readers.items()}
    kind, size = workload.removeprefix("feed-").split("-")
    mb = int(size.removesuffix("mb"))
    runs = streams._large_runs(kind, mb)  # makes the object now
    pieces = streams.large_object(kind, mb).pieces
    # The part of the bin rows that is not a reader's: the pieces fed to a reader that keeps
    # nothing (``loop``), and the two copies of the payload every reader makes, into its buffer
    # and into the bytes it returns (``copies``: one join, one slice past the 5-byte header).
    runs["loop"] = functools.partial(streams._fed, _Idle, pieces)
    runs["copies"] = lambda: [b"".join(pieces)[5:]]
    return runs


class _Idle:
    """A reader that takes the pieces and never has an object."""

    def feed(self, data: Any) -> None:
        pass

    def __iter__(self) -> Any:
        return iter(())


def _langgraph_calls(workload: str) -> dict[str, Callable[[], Any]]:
    """``loads_typed`` of a row of benchmarks/test_langgraph.py, by serializer, and ``hooks``:
    LangGraph's own extension hook called on the payload of each extension of the top level
    (the messages, the documents), the part of the call that is not the decoder's."""
    import test_langgraph as lg

    import fastmsgpack

    name = workload.removeprefix("langgraph-loads-")
    data = lg.SERIALIZERS["langgraph-jsonplus"].dumps_typed(lg.VALUES[name])
    ours = lg.SERIALIZERS["fastmsgpack"]
    exts: list[tuple[int, bytes]] = []

    def keep(code: int, payload: bytes) -> None:
        exts.append((code, bytes(payload)))

    fastmsgpack.unpackb(data[1], ext_hook=keep, option=fastmsgpack.OPT_NON_STR_KEYS)
    hook = ours._unpack_ext_hook
    calls: dict[str, Callable[[], Any]] = {
        library: functools.partial(serde.loads_typed, data)
        for library, serde in lg.SERIALIZERS.items()
    }
    calls["hooks"] = lambda: [hook(code, payload) for code, payload in exts]
    return calls


# Rows whose call is not one library function on one input: workload -> the calls, by library.
CALL_WORKLOADS: dict[str, Callable[[str], dict[str, Callable[[], Any]]]] = {
    **{
        name: _stream_readers
        for name in (
            "feed-small-100k",
            "feed-small-100k-kept",
            *(f"feed-{kind}-{mb}mb" for kind in ("list", "bin") for mb in (1, 10)),
        )
    },
    **{
        f"langgraph-loads-{name}": _langgraph_calls for name in ("messages", "documents", "records")
    },
}


def _libraries() -> dict[str, tuple[Callable[[Any], bytes], Callable[[bytes], Any]]]:
    import msgpack  # type: ignore[import-untyped]
    import msgspec
    import ormsgpack
    from baseline import BEFORE

    import fastmsgpack

    before = {"fastmsgpack-before": (BEFORE.packb, BEFORE.unpackb)} if BEFORE is not None else {}
    probe = os.environ.get("FASTMSGPACK_WALK_PROBE")
    walk = {"walk": (_load_probe(probe)._walk, len)} if probe else {}
    return {
        "fastmsgpack": (fastmsgpack.packb, fastmsgpack.unpackb),
        **before,
        "fastmsgpack-unpackb": (fastmsgpack.packb, fastmsgpack.unpackb),
        "msgspec": (msgspec.msgpack.encode, msgspec.msgpack.decode),
        "ormsgpack": (ormsgpack.packb, ormsgpack.unpackb),
        "msgpack": (
            lambda o: msgpack.packb(o, use_bin_type=True),
            lambda b: msgpack.unpackb(b, raw=False),
        ),
        "marshal": (marshal.dumps, marshal.loads),
        # A call that does nothing: `len` of the packed bytes (one argument, a C function), the
        # cost of the loop and of calling into an extension function, shared by every library.
        "noop": (fastmsgpack.packb, len),
        "fastmsgpack-packer": (fastmsgpack.Packer().pack, fastmsgpack.unpackb),
        **walk,
    }


@functools.cache
def _load_probe(path: str) -> Any:
    """The extension module at ``path``, a build with the ``walk-probe`` feature (``_walk``)."""
    from baseline import load_extension

    module = load_extension(path, "fastmsgpack_walk_probe")
    if not hasattr(module, "_walk"):
        raise SystemExit(f"FASTMSGPACK_WALK_PROBE: {path} was built without the walk-probe feature")
    return module


def _native_call(obj: Any) -> Callable[[], Any]:
    """The ``native`` library's call: the route ``obj`` held as Rust values, packed by ``packb``'s
    emitter and writer (the walk-probe build's ``NativeRoute``; the writing alone)."""
    import fastmsgpack

    probe = os.environ.get("FASTMSGPACK_WALK_PROBE")
    if not probe:
        raise SystemExit("native: FASTMSGPACK_WALK_PROBE names no walk-probe build")
    native = _load_probe(probe).NativeRoute(obj)
    if native.pack() != fastmsgpack.packb(obj):
        raise SystemExit("native: the probe's bytes differ from packb's")
    return native.pack  # type: ignore[no-any-return]


def _walk_call(library: str, data: bytes, unpack: Callable[[bytes], Any]) -> Callable[[], Any]:
    """The call of a "walk" workload (see ``WORKLOADS``)."""
    from baseline import BEFORE
    from test_view import walk_of

    import fastmsgpack

    if library == "fastmsgpack":
        walk = walk_of(fastmsgpack.MapView, fastmsgpack.ArrayView)
        return lambda: walk(fastmsgpack.View(data))
    if library == "fastmsgpack-before" and BEFORE is not None:
        walk_before = walk_of(BEFORE.MapView, BEFORE.ArrayView)
        return lambda: walk_before(BEFORE._view(data))
    walk_plain = walk_of(dict, list)
    return lambda: walk_plain(unpack(data))


def run(workload: str, library: str, iterations: int, no_gc: bool) -> float:
    """Runs the call `iterations` times; returns the median seconds of one call."""
    if workload in CALL_WORKLOADS:
        calls = CALL_WORKLOADS[workload](workload)
        if library not in calls:
            raise SystemExit(f"{workload}: no library {library}; one of {', '.join(calls)}")
        call: Callable[[], Any] = calls[library]
        return _timed(call, iterations, no_gc)
    make, direction = WORKLOADS[workload]
    obj = make()
    if direction == "calls":
        call = obj[library]
    elif direction == "pack" and library == "native":
        call = _native_call(obj)
    elif direction == "pack":
        pack, unpack = _libraries()[library]
        call = lambda: pack(obj)
    elif direction == "walk":
        pack, unpack = _libraries()[library]
        call = _walk_call(library, pack(obj), unpack)
        if call() != obj:
            raise SystemExit(f"{library}: {workload} does not walk to the input")
    else:
        pack, unpack = _libraries()[library]
        data = pack(obj)
        if library != "noop" and unpack(data) != obj:
            raise SystemExit(f"{library}: {workload} does not round-trip")
        call = lambda: unpack(data)
    return _timed(call, iterations, no_gc)


def _timed(call: Callable[[], Any], iterations: int, no_gc: bool) -> float:
    gc.collect()
    gc.freeze()
    if no_gc:
        gc.disable()
    # Timed in 50 batches, so that the clock's own cost is spread over each batch's calls.
    batch = max(1, iterations // 50)
    times = []
    for _ in range(iterations // batch):
        t0 = time.perf_counter()
        for _ in range(batch):
            call()
        times.append((time.perf_counter() - t0) / batch)
    gc.enable()
    times.sort()
    return times[len(times) // 2] if times else 0.0


def _cachegrind_events(args: list[str]) -> dict[str, int]:
    """The summary events of a cachegrind run (instructions, cache misses, branch mispredictions)."""
    with tempfile.TemporaryDirectory() as tmp:
        out = os.path.join(tmp, "cachegrind.out")
        subprocess.run(
            ["valgrind", "--tool=cachegrind", "--branch-sim=yes", f"--cachegrind-out-file={out}"]
            + args,
            check=True,
            capture_output=True,
            env={**os.environ, "PYTHONHASHSEED": "0"},
        )
        text = Path(out).read_text()
    events = re.search(r"^events:\s+(.*)$", text, re.MULTILINE)
    summary = re.search(r"^summary:\s+(.*)$", text, re.MULTILINE)
    if events is None or summary is None:
        raise SystemExit("no summary in the cachegrind output")
    return dict(zip(events.group(1).split(), map(int, summary.group(1).split()), strict=True))


def _callgrind_total(args: list[str]) -> int:
    with tempfile.TemporaryDirectory() as tmp:
        out = os.path.join(tmp, "callgrind.out")
        subprocess.run(
            ["valgrind", "--tool=callgrind", f"--callgrind-out-file={out}", *args],
            check=True,
            capture_output=True,
            # One hash seed for both runs: the set-up's dicts and sets then take the same steps
            # (with random seeds the two runs' set-up differed by up to 1M instructions).
            env={**os.environ, "PYTHONHASHSEED": "0"},
        )
        text = Path(out).read_text()
    match = re.search(r"^totals:\s+(\d+)", text, re.MULTILINE) or re.search(
        r"^summary:\s+(\d+)", text, re.MULTILINE
    )
    if match is None:
        raise SystemExit("no totals in the callgrind output")
    return int(match.group(1))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("workload", choices=sorted([*WORKLOADS, *CALL_WORKLOADS]))
    parser.add_argument("library")
    parser.add_argument("iterations", type=int, nargs="?", default=200)
    parser.add_argument("--no-gc", action="store_true", help="the collector off around the loop")
    parser.add_argument(
        "--callgrind",
        action="store_true",
        help="instructions per call: callgrind runs of ITERATIONS and 0 calls, subtracted",
    )
    parser.add_argument(
        "--cachegrind",
        action="store_true",
        help="simulated cache misses and mispredicted branches per call, subtracted as --callgrind",
    )
    ns = parser.parse_args()
    if ns.cachegrind:
        base = [sys.executable, __file__, ns.workload, ns.library]
        extra = ["--no-gc"] if ns.no_gc else []
        full_events = _cachegrind_events([*base, str(ns.iterations), *extra])
        empty_events = _cachegrind_events([*base, "0", *extra])
        per_call = {k: (v - empty_events[k]) / ns.iterations for k, v in full_events.items()}
        shown = " ".join(f"{k}={v:,.0f}" for k, v in per_call.items())
        print(f"{ns.workload} {ns.library}: {shown} per call")
        return
    if ns.callgrind:
        base = [sys.executable, __file__, ns.workload, ns.library]
        extra = ["--no-gc"] if ns.no_gc else []
        full = _callgrind_total([*base, str(ns.iterations), *extra])
        empty = _callgrind_total([*base, "0", *extra])
        per_call = (full - empty) / ns.iterations
        print(f"{ns.workload} {ns.library}: {per_call:,.0f} instructions per call")
        return
    median = run(ns.workload, ns.library, ns.iterations, ns.no_gc)
    print(f"{ns.workload} {ns.library}: median {median * 1e6:,.3f} us per call")


if __name__ == "__main__":
    main()
