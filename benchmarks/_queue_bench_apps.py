"""The workers of benchmarks/test_queues.py: an arq worker, jobs for rq, and a dramatiq broker,
each with fastmsgpack's serializer or the framework's default, chosen by environment variables
(FASTMSGPACK_BENCH_REDIS_URL, FASTMSGPACK_BENCH_SERIALIZER: "fastmsgpack" or "default")."""

from __future__ import annotations

import os
from typing import Any, ClassVar

import dramatiq
from arq.connections import RedisSettings
from dramatiq.brokers.redis import RedisBroker
from dramatiq.results import Results
from dramatiq.results.backends.redis import RedisBackend

from fastmsgpack.integrations import arq as fm_arq
from fastmsgpack.integrations.dramatiq import MsgpackEncoder

URL = os.environ.get("FASTMSGPACK_BENCH_REDIS_URL", "redis://127.0.0.1:1/0")
FAST = os.environ.get("FASTMSGPACK_BENCH_SERIALIZER", "default") == "fastmsgpack"


def echo(value: Any) -> Any:
    return value


async def arq_echo(ctx: dict[str, Any], value: Any) -> Any:
    return value


class ArqSettings:
    functions: ClassVar[list[Any]] = [arq_echo]
    redis_settings = RedisSettings.from_dsn(URL)
    poll_delay = 0.01
    if FAST:
        job_serializer = fm_arq.serialize
        job_deserializer = fm_arq.deserialize


def dramatiq_setup(fast: bool) -> Any:
    """Sets dramatiq's encoder and broker (with a results backend); returns the echo actor."""
    encoder = MsgpackEncoder() if fast else dramatiq.JSONEncoder()
    dramatiq.set_encoder(encoder)
    broker = RedisBroker(url=URL)  # type: ignore[no-untyped-call]
    backend = RedisBackend(url=URL, encoder=encoder)  # type: ignore[no-untyped-call]
    broker.add_middleware(Results(backend=backend))  # type: ignore[no-untyped-call]
    dramatiq.set_broker(broker)
    return dramatiq.actor(actor_name="echo", store_results=True, max_retries=0)(echo)


if os.environ.get("FASTMSGPACK_BENCH_DRAMATIQ"):
    dramatiq_echo = dramatiq_setup(FAST)
