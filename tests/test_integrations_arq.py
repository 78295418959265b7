"""fastmsgpack as arq's job serializer, with a real arq worker and a real redis-server."""

from __future__ import annotations

import asyncio
import sys
import time
import uuid
from collections.abc import Iterator
from typing import Any

import pytest
import redis
from _servers import RedisServer
from _workers import MORE, MORE_BACK, VALUE, Worker, describe, worker_process
from arq import create_pool
from arq.connections import ArqRedis, RedisSettings
from arq.jobs import Job

from fastmsgpack.integrations.arq import JobError, deserialize, serialize

DB = 7


pytestmark = pytest.mark.xdist_group("arq-worker")


@pytest.fixture(scope="module")
def worker(redis_server: RedisServer, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Worker]:
    url = redis_server.url(DB)
    redis.Redis.from_url(url).flushdb()
    log = tmp_path_factory.mktemp("arq") / "worker.log"
    command = [sys.executable, "-m", "arq", "_arq_app.WorkerSettings"]
    with worker_process(command, url, log, "Starting worker for") as w:
        yield w


async def pool_for(worker: Worker) -> ArqRedis:
    return await create_pool(
        RedisSettings.from_dsn(worker.url),
        job_serializer=serialize,
        job_deserializer=deserialize,
    )


async def result(job: Job | None) -> Any:
    assert job is not None
    return await job.result(timeout=20, poll_delay=0.05)


def test_jobs_keep_their_types(worker: Worker) -> None:
    async def main() -> Any:
        pool = await pool_for(worker)
        try:
            return await result(await pool.enqueue_job("echo", VALUE))
        finally:
            await pool.aclose()

    back = asyncio.run(main())
    assert back["types"] == describe(VALUE)  # what the worker received
    assert back["value"] == VALUE
    assert describe(back["value"]) == describe(VALUE)  # and what came back
    assert describe(deserialize(serialize({"a": MORE}))["a"]) == describe(MORE_BACK)
    assert deserialize(serialize({"a": MORE}))["a"] == MORE_BACK


def test_failed_jobs_raise(worker: Worker) -> None:
    async def main() -> tuple[BaseException, BaseException]:
        pool = await pool_for(worker)
        try:
            errors = []
            for builtin in (True, False):
                with pytest.raises(Exception) as info:
                    await result(await pool.enqueue_job("fail", builtin))
                errors.append(info.value)
            return errors[0], errors[1]
        finally:
            await pool.aclose()

    builtin, custom = asyncio.run(main())
    assert type(builtin) is KeyError
    assert builtin.args == ("missing", "3")
    assert type(custom) is JobError
    assert custom.type_name == "_arq_app.Refused"
    assert str(custom) == "_arq_app.Refused: no"


def test_garbage_job_fails_and_the_worker_goes_on(worker: Worker) -> None:
    job_id = uuid.uuid4().hex

    async def main() -> tuple[Any, Any]:
        pool = await pool_for(worker)
        try:
            await pool.set(f"arq:job:{job_id}", b"\xc1 not msgpack")
            await pool.zadd("arq:queue", {job_id: int(time.time() * 1000)})
            with pytest.raises(Exception) as info:
                await result(Job(job_id, pool, _deserializer=deserialize))
            later = await result(await pool.enqueue_job("echo", [1, 2]))
            return info.value, later
        finally:
            await pool.aclose()

    garbage, later = asyncio.run(main())
    assert isinstance(garbage, JobError)
    assert garbage.type_name == "arq.jobs.DeserializationError"
    assert later["value"] == [1, 2]
    assert worker.alive()
    assert f"deserializing job {job_id} failed" in worker.log_text()
