"""OPT_NUMPY_RAW: numpy arrays and scalars as msgpack-numpy's map of dtype, shape and raw bytes,
byte for byte as msgpack-numpy writes them, read back by both libraries; unpackb builds arrays
over the input (read-only for bytes, a writable copy otherwise) and refuses malformed maps.
"""

from __future__ import annotations

from typing import Any

import msgpack  # type: ignore[import-untyped]
import msgpack_numpy  # type: ignore[import-untyped]
import numpy as np
import numpy.typing as npt
import pytest
from conftest import examples
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

import fastmsgpack
from fastmsgpack import (
    OPT_NON_STR_KEYS,
    OPT_NUMPY_RAW,
    OPT_SERIALIZE_NUMPY,
    MsgpackDecodeError,
    MsgpackEncodeError,
)

RAW = OPT_NUMPY_RAW


def assert_identical(actual: Any, expected: Any) -> None:
    """Same type, dtype (byte order included), shape and bytes (NaN bits included)."""
    assert type(actual) is type(expected)
    assert actual.dtype == expected.dtype and actual.dtype.str == expected.dtype.str
    assert np.shape(actual) == np.shape(expected)
    assert np.asarray(actual).tobytes() == np.asarray(expected).tobytes()


def test_wire_layout() -> None:
    a = np.arange(3, dtype=">i2").reshape(1, 3)
    assert fastmsgpack.packb(a, option=RAW) == (
        b"\x85\xc4\x02nd\xc3\xc4\x04type\xa3>i2\xc4\x04kind\xc4\x00"
        b"\xc4\x05shape\x92\x01\x03\xc4\x04data\xc4\x06\x00\x00\x00\x01\x00\x02"
    )
    assert fastmsgpack.packb(np.float32(1.5), option=RAW) == (
        b"\x83\xc4\x02nd\xc2\xc4\x04type\xa3<f4\xc4\x04data\xc4\x04\x00\x00\xc0?"
    )
    # OPT_NUMPY_RAW takes precedence over OPT_SERIALIZE_NUMPY.
    assert fastmsgpack.packb(a, option=RAW | OPT_SERIALIZE_NUMPY) == fastmsgpack.packb(
        a, option=RAW
    )


base = np.arange(-12, 12).reshape(2, 3, 4)
CODES = ["?", "i1", "u1", "<i2", ">i2", "<i4", ">u4", "<i8", ">u8", "<f2", ">f4", "<f8", ">f8"]
EXTRA = ["<c8", ">c16", "<f16", "<U3", ">U3", "|S2"]
ARRAYS: dict[str, npt.NDArray[Any]] = {code: base.astype(code) for code in CODES + EXTRA}
ARRAYS.update(
    {
        "fortran": np.asfortranarray(base.astype(">f8")),
        "transposed": base.T,
        "negative strides": base.astype("<u2")[::-1, :, ::-2],
        "broadcast": np.broadcast_to(np.arange(3.0), (2, 3)),
        "0-d": np.array(2**40, dtype=">i8"),
        "empty": np.zeros((2, 0, 3), "<c16"),
        "special floats": np.array([np.nan, -0.0, np.inf, 5e-324]),
    }
)


@pytest.mark.parametrize("a", ARRAYS.values(), ids=ARRAYS.keys())
def test_like_msgpack_numpy_both_ways(a: npt.NDArray[Any]) -> None:
    packed = fastmsgpack.packb(a, option=RAW)
    assert packed == msgpack_numpy.packb(a)
    assert_identical(msgpack_numpy.unpackb(packed), a)
    assert_identical(fastmsgpack.unpackb(msgpack_numpy.packb(a), option=RAW), a)
    assert_identical(fastmsgpack.unpackb(packed, option=RAW), a)


@pytest.mark.parametrize("dtype", ["<M8[ns]", ">M8[D]", "<m8", "<m8[us]", ">m8[Y]"])
def test_datetime64_and_timedelta64(dtype: str) -> None:
    # msgpack-numpy cannot pack these arrays, but it reads what fastmsgpack writes.
    a = np.arange(-3, 3, dtype="i8").astype(dtype[0] + "i8").view(dtype).reshape(2, 3)[:, ::-1]
    packed = fastmsgpack.packb(a, option=RAW)
    type_str = bytes([0xA0 + len(dtype)]) + dtype.encode()
    assert packed.startswith(b"\x85\xc4\x02nd\xc3\xc4\x04type" + type_str + b"\xc4\x04kind")
    assert_identical(msgpack_numpy.unpackb(packed), a)
    assert_identical(fastmsgpack.unpackb(packed, option=RAW), a)


SCALARS = [np.int8(-5), np.uint64(2**64 - 1), np.float16(0.5), np.float32(np.nan), np.bool_(1)]
SCALARS += [np.complex64(1j), np.timedelta64(3, "ms")]


@pytest.mark.parametrize("value", SCALARS, ids=lambda v: type(v).__name__)
def test_scalars(value: Any) -> None:
    packed = fastmsgpack.packb(value, option=RAW)
    assert packed.startswith(b"\x83\xc4\x02nd\xc2")
    assert packed == msgpack_numpy.packb(value)
    assert_identical(fastmsgpack.unpackb(packed, option=RAW), value)


@pytest.mark.parametrize("value", [np.float64(2.5), np.str_("ab"), np.bytes_(b"x")])
def test_scalars_of_builtin_subclasses(value: Any) -> None:
    # Like msgpack-numpy, these pack as the float, str and bytes they subclass.
    packed = fastmsgpack.packb([value], option=RAW)
    assert packed == msgpack_numpy.packb([value])
    base = type(value).__mro__[1] if not isinstance(value, float) else float
    assert fastmsgpack.unpackb(packed, option=RAW) == [base(value)]


@pytest.mark.parametrize(
    "a", [np.array([1, None]), np.zeros(2, dtype=[("a", "<i4")]), np.zeros(2, "V4")]
)
def test_object_and_structured_dtypes_go_to_default(a: npt.NDArray[Any]) -> None:
    with pytest.raises(MsgpackEncodeError, match="numpy dtype"):
        fastmsgpack.packb(a, option=RAW)
    assert fastmsgpack.packb(a, option=RAW, default=lambda _: None) == b"\xc0"


def test_structured_arrays_from_msgpack_numpy_are_refused() -> None:
    packed = msgpack_numpy.packb(np.zeros(2, dtype=[("a", "<i4"), ("b", "<f8")]))
    with pytest.raises(MsgpackDecodeError, match="structured"):
        fastmsgpack.unpackb(packed, option=RAW)


def test_bytes_input_gives_read_only_views() -> None:
    data = fastmsgpack.packb({"a": np.arange(1000, dtype="<i4")}, option=RAW)
    a = fastmsgpack.unpackb(data, option=RAW)["a"]
    assert not a.flags.writeable
    assert np.shares_memory(a, np.frombuffer(data, dtype="u1"))
    with pytest.raises(ValueError):
        a[0] = 1


@pytest.mark.parametrize("kind", [bytearray, memoryview])
def test_other_inputs_give_writable_copies(kind: Any) -> None:
    buffer = bytearray(fastmsgpack.packb(np.arange(4, dtype="<i4"), option=RAW))
    a = fastmsgpack.unpackb(kind(buffer), option=RAW)
    assert a.flags.writeable
    buffer[-16:] = bytes(16)
    a[0] = 10
    assert a.tolist() == [10, 1, 2, 3]


GOOD = {b"nd": True, b"type": "<i4", b"kind": b"", b"shape": [2, 3], b"data": bytes(24)}
MALFORMED = {
    "unknown dtype": {b"type": "<i9"},
    "dtype not a string": {b"type": 4},
    "object dtype": {b"type": "|O", b"data": bytes(48)},
    "structured dtype": {b"type": [["a", "<i4"]]},
    "zero itemsize": {b"type": "<U0", b"data": b""},
    "data too short": {b"data": bytes(23)},
    "data too long": {b"data": bytes(25)},
    "data not bin": {b"data": "x" * 24},
    "shape too large": {b"shape": [2**40, 2**40]},
    "shape too large for numpy": {b"shape": [2**63 + 5, 0], b"data": b""},
    "negative shape": {b"shape": [-2, -3]},
    "shape of floats": {b"shape": [2.0, 3.0]},
    "shape not an array": {b"shape": 6},
    "nd an int": {b"nd": 1},
    "nd nil": {b"nd": None},
    "scalar of array data": {b"nd": False},
    "kind not empty": {b"kind": b"V"},
    "kind a str": {b"kind": ""},
}


@pytest.mark.parametrize("change", MALFORMED.values(), ids=MALFORMED.keys())
def test_malformed_maps(change: dict[bytes, Any]) -> None:
    packed = msgpack.packb([{**GOOD, **change}], use_bin_type=True)
    with pytest.raises(MsgpackDecodeError) as info:
        fastmsgpack.unpackb(packed, option=RAW)
    assert "OPT_NON_STR_KEYS" not in str(info.value)  # refused as an array, not as a map


def raw_map(type_str: str, data: bytes, nd: bool) -> bytes:
    """A raw map built by hand: an array of the items in `data` (1-d), or a scalar."""
    if nd:
        count = len(data) // np.dtype(type_str).itemsize
        fields = {b"nd": True, b"type": type_str, b"kind": b"", b"shape": [count], b"data": data}
    else:
        fields = {b"nd": False, b"type": type_str, b"data": data}
    return bytes(msgpack.packb(fields, use_bin_type=True))


def assert_refused(packed: bytes, field: str) -> str:
    with pytest.raises(MsgpackDecodeError) as info:
        fastmsgpack.unpackb(packed, option=RAW)
    message = str(info.value)
    assert f"'{field}'" in message and "empty" not in message
    assert info.value.__cause__ is None  # found by fastmsgpack, not by numpy failing
    return message


# Sub-array, structured and void dtypes: numpy.dtype() accepts their strings, but packb refuses
# these arrays and their raw bytes would change the shape (a sub-array) or give records.
@pytest.mark.parametrize("type_str", ["(2,)<i4", "(1,)i1", "i4,i4", "<i2,(2,)<f8", "|V4", "|V1"])
@pytest.mark.parametrize("nd", [True, False], ids=["array", "scalar"])
def test_structured_void_and_sub_array_types_are_refused(type_str: str, nd: bool) -> None:
    data = bytes(np.dtype(type_str).itemsize * (3 if nd else 1))
    assert_refused(raw_map(type_str, data, nd), "type")


def utf32(code_points: list[int], order: str) -> bytes:
    return b"".join(c.to_bytes(4, "little" if order == "<" else "big") for c in code_points)


# numpy turns each UCS-4 code unit into a Python str character: surrogates are fine, values
# above U+10FFFF make .tolist(), str() and item access raise SystemError.
@pytest.mark.parametrize("order", ["<", ">"])
@pytest.mark.parametrize("nd", [True, False], ids=["array", "scalar"])
def test_str_data_holds_code_points(order: str, nd: bool) -> None:
    fine = [0x41, 0, 0xD800, 0xDFFF, 0x10FFFF, 0xE9]
    width = len(fine) if nd else 3
    type_str = f"{order}U{width}"
    good = utf32(fine[:width], order)
    expected = np.frombuffer(good, dtype=type_str)
    back = fastmsgpack.unpackb(raw_map(type_str, good, nd), option=RAW)
    assert_identical(back, expected if nd else expected[0])
    assert (back.tolist() if nd else str(back)) == (expected.tolist() if nd else str(expected[0]))
    for bad in (0x110000, 0x7FFFFFFF, 0x80000000, 0xFFFFFFFF):
        for at in (0, width - 1):
            points = [0x41] * width
            points[at] = bad
            data = utf32(points, order) * (2 if nd else 1)
            assert "code point" in assert_refused(raw_map(type_str, data, nd), "data")


@pytest.mark.parametrize("nd", [True, False], ids=["array", "scalar"])
def test_bool_data_is_0_or_1(nd: bool) -> None:
    good = bytes([0, 1, 1]) if nd else b"\x01"
    back = fastmsgpack.unpackb(raw_map("|b1", good, nd), option=RAW)
    assert_identical(back, np.frombuffer(good, dtype="?") if nd else np.True_)
    for bad in (2, 0x80, 0xFF):
        data = bytes([0, 1, bad]) if nd else bytes([bad])
        assert_refused(raw_map("|b1", data, nd), "data")
        assert_refused(raw_map("?", data, nd), "data")


NAT = np.datetime64("NaT")


@pytest.mark.parametrize("order", ["<", ">"])
@pytest.mark.parametrize("nd", [True, False], ids=["array", "scalar"])
def test_datetime64_without_a_unit_is_nat_only(order: str, nd: bool) -> None:
    # numpy cannot convert a unitless datetime64 other than NaT (item access raises, .tolist()
    # gives None); NaT is unitless (np.datetime64("NaT")), and a unitless timedelta64 is fine.
    type_str = f"{order}M8"
    nats = np.full(3 if nd else 1, np.iinfo("i8").min, dtype=f"{order}i8")
    expected = np.frombuffer(nats.tobytes(), dtype=type_str)
    back = fastmsgpack.unpackb(raw_map(type_str, nats.tobytes(), nd), option=RAW)
    assert_identical(back, expected if nd else expected[0])
    for value in (0, 1, -1, 2**63 - 1, -(2**63) + 1):
        values = nats.copy()
        values[-1] = value
        assert_refused(raw_map(type_str, values.tobytes(), nd), "data")
    deltas = np.array([-1, 0, 5], dtype=f"{order}i8").view(f"{order}m8")
    back = fastmsgpack.unpackb(raw_map(f"{order}m8", deltas.tobytes(), True), option=RAW)
    assert_identical(back, deltas)
    for scalar in (np.timedelta64(5), NAT):
        packed = fastmsgpack.packb(scalar, option=RAW)
        assert_identical(fastmsgpack.unpackb(packed, option=RAW), scalar)


def test_map_keys_must_be_known_bin() -> None:
    # A map of 3 or 5 entries whose first key is bin "nd" is taken for a raw array.
    renamed = {(b"other" if k == b"kind" else k): v for k, v in GOOD.items()}
    for value in ({b"nd": True, b"x": 1, b"y": 2}, renamed):
        with pytest.raises(MsgpackDecodeError, match="unexpected key"):
            fastmsgpack.unpackb(msgpack.packb(value, use_bin_type=True), option=RAW)
    packed = msgpack.packb({b"nd": True, b"type": "<i4", b"data": "x"}, use_bin_type=True)
    with pytest.raises(MsgpackDecodeError, match="must be bin"):
        fastmsgpack.unpackb(packed, option=RAW)


def test_other_maps_are_unaffected() -> None:
    maps: list[Any] = [
        {"nd": True, "type": "<i4", "kind": b"", "shape": [1], "data": bytes(4)},
        {b"type": "<i4", b"nd": True, b"kind": b"", b"shape": [1], b"data": bytes(4)},
        {b"nd": True, b"type": "<i4", b"shape": [1], b"data": bytes(4)},
        {b"nd": 1},
        {},
    ]
    for value in maps:
        packed = msgpack.packb(value, use_bin_type=True)
        assert fastmsgpack.unpackb(packed, option=RAW | OPT_NON_STR_KEYS) == value
    # Without the option a raw array is a plain map with bin keys.
    packed = fastmsgpack.packb(np.arange(6, dtype="<i4").reshape(2, 3), option=RAW)
    assert fastmsgpack.unpackb(packed, option=OPT_NON_STR_KEYS) == {
        **GOOD,
        b"data": bytes(np.arange(6, dtype="<i4")),
    }
    with pytest.raises(MsgpackDecodeError, match="OPT_NON_STR_KEYS"):
        fastmsgpack.unpackb(packed)


raw_dtypes = st.one_of(
    hnp.scalar_dtypes(),
    hnp.integer_dtypes(endianness="?"),
    hnp.floating_dtypes(endianness="?"),
    hnp.complex_number_dtypes(endianness="?"),
    hnp.unicode_string_dtypes(endianness="?"),
    hnp.byte_string_dtypes(),
    hnp.datetime64_dtypes(endianness="?"),
    hnp.timedelta64_dtypes(endianness="?"),
)
raw_arrays = hnp.arrays(raw_dtypes, hnp.array_shapes(min_dims=0, max_dims=4, min_side=0))


@settings(
    max_examples=examples(100),
    derandomize=True,
    database=None,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow],
)
@given(raw_arrays, st.booleans(), st.sampled_from([bytes, bytearray]))
def test_random_arrays_round_trip(a: npt.NDArray[Any], reverse: bool, kind: Any) -> None:
    if reverse and a.ndim:
        a = a[::-1].T
    packed = fastmsgpack.packb([a], option=RAW)
    assert_identical(fastmsgpack.unpackb(kind(packed), option=RAW)[0], a)
    assert_identical(msgpack_numpy.unpackb(packed)[0], np.array(a, order="C"))
    if a.dtype.kind not in "mM":
        assert packed[1:] == msgpack_numpy.packb(a)
