"""A Dask distributed serialization family named ``fastmsgpack``.

Importing this module registers the family, in the process that imports it; give it to the
workers as a preload (``LocalCluster(preload=["fastmsgpack.integrations.dask"])``, or
``dask worker --preload fastmsgpack.integrations.dask``) and import it in the client, then name
it first: ``Client(serializers=["fastmsgpack", "dask", "pickle"], deserializers=[...])``.

As a preload it also makes the worker's own connections, to other workers, ask for the family
first (:func:`dask_setup`), so data moved between worker processes travels as fastmsgpack.

The family carries exactly what comes back the same, and refuses the rest, so that Dask hands
it to the next family in the list:

- ``None``, ``bool``, ``int`` (64-bit range), ``float``, ``str``, ``bytes`` (``bytearray`` and
  ``memoryview`` arrive as ``bytes``), ``list``, ``tuple`` (arriving as a tuple, not a list) and
  ``dict`` with ``str`` keys;
- numpy arrays of any dtype without Python objects: the array's memory is a separate frame, sent
  without a copy when the array is C-contiguous; it arrives as a writeable array of the same
  dtype (byte order included) and shape;
- numpy scalars (``numpy.int32(5)``), arriving as numpy scalars of their dtype.

Anything else (datetimes, UUIDs, dataclasses, enum members, subclasses of builtin types,
integers beyond 64 bits, dicts with other keys, object arrays) makes the whole value go to the
next family. Two types are not refused, because fastmsgpack packs them without asking: sets and
frozensets arrive as lists, and ``Decimal`` as its string.
"""

from __future__ import annotations

import importlib
import sys
from typing import Any

from fastmsgpack import (
    OPT_PASSTHROUGH_BIG_INT,
    OPT_PASSTHROUGH_DATACLASS,
    OPT_PASSTHROUGH_DATETIME,
    OPT_PASSTHROUGH_ENUM,
    OPT_PASSTHROUGH_SUBCLASS,
    OPT_PASSTHROUGH_TUPLE,
    OPT_PASSTHROUGH_UUID,
    Ext,
    MsgpackEncodeError,
    packb,
    unpackb,
)

__all__ = ["NAME", "SERIALIZERS", "dask_setup", "dumps", "loads", "register"]

#: The family's name in ``Client(serializers=...)``.
NAME = "fastmsgpack"
#: The families a worker preloading this module uses on its own connections (to other workers),
#: in order of preference; also a good ``serializers`` list for the ``Client``.
SERIALIZERS = [NAME, "dask", "pickle"]

# Everything fastmsgpack would otherwise turn into another type goes to `default` instead.
_OPTIONS = (
    OPT_PASSTHROUGH_BIG_INT
    | OPT_PASSTHROUGH_DATACLASS
    | OPT_PASSTHROUGH_DATETIME
    | OPT_PASSTHROUGH_ENUM
    | OPT_PASSTHROUGH_SUBCLASS
    | OPT_PASSTHROUGH_TUPLE
    | OPT_PASSTHROUGH_UUID
)

# Extension types, private to this family (only its own `loads` reads them).
_TUPLE = 1  # data: the items, packed as an array
_ARRAY = 2  # data: [frame index, dtype.str, shape]; the memory is frames[frame index]
_SCALAR = 3  # data: [dtype.str, the value's bytes]


class _Refused(Exception):
    """A value this family does not carry."""


def _packer(frames: list[Any]) -> Any:
    def default(obj: Any) -> Any:
        if type(obj) is tuple:
            return Ext(_TUPLE, packb(list(obj), default=default, option=_OPTIONS))
        numpy = sys.modules.get("numpy")
        if numpy is not None:
            if type(obj) is numpy.ndarray and not obj.dtype.hasobject:
                # A flat uint8 view of the memory (a view, not a copy, when the array is
                # C-contiguous): memoryview refuses some dtypes (datetime64) but not uint8.
                flat = numpy.ascontiguousarray(obj).reshape(-1).view(numpy.uint8)
                frames.append(memoryview(flat))
                shape = list(obj.shape)
                return Ext(_ARRAY, packb([len(frames) - 1, obj.dtype.str, shape]))
            if isinstance(obj, numpy.generic) and not obj.dtype.hasobject:
                return Ext(_SCALAR, packb([obj.dtype.str, obj.tobytes()]))
        raise _Refused

    return default


def dumps(x: Any, context: dict[str, Any] | None = None) -> tuple[dict[str, Any], list[Any]]:
    """Serialize ``x``: a header and the frames (the MessagePack, then one frame per numpy
    array). Raises ``NotImplementedError`` for a value the family does not carry, which makes
    Dask try the next family."""
    frames: list[Any] = [b""]
    try:
        frames[0] = packb(x, default=_packer(frames), option=_OPTIONS)
    except (MsgpackEncodeError, _Refused) as exc:
        raise NotImplementedError(f"fastmsgpack does not carry this value exactly: {exc}") from exc
    return {"serializer": NAME}, frames


def loads(header: dict[str, Any], frames: list[Any]) -> Any:
    """Deserialize what :func:`dumps` made."""

    def ext_hook(tag: int, data: bytes) -> Any:
        if tag == _TUPLE:
            return tuple(unpackb(data, ext_hook=ext_hook))
        numpy: Any = sys.modules.get("numpy") or importlib.import_module("numpy")
        if tag == _ARRAY:
            index, dtype, shape = unpackb(data)
            frame = memoryview(frames[index])
            if frame.readonly:
                frame = memoryview(bytearray(frame))
            return numpy.frombuffer(frame, dtype=numpy.dtype(dtype)).reshape(shape)
        if tag == _SCALAR:
            dtype, raw = unpackb(data)
            return numpy.frombuffer(raw, dtype=numpy.dtype(dtype))[0]
        raise ValueError(f"unknown extension type {tag} in a fastmsgpack Dask frame")

    return unpackb(frames[0], ext_hook=ext_hook)


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
