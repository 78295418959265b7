"""How packb and unpackb scale with interpreters that each have a GIL of their own (CPython 3.14's
``concurrent.interpreters``, through ``InterpreterPoolExecutor``).

Run it with CPython 3.14 or newer, in a virtualenv where fastmsgpack and msgpack are installed
(scripts/test --python PATH makes one, .venv-3.14 for python3.14):

    .venv-3.14/bin/python benchmarks/interpreter_scaling.py [--seconds 0.5] [--workers 1,2]

Each worker of an ``InterpreterPoolExecutor`` is an interpreter with its own GIL, which packs (or
unpacks) the route-planning snapshot of 40k fields (generators.make_route(10000), built in each
interpreter) in a loop. For each count of workers in ``--workers`` (by default 1, 2, 4, 8 and 16,
up to the machine's CPU count), the workers start at one instant of a clock they share and stop
at another; the calls per second of all workers together, and their ratio to one worker, say how
well the work spreads over cores. fastmsgpack is measured beside msgpack, ormsgpack and msgspec,
each where it is installed; a library that cannot be imported in an isolated interpreter is
named with its error and left out, and one that imports there in another form than in the main
interpreter (msgpack-python, whose C extension refuses such interpreters, falls back to its
pure-Python implementation) is named with the module that does its work. The libraries are
timed in turn: each of the best-of-3 rounds times every library once at each count of workers.
The machine needs at least as many idle cores as workers.
"""

from __future__ import annotations

import argparse
import importlib
import os
import platform
import sys
import sysconfig
import time
from typing import Any

import _interpreter_work
from generators import make_route
from thread_scaling import thread_counts

import fastmsgpack

CHILDREN = 10_000  # make_route(n) holds 4n fields
CANDIDATES = ("fastmsgpack", "msgpack", "ormsgpack", "msgspec")
CALLS = ("packb", "unpackb")


def loadable(interpreters: Any) -> list[str]:
    """The libraries that an isolated interpreter imports, each reported: those that fail, with
    their error; msgpack-python, with the module it runs on there."""
    found = []
    for library in CANDIDATES:
        try:
            importlib.import_module(library)
        except ImportError:
            print(f"{library}: not installed for this interpreter, left out")
            continue
        interp = interpreters.create()
        try:
            interp.exec(f"import {library}")
            inside = interp.call(_interpreter_work.implementation, library)
        except interpreters.ExecutionFailed as err:
            print(f"{library}: cannot be imported in an isolated interpreter, left out:")
            print(f"    {str(err).splitlines()[0]}")
            continue
        finally:
            interp.close()
        outside = _interpreter_work.implementation(library)
        if inside != outside:
            print(
                f"{library}: in an isolated interpreter only as {inside} (in the main "
                f"interpreter: {outside}); measured so"
            )
        found.append(library)
    return found


def measure(
    pool: Any, workers: int, library: str, call: str, seconds: float, *, warm_up: bool = False
) -> float:
    """Calls per second of ``workers`` tasks on ``pool`` (which has that many workers), all
    calling ``call`` of ``library`` for ``seconds`` from one instant a little ahead (a second
    ahead for the ``warm_up``, which starts the interpreters: each task then holds its worker
    that long, so that every worker gets one)."""
    start = time.perf_counter() + (1.0 if warm_up else 0.05)
    end = start + seconds
    tasks = [
        pool.submit(_interpreter_work.run, library, call, CHILDREN, start, end)
        for _ in range(workers)
    ]
    results = [task.result() for task in tasks]
    if len({r["interpreter"] for r in results}) != workers:
        raise SystemExit(f"{workers} tasks ran in fewer interpreters: {results}")
    late: float = max(r["began"] for r in results) - start
    if late > seconds / 10 and not warm_up:
        print(f"    ({library} {call}, {workers} workers: one started {late:.3f} s late)")
    calls: int = sum(r["calls"] for r in results)
    ended: float = max(r["ended"] for r in results)
    return calls / (ended - start)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seconds", type=float, default=0.5, help="time per measurement")
    parser.add_argument(
        "--workers",
        help="comma-separated counts of workers (default: 1,2,4,8,16 up to the CPU count)",
    )
    args = parser.parse_args()
    counts = thread_counts(args.workers, "--workers")
    try:
        interpreters = importlib.import_module("concurrent.interpreters")
        pool_class = importlib.import_module("concurrent.futures").InterpreterPoolExecutor
    except (ImportError, AttributeError):
        raise SystemExit(
            f"interpreter_scaling.py needs CPython 3.14 or newer (concurrent.interpreters); "
            f"this is {platform.python_version()}"
        ) from None

    free_threaded = bool(sysconfig.get_config_var("Py_GIL_DISABLED"))
    gil = getattr(sys, "_is_gil_enabled", lambda: True)()
    build = "free-threaded" if free_threaded else "with the GIL"
    impl, version = platform.python_implementation(), platform.python_version()
    print(f"{impl} {version} ({build}), GIL {'on' if gil else 'off'}, {os.cpu_count()} CPUs")
    print(f"fastmsgpack {fastmsgpack.__version__}")
    libraries = loadable(interpreters)
    if not libraries:
        print("no library can be imported in an isolated interpreter: nothing to measure")
        return
    size = len(fastmsgpack.packb(make_route(CHILDREN)))
    print(
        f"document: route snapshot, {4 * CHILDREN // 1000}k fields, {size / 1000:.0f} KB packed;"
        " calls per second of all workers, best of 3;"
    )
    print("beside each, the ratio to one worker")
    print()

    rates: dict[tuple[str, str, int], float] = {}
    pools = {n: pool_class(max_workers=n) for n in counts}
    try:
        # The first run in each pool starts its interpreters, imports the libraries and builds
        # the documents: not counted.
        for n, pool in pools.items():
            for library in libraries:
                measure(pool, n, library, "packb", 0.05, warm_up=True)
        for _ in range(3):
            for library in libraries:
                for call in CALLS:
                    for n, pool in pools.items():
                        rate = measure(pool, n, library, call, args.seconds)
                        key = (library, call, n)
                        rates[key] = max(rates.get(key, 0.0), rate)
    finally:
        for pool in pools.values():
            pool.shutdown()

    columns = [f"{n} worker{'s' if n > 1 else ''}" for n in counts]
    header = f"{'library':<11} {'call':<7}" + "".join(f"{c:>14}" for c in columns)
    print(header)
    print("-" * len(header))
    for library in libraries:
        for call in CALLS:
            one = rates[(library, call, 1)]
            cells = "".join(
                f"{rates[(library, call, n)]:>8.0f} {rates[(library, call, n)] / one:>5.2f}x"
                if n > 1
                else f"{one:>14.0f}"
                for n in counts
            )
            print(f"{library:<11} {call:<7}{cells}")


if __name__ == "__main__":
    main()
