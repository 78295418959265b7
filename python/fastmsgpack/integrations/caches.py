"""fastmsgpack as the serializer of Redis-backed caches: django-redis, aiocache, dogpile.cache.

All three store what :func:`dumps` makes and give back what :func:`loads` reads, with
``OPTIONS`` (``OPT_EXACT``, doc/exact.md), so that a cached value comes back as pickle, which
they replace, would give it back: tuples, sets, frozensets, ``bytes``, ``bytearray``, ``UUID``,
``Decimal``, ``complex``, big integers, and ``datetime``, ``date``, ``time`` and ``timedelta``
objects (each in its own zone) come back as themselves, and dict keys may be of any of these
types. Enum members come back as their values and dataclasses as dicts, unless their classes are
in the ``registry`` given to the serializer. A value fastmsgpack cannot pack raises
``fastmsgpack.MsgpackEncodeError`` when it is stored.

Entries written by earlier versions (aware datetimes as the timestamp extension, tuples and sets
as arrays, UUIDs and Decimals as strings) are read as those versions read them: aware datetimes
in UTC, lists and strings. An earlier version reading a new entry gets ``fastmsgpack.Ext`` values
for the exact types: upgrade every reader of a cache before its writers.

A value that packs to ``COMPRESS_THRESHOLD`` bytes or more (64 KiB) is stored as a
zstd-compressed snapshot frame (``fastmsgpack.snapshot``, doc/snapshots.md): a checksummed
header, then the compressed MessagePack. Smaller values are stored as plain MessagePack, where
compressing would cost more time than it saves in transfer. :func:`loads` reads both, and so
every entry written before the frames existed; a version without snapshots cannot read a framed
entry (upgrade readers first).

None of the cache libraries is imported here, except dogpile.cache's exception class by
:func:`dogpile_deserializer` when an entry cannot be read.
"""

from __future__ import annotations

from typing import Any

from fastmsgpack import (
    OPT_DATETIME_AS_TIMESTAMP_EXT,
    OPT_EXACT,
    OPT_NON_STR_KEYS,
    MsgpackDecodeError,
    Registry,
    packb,
    snapshot,
    unpackb,
)

__all__ = [
    "COMPRESS_THRESHOLD",
    "OPTIONS",
    "AiocacheSerializer",
    "DjangoRedisSerializer",
    "dogpile_deserializer",
    "dogpile_serializer",
    "dumps",
    "loads",
]

#: The options given to both ``packb`` and ``unpackb``: exact types, and (for entries of earlier
#: versions) timestamps read as aware datetimes.
OPTIONS = OPT_EXACT | OPT_DATETIME_AS_TIMESTAMP_EXT | OPT_NON_STR_KEYS


#: Values that pack to this many bytes or more are stored compressed (zstd, level 3).
COMPRESS_THRESHOLD = 64 * 1024


def dumps(value: Any, registry: Registry | None = None) -> bytes:
    """Pack a cache value (the classes of ``registry`` as its extension types), compressed in a
    snapshot frame when it packs to ``COMPRESS_THRESHOLD`` bytes or more."""
    data = packb(value, option=OPTIONS, registry=registry)
    if len(data) < COMPRESS_THRESHOLD:
        return data
    return snapshot.frame(data, compress="zstd")


def loads(data: bytes | bytearray | memoryview, registry: Registry | None = None) -> Any:
    """Unpack a cache value: a snapshot frame, or plain MessagePack."""
    if bytes(data[: len(snapshot.MAGIC)]) == snapshot.MAGIC:
        try:
            return snapshot.loads(data, option=OPTIONS, registry=registry)
        except snapshot.SnapshotError:
            # A plain map that happens to start as a snapshot header does (a map of eight
            # entries whose first is "fastmsgpack": "snapshot") is read as the map it is; a
            # damaged frame is not MessagePack of one object either, and raises.
            try:
                return unpackb(data, option=OPTIONS, registry=registry)
            except MsgpackDecodeError:
                pass
            raise
    return unpackb(data, option=OPTIONS, registry=registry)


class DjangoRedisSerializer:
    """The serializer class for django-redis:
    ``OPTIONS = {"SERIALIZER": "fastmsgpack.integrations.caches.DjangoRedisSerializer"}``.

    django-redis stores plain ``int`` values as they are, without a serializer, and when reading
    tries ``int(data)`` before calling ``loads``. A value that packs to a single byte that
    ``int()`` would read (an ``IntEnum`` member of value 32 to 57, say: the byte ``b"1"`` is
    the MessagePack for 49) is therefore written in the two-byte ``uint 8`` form instead, which
    is the same MessagePack value and which ``int()`` refuses.

    A ``Registry`` for the program's own classes goes in the cache's options:
    ``OPTIONS = {"SERIALIZER": ..., "FASTMSGPACK_REGISTRY": registry}``."""

    def __init__(self, options: dict[str, Any] | None = None) -> None:
        self.registry: Registry | None = (options or {}).get("FASTMSGPACK_REGISTRY")

    def dumps(self, value: Any) -> bytes:
        data = dumps(value, self.registry)
        if len(data) == 1 and data[0] < 0x80:  # positive fixint
            return b"\xcc" + data
        return data

    def loads(self, value: bytes) -> Any:
        return loads(value, self.registry)


class AiocacheSerializer:
    """The serializer for aiocache: ``RedisCache(serializer=AiocacheSerializer())``.

    ``encoding`` is ``None``, so that aiocache hands over the stored bytes as they are.
    ``registry`` holds the program's own classes, if any."""

    DEFAULT_ENCODING: str | None = None

    def __init__(self, registry: Registry | None = None) -> None:
        self.encoding: str | None = None
        self.registry = registry

    def dumps(self, value: Any) -> bytes:
        return dumps(value, self.registry)

    def loads(self, value: bytes | None) -> Any:
        # aiocache calls loads with None for a key that is not there.
        return None if value is None else loads(value, self.registry)


def dogpile_serializer(value: Any) -> bytes:
    """For ``make_region(serializer=dogpile_serializer, ...)``."""
    return dumps(value)


def dogpile_deserializer(data: bytes) -> Any:
    """For ``make_region(deserializer=dogpile_deserializer, ...)``. An entry that is not valid
    MessagePack raises dogpile.cache's ``CantDeserializeException``, which makes the region
    treat it as missing and create the value again."""
    try:
        return loads(data)
    except MsgpackDecodeError as exc:
        from dogpile.cache.api import CantDeserializeException

        raise CantDeserializeException(str(exc)) from exc
