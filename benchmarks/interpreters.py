"""packb and unpackb on the benchmark documents, fastmsgpack against each installed peer, for one
interpreter: the comparison ``scripts/bench --python PATH`` prints for CPython 3.14 and for
free-threaded 3.14t, where the full pytest suite cannot run (some of its libraries publish no
wheel there).

    .venv-3.14t/bin/python benchmarks/interpreters.py [--repeat 7] [--min-time 0.02]

For each document and call, each library's time per call is the median of ``--repeat`` runs,
each of enough calls to last ``--min-time`` seconds. The ratio is fastmsgpack's time over the
fastest peer's (below 1: fastmsgpack is faster), with that peer named. Before anything is timed,
each library's output is checked to decode to the document.
"""

from __future__ import annotations

import argparse
import functools
import gc
import json
import lzma
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


def per_call(call: Callable[[], object], repeat: int, min_time: float) -> float:
    """Median seconds per call over ``repeat`` runs of at least ``min_time`` each."""
    number = 1
    while True:
        began = time.perf_counter()
        for _ in range(number):
            call()
        if time.perf_counter() - began >= min_time:
            break
        number *= 2
    times = []
    for _ in range(repeat):
        began = time.perf_counter()
        for _ in range(number):
            call()
        times.append((time.perf_counter() - began) / number)
    return statistics.median(times)


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
    print(f"median of {args.repeat} runs of at least {args.min_time} s; ratio = fastmsgpack's time")
    print("over the fastest peer's (below 1: fastmsgpack is faster), that peer in brackets")
    print()
    header = f"{'document':<22} {'packb':>12} {'ratio':>20} {'unpackb':>12} {'ratio':>20}"
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
        cells = []
        for op in ("packb", "unpackb"):
            times: dict[str, float] = {}
            for lib, (pack, unpack) in libraries.items():
                if op == "packb" and not plain_types and lib == "msgpack":
                    continue
                call: Callable[[], object]
                if op == "packb":
                    assert parse_datetimes(reference_unpackb(pack(doc))) == expected, lib
                    call = functools.partial(pack, doc)
                else:
                    assert parse_datetimes(unpack(packed)) == expected, lib
                    call = functools.partial(unpack, packed)
                times[lib] = per_call(call, args.repeat, args.min_time)
            ours = times.pop("fastmsgpack")
            if times:
                best = min(times, key=times.__getitem__)
                ratio = f"{ours / times[best]:.2f} ({best})"
            else:
                ratio = "(no peer)"
            cells.append(f"{show(ours):>12} {ratio:>20}")
        print(f"{name:<22} {' '.join(cells)}")
        gc.unfreeze()


if __name__ == "__main__":
    main()
