"""set and frozenset pack as arrays in iteration order; decimal.Decimal packs as str(d).

ormsgpack has neither, so msgpack-python packing the equivalent list or str is the oracle.
"""

from __future__ import annotations

import decimal
from typing import Any

import pytest
from conftest import CONTAINER_LENGTHS, oracle_packb

import fastmsgpack
from fastmsgpack import MsgpackEncodeError

SETS: list[Any] = [
    set(),
    frozenset(),
    {1},
    frozenset({"one"}),
    {1, 2, 3},
    {None, True, -1, 2.5, "a", b"b", (1, (2, "x"))},
    frozenset({frozenset(), (1, 2), "x" * 300}),
    set(range(-40, 300)),
]


def freeze(value: Any) -> Any:
    """Arrays (lists) and what packs as arrays (tuples, sets) as tuples, to compare as sets."""
    if isinstance(value, (list, tuple, set, frozenset)):
        return tuple(freeze(item) for item in value)
    return value


def as_lists(value: Any) -> Any:
    """What msgpack-python packs the same way: sets (and tuples) as lists, in iteration order."""
    if isinstance(value, (list, tuple, set, frozenset)):
        return [as_lists(item) for item in value]
    return value


@pytest.mark.parametrize("value", SETS, ids=lambda v: f"{type(v).__name__}-{len(v)}")
def test_set_packs_as_array_in_iteration_order(value: Any) -> None:
    packed = fastmsgpack.packb(value)
    assert packed == oracle_packb(as_lists(value))
    unpacked = fastmsgpack.unpackb(packed)
    assert type(unpacked) is list
    assert len(unpacked) == len(value)
    assert {freeze(item) for item in unpacked} == {freeze(item) for item in value}


def test_round_trip_as_a_set() -> None:
    value = {1, "a", None, 2.5, b"x", -(2**63), 2**64 - 1}
    assert set(fastmsgpack.unpackb(fastmsgpack.packb(value))) == value
    frozen = frozenset(value)
    assert frozenset(fastmsgpack.unpackb(fastmsgpack.packb(frozen))) == frozen


@pytest.mark.parametrize(
    ("value", "packed"),
    [
        (frozenset({1}), b"\x91\x01"),
        (frozenset({"a"}), b"\x91\xa1a"),
        ({None}, b"\x91\xc0"),
        (set(), b"\x90"),
        (frozenset(), b"\x90"),
        (frozenset({frozenset({2**64 - 1})}), b"\x91\x91\xcf" + b"\xff" * 8),
    ],
    ids=repr,
)
def test_exact_bytes(value: Any, packed: bytes) -> None:
    assert fastmsgpack.packb(value) == packed


@pytest.mark.parametrize("length", CONTAINER_LENGTHS)
def test_array_header_widths(length: int) -> None:
    value = set(range(length))
    assert fastmsgpack.packb(value) == oracle_packb(list(value))
    assert fastmsgpack.packb(frozenset(value)) == oracle_packb(list(frozenset(value)))


def test_sets_nested_in_containers() -> None:
    inner = frozenset({"x"})
    doc = {"s": {1}, "l": [inner, (set(),)], "d": {"f": frozenset({inner})}}
    expected = {"s": [1], "l": [["x"], [[]]], "d": {"f": [["x"]]}}
    assert fastmsgpack.packb(doc) == oracle_packb(expected)
    assert fastmsgpack.packb(doc, option=fastmsgpack.OPT_SORT_KEYS) == oracle_packb(
        dict(sorted(expected.items()))
    )


def test_set_elements_use_default_and_options() -> None:
    class Point:
        pass

    point = Point()
    calls: list[Any] = []

    def default(obj: Any) -> Any:
        calls.append(obj)
        return "point"

    assert fastmsgpack.packb({point}, default=default) == oracle_packb(["point"])
    assert calls == [point]
    with pytest.raises(MsgpackEncodeError):
        fastmsgpack.packb({point})
    with pytest.raises(MsgpackEncodeError):
        fastmsgpack.packb([frozenset({2**64})])


DECIMALS: list[str] = [
    "0",
    "-0",
    "1.5",
    "-1.50",
    "0.000001",
    "1E-7",
    "1e+2",
    "123456789012345678901234567890.123456789012345678901234567890",
    "-0E-1000",
    "NaN",
    "-NaN",
    "sNaN",
    "NaN123",
    "Infinity",
    "-Infinity",
    "-inf",
]


@pytest.mark.parametrize("text", DECIMALS)
def test_decimal_packs_as_str(text: str) -> None:
    value = decimal.Decimal(text)
    assert fastmsgpack.packb(value) == oracle_packb(str(value))
    assert fastmsgpack.packb({"d": [value]}) == oracle_packb({"d": [str(value)]})
    assert fastmsgpack.unpackb(fastmsgpack.packb(value)) == str(value)


def test_decimal_strings() -> None:
    cases = {"-0": "-0", "1e+2": "1E+2", "-inf": "-Infinity", "NaN123": "NaN123", "1.50": "1.50"}
    for text, expected in cases.items():
        assert fastmsgpack.packb(decimal.Decimal(text)) == oracle_packb(expected)


def test_decimal_is_not_rounded_to_the_context_precision() -> None:
    value = decimal.Decimal("3.14159265358979323846264338327950288")
    with decimal.localcontext() as context:
        context.prec = 3
        assert fastmsgpack.packb([value, decimal.Decimal("1E+5")]) == oracle_packb(
            ["3.14159265358979323846264338327950288", "1E+5"]
        )


def test_decimal_subclass_packs_as_decimal_unless_passthrough_subclass() -> None:
    class Money(decimal.Decimal):
        pass

    assert fastmsgpack.packb(Money("9.99")) == fastmsgpack.packb("9.99")
    packed = fastmsgpack.packb(
        Money("9.99"),
        default=lambda m: ["money", str(m)],
        option=fastmsgpack.OPT_PASSTHROUGH_SUBCLASS,
    )
    assert fastmsgpack.unpackb(packed) == ["money", "9.99"]
