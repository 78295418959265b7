"""Round trip of records mixing the rich types, with orjson as the oracle:
unpackb(packb(x, option=o)) is exactly orjson.loads(orjson.dumps(x, option=o')), where o' has the
same flags as o, for the options both libraries have and the values orjson accepts."""

from __future__ import annotations

import dataclasses
import enum
import itertools
import uuid
from datetime import date, datetime, time, timedelta, timezone
from typing import Any
from zoneinfo import ZoneInfo

import orjson
import pytest
from conftest import assert_same, examples, fast_option
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import fastmsgpack

SHARED_WITH_ORJSON = (
    "OPT_NAIVE_UTC",
    "OPT_OMIT_MICROSECONDS",
    "OPT_UTC_Z",
    "OPT_SORT_KEYS",
    "OPT_NON_STR_KEYS",
    "OPT_PASSTHROUGH_DATACLASS",
    "OPT_PASSTHROUGH_DATETIME",
    "OPT_PASSTHROUGH_SUBCLASS",
)


class Kind(enum.Enum):
    A = "a"
    B = 2
    C = 1.5


class Level(enum.IntEnum):
    LOW = 1
    HIGH = 2**40


class Color(str, enum.Enum):
    RED = "red"


class Tag(str):
    pass


@dataclasses.dataclass
class Event:
    id: uuid.UUID
    when: datetime
    day: date
    at: time
    kind: Kind
    level: Level
    color: Color
    tags: list[Any]
    pair: tuple[int, str]
    meta: dict[str, Any]
    child: Event | None = None
    _secret: str = "hidden"


def default(obj: Any) -> Any:
    """Used with the OPT_PASSTHROUGH_* options; returns something both libraries pack."""
    if dataclasses.is_dataclass(obj) and not isinstance(obj, type):
        fields = {field.name: getattr(obj, field.name) for field in dataclasses.fields(obj)}
        return {"dataclass": type(obj).__name__, **fields}
    if isinstance(obj, (datetime, date, time)):
        return "iso " + obj.isoformat()
    if isinstance(obj, str):
        return "subclass " + str.__str__(obj)
    raise TypeError(f"unexpected {type(obj).__name__}")


def assert_round_trip_like_orjson(value: Any, names: tuple[str, ...]) -> None:
    orjson_option = 0
    for name in names:
        orjson_option |= getattr(orjson, name)
    packed = fastmsgpack.packb(value, default=default, option=fast_option(*names))
    expected = orjson.loads(orjson.dumps(value, default=default, option=orjson_option))
    assert_same(fastmsgpack.unpackb(packed), expected)


PARIS = ZoneInfo("Europe/Paris")
EVENT = Event(
    id=uuid.UUID(int=2**100 + 12345),
    when=datetime(2024, 7, 2, 3, 4, 5, 6, tzinfo=PARIS),
    day=date(1999, 12, 31),
    at=time(23, 59, 59, 999999),
    kind=Kind.A,
    level=Level.HIGH,
    color=Color.RED,
    tags=[Tag("t"), "plain", Kind.C, (1, [None])],
    pair=(1, "one"),
    meta={"naive": datetime(2024, 1, 2), "utc": datetime(2024, 1, 2, tzinfo=timezone.utc)},
    child=Event(
        id=uuid.UUID(int=0),
        when=datetime.max,
        day=date.min,
        at=time(0),
        kind=Kind.B,
        level=Level.LOW,
        color=Color.RED,
        tags=[],
        pair=(-1, ""),
        meta={"z": 1, "a": {"b": -0.0, "a": 2**64 - 1}, "": -(2**63)},
    ),
)
RECORDS: list[Any] = [
    EVENT,
    [EVENT, {"events": (EVENT.child,)}],
    {"when": datetime(2024, 1, 2, tzinfo=timezone(timedelta(hours=-3, minutes=-30))), "b": True},
]
KEYED = {
    "keys": {date(2024, 1, 2): 1, uuid.UUID(int=3): 2, time(1): EVENT, Color.RED: 4, Kind.A: 5}
}
OPTION_SETS: list[tuple[str, ...]] = [
    *(names for size in range(5) for names in itertools.combinations(SHARED_WITH_ORJSON[:4], size)),
    ("OPT_PASSTHROUGH_DATACLASS",),
    ("OPT_PASSTHROUGH_DATETIME", "OPT_SORT_KEYS"),
    ("OPT_PASSTHROUGH_SUBCLASS", "OPT_UTC_Z", "OPT_NAIVE_UTC"),
    ("OPT_PASSTHROUGH_DATACLASS", "OPT_PASSTHROUGH_DATETIME", "OPT_PASSTHROUGH_SUBCLASS"),
]


def option_ids(names: tuple[str, ...]) -> str:
    return "|".join(name.removeprefix("OPT_") for name in names) or "none"


@pytest.mark.parametrize("names", OPTION_SETS, ids=option_ids)
@pytest.mark.parametrize("record", RECORDS, ids=["event", "nested", "offset"])
def test_records_round_trip_like_orjson(record: Any, names: tuple[str, ...]) -> None:
    assert_round_trip_like_orjson(record, names)


# Rich keys need OPT_NON_STR_KEYS, and fastmsgpack cannot sort keys that are not str.
@pytest.mark.parametrize(
    "names",
    [(*n, "OPT_NON_STR_KEYS") for n in OPTION_SETS if "OPT_SORT_KEYS" not in n],
    ids=option_ids,
)
def test_rich_keys_round_trip_like_orjson(names: tuple[str, ...]) -> None:
    assert_round_trip_like_orjson(KEYED, names)


TIMEZONES = st.sampled_from(
    [
        timezone.utc,
        timezone(timedelta(hours=5, minutes=30)),
        timezone(timedelta(hours=-3, minutes=-30)),
        timezone(timedelta(hours=-23, minutes=-59)),
        ZoneInfo("America/New_York"),
        ZoneInfo("Asia/Kolkata"),
        PARIS,
    ]
)
DATETIMES = st.datetimes(timezones=st.none() | TIMEZONES)


def orjson_can_write(value: time) -> bool:
    """orjson 3.13.0 drops a zero from a time's microseconds in 10000..99999 (writes
    "00:00:00.10000" for time(0, 0, 0, 10000)); datetimes are not affected."""
    return not 10000 <= value.microsecond <= 99999


TIMES = st.times().filter(orjson_can_write)
MEMBERS = st.sampled_from([*Kind, *Level, *Color])
STR_KEYS = st.one_of(DATETIMES, st.dates(), TIMES, st.uuids(), st.just(Kind.A), st.text())
SCALARS = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(-(2**63), 2**64 - 1),
    st.floats(allow_nan=False, allow_infinity=False),
    st.text(max_size=20),
    st.text(max_size=5).map(Tag),
    DATETIMES,
    st.dates(),
    TIMES,
    st.uuids(),
    MEMBERS,
)


def containers(children: st.SearchStrategy[Any]) -> st.SearchStrategy[Any]:
    return st.one_of(
        st.lists(children, max_size=5),
        st.lists(children, max_size=5).map(tuple),
        st.dictionaries(st.text(max_size=8), children, max_size=5),
        st.builds(
            Event,
            id=st.uuids(),
            when=DATETIMES,
            day=st.dates(),
            at=TIMES,
            kind=st.sampled_from(Kind),
            level=st.sampled_from(Level),
            color=st.just(Color.RED),
            tags=st.lists(children, max_size=3),
            pair=st.tuples(st.integers(-5, 5), st.text(max_size=3)),
            meta=st.dictionaries(st.text(max_size=5), children, max_size=3),
        ),
    )


RECORD_VALUES = st.recursive(SCALARS, containers, max_leaves=30)


@settings(
    max_examples=examples(200),
    derandomize=True,
    database=None,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
@given(
    value=RECORD_VALUES,
    keyed=st.dictionaries(STR_KEYS, RECORD_VALUES, max_size=4),
    names=st.sets(st.sampled_from(SHARED_WITH_ORJSON)),
)
def test_generated_records_round_trip_like_orjson(
    value: Any, keyed: dict[Any, Any], names: set[str]
) -> None:
    ordered = tuple(sorted(names))
    assert_round_trip_like_orjson(value, ordered)
    if "OPT_NON_STR_KEYS" in names and "OPT_SORT_KEYS" not in names:
        assert_round_trip_like_orjson({"keyed": keyed, "value": value}, ordered)
