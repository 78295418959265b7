"""The Celery app of benchmarks/test_celery.py, imported by the benchmark process (to send tasks)
and by the worker it starts (``celery -A _celery_bench_app worker``).

FASTMSGPACK_BENCH_REDIS_URL names the Redis server (broker and result backend) and
FASTMSGPACK_BENCH_SERIALIZER the serializer of both the task messages and the results: one
worker per serializer, so that a round trip is encoded and decoded with it both ways.
"""

from __future__ import annotations

import os
from typing import Any

from celery import Celery  # type: ignore[import-untyped]

SERIALIZERS = ("fastmsgpack", "msgpack", "json")


def _echo(value: Any) -> Any:
    return value


def make_app(serializer: str, url: str | None) -> tuple[Any, Any]:
    """A Celery app whose tasks and results use ``serializer``, and its echo task. (A result
    backend decodes with its app's result serializer, so each serializer gets its own app.)"""
    app = Celery(f"fastmsgpack_bench_{serializer}")
    app.conf.update(
        task_serializer=serializer,
        result_serializer=serializer,
        accept_content=list(SERIALIZERS),
        result_accept_content=list(SERIALIZERS),
        broker_connection_retry_on_startup=True,
        worker_prefetch_multiplier=1,
        result_expires=600,
    )
    if url:
        app.conf.update(broker_url=url, result_backend=url)
    return app, app.task(name="fastmsgpack_bench.echo")(_echo)


# The worker's app (celery -A _celery_bench_app).
app, echo = make_app(
    os.environ.get("FASTMSGPACK_BENCH_SERIALIZER", "fastmsgpack"),
    os.environ.get("FASTMSGPACK_BENCH_REDIS_URL"),
)
