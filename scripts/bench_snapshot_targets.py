"""Every target of the snapshot benchmarks (doc/snapshots.md#performance) measured in one run,
printed as one table with each measured ratio, its target, and the load average.

On the route snapshot of benchmarks/ (generators.make_route): at 100,000 children (400,000
fields, 7.9 MB packed), the median of ``--repeat`` calls each, all made in turn (a durable
save's time swings with the disk from one stretch of seconds to the next), every save durable (a temporary file,
``fsync``, replace, the directory ``fsync``; benchmarks/test_snapshot.py's ``durable_write`` for
the other libraries):

- save (zstd level 3) against the sum of its parts measured alone: ``packb``, compressing and
  checksumming the packed bytes (``snapshot.frame``), and the durable write of those bytes; load
  against reading the file, checking and decompressing it, and ``unpackb``;
- save and load against msgpack-python with the zstandard module at level 3, the file sizes,
  and save against pickle 5 with gzip;
- compressing in pieces (from ``snapshot._PIECES_FROM``, as ``save`` does) against packing whole
  first, per size and codec, and whether the pieces were used (zstd's start past its window).

At 1,270,000 children (100 MB packed): a compressed save with ``threads=2`` against one thread
(medians of five, in turn); in fresh processes (scripts/bench_snapshot_memory.py's), the peak memory of
a compressed save above the object, and ``view`` of the uncompressed file plus ten reads (the
first in the process) with its peak RSS.

Usage: scripts/bench_snapshot_targets.py [--repeat R] [--no-large]
(run with the .venv interpreter, from the repository root; Linux only; with ``--repeat 3`` it
took 1m41s on a 2-core machine whose load average was 15)
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "benchmarks"))
sys.path.insert(0, str(ROOT / "scripts"))


def interleaved_medians(repeat: int, *functions: Callable[[], Any]) -> list[float]:
    """The median time of each function, called in turn ``repeat`` times: for calls whose times
    fall in two groups (a 100 MB save is sometimes a third faster than usual, whichever thread
    setting), where the best of a few picks whichever call happened to be fast."""
    times: list[list[float]] = [[] for _ in functions]
    for _ in range(repeat):
        for function, kept in zip(functions, times, strict=True):
            start = time.perf_counter()
            function()
            kept.append(time.perf_counter() - start)
    return [statistics.median(kept) for kept in times]


def load_average() -> str:
    return " ".join(f"{x:.1f}" for x in os.getloadavg())


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--no-large", action="store_true", help="leave out the 100 MB rows")
    args = parser.parse_args()
    from bench_snapshot_codecs import best
    from bench_snapshot_memory import measure
    from generators import make_route
    from test_snapshot import LARGE, LIBRARIES, durable_write

    import fastmsgpack
    from fastmsgpack import snapshot
    from fastmsgpack._fastmsgpack import _snapshot_loads, _snapshot_save_packing

    r = args.repeat
    rows: list[tuple[str, str, str, str]] = []  # what, measured, ratio, target

    def row(what: str, measured: str, ratio: str, target: str) -> None:
        rows.append((what, measured, ratio, target))
        print(f"  {what}: {measured} ({ratio}; target {target})", flush=True)

    print(f"load average at the start: {load_average()}", flush=True)
    obj = make_route(100_000)
    packed = fastmsgpack.packb(obj)
    ms = 1000.0
    with tempfile.TemporaryDirectory() as directory:
        d = Path(directory)
        ours, theirs, raw = d / "ours.snap", d / "theirs.bin", d / "raw.bin"
        save_ours, load_ours = LIBRARIES["fastmsgpack-zstd3"]
        save_theirs, load_theirs = LIBRARIES["msgpack+zstandard3"]
        save_pickle = LIBRARIES["pickle5+gzip"][0]
        save_ours(ours, obj)
        save_theirs(theirs, obj)
        assert load_ours(ours) == obj and load_theirs(theirs) == obj
        compressed = snapshot.frame(packed, compress="zstd")

        def read_file() -> bytes:
            with open(ours, "rb") as f:
                return f.read()

        # In turn, medians: the durable rows' times swing with the disk between one stretch of
        # seconds and the next, so rows timed one after the other could meet different disks.
        (
            t_pack,
            t_zstd,
            t_write,
            t_save,
            t_save_theirs,
            t_save_pickle,
            t_read,
            t_unzstd,
            t_unpack,
            t_load,
            t_load_theirs,
        ) = interleaved_medians(
            r,
            lambda: fastmsgpack.packb(obj),
            lambda: snapshot.frame(packed, compress="zstd"),
            lambda: durable_write(raw, compressed),
            lambda: save_ours(ours, obj),
            lambda: save_theirs(theirs, obj),
            lambda: save_pickle(d / "pickle.bin", obj),
            read_file,
            lambda: _snapshot_loads(compressed),
            lambda: fastmsgpack.unpackb(packed),
            lambda: load_ours(ours),
            lambda: load_theirs(theirs),
        )
        parts = t_pack + t_zstd + t_write
        print(
            f"400k fields ({len(packed)} bytes packed): packb {t_pack * ms:.1f} ms, compress "
            f"{t_zstd * ms:.1f} ms, durable write {t_write * ms:.1f} ms; read {t_read * ms:.1f} "
            f"ms, decompress {t_unzstd * ms:.1f} ms, unpackb {t_unpack * ms:.1f} ms"
        )
        row(
            "save zstd 3 / sum of its parts",
            f"{t_save * ms:.1f} ms / {parts * ms:.1f} ms",
            f"{t_save / parts:.2f}x",
            "<= 1.15x",
        )
        floor = t_read + t_unzstd + t_unpack
        row(
            "load zstd 3 / sum of its parts",
            f"{t_load * ms:.1f} ms / {floor * ms:.1f} ms",
            f"{t_load / floor:.2f}x",
            "<= 1.15x",
        )
        row(
            "save: msgpack+zstandard3 / ours",
            f"{t_save_theirs * ms:.1f} ms / {t_save * ms:.1f} ms",
            f"{t_save_theirs / t_save:.2f}x",
            ">= 1.2x",
        )
        row(
            "load: msgpack+zstandard3 / ours",
            f"{t_load_theirs * ms:.1f} ms / {t_load * ms:.1f} ms",
            f"{t_load_theirs / t_load:.2f}x",
            ">= 1.4x",
        )
        size_ours, size_theirs = ours.stat().st_size, theirs.stat().st_size
        row(
            "file size: ours / msgpack+zstandard3",
            f"{size_ours} / {size_theirs} bytes",
            f"{size_ours / size_theirs:.3f}x",
            "within 2%",
        )
        row(
            "save: pickle5+gzip / ours",
            f"{t_save_pickle * ms:.1f} ms / {t_save * ms:.1f} ms",
            f"{t_save_pickle / t_save:.2f}x",
            ">= 3x",
        )

        print("compressing in pieces against packing whole first (save, ms):", flush=True)
        print(f"  {'children':>9} {'packed':>9} {'codec':>7} {'whole':>8} {'pieces':>8} in pieces")
        for n in (3_000, 15_000, 40_000, 100_000):
            value = make_route(n)
            size = len(fastmsgpack.packb(value))
            for codec, level in (("lz4", 0), ("zstd", 1), ("zstd", 3)):
                times, used = {}, False
                for mode, start in (("whole", 1 << 62), ("pieces", snapshot._PIECES_FROM)):

                    def save_in(
                        v: Any = value, c: str = codec, lv: int = level, s: int = start
                    ) -> bool:
                        # save's own call, told where to start the pieces; says if it did.
                        return _snapshot_save_packing(
                            str(ours), v, None, None, None, c, lv, 0, b"\xc0", snapshot._PIECE, s
                        )

                    used = save_in() or used
                    times[mode] = best(r, save_in)
                label = codec if codec == "lz4" else f"zstd {level}"
                print(
                    f"  {n:>9} {size:>9} {label:>7} {times['whole'] * ms:>8.1f} "
                    f"{times['pieces'] * ms:>8.1f} {'yes' if used else 'no (one buffer)'}",
                    flush=True,
                )
        obj.clear()  # the 100 MB one is built next

        if not args.no_large:
            big = make_route(LARGE)
            path = d / "big.snap"
            t_one, t_two = interleaved_medians(
                5,
                lambda: snapshot.save(path, big, compress="zstd"),
                lambda: snapshot.save(path, big, compress="zstd", threads=2),
            )
            row(
                "100 MB zstd 3 save: threads=0 / threads=2 (medians of 5, in turn)",
                f"{t_one * ms:.0f} ms / {t_two * ms:.0f} ms",
                f"{t_one / t_two:.2f}x",
                ">= 1.7x on 2 cores",
            )
            del big
            m = measure("fastmsgpack-zstd3", LARGE, "save")
            row(
                "100 MB zstd 3 save: peak memory above the object / packed size",
                f"{m['peak'] / 2**20:.1f} MB / {m['packed'] / 2**20:.1f} MB",
                f"{m['peak'] / m['packed']:.2f}x",
                "<= 1.3x",
            )
            v = measure("fastmsgpack", LARGE, "view")
            row(
                "100 MB view + ten reads (first, in a fresh process)",
                f"{v['seconds'] * ms:.2f} ms, peak RSS +{v['peak'] / 2**20:.1f} MB",
                f"{v['seconds'] * ms / 5:.2f}x of 5 ms",
                "< 5 ms, < 8 MB",
            )

    print()
    print(f"load average at the end: {load_average()}")
    print("| target | measured | ratio | target |")
    print("| --- | ---: | ---: | --- |")
    for what, measured, ratio, target in rows:
        print(f"| {what} | {measured} | {ratio} | {target} |")


if __name__ == "__main__":
    main()
