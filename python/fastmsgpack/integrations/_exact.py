"""Values that come back as the types they were: the serializers of the task queues (arq, rq,
dramatiq) pack with :func:`dumps` and read with :func:`loads`.

Besides what MessagePack carries as it is (``None``, ``bool``, ``int``, ``float``, ``str``,
``bytes``, ``list``, ``dict`` with keys of any of these types), these come back as themselves:

- ``datetime.datetime``, naive or aware, to the microsecond, with its UTC offset; a
  ``zoneinfo.ZoneInfo`` comes back as the same zone (by its key), any other ``tzinfo`` as a
  fixed ``datetime.timezone`` of the same offset;
- ``datetime.date``, ``datetime.time`` (with its offset, if any) and ``datetime.timedelta``;
- ``tuple`` (named tuples come back as plain tuples) and ``uuid.UUID``.

Each of these travels as a MessagePack extension (codes 80 to 85, with the text
``datetime.isoformat()`` gives, the zone key after it in brackets as RFC 9557 writes it). Other
values are packed as ``fastmsgpack.packb`` packs them: ``Decimal`` as its string, sets as arrays,
dataclasses and pydantic models as maps, enum members as their values.
"""

from __future__ import annotations

import datetime
import uuid
from typing import Any

from fastmsgpack import (
    OPT_NON_STR_KEYS,
    OPT_PASSTHROUGH_DATETIME,
    OPT_PASSTHROUGH_TUPLE,
    OPT_PASSTHROUGH_UUID,
    OPT_SERIALIZE_PYDANTIC,
    Ext,
    packb,
    unpackb,
)

__all__ = ["dumps", "loads"]

_PACK = (
    OPT_PASSTHROUGH_DATETIME
    | OPT_PASSTHROUGH_TUPLE
    | OPT_PASSTHROUGH_UUID
    | OPT_NON_STR_KEYS
    | OPT_SERIALIZE_PYDANTIC
)
_UNPACK = OPT_NON_STR_KEYS

DATETIME, DATE, TIME, TIMEDELTA, TUPLE, UUID = range(80, 86)


def dumps(obj: Any) -> bytes:
    """``obj`` packed so that :func:`loads` gives back the same types."""
    return packb(obj, default=_default, option=_PACK)


def loads(data: bytes | bytearray | memoryview) -> Any:
    """What :func:`dumps` packed."""
    return unpackb(data, ext_hook=_ext_hook, option=_UNPACK)


def _default(obj: Any) -> Any:
    kind = type(obj)
    if kind is datetime.datetime:
        text = obj.isoformat()
        key = getattr(obj.tzinfo, "key", None)
        if isinstance(key, str):
            text += f"[{key}]"
        return Ext(DATETIME, text.encode())
    if kind is datetime.date:
        return Ext(DATE, obj.isoformat().encode())
    if kind is datetime.time:
        return Ext(TIME, obj.isoformat().encode())
    if kind is datetime.timedelta:
        return Ext(TIMEDELTA, packb([obj.days, obj.seconds, obj.microseconds]))
    if isinstance(obj, tuple):
        return Ext(TUPLE, dumps(list(obj)))
    if kind is uuid.UUID:
        return Ext(UUID, obj.bytes)
    # A subclass of datetime, date, time or UUID is packed as its base type would be.
    if isinstance(obj, datetime.datetime):
        return _default(datetime.datetime.combine(obj.date(), obj.timetz()))
    if isinstance(obj, datetime.date):
        return _default(datetime.date(obj.year, obj.month, obj.day))
    if isinstance(obj, datetime.time):
        t = datetime.time(obj.hour, obj.minute, obj.second, obj.microsecond, obj.tzinfo)
        return _default(t)
    if isinstance(obj, uuid.UUID):
        return Ext(UUID, obj.bytes)
    raise TypeError(f"fastmsgpack cannot pack an object of type {kind.__qualname__}")


def _ext_hook(code: int, data: bytes) -> Any:
    if code == DATETIME:
        text = data.decode()
        if text.endswith("]"):
            text, _, key = text[:-1].partition("[")
            import zoneinfo

            fixed = datetime.datetime.fromisoformat(text)
            zoned = fixed.replace(tzinfo=zoneinfo.ZoneInfo(key))
            if zoned.utcoffset() != fixed.utcoffset():  # the second of two equal wall times
                zoned = zoned.replace(fold=1)
            return zoned
        return datetime.datetime.fromisoformat(text)
    if code == DATE:
        return datetime.date.fromisoformat(data.decode())
    if code == TIME:
        return datetime.time.fromisoformat(data.decode())
    if code == TIMEDELTA:
        days, seconds, microseconds = unpackb(data)
        return datetime.timedelta(days, seconds, microseconds)
    if code == TUPLE:
        return tuple(loads(data))
    if code == UUID:
        return uuid.UUID(bytes=data)
    return Ext(code, data)
