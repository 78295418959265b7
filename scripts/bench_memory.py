#!/usr/bin/env python3
"""Peak memory of packb and unpackb: how far one call raises a process's peak resident set size.

Each measurement runs in a fresh Python process that imports one library, loads one input, makes
one small warm-up call (so that lazy imports and first-call set-up are not counted), then makes
the measured call and exits. A baseline process does exactly the same except the measured call.
The figure reported is the peak RSS of the first minus that of the second, as the kernel records
it for each finished child process (``ru_maxrss``, the per-child form of
``getrusage(RUSAGE_CHILDREN)``): the memory the call needed at its peak, its result included.

Inputs:

- the route-planning snapshot with N=100,000 (``make_route`` in benchmarks/generators.py);
  packb packs the object, built in the process; unpackb unpacks it as packed by msgpack;
- the four numpy arrays of benchmarks/test_numpy.py (``make_arrays``): packed element by element
  (fastmsgpack and ormsgpack with their numpy option; the output is an ordinary MessagePack array
  of arrays, which every library unpacks, into lists), and packed raw (the array's bytes and its
  dtype and shape), which fastmsgpack (``OPT_NUMPY_RAW``) and msgpack-numpy unpack back into
  arrays;
- a snapshot of 16 float32 arrays of ``--snapshot-mib`` MiB each (16 by default: 256 MiB in all;
  64 gives 1 GiB), packed and unpacked with out-of-band buffers (fastmsgpack's
  ``buffer_callback`` / ``buffers=``, pickle protocol 5's) and in band (fastmsgpack's
  ``OPT_NUMPY_RAW``, msgpack-numpy), and a round trip (pack, then unpack what it gave). The
  out-of-band buffers are unpacked from bytearrays, as ``socket.recv_into`` fills them; the
  in-band message from ``bytes``.

The inputs are made once, by a preparation process, and written to a temporary directory: the
objects to pack are rebuilt in each process (the arrays are loaded from .npy files), the bytes to
unpack are read from files, so that no process holds more than its own input.

The parent process only imports the standard library: a child's recorded peak also covers the
moment before it replaces the parent's image, so the parent must stay smaller than any child.

Usage: scripts/bench_memory.py [--markdown] [--markdown-output FILE] [--jobs N] [--repeat R]
                              [--snapshot-mib MIB]
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import textwrap
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
BENCHMARKS = ROOT / "benchmarks"
GENERATORS = BENCHMARKS / "generators.py"
ROUTE_N = 100_000
ARRAY_NAMES = ("float64", "int32", "bool", "uint8")
LIBRARIES = ("fastmsgpack", "ormsgpack", "msgspec", "msgpack", "msgpack-numpy", "pickle")
SNAPSHOT_ARRAYS = 16

# (library, mode) pairs that can pack, and that can unpack, each kind of input. Modes: "plain"
# (Python objects), "numpy" (arrays packed element by element), "raw" (arrays as raw bytes).
PACKERS = {
    "plain": ("fastmsgpack", "ormsgpack", "msgspec", "msgpack"),
    "numpy": ("fastmsgpack", "ormsgpack"),
    "raw": ("fastmsgpack", "msgpack-numpy"),
    "oob": ("fastmsgpack", "pickle"),
}
UNPACKERS = {
    "plain": ("fastmsgpack", "ormsgpack", "msgspec", "msgpack"),
    "numpy": ("fastmsgpack", "ormsgpack", "msgspec", "msgpack"),
    "raw": ("fastmsgpack", "msgpack-numpy"),
    "oob": ("fastmsgpack", "pickle"),
}


def make_snapshot(elements: int) -> dict[str, Any]:
    """16 float32 arrays of ``elements`` values each."""
    import numpy as np

    return {f"layer{i}": np.full(elements, i, dtype="<f4") for i in range(SNAPSHOT_ARRAYS)}


# --- Child side: runs in the measured processes, imports only what its measurement needs. ---


def codec(library: str, mode: str) -> tuple[Callable[[Any], Any], Callable[[Any], Any]]:
    """(pack, unpack) of ``library`` in ``mode``, importing the library."""
    if mode == "oob":
        return oob_codec(library)
    if library == "fastmsgpack":
        import fastmsgpack

        option = {
            "plain": 0,
            "numpy": fastmsgpack.OPT_SERIALIZE_NUMPY,
            "raw": fastmsgpack.OPT_NUMPY_RAW,
        }[mode]
        unpack_option = fastmsgpack.OPT_NUMPY_RAW if mode == "raw" else 0
        return (
            lambda obj: fastmsgpack.packb(obj, option=option),
            lambda data: fastmsgpack.unpackb(data, option=unpack_option),
        )
    if library == "ormsgpack":
        import ormsgpack

        or_option = ormsgpack.OPT_SERIALIZE_NUMPY if mode == "numpy" else None
        return (lambda obj: ormsgpack.packb(obj, option=or_option), ormsgpack.unpackb)
    if library == "msgspec":
        import msgspec

        return (msgspec.msgpack.encode, msgspec.msgpack.decode)
    if library == "msgpack":
        import msgpack  # type: ignore[import-untyped]

        return (
            lambda obj: msgpack.packb(obj, use_bin_type=True),
            lambda data: msgpack.unpackb(data, raw=False),
        )
    if library == "msgpack-numpy":
        import msgpack_numpy  # type: ignore[import-untyped]

        return (msgpack_numpy.packb, msgpack_numpy.unpackb)
    raise ValueError(f"unknown library {library!r}")


def oob_codec(library: str) -> tuple[Callable[[Any], Any], Callable[[Any], Any]]:
    """(pack, unpack) with out-of-band buffers: pack gives (message, buffers), unpack takes it."""
    if library == "fastmsgpack":
        import fastmsgpack

        def pack(obj: Any) -> Any:
            buffers: list[Any] = []
            option = fastmsgpack.OPT_NUMPY_RAW
            return fastmsgpack.packb(obj, option=option, buffer_callback=buffers.append), buffers

        def unpack(packed: Any) -> Any:
            option = fastmsgpack.OPT_NUMPY_RAW
            return fastmsgpack.unpackb(packed[0], option=option, buffers=packed[1])

        return pack, unpack
    if library == "pickle":
        import pickle

        def pickle_pack(obj: Any) -> Any:
            buffers: list[Any] = []
            return pickle.dumps(obj, protocol=5, buffer_callback=buffers.append), buffers

        return pickle_pack, lambda packed: pickle.loads(packed[0], buffers=packed[1])
    raise ValueError(f"no out-of-band codec for {library!r}")


def read_packed(workdir: Path, stem: str) -> Any:
    """A packed snapshot: the message as bytes, or for an out-of-band one the message and its
    buffers, each read into a bytearray (as ``socket.recv_into`` fills one)."""
    message = (workdir / f"{stem}.bin").read_bytes()
    if ".oob-" not in stem:
        return message
    buffers: list[bytearray] = []
    for size in json.loads((workdir / f"{stem}.sizes").read_text()):
        buffer = bytearray(size)
        with (workdir / f"{stem}.buf{len(buffers)}").open("rb", buffering=0) as f:
            f.readinto(buffer)
        buffers.append(buffer)
    return message, buffers


def benchmark_module(name: str) -> Any:
    """The module ``name`` of the benchmarks/ directory (which is not a package)."""
    import importlib

    if str(BENCHMARKS) not in sys.path:
        sys.path.insert(0, str(BENCHMARKS))
    return importlib.import_module(name)


def child(spec: dict[str, Any]) -> None:
    """Set up one measurement and, if ``spec["call"]``, make the measured call."""
    import gc

    workdir = Path(spec["dir"])
    library, mode, operation, workload = spec["library"], spec["mode"], spec["op"], spec["input"]
    if workload != "route":
        import numpy  # noqa: F401  (imported up front: some libraries import it lazily)
    pack, unpack = codec(library, mode)

    tiny: Any
    value: Any
    call: Callable[[Any], Any]
    if workload == "snapshot":
        elements = spec["elements"]
        call = {"pack": pack, "unpack": unpack, "roundtrip": lambda obj: unpack(pack(obj))}[
            operation
        ]
        if operation == "unpack":
            stem = f"snapshot.{mode}-{library}"
            tiny = read_packed(workdir, f"{stem}.tiny")
            value = read_packed(workdir, stem)
        else:
            tiny = make_snapshot(4)
            value = make_snapshot(elements)
    elif operation == "pack":
        if workload == "route":
            make_route = benchmark_module("generators").make_route
            tiny = make_route(2)
            value = make_route(ROUTE_N)
        else:
            import numpy as np

            value = np.load(workdir / f"{workload}.npy")
            tiny = np.zeros((2, 2), dtype=value.dtype)
        call = pack
    else:
        if workload == "route":
            stem = "route"
        elif mode == "raw":
            stem = f"{workload}.raw-{library}"
        else:
            stem = f"{workload}.{mode}"
        tiny = (workdir / f"{stem}.tiny").read_bytes()
        value = (workdir / f"{stem}.bin").read_bytes()
        call = unpack

    call(tiny)
    gc.collect()
    if spec["call"]:
        result = call(value)
        del result


def prepare(workdir: Path) -> None:
    """Write the inputs: arrays as .npy, packed forms as .bin (and a tiny one of each as .tiny)."""
    import msgpack
    import msgpack_numpy
    import numpy as np

    import fastmsgpack

    make_route = benchmark_module("generators").make_route
    make_arrays = benchmark_module("test_numpy").make_arrays

    sizes: dict[str, int] = {}

    def write(stem: str, data: bytes, tiny: bytes) -> None:
        (workdir / f"{stem}.bin").write_bytes(data)
        (workdir / f"{stem}.tiny").write_bytes(tiny)
        sizes[stem] = len(data)

    def plain(obj: Any) -> bytes:
        data = msgpack.packb(obj, use_bin_type=True)
        assert isinstance(data, bytes)
        return data

    write("route", plain(make_route(ROUTE_N)), plain(make_route(2)))
    arrays = make_arrays()
    assert tuple(arrays) == ARRAY_NAMES, f"make_arrays() gives {tuple(arrays)}"
    numpy_opt, raw_opt = fastmsgpack.OPT_SERIALIZE_NUMPY, fastmsgpack.OPT_NUMPY_RAW
    for name, array in arrays.items():
        np.save(workdir / f"{name}.npy", array)
        tiny = np.zeros((2, 2), dtype=array.dtype)
        elementwise = fastmsgpack.packb(array, option=numpy_opt)
        assert msgpack.unpackb(elementwise) == array.tolist()
        write(f"{name}.numpy", elementwise, plain(tiny.tolist()))
        write(
            f"{name}.raw-fastmsgpack",
            fastmsgpack.packb(array, option=raw_opt),
            fastmsgpack.packb(tiny, option=raw_opt),
        )
        write(f"{name}.raw-msgpack-numpy", msgpack_numpy.packb(array), msgpack_numpy.packb(tiny))
    elements = int(os.environ["BENCH_MEMORY_SNAPSHOT_ELEMENTS"])
    for mode, library in (
        ("raw", "fastmsgpack"),
        ("raw", "msgpack-numpy"),
        ("oob", "fastmsgpack"),
        ("oob", "pickle"),
    ):
        pack = codec(library, mode)[0]
        for suffix, count in (("", elements), (".tiny", 4)):
            stem = f"snapshot.{mode}-{library}{suffix}"
            packed = pack(make_snapshot(count))
            message, buffers = packed if mode == "oob" else (packed, [])
            (workdir / f"{stem}.bin").write_bytes(message)
            for i, buffer in enumerate(buffers):
                (workdir / f"{stem}.buf{i}").write_bytes(buffer.raw())
            (workdir / f"{stem}.sizes").write_text(json.dumps([b.raw().nbytes for b in buffers]))
            sizes[stem] = len(message) + sum(b.raw().nbytes for b in buffers)
    (workdir / "sizes.json").write_text(json.dumps(sizes))


# --- Parent side: standard library only. ---


@dataclass(frozen=True)
class Row:
    label: str
    operation: str
    workload: str
    mode: str
    # Which .bin file the row's size column shows.
    size_stem: str


def rows() -> list[Row]:
    result = [
        Row(f"{op}b route N={ROUTE_N:,}", op, "route", "plain", "route")
        for op in ("pack", "unpack")
    ]
    for mode, what in (("numpy", "element-wise"), ("raw", "raw")):
        for op in ("pack", "unpack"):
            for name in ARRAY_NAMES:
                stem = f"{name}.{mode}" if mode == "numpy" else f"{name}.raw-fastmsgpack"
                result.append(Row(f"{op}b {name} ({what})", op, name, mode, stem))
    mib = SETTINGS["snapshot_mib"] * SNAPSHOT_ARRAYS
    for mode, what in (("oob", "out of band"), ("raw", "in band")):
        for op, verb in (("pack", "packb"), ("unpack", "unpackb"), ("roundtrip", "round trip")):
            label = f"{verb} {SNAPSHOT_ARRAYS} arrays, {mib} MiB ({what})"
            result.append(Row(label, op, "snapshot", mode, f"snapshot.{mode}-fastmsgpack"))
    return result


# MiB per array of the snapshot rows: --snapshot-mib sets it.
DEFAULT_SNAPSHOT_MIB = 16
SETTINGS = {"snapshot_mib": DEFAULT_SNAPSHOT_MIB}


def libraries_for(row: Row) -> tuple[str, ...]:
    return (UNPACKERS if row.operation == "unpack" else PACKERS)[row.mode]


def peak_rss_kib(args: list[str]) -> int:
    """Run ``args``; return the finished process's peak RSS in KiB."""
    proc = subprocess.Popen(args, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    assert proc.stderr is not None
    errors = proc.stderr.read()
    proc.stderr.close()
    _, status, usage = os.wait4(proc.pid, 0)
    proc.returncode = os.waitstatus_to_exitcode(status)
    if proc.returncode != 0:
        raise RuntimeError(
            f"{' '.join(args[-1:])} failed:\n{errors.decode(errors='replace').strip()}"
        )
    # Linux reports KiB, macOS bytes.
    return usage.ru_maxrss // 1024 if sys.platform == "darwin" else usage.ru_maxrss


def measure(
    workdir: Path, jobs: int, repeat: int
) -> tuple[dict[tuple[str, str], float], dict[str, int]]:
    """{(row label, library): MiB added by the call}, and the sizes of the packed inputs."""
    prep = [sys.executable, __file__, "--prepare", str(workdir)]
    os.environ["BENCH_MEMORY_SNAPSHOT_ELEMENTS"] = str(SETTINGS["snapshot_mib"] * 2**20 // 4)
    peak_rss_kib(prep)
    sizes: dict[str, int] = json.loads((workdir / "sizes.json").read_text())

    # One spec per process to run; a baseline is shared by the measurements with its set-up.
    specs: dict[str, dict[str, Any]] = {}
    pairs: list[tuple[Row, str, str, str]] = []
    for row in rows():
        for library in libraries_for(row):
            base = {
                "dir": str(workdir),
                "library": library,
                "mode": row.mode,
                "op": row.operation,
                "input": row.workload,
                "elements": SETTINGS["snapshot_mib"] * 2**20 // 4,
            }
            keys = []
            for call in (False, True):
                spec = {**base, "call": call}
                key = json.dumps(spec, sort_keys=True)
                specs[key] = spec
                keys.append(key)
            pairs.append((row, library, keys[0], keys[1]))

    def run(key: str) -> int:
        args = [sys.executable, __file__, "--child", key]
        return int(statistics.median(peak_rss_kib(args) for _ in range(repeat)))

    with ThreadPoolExecutor(max_workers=jobs) as pool:
        peaks = dict(zip(specs, pool.map(run, specs)))

    own = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    if sys.platform == "darwin":
        own //= 1024
    if min(peaks.values()) <= own:
        print(
            "bench_memory: warning: this process is as large as a measured one; "
            "the figures may be too low",
            file=sys.stderr,
        )
    added = {
        (row.label, library): (peaks[call_key] - peaks[base_key]) / 1024
        for row, library, base_key, call_key in pairs
    }
    return added, sizes


def format_mib(value: float) -> str:
    # A call that needs no new memory can come out a little below zero: the peaks vary by a few
    # hundred KiB from one process to the next.
    return f"{max(value, 0.0):.1f} MiB"


def format_size(size: int) -> str:
    return f"{size / 2**20:.1f} MiB" if size >= 2**20 else f"{size / 1024:.0f} KiB"


def table(
    added: dict[tuple[str, str], float], sizes: dict[str, int]
) -> tuple[list[str], list[list[str]]]:
    libraries = [lib for lib in LIBRARIES if any(lib == key[1] for key in added)]
    header = ["workload", "packed size", *libraries]
    body = []
    for row in rows():
        cells = [row.label, format_size(sizes[row.size_stem])]
        for lib in libraries:
            value = added.get((row.label, lib))
            cells.append("-" if value is None else format_mib(value))
        body.append(cells)
    return header, body


# The widest line of the plain-text output.
WIDTH = 100


def render(header: list[str], body: list[list[str]], markdown: bool) -> str:
    if markdown:
        lines = [header, ["---", *("---:" for _ in header[1:])], *body]
        return "\n".join("| " + " | ".join(cells) + " |" for cells in lines)
    widths = [max(len(r[i]) for r in [header, *body]) for i in range(len(header))]
    # The workload and its packed size head every block; the library columns follow, as many as
    # fit WIDTH characters, and the rest go to further blocks below, with the same two in front.
    fixed = 2
    blocks: list[list[int]] = []
    used = WIDTH
    for i in range(fixed, len(header)):
        if used + 2 + widths[i] > WIDTH:
            blocks.append([])
            used = sum(widths[:fixed]) + 2 * (fixed - 1)
        blocks[-1].append(i)
        used += 2 + widths[i]
    parts = []
    for block in blocks:
        keep = [*range(fixed), *block]
        out = []
        for cells in [header, ["-" * w for w in widths], *body]:
            first = cells[0].ljust(widths[0])
            rest = (cells[i].rjust(widths[i]) for i in keep[1:])
            out.append("  ".join([first, *rest]).rstrip())
        parts.append("\n".join(out))
    return "\n\n".join(parts)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description="Peak memory added by one packb or unpackb call, per library."
    )
    parser.add_argument("--markdown", action="store_true", help="print a Markdown table")
    parser.add_argument(
        "--markdown-output",
        type=Path,
        metavar="FILE",
        help="also write the legend and the table, as Markdown, to FILE",
    )
    parser.add_argument(
        "--jobs",
        type=int,
        default=os.cpu_count() or 1,
        help="processes to run at once (default: the number of CPUs)",
    )
    parser.add_argument(
        "--repeat",
        type=int,
        default=1,
        help="runs of each process; the median peak is used (default: 1)",
    )
    parser.add_argument(
        "--snapshot-mib",
        type=int,
        default=DEFAULT_SNAPSHOT_MIB,
        help=f"MiB of each of the snapshot's {SNAPSHOT_ARRAYS} arrays (default: "
        f"{DEFAULT_SNAPSHOT_MIB};"
        " 64 makes 1 GiB)",
    )
    parser.add_argument("--child", help=argparse.SUPPRESS)
    parser.add_argument("--prepare", type=Path, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)

    if args.child is not None:
        child(json.loads(args.child))
        return 0
    if args.prepare is not None:
        prepare(args.prepare)
        return 0
    if not GENERATORS.is_file():
        print(
            f"bench_memory: {GENERATORS.relative_to(ROOT)} not found: it provides make_route, "
            "the route-planning snapshot this script measures",
            file=sys.stderr,
        )
        return 1
    if args.jobs < 1 or args.repeat < 1 or args.snapshot_mib < 1:
        parser.error("--jobs, --repeat and --snapshot-mib must be at least 1")
    SETTINGS["snapshot_mib"] = args.snapshot_mib

    with tempfile.TemporaryDirectory(prefix="fastmsgpack-memory-") as tmp:
        try:
            added, sizes = measure(Path(tmp), args.jobs, args.repeat)
        except RuntimeError as exc:
            print(f"bench_memory: {exc}", file=sys.stderr)
            return 1
    legend = (
        "Peak resident memory added by one call (peak RSS of a process making the call, minus"
        " that of the same process without it; differences of a few hundred KiB are noise);"
        " - = not supported."
    )
    header, body = table(added, sizes)
    print(legend if args.markdown else textwrap.fill(legend, WIDTH))
    print()
    print(render(header, body, markdown=args.markdown))
    if args.markdown_output is not None:
        text = f"{legend}\n\n{render(header, body, markdown=True)}\n"
        args.markdown_output.write_text(text, encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
