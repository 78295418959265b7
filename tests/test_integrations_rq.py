"""fastmsgpack as rq's serializer, with a real rq worker and a real redis-server."""

from __future__ import annotations

import sys
import zlib
from collections.abc import Iterator
from typing import Any

import pytest
import redis
from _rq_jobs import echo, fail
from _servers import RedisServer
from _workers import MORE, MORE_BACK, VALUE, Worker, describe, wait_until, worker_process
from rq import Queue
from rq.job import Job, JobStatus

from fastmsgpack.integrations.rq import Serializer

DB = 8
QUEUE = "fastmsgpack-test"


pytestmark = pytest.mark.xdist_group("rq-worker")


@pytest.fixture(scope="module")
def worker(redis_server: RedisServer, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Worker]:
    url = redis_server.url(DB)
    redis.Redis.from_url(url).flushdb()
    log = tmp_path_factory.mktemp("rq") / "worker.log"
    command = [
        sys.executable, "-m", "rq.cli", "worker", "--url", url, "--serializer",
        "fastmsgpack.integrations.rq.Serializer", "--with-scheduler", QUEUE,
    ]  # fmt: skip
    with worker_process(command, url, log, f"Listening on {QUEUE}") as w:
        yield w


@pytest.fixture
def queue(worker: Worker) -> Queue:
    return Queue(QUEUE, connection=redis.Redis.from_url(worker.url), serializer=Serializer)


def finished(job: Job) -> Any:
    wait_until(
        lambda: job.get_status(refresh=True) in (JobStatus.FINISHED, JobStatus.FAILED), "job"
    )
    return job


def test_jobs_keep_their_types(queue: Queue) -> None:
    job = finished(queue.enqueue(echo, VALUE))
    assert job.get_status() == JobStatus.FINISHED, job.latest_result()
    back = job.return_value()
    assert back["types"] == describe(VALUE)
    assert back["value"] == VALUE
    assert describe(back["value"]) == describe(VALUE)
    # The arguments as stored with the job read back too.
    assert Job.fetch(job.id, connection=queue.connection, serializer=Serializer).args == (VALUE,)
    assert describe(Serializer.loads(Serializer.dumps(MORE))) == describe(MORE_BACK)
    assert Serializer.loads(Serializer.dumps(MORE)) == MORE_BACK


def test_failed_job_keeps_its_error(queue: Queue) -> None:
    job = finished(queue.enqueue(fail))
    assert job.get_status() == JobStatus.FAILED
    result = job.latest_result()
    assert result is not None
    assert "KeyError: 'missing'" in (result.exc_string or "")


def test_garbage_job_fails_and_the_worker_goes_on(queue: Queue, worker: Worker) -> None:
    job = Job.create(echo, args=("never",), connection=queue.connection, serializer=Serializer,
                     origin=QUEUE)  # fmt: skip
    job.save()
    queue.connection.hset(job.key, "data", zlib.compress(b"\xc1 not msgpack"))
    job.set_status(JobStatus.QUEUED)
    queue.push_job_id(job.id)
    later = finished(queue.enqueue(echo, [1, 2]))
    assert later.return_value()["value"] == [1, 2]
    wait_until(lambda: job.get_status(refresh=True) == JobStatus.FAILED, "the garbage job")
    assert worker.alive()
    assert "MsgpackDecodeError: reserved marker byte 0xc1" in worker.log_text()
