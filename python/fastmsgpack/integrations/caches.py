"""fastmsgpack as the serializer of Redis-backed caches: django-redis, aiocache, dogpile.cache.

All three store what :func:`dumps` makes and give back what :func:`loads` reads, with
``OPTIONS``: aware ``datetime`` objects travel as the MessagePack timestamp extension and come
back as aware ``datetime`` objects in UTC, dict keys may be ``int``, ``float``, ``bool``,
``None``, ``bytes`` or tuples, and everything else is packed as ``fastmsgpack.packb`` packs it
(``bytes`` stay ``bytes``; tuples and sets come back as lists; ``UUID``, ``Decimal``, naive
datetimes, dates and times as strings; dataclasses as dicts). A value fastmsgpack cannot pack
raises ``fastmsgpack.MsgpackEncodeError`` when it is stored.

None of the cache libraries is imported here, except dogpile.cache's exception class by
:func:`dogpile_deserializer` when an entry cannot be read.
"""

from __future__ import annotations

from typing import Any

from fastmsgpack import (
    OPT_DATETIME_AS_TIMESTAMP_EXT,
    OPT_NON_STR_KEYS,
    MsgpackDecodeError,
    packb,
    unpackb,
)

__all__ = [
    "OPTIONS",
    "AiocacheSerializer",
    "DjangoRedisSerializer",
    "dogpile_deserializer",
    "dogpile_serializer",
    "dumps",
    "loads",
]

#: The options given to both ``packb`` and ``unpackb``.
OPTIONS = OPT_DATETIME_AS_TIMESTAMP_EXT | OPT_NON_STR_KEYS


def dumps(value: Any) -> bytes:
    """Pack a cache value."""
    return packb(value, option=OPTIONS)


def loads(data: bytes | bytearray | memoryview) -> Any:
    """Unpack a cache value."""
    return unpackb(data, option=OPTIONS)


class DjangoRedisSerializer:
    """The serializer class for django-redis:
    ``OPTIONS = {"SERIALIZER": "fastmsgpack.integrations.caches.DjangoRedisSerializer"}``.

    django-redis stores plain ``int`` values as they are, without a serializer, and when reading
    tries ``int(data)`` before calling ``loads``. A value that packs to a single byte that
    ``int()`` would read (an ``IntEnum`` member of value 32 to 57, say: the byte ``b"1"`` is
    the MessagePack for 49) is therefore written in the two-byte ``uint 8`` form instead, which
    is the same MessagePack value and which ``int()`` refuses."""

    def __init__(self, options: dict[str, Any] | None = None) -> None:
        pass

    def dumps(self, value: Any) -> bytes:
        data = dumps(value)
        if len(data) == 1 and data[0] < 0x80:  # positive fixint
            return b"\xcc" + data
        return data

    def loads(self, value: bytes) -> Any:
        return loads(value)


class AiocacheSerializer:
    """The serializer for aiocache: ``RedisCache(serializer=AiocacheSerializer())``.

    ``encoding`` is ``None``, so that aiocache hands over the stored bytes as they are."""

    DEFAULT_ENCODING: str | None = None

    def __init__(self) -> None:
        self.encoding: str | None = None

    def dumps(self, value: Any) -> bytes:
        return dumps(value)

    def loads(self, value: bytes | None) -> Any:
        # aiocache calls loads with None for a key that is not there.
        return None if value is None else loads(value)


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
