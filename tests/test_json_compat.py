"""OPT_JSON_COMPAT: MessagePack restricted to JSON's data model. For every x orjson accepts,
unpackb(packb(x, option=OPT_JSON_COMPAT | o)) is exactly orjson.loads(orjson.dumps(x, option=o'))
(types, float bits, key order), o' having the same flags as o. Values JSON cannot hold (bytes, Ext,
timestamps) are MsgpackEncodeError."""

from __future__ import annotations

import dataclasses
import datetime as dt
import enum
import itertools
import math
import uuid
from typing import Any
from zoneinfo import ZoneInfo

import numpy as np
import orjson
import pytest
from conftest import (
    FIXTURE_NAMES,
    JSON_KEYS,
    JSON_PROPERTY,
    assert_same,
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
from fastmsgpack import OPT_JSON_COMPAT, MsgpackEncodeError, packb, unpackb


def default(obj: Any) -> Any:
    """For the OPT_PASSTHROUGH_* options: what both libraries write."""
    return [type(obj).__name__, str(obj)]


def assert_compat_like_orjson(value: Any, *names: str) -> bytes:
    expected = orjson.loads(orjson.dumps(value, default, option=orjson_option(*names)))
    packed = packb(value, default, option=OPT_JSON_COMPAT | fast_option(*names))
    # Keys are strings now: no OPT_NON_STR_KEYS needed to read them.
    assert_same(unpackb(packed), expected)
    return packed


@pytest.mark.parametrize("names", [(), ("OPT_SORT_KEYS",)], ids=option_ids)
@pytest.mark.parametrize("name", FIXTURE_NAMES)
def test_fixtures(name: str, names: tuple[str, ...]) -> None:
    document = load_fixture(name)
    packed = assert_compat_like_orjson(document, *names)
    # Nothing in them is outside JSON's model: the same bytes as without the option.
    assert packed == packb(document, option=fast_option(*names))


SCALARS = json_scalars()
VALUES = json_values()


@JSON_PROPERTY
@given(value=VALUES, sort=st.booleans())
def test_generated_values(value: Any, sort: bool) -> None:
    assert_compat_like_orjson(value, *(["OPT_SORT_KEYS"] if sort else []))


@JSON_PROPERTY
@given(value=st.dictionaries(JSON_KEYS, SCALARS | st.lists(SCALARS, max_size=3), max_size=8))
def test_generated_non_str_keys(value: dict[Any, Any]) -> None:
    assert_compat_like_orjson(value, "OPT_NON_STR_KEYS")
    assert_compat_like_orjson({"nested": [value]}, "OPT_NON_STR_KEYS")


@JSON_PROPERTY
@given(values=st.lists(st.floats(width=32), max_size=20))
def test_generated_float32(values: list[float]) -> None:
    array = np.array(values, dtype=np.float32)
    scalars = [np.float32(v) for v in values]
    assert_compat_like_orjson({"array": array, "scalars": scalars}, "OPT_SERIALIZE_NUMPY")
    with np.errstate(over="ignore"):
        half = array.astype(np.float16)
    assert_compat_like_orjson(half, "OPT_SERIALIZE_NUMPY")


def test_float32_reads_back_as_its_json_text() -> None:
    packed = packb(np.float32(0.1), option=OPT_JSON_COMPAT | fastmsgpack.OPT_SERIALIZE_NUMPY)
    assert packed == packb(0.1)  # not packb(float(np.float32(0.1))), 0.10000000149011612
    packed = packb([math.nan, -math.inf], option=OPT_JSON_COMPAT)
    assert unpackb(packed) == [None, None]


class Kind(enum.Enum):
    A = "a"
    B = 2


@dataclasses.dataclass
class Event:
    id: uuid.UUID
    when: dt.datetime
    day: dt.date
    at: dt.time
    kind: Kind
    tags: tuple[Any, ...]
    child: Event | None = None


EVENT = Event(
    id=uuid.UUID(int=2**100 + 5),
    when=dt.datetime(2024, 7, 2, 3, 4, 5, 6, tzinfo=ZoneInfo("Europe/Paris")),
    day=dt.date(1999, 12, 31),
    at=dt.time(23, 59, 59, 999999),
    kind=Kind.A,
    tags=(1.5, math.nan, None, Kind.B),
    child=Event(uuid.UUID(int=0), dt.datetime(2024, 1, 2), dt.date.min, dt.time(0), Kind.B, ()),
)
RICH_KEYS = {dt.date(2024, 1, 2): 1, uuid.UUID(int=3): 2, dt.time(1): 3, Kind.A: 4, 2.5: EVENT}
OPTION_NAMES = (
    "OPT_NAIVE_UTC",
    "OPT_UTC_Z",
    "OPT_OMIT_MICROSECONDS",
    "OPT_PASSTHROUGH_DATACLASS",
    "OPT_PASSTHROUGH_DATETIME",
)


@pytest.mark.parametrize(
    "names",
    [c for n in range(3) for c in itertools.combinations(OPTION_NAMES, n)],
    ids=option_ids,
)
def test_rich_types(names: tuple[str, ...]) -> None:
    assert_compat_like_orjson([EVENT, {"e": EVENT}], *names)
    assert_compat_like_orjson({"keys": RICH_KEYS, "n": [1]}, "OPT_NON_STR_KEYS", *names)


@pytest.mark.parametrize(
    "value",
    [b"x", bytearray(), memoryview(b"a"), fastmsgpack.Ext(1, b"x"), {"a": [b""]}, {b"k": 1}],
)
def test_bytes_and_ext_are_errors(value: Any) -> None:
    with pytest.raises(MsgpackEncodeError, match="has no JSON form"):
        packb(value, option=OPT_JSON_COMPAT | fastmsgpack.OPT_NON_STR_KEYS)
    packb(value, option=fastmsgpack.OPT_NON_STR_KEYS)  # fine without the option


def test_options_that_write_bytes_or_extensions_are_errors() -> None:
    aware = dt.datetime(2024, 1, 2, tzinfo=dt.timezone.utc)
    as_ext = OPT_JSON_COMPAT | fastmsgpack.OPT_DATETIME_AS_TIMESTAMP_EXT
    with pytest.raises(MsgpackEncodeError, match="timestamp"):
        packb(aware, option=as_ext)
    assert unpackb(packb(aware.replace(tzinfo=None), option=as_ext)) == "2024-01-02T00:00:00"
    with pytest.raises(MsgpackEncodeError, match="has no JSON form"):
        packb(np.zeros(2), option=OPT_JSON_COMPAT | fastmsgpack.OPT_NUMPY_RAW)


def test_tuple_keys_are_errors() -> None:
    with pytest.raises(MsgpackEncodeError, match="tuple"):
        packb({(1, 2): 3}, option=OPT_JSON_COMPAT | fastmsgpack.OPT_NON_STR_KEYS)


def test_where_orjson_differs() -> None:
    """The exceptions to the property, listed in doc/json.md."""
    # Like orjson, non-str keys are sorted by their text under OPT_JSON_COMPAT.
    both = fastmsgpack.OPT_NON_STR_KEYS | fastmsgpack.OPT_SORT_KEYS
    keyed = {"b": 1, 2: 3, None: 4, 10: 5}
    assert unpackb(packb(keyed, option=OPT_JSON_COMPAT | both)) == orjson.loads(
        orjson.dumps(keyed, option=orjson.OPT_NON_STR_KEYS | orjson.OPT_SORT_KEYS)
    )
    assert list(unpackb(packb(keyed, option=OPT_JSON_COMPAT | both))) == ["10", "2", "b", "null"]
    # orjson's text of a time with microseconds 10000..99999 is one digit short.
    value = dt.time(0, 0, 0, 10000)
    assert unpackb(packb(value, option=OPT_JSON_COMPAT)) == "00:00:00.010000"
    assert orjson.loads(orjson.dumps(value)) == "00:00:00.10000"
