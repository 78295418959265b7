"""Property tests over the data model, with msgpack-python as the encoding oracle.

(a) packb(x) == msgpack.packb(x, use_bin_type=True); (b) unpackb(packb(x)) is exactly x (types,
float bits, key order). Deterministic: derandomize=True and no example database.
"""

from __future__ import annotations

import math
from typing import Any

from conftest import INT_BOUNDARIES, assert_same, examples, oracle_packb
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import fastmsgpack
from fastmsgpack import OPT_NON_STR_KEYS, OPT_SORT_KEYS, MsgpackDecodeError

PROPERTY = settings(
    max_examples=examples(300),
    derandomize=True,
    database=None,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)

INT_MIN, INT_MAX = -(2**63), 2**64 - 1
INT_EDGES = sorted(
    {b + d for b in INT_BOUNDARIES for d in (-1, 0, 1) if INT_MIN <= b + d <= INT_MAX}
)

ints = st.one_of(
    st.sampled_from(INT_EDGES),
    st.integers(-40, 300),
    st.integers(INT_MIN, INT_MAX),
)
floats = st.one_of(
    st.floats(),
    st.floats(width=32),
    st.sampled_from([math.nan, -math.nan, math.inf, -math.inf, 0.0, -0.0, 5e-324]),
)
texts = st.one_of(
    st.text(max_size=40),
    st.builds(
        lambda ch, n: ch * n, st.characters(codec="utf-8"), st.sampled_from([31, 32, 255, 256])
    ),
)
binaries = st.one_of(
    st.binary(max_size=40),
    st.builds(bytes, st.sampled_from([31, 32, 255, 256, 65535, 65536])),
)
scalars = st.one_of(st.none(), st.booleans(), ints, floats, texts, binaries)


def _containers(children: st.SearchStrategy[Any]) -> st.SearchStrategy[Any]:
    return st.one_of(
        st.lists(children, max_size=20),
        st.dictionaries(st.text(max_size=10), children, max_size=20),
    )


values = st.recursive(scalars, _containers, max_leaves=40)


def _containers_with_tuples(children: st.SearchStrategy[Any]) -> st.SearchStrategy[Any]:
    return st.one_of(_containers(children), st.lists(children, max_size=20).map(tuple))


values_with_tuples = st.recursive(scalars, _containers_with_tuples, max_leaves=40)

key_scalars = st.one_of(st.none(), st.booleans(), ints, st.floats(allow_nan=False), texts, binaries)
hashable_keys = st.recursive(
    key_scalars, lambda children: st.lists(children, max_size=4).map(tuple), max_leaves=8
)


def tuples_to_lists(obj: Any) -> Any:
    if isinstance(obj, (list, tuple)):
        return [tuples_to_lists(v) for v in obj]
    if isinstance(obj, dict):
        return {k: tuples_to_lists(v) for k, v in obj.items()}
    return obj


def sorted_recursively(obj: Any) -> Any:
    if isinstance(obj, dict):
        return {k: sorted_recursively(obj[k]) for k in sorted(obj)}
    if isinstance(obj, list):
        return [sorted_recursively(v) for v in obj]
    return obj


@PROPERTY
@given(values)
def test_pack_matches_msgpack(value: Any) -> None:
    assert fastmsgpack.packb(value) == oracle_packb(value)


@PROPERTY
@given(values)
def test_round_trip_is_exact(value: Any) -> None:
    assert_same(fastmsgpack.unpackb(fastmsgpack.packb(value)), value)


@PROPERTY
@given(values_with_tuples)
def test_tuples_pack_as_arrays(value: Any) -> None:
    packed = fastmsgpack.packb(value)
    assert packed == oracle_packb(value)
    assert_same(fastmsgpack.unpackb(packed), tuples_to_lists(value))


@PROPERTY
@given(st.dictionaries(hashable_keys, scalars, max_size=20))
def test_non_str_keys_round_trip(value: dict[Any, Any]) -> None:
    packed = fastmsgpack.packb(value, option=OPT_NON_STR_KEYS)
    assert packed == oracle_packb(value)
    assert_same(fastmsgpack.unpackb(packed, option=OPT_NON_STR_KEYS), value)


@PROPERTY
@given(values)
def test_sort_keys(value: Any) -> None:
    packed = fastmsgpack.packb(value, option=OPT_SORT_KEYS)
    assert packed == oracle_packb(sorted_recursively(value))


def check_decodes_consistently(data: bytes) -> None:
    """Decoding either succeeds or raises MsgpackDecodeError (nothing else), and whatever
    decodes without OPT_NON_STR_KEYS decodes identically with it."""
    try:
        with_option = fastmsgpack.unpackb(data, option=OPT_NON_STR_KEYS)
    except MsgpackDecodeError:
        with_option = _FAILED
    try:
        plain = fastmsgpack.unpackb(data)
    except MsgpackDecodeError:
        return
    assert with_option is not _FAILED
    assert_same(plain, with_option)


_FAILED = object()


@PROPERTY
@given(values, st.data())
def test_damaged_input_decodes_or_raises_decode_error(value: Any, data: st.DataObject) -> None:
    packed = bytearray(fastmsgpack.packb(value))
    position = data.draw(st.integers(0, len(packed) - 1))
    mode = data.draw(st.sampled_from(["replace", "truncate", "insert"]))
    if mode == "replace":
        packed[position] = data.draw(st.integers(0, 255))
    elif mode == "truncate":
        del packed[position:]
    else:
        packed.insert(position, data.draw(st.integers(0, 255)))
    check_decodes_consistently(bytes(packed))


@PROPERTY
@given(st.binary(max_size=64))
def test_random_bytes_decode_or_raise_decode_error(data: bytes) -> None:
    check_decodes_consistently(data)
