"""numpy datetime64 with OPT_SERIALIZE_NUMPY: RFC 3339 text under the datetime options (as
ormsgpack writes it), or the timestamp extension with OPT_DATETIME_AS_TIMESTAMP_EXT and
OPT_NAIVE_UTC. NaT and instants outside years 1 to 9999 are errors, in every unit.
"""

from __future__ import annotations

import itertools
from datetime import datetime, timedelta, timezone
from typing import Any

import msgpack  # type: ignore[import-untyped]
import numpy as np
import numpy.typing as npt
import ormsgpack
import pytest
from conftest import examples, fast_option, ormsgpack_option
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import fastmsgpack
from fastmsgpack import OPT_DATETIME_AS_TIMESTAMP_EXT, OPT_SERIALIZE_NUMPY, MsgpackEncodeError

NP = OPT_SERIALIZE_NUMPY
TS = OPT_DATETIME_AS_TIMESTAMP_EXT | fastmsgpack.OPT_NAIVE_UTC | NP
UNITS = ["Y", "M", "W", "D", "h", "m", "s", "ms", "us", "ns"]
TEXT_OPTIONS = ("OPT_NAIVE_UTC", "OPT_OMIT_MICROSECONDS", "OPT_UTC_Z")
OPTION_SETS = [
    names for size in range(4) for names in itertools.combinations(TEXT_OPTIONS, size)
] + [("OPT_DATETIME_AS_TIMESTAMP_EXT",), ("OPT_DATETIME_AS_TIMESTAMP_EXT", "OPT_UTC_Z")]
NAT = -(2**63)
MIN_SECS, MAX_SECS = -62135596800, 253402300799  # 0001-01-01T00:00:00, 9999-12-31T23:59:59
EPOCH = datetime(1970, 1, 1)
SAMPLE = np.array(
    [
        "2024-05-17T12:30:45.123456789",
        "1969-12-31T23:59:59.999999999",
        "1970-01-01",
        "1700-02-28T01:02:03.000001",
        "2262-04-11T23:47:16.854775807",
        "2000-02-29T00:00:00.5",
    ],
    dtype="M8[ns]",
)


def instant(value: int, unit: str) -> tuple[int, int] | None:
    """Seconds since the epoch and nanoseconds of a datetime64 value; None when it has none."""
    if value == NAT:
        return None
    if unit in ("Y", "M"):
        year, month = (1970 + value, 1) if unit == "Y" else (1970 + value // 12, value % 12 + 1)
        if not 1 <= year <= 9999:
            return None
        return (datetime(year, month, 1) - EPOCH).days * 86400, 0
    seconds = {"W": 7 * 86400, "D": 86400, "h": 3600, "m": 60, "s": 1}
    if unit in seconds:
        secs, nanos = value * seconds[unit], 0
    else:
        per_second = {"ms": 10**3, "us": 10**6, "ns": 10**9}[unit]
        secs, fraction = divmod(value, per_second)
        nanos = fraction * (10**9 // per_second)
    return (secs, nanos) if MIN_SECS <= secs <= MAX_SECS else None


def expected_text(secs: int, nanos: int, names: tuple[str, ...]) -> str:
    micros = 0 if "OPT_OMIT_MICROSECONDS" in names else nanos // 1000
    text = (EPOCH + timedelta(seconds=secs, microseconds=micros)).isoformat()
    if "OPT_NAIVE_UTC" in names:
        text += "Z" if "OPT_UTC_Z" in names else "+00:00"
    return text


def timestamp(secs: int, nanos: int) -> bytes:
    return bytes(msgpack.packb(msgpack.Timestamp(secs, nanos)))


# ormsgpack 1.12 (the last release for Python 3.10) aborts the process on some datetime64
# arrays; there the pure-Python reference below is the only oracle.
ORMSGPACK_IS_ORACLE = tuple(int(p) for p in ormsgpack.__version__.split(".")[:2]) >= (1, 13)


def values_of(a: npt.NDArray[Any]) -> list[int]:
    return [int(v) for v in a.astype(a.dtype.newbyteorder("=")).view("i8").ravel()]


@pytest.mark.parametrize("names", OPTION_SETS, ids=["|".join(n) or "none" for n in OPTION_SETS])
@pytest.mark.parametrize("unit", UNITS)
def test_text_like_ormsgpack(unit: str, names: tuple[str, ...]) -> None:
    a = SAMPLE.astype(f"M8[{unit}]").reshape(2, 3)
    option = fast_option(*names)
    packed = fastmsgpack.packb(a, option=NP | option)
    if ORMSGPACK_IS_ORACLE:
        orm_option = ormsgpack.OPT_SERIALIZE_NUMPY | (ormsgpack_option(option) or 0)
        assert packed == ormsgpack.packb(a, option=orm_option)
    expected = [expected_text(*(instant(v, unit) or (0, 0)), names) for v in values_of(a)]
    assert fastmsgpack.unpackb(packed) == np.reshape(expected, (2, 3)).tolist()


def test_text_examples() -> None:
    packed = fastmsgpack.packb(SAMPLE[:2], option=NP)
    assert fastmsgpack.unpackb(packed) == [  # nanoseconds are truncated
        "2024-05-17T12:30:45.123456",
        "1969-12-31T23:59:59.999999",
    ]
    ends = np.array(["0001-01-01", "9999-12-31T23:59:59.999999"], dtype="M8[us]")
    packed = fastmsgpack.packb(ends, option=NP | fastmsgpack.OPT_NAIVE_UTC)
    assert fastmsgpack.unpackb(packed) == [
        "0001-01-01T00:00:00+00:00",
        "9999-12-31T23:59:59.999999+00:00",
    ]
    assert fastmsgpack.packb(np.datetime64("2024-05-17"), option=NP) == fastmsgpack.packb(
        "2024-05-17T00:00:00"
    )
    assert fastmsgpack.packb(np.array(np.datetime64("2024-05", "M")), option=NP) == (
        fastmsgpack.packb("2024-05-01T00:00:00")
    )


@pytest.mark.parametrize("unit", UNITS)
def test_timestamp_extension_keeps_nanoseconds(unit: str) -> None:
    a = SAMPLE.astype(f"M8[{unit}]")
    packed = fastmsgpack.packb(a, option=TS)
    instants = [instant(v, unit) or (0, 0) for v in values_of(a)]
    assert packed == b"\x96" + b"".join(timestamp(*i) for i in instants)
    back = fastmsgpack.unpackb(packed, option=OPT_DATETIME_AS_TIMESTAMP_EXT)
    utc = datetime(1970, 1, 1, tzinfo=timezone.utc)
    assert back == [utc + timedelta(seconds=s, microseconds=n // 1000) for s, n in instants]


def test_timestamp_extension_needs_naive_utc() -> None:
    a = SAMPLE[:1]
    text = fastmsgpack.packb(a, option=NP)
    assert fastmsgpack.packb(a, option=NP | OPT_DATETIME_AS_TIMESTAMP_EXT) == text
    assert fastmsgpack.packb(np.datetime64(1, "ns"), option=TS) == timestamp(0, 1)
    assert fastmsgpack.packb(np.datetime64(-1, "ns"), option=TS) == timestamp(-1, 999_999_999)


@pytest.mark.parametrize("option", [NP, TS])
def test_nat_is_an_error(option: int) -> None:
    for unit in UNITS:
        for value in [
            np.array("NaT", dtype=f"M8[{unit}]")[()],
            np.array(["2024-01-01", "NaT"], dtype=f"M8[{unit}]"),
            {"a": [np.array([["NaT"]], dtype=f">M8[{unit}]")]},
        ]:
            with pytest.raises(MsgpackEncodeError, match="NaT"):
                fastmsgpack.packb(value, option=option, default=str)


# The last value inside years 1 to 9999 at each end, in each unit (first, last).
LIMITS = {
    "Y": (-1969, 8029),
    "M": (-1969 * 12, 8030 * 12 - 1),
    "W": (-(-MIN_SECS // 604800), MAX_SECS // 604800),
    "D": (MIN_SECS // 86400, MAX_SECS // 86400),
    "h": (MIN_SECS // 3600, MAX_SECS // 3600),
    "m": (MIN_SECS // 60, MAX_SECS // 60),
    "s": (MIN_SECS, MAX_SECS),
    "ms": (MIN_SECS * 10**3, MAX_SECS * 10**3 + 999),
    "us": (MIN_SECS * 10**6, MAX_SECS * 10**6 + 999_999),
}


@pytest.mark.parametrize("option", [NP, TS])
@pytest.mark.parametrize("unit", LIMITS)
def test_years_1_to_9999(unit: str, option: int) -> None:
    first, last = LIMITS[unit]
    for value in (first, last):
        assert instant(value, unit) is not None
        a = np.array([value], dtype=f"M8[{unit}]")
        assert fastmsgpack.packb(a, option=option)
    for value in (first - 1, last + 1, NAT + 1, 2**63 - 1):
        assert instant(value, unit) is None
        with pytest.raises(MsgpackEncodeError, match="outside years 1 to 9999"):
            fastmsgpack.packb(np.array([value], dtype=f">M8[{unit}]"), option=option)


def test_every_nanosecond_value_packs() -> None:
    extremes = np.array([NAT + 1, 2**63 - 1], dtype="M8[ns]")
    assert fastmsgpack.unpackb(fastmsgpack.packb(extremes, option=NP)) == [
        "1677-09-21T00:12:43.145224",
        "2262-04-11T23:47:16.854775",
    ]


def test_layouts_and_scalars() -> None:
    # tolist() gives datetime.datetime objects, which pack as the same text.
    native = SAMPLE.astype("M8[us]").reshape(2, 3)
    big = native.astype(">M8[us]")
    for a in [native, big, np.asfortranarray(big), big.T[::-1], native[::-1, ::-2], big[:, 1:2]]:
        assert fastmsgpack.packb(a, option=NP) == fastmsgpack.packb(a.tolist())
    for value in SAMPLE.astype(">M8[ms]"):
        assert fastmsgpack.packb(value, option=NP) == fastmsgpack.packb(value.item(), option=0)


def test_units_without_text_go_to_default() -> None:
    for dtype in ["M8", "M8[ps]", "M8[fs]", "M8[as]", "M8[2s]", "m8[s]"]:
        a = np.array(["NaT"], dtype=dtype) if dtype == "M8" else np.zeros(2, dtype=dtype)
        with pytest.raises(MsgpackEncodeError, match="numpy dtype"):
            fastmsgpack.packb(a, option=NP)
        assert fastmsgpack.packb(a, option=NP, default=lambda _: None) == b"\xc0"


VALID = {**LIMITS, "ns": (NAT + 1, 2**63 - 1)}


def int64s(unit: str) -> st.SearchStrategy[int]:
    """Mostly values inside years 1 to 9999 for the unit, some outside, some NaT."""
    first, last = VALID[unit]
    near = st.integers(max(first - 3, NAT), min(last + 3, 2**63 - 1))
    return st.one_of(near, near, near, st.integers(NAT, 2**63 - 1), st.just(NAT))


@settings(
    max_examples=examples(100),
    derandomize=True,
    database=None,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow],
)
@given(
    st.sampled_from(UNITS).flatmap(
        lambda unit: st.tuples(st.just(unit), st.lists(int64s(unit), min_size=1, max_size=5))
    ),
    st.sampled_from("<>"),
    st.sampled_from([*OPTION_SETS, ("OPT_NAIVE_UTC", "OPT_DATETIME_AS_TIMESTAMP_EXT")]),
)
def test_random_values(
    unit_values: tuple[str, list[int]], order: str, names: tuple[str, ...]
) -> None:
    unit, values = unit_values
    a = np.array(values, dtype=f"{order}i8").view(f"{order}M8[{unit}]")
    option = NP | fast_option(*names)
    instants = [instant(v, unit) for v in values]
    if None in instants:
        with pytest.raises(MsgpackEncodeError):
            fastmsgpack.packb(a, option=option)
        return
    packed = fastmsgpack.packb(a, option=option)
    ok = [i for i in instants if i is not None]
    if len(names) == 2 and "OPT_DATETIME_AS_TIMESTAMP_EXT" in names and "OPT_NAIVE_UTC" in names:
        expected = bytes([0x90 + len(ok)]) + b"".join(timestamp(*i) for i in ok)
    else:
        expected = fastmsgpack.packb([expected_text(*i, names) for i in ok])
    assert packed == expected
