"""uuid.UUID packs as its canonical string; enum members pack as their value, recursively, with
the same options. OPT_PASSTHROUGH_UUID and OPT_PASSTHROUGH_ENUM send them to default."""

from __future__ import annotations

import dataclasses
import datetime
import enum
import sys
import uuid
from typing import Any

import pytest
from conftest import Format, assert_packs_like_ormsgpack, fast_option, oracle_packb

import fastmsgpack
from fastmsgpack import (
    OPT_NON_STR_KEYS,
    OPT_PASSTHROUGH_ENUM,
    OPT_PASSTHROUGH_SUBCLASS,
    OPT_PASSTHROUGH_UUID,
    MsgpackEncodeError,
)

UUIDS = [
    uuid.UUID(int=0),
    uuid.UUID(int=2**128 - 1),
    uuid.UUID("F81D4FAE-7DEC-11D0-A765-00A0C91E6BF6"),
    uuid.uuid5(uuid.NAMESPACE_DNS, "example.org"),
    uuid.UUID(int=1, version=4),
]


@pytest.mark.parametrize("value", UUIDS, ids=str)
def test_uuid_is_its_canonical_string(value: uuid.UUID) -> None:
    text = str(value)
    assert len(text) == 36
    assert text == text.lower()
    assert assert_packs_like_ormsgpack(value) == oracle_packb(text)
    assert assert_packs_like_ormsgpack({"ids": [value, (value,)]}) == oracle_packb(
        {"ids": [text, [text]]}
    )
    assert fastmsgpack.unpackb(fastmsgpack.packb(value)) == text


# Ints at every 30-bit digit boundary (and each bit's), just below, at and above.
EDGE_INTS = sorted(
    {v for k in range(129) for v in (2**k - 1, 2**k, 2**k + 1) if 0 <= v < 2**128}
    | {(2**128 - 1) ^ (2**k) for k in range(128)}
)


def test_uuids_at_every_digit_edge_pack_their_text(fmt: Format) -> None:
    values = [uuid.UUID(int=v) for v in EDGE_INTS]
    assert fmt.round_trip(values) == [str(u) for u in values]
    assert fmt.round_trip({"id": values[-1]}) == {"id": str(values[-1])}


def test_uuid_with_an_odd_int_slot_is_read_as_before() -> None:
    # A UUID's int lives in a slot, which code can set to anything: only an int in
    # 0..2**128-1 packs; anything else is refused as it always was, and an unset slot too.
    class Wide(int):
        pass

    for odd, packs_as in ((Wide(5), str(uuid.UUID(int=5))), (True, str(uuid.UUID(int=1)))):
        u = uuid.UUID(int=0)
        object.__setattr__(u, "int", odd)
        assert fastmsgpack.packb(u) == oracle_packb(packs_as)
    for bad in (2**128, -1, 2**200, "x", None):
        u = uuid.UUID(int=0)
        object.__setattr__(u, "int", bad)
        with pytest.raises(MsgpackEncodeError, match="128-bit"):
            fastmsgpack.packb([u])
    unset = object.__new__(uuid.UUID)
    with pytest.raises(MsgpackEncodeError, match="could not be read") as info:
        fastmsgpack.packb({"id": unset})
    assert isinstance(info.value.__cause__, AttributeError)


class Shifted(uuid.UUID):
    """A subclass computing its int (its own plus 35): packed by what `int` returns."""

    @property  # type: ignore[misc]
    def int(self) -> int:
        return int(self.__dict__["raw"]) + 35

    @int.setter
    def int(self, value: int) -> None:
        self.__dict__["raw"] = value


def test_uuid_subclass_overriding_int_packs_what_int_returns() -> None:
    assert fastmsgpack.packb(Shifted(int=7)) == oracle_packb(str(uuid.UUID(int=42)))


class MyUUID(uuid.UUID):
    pass


def test_passthrough_uuid_and_subclass() -> None:
    # ormsgpack rejects UUID subclasses; they pack as a UUID, and follow OPT_PASSTHROUGH_UUID.
    assert fastmsgpack.packb(MyUUID(int=5)) == oracle_packb(str(uuid.UUID(int=5)))
    calls: list[Any] = []

    def default(obj: Any) -> Any:
        calls.append(obj)
        return obj.bytes

    values = [*UUIDS, MyUUID(int=5)]
    packed = fastmsgpack.packb(values, default=default, option=OPT_PASSTHROUGH_UUID)
    assert packed == oracle_packb([u.bytes for u in values])
    assert len(calls) == len(values)
    assert all(call is value for call, value in zip(calls, values))
    assert packed == assert_packs_like_ormsgpack(values, OPT_PASSTHROUGH_UUID, default)
    with pytest.raises(MsgpackEncodeError):
        fastmsgpack.packb(UUIDS[0], option=OPT_PASSTHROUGH_UUID)


class Plain(enum.Enum):
    INT = 1
    STR = "s"
    FLOAT = 1.5
    TUPLE = (1, "two")
    LIST = [1, [2]]  # noqa: RUF012
    BYTES = b"\x00"
    BIG = 2**64 - 1


class Level(enum.IntEnum):
    LOW = 1
    HIGH = 300
    NEGATIVE = -(2**63)


class Color(str, enum.Enum):
    RED = "red"


class Ratio(float, enum.Enum):
    HALF = 0.5


class Raw(bytes, enum.Enum):
    X = b"x"


class Day(datetime.date, enum.Enum):
    EPOCH = (1970, 1, 1)


class Perm(enum.Flag):
    R = 4
    W = 2


class IntPerm(enum.IntFlag):
    R = 4
    W = 2


@dataclasses.dataclass
class Point:
    x: int
    _hidden: int = 0


WHEN = datetime.datetime(2024, 1, 2, 3, 4, 5, 6)


class Rich(enum.Enum):
    POINT = Point(1)
    DICT = {"when": WHEN, "id": uuid.UUID(int=9)}  # noqa: RUF012
    UUID = uuid.UUID(int=3)
    NESTED = Plain.TUPLE
    DEEP = [Level.HIGH, {"c": Color.RED}]  # noqa: RUF012


class Meta(enum.EnumMeta):
    pass


class Custom(enum.Enum, metaclass=Meta):
    A = 5
    B = "b"


RICH_DICT = {"when": "2024-01-02T03:04:05.000006", "id": "00000000-0000-0000-0000-000000000009"}
MEMBERS: list[tuple[Any, Any]] = [
    *((member, member.value) for member in Plain),
    *((member, member.value) for member in Level),
    (Color.RED, "red"),
    (Ratio.HALF, 0.5),
    (Raw.X, b"x"),
    (Day.EPOCH, "1970-01-01"),
    (Perm.R, 4),
    (Perm.R | Perm.W, 6),
    (Perm(0), 0),
    (IntPerm.R | IntPerm.W, 6),
    (IntPerm(0), 0),
    (Rich.POINT, {"x": 1}),
    (Rich.DICT, RICH_DICT),
    (Rich.UUID, str(uuid.UUID(int=3))),
    (Rich.NESTED, [1, "two"]),
    (Rich.DEEP, [300, {"c": "red"}]),
]
if sys.version_info >= (3, 11):

    class Text(enum.StrEnum):
        A = "x"
        AUTO = enum.auto()

    MEMBERS += [(Text.A, "x"), (Text.AUTO, "auto")]


@pytest.mark.parametrize(("member", "value"), MEMBERS, ids=repr)
def test_enum_packs_its_value_like_ormsgpack(member: Any, value: Any) -> None:
    assert assert_packs_like_ormsgpack(member) == oracle_packb(value)
    assert assert_packs_like_ormsgpack([{"m": member}]) == oracle_packb([{"m": value}])


@pytest.mark.parametrize(
    "names",
    [
        ("OPT_NAIVE_UTC", "OPT_UTC_Z"),
        ("OPT_OMIT_MICROSECONDS",),
        ("OPT_DATETIME_AS_TIMESTAMP_EXT", "OPT_NAIVE_UTC"),
        ("OPT_SORT_KEYS",),
    ],
)
def test_enum_value_is_packed_with_the_options(names: tuple[str, ...]) -> None:
    assert_packs_like_ormsgpack([Rich.DICT, Rich.DEEP], option=fast_option(*names))


@pytest.mark.parametrize(
    ("member", "passthrough"),
    [
        (Rich.POINT, "OPT_PASSTHROUGH_DATACLASS"),
        (Rich.UUID, "OPT_PASSTHROUGH_UUID"),
        (Rich.DICT, "OPT_PASSTHROUGH_DATETIME"),
    ],
)
def test_passthrough_options_apply_to_enum_values(member: Any, passthrough: str) -> None:
    packed = assert_packs_like_ormsgpack(member, fast_option(passthrough), lambda obj: "default")
    assert b"default" in packed
    with pytest.raises(MsgpackEncodeError):
        fastmsgpack.packb(member, option=fast_option(passthrough))


# ormsgpack only recognises members of classes whose metaclass is exactly enum.EnumMeta.
def test_enum_with_custom_metaclass() -> None:
    assert fastmsgpack.packb([Custom.A, Custom.B]) == oracle_packb([5, "b"])
    calls: list[Any] = []
    packed = fastmsgpack.packb(Custom.A, default=calls.append, option=OPT_PASSTHROUGH_ENUM)
    assert packed == oracle_packb(None)
    assert calls == [Custom.A]


ALL_KINDS: list[Any] = [Plain.INT, Level.LOW, Color.RED, Ratio.HALF, Perm.R, IntPerm.W, Rich.DICT]


def test_passthrough_enum_sends_every_kind_to_default() -> None:
    # IntEnum, str and float mixins, IntFlag: all go to default, not packed as int/str/float.
    calls: list[Any] = []

    def default(obj: Any) -> Any:
        calls.append(obj)
        return type(obj).__name__

    packed = fastmsgpack.packb(ALL_KINDS, default=default, option=OPT_PASSTHROUGH_ENUM)
    assert packed == oracle_packb([type(member).__name__ for member in ALL_KINDS])
    assert len(calls) == len(ALL_KINDS)
    assert all(call is member for call, member in zip(calls, ALL_KINDS))
    assert packed == assert_packs_like_ormsgpack(ALL_KINDS, OPT_PASSTHROUGH_ENUM, default)
    for member in ALL_KINDS:
        with pytest.raises(MsgpackEncodeError):
            fastmsgpack.packb(member, option=OPT_PASSTHROUGH_ENUM)


def test_passthrough_subclass_does_not_apply_to_enums() -> None:
    # Like ormsgpack: an enum member is an enum first, so an IntEnum or a str-mixin member packs
    # its value under OPT_PASSTHROUGH_SUBCLASS.
    def default(obj: Any) -> Any:
        raise AssertionError(f"default called for {obj!r}")

    packed = assert_packs_like_ormsgpack(ALL_KINDS, OPT_PASSTHROUGH_SUBCLASS, default)
    assert packed == oracle_packb([1, 1, "red", 0.5, 4, 2, RICH_DICT])


class Loop(enum.Enum):
    A = 1


Loop.A._value_ = Loop.A  # type: ignore[assignment]  # itself (ormsgpack segfaults on it)


def test_enum_class_and_self_referencing_member_are_errors() -> None:
    for value in (Plain, Loop.A, [{"k": Loop.A}]):
        with pytest.raises(MsgpackEncodeError):
            fastmsgpack.packb(value)
    packed = assert_packs_like_ormsgpack([Level], default=lambda cls: cls.__name__)
    assert packed == oracle_packb(["Level"])


def test_enum_overriding_value_packs_what_value_returns() -> None:
    class Shown(enum.Enum):
        A = 1

        @property
        def value(self) -> str:  # type: ignore[override]
            return f"shown-{self._value_}"

    assert fastmsgpack.packb(Shown.A) == fastmsgpack.packb("shown-1")
    assert_packs_like_ormsgpack(Shown.A)


def test_enum_value_is_read_as_it_is_now() -> None:
    class Moving(enum.IntEnum):
        A = 1
        B = 2

    assert fastmsgpack.packb([Moving.A, Moving.B]) == oracle_packb([1, 2])
    Moving.A._value_ = 5
    assert fastmsgpack.packb([Moving.A, Moving.B, Moving.A]) == oracle_packb([5, 2, 5])
    del Moving.A.__dict__["_value_"]  # then found only through getattr: the class attribute
    Moving._value_ = 7
    assert fastmsgpack.packb([Moving.A, Moving.B]) == oracle_packb([7, 2])


# Each member's value is read once per call (the first members of a call are remembered).


def functional_enum(base: type[enum.Enum], name: str, members: dict[str, Any]) -> type[enum.Enum]:
    """An enum made by enum's functional API (members that a test builds)."""
    made: type[enum.Enum] = base(name, members)  # type: ignore[call-arg,assignment]
    return made


Many = functional_enum(enum.Enum, "Many", {f"M{i}": f"value-{i}" for i in range(40)})
Status = functional_enum(enum.IntEnum, "Status", {f"S{i}": 100 + i for i in range(8)})


def test_many_members_in_one_call_pack_their_own_values(fmt: Format) -> None:
    # More members than are remembered, in orders that revisit early and late ones, mixed with
    # IntEnum members, as values and (MessagePack) as keys.
    order = [*range(40), *range(39, -1, -3), *range(0, 40, 7)] * 3
    members = [Many[f"M{i}"] for i in order]
    statuses = [Status[f"S{i % 8}"] for i in order]
    mixed = [x for pair in zip(members, statuses) for x in pair]
    expected = [x.value for x in mixed]
    assert fmt.round_trip(mixed) == expected
    if fmt.name == "msgpack":
        keyed = {s: m for s, m in zip(statuses[:8], members[:8])}
        packed = fastmsgpack.packb([keyed, mixed], option=OPT_NON_STR_KEYS)
        assert packed == oracle_packb([{s.value: m.value for s, m in keyed.items()}, expected])


def test_value_reassigned_during_a_call_keeps_its_first_value_until_the_call_ends() -> None:
    class Moving(enum.Enum):
        A = "first"
        B = "b"

    def reassign(obj: object) -> str:
        Moving.A._value_ = "second"
        return "hook"

    # A, then Python code (default) reassigning A's value, then A again: one value per call.
    packed = fastmsgpack.packb([Moving.A, object(), Moving.A, Moving.B], default=reassign)
    assert packed == oracle_packb(["first", "hook", "first", "b"])
    assert fastmsgpack.packb([Moving.A]) == oracle_packb(["second"])


def test_remembered_members_and_values_are_released() -> None:
    held = functional_enum(enum.Enum, "Held", {"A": ["a", 1], "B": ["b", 2]})
    a, b = held["A"], held["B"]
    watched = (a, b, a.value, b.value)
    before = [sys.getrefcount(x) for x in watched]
    fastmsgpack.packb([a, b] * 10)
    with pytest.raises(MsgpackEncodeError):
        fastmsgpack.packb([a, b, object()])
    with pytest.raises(MsgpackEncodeError):
        fastmsgpack.packb({a: 1}, option=OPT_NON_STR_KEYS)  # a list: no key
    assert [sys.getrefcount(x) for x in watched] == before


def test_members_of_enums_made_and_dropped_during_a_call() -> None:
    # Each call of default makes a new enum class and returns its member; the class and member
    # are dropped by the caller right away, so without holding them a later member could reuse
    # an earlier one's address and be packed with its value.
    count = 0

    def fresh_member(obj: object) -> Any:
        nonlocal count
        count += 1
        return functional_enum(enum.Enum, f"Fresh{count}", {"X": count})["X"]

    objs = [object() for _ in range(50)]
    assert fastmsgpack.packb(objs, default=fresh_member) == oracle_packb(list(range(1, 51)))
