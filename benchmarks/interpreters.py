"""packb and unpackb on the benchmark documents, fastmsgpack against each installed peer, for one
interpreter: the comparison ``scripts/bench --python PATH`` prints for CPython 3.14 and for
free-threaded 3.14t, where the full pytest suite cannot run (some of its libraries publish no
wheel there).

    .venv-3.14t/bin/python benchmarks/interpreters.py [--repeat 7] [--min-time 0.02]

For each document and call, each library's time per call is the median of ``--repeat`` runs,
each of enough calls to last ``--min-time`` seconds. The libraries are timed in turn: each repeat
runs every library once, starting from a different library each time, so that a machine slowing
down for a few seconds (another process starting) slows every library alike rather than whichever
one it was timing then. The table shows each library's median and the ratio of fastmsgpack's
median to the fastest peer's (below 1: fastmsgpack is faster), with that peer named; the load
average is printed before and after. Before anything is timed, each library's output is checked
to decode to the document.
"""

from __future__ import annotations

import argparse
import functools
import gc
import json
import lzma
import os
import platform
import statistics
import sys
import sysconfig
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from generators import make_route, make_vocabulary
from test_rich import make_members, make_records, parse_datetimes, plain

import fastmsgpack

FIXTURES = Path(__file__).resolve().parents[1] / "tests" / "data" / "fixtures"
Pack = Callable[[Any], bytes]
Unpack = Callable[[bytes], Any]


def peers() -> dict[str, tuple[Pack, Unpack]]:
    """Each peer that imports here, as (packb, unpackb)."""
    found: dict[str, tuple[Pack, Unpack]] = {}
    try:
        import ormsgpack

        found["ormsgpack"] = (ormsgpack.packb, ormsgpack.unpackb)
    except ImportError:
        print("ormsgpack: not installed for this interpreter, left out")
    try:
        import msgspec

        found["msgspec"] = (msgspec.msgpack.Encoder().encode, msgspec.msgpack.Decoder().decode)
    except ImportError:
        print("msgspec: not installed for this interpreter, left out")
    try:
        import msgpack  # type: ignore[import-untyped]

        found["msgpack"] = (
            lambda obj: msgpack.packb(obj, use_bin_type=True),
            lambda data: msgpack.unpackb(data, raw=False),
        )
    except ImportError:
        print("msgpack: not installed for this interpreter, left out")
    return found


def reference_unpackb(data: bytes) -> Any:
    """``data`` decoded by msgpack-python (a dependency of every test environment), which reads
    the timestamp extension that msgspec writes for datetimes as a ``Timestamp``."""
    import msgpack

    return msgpack.unpackb(data, raw=False)


def fixture(name: str) -> Any:
    with lzma.open(FIXTURES / f"{name}.json.xz") as f:
        return json.loads(f.read())


# Each document: how to build it, and whether msgpack-python can pack it (it has no dataclasses,
# UUIDs, datetimes or enums).
DOCUMENTS: dict[str, tuple[Callable[[], Any], bool]] = {
    "github": (lambda: fixture("github"), True),
    "citm_catalog": (lambda: fixture("citm_catalog"), True),
    "twitter": (lambda: fixture("twitter"), True),
    "canada": (lambda: fixture("canada"), True),
    "route 4k fields": (lambda: make_route(1000), True),
    "route 400k fields": (lambda: make_route(100_000), True),
    "vocabulary 50k terms": (make_vocabulary, True),
    "rich records 5k": (lambda: make_records(5000), False),
    "dataclasses 1k": (lambda: make_members(1000), False),
}


def calls_per_run(call: Callable[[], object], min_time: float) -> int:
    """How many calls of ``call`` take at least ``min_time`` seconds (a power of two)."""
    number = 1
    while True:
        began = time.perf_counter()
        for _ in range(number):
            call()
        if time.perf_counter() - began >= min_time:
            return number
        number *= 2


def in_turn(
    calls: dict[str, Callable[[], object]], repeat: int, min_time: float
) -> dict[str, float]:
    """Median seconds per call of each of ``calls``, over ``repeat`` rounds; each round runs every
    call once (enough times to last ``min_time``), starting one further along the list than the
    round before."""
    numbers = {lib: calls_per_run(call, min_time) for lib, call in calls.items()}
    names = list(calls)
    times: dict[str, list[float]] = {lib: [] for lib in names}
    for round_ in range(repeat):
        shift = round_ % len(names)
        for lib in names[shift:] + names[:shift]:
            call, number = calls[lib], numbers[lib]
            began = time.perf_counter()
            for _ in range(number):
                call()
            times[lib].append((time.perf_counter() - began) / number)
    return {lib: statistics.median(spans) for lib, spans in times.items()}


def load() -> str:
    try:
        one, five, fifteen = os.getloadavg()
    except OSError:
        return "not known here"
    return f"{one:.2f}, {five:.2f}, {fifteen:.2f} (1, 5, 15 min; {os.cpu_count()} CPUs)"


def show(seconds: float) -> str:
    return f"{seconds * 1e6:,.1f} us" if seconds < 1e-3 else f"{seconds * 1e3:,.2f} ms"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--repeat", type=int, default=7, help="runs per measurement (median)")
    parser.add_argument("--min-time", type=float, default=0.02, help="seconds per run at least")
    parser.add_argument("-k", help="only the documents whose name contains this text")
    args = parser.parse_args()

    free_threaded = bool(sysconfig.get_config_var("Py_GIL_DISABLED"))
    gil = getattr(sys, "_is_gil_enabled", lambda: True)()
    build = "free-threaded" if free_threaded else "with the GIL"
    print(f"CPython {platform.python_version()} ({build}), GIL {'on' if gil else 'off'}")
    found = peers()
    print(f"fastmsgpack {fastmsgpack.__version__}; peers: {', '.join(found) or 'none'}")
    print(
        f"median of {args.repeat} runs of at least {args.min_time} s, the libraries timed in turn;"
    )
    print("ratio = fastmsgpack's median over the fastest peer's (below 1: fastmsgpack is faster),")
    print("that peer in brackets")
    print(f"load average at the start: {load()}")
    print()
    names = ["fastmsgpack", *found]
    header = f"{'document':<22} {'call':<8} " + " ".join(f"{lib:>11}" for lib in names)
    header += f" {'ratio':>17}"
    print(header)
    print("-" * len(header))
    for name, (make, plain_types) in DOCUMENTS.items():
        if args.k and args.k not in name:
            continue
        doc = make()
        gc.collect()
        gc.freeze()
        expected = plain(doc) if not plain_types else doc
        packed = fastmsgpack.packb(doc)
        libraries: dict[str, tuple[Pack, Unpack]] = {
            "fastmsgpack": (fastmsgpack.packb, fastmsgpack.unpackb),
            **found,
        }
        for op in ("packb", "unpackb"):
            calls: dict[str, Callable[[], object]] = {}
            for lib, (pack, unpack) in libraries.items():
                if op == "packb" and not plain_types and lib == "msgpack":
                    continue
                if op == "packb":
                    assert parse_datetimes(reference_unpackb(pack(doc))) == expected, lib
                    calls[lib] = functools.partial(pack, doc)
                else:
                    assert parse_datetimes(unpack(packed)) == expected, lib
                    calls[lib] = functools.partial(unpack, packed)
            times = in_turn(calls, args.repeat, args.min_time)
            cells = " ".join(f"{show(times[lib]) if lib in times else '-':>11}" for lib in names)
            ours = times.pop("fastmsgpack")
            if times:
                best = min(times, key=times.__getitem__)
                ratio = f"{ours / times[best]:.2f} ({best})"
            else:
                ratio = "(no peer)"
            print(f"{name if op == 'packb' else '':<22} {op:<8} {cells} {ratio:>17}")
        gc.unfreeze()
    print()
    print(f"load average at the end: {load()}")


if __name__ == "__main__":
    main()
