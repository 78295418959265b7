"""Round trips through real task-queue workers, for benchmarks/test_queues.py, test_celery.py and
scripts/queue_trips.py: each function starts a worker for a Redis URL, waits until it is ready,
and yields a call that sends a job (or task) with its argument and returns its result; the
worker is stopped when the block ends.

``fast`` (arq, rq, dramatiq) picks fastmsgpack's serializer over the framework's default, in
the worker and in the client. Workers of different serializers can run at once on different
Redis databases (``redis://host:port/1``, ``/2``): each framework's queue and results stay in
its URL's database.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

BENCH = Path(__file__).resolve().parent
TESTS = BENCH.parent / "tests"
sys.path.insert(0, str(TESTS))
from _workers import stop, worker_process  # type: ignore[import-not-found]

Trip = Callable[[Any], Any]


def _environ(url: str, fast: bool, **extra: str) -> None:
    """The worker's environment, read by benchmarks/_queue_bench_apps.py when it starts: set in
    this process's, which the worker inherits."""
    os.environ.update(
        {
            "FASTMSGPACK_BENCH_REDIS_URL": url,
            "FASTMSGPACK_BENCH_SERIALIZER": "fastmsgpack" if fast else "default",
            "PYTHONPATH": os.pathsep.join([str(BENCH), str(TESTS)]),
            **extra,
        }
    )


@contextlib.contextmanager
def arq_trip(url: str, fast: bool, log: Path) -> Iterator[Trip]:
    from arq import create_pool
    from arq.connections import RedisSettings

    from fastmsgpack.integrations import arq as fm_arq

    _environ(url, fast)
    command = [sys.executable, "-m", "arq", "_queue_bench_apps.ArqSettings"]
    with worker_process(command, url, log, "Starting worker for", (BENCH,)) as _:
        loop = asyncio.new_event_loop()
        kwargs: dict[str, Any] = {}
        if fast:
            kwargs = {"job_serializer": fm_arq.serialize, "job_deserializer": fm_arq.deserialize}
        pool = loop.run_until_complete(create_pool(RedisSettings.from_dsn(url), **kwargs))

        async def trip(value: Any) -> Any:
            job = await pool.enqueue_job("arq_echo", value)
            assert job is not None
            # arq has no blocking wait for a result: it polls, here every millisecond.
            return await job.result(timeout=30, poll_delay=0.001)

        try:
            yield lambda value: loop.run_until_complete(trip(value))
        finally:
            loop.run_until_complete(pool.aclose())
            loop.close()


@contextlib.contextmanager
def rq_trip(url: str, fast: bool, log: Path) -> Iterator[Trip]:
    import redis
    from _queue_bench_apps import echo
    from rq import Queue
    from rq.results import Result

    from fastmsgpack.integrations.rq import Serializer

    command = [
        sys.executable, "-m", "rq.cli", "worker", "--url", url, "--worker-class",
        "rq.worker.SimpleWorker", "bench",
    ]  # fmt: skip
    if fast:
        command[-1:-1] = ["--serializer", "fastmsgpack.integrations.rq.Serializer"]
    _environ(url, fast)
    with worker_process(command, url, log, "Listening on bench", (BENCH,)) as _:
        kwargs: dict[str, Any] = {"serializer": Serializer} if fast else {}
        queue = Queue("bench", connection=redis.Redis.from_url(url), **kwargs)

        def trip(value: Any) -> Any:
            job = queue.enqueue(echo, value)
            # Blocks (XREAD) until the worker adds the job's result.
            result = job.latest_result(timeout=30)
            assert result is not None, "rq job did not finish"
            assert result.type == Result.Type.SUCCESSFUL, result.exc_string
            return result.return_value

        yield trip


@contextlib.contextmanager
def dramatiq_trip(url: str, fast: bool, log: Path) -> Iterator[Trip]:
    import dramatiq
    from _queue_bench_apps import dramatiq_setup

    # dramatiq_worker_timeout: the consumer's longest wait between empty fetches, in ms.
    _environ(url, fast, FASTMSGPACK_BENCH_DRAMATIQ="1", dramatiq_worker_timeout="2")
    command = [
        sys.executable, "-m", "dramatiq", "_queue_bench_apps", "--processes", "1", "--threads",
        "1",
    ]  # fmt: skip
    ready = "Worker process is ready for action"
    with worker_process(command, url, log, ready, (BENCH,)) as _:
        actor, backend = dramatiq_setup(fast, url)

        def trip(value: Any) -> Any:
            # The encoder of messages is global to the process: this trip's, for the message.
            dramatiq.set_encoder(backend.encoder)
            message = actor.send(value)
            return message.get_result(backend=backend, block=True, timeout=30_000)

        yield trip


@contextlib.contextmanager
def celery_trip(url: str, serializer: str, log: Path) -> Iterator[Trip]:
    """A Celery worker (prefork pool, 2 processes) whose tasks and results use ``serializer``
    (``fastmsgpack``, ``msgpack`` or ``json``: _celery_bench_app.py)."""
    from _celery_bench_app import make_app

    _app, echo = make_app(serializer, url)
    env = dict(
        os.environ,
        FASTMSGPACK_BENCH_REDIS_URL=url,
        FASTMSGPACK_BENCH_SERIALIZER=serializer,
        PYTHONPATH=str(BENCH),
    )
    command = [
        sys.executable, "-m", "celery", "-A", "_celery_bench_app", "worker", "--pool=prefork",
        "--concurrency=2", "--loglevel=WARNING", "--without-gossip", "--without-mingle",
        "--without-heartbeat", f"--hostname=bench-{serializer}-{url.rsplit('/', 1)[-1]}@%h",
    ]  # fmt: skip
    with log.open("wb") as out:
        proc = subprocess.Popen(
            command, cwd=BENCH, env=env, stdout=out, stderr=subprocess.STDOUT,
            start_new_session=True,
        )  # fmt: skip
    try:
        # Ready when a task makes the round trip.
        probe = echo.delay("ready")
        deadline = time.monotonic() + 60
        while not probe.ready():
            if proc.poll() is not None or time.monotonic() > deadline:
                raise RuntimeError(
                    f"the Celery worker ({serializer}) did not start; its log:\n"
                    + log.read_text(errors="replace")
                )
            time.sleep(0.1)
        assert probe.get() == "ready"
        yield lambda value: echo.delay(value).get(timeout=30)
    finally:
        stop(proc)
