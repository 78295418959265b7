"""The workers of benchmarks/test_queues.py: an arq worker, jobs for rq, and a dramatiq broker,
each with fastmsgpack's serializer or the framework's default, chosen by environment variables
(FASTMSGPACK_BENCH_REDIS_URL, FASTMSGPACK_BENCH_SERIALIZER: "fastmsgpack" or "default"), and the
payloads of the benchmark.

No worker waits longer than a millisecond for work: arq's worker polls its queue every
millisecond, and the dramatiq worker is started with ``dramatiq_worker_timeout=2`` (its consumer
backs off between empty fetches to at most that many milliseconds), so that a round trip is not
rounded up to a polling interval. rq's worker blocks on the queue and wakes as a job arrives.
"""

from __future__ import annotations

import datetime
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
START = datetime.datetime(2024, 5, 17, 6, 0, tzinfo=datetime.timezone.utc)


def payload(records: int, iso: bool) -> list[dict[str, Any]]:
    """``records`` records of an id, a name, a float, an aware datetime (an ISO string if ``iso``)
    and a flag."""
    out: list[dict[str, Any]] = []
    for i in range(records):
        eta = START + datetime.timedelta(seconds=37 * i)
        out.append(
            {
                "id": 100_000 + i,
                "name": f"stop {i:05d} Centraal",
                "load": i * 0.25,
                "eta": eta.isoformat() if iso else eta,
                "done": i % 3 == 0,
            }
        )
    return out


def echo(value: Any) -> Any:
    return value


# The arq job's results, by number of records: made once, each checked against the argument.
_ARQ_RESULTS: dict[int, list[dict[str, Any]]] = {}


async def arq_echo(ctx: dict[str, Any], value: Any) -> Any:
    """Returns a value equal to its argument, but not the argument itself. arq stores a job's
    arguments beside its result, in one call of the serializer, and pickle writes an object met
    twice in a call once (the second time as a reference back): a job that returned its own
    argument would have its payload pickled once but packed twice, where a job's result is in
    general an object of its own (and then pickled twice as well)."""
    if not isinstance(value, list):
        return value
    result = _ARQ_RESULTS.get(len(value))
    if result is None:
        result = _ARQ_RESULTS[len(value)] = payload(len(value), iso=False)
        if result != value:
            raise ValueError("arq_echo: the argument is not the benchmark's payload")
    return result


class ArqSettings:
    functions: ClassVar[list[Any]] = [arq_echo]
    redis_settings = RedisSettings.from_dsn(URL)
    poll_delay = 0.001
    if FAST:
        job_serializer = fm_arq.serialize
        job_deserializer = fm_arq.deserialize


def dramatiq_setup(fast: bool, url: str = URL) -> tuple[Any, Any]:
    """Sets dramatiq's encoder and broker (with a results backend, on ``url``); returns the echo
    actor, bound to that broker, and the results backend (whose ``encoder`` is the encoder)."""
    encoder = MsgpackEncoder() if fast else dramatiq.JSONEncoder()
    dramatiq.set_encoder(encoder)
    broker = RedisBroker(url=url)  # type: ignore[no-untyped-call]
    backend = RedisBackend(url=url, encoder=encoder)  # type: ignore[no-untyped-call]
    broker.add_middleware(Results(backend=backend))  # type: ignore[no-untyped-call]
    dramatiq.set_broker(broker)
    actor = dramatiq.actor(actor_name="echo", store_results=True, max_retries=0)(echo)
    return actor, backend


if os.environ.get("FASTMSGPACK_BENCH_DRAMATIQ"):
    dramatiq_echo, _ = dramatiq_setup(FAST)
