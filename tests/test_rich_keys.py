"""OPT_NON_STR_KEYS: datetime, date, time, UUID and Enum keys pack as they do as values, like
ormsgpack. Keys never go to default: the OPT_PASSTHROUGH_* options do not apply to them."""

from __future__ import annotations

import dataclasses
import enum
import uuid
from datetime import date, datetime, time, timedelta, timezone
from typing import Any
from zoneinfo import ZoneInfo

import pytest
from conftest import assert_packs_like_ormsgpack, fast_option, oracle_packb

import fastmsgpack
from fastmsgpack import OPT_NON_STR_KEYS, OPT_SORT_KEYS, MsgpackEncodeError

KEYS = OPT_NON_STR_KEYS


class Number(enum.Enum):
    ONE = 1
    PAIR = (1, "two")
    TEXT = "text"
    WHEN = date(2024, 1, 2)


class Level(enum.IntEnum):
    HIGH = 300


class Color(str, enum.Enum):
    RED = "red"


@dataclasses.dataclass(frozen=True)
class Point:
    x: int


class Bad(enum.Enum):
    LIST = [1]  # noqa: RUF012
    DICT = {"a": 1}  # noqa: RUF012
    POINT = Point(1)


RICH_KEYS: list[tuple[Any, Any]] = [
    (datetime(2024, 1, 2, 3, 4, 5), "2024-01-02T03:04:05"),
    (datetime(2024, 1, 2, 3, 4, 5, 6, tzinfo=timezone.utc), "2024-01-02T03:04:05.000006+00:00"),
    (
        datetime(2024, 1, 2, tzinfo=timezone(timedelta(hours=-3, minutes=-30))),
        "2024-01-02T00:00:00-03:30",
    ),
    (datetime(2024, 7, 2, tzinfo=ZoneInfo("Europe/Paris")), "2024-07-02T00:00:00+02:00"),
    (date(2024, 1, 2), "2024-01-02"),
    (time(1, 2, 3, 4), "01:02:03.000004"),
    (uuid.UUID(int=7), "00000000-0000-0000-0000-000000000007"),
    (Number.ONE, 1),
    (Number.PAIR, (1, "two")),
    (Number.TEXT, "text"),
    (Number.WHEN, "2024-01-02"),
    (Level.HIGH, 300),
    (Color.RED, "red"),
    ((date(2024, 1, 2), uuid.UUID(int=1), Number.ONE), ("2024-01-02", str(uuid.UUID(int=1)), 1)),
]
IDS = [repr(key)[:40] for key, _ in RICH_KEYS]


@pytest.mark.parametrize(("key", "packed_as"), RICH_KEYS, ids=IDS)
def test_rich_key_like_ormsgpack(key: Any, packed_as: Any) -> None:
    doc = {"first": 0, key: "value"}
    packed = assert_packs_like_ormsgpack(doc, option=KEYS)
    assert packed == oracle_packb({"first": 0, packed_as: "value"})
    assert assert_packs_like_ormsgpack([{key: {key: 1}}], option=KEYS) == oracle_packb(
        [{packed_as: {packed_as: 1}}]
    )


@pytest.mark.parametrize(("key", "packed_as"), RICH_KEYS, ids=IDS)
def test_rich_key_needs_the_option(key: Any, packed_as: Any) -> None:
    with pytest.raises(MsgpackEncodeError):
        fastmsgpack.packb({key: 1})
    with pytest.raises(MsgpackEncodeError):
        fastmsgpack.packb({key: 1}, default=str)


OPTION_SETS: list[tuple[str, ...]] = [
    ("OPT_NAIVE_UTC",),
    ("OPT_NAIVE_UTC", "OPT_UTC_Z"),
    ("OPT_OMIT_MICROSECONDS",),
    ("OPT_DATETIME_AS_TIMESTAMP_EXT",),
    ("OPT_DATETIME_AS_TIMESTAMP_EXT", "OPT_NAIVE_UTC"),
    ("OPT_PASSTHROUGH_DATETIME",),
    ("OPT_PASSTHROUGH_UUID",),
    ("OPT_PASSTHROUGH_ENUM",),
    ("OPT_PASSTHROUGH_SUBCLASS",),
]


@pytest.mark.parametrize("names", OPTION_SETS, ids="|".join)
def test_rich_keys_with_options_like_ormsgpack(names: tuple[str, ...]) -> None:
    doc = {key: index for index, (key, _) in enumerate(RICH_KEYS)}

    def default(obj: Any) -> Any:
        raise AssertionError(f"default called for {obj!r}")

    assert_packs_like_ormsgpack(doc, KEYS | fast_option(*names), default)


def test_key_timestamp_ext() -> None:
    key = datetime(2024, 1, 2, 3, 4, 5, 6, tzinfo=timezone.utc)
    option = KEYS | fast_option("OPT_DATETIME_AS_TIMESTAMP_EXT")
    packed = assert_packs_like_ormsgpack({key: 1}, option=option)
    assert packed[1:3] == b"\xd7\xff"  # fixext8 of type -1
    assert fastmsgpack.unpackb(packed, option=option) == {key: 1}


@pytest.mark.parametrize(
    "key", [time(1, tzinfo=timezone.utc), Bad.LIST, Bad.DICT, Bad.POINT, Point(1)], ids=repr
)
def test_unsupported_rich_keys(key: Any) -> None:
    with pytest.raises(MsgpackEncodeError):
        fastmsgpack.packb({key: 1}, option=KEYS)
    with pytest.raises(MsgpackEncodeError):
        fastmsgpack.packb({key: 1}, option=KEYS, default=str)


@pytest.mark.parametrize("key", [date(2024, 1, 2), uuid.UUID(int=1), Number.TEXT], ids=repr)
def test_rich_keys_cannot_be_sorted(key: Any) -> None:
    with pytest.raises(MsgpackEncodeError):
        fastmsgpack.packb({"a": 1, key: 2}, option=KEYS | OPT_SORT_KEYS)


def test_keys_that_pack_the_same_are_both_written() -> None:
    doc = {date(2024, 1, 2): 1, "2024-01-02": 2, Number.TEXT: 3, "text": 4}
    packed = assert_packs_like_ormsgpack(doc, option=KEYS)
    assert packed[0] == 0x84
    assert fastmsgpack.unpackb(packed) == {"2024-01-02": 2, "text": 4}


def test_rich_keys_decode_as_what_they_packed_as() -> None:
    doc = {key: index for index, (key, _) in enumerate(RICH_KEYS)}
    expected = {packed_as: index for index, (_, packed_as) in enumerate(RICH_KEYS)}
    assert fastmsgpack.unpackb(fastmsgpack.packb(doc, option=KEYS), option=KEYS) == expected
