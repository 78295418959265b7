"""Packer and Unpacker of fastmsgpack.compat, with msgpack-python 1.x's arguments and methods."""

from __future__ import annotations

import datetime
import struct
import sys
from collections.abc import Callable, Iterable
from typing import Any

import fastmsgpack._fastmsgpack as _core
from fastmsgpack.compat.exceptions import (
    BufferFull,
    ExtraData,
    FormatError,
    OutOfData,
    StackError,
)
from fastmsgpack.compat.ext import (
    ExtType,
    Timestamp,
)

_CLASSES: dict[str, Any] = {
    "timestamp_type": Timestamp,
    "format_error": FormatError,
    "stack_error": StackError,
    "extra_data": ExtraData,
}


def _options(
    ext_hook: Callable[[int, bytes], Any] | None = None,
    use_list: Any = True,
    raw: Any = False,
    strict_map_key: Any = True,
    **kwargs: Any,
) -> Any:
    """The core's CompatOptions for msgpack-python's decoding keyword arguments."""
    return _core.CompatOptions(
        use_list=use_list,
        raw=raw,
        strict_map_key=strict_map_key,
        ext_hook=ExtType if ext_hook is None else ext_hook,
        default_ext_hook=ExtType,
        **_CLASSES,
        **kwargs,
    )


# What msgpack-python refuses or packs its own way goes to the Packer's `default`, which packs it
# as msgpack-python does: subclasses of int, str, float and tuple by their base type, ints beyond
# 64 bits as OverflowError, naive datetimes as ValueError. The core packs named tuples as arrays
# itself, except under strict_types (_STRICT sends them here) and ExtType, registered below.
_PASS = (
    _core.OPT_NON_STR_KEYS
    | _core.OPT_PASSTHROUGH_BIG_INT
    | _core.OPT_PASSTHROUGH_UUID
    | _core.OPT_PASSTHROUGH_ENUM
    | _core.OPT_PASSTHROUGH_DATACLASS
    | _core.OPT_PASSTHROUGH_DATETIME
)
_STRICT = _core.OPT_PASSTHROUGH_SUBCLASS | _core.OPT_PASSTHROUGH_TUPLE
# ExtType is a named tuple that msgpack-python packs as an extension: the core packs it so in
# the Packer's calls (its subclasses, and one whose items its constructor would refuse, go to
# the Packer's default, which packs them so). Timestamps are the Packer's to convert: the core
# never hands one straight to the user's default.
_core._set_compat_ext_type(ExtType, Timestamp)


# `buf_size` not given: each message starts in the core's 1 KiB scratch buffer.
_NO_BUF_SIZE: Any = object()


def _error_handler(unicode_errors: Any) -> bytes | None:
    """The codec error handler's name as msgpack-python takes it: ASCII str or bytes, up to the
    first NUL (a C string), looked up only when a str cannot be encoded."""
    if unicode_errors is None:
        return None
    name = unicode_errors.encode("ascii") if isinstance(unicode_errors, str) else unicode_errors
    if not isinstance(name, bytes):
        raise TypeError(f"expected bytes, {type(unicode_errors).__name__} found")
    return name.split(b"\0", 1)[0]


def _start_size(buf_size: Any) -> int:
    """`buf_size` checked as msgpack-python converts it to a C size_t."""
    if not isinstance(buf_size, int):
        if not hasattr(type(buf_size), "__int__"):
            raise TypeError("an integer is required")
        buf_size = int(buf_size)
    if buf_size < 0:
        raise OverflowError("can't convert negative value to size_t")
    if buf_size >= 2**64:
        raise OverflowError("Python int too large to convert to C size_t")
    if buf_size > sys.maxsize:
        raise MemoryError("Unable to allocate internal buffer.")
    return int(buf_size)


class Packer:
    """Packs objects as msgpack-python's Packer does (use_bin_type=True, float64)."""

    def __init__(
        self,
        *,
        default: Callable[[Any], Any] | None = None,
        use_single_float: bool = False,
        autoreset: bool = True,
        use_bin_type: bool = True,
        strict_types: bool = False,
        datetime: bool = False,
        unicode_errors: str | None = None,
        buf_size: int = _NO_BUF_SIZE,
    ) -> None:
        errors = _error_handler(unicode_errors)
        # Each message starts with room for this many bytes (0: in the scratch buffer).
        self._start = 0 if buf_size is _NO_BUF_SIZE else _start_size(buf_size)
        if default is not None and not callable(default):
            raise TypeError("default must be callable")
        # The boolean options take any object and use its truth, as in msgpack-python.
        strict_types = bool(strict_types)
        use_bin_type = bool(use_bin_type)
        use_single_float = bool(use_single_float)
        self._default = default
        self._strict = strict_types
        self._datetime = bool(datetime)
        self._autoreset = bool(autoreset)
        self._buffer = bytearray()
        self._option = _PASS | (_STRICT if strict_types else 0)
        if errors == b"replace":
            self._option |= _core.OPT_REPLACE_SURROGATES
        # "strict" is how strings are encoded without a handler; "replace" is the option above.
        self._errors = None if errors in (b"strict", b"replace") else errors
        # The old spec (no bin, no str8), float32, another error handler or a buf_size go
        # through the core's _packb_compat; the rest through packb itself.
        self._special = (
            not use_bin_type or use_single_float or self._errors is not None or self._start > 0
        )
        self._use_bin_type = use_bin_type
        self._use_single_float = use_single_float
        # The user's default, which the core calls itself for the objects _convert would hand
        # it unchanged (not when datetimes are converted here: the core leaves that to _convert).
        self._direct = None if self._datetime else default

    def _with_default(self, default: Callable[[Any], Any]) -> Packer:
        """A Packer with this one's settings and `default` (callable), made without checks."""
        packer = object.__new__(Packer)
        packer.__dict__.update(self.__dict__)
        packer._default = default
        packer._direct = None if self._datetime else default
        return packer

    def _convert(self, obj: Any) -> Any:
        if type(obj) is ExtType or (not self._strict and isinstance(obj, ExtType)):
            return _core.Ext(obj.code, obj.data)
        if type(obj) is Timestamp:
            return _core.Ext(-1, obj.to_bytes())
        if not self._strict:
            # A subclass (an (int, Enum) or (str, Enum) member among them) is packed as the
            # value its base type holds, never as what its own __str__ or __int__ says.
            if isinstance(obj, bool):
                return bool(obj)
            if isinstance(obj, int) and -(2**63) <= obj < 2**64:
                return int.__index__(obj)
            if isinstance(obj, str):
                return str.__str__(obj)
            if isinstance(obj, float):
                return float.__float__(obj)
            if isinstance(obj, tuple):
                return list(obj)
        if self._datetime and type(obj) is datetime.datetime and obj.tzinfo is not None:
            ts = Timestamp.from_datetime(obj)
            return _core.Ext(-1, ts.to_bytes())
        if self._default is not None:
            return self._default(obj)
        if self._datetime and type(obj) is datetime.datetime:
            raise ValueError(f"can not serialize {type(obj).__name__!r} object where tzinfo=None")
        if type(obj) is int:
            raise OverflowError("Integer value out of range")
        raise TypeError(f"can not serialize {type(obj).__name__!r} object")

    def _packb(self, obj: Any) -> bytes:
        # What _convert or the user's default raises propagates as it is, as in msgpack-python:
        # the core passes it on unwrapped in these calls.
        try:
            packed: bytes
            if self._special or self._direct is not None:
                packed = _core._packb_compat(
                    obj,
                    self._convert,
                    self._option,
                    self._use_bin_type,
                    self._use_single_float,
                    self._errors,
                    self._start,
                    self._direct,
                )
            else:
                packed = _core._packb_compat(obj, self._convert, self._option)
            return packed
        except _core.MsgpackEncodeError as exc:
            cause = exc.__cause__
            if isinstance(cause, UnicodeEncodeError):
                raise cause from None
            raise

    def _out(self, data: bytes) -> bytes | None:
        if self._autoreset:
            return data
        self._buffer += data
        return None

    def pack(self, obj: Any) -> bytes | None:
        """The bytes of `obj` (or None, appending them to the buffer, with autoreset=False)."""
        return self._out(self._packb(obj))

    def pack_array_header(self, n: int) -> bytes | None:
        """The header of an array of `n` items."""
        return self._out(_header(n, 0x90, 0xDC, "array"))

    def pack_map_header(self, n: int) -> bytes | None:
        """The header of a map of `n` pairs."""
        return self._out(_header(n, 0x80, 0xDE, "map"))

    def pack_map_pairs(self, pairs: Iterable[tuple[Any, Any]]) -> bytes | None:
        """A map from a sequence of (key, value) pairs, in their order."""
        pairs = list(pairs)
        parts = [_header(len(pairs), 0x80, 0xDE, "map")]
        for key, value in pairs:
            parts += (self._packb(key), self._packb(value))
        return self._out(b"".join(parts))

    def pack_ext_type(self, typecode: int, data: bytes) -> bytes | None:
        """An extension value of type `typecode` (-128 to 127): `OverflowError` outside that
        range, `TypeError` for a code that is not a number or data that is not bytes or
        bytearray, as msgpack-python converts them."""
        if isinstance(typecode, float):
            typecode = int(typecode)
        elif not isinstance(typecode, int):
            if not hasattr(type(typecode), "__index__"):
                raise TypeError("an integer is required")
            typecode = typecode.__index__()
        if not -(2**63) <= typecode < 2**63:
            raise OverflowError("Python int too large to convert to C long")
        if not -128 <= typecode <= 127:
            raise OverflowError("value too large to convert to char")
        if not isinstance(data, (bytes, bytearray)):
            if not hasattr(type(data), "__len__"):
                raise TypeError(f"object of type {type(data).__name__!r} has no len()")
            raise TypeError(f"expected bytes, {type(data).__name__} found")
        return self._out(_core.packb(_core.Ext(int(typecode), bytes(data))))

    def bytes(self) -> bytes:
        """What the buffer holds (autoreset=False)."""
        return bytes(self._buffer)

    def getbuffer(self) -> memoryview:
        """A view of the buffer (autoreset=False)."""
        return memoryview(self._buffer)

    def reset(self) -> None:
        """Empties the buffer."""
        self._buffer = bytearray()


def _header(n: int, fix: int, marker16: int, what: str) -> bytes:
    if n < 0 or n > 0xFFFFFFFF:
        raise ValueError(f"{what} is too large")
    if n < 16:
        return bytes((fix | n,))
    if n <= 0xFFFF:
        return struct.pack(">BH", marker16, n)
    return struct.pack(">BI", marker16 + 1, n)


# The kinds of item a max_<kind>_len limits.
_LIMITED = ("str", "bin", "array", "map", "ext")


class Unpacker:
    """Objects from a stream, fed by hand or read from `file_like`, with msgpack-python's options.

    The core's Unpacker does the work in compat mode: it decodes each object in place with the
    compat decoder and raises msgpack-python's exceptions, where msgpack-python raises them.
    """

    def __init__(
        self,
        file_like: Any = None,
        *,
        read_size: int = 0,
        max_buffer_size: int = 100 * 1024 * 1024,
        **options: Any,
    ) -> None:
        stream = getattr(self, "_stream", None)
        if stream is not None and stream._busy():
            raise RuntimeError(
                "Unpacker.__init__() cannot be called while unpacking is in progress"
            )
        max_buffer_size = max_buffer_size or 2**31 - 1
        if read_size > max_buffer_size:
            raise ValueError("read_size must be smaller than max_buffer_size")
        read_size = read_size or min(max_buffer_size, 1024 * 1024)
        # The limits act as each item arrives, with msgpack-python's defaults (from
        # max_buffer_size).
        for kind in _LIMITED:
            if options.get(f"max_{kind}_len", -1) == -1:
                options[f"max_{kind}_len"] = (
                    max_buffer_size // 2 if kind == "map" else max_buffer_size
                )
        compat = _options(out_of_data=OutOfData, buffer_full=BufferFull, **options)
        # Made anew, it drops what the previous one held (an object in progress among them).
        self._stream = stream = _core.Unpacker(
            file_like, read_size=read_size, max_buffer_size=max_buffer_size
        )
        stream._set_compat(compat)
        # The core's methods, called without a Python frame in between: they take the same
        # arguments and raise msgpack-python's exceptions themselves (the methods below say
        # what each does).
        self.__dict__.update(
            feed=stream.feed, unpack=stream.unpack, skip=stream.skip, tell=stream.tell
        )

    def feed(self, next_bytes: Any) -> None:
        """Adds bytes to the stream."""
        self._stream.feed(next_bytes)

    def unpack(self) -> Any:
        """The next object; OutOfData when there is no complete one."""
        return self._stream.unpack()

    def skip(self) -> None:
        """Consumes the next object without building it (the max_*_len limits do not apply, as in
        msgpack-python)."""
        self._stream.skip()

    def read_array_header(self) -> int:
        """The item count of the array header next in the stream (the items follow)."""
        return int(self._stream._read_array_header())

    def read_map_header(self) -> int:
        """The entry count of the map header next in the stream (the entries follow)."""
        return int(self._stream._read_map_header())

    def read_bytes(self, n: int) -> bytes:
        """Up to `n` bytes of the stream, as they are."""
        return bytes(self._stream._read_bytes(n))

    def tell(self) -> int:
        """Bytes consumed so far."""
        return int(self._stream.tell())

    def __iter__(self) -> Any:
        # The core's Unpacker iterates over the same stream, without a Python frame per object.
        return self._stream

    def __next__(self) -> Any:
        return next(self._stream)
