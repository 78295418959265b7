"""numpy arrays: value-by-value packing against ormsgpack, and the raw round trip against
msgpack-numpy (and plain ``ndarray.tobytes()`` as the floor for packing raw bytes).

Arrays come from a seeded generator: float64 (10000, 100), int32 (10000, 100), bool (10000, 100)
and uint8 (1000, 1000). Every result is checked before it is timed.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import msgpack  # type: ignore[import-untyped]
import msgpack_numpy  # type: ignore[import-untyped]
import numpy as np
import ormsgpack
import pytest
from baseline import BEFORE
from baseline import NAME as BEFORE_NAME

import fastmsgpack

RAW = fastmsgpack.OPT_NUMPY_RAW


def make_arrays() -> dict[str, np.ndarray[Any, Any]]:
    rng = np.random.default_rng(7)
    return {
        "float64": rng.random((10000, 100)),
        "int32": rng.integers(-(2**31), 2**31, (10000, 100), dtype=np.int32),
        "bool": rng.random((10000, 100)) < 0.5,
        "uint8": rng.integers(0, 256, (1000, 1000), dtype=np.uint8),
    }


ARRAYS = make_arrays()

ELEMENTWISE: dict[str, Callable[[Any], bytes]] = {
    "fastmsgpack": lambda a: fastmsgpack.packb(a, option=fastmsgpack.OPT_SERIALIZE_NUMPY),
    "ormsgpack": lambda a: ormsgpack.packb(a, option=ormsgpack.OPT_SERIALIZE_NUMPY),
}


def _fast_round_trip(a: Any) -> Any:
    return fastmsgpack.unpackb(fastmsgpack.packb(a, option=RAW), option=RAW)


def _msgpack_numpy_round_trip(a: Any) -> Any:
    return msgpack_numpy.unpackb(msgpack_numpy.packb(a))


ROUND_TRIP: dict[str, Callable[[Any], Any]] = {
    "fastmsgpack": _fast_round_trip,
    "msgpack-numpy": _msgpack_numpy_round_trip,
}

RAW_PACK: dict[str, Callable[[Any], bytes]] = {
    "fastmsgpack": lambda a: fastmsgpack.packb(a, option=RAW),
    "tobytes": lambda a: a.tobytes(),
}

if BEFORE is not None:
    ELEMENTWISE[BEFORE_NAME] = lambda a: BEFORE.packb(a, option=fastmsgpack.OPT_SERIALIZE_NUMPY)
    ROUND_TRIP[BEFORE_NAME] = lambda a: BEFORE.unpackb(BEFORE.packb(a, option=RAW), option=RAW)
    RAW_PACK[BEFORE_NAME] = lambda a: BEFORE.packb(a, option=RAW)


@pytest.mark.parametrize("name", list(ARRAYS))
@pytest.mark.parametrize("library", list(ELEMENTWISE))
def test_packb_numpy(benchmark: Any, library: str, name: str) -> None:
    benchmark.group = f"packb-numpy-{name}"
    benchmark.extra_info["library"] = library
    array = ARRAYS[name]
    pack = ELEMENTWISE[library]
    assert msgpack.unpackb(pack(array)) == array.tolist(), f"{library}: wrong values"
    benchmark(pack, array)


@pytest.mark.parametrize("name", list(ARRAYS))
@pytest.mark.parametrize("library", list(ROUND_TRIP))
def test_raw_round_trip(benchmark: Any, library: str, name: str) -> None:
    benchmark.group = f"roundtrip-raw-{name}"
    benchmark.extra_info["library"] = library
    array = ARRAYS[name]
    back = ROUND_TRIP[library](array)
    assert back.dtype == array.dtype and back.shape == array.shape
    assert np.array_equal(back, array), f"{library}: round trip differs"
    benchmark(ROUND_TRIP[library], array)


@pytest.mark.parametrize("library", list(RAW_PACK))
def test_packb_raw_float64(benchmark: Any, library: str) -> None:
    benchmark.group = "packb-raw-float64"
    benchmark.extra_info["library"] = library
    array = ARRAYS["float64"]
    out = RAW_PACK[library](array)
    assert out.endswith(array.tobytes())
    benchmark(RAW_PACK[library], array)
