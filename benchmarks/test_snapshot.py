"""Durable snapshot files (``fastmsgpack.snapshot``) against what users write by hand today.

The route-planning snapshot (generators.make_route) at 4k, 40k and 400k fields (1,000, 10,000
and 100,000 children: 79 KB, 0.79 MB and 7.9 MB packed), and a 100 MB one (1,270,000 children,
marked ``large``: left out of ``scripts/bench --quick``). Groups, with N the children zero-padded
to seven digits:

- ``snapshot-save-<N>``: the object written to a file durably: a temporary file in the same
  directory, the bytes written and ``fsync``ed, ``os.replace``, the directory ``fsync``ed.
  fastmsgpack does it in ``snapshot.save``; every other library is given the same steps around
  its own bytes (``durable_write``);
- ``snapshot-load-<N>``: the file read back into the object;
- ``snapshot-view-<N>``: ``snapshot.view`` of the uncompressed file and ten reads of its
  top-level fields and first items (``ten_fields``), against loading it whole with
  ``snapshot.load`` ("fastmsgpack-load"). benchmarks/test_view.py times views reaching the
  middle and the end of the arrays.

``extra_info`` holds the library, N and the file's size in bytes. Libraries: "fastmsgpack"
(uncompressed), "fastmsgpack-zstd3", "fastmsgpack-lz4", "msgpack+zstandard3" (msgpack-python's
``packb`` and the zstandard module at level 3), "pickle5+gzip" (level 9, gzip's default),
"pickle5+zstandard3", "joblib-zlib3" (``joblib.dump(obj, f, compress=3)``), "orjson+zstandard3"
and "protobuf" (benchmarks/test_route.py's "protobuf-dicts": the message built from the dict,
serialized and written; parsed back and read into dicts and lists, as the others give).
Each library's round trip is checked before it is timed.

The peak memory of a save and a load (tracemalloc cannot see the libraries' own allocations, so
the process's RSS is read) is measured by scripts/bench_snapshot_memory.py.
"""

from __future__ import annotations

import gzip
import os
import pickle
from collections.abc import Callable
from pathlib import Path
from typing import Any

import joblib  # type: ignore[import-untyped]
import msgpack  # type: ignore[import-untyped]
import orjson
import pytest
import zstandard
from generators import make_route
from test_route import _protobuf_pack_dict, _protobuf_unpack_dict

from fastmsgpack import snapshot

SIZES = [1_000, 10_000, 100_000]
LARGE = 1_270_000

_ROUTES: dict[int, dict[str, Any]] = {}


def route_of(n: int) -> dict[str, Any]:
    if n not in _ROUTES:
        _ROUTES.clear()  # one at a time: the large one holds about 1 GB of objects
        _ROUTES[n] = make_route(n)
    return _ROUTES[n]


def ten_fields(r: Any) -> tuple[Any, ...]:
    """Ten reads of the top-level fields and first items (the issue's view target): what a view
    reaches without passing over the long arrays."""
    children = r["children"]
    values = r["values"]
    return (
        r["id"],
        r["name"],
        values[0],
        values[1],
        values[2],
        children[0]["name"],
        children[0]["id"],
        children[0]["point"][0],
        children[1]["name"],
        children[1]["point"][1],
    )


def durable_write(path: Path, data: bytes | Callable[[Any], None]) -> None:
    """What a careful user writes today: a temporary file, fsync, replace, fsync the directory.
    ``data`` is the bytes, or a function that writes into the open file."""
    temp = path.with_name(f".{path.name}.tmp")
    with open(temp, "wb") as f:
        if callable(data):
            data(f)
        else:
            f.write(data)
        f.flush()
        os.fsync(f.fileno())
    os.replace(temp, path)
    fd = os.open(path.parent, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def _zstd_write(data: bytes) -> bytes:
    return zstandard.ZstdCompressor(level=3).compress(data)


def _zstd_read(data: bytes) -> bytes:
    return zstandard.ZstdDecompressor().decompress(data)


def _read(path: Path) -> bytes:
    with open(path, "rb") as f:
        return f.read()


Saver = Callable[[Path, Any], None]
Loader = Callable[[Path], Any]

LIBRARIES: dict[str, tuple[Saver, Loader]] = {
    "fastmsgpack": (lambda p, o: snapshot.save(p, o), snapshot.load),
    "fastmsgpack-zstd3": (lambda p, o: snapshot.save(p, o, compress="zstd"), snapshot.load),
    "fastmsgpack-lz4": (lambda p, o: snapshot.save(p, o, compress="lz4"), snapshot.load),
    "msgpack+zstandard3": (
        lambda p, o: durable_write(p, _zstd_write(msgpack.packb(o))),
        lambda p: msgpack.unpackb(_zstd_read(_read(p))),
    ),
    "pickle5+gzip": (
        lambda p, o: durable_write(p, gzip.compress(pickle.dumps(o, protocol=5))),
        lambda p: pickle.loads(gzip.decompress(_read(p))),
    ),
    "pickle5+zstandard3": (
        lambda p, o: durable_write(p, _zstd_write(pickle.dumps(o, protocol=5))),
        lambda p: pickle.loads(_zstd_read(_read(p))),
    ),
    "joblib-zlib3": (
        lambda p, o: durable_write(p, lambda f: joblib.dump(o, f, compress=3)),
        lambda p: joblib.load(p),
    ),
    "orjson+zstandard3": (
        lambda p, o: durable_write(p, _zstd_write(orjson.dumps(o))),
        lambda p: orjson.loads(_zstd_read(_read(p))),
    ),
    "protobuf": (
        lambda p, o: durable_write(p, _protobuf_pack_dict(o)),
        lambda p: _protobuf_unpack_dict(_read(p)),
    ),
}

CASES = [
    pytest.param(name, n, id=f"{name}-{n}", marks=[pytest.mark.large] if n == LARGE else [])
    for n in [*SIZES, LARGE]
    for name in LIBRARIES
]


def _round_trip(name: str, n: int, path: Path) -> None:
    save, load = LIBRARIES[name]
    obj = route_of(n)
    save(path, obj)
    assert load(path) == obj, name


@pytest.mark.parametrize(("name", "n"), CASES)
def test_save(benchmark: Any, tmp_path: Path, name: str, n: int) -> None:
    path = tmp_path / "route.snap"
    _round_trip(name, n, path)
    save = LIBRARIES[name][0]
    obj = route_of(n)
    benchmark.group = f"snapshot-save-{n:07d}"
    benchmark.extra_info.update(library=name, n=n, size=path.stat().st_size)
    benchmark(save, path, obj)


@pytest.mark.parametrize(("name", "n"), CASES)
def test_load(benchmark: Any, tmp_path: Path, name: str, n: int) -> None:
    path = tmp_path / "route.snap"
    _round_trip(name, n, path)
    benchmark.group = f"snapshot-load-{n:07d}"
    benchmark.extra_info.update(library=name, n=n, size=path.stat().st_size)
    benchmark(LIBRARIES[name][1], path)


@pytest.mark.parametrize(
    ("name", "n"),
    [
        pytest.param(name, n, id=f"{name}-{n}", marks=[pytest.mark.large] if n == LARGE else [])
        for n in (SIZES[-1], LARGE)
        for name in ("fastmsgpack", "fastmsgpack-load")
    ],
)
def test_view_ten_fields(benchmark: Any, tmp_path: Path, name: str, n: int) -> None:
    path = tmp_path / "route.snap"
    obj = route_of(n)
    snapshot.save(path, obj)
    want = ten_fields(obj)

    def read() -> tuple[Any, ...]:
        if name == "fastmsgpack":
            return ten_fields(snapshot.view(path))
        return ten_fields(snapshot.load(path))

    assert read() == want
    benchmark.group = f"snapshot-view-{n:07d}"
    benchmark.extra_info.update(library=name, n=n, size=path.stat().st_size)
    benchmark(read)
