"""datetime, date and time pack as RFC 3339 strings, byte for byte as ormsgpack writes them.

Covers naive and aware values with every tzinfo library the spec names (datetime.timezone,
zoneinfo, pytz, dateutil, pendulum), the options OPT_NAIVE_UTC, OPT_OMIT_MICROSECONDS, OPT_UTC_Z
alone and combined, OPT_PASSTHROUGH_DATETIME, and the aware-time error. Offsets that are not
whole minutes, DST folds and custom tzinfo classes are in test_datetime_offsets.py.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable
from datetime import date, datetime, time, timedelta, timezone, tzinfo
from typing import Any
from zoneinfo import ZoneInfo

import dateutil.tz  # type: ignore[import-untyped]
import pendulum
import pytest
import pytz  # type: ignore[import-untyped]
from conftest import assert_packs_like_ormsgpack, fast_option, oracle_packb

import fastmsgpack
from fastmsgpack import OPT_PASSTHROUGH_DATETIME, MsgpackEncodeError

STRING_OPTIONS = ("OPT_NAIVE_UTC", "OPT_OMIT_MICROSECONDS", "OPT_UTC_Z")
OPTION_SETS = [
    names
    for size in range(len(STRING_OPTIONS) + 1)
    for names in itertools.combinations(STRING_OPTIONS, size)
]
OPTION_IDS = [
    "|".join(name.removeprefix("OPT_") for name in names) or "none" for names in OPTION_SETS
]

WINTER = datetime(2024, 1, 2, 3, 4, 5)
SUMMER = datetime(2024, 7, 2, 23, 59, 59)
MICROSECONDS = [0, 1, 120000, 999999]


def offset(**kwargs: float) -> timezone:
    return timezone(timedelta(**kwargs))


def with_tz(tz: tzinfo) -> Callable[[datetime], datetime]:
    return lambda naive: naive.replace(tzinfo=tz)


def localized(name: str) -> Callable[[datetime], datetime]:
    zone = pytz.timezone(name)
    return lambda naive: zone.localize(naive)


ZONES: dict[str, Callable[[datetime], datetime]] = {
    "naive": lambda naive: naive,
    "timezone.utc": with_tz(timezone.utc),
    "timezone(0)": with_tz(offset()),
    "+01:00": with_tz(offset(hours=1)),
    "-05:00": with_tz(offset(hours=-5)),
    "+05:30": with_tz(offset(hours=5, minutes=30)),
    "-03:30": with_tz(offset(hours=-3, minutes=-30)),
    "+05:45": with_tz(offset(hours=5, minutes=45)),
    "-09:30": with_tz(offset(hours=-9, minutes=-30)),
    "+23:59": with_tz(offset(hours=23, minutes=59)),
    "-23:59": with_tz(offset(hours=-23, minutes=-59)),
    "zoneinfo-UTC": with_tz(ZoneInfo("UTC")),
    "zoneinfo-New_York": with_tz(ZoneInfo("America/New_York")),
    "zoneinfo-Kolkata": with_tz(ZoneInfo("Asia/Kolkata")),
    "pytz-utc": with_tz(pytz.utc),
    "pytz-New_York": localized("America/New_York"),
    "pytz-Kolkata": localized("Asia/Kolkata"),
    "pytz-FixedOffset": with_tz(pytz.FixedOffset(-150)),
    "dateutil-tzutc": with_tz(dateutil.tz.tzutc()),
    "dateutil-Paris": with_tz(dateutil.tz.gettz("Europe/Paris")),
    "dateutil-tzoffset": with_tz(dateutil.tz.tzoffset(None, -4 * 3600)),
    "pendulum-UTC": with_tz(pendulum.UTC),
    "pendulum-Paris": with_tz(pendulum.timezone("Europe/Paris")),
    "pendulum-fixed": with_tz(pendulum.timezone(-12600)),
}


@pytest.mark.parametrize("names", OPTION_SETS, ids=OPTION_IDS)
@pytest.mark.parametrize("zone", list(ZONES.values()), ids=list(ZONES))
def test_datetime_like_ormsgpack(zone: Callable[[datetime], datetime], names: Any) -> None:
    values = [
        zone(wall.replace(microsecond=us)) for wall in (WINTER, SUMMER) for us in MICROSECONDS
    ]
    option = fast_option(*names)
    for value in values:
        assert_packs_like_ormsgpack(value, option=option)
    assert_packs_like_ormsgpack({"when": values}, option=option)


DATES_AND_TIMES: list[Any] = [
    date(2024, 1, 2),
    date.min,
    date.max,
    time(0),
    time(3, 4, 5),
    time(3, 4, 5, 1),
    time(23, 59, 59, 999999),
    time.max,
    datetime.min,
    datetime.max,
    datetime.min.replace(tzinfo=timezone.utc),
    datetime.max.replace(tzinfo=timezone.utc),
    datetime.min.replace(tzinfo=offset(hours=1)),
    datetime.max.replace(tzinfo=offset(hours=-1)),
]


@pytest.mark.parametrize("names", OPTION_SETS, ids=OPTION_IDS)
@pytest.mark.parametrize("value", DATES_AND_TIMES, ids=repr)
def test_dates_times_and_extremes_like_ormsgpack(value: Any, names: Any) -> None:
    assert_packs_like_ormsgpack(value, option=fast_option(*names))


UTC_Z = ("OPT_UTC_Z",)
EXACT: list[tuple[Any, tuple[str, ...], str]] = [
    (WINTER, (), "2024-01-02T03:04:05"),
    (WINTER.replace(microsecond=1), (), "2024-01-02T03:04:05.000001"),
    (WINTER.replace(microsecond=1), ("OPT_OMIT_MICROSECONDS",), "2024-01-02T03:04:05"),
    (WINTER, ("OPT_NAIVE_UTC",), "2024-01-02T03:04:05+00:00"),
    (WINTER, ("OPT_NAIVE_UTC", "OPT_UTC_Z"), "2024-01-02T03:04:05Z"),
    (WINTER, UTC_Z, "2024-01-02T03:04:05"),
    (
        WINTER.replace(microsecond=120000, tzinfo=timezone.utc),
        (),
        "2024-01-02T03:04:05.120000+00:00",
    ),
    (WINTER.replace(tzinfo=timezone.utc), UTC_Z, "2024-01-02T03:04:05Z"),
    (WINTER.replace(tzinfo=offset()), UTC_Z, "2024-01-02T03:04:05Z"),
    (WINTER.replace(tzinfo=ZoneInfo("UTC")), UTC_Z, "2024-01-02T03:04:05Z"),
    (WINTER.replace(tzinfo=offset(hours=-3, minutes=-30)), UTC_Z, "2024-01-02T03:04:05-03:30"),
    (SUMMER.replace(tzinfo=ZoneInfo("America/New_York")), (), "2024-07-02T23:59:59-04:00"),
    (datetime.max.replace(tzinfo=timezone.utc), (), "9999-12-31T23:59:59.999999+00:00"),
    (datetime.min, ("OPT_NAIVE_UTC", "OPT_UTC_Z"), "0001-01-01T00:00:00Z"),
    (date.min, (), "0001-01-01"),
    (time(3, 4, 5, 1), (), "03:04:05.000001"),
    (time(3, 4, 5, 1), ("OPT_OMIT_MICROSECONDS", "OPT_NAIVE_UTC", "OPT_UTC_Z"), "03:04:05"),
]


@pytest.mark.parametrize(("value", "names", "text"), EXACT, ids=[e[2] for e in EXACT])
def test_exact_strings(value: Any, names: tuple[str, ...], text: str) -> None:
    assert assert_packs_like_ormsgpack(value, option=fast_option(*names)) == oracle_packb(text)


@pytest.mark.parametrize(
    "value", [time(1, tzinfo=timezone.utc), time(1, 2, 3, 4, tzinfo=ZoneInfo("Europe/Paris"))]
)
def test_aware_time_is_encode_error(value: time) -> None:
    for doc in (value, [value], {"t": value}):
        with pytest.raises(MsgpackEncodeError, match="tzinfo"):
            fastmsgpack.packb(doc)
        with pytest.raises(MsgpackEncodeError, match="tzinfo"):
            fastmsgpack.packb(doc, default=str, option=fast_option(*STRING_OPTIONS))


class MyDatetime(datetime):
    pass


class MyTime(time):
    pass


# ormsgpack rejects subclasses (pendulum's DateTime, Date and Time too); they pack as their base
# type, and go to default with OPT_PASSTHROUGH_DATETIME or OPT_PASSTHROUGH_SUBCLASS.
def test_subclasses_pack_as_their_base_type() -> None:
    values: list[Any] = [
        MyDatetime(2024, 1, 2, 3, 4, 5, 6),
        MyTime(1, 2, 3),
        pendulum.datetime(2024, 1, 2, 3, tz="Europe/Paris"),
        pendulum.date(2024, 1, 2),
        pendulum.time(1, 2, 3, 4),
    ]
    expected = ["2024-01-02T03:04:05.000006", "01:02:03", "2024-01-02T03:00:00+01:00"]
    expected += ["2024-01-02", "01:02:03.000004"]
    assert fastmsgpack.packb(values) == oracle_packb(expected)
    for option in (OPT_PASSTHROUGH_DATETIME, fast_option("OPT_PASSTHROUGH_SUBCLASS")):
        calls: list[Any] = []
        packed = fastmsgpack.packb([WINTER, *values], default=calls.append, option=option)
        native = "2024-01-02T03:04:05" if option != OPT_PASSTHROUGH_DATETIME else None
        assert packed == oracle_packb([native] + [None] * len(values))
        assert len(calls) == len(values) + (native is None)
        assert all(call is value for call, value in zip(calls[::-1], values[::-1]))


def test_passthrough_datetime() -> None:
    values: list[Any] = [
        WINTER,
        WINTER.replace(tzinfo=timezone.utc),
        date(2024, 1, 2),
        time(1, 2),
        time(1, tzinfo=timezone.utc),  # aware time: no error, it goes to default too
    ]
    calls: list[Any] = []

    def default(obj: Any) -> Any:
        calls.append(obj)
        return type(obj).__name__

    option = OPT_PASSTHROUGH_DATETIME | fast_option(
        *STRING_OPTIONS, "OPT_DATETIME_AS_TIMESTAMP_EXT"
    )
    packed = fastmsgpack.packb({"v": values}, default=default, option=option)
    assert packed == oracle_packb({"v": ["datetime", "datetime", "date", "time", "time"]})
    assert len(calls) == len(values)
    assert all(call is value for call, value in zip(calls, values))
    assert packed == assert_packs_like_ormsgpack({"v": values}, option, default)
    for value in values:
        with pytest.raises(MsgpackEncodeError):
            fastmsgpack.packb(value, option=OPT_PASSTHROUGH_DATETIME)
