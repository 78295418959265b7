"""The cache of typed decoding plans: one plan per type, kept in the module, never on the class.

A plan is worked out from the type the first time it is decoded and kept in a bounded cache
inside the extension; a class made at run time is freed once newer types push its plan out, and
a class defined again under the same name gets a plan of its own.
"""

from __future__ import annotations

import dataclasses
import enum
import gc
import threading
import typing
import weakref
from typing import Any, Literal, NamedTuple, Optional, TypedDict

import pydantic
import pytest

import fastmsgpack
import fastmsgpack._fastmsgpack as core
from fastmsgpack import ValidationError, packb, unpackb

CAPACITY = core._PLAN_CACHE_CAPACITY


def push_out_every_plan() -> None:
    """Decodes more new types than the cache holds."""
    for i in range(CAPACITY + 10):
        assert unpackb(packb(i), type=Literal[i, -1]) == i
    assert core._plan_cache_size() <= CAPACITY


def test_a_class_decoded_once_is_freed_when_pushed_out() -> None:
    def make() -> list[weakref.ref[Any]]:
        @dataclasses.dataclass
        class Temp:
            x: int

        @dataclasses.dataclass
        class Other:
            y: int

        # Made with the types themselves: string annotations naming locals cannot be resolved.
        Holder = dataclasses.make_dataclass("Holder", [("temp", Temp), ("other", Other)])
        holder = {"temp": {"x": 1}, "other": {"y": 2}}
        for tp, value in (
            (Holder, holder),
            (list[Holder], [holder]),  # type: ignore[valid-type]
            (dict[str, Holder], {"k": holder}),  # type: ignore[valid-type]
            (Holder | None, holder),
            (tuple[Temp, Other], [{"x": 1}, {"y": 2}]),
        ):
            unpackb(packb(value), type=tp)
        return [weakref.ref(Temp), weakref.ref(Other), weakref.ref(Holder)]

    refs = make()
    gc.collect()
    # The cache holds the plans, and the plans their classes...
    assert all(r() is not None for r in refs)
    # ... until newer types push them out.
    push_out_every_plan()
    gc.collect()
    assert [r() for r in refs] == [None, None, None]


class Shade(enum.Enum):
    DARK = 1


class Pair(NamedTuple):
    a: int
    b: Shade = Shade.DARK


class Movie(TypedDict):
    title: str


class Model(pydantic.BaseModel):
    n: int


@dataclasses.dataclass
class Tree:
    name: str
    children: list[Tree]
    parent: Tree | None = None
    pair: Pair | None = None
    movie: Movie | None = None
    model: Model | None = None


@dataclasses.dataclass
class Link:
    value: int
    next: Optional["Link"] = None  # noqa: UP037, UP045 (the spelling under test)


@dataclasses.dataclass
class Ping:
    pong: Pong | None


@dataclasses.dataclass
class Pong:
    ping: Ping | None


def test_recursive_and_forward_references() -> None:
    chain = {"value": 1, "next": {"value": 2, "next": {"value": 3}}}
    assert unpackb(packb(chain), type=Link) == Link(1, Link(2, Link(3)))
    with pytest.raises(ValidationError, match=r"at \$\.next\.next\.value"):
        unpackb(packb({"value": 1, "next": {"value": 2, "next": {"value": "x"}}}), type=Link)
    back = unpackb(packb({"ping": {"pong": {"ping": None}}}), type=Pong)
    assert back == Pong(Ping(Pong(None)))
    assert unpackb(packb([chain]), type=list[Optional[Link]]) == [Link(1, Link(2, Link(3)))]  # noqa: UP045


def test_a_type_nested_too_deeply_is_refused_not_a_crash() -> None:
    tp: Any = int
    for _ in range(1000):
        tp = list[tp]
    with pytest.raises(RecursionError, match="nests too deeply"):
        unpackb(packb(1), type=tp)
    # A thread with a small stack works out the deepest type allowed.
    tp = int
    for _ in range(120):
        tp = list[tp]
    value: Any = 1
    for _ in range(120):
        value = [value]
    results: list[Any] = []
    old = threading.stack_size(256 * 1024)
    try:
        thread = threading.Thread(target=lambda: results.append(unpackb(packb(value), type=tp)))
        thread.start()
        thread.join()
    finally:
        threading.stack_size(old)
    assert results == [value]


def test_decoding_writes_nothing_on_the_classes() -> None:
    classes = [Shade, Pair, Movie, Model, Tree]
    # Python 3.14 keeps a class's annotations in its `__annotations_cache__` the first time
    # anyone reads them: read them first, so that only what decoding writes would show.
    for cls in classes:
        typing.get_type_hints(cls)
    before = [dict(cls.__dict__) for cls in classes]
    tree = {
        "name": "root",
        "children": [{"name": "leaf", "children": []}],
        "pair": [1, 1],
        "movie": {"title": "t"},
        "model": {"n": 3},
    }
    for tp, value in (
        (Tree, tree),
        (list[Tree], [tree]),
        (dict[str, Tree | None], {"k": None}),
        (Pair, [2]),
        (Shade, 1),
        (Movie, {"title": "x"}),
        (Model, {"n": 1}),
    ):
        unpackb(packb(value), type=tp)
        fastmsgpack.Decoder(tp).decode(packb(value))
    assert [dict(cls.__dict__) for cls in classes] == before
    assert not [name for cls in classes for name in dir(cls) if "fastmsgpack" in name]


def test_plan_is_worked_out_once_per_type(monkeypatch: pytest.MonkeyPatch) -> None:
    @dataclasses.dataclass
    class Once:
        x: int

    calls: list[Any] = []
    real = typing.get_type_hints

    def counted(tp: Any, *args: Any, **kwargs: Any) -> Any:
        calls.append(tp)
        return real(tp, *args, **kwargs)

    monkeypatch.setattr(typing, "get_type_hints", counted)
    for _ in range(3):
        assert unpackb(packb({"x": 1}), type=Once) == Once(1)
    assert calls == [Once]
    # An alias has a plan of its own, found again from an equal alias made anew.
    for _ in range(3):
        assert unpackb(packb([{"x": 2}]), type=list[Once]) == [Once(2)]
    assert calls == [Once, Once]
    assert fastmsgpack.Decoder(list[Once]).decode(packb([{"x": 3}])) == [Once(3)]
    assert calls == [Once, Once]


def test_alias_plans_are_found_again_without_reading_the_types(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    @dataclasses.dataclass
    class Leaf:
        x: int

    value = {"x": 1}
    aliases: list[tuple[Any, Any]] = [
        (list[Leaf], [value]),
        (dict[str, Leaf], {"k": value}),
        (Leaf | None, value),
        (tuple[int, Leaf], [1, value]),
        (dict[str, list[Leaf]], {"k": [value]}),
        (list[int], [1]),
        (typing.Optional[Leaf], value),  # noqa: UP045 (typing's own alias)
    ]
    for tp, wire in aliases:
        unpackb(packb(wire), type=tp)
    calls: list[Any] = []
    real = typing.get_origin

    def counted(tp: Any) -> Any:
        calls.append(tp)
        return real(tp)

    monkeypatch.setattr(typing, "get_origin", counted)
    for tp, wire in aliases:
        unpackb(packb(wire), type=tp)
    assert calls == []


def make_point(kind: type) -> Any:
    # Made with the type itself: a string annotation naming a local cannot be resolved.
    return dataclasses.make_dataclass("Point", [("x", kind)])


def test_a_class_defined_again_under_the_same_name_gets_its_own_plan() -> None:
    first = make_point(int)
    second = make_point(str)
    assert first.__qualname__ == second.__qualname__
    assert unpackb(packb({"x": 1}), type=first) == first(1)
    back: Any = unpackb(packb({"x": "s"}), type=second)
    assert type(back) is second and back.x == "s"
    with pytest.raises(ValidationError, match=r"expected int, found str .* at \$\.x"):
        unpackb(packb({"x": "s"}), type=first)
    with pytest.raises(ValidationError, match=r"expected str, found int .* at \$\.x"):
        unpackb(packb({"x": 1}), type=second)
    assert unpackb(packb([{"x": 1}]), type=list[first]) == [first(1)]  # type: ignore[valid-type]
    assert unpackb(packb([{"x": "t"}]), type=list[second]) == [second("t")]  # type: ignore[valid-type]


def test_unhashable_types_are_worked_out_at_each_call() -> None:
    tp = typing.Annotated[int, []]
    with pytest.raises(TypeError):
        hash(tp)
    for _ in range(2):
        assert unpackb(packb(5), type=tp) == 5
        with pytest.raises(ValidationError):
            unpackb(packb("5"), type=tp)


def test_threads_fill_and_empty_the_cache_at_once() -> None:
    errors: list[BaseException] = []
    start = threading.Barrier(4)

    def work(t: int) -> None:
        try:
            start.wait()
            for i in range(CAPACITY // 2):
                n = t * CAPACITY + i
                assert unpackb(packb(n), type=Literal[n, -1]) == n
                assert unpackb(packb([n]), type=list[Literal[n, -1]]) == [n]  # type: ignore[valid-type]
        except BaseException as exc:  # noqa: BLE001 (reported below)
            errors.append(exc)

    threads = [threading.Thread(target=work, args=(t,)) for t in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert errors == []
    assert core._plan_cache_size() <= CAPACITY
