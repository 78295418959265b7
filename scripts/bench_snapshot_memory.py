"""Peak memory of saving and loading the route snapshot durably, per library
(benchmarks/test_snapshot.py's libraries), and what ``snapshot.view`` of it costs.

Each measurement runs in a fresh process, with glibc's mmap threshold fixed (large blocks are
mapped afresh, so the peak counts them instead of reusing memory freed earlier): the route is
built, the peak resident set size
(VmHWM) is reset (``/proc/self/clear_refs``), the operation runs, and the peak above the RSS
just before it is reported, with the packed size (``packb``) for scale. For ``view``, the time
to open the file and make ten field reads (the first in the process: cold) and the peak RSS
above the RSS before (the pages of the file the view touched), for the snapshot as ``save``
writes it (with its offset index when it packs to 1 MiB or more) and saved with
``index=False``.

``--whole`` makes compressed saves pack the object whole first and then compress it, as they
did before compressing in pieces, for comparison.

Usage: scripts/bench_snapshot_memory.py [--children N] [--library NAME]... [--view-only] [--whole]
(run with the .venv interpreter, from the repository root; Linux only)
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

CHILD = """
import json, os, sys, tempfile, time
sys.path.insert(0, {bench!r})
from generators import make_route
from test_snapshot import LIBRARIES, ten_fields
import fastmsgpack
from fastmsgpack import snapshot

def rss():
    with open("/proc/self/status") as f:
        fields = dict(line.split(":", 1) for line in f)
    return int(fields["VmRSS"].split()[0]) * 1024, int(fields["VmHWM"].split()[0]) * 1024

def reset_peak():
    with open("/proc/self/clear_refs", "w") as f:
        f.write("5")

name, n, op = {name!r}, {n!r}, {op!r}
if {whole!r}:
    snapshot._PIECES_FROM = 1 << 62  # packed whole first, then compressed
obj = make_route(n)
directory = tempfile.mkdtemp()
path = __import__("pathlib").Path(directory) / "route.snap"
save, load = LIBRARIES.get(name, LIBRARIES["fastmsgpack"])
if op == "view-unindexed":
    snapshot.save(path, obj, index=False)
elif op != "save":
    save(path, obj)
    del obj
    import gc; gc.collect()
reset_peak()
before, _ = rss()
start = time.perf_counter()
if op == "save":
    save(path, obj)
elif op == "load":
    value = load(path)
else:
    fields = ten_fields(snapshot.view(path))
elapsed = time.perf_counter() - start
after, peak = rss()
os.remove(path)
# After the measurement: an earlier packb would leave freed memory for the one measured to reuse.
packed = len(fastmsgpack.packb(obj if op == "save" else make_route(n)))
print(json.dumps({{"packed": packed, "peak": peak - before, "grew": after - before,
                  "seconds": elapsed, "size": 0}}))
"""


def measure(name: str, n: int, op: str, whole: bool = False) -> dict[str, float]:
    code = CHILD.format(bench=str(ROOT / "benchmarks"), name=name, n=n, op=op, whole=whole)
    # Large blocks always mapped afresh (glibc), so that the peak counts them, not memory the
    # process freed before (building the route, importing the libraries) and reuses.
    env = {**os.environ, "MALLOC_MMAP_THRESHOLD_": "131072"}
    done = subprocess.run(
        [sys.executable, "-c", code],
        capture_output=True,
        text=True,
        check=True,
        timeout=900,
        env=env,
    )
    result: dict[str, float] = json.loads(done.stdout.strip().splitlines()[-1])
    return result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--children", type=int, default=100_000)
    parser.add_argument("--library", action="append")
    parser.add_argument("--view-only", action="store_true", help="only the view measurement")
    parser.add_argument(
        "--whole",
        action="store_true",
        help="compressed saves pack the object whole before compressing (no pieces)",
    )
    args = parser.parse_args()
    sys.path.insert(0, str(ROOT / "benchmarks"))
    from test_snapshot import LIBRARIES

    names = [] if args.view_only else args.library or list(LIBRARIES)
    print(f"route snapshot, {args.children} children")
    print(f"{'library':<22} {'op':<5} {'packed MB':>10} {'peak MB':>9} {'peak/packed':>12}")
    for name in names:
        for op in ("save", "load"):
            r = measure(name, args.children, op, args.whole)
            mb = 1 << 20
            print(
                f"{name:<22} {op:<5} {r['packed'] / mb:>10.1f} {r['peak'] / mb:>9.1f} "
                f"{r['peak'] / r['packed']:>12.2f}"
            )
    for op, label in (("view", "indexed"), ("view-unindexed", "without an index")):
        r = measure("fastmsgpack", args.children, op)
        # The peak: the view (and its mapping) is gone by the time the RSS is read again.
        print(
            f"view + ten reads ({label}): {r['seconds'] * 1000:.2f} ms (the first, cold), "
            f"peak RSS {r['peak'] / (1 << 20):.2f} MB above the RSS before"
        )


if __name__ == "__main__":
    main()
