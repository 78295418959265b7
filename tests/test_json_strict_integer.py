"""OPT_STRICT_INTEGER for json.dumps: ints beyond 53 bits raise, as orjson 3.13.0 raises them.

orjson, the oracle, applies the limit to Python ints written as values (subclasses and IntEnum
members too), and not to dict keys under OPT_NON_STR_KEYS nor to numpy integers.
"""

from __future__ import annotations

import enum
from typing import Any

import numpy as np
import orjson
import pytest
from hypothesis import given
from hypothesis import strategies as st

import fastmsgpack
from fastmsgpack.json import (
    OPT_NON_STR_KEYS,
    OPT_SERIALIZE_NUMPY,
    OPT_STRICT_INTEGER,
    JSONEncodeError,
    dumps,
)

LIMIT = 2**53 - 1


class MyInt(int):
    pass


class Big(enum.IntEnum):
    SAFE = LIMIT
    UNSAFE = LIMIT + 1


def orjson_result(value: Any, option: int) -> bytes | None:
    """orjson's output with OPT_STRICT_INTEGER and the orjson flags of ``option``, or None."""
    flags = orjson.OPT_STRICT_INTEGER
    if option & OPT_NON_STR_KEYS:
        flags |= orjson.OPT_NON_STR_KEYS
    if option & OPT_SERIALIZE_NUMPY:
        flags |= orjson.OPT_SERIALIZE_NUMPY
    try:
        return orjson.dumps(value, option=flags)
    except TypeError:
        return None


def assert_like_orjson(value: Any, option: int = 0) -> None:
    expected = orjson_result(value, option)
    if expected is None:
        with pytest.raises(JSONEncodeError, match="53-bit"):
            dumps(value, option=OPT_STRICT_INTEGER | option)
    else:
        assert dumps(value, option=OPT_STRICT_INTEGER | option) == expected


EDGES = [0, 1, -1, LIMIT, LIMIT + 1, -LIMIT, -LIMIT - 1, 2**63 - 1, -(2**63), 2**63, 2**64 - 1]


@pytest.mark.parametrize("value", EDGES)
def test_edges_as_values_lists_and_dict_values(value: int) -> None:
    assert_like_orjson(value)
    assert_like_orjson([1, value, 2])
    assert_like_orjson({"a": value})
    assert_like_orjson(MyInt(value))


def test_the_limit_is_53_bits_either_side() -> None:
    assert (
        dumps([LIMIT, -LIMIT], option=OPT_STRICT_INTEGER) == b"[9007199254740991,-9007199254740991]"
    )
    for value in (LIMIT + 1, -LIMIT - 1, 2**64 - 1):
        with pytest.raises(JSONEncodeError, match="53-bit range of OPT_STRICT_INTEGER"):
            dumps(value, option=OPT_STRICT_INTEGER)
    # Without the option the same values are written.
    assert dumps(LIMIT + 1) == b"9007199254740992"


def test_int_enum_members_follow_their_value() -> None:
    assert_like_orjson(Big.SAFE)
    assert_like_orjson(Big.UNSAFE)


@pytest.mark.parametrize("value", EDGES)
def test_dict_keys_are_not_limited(value: int) -> None:
    assert_like_orjson({value: 1}, OPT_NON_STR_KEYS)
    assert dumps({value: 1}, option=OPT_STRICT_INTEGER | OPT_NON_STR_KEYS) == orjson.dumps(
        {value: 1}, option=orjson.OPT_NON_STR_KEYS
    )


def test_numpy_integers_are_not_limited() -> None:
    values = [np.int64(2**60), np.uint64(2**64 - 1), np.array([2**60, -(2**60)], dtype=np.int64)]
    for value in values:
        assert_like_orjson(value, OPT_SERIALIZE_NUMPY)
        assert dumps(value, option=OPT_STRICT_INTEGER | OPT_SERIALIZE_NUMPY) == orjson.dumps(
            value, option=orjson.OPT_SERIALIZE_NUMPY
        )


def test_ints_beyond_64_bits_keep_their_own_error() -> None:
    with pytest.raises(JSONEncodeError, match="out of range"):
        dumps(2**64, option=OPT_STRICT_INTEGER)


def test_packb_refuses_the_option() -> None:
    with pytest.raises(
        fastmsgpack.MsgpackEncodeError, match="OPT_STRICT_INTEGER not valid for packb"
    ):
        fastmsgpack.packb(1, option=OPT_STRICT_INTEGER)
    with pytest.raises(fastmsgpack.MsgpackDecodeError, match="not valid for unpackb"):
        fastmsgpack.unpackb(b"\x01", option=OPT_STRICT_INTEGER)


@given(st.lists(st.integers(min_value=-(2**63), max_value=2**64 - 1), max_size=8))
def test_any_int_64_like_orjson(values: list[int]) -> None:
    assert_like_orjson(values)
