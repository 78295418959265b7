"""Lazy views (``fastmsgpack.View``) of the route-planning snapshot, from 1 to 100,000 children.

Groups, with N zero-padded to six digits (``extra_info`` holds the library and N):

- ``view-read10-<N>``: load the snapshot and read ten fields of it (the id, the name, the first,
  middle and last value, the first child's name, the middle child's id and latitude, the last
  child's name and longitude). "fastmsgpack" is ``View(data)`` (checked at creation) and the
  reads; "fastmsgpack-lazy" the same with ``validate=False``; "fastmsgpack-unpackb",
  "msgspec", "ormsgpack" and "msgpack" decode everything and then read; "protobuf" is
  ``FromString`` (upb, which makes Python objects only for the fields read) and the same reads
  on the message.
- ``view-walk-<N>``: load the snapshot and read every value of it. "fastmsgpack" walks a
  ``View`` fully (maps through ``items()``, arrays through iteration, building the same dicts and
  lists); "fastmsgpack-unpackb" is ``unpackb`` alone, and "fastmsgpack-unpackb-walk" is
  ``unpackb`` followed by the same walk over the dicts and lists it made: the walk's own Python
  work (a call, an ``isinstance`` test and a dict or list insert per value), which no decoder
  can take away, is in both "fastmsgpack" and "fastmsgpack-unpackb-walk".

With ``scripts/bench --baseline REV``, "fastmsgpack-before" is the earlier build's view, made
and read the same way.

Every reader's result is checked against the snapshot before it is timed.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import msgpack  # type: ignore[import-untyped]
import msgspec
import ormsgpack
import pytest
from baseline import BEFORE
from baseline import NAME as BEFORE_NAME
from generators import ROUTE_SIZES, route
from test_route import RouteMessage

import fastmsgpack
from fastmsgpack import ArrayView, MapView, View


def ten_fields(r: Any) -> tuple[Any, ...]:
    """Ten reads from a snapshot, as dicts and lists or as views."""
    children = r["children"]
    values = r["values"]
    mid = len(children) // 2
    return (
        r["id"],
        r["name"],
        values[0],
        values[mid],
        values[-1],
        children[0]["name"],
        children[mid]["id"],
        children[mid]["point"][0],
        children[-1]["name"],
        children[-1]["point"][1],
    )


def ten_fields_protobuf(r: Any) -> tuple[Any, ...]:
    """The same ten reads from a protobuf message."""
    children = r.children
    values = r.values
    mid = len(children) // 2
    return (
        r.id,
        r.name,
        values[0],
        values[mid],
        values[-1],
        children[0].name,
        children[mid].id,
        children[mid].point[0],
        children[-1].name,
        children[-1].point[1],
    )


def walk_of(map_type: type[Any], array_type: type[Any]) -> Callable[[Any], Any]:
    """A walk reading every value, as dicts and lists, of maps of ``map_type`` and arrays of
    ``array_type``: the views of one build, or (``walk_plain``) the dicts and lists ``unpackb``
    made. Every walk is this same code, testing one class per ``isinstance``.
    """

    def walk(value: Any) -> Any:
        if isinstance(value, map_type):
            return {k: walk(v) for k, v in value.items()}
        if isinstance(value, array_type):
            return [walk(v) for v in value]
        return value

    return walk


walk = walk_of(MapView, ArrayView)


walk_plain = walk_of(dict, list)
"""The same walk over dicts and lists."""


PACKED = {n: fastmsgpack.packb(route(n)) for n in ROUTE_SIZES}
PROTOBUF = {n: RouteMessage(**route(n)).SerializeToString() for n in ROUTE_SIZES}

READ10: dict[str, Callable[[int], Callable[[], tuple[Any, ...]]]] = {
    "fastmsgpack": lambda n: lambda: ten_fields(View(PACKED[n])),
    "fastmsgpack-lazy": lambda n: lambda: ten_fields(View(PACKED[n], validate=False)),
    "fastmsgpack-unpackb": lambda n: lambda: ten_fields(fastmsgpack.unpackb(PACKED[n])),
    "msgspec": lambda n: lambda: ten_fields(msgspec.msgpack.decode(PACKED[n])),
    "ormsgpack": lambda n: lambda: ten_fields(ormsgpack.unpackb(PACKED[n])),
    "msgpack": lambda n: lambda: ten_fields(msgpack.unpackb(PACKED[n])),
    "protobuf": lambda n: lambda: ten_fields_protobuf(RouteMessage.FromString(PROTOBUF[n])),
}

WALK: dict[str, Callable[[int], Callable[[], Any]]] = {
    "fastmsgpack": lambda n: lambda: walk(View(PACKED[n])),
    "fastmsgpack-unpackb": lambda n: lambda: fastmsgpack.unpackb(PACKED[n]),
    "fastmsgpack-unpackb-walk": lambda n: lambda: walk_plain(fastmsgpack.unpackb(PACKED[n])),
}

if BEFORE is not None and hasattr(BEFORE, "_view"):
    READ10[BEFORE_NAME] = lambda n: lambda: ten_fields(BEFORE._view(PACKED[n]))
    walk_before = walk_of(BEFORE.MapView, BEFORE.ArrayView)
    WALK[BEFORE_NAME] = lambda n: lambda: walk_before(BEFORE._view(PACKED[n]))


def _label(benchmark: Any, group: str, library: str, n: int) -> None:
    benchmark.group = f"{group}-{n:06d}"
    benchmark.extra_info["library"] = library
    benchmark.extra_info["n"] = n


@pytest.mark.parametrize("n", ROUTE_SIZES)
@pytest.mark.parametrize("library", list(READ10))
def test_view_read10(benchmark: Any, library: str, n: int) -> None:
    _label(benchmark, "view-read10", library, n)
    call = READ10[library](n)
    assert call() == ten_fields(route(n)), library
    benchmark(call)


@pytest.mark.parametrize("n", ROUTE_SIZES)
@pytest.mark.parametrize("library", list(WALK))
def test_view_walk(benchmark: Any, library: str, n: int) -> None:
    _label(benchmark, "view-walk", library, n)
    call = WALK[library](n)
    assert call() == route(n), library
    benchmark(call)
