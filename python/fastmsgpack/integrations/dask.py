"""A Dask distributed serialization family named ``fastmsgpack``.

Importing this module registers the family, in the process that imports it; give it to the
workers as a preload (``LocalCluster(preload=["fastmsgpack.integrations.dask"])``, or
``dask worker --preload fastmsgpack.integrations.dask``) and import it in the client, then name
it first: ``Client(serializers=["fastmsgpack", "dask", "pickle"], deserializers=[...])``.

As a preload it also makes the worker's own connections, to other workers, ask for the family
first (:func:`dask_setup`), so data moved between worker processes travels as fastmsgpack.

The family carries exactly what comes back the same (``OPT_EXACT``, doc/exact.md), and refuses
the rest, so that Dask hands it to the next family in the list:

- ``None``, ``bool``, ``int`` (any size up to 4096 bytes), ``float``, ``complex``, ``str``,
  ``bytes``, ``bytearray`` (``memoryview`` arrives as ``bytes``), ``list``, ``tuple``, ``set``,
  ``frozenset`` and ``dict`` with keys of any of these types;
- ``datetime`` (naive, UTC, fixed offsets and ``ZoneInfo`` zones), ``date``, ``time``,
  ``timedelta``, ``UUID`` and ``Decimal``, each arriving as itself;
- numpy arrays of any dtype without Python objects: the array's memory is a separate frame, sent
  without a copy when the array is C-contiguous; it arrives as a writeable array of the same
  dtype (byte order included) and shape;
- numpy scalars (``numpy.int32(5)``, ``numpy.float64(1.5)``), arriving as numpy scalars of their
  dtype.

Anything else (dataclasses, enum members, other subclasses of builtin types, datetimes in other
``tzinfo`` classes, object arrays) makes the whole value go to the next family.

Frames written by earlier versions (which wrote tuples as the family's own extension 1) are read
as before.
"""

from __future__ import annotations

import importlib
import sys
from typing import Any

from fastmsgpack import (
    OPT_EXACT,
    OPT_PASSTHROUGH_DATACLASS,
    OPT_PASSTHROUGH_DATETIME,
    OPT_PASSTHROUGH_ENUM,
    OPT_PASSTHROUGH_SUBCLASS,
    OPT_PASSTHROUGH_UUID,
    Ext,
    MsgpackEncodeError,
    Registry,
    packb,
    unpackb,
)

__all__ = ["NAME", "SERIALIZERS", "dask_setup", "dumps", "loads", "register"]

#: The family's name in ``Client(serializers=...)``.
NAME = "fastmsgpack"
#: The families a worker preloading this module uses on its own connections (to other workers),
#: in order of preference; also a good ``serializers`` list for the ``Client``.
SERIALIZERS = [NAME, "dask", "pickle"]

# The exact types as themselves; everything fastmsgpack would otherwise turn into another type
# (subclasses, enum members, dataclasses) goes to `default` instead, which refuses it.
_OPTIONS = (
    OPT_EXACT
    | OPT_PASSTHROUGH_DATACLASS
    | OPT_PASSTHROUGH_DATETIME
    | OPT_PASSTHROUGH_ENUM
    | OPT_PASSTHROUGH_SUBCLASS
    | OPT_PASSTHROUGH_UUID
)

# Extension types, private to this family (only its own `loads` reads them).
_TUPLE = 1  # earlier versions' tuples: the items, packed as an array
_ARRAY = 2  # [frame index, dtype.str, shape]; the memory is frames[frame index]
_SCALAR = 3  # [dtype.str, the value's bytes]: numpy scalars that subclass float, str or bytes


class _Refused(Exception):
    """A value this family does not carry."""


def _default(obj: Any) -> Any:
    numpy = sys.modules.get("numpy")
    if numpy is not None and isinstance(obj, numpy.generic) and not obj.dtype.hasobject:
        return Ext(_SCALAR, packb([obj.dtype.str, obj.tobytes()]))
    raise _Refused


def _registry(frames: list[Any]) -> Registry | None:
    """numpy arrays as frames of their own, by their class, before the exact types."""
    numpy = sys.modules.get("numpy")
    if numpy is None:
        return None

    def encode(obj: Any) -> Any:
        if obj.dtype.hasobject:
            raise _Refused
        # A flat uint8 view of the memory (a view, not a copy, when the array is C-contiguous):
        # memoryview refuses some dtypes (datetime64) but not uint8.
        flat = numpy.ascontiguousarray(obj).reshape(-1).view(numpy.uint8)
        frames.append(memoryview(flat))
        return [len(frames) - 1, obj.dtype.str, list(obj.shape)]

    registry = Registry()
    registry.register(numpy.ndarray, _ARRAY, encode, lambda fields: _array(frames, fields))
    return registry


def _array(frames: list[Any], fields: Any) -> Any:
    """The array of an `_ARRAY` extension: [frame index, dtype.str, shape]."""
    numpy: Any = sys.modules.get("numpy") or importlib.import_module("numpy")
    index, dtype, shape = fields
    frame = memoryview(frames[index])
    if frame.readonly:
        frame = memoryview(bytearray(frame))
    return numpy.frombuffer(frame, dtype=numpy.dtype(dtype)).reshape(shape)


def dumps(x: Any, context: dict[str, Any] | None = None) -> tuple[dict[str, Any], list[Any]]:
    """Serialize ``x``: a header and the frames (the MessagePack, then one frame per numpy
    array). Raises ``NotImplementedError`` for a value the family does not carry, which makes
    Dask try the next family."""
    frames: list[Any] = [b""]
    try:
        frames[0] = packb(x, default=_default, option=_OPTIONS, registry=_registry(frames))
    except (MsgpackEncodeError, _Refused) as exc:
        raise NotImplementedError(f"fastmsgpack does not carry this value exactly: {exc}") from exc
    return {"serializer": NAME}, frames


def loads(header: dict[str, Any], frames: list[Any]) -> Any:
    """Deserialize what :func:`dumps` made (or an earlier version's ``dumps``)."""

    def ext_hook(tag: int, data: bytes) -> Any:
        if tag == _TUPLE:
            return tuple(unpackb(data, ext_hook=ext_hook))
        if tag == _ARRAY:  # when numpy was not imported yet, there was no registry
            return _array(frames, unpackb(data))
        numpy: Any = sys.modules.get("numpy") or importlib.import_module("numpy")
        if tag == _SCALAR:
            dtype, raw = unpackb(data)
            return numpy.frombuffer(raw, dtype=numpy.dtype(dtype))[0]
        raise ValueError(f"unknown extension type {tag} in a fastmsgpack Dask frame")

    return unpackb(frames[0], option=OPT_EXACT, ext_hook=ext_hook, registry=_registry(frames))


def register() -> None:
    """Register the family with Dask distributed (importing this module does it already)."""
    from distributed.protocol.serialize import register_serialization_family

    register_serialization_family(NAME, dumps, loads)  # type: ignore[no-untyped-call]


def dask_setup(worker: Any) -> None:
    """Called by Dask on each worker that preloads this module: the worker's own connections
    (fetching data from other workers) ask for this family first, so data moved between worker
    processes travels as fastmsgpack too, and falls back to ``dask`` and ``pickle``."""
    worker.rpc.serializers = list(SERIALIZERS)
    worker.rpc.deserializers = list(SERIALIZERS)


register()
