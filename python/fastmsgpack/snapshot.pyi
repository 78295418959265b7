import os
from collections.abc import Iterator
from typing import Any, TypeAlias

from typing_extensions import Buffer, Self

from fastmsgpack import MsgpackDecodeError

__all__ = [
    "FORMAT_VERSION",
    "MAGIC",
    "RecordReader",
    "RecordWriter",
    "SnapshotError",
    "dumps",
    "frame",
    "info",
    "load",
    "loads",
    "read_records",
    "remove_stale",
    "save",
    "view",
]

FORMAT_VERSION: int
MAGIC: bytes
# Where a compressed save starts compressing in pieces, and their size (doc/snapshots.md#saving).
_PIECE: int
_PIECES_FROM: int

def _settings(compress: str | None, level: int | None, threads: int) -> tuple[str, int, int]: ...

_Path: TypeAlias = str | os.PathLike[str]

class SnapshotError(MsgpackDecodeError):
    """A snapshot or record file refused. ``kind`` is ``"truncated"``, ``"checksum"``,
    ``"magic"``, ``"codec"`` or ``"version"``; ``path`` the file (None for bytes); ``offset``
    the byte where the fault was found."""

    path: str | None

def save(
    path: _Path,
    obj: Any,
    *,
    compress: str | None = None,
    level: int | None = None,
    threads: int = 0,
    option: int | None = None,
    default: Any = None,
    registry: Any = None,
    meta: dict[Any, Any] | None = None,
    index: bool | None = None,
) -> None: ...
def dumps(
    obj: Any,
    *,
    compress: str | None = None,
    level: int | None = None,
    threads: int = 0,
    option: int | None = None,
    default: Any = None,
    registry: Any = None,
    meta: dict[Any, Any] | None = None,
) -> bytes: ...
def frame(
    data: Buffer,
    *,
    compress: str | None = "zstd",
    level: int | None = None,
    threads: int = 0,
    meta: dict[Any, Any] | None = None,
    index: bool = False,
) -> bytes: ...
def info(path: _Path) -> dict[str, Any]: ...
def remove_stale(directory: _Path = ".") -> list[str]: ...
def load(
    path: _Path,
    *,
    type: Any = None,
    option: int | None = None,
    ext_hook: Any = None,
    dec_hook: Any = None,
    registry: Any = None,
) -> Any: ...
def loads(
    data: Buffer,
    *,
    type: Any = None,
    option: int | None = None,
    ext_hook: Any = None,
    dec_hook: Any = None,
    registry: Any = None,
) -> Any: ...
def view(
    path: _Path,
    *,
    verify: bool = False,
    option: int | None = None,
    ext_hook: Any = None,
    type: Any = None,
    dec_hook: Any = None,
) -> Any: ...

class RecordWriter:
    path: str
    def __init__(
        self,
        path: _Path,
        *,
        option: int | None = None,
        default: Any = None,
        registry: Any = None,
        sync: bool = False,
    ) -> None: ...
    def append(self, obj: Any) -> None: ...
    def flush(self) -> None: ...
    def sync(self) -> None: ...
    def close(self) -> None: ...
    def __enter__(self) -> Self: ...
    def __exit__(self, *exc: object) -> None: ...

class RecordReader:
    path: str
    end: int
    torn: bool
    def __init__(self, path: _Path, **unpack: Any) -> None: ...
    @property
    def count(self) -> int: ...
    def __iter__(self) -> Iterator[Any]: ...

def read_records(path: _Path, **unpack: Any) -> RecordReader: ...
