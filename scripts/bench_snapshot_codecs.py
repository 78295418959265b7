"""Time and size of each snapshot codec and level on the route snapshot (doc/snapshots.md's
table), and the parts a compressed save and load are made of, for the targets of the floor.

For each codec (none, lz4, zstd at levels -1, 1, 3, 6, 9 and 19): the time to frame the packed
route (``snapshot.frame``: compress and checksum), to read it back (``snapshot.loads`` without the
unpackb: decompress and checksum, ``_snapshot_loads``), and the framed size. Then, on the same
route: ``packb`` alone, zstd level 3 alone (``snapshot.frame``), writing and syncing the bytes
alone, ``snapshot.save`` in all; reading the file alone, ``unpackb`` alone, ``snapshot.load`` in
all; and ``snapshot.save`` with ``threads=2`` against one thread. Best of ``--repeat`` runs each.

Usage: scripts/bench_snapshot_codecs.py [--children N] [--repeat R] [--no-table]
(run with the .venv interpreter, from the repository root)
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]


def best(repeat: int, function: Callable[[], Any]) -> float:
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        function()
        times.append(time.perf_counter() - start)
    return min(times)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--children", type=int, default=100_000)
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument(
        "--no-table", action="store_true", help="only the parts of a save and a load (large N)"
    )
    args = parser.parse_args()
    sys.path.insert(0, str(ROOT / "benchmarks"))
    from generators import make_route

    import fastmsgpack
    from fastmsgpack import snapshot
    from fastmsgpack._fastmsgpack import _snapshot_loads

    obj = make_route(args.children)
    packed = fastmsgpack.packb(obj)
    r = args.repeat
    ms = 1000.0
    print(f"route snapshot, {args.children} children, {len(packed)} bytes packed")
    print("| codec | level | frame (ms) | read back (ms) | size (bytes) | ratio |")
    print("| --- | --- | ---: | ---: | ---: | ---: |")
    rows: list[tuple[str, str, dict[str, Any]]] = [("none", "", {"compress": None})]
    rows.append(("lz4", "", {"compress": "lz4"}))
    for zstd_level in (-1, 1, 3, 6, 9, 19):
        rows.append(("zstd", str(zstd_level), {"compress": "zstd", "level": zstd_level}))
    for codec, label, kwargs in [] if args.no_table else rows:
        framed = snapshot.frame(packed, **kwargs)

        def frame(kw: dict[str, Any] = kwargs) -> bytes:
            return snapshot.frame(packed, **kw)

        def read(f: bytes = framed) -> Any:
            return _snapshot_loads(f)

        t_frame = best(r if label != "19" else 1, frame)
        t_read = best(r, read)
        print(
            f"| {codec} | {label} | {t_frame * ms:.1f} | {t_read * ms:.1f} | {len(framed)} "
            f"| {len(packed) / len(framed):.2f} |"
        )

    with tempfile.TemporaryDirectory() as directory:
        path = Path(directory) / "route.snap"
        raw = Path(directory) / "raw.bin"
        compressed = snapshot.frame(packed, compress="zstd")

        def write_sync() -> None:
            with open(raw, "wb") as f:
                f.write(compressed)
                f.flush()
                os.fsync(f.fileno())
            fd = os.open(directory, os.O_RDONLY)
            os.fsync(fd)
            os.close(fd)

        def read_raw() -> bytes:
            with open(path, "rb") as f:
                return f.read()

        t_pack = best(r, lambda: fastmsgpack.packb(obj))
        t_zstd = best(r, lambda: snapshot.frame(packed, compress="zstd"))
        t_write = best(r, write_sync)
        t_save = best(r, lambda: snapshot.save(path, obj, compress="zstd"))
        t_read = best(r, read_raw)
        t_unzstd = best(r, lambda: _snapshot_loads(compressed))
        t_unpack = best(r, lambda: fastmsgpack.unpackb(packed))
        t_load = best(r, lambda: snapshot.load(path))
        t_save2 = best(r, lambda: snapshot.save(path, obj, compress="zstd", threads=2))
        print()
        print("| compressed save (zstd 3) | ms |")
        print("| --- | ---: |")
        print(f"| packb alone | {t_pack * ms:.1f} |")
        print(f"| compress alone (frame of the packed bytes) | {t_zstd * ms:.1f} |")
        print(f"| write and fsync alone | {t_write * ms:.1f} |")
        floor = t_pack + t_zstd + t_write
        print(f"| sum of the parts | {floor * ms:.1f} |")
        print(f"| snapshot.save | {t_save * ms:.1f} ({t_save / floor:.2f}x the sum) |")
        print(f"| snapshot.save, threads=2 | {t_save2 * ms:.1f} ({t_save / t_save2:.2f}x faster) |")
        print()
        print("| compressed load (zstd 3) | ms |")
        print("| --- | ---: |")
        print(f"| read the file alone | {t_read * ms:.1f} |")
        print(f"| decompress and check alone | {t_unzstd * ms:.1f} |")
        print(f"| unpackb alone | {t_unpack * ms:.1f} |")
        floor = t_read + t_unzstd + t_unpack
        print(f"| sum of the parts | {floor * ms:.1f} |")
        print(f"| snapshot.load | {t_load * ms:.1f} ({t_load / floor:.2f}x the sum) |")


if __name__ == "__main__":
    main()
