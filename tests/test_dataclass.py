"""Dataclasses pack as a map of their fields in definition order, like ormsgpack: fields named
with a leading underscore, ClassVar and InitVar are left out; OPT_PASSTHROUGH_DATACLASS sends
instances to default instead."""

from __future__ import annotations

import dataclasses
import datetime
import enum
import uuid
from typing import Any, ClassVar

import msgpack  # type: ignore[import-untyped]
import pytest
from conftest import assert_packs_like_ormsgpack, oracle_packb

import fastmsgpack
from fastmsgpack import (
    OPT_NON_STR_KEYS,
    OPT_PASSTHROUGH_DATACLASS,
    OPT_SORT_KEYS,
    MsgpackEncodeError,
)


@dataclasses.dataclass
class Plain:
    x: int
    y: str = "d"
    _private: int = 5
    counter: ClassVar[int] = 3
    seed: dataclasses.InitVar[int] = 0
    items: list[int] = dataclasses.field(default_factory=list)

    def __post_init__(self, seed: int) -> None:
        self.derived = seed  # an instance attribute that is not a field


@dataclasses.dataclass(slots=True)
class Slotted:
    b: int
    a: int = 2


@dataclasses.dataclass(frozen=True)
class Frozen:
    a: int
    inner: Plain


@dataclasses.dataclass
class NotInInit:
    a: int
    b: int = dataclasses.field(init=False, default=9)


@dataclasses.dataclass
class Base:
    x: int
    y: str = "base"


@dataclasses.dataclass
class Derived(Base):
    z: float = 0.5
    x: int = 100  # redefined: keeps its place from Base


@dataclasses.dataclass(kw_only=True)
class KwOnly:
    b: int
    a: int


@dataclasses.dataclass
class Empty:
    pass


@dataclasses.dataclass
class Unsorted:
    b: int
    a: dict[Any, Any]


Unicode = dataclasses.make_dataclass("Unicode", [("é", int), ("_hidden", int), ("tail_", int)])


class Undecorated(Base):
    """A plain subclass of a dataclass: still a dataclass (same fields)."""

    def __init__(self) -> None:
        super().__init__(7)
        self.extra = "not a field"


class UndecoratedSlotted(Slotted):
    __slots__ = ("extra",)


CASES: list[tuple[Any, Any]] = [
    (Plain(1), {"x": 1, "y": "d", "items": []}),
    (Plain(2, "s", 6, 8, [3]), {"x": 2, "y": "s", "items": [3]}),
    (Slotted(1), {"b": 1, "a": 2}),
    (Frozen(1, Plain(2)), {"a": 1, "inner": {"x": 2, "y": "d", "items": []}}),
    (NotInInit(1), {"a": 1, "b": 9}),
    (Derived(1), {"x": 1, "y": "base", "z": 0.5}),
    (KwOnly(a=1, b=2), {"b": 2, "a": 1}),
    (Empty(), {}),
    (Unicode(1, 2, 3), {"é": 1, "tail_": 3}),
]
IDS = [type(value).__name__ for value, _ in CASES]


@pytest.mark.parametrize(("value", "fields"), CASES, ids=IDS)
def test_dataclass_like_ormsgpack(value: Any, fields: Any) -> None:
    packed = assert_packs_like_ormsgpack(value)
    assert packed == oracle_packb(fields)
    assert assert_packs_like_ormsgpack([value, {"k": value}]) == oracle_packb(
        [fields, {"k": fields}]
    )


def test_only_fields_are_packed_and_read_with_getattr() -> None:
    value = Plain(1, "set")
    value.dynamic = 5  # type: ignore[attr-defined]
    value.__dict__["also"] = 6
    del value.y  # getattr now finds the class attribute "d" (the default)
    assert assert_packs_like_ormsgpack(value) == oracle_packb({"x": 1, "y": "d", "items": []})


# ormsgpack rejects undecorated subclasses of a dataclass ("Type is not msgpack serializable").
@pytest.mark.parametrize(
    ("value", "fields"),
    [(Undecorated(), {"x": 7, "y": "base"}), (UndecoratedSlotted(4), {"b": 4, "a": 2})],
    ids=["dict", "slots"],
)
def test_undecorated_subclass_packs_its_fields(value: Any, fields: Any) -> None:
    assert dataclasses.is_dataclass(value)
    assert fastmsgpack.packb(value) == oracle_packb(fields)
    assert fastmsgpack.packb([value], option=OPT_SORT_KEYS) == oracle_packb([fields])


@dataclasses.dataclass
class MissingField:
    a: int
    b: int = dataclasses.field(init=False)


@dataclasses.dataclass
class Node:
    child: Any = None


def test_missing_field_value_or_cycle_is_encode_error() -> None:
    # ormsgpack 1.12.2 crashes (segfault) on a missing field: not compared with it.
    slotted = Slotted(1)
    del slotted.a
    node = Node()
    node.child = [node]
    for value in (MissingField(1), {"v": [slotted]}, node):
        with pytest.raises(MsgpackEncodeError):
            fastmsgpack.packb(value)


def test_dataclass_class_is_not_a_dataclass_instance() -> None:
    with pytest.raises(MsgpackEncodeError):
        fastmsgpack.packb(Plain)
    packed = assert_packs_like_ormsgpack([Plain], default=lambda obj: obj.__name__)
    assert packed == oracle_packb(["Plain"])


def test_field_values_follow_the_options() -> None:
    # OPT_SORT_KEYS sorts the dicts inside, not the fields
    value = Unsorted(1, {"z": 1, "y": [Unsorted(2, {})]})
    packed = assert_packs_like_ormsgpack(value, option=OPT_SORT_KEYS)
    assert packed == oracle_packb({"b": 1, "a": {"y": [{"b": 2, "a": {}}], "z": 1}})
    value = Unsorted(1, {2: "two"})
    with pytest.raises(MsgpackEncodeError):
        fastmsgpack.packb(value)
    packed = assert_packs_like_ormsgpack(value, option=OPT_NON_STR_KEYS)
    assert packed == oracle_packb({"b": 1, "a": {2: "two"}})


def test_passthrough_dataclass() -> None:
    calls: list[Any] = []

    def default(obj: Any) -> Any:
        calls.append(obj)
        return {"as": type(obj).__name__}

    instances = [Plain(1), Slotted(2), Frozen(3, Plain(4))]
    doc = [instances[0], {"k": instances[1]}, instances[2]]
    packed = fastmsgpack.packb(doc, default=default, option=OPT_PASSTHROUGH_DATACLASS)
    assert packed == oracle_packb([{"as": "Plain"}, {"k": {"as": "Slotted"}}, {"as": "Frozen"}])
    assert len(calls) == 3
    assert all(call is instance for call, instance in zip(calls, instances))
    assert packed == assert_packs_like_ormsgpack(doc, OPT_PASSTHROUGH_DATACLASS, default)
    with pytest.raises(MsgpackEncodeError):
        fastmsgpack.packb(Plain(1), option=OPT_PASSTHROUGH_DATACLASS)


def test_passthrough_dataclass_default_result_is_packed() -> None:
    packed = assert_packs_like_ormsgpack(
        Frozen(1, Plain(2)), OPT_PASSTHROUGH_DATACLASS, dataclasses.asdict
    )
    assert packed == oracle_packb({"a": 1, "inner": {"x": 2, "y": "d", "_private": 5, "items": []}})


def test_nested_dataclasses_in_containers() -> None:
    doc = {"list": [Plain(1), [Slotted(2), (Empty(),)]], "dict": {"d": Derived(3, "y")}}
    packed = assert_packs_like_ormsgpack(doc)
    expected = {
        "list": [{"x": 1, "y": "d", "items": []}, [{"b": 2, "a": 2}, [{}]]],
        "dict": {"d": {"x": 3, "y": "y", "z": 0.5}},
    }
    assert packed == oracle_packb(expected)


class Color(enum.Enum):
    RED = "red"


# (field name, value, what msgpack-python packs the same way)
CORE: list[tuple[str, Any, Any]] = [
    *(("none", None, None), ("true", True, True), ("int", 1, 1), ("float", -0.5, -0.5)),
    *(("big", 2**64 - 1, 2**64 - 1), ("negative", -(2**63), -(2**63))),
    *(("str", "é" * 40, "é" * 40), ("bytes", b"\0" * 300, b"\0" * 300)),
    *(("bytearray", bytearray(b"ba"), b"ba"), ("list", [1, [2]], [1, [2]])),
    *(("tuple", (3, "t"), [3, "t"]), ("dict", {"k": {"n": None}}, {"k": {"n": None}})),
    ("ext", fastmsgpack.Ext(5, b"xy"), msgpack.ExtType(5, b"xy")),
    ("nested", Plain(1), {"x": 1, "y": "d", "items": []}),
    ("when", datetime.datetime(2024, 1, 2, 3, 4, 5, 6), "2024-01-02T03:04:05.000006"),
    ("uuid", uuid.UUID(int=1), "00000000-0000-0000-0000-000000000001"),
    ("color", Color.RED, "red"),
]
Everything = dataclasses.make_dataclass("Everything", [name for name, _, _ in CORE])


def test_dataclass_holding_every_core_type() -> None:
    value = Everything(*(value for _, value, _ in CORE))
    expected = {name: packed for name, _, packed in CORE}
    assert fastmsgpack.packb(value) == oracle_packb(expected)
    decoded = fastmsgpack.unpackb(fastmsgpack.packb(value))
    assert decoded == {**expected, "ext": fastmsgpack.Ext(5, b"xy")}


class RecordingMeta(type):
    """A metaclass whose ``__getattr__`` records the names it is asked for, then refuses them."""

    asked: ClassVar[list[str]] = []

    def __getattr__(cls, name: str) -> Any:
        RecordingMeta.asked.append(name)
        raise AttributeError(name)


def test_dataclass_marker_is_looked_up_on_the_class_not_through_its_metaclass() -> None:
    class Other(metaclass=RecordingMeta):
        pass

    @dataclasses.dataclass
    class Point(metaclass=RecordingMeta):
        x: int

    RecordingMeta.asked.clear()
    packed = fastmsgpack.packb([Other(), Point(1)], default=lambda obj: "other")
    assert packed == oracle_packb(["other", {"x": 1}])
    assert RecordingMeta.asked == []
    assert fastmsgpack.packb(Point(2), option=fastmsgpack.OPT_SERIALIZE_PYDANTIC) == oracle_packb(
        {"x": 2}
    )
    assert RecordingMeta.asked == []
