"""UTC offsets that are not whole minutes, local mean time, DST folds and custom tzinfo classes,
in the RFC 3339 strings of datetime values (see test_datetime.py for the rest)."""

from __future__ import annotations

from datetime import datetime, timedelta, timezone, tzinfo
from zoneinfo import ZoneInfo

import dateutil.tz  # type: ignore[import-untyped]
import pendulum
import pytest
import pytz  # type: ignore[import-untyped]
from conftest import assert_packs_like_ormsgpack, fast_option, oracle_packb

import fastmsgpack
from fastmsgpack import MsgpackEncodeError

WINTER = datetime(2024, 1, 2, 3, 4, 5)
UTC_Z = ("OPT_UTC_Z",)


def offset(**kwargs: float) -> timezone:
    return timezone(timedelta(**kwargs))


# Offsets that are not whole minutes. RFC 3339 has minutes only; its section 5.8 writes the
# Netherlands' +00:19:32.13 as "+00:20", "the closest representable UTC offset", and so does
# ormsgpack: the offset's size is rounded to the nearest minute, 30 s up. Unlike ormsgpack, the
# rounding carries into the hour (ormsgpack writes "+05:60") and stops at 23:59 (ormsgpack writes
# "+23:60", "-24:00"), and an offset that rounds to zero is UTC: "+00:00", or "Z" with OPT_UTC_Z
# (ormsgpack writes "-00:00" for a negative one, which RFC 3339 reserves for an unknown offset,
# and never "Z"). (delta, suffix, whether ormsgpack writes the same with and without OPT_UTC_Z)
ROUNDED: list[tuple[timedelta, str, bool]] = [
    (timedelta(seconds=30), "+00:01", True),
    (timedelta(seconds=45), "+00:01", True),
    (timedelta(seconds=-30), "-00:01", True),
    (timedelta(seconds=-45), "-00:01", True),
    (timedelta(hours=5, minutes=30, seconds=15), "+05:30", True),
    (timedelta(hours=-5, minutes=-30, seconds=-15), "-05:30", True),
    (timedelta(hours=5, minutes=29, seconds=45), "+05:30", True),
    (timedelta(seconds=29), "+00:00", False),
    (timedelta(seconds=15, microseconds=5), "+00:00", False),
    (timedelta(microseconds=1), "+00:00", True),
    (timedelta(seconds=-1), "+00:00", False),
    (timedelta(seconds=-29), "+00:00", False),
    (timedelta(microseconds=-1), "+00:00", False),
    (timedelta(minutes=59, seconds=30), "+01:00", False),
    (timedelta(hours=5, minutes=59, seconds=30), "+06:00", False),
    (timedelta(hours=-5, minutes=-59, seconds=-30), "-06:00", False),
    (timedelta(hours=23, minutes=59, seconds=30), "+23:59", False),
    (timedelta(hours=23, minutes=59, seconds=59, microseconds=999999), "+23:59", False),
    (timedelta(hours=-23, minutes=-59, seconds=-59, microseconds=-999999), "-23:59", False),
]


@pytest.mark.parametrize(("delta", "suffix", "like_ormsgpack"), ROUNDED, ids=lambda v: str(v))
@pytest.mark.parametrize("names", [(), UTC_Z], ids=["none", "UTC_Z"])
def test_offset_rounded_to_the_minute(
    delta: timedelta, suffix: str, like_ormsgpack: bool, names: tuple[str, ...]
) -> None:
    value = WINTER.replace(tzinfo=timezone(delta))
    if names and suffix == "+00:00":
        suffix = "Z"
    option = fast_option(*names)
    assert fastmsgpack.packb(value, option=option) == oracle_packb("2024-01-02T03:04:05" + suffix)
    if like_ormsgpack:
        assert_packs_like_ormsgpack(value, option=option)


@pytest.mark.parametrize(
    ("value", "suffix"),
    [
        (datetime(1850, 7, 2, 3, 4, 5, tzinfo=ZoneInfo("Europe/Amsterdam")), "+00:20"),  # 0:19:32
        (datetime(1850, 7, 2, 3, 4, 5, tzinfo=ZoneInfo("Asia/Kolkata")), "+05:53"),  # 5:53:28
        (pytz.timezone("Europe/Amsterdam").localize(datetime(1900, 1, 2, 3, 4, 5)), "+00:18"),
        (datetime(1900, 1, 2, 3, 4, 5, tzinfo=dateutil.tz.tzoffset(None, 18017)), "+05:00"),
    ],
    ids=["zoneinfo-Amsterdam-LMT", "zoneinfo-Kolkata-LMT", "pytz-Amsterdam-LMT", "dateutil-17s"],
)
def test_local_mean_time_offsets_like_ormsgpack(value: datetime, suffix: str) -> None:
    assert assert_packs_like_ormsgpack(value) == oracle_packb(value.isoformat()[:19] + suffix)


@pytest.mark.parametrize(
    "tz",
    [
        ZoneInfo("America/New_York"),
        dateutil.tz.gettz("America/New_York"),
        pendulum.timezone("America/New_York"),
    ],
    ids=["zoneinfo", "dateutil", "pendulum"],
)
def test_fold_picks_the_offset(tz: tzinfo) -> None:
    first = datetime(2024, 11, 3, 1, 30, tzinfo=tz)
    second = first.replace(fold=1)
    assert assert_packs_like_ormsgpack(first) == oracle_packb("2024-11-03T01:30:00-04:00")
    assert assert_packs_like_ormsgpack(second) == oracle_packb("2024-11-03T01:30:00-05:00")


class FixedTz(tzinfo):
    def utcoffset(self, dt: datetime | None) -> timedelta:
        return timedelta(hours=2, minutes=15)

    def dst(self, dt: datetime | None) -> timedelta:
        return timedelta(0)

    def tzname(self, dt: datetime | None) -> str:
        return "fixed"


class BrokenTz(FixedTz):
    def utcoffset(self, dt: datetime | None) -> timedelta:
        raise RuntimeError("no offset")


class NoOffsetTz(FixedTz):
    def utcoffset(self, dt: datetime | None) -> None:  # type: ignore[override]
        return None


def test_custom_tzinfo() -> None:
    value = WINTER.replace(tzinfo=FixedTz())
    assert assert_packs_like_ormsgpack(value) == oracle_packb("2024-01-02T03:04:05+02:15")
    with pytest.raises(MsgpackEncodeError) as info:
        fastmsgpack.packb(WINTER.replace(tzinfo=BrokenTz()))
    assert isinstance(info.value.__cause__, RuntimeError)


# ormsgpack rejects a tzinfo whose utcoffset() is None; Python calls such a datetime naive.
def test_tzinfo_without_offset_is_naive() -> None:
    value = WINTER.replace(tzinfo=NoOffsetTz())
    assert value.utcoffset() is None
    for names in ((), ("OPT_NAIVE_UTC", "OPT_UTC_Z"), ("OPT_DATETIME_AS_TIMESTAMP_EXT",)):
        option = fast_option(*names)
        assert fastmsgpack.packb(value, option=option) == fastmsgpack.packb(WINTER, option=option)


# A pytz zone attached without localize() has its first (local mean time) offset, which is what
# Python reports; ormsgpack calls the zone's normalize() and writes -05:00 instead.
def test_pytz_zone_without_localize_uses_utcoffset() -> None:
    value = WINTER.replace(tzinfo=pytz.timezone("America/New_York"))
    assert value.utcoffset() == -timedelta(hours=4, minutes=56)
    assert fastmsgpack.packb(value) == oracle_packb("2024-01-02T03:04:05-04:56")


class OffsetTz(FixedTz):
    """A tzinfo returning any object as the offset, recording the datetimes it is asked for."""

    def __init__(self, result: object) -> None:
        self.result = result
        self.asked: list[datetime | None] = []

    def utcoffset(self, dt: datetime | None) -> timedelta:
        self.asked.append(dt)
        return self.result  # type: ignore[return-value]


class AskedItself(datetime):
    """A datetime subclass: packed through its own utcoffset() method."""


DAY = timedelta(hours=24)
# Offsets whose count of microseconds does not fit 64 bits; this one would wrap around to
# about -8 hours, well within the range, if it were counted in 64 bits.
HUGE_OFFSETS = [timedelta(days=213_503_982), timedelta.max, timedelta.min]
EDGE_OFFSETS = [
    DAY - timedelta(microseconds=1),
    DAY,
    DAY + timedelta(seconds=1),
    timedelta(0),
    *HUGE_OFFSETS,
]


@pytest.mark.parametrize("result", [*EDGE_OFFSETS, *(-o for o in EDGE_OFFSETS[:5]), None, 5, "1h"])
def test_exact_datetime_offset_is_checked_as_utcoffset_checks_it(result: object) -> None:
    # The offset of an exact datetime is asked from its tzinfo directly: the result must be
    # taken or refused as datetime.utcoffset() would, which a subclass still calls.
    tz = OffsetTz(result)
    exact = WINTER.replace(tzinfo=tz)
    sub = AskedItself(2024, 1, 2, 3, 4, 5, tzinfo=tz)
    try:
        expected = fastmsgpack.packb(sub)
    except MsgpackEncodeError:
        with pytest.raises((ValueError, TypeError)):
            sub.utcoffset()  # Python refuses it too
        with pytest.raises(MsgpackEncodeError) as info:
            fastmsgpack.packb(exact)
        if isinstance(result, timedelta):
            assert isinstance(info.value.__cause__, ValueError)
            assert "strictly between" in str(info.value.__cause__)
    else:
        assert fastmsgpack.packb(exact) == expected
    assert tz.asked[-1] is exact or tz.asked[-1] is sub
    assert any(dt is exact for dt in tz.asked)


def test_datetime_subclass_overriding_utcoffset_is_asked_itself() -> None:
    class Shifted(datetime):
        def utcoffset(self) -> timedelta:
            return timedelta(hours=-3)

    value = Shifted(2024, 1, 2, 3, 4, 5, tzinfo=FixedTz())
    assert fastmsgpack.packb(value) == oracle_packb("2024-01-02T03:04:05-03:00")
    assert fastmsgpack.packb([value, WINTER.replace(tzinfo=FixedTz())]) == oracle_packb(
        ["2024-01-02T03:04:05-03:00", "2024-01-02T03:04:05+02:15"]
    )


@pytest.mark.parametrize("key", ["Europe/Berlin", "America/New_York", "Australia/Lord_Howe"])
def test_zoneinfo_offsets_through_the_year(key: str) -> None:
    tz = ZoneInfo(key)
    values = [datetime(2024, month, 1 + month, 1, 30, fold=fold, tzinfo=tz)
              for month in range(1, 13) for fold in (0, 1)]  # fmt: skip
    assert assert_packs_like_ormsgpack(values) == oracle_packb([v.isoformat() for v in values])
