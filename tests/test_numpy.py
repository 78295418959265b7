"""numpy arrays and scalars with OPT_SERIALIZE_NUMPY: nested arrays of values, byte for byte as
ormsgpack writes them where ormsgpack is right, and the true values for every layout (byte order,
Fortran order, strides) where it is not. datetime64 is in test_numpy_datetime.py, the raw form
(OPT_NUMPY_RAW) in test_numpy_raw.py.
"""

from __future__ import annotations

import re
import subprocess
import sys
import textwrap
from typing import Any

import numpy as np
import numpy.typing as npt
import ormsgpack
import pytest
from conftest import Format, assert_same, examples
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

import fastmsgpack
from fastmsgpack import OPT_SERIALIZE_NUMPY, MsgpackEncodeError

NP = OPT_SERIALIZE_NUMPY
PLAIN_DTYPES = ["?", "i1", "i2", "i4", "i8", "u1", "u2", "u4", "u8", "f2", "f4", "f8"]


def orm(obj: Any) -> bytes:
    return ormsgpack.packb(obj, option=ormsgpack.OPT_SERIALIZE_NUMPY)


def edge_values(dtype: np.dtype[Any]) -> npt.NDArray[Any]:
    """The extremes of an integer dtype, or the special values of a float dtype."""
    if dtype.kind == "b":
        return np.array([True, False, True], dtype=dtype)
    if dtype.kind in "iu":
        info = np.iinfo(dtype)
        ints = [info.min, info.min + 1, -33, -32, 0, 1, 127, 128, 255, 256, 65536, info.max]
        return np.array([i for i in ints if info.min <= i <= info.max], dtype=dtype)
    finfo = np.finfo(dtype)
    specials = [0.0, -0.0, 1.5, np.nan, np.inf, -np.inf]
    return np.array([*specials, finfo.max, finfo.min, finfo.smallest_subnormal], dtype=dtype)


def contiguous_native(a: npt.NDArray[Any]) -> npt.NDArray[Any]:
    """The same values in a C-contiguous array of native byte order, which ormsgpack packs right."""
    return np.array(a, dtype=a.dtype.newbyteorder("="), order="C")


@pytest.mark.parametrize("code", PLAIN_DTYPES)
@pytest.mark.parametrize("shape", [(9,), (3, 3), (1, 3, 3), (0,), (2, 0, 3)])
def test_arrays_pack_like_ormsgpack(code: str, shape: tuple[int, ...]) -> None:
    values = edge_values(np.dtype(code))
    a = np.resize(values, shape) if values.size else values
    packed = fastmsgpack.packb(a, option=NP)
    assert packed == orm(a)
    assert_same(fastmsgpack.unpackb(packed), a.tolist())


@pytest.mark.parametrize("code", PLAIN_DTYPES)
def test_scalars_and_0d_arrays_pack_as_their_value(code: str) -> None:
    for value in edge_values(np.dtype(code)):
        assert fastmsgpack.packb(value, option=NP) == orm(value)
        assert fastmsgpack.packb(np.array(value), option=NP) == orm(value)
        assert_same(fastmsgpack.unpackb(fastmsgpack.packb(value, option=NP)), value.item())


@pytest.mark.parametrize("code", ["<i2", ">i2", "<i4", ">i4", "<i8", "<u2", "<u4", "|u1", "|i1"])
def test_integer_arrays_of_every_width_pack_like_ormsgpack(code: str) -> None:
    # Values of every MessagePack width and both signs, in random order (signed int16 and int32
    # arrays take their own branch-free writer).
    dtype = np.dtype(code)
    info = np.iinfo(dtype)
    rng = np.random.default_rng(5)
    bits = rng.integers(0, info.bits, 5000)
    magnitude = rng.integers(0, 2**62, 5000, dtype=np.int64) >> (62 - bits)
    sign = rng.choice([-1, 1], 5000) if info.min < 0 else 1
    values = np.clip(magnitude * sign, info.min, info.max)
    a = np.concatenate([values, edge_values(dtype).astype(np.int64)]).astype(dtype)
    assert fastmsgpack.packb(a, option=NP) == orm(a.astype(dtype.newbyteorder("=")))
    assert_same(fastmsgpack.unpackb(fastmsgpack.packb(a, option=NP)), a.tolist())


# Every fixed-size numeric scalar type by each of its names (several names can be one type).
SCALAR_TYPE_NAMES = [
    "bool_", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64",
    "float16", "float32", "float64", "byte", "ubyte", "short", "ushort", "intc", "uintc",
    "long", "ulong", "longlong", "ulonglong", "intp", "uintp", "half", "single", "double",
]  # fmt: skip


@pytest.mark.parametrize("name", SCALAR_TYPE_NAMES)
def test_every_scalar_type_packs_as_its_array_element(name: str, fmt: Format) -> None:
    ty = getattr(np, name)
    values = edge_values(np.dtype(ty))
    scalars = [ty(v) for v in values]
    assert all(type(s) is ty for s in scalars)
    # The array path reads the same values from the array's buffer.
    assert fmt.encode(scalars, option=NP) == fmt.encode(values, option=NP)
    # ormsgpack 1.13.1 refuses np.longlong and np.ulonglong, distinct types from np.int64 and
    # np.uint64 on Linux.
    if fmt.name == "msgpack" and name not in ("longlong", "ulonglong"):
        assert fmt.encode(scalars, option=NP) == orm(scalars)


class Int64Subclass(np.int64):
    pass


class Float32Subclass(np.float32):
    pass


def test_scalar_subclasses_pack_their_value(fmt: Format) -> None:
    for value, plain in [
        (Int64Subclass(-5), np.int64(-5)),
        (Float32Subclass(0.1), np.float32(0.1)),
    ]:
        assert fmt.encode([value, value], option=NP) == fmt.encode([plain, plain], option=NP)


def test_float_widths() -> None:
    # float16 and float32 are written as float 32, bit for bit; float64 as float 64.
    f32_bits = np.array([0x7F800001, 0x3DCCCCCD], dtype="<u4").view("<f4")
    assert fastmsgpack.packb(f32_bits, option=NP) == bytes.fromhex("92ca7f800001ca3dcccccd")
    assert fastmsgpack.packb(np.float16(1.5), option=NP) == bytes.fromhex("ca3fc00000")
    assert fastmsgpack.packb(np.float64(0.1), option=NP) == bytes.fromhex("cb3fb999999999999a")
    assert fastmsgpack.packb(np.array([2**64 - 1, 5], "u8"), option=NP) == bytes.fromhex(
        "92cfffffffffffffffff05"
    )


LAYOUTS: dict[str, npt.NDArray[Any]] = {
    "big-endian i4": np.arange(-5, 7, dtype=">i4").reshape(3, 4),
    "big-endian f2": np.linspace(-2, 2, 6, dtype=">f2"),
    "big-endian f4": np.array([0.1, -np.inf, 3e38], dtype=">f4"),
    "big-endian f8": np.array([0.1, -0.0, 1e308], dtype=">f8"),
    "big-endian u8": np.array([2**64 - 1, 1, 2**32], dtype=">u8"),
    "fortran": np.asfortranarray(np.arange(24, dtype="<i8").reshape(2, 3, 4)),
    "fortran big-endian": np.asfortranarray(np.arange(12, dtype=">u2").reshape(3, 4)),
    "transposed": np.arange(12, dtype="f8").reshape(3, 4).T,
    "step 3": np.arange(20, dtype="i2")[::3],
    "negative stride": np.arange(10, dtype=">i8")[::-1],
    "negative 2d": np.arange(30, dtype="f4").reshape(5, 6)[::-2, ::-3],
    "3d slice": np.arange(60, dtype="<u2").reshape(3, 4, 5)[::2, 1::-1, ::3],
    "broadcast": np.broadcast_to(np.arange(3, dtype="i1"), (4, 3)),
    "unaligned": np.zeros(41, "u1")[1:].view("<f8") + 0.5,
    "empty strided": np.zeros((0, 3), "f8")[:, ::-1],
    "deep": np.zeros((1,) * 32, "u1"),
    "0-d big-endian": np.array(-7, dtype=">i4"),
    "0-d float32": np.array(0.1, dtype="f4"),
}


@pytest.mark.parametrize("a", LAYOUTS.values(), ids=LAYOUTS.keys())
def test_any_layout_packs_its_true_values(a: npt.NDArray[Any]) -> None:
    # ormsgpack misreads big-endian arrays and refuses other layouts: compare with its bytes for
    # the same values in a contiguous native array, and with tolist().
    packed = fastmsgpack.packb(a, option=NP)
    native = contiguous_native(a)
    assert packed == (orm(native) if native.ndim else orm(native[()]))
    assert_same(fastmsgpack.unpackb(packed), a.tolist())


def test_read_only_array() -> None:
    a = np.arange(4)
    a.flags.writeable = False
    assert fastmsgpack.packb(a, option=NP) == orm(np.arange(4))


def never(obj: Any) -> Any:
    raise AssertionError(f"default called for {obj!r}")


def test_arrays_and_scalars_inside_containers() -> None:
    value = {"a": np.arange(3, dtype="u1"), "b": [np.float32(0.5), (np.bool_(True),)]}
    packed = fastmsgpack.packb(value, option=NP, default=never)
    assert packed == orm(value)
    assert fastmsgpack.unpackb(packed) == {
        "a": [0, 1, 2],
        "b": [0.5, [True]],
    }


UNSUPPORTED: dict[str, Any] = {
    "object": np.array([1, "a"], dtype=object),
    "str": np.array(["ab"]),
    "bytes": np.array([b"ab"]),
    "complex128": np.array([1j]),
    "void": np.zeros(2, dtype=[("a", "<i4")]),
    "timedelta64": np.array([1], dtype="m8[s]"),
    "datetime64": np.array(["NaT"], dtype="M8"),
    "complex64 scalar": np.complex64(1j),
    "timedelta64 scalar": np.timedelta64(5, "s"),
}


@pytest.mark.parametrize("value", UNSUPPORTED.values(), ids=UNSUPPORTED.keys())
def test_unsupported_dtypes_go_to_default(value: Any) -> None:
    name = value.dtype.name
    with pytest.raises(MsgpackEncodeError, match=re.escape(f"numpy dtype {name} ")):
        fastmsgpack.packb(value, option=NP)
    seen: list[Any] = []

    def default(obj: Any) -> str:
        seen.append(obj)
        return "x"

    assert fastmsgpack.packb([value], option=NP, default=default) == b"\x91\xa1x"
    assert len(seen) == 1
    if isinstance(value, np.ndarray):
        assert seen[0] is value


def test_without_the_option_arrays_go_to_default() -> None:
    with pytest.raises(MsgpackEncodeError, match="numpy.ndarray"):
        fastmsgpack.packb(np.arange(3))
    with pytest.raises(MsgpackEncodeError, match="numpy.int64"):
        fastmsgpack.packb(np.int64(1))
    packed = fastmsgpack.packb(np.arange(3), default=lambda a: a.tolist())
    assert packed == b"\x93\x00\x01\x02"
    # np.float64 is a float subclass and np.str_ a str subclass: packed natively either way.
    assert fastmsgpack.packb(np.float64(1.5)) == fastmsgpack.packb(1.5)
    assert fastmsgpack.packb(np.str_("ab")) == fastmsgpack.packb("ab")


class Sub(np.ndarray[Any, Any]):
    pass


def test_ndarray_subclasses_go_to_default() -> None:
    with pytest.raises(MsgpackEncodeError, match="Sub"):
        fastmsgpack.packb(np.arange(2).view(Sub), option=NP)
    packed = fastmsgpack.packb(np.ma.array([1, 2]), option=NP, default=lambda a: a.tolist())
    assert fastmsgpack.unpackb(packed) == [1, 2]


NO_NUMPY = textwrap.dedent(
    """
    import datetime, sys
    import fastmsgpack as f
    both = f.OPT_NON_STR_KEYS | f.OPT_DATETIME_AS_TIMESTAMP_EXT
    value = {1: [1.5, b"x", datetime.datetime(2024, 1, 1, tzinfo=datetime.timezone.utc)]}
    assert f.unpackb(f.packb(value, option=both), option=both) == value
    f.packb(object(), default=str)
    print("numpy" in sys.modules)
    CALL
    print("numpy" in sys.modules)
    """
)


@pytest.mark.parametrize(
    ("call", "imports"),
    [
        # Packing: no numpy object can exist before numpy is imported, so packb never imports it.
        ("f.packb(1, option=f.OPT_SERIALIZE_NUMPY)", False),
        ("f.packb(1, option=f.OPT_NUMPY_RAW)", False),
        ("f.json.dumps(1, option=f.OPT_SERIALIZE_NUMPY)", False),
        # Decoding raw arrays needs numpy, imported or not.
        ("f.unpackb(b'\\x90', option=f.OPT_NUMPY_RAW)", True),
    ],
    ids=["packb-serialize", "packb-raw", "json-dumps", "unpackb-raw"],
)
def test_numpy_is_imported_only_when_an_option_needs_it(call: str, imports: bool) -> None:
    script = NO_NUMPY.replace("CALL", "import fastmsgpack.json\n" + call)
    result = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, check=False
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout.split() == ["False", str(imports)]


# numpy made impossible to import, as when it is not installed: a finder ahead of the others that
# refuses it and counts the attempts. Then the options are used many times, and only after that
# is numpy allowed and imported: what the calls found out while it was missing must not hide it.
MISSING_NUMPY = textwrap.dedent(
    """
    import sys
    attempts = []

    class Missing:
        @staticmethod
        def find_spec(name, path=None, target=None):
            if name == "numpy" or name.startswith("numpy."):
                attempts.append(name)
                raise ModuleNotFoundError(f"No module named {name!r}", name=name)
            return None

    sys.meta_path.insert(0, Missing)
    import fastmsgpack as f

    RAW = RAW_BYTES
    for _ in range(200):
        assert f.packb([1, 2.5], option=f.OPT_SERIALIZE_NUMPY) == f.packb([1, 2.5])
        assert f.packb([1, 2.5], option=f.OPT_NUMPY_RAW) == f.packb([1, 2.5])
        # Without numpy, a raw array stays the map it is written as (with bin keys).
        assert isinstance(f.unpackb(RAW, option=f.OPT_NUMPY_RAW | f.OPT_NON_STR_KEYS), dict)
    print(len(attempts))
    sys.meta_path.remove(Missing)
    import numpy as np

    assert f.packb(np.arange(3), option=f.OPT_SERIALIZE_NUMPY) == f.packb([0, 1, 2])
    back = f.unpackb(RAW, option=f.OPT_NUMPY_RAW)
    assert isinstance(back, np.ndarray) and back.tolist() == [0, 1, 2], back
    print("ok")
    """
)


def test_numpy_missing_is_found_out_once_and_a_later_import_is_seen() -> None:
    raw = fastmsgpack.packb(np.arange(3), option=fastmsgpack.OPT_NUMPY_RAW)
    script = MISSING_NUMPY.replace("RAW_BYTES", repr(raw))
    result = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, check=False
    )
    assert result.returncode == 0, result.stderr
    # One failed import for 200 decodes with OPT_NUMPY_RAW, none for packing.
    assert result.stdout.split() == ["1", "ok"]


plain_dtypes = st.one_of(
    hnp.boolean_dtypes(),
    hnp.integer_dtypes(endianness="?"),
    hnp.unsigned_integer_dtypes(endianness="?"),
    hnp.floating_dtypes(endianness="?", sizes=(16, 32, 64)),
)
random_arrays = hnp.arrays(plain_dtypes, hnp.array_shapes(min_dims=0, max_dims=4, min_side=0))
VIEWS = [
    lambda a: a,
    lambda a: a.T,
    lambda a: a[::-1] if a.ndim else a,
    lambda a: a[..., ::2] if a.ndim else a,
    lambda a: np.asfortranarray(a),
]


@settings(
    max_examples=examples(100),
    derandomize=True,
    database=None,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow],
)
@given(random_arrays, st.sampled_from(VIEWS))
def test_random_arrays_round_trip(base: npt.NDArray[Any], view: Any) -> None:
    a = view(base)
    packed = fastmsgpack.packb(a, option=NP)
    # float16 and float32 values are exact in float 32, so they come back as tolist() has them.
    assert_same(fastmsgpack.unpackb(packed), a.tolist())
    native = contiguous_native(a)
    if native.ndim:
        assert packed == orm(native)
