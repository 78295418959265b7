"""MessagePack over asyncio streams (and anyio byte streams).

- :class:`AsyncUnpacker` reads objects from a reader whose ``read(n)`` is awaitable (an
  ``asyncio.StreamReader``), or from an anyio byte stream (``receive``): ``async for obj in
  AsyncUnpacker(reader)``, or ``await unpacker.unpack()``. The bytes go to the core's
  :class:`~fastmsgpack.Unpacker` as they arrive: each byte is scanned once, an object is built
  only once it is whole, and a task waiting for the rest of an object waits on the reader,
  never on the event loop.
- :func:`write` packs an object and writes it to an ``asyncio.StreamWriter`` (then waits on
  ``drain()``, so a slow peer holds the writer back) or sends it on an anyio byte stream.
- :func:`write_frame`, :func:`read_frame` and :func:`frames`: length-prefixed messages, each a
  4-byte big-endian length and then that many bytes of MessagePack.

See doc/streams.md.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Awaitable, Callable
from typing import Any

from fastmsgpack import (
    BufferFull,
    MsgpackDecodeError,
    OutOfData,
    Unpacker,
    packb,
    unpackb,
)
from fastmsgpack._fastmsgpack import _AsyncObjects

__all__ = [
    "DEFAULT_MAX_FRAME_SIZE",
    "AsyncUnpacker",
    "frame",
    "frames",
    "read_frame",
    "write",
    "write_frame",
]

#: The largest frame :func:`read_frame` and :func:`frames` accept unless told otherwise: 100 MiB,
#: the default ``max_buffer_size`` of an ``Unpacker``.
DEFAULT_MAX_FRAME_SIZE = 104857600

_PREFIX = 4
_MAX_PREFIXED = 2**32 - 1


def _receiver(stream: Any) -> Callable[[int], Awaitable[bytes]]:
    """An awaitable ``read(n)`` for ``stream``: its own, or one over an anyio ``receive``,
    which gives ``b""`` at the end of the stream instead of raising ``EndOfStream``."""
    read = getattr(stream, "read", None)
    if callable(read):
        return read  # type: ignore[no-any-return]
    receive = getattr(stream, "receive", None)
    if not callable(receive):
        raise TypeError(
            f"expected a reader with an awaitable read(n) (asyncio.StreamReader) or an anyio "
            f"byte stream with receive(); {type(stream).__name__} has neither"
        )
    import anyio

    async def read_anyio(n: int) -> bytes:
        try:
            data: bytes = await receive(n)
        except (anyio.EndOfStream, anyio.ClosedResourceError):
            return b""
        return data

    return read_anyio


class AsyncUnpacker:
    """Objects read from an asyncio or anyio stream.

    The keyword arguments are those of :class:`fastmsgpack.Unpacker`: ``ext_hook``, ``option``,
    ``type`` and ``dec_hook`` apply to each object; ``read_size`` is the most bytes asked of the
    reader at a time; ``max_buffer_size`` bounds the bytes held, and an object whose headers
    declare more than that is refused (``BufferFull``) before its bytes are waited for.

    At the end of the stream, iteration stops if the last object was whole, and raises
    ``MsgpackDecodeError`` if the stream ended inside an object; ``unpack()`` raises
    ``OutOfData`` in the first case. ``reader`` is an ``asyncio.StreamReader`` or an anyio byte
    stream.

    Example::

        async for obj in AsyncUnpacker(reader, type=Event):
            handle(obj)
    """

    __slots__ = ("_fed", "_max", "_read", "_read_size", "_reading", "_unpacker")

    def __init__(
        self,
        reader: Any,
        /,
        *,
        ext_hook: Callable[[int, bytes], Any] | None = None,
        option: int | None = None,
        read_size: int = 65536,
        max_buffer_size: int = 104857600,
        type: Any = None,
        dec_hook: Callable[[type, Any], Any] | None = None,
    ) -> None:
        self._unpacker = Unpacker(
            ext_hook=ext_hook,
            option=option,
            read_size=read_size,
            max_buffer_size=max_buffer_size,
            type=type,
            dec_hook=dec_hook,
        )
        self._read = _receiver(reader)
        self._read_size = min(read_size, max_buffer_size)
        self._max = max_buffer_size
        self._fed = 0
        self._reading = False

    async def _more(self) -> bool:
        """Reads and feeds the next piece of the stream; ``False`` at its end."""
        room = self._max - (self._fed - self._unpacker.tell())
        if room <= 0:
            raise BufferFull(
                f"an object at byte offset {self._unpacker.tell()} is larger than "
                f"max_buffer_size ({self._max})"
            )
        # A reader whose read() awaits this unpacker again (or two tasks reading it at once)
        # would interleave the pieces of the stream: refused, as the Unpacker refuses its hooks.
        if self._reading:
            raise RuntimeError(
                "AsyncUnpacker cannot read while it is reading already: not from its reader's "
                "read(), nor from two tasks at once (use one AsyncUnpacker per task)"
            )
        self._reading = True
        try:
            data = await self._read(min(self._read_size, room))
        finally:
            self._reading = False
        if not data:
            held = self._fed - self._unpacker.tell()
            if held:
                at = self._unpacker.tell()
                raise _truncated(
                    f"the stream ended inside an object: {held} bytes from byte offset {at} "
                    f"do not make a whole object",
                    at,
                )
            return False
        self._unpacker.feed(data)
        self._fed += len(data)
        return True

    def __aiter__(self) -> AsyncIterator[Any]:
        # The core's iterator decodes the objects whole in the bytes held, one per __anext__,
        # with no coroutine made for them; only to read more does it await this coroutine.
        return _AsyncObjects(self._unpacker, self._next_after_read)

    async def _next_after_read(self) -> Any:
        """The next object, once more bytes are read: ``StopAsyncIteration`` at the end."""
        unpacker = self._unpacker
        while await self._more():
            for obj in unpacker:
                return obj
        raise StopAsyncIteration

    async def unpack(self) -> Any:
        """The next object; ``OutOfData`` when the stream ended after the last whole one."""
        unpacker = self._unpacker
        while True:
            for obj in unpacker:
                return obj
            if not await self._more():
                raise OutOfData("the stream ended")

    async def skip(self) -> None:
        """Consumes the next object without building it (``OutOfData`` at the end)."""
        while True:
            try:
                self._unpacker.skip()
                return
            except OutOfData:
                if not await self._more():
                    raise OutOfData("the stream ended") from None

    def tell(self) -> int:
        """Bytes consumed so far: the stream offset of the next object."""
        return self._unpacker.tell()


async def _send(writer: Any, data: bytes) -> None:
    drain = getattr(writer, "drain", None)
    if drain is not None:
        writer.write(data)
        await drain()
        return
    send = getattr(writer, "send", None)
    if send is None:
        raise TypeError(
            f"expected an asyncio.StreamWriter (write and drain) or an anyio byte stream "
            f"(send); {type(writer).__name__} has neither"
        )
    await send(data)


async def write(
    writer: Any,
    obj: Any,
    /,
    *,
    default: Callable[[Any], Any] | None = None,
    option: int | None = None,
) -> None:
    """Packs ``obj`` (as ``packb(obj, default, option)``) and writes it: ``writer.write`` then
    ``await writer.drain()`` for an ``asyncio.StreamWriter``, ``await writer.send`` for an anyio
    byte stream. Nothing is written if packing fails.

    Example::

        await write(writer, {"id": 1})
    """
    await _send(writer, packb(obj, default=default, option=option))


def frame(
    obj: Any, /, *, default: Callable[[Any], Any] | None = None, option: int | None = None
) -> bytes:
    """``obj`` packed (as ``packb(obj, default=default, option=option)``), after its length as 4
    big-endian bytes.

    Example::

        >>> frame([1, 2])
        b'\\x00\\x00\\x00\\x03\\x92\\x01\\x02'
    """
    body = packb(obj, default=default, option=option)
    if len(body) > _MAX_PREFIXED:
        raise ValueError(f"a frame holds at most {_MAX_PREFIXED} bytes; this one is {len(body)}")
    return len(body).to_bytes(_PREFIX, "big") + body


async def write_frame(
    writer: Any,
    obj: Any,
    /,
    *,
    default: Callable[[Any], Any] | None = None,
    option: int | None = None,
) -> None:
    """Writes ``frame(obj, default=default, option=option)`` to ``writer`` as :func:`write`
    writes, waiting on ``drain()``.

    Example::

        await write_frame(writer, {"id": 1})
    """
    await _send(writer, frame(obj, default=default, option=option))


def _truncated(message: str, offset: int) -> MsgpackDecodeError:
    """The error for a stream that ended inside an object (``offset``: where it starts in the
    stream) or a frame (0: the offsets of a frame's errors count from its first byte), with the
    data a decoder's own errors have."""
    err = MsgpackDecodeError(message)
    err.kind = "truncated"
    err.reason = message.split(":")[0]
    err.offset = offset
    return err


async def _read_exactly(read: Callable[[int], Awaitable[bytes]], n: int, eof_ok: bool) -> bytes:
    """``n`` bytes, read as they come; ``b""`` at a clean end when ``eof_ok``."""
    chunks: list[bytes] = []
    got = 0
    while got < n:
        data = await read(n - got)
        if not data:
            if eof_ok and got == 0:
                return b""
            raise _truncated(f"the stream ended inside a frame: {got} of {n} bytes arrived", 0)
        chunks.append(data)
        got += len(data)
    return chunks[0] if len(chunks) == 1 else b"".join(chunks)


async def read_frame(
    reader: Any,
    /,
    *,
    max_frame_size: int = DEFAULT_MAX_FRAME_SIZE,
    ext_hook: Callable[[int, bytes], Any] | None = None,
    option: int | None = None,
    type: Any = None,
    dec_hook: Callable[[type, Any], Any] | None = None,
) -> Any:
    """The object of the next frame, decoded as ``unpackb`` decodes (with ``type=``, into it).

    A frame longer than ``max_frame_size`` raises ``BufferFull`` from its prefix, before any of
    it is read; a frame whose bytes are not exactly one object raises ``MsgpackDecodeError``
    (the frame is consumed, so the next one can be read); a stream that ends between frames
    raises ``OutOfData``, and one that ends inside a frame ``MsgpackDecodeError``. ``reader`` is
    an ``asyncio.StreamReader`` or an anyio byte stream; ``ext_hook``, ``option``, ``type`` and
    ``dec_hook`` are those of ``unpackb``.

    Example::

        event = await read_frame(reader, type=Event)
    """
    read = _receiver(reader)
    prefix = await _read_exactly(read, _PREFIX, eof_ok=True)
    if not prefix:
        raise OutOfData("the stream ended")
    size = int.from_bytes(prefix, "big")
    if size > max_frame_size:
        raise BufferFull(
            f"a frame of {size} bytes is larger than max_frame_size ({max_frame_size})"
        )
    body = await _read_exactly(read, size, eof_ok=False)
    return unpackb(body, ext_hook=ext_hook, option=option, type=type, dec_hook=dec_hook)


async def frames(
    reader: Any,
    /,
    *,
    max_frame_size: int = DEFAULT_MAX_FRAME_SIZE,
    ext_hook: Callable[[int, bytes], Any] | None = None,
    option: int | None = None,
    type: Any = None,
    dec_hook: Callable[[type, Any], Any] | None = None,
) -> AsyncIterator[Any]:
    """The object of each frame, as :func:`read_frame` reads it (from ``reader``, with
    ``max_frame_size``, ``ext_hook``, ``option``, ``type`` and ``dec_hook``), until the stream
    ends between two frames.

    Example::

        async for event in frames(reader, type=Event):
            handle(event)
    """
    while True:
        try:
            obj = await read_frame(
                reader,
                max_frame_size=max_frame_size,
                ext_hook=ext_hook,
                option=option,
                type=type,
                dec_hook=dec_hook,
            )
        except OutOfData:
            return
        yield obj
