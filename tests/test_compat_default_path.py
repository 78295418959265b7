"""fastmsgpack.compat's Packer with a converting `default`, against msgpack-python as the oracle:
`ExtType` is packed by the core itself, byte for byte as msgpack-python packs it, and the user's
`default` is called once per object it converts, with nothing of the Packer's in between; what it
raises propagates as it is."""

from __future__ import annotations

import datetime
import decimal
import enum
import uuid
from typing import Any

import msgpack  # type: ignore[import-untyped]
import pytest

from fastmsgpack import compat

# Every payload length around the boundaries of fixext 1/2/4/8/16, ext 8, ext 16 and ext 32.
LENGTHS = [0, 1, 2, 3, 4, 5, 7, 8, 9, 15, 16, 17, 255, 256, 65535, 65536, 70000]
CODES = [0, 1, 5, 100, 127]
OPTIONS = [
    {},
    {"use_bin_type": False},
    {"strict_types": True},
    {"use_single_float": True},
]
OPTION_IDS = ["default", "old-spec", "strict", "single-float"]


def payload(n: int) -> bytes:
    return bytes(i % 251 for i in range(n))


@pytest.mark.parametrize("kwargs", OPTIONS, ids=OPTION_IDS)
def test_ext_type_bytes_equal_msgpacks_for_every_code_and_length(kwargs: dict[str, Any]) -> None:
    ours = compat.Packer(**kwargs)
    theirs = msgpack.Packer(**kwargs)
    for code in CODES:
        for n in LENGTHS:
            data = payload(n)
            value = [compat.ExtType(code, data), {"k": compat.ExtType(code, data)}]
            oracle = [msgpack.ExtType(code, data), {"k": msgpack.ExtType(code, data)}]
            assert ours.pack(value) == theirs.pack(oracle), (code, n)


def test_ext_type_with_negative_code_made_around_the_constructor() -> None:
    # The constructors refuse codes below 0, `_make` does not: both libraries pack the code as a
    # signed byte.
    for code in (-128, -1):
        ours = compat.ExtType._make((code, b"abc"))
        theirs = msgpack.ExtType._make((code, b"abc"))
        assert compat.packb(ours) == msgpack.packb(theirs)


def test_ext_type_with_items_the_constructor_refuses_packs_as_before() -> None:
    # A bytearray payload is not packed by the core: the Packer's own conversion packs it, as
    # an extension of the same bytes.
    odd = compat.ExtType._make((7, bytearray(b"xyz")))
    assert compat.packb(odd) == compat.packb(compat.ExtType(7, b"xyz"))
    with pytest.raises((TypeError, ValueError)):
        compat.packb(compat.ExtType._make(("7", b"xyz")))


class Counted:
    """A user `default` that counts its calls."""

    def __init__(self, convert: Any) -> None:
        self.convert = convert
        self.calls = 0

    def __call__(self, obj: Any) -> Any:
        self.calls += 1
        return self.convert(obj)


def count_conversions(packer: Any) -> Counted:
    """Counts the calls of the Packer's own conversion, the `default` it gives the core."""
    conversions = Counted(packer._convert)
    packer._convert = conversions
    return conversions


class Point:
    def __init__(self, x: int) -> None:
        self.x = x


def tarantool_like(obj: Any, ext: Any) -> Any:
    """Decimal, UUID and datetime as extension values, as tarantool's packer makes them."""
    if isinstance(obj, decimal.Decimal):
        return ext(1, str(obj).encode())
    if isinstance(obj, uuid.UUID):
        return ext(2, obj.bytes)
    if isinstance(obj, datetime.datetime):
        return ext(4, int(obj.timestamp()).to_bytes(8, "little"))
    raise TypeError(f"cannot pack {type(obj).__name__}")


UTC = datetime.timezone.utc
CONVERTED = [
    decimal.Decimal("1.25"),
    uuid.UUID(int=12345),
    datetime.datetime(2024, 5, 6, 7, 8, 9, tzinfo=UTC),
    uuid.UUID(int=2**127 + 5),
]


def test_converting_default_calls_the_users_default_once_per_object() -> None:
    default = Counted(lambda o: tarantool_like(o, compat.ExtType))
    packer = compat.Packer(default=default)
    conversions = count_conversions(packer)
    packed = packer.pack([*CONVERTED, {"at": CONVERTED[2]}])
    assert packed == msgpack.packb(
        [*CONVERTED, {"at": CONVERTED[2]}],
        default=lambda o: tarantool_like(o, msgpack.ExtType),
    )
    # One call of the user's default per object, none of the Packer's conversion: neither for
    # the objects nor for the ExtType values the default returned.
    assert default.calls == len(CONVERTED) + 1
    assert conversions.calls == 0


def test_default_returning_an_int_is_called_directly() -> None:
    default = Counted(lambda p: p.x)
    packer = compat.Packer(default=default)
    conversions = count_conversions(packer)
    points = [Point(i) for i in range(8)]
    assert packer.pack(points) == msgpack.packb(list(range(8)))
    assert (default.calls, conversions.calls) == (8, 0)


class Level(enum.IntEnum):
    LOW = 1


class Tag(str, enum.Enum):
    A = "a"


def test_what_the_packer_converts_itself_still_goes_through_it() -> None:
    # Subclasses of int, str and tuple, Timestamps and ExtType subclasses are the Packer's to
    # convert before the user's default; the results are msgpack-python's.
    class MyExt(compat.ExtType):
        pass

    default = Counted(lambda o: o.x)
    packer = compat.Packer(default=default)
    conversions = count_conversions(packer)
    ts = compat.Timestamp(5, 6)
    value = [Level.LOW, Tag.A, MyExt(3, b"q"), ts, Point(9)]
    oracle = [Level.LOW, Tag.A, msgpack.ExtType(3, b"q"), msgpack.Timestamp(5, 6), 9]
    assert packer.pack(value) == msgpack.packb(oracle)
    assert conversions.calls == 4
    assert default.calls == 1


def test_aware_datetimes_with_datetime_true_are_converted_before_default() -> None:
    when = datetime.datetime(2024, 1, 2, 3, 4, 5, 600000, tzinfo=UTC)
    default = Counted(lambda p: p.x)
    ours = compat.Packer(datetime=True, default=default).pack([when, Point(3)])
    assert ours == msgpack.Packer(datetime=True, default=lambda p: p.x).pack([when, Point(3)])
    assert default.calls == 1


def test_what_the_users_default_raises_propagates_as_it_is() -> None:
    error = LookupError("no conversion")

    def default(obj: Any) -> Any:
        raise error

    for packer in (compat.Packer(default=default), compat.Packer(default=default, datetime=True)):
        with pytest.raises(LookupError) as info:
            packer.pack({"a": [Point(1)]})
        assert info.value is error
    with pytest.raises(LookupError) as info:
        msgpack.packb({"a": [Point(1)]}, default=default)
    assert info.value is error


def test_packb_with_default_calls_it_once_per_object() -> None:
    default = Counted(lambda p: p.x)
    points = [Point(i) for i in range(4)]
    assert compat.packb(points, default=default) == msgpack.packb(list(range(4)))
    assert compat.packb(points, default=default, use_bin_type=True) == msgpack.packb([0, 1, 2, 3])
    assert default.calls == 8
    # Other arguments beside default go through a Packer of their own, as before.
    assert compat.packb([b"x", Point(1)], default=default, use_bin_type=False) == msgpack.packb(
        [b"x", 1], use_bin_type=False
    )
    with pytest.raises(TypeError):
        compat.packb(points, default=1)  # type: ignore[arg-type]
