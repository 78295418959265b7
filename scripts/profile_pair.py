#!/usr/bin/env python3
"""Time several libraries' calls of one ``profile_row.py`` row alternately, in one process.

Usage (from the repository root, with the benchmark virtualenv):

    .venv/bin/python scripts/profile_pair.py WORKLOAD CALLS ROUNDS LIBRARY [LIBRARY ...]

Each round times CALLS calls of every LIBRARY in turn, so that a busy machine's drift reaches all
of them alike, in the opposite order every other round. Prints, for each library, the median and
the best round's time of one call and the median over the rounds of its ratio to the first
library's time in the same round. WORKLOAD is
one of ``profile_row.py``'s rows whose calls are listed by library (``CALLS``: ``json-dumps-canada``,
``bins-memoryview-1MiB``, ``numpy-raw-float64-pack``, ``stream-pack-into-100k``, ...).
"""

from __future__ import annotations

import argparse
import gc
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent / "benchmarks"))
sys.path.insert(0, str(HERE))

import profile_row


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "workload", choices=sorted([*profile_row.CALLS, *profile_row.CALL_WORKLOADS])
    )
    parser.add_argument("calls", type=int)
    parser.add_argument("rounds", type=int)
    parser.add_argument("libraries", nargs="+")
    parser.add_argument(
        "--cpu-time",
        action="store_true",
        help="time with the process's CPU time (time.process_time) instead of the wall clock: "
        "on a machine with more runnable processes than cores, a wall-clock round also counts the "
        "time others ran",
    )
    args = parser.parse_args()
    clock = time.process_time if args.cpu_time else time.perf_counter
    calls: dict[str, Callable[[], Any]]
    if args.workload in profile_row.CALL_WORKLOADS:
        calls = profile_row.CALL_WORKLOADS[args.workload](args.workload)
    else:
        make, _ = profile_row.WORKLOADS[args.workload]
        calls = make()
    for library in args.libraries:
        if library not in calls:
            raise SystemExit(f"{args.workload}: no library {library}; one of {', '.join(calls)}")
    gc.collect()
    gc.freeze()
    times: dict[str, list[float]] = {library: [] for library in args.libraries}
    for round_ in range(args.rounds):
        # Every other round runs the libraries in the opposite order, so that none is always
        # timed first (right after the set-up or the other libraries' calls).
        order = args.libraries if round_ % 2 == 0 else args.libraries[::-1]
        for library in order:
            call = calls[library]
            t0 = clock()
            for _ in range(args.calls):
                call()
            times[library].append((clock() - t0) / args.calls)
    first = args.libraries[0]
    for library, own in times.items():
        ratio = statistics.median(a / b for a, b in zip(own, times[first]))
        print(
            f"{library:24s} median {statistics.median(own) * 1e6:10.2f} us"
            f"  best {min(own) * 1e6:10.2f} us  ratio to {first}: {ratio:.3f}"
        )


if __name__ == "__main__":
    main()
