"""The dramatiq broker and actors of tests/test_integrations_dramatiq.py, imported by the test
and by the real worker it starts (``dramatiq _dramatiq_app``)."""

from __future__ import annotations

import os
from typing import Any

import dramatiq
from _workers import describe
from dramatiq.brokers.redis import RedisBroker
from dramatiq.results import Results
from dramatiq.results.backends.redis import RedisBackend

from fastmsgpack.integrations.dramatiq import MsgpackEncoder


def connect(url: str) -> tuple[RedisBroker, RedisBackend]:
    """Sets dramatiq's encoder and a broker with a results backend on ``url``."""
    dramatiq.set_encoder(MsgpackEncoder())
    broker = RedisBroker(url=url)  # type: ignore[no-untyped-call]
    backend = RedisBackend(url=url, encoder=MsgpackEncoder())  # type: ignore[no-untyped-call]
    broker.add_middleware(Results(backend=backend))  # type: ignore[no-untyped-call]
    dramatiq.set_broker(broker)
    return broker, backend


# The worker (`dramatiq _dramatiq_app`) is given the URL in its environment; the test process
# calls connect() and moves the actor to that broker.
broker, backend = connect(os.environ.get("FASTMSGPACK_TEST_REDIS_URL", "redis://127.0.0.1:1/0"))


@dramatiq.actor(store_results=True, max_retries=0)
def echo(value: Any) -> Any:
    return {"value": value, "types": describe(value)}


def use(url: str) -> RedisBackend:
    """Points this process's actor at ``url``; the results backend to read its results."""
    global broker, backend
    broker, backend = connect(url)
    echo.broker = broker
    broker.declare_actor(echo)
    return backend
