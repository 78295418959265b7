"""Findings of an outside audit, each kept fixed: nested registered extensions past the nesting
limit, the registry in typed decoding, the errors and re-entry of ``fastmsgpack.aio``, a
registered ``encode`` returning its own argument, and zone keys ``zoneinfo`` does not know.

(The leak with ``OPT_BIN_MEMORYVIEW`` is in ``test_leak_matrix.py``, stack use in
``test_small_stacks.py``.)
"""

from __future__ import annotations

import asyncio
import dataclasses
import io
import struct
import sys
import types
from collections.abc import Callable
from typing import Any

import pytest

import fastmsgpack
import fastmsgpack.aio
from fastmsgpack import Ext, MsgpackDecodeError, MsgpackEncodeError, Registry

LIMIT = 1024


class Box:
    __slots__ = ("inner",)

    def __init__(self, inner: Any) -> None:
        self.inner = inner

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Box) and other.inner == self.inner


REGISTRY = Registry()
REGISTRY.register(Box, 7, lambda b: b.inner, Box)


def ext_chain(code: int, n: int, inner: bytes = b"\xc0") -> bytes:
    """``n`` extensions of ``code``, each the payload of the one around it (ext 32)."""
    data = inner
    for _ in range(n):
        data = b"\xc9" + struct.pack(">Ib", len(data), code) + data
    return data


def depth_of(value: Any) -> int:
    n = 0
    while isinstance(value, (Box, list)):
        value = value.inner if isinstance(value, Box) else value[0]
        n += 1
    return n


def _unpacker_feed(data: bytes, **kw: Any) -> Any:
    unpacker = fastmsgpack.Unpacker(**kw)
    unpacker.feed(data)
    return unpacker.unpack()


DECODERS: dict[str, Callable[..., Any]] = {
    "unpackb": lambda data, **kw: fastmsgpack.unpackb(data, **kw),
    "unpack": lambda data, **kw: fastmsgpack.unpack(io.BytesIO(data), **kw),
    "Unpacker.feed": _unpacker_feed,
    "Unpacker.file": lambda data, **kw: next(iter(fastmsgpack.Unpacker(io.BytesIO(data), **kw))),
    "typed": lambda data, **kw: fastmsgpack.unpackb(data, type=Any, **kw),
    "typed-unpack": lambda data, **kw: fastmsgpack.unpack(io.BytesIO(data), type=Any, **kw),
    "typed-Unpacker": lambda data, **kw: _unpacker_feed(data, type=Any, **kw),
    "exact": lambda data, **kw: fastmsgpack.unpackb(data, option=fastmsgpack.OPT_EXACT, **kw),
}


@pytest.mark.parametrize("decoder", DECODERS)
@pytest.mark.parametrize("n", [LIMIT + 1, 30_000])
def test_nested_registered_extensions_are_too_deep(decoder: str, n: int) -> None:
    # 30,000 deep (147 KB) overflowed the stack: the depth was only checked at containers.
    with pytest.raises(MsgpackDecodeError) as caught:
        DECODERS[decoder](ext_chain(7, n), registry=REGISTRY)
    assert caught.value.kind == "too_deep"
    assert caught.value.offset is not None


@pytest.mark.parametrize("decoder", DECODERS)
def test_nested_registered_extensions_at_the_limit(decoder: str) -> None:
    assert depth_of(DECODERS[decoder](ext_chain(7, LIMIT), registry=REGISTRY)) == LIMIT


@pytest.mark.parametrize("decoder", DECODERS)
def test_extensions_and_containers_count_together(decoder: str) -> None:
    # Arrays holding extensions holding arrays: each level counts once, whichever it is.
    unit = LIMIT // 2
    data = b"\xc0"
    for _ in range(unit):
        data = b"\x91" + ext_chain(7, 1, data)
    assert depth_of(DECODERS[decoder](data, registry=REGISTRY)) == LIMIT
    with pytest.raises(MsgpackDecodeError) as caught:
        DECODERS[decoder](ext_chain(7, 1, data), registry=REGISTRY)
    assert caught.value.kind == "too_deep"


def test_nested_numpy_payloads_are_too_deep() -> None:
    np = pytest.importorskip("numpy")
    del np
    # A raw array map whose "nd" value is another raw array's extension, and so on.
    inner = b"\xc0"
    for _ in range(3 * LIMIT):
        payload = b"\x83\xc4\x02nd" + inner + b"\xc4\x04type\xa3<i8\xc4\x05shape\x90"
        inner = b"\xc9" + struct.pack(">Ib", len(payload), -116) + payload
    with pytest.raises(MsgpackDecodeError) as caught:
        fastmsgpack.unpackb(inner, option=fastmsgpack.OPT_EXACT)
    assert caught.value.kind in ("too_deep", "bad_extension")


# -- registry= in typed decoding -----------------------------------------------------------------


@dataclasses.dataclass
class Holder:
    name: str
    payload: Any


HOLDER = fastmsgpack.packb({"name": "h", "payload": Box([1, Box(2)])}, registry=REGISTRY)


def test_typed_unpackb_reads_the_registry() -> None:
    value = fastmsgpack.unpackb(HOLDER, type=Holder, registry=REGISTRY)
    assert value == Holder("h", Box([1, Box(2)]))
    # As the Unpacker with the same arguments reads it.
    assert _unpacker_feed(HOLDER, type=Holder, registry=REGISTRY) == value


def test_typed_unpack_reads_the_registry() -> None:
    value = fastmsgpack.unpack(io.BytesIO(HOLDER), type=Holder, registry=REGISTRY)
    assert value == Holder("h", Box([1, Box(2)]))


def test_typed_registry_with_exact() -> None:
    data = fastmsgpack.packb([(1, Box(2))], option=fastmsgpack.OPT_EXACT, registry=REGISTRY)
    value = fastmsgpack.unpackb(
        data, type=list[Any], registry=REGISTRY, option=fastmsgpack.OPT_EXACT
    )
    assert value == [(1, Box(2))]


def test_typed_without_registry_still_gives_ext() -> None:
    value = fastmsgpack.unpackb(HOLDER, type=Holder)
    assert value.payload == Ext(7, fastmsgpack.packb([1, Box(2)], registry=REGISTRY))


def test_typed_registry_is_checked() -> None:
    with pytest.raises(TypeError):
        fastmsgpack.unpackb(HOLDER, type=Holder, registry={7: Box})  # type: ignore[call-overload]


# -- fastmsgpack.aio -----------------------------------------------------------------------------


class Pieces:
    """An async reader that gives ``data`` in pieces of ``size`` bytes."""

    def __init__(self, data: bytes, size: int = 3) -> None:
        self.data = data
        self.size = size

    async def read(self, n: int) -> bytes:
        piece, self.data = self.data[: min(n, self.size)], self.data[min(n, self.size) :]
        return piece


def test_aio_stream_ending_inside_an_object_has_error_data() -> None:
    whole = fastmsgpack.packb([1, 2])
    data = whole + fastmsgpack.packb("abcdef")[:4]

    async def run() -> list[Any]:
        return [obj async for obj in fastmsgpack.AsyncUnpacker(Pieces(data))]

    with pytest.raises(MsgpackDecodeError) as caught:
        asyncio.run(run())
    assert caught.value.kind == "truncated"
    assert caught.value.offset == len(whole)
    assert caught.value.reason
    assert f"byte offset {len(whole)}" in str(caught.value)


def test_aio_stream_ending_inside_a_frame_has_error_data() -> None:
    frame = fastmsgpack.aio.frame([1, 2, 3])

    async def run() -> Any:
        return await fastmsgpack.aio.read_frame(Pieces(frame[:-1]))

    with pytest.raises(MsgpackDecodeError) as caught:
        asyncio.run(run())
    assert caught.value.kind == "truncated"
    assert caught.value.offset == 0
    assert caught.value.reason


def test_async_unpacker_refuses_reentry() -> None:
    class Reentrant:
        unpacker: fastmsgpack.AsyncUnpacker

        def __init__(self) -> None:
            self.seen: list[BaseException] = []

        async def read(self, n: int) -> bytes:
            try:
                await self.unpacker.unpack()
            except RuntimeError as exc:
                self.seen.append(exc)
                raise
            return b""

    async def run() -> Any:
        reader = Reentrant()
        reader.unpacker = fastmsgpack.AsyncUnpacker(reader)
        try:
            return [obj async for obj in reader.unpacker]
        finally:
            assert len(reader.seen) == 1

    with pytest.raises(RuntimeError, match="reading already"):
        asyncio.run(run())


def test_async_unpacker_reads_after_a_refused_reentry() -> None:
    # The guard is released when the read ends, by value or by error.
    async def run() -> list[Any]:
        unpacker = fastmsgpack.AsyncUnpacker(Pieces(fastmsgpack.packb([1]) * 3, size=1))
        return [obj async for obj in unpacker]

    assert asyncio.run(run()) == [[1], [1], [1]]


# -- a registered encode returning its argument --------------------------------------------------


class Loop:
    pass


def test_registered_encode_returning_its_argument() -> None:
    registry = Registry()
    registry.register(Loop, 3, lambda obj: obj, lambda value: Loop())
    with pytest.raises(MsgpackEncodeError) as caught:
        fastmsgpack.packb({"a": [Loop()]}, registry=registry)
    message = str(caught.value)
    assert "default" not in message
    assert "registered encode function for type Loop returned the object it was given" in message


class Ping:
    pass


class Pong:
    pass


def test_registered_encoders_returning_each_other() -> None:
    registry = Registry()
    registry.register(Ping, 3, lambda obj: Pong(), lambda value: Ping())
    registry.register(Pong, 4, lambda obj: Ping(), lambda value: Pong())
    with pytest.raises(MsgpackEncodeError, match="registered encode functions") as caught:
        fastmsgpack.packb(Ping(), registry=registry)
    assert "default called" not in str(caught.value)


def test_default_chain_message_is_unchanged() -> None:
    with pytest.raises(MsgpackEncodeError, match="default called recursively"):
        fastmsgpack.packb(Loop(), default=lambda obj: obj)


# -- zone keys zoneinfo does not know ------------------------------------------------------------


def _datetime_in_zone(key: str) -> bytes:
    """An OPT_EXACT datetime in the zone ``key``: the extension (ext 8, code -123) of a datetime
    in a zone of the same form, its key replaced."""
    import datetime
    import zoneinfo

    value = datetime.datetime(2024, 5, 1, 12, tzinfo=zoneinfo.ZoneInfo("Europe/Paris"))
    data = fastmsgpack.packb(value, option=fastmsgpack.OPT_EXACT)
    assert data[:1] == b"\xc7" and data[2:3] == b"\x85" and data.endswith(b"Europe/Paris")
    payload = data[3 : -len("Europe/Paris")] + key.encode()
    return b"\xc7" + bytes([len(payload)]) + b"\x85" + payload


def _python_calls(call: Any) -> list[str]:
    """The Python functions ``call`` runs (zoneinfo's lookups are Python code)."""
    seen: list[str] = []

    def profile(frame: types.FrameType, event: str, arg: Any) -> None:
        if event == "call":
            seen.append(f"{frame.f_code.co_filename}:{frame.f_code.co_name}")

    sys.setprofile(profile)
    try:
        call()
    finally:
        sys.setprofile(None)
    return seen


def test_unknown_zone_keys_are_remembered() -> None:
    data = _datetime_in_zone("Nowhere/Unknown_Zone")
    opt = fastmsgpack.OPT_EXACT

    def decode() -> None:
        with pytest.raises(MsgpackDecodeError, match='unknown zone key "Nowhere/Unknown_Zone"'):
            fastmsgpack.unpackb(data, option=opt)

    first = _python_calls(decode)
    assert any("zoneinfo" in call for call in first), first
    again = _python_calls(decode)
    assert not any("zoneinfo" in call for call in again), again


def test_known_zone_after_unknown_ones() -> None:
    for i in range(100):
        with pytest.raises(MsgpackDecodeError):
            fastmsgpack.unpackb(_datetime_in_zone(f"Nowhere/K{i}"), option=fastmsgpack.OPT_EXACT)
    value = fastmsgpack.unpackb(_datetime_in_zone("Asia/Tokyo"), option=fastmsgpack.OPT_EXACT)
    assert str(value.tzinfo) == "Asia/Tokyo"
