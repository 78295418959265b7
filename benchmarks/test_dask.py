"""Dask distributed's ``serialize`` and ``deserialize`` with the ``fastmsgpack`` serialization
family (fastmsgpack.integrations.dask) against Dask's own ``msgpack``, ``pickle`` and ``dask``
families: the 100,000-child route-planning snapshot (generators.make_route) and a 1,000,000-element
float64 array.

Groups are ``dask-serialize-<input>`` and ``dask-deserialize-<input>``; ``extra_info`` holds the
family (as the library) and the total size of the frames. Dask's ``msgpack`` family cannot carry
a numpy array (and gives tuples for lists), so it is timed on the snapshot only; the ``dask``
family, Dask's own choice for numpy arrays, only on the array. Before timing, each family's
round trip must give back the input (lists as tuples for ``msgpack``).
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
from distributed.protocol.serialize import deserialize, serialize
from generators import freeze_inputs, route

import fastmsgpack.integrations.dask  # noqa: F401 (registers the family)

INPUTS: dict[str, Any] = {}


def _inputs() -> dict[str, Any]:
    if not INPUTS:
        INPUTS["route-100000"] = route(100_000)
        INPUTS["float64-1000000"] = np.random.default_rng(3).random(1_000_000)
        freeze_inputs()
    return INPUTS


FAMILIES = {
    "route-100000": ["fastmsgpack", "msgpack", "pickle"],
    "float64-1000000": ["fastmsgpack", "pickle", "dask"],
}
CASES = [(name, family) for name, families in FAMILIES.items() for family in families]


def _as_lists(obj: Any) -> Any:
    if isinstance(obj, (list, tuple)):
        return [_as_lists(item) for item in obj]
    if isinstance(obj, dict):
        return {key: _as_lists(value) for key, value in obj.items()}
    return obj


def _checked_frames(name: str, family: str) -> tuple[dict[str, Any], list[Any]]:
    value = _inputs()[name]
    header, frames = serialize(value, serializers=[family], on_error="raise")
    assert header["serializer"] == family
    back = deserialize(header, frames, deserializers=[family])  # type: ignore[no-untyped-call]
    if isinstance(value, np.ndarray):
        assert back.dtype == value.dtype and np.array_equal(back, value), family
    elif family == "msgpack":
        assert _as_lists(back) == value, family
    else:
        assert back == value, family
    return header, frames


@pytest.mark.parametrize(("name", "family"), CASES)
def test_dask_serialize(benchmark: Any, name: str, family: str) -> None:
    benchmark.group = f"dask-serialize-{name}"
    benchmark.extra_info["library"] = family
    _, frames = _checked_frames(name, family)
    benchmark.extra_info["bytes"] = sum(memoryview(f).nbytes for f in frames)
    benchmark(serialize, _inputs()[name], serializers=[family], on_error="raise")


@pytest.mark.parametrize(("name", "family"), CASES)
def test_dask_deserialize(benchmark: Any, name: str, family: str) -> None:
    benchmark.group = f"dask-deserialize-{name}"
    benchmark.extra_info["library"] = family
    header, frames = _checked_frames(name, family)
    benchmark.extra_info["bytes"] = sum(memoryview(f).nbytes for f in frames)
    benchmark(deserialize, header, frames, deserializers=[family])
