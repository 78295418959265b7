"""`msgpack.fallback`'s public names, for code that imports them from there: the same classes
and functions as `fastmsgpack.compat` (there is no separate pure-Python implementation)."""

from fastmsgpack.compat import (
    BufferFull,
    ExtraData,
    ExtType,
    FormatError,
    OutOfData,
    Packer,
    StackError,
    Timestamp,
    Unpacker,
    unpackb,
)

__all__ = [
    "BufferFull",
    "ExtType",
    "ExtraData",
    "FormatError",
    "OutOfData",
    "Packer",
    "StackError",
    "Timestamp",
    "Unpacker",
    "unpackb",
]
