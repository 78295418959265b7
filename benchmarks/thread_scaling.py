"""How packb and unpackb scale with threads (most useful on a free-threaded interpreter).

Run it with the interpreter to measure, in a virtualenv where fastmsgpack and msgpack are
installed (scripts/test --python PATH makes one, .venv-3.14t for python3.14t):

    .venv-3.14t/bin/python benchmarks/thread_scaling.py [--seconds 0.5] [--threads 1,2,4,8,16]

Each thread packs (or unpacks) a document of about 100 KB in a loop. For each count of threads
in ``--threads`` (by default 1, 2, 4, 8 and 16, up to the machine's CPU count), started
together, the calls per second of all threads are counted over the same time; the ratio to one
thread says how well the work spreads over cores. fastmsgpack is measured beside ormsgpack,
msgspec and msgpack, each where it is installed (a free-threaded interpreter may lack some). "distinct" gives each
thread a document of its own (built separately, so no object is shared), "shared" gives them
all the same one, whose objects' reference counts the threads then change at once. With the GIL,
the ratio stays near 1. The machine needs at least as many idle cores as threads.
"""

from __future__ import annotations

import argparse
import functools
import os
import platform
import sys
import sysconfig
import threading
import time
from collections.abc import Callable
from typing import Any

import fastmsgpack


def document(seed: int) -> dict[str, Any]:
    """About 100 KB of MessagePack: records of an API response, each in new objects."""
    records = []
    for i in range(630):
        n = seed * 1000 + i
        records.append(
            {
                "id": n,
                "name": f"user {n}",
                "email": f"user{n}@example.com",
                "active": i % 3 != 0,
                "score": n * 0.37,
                "tags": ["alpha", "beta", f"group-{i % 7}"],
                "location": {"lat": 48.1 + i / 1000, "lon": 11.5 - i / 1000, "city": "Munich"},
                "history": [i, i + 1, i + 2, i * 3],
            }
        )
    return {"page": seed, "count": len(records), "records": records}


Work = Callable[[], object]
# What a thread calls in a loop, made by the thread itself before the timing starts: a thread
# that builds its own document owns its objects, whose reference counts free-threaded CPython
# then changes without atomic instructions, as for the objects a server thread makes.
MakeWork = Callable[[], Work]


def run_once(works: list[MakeWork], seconds: float) -> float:
    """Calls per second of all threads together over one run of ``seconds``."""
    counts = [0] * len(works)
    start = threading.Barrier(len(works) + 1)
    stop = threading.Event()

    def loop(i: int) -> None:
        work = works[i]()
        start.wait()
        n = 0
        while not stop.is_set():
            work()
            n += 1
        counts[i] = n

    threads = [threading.Thread(target=loop, args=(i,)) for i in range(len(works))]
    for t in threads:
        t.start()
    start.wait()
    began = time.perf_counter()
    time.sleep(seconds)
    stop.set()
    for t in threads:
        t.join()
    return sum(counts) / (time.perf_counter() - began)


def rate(works: list[MakeWork], seconds: float) -> float:
    """Calls per second of all threads together, thread ``i`` calling ``works[i]``, over
    ``seconds`` of wall time (best of three runs)."""
    return max(run_once(works, seconds) for _ in range(3))


def cases(
    packb: Callable[[Any], bytes], unpackb: Callable[[bytes], Any], n: int
) -> list[tuple[str, str, list[MakeWork]]]:
    """The four measurements of one library: each call on distinct documents (each thread builds
    and packs its own) and on one shared document (built by the main thread)."""
    shared = document(0)
    shared_packed = packb(shared)
    assert unpackb(shared_packed) == shared

    def own_pack(seed: int) -> Work:
        return functools.partial(packb, document(seed))

    def own_unpack(seed: int) -> Work:
        return functools.partial(unpackb, packb(document(seed)))

    def constant(work: Work) -> MakeWork:
        return lambda: work

    return [
        ("packb", "distinct", [functools.partial(own_pack, i + 1) for i in range(n)]),
        ("packb", "shared", [constant(functools.partial(packb, shared))] * n),
        ("unpackb", "distinct", [functools.partial(own_unpack, i + 1) for i in range(n)]),
        ("unpackb", "shared", [constant(functools.partial(unpackb, shared_packed))] * n),
    ]


def libraries() -> dict[str, tuple[Callable[[Any], bytes], Callable[[bytes], Any]]]:
    """fastmsgpack and each peer that imports here, as (packb, unpackb)."""
    found: dict[str, tuple[Callable[[Any], bytes], Callable[[bytes], Any]]] = {
        "fastmsgpack": (fastmsgpack.packb, fastmsgpack.unpackb),
    }
    try:
        import ormsgpack

        found["ormsgpack"] = (ormsgpack.packb, ormsgpack.unpackb)
    except ImportError:
        print("ormsgpack: not installed for this interpreter, left out")
    try:
        import msgspec

        encoder, decoder = msgspec.msgpack.Encoder(), msgspec.msgpack.Decoder()
        found["msgspec"] = (encoder.encode, decoder.decode)
    except ImportError:
        print("msgspec: not installed for this interpreter, left out")
    try:
        import msgpack  # type: ignore[import-untyped]

        found["msgpack"] = (msgpack.packb, msgpack.unpackb)
    except ImportError:
        print("msgpack: not installed for this interpreter, left out")
    return found


def thread_counts(text: str | None, option: str = "--threads") -> list[int]:
    """The counts of threads (or of workers: interpreter_scaling.py) to measure: those given to
    `option`, or 1, 2, 4, 8, 16 up to the CPU count."""
    if text:
        counts = sorted({int(part) for part in text.split(",")} | {1})
    else:
        cpus = os.cpu_count() or 1
        counts = [n for n in (1, 2, 4, 8, 16) if n <= max(cpus, 2)]
    if counts[0] < 1:
        raise SystemExit(f"{option} takes counts of 1 or more")
    return counts


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seconds", type=float, default=0.5, help="time per measurement")
    parser.add_argument(
        "--threads",
        help="comma-separated counts of threads (default: 1,2,4,8,16 up to the CPU count)",
    )
    args = parser.parse_args()
    counts = thread_counts(args.threads)

    free_threaded = bool(sysconfig.get_config_var("Py_GIL_DISABLED"))
    gil = getattr(sys, "_is_gil_enabled", lambda: True)()
    build = "free-threaded" if free_threaded else "with the GIL"
    impl, version = platform.python_implementation(), platform.python_version()
    print(f"{impl} {version} ({build}), GIL {'on' if gil else 'off'}, {os.cpu_count()} CPUs")
    found = libraries()
    print(f"fastmsgpack {fastmsgpack.__version__}; peers: {', '.join(list(found)[1:]) or 'none'}")
    size = len(fastmsgpack.packb(document(0)))
    print(f"document: {size / 1000:.0f} KB packed; calls per second of all threads, best of 3;")
    print("beside each, the ratio to one thread")
    print()
    columns = [f"{n} thread{'s' if n > 1 else ''}" for n in counts]
    # Within 100 columns for up to five counts of threads.
    header = f"{'library':<11} {'call':<7} {'documents':<9}" + "".join(f"{c:>14}" for c in columns)
    print(header)
    print("-" * len(header))
    for name, (packb, unpackb) in found.items():
        for call, kind, works in cases(packb, unpackb, counts[-1]):
            rates = [rate(works[:n], args.seconds) for n in counts]
            cells = "".join(
                f"{r:>8.0f} {r / rates[0]:>4.1f}x" if n > 1 else f"{r:>14.0f}"
                for n, r in zip(counts, rates)
            )
            print(f"{name:<11} {call:<7} {kind:<9}{cells}")


if __name__ == "__main__":
    main()
