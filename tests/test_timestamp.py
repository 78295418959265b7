"""OPT_DATETIME_AS_TIMESTAMP_EXT: packb writes datetimes as the smallest 32/64/96-bit MessagePack
timestamp (ext type -1, as msgpack-python's Timestamp does); unpackb turns ext -1 back into an
aware datetime in UTC, truncating nanoseconds to microseconds."""

from __future__ import annotations

import json
import struct
from datetime import date, datetime, time, timedelta, timezone
from typing import Any

import msgpack  # type: ignore[import-untyped]
import ormsgpack
import pytest
from conftest import (
    DATA,
    assert_packs_like_ormsgpack,
    examples,
    fast_option,
    hex_to_bytes,
    oracle_packb,
)
from hypothesis import example, given, settings
from hypothesis import strategies as st

import fastmsgpack
from fastmsgpack import (
    OPT_DATETIME_AS_TIMESTAMP_EXT,
    OPT_NAIVE_UTC,
    OPT_NON_STR_KEYS,
    OPT_OMIT_MICROSECONDS,
    OPT_UTC_Z,
    Ext,
    MsgpackDecodeError,
)

TS = OPT_DATETIME_AS_TIMESTAMP_EXT
EPOCH = datetime(1970, 1, 1, tzinfo=timezone.utc)


def msgpack_timestamp(value: datetime) -> bytes:
    """The reference encoding: msgpack-python's Timestamp of the same instant."""
    return bytes(msgpack.packb(msgpack.Timestamp.from_datetime(value)))


def assert_utc_datetime(actual: Any, expected: datetime) -> None:
    assert type(actual) is datetime
    assert actual.tzinfo is timezone.utc
    assert actual == expected  # the same instant, and so the same UTC fields


# (seconds since the epoch, microseconds, length of the packed ext: 6, 10 or 15 bytes)
BOUNDARIES: list[tuple[int, int, int]] = [
    (0, 0, 6),
    (1, 0, 6),
    (2**32 - 1, 0, 6),
    (2**32, 0, 10),
    (0, 1, 10),
    (1, 536870, 10),  # ns < 2**29
    (1, 536871, 10),  # ns > 2**29
    (1, 999999, 10),
    (2**32 - 1, 999999, 10),
    (2**34 - 1, 999999, 10),
    (2**34, 0, 15),
    (2**34, 1, 15),
    (-1, 0, 15),
    (-1, 999999, 15),
    (-(2**31), 500000, 15),
    (-62135596800, 0, 15),  # datetime.min
    (253402300799, 999999, 15),  # datetime.max
]


def ormsgpack_is_right(seconds: int, micros: int) -> bool:
    """ormsgpack packs a 64-bit timestamp whose nanoseconds are >= 2**29 as the 32-bit form,
    dropping the fraction (e.g. 1970-01-01T00:00:01.999999Z as d6-ff-00-00-00-01)."""
    return not (0 <= seconds < 2**34 and micros * 1000 >= 2**29)


@pytest.mark.parametrize(("seconds", "micros", "size"), BOUNDARIES, ids=str)
def test_pack_boundaries(seconds: int, micros: int, size: int) -> None:
    value = EPOCH + timedelta(seconds=seconds, microseconds=micros)
    naive = value.replace(tzinfo=None)
    packed = fastmsgpack.packb(value, option=TS)
    assert packed == msgpack_timestamp(value)
    assert len(packed) == size
    assert fastmsgpack.packb(naive, option=TS | OPT_NAIVE_UTC) == packed
    assert_utc_datetime(fastmsgpack.unpackb(packed, option=TS), value)
    others = [
        value.astimezone(timezone(timedelta(hours=h))) for h in (-9, 5.5) if 1 < value.year < 9999
    ]
    for other in others:  # the same instant with another offset
        assert fastmsgpack.packb(other, option=TS) == packed
    if ormsgpack_is_right(seconds, micros):
        for same in [value, *others]:
            assert_packs_like_ormsgpack(same, option=TS)
        assert_packs_like_ormsgpack(naive, option=TS | OPT_NAIVE_UTC)


def test_out_of_datetime_range_instants_pack() -> None:
    # 0001-01-01T00:00+01:00 is in year 0 in UTC; 9999-12-31T23:00-01:00 is in year 10000.
    for value in (
        datetime.min.replace(tzinfo=timezone(timedelta(hours=1))),
        datetime(9999, 12, 31, 23, tzinfo=timezone(timedelta(hours=-1))),
    ):
        packed = assert_packs_like_ormsgpack(value, option=TS)
        assert packed == msgpack_timestamp(value)
        with pytest.raises(MsgpackDecodeError):
            fastmsgpack.unpackb(packed, option=TS)


# ormsgpack drops the microseconds of the UTC offset (and so is up to a second off for a negative
# one), and aborts the process on the last one; the timestamp must be the exact instant.
@pytest.mark.parametrize(
    "delta",
    [
        timedelta(seconds=15, microseconds=5),
        timedelta(seconds=-15, microseconds=-5),
        timedelta(hours=23, minutes=59, seconds=59, microseconds=999999),
        timedelta(hours=-23, minutes=-59, seconds=-59, microseconds=-999999),
    ],
    ids=str,
)
def test_offset_with_microseconds_is_exact(delta: timedelta) -> None:
    value = datetime(2024, 1, 2, 3, 4, 5, tzinfo=timezone(delta))
    packed = fastmsgpack.packb(value, option=TS)
    assert packed == msgpack_timestamp(value)
    assert_utc_datetime(fastmsgpack.unpackb(packed, option=TS), value)


def test_naive_without_naive_utc_is_a_string() -> None:
    value = datetime(2024, 1, 2, 3, 4, 5, 6)
    for option in (TS, TS | OPT_UTC_Z, TS | OPT_OMIT_MICROSECONDS):
        assert_packs_like_ormsgpack(value, option=option)
    assert fastmsgpack.packb(value, option=TS) == oracle_packb("2024-01-02T03:04:05.000006")


def test_other_options_do_not_change_the_timestamp() -> None:
    value = datetime(2024, 1, 2, 3, 4, 5, 123456, tzinfo=timezone.utc)
    packed = fastmsgpack.packb(value, option=TS)
    for names in (("OPT_OMIT_MICROSECONDS",), ("OPT_UTC_Z", "OPT_NAIVE_UTC")):
        option = TS | fast_option(*names)
        assert assert_packs_like_ormsgpack(value, option=option) == packed


ZONES = [timezone(timedelta(minutes=m)) for m in (0, 330, -540, 1439, -1439)]
ZONES += [timezone.utc, timezone(timedelta(hours=-3, seconds=-17))]


# OPT_OMIT_MICROSECONDS leaves timestamps as they are, as in ormsgpack: the bytes are ormsgpack's
# wherever ormsgpack is right, and the exact instant elsewhere (see ormsgpack_is_right).
@settings(max_examples=examples(300), derandomize=True, database=None, deadline=None)
@given(
    st.datetimes(min_value=datetime(1, 1, 2), max_value=datetime(9999, 12, 30)),
    st.sampled_from([None, *ZONES]),
)
@example(datetime(1969, 12, 31, 23, 59, 59, 999999), timezone.utc)
@example(datetime(1900, 1, 1, 0, 0, 0, 1), ZONES[2])
@example(datetime(2106, 2, 7, 6, 28, 15, 0), timezone.utc)
@example(datetime(2106, 2, 7, 6, 28, 16, 999999), timezone.utc)
@example(datetime(2514, 5, 30, 1, 53, 4, 0), None)
@example(datetime(2024, 5, 17, 12, 30, 45, 0), ZONES[1])
def test_omit_microseconds_keeps_timestamps(naive: datetime, zone: timezone | None) -> None:
    value = naive.replace(tzinfo=zone)
    instant = value if zone else value.replace(tzinfo=timezone.utc)
    exact = msgpack_timestamp(instant)
    seconds = int((instant - EPOCH) // timedelta(seconds=1))
    like_ormsgpack = ormsgpack_is_right(seconds, value.microsecond)
    omit = TS | OPT_OMIT_MICROSECONDS
    for option in (omit, omit | OPT_NAIVE_UTC, omit | OPT_NON_STR_KEYS):
        as_timestamp = zone is not None or bool(option & OPT_NAIVE_UTC)
        for doc in (value, [value], {"k": value}):
            if as_timestamp:
                packed = fastmsgpack.packb(doc, option=option)
                assert packed == fastmsgpack.packb(doc, option=option & ~OPT_OMIT_MICROSECONDS)
                assert exact in packed
            if like_ormsgpack or not as_timestamp:
                assert_packs_like_ormsgpack(doc, option=option)
        keyed = {value: 1}
        packed = fastmsgpack.packb(keyed, option=option | OPT_NON_STR_KEYS)
        if as_timestamp:
            assert packed == b"\x81" + exact + b"\x01"
        if like_ormsgpack or not as_timestamp:
            assert_packs_like_ormsgpack(keyed, option=option | OPT_NON_STR_KEYS)


def test_dates_and_times_stay_strings() -> None:
    doc = [date(2024, 1, 2), time(1, 2, 3, 4)]
    packed = assert_packs_like_ormsgpack(doc, option=TS | OPT_NAIVE_UTC)
    assert packed == oracle_packb(["2024-01-02", "01:02:03.000004"])


def test_nested_and_as_dict_key() -> None:
    value = datetime(2024, 1, 2, tzinfo=timezone.utc)
    doc = {"a": [value, {"b": value}]}
    packed = assert_packs_like_ormsgpack(doc, option=TS)
    assert fastmsgpack.unpackb(packed, option=TS) == doc
    keyed = {value: 1}
    packed = assert_packs_like_ormsgpack(keyed, option=TS | OPT_NON_STR_KEYS)
    (key,) = fastmsgpack.unpackb(packed, option=TS | OPT_NON_STR_KEYS)
    assert_utc_datetime(key, value)


SUITE = json.loads((DATA / "msgpack-test-suite/dist/msgpack-test-suite.json").read_text("utf-8"))
SUITE_TIMESTAMPS: list[tuple[int, int, bytes]] = [
    (case["timestamp"][0], case["timestamp"][1], hex_to_bytes(encoding))
    for cases in SUITE.values()
    for case in cases
    if "timestamp" in case
    for encoding in case["msgpack"]
]


def in_datetime_range(seconds: int) -> bool:
    return -62135596800 <= seconds <= 253402300799  # 0001-01-01 to 9999-12-31T23:59:59


def test_suite_has_timestamps_on_both_sides_of_the_range() -> None:
    assert len(SUITE_TIMESTAMPS) == 19
    assert not all(in_datetime_range(s) for s, _, _ in SUITE_TIMESTAMPS)
    assert any(ns % 1000 for _, ns, _ in SUITE_TIMESTAMPS)


@pytest.mark.parametrize(
    ("seconds", "nanos", "data"),
    SUITE_TIMESTAMPS,
    ids=lambda v: v.hex() if isinstance(v, bytes) else str(v),
)
def test_suite_timestamp(seconds: int, nanos: int, data: bytes) -> None:
    assert fastmsgpack.unpackb(data) == Ext(-1, data[3:] if data[0] == 0xC7 else data[2:])
    if not in_datetime_range(seconds):
        with pytest.raises(MsgpackDecodeError):
            fastmsgpack.unpackb(data, option=TS)
        return
    expected = EPOCH + timedelta(seconds=seconds, microseconds=nanos // 1000)
    decoded = fastmsgpack.unpackb(data, option=TS)
    assert_utc_datetime(decoded, expected)
    assert decoded == ormsgpack.unpackb(data, option=ormsgpack.OPT_DATETIME_AS_TIMESTAMP_EXT)
    assert_utc_datetime(fastmsgpack.unpackb(b"\x91" + data, option=TS)[0], expected)
    if nanos % 1000 == 0:
        assert fastmsgpack.packb(expected, option=TS) == data


MALFORMED: list[bytes] = [
    b"\xd4\xff\x00",  # fixext1
    b"\xd5\xff\x00\x00",  # fixext2
    b"\xd8\xff" + bytes(16),  # fixext16
    b"\xc7\x00\xff",  # ext8, empty
    b"\xc7\x03\xff" + bytes(3),
    b"\xc7\x0b\xff" + bytes(11),
    b"\xc7\x0d\xff" + bytes(13),
    b"\xd7\xff" + struct.pack(">Q", 1_000_000_000 << 34),  # 64-bit, ns = 10**9
    b"\xd7\xff" + struct.pack(">Q", 0x3FFFFFFF << 34),  # 64-bit, ns = 2**30 - 1
    b"\xc7\x0c\xff" + struct.pack(">Iq", 1_000_000_000, 0),  # 96-bit, ns = 10**9
    b"\xc7\x0c\xff" + struct.pack(">Iq", 0, 253402300800),  # year 10000
    b"\xc7\x0c\xff" + struct.pack(">Iq", 0, -62135596801),  # year 0
    b"\xc7\x0c\xff" + struct.pack(">Iq", 0, 2**63 - 1),
    b"\xc7\x0c\xff" + struct.pack(">Iq", 999_999_999, -(2**63)),
]


@pytest.mark.parametrize("data", MALFORMED, ids=lambda d: d.hex())
def test_malformed_timestamp_is_decode_error(data: bytes) -> None:
    with pytest.raises(MsgpackDecodeError):
        fastmsgpack.unpackb(data, option=TS)
    with pytest.raises(MsgpackDecodeError):
        fastmsgpack.unpackb(b"\x82\xa1a\x01\xa1b" + data, option=TS)
    payload = data[3:] if data[0] == 0xC7 else data[2:]
    assert fastmsgpack.unpackb(data) == Ext(-1, payload)


@pytest.mark.parametrize(
    "data",
    [b"\xc8\x00\x08\xff" + bytes(8), b"\xc9\x00\x00\x00\x04\xff" + bytes(4)],
    ids=["ext16", "ext32"],
)
def test_timestamp_in_a_wider_ext_header(data: bytes) -> None:
    assert_utc_datetime(fastmsgpack.unpackb(data, option=TS), EPOCH)
    assert fastmsgpack.unpackb(data, option=TS) == ormsgpack.unpackb(
        data, option=ormsgpack.OPT_DATETIME_AS_TIMESTAMP_EXT
    )


def test_ext_minus_one_without_the_option_and_with_ext_hook() -> None:
    calls: list[tuple[int, bytes]] = []

    def hook(tag: int, data: bytes) -> Any:
        calls.append((tag, data))
        return "hooked"

    value = datetime(2024, 1, 2, 3, 4, 5, 6, tzinfo=timezone.utc)
    packed = fastmsgpack.packb([value, Ext(5, b"x")], option=TS)
    payload = packed[3:11]  # fixext8 of type -1 after the array header
    assert fastmsgpack.unpackb(packed) == [Ext(-1, payload), Ext(5, b"x")]
    assert fastmsgpack.unpackb(packed, ext_hook=hook) == ["hooked", "hooked"]
    assert calls == [(-1, payload), (5, b"x")]
    decoded = fastmsgpack.unpackb(packed, ext_hook=hook, option=TS)  # -1 is not the hook's
    assert decoded[1] == "hooked"
    assert_utc_datetime(decoded[0], value)
    assert calls == [(-1, payload), (5, b"x"), (5, b"x")]
