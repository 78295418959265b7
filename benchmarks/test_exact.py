"""Exact round trips (``OPT_EXACT``): every value comes back as the type it was.

Two workloads, each packed and unpacked:

- ``records-5000``: test_rich's records (UUID, aware datetime, date, Enum member, float); the
  Enum class is in a ``fastmsgpack.Registry``.
- ``route-100000-timestamps``: generators.make_route_timestamped(100000), a route snapshot whose
  100,000 children each carry an aware UTC datetime and a date.

Against pickle (protocol 5), and msgpack-python with the ``default``/``ext_hook`` pair its users
write for these types (ISO text for datetimes and dates, the 16 bytes of a UUID, an Enum's value).
Before timing, each library's round trip must give back the input, with every value of the same
type.

Then the registry against the pattern it replaces: 10,000 objects of 5 classes, packed by
``registry=`` (dispatch by exact type in the core), by ``default=`` with an ``isinstance`` chain
returning ``Ext`` values (the pattern of LangGraph's serializer on ormsgpack), and the same chain
with ormsgpack; unpacked by ``registry=`` and by an ``ext_hook`` that tests the code.

With ``scripts/bench --baseline REV``, REV's build runs every fastmsgpack call too, as
``fastmsgpack-before`` (``fastmsgpack-before-registry``, ``fastmsgpack-before-default``), with
registries of its own made the same way.
"""

from __future__ import annotations

import datetime
import pickle
import uuid
from collections.abc import Callable
from typing import Any

import msgpack  # type: ignore[import-untyped]
import ormsgpack
import pytest
from baseline import BEFORE
from baseline import NAME as BEFORE_NAME
from generators import freeze_inputs, make_route_timestamped
from test_rich import Status, make_records

import fastmsgpack
from fastmsgpack import OPT_EXACT

REGISTRY = fastmsgpack.Registry()
REGISTRY.register(Status, 1)  # an Enum: its members travel as their values


def _default(obj: Any) -> Any:
    if isinstance(obj, datetime.datetime):
        return msgpack.ExtType(1, obj.isoformat().encode())
    if isinstance(obj, datetime.date):
        return msgpack.ExtType(2, obj.isoformat().encode())
    if isinstance(obj, uuid.UUID):
        return msgpack.ExtType(3, obj.bytes)
    if isinstance(obj, Status):
        return msgpack.ExtType(4, obj.value.encode())
    raise TypeError(type(obj))


def _ext_hook(code: int, data: bytes) -> Any:
    if code == 1:
        return datetime.datetime.fromisoformat(data.decode())
    if code == 2:
        return datetime.date.fromisoformat(data.decode())
    if code == 3:
        return uuid.UUID(bytes=data)
    if code == 4:
        return Status(data.decode())
    return msgpack.ExtType(code, data)


# name: (pack, unpack)
LIBRARIES: dict[str, tuple[Callable[[Any], bytes], Callable[[bytes], Any]]] = {
    "fastmsgpack": (
        lambda o: fastmsgpack.packb(o, option=OPT_EXACT, registry=REGISTRY),
        lambda b: fastmsgpack.unpackb(b, option=OPT_EXACT, registry=REGISTRY),
    ),
    "pickle-5": (
        lambda o: pickle.dumps(o, protocol=5),
        pickle.loads,
    ),
    "msgpack": (
        lambda o: msgpack.packb(o, default=_default, use_bin_type=True),
        lambda b: msgpack.unpackb(b, ext_hook=_ext_hook, raw=False),
    ),
}

if BEFORE is not None and hasattr(BEFORE, "Registry"):
    BEFORE_REGISTRY = BEFORE.Registry()
    BEFORE_REGISTRY.register(Status, 1)
    LIBRARIES[BEFORE_NAME] = (
        lambda o: BEFORE.packb(o, option=BEFORE.OPT_EXACT, registry=BEFORE_REGISTRY),
        lambda b: BEFORE.unpackb(b, option=BEFORE.OPT_EXACT, registry=BEFORE_REGISTRY),
    )

WORKLOADS: dict[str, Callable[[], Any]] = {
    "records-5000": lambda: make_records(5000),
    "route-100000-timestamps": lambda: make_route_timestamped(100_000),
}

_inputs: dict[str, Any] = {}


def _input(workload: str) -> Any:
    if workload not in _inputs:
        _inputs[workload] = WORKLOADS[workload]()
        freeze_inputs()
    return _inputs[workload]


def same(a: Any, b: Any) -> bool:
    """Equal, with every value of the same type (and datetimes in the same zone)."""
    if type(a) is not type(b):
        return False
    if isinstance(a, dict):
        return a.keys() == b.keys() and all(same(v, b[k]) for k, v in a.items())
    if isinstance(a, list | tuple):
        return len(a) == len(b) and all(same(x, y) for x, y in zip(a, b, strict=True))
    if isinstance(a, datetime.datetime):
        return bool(a == b and a.utcoffset() == b.utcoffset())
    return bool(a == b)


@pytest.mark.parametrize("workload", list(WORKLOADS))
@pytest.mark.parametrize("library", list(LIBRARIES))
def test_exact_pack(benchmark: Any, library: str, workload: str) -> None:
    benchmark.group = f"exact-pack-{workload}"
    benchmark.extra_info["library"] = library
    obj = _input(workload)
    pack, unpack = LIBRARIES[library]
    assert same(unpack(pack(obj)), obj), f"{library}: the round trip is not exact"
    benchmark(pack, obj)


@pytest.mark.parametrize("workload", list(WORKLOADS))
@pytest.mark.parametrize("library", list(LIBRARIES))
def test_exact_unpack(benchmark: Any, library: str, workload: str) -> None:
    benchmark.group = f"exact-unpack-{workload}"
    benchmark.extra_info["library"] = library
    obj = _input(workload)
    pack, unpack = LIBRARIES[library]
    data = pack(obj)
    assert same(unpack(data), obj), f"{library}: the round trip is not exact"
    benchmark(unpack, data)


# Registry dispatch against an isinstance chain in `default`.


class Point:
    __slots__ = ("x", "y")

    def __init__(self, x: float, y: float) -> None:
        self.x, self.y = x, y

    def __eq__(self, other: object) -> bool:
        return (
            isinstance(other, Point)
            and type(other) is type(self)
            and (self.x, self.y) == (other.x, other.y)
        )


class Span(Point):
    __slots__ = ()


class Money(Point):
    __slots__ = ()


class Version(Point):
    __slots__ = ()


class Weight(Point):
    __slots__ = ()


CLASSES: tuple[type[Point], ...] = (Point, Span, Money, Version, Weight)
CLASS_REGISTRY = fastmsgpack.Registry()


def _encode_point(o: Point) -> list[float]:
    return [o.x, o.y]


def _decoder(cls: type[Point]) -> Callable[[list[float]], Point]:
    return lambda v: cls(*v)


for _code, _cls in enumerate(CLASSES, start=1):
    CLASS_REGISTRY.register(_cls, _code, _encode_point, _decoder(_cls))


def _chain_default(
    obj: Any, ext: Callable[[int, bytes], Any], packb: Callable[[Any], bytes]
) -> Any:
    # The order of the classes is the chain's: the last one takes five tests.
    if isinstance(obj, Weight):
        return ext(5, packb([obj.x, obj.y]))
    if isinstance(obj, Version):
        return ext(4, packb([obj.x, obj.y]))
    if isinstance(obj, Money):
        return ext(3, packb([obj.x, obj.y]))
    if isinstance(obj, Span):
        return ext(2, packb([obj.x, obj.y]))
    if isinstance(obj, Point):
        return ext(1, packb([obj.x, obj.y]))
    raise TypeError(type(obj))


def _chain_ext_hook(code: int, data: bytes, core: Any = fastmsgpack) -> Any:
    if 1 <= code <= 5:
        return CLASSES[code - 1](*core.unpackb(data))
    return core.Ext(code, data)


def _objects() -> list[Point]:
    return [CLASSES[i % 5](i * 0.5, -i * 0.25) for i in range(10_000)]


def _fast_default(o: Any) -> Any:
    return _chain_default(o, fastmsgpack.Ext, fastmsgpack.packb)


def _ormsgpack_default(o: Any) -> Any:
    return _chain_default(o, ormsgpack.Ext, ormsgpack.packb)


REGISTRY_PACKERS: dict[str, Callable[[Any], bytes]] = {
    "fastmsgpack-registry": lambda o: fastmsgpack.packb(o, registry=CLASS_REGISTRY),
    "fastmsgpack-default": lambda o: fastmsgpack.packb(o, default=_fast_default),
    "ormsgpack-default": lambda o: ormsgpack.packb(o, default=_ormsgpack_default),
}

REGISTRY_UNPACKERS: dict[str, Callable[[bytes], Any]] = {
    "fastmsgpack-registry": lambda b: fastmsgpack.unpackb(b, registry=CLASS_REGISTRY),
    "fastmsgpack-default": lambda b: fastmsgpack.unpackb(b, ext_hook=_chain_ext_hook),
}

if BEFORE is not None and hasattr(BEFORE, "Registry"):
    BEFORE_CLASS_REGISTRY = BEFORE.Registry()
    for _code, _cls in enumerate(CLASSES, start=1):
        BEFORE_CLASS_REGISTRY.register(_cls, _code, _encode_point, _decoder(_cls))

    def _before_default(o: Any) -> Any:
        return _chain_default(o, BEFORE.Ext, BEFORE.packb)

    def _before_ext_hook(code: int, data: bytes) -> Any:
        return _chain_ext_hook(code, data, BEFORE)

    REGISTRY_PACKERS[f"{BEFORE_NAME}-registry"] = lambda o: BEFORE.packb(
        o, registry=BEFORE_CLASS_REGISTRY
    )
    REGISTRY_PACKERS[f"{BEFORE_NAME}-default"] = lambda o: BEFORE.packb(o, default=_before_default)
    REGISTRY_UNPACKERS[f"{BEFORE_NAME}-registry"] = lambda b: BEFORE.unpackb(
        b, registry=BEFORE_CLASS_REGISTRY
    )
    REGISTRY_UNPACKERS[f"{BEFORE_NAME}-default"] = lambda b: BEFORE.unpackb(
        b, ext_hook=_before_ext_hook
    )


@pytest.mark.parametrize("library", list(REGISTRY_PACKERS))
def test_registry_pack(benchmark: Any, library: str) -> None:
    benchmark.group = "exact-registry-pack-10000"
    benchmark.extra_info["library"] = library
    objs = _objects()
    pack = REGISTRY_PACKERS[library]
    data = pack(objs)
    assert data == REGISTRY_PACKERS["fastmsgpack-registry"](objs), f"{library}: other bytes"
    assert fastmsgpack.unpackb(data, registry=CLASS_REGISTRY) == objs
    benchmark(pack, objs)


@pytest.mark.parametrize("library", list(REGISTRY_UNPACKERS))
def test_registry_unpack(benchmark: Any, library: str) -> None:
    benchmark.group = "exact-registry-unpack-10000"
    benchmark.extra_info["library"] = library
    objs = _objects()
    data = fastmsgpack.packb(objs, registry=CLASS_REGISTRY)
    unpack = REGISTRY_UNPACKERS[library]
    assert unpack(data) == objs, f"{library}: the objects do not come back"
    benchmark(unpack, data)
