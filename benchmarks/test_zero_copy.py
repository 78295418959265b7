"""Large buffers without copies (doc/zero-copy.md).

- ``oob-pack-16x{N}MiB`` and ``oob-unpack-16x{N}MiB``: a dict of 16 float32 arrays of N MiB each,
  packed and unpacked by fastmsgpack with out-of-band buffers (``buffer_callback`` /
  ``buffers=``), pickle protocol 5 with ``buffer_callback`` / ``buffers=``, in-band
  ``packb(..., option=OPT_NUMPY_RAW)``, and msgpack-numpy. N is 1 (16 MiB in all) in every run,
  and 64 (1 GiB) only in full runs (marked ``large``, left out of ``scripts/bench --quick``); the
  out-of-band figures should not grow with N. The in-band unpack decodes from ``bytes``, which
  fastmsgpack views without a copy; ``oob-unpack`` also times it from a ``bytearray`` (what
  ``socket.recv_into`` fills), where the in-band arrays are copied.
- ``bins-memoryview-1MiB``: 10,000 messages holding a 1 MiB bin each (one message decoded 10,000
  times, so that the input fits in memory), decoded with ``OPT_BIN_MEMORYVIEW`` (a view of the
  input) and as ``bytes`` (a copy), against msgpack-python, ormsgpack and msgspec (``bytes``).

Every result is checked before it is timed.
"""

from __future__ import annotations

import pickle
from collections.abc import Callable
from typing import Any

import msgpack  # type: ignore[import-untyped]
import msgpack_numpy  # type: ignore[import-untyped]
import msgspec
import numpy as np
import ormsgpack
import pytest
from baseline import BEFORE
from baseline import NAME as BEFORE_NAME

import fastmsgpack

RAW = fastmsgpack.OPT_NUMPY_RAW
ARRAYS = 16
MIB = 1 << 20


def make_snapshot(mib: int) -> dict[str, np.ndarray[Any, Any]]:
    """16 float32 arrays of ``mib`` MiB each."""
    n = mib * MIB // 4
    return {f"layer{i}": np.full(n, i, dtype="<f4") for i in range(ARRAYS)}


Packed = tuple[Any, list[Any]]


def _fast_oob_pack(obj: Any) -> Packed:
    buffers: list[Any] = []
    return fastmsgpack.packb(obj, option=RAW, buffer_callback=buffers.append), buffers


def _pickle_pack(obj: Any) -> Packed:
    buffers: list[Any] = []
    return pickle.dumps(obj, protocol=5, buffer_callback=buffers.append), buffers


PACK: dict[str, Callable[[Any], Packed]] = {
    "fastmsgpack": _fast_oob_pack,
    "pickle": _pickle_pack,
    "fastmsgpack-in-band": lambda obj: (fastmsgpack.packb(obj, option=RAW), []),
    "msgpack-numpy": lambda obj: (msgpack_numpy.packb(obj), []),
}

UNPACK: dict[str, Callable[[Packed], Any]] = {
    "fastmsgpack": lambda p: fastmsgpack.unpackb(p[0], option=RAW, buffers=p[1]),
    "pickle": lambda p: pickle.loads(p[0], buffers=p[1]),
    "fastmsgpack-in-band": lambda p: fastmsgpack.unpackb(p[0], option=RAW),
    "fastmsgpack-in-band-bytearray": lambda p: fastmsgpack.unpackb(p[0], option=RAW),
    "msgpack-numpy": lambda p: msgpack_numpy.unpackb(p[0]),
}
# Which packer makes each unpacker's input.
UNPACK_INPUT = {
    "fastmsgpack-in-band-bytearray": "fastmsgpack-in-band",
    BEFORE_NAME: "fastmsgpack-in-band",
}

if BEFORE is not None:
    PACK[BEFORE_NAME] = lambda obj: (BEFORE.packb(obj, option=RAW), [])
    UNPACK[BEFORE_NAME] = lambda p: BEFORE.unpackb(p[0], option=RAW)

SIZES = [
    pytest.param(1, id="16x1MiB"),
    pytest.param(64, id="16x64MiB", marks=pytest.mark.large),
]

_snapshots: dict[int, dict[str, np.ndarray[Any, Any]]] = {}


def snapshot(mib: int) -> dict[str, np.ndarray[Any, Any]]:
    # Only one size is held at a time: the 1 GiB one is large.
    if mib not in _snapshots:
        _snapshots.clear()
        _snapshots[mib] = make_snapshot(mib)
    return _snapshots[mib]


def check(back: Any, obj: dict[str, np.ndarray[Any, Any]], library: str) -> None:
    assert set(back) == set(obj), f"{library}: wrong keys"
    for key, array in obj.items():
        got = back[key]
        assert got.dtype == array.dtype and got.shape == array.shape, f"{library}: {key}"
        assert got[0] == array[0] and got[-1] == array[-1], f"{library}: {key} values"


@pytest.mark.parametrize("mib", SIZES)
@pytest.mark.parametrize("library", list(PACK))
def test_oob_pack(benchmark: Any, library: str, mib: int) -> None:
    benchmark.group = f"oob-pack-16x{mib}MiB"
    benchmark.extra_info["library"] = library
    obj = snapshot(mib)
    pack = PACK[library]
    check(UNPACK[library](pack(obj)), obj, library)
    benchmark(pack, obj)


@pytest.mark.parametrize("mib", SIZES)
@pytest.mark.parametrize("library", list(UNPACK))
def test_oob_unpack(benchmark: Any, library: str, mib: int) -> None:
    benchmark.group = f"oob-unpack-16x{mib}MiB"
    benchmark.extra_info["library"] = library
    obj = snapshot(mib)
    packed = PACK[UNPACK_INPUT.get(library, library)](obj)
    if library.endswith("-bytearray"):
        packed = (bytearray(packed[0]), packed[1])  # made before the timing
    unpack = UNPACK[library]
    check(unpack(packed), obj, library)
    benchmark(unpack, packed)


MESSAGES = 10_000
BLOB = bytes(range(256)) * (MIB // 256)
MESSAGE = msgpack.packb({"id": 7, "blob": BLOB}, use_bin_type=True)


def _decode_all(decode: Callable[[bytes], Any]) -> Any:
    last = None
    for _ in range(MESSAGES):
        last = decode(MESSAGE)
    return last


BINS: dict[str, Callable[[bytes], Any]] = {
    "fastmsgpack-memoryview": lambda d: fastmsgpack.unpackb(
        d, option=fastmsgpack.OPT_BIN_MEMORYVIEW
    ),
    "fastmsgpack": fastmsgpack.unpackb,
    "msgpack": lambda d: msgpack.unpackb(d, raw=False),
    "ormsgpack": ormsgpack.unpackb,
    "msgspec": msgspec.msgpack.decode,
}


@pytest.mark.parametrize("library", list(BINS))
def test_bins_memoryview(benchmark: Any, library: str) -> None:
    benchmark.group = "bins-memoryview-1MiB"
    benchmark.extra_info["library"] = library
    decode = BINS[library]
    got = decode(MESSAGE)
    assert got["id"] == 7 and bytes(got["blob"]) == BLOB, f"{library}: wrong value"
    benchmark(_decode_all, decode)
