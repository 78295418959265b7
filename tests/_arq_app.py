"""The arq worker of tests/test_integrations_arq.py (``arq _arq_app.WorkerSettings``)."""

from __future__ import annotations

import os
from typing import Any, ClassVar

from _workers import describe
from arq.connections import RedisSettings

from fastmsgpack.integrations.arq import deserialize, serialize


class Refused(Exception):
    pass


async def echo(ctx: dict[str, Any], value: Any) -> Any:
    return {"value": value, "types": describe(value)}


async def fail(ctx: dict[str, Any], builtin: bool) -> None:
    if builtin:
        raise KeyError("missing", 3)
    raise Refused("no")


class WorkerSettings:
    functions: ClassVar[list[Any]] = [echo, fail]
    redis_settings = RedisSettings.from_dsn(os.environ.get("FASTMSGPACK_TEST_REDIS_URL", ""))
    job_serializer = serialize
    job_deserializer = deserialize
    poll_delay = 0.05
    max_tries = 1
