"""OPT_EXACT: each listed type comes back as itself, in the layouts of doc/exact.md, and every
malformed payload is refused with a MsgpackDecodeError naming the type and the offset."""

from __future__ import annotations

import datetime as dt
import io
import math
import uuid
import zoneinfo
from decimal import Decimal
from importlib import resources
from pathlib import Path
from typing import Any

import msgpack  # type: ignore[import-untyped]
import numpy as np
import pytest

import fastmsgpack
import fastmsgpack.json
from fastmsgpack import (
    OPT_EXACT,
    OPT_JSON_COMPAT,
    OPT_NON_STR_KEYS,
    Ext,
    MsgpackDecodeError,
    MsgpackEncodeError,
)

PARIS = zoneinfo.ZoneInfo("Europe/Paris")


def rt(obj: Any) -> Any:
    return fastmsgpack.unpackb(fastmsgpack.packb(obj, option=OPT_EXACT), option=OPT_EXACT)


def same(a: Any, b: Any) -> bool:
    """Equal, of the same type all the way down (datetimes: same fields, fold and zone)."""
    if type(a) is not type(b):
        return False
    if isinstance(a, dict):
        return (
            list(a) == list(b)
            and all(same(k, kb) for k, kb in zip(a, b, strict=True))
            and all(same(a[k], b[k]) for k in a)
        )
    if isinstance(a, list | tuple):
        return len(a) == len(b) and all(same(x, y) for x, y in zip(a, b, strict=True))
    if isinstance(a, set | frozenset):
        return a == b and {type(x) for x in a} == {type(x) for x in b}
    if isinstance(a, dt.datetime | dt.time):
        return bool(repr(a) == repr(b) and a.fold == b.fold and a.tzinfo == b.tzinfo)
    if isinstance(a, Decimal):
        return bool(a.as_tuple() == b.as_tuple())
    if isinstance(a, float) and math.isnan(a):
        return math.isnan(b)
    if isinstance(a, np.ndarray):
        return bool(a.dtype == b.dtype and a.shape == b.shape and a.tobytes() == b.tobytes())
    return bool(a == b)


VALUES: list[Any] = [
    (),
    (1, "a", (2.5, None)),
    set(),
    {1, "two", (3, 4)},
    frozenset(),
    frozenset({b"x", 1.5}),
    2**64,
    -(2**63) - 1,
    2**1000,
    -(2**8000),
    1 + 2j,
    complex(float("inf"), -0.0),
    dt.datetime(1, 1, 1),
    dt.datetime(9999, 12, 31, 23, 59, 59, 999999),
    dt.datetime(2024, 5, 17, 12, 30, tzinfo=dt.timezone.utc),
    dt.datetime(2024, 5, 17, tzinfo=dt.timezone(dt.timedelta(hours=-3, microseconds=7))),
    dt.datetime(2024, 5, 17, tzinfo=dt.timezone(dt.timedelta(hours=5, minutes=30), "IST")),
    dt.datetime(2024, 5, 17, tzinfo=dt.timezone(dt.timedelta(0), "")),
    dt.datetime(2024, 10, 27, 2, 30, fold=1, tzinfo=PARIS),
    dt.datetime(2024, 10, 27, 2, 30, fold=0, tzinfo=PARIS),
    dt.date(1, 1, 1),
    dt.date(2024, 2, 29),
    dt.time(),
    dt.time(23, 59, 59, 999999, fold=1),
    dt.time(8, 15, tzinfo=dt.timezone(dt.timedelta(hours=1), "CET")),
    dt.time(8, 15, tzinfo=PARIS),
    dt.timedelta(0),
    dt.timedelta(days=-999999999),
    dt.timedelta(days=999999999, hours=23, minutes=59, seconds=59, microseconds=999999),
    dt.timedelta(microseconds=-1),
    uuid.UUID(int=0),
    uuid.UUID(int=2**128 - 1),
    uuid.uuid4(),
    Decimal("1.50"),
    Decimal("-0"),
    Decimal("0E-1000"),
    Decimal("1E+999999"),
    Decimal("NaN"),
    Decimal("-NaN123"),
    Decimal("sNaN"),
    Decimal("Infinity"),
    Decimal("-Infinity"),
    Decimal("3.14159265358979323846264338327950288419716939937510"),
    bytearray(),
    bytearray(b"\x00\xffabc"),
    np.arange(6, dtype=">i2").reshape(2, 3),
    np.array(["a", "bc"]),
    np.float32(1.5),
    np.int64(-3),
    np.float64(2.5),
    np.str_("ab"),
    np.bytes_(b"\x00 @"),
    {"nested": [(1, {2}), {"k": frozenset({(1, 2)})}]},
    {(1, 2): "tuple key", frozenset({3}): "frozenset key", 4: "int key", None: 0},
]


@pytest.mark.parametrize("value", VALUES, ids=lambda v: type(v).__name__)
def test_round_trip_keeps_type_and_value(value: Any) -> None:
    back = rt(value)
    assert same(back, value), (value, back)


def test_plain_types_stay_plain_msgpack() -> None:
    obj = {"a": [1, -2, 2**64 - 1, 1.5, "s", b"b", True, None]}
    assert fastmsgpack.packb(obj, option=OPT_EXACT) == msgpack.packb(obj, use_bin_type=True)
    assert same(rt(obj), obj)


def test_numpy_comes_back_writable() -> None:
    a = np.arange(4, dtype="<f8")
    back = rt(a)
    back[0] = 7.0
    assert back.tolist() == [7.0, 1.0, 2.0, 3.0]


def test_numpy_ext_does_not_turn_later_maps_into_arrays() -> None:
    look_alike = {b"nd": True, b"type": "<i4", b"data": b"\x00" * 4}
    obj = [np.int32(5), look_alike]
    assert same(rt(obj), obj)


WIRE: list[tuple[Any, bytes]] = [
    ((1, 2), b"\xc7\x03\x80\x92\x01\x02"),
    ({7}, b"\xd5\x81\x91\x07"),
    (frozenset({7}), b"\xd5\x82\x91\x07"),
    (2**64, b"\xc7\x09\x83\x01" + bytes(8)),
    (-(2**63) - 1, b"\xc7\x09\x83\xff\x7f" + b"\xff" * 7),
    (1 + 2j, b"\xd8\x84" + bytes.fromhex("3ff00000000000004000000000000000")),
    (
        dt.datetime(2024, 5, 17, 12, 30, 45, 123456),
        b"\xc7\x0c\x85\x07\xe8\x05\x11\x0c\x1e\x2d\x00\x00\x01\xe2\x40",
    ),
    (
        dt.datetime(2024, 5, 17, tzinfo=dt.timezone.utc),
        b"\xc7\x0d\x85\x07\xe8\x05\x11\x00\x00\x00\x00\x00\x00\x00\x00\x00",
    ),
    (
        dt.datetime(2024, 5, 17, tzinfo=dt.timezone(dt.timedelta(hours=-1))),
        b"\xc7\x15\x85\x07\xe8\x05\x11"
        + bytes(8)
        + b"\x01"
        + (-3_600_000_000).to_bytes(8, "big", signed=True),
    ),
    (dt.date(2024, 5, 17), b"\xd6\x86\x07\xe8\x05\x11"),
    (dt.time(1, 2, 3, 4), b"\xd7\x87\x01\x02\x03\x00\x00\x00\x00\x04"),
    (
        dt.timedelta(days=-1, seconds=5, microseconds=6),
        b"\xc7\x0c\x88\xff\xff\xff\xff\x00\x00\x00\x05\x00\x00\x00\x06",
    ),
    (uuid.UUID(int=1), b"\xd8\x89" + (1).to_bytes(16, "big")),
    (Decimal("1.25"), b"\xd7\x8a\x00\xff\xff\xff\xfe125"),
    (Decimal("-sNaN"), b"\xd4\x8a\x07"),
    (bytearray(b"ab"), b"\xd5\x8bab"),
]


@pytest.mark.parametrize(("value", "wire"), WIRE, ids=lambda v: type(v).__name__)
def test_wire_layout(value: Any, wire: bytes) -> None:
    assert fastmsgpack.packb(value, option=OPT_EXACT) == wire
    assert same(fastmsgpack.unpackb(wire, option=OPT_EXACT), value)


def test_reader_without_the_option_sees_ext() -> None:
    data = fastmsgpack.packb([(1,), uuid.UUID(int=1)], option=OPT_EXACT)
    assert fastmsgpack.unpackb(data) == [Ext(-128, b"\x91\x01"), Ext(-119, (1).to_bytes(16, "big"))]
    seen: list[int] = []
    fastmsgpack.unpackb(data, ext_hook=lambda code, payload: seen.append(code))
    assert seen == [-128, -119]
    # msgpack-python's ExtType refuses negative codes: its readers need an ext_hook.
    with pytest.raises(ValueError, match="0~127"):
        msgpack.unpackb(data)
    assert msgpack.unpackb(data, ext_hook=lambda code, payload: (code, payload)) == [
        (-128, b"\x91\x01"),
        (-119, (1).to_bytes(16, "big")),
    ]


def test_unknown_codes_stay_ext() -> None:
    for code in (-115, -114, -2, -112, 5):
        data = fastmsgpack.packb(Ext(code, b"xyz"))
        assert fastmsgpack.unpackb(data, option=OPT_EXACT) == Ext(code, b"xyz")
    hooked = fastmsgpack.unpackb(
        fastmsgpack.packb(Ext(-115, b"q")), option=OPT_EXACT, ext_hook=lambda c, d: (c, d)
    )
    assert hooked == (-115, b"q")


def test_the_out_of_band_reference_code_is_no_application_code() -> None:
    # -113 is the out-of-band buffer reference: without buffers it is refused, with or without
    # OPT_EXACT, while every application code (0 to 127) still reads as Ext.
    assert fastmsgpack.BUFFER_EXT_TYPE == -113
    for option in (None, OPT_EXACT):
        with pytest.raises(fastmsgpack.MsgpackDecodeError, match="no buffers were given"):
            fastmsgpack.unpackb(fastmsgpack.packb(Ext(-113, bytes(16))), option=option)
    for code in (0, 98, 99, 100, 127):
        assert fastmsgpack.unpackb(fastmsgpack.packb(Ext(code, b"x"))) == Ext(code, b"x")


def test_subclasses_are_packed_as_without_the_option() -> None:
    class MyTuple(tuple):  # type: ignore[type-arg]
        pass

    class MyDate(dt.date):
        pass

    assert (
        fastmsgpack.unpackb(
            fastmsgpack.packb(MyDate(2024, 1, 2), option=OPT_EXACT), option=OPT_EXACT
        )
        == "2024-01-02"
    )
    with pytest.raises(MsgpackEncodeError):
        fastmsgpack.packb(MyTuple((1,)), option=OPT_EXACT)


def test_every_entry_point() -> None:
    value = {"t": (1, 2), "d": Decimal("2.50")}
    buf = io.BytesIO()
    fastmsgpack.pack(value, buf, option=OPT_EXACT)
    buf.seek(0)
    assert same(fastmsgpack.unpack(buf, option=OPT_EXACT), value)
    packer = fastmsgpack.Packer(option=OPT_EXACT)
    out = bytearray()
    packer.pack_into(value, out)
    stream = packer.pack(value) + bytes(out)
    unpacker = fastmsgpack.Unpacker(option=OPT_EXACT)
    unpacker.feed(stream)
    assert [same(v, value) for v in unpacker] == [True, True]


def test_option_combinations() -> None:
    with pytest.raises(MsgpackEncodeError, match="OPT_EXACT and OPT_JSON_COMPAT"):
        fastmsgpack.packb(1, option=OPT_EXACT | OPT_JSON_COMPAT)
    with pytest.raises(fastmsgpack.json.JSONEncodeError):
        fastmsgpack.json.dumps(1, option=OPT_EXACT)
    # OPT_EXACT lets non-str keys through on both sides, as OPT_NON_STR_KEYS does.
    data = fastmsgpack.packb({1: 2}, option=OPT_EXACT)
    assert data == fastmsgpack.packb({1: 2}, option=OPT_NON_STR_KEYS)
    assert fastmsgpack.unpackb(data, option=OPT_EXACT) == {1: 2}


@pytest.mark.parametrize(
    ("value", "message"),
    [
        (2**40000, "too large for OPT_EXACT"),
        (Decimal("1E+1000000000"), "exponent"),
        (Decimal("1" * 10001), "10001 digits"),
        (dt.datetime(2024, 1, 1, tzinfo=None), "has none that names a zone"),
    ],
    ids=["big int", "exponent", "digits", "keyless zone"],
)
def test_refused_on_packing(value: Any, message: str) -> None:
    if isinstance(value, dt.datetime):
        value = value.replace(tzinfo=keyless_zone())
    with pytest.raises(MsgpackEncodeError, match=message):
        fastmsgpack.packb(value, option=OPT_EXACT)


def keyless_zone() -> zoneinfo.ZoneInfo:
    """A ZoneInfo read from a file, which has no key."""
    for base in zoneinfo.TZPATH:
        path = Path(base) / "UTC"
        if path.is_file():
            with path.open("rb") as f:
                return zoneinfo.ZoneInfo.from_file(f)
    with resources.files("tzdata.zoneinfo").joinpath("UTC").open("rb") as f:
        return zoneinfo.ZoneInfo.from_file(f)


def test_big_int_limits_are_two_s_complement_in_4096_bytes() -> None:
    for n in (2**32767 - 1, -(2**32767), 2**64, -(2**63) - 1, -(2**64)):
        data = fastmsgpack.packb(n, option=OPT_EXACT)
        payload = fastmsgpack.unpackb(data).data
        assert len(payload) == (n if n >= 0 else ~n).bit_length() // 8 + 1 <= 4096
        assert fastmsgpack.unpackb(data, option=OPT_EXACT) == n
    for n in (2**32767, -(2**32767) - 1):
        with pytest.raises(MsgpackEncodeError, match="too large for OPT_EXACT"):
            fastmsgpack.packb(n, option=OPT_EXACT)


def test_other_tzinfo_classes_are_refused_by_name() -> None:
    class Fixed(dt.tzinfo):
        def utcoffset(self, d: dt.datetime | None) -> dt.timedelta:
            return dt.timedelta(hours=1)

        def dst(self, d: dt.datetime | None) -> dt.timedelta:
            return dt.timedelta(0)

        def tzname(self, d: dt.datetime | None) -> str:
            return "FIXED"

    with pytest.raises(MsgpackEncodeError, match="not .*Fixed.*zoneinfo.ZoneInfo"):
        fastmsgpack.packb(dt.datetime(2024, 1, 1, tzinfo=Fixed()), option=OPT_EXACT)


def ext(code: int, payload: bytes, prefix: bytes = b"") -> bytes:
    return prefix + fastmsgpack.packb(Ext(code, payload))


DT = b"\x07\xe8\x05\x11\x00\x00\x00\x00\x00\x00\x00\x00"


def refusal(make: Any, *args: int) -> str:
    """The message of the ValueError this interpreter raises for the call: CPython 3.14 words its
    date range errors differently from 3.13, and the decoder passes them on."""
    try:
        make(*args)
    except ValueError as error:
        return str(error)
    raise AssertionError(f"{make.__name__}{args} was accepted")


BAD: list[tuple[int, bytes, str]] = [
    (-128, b"", "empty payload"),
    (-128, b"\x93\x01", "payload truncated"),
    (-128, b"\x91\x01\x02", "1 bytes after"),
    (-128, b"\x01", "payload must be an array"),
    (-127, b"\x91\x90", "is unhashable"),
    (-126, b"\x92", "payload truncated"),
    (-125, b"", "empty payload"),
    (-125, b"\x01" * 4097, "4097 bytes is more than the limit of 4096"),
    (-124, bytes(15), "16 bytes"),
    (-123, DT[:11], "payload truncated"),
    (-123, b"\x07\xe8\x02\x1e" + bytes(8), refusal(dt.datetime, 2024, 2, 30)),
    (-123, b"\x27\x10\x01\x01" + bytes(8), refusal(dt.datetime, 10000, 1, 1)),
    (-123, DT[:7] + b"\x02" + DT[8:], "fold must be 0 or 1"),
    (-123, DT + b"\x00\x00", "datetime extension"),
    (-123, DT + b"\x01" + bytes(7), "datetime extension"),
    (-123, DT + b"\x01" + (86_400_000_000).to_bytes(8, "big"), "not below a day"),
    (-123, DT + b"\x03../../etc/passwd", "bad zone key"),
    (-123, DT + b"\x03", "bad zone key"),
    (-123, DT + b"\x03Mars/Olympus_Mons", "unknown zone key"),
    (-123, DT + b"\x09", "unknown time zone form 9"),
    (-122, b"\x07\xe8\x0d", "4 bytes"),
    (-122, b"\x07\xe8\x0d\x01", "month must be in 1..12"),
    (-122, b"\x00\x00\x01\x01", refusal(dt.date, 0, 1, 1)),
    (-121, b"\x18\x00\x00\x00" + bytes(4), "hour must be in 0..23"),
    (-121, b"\x00\x00\x00\x00\x00\x0f\x42\x40", "microsecond must be in 0..999999"),
    (-120, bytes(11), "12 bytes"),
    (-120, b"\x40\x00\x00\x00" + bytes(8), "outside timedelta's range"),
    (-120, bytes(4) + (86400).to_bytes(4, "big") + bytes(4), "below 86400"),
    (-119, bytes(15), "16 bytes"),
    (-118, b"", "empty payload"),
    (-118, b"\x00\x00\x00\x00", "needs an exponent and at least one digit"),
    (-118, b"\x00\x40\x00\x00\x00\x31", "exponent 1073741824 is beyond"),
    (-118, b"\x00\x00\x00\x00\x00\x31\x78", "digits must be ASCII 0-9"),
    (-118, b"\x00\x00\x00\x00\x00" + b"1" * 10001, "10001 digits"),
    (-118, b"\x02\x31", "an infinity has no digits"),
    (-118, b"\x10", "unknown flags"),
    (-116, b"\x80", "raw array map"),
    (-116, b"\x83\xc4\x02nd\xc2\xc4\x04type\xa3<i4\xc4\x04data\xc4\x01\x00", "numpy"),
]


@pytest.mark.parametrize(("code", "payload", "message"), BAD, ids=lambda v: str(v)[:20])
def test_malformed_payloads_name_type_and_offset(code: int, payload: bytes, message: str) -> None:
    prefix = b"\x92\xc0"  # the extension starts at offset 2
    data = ext(code, payload, prefix) + b"\xc0"
    with pytest.raises(MsgpackDecodeError) as info:
        fastmsgpack.unpackb(data, option=OPT_EXACT)
    text = str(info.value) + " " + str(info.value.__cause__ or "")
    assert message in text
    if code != -116 or "raw array map" in message:
        assert f"(type {code})" in str(info.value), text
        assert info.value.offset == 2, text
        assert info.value.kind == "bad_extension", text


def test_errors_do_not_depend_on_the_surroundings() -> None:
    # A truncated payload is never completed by the bytes after the extension.
    data = fastmsgpack.packb([Ext(-128, b"\x92\x01"), 2])
    with pytest.raises(MsgpackDecodeError) as info:
        fastmsgpack.unpackb(data, option=OPT_EXACT)
    assert (info.value.kind, info.value.offset) == ("bad_extension", 1)
    assert "tuple extension" in str(info.value.reason)


def test_deep_nesting_is_bounded() -> None:
    value: Any = ()
    for _ in range(2000):
        value = (value,)
    with pytest.raises(MsgpackEncodeError):
        fastmsgpack.packb(value, option=OPT_EXACT)
    nested = b"\xc0"
    for _ in range(1500):
        nested = fastmsgpack.packb(Ext(-128, b"\x91" + nested))
    with pytest.raises(MsgpackDecodeError) as info:
        fastmsgpack.unpackb(nested, option=OPT_EXACT)
    assert info.value.kind == "too_deep"


def test_old_messages_stay_readable() -> None:
    # What packb wrote before OPT_EXACT (text dates, UUIDs and Decimals, arrays for tuples) reads
    # the same with the option.
    old = fastmsgpack.packb(
        {"at": dt.datetime(2024, 5, 17, tzinfo=dt.timezone.utc), "id": uuid.UUID(int=1), "t": (1,)}
    )
    assert fastmsgpack.unpackb(old, option=OPT_EXACT) == fastmsgpack.unpackb(old)
