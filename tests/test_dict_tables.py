"""Dicts in every table shape CPython builds: the serializer walks dict entries itself on
CPython 3.11+ (combined tables) and through the C API otherwise, so each shape is checked
against msgpack-python and orjson, including tables with deleted entries and instance dicts
that share their keys."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import msgpack  # type: ignore[import-untyped]
import orjson
import pytest

import fastmsgpack
from fastmsgpack.json import dumps


def with_holes() -> dict[str, Any]:
    d: dict[str, Any] = {f"k{i}": i for i in range(100)}
    for i in range(0, 100, 3):
        del d[f"k{i}"]
    d["late"] = "added after the deletions"
    return d


def int_keys_with_holes() -> dict[Any, Any]:
    d: dict[Any, Any] = {i: str(i) for i in range(50)}
    for i in range(10, 40):
        del d[i]
    d["mixed"] = None
    return d


class Point:
    def __init__(self, x: int, y: int) -> None:
        self.x = x
        self.y = y


def shared_keys_dict() -> dict[str, Any]:
    Point(0, 0)  # a first instance, so the class has shared keys
    return vars(Point(1, 2))


def shared_keys_dict_then_new_key() -> dict[str, Any]:
    d = vars(Point(3, 4))
    d["z"] = 5
    return d


def shared_keys_dict_after_delete() -> dict[str, Any]:
    d = vars(Point(5, 6))
    del d["x"]
    return d


class MyDict(dict[str, Any]):
    pass


def subclass_with_holes() -> dict[str, Any]:
    d = MyDict((f"s{i}", [i]) for i in range(20))
    del d["s0"], d["s19"], d["s7"]
    return d


def emptied() -> dict[str, Any]:
    d = {"a": 1, "b": 2}
    del d["a"], d["b"]
    return d


def large() -> dict[str, Any]:
    d = {f"key number {i}": {"v": i, "w": [i, -i]} for i in range(5000)}
    for i in range(0, 5000, 2):
        d.pop(f"key number {i}")
    return d


STR_KEY_SHAPES: list[Callable[[], dict[Any, Any]]] = [
    with_holes,
    shared_keys_dict,
    shared_keys_dict_then_new_key,
    shared_keys_dict_after_delete,
    subclass_with_holes,
    emptied,
    large,
]


@pytest.mark.parametrize("make", STR_KEY_SHAPES, ids=lambda f: f.__name__)
def test_str_key_tables_like_msgpack_and_orjson(make: Callable[[], dict[str, Any]]) -> None:
    d = make()
    assert fastmsgpack.packb(d) == msgpack.packb(dict(d), use_bin_type=True)
    assert fastmsgpack.unpackb(fastmsgpack.packb(d)) == d
    assert list(fastmsgpack.unpackb(fastmsgpack.packb(d))) == list(d)
    assert dumps(d) == orjson.dumps(d)


def test_general_tables_with_holes_like_msgpack_and_orjson() -> None:
    d = int_keys_with_holes()
    opt = fastmsgpack.OPT_NON_STR_KEYS
    assert fastmsgpack.packb(d, option=opt) == msgpack.packb(d, use_bin_type=True)
    assert dumps(d, option=opt) == orjson.dumps(d, option=orjson.OPT_NON_STR_KEYS)


def test_entries_added_by_default_are_an_error_not_a_misread() -> None:
    d: dict[str, Any] = {"a": object(), "b": 1}

    def default(obj: object) -> int:
        for i in range(100):  # forces the table to be rebuilt
            d[f"new{i}"] = i
        return 0

    with pytest.raises(fastmsgpack.MsgpackEncodeError, match="changed size"):
        fastmsgpack.packb(d, default=default)
