"""Where fastmsgpack and ormsgpack 1.13.1 behave differently, one test each, checked against
ormsgpack: the list in doc/types.md ("Differences from ormsgpack") that has no other test."""

from __future__ import annotations

import collections
import datetime as dt
import uuid
from typing import Any

import numpy as np
import ormsgpack
import pytest
from conftest import nested_lists

import fastmsgpack
from fastmsgpack import (
    OPT_NON_STR_KEYS,
    OPT_REPLACE_SURROGATES,
    Ext,
    MsgpackDecodeError,
    MsgpackEncodeError,
)


def test_trailing_bytes_are_refused() -> None:
    data = b"\x01\x02\xc1"
    with pytest.raises(MsgpackDecodeError, match=r"^2 trailing bytes after the object at byte"):
        fastmsgpack.unpackb(data)
    assert ormsgpack.unpackb(data) == 1  # the rest is ignored


def test_ext_values_without_ext_hook() -> None:
    data = b"\x92\xd4\x05\x01\xd6\xff\x00\x00\x00\x00"  # [Ext(5, b"\x01"), timestamp 0]
    assert fastmsgpack.unpackb(data) == [Ext(5, b"\x01"), Ext(-1, bytes(4))]
    with pytest.raises(ValueError, match="ext_hook missing"):
        ormsgpack.unpackb(data)


def test_memoryview_keys_are_refused() -> None:
    view = memoryview(b"key")
    with pytest.raises(MsgpackEncodeError, match="dict key of type memoryview"):
        fastmsgpack.packb({view: 1}, option=OPT_NON_STR_KEYS)
    with pytest.raises(MsgpackEncodeError):
        fastmsgpack.packb({view: 1}, option=OPT_NON_STR_KEYS, default=bytes)
    packed = ormsgpack.packb({view: 1}, option=ormsgpack.OPT_NON_STR_KEYS)
    assert packed == b"\x81\xc4\x03key\x01"
    assert fastmsgpack.packb({bytes(view): 1}, option=OPT_NON_STR_KEYS) == packed


class Float(float):
    pass


class Bytes(bytes):
    pass


class Date(dt.date):
    pass


class Time(dt.time):
    pass


class DateTime(dt.datetime):
    pass


class UUID(uuid.UUID):
    pass


Pair = collections.namedtuple("Pair", "left right")


def test_named_tuples_are_packed_as_arrays() -> None:
    value = {"p": Pair(1, "a")}
    with pytest.raises(TypeError, match="not msgpack serializable: Pair"):
        ormsgpack.packb(value)
    assert fastmsgpack.packb(value) == ormsgpack.packb({"p": (1, "a")})
    # ormsgpack's default gets them, as fastmsgpack's does with OPT_PASSTHROUGH_TUPLE.
    assert fastmsgpack.packb(
        value, default=list, option=fastmsgpack.OPT_PASSTHROUGH_TUPLE
    ) == ormsgpack.packb(value, default=list)


# (a key ormsgpack refuses, the key of the base type it is packed as)
SUBCLASS_KEYS: list[tuple[Any, Any]] = [
    (Float(1.5), 1.5),
    (Bytes(b"k"), b"k"),
    (Date(2024, 5, 17), dt.date(2024, 5, 17)),
    (Time(12, 30), dt.time(12, 30)),
    (DateTime(2024, 5, 17, 12, 30), dt.datetime(2024, 5, 17, 12, 30)),
    (UUID(int=1), uuid.UUID(int=1)),
    (Pair(1, "a"), (1, "a")),
    (np.float64(0.5), 0.5),
    (np.bytes_(b"k"), b"k"),
]


@pytest.mark.parametrize(("key", "base"), SUBCLASS_KEYS, ids=lambda v: type(v).__name__)
def test_subclass_keys_are_packed_as_their_base_type(key: Any, base: Any) -> None:
    expected = ormsgpack.packb({base: 1}, option=ormsgpack.OPT_NON_STR_KEYS)
    assert fastmsgpack.packb({key: 1}, option=OPT_NON_STR_KEYS) == expected
    with pytest.raises(TypeError):
        ormsgpack.packb({key: 1}, option=ormsgpack.OPT_NON_STR_KEYS)


def test_replace_surrogates_applies_to_keys() -> None:
    value = {"a\ud800": "b\udfff"}
    packed = fastmsgpack.packb(value, option=OPT_REPLACE_SURROGATES)
    assert packed == ormsgpack.packb({"a?": "b?"})
    with pytest.raises(TypeError, match="surrogates"):
        ormsgpack.packb(value, option=ormsgpack.OPT_REPLACE_SURROGATES)


def countdown(calls: int) -> Any:
    """A default that returns a new unknown object ``calls - 1`` times, then a string."""
    left = calls

    def default(obj: Any) -> Any:
        nonlocal left
        left -= 1
        return object() if left > 0 else "done"

    return default


def test_nesting_limits() -> None:
    # packb: 254 levels of containers; ormsgpack goes to 255.
    with pytest.raises(MsgpackEncodeError, match="254"):
        fastmsgpack.packb(nested_lists(255))
    assert ormsgpack.unpackb(ormsgpack.packb(nested_lists(255))) == nested_lists(255)
    # Nested calls of default: 255 in both.
    assert fastmsgpack.packb(object(), default=countdown(255)) == b"\xa4done"
    assert ormsgpack.packb(object(), default=countdown(255)) == b"\xa4done"
    with pytest.raises(MsgpackEncodeError, match="255"):
        fastmsgpack.packb(object(), default=countdown(256))
    with pytest.raises(TypeError):
        ormsgpack.packb(object(), default=countdown(256))
    # unpackb: 1024 levels; ormsgpack stops at 1023.
    deepest = b"\x91" * 1023 + b"\x90"
    value, levels = fastmsgpack.unpackb(deepest), 1
    while value:
        value, levels = value[0], levels + 1
    assert levels == 1024
    with pytest.raises(MsgpackDecodeError, match="1024"):
        fastmsgpack.unpackb(b"\x91" + deepest)
    with pytest.raises(ValueError, match="Recursion limit"):
        ormsgpack.unpackb(deepest)


def test_ext_class() -> None:
    # Tag -128 is an ext type like the others; ormsgpack's Ext refuses it.
    assert fastmsgpack.packb(Ext(-128, b"x")) == b"\xd4\x80x"
    with pytest.raises(TypeError, match="out of range"):
        ormsgpack.packb(ormsgpack.Ext(-128, b"x"))
    # Data may be any bytes-like object; values compare by tag and data.
    assert Ext(1, bytearray(b"x")) == Ext(1, memoryview(b"x")) == Ext(1, b"x")
    with pytest.raises(TypeError):
        ormsgpack.Ext(1, bytearray(b"x"))  # type: ignore[arg-type]
    assert ormsgpack.Ext(1, b"x") != ormsgpack.Ext(1, b"x")
    # An ormsgpack.Ext is not a fastmsgpack Ext: it goes to default like any unknown type.
    with pytest.raises(MsgpackEncodeError, match="not MessagePack serializable: ormsgpack.Ext"):
        fastmsgpack.packb(ormsgpack.Ext(1, b"x"))
    seen: list[Any] = []

    def default(obj: Any) -> str:
        seen.append(obj)
        return "ext"

    assert fastmsgpack.packb(ormsgpack.Ext(1, b"x"), default=default) == b"\xa3ext"
    assert type(seen[0]) is ormsgpack.Ext


@pytest.mark.parametrize(
    "call",
    [lambda lib: lib.unpackb("\x01"), lambda lib: lib.unpackb(b"\x01", option="1")],
    ids=["str input", "str option"],
)
def test_unpackb_argument_errors_are_type_errors(call: Any) -> None:
    with pytest.raises(TypeError):
        call(fastmsgpack)
    with pytest.raises(ValueError):
        call(ormsgpack)
