"""Encode errors say where and what, as data: `kind` (from the core's one list of kinds), `path`
(`$.rows[3].x`, built while the error unwinds) and `type` (the type refused); a circular
reference is named as one. json.dumps's errors carry the same data."""

from __future__ import annotations

import dataclasses
from typing import Any, NamedTuple

import pytest

import fastmsgpack
import fastmsgpack.json
from fastmsgpack import MsgpackEncodeError


@dataclasses.dataclass
class Point:
    x: Any
    y: int = 0


class LatLon(NamedTuple):
    lat: float
    lon: float


def test_unsupported_type_names_the_path() -> None:
    doc = {"rows": [{"x": 1}, {"x": 2}, {"x": 3}, {"x": 1j}]}
    with pytest.raises(MsgpackEncodeError) as info:
        fastmsgpack.packb(doc)
    err = info.value
    assert str(err) == "Type is not MessagePack serializable: complex at $.rows[3].x"
    assert (err.kind, err.path, err.type) == ("unsupported_type", "$.rows[3].x", complex)


def test_paths_through_every_container() -> None:
    cases: list[tuple[Any, str]] = [
        (1j, "$"),
        ([0, [1, 1j]], "$[1][1]"),
        ((0, 1j), "$[1]"),
        ({"a b": 1j}, "$['a b']"),
        ({1: 1j}, "$[1]"),
        (Point(1j), "$.x"),
        (LatLon(1.0, 1j), "$[1]"),  # type: ignore[arg-type]
        ({"s": frozenset([1j])}, "$.s[0]"),
    ]
    for value, path in cases:
        with pytest.raises(MsgpackEncodeError) as info:
            fastmsgpack.packb(value, option=fastmsgpack.OPT_NON_STR_KEYS)
        assert info.value.path == path, value
        assert info.value.type is complex
    with pytest.raises(MsgpackEncodeError) as info:
        fastmsgpack.packb({"b": [1j], "a": 1}, option=fastmsgpack.OPT_SORT_KEYS)
    assert info.value.path == "$.b[0]"


def test_json_errors_carry_the_same_data() -> None:
    with pytest.raises(fastmsgpack.json.JSONEncodeError) as info:
        fastmsgpack.json.dumps({"rows": [None, {"x": 1j}]})
    err = info.value
    assert str(err) == "Type is not JSON serializable: complex at $.rows[1].x"
    assert (err.kind, err.path, err.type) == ("unsupported_type", "$.rows[1].x", complex)


def test_circular_reference_is_named() -> None:
    rows: list[Any] = [1, 2]
    doc = {"rows": rows}
    rows.append({"back": doc})
    with pytest.raises(MsgpackEncodeError) as info:
        fastmsgpack.packb(doc)
    err = info.value
    assert err.kind == "circular_reference"
    assert str(err) == "circular reference: the value at $ contains itself at $.rows[2].back"
    loop: list[Any] = []
    loop.append(loop)
    with pytest.raises(MsgpackEncodeError) as info:
        fastmsgpack.packb({"a": loop})
    assert str(info.value) == "circular reference: the value at $.a contains itself at $.a[0]"
    assert info.value.kind == "circular_reference"


def test_deep_but_not_circular_is_too_deep() -> None:
    doc: Any = 1
    for _ in range(300):
        doc = [doc]
    with pytest.raises(MsgpackEncodeError) as info:
        fastmsgpack.packb(doc)
    assert info.value.kind == "too_deep"
    assert str(info.value).startswith("containers nested deeper than 254 levels at $[0][0]")


def test_kinds_are_listed_once() -> None:
    kinds = fastmsgpack._fastmsgpack._ENCODE_KINDS
    assert len(set(kinds)) == len(kinds)
    seen = set()
    values: list[tuple[Any, dict[str, Any]]] = [
        (1j, {}),
        (2**64, {}),
        ({1: 2}, {}),
        (object(), {"default": lambda o: 1 / 0}),
        ("\ud800", {}),
    ]
    for value, kwargs in values:
        with pytest.raises(MsgpackEncodeError) as info:
            fastmsgpack.packb(value, **kwargs)
        assert info.value.kind in kinds
        seen.add(info.value.kind)
    assert seen == {
        "unsupported_type",
        "int_out_of_range",
        "invalid_key",
        "default_failed",
        "invalid_str",
    }


def test_default_failure_keeps_the_cause_and_the_type() -> None:
    def default(obj: Any) -> Any:
        raise ValueError("no")

    with pytest.raises(MsgpackEncodeError) as info:
        fastmsgpack.packb({"a": [Point(object())]}, default=default)
    err = info.value
    assert (err.kind, err.path, err.type) == ("default_failed", "$.a[0].x", object)
    assert isinstance(err.__cause__, ValueError)


def test_class_defaults_are_none() -> None:
    err = MsgpackEncodeError("made by hand")
    assert (err.kind, err.path, err.type) == (None, None, None)


def test_error_from_python_code_passes_unchanged() -> None:
    class Boom(Exception):
        pass

    def callback(buffer: Any) -> bool:
        raise Boom

    with pytest.raises(Boom):
        fastmsgpack.packb([b"x" * 10000], buffer_callback=callback, buffer_threshold=1)


class Hook:
    """A value whose `default` changes the container it is in, as README's Errors section
    describes: a change of size is detected, an item replaced in place is not."""

    def __init__(self, change: Any) -> None:
        self.change = change

    def __call__(self, obj: Any) -> Any:
        self.change()
        return "hooked"


class Marker:
    pass


def test_mutation_while_packing_is_detected_by_size() -> None:
    for container, grow in [
        ([Marker(), 1], lambda c: c.append(2)),
        ({"a": Marker(), "b": 1}, lambda c: c.__setitem__("c", 2)),
    ]:
        with pytest.raises(MsgpackEncodeError) as info:
            fastmsgpack.packb(container, default=Hook(lambda c=container, g=grow: g(c)))
        assert info.value.kind == "changed_size"
    # An item replaced in place, the size unchanged, is not detected: the old or the new item is
    # written (the new one where the list is read item by item, as with the GIL; the old one where
    # its items are taken at once, as on free-threaded builds).
    items: list[Any] = [Marker(), 1]
    packed = fastmsgpack.packb(items, default=Hook(lambda: items.__setitem__(1, 5)))
    assert fastmsgpack.unpackb(packed) in (["hooked", 5], ["hooked", 1])
    assert items[1] == 5, "the hook ran"
