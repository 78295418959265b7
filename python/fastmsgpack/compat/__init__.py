"""msgpack-python 1.x's API on fastmsgpack's core: `import fastmsgpack.compat as msgpack`.

The decoding options act in the Rust decoder; packing maps onto the native encoder with the
options that give msgpack-python's bytes. See doc/migrating.md for what differs.

Only msgpack-python's public names are public here: the names this module needs for itself
are imported under private ones.
"""

import typing as _t
from collections.abc import Callable as _Callable

import fastmsgpack._fastmsgpack as _core
from fastmsgpack.compat._stream import Packer, Unpacker, _options
from fastmsgpack.compat.exceptions import (
    BufferFull,
    ExtraData,
    FormatError,
    OutOfData,
    PackException,
    PackOverflowError,
    PackValueError,
    StackError,
    UnpackException,
    UnpackValueError,
)
from fastmsgpack.compat.ext import (
    ExtType,
    Timestamp,
)

# The msgpack-python release whose behaviour compat follows (msgpack-python's own names).
version = (1, 2, 4)
__version__ = "1.2.4"

__all__ = [
    "BufferFull",
    "ExtType",
    "ExtraData",
    "FormatError",
    "OutOfData",
    "PackException",
    "PackOverflowError",
    "PackValueError",
    "Packer",
    "StackError",
    "Timestamp",
    "UnpackException",
    "UnpackValueError",
    "Unpacker",
    "dump",
    "dumps",
    "load",
    "loads",
    "pack",
    "packb",
    "unpack",
    "unpackb",
    "version",
]

_DEFAULT_OPTIONS = _options()
# Options made for unpackb calls without hooks or limits, by (use_list, raw, strict_map_key,
# timestamp): a handful at most.
_CACHED: dict[tuple[_t.Any, ...], _t.Any] = {}


def _ext_hook(
    convert: _Callable[[Timestamp], _t.Any],
) -> _Callable[[int, bytes], _t.Any]:
    def hook(code: int, data: bytes) -> _t.Any:
        if code == -1:
            return convert(Timestamp.from_bytes(data))
        return ExtType(code, data)

    return hook


# For the native decoder, by timestamp mode: extension values as the compat decoder makes them.
_NATIVE_EXT_HOOKS = {
    0: _ext_hook(lambda ts: ts),
    1: _ext_hook(Timestamp.to_unix),
    2: _ext_hook(Timestamp.to_unix_nano),
    3: _ext_hook(Timestamp.to_datetime),
}


def unpackb(
    packed: _t.Any,
    *,
    use_list: _t.Any = True,
    raw: _t.Any = False,
    timestamp: int = 0,
    strict_map_key: _t.Any = True,
    **kwargs: _t.Any,
) -> _t.Any:
    """Unpacks the one object in `packed`; ExtraData when bytes follow it."""
    if use_list and not raw and not kwargs:
        hook = _NATIVE_EXT_HOOKS.get(timestamp)
        if hook is not None:
            # Where the native decoder succeeds (str keys only, valid UTF-8, nothing after the
            # object) it builds what the compat decoder would; otherwise the compat decoder
            # decodes again, to give msgpack-python's result or error (and copies a buffer
            # that is not contiguous, which the native decoder refuses).
            try:
                return _core.unpackb(packed, ext_hook=hook)
            except (_core.MsgpackDecodeError, TypeError):
                pass
    if kwargs:
        options = _options(
            use_list=use_list, raw=raw, timestamp=timestamp, strict_map_key=strict_map_key, **kwargs
        )
    elif use_list and not raw and not timestamp and strict_map_key:
        options = _DEFAULT_OPTIONS
    else:
        key = (bool(use_list), bool(raw), timestamp, bool(strict_map_key))
        options = _CACHED.get(key)
        if options is None:
            options = _options(
                use_list=use_list, raw=raw, timestamp=timestamp, strict_map_key=strict_map_key
            )
            _CACHED[key] = options
    return _core._unpackb_compat(packed, options)


def unpack(stream: _t.IO[bytes], **kwargs: _t.Any) -> _t.Any:
    """Unpacks the one object that `stream.read()` returns."""
    return unpackb(stream.read(), **kwargs)


loads = unpackb
load = unpack


# Packers made for packb calls without `default`, by their arguments: a handful at most.
_PACKERS: dict[tuple[tuple[str, _t.Any], ...], Packer] = {}


# The Packer of the most common calls, packb(o) and packb(o, use_bin_type=True), found without
# building and hashing a key from the arguments: 0.3 us a call, 2-3% of packing the github
# document.
_PLAIN_PACKER = Packer()
_PLAIN_ARGS = {"use_bin_type": True}
_PLAIN_WITH_DEFAULT = {"use_bin_type", "default"}


def packb(o: _t.Any, **kwargs: _t.Any) -> bytes:
    """Packs `o` as msgpack-python's Packer(**kwargs) would."""
    if not kwargs or kwargs == _PLAIN_ARGS:
        return _PLAIN_PACKER._packb(o)
    if "default" in kwargs:
        default = kwargs["default"]
        # packb(o, default=f): the plain Packer's settings with this default, without the
        # checks of a Packer made anew.
        if callable(default) and (
            len(kwargs) == 1
            or (kwargs.keys() == _PLAIN_WITH_DEFAULT and kwargs["use_bin_type"] is True)
        ):
            return _PLAIN_PACKER._with_default(default)._packb(o)
        return Packer(**kwargs)._packb(o)
    key = tuple(kwargs.items())
    try:
        packer = _PACKERS.get(key)
    except TypeError:  # an unhashable argument: no caching
        return Packer(**kwargs)._packb(o)
    if packer is None:
        packer = Packer(**kwargs)
        if len(_PACKERS) < 64:
            _PACKERS[key] = packer
    return packer._packb(o)


def pack(o: _t.Any, stream: _t.IO[bytes], **kwargs: _t.Any) -> None:
    """Packs `o` and writes the bytes to `stream`."""
    stream.write(packb(o, **kwargs))


dumps = packb
dump = pack
