"""A Dask distributed serialization family named ``fastmsgpack``.

Importing this module registers the family, in the process that imports it; give it to the
workers as a preload (``LocalCluster(preload=["fastmsgpack.integrations.dask"])``, or
``dask worker --preload fastmsgpack.integrations.dask``) and import it in the client, then name
it first: ``Client(serializers=["fastmsgpack", "dask", "pickle"], deserializers=[...])``.

As a preload it also makes the worker's own connections, to other workers, ask for the family
first (:func:`dask_setup`), so data moved between worker processes travels as fastmsgpack.

The family carries exactly what comes back the same, and refuses the rest, so that Dask hands
it to the next family in the list:

- ``None``, ``bool``, ``int`` (up to 4096 bytes), ``float``, ``complex``, ``str``, ``bytes``,
  ``bytearray`` (``memoryview`` arrives as ``bytes``), ``list``, ``tuple``, ``set``,
  ``frozenset`` and ``dict`` with keys of any of these types (``OPT_EXACT``, doc/exact.md);
- ``datetime`` (naive, UTC, fixed offsets, ``ZoneInfo``), ``date``, ``time``, ``timedelta``,
  ``UUID`` and ``Decimal``, each arriving as itself;
- numpy arrays of any dtype that has raw bytes (not object, structured or void dtypes): the
  array's memory is a separate frame (fastmsgpack's out-of-band buffers, ``OPT_NUMPY_RAW``), sent
  without a copy when the array is C-contiguous; it arrives as a writeable array of the same
  dtype (byte order included) and shape, a view of its frame when the frame is writable (as
  frames read from a connection are);
- ``bytes`` of 4096 bytes or more are separate frames too, sent without a copy;
- numpy scalars (``numpy.int32(5)``), arriving as numpy scalars of their dtype.

Anything else (dataclasses, enum members, other subclasses of builtin types, datetimes with
other ``tzinfo`` classes, object and structured arrays) makes the whole value go to the next
family. Frames of earlier versions (tuples as the family's own extension 1) are read as before.
"""

from __future__ import annotations

import importlib
import sys
from typing import Any

from fastmsgpack import (
    OPT_EXACT,
    OPT_NUMPY_RAW,
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

# Everything fastmsgpack would otherwise turn into another type goes to `default` instead;
# arrays are raw maps whose data goes out of band.
_OPTIONS = (
    OPT_EXACT
    | OPT_PASSTHROUGH_BIG_INT
    | OPT_PASSTHROUGH_DATACLASS
    | OPT_PASSTHROUGH_DATETIME
    | OPT_PASSTHROUGH_ENUM
    | OPT_PASSTHROUGH_SUBCLASS
    | OPT_PASSTHROUGH_TUPLE
    | OPT_PASSTHROUGH_UUID
    | OPT_NUMPY_RAW
)

# What loads reads with: the exact types, and arrays as raw maps.
_READ = OPT_EXACT | OPT_NUMPY_RAW

# Extension types, private to this family (only its own `loads` reads them).
_TUPLE = 1  # data: [first frame, frame count, the items packed as an array]
_SCALAR = 3  # data: [dtype.str, the value's bytes]


class _Refused(Exception):
    """A value this family does not carry."""


class _Packing:
    """One `dumps`: the top message's out-of-band frames, and those of the tuples in it, which
    are packed as messages of their own, each with its frames in one run of `nested`."""

    def __init__(self) -> None:
        self.top: list[Any] = []
        self.nested: list[Any] = []

    def pack(self, obj: Any, frames: list[Any]) -> bytes:
        def take(buffer: Any) -> None:
            frames.append(buffer.raw())

        return packb(obj, default=self.default, option=_OPTIONS, buffer_callback=take)

    def default(self, obj: Any) -> Any:
        if type(obj) is tuple:
            own: list[Any] = []
            items = self.pack(list(obj), own)
            first = len(self.nested)
            self.nested.extend(own)
            return Ext(_TUPLE, packb([first, len(own), items]))
        numpy = sys.modules.get("numpy")
        if numpy is not None and isinstance(obj, numpy.generic) and not obj.dtype.hasobject:
            # numpy.float64, numpy.str_ and numpy.bytes_ (subclasses of builtin types).
            return Ext(_SCALAR, packb([obj.dtype.str, obj.tobytes()]))
        raise _Refused


def dumps(x: Any, context: dict[str, Any] | None = None) -> tuple[dict[str, Any], list[Any]]:
    """Serialize ``x``: a header and the frames (the MessagePack, then the out-of-band frames of
    the top message and then those of the tuples in it). Raises ``NotImplementedError`` for a
    value the family does not carry, which makes Dask try the next family."""
    packing = _Packing()
    try:
        message = packing.pack(x, packing.top)
    except (MsgpackEncodeError, _Refused) as exc:
        raise NotImplementedError(f"fastmsgpack does not carry this value exactly: {exc}") from exc
    header = {"serializer": NAME, "top": len(packing.top)}
    return header, [message, *packing.top, *packing.nested]


def _writable(frame: Any) -> Any:
    """The frame, or a writable copy when it is read-only (arrays arrive writeable)."""
    view = memoryview(frame)
    return bytearray(view) if view.readonly else frame


def loads(header: dict[str, Any], frames: list[Any]) -> Any:
    """Deserialize what :func:`dumps` made."""
    top = header.get("top", 0)
    own = [_writable(f) for f in frames[1 : 1 + top]]
    nested = [_writable(f) for f in frames[1 + top :]]

    def ext_hook(tag: int, data: bytes) -> Any:
        if tag == _TUPLE:
            first, count, items = unpackb(data)
            given = nested[first : first + count]
            return tuple(unpackb(items, ext_hook=ext_hook, option=_READ, buffers=given))
        if tag == _SCALAR:
            numpy: Any = sys.modules.get("numpy") or importlib.import_module("numpy")
            dtype, raw = unpackb(data)
            return numpy.frombuffer(raw, dtype=numpy.dtype(dtype))[0]
        raise ValueError(f"unknown extension type {tag} in a fastmsgpack Dask frame")

    return unpackb(frames[0], ext_hook=ext_hook, option=_READ, buffers=own)


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
