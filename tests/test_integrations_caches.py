"""fastmsgpack as the serializer of django-redis, aiocache and dogpile.cache, and the snapshot
recipe of doc/integrations.md, against a real redis-server (tests/_servers.py).

Each test also reads the raw value from Redis, to show that the bytes stored are fastmsgpack's.
"""

from __future__ import annotations

import asyncio
import dataclasses
import datetime
import decimal
import enum
import re
import uuid
from collections.abc import Callable
from pathlib import Path
from typing import Any
from zoneinfo import ZoneInfo

import numpy as np
import pytest
import redis
from _servers import RedisServer

import fastmsgpack
from fastmsgpack.integrations import caches

DOC = Path(__file__).resolve().parents[1] / "doc" / "integrations.md"
WHEN = datetime.datetime(2024, 5, 17, 14, 30, 5, 250000, tzinfo=datetime.timezone.utc)
PARIS = ZoneInfo("Europe/Paris")
VALUE: dict[str, Any] = {
    "at": WHEN,
    "blob": b"\x00\xff" * 10,
    "stops": [{"id": i, "name": f"stop {i}", "eta": WHEN} for i in range(50)],
    "by_id": {1: "one", 2: "two"},
    # What pickle, which these serializers replace, gives back as it was:
    "exact": {
        "id": uuid.UUID(int=5),
        "price": decimal.Decimal("19.90"),
        "pair": (1, (2, "x")),
        "tags": {"a", "b"},
        "local": datetime.datetime(2024, 5, 17, 9, 30, tzinfo=PARIS),
        "day": datetime.date(2024, 5, 17),
        "wait": datetime.timedelta(minutes=5),
        (1, 2): frozenset({3}),
    },
}
# What an earlier version stored for VALUE["exact"] (aware datetimes as timestamps, the other
# types as strings and arrays), and what it read back.
OLD_ENTRY = fastmsgpack.packb(
    {k: v for k, v in VALUE["exact"].items() if k != "wait"},  # timedelta: refused then
    option=fastmsgpack.OPT_DATETIME_AS_TIMESTAMP_EXT | fastmsgpack.OPT_NON_STR_KEYS,
)
OLD_VALUE = {
    "id": "00000000-0000-0000-0000-000000000005",
    "price": "19.90",
    "pair": [1, [2, "x"]],
    "tags": ["a", "b"],
    "local": datetime.datetime(2024, 5, 17, 7, 30, tzinfo=datetime.timezone.utc),
    "day": "2024-05-17",
    (1, 2): [3],
}


@dataclasses.dataclass
class Stop:
    name: str
    at: datetime.datetime


REGISTRY = fastmsgpack.Registry()
REGISTRY.register(Stop, 1, lambda s: (s.name, s.at), lambda v: Stop(*v))


def same(a: Any, b: Any) -> bool:
    """Equal, and of the same type all the way down (datetimes: in the same zone)."""
    if type(a) is not type(b):
        return False
    if isinstance(a, dict):
        return a.keys() == b.keys() and all(same(v, b[k]) for k, v in a.items())
    if isinstance(a, list | tuple):
        return len(a) == len(b) and all(same(x, y) for x, y in zip(a, b, strict=True))
    if isinstance(a, datetime.datetime):
        return bool(a == b and a.tzinfo == b.tzinfo)
    return bool(a == b)


def tags_sorted(value: Any) -> Any:
    """An old entry as read now, its set (an array then) in a stable order."""
    value["tags"] = sorted(value["tags"])
    return value


class Line(enum.IntEnum):
    ONE = 1
    FORTY_NINE = 49  # packs to b"1", which int() reads as 1


def get_bytes(client: redis.Redis, key: Any) -> bytes | None:
    value = client.get(key)
    assert value is None or isinstance(value, bytes)
    return value


def raw(server: RedisServer, db: int, key: str) -> bytes | None:
    return get_bytes(redis.Redis(server.host, server.port, db=db), key)


def test_django_redis(redis_server: RedisServer) -> None:
    from django.conf import settings  # type: ignore[import-untyped]

    location = redis_server.url(2)
    redis.Redis.from_url(location).flushdb()
    if not settings.configured:
        settings.configure(
            CACHES={
                "default": {
                    "BACKEND": "django_redis.cache.RedisCache",
                    "LOCATION": location,
                    "OPTIONS": {
                        "CLIENT_CLASS": "django_redis.client.DefaultClient",
                        "SERIALIZER": "fastmsgpack.integrations.caches.DjangoRedisSerializer",
                        "FASTMSGPACK_REGISTRY": REGISTRY,
                    },
                }
            }
        )
    from django.core.cache import cache  # type: ignore[import-untyped]

    cache.set("value", VALUE, timeout=60)
    assert same(cache.get("value"), VALUE)
    assert raw(redis_server, 2, ":1:value") == fastmsgpack.packb(VALUE, option=caches.OPTIONS)
    assert 0 < cache.ttl("value") <= 60
    cache.set_many({"a": [1, (2, 3)], "b": {"x": b"y"}})
    assert cache.get_many(["a", "b", "missing"]) == {"a": [1, (2, 3)], "b": {"x": b"y"}}
    # The registry in the cache's options: the program's own class comes back.
    stop = Stop("Dam", datetime.datetime(2024, 5, 17, 9, 30, tzinfo=PARIS))
    cache.set("stop", stop)
    assert cache.get("stop") == stop
    # An entry an earlier version wrote reads as it did then.
    redis.Redis.from_url(location).set(":1:old", OLD_ENTRY)
    assert tags_sorted(cache.get("old")) == OLD_VALUE
    # The member whose MessagePack is b"1" comes back as 49, not as int(b"1").
    cache.set("line", Line.FORTY_NINE)
    assert raw(redis_server, 2, ":1:line") == b"\xcc1"
    assert cache.get("line") == 49
    cache.set("flag", True)
    assert cache.get("flag") is True
    # Plain ints are django-redis's own business (stored as text, for incr) and keep working.
    cache.set("count", 41)
    assert cache.incr("count") == 42
    assert cache.get("count") == 42
    assert cache.get("missing") is None


# aiocache 0.12 calls redis-py methods that redis-py deprecates (setex, close): not ours to fix.
@pytest.mark.filterwarnings("ignore:Call to deprecated:DeprecationWarning")
def test_aiocache(redis_server: RedisServer) -> None:
    from aiocache import RedisCache  # type: ignore[import-untyped]

    redis.Redis(redis_server.host, redis_server.port, db=3).flushdb()

    async def scenario() -> None:
        cache = RedisCache(
            serializer=caches.AiocacheSerializer(),
            endpoint=redis_server.host,
            port=redis_server.port,
            db=3,
        )
        try:
            await cache.set("value", VALUE, ttl=60)
            assert same(await cache.get("value"), VALUE)
            assert await cache.get("missing") is None
            # An entry an earlier version wrote reads as it did then.
            redis.Redis(redis_server.host, redis_server.port, db=3).set("old", OLD_ENTRY)
            assert tags_sorted(await cache.get("old")) == OLD_VALUE
            await cache.multi_set([("a", 1.5), ("b", b"bytes")], ttl=60)
            assert await cache.multi_get(["a", "b", "missing"]) == [1.5, b"bytes", None]
        finally:
            await cache.close()

    asyncio.run(scenario())
    assert raw(redis_server, 3, "value") == fastmsgpack.packb(VALUE, option=caches.OPTIONS)
    serializer = caches.AiocacheSerializer(registry=REGISTRY)
    stop = Stop("Dam", WHEN)
    assert serializer.loads(serializer.dumps(stop)) == stop
    assert 0 < redis.Redis(redis_server.host, redis_server.port, db=3).ttl("value") <= 60


def test_dogpile(redis_server: RedisServer) -> None:
    from dogpile.cache import make_region

    client = redis.Redis(redis_server.host, redis_server.port, db=4)
    client.flushdb()
    region = make_region(
        serializer=caches.dogpile_serializer, deserializer=caches.dogpile_deserializer
    ).configure(
        "dogpile.cache.redis",
        expiration_time=300,
        arguments={"host": redis_server.host, "port": redis_server.port, "db": 4},
    )
    calls: list[int] = []

    def timetable(line: int) -> dict[str, Any]:
        calls.append(line)
        return {"line": line, "first": WHEN, "stops": ("Centraal", "Dam"), **VALUE["exact"]}

    cached: Callable[[int], dict[str, Any]] = region.cache_on_arguments()(timetable)
    expected = {"line": 2, "first": WHEN, "stops": ("Centraal", "Dam"), **VALUE["exact"]}
    assert same(cached(2), expected)
    assert same(cached(2), expected)
    assert calls == [2]
    [key] = client.keys("*")
    stored = get_bytes(client, key)
    assert stored is not None
    metadata, _, payload = stored.partition(b"|")
    assert metadata.startswith(b"{") and payload == fastmsgpack.packb(
        expected, option=caches.OPTIONS
    )
    # A corrupted entry is treated as missing: the value is made again, and stored again.
    client.set(key, metadata + b"|\xc1 not MessagePack")
    assert cached(2) == expected
    assert calls == [2, 2]
    again = get_bytes(client, key)
    assert again is not None
    assert again.partition(b"|")[2] == fastmsgpack.packb(expected, option=caches.OPTIONS)


def snapshot_recipe() -> dict[str, Any]:
    """The block of doc/integrations.md that defines the snapshot functions, run."""
    text = DOC.read_text(encoding="utf-8")
    [block] = [
        b
        for b in re.findall(r"^```python\n(.*?)^```", text, re.MULTILINE | re.DOTALL)
        if "def save_snapshot" in b
    ]
    namespace: dict[str, Any] = {"__name__": "snapshot_recipe"}
    exec(compile(block, str(DOC), "exec"), namespace)  # noqa: S102 (the repository's own doc)
    return namespace


def test_snapshot_recipe_with_50_mb(redis_server: RedisServer) -> None:
    recipe = snapshot_recipe()
    client = recipe["snapshot_client"](redis_server.url(5))
    client.flushdb()
    rng = np.random.default_rng(5)
    snapshot = {
        "taken": WHEN,
        "matrix": rng.random(5_500_000),  # 44 MB of float64
        "vehicles": {i: (i % 7, f"van {i}") for i in range(1000)},
        "records": [
            {"id": i, "at": WHEN + datetime.timedelta(seconds=i), "load": i * 0.5}
            for i in range(200_000)
        ],
    }
    recipe["save_snapshot"](client, "plan:today", snapshot, 120)
    stored = client.get("plan:today")
    assert len(stored) > 50_000_000
    assert 0 < client.ttl("plan:today") <= 120
    back = recipe["load_snapshot"](client, "plan:today")
    assert back["taken"] == WHEN
    assert isinstance(back["matrix"], np.ndarray) and back["matrix"].dtype == np.float64
    np.testing.assert_array_equal(back["matrix"], snapshot["matrix"])
    assert back["vehicles"] == {i: [i % 7, f"van {i}"] for i in range(1000)}
    assert back["records"] == snapshot["records"]
    assert recipe["load_snapshot"](client, "plan:missing") is None
