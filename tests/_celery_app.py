"""The Celery app of tests/test_integrations_celery.py, imported both by the test process (to
send tasks and read results) and by the real worker it starts (``celery -A _celery_app worker``).

The broker and the result backend are the Redis server named by FASTMSGPACK_TEST_REDIS_URL. Tasks
and results travel as fastmsgpack; the worker also accepts kombu's own ``msgpack``. Nothing here
imports fastmsgpack: the serializer name is found through kombu's entry point.
"""

from __future__ import annotations

import datetime
import hashlib
import logging
import os
from typing import Any

from celery import Celery  # type: ignore[import-untyped]
from celery.signals import task_received  # type: ignore[import-untyped]

app = Celery("fastmsgpack_test")
app.conf.update(
    task_serializer="fastmsgpack",
    result_serializer="fastmsgpack",
    accept_content=["fastmsgpack", "msgpack"],
    result_accept_content=["fastmsgpack", "msgpack"],
    broker_connection_retry_on_startup=True,
    worker_prefetch_multiplier=1,
    result_expires=600,
)
if url := os.environ.get("FASTMSGPACK_TEST_REDIS_URL"):
    app.conf.update(broker_url=url, result_backend=url)

log = logging.getLogger("fastmsgpack_test")


def _record_content_type(sender: Any = None, request: Any = None, **kwargs: Any) -> None:
    # Runs in the worker's main process for each task message it accepts: the test reads these
    # lines to learn which serializer each message was sent with.
    log.warning("fastmsgpack-test received %s as %s", request.id, request.content_type)


task_received.connect(_record_content_type, weak=False)


def _echo(value: Any) -> Any:
    return value


def _describe(when: Any, blob: Any, *, items: Any) -> dict[str, Any]:
    """What the worker received, as the worker saw it, and values computed from it."""
    return {
        "pid": os.getpid(),
        "when_type": type(when).__name__,
        "when_offset": when.utcoffset().total_seconds() if when.tzinfo else None,
        "day_after": when + datetime.timedelta(days=1),
        "blob_type": type(blob).__name__,
        "blob_len": len(blob),
        "blob_sha256": hashlib.sha256(blob).hexdigest(),
        "blob_reversed": blob[::-1],
        "item_types": sorted({type(item).__name__ for item in items}),
        "n_items": len(items),
    }


# Registered without decorator syntax: celery is untyped, and mypy --strict refuses untyped
# decorators.
echo = app.task(name="fastmsgpack_test.echo")(_echo)
describe = app.task(name="fastmsgpack_test.describe")(_describe)
