"""A dataclass's field values are read by walking its instance ``__dict__`` in insertion order
alongside the field names, falling back to a lookup by name (then ``getattr``) where the next entry
is not the next field. Whatever the dict looks like, the output is the one a lookup of every field
by name gives: these tests build instance dicts in every shape the walk has to give up on."""

from __future__ import annotations

import dataclasses
import enum
import random
from typing import Any

import msgspec
import ormsgpack
import pytest
from conftest import assert_packs_like_ormsgpack, oracle_packb

import fastmsgpack
from fastmsgpack import MsgpackEncodeError


@dataclasses.dataclass
class Point:
    x: int
    y: str
    z: float = 0.5


@dataclasses.dataclass
class WithPrivate:
    a: int
    _hidden: int
    b: int
    _tail: int = 0


@dataclasses.dataclass
class Late:
    a: int
    b: int = dataclasses.field(init=False)
    c: int = 3

    def __post_init__(self) -> None:
        self.b = self.a * 10  # set after `c`: the dict's order is a, c, b


def expected_of(obj: Any) -> Any:
    """A lookup of every public field by name, with getattr where the dict lacks it."""
    if isinstance(obj, list):
        return [expected_of(item) for item in obj]
    return {
        f.name: getattr(obj, f.name) for f in dataclasses.fields(obj) if not f.name.startswith("_")
    }


def check(obj: Any, *, msgspec_agrees: bool = True) -> None:
    expected = oracle_packb(expected_of(obj))
    assert fastmsgpack.packb(obj) == expected
    assert assert_packs_like_ormsgpack(obj) == expected
    if msgspec_agrees:
        assert msgspec.msgpack.encode(obj) == expected


def test_dict_in_field_order() -> None:
    check(Point(1, "p"))
    check([Point(i, str(i), i / 3) for i in range(50)])


def test_field_set_after_the_others() -> None:
    value = Late(2)
    assert list(vars(value)) == ["a", "c", "b"]
    check(value)
    assert fastmsgpack.unpackb(fastmsgpack.packb(value)) == {"a": 2, "b": 20, "c": 3}


def test_private_fields_between_public_ones_are_passed_over() -> None:
    value = WithPrivate(1, 2, 3, 4)
    assert list(vars(value)) == ["a", "_hidden", "b", "_tail"]
    # msgspec packs the `_` fields too.
    check(value, msgspec_agrees=False)
    assert fastmsgpack.unpackb(fastmsgpack.packb(value)) == {"a": 1, "b": 3}


def test_dict_in_reverse_order() -> None:
    value = Point(1, "p", 2.5)
    entries = list(vars(value).items())
    vars(value).clear()
    vars(value).update(reversed(entries))
    assert list(vars(value)) == ["z", "y", "x"]
    packed = fastmsgpack.packb(value)
    assert packed == oracle_packb({"x": 1, "y": "p", "z": 2.5})
    assert packed == ormsgpack.packb(value)


def test_extra_keys_before_between_and_after_the_fields() -> None:
    value = Point(1, "p")
    vars(value).clear()
    vars(value).update({"first": 0, "x": 1, "middle": [2], "y": "p", "z": 0.5, "last": None})
    check(value, msgspec_agrees=False)  # msgspec packs every public entry of __dict__
    assert fastmsgpack.unpackb(fastmsgpack.packb(value)) == {"x": 1, "y": "p", "z": 0.5}


@dataclasses.dataclass
class Named:
    first_name: str
    last_name: str
    age: int = 0


def test_keys_equal_to_the_names_but_other_str_objects() -> None:
    value = Named("Ada", "Lovelace", 36)
    vars(value).clear()
    # Built at run time: equal to the field names, not the same (interned) objects.
    keys = [name.upper().lower() for name in ("first_name", "last_name", "age")]
    names = [f.name for f in dataclasses.fields(Named)]
    assert keys == names
    assert all(key is not name for key, name in zip(keys, names))
    for key, item in zip(keys, ["Grace", "Hopper", 85]):
        vars(value)[key] = item
    check(value)
    assert fastmsgpack.unpackb(fastmsgpack.packb(value)) == {
        "first_name": "Grace",
        "last_name": "Hopper",
        "age": 85,
    }


class Key(str):
    __slots__ = ()


def test_str_subclass_and_non_str_keys() -> None:
    value = Point(1, "p")
    entries: dict[Any, Any] = vars(value)
    entries.clear()
    entries[1] = "not a name"
    entries[Key("x")] = 5  # found by a lookup of "x": equal hash and text
    vars(value)["y"] = "q"
    vars(value)["z"] = 0.0
    packed = fastmsgpack.packb(value)
    assert packed == oracle_packb({"x": 5, "y": "q", "z": 0.0})
    assert packed == ormsgpack.packb(value)


def test_deleted_attributes_fall_back_to_getattr() -> None:
    value = Point(1, "p", 9.0)
    del value.z  # getattr finds the class default 0.5
    del value.x  # no value left at all
    vars(value)["x"] = 4  # set again: now after `y`
    assert list(vars(value)) == ["y", "x"]
    packed = fastmsgpack.packb(value)
    assert packed == oracle_packb({"x": 4, "y": "p", "z": 0.5})
    assert packed == ormsgpack.packb(value)
    del value.y
    with pytest.raises(MsgpackEncodeError, match="dataclass field could not be read"):
        fastmsgpack.packb(value)


@dataclasses.dataclass
class Guarded:
    name: str
    size: int = 0


def _size(self: Guarded) -> int:
    size: int = self.__dict__["_size"]
    return size * 2


def _set_size(self: Guarded, size: int) -> None:
    self.__dict__["_size"] = size


# A property over a field after the class is made: `__init__` then stores `_size`, and the field
# is read through the property.
Guarded.size = property(_size, _set_size)  # type: ignore[assignment]


def test_field_behind_a_property() -> None:
    value = Guarded("g", 21)
    assert list(vars(value)) == ["name", "_size"]
    packed = fastmsgpack.packb(value)
    assert packed == oracle_packb({"name": "g", "size": 42})
    assert packed == ormsgpack.packb(value)


@dataclasses.dataclass(slots=True)
class Slotted:
    a: int
    b: str


class SlottedWithDict(Slotted):
    """A subclass without __slots__: its instances have a __dict__ besides the slots."""


def test_slots_with_and_without_a_dict() -> None:
    check(Slotted(1, "s"))
    value = SlottedWithDict(2, "t")
    value.b_copy = "u"  # type: ignore[attr-defined]
    vars(value)["a"] = 99  # the dict's entry wins over the slot, as a lookup by name finds it
    packed = fastmsgpack.packb(value)
    assert packed == oracle_packb({"a": 99, "b": "t"})


class Tag:
    """An object packed by `default`, which changes the dataclass holding it."""

    def __init__(self, change: Any) -> None:
        self.change = change


@dataclasses.dataclass
class Holder:
    tag: Any
    after: Any = "before"
    last: Any = "last"


def test_dict_changed_by_default_while_packed() -> None:
    def run(change: Any) -> Any:
        holder = Holder(Tag(change))

        def default(obj: Any) -> Any:
            if isinstance(obj, Tag):
                obj.change(holder)
                return "tag"
            raise TypeError

        return fastmsgpack.unpackb(fastmsgpack.packb(holder, default=default))

    def replace(h: Holder) -> None:
        h.after = "replaced"

    def reorder(h: Holder) -> None:
        entries = list(vars(h).items())
        vars(h).clear()
        vars(h).update(reversed(entries))
        h.last = "reordered"

    def grow(h: Holder) -> None:
        for i in range(100):  # the dict's table is replaced
            setattr(h, f"extra{i}", i)
        h.after = "grown"

    def delete(h: Holder) -> None:
        del h.after  # the class default is read instead

    assert run(replace) == {"tag": "tag", "after": "replaced", "last": "last"}
    assert run(reorder) == {"tag": "tag", "after": "before", "last": "reordered"}
    assert run(grow) == {"tag": "tag", "after": "grown", "last": "last"}
    assert run(delete) == {"tag": "tag", "after": "before", "last": "last"}


class Mood(enum.Enum):
    GOOD = 1
    BAD = 2


class Count(int):
    pass


def _many_types() -> list[type]:
    """Six dataclass types: more than a call keeps in its memo of types."""
    return [
        dataclasses.make_dataclass(f"T{i}", [("n", int), (f"f{i}", Any), ("mood", Mood)])
        for i in range(6)
    ]


def test_many_types_interleaved() -> None:
    types = _many_types()
    rng = random.Random(5)
    doc = []
    expected = []
    for j in range(300):
        i = rng.randrange(len(types))
        # Count and Mood are classified by their lineage too: another memo, shared by the call.
        value = types[i](Count(j), [j, Count(i)], rng.choice(list(Mood)))
        doc.append(value)
        expected.append({"n": j, f"f{i}": [j, i], "mood": value.mood.value})
    packed = fastmsgpack.packb(doc)
    assert packed == oracle_packb(expected)
    assert packed == ormsgpack.packb(doc)  # msgspec refuses int subclasses


def test_types_made_and_dropped_during_the_call() -> None:
    made = 0

    def default(obj: Any) -> Any:
        nonlocal made
        made += 1
        cls = dataclasses.make_dataclass(f"Made{made}", [("k", int)])
        return cls(obj.k) if made % 2 else [cls(obj.k)]

    class Raw:
        def __init__(self, k: int) -> None:
            self.k = k

    doc = [Raw(k) for k in range(40)]
    out = fastmsgpack.unpackb(fastmsgpack.packb(doc, default=default))
    assert out == [{"k": k} if k % 2 == 0 else [{"k": k}] for k in range(40)]


@dataclasses.dataclass
class Address:
    street: str
    city: str
    zip: int


@dataclasses.dataclass
class Member:
    id: int
    name: str
    score: float
    active: bool
    tags: list[str]
    address: Address
    friends: list[int]


def test_generated_members_pack_as_the_peers_do() -> None:
    rng = random.Random(1)
    members = [
        Member(
            i,
            f"member-{rng.randrange(10**6)}",
            rng.random() * 100,
            rng.random() < 0.5,
            [f"t{rng.randrange(50)}" for _ in range(rng.randrange(5))],
            Address(f"{rng.randrange(999)} Main St", "Springfield", rng.randrange(10**5)),
            [rng.randrange(200) for _ in range(rng.randrange(8))],
        )
        for i in range(200)
    ]
    packed = fastmsgpack.packb(members)
    assert packed == ormsgpack.packb(members)
    assert packed == msgspec.msgpack.encode(members)
    assert packed == oracle_packb([dataclasses.asdict(m) for m in members])
