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

import asyncio
import os
import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
import redis

ROOT = Path(__file__).resolve().parents[1]
BENCH = Path(__file__).resolve().parent
sys.path.insert(0, str(ROOT / "tests"))
from _queue_bench_apps import payload
from _servers import RedisServer, redis_server  # type: ignore[import-not-found]
from _workers import worker_process  # type: ignore[import-not-found]

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


def env_for(url: str, serializer: str, **extra: str) -> dict[str, str]:
    return {
        "FASTMSGPACK_BENCH_REDIS_URL": url,
        "FASTMSGPACK_BENCH_SERIALIZER": "default" if serializer == "default" else "fastmsgpack",
        "PYTHONPATH": os.pathsep.join([str(BENCH), str(ROOT / "tests")]),
        **extra,
    }


@pytest.fixture(scope="module", params=SERIALIZERS)
def arq_trip(
    request: pytest.FixtureRequest, redis_url: str, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[tuple[str, Callable[[Any], Any]]]:
    from arq import create_pool
    from arq.connections import RedisSettings

    from fastmsgpack.integrations import arq as fm_arq

    serializer: str = request.param
    redis.Redis.from_url(redis_url).flushdb()
    env = env_for(redis_url, serializer)
    log = tmp_path_factory.mktemp("arq") / f"{serializer}.log"
    command = [sys.executable, "-m", "arq", "_queue_bench_apps.ArqSettings"]
    os.environ.update(env)
    with worker_process(command, redis_url, log, "Starting worker for", (BENCH,)) as _:
        loop = asyncio.new_event_loop()
        kwargs: dict[str, Any] = {}
        if serializer != "default":
            kwargs = {"job_serializer": fm_arq.serialize, "job_deserializer": fm_arq.deserialize}
        pool = loop.run_until_complete(create_pool(RedisSettings.from_dsn(redis_url), **kwargs))

        async def trip(value: Any) -> Any:
            job = await pool.enqueue_job("arq_echo", value)
            assert job is not None
            return await job.result(timeout=30, poll_delay=0.001)

        yield serializer, lambda value: loop.run_until_complete(trip(value))
        loop.run_until_complete(pool.aclose())
        loop.close()


@pytest.fixture(scope="module", params=SERIALIZERS)
def rq_trip(
    request: pytest.FixtureRequest, redis_url: str, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[tuple[str, Callable[[Any], Any]]]:
    from _queue_bench_apps import echo
    from rq import Queue
    from rq.results import Result

    from fastmsgpack.integrations.rq import Serializer

    serializer: str = request.param
    redis.Redis.from_url(redis_url).flushdb()
    log = tmp_path_factory.mktemp("rq") / f"{serializer}.log"
    command = [
        sys.executable, "-m", "rq.cli", "worker", "--url", redis_url, "--worker-class",
        "rq.worker.SimpleWorker", "bench",
    ]  # fmt: skip
    if serializer != "default":
        command[-1:-1] = ["--serializer", "fastmsgpack.integrations.rq.Serializer"]
    os.environ.update(env_for(redis_url, serializer))
    with worker_process(command, redis_url, log, "Listening on bench", (BENCH,)) as _:
        kwargs: dict[str, Any] = {"serializer": Serializer} if serializer != "default" else {}
        queue = Queue("bench", connection=redis.Redis.from_url(redis_url), **kwargs)

        def trip(value: Any) -> Any:
            job = queue.enqueue(echo, value)
            # Blocks (XREAD) until the worker adds the job's result.
            result = job.latest_result(timeout=30)
            assert result is not None, "rq job did not finish"
            assert result.type == Result.Type.SUCCESSFUL, result.exc_string
            return result.return_value

        yield serializer, trip


@pytest.fixture(scope="module", params=SERIALIZERS)
def dramatiq_trip(
    request: pytest.FixtureRequest, redis_url: str, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[tuple[str, Callable[[Any], Any]]]:
    serializer: str = request.param
    redis.Redis.from_url(redis_url).flushdb()
    log = tmp_path_factory.mktemp("dramatiq") / f"{serializer}.log"
    os.environ.update(
        env_for(redis_url, serializer, FASTMSGPACK_BENCH_DRAMATIQ="1", dramatiq_worker_timeout="2")
    )
    command = [
        sys.executable, "-m", "dramatiq", "_queue_bench_apps", "--processes", "1", "--threads",
        "1",
    ]  # fmt: skip
    ready = "Worker process is ready for action"
    with worker_process(command, redis_url, log, ready, (BENCH,)) as _:
        import _queue_bench_apps

        _queue_bench_apps.URL = redis_url
        actor = _queue_bench_apps.dramatiq_setup(serializer != "default")

        def trip(value: Any) -> Any:
            return actor.send(value).get_result(block=True, timeout=30_000)

        yield serializer, trip


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
