"""Task-queue round trips with fastmsgpack's serializers against each framework's default: arq
(pickle), rq (pickle) and dramatiq (JSON). A job that returns its argument (for arq, an equal
object: ``_queue_bench_apps.arq_echo`` says why) is sent, run by a real worker and its result
read back, with a redis-server on loopback as the broker and result
store. rq's worker is the SimpleWorker (no fork per job, which would hide the serializer).

Payloads of about 1 KB and 100 KB: records of an id, a name, a float, an aware datetime and a
flag. dramatiq's JSON cannot carry datetimes, so for it they are ISO strings, as its users send
them. Groups ``<framework>-roundtrip-1kb`` and ``-100kb``; each round trip must give the payload
back before it is timed.

A third column, ``bytes-floor``, is the queue's own time: the same round trip through
fastmsgpack's serializer with the payload replaced by one ``bytes`` object as long as
fastmsgpack's encoding of it, which a serializer copies as it is. No serializer can take a row
much below it, and the share of the round trip that is serialization is the difference.

The workers wait at most a millisecond for work (``_queue_bench_apps``), and the client waits
for a result by blocking on Redis (rq, dramatiq) or by polling it every millisecond (arq, which
has no blocking wait), so that the times are not rounded up to a polling interval. Each
benchmark takes at least ``ROUNDS`` rounds: a round trip lasts milliseconds, and the quick run's
time budget would otherwise give five.
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
import redis

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests"))
import _queue_trips as trips
from _queue_bench_apps import payload
from _servers import RedisServer, redis_server  # type: ignore[import-not-found]

from fastmsgpack.integrations import _exact

SIZES = {"1kb": 13, "100kb": 1300}
# "floor": fastmsgpack's serializer and worker, with bytes for the payload.
SERIALIZERS = ["fastmsgpack", "floor", "default"]
DEFAULTS = {"arq": "arq-pickle", "rq": "rq-pickle", "dramatiq": "dramatiq-json"}
ROUNDS = 20


@pytest.fixture(scope="module")
def redis_url(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    server: RedisServer
    with redis_server(tmp_path_factory.mktemp("redis")) as server:
        yield server.url(0)


def _trips(
    request: pytest.FixtureRequest,
    redis_url: str,
    tmp_path_factory: pytest.TempPathFactory,
    start: Callable[[str, bool, Path], Any],
) -> Iterator[tuple[str, Callable[[Any], Any]]]:
    serializer: str = request.param
    redis.Redis.from_url(redis_url).flushdb()
    log = tmp_path_factory.mktemp("queue") / f"{serializer}.log"
    with start(redis_url, serializer != "default", log) as trip:
        yield serializer, trip


@pytest.fixture(scope="module", params=SERIALIZERS)
def arq_trip(
    request: pytest.FixtureRequest, redis_url: str, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[tuple[str, Callable[[Any], Any]]]:
    yield from _trips(request, redis_url, tmp_path_factory, trips.arq_trip)


@pytest.fixture(scope="module", params=SERIALIZERS)
def rq_trip(
    request: pytest.FixtureRequest, redis_url: str, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[tuple[str, Callable[[Any], Any]]]:
    yield from _trips(request, redis_url, tmp_path_factory, trips.rq_trip)


@pytest.fixture(scope="module", params=SERIALIZERS)
def dramatiq_trip(
    request: pytest.FixtureRequest, redis_url: str, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[tuple[str, Callable[[Any], Any]]]:
    yield from _trips(request, redis_url, tmp_path_factory, trips.dramatiq_trip)


def run_trip(
    benchmark: Any, framework: str, trip: tuple[str, Callable[[Any], Any]], size: str
) -> None:
    serializer, go = trip
    benchmark.group = f"{framework}-roundtrip-{size}"
    names = {"fastmsgpack": "fastmsgpack", "floor": "bytes-floor"}
    benchmark.extra_info["library"] = names.get(serializer, DEFAULTS[framework])
    value: Any = payload(SIZES[size], iso=framework == "dramatiq" and serializer == "default")
    if serializer == "floor":
        value = bytes(len(_exact.dumps(value)))
    assert go(value) == value, f"{framework} {serializer}: the round trip changed the payload"
    benchmark(go, value)


@pytest.mark.benchmark(min_rounds=ROUNDS)
@pytest.mark.parametrize("size", list(SIZES))
def test_arq_round_trip(benchmark: Any, arq_trip: Any, size: str) -> None:
    run_trip(benchmark, "arq", arq_trip, size)


@pytest.mark.benchmark(min_rounds=ROUNDS)
@pytest.mark.parametrize("size", list(SIZES))
def test_rq_round_trip(benchmark: Any, rq_trip: Any, size: str) -> None:
    run_trip(benchmark, "rq", rq_trip, size)


@pytest.mark.benchmark(min_rounds=ROUNDS)
@pytest.mark.parametrize("size", list(SIZES))
def test_dramatiq_round_trip(benchmark: Any, dramatiq_trip: Any, size: str) -> None:
    run_trip(benchmark, "dramatiq", dramatiq_trip, size)
