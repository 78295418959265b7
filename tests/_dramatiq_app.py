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

URL = os.environ.get("FASTMSGPACK_TEST_REDIS_URL", "redis://127.0.0.1:1/0")

dramatiq.set_encoder(MsgpackEncoder())
broker = RedisBroker(url=URL)  # type: ignore[no-untyped-call]
backend = RedisBackend(url=URL, encoder=MsgpackEncoder())  # type: ignore[no-untyped-call]
broker.add_middleware(Results(backend=backend))  # type: ignore[no-untyped-call]
dramatiq.set_broker(broker)


@dramatiq.actor(store_results=True, max_retries=0)
def echo(value: Any) -> Any:
    return {"value": value, "types": describe(value)}
