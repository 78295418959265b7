"""fastmsgpack: fast, correct MessagePack for Python, with a Rust core."""

from fastmsgpack._fastmsgpack import (
    OPT_NON_STR_KEYS,
    OPT_PASSTHROUGH_BIG_INT,
    OPT_PASSTHROUGH_SUBCLASS,
    OPT_PASSTHROUGH_TUPLE,
    OPT_REPLACE_SURROGATES,
    OPT_SORT_KEYS,
    Ext,
    MsgpackDecodeError,
    MsgpackEncodeError,
    __version__,
    packb,
    unpackb,
)

__all__ = [
    "OPT_NON_STR_KEYS",
    "OPT_PASSTHROUGH_BIG_INT",
    "OPT_PASSTHROUGH_SUBCLASS",
    "OPT_PASSTHROUGH_TUPLE",
    "OPT_REPLACE_SURROGATES",
    "OPT_SORT_KEYS",
    "Ext",
    "MsgpackDecodeError",
    "MsgpackEncodeError",
    "__version__",
    "packb",
    "unpackb",
]
