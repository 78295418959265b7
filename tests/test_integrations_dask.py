"""The ``fastmsgpack`` Dask serialization family, on a real LocalCluster with worker processes.

The workers preload fastmsgpack.integrations.dask (the module under test) and then _dask_counting,
which counts each process's calls of the family, so the test can tell that the data really
travelled as fastmsgpack, and numpy arrays as separate frames.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import _dask_counting
import numpy as np
import pytest
from distributed import Client, LocalCluster
from distributed.protocol.serialize import deserialize, serialize

from fastmsgpack.integrations import dask as fm_dask

SERIALIZERS = ["fastmsgpack", "dask", "pickle"]
# Under pytest-xdist (scripts/test), the module's tests run in one worker, which starts the
# module-scoped dask cluster once.
pytestmark = pytest.mark.xdist_group("dask-cluster")


@contextmanager
def environment_kept() -> Iterator[None]:
    """Give os.environ back as it was: a Nanny starting worker processes sets its
    pre-spawn-environ (MALLOC_TRIM_THRESHOLD_, PYTHONHASHSEED) in the parent's own os.environ,
    where every later subprocess of the test run would inherit it."""
    saved = dict(os.environ)
    try:
        yield
    finally:
        os.environ.clear()
        os.environ.update(saved)


@pytest.fixture(scope="module")
def client() -> Iterator[Client]:
    with environment_kept():
        yield from _client()


def _client() -> Iterator[Client]:
    try:
        cluster = LocalCluster(  # type: ignore[no-untyped-call]
            n_workers=2,
            processes=True,
            threads_per_worker=1,
            host="127.0.0.1",
            dashboard_address=None,
            preload=["fastmsgpack.integrations.dask", "_dask_counting"],
        )
    except Exception as exc:  # noqa: BLE001 (any failure to start is reported, not skipped)
        pytest.fail(f"the Dask LocalCluster did not start: {exc!r}", pytrace=False)
    client = Client(cluster, serializers=SERIALIZERS, deserializers=SERIALIZERS)  # type: ignore[no-untyped-call]
    with cluster, client as c:
        yield c


def summarize(payload: dict[str, Any]) -> dict[str, Any]:
    """Runs in a worker process: what arrived, and new data to send back."""
    route = payload["route"]
    return {
        "pid": os.getpid(),
        "types": [type(route["point"]).__name__, type(payload["array"]).__name__],
        "dtype": str(payload["array"].dtype),
        "writeable": payload["array"].flags.writeable,
        "total": float(payload["array"].sum()),
        "scaled": payload["array"] * 2,
        "names": [child["name"] for child in route["children"]],
    }


def make_array(n: int) -> Any:
    return np.arange(n, dtype=np.float64)


def add_one(a: Any) -> Any:
    return a + 1


def test_family_registered_by_import() -> None:
    big = np.arange(2000)
    value = {"a": (1, 2, big), "b": np.arange(3), "c": big[::2], "d": b"x" * 5000}
    header, frames = serialize(value, serializers=["fastmsgpack"])
    assert header["serializer"] == "fastmsgpack"
    # Large arrays and bytes are frames of their own (views, for contiguous arrays); small ones
    # stay in the message.
    assert [bytes(f) for f in frames[1:]] == [big[::2].tobytes(), b"x" * 5000, big.tobytes()]
    assert np.shares_memory(np.asarray(frames[3]), big)
    back = deserialize(header, frames, deserializers=["fastmsgpack"])  # type: ignore[no-untyped-call]
    assert back["a"][:2] == (1, 2) and type(back["a"]) is tuple
    np.testing.assert_array_equal(back["a"][2], big)
    np.testing.assert_array_equal(back["b"], np.arange(3))
    np.testing.assert_array_equal(back["c"], big[::2])
    assert back["d"] == b"x" * 5000
    # Writable frames (as a connection reads them) are viewed, not copied.
    received = [frames[0], *(bytearray(f) for f in frames[1:])]
    back = deserialize(header, received, deserializers=["fastmsgpack"])  # type: ignore[no-untyped-call]
    assert back["c"].flags.writeable
    assert np.shares_memory(back["c"], np.frombuffer(received[1], dtype="u1"))


def test_unsupported_values_go_to_the_next_family() -> None:
    import datetime

    header, _ = serialize(datetime.date(2024, 5, 17), serializers=["fastmsgpack", "pickle"])
    assert header["serializer"] == "pickle"
    with pytest.raises(NotImplementedError):
        fm_dask.dumps(np.array([object()]))


def test_cluster_runs_tasks_on_data_serialized_by_the_family(client: Client) -> None:
    client.run(_dask_counting.reset)
    _dask_counting.reset()
    array = np.random.default_rng(1).random(1_000_000)
    route = {
        "id": 7,
        "point": (52.37, 4.89),
        "children": [{"id": i, "name": f"stop {i}"} for i in range(1000)],
    }
    [data] = client.scatter([{"route": route, "array": array}])  # type: ignore[no-untyped-call]
    result = client.submit(summarize, data).result()

    assert result["pid"] != os.getpid()
    # The worker got the tuple as a tuple and the array as a float64 array it may write to.
    assert result["types"] == ["tuple", "ndarray"]
    assert (result["dtype"], result["writeable"]) == ("float64", True)
    assert result["total"] == pytest.approx(float(array.sum()))
    np.testing.assert_array_equal(result["scaled"], array * 2)
    assert result["names"] == [f"stop {i}" for i in range(1000)]

    # The client packed the scattered data (the array as an extra frame) and unpacked the result,
    # and a worker unpacked the data with the family.
    here = _dask_counting.counts()
    assert here.get("dumps", 0) >= 1 and here.get("frames", 0) >= 1
    assert here.get("loads", 0) >= 1
    there = client.run(_dask_counting.counts)
    assert sum(c.get("loads", 0) for c in there.values()) >= 1
    assert sum(c.get("dumps", 0) for c in there.values()) >= 1


def test_arrays_move_between_worker_processes_with_the_family(client: Client) -> None:
    first, second = sorted(client.scheduler_info()["workers"])
    client.run(_dask_counting.reset)
    made = client.submit(make_array, 500_000, workers=[first], pure=False)
    moved = client.submit(add_one, made, workers=[second], pure=False)
    np.testing.assert_array_equal(moved.result(), np.arange(500_000, dtype=np.float64) + 1)
    counts = client.run(_dask_counting.counts)
    # The second worker fetched the array from the first: the first packed it with the family
    # (its memory as a frame), the second unpacked it.
    assert counts[first].get("frames", 0) >= 1
    assert counts[second].get("loads", 0) >= 1
