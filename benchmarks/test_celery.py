"""Celery round trips with the ``fastmsgpack`` serializer (fastmsgpack.integrations.kombu)
against kombu's ``msgpack`` and ``json`` serializers: a task that returns its argument, sent,
run by a real worker (prefork pool, 2 processes) and its result read back, with a Redis server
on the same machine as broker and result backend, so that encoding and decoding show.

Payloads of about 1 KB and 100 KB: records of an id, a name, a float and an aware datetime.
kombu's ``json`` carries datetimes itself (as tagged ISO strings); kombu's ``msgpack`` cannot,
so for it the datetimes are ISO strings already, as a user of it has to send them. Groups are
``celery-roundtrip-1kb`` and ``celery-roundtrip-100kb``; one worker per serializer, whose results
use the same serializer. Each round trip must give back the payload before it is timed.

A fourth column, ``bytes-floor``, is the queue's own time: the same round trip with the
``fastmsgpack`` serializer and the payload replaced by one ``bytes`` object as long as its
encoding, which a serializer copies as it is. Each benchmark takes at least ``ROUNDS`` rounds: a
round trip lasts milliseconds, and the quick run's time budget would otherwise give five.
"""

from __future__ import annotations

import datetime
import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
import redis
from _celery_bench_app import SERIALIZERS
from _queue_trips import celery_trip
from kombu import serialization

from fastmsgpack.integrations import kombu as fm_kombu

# kombu's functions carry no annotations.
kombu_dumps: Callable[[Any, str], tuple[str, str, bytes]] = serialization.dumps

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests"))
from _servers import RedisServer, redis_server  # type: ignore[import-not-found]

SIZES = {"1kb": 13, "100kb": 1300}  # records per payload
# "floor": the fastmsgpack serializer and a worker of its own, with bytes for the payload.
WORKERS = [*SERIALIZERS, "floor"]
ROUNDS = 20
START = datetime.datetime(2024, 5, 17, 6, 0, tzinfo=datetime.timezone.utc)


def payload(records: int, serializer: str) -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = [
        {
            "id": 100_000 + i,
            "name": f"stop {i:05d} Centraal",
            "load": i * 0.25,
            "eta": START + datetime.timedelta(seconds=37 * i),
            "done": i % 3 == 0,
        }
        for i in range(records)
    ]
    if serializer == "msgpack":
        for record in out:
            record["eta"] = record["eta"].isoformat()
    return out


@pytest.fixture(scope="module")
def redis_url(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    server: RedisServer
    with redis_server(tmp_path_factory.mktemp("redis")) as server:
        yield server.url(0)


@pytest.fixture(scope="module", params=WORKERS)
def worker(
    request: pytest.FixtureRequest, redis_url: str, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[tuple[str, Callable[[Any], Any]]]:
    kind: str = request.param
    redis.Redis.from_url(redis_url).flushdb()
    log = tmp_path_factory.mktemp("celery") / f"worker-{kind}.log"
    with celery_trip(redis_url, "fastmsgpack" if kind == "floor" else kind, log) as trip:
        yield kind, trip


@pytest.mark.benchmark(min_rounds=ROUNDS)
@pytest.mark.parametrize("size", list(SIZES))
def test_celery_round_trip(benchmark: Any, worker: tuple[str, Any], size: str) -> None:
    kind, trip = worker
    benchmark.group = f"celery-roundtrip-{size}"
    # kombu's serializers under their own names: "msgpack" and "json" elsewhere in the tables are
    # the libraries called directly.
    names = {"fastmsgpack": "fastmsgpack", "floor": "bytes-floor"}
    benchmark.extra_info["library"] = names.get(kind, f"kombu-{kind}")
    value: Any = payload(SIZES[size], kind)
    if kind == "floor":
        value = bytes(len(fm_kombu.dumps(value)))
    serializer = "fastmsgpack" if kind == "floor" else kind
    benchmark.extra_info["bytes"] = len(kombu_dumps(value, serializer)[2])

    assert trip(value) == value, f"{kind}: the round trip changed the payload"
    benchmark(trip, value)
