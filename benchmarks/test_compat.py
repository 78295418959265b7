"""fastmsgpack.compat against msgpack-python, on the four benchmark documents, called as code
written for msgpack-python calls it.

Groups, one per document: ``compat-packb-<doc>`` (``packb(obj, use_bin_type=True)``),
``compat-unpackb-<doc>`` (``unpackb(b, raw=False, strict_map_key=False)``),
``compat-tuples-<doc>`` (``unpackb(b, use_list=False)``) and ``compat-hook-<doc>``
(``unpackb(b, object_hook=...)``, a hook that returns the dict it is given). In each, the
library named ``fastmsgpack`` is the compat call and ``msgpack`` the same call to msgpack-python;
in the first two, ``fastmsgpack-native`` is the native ``packb``/``unpackb`` doing the same
work, so its ratio shows what the compat layer costs. With ``scripts/bench --baseline REV``,
``fastmsgpack-before`` is the same compat call on REV's core (this checkout's Python layer over
the earlier extension, benchmarks/baseline.py). Every result is checked against msgpack-python's
before it is timed.

Groups ``compat-default-<case>``: ``Packer(default=...).pack(objects)`` on a list of 8 objects
that the ``default`` converts, as tarantool's and other clients' packers do: ``int`` (objects
whose default returns an int), ``uuid-ext`` (UUIDs returned as ``ExtType(2, u.bytes)``) and
``mixed-ext`` (Decimal, UUID and aware datetime, each returned as an ``ExtType``). ``fastmsgpack``
is ``fastmsgpack.compat.Packer``, ``msgpack`` msgpack-python's ``Packer`` with the same
``default`` (returning its own ``ExtType``); the time per converted object is the median over 8.
"""

from __future__ import annotations

import datetime
import decimal
import uuid
from collections.abc import Callable
from typing import Any

import msgpack  # type: ignore[import-untyped]
import pytest
from baseline import BEFORE_COMPAT
from baseline import NAME as BEFORE_NAME

import fastmsgpack
from fastmsgpack import compat


def same_dict(d: dict[Any, Any]) -> dict[Any, Any]:
    return d


# group prefix -> library -> (function, keyword arguments)
CALLS: dict[str, dict[str, tuple[Callable[..., Any], dict[str, Any]]]] = {
    "compat-packb": {
        "fastmsgpack": (compat.packb, {"use_bin_type": True}),
        "fastmsgpack-native": (fastmsgpack.packb, {}),
        "msgpack": (msgpack.packb, {"use_bin_type": True}),
    },
    "compat-unpackb": {
        "fastmsgpack": (compat.unpackb, {"raw": False, "strict_map_key": False}),
        "fastmsgpack-native": (fastmsgpack.unpackb, {}),
        "msgpack": (msgpack.unpackb, {"raw": False, "strict_map_key": False}),
    },
    "compat-tuples": {
        "fastmsgpack": (compat.unpackb, {"use_list": False}),
        "msgpack": (msgpack.unpackb, {"use_list": False}),
    },
    "compat-hook": {
        "fastmsgpack": (compat.unpackb, {"object_hook": same_dict}),
        "msgpack": (msgpack.unpackb, {"object_hook": same_dict}),
    },
}
if BEFORE_COMPAT is not None:
    for _libraries in CALLS.values():
        _function, _kwargs = _libraries["fastmsgpack"]
        _libraries[BEFORE_NAME] = (getattr(BEFORE_COMPAT, _function.__name__), _kwargs)
CASES = [(group, library) for group, libraries in CALLS.items() for library in libraries]


@pytest.mark.parametrize(("group", "library"), CASES, ids=[f"{g}-{lib}" for g, lib in CASES])
def test_compat(
    benchmark: Any, group: str, library: str, fixture_name: str, document: Any, packed: bytes
) -> None:
    func, kwargs = CALLS[group][library]
    reference, reference_kwargs = CALLS[group]["msgpack"]
    arg = document if group == "compat-packb" else packed
    assert func(arg, **kwargs) == reference(arg, **reference_kwargs), f"{library} differs"
    benchmark.group = f"{group}-{fixture_name}"
    benchmark.extra_info["library"] = library
    benchmark.extra_info["operation"] = group
    benchmark.extra_info["fixture"] = fixture_name
    benchmark(func, arg, **kwargs)


class Holder:
    """An object of the program's own that its `default` packs as an int."""

    __slots__ = ("value",)

    def __init__(self, value: int) -> None:
        self.value = value


def _as_int(obj: Any) -> Any:
    return obj.value


def _ext_default(ext_type: Any) -> Callable[[Any], Any]:
    def default(obj: Any) -> Any:
        if isinstance(obj, uuid.UUID):
            return ext_type(2, obj.bytes)
        if isinstance(obj, decimal.Decimal):
            return ext_type(1, str(obj).encode())
        if isinstance(obj, datetime.datetime):
            return ext_type(4, int(obj.timestamp() * 1e6).to_bytes(8, "little", signed=True))
        raise TypeError(f"cannot pack {type(obj).__name__}")

    return default


_UTC = datetime.timezone.utc
# case -> (the 8 objects, the default made for a library's ExtType class: each library's default
# returns its own library's ExtType, the earlier build's compat layer included)
DEFAULT_CASES: dict[str, tuple[list[Any], Callable[[Any], Callable[[Any], Any]]]] = {
    "int": ([Holder(i * 1000) for i in range(8)], lambda _ext_type: _as_int),
    "uuid-ext": (
        [uuid.UUID(int=i * 0x9E3779B97F4A7C15 + 1) for i in range(8)],
        _ext_default,
    ),
    "mixed-ext": (
        [
            decimal.Decimal("12.50"),
            uuid.UUID(int=7),
            datetime.datetime(2024, 5, 6, 7, 8, 9, 123456, tzinfo=_UTC),
            decimal.Decimal("-0.001"),
            uuid.UUID(int=2**100),
            datetime.datetime(1999, 12, 31, 23, 59, 59, tzinfo=_UTC),
            decimal.Decimal("3E+5"),
            uuid.UUID(int=2**127),
        ],
        _ext_default,
    ),
}
DEFAULT_PACKERS: dict[str, Callable[[Callable[[Any], Any]], Any]] = {
    "fastmsgpack": lambda default: compat.Packer(default=default),
    "msgpack": lambda default: msgpack.Packer(default=default),
}
if BEFORE_COMPAT is not None:
    DEFAULT_PACKERS[BEFORE_NAME] = lambda default: BEFORE_COMPAT.Packer(default=default)
DEFAULT_ROWS = [(case, library) for case in DEFAULT_CASES for library in DEFAULT_PACKERS]


@pytest.mark.parametrize(
    ("case", "library"), DEFAULT_ROWS, ids=[f"{c}-{lib}" for c, lib in DEFAULT_ROWS]
)
def test_compat_default(benchmark: Any, case: str, library: str) -> None:
    objects, make_default = DEFAULT_CASES[case]
    ext_types = {"fastmsgpack": compat.ExtType, "msgpack": msgpack.ExtType}
    if BEFORE_COMPAT is not None:
        ext_types[BEFORE_NAME] = BEFORE_COMPAT.ExtType
    packer = DEFAULT_PACKERS[library](make_default(ext_types[library]))
    expected = msgpack.Packer(default=make_default(msgpack.ExtType)).pack(objects)
    assert packer.pack(objects) == expected, f"{library} differs"
    benchmark.group = f"compat-default-{case}"
    benchmark.extra_info["library"] = library
    benchmark.extra_info["operation"] = "compat-default"
    benchmark.extra_info["objects"] = len(objects)
    benchmark(packer.pack, objects)
