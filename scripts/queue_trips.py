#!/usr/bin/env python3
"""The task-queue round trips of the benchmarks (benchmarks/test_queues.py and test_celery.py),
timed in turns: one round trip of each library, then again, ROUNDS times, so that the load of a
shared machine falls on every library alike. (The benchmarks time all of one library's rounds,
then the next library's, and load that comes and goes between them moves their ratios by more
than the serializers differ.) Prints each library's median and fastest round trip, and the
median's ratio to fastmsgpack's.

Usage (from the repository root, with the benchmark virtualenv):

    .venv/bin/python scripts/queue_trips.py [--rounds 40] [ROW ...]

ROW is a row of the benchmark tables (``arq-roundtrip-1kb``, ``celery-roundtrip-100kb``, ...);
without one, every row. Each framework's workers run at once, one per serializer, each on its
own database of one redis-server on a loopback port; ``bytes-floor`` is fastmsgpack's worker
with the payload replaced by bytes as long as fastmsgpack's encoding of it.
"""

from __future__ import annotations

import argparse
import contextlib
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT / "benchmarks"), str(ROOT / "tests")]

import _queue_trips as trips
from _queue_bench_apps import payload
from _servers import redis_server  # type: ignore[import-not-found]

from fastmsgpack.integrations import _exact
from fastmsgpack.integrations import kombu as fm_kombu

SIZES = {"1kb": 13, "100kb": 1300}
# library: (how its worker starts, what it sends: "fast", "iso" or "floor")
Start = Callable[[str, Path], Any]
FRAMEWORKS: dict[str, dict[str, tuple[Start, str]]] = {
    "arq": {
        "fastmsgpack": (lambda url, log: trips.arq_trip(url, True, log), "fast"),
        "arq-pickle": (lambda url, log: trips.arq_trip(url, False, log), "fast"),
    },
    "rq": {
        "fastmsgpack": (lambda url, log: trips.rq_trip(url, True, log), "fast"),
        "rq-pickle": (lambda url, log: trips.rq_trip(url, False, log), "fast"),
    },
    "dramatiq": {
        "fastmsgpack": (lambda url, log: trips.dramatiq_trip(url, True, log), "fast"),
        "dramatiq-json": (lambda url, log: trips.dramatiq_trip(url, False, log), "iso"),
    },
    "celery": {
        "fastmsgpack": (lambda url, log: trips.celery_trip(url, "fastmsgpack", log), "fast"),
        "kombu-msgpack": (lambda url, log: trips.celery_trip(url, "msgpack", log), "iso"),
        "kombu-json": (lambda url, log: trips.celery_trip(url, "json", log), "fast"),
    },
}


def value_for(kind: str, records: int, framework: str) -> Any:
    if kind == "floor":
        dumps = fm_kombu.dumps if framework == "celery" else _exact.dumps
        return bytes(len(dumps(payload(records, iso=False))))
    return payload(records, iso=kind == "iso")


def measure(framework: str, rows: list[str], rounds: int, server: Any, tmp: Path) -> None:
    libraries = FRAMEWORKS[framework]
    with contextlib.ExitStack() as stack:
        go: dict[str, Callable[[Any], Any]] = {}
        for db, (library, (start, _)) in enumerate(libraries.items(), start=1):
            go[library] = stack.enter_context(start(server.url(db), tmp / f"{framework}-{db}.log"))
        for row in rows:
            records = SIZES[row.rsplit("-", 1)[1]]
            cases = [
                (lib, go[lib], value_for(kind, records, framework))
                for lib, (_, kind) in libraries.items()
            ]
            cases.insert(
                1, ("bytes-floor", go["fastmsgpack"], value_for("floor", records, framework))
            )
            for library, trip, value in cases:
                if trip(value) != value:
                    raise SystemExit(f"{row} {library}: the round trip changed the payload")
            times: dict[str, list[float]] = {library: [] for library, _, _ in cases}
            for i in range(rounds):
                # Each round in another order, so that no library always follows the same one.
                for library, trip, value in cases[i % len(cases) :] + cases[: i % len(cases)]:
                    t0 = time.perf_counter()
                    trip(value)
                    times[library].append(time.perf_counter() - t0)
            ours = statistics.median(times["fastmsgpack"])
            cells = []
            for library, samples in times.items():
                median = statistics.median(samples)
                cells.append(
                    f"{library} {median * 1e3:.2f} ms (min {min(samples) * 1e3:.2f}, "
                    f"{median / ours:.2f}x)"
                )
            print(f"{row}: " + ", ".join(cells), flush=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("rows", nargs="*")
    parser.add_argument("--rounds", type=int, default=40)
    ns = parser.parse_args()
    every = [f"{f}-roundtrip-{s}" for f in FRAMEWORKS for s in SIZES]
    rows = ns.rows or every
    unknown = sorted(set(rows) - set(every))
    if unknown:
        parser.error(f"unknown rows {unknown}; rows are {every}")
    with tempfile.TemporaryDirectory() as tmp, redis_server(Path(tmp)) as server:
        for framework in FRAMEWORKS:
            mine = [row for row in every if row in rows and row.startswith(f"{framework}-")]
            if mine:
                measure(framework, mine, ns.rounds, server, Path(tmp))


if __name__ == "__main__":
    main()
