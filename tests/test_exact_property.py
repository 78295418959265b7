"""Property tests of OPT_EXACT: for values of every exact type, nested in the plain containers,
unpackb(packb(x, option=OPT_EXACT), option=OPT_EXACT) has the type and the value of x, all the
way down (scripts/fuzz_exact.same_exact compares them). Deterministic: derandomize=True and no
example database."""

from __future__ import annotations

import datetime as dt
import decimal
import importlib
import sys
import uuid
import zoneinfo
from pathlib import Path
from typing import Any

import numpy as np
from conftest import examples
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

import fastmsgpack
from fastmsgpack import OPT_EXACT

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "scripts"))
# Failing examples may hold integers of up to 32767 bits: let hypothesis print them.
if hasattr(sys, "set_int_max_str_digits"):
    sys.set_int_max_str_digits(0)
fuzz_exact: Any = importlib.import_module("fuzz_exact")

PROPERTY = settings(
    max_examples=examples(250),
    derandomize=True,
    database=None,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)

ZONES = ["UTC", "Europe/Paris", "America/New_York", "Asia/Kolkata", "Australia/Lord_Howe"]
offsets = st.timedeltas(
    min_value=dt.timedelta(hours=-23, minutes=-59, seconds=-59, microseconds=-999999),
    max_value=dt.timedelta(hours=23, minutes=59, seconds=59, microseconds=999999),
)
tzinfos = st.one_of(
    st.none(),
    st.just(dt.timezone.utc),
    offsets.map(dt.timezone),
    st.builds(dt.timezone, offsets, st.text(max_size=8)),
    st.sampled_from(ZONES).map(zoneinfo.ZoneInfo),
)
datetimes = st.builds(
    lambda d, tz, fold: d.replace(tzinfo=tz, fold=fold), st.datetimes(), tzinfos, st.integers(0, 1)
)
times = st.builds(
    lambda t, tz, fold: t.replace(tzinfo=tz, fold=fold), st.times(), tzinfos, st.integers(0, 1)
)
big_ints = st.one_of(
    st.integers(min_value=2**64, max_value=2**600),
    st.integers(max_value=-(2**63) - 1, min_value=-(2**600)),
    st.sampled_from([2**64, -(2**63) - 1, 2**32767 - 1, -(2**32767)]),
)
decimals = st.one_of(
    st.decimals(allow_nan=True, allow_infinity=True, places=None),
    st.builds(
        lambda sign, digits, exp: decimal.Decimal((sign, digits, exp)),
        st.integers(0, 1),
        st.lists(st.integers(0, 9), min_size=1, max_size=60).map(tuple),
        st.integers(-999_999_999 + 60, 999_999_999 - 60),
    ),
    st.sampled_from(["NaN", "-NaN12", "sNaN", "-sNaN0", "-0", "0E-7", "-Infinity"]).map(
        decimal.Decimal
    ),
)
numpy_values = st.one_of(
    hnp.arrays(
        st.sampled_from(["<i4", ">i2", "<f8", "|b1", "<c16", "<U3", "|S2", "<M8[s]"]).map(np.dtype),
        hnp.array_shapes(min_dims=0, max_dims=3, max_side=4),
    ),
    st.sampled_from([np.float32(1.5), np.int8(-3), np.uint64(2**64 - 1), np.bool_(True)]),
)
exact_scalars = st.one_of(
    big_ints,
    st.complex_numbers(allow_nan=True, allow_infinity=True),
    datetimes,
    st.dates(),
    times,
    st.timedeltas(),
    st.uuids(),
    decimals,
    st.binary(max_size=20).map(bytearray),
    numpy_values,
)
plain_scalars = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(-(2**63), 2**64 - 1),
    st.floats(),
    st.text(max_size=10),
    st.binary(max_size=10),
)
hashables = st.recursive(
    st.one_of(
        st.none(),
        st.integers(),
        st.text(max_size=5),
        st.uuids(),
        st.dates(),
        decimals.filter(lambda d: not d.is_nan()),
    ),
    lambda inner: st.one_of(
        st.lists(inner, max_size=3).map(tuple), st.frozensets(inner, max_size=3)
    ),
    max_leaves=8,
)
values = st.recursive(
    st.one_of(plain_scalars, exact_scalars),
    lambda inner: st.one_of(
        st.lists(inner, max_size=5),
        st.lists(inner, max_size=5).map(tuple),
        st.sets(hashables, max_size=5),
        st.frozensets(hashables, max_size=5),
        st.dictionaries(st.one_of(st.text(max_size=5), hashables), inner, max_size=5),
    ),
    max_leaves=20,
)


def round_trip(value: Any) -> Any:
    return fastmsgpack.unpackb(fastmsgpack.packb(value, option=OPT_EXACT), option=OPT_EXACT)


@PROPERTY
@given(exact_scalars)
def test_each_exact_type_comes_back_as_itself(value: Any) -> None:
    back = round_trip(value)
    assert fuzz_exact.same_exact(back, value), (value, back)


@PROPERTY
@given(values)
def test_nested_values_come_back_as_themselves(value: Any) -> None:
    back = round_trip(value)
    assert fuzz_exact.same_exact(back, value), (value, back)


@PROPERTY
@given(values)
def test_streams_and_packer_agree_with_packb(value: Any) -> None:
    packed = fastmsgpack.packb(value, option=OPT_EXACT)
    assert fastmsgpack.Packer(option=OPT_EXACT).pack(value) == packed
    unpacker = fastmsgpack.Unpacker(option=OPT_EXACT)
    unpacker.feed(packed * 2)
    first, second = list(unpacker)
    assert fuzz_exact.same_exact(first, value) and fuzz_exact.same_exact(second, value)


@PROPERTY
@given(st.lists(st.one_of(datetimes, st.uuids(), decimals, big_ints), max_size=5))
def test_readers_without_the_option_see_ext(value: list[Any]) -> None:
    seen = fastmsgpack.unpackb(fastmsgpack.packb(value, option=OPT_EXACT))
    assert [type(v) for v in seen] == [fastmsgpack.Ext] * len(value)
    assert all(-128 <= v.tag <= -116 for v in seen)


def test_a_uuid_is_rebuilt_fully() -> None:
    u = uuid.UUID("12345678-1234-5678-1234-567812345678")
    back = round_trip(u)
    assert back.is_safe is uuid.SafeUUID.unknown and back.hex == u.hex and hash(back) == hash(u)
