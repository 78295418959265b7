"""fastmsgpack: fast, correct MessagePack for Python, with a Rust core."""

from fastmsgpack._fastmsgpack import (
    _OPTIONS,
    BUFFER_EXT_TYPE,
    DEFAULT_BUFFER_THRESHOLD,
    ArrayView,
    BufferFull,
    Decoder,
    Ext,
    Fragment,
    MapView,
    MsgpackDecodeError,
    MsgpackEncodeError,
    OutOfData,
    Packer,
    Registry,
    Unpacker,
    ValidationError,
    __version__,
    pack,
    packb,
    packb_frames,
    unpack,
    unpackb,
)

# The option flags (OPT_*): the core's list is the only one.
globals().update(_OPTIONS)

# After the options: fastmsgpack.aio imports names of this module.
from fastmsgpack._view import View
from fastmsgpack.aio import AsyncUnpacker

__all__ = [name for name, _ in _OPTIONS] + [
    "BUFFER_EXT_TYPE",
    "DEFAULT_BUFFER_THRESHOLD",
    "ArrayView",
    "AsyncUnpacker",
    "BufferFull",
    "Decoder",
    "Ext",
    "Fragment",
    "MapView",
    "MsgpackDecodeError",
    "MsgpackEncodeError",
    "OutOfData",
    "Packer",
    "Registry",
    "Unpacker",
    "ValidationError",
    "View",
    "__version__",
    "pack",
    "packb",
    "packb_frames",
    "unpack",
    "unpackb",
]
