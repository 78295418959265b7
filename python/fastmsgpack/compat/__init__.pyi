from collections.abc import Callable, Iterable, Iterator
from typing import IO, Any

from fastmsgpack.compat.exceptions import (
    BufferFull as BufferFull,
)
from fastmsgpack.compat.exceptions import (
    ExtraData as ExtraData,
)
from fastmsgpack.compat.exceptions import (
    FormatError as FormatError,
)
from fastmsgpack.compat.exceptions import (
    OutOfData as OutOfData,
)
from fastmsgpack.compat.exceptions import (
    PackException as PackException,
)
from fastmsgpack.compat.exceptions import (
    PackOverflowError as PackOverflowError,
)
from fastmsgpack.compat.exceptions import (
    PackValueError as PackValueError,
)
from fastmsgpack.compat.exceptions import (
    StackError as StackError,
)
from fastmsgpack.compat.exceptions import (
    UnpackException as UnpackException,
)
from fastmsgpack.compat.exceptions import (
    UnpackValueError as UnpackValueError,
)
from fastmsgpack.compat.ext import (
    ExtType as ExtType,
)
from fastmsgpack.compat.ext import (
    Timestamp as Timestamp,
)

version: tuple[int, int, int]
__version__: str

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

class Packer:
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
        buf_size: int = ...,
    ) -> None: ...
    def pack(self, obj: Any) -> bytes | None: ...
    def pack_array_header(self, n: int) -> bytes | None: ...
    def pack_map_header(self, n: int) -> bytes | None: ...
    def pack_map_pairs(self, pairs: Iterable[tuple[Any, Any]]) -> bytes | None: ...
    def pack_ext_type(self, typecode: int, data: bytes) -> bytes | None: ...
    def bytes(self) -> bytes: ...
    def getbuffer(self) -> memoryview: ...
    def reset(self) -> None: ...

class Unpacker:
    def __init__(
        self,
        file_like: Any = None,
        *,
        read_size: int = 0,
        use_list: bool = True,
        raw: bool = False,
        timestamp: int = 0,
        strict_map_key: bool = True,
        object_hook: Callable[[dict[Any, Any]], Any] | None = None,
        object_pairs_hook: Callable[[list[tuple[Any, Any]]], Any] | None = None,
        list_hook: Callable[[Any], Any] | None = None,
        unicode_errors: str | None = None,
        max_buffer_size: int = 104857600,
        ext_hook: Callable[[int, bytes], Any] = ...,
        max_str_len: int = -1,
        max_bin_len: int = -1,
        max_array_len: int = -1,
        max_map_len: int = -1,
        max_ext_len: int = -1,
    ) -> None: ...
    def feed(self, next_bytes: Any) -> None: ...
    def unpack(self) -> Any: ...
    def skip(self) -> None: ...
    def read_array_header(self) -> int: ...
    def read_map_header(self) -> int: ...
    def read_bytes(self, n: int) -> bytes: ...
    def tell(self) -> int: ...
    def __iter__(self) -> Iterator[Any]: ...
    def __next__(self) -> Any: ...

def unpackb(
    packed: Any,
    *,
    use_list: bool = True,
    raw: bool = False,
    timestamp: int = 0,
    strict_map_key: bool = True,
    object_hook: Callable[[dict[Any, Any]], Any] | None = None,
    object_pairs_hook: Callable[[list[tuple[Any, Any]]], Any] | None = None,
    list_hook: Callable[[Any], Any] | None = None,
    unicode_errors: str | None = None,
    ext_hook: Callable[[int, bytes], Any] = ...,
    max_str_len: int = -1,
    max_bin_len: int = -1,
    max_array_len: int = -1,
    max_map_len: int = -1,
    max_ext_len: int = -1,
) -> Any: ...
def unpack(stream: IO[bytes], **kwargs: Any) -> Any: ...
def packb(
    o: Any,
    *,
    default: Callable[[Any], Any] | None = None,
    use_single_float: bool = False,
    autoreset: bool = True,
    use_bin_type: bool = True,
    strict_types: bool = False,
    datetime: bool = False,
    unicode_errors: str | None = None,
    buf_size: int = ...,
) -> bytes: ...
def pack(o: Any, stream: IO[bytes], **kwargs: Any) -> None: ...

loads = unpackb
load = unpack
dumps = packb
dump = pack
