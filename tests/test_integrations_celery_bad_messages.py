"""A valid MessagePack body that is not a Celery task, as doc/integrations.md describes it ("Bad
messages"): it stops a real worker, again at each restart, until it is cleared from the queue with
the function the page gives, or with ``celery purge``."""

from __future__ import annotations

import os
import re
import subprocess
import sys
import time
import uuid
from pathlib import Path
from typing import Any

import pytest
import redis
from _celery_worker import TESTS, TIMEOUT, Worker, spawn_worker, stop, wait_ready
from _servers import RedisServer
from kombu.connection import Connection

import fastmsgpack

DB = 6
DOC = TESTS.parent / "doc" / "integrations.md"
BLOCK = re.compile(r"^```python\n(.*?)^```", re.MULTILINE | re.DOTALL)


def documented_function(name: str) -> Any:
    """The function ``name`` defined by a Python block of doc/integrations.md, as printed."""
    for source in BLOCK.findall(DOC.read_text(encoding="utf-8")):
        if f"def {name}(" in source:
            namespace: dict[str, Any] = {}
            exec(compile(source, str(DOC), "exec"), namespace)  # noqa: S102 (our own docs)
            return namespace[name]
    raise AssertionError(f"{DOC} defines no {name}")


def publish(url: str, body: bytes, task_id: str, content_type: str) -> None:
    """A message with a task's headers and the given raw body, as a producer that is not Celery
    would send it."""
    with Connection(url) as conn:  # type: ignore[no-untyped-call]
        conn.Producer().publish(
            body,
            exchange="",
            routing_key="celery",
            content_type=content_type,
            content_encoding="binary",
            headers={"task": "fastmsgpack_test.echo", "id": task_id, "lang": "py"},
        )


def send_echo(url: str, value: Any) -> str:
    """A real echo task, as Celery sends it (protocol 2, fastmsgpack)."""
    from _celery_app import echo

    with Connection(url) as conn:  # type: ignore[no-untyped-call]
        result = echo.apply_async((value,), connection=conn)
    return str(result.id)


def waiting(client: redis.Redis) -> bytes:
    """The messages waiting in the queue "celery" (kombu's JSON envelopes), run together."""
    return b"".join(client.lrange("celery", 0, -1))  # type: ignore[arg-type]


def wait_exit(w: Worker) -> int:
    deadline = time.monotonic() + TIMEOUT
    while (status := w.proc.poll()) is None:
        if time.monotonic() > deadline:
            stop(w)
            pytest.fail(f"the worker is still running; its log:\n{w.log_text()}", pytrace=False)
        time.sleep(0.1)
    return status


def wait_for_log(w: Worker, pattern: str) -> None:
    deadline = time.monotonic() + TIMEOUT
    while re.search(pattern, w.log_text()) is None:
        assert w.proc.poll() is None, f"the worker stopped; its log:\n{w.log_text()}"
        assert time.monotonic() < deadline, f"no {pattern!r} in the log:\n{w.log_text()}"
        time.sleep(0.1)


def test_a_body_of_the_wrong_shape_stops_the_worker_until_removed(
    redis_server: RedisServer, tmp_path: Path
) -> None:
    url = redis_server.url(DB)
    client = redis.Redis.from_url(url)
    client.flushdb()
    bad_int, bad_pair = str(uuid.uuid4()), str(uuid.uuid4())
    publish(url, fastmsgpack.packb(42), bad_int, "application/x-fastmsgpack")
    publish(url, fastmsgpack.packb([1, 2]), bad_pair, "application/x-fastmsgpack")
    second = send_echo(url, "second")

    # The worker stops on the first bad message and puts it back on the queue; so does the next.
    # (One process, so that it takes one message at a time.)
    for attempt in range(2):
        w = spawn_worker(url, tmp_path / f"crash-{attempt}.log", f"crash{attempt}", concurrency=1)
        try:
            assert wait_exit(w) == 1
        finally:
            stop(w)
        log = w.log_text()
        assert "Unrecoverable error: TypeError(\"argument of type 'int' is not iterable\")" in log
        assert "Restoring 1 unacknowledged message(s)" in log
        assert client.hlen("unacked") == 0
    assert bad_int.encode() in waiting(client)

    # The documented function drops both bad messages and keeps the tasks.
    drop = documented_function("drop_messages_that_are_not_tasks")
    assert sorted(drop(url)) == sorted([bad_int, bad_pair])
    left = waiting(client)
    assert second.encode() in left
    assert bad_int.encode() not in left and bad_pair.encode() not in left
    assert client.hlen("unacked") == 0

    # A worker now runs what is left and stays up.
    w = spawn_worker(url, tmp_path / "after.log", name="after")
    try:
        wait_ready(w)
        wait_for_log(w, rf"{second}\] succeeded in [0-9.e-]+s: 'second'")
        assert client.llen("celery") == 0
        assert w.proc.poll() is None
    finally:
        stop(w)

    # `celery purge` clears the queue too, with the workers stopped.
    publish(url, fastmsgpack.packb(42), str(uuid.uuid4()), "application/x-fastmsgpack")
    send_echo(url, "dropped as well")
    assert client.llen("celery") == 2
    purge = subprocess.run(
        [sys.executable, "-m", "celery", "-A", "_celery_app", "purge", "-Q", "celery", "-f"],
        check=False,
        cwd=TESTS,
        env={**os.environ, "FASTMSGPACK_TEST_REDIS_URL": url},
        capture_output=True,
        text=True,
        timeout=TIMEOUT,
    )
    assert purge.returncode == 0, purge.stdout + purge.stderr
    assert "Purged 2 messages" in purge.stdout
    assert client.llen("celery") == 0
