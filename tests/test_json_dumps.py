"""fastmsgpack.json.dumps against orjson 3.13.0 as the oracle: the same bytes, with the same flags
(translated by name), for every input orjson writes correctly. Also the inputs orjson rejects but
fastmsgpack writes, and the cases where orjson's own output is wrong (listed in doc/json.md)."""

from __future__ import annotations

import dataclasses
import datetime as dt
import enum
import itertools
import json
import uuid
from decimal import Decimal
from typing import Any, TypedDict
from zoneinfo import ZoneInfo

import numpy as np
import orjson
import pytest
import pytz  # type: ignore[import-untyped]
from conftest import (
    FIXTURE_NAMES,
    JSON_KEYS,
    JSON_PROPERTY,
    fast_option,
    json_scalars,
    json_values,
    load_fixture,
    option_ids,
    orjson_option,
)
from hypothesis import given
from hypothesis import strategies as st

import fastmsgpack
from fastmsgpack.json import JSONEncodeError, dumps

LAYOUTS = ("OPT_INDENT_2", "OPT_SORT_KEYS", "OPT_APPEND_NEWLINE")
LAYOUT_SETS = [c for n in range(4) for c in itertools.combinations(LAYOUTS, n)]
DATETIME_OPTIONS = ("OPT_NAIVE_UTC", "OPT_UTC_Z", "OPT_OMIT_MICROSECONDS")
DATETIME_SETS = [c for n in range(4) for c in itertools.combinations(DATETIME_OPTIONS, n)]


def assert_dumps_like_orjson(value: Any, *names: str) -> None:
    expected = orjson.dumps(value, option=orjson_option(*names))
    assert dumps(value, option=fast_option(*names)) == expected


@pytest.mark.parametrize("names", LAYOUT_SETS, ids=option_ids)
@pytest.mark.parametrize("name", FIXTURE_NAMES)
def test_fixtures_like_orjson(name: str, names: tuple[str, ...]) -> None:
    assert_dumps_like_orjson(load_fixture(name), *names)


SCALARS = json_scalars()
VALUES = json_values()


@JSON_PROPERTY
@given(value=VALUES, names=st.sampled_from(LAYOUT_SETS))
def test_generated_values_like_orjson(value: Any, names: tuple[str, ...]) -> None:
    assert_dumps_like_orjson(value, *names)


@JSON_PROPERTY
@given(
    value=st.dictionaries(JSON_KEYS, SCALARS | st.lists(SCALARS, max_size=3), max_size=8),
    indent=st.booleans(),
)
def test_generated_non_str_keys_like_orjson(value: dict[Any, Any], indent: bool) -> None:
    assert_dumps_like_orjson(value, "OPT_NON_STR_KEYS", *(["OPT_INDENT_2"] if indent else []))


class Kind(enum.Enum):
    A = "a"
    B = 2
    C = (1, 2.5)


Level = enum.IntEnum("Level", {"HIGH": 2**40})
Movie = TypedDict("Movie", {"title": str, "year": int})


@dataclasses.dataclass
class Point:
    x: int
    y: float = 0.5
    _hidden: int = 0


@dataclasses.dataclass(frozen=True, slots=True)
class Record:
    id: uuid.UUID
    when: dt.datetime
    day: dt.date
    at: dt.time
    kind: Kind
    points: list[Point]
    child: Record | None = None


UTC = dt.timezone.utc
NAIVE = dt.datetime(2024, 5, 17, 12, 30, 45, 123456)
PARIS = dt.datetime(2024, 7, 2, 3, 4, 5, tzinfo=ZoneInfo("Europe/Paris"))
TIMES: list[Any] = [
    NAIVE,
    PARIS,
    dt.datetime(2024, 5, 17, 12, 30, 45, 7, tzinfo=UTC),
    dt.datetime(2024, 1, 2, tzinfo=ZoneInfo("Europe/London")),
    dt.datetime(2024, 1, 2, tzinfo=dt.timezone(dt.timedelta(hours=-3, minutes=-30))),
    dt.datetime(2024, 1, 2, tzinfo=dt.timezone(dt.timedelta(hours=5, minutes=30, seconds=45))),
    dt.datetime.min,
    dt.datetime.max.replace(tzinfo=UTC),
    dt.date(1999, 12, 31),
    dt.time(0),
    dt.time(23, 59, 59, 999999),
    dt.time(1, 2, 3, 7),
]
RECORD = Record(
    id=uuid.UUID(int=2**100 + 12345),
    when=PARIS,
    day=dt.date(2024, 2, 29),
    at=dt.time(12, 30),
    kind=Kind.C,
    points=[Point(1), Point(-2, 1e-7)],
    child=Record(uuid.UUID(int=0), NAIVE, dt.date.min, dt.time(1), Kind.A, []),
)
RECORDS = {
    "times": TIMES,
    "record": RECORD,
    "nested": {"movie": Movie(title="Brazil", year=1985), "z": [RECORD, {"l": Level.HIGH}]},
    "members": [Kind.A, Kind.B, Kind.C, Level.HIGH],
    "uuids": [uuid.UUID(int=0), uuid.UUID("12345678-9abc-def0-0fed-cba987654321")],
}


@pytest.mark.parametrize("layout", [(), ("OPT_INDENT_2", "OPT_SORT_KEYS")], ids=option_ids)
@pytest.mark.parametrize("names", DATETIME_SETS, ids=option_ids)
@pytest.mark.parametrize("key", list(RECORDS))
def test_rich_types_like_orjson(key: str, names: tuple[str, ...], layout: tuple[str, ...]) -> None:
    assert_dumps_like_orjson(RECORDS[key], *names, *layout)


def test_rich_keys_like_orjson() -> None:
    keyed = {dt.date(2024, 1, 2): 1, uuid.UUID(int=3): 2, dt.time(1): 3, Kind.A: 4, PARIS: 5}
    for names in DATETIME_SETS:
        assert_dumps_like_orjson(keyed, "OPT_NON_STR_KEYS", *names)


NUMPY_VALUES = [
    np.array([[True, False], [False, True]]),
    *(np.array([-3, 0, 100], dtype=t) for t in (np.int8, np.int16, np.int32, np.int64)),
    *(np.array([0, 200, 7], dtype=t) for t in (np.uint8, np.uint16, np.uint32)),
    np.array([2**64 - 1, 0], dtype=np.uint64),
    *(
        np.array([0.1, -0.0, 1 / 3, 1e-5, 6e-8, 65504, np.nan, np.inf], dtype=t)
        for t in (np.float16, np.float32, np.float64)
    ),
    np.array([1e-45, 3.4028235e38, 16777217], dtype=np.float32),
    np.array(["2024-05-17T12:30:45.123456", "1969-12-31T23:59:59.999999"], dtype="datetime64[us]"),
    np.array(["2024-05-17T12:30:45.123456789"], dtype="datetime64[ns]"),
    np.array(["2024-05-17", "0001-01-01"], dtype="datetime64[D]"),
    np.array(["2024", "1970-03"], dtype="datetime64[M]"),
    np.zeros((2, 0, 3)),
    np.float32(0.1),
    np.float16(0.1),
    np.int64(-(2**63)),
    np.bool_(True),
    np.datetime64("2024-05-17T01:02:03"),
]


@pytest.mark.parametrize("names", [(), *((n,) for n in DATETIME_OPTIONS), ("OPT_INDENT_2",)])
@pytest.mark.parametrize("value", NUMPY_VALUES, ids=lambda v: str(v.dtype))
def test_numpy_like_orjson(value: Any, names: tuple[str, ...]) -> None:
    assert_dumps_like_orjson({"a": value, "b": [value]}, "OPT_SERIALIZE_NUMPY", *names)


@pytest.mark.parametrize(
    "value", [b"x", bytearray(b""), memoryview(b"ab"), fastmsgpack.Ext(1, b"x"), [{"a": b""}]]
)
def test_bytes_and_ext_are_json_encode_errors(value: Any) -> None:
    with pytest.raises(JSONEncodeError, match="cannot be written as JSON"):
        dumps(value)


def test_sets_decimal_and_numpy_layouts_orjson_rejects() -> None:
    assert sorted(json.loads(dumps({3, 1, 2}))) == [1, 2, 3]
    assert json.loads(dumps({"f": frozenset(["a"])})) == {"f": ["a"]}
    assert dumps([Decimal("9.99"), Decimal("1E-7"), Decimal("NaN")]) == b'["9.99","1E-7","NaN"]'
    grid = np.arange(6, dtype=np.int32).reshape(2, 3)
    for layout in (grid.astype(">i4"), np.asfortranarray(grid), grid[:, ::2], grid.T):
        assert json.loads(dumps(layout, option=fastmsgpack.OPT_SERIALIZE_NUMPY)) == layout.tolist()
    late = np.array(["9999-12-31T23:59:59"], dtype="datetime64[s]")
    assert dumps(late, option=fastmsgpack.OPT_SERIALIZE_NUMPY) == b'["9999-12-31T23:59:59"]'


NEW_YORK = pytz.timezone("America/New_York")  # attached with tzinfo=: local mean time, -04:56


def offset(seconds: int) -> dt.datetime:
    return dt.datetime(2024, 1, 2, tzinfo=dt.timezone(dt.timedelta(seconds=seconds)))


class NoOffset(dt.tzinfo):  # knows no offset: Python treats the datetime as naive
    def utcoffset(self, when: dt.datetime | None) -> None:
        return None

    dst = tzname = utcoffset


DAY = "2024-01-02T00:00:00"
# (value, what fastmsgpack writes, what orjson 3.13.0 writes): each case is in doc/json.md.
ORJSON_WRONG = [
    (dt.time(0, 0, 0, 10000), "00:00:00.010000", "00:00:00.10000"),
    (dt.time(12, 30, 0, 99999), "12:30:00.099999", "12:30:00.99999"),
    (offset(3600 + 59 * 60 + 30), f"{DAY}+02:00", f"{DAY}+01:60"),
    (offset(86399), f"{DAY}+23:59", f"{DAY}+23:60"),
    (offset(-20), f"{DAY}+00:00", f"{DAY}-00:00"),
    (dt.datetime(2024, 1, 2, tzinfo=NoOffset()), DAY, f"{DAY}+00:00"),
    (dt.datetime(2024, 1, 2, tzinfo=NEW_YORK), f"{DAY}-04:56", f"{DAY}-05:00"),
]


@pytest.mark.parametrize(("value", "right", "wrong"), ORJSON_WRONG)
def test_where_orjson_is_wrong(value: Any, right: str, wrong: str) -> None:
    assert dumps(value) == f'"{right}"'.encode()
    assert orjson.dumps(value) == f'"{wrong}"'.encode()


def test_where_orjson_indents_wrongly() -> None:
    # A dataclass whose fields are all left out (names starting with "_") is an empty object.
    hidden = dataclasses.make_dataclass("Hidden", [("_cache", int, dataclasses.field(default=0))])
    assert dumps([hidden()], option=fastmsgpack.OPT_INDENT_2) == b"[\n  {}\n]"
    assert orjson.dumps([hidden()], option=orjson.OPT_INDENT_2) == b"[\n  {\n    \n  }\n]"


class Float(float):
    pass


class Date(dt.date):
    pass


class UUIDKey(uuid.UUID):
    pass


# Keys of subclasses that orjson refuses, and the text fastmsgpack writes for each: doc/json.md.
SUBCLASS_KEYS = [
    (Float(1.5), "1.5"),
    (np.float64(0.5), "0.5"),
    (Date(2024, 5, 17), "2024-05-17"),
    (UUIDKey(int=1), "00000000-0000-0000-0000-000000000001"),
]


@pytest.mark.parametrize(("key", "text"), SUBCLASS_KEYS, ids=lambda v: type(v).__name__)
def test_subclass_keys_orjson_refuses(key: Any, text: str) -> None:
    assert dumps({key: 1}, option=fastmsgpack.OPT_NON_STR_KEYS) == f'{{"{text}":1}}'.encode()
    with pytest.raises(TypeError, match="Dict key"):
        orjson.dumps({key: 1}, option=orjson.OPT_NON_STR_KEYS)


def test_dataclass_field_without_a_value_is_an_error() -> None:
    # An init=False field never set: fastmsgpack raises, orjson leaves the field out.
    @dataclasses.dataclass
    class Lazy:
        a: int
        b: int = dataclasses.field(init=False)

    with pytest.raises(JSONEncodeError, match="dataclass field") as info:
        dumps(Lazy(1))
    assert isinstance(info.value.__cause__, AttributeError)
    assert orjson.dumps(Lazy(1)) == b'{"a":1}'


def test_default_calls_nest_255_deep() -> None:
    def countdown(calls: int) -> Any:
        left = calls

        def default(obj: Any) -> Any:
            nonlocal left
            left -= 1
            return object() if left > 0 else "done"

        return default

    assert dumps(object(), default=countdown(255)) == b'"done"'
    assert orjson.dumps(object(), default=countdown(255)) == b'"done"'
    with pytest.raises(JSONEncodeError, match="255"):
        dumps(object(), default=countdown(256))
    with pytest.raises(TypeError):
        orjson.dumps(object(), default=countdown(256))


# Every string length from empty past two 16-byte blocks, with each kind of character that
# needs escaping (and a multi-byte one that does not) at every position: the writer scans whole
# blocks and a short tail differently, and its output must not depend on where they fall.
SPECIAL_CHARS = ("\x00", "\x1f", "\n", '"', "\\", "\x7f", "é", "日")


@pytest.mark.parametrize("special", SPECIAL_CHARS, ids=[f"U+{ord(c):04X}" for c in SPECIAL_CHARS])
def test_strings_escaped_at_every_position_like_orjson(special: str) -> None:
    for length in range(40):
        plain = "".join(chr(ord("a") + k % 26) for k in range(length))
        values = [plain] + [plain[:at] + special + plain[at:] for at in range(length + 1)]
        for value in values:
            for doc in (value, [value, value], {value: value}):
                assert dumps(doc) == orjson.dumps(doc), repr(doc)
                indent = fastmsgpack.OPT_INDENT_2
                assert dumps(doc, option=indent) == orjson.dumps(doc, option=orjson.OPT_INDENT_2)


def _ints_of_every_length() -> list[int]:
    """Each digit count from 1 to 20 at its edges and in between, both signs where they fit."""
    values = [0]
    for digits in range(1, 21):
        low, high = 10 ** (digits - 1), 10**digits - 1
        for v in (low, low + 1, (low + high) // 2, high - 1, high, 5 * low - 1, 7 * low + 3):
            if v <= 2**64 - 1:
                values.append(v)
            if v <= 2**63:
                values.append(-v)
    return values + [2**63 - 1, 2**64 - 1, -(2**63)]


INTS_OF_EVERY_LENGTH = _ints_of_every_length()


def test_ints_of_every_length_like_orjson() -> None:
    # The writer takes a different path for each digit count and stores whole words past the
    # digits it keeps; the text must not depend on what comes after a number, or before it.
    mixed = INTS_OF_EVERY_LENGTH
    assert dumps(mixed) == orjson.dumps(mixed)
    assert dumps(mixed[::-1]) == orjson.dumps(mixed[::-1])
    for v in mixed:
        doc = {"a": v, "b": [v, -1, v], "c": [1, v, "x", v]}
        assert dumps(doc) == orjson.dumps(doc), v
        keyed = {v: v}
        non_str = fastmsgpack.OPT_NON_STR_KEYS
        assert dumps(keyed, option=non_str) == orjson.dumps(keyed, option=orjson.OPT_NON_STR_KEYS)


PAIR_FLOATS = [0.0, -0.0, 1.0, -1.5, 0.1, 1e-7, 1.2345e16, 5e-324, 1.7976931348623157e308]
PAIR_FLOATS += [float("nan"), float("inf"), float("-inf")]


@pytest.mark.parametrize("names", LAYOUT_SETS, ids=option_ids)
def test_float_pairs_like_orjson(names: tuple[str, ...]) -> None:
    # Lists of two floats (coordinates) take their own route: every pair of lengths and
    # non-finite values, alone, nested, after other text, and in an output that outgrows its
    # first buffer in the middle of a pair.
    pairs = [[a, b] for a in PAIR_FLOATS for b in PAIR_FLOATS]
    assert_dumps_like_orjson(pairs, *names)
    assert_dumps_like_orjson({"p": pairs[7], "q": [pairs[:3], []], "r": [1.5, 2.5]}, *names)
    for pad in range(0, 64, 7):
        assert_dumps_like_orjson(["x" * (1000 + pad), *pairs], *names)
