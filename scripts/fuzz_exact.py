"""The fuzzer's checks of OPT_EXACT (doc/exact.md), run by fuzz_checks on inputs whose header
has HEADER_EXACT, and the seed documents that hold every exact extension code.

For such an input, unpackb(data, option=OPT_EXACT) must give a value or a MsgpackDecodeError
that gives its offset (nothing else), an Unpacker must give the same, and the differential
oracle must hold: packb(value, option=OPT_EXACT) then unpackb(..., option=OPT_EXACT) gives back
an equal value of the same type, all the way down. The one value that cannot go back is one
nested deeper than packb writes (PACK_DEPTH levels, where unpackb reads 1024; doc/types.md):
packb must then refuse it with MsgpackEncodeError.
"""

from __future__ import annotations

import datetime
import decimal
import struct
import uuid
import zoneinfo
from collections.abc import Iterator
from typing import Any

import numpy as np

import fastmsgpack
from fastmsgpack import (
    OPT_EXACT,
    Ext,
    MsgpackDecodeError,
    MsgpackEncodeError,
    OutOfData,
    Unpacker,
)

HEADER_EXACT = 0x80

PACK_DEPTH = 254
"""How deep packb nests containers (unpackb reads deeper)."""


def nesting(value: Any) -> int:
    """How many containers deep `value` nests (a scalar: 0). Iterative, as values read from
    the fuzzer's inputs nest up to 1024 levels, past Python's recursion limit."""
    deepest = 0
    stack = [(value, 1)]
    while stack:
        item, depth = stack.pop()
        if isinstance(item, dict):
            deepest = max(deepest, depth)
            stack.extend((part, depth + 1) for entry in item.items() for part in entry)
        elif isinstance(item, list | tuple | set | frozenset):
            deepest = max(deepest, depth)
            stack.extend((member, depth + 1) for member in item)
    return deepest


def same_exact(a: Any, b: Any) -> bool:
    """Equal, with every value of the same type: floats and complex numbers bit for bit,
    Decimals digit for digit, datetimes and times with the same fold and zone, sets member for
    member (NaN included), numpy dtype, shape and bytes. Lists, tuples and dicts are compared
    with a stack of their own, not by recursion: values read from the fuzzer's inputs nest up to
    1024 levels, past Python's recursion limit."""
    pending = [(a, b)]
    while pending:
        x, y = pending.pop()
        if type(x) is not type(y):
            return False
        if isinstance(x, list | tuple):
            if len(x) != len(y):
                return False
            pending.extend(zip(x, y, strict=True))
        elif isinstance(x, dict):
            if len(x) != len(y):
                return False
            for (kx, vx), (ky, vy) in zip(x.items(), y.items(), strict=True):
                pending += [(kx, ky), (vx, vy)]
        elif not _same_leaf(x, y):
            return False
    return True


def _same_leaf(a: Any, b: Any) -> bool:
    """`same_exact` for two values of the same type that are not lists, tuples or dicts."""
    if isinstance(a, np.ndarray | np.generic):
        return bool(a.dtype.str == b.dtype.str and a.tobytes() == b.tobytes())
    if isinstance(a, float):
        return struct.pack(">d", a) == struct.pack(">d", b)
    if isinstance(a, complex):
        return struct.pack(">dd", a.real, a.imag) == struct.pack(">dd", b.real, b.imag)
    if isinstance(a, decimal.Decimal):
        return bool(a.as_tuple() == b.as_tuple())
    if isinstance(a, set | frozenset):
        rest = list(b)
        for x in a:
            match = next((i for i, y in enumerate(rest) if same_exact(x, y)), None)
            if match is None:
                return False
            rest.pop(match)
        return not rest
    if isinstance(a, datetime.datetime | datetime.time):
        return (
            a.replace(tzinfo=None) == b.replace(tzinfo=None)
            and a.fold == b.fold
            and same_zone(a.tzinfo, b.tzinfo)
        )
    return bool(a == b)


def same_zone(a: datetime.tzinfo | None, b: datetime.tzinfo | None) -> bool:
    if type(a) is not type(b):
        return False
    if isinstance(a, datetime.timezone):
        assert isinstance(b, datetime.timezone)
        return bool(a.__getinitargs__() == b.__getinitargs__())  # type: ignore[attr-defined]
    return a is b


def problems(data: bytes, header: int) -> Iterator[tuple[str, str]]:
    """(key, detail) of each check that fails on the input (none without HEADER_EXACT)."""
    if not header & HEADER_EXACT:
        return
    try:
        value = fastmsgpack.unpackb(data, option=OPT_EXACT)
        error: BaseException | None = None
    except MsgpackDecodeError as exc:
        value, error = None, exc
    except Exception as exc:  # noqa: BLE001 (any other exception is the finding)
        yield "exact-error-type", f"unpackb raised {type(exc).__name__}: {exc}"
        return
    streamed = _streamed(data)
    if error is not None:
        if " at byte offset " not in str(error):
            yield "exact-error-offset", f"the error gives no offset: {error}"
        # A stream waits for more bytes (OutOfData) where unpackb finds the data truncated, and
        # its scanner may meet a malformed byte before the decoder's error (fuzz_checks'
        # "decoders" check compares the messages): here, it must fail with one of the two.
        trailing = "trailing bytes after the object" in str(error)  # a stream reads the first
        if not trailing and not isinstance(streamed, MsgpackDecodeError | OutOfData):
            yield "exact-stream", f"Unpacker gave {streamed!r:.200}, unpackb raised {error!r}"
        return
    if isinstance(streamed, Exception) or not same_exact(streamed, value):
        yield "exact-stream", f"Unpacker gave {streamed!r:.200}, unpackb {value!r:.200}"
    try:
        packed = fastmsgpack.packb(value, option=OPT_EXACT)
        back = fastmsgpack.unpackb(packed, option=OPT_EXACT)
    except MsgpackEncodeError as exc:
        if nesting(value) <= PACK_DEPTH:
            yield "exact-oracle", f"packing {value!r:.200} back raised MsgpackEncodeError: {exc}"
        return
    except Exception as exc:  # noqa: BLE001
        yield "exact-oracle", f"packing {value!r:.200} back raised {type(exc).__name__}: {exc}"
        return
    if not same_exact(back, value):
        yield "exact-oracle", f"{value!r:.200} came back as {back!r:.200}"


def _streamed(data: bytes) -> Any:
    """The one object an Unpacker fed `data` gives, or what it raised."""
    unpacker = Unpacker(option=OPT_EXACT)
    unpacker.feed(data)
    try:
        return unpacker.unpack()
    except Exception as exc:  # noqa: BLE001
        return exc


def seed_documents() -> Iterator[tuple[str, bytes]]:
    """(name, MessagePack) holding every exact code, valid and broken."""
    paris = zoneinfo.ZoneInfo("Europe/Paris")
    valid: dict[str, Any] = {
        "tuple": (1, (2, "x"), ()),
        "sets": [{1, "a"}, frozenset({(1, 2)}), set()],
        "big-int": [2**64, -(2**100), 2**4000],
        "complex": [1 + 2j, complex(float("nan"), -0.0)],
        "datetime": [
            datetime.datetime(2024, 10, 27, 2, 30, fold=1, tzinfo=paris),
            datetime.datetime(1, 1, 1),
            datetime.datetime(2024, 1, 1, tzinfo=datetime.timezone.utc),
            datetime.datetime(
                2024, 1, 1, tzinfo=datetime.timezone(datetime.timedelta(hours=-5), "EST")
            ),
        ],
        "date-time-delta": [
            datetime.date(2024, 2, 29),
            datetime.time(1, 2, 3, 4, tzinfo=datetime.timezone(datetime.timedelta(minutes=30))),
            datetime.timedelta(days=-1, microseconds=1),
        ],
        "uuid-decimal": [
            uuid.UUID(int=2**127 + 5),
            decimal.Decimal("-1.50"),
            decimal.Decimal("sNaN7"),
            decimal.Decimal("-Infinity"),
        ],
        "bytearray-numpy": [bytearray(b"ab"), np.arange(3, dtype=">u2"), np.float32(2.5)],
        "keys": {(1, 2): 1, frozenset({3}): 2, 4: 3},
    }
    for name, value in valid.items():
        yield name, fastmsgpack.packb(value, option=OPT_EXACT)
    broken = {
        "bad-date": Ext(-122, b"\x07\xe8\x0d\x01"),
        "bad-zone": Ext(-123, bytes(12) + b"\x03../x"),
        "short-tuple": Ext(-128, b"\x93\x01"),
        "big-exponent": Ext(-118, b"\x00\x7f\xff\xff\xff1"),
        "kept-code": Ext(-115, b"?"),
    }
    for name, ext in broken.items():
        yield name, fastmsgpack.packb([ext, 1])
