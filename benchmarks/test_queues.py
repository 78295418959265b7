"""Task-queue round trips with fastmsgpack's serializers against each framework's default: arq
(pickle), rq (pickle) and dramatiq (JSON). A job that returns its argument is sent, run by a
real worker and its result read back, with a redis-server on loopback as the broker and result
store. rq's worker is the SimpleWorker (no fork per job, which would hide the serializer).

Payloads of about 1 KB and 100 KB: records of an id, a name, a float, an aware datetime and a
flag. dramatiq's JSON cannot carry datetimes, so for it they are ISO strings, as its users send
them. Groups ``<framework>-roundtrip-1kb`` and ``-100kb``; each round trip must give the payload
back before it is timed.
"""

from __future__ import annotations

import asyncio
import datetime
import os
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
import redis

ROOT = Path(__file__).resolve().parents[1]
BENCH = Path(__file__).resolve().parent
sys.path.insert(0, str(ROOT / "tests"))
from _servers import RedisServer, redis_server  # type: ignore[import-not-found]
from _workers import worker_process  # type: ignore[import-not-found]

SIZES = {"1kb": 13, "100kb": 1300}
START = datetime.datetime(2024, 5, 17, 6, 0, tzinfo=datetime.timezone.utc)
SERIALIZERS = ["fastmsgpack", "default"]
DEFAULTS = {"arq": "arq-pickle", "rq": "rq-pickle", "dramatiq": "dramatiq-json"}


def payload(records: int, iso: bool) -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = []
    for i in range(records):
        eta = START + datetime.timedelta(seconds=37 * i)
        out.append(
            {
                "id": 100_000 + i,
                "name": f"stop {i:05d} Centraal",
                "load": i * 0.25,
                "eta": eta.isoformat() if iso else eta,
                "done": i % 3 == 0,
            }
        )
    return out


@pytest.fixture(scope="module")
def redis_url(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    server: RedisServer
    with redis_server(tmp_path_factory.mktemp("redis")) as server:
        yield server.url(0)


def env_for(url: str, serializer: str, **extra: str) -> dict[str, str]:
    return {
        "FASTMSGPACK_BENCH_REDIS_URL": url,
        "FASTMSGPACK_BENCH_SERIALIZER": serializer,
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
        if serializer == "fastmsgpack":
            kwargs = {"job_serializer": fm_arq.serialize, "job_deserializer": fm_arq.deserialize}
        pool = loop.run_until_complete(create_pool(RedisSettings.from_dsn(redis_url), **kwargs))

        async def trip(value: Any) -> Any:
            job = await pool.enqueue_job("arq_echo", value)
            assert job is not None
            return await job.result(timeout=30, poll_delay=0.005)

        yield serializer, lambda value: loop.run_until_complete(trip(value))
        loop.run_until_complete(pool.aclose())
        loop.close()


@pytest.fixture(scope="module", params=SERIALIZERS)
def rq_trip(
    request: pytest.FixtureRequest, redis_url: str, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[tuple[str, Callable[[Any], Any]]]:
    from _queue_bench_apps import echo
    from rq import Queue
    from rq.job import JobStatus

    from fastmsgpack.integrations.rq import Serializer

    serializer: str = request.param
    redis.Redis.from_url(redis_url).flushdb()
    log = tmp_path_factory.mktemp("rq") / f"{serializer}.log"
    command = [
        sys.executable, "-m", "rq.cli", "worker", "--url", redis_url, "--worker-class",
        "rq.worker.SimpleWorker", "bench",
    ]  # fmt: skip
    if serializer == "fastmsgpack":
        command[-1:-1] = ["--serializer", "fastmsgpack.integrations.rq.Serializer"]
    os.environ.update(env_for(redis_url, serializer))
    with worker_process(command, redis_url, log, "Listening on bench", (BENCH,)) as _:
        kwargs: dict[str, Any] = {"serializer": Serializer} if serializer == "fastmsgpack" else {}
        queue = Queue("bench", connection=redis.Redis.from_url(redis_url), **kwargs)

        def trip(value: Any) -> Any:
            job = queue.enqueue(echo, value)
            deadline = time.monotonic() + 30
            while job.get_status(refresh=True) != JobStatus.FINISHED:
                assert time.monotonic() < deadline, "rq job did not finish"
                time.sleep(0.001)
            return job.return_value()

        yield serializer, trip


@pytest.fixture(scope="module", params=SERIALIZERS)
def dramatiq_trip(
    request: pytest.FixtureRequest, redis_url: str, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[tuple[str, Callable[[Any], Any]]]:
    serializer: str = request.param
    redis.Redis.from_url(redis_url).flushdb()
    log = tmp_path_factory.mktemp("dramatiq") / f"{serializer}.log"
    os.environ.update(env_for(redis_url, serializer, FASTMSGPACK_BENCH_DRAMATIQ="1"))
    command = [
        sys.executable, "-m", "dramatiq", "_queue_bench_apps", "--processes", "1", "--threads",
        "1",
    ]  # fmt: skip
    ready = "Worker process is ready for action"
    with worker_process(command, redis_url, log, ready, (BENCH,)) as _:
        import _queue_bench_apps

        _queue_bench_apps.URL = redis_url
        actor = _queue_bench_apps.dramatiq_setup(serializer == "fastmsgpack")

        def trip(value: Any) -> Any:
            return actor.send(value).get_result(block=True, timeout=30_000)

        yield serializer, trip


def run_trip(
    benchmark: Any, framework: str, trip: tuple[str, Callable[[Any], Any]], size: str
) -> None:
    serializer, go = trip
    benchmark.group = f"{framework}-roundtrip-{size}"
    benchmark.extra_info["library"] = (
        "fastmsgpack" if serializer == "fastmsgpack" else DEFAULTS[framework]
    )
    value = payload(SIZES[size], iso=framework == "dramatiq" and serializer == "default")
    assert go(value) == value, f"{framework} {serializer}: the round trip changed the payload"
    benchmark(go, value)


@pytest.mark.parametrize("size", list(SIZES))
def test_arq_round_trip(benchmark: Any, arq_trip: Any, size: str) -> None:
    run_trip(benchmark, "arq", arq_trip, size)


@pytest.mark.parametrize("size", list(SIZES))
def test_rq_round_trip(benchmark: Any, rq_trip: Any, size: str) -> None:
    run_trip(benchmark, "rq", rq_trip, size)


@pytest.mark.parametrize("size", list(SIZES))
def test_dramatiq_round_trip(benchmark: Any, dramatiq_trip: Any, size: str) -> None:
    run_trip(benchmark, "dramatiq", dramatiq_trip, size)
