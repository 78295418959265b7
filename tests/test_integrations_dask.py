"""The ``fastmsgpack`` Dask serialization family, on a real LocalCluster with worker processes.

The workers preload fastmsgpack.integrations.dask (the module under test) and then _dask_counting,
which counts each process's calls of the family, so the test can tell that the data really
travelled as fastmsgpack, and numpy arrays as separate frames.
"""

from __future__ import annotations

import datetime
import decimal
import enum
import os
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any
from zoneinfo import ZoneInfo

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
            # A free port: none given, the scheduler still serves HTTP, trying 8787 first and
            # warning when another cluster holds it.
            dashboard_address="127.0.0.1:0",
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
    # Large arrays and bytes are frames of their own (views, for contiguous arrays), in the
    # order they are met (the tuple is packed in place, OPT_EXACT); small ones stay in the
    # message.
    assert [bytes(f) for f in frames[1:]] == [big.tobytes(), big[::2].tobytes(), b"x" * 5000]
    assert np.shares_memory(np.asarray(frames[1]), big)
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
    assert np.shares_memory(back["c"], np.frombuffer(received[2], dtype="u1"))


def test_unsupported_values_go_to_the_next_family() -> None:
    class Unknown:
        pass

    for value in [Unknown(), {"a": [Unknown()]}, Color.RED]:
        header, _ = serialize(value, serializers=["fastmsgpack", "pickle"])
        assert header["serializer"] == "pickle"
    with pytest.raises(NotImplementedError):
        fm_dask.dumps(np.array([object()]))


class Color(enum.Enum):
    RED = 1


EXACT = {
    "at": datetime.datetime(2024, 5, 17, 9, 30, 1, 5, tzinfo=ZoneInfo("Europe/Paris")),
    "utc": datetime.datetime(2024, 5, 17, tzinfo=datetime.timezone.utc),
    "naive": datetime.datetime(2024, 5, 17, 9, 30),
    "day": datetime.date(2024, 5, 17),
    "time": datetime.time(9, 30),
    "wait": datetime.timedelta(seconds=90),
    "id": uuid.UUID(int=9),
    "price": decimal.Decimal("19.90"),
    "tags": {"a", "b"},
    "frozen": frozenset({1}),
    "pair": (1, (2, 3)),
    "big": 2**80,
    (1, 2): "tuple key",
    "scalar": np.float64(2.5),
    "array": np.arange(3, dtype=">i4"),
}


def exact_types(value: dict[Any, Any]) -> dict[str, str]:
    """Runs in a worker process too: the type of each value, and the zone of `at`."""
    out = {str(k): type(v).__name__ for k, v in value.items()}
    out["zone"] = str(value["at"].tzinfo)
    out["price"] = str(value["price"])
    return out


def test_exact_types_travel_with_the_family() -> None:
    header, frames = serialize(EXACT, serializers=["fastmsgpack"])
    assert header["serializer"] == "fastmsgpack"
    back = deserialize(header, frames, deserializers=["fastmsgpack"])  # type: ignore[no-untyped-call]
    assert exact_types(back) == exact_types(EXACT)
    assert {k: v for k, v in back.items() if k != "array"} == {
        k: v for k, v in EXACT.items() if k != "array"
    }
    np.testing.assert_array_equal(back["array"], EXACT["array"])
    assert back["array"].dtype == np.dtype(">i4")


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


def test_cluster_carries_exact_types(client: Client) -> None:
    client.run(_dask_counting.reset)
    [data] = client.scatter([EXACT])  # type: ignore[no-untyped-call]
    seen = client.submit(exact_types, data).result()
    assert seen == exact_types(EXACT)
    assert seen["zone"] == "Europe/Paris" and seen["price"] == "19.90"
    there = client.run(_dask_counting.counts)
    assert sum(c.get("loads", 0) for c in there.values()) >= 1
    # And back: the worker's value came to the client with the family too.
    back = client.submit(lambda v: v, data, pure=False).result()
    assert exact_types(back) == exact_types(EXACT)


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
