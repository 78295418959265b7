"""A lazy view over an mmap of a 1 GB snapshot file: the time to read one deep field, and the
memory the reading process holds.

Usage: .venv/bin/python scripts/bench_view_mmap.py [--size-mb MB] [--repeat N]

Writes, in a temporary directory deleted at the end, a snapshot file of about ``--size-mb``
megabytes (default 1024): one MessagePack array of route snapshots (benchmarks/generators.py,
100,000 children each, about 7 MB). Then, for each of ``--repeat`` runs (default 5), a new Python
process opens the file with ``mmap.ACCESS_READ``, makes ``View(m, validate=False)`` and reads
``snapshot[1]["children"][50_000]["point"][1]``; it reports the time from opening the file to
having the value, and its resident memory (VmRSS) before and after. Each run starts with the file
evicted from the page cache where the system allows it (``posix_fadvise(DONTNEED)``), so the
reads come from the disk, then a second read in the same process shows the cost once the tables
are made.

The view reads the bytes before the field it is asked for (msgpack has no index): here the first
route whole, and the second up to its middle child, about 11 MB of the file.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "benchmarks"))

CHILD = r"""
import mmap, sys, time
import fastmsgpack

def rss_kb():
    with open("/proc/self/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    return -1

path = sys.argv[1]
before = rss_kb()
start = time.perf_counter()
with open(path, "rb") as f:
    m = mmap.mmap(f.fileno(), 0, access=mmap.ACCESS_READ)
snapshot = fastmsgpack.View(m, validate=False)
value = snapshot[1]["children"][50_000]["point"][1]
first = time.perf_counter() - start
start = time.perf_counter()
again = snapshot[1]["children"][50_001]["point"][1]
second = time.perf_counter() - start
after = rss_kb()
print(f"{first * 1e3:.2f} {second * 1e6:.1f} {before} {after} {value!r}")
"""


def write_snapshot(path: Path, size_mb: int) -> tuple[int, float]:
    """Write the snapshot file; its number of routes and the value the reader must find."""
    from generators import make_route

    import fastmsgpack

    one = fastmsgpack.packb(make_route(100_000))
    count = max(2, size_mb * 1024 * 1024 // len(one))
    second = make_route(100_000, seed=12)
    expected = second["children"][50_000]["point"][1]
    two = fastmsgpack.packb(second)
    with path.open("wb") as f:
        f.write(b"\xdd" + count.to_bytes(4, "big"))
        f.write(one)
        f.write(two)
        for _ in range(count - 2):
            f.write(one)
    return count, expected


def evict(path: Path) -> None:
    fd = os.open(path, os.O_RDONLY)
    try:
        os.fsync(fd)
        os.posix_fadvise(fd, 0, 0, os.POSIX_FADV_DONTNEED)
    finally:
        os.close(fd)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--size-mb", type=int, default=1024)
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "snapshot.msgpack"
        count, expected = write_snapshot(path, args.size_mb)
        size = path.stat().st_size
        print(f"snapshot: {size / 2**20:.0f} MiB, {count} routes of 100,000 children")
        print("run  first read (ms)  next read (us)  RSS before (MiB)  RSS after (MiB)")
        for run in range(args.repeat):
            evict(path)
            out = subprocess.run(
                [sys.executable, "-c", CHILD, str(path)],
                check=True,
                capture_output=True,
                text=True,
            ).stdout.split()
            first_ms, second_us, before, after, value = out
            assert float(value) == expected, (value, expected)
            print(
                f"{run:3d}  {float(first_ms):16.2f}  {float(second_us):14.1f}"
                f"  {int(before) / 1024:16.1f}  {int(after) / 1024:15.1f}"
            )
    return 0


if __name__ == "__main__":
    sys.exit(main())
