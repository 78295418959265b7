"""Subclasses of str/int/float/list/dict/bytes/bytearray pack as their base type; named tuples
pack as arrays (tests/test_named_tuples.py) and other tuple subclasses go to default; bool is
exactly bool; decoding gives base types."""

from __future__ import annotations

import collections
import dataclasses
import enum
import gc
import itertools
from typing import Any, NamedTuple

import ormsgpack
import pytest
from conftest import (
    Format,
    MyBytearray,
    MyBytes,
    MyDict,
    MyFloat,
    MyInt,
    MyList,
    assert_same,
    oracle_packb,
)

import fastmsgpack
from fastmsgpack import OPT_PASSTHROUGH_SUBCLASS, OPT_PASSTHROUGH_TUPLE, MsgpackEncodeError


class MyStr(str):
    """Packs its characters, not what __str__ says."""

    def __str__(self) -> str:
        return "overridden"


class MyStr2(MyStr):
    pass


class Color(str, enum.Enum):
    RED = "red"


class Level(enum.IntEnum):
    LOW = 1
    HIGH = 300


class Perm(enum.IntFlag):
    R = 4
    W = 2


class PairTuple(NamedTuple):
    a: int
    b: str


PlainNamedTuple = collections.namedtuple("PlainNamedTuple", ["x"])


class MyTuple(tuple[Any, ...]):
    pass


SUBCLASS_VALUES: list[tuple[Any, Any]] = [
    (MyStr("text \u00e9"), "text \u00e9"),
    (MyStr2("deeper"), "deeper"),
    (MyStr("x" * 300), "x" * 300),
    (MyInt(-5), -5),
    (MyInt(2**64 - 1), 2**64 - 1),
    (MyFloat(-0.25), -0.25),
    (MyList([1, MyStr("a")]), [1, "a"]),
    (MyDict(k=MyInt(1)), {"k": 1}),
    (MyBytes(b"\x00\xff"), b"\x00\xff"),
    (MyBytearray(b"ba"), b"ba"),
    (Color.RED, "red"),
    (Level.HIGH, 300),
    (Perm.R | Perm.W, 6),
    (collections.OrderedDict([("z", 1), ("a", 2)]), {"z": 1, "a": 2}),
    (collections.defaultdict(list, {"k": [1]}), {"k": [1]}),
    (collections.Counter("abb"), {"a": 1, "b": 2}),
]
IDS = [type(v).__name__ for v, _ in SUBCLASS_VALUES]
# Enum members are governed by OPT_PASSTHROUGH_ENUM, not OPT_PASSTHROUGH_SUBCLASS.
PLAIN_SUBCLASS_VALUES = [(v, b) for v, b in SUBCLASS_VALUES if not isinstance(v, enum.Enum)]
PLAIN_IDS = [type(v).__name__ for v, _ in PLAIN_SUBCLASS_VALUES]


@pytest.mark.parametrize(("value", "base"), SUBCLASS_VALUES, ids=IDS)
def test_subclass_packs_as_base_type(value: Any, base: Any) -> None:
    packed = fastmsgpack.packb(value)
    assert packed == oracle_packb(base)
    assert fastmsgpack.packb({"v": [value]}) == oracle_packb({"v": [base]})


@pytest.mark.parametrize(("value", "base"), SUBCLASS_VALUES, ids=IDS)
def test_subclass_decodes_to_base_type(value: Any, base: Any) -> None:
    assert_same(fastmsgpack.unpackb(fastmsgpack.packb(value)), base)


@pytest.mark.parametrize(("value", "base"), PLAIN_SUBCLASS_VALUES, ids=PLAIN_IDS)
def test_subclass_goes_to_default_with_passthrough(value: Any, base: Any) -> None:
    calls: list[Any] = []

    def default(obj: Any) -> Any:
        calls.append(obj)
        return "via default"

    packed = fastmsgpack.packb(value, default=default, option=OPT_PASSTHROUGH_SUBCLASS)
    assert packed == oracle_packb("via default")
    assert len(calls) == 1
    assert calls[0] is value


def test_bool_is_exactly_bool() -> None:
    def default(obj: Any) -> Any:
        raise AssertionError("default must not be called for bool")

    packed = fastmsgpack.packb([True, False], default=default, option=OPT_PASSTHROUGH_SUBCLASS)
    assert packed == b"\x92\xc3\xc2"


TUPLE_SUBCLASS_CASES = [
    (value, option)
    for value in (PairTuple(1, "b"), MyTuple((1, 2)), PlainNamedTuple(1))
    for option in (None, OPT_PASSTHROUGH_TUPLE, OPT_PASSTHROUGH_SUBCLASS)
    # Without a passthrough option a named tuple is packed as an array.
    if option is not None or not hasattr(value, "_fields")
]


@pytest.mark.parametrize(("value", "option"), TUPLE_SUBCLASS_CASES, ids=repr)
def test_tuple_subclass_goes_to_default(value: Any, option: int | None) -> None:
    calls: list[Any] = []

    def default(obj: Any) -> Any:
        calls.append(obj)
        return {"fields": list(obj)}

    packed = fastmsgpack.packb([value], default=default, option=option)
    assert packed == oracle_packb([{"fields": list(value)}])
    assert calls == [value]
    assert calls[0] is value


@pytest.mark.parametrize("value", [MyTuple((1,)), MyTuple(())], ids=repr)
def test_tuple_subclass_without_default_is_error(value: Any) -> None:
    with pytest.raises(MsgpackEncodeError):
        fastmsgpack.packb(value)
    with pytest.raises(MsgpackEncodeError):
        fastmsgpack.packb({"k": [value]})


def test_str_subclass_dict_key_needs_non_str_keys() -> None:
    with pytest.raises(MsgpackEncodeError):
        fastmsgpack.packb({MyStr("k"): 1})
    packed = fastmsgpack.packb({MyStr("k"): 1}, option=fastmsgpack.OPT_NON_STR_KEYS)
    assert packed == oracle_packb({"k": 1})


@pytest.mark.parametrize("member", [Color.RED, Level.HIGH, Perm.R | Perm.W], ids=repr)
def test_enum_members_ignore_passthrough_subclass(member: enum.Enum) -> None:
    packed = fastmsgpack.packb(
        member, default=lambda _: "via default", option=OPT_PASSTHROUGH_SUBCLASS
    )
    assert packed == oracle_packb(member.value)
    assert packed == ormsgpack.packb(member, option=ormsgpack.OPT_PASSTHROUGH_SUBCLASS)


# --- one classification per type, remembered for the next object of the same type -------------


def test_alternating_types_are_each_packed_as_their_own(fmt: Format) -> None:
    pairs = [(v, b) for v, b in SUBCLASS_VALUES if not isinstance(v, (bytes, bytearray))]
    # Each type after itself, after every other type, and in turn with its neighbour.
    order = pairs * 2 + pairs[::-1] + [p for two in itertools.pairwise(pairs) for p in two]
    doc = [v for v, _ in order]
    plain = [b for _, b in order]
    assert fmt.encode(doc) == fmt.encode(plain)
    passthrough = fmt.encode(doc, default=lambda obj: "default", option=OPT_PASSTHROUGH_SUBCLASS)
    assert fmt.decode(passthrough) == [
        b if isinstance(v, enum.Enum) else "default" for v, b in order
    ]


def test_runs_of_one_type_past_the_memo_are_each_packed_as_their_own() -> None:
    # Runs of each type, more types than a call keeps, then the first types again after they were
    # replaced: the last type kept answers first, and must still be the type it was kept for.
    pairs = [(v, b) for v, b in SUBCLASS_VALUES if not isinstance(v, (bytes, bytearray))]
    pairs += [(PairTuple(1, "x"), [1, "x"]), (PlainNamedTuple(2.5), [2.5])]
    order = [p for p in pairs for _ in range(3)] * 2
    order += [p for two in itertools.pairwise(pairs) for p in (*two, *two)]
    doc = [v for v, _ in order]
    assert fastmsgpack.packb(doc) == oracle_packb([b for _, b in order])
    passthrough = fastmsgpack.packb(
        doc, default=lambda obj: "default", option=OPT_PASSTHROUGH_SUBCLASS
    )
    assert fastmsgpack.unpackb(passthrough) == [
        b if isinstance(v, enum.Enum) else "default" for v, b in order
    ]


class Opaque:
    def __init__(self, i: int) -> None:
        self.i = i


def test_classes_made_and_dropped_by_default_are_told_apart(fmt: Format) -> None:
    def default(obj: Any) -> Any:
        assert isinstance(obj, Opaque)
        if obj.i % 10 == 0:
            gc.collect()  # lets the dropped classes go, so their addresses can be reused
        if obj.i % 2:
            return dataclasses.make_dataclass("Made", ["x"])(obj.i)
        return type("MadeStr", (str,), {})(f"s{obj.i}")

    doc = [Opaque(i) for i in range(60)]
    expected = [{"x": i} if i % 2 else f"s{i}" for i in range(60)]
    assert fmt.encode(doc, default=default) == fmt.encode(expected)
