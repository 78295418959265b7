import abc
import builtins
import sys
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from pickle import PickleBuffer
from typing import Any, Generic, Protocol, TypeVar, final, overload

from _typeshed import SupportsWrite
from typing_extensions import Buffer, TypeForm

from fastmsgpack.aio import AsyncUnpacker as AsyncUnpacker

__all__ = [
    "BUFFER_EXT_TYPE",
    "DEFAULT_BUFFER_THRESHOLD",
    "OPT_APPEND_NEWLINE",
    "OPT_BIN_MEMORYVIEW",
    "OPT_DATETIME_AS_TIMESTAMP_EXT",
    "OPT_EXACT",
    "OPT_FORBID_UNKNOWN_FIELDS",
    "OPT_INDENT_2",
    "OPT_JSON_COMPAT",
    "OPT_NAIVE_UTC",
    "OPT_NON_STR_KEYS",
    "OPT_NUMPY_RAW",
    "OPT_OMIT_MICROSECONDS",
    "OPT_PASSTHROUGH_BIG_INT",
    "OPT_PASSTHROUGH_DATACLASS",
    "OPT_PASSTHROUGH_DATETIME",
    "OPT_PASSTHROUGH_ENUM",
    "OPT_PASSTHROUGH_SUBCLASS",
    "OPT_PASSTHROUGH_TUPLE",
    "OPT_PASSTHROUGH_UUID",
    "OPT_REPLACE_SURROGATES",
    "OPT_SERIALIZE_NUMPY",
    "OPT_SERIALIZE_PYDANTIC",
    "OPT_SORT_KEYS",
    "OPT_STRICT_INTEGER",
    "OPT_UTC_Z",
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

__version__: str

BUFFER_EXT_TYPE: int
DEFAULT_BUFFER_THRESHOLD: int

OPT_APPEND_NEWLINE: int
OPT_BIN_MEMORYVIEW: int
OPT_DATETIME_AS_TIMESTAMP_EXT: int
OPT_EXACT: int
OPT_FORBID_UNKNOWN_FIELDS: int
OPT_INDENT_2: int
OPT_JSON_COMPAT: int
OPT_NAIVE_UTC: int
OPT_NON_STR_KEYS: int
OPT_NUMPY_RAW: int
OPT_OMIT_MICROSECONDS: int
OPT_PASSTHROUGH_BIG_INT: int
OPT_PASSTHROUGH_DATACLASS: int
OPT_PASSTHROUGH_DATETIME: int
OPT_PASSTHROUGH_ENUM: int
OPT_PASSTHROUGH_SUBCLASS: int
OPT_PASSTHROUGH_TUPLE: int
OPT_PASSTHROUGH_UUID: int
OPT_REPLACE_SURROGATES: int
OPT_SERIALIZE_NUMPY: int
OPT_SERIALIZE_PYDANTIC: int
OPT_SORT_KEYS: int
OPT_STRICT_INTEGER: int
OPT_UTC_Z: int

class MsgpackEncodeError(TypeError):
    """An object could not be packed. The error's data, for code to read instead of its message
    (``None`` on an error made by hand): ``kind``, what went wrong as a short name (one of
    ``fastmsgpack._fastmsgpack._ENCODE_KINDS``: ``"unsupported_type"``, ``"circular_reference"``,
    ...); ``path``, where the value is in the object packed (``$.rows[3].x``); ``type``, the
    type refused, where there is one."""

    kind: str | None
    path: str | None
    type: builtins.type | None

class MsgpackDecodeError(ValueError):
    """The error's data, for code to read instead of its message (``None`` when it does not
    apply, as for an invalid ``option``): ``kind``, what went wrong as a short name
    (``"truncated"``, ``"too_deep"``, ...); ``reason``, the same in words, without the
    location; ``offset``, the byte offset of the value at fault."""

    kind: str | None
    reason: str | None
    offset: int | None

class OutOfData(MsgpackDecodeError): ...

class BufferFull(MsgpackDecodeError):
    """``declared``: the bytes an object's headers declare, when that alone is too many."""

    declared: int | None

class ValidationError(MsgpackDecodeError):
    """``path``: where in the value, as ``$.stops[1].id``."""

    path: str | None

_T = TypeVar("_T")
_U = TypeVar("_U")

class _Readable(Protocol):
    def read(self, size: int = ..., /) -> Buffer: ...

@final
class Ext:
    def __new__(cls, tag: int, data: bytes | bytearray | memoryview) -> Ext: ...
    @property
    def tag(self) -> int: ...
    @property
    def data(self) -> bytes: ...
    def __eq__(self, value: object, /) -> bool: ...
    def __ne__(self, value: object, /) -> bool: ...
    def __hash__(self) -> int: ...
    def __reduce__(self) -> tuple[type[Ext], tuple[int, bytes]]: ...

def packb(
    obj: Any,
    /,
    default: Callable[[Any], Any] | None = None,
    option: int | None = None,
    *,
    buffer_callback: Callable[[PickleBuffer], Any] | None = None,
    buffer_threshold: int | None = None,
    registry: Registry | None = None,
) -> bytes: ...
def packb_frames(
    obj: Any,
    /,
    default: Callable[[Any], Any] | None = None,
    option: int | None = None,
    *,
    buffer_threshold: int | None = None,
) -> list[bytes | memoryview]:
    """The message, then each of its out-of-band buffers, for ``socket.sendmsg``."""

def pack(
    obj: Any,
    fp: SupportsWrite[bytes],
    /,
    default: Callable[[Any], Any] | None = None,
    option: int | None = None,
    *,
    registry: Registry | None = None,
) -> None:
    """Packs ``obj`` as ``packb`` does and writes the bytes with one call of ``fp.write``."""

@final
class Packer:
    """Packs message after message with one ``default`` and one ``option``, each starting in a
    buffer kept between calls (up to 1 MiB)."""

    def __new__(
        cls,
        *,
        default: Callable[[Any], Any] | None = None,
        option: int | None = None,
        buffer_callback: Callable[[PickleBuffer], Any] | None = None,
        buffer_threshold: int | None = None,
        registry: Registry | None = None,
    ) -> Packer: ...
    def pack(self, obj: Any, /) -> bytes: ...
    def pack_frames(self, obj: Any, /) -> list[bytes | memoryview]: ...
    def pack_into(self, obj: Any, buffer: bytearray, /, offset: int = 0) -> None: ...

@overload
def unpackb(
    data: Buffer,
    /,
    *,
    ext_hook: Callable[[int, bytes], Any] | None = None,
    option: int | None = None,
    type: None = None,
    dec_hook: Callable[[type, Any], Any] | None = None,
    buffers: Iterable[object] | None = None,
    registry: Registry | None = None,
) -> Any: ...
@overload
def unpackb(
    data: Buffer,
    /,
    *,
    ext_hook: Callable[[int, bytes], Any] | None = None,
    option: int | None = None,
    type: TypeForm[_T],
    dec_hook: Callable[[type, Any], Any] | None = None,
    buffers: Iterable[object] | None = None,
    registry: Registry | None = None,
) -> _T: ...
@overload
def unpackb(
    data: Buffer,
    /,
    *,
    ext_hook: Callable[[int, bytes], Any] | None = None,
    option: int | None = None,
    type: Any,
    dec_hook: Callable[[type, Any], Any] | None = None,
    buffers: Iterable[object] | None = None,
    registry: Registry | None = None,
) -> Any: ...
@overload
def unpack(
    fp: _Readable,
    /,
    *,
    ext_hook: Callable[[int, bytes], Any] | None = None,
    option: int | None = None,
    type: None = None,
    dec_hook: Callable[[type, Any], Any] | None = None,
    buffers: Iterable[object] | None = None,
    registry: Registry | None = None,
) -> Any: ...
@overload
def unpack(
    fp: _Readable,
    /,
    *,
    ext_hook: Callable[[int, bytes], Any] | None = None,
    option: int | None = None,
    type: TypeForm[_T],
    dec_hook: Callable[[type, Any], Any] | None = None,
    buffers: Iterable[object] | None = None,
    registry: Registry | None = None,
) -> _T: ...
@overload
def unpack(
    fp: _Readable,
    /,
    *,
    ext_hook: Callable[[int, bytes], Any] | None = None,
    option: int | None = None,
    type: Any,
    dec_hook: Callable[[type, Any], Any] | None = None,
    buffers: Iterable[object] | None = None,
    registry: Registry | None = None,
) -> Any: ...

@final
class Decoder(Generic[_T]):
    """Decodes MessagePack into ``type`` as ``unpackb(data, type=type, ...)`` does, with the
    plan for the type worked out once, when the decoder is made, and the options fixed."""

    @overload
    def __new__(
        cls,
        type: TypeForm[_T],
        *,
        dec_hook: Callable[[type, Any], Any] | None = None,
        ext_hook: Callable[[int, bytes], Any] | None = None,
        option: int | None = None,
    ) -> Decoder[_T]: ...
    @overload
    def __new__(
        cls,
        type: Any,
        *,
        dec_hook: Callable[[type, Any], Any] | None = None,
        ext_hook: Callable[[int, bytes], Any] | None = None,
        option: int | None = None,
    ) -> Decoder[Any]: ...
    def decode(self, data: Buffer, /) -> _T: ...
    @property
    def type(self) -> Any: ...

@final
class Unpacker(Generic[_T]):
    """Objects from a stream fed in pieces (``feed``) or read from ``file_like``; with
    ``type=T``, each object is a ``T`` (``Unpacker[T]``)."""

    @overload
    def __new__(
        cls,
        file_like: _Readable | None = None,
        /,
        *,
        ext_hook: Callable[[int, bytes], Any] | None = None,
        option: int | None = None,
        read_size: int = 65536,
        max_buffer_size: int = 104857600,
        type: None = None,
        dec_hook: Callable[[type, Any], Any] | None = None,
        buffers: Iterable[object] | None = None,
        registry: Registry | None = None,
    ) -> Unpacker[Any]: ...
    @overload
    def __new__(
        cls,
        file_like: _Readable | None = None,
        /,
        *,
        ext_hook: Callable[[int, bytes], Any] | None = None,
        option: int | None = None,
        read_size: int = 65536,
        max_buffer_size: int = 104857600,
        type: TypeForm[_T],
        dec_hook: Callable[[type, Any], Any] | None = None,
        buffers: Iterable[object] | None = None,
        registry: Registry | None = None,
    ) -> Unpacker[_T]: ...
    @overload
    def __new__(
        cls,
        file_like: _Readable | None = None,
        /,
        *,
        ext_hook: Callable[[int, bytes], Any] | None = None,
        option: int | None = None,
        read_size: int = 65536,
        max_buffer_size: int = 104857600,
        type: Any,
        dec_hook: Callable[[type, Any], Any] | None = None,
        buffers: Iterable[object] | None = None,
        registry: Registry | None = None,
    ) -> Unpacker[Any]: ...
    def feed(self, data: Buffer, /) -> None: ...
    def unpack(self) -> _T: ...
    def skip(self) -> None: ...
    def tell(self) -> int: ...
    def __iter__(self) -> Unpacker[_T]: ...
    def __next__(self) -> _T: ...
    def _next_raw(self) -> bytes | None: ...
    # For fastmsgpack.compat.
    def _read_array_header(self) -> int: ...
    def _read_map_header(self) -> int: ...
    def _set_compat(self, options: Any) -> None: ...
    def _busy(self) -> bool: ...
    def _read_bytes(self, n: int) -> bytes: ...

@final
class Registry:
    """The program's own classes, each with an extension code (0..127) and the functions that
    turn an instance into a packable value and back; passed as ``registry=``."""

    def __new__(cls) -> Registry: ...
    def register(
        self,
        cls: type[_T],
        code: int,
        encode: Callable[[_T], Any] | None = None,
        decode: Callable[[Any], _T] | None = None,
    ) -> None: ...
    def entries(self) -> list[tuple[type, int]]: ...
    def __len__(self) -> int: ...
    def __contains__(self, cls: object) -> bool: ...

@final
class Fragment:
    """One complete MessagePack object, already packed, that ``packb`` writes as it is."""

    def __new__(cls, contents: bytes | bytearray | memoryview) -> Fragment: ...
    @property
    def contents(self) -> bytes: ...

class _ViewType(abc.ABCMeta): ...

class View(Generic[_T], metaclass=_ViewType):
    """A lazy, read-only view of one MessagePack object: a ``MapView`` for a map, an
    ``ArrayView`` for an array, any other value decoded as ``unpackb`` would.

    Typed as a ``View[T]``: what ``MapView`` and ``ArrayView`` both have, with ``to_python()``
    giving ``T`` (``Any`` without ``type=``). An item read is ``Any``: a view or a value, as the
    data says. A document the view does not keep as a view (a scalar, or one read as a union or
    a scalar type) is returned as the value itself, which this type does not show."""

    @overload
    def __new__(
        cls,
        data: Buffer,
        /,
        *,
        ext_hook: Callable[[int, bytes], Any] | None = None,
        option: int | None = None,
        type: None = None,
        dec_hook: Callable[[type, Any], Any] | None = None,
        validate: bool = True,
    ) -> View[Any]: ...
    @overload
    def __new__(
        cls,
        data: Buffer,
        /,
        *,
        ext_hook: Callable[[int, bytes], Any] | None = None,
        option: int | None = None,
        type: TypeForm[_T],
        dec_hook: Callable[[type, Any], Any] | None = None,
        validate: bool = True,
    ) -> View[_T]: ...
    @overload
    def __new__(
        cls,
        data: Buffer,
        /,
        *,
        ext_hook: Callable[[int, bytes], Any] | None = None,
        option: int | None = None,
        type: Any,
        dec_hook: Callable[[type, Any], Any] | None = None,
        validate: bool = True,
    ) -> View[Any]: ...
    def __getitem__(self, key: Any, /) -> Any: ...
    def __len__(self) -> int: ...
    def __iter__(self) -> Iterator[Any]: ...
    def __contains__(self, item: object, /) -> bool: ...
    def __eq__(self, value: object, /) -> bool: ...
    def get(self, key: Any, default: Any = None, *, type: Any = None) -> Any: ...
    if sys.version_info >= (3, 12):
        def __buffer__(self, flags: int, /) -> memoryview: ...

    @overload
    def to_python(self, *, type: None = None) -> _T: ...
    @overload
    def to_python(self, *, type: TypeForm[_U]) -> _U: ...
    @overload
    def to_python(self, *, type: Any) -> Any: ...

@final
class MapView(View[Any], Mapping[Any, Any]):
    """A MessagePack map read where it lies; values decode when read."""

    def __getitem__(self, key: Any, /) -> Any: ...
    def __len__(self) -> int: ...
    def __iter__(self) -> Iterator[Any]: ...
    def get(self, key: Any, default: Any = None, *, type: Any = None) -> Any: ...
    def keys(self) -> list[Any]: ...  # type: ignore[override]
    def values(self) -> list[Any]: ...  # type: ignore[override]
    def items(self) -> list[tuple[Any, Any]]: ...  # type: ignore[override]
    @overload
    def to_python(self, *, type: None = None) -> Any: ...
    @overload
    def to_python(self, *, type: TypeForm[_U]) -> _U: ...
    @overload
    def to_python(self, *, type: Any) -> Any: ...
    if sys.version_info >= (3, 12):
        def __buffer__(self, flags: int, /) -> memoryview: ...

@final
class ArrayView(View[Any], Sequence[Any]):
    """A MessagePack array read where it lies; items decode when read."""

    def __getitem__(self, index: Any, /) -> Any: ...
    def __len__(self) -> int: ...
    def get(self, index: int, default: Any = None, *, type: Any = None) -> Any: ...
    @overload
    def to_python(self, *, type: None = None) -> Any: ...
    @overload
    def to_python(self, *, type: TypeForm[_U]) -> _U: ...
    @overload
    def to_python(self, *, type: Any) -> Any: ...
    if sys.version_info >= (3, 12):
        def __buffer__(self, flags: int, /) -> memoryview: ...
