"""Named tuples (classes made by collections.namedtuple or typing.NamedTuple) pack as the array of
their items, byte for byte as msgpack-python (use_bin_type=True) and msgspec pack them, so that a
typed decoder can build them again. JSON output (json.dumps, and packb with OPT_JSON_COMPAT) writes
the same array, as the standard library's json does (orjson refuses them: a listed difference). OPT_PASSTHROUGH_TUPLE and OPT_PASSTHROUGH_SUBCLASS send them to
`default`; as dict keys (OPT_NON_STR_KEYS) they are packed as tuple keys are. Other tuple
subclasses still go to `default`."""

from __future__ import annotations

import collections
import dataclasses
import gc
import io
import json as stdlib_json
import sys
import sysconfig
from typing import Any, ClassVar, NamedTuple

import msgpack  # type: ignore[import-untyped]
import msgspec
import orjson
import ormsgpack
import pytest
from conftest import examples, oracle_packb
from hypothesis import given, settings
from hypothesis import strategies as st

import fastmsgpack
from fastmsgpack import (
    OPT_JSON_COMPAT,
    OPT_NON_STR_KEYS,
    OPT_PASSTHROUGH_SUBCLASS,
    OPT_PASSTHROUGH_TUPLE,
    OPT_SORT_KEYS,
    MsgpackEncodeError,
    compat,
    json,
)

Point = collections.namedtuple("Point", "x y")
Empty = collections.namedtuple("Empty", [])
WithDefaults = collections.namedtuple("WithDefaults", "a b c", defaults=(2, 3))


class Pair(NamedTuple):
    a: int
    b: str


class Point3(Point):
    """A subclass of a named tuple class: still a named tuple (`_fields` is inherited)."""

    def norm(self) -> float:
        return float(abs(self.x) + abs(self.y))


class Labelled(Pair):
    __slots__ = ()


class MyTuple(tuple[Any, ...]):
    """A tuple subclass that is not a named tuple."""


class FakeFields(tuple[Any, ...]):
    """A tuple subclass whose `_fields` is not a tuple: not a named tuple."""

    _fields: ClassVar[list[str]] = ["a", "b"]


@dataclasses.dataclass
class Box:
    item: Any
    label: str = "box"


NAMED_TUPLES: list[Any] = [
    Point(1, 2),
    Point(x=-1.5, y="text"),
    Empty(),
    WithDefaults(1),
    Pair(7, "b"),
    Point3(3, 4),
    Labelled(1, "l"),
    Point(Pair(1, "a"), [Empty(), {"k": Point(None, b"\x00")}]),
    Point(list(range(20)), "x" * 40),
]
IDS = [repr(v)[:40] for v in NAMED_TUPLES]
# Those JSON can hold (no bytes).
JSON_NAMED_TUPLES = [v for v in NAMED_TUPLES if "b'" not in repr(v)]
JSON_IDS = [repr(v)[:40] for v in JSON_NAMED_TUPLES]


@pytest.mark.parametrize("value", NAMED_TUPLES, ids=IDS)
def test_packs_as_array_like_msgpack_python_and_msgspec(value: Any) -> None:
    packed = fastmsgpack.packb(value)
    assert packed == oracle_packb(value)
    assert packed == msgspec.msgpack.encode(value)
    assert fastmsgpack.packb([value, {"v": value}]) == oracle_packb([value, {"v": value}])


@pytest.mark.parametrize("value", NAMED_TUPLES, ids=IDS)
def test_unpacks_as_list_of_items(value: Any) -> None:
    packed = fastmsgpack.packb(value)
    assert fastmsgpack.unpackb(packed) == msgpack.unpackb(packed)
    assert fastmsgpack.unpackb(packed) == fastmsgpack.unpackb(fastmsgpack.packb(list(value)))


def test_large_named_tuple_header() -> None:
    Wide = collections.namedtuple("Wide", [f"f{i}" for i in range(70_000)])  # type: ignore[misc]
    value = Wide(*range(70_000))
    assert fastmsgpack.packb(value) == oracle_packb(value)


def test_default_is_not_called() -> None:
    def default(obj: Any) -> Any:
        raise AssertionError(f"default called for {obj!r}")

    value = [Point(1, 2), Pair(3, "c"), Point3(5, 6)]
    assert fastmsgpack.packb(value, default=default) == oracle_packb(value)


def test_items_go_through_default() -> None:
    class Opaque:
        pass

    calls: list[Any] = []

    def default(obj: Any) -> Any:
        calls.append(obj)
        return "converted"

    item = Opaque()
    packed = fastmsgpack.packb(Point(item, 1), default=default)
    assert packed == oracle_packb(["converted", 1])
    assert calls == [item]


# --- generated documents, msgpack-python as the oracle -----------------------------------------

leaves = (
    st.none()
    | st.booleans()
    | st.integers(min_value=-(2**63), max_value=2**64 - 1)
    | st.floats()
    | st.text(max_size=20)
)


def plain(value: Any) -> Any:
    """``value`` with each dataclass instance as the dict of its fields (what packb writes for
    it), named tuples and everything else kept, for msgpack-python to pack."""
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return {f.name: plain(getattr(value, f.name)) for f in dataclasses.fields(value)}
    if isinstance(value, tuple) and hasattr(type(value), "_fields"):
        return type(value)(*map(plain, value))
    if isinstance(value, list):
        return [plain(v) for v in value]
    if isinstance(value, dict):
        return {k: plain(v) for k, v in value.items()}
    return value


def documents_of(leaves: st.SearchStrategy[Any]) -> st.SearchStrategy[Any]:
    return st.recursive(
        leaves,
        lambda inner: (
            st.lists(inner, max_size=4)
            | st.dictionaries(st.text(max_size=5), inner, max_size=4)
            | st.builds(Point, inner, inner)
            | st.builds(Pair, inner, inner)
            | st.builds(Point3, inner, inner)
            | st.builds(Box, inner)
            | st.just(Empty())
        ),
        max_leaves=30,
    )


documents = documents_of(leaves | st.binary(max_size=20))
# What JSON holds: no binary; NaN and infinities are null in both orjson and fastmsgpack.json.
json_documents = documents_of(leaves)
hashable = st.recursive(
    st.none() | st.booleans() | st.integers(-(2**63), 2**64 - 1) | st.text(max_size=5),
    lambda inner: st.builds(Point, inner, inner) | st.builds(Pair, inner, inner),
    max_leaves=6,
)


@settings(max_examples=examples(300), deadline=None)
@given(value=documents)
def test_generated_documents_pack_like_msgpack_python(value: Any) -> None:
    assert fastmsgpack.packb(value) == oracle_packb(plain(value))


@settings(max_examples=examples(200), deadline=None)
@given(value=st.dictionaries(hashable, documents, max_size=5))
def test_generated_named_tuple_keys_pack_like_msgpack_python(value: dict[Any, Any]) -> None:
    assert fastmsgpack.packb(value, option=OPT_NON_STR_KEYS) == oracle_packb(plain(value))


# --- options -----------------------------------------------------------------------------------


class Recorder:
    def __init__(self) -> None:
        self.calls: list[Any] = []

    def __call__(self, obj: Any) -> Any:
        self.calls.append(obj)
        return {"type": type(obj).__name__, "items": list(obj)}


@pytest.mark.parametrize("option", [OPT_PASSTHROUGH_TUPLE, OPT_PASSTHROUGH_SUBCLASS])
@pytest.mark.parametrize("value", [Point(1, 2), Pair(1, "b"), Point3(1, 2), Empty()], ids=repr)
def test_passthrough_options_send_named_tuples_to_default(value: Any, option: int) -> None:
    default = Recorder()
    packed = fastmsgpack.packb([value], default=default, option=option)
    assert packed == oracle_packb([{"type": type(value).__name__, "items": list(value)}])
    assert len(default.calls) == 1
    assert default.calls[0] is value
    with pytest.raises(MsgpackEncodeError, match=type(value).__name__):
        fastmsgpack.packb([value], option=option)


def test_passthrough_tuple_sends_them_with_plain_tuples() -> None:
    """ormsgpack (which refuses named tuples) passes plain tuples to default under
    OPT_PASSTHROUGH_TUPLE: named tuples go there with them."""
    default = Recorder()
    value = [(1, 2), Point(3, 4)]
    packed = fastmsgpack.packb(value, default=default, option=OPT_PASSTHROUGH_TUPLE)
    assert default.calls == value
    assert [type(call) for call in default.calls] == [tuple, Point]
    theirs = ormsgpack.packb((1, 2), default=Recorder(), option=ormsgpack.OPT_PASSTHROUGH_TUPLE)
    assert packed == b"\x92" + theirs + oracle_packb({"type": "Point", "items": [3, 4]})


def test_passthrough_subclass_keeps_plain_tuples() -> None:
    default = Recorder()
    packed = fastmsgpack.packb(
        [(1, 2), Point(3, 4)], default=default, option=OPT_PASSTHROUGH_SUBCLASS
    )
    assert packed == oracle_packb([[1, 2], {"type": "Point", "items": [3, 4]}])
    assert default.calls == [Point(3, 4)]


@pytest.mark.parametrize(
    "option", [None, OPT_PASSTHROUGH_TUPLE, OPT_PASSTHROUGH_SUBCLASS, OPT_NON_STR_KEYS]
)
@pytest.mark.parametrize("value", [MyTuple((1, 2)), MyTuple(()), FakeFields((1, 2))], ids=repr)
def test_other_tuple_subclasses_still_go_to_default(value: Any, option: int | None) -> None:
    default = Recorder()
    packed = fastmsgpack.packb([value], default=default, option=option)
    assert packed == oracle_packb([{"type": type(value).__name__, "items": list(value)}])
    assert default.calls == [value]
    assert default.calls[0] is value
    with pytest.raises(MsgpackEncodeError, match="Type is not MessagePack serializable"):
        fastmsgpack.packb([value], option=option)
    # As orjson and ormsgpack do (msgpack-python and msgspec pack them as arrays).
    with pytest.raises(TypeError):
        ormsgpack.packb(value)


@pytest.mark.parametrize("key", [Point(1, "a"), Pair(2, "b"), Point3(1, 2), Empty()], ids=repr)
def test_named_tuple_keys_pack_as_tuple_keys(key: Any) -> None:
    value = {key: Point(0, 1)}
    packed = fastmsgpack.packb(value, option=OPT_NON_STR_KEYS)
    assert packed == oracle_packb(value)
    assert packed == fastmsgpack.packb({tuple(key): [0, 1]}, option=OPT_NON_STR_KEYS)
    # Keys are not values: the passthrough options do not apply to them.
    for option in (OPT_PASSTHROUGH_TUPLE, OPT_PASSTHROUGH_SUBCLASS):
        assert fastmsgpack.packb(
            {key: 1}, default=lambda obj: "default", option=OPT_NON_STR_KEYS | option
        ) == oracle_packb({key: 1})
    unpacked = fastmsgpack.unpackb(packed, option=OPT_NON_STR_KEYS)
    assert unpacked == {tuple(key): [0, 1]}
    with pytest.raises(MsgpackEncodeError, match="dict key must be str, not"):
        fastmsgpack.packb({key: 1})


def test_named_tuple_key_with_unsupported_item_is_error() -> None:
    with pytest.raises(MsgpackEncodeError):
        fastmsgpack.packb({Point(1, frozenset()): 1}, option=OPT_NON_STR_KEYS)


def test_sort_keys_sorts_maps_inside_and_keeps_field_order() -> None:
    value = {"b": Pair({"z": 1, "a": 2}, "s"), "a": Point(2, 1)}  # type: ignore[arg-type]
    packed = fastmsgpack.packb(value, option=OPT_SORT_KEYS)
    assert packed == oracle_packb({"a": Point(2, 1), "b": Pair({"a": 2, "z": 1}, "s")})  # type: ignore[arg-type]
    assert packed == ormsgpack.packb(
        {"a": [2, 1], "b": [{"z": 1, "a": 2}, "s"]}, option=ormsgpack.OPT_SORT_KEYS
    )


def test_sort_keys_refuses_named_tuple_keys_like_tuple_keys() -> None:
    for key in (Point(1, 2), (1, 2)):
        with pytest.raises(MsgpackEncodeError, match="OPT_SORT_KEYS"):
            fastmsgpack.packb({key: 1}, option=OPT_SORT_KEYS | OPT_NON_STR_KEYS)


def test_packer_pack_and_pack_into() -> None:
    value = {"points": [Point(i, -i) for i in range(100)], "pair": Pair(1, "b")}
    expected = oracle_packb(value)
    packer = fastmsgpack.Packer()
    assert packer.pack(value) == expected
    assert packer.pack(value) == expected
    buffer = bytearray(b"head")
    packer.pack_into(value, buffer, 4)
    assert bytes(buffer) == b"head" + expected
    out = io.BytesIO()
    fastmsgpack.pack(value, out)
    assert out.getvalue() == expected
    default = Recorder()
    passing = fastmsgpack.Packer(default=default, option=OPT_PASSTHROUGH_TUPLE)
    assert passing.pack(Point(1, 2)) == oracle_packb({"type": "Point", "items": [1, 2]})
    assert default.calls == [Point(1, 2)]


# --- JSON: orjson as the oracle ----------------------------------------------------------------


def orjson_default(obj: Any) -> Any:
    return {"type": type(obj).__name__, "fields": list(getattr(obj, "_fields", ()))}


@pytest.mark.parametrize("value", JSON_NAMED_TUPLES, ids=JSON_IDS)
def test_json_dumps_writes_named_tuples_as_packb_packs_them(value: Any) -> None:
    # One rule for both formats: the array of the items, as packb packs it and as the standard
    # library's json writes it; orjson refuses them (doc/json.md lists the difference).
    doc = {"v": [value, 1]}
    assert json.dumps(doc) == stdlib_json.dumps(doc, separators=(",", ":")).encode()
    assert stdlib_json.loads(json.dumps(doc)) == fastmsgpack.unpackb(fastmsgpack.packb(doc))
    assert json.dumps(doc, option=json.OPT_SORT_KEYS) == json.dumps(doc)
    with pytest.raises(TypeError):
        orjson.dumps(value)
    # The passthrough options still hand them to `default`, as packb does.
    assert json.dumps(
        doc, default=orjson_default, option=json.OPT_PASSTHROUGH_SUBCLASS
    ) == orjson.dumps(doc, default=orjson_default, option=orjson.OPT_PASSTHROUGH_SUBCLASS)
    assert fastmsgpack.unpackb(
        fastmsgpack.packb(doc, default=orjson_default, option=OPT_PASSTHROUGH_SUBCLASS)
    ) == stdlib_json.loads(
        json.dumps(doc, default=orjson_default, option=json.OPT_PASSTHROUGH_SUBCLASS)
    )


def test_json_dumps_still_hands_other_tuple_subclasses_to_default() -> None:
    value = MyTuple((1,))
    with pytest.raises(TypeError) as orjson_error:
        orjson.dumps(value)
    with pytest.raises(json.JSONEncodeError) as ours:
        json.dumps(value)
    assert str(ours.value) == str(orjson_error.value)
    assert json.dumps([value], default=orjson_default) == orjson.dumps(
        [value], default=orjson_default
    )


def test_json_dumps_refuses_named_tuple_keys_like_orjson() -> None:
    for key in (Point(1, 2), (1, 2)):
        with pytest.raises(TypeError):
            orjson.dumps({key: 1}, option=orjson.OPT_NON_STR_KEYS)
        with pytest.raises(json.JSONEncodeError):
            json.dumps({key: 1}, option=json.OPT_NON_STR_KEYS)


@settings(max_examples=examples(200), deadline=None)
@given(value=json_documents)
def test_generated_json_like_orjson(value: Any) -> None:
    # orjson, given the named tuples as the lists of their items, as json.dumps writes them.
    expected = orjson.dumps(as_lists(value))
    assert json.dumps(value) == expected
    packed = fastmsgpack.packb(value, option=OPT_JSON_COMPAT)
    assert fastmsgpack.unpackb(packed) == orjson.loads(expected)


def as_lists(value: Any) -> Any:
    """`value` with every named tuple replaced by the list of its items (recursively)."""
    if isinstance(value, tuple):
        return [as_lists(item) for item in value]
    if isinstance(value, list):
        return [as_lists(item) for item in value]
    if isinstance(value, dict):
        return {key: as_lists(item) for key, item in value.items()}
    if isinstance(value, Box):
        return {"item": as_lists(value.item), "label": value.label}
    return value


@pytest.mark.parametrize("value", JSON_NAMED_TUPLES, ids=JSON_IDS)
def test_json_compat_reads_back_as_json_dumps(value: Any) -> None:
    doc = {"v": [value]}
    packed = fastmsgpack.packb(doc, option=OPT_JSON_COMPAT)
    assert fastmsgpack.unpackb(packed) == stdlib_json.loads(json.dumps(doc))
    assert packed == fastmsgpack.packb(doc)


# --- fastmsgpack.compat: msgpack-python as the oracle ------------------------------------------


@pytest.mark.parametrize("strict_types", [False, True])
@pytest.mark.parametrize("use_bin_type", [True, False])
@pytest.mark.parametrize(
    "value", [Point(1, 2), Pair(1, "b"), Point3(1, "x"), MyTuple((1,)), (Point(1, 2),)], ids=repr
)
def test_compat_packs_like_msgpack_python(
    value: Any, strict_types: bool, use_bin_type: bool
) -> None:
    options = {"strict_types": strict_types, "use_bin_type": use_bin_type}

    def outcome(module: Any, **extra: Any) -> Any:
        try:
            return module.packb([value], **options, **extra)
        except Exception as exc:  # noqa: BLE001
            return type(exc)

    assert outcome(compat) == outcome(msgpack)
    assert outcome(compat, default=repr) == outcome(msgpack, default=repr)
    if strict_types:
        assert outcome(compat) is TypeError


# --- cycles and reference counts ---------------------------------------------------------------


def test_named_tuple_in_a_cycle_is_error() -> None:
    items: list[Any] = []
    cycle = Point(items, 1)
    items.append(cycle)
    with pytest.raises(MsgpackEncodeError, match="circular reference"):
        fastmsgpack.packb(cycle)
    holder: dict[str, Any] = {}
    looped = Pair(holder, "x")  # type: ignore[arg-type]
    holder["back"] = [looped]
    with pytest.raises(MsgpackEncodeError, match="circular reference"):
        fastmsgpack.packb({"root": looped})


def test_reference_counts_unchanged() -> None:
    item = "an item" * 3
    named = Point(item, [item])
    pair = Pair(1, item)
    key = Point(1, "k")
    default = Recorder()
    tracked: list[Any] = [item, named, pair, key, default]
    if not sysconfig.get_config_var("Py_GIL_DISABLED"):
        # Free-threaded CPython counts the references to a class that its instances hold per
        # thread, where getrefcount does not see them: classes are checked with the GIL only.
        tracked += [Point, Pair]
    gc.collect()
    before = [sys.getrefcount(obj) for obj in tracked]
    for _ in range(2_000):
        fastmsgpack.packb([named, pair, {"n": named}])
        fastmsgpack.packb({key: named}, option=OPT_NON_STR_KEYS)
        fastmsgpack.packb(named, default=default, option=OPT_PASSTHROUGH_TUPLE)
        json.dumps([named], default=default)
        with pytest.raises(MsgpackEncodeError):
            fastmsgpack.packb([named, object()])
        with pytest.raises(MsgpackEncodeError):
            fastmsgpack.packb(pair, option=OPT_PASSTHROUGH_TUPLE)
        with pytest.raises(MsgpackEncodeError):
            json.dumps(named, option=OPT_PASSTHROUGH_TUPLE)
        default.calls.clear()
    gc.collect()
    assert [sys.getrefcount(obj) for obj in tracked] == before


def test_compat_ext_type_is_an_extension_at_any_depth() -> None:
    """compat's ExtType is a named tuple that msgpack-python packs as an extension value."""

    class MyExt(compat.ExtType):
        __slots__ = ()

    ours = [compat.ExtType(1, b"x"), {"k": [compat.ExtType(2, b"")]}, MyExt(3, b"y")]
    theirs = [msgpack.ExtType(1, b"x"), {"k": [msgpack.ExtType(2, b"")]}, msgpack.ExtType(3, b"y")]
    assert compat.packb(ours) == msgpack.packb(theirs)
    assert compat.packb(ours, use_bin_type=False) == msgpack.packb(theirs, use_bin_type=False)
    assert compat.packb(ours[:2], strict_types=True) == msgpack.packb(theirs[:2], strict_types=True)

    # Under strict_types a subclass of ExtType is refused by both.
    class TheirExt(msgpack.ExtType):  # type: ignore[misc]
        __slots__ = ()

    with pytest.raises(TypeError):
        msgpack.packb([TheirExt(3, b"y")], strict_types=True)
    with pytest.raises(TypeError):
        compat.packb([MyExt(3, b"y")], strict_types=True)
    # The native packb hands them to default too, rather than packing an array.
    with pytest.raises(MsgpackEncodeError, match="Type is not MessagePack serializable: ExtType"):
        fastmsgpack.packb([compat.ExtType(1, b"x")])
    assert fastmsgpack.packb(MyExt(3, b"y"), default=lambda ext: fastmsgpack.Ext(*ext)) == (
        msgpack.packb(msgpack.ExtType(3, b"y"))
    )
