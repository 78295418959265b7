"""Snapshots that survive crashes: durable, checksummed, optionally compressed MessagePack files
and cache values (doc/snapshots.md).

``save(path, obj)`` writes a temporary file next to ``path``, ``fsync``s it, renames it over
``path`` and ``fsync``s the directory: after a crash ``path`` holds the old snapshot or the new
one, whole. ``load(path)`` checks the checksum before building anything. ``view(path)`` maps an
uncompressed snapshot and reads only what is asked for. ``info(path)`` reads the header alone.
``dumps``/``loads`` make and read the same framed bytes in memory. ``RecordWriter`` and
``read_records`` keep an append-only file of records that a crash can only cut at its end.

Compressing, decompressing, checksumming and writing run in the Rust core with the GIL released.
"""

from __future__ import annotations

import mmap
import os
from collections.abc import Iterator
from typing import TYPE_CHECKING, Any, BinaryIO

if TYPE_CHECKING:
    from typing_extensions import Self

from fastmsgpack._fastmsgpack import (
    _RECORD_FILE_HEADER,
    SnapshotError,
    _record_frame,
    _record_scan,
    _snapshot_dumps,
    _snapshot_header,
    _snapshot_info,
    _snapshot_load,
    _snapshot_loads,
    _snapshot_remove_stale,
    _snapshot_save,
    _snapshot_save_packing,
    _view_indexed,
    packb,
    unpackb,
)
from fastmsgpack._view import View

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

#: The newest snapshot format version this fastmsgpack writes (2, for a snapshot with an offset
#: index; one without is written as version 1); it reads this one and every older one.
FORMAT_VERSION = 2

#: The first bytes of every snapshot (the start of its header map).
MAGIC = b"\x88\xabfastmsgpack\xa8snapshot"

_CODECS = {None: "none", "none": "none", "zstd": "zstd", "lz4": "lz4"}

# A compressed save packs into pieces of _PIECE bytes and, once the packed output passes
# _PIECES_FROM bytes (for zstd, also past its window: 2 MiB at level 3), hands them to a
# compressor thread while it goes on packing (doc/snapshots.md#saving).
_PIECE = 1 << 20
_PIECES_FROM = 1 << 20


def _settings(compress: str | None, level: int | None, threads: int) -> tuple[str, int, int]:
    try:
        codec = _CODECS[compress]
    except (KeyError, TypeError):
        raise ValueError(f'compress must be "zstd", "lz4" or None, not {compress!r}') from None
    if level is not None and codec != "zstd":
        raise ValueError("level applies to compress='zstd' only")
    if level is not None and not -7 <= level <= 22:
        raise ValueError(f"zstd's level is -7 to 22, not {level}")
    if threads < 0:
        raise ValueError("threads must be 0 (no worker threads) or more")
    return codec, 3 if level is None else level, threads


def _meta(meta: dict[Any, Any] | None) -> bytes:
    if meta is None:
        return b"\xc0"
    if not isinstance(meta, dict):
        raise TypeError(f"meta must be a dict or None, not {type(meta).__name__}")
    return packb(meta)


def save(
    path: str | os.PathLike[str],
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
) -> None:
    """Pack ``obj`` and write it to ``path`` durably, as one snapshot.

    ``compress`` is ``"zstd"`` (at ``level``, 3 unless given; ``threads`` worker threads, none by
    default), ``"lz4"`` or ``None`` (the default, which ``view`` maps without reading it whole).
    ``option``, ``default`` and ``registry`` are ``packb``'s. ``meta`` is a dict stored in the
    header (a schema version, a creation time), which ``info`` reads back. ``index``: whether an
    uncompressed snapshot carries an offset index for ``view`` (None, the default: when it packs
    to 1 MiB or more). A failed save (an ``OSError``, or ``default`` raising) leaves the old file
    untouched and no temporary file. A compressed object that packs to more than 1 MiB is
    compressed by a thread of its own while it is packed (doc/snapshots.md#saving).
    """
    codec, zlevel, threads = _settings(compress, level, threads)
    if index and codec != "none":
        raise ValueError("index applies to uncompressed snapshots (compress=None) only")
    header = _meta(meta)
    if codec != "none":
        _snapshot_save_packing(
            os.fspath(path),
            obj,
            default,
            option,
            registry,
            codec,
            zlevel,
            threads,
            header,
            _PIECE,
            _PIECES_FROM,
        )
        return
    data = packb(obj, default, option, registry=registry)
    _snapshot_save(os.fspath(path), data, codec, zlevel, threads, header, index)


def remove_stale(directory: str | os.PathLike[str] = ".") -> list[str]:
    """Remove the temporary files that saves killed before they finished left in
    ``directory`` (of any snapshot), and return their paths. A running save's temporary file is
    never touched: each save holds a lock on its own until it is done. ``save`` already does
    this for the snapshot it writes, after writing it."""
    return _snapshot_remove_stale(os.fspath(directory))


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
) -> bytes:
    """The snapshot of ``obj`` as bytes (a cache value): what ``save`` writes, in memory."""
    codec, zlevel, threads = _settings(compress, level, threads)
    header = _meta(meta)
    data = packb(obj, default, option, registry=registry)
    return _snapshot_dumps(data, codec, zlevel, threads, header)


def frame(
    data: bytes | bytearray | memoryview,
    *,
    compress: str | None = "zstd",
    level: int | None = None,
    threads: int = 0,
    meta: dict[Any, Any] | None = None,
    index: bool = False,
) -> bytes:
    """The snapshot of MessagePack ``data`` already packed (what ``dumps`` makes of the object
    ``data`` packs), without packing it again: for code that decides by the packed size.
    ``index=True`` (with ``compress=None``) adds the offset index ``save`` writes for ``view``,
    when ``data`` is one whole MessagePack object."""
    codec, zlevel, threads = _settings(compress, level, threads)
    if index and codec != "none":
        raise ValueError("index applies to uncompressed snapshots (compress=None) only")
    return _snapshot_dumps(data, codec, zlevel, threads, _meta(meta), index)


def _info(raw: dict[str, Any]) -> dict[str, Any]:
    raw["meta"] = unpackb(raw["meta"])
    return raw


def info(path: str | os.PathLike[str]) -> dict[str, Any]:
    """The header of the snapshot at ``path``, read alone: ``version``, ``codec``, ``size``
    (uncompressed), ``stored_size``, ``checksum`` (xxh3-64 of the stored bytes), ``meta``,
    ``header_size`` and ``index_size`` (0 without an index). Raises ``SnapshotError`` if the
    header is damaged."""
    return _info(_snapshot_info(os.fspath(path)))


def load(
    path: str | os.PathLike[str],
    *,
    type: Any = None,
    option: int | None = None,
    ext_hook: Any = None,
    dec_hook: Any = None,
    registry: Any = None,
) -> Any:
    """The object saved at ``path``. The checksum is checked before anything is built; the
    arguments are ``unpackb``'s. Raises ``SnapshotError`` for a damaged file, ``OSError`` for one
    that cannot be read."""
    _, payload = _snapshot_load(os.fspath(path))
    return unpackb(
        payload,
        type=type,
        option=option,
        ext_hook=ext_hook,
        dec_hook=dec_hook,
        registry=registry,
    )


def loads(
    data: bytes | bytearray | memoryview,
    *,
    type: Any = None,
    option: int | None = None,
    ext_hook: Any = None,
    dec_hook: Any = None,
    registry: Any = None,
) -> Any:
    """The object in ``data``, made by ``dumps`` (or read from a snapshot file)."""
    raw, payload = _snapshot_loads(data)
    source: Any = payload
    if payload is None:
        start = raw["header_size"]
        source = memoryview(data)[start : start + raw["size"]]
    return unpackb(
        source,
        type=type,
        option=option,
        ext_hook=ext_hook,
        dec_hook=dec_hook,
        registry=registry,
    )


def view(
    path: str | os.PathLike[str],
    *,
    verify: bool = False,
    option: int | None = None,
    ext_hook: Any = None,
    type: Any = None,
    dec_hook: Any = None,
) -> Any:
    """A ``View`` of the snapshot at ``path``. An uncompressed snapshot is mapped read-only and
    only the pages read are loaded: opening it reads the header alone unless ``verify`` is true,
    which checks the checksum (reading it all) and the document. A compressed one is checked,
    decompressed once into memory and viewed there. Damaged bytes raise when read, never crash.
    A snapshot saved with an offset index (uncompressed, 1 MiB or more) is read through it: a
    large container is passed over in one step, and an item of a long array is reached from the
    nearest item the index marks."""
    name = os.fspath(path)
    with open(name, "rb") as f:
        if os.fstat(f.fileno()).st_size == 0:
            _snapshot_header(b"", name, False)  # raises: truncated
        mapped = mmap.mmap(f.fileno(), 0, access=mmap.ACCESS_READ)
    raw, index = _snapshot_header(mapped, name, verify)
    source: Any
    if raw["codec"] == "none":
        start = raw["header_size"]
        source = memoryview(mapped)[start : start + raw["size"]]
        if index is not None and not verify:
            return _view_indexed(
                source, index, option=option, ext_hook=ext_hook, type=type, dec_hook=dec_hook
            )
    else:
        mapped.close()
        _, source = _snapshot_load(name)
    return View(
        source,
        option=option,
        ext_hook=ext_hook,
        type=type,
        dec_hook=dec_hook,
        validate=verify,
    )


class RecordWriter:
    """Appends records to the record file at ``path`` (created if missing): one checksummed
    frame per ``append``. A torn last frame left by a crash is cut off when the file is opened.
    ``flush()`` hands what was appended to the operating system, ``sync()`` also ``fsync``s it;
    ``sync=True`` does both after every record. Use it as a context manager, or ``close()`` it.
    """

    def __init__(
        self,
        path: str | os.PathLike[str],
        *,
        option: int | None = None,
        default: Any = None,
        registry: Any = None,
        sync: bool = False,
    ) -> None:
        self.path = os.fspath(path)
        self._option = option
        self._default = default
        self._registry = registry
        self._sync = sync
        self._file: BinaryIO = open(self.path, "a+b")  # noqa: SIM115 (closed by close())
        try:
            self._file.seek(0)
            existing = self._file.read()
            if existing:
                _, end, torn = _record_scan(existing, self.path)
                if torn:
                    self._file.truncate(end)
            else:
                self._file.write(_RECORD_FILE_HEADER)
                self.sync()
        except BaseException:
            self._file.close()
            raise

    def append(self, obj: Any) -> None:
        """Packs ``obj`` and appends it as one record."""
        payload = packb(obj, self._default, self._option, registry=self._registry)
        self._file.write(_record_frame(payload))
        self._file.write(payload)
        if self._sync:
            self.sync()

    def flush(self) -> None:
        """Writes the records appended so far to the file (not yet to the disk)."""
        self._file.flush()

    def sync(self) -> None:
        """Writes the records appended so far to the disk (``flush`` and ``fsync``)."""
        self._file.flush()
        os.fsync(self._file.fileno())

    def close(self) -> None:
        """Flushes and closes the file (no ``fsync`` unless ``sync=True``)."""
        self._file.close()

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


class RecordReader:
    """The complete records of a record file, read whole (``read_records``). Iterating yields
    each record's object; ``end`` is where the last complete frame ends, ``torn`` whether a torn
    frame (a crash while appending) follows it, and ``count`` the number of records."""

    def __init__(self, path: str | os.PathLike[str], **unpack: Any) -> None:
        self.path = os.fspath(path)
        with open(self.path, "rb") as f:
            self._data = f.read()
        self._records, self.end, self.torn = _record_scan(self._data, self.path)
        self._unpack = unpack

    @property
    def count(self) -> int:
        return len(self._records)

    def __iter__(self) -> Iterator[Any]:
        data = memoryview(self._data)
        for start, end in self._records:
            yield unpackb(data[start:end], **self._unpack)


def read_records(path: str | os.PathLike[str], **unpack: Any) -> RecordReader:
    """The records of the record file at ``path`` (``unpack`` holds ``unpackb``'s arguments)."""
    return RecordReader(path, **unpack)
