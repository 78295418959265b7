"""Values that come back as the types they were: the serializers of the task queues (arq, rq,
dramatiq) pack with :func:`dumps` and read with :func:`loads`, in ``OPT_EXACT``'s format
(doc/exact.md), written and read in the core.

Besides what MessagePack carries as it is (``None``, ``bool``, ``int``, ``float``, ``str``,
``bytes``, ``list``, ``dict`` with keys of any hashable type), these come back as themselves:

- ``datetime.datetime``, naive or aware, to the microsecond, with its ``fold``; a
  ``datetime.timezone`` comes back equal (offset and name), a ``zoneinfo.ZoneInfo`` as the same
  zone (by its key), any other ``tzinfo`` (pytz, dateutil) as a fixed ``datetime.timezone`` of
  the same offset and name;
- ``datetime.date``, ``datetime.time`` (with its zone, if any) and ``datetime.timedelta``;
- ``tuple``, ``set``, ``frozenset``, ``uuid.UUID``, ``decimal.Decimal`` (every digit),
  ``bytearray``, ``complex`` and integers of any size.

A message that packs to ``COMPRESS_THRESHOLD`` bytes or more (64 KiB: a large job argument) is
sent as a zstd-compressed snapshot frame (``fastmsgpack.snapshot``, doc/snapshots.md); smaller
ones, nearly all, as plain MessagePack. :func:`loads` reads both, so messages queued before the
frames existed still load; workers must be upgraded before producers send large messages.

Subclasses of ``tuple`` (named tuples), ``datetime``, ``date``, ``time`` and ``UUID`` come back
as their base type. Other values are packed as ``fastmsgpack.packb`` packs them: dataclasses and
pydantic models as maps, enum members as their values.
"""

from __future__ import annotations

import datetime
import uuid
import zoneinfo
from typing import Any

from fastmsgpack import (
    OPT_EXACT,
    OPT_PASSTHROUGH_DATETIME,
    OPT_PASSTHROUGH_TUPLE,
    OPT_PASSTHROUGH_UUID,
    OPT_SERIALIZE_PYDANTIC,
    MsgpackDecodeError,
    MsgpackEncodeError,
    packb,
    snapshot,
    unpackb,
)

__all__ = ["COMPRESS_THRESHOLD", "dumps", "loads"]

#: Messages that pack to this many bytes or more are compressed (zstd, level 3).
COMPRESS_THRESHOLD = 64 * 1024

# The passthrough options send the subclasses OPT_EXACT leaves alone to `_default`.
_PACK = (
    OPT_EXACT
    | OPT_PASSTHROUGH_DATETIME
    | OPT_PASSTHROUGH_TUPLE
    | OPT_PASSTHROUGH_UUID
    | OPT_SERIALIZE_PYDANTIC
)


def dumps(obj: Any) -> bytes:
    """``obj`` packed so that :func:`loads` gives back the same types."""
    try:
        data = packb(obj, default=_default, option=_PACK)
    except MsgpackEncodeError:
        # OPT_EXACT refuses a tzinfo it cannot name; such values are written with a fixed
        # offset instead, and only when there are any (otherwise the error stands).
        fixed, changed = _fixed_zones(obj)
        if not changed:
            raise
        data = packb(fixed, default=_default, option=_PACK)
    if len(data) < COMPRESS_THRESHOLD:
        return data
    return snapshot.frame(data, compress="zstd")


def loads(data: bytes | bytearray | memoryview) -> Any:
    """What :func:`dumps` packed, framed or not."""
    if bytes(data[: len(snapshot.MAGIC)]) == snapshot.MAGIC:
        try:
            return snapshot.loads(data, option=OPT_EXACT)
        except snapshot.SnapshotError:
            # A plain map that starts as a snapshot header does is read as the map it is.
            try:
                return unpackb(data, option=OPT_EXACT)
            except MsgpackDecodeError:
                pass
            raise
    return unpackb(data, option=OPT_EXACT)


def _default(obj: Any) -> Any:
    # Subclasses of the exact types, as their base type.
    if isinstance(obj, tuple):
        return tuple(obj)
    if isinstance(obj, datetime.datetime):
        return datetime.datetime.combine(obj.date(), obj.timetz())
    if isinstance(obj, datetime.date):
        return datetime.date(obj.year, obj.month, obj.day)
    if isinstance(obj, datetime.time):
        return datetime.time(
            obj.hour, obj.minute, obj.second, obj.microsecond, obj.tzinfo, fold=obj.fold
        )
    if isinstance(obj, uuid.UUID):
        return uuid.UUID(bytes=obj.bytes)
    raise TypeError(f"fastmsgpack cannot pack an object of type {type(obj).__qualname__}")


def _fixed_zones(obj: Any) -> tuple[Any, bool]:
    """``obj`` with each datetime or time whose ``tzinfo`` OPT_EXACT cannot name given a
    ``datetime.timezone`` of the same offset and name; and whether there was any."""
    if isinstance(obj, (datetime.datetime, datetime.time)):
        tz = obj.tzinfo
        if tz is None or isinstance(tz, (datetime.timezone, zoneinfo.ZoneInfo)):
            return obj, False
        at = obj if isinstance(obj, datetime.datetime) else None
        offset = tz.utcoffset(at)
        if offset is None:
            return obj.replace(tzinfo=None), True
        name = tz.tzname(at)
        fixed = datetime.timezone(offset, name) if name else datetime.timezone(offset)
        return obj.replace(tzinfo=fixed), True
    if isinstance(obj, dict):
        items = [(_fixed_zones(k), _fixed_zones(v)) for k, v in obj.items()]
        if any(k[1] or v[1] for k, v in items):
            return {k[0]: v[0] for k, v in items}, True
        return obj, False
    if isinstance(obj, (list, tuple, set, frozenset)):
        parts = [_fixed_zones(item) for item in obj]
        if any(changed for _, changed in parts):
            values = [value for value, _ in parts]
            if isinstance(obj, list):
                return values, True
            if isinstance(obj, tuple):
                return tuple(values), True
            return (frozenset(values) if isinstance(obj, frozenset) else set(values)), True
        return obj, False
    return obj, False
