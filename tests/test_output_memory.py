"""Memory taken by large outputs: one packb or json.dumps call holds about one copy of its output
at its peak, and repeated calls of one size reuse the allocator's memory instead of faulting in
fresh pages each time.

Each measurement runs in a fresh interpreter, so that the figures (the kernel's peak resident set
size of the process, ``VmHWM`` in /proc/self/status, and its count of minor page faults) belong to
the call alone. ``ru_maxrss`` would not do: Linux carries it over from the parent across exec. The page-fault check
depends on how glibc's malloc reuses large blocks, so it runs where the C library is glibc.
"""

from __future__ import annotations

import platform
import subprocess
import sys
import sysconfig

import pytest

# Free-threaded CPython allocates objects with mimalloc, not the C library's malloc: a growing
# output is moved to a larger block rather than remapped in place, and large blocks are not
# reused the way glibc reuses them (doc/threads.md).
FREE_THREADED = bool(sysconfig.get_config_var("Py_GIL_DISABLED"))

PEAK_CHILD = """
import sys
import fastmsgpack, fastmsgpack.json

def peak():
    with open("/proc/self/status") as status:
        line = next(line for line in status if line.startswith("VmHWM:"))
    return int(line.split()[1]) * 1024

dump = {"packb": fastmsgpack.packb, "json": fastmsgpack.json.dumps}[sys.argv[1]]
doc = ["x" * 1000] * int(sys.argv[2])
dump(["warm-up"])
before = peak()
out = dump(doc)
print(len(out), peak() - before)
"""

FAULTS_CHILD = """
import resource, sys
import fastmsgpack
doc = ["x" * 100] * int(sys.argv[1])
for _ in range(3):
    out = fastmsgpack.packb(doc)
before = resource.getrusage(resource.RUSAGE_SELF).ru_minflt
for _ in range(50):
    out = fastmsgpack.packb(doc)
after = resource.getrusage(resource.RUSAGE_SELF).ru_minflt
print(len(out), (after - before) / 50)
"""

PAGE = 4096


def run_child(code: str, *args: str) -> tuple[int, float]:
    result = subprocess.run(
        [sys.executable, "-c", code, *args], capture_output=True, check=True, timeout=120
    )
    size, figure = result.stdout.split()
    return int(size), float(figure)


@pytest.mark.parametrize("dump", ["packb", "json"])
@pytest.mark.parametrize("items", [8_000, 48_000])
@pytest.mark.skipif(sys.platform != "linux", reason="reads /proc/self/status")
def test_peak_memory_is_about_one_output(dump: str, items: int) -> None:
    # 8 MB outputs are below glibc's largest mmap threshold (32 MiB), 48 MB ones above it.
    size, peak = run_child(PEAK_CHILD, dump, str(items))
    assert size > items * 1000
    # The output itself is resident at the end, so the peak is at least about its size; a copy
    # of it made while finishing would take the peak to twice the size. Free-threaded, the last
    # growth moves the output, so the old and the new block are both resident for a moment.
    assert 0.9 * size < peak < (2.6 if FREE_THREADED else 1.3) * size


@pytest.mark.skipif(
    platform.libc_ver()[0] != "glibc" or FREE_THREADED,
    reason="checks glibc's malloc, which free-threaded CPython does not allocate objects with",
)
@pytest.mark.parametrize("items", [2_000, 4_100, 4_700, 8_224, 9_250, 10_000, 20_000, 80_000])
def test_repeated_outputs_reuse_memory(items: int) -> None:
    # Outputs of 200 KB to 8 MB, past glibc's initial mmap threshold of 128 KiB, each kept alive
    # until the next is made. The sizes include ones that fill their buffer to 75-99%, which
    # once made every call fault in most of its pages.
    size, faults_per_call = run_child(FAULTS_CHILD, str(items))
    assert size > 128 * 1024
    # Memory mapped afresh for each output would fault in every page of it.
    assert faults_per_call < size / PAGE / 8
