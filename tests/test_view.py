"""fastmsgpack.View: lazy, read-only views of MessagePack (doc/views.md)."""

from __future__ import annotations

import dataclasses
import datetime
import gc
import mmap
import threading
import weakref
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

import pytest

import fastmsgpack
from fastmsgpack import (
    OPT_DATETIME_AS_TIMESTAMP_EXT,
    OPT_NON_STR_KEYS,
    ArrayView,
    MapView,
    MsgpackDecodeError,
    ValidationError,
    View,
    packb,
    unpackb,
)

ROUTE: dict[str, Any] = {
    "id": 4242,
    "name": "north loop",
    "values": [0.5, 1.25, -3.0],
    "children": [{"id": i, "name": f"stop-{i}", "point": [i / 2, -i / 4]} for i in range(50)],
    "meta": {"tags": ["a", "b"], "ok": True, "none": None, "blob": b"\x00\x01"},
}
PACKED = packb(ROUTE)


def _map(view: object) -> MapView:
    """``view``, a ``MapView``: ``View(data)`` is typed as a ``View``, which may be either view."""
    assert isinstance(view, MapView)
    return view


def walk(value: Any) -> Any:
    if isinstance(value, MapView):
        return {k: walk(v) for k, v in value.items()}
    if isinstance(value, ArrayView):
        return [walk(v) for v in value]
    return value


def test_map_reads_as_a_mapping() -> None:
    view = View(PACKED)
    assert isinstance(view, MapView)
    assert isinstance(view, Mapping)
    assert isinstance(view, View)
    assert len(view) == 5
    assert view["id"] == 4242
    assert view["name"] == "north loop"
    assert "meta" in view
    assert "missing" not in view
    assert view.get("missing") is None
    assert view.get("missing", 7) == 7
    assert view.get("id") == 4242
    assert list(view) == list(ROUTE)
    assert view.keys() == list(ROUTE)
    assert [walk(v) for v in view.values()] == list(ROUTE.values())
    assert [(k, walk(v)) for k, v in view.items()] == list(ROUTE.items())
    assert dict(view)["id"] == 4242
    with pytest.raises(KeyError) as info:
        view["missing"]
    assert info.value.args == ("missing",)
    assert view.get(1) is None


def test_array_reads_as_a_sequence() -> None:
    children = View(PACKED)["children"]
    assert isinstance(children, ArrayView)
    assert isinstance(children, Sequence)
    assert len(children) == 50
    assert children[3]["name"] == "stop-3"
    assert children[-1]["id"] == 49
    assert children[-50]["id"] == 0
    assert [c["id"] for c in children[10:20:3]] == [10, 13, 16, 19]
    assert [c["id"] for c in children[::-1]][:3] == [49, 48, 47]
    assert children[60:] == []
    assert [c["id"] for c in children] == list(range(50))
    assert ROUTE["children"][7] in children
    assert {"id": -1} not in children
    assert children.get(100) is None
    assert children.get(-1)["id"] == 49
    with pytest.raises(IndexError):
        children[50]
    with pytest.raises(IndexError):
        children[-51]
    with pytest.raises(TypeError, match="integers or slices"):
        children["0"]
    values = View(PACKED)["values"]
    assert 1.25 in values
    assert list(values) == [0.5, 1.25, -3.0]


def test_equality_and_to_python() -> None:
    view = View(PACKED)
    assert view == ROUTE
    assert view != {**ROUTE, "id": 1}
    assert view["children"] == ROUTE["children"]
    assert view["children"][4] == ROUTE["children"][4]
    assert view == View(PACKED)
    assert view.to_python() == ROUTE
    assert view["meta"].to_python() == ROUTE["meta"]
    assert walk(view) == ROUTE


def test_buffer_gives_the_subtree_bytes() -> None:
    # Any: the stubs give views a __buffer__ from Python 3.12 (where the type has one), and
    # mypy checks this for 3.10.
    view: Any = View(PACKED)
    assert bytes(view) == PACKED
    assert bytes(view["meta"]) == packb(ROUTE["meta"])
    assert unpackb(view["children"]) == ROUTE["children"]
    assert unpackb(memoryview(view["children"][5])) == ROUTE["children"][5]
    assert memoryview(view).readonly
    with pytest.raises(TypeError, match="read-only"):
        memoryview(view)[0:1] = b"x"


def test_scalars_decode_as_unpackb_does() -> None:
    stamp = datetime.datetime(2024, 5, 1, 12, 0, tzinfo=datetime.timezone.utc)
    data = packb(
        {"when": stamp, "ext": fastmsgpack.Ext(5, b"xyz"), "big": 2**64 - 1, "neg": -(2**63)},
        option=fastmsgpack.OPT_DATETIME_AS_TIMESTAMP_EXT,
    )
    plain = View(data)
    assert plain["big"] == 2**64 - 1
    assert plain["neg"] == -(2**63)
    assert plain["when"] == unpackb(data)["when"]
    assert plain["ext"] == fastmsgpack.Ext(5, b"xyz")
    timed = View(data, option=OPT_DATETIME_AS_TIMESTAMP_EXT)
    assert timed["when"] == stamp
    hooked = View(data, ext_hook=lambda tag, raw: (tag, raw))
    assert hooked["ext"] == (5, b"xyz")
    assert hooked == unpackb(data, ext_hook=lambda tag, raw: (tag, raw))
    # A scalar document is decoded at once.
    assert View(packb("text")) == "text"
    assert View(packb(None)) is None


def test_keys_follow_the_options() -> None:
    data = packb({1: "one", (2, 3): "pair", "s": "str"}, option=OPT_NON_STR_KEYS)
    view = _map(View(data, option=OPT_NON_STR_KEYS))
    assert view[1] == "one"
    assert view[(2, 3)] == "pair"
    assert view["s"] == "str"
    assert view.keys() == [1, (2, 3), "s"]
    assert 4 not in view
    with pytest.raises(TypeError):
        view[[1]]  # unhashable, as for a dict
    strict = View(data)
    expected = str(pytest.raises(MsgpackDecodeError, unpackb, data).value)
    with pytest.raises(MsgpackDecodeError) as info:
        strict["s"]
    assert str(info.value) == expected


def test_repeated_keys() -> None:
    data = b"\x82\xa1a\x01\xa1a\x02"
    view = View(data)
    assert view["a"] == 1  # the first entry: a view reads no further than it must
    assert view.to_python() == unpackb(data) == {"a": 2}
    assert walk(view) == unpackb(data)
    assert len(view) == 2  # entries as stored


def test_inputs(tmp_path: Path) -> None:
    assert View(bytearray(PACKED)) == ROUTE
    assert View(memoryview(PACKED)) == ROUTE
    assert View(memoryview(b"xx" + PACKED)[2:]) == ROUTE
    path = tmp_path / "route.msgpack"
    path.write_bytes(PACKED)
    with path.open("rb") as f, mmap.mmap(f.fileno(), 0, access=mmap.ACCESS_READ) as m:
        view = View(m)
        assert view["children"][9]["name"] == "stop-9"
        # The view holds an export: the mapping cannot be closed under it.
        with pytest.raises(BufferError):
            m.close()
        del view
    with pytest.raises(TypeError, match="View\\(\\) argument must be bytes"):
        View("text")  # type: ignore[call-overload]


def test_bytearray_changed_after_creation() -> None:
    data = bytearray(PACKED)
    view = View(data)
    children = view["children"]
    data.clear()
    data.extend(b"\xc1" * 10)
    assert children[49]["name"] == "stop-49"
    assert view == ROUTE


def test_validation_at_creation() -> None:
    for bad in (PACKED[:-1], PACKED + b"\x00", b"", b"\x91\xc1", b"\x81\xa1a\xd9\x05ab"):
        expected = pytest.raises(MsgpackDecodeError, unpackb, bad).value
        with pytest.raises(MsgpackDecodeError) as info:
            View(bad)
        assert "at byte offset" in str(info.value)
        assert type(expected) is type(info.value)


def test_lazy_errors_surface_at_access() -> None:
    truncated = PACKED[: PACKED.index(b"stop-30")]
    view = View(truncated, validate=False)
    assert view["id"] == 4242
    children = view["children"]
    assert children[29]["name"] == "stop-29"
    assert children[30]["id"] == 30
    for _ in range(2):  # the same error each time: nothing half-recorded
        with pytest.raises(MsgpackDecodeError) as info:
            children[30]["name"]
        assert info.value.kind == "truncated"
    with pytest.raises(MsgpackDecodeError):
        view["meta"]
    with pytest.raises(MsgpackDecodeError):
        view.to_python()
    with pytest.raises(MsgpackDecodeError):
        bytes(children)
    with pytest.raises(MsgpackDecodeError) as info:
        View(packb(1) + b"\x00", validate=False)
    assert (info.value.kind, info.value.offset) == ("trailing", 1)


def test_nesting_limit() -> None:
    deep = b"\x91" * 1100 + b"\x00"
    expected = str(pytest.raises(MsgpackDecodeError, unpackb, deep).value)
    with pytest.raises(MsgpackDecodeError) as info:
        View(deep)
    assert str(info.value) == expected
    view = View(deep, validate=False)
    with pytest.raises(MsgpackDecodeError) as info:
        for _ in range(1100):
            view = view[0]
    assert info.value.kind == "too_deep"


@dataclasses.dataclass
class Stop:
    id: int
    name: str
    point: list[float]


@dataclasses.dataclass
class Route:
    id: int
    name: str
    values: list[float]
    children: list[Stop]
    meta: dict[str, Any]


def test_typed_reads() -> None:
    view = View(PACKED, type=Route)
    assert isinstance(view, MapView)
    children = view["children"]
    assert isinstance(children, ArrayView)
    stop = children[12]
    assert stop == Stop(12, "stop-12", [6.0, -3.0])
    assert view["id"] == 4242
    assert view["meta"]["tags"][1] == "b"
    assert view.to_python() == unpackb(PACKED, type=Route)
    plain = View(PACKED)
    assert plain["children"].get(3, type=Stop) == Stop(3, "stop-3", [1.5, -0.75])
    assert plain.get("children", type=list[Stop])[0] == Stop(0, "stop-0", [0.0, -0.0])
    assert plain["children"][2].to_python(type=Stop) == Stop(2, "stop-2", [1.0, -0.5])
    with pytest.raises(ValidationError):
        plain.get("name", type=int)
    wrong = packb({**ROUTE, "id": "not an int"})
    assert View(wrong, type=Route)["name"] == "north loop"
    with pytest.raises(ValidationError):
        View(wrong, type=Route)["id"]


def test_threads_share_the_tables() -> None:
    data = packb({"items": [{"n": i, "s": str(i)} for i in range(2000)]})
    view = View(data)
    errors: list[BaseException] = []

    def read(start: int) -> None:
        try:
            items = view["items"]
            for i in range(start, 2000, 7):
                assert items[i]["n"] == i
                assert items[i]["s"] == str(i)
        except BaseException as exc:  # noqa: BLE001
            errors.append(exc)

    threads = [threading.Thread(target=read, args=(k,)) for k in range(7)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert errors == []


def test_views_keep_the_document_alive() -> None:
    data = bytes(PACKED)
    inner = View(data)["children"][3]
    del data
    assert inner["point"] == [1.5, -0.75]
    assert repr(inner).startswith("<MapView of 3 entries at byte ")


def _plain(value: Any) -> Any:
    if isinstance(value, (MapView, ArrayView)):
        return value.to_python()
    return value


def test_reads_in_one_pass() -> None:
    """items(), keys(), values() and iteration read a whole container with one decoder: every
    kind of item comes out as unpackb makes it, and an error stops the pass."""
    doc = {
        "int": -(2**63),
        "big": 2**64 - 1,
        "float": 1.5,
        "str": "é" * 40,
        "bin": b"\x00\x01",
        "nil": None,
        "bool": True,
        "list": [1, "two", [3], {"four": 4}],
        "map": {"k": "v"},
    }
    data = packb(doc)
    view = _map(View(data))
    assert view.keys() == list(doc)
    assert [_plain(v) for v in view.values()] == list(doc.values())
    assert {k: _plain(v) for k, v in view.items()} == doc
    assert [_plain(v) for v in view["list"]] == doc["list"]
    assert isinstance(view["list"][3], MapView)
    # The same keys as unpackb's, options included.
    stamped = packb({1: [2]}, option=fastmsgpack.OPT_NON_STR_KEYS)
    with pytest.raises(MsgpackDecodeError):
        _map(View(stamped)).items()
    assert _map(View(stamped, option=fastmsgpack.OPT_NON_STR_KEYS)).keys() == [1]
    # A truncated input, read lazily: the pass raises, again and again.
    cut = View(packb([1, 2, "three" * 10])[:-5], validate=False)
    for _ in range(2):
        with pytest.raises(MsgpackDecodeError):
            list(cut)
    cut_map = _map(View(packb({"a": 1, "b": "two" * 10})[:-5], validate=False))
    for read in (cut_map.items, cut_map.values):
        with pytest.raises(MsgpackDecodeError):
            read()
    # The last value is never passed over to list the keys.
    assert cut_map.keys() == ["a", "b"]


def test_cycles_through_hooks_are_collected() -> None:
    """A hook (or its object) that refers back to a view makes a cycle through the document,
    which holds the hook: the garbage collector sees it and frees both."""

    class Hooks:
        view: Any = None

        def ext(self, code: int, data: bytes) -> Any:
            return (code, data)

        def dec(self, tp: Any, value: Any) -> Any:
            return value

    makers: list[Callable[[Hooks], Any]] = [
        lambda h: View(PACKED, ext_hook=h.ext),
        lambda h: View(PACKED, dec_hook=h.dec, type=Route),
    ]
    for make in makers:
        hooks = Hooks()
        view = make(hooks)
        hooks.view = view["children"]
        gone = weakref.ref(hooks)
        del hooks, view
        gc.collect()
        assert gone() is None


def test_views_without_hooks_are_left_to_reference_counting() -> None:
    """A view of a document read with no hook and no type cannot be part of a cycle: the
    garbage collector does not track it (reference counting frees it). With a hook or a type
    every view is tracked, so that cycles through them are found (the test above)."""
    view = View(PACKED)
    children = view["children"]
    assert not gc.is_tracked(view)
    assert not gc.is_tracked(children)
    assert not any(gc.is_tracked(v) for v in children)
    assert walk(view) == unpackb(PACKED)
    for hooked in (View(PACKED, ext_hook=lambda c, d: d), View(PACKED, type=Route)):
        assert gc.is_tracked(hooked)
        assert gc.is_tracked(hooked["children"])


class _BytesWithAttributes(bytes):
    """Bytes that can hold an attribute, such as a view of themselves."""


class _Sentinel:
    pass


@pytest.mark.parametrize("through", ["bytes subclass", "memoryview", "child view"])
def test_cycles_through_the_input_are_collected(through: str) -> None:
    """A view keeps its input; an input that refers back to a view of itself (through an
    attribute) forms a cycle, which the garbage collector frees like any other."""
    data: Any = _BytesWithAttributes(PACKED)
    view = View(memoryview(data) if through == "memoryview" else data)
    assert gc.is_tracked(view)
    data.view = view["children"] if through == "child view" else view
    sentinel = _Sentinel()
    data.sentinel = sentinel
    gone = weakref.ref(sentinel)
    del data, view, sentinel
    gc.collect()
    assert gone() is None, f"a cycle through the input ({through}) was not collected"


def test_items_of_a_long_array_in_any_order() -> None:
    """Items are found again from the starts kept every few items, in any order of reads."""
    items: list[Any] = [i if i % 3 else {"i": i, "p": [i, -i]} for i in range(1000)]
    data = packb({"items": items})
    order = [999, 0, 17, 16, 15, 500, 1, 998, 31, 32, 33, 250, -1, -1000]
    for validate in (True, False):
        view = View(data, validate=validate)["items"]
        for i in order:
            assert _plain(view[i]) == items[i], (validate, i)
        assert [_plain(v) for v in view] == items
        assert _plain(view[40:70:3]) == items[40:70:3]
        assert bytes(view) == packb(items)
    fresh = View(data)["items"]
    assert [_plain(v) for v in fresh] == items


def test_a_container_hands_out_the_same_view_again() -> None:
    view = _map(View(PACKED))
    children = view["children"]
    assert view["children"] is children
    assert view.get("children") is children
    assert children[3] is children[3] is children[-(len(children) - 3)]
    assert children[3]["point"] is children[3]["point"]
    # A pass hands out the views kept, and makes new ones for the others.
    passed = list(children)
    assert passed[3] is children[3]
    assert passed[4] is not children[4]
    assert passed[4] == children[4]
    assert dict(view.items())["children"] is children


def _entries(view: MapView) -> list[tuple[Any, Any]]:
    return [(k, _plain(v)) for k, v in view.items()]


def test_a_map_read_whole_once_or_through_its_table() -> None:
    """A map's first items(), keys() or values() reads it in one pass over its bytes; once its
    table is made (by a read that needed every entry) they read through the table. Both give
    the same entries, containers as keys and repeated keys included, checked or not."""
    doc = {
        (1, (2, 3)): {"nested": [1, {"x": "y" * 40}]},
        "s" * 40: [[], {}, [[1]]],
        7: b"\x00" * 300,
        -1.5: None,
        "tail": {"k": (1, 2)},
    }
    data = packb(doc, option=OPT_NON_STR_KEYS)
    expected = [(k, unpackb(packb(v), option=OPT_NON_STR_KEYS)) for k, v in doc.items()]
    repeated = b"\x83\xa1a\x91\x01\xa1b\x80\xa1a\x81\xa1c\xc0"
    for validate in (True, False):
        for make_table in (False, True):
            view = _map(View(data, option=OPT_NON_STR_KEYS, validate=validate))
            if make_table:
                assert bytes(view) == data  # finds every entry, and where the map ends
            assert _entries(view) == expected, (validate, make_table)
            assert view.keys() == [k for k, _ in expected]
            assert [_plain(v) for v in view.values()] == [v for _, v in expected]
            assert view["tail"]["k"] == [1, 2]
            assert view[(1, (2, 3))]["nested"][1]["x"] == "y" * 40
            twice = _map(View(repeated, validate=validate))
            if make_table:
                bytes(twice)
            assert _entries(twice) == [("a", [1]), ("b", {}), ("a", {"c": None})]
            assert twice["a"] == [1]


def test_a_bad_key_stops_a_pass_as_unpackb_stops() -> None:
    """A key unpackb refuses, after good entries, stops items(), keys() and values() with the
    error unpackb gives, each time, whether the map was read before or not."""
    data = b"\x83\xa1a\x01\x01\x02\xa1b\x03"  # {"a": 1, 1: 2, "b": 3}, an int key
    expected = str(pytest.raises(MsgpackDecodeError, unpackb, data).value)
    for validate in (True, False):
        view = _map(View(data, validate=validate))
        assert view["a"] == 1
        for read in (view.items, view.keys, view.values, view.items):
            with pytest.raises(MsgpackDecodeError) as info:
                read()
            assert str(info.value) == expected
    bad_utf8 = b"\x82\xa1a\x01\xa2\xff\xfe\x02"
    expected = str(pytest.raises(MsgpackDecodeError, unpackb, bad_utf8).value)
    with pytest.raises(MsgpackDecodeError) as info:
        _map(View(bad_utf8, validate=False)).items()
    assert str(info.value) == expected


def test_strs_and_bins_of_every_width_are_passed_over() -> None:
    """Reading a key after values of each str and bin header width (and an array after them)
    passes over them by their declared length, checked or not."""
    doc: dict[str, Any] = {
        "fix": "f" * 31,
        "s8": "a" * 200,
        "s16": "b" * 300,
        "s32": "c" * 70_000,
        "b8": b"\x01" * 200,
        "b16": b"\x02" * 300,
        "b32": b"\x03" * 70_000,
        "last": [1, {"k": "v"}],
    }
    data = packb(doc)
    for validate in (True, False):
        view = _map(View(data, validate=validate))
        assert view["last"][1]["k"] == "v"
        assert view.keys() == list(doc)
        items = View(data, validate=validate)["last"]
        assert _plain(items[1]) == {"k": "v"}
        array = View(packb(list(doc.values())), validate=validate)
        assert _plain(array[7]) == doc["last"]
        assert array[3] == doc["s32"]
