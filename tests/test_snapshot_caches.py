"""Large cache values and queue messages go in snapshot frames (zstd); small ones and entries
written before the frames existed stay plain MessagePack, and both load."""

from __future__ import annotations

import datetime
import random
from typing import Any

import redis
from _servers import RedisServer

from fastmsgpack import packb, snapshot
from fastmsgpack.integrations import _exact, caches

WHEN = datetime.datetime(2026, 5, 1, 8, 30, tzinfo=datetime.timezone.utc)


def planning(n: int) -> dict[str, Any]:
    rng = random.Random(n)
    return {
        "taken": WHEN,
        "stops": [(i, f"stop-{i}", rng.random()) for i in range(n)],
        "depots": {1, 2, 3},
    }


def test_cache_values_are_framed_above_the_threshold() -> None:
    small, large = planning(10), planning(20_000)
    assert len(packb(small, option=caches.OPTIONS)) < caches.COMPRESS_THRESHOLD
    plain = caches.dumps(small)
    assert plain == packb(small, option=caches.OPTIONS)
    assert caches.loads(plain) == small
    framed = caches.dumps(large)
    assert framed.startswith(snapshot.MAGIC)
    raw = packb(large, option=caches.OPTIONS)
    assert len(framed) < len(raw)
    assert caches.loads(framed) == large
    assert caches.loads(memoryview(framed)) == large
    # Entries written before the frames: plain MessagePack of any size.
    assert caches.loads(raw) == large
    for serializer in (caches.DjangoRedisSerializer(), caches.AiocacheSerializer()):
        assert serializer.loads(serializer.dumps(large)) == large
        assert serializer.loads(raw) == large
    assert caches.dogpile_deserializer(caches.dogpile_serializer(large)) == large


def test_a_plain_map_that_looks_like_a_header_is_read_as_itself() -> None:
    lookalike = {
        "fastmsgpack": "snapshot",
        "version": 1,
        "codec": "none",
        "size": 1,
        "stored_size": 1,
        "checksum": 0,
        "meta": None,
        "header_checksum": 0,
    }
    data = packb(lookalike)
    assert data.startswith(snapshot.MAGIC)
    assert caches.loads(data) == lookalike
    assert _exact.loads(data) == lookalike


def test_a_damaged_frame_raises() -> None:
    framed = bytearray(caches.dumps(planning(20_000)))
    framed[-10] ^= 0xFF
    try:
        caches.loads(bytes(framed))
    except snapshot.SnapshotError as exc:
        assert exc.kind == "checksum"
    else:
        raise AssertionError("a damaged frame loaded")


def test_queue_messages_are_framed_above_the_threshold() -> None:
    job = {"args": (planning(20_000),), "kwargs": {"when": WHEN}}
    framed = _exact.dumps(job)
    assert framed.startswith(snapshot.MAGIC)
    assert _exact.loads(framed) == job
    small = {"args": (1, 2), "kwargs": {}}
    assert not _exact.dumps(small).startswith(snapshot.MAGIC)
    assert _exact.loads(_exact.dumps(small)) == small


def test_a_large_value_through_redis(redis_server: RedisServer) -> None:
    from dogpile.cache import make_region

    # Database 10: this test's own.
    client = redis.Redis(redis_server.host, redis_server.port, db=10)
    client.flushdb()
    region = make_region(
        serializer=caches.dogpile_serializer, deserializer=caches.dogpile_deserializer
    ).configure(
        "dogpile.cache.redis",
        expiration_time=300,
        arguments={"host": redis_server.host, "port": redis_server.port, "db": 10},
    )
    value = planning(20_000)
    region.set("plan", value)
    assert region.get("plan") == value
    [key] = client.keys("*")
    stored = client.get(key)
    assert isinstance(stored, bytes)
    assert stored.partition(b"|")[2].startswith(snapshot.MAGIC)
