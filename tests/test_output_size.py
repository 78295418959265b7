"""packb's output buffer: an output that outgrows the first buffer starts at about the size of
the last such output, and whatever that size was, the bytes returned hold little more memory
than their length, and are the same bytes."""

from __future__ import annotations

import subprocess
import sys
import textwrap
import tracemalloc
from typing import Any

import msgspec
import pytest

import fastmsgpack

KIB = 1024


def _held(obj: Any) -> tuple[bytes, int]:
    """``packb(obj)`` and the memory its result holds, as CPython's allocators traced it."""
    tracemalloc.start()
    try:
        before = tracemalloc.get_traced_memory()[0]
        out = fastmsgpack.packb(obj)
        held = tracemalloc.get_traced_memory()[0] - before
    finally:
        tracemalloc.stop()
    return out, held


def _strings(total: int) -> list[str]:
    return [f"{i:07d}" + "x" * 92 for i in range(total // 101)]


@pytest.mark.parametrize(
    ("earlier", "now"),
    [
        (0, 40 * KIB),
        (8 * 1024 * KIB, 40 * KIB),  # a long output, then a short one
        (40 * KIB, 8 * 1024 * KIB),  # a short output, then a long one
        (200 * KIB, 200 * KIB),  # the same size again
        (900 * KIB, 800 * KIB),
        (64 * 1024 * KIB, 300 * KIB),  # longer than any size followed
    ],
)
def test_output_holds_about_its_length(earlier: int, now: int) -> None:
    if earlier:
        first = _strings(earlier)
        assert fastmsgpack.packb(first) == msgspec.msgpack.encode(first)
    obj = _strings(now)
    out, held = _held(obj)
    assert out == msgspec.msgpack.encode(obj)
    # The object's header (33 bytes on 64-bit builds) and what else the call allocates and
    # keeps (under 1 KiB); a large buffer whose unused tail is under 128 KiB and a quarter of it
    # is kept whole (see `BytesWriter::keep_whole`).
    slack = KIB if len(out) < 128 * KIB else min(128 * KIB, len(out) // 3)
    assert len(out) <= held <= len(out) + slack, (len(out), held)


def test_outputs_of_one_size_are_allocated_once() -> None:
    obj = _strings(100 * KIB)
    fastmsgpack.packb(obj)  # the size the next output starts from
    tracemalloc.start()
    try:
        out = fastmsgpack.packb(obj)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    # Grown by doubling, the output would have been copied from a buffer of half its size into
    # one of its size and more: a peak above 1.5 times its length.
    assert len(out) <= peak <= len(out) + len(out) // 8 + KIB, (len(out), peak)


@pytest.mark.skipif(sys.platform != "linux", reason="RLIMIT_AS bounds mappings on Linux only")
def test_a_size_that_cannot_be_allocated_falls_back_to_the_size_needed() -> None:
    """After a 30 MB output, an output of a few KB starts at about 34 MB; where that much memory
    cannot be had, it is packed in a buffer of the size it needs, without an error."""
    child = textwrap.dedent(
        """
        import resource
        import fastmsgpack
        big = fastmsgpack.packb(["x" * 1000] * 30_000)
        del big
        with open("/proc/self/statm") as f:
            size = int(f.read().split()[0]) * resource.getpagesize()
        soft, hard = resource.getrlimit(resource.RLIMIT_AS)
        resource.setrlimit(resource.RLIMIT_AS, (size + 64 * 2**20, hard))
        # Take every MiB the limit leaves (an allocator may also keep the 30 MB it was given
        # back, mapped, for reuse), then give back four: room for a few KB, not for 34 MB.
        filler = []
        try:
            while True:
                filler.append(bytearray(2**20))
        except MemoryError:
            pass
        del filler[-4:]
        try:
            bytearray(40 * 2**20)
        except MemoryError:
            pass
        else:
            raise SystemExit("the limit let 40 MB through")
        obj = ["y" * 100] * 40
        out = fastmsgpack.packb(obj)
        assert fastmsgpack.unpackb(out) == obj
        print("ok", len(out))
        """
    )
    result = subprocess.run(
        [sys.executable, "-c", child], capture_output=True, text=True, timeout=60, check=False
    )
    assert result.returncode == 0, result.stdout + result.stderr
    assert result.stdout.split()[0] == "ok"
