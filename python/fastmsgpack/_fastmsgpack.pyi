# The compiled core. Its public names are those of the package (typed in __init__.pyi and
# json.pyi); the private ones below serve fastmsgpack's own Python modules.
from collections.abc import Awaitable, Callable, Generator
from typing import Any, final

from typing_extensions import Buffer

from fastmsgpack import BUFFER_EXT_TYPE as BUFFER_EXT_TYPE
from fastmsgpack import DEFAULT_BUFFER_THRESHOLD as DEFAULT_BUFFER_THRESHOLD
from fastmsgpack import ArrayView as ArrayView
from fastmsgpack import BufferFull as BufferFull
from fastmsgpack import Decoder as Decoder
from fastmsgpack import Ext as Ext
from fastmsgpack import Fragment as Fragment
from fastmsgpack import MapView as MapView
from fastmsgpack import MsgpackDecodeError as MsgpackDecodeError
from fastmsgpack import MsgpackEncodeError as MsgpackEncodeError
from fastmsgpack import OutOfData as OutOfData
from fastmsgpack import Packer as Packer
from fastmsgpack import Registry as Registry
from fastmsgpack import Unpacker as Unpacker
from fastmsgpack import ValidationError as ValidationError
from fastmsgpack import __version__ as __version__
from fastmsgpack import pack as pack
from fastmsgpack import packb as packb
from fastmsgpack import packb_frames as packb_frames
from fastmsgpack import unpack as unpack
from fastmsgpack import unpackb as unpackb
from fastmsgpack.json import Fragment as _JsonFragment
from fastmsgpack.json import JSONEncodeError as JSONEncodeError
from fastmsgpack.json import dumps as _json_dumps
from fastmsgpack.json import from_msgpack as _json_from_msgpack

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

JsonFragment = _JsonFragment
json_dumps = _json_dumps
json_from_msgpack = _json_from_msgpack

# The option list of the core (name, bit), and each entry point with the bits it accepts.
_OPTIONS: list[tuple[str, int]]
_OPTION_MASKS: list[tuple[str, int]]
_ENCODE_KINDS: list[str]
# The layout checks run at import (name, whether its fast path is on): tests/test_layout_checks.py.
_LAYOUT_CHECKS: list[tuple[str, bool]]

def _json_from_msgpack_at(
    data: Buffer, offset: int, /, option: int | None = None
) -> tuple[bytes, int]: ...

# Typed decoding: the plan worked out for a type, and how many the module's cache holds.
@final
class _TypePlan: ...

def _plan_cache_size() -> int: ...
def _kept_elsewhere() -> int: ...

_interpreter: object

_PLAN_CACHE_CAPACITY: int

# fastmsgpack.compat: msgpack-python's decoding arguments, read once.
@final
class CompatOptions:
    def __new__(
        cls,
        *,
        timestamp_type: type,
        ext_hook: Callable[[int, bytes], Any],
        format_error: type[Exception],
        stack_error: type[Exception],
        extra_data: type[Exception],
        use_list: Any,
        raw: Any,
        strict_map_key: Any,
        timestamp: int = 0,
        object_hook: Callable[[dict[Any, Any]], Any] | None = None,
        object_pairs_hook: Callable[[list[tuple[Any, Any]]], Any] | None = None,
        list_hook: Callable[[list[Any]], Any] | None = None,
        unicode_errors: str | None = None,
        max_str_len: int = ...,
        max_bin_len: int = ...,
        max_array_len: int = ...,
        max_map_len: int = ...,
        max_ext_len: int = ...,
        out_of_data: type[Exception] | None = None,
        buffer_full: type[Exception] | None = None,
        default_ext_hook: Callable[[int, bytes], Any] | None = None,
    ) -> CompatOptions: ...

def _unpackb_compat(data: Buffer, options: CompatOptions, /) -> Any: ...
def _packb_compat(
    obj: Any,
    default: Callable[[Any], Any] | None,
    option: int,
    use_bin_type: bool = True,
    use_single_float: bool = False,
    unicode_errors: bytes | None = None,
    start: int = 0,
    user_default: Callable[[Any], Any] | None = None,
    /,
) -> bytes: ...
def _set_compat_ext_type(cls: type, timestamp: type, /) -> None: ...

# fastmsgpack.View: a view of the one object in `data`, or that object when it is neither a map
# nor an array.
def _view(
    data: Buffer,
    /,
    *,
    option: int | None = None,
    ext_hook: Callable[[int, bytes], Any] | None = None,
    type: Any = None,
    dec_hook: Callable[[type, Any], Any] | None = None,
    validate: bool = True,
) -> Any: ...

# fastmsgpack.aio.AsyncUnpacker's iterator: the next object of the Unpacker when it is whole in
# the bytes held (the iterator is then its own awaitable), else the coroutine `read_then_next()`.
@final
class _AsyncObjects:
    def __new__(
        cls, unpacker: Unpacker[Any], read_then_next: Callable[[], Awaitable[Any]], /
    ) -> _AsyncObjects: ...
    def __aiter__(self) -> _AsyncObjects: ...
    def __anext__(self) -> Awaitable[Any]: ...
    def __await__(self) -> Generator[Any, None, Any]: ...
    def __iter__(self) -> _AsyncObjects: ...
    def __next__(self) -> None: ...

# fastmsgpack.snapshot's engine (src/snapshot/): the durable write, the framed bytes, the header,
# the checked and decompressed payload, and record frames.
from fastmsgpack.snapshot import SnapshotError as SnapshotError

_RECORD_FILE_HEADER: bytes

def _snapshot_save(
    path: str,
    data: Buffer,
    codec: str,
    level: int,
    threads: int,
    meta: bytes,
    index: bool | None = None,
) -> None: ...
def _snapshot_save_packing(
    path: str,
    obj: Any,
    default: Any,
    option: int | None,
    registry: Any,
    codec: str,
    level: int,
    threads: int,
    meta: bytes,
    piece: int,
    start: int,
) -> bool: ...
def _snapshot_dumps(
    data: Buffer, codec: str, level: int, threads: int, meta: bytes, index: bool = False
) -> bytes: ...
def _snapshot_load(path: str) -> tuple[dict[str, Any], bytes]: ...
def _snapshot_loads(data: Buffer) -> tuple[dict[str, Any], bytes | None]: ...
def _snapshot_info(path: str) -> dict[str, Any]: ...
def _snapshot_remove_stale(directory: str) -> list[str]: ...
def _snapshot_header(
    data: Buffer, path: str | None, verify: bool
) -> tuple[dict[str, Any], SnapshotIndex | None]: ...

@final
class SnapshotIndex:
    """A snapshot's offset index, parsed and checked (``fastmsgpack.snapshot.view``)."""

def _view_indexed(
    data: Buffer,
    index: SnapshotIndex,
    /,
    *,
    option: int | None = None,
    ext_hook: Any = None,
    type: Any = None,
    dec_hook: Any = None,
) -> Any: ...
def _record_frame(payload: bytes) -> bytes: ...
def _record_scan(data: Buffer, path: str | None) -> tuple[list[tuple[int, int]], int, bool]: ...
