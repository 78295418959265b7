"""Per-call overhead: one small message packed, and unpacked, one call at a time.

The message (generators.make_small_message) is a dict of 10 fields: str, int, float, bool, None
and a list of three short strings, some 150 bytes packed. At this size the time is mostly the
cost of entering the library and building its output, not of the data. Groups are ``small-pack``
and ``small-unpack``; orjson stands for JSON and pickle uses protocol 5. Each library unpacks what
it packed, and every library's round trip is checked before it is timed.
"""

from __future__ import annotations

import pickle
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import msgpack  # type: ignore[import-untyped]
import msgspec
import orjson
import ormsgpack
import pytest
from generators import freeze_inputs, small_message

import fastmsgpack


@dataclass(frozen=True)
class Library:
    name: str
    pack: Callable[..., bytes]
    unpack: Callable[..., Any]
    # Passed by pytest-benchmark itself, so that each library is called with no wrapper between.
    pack_kwargs: dict[str, Any] = field(default_factory=dict)
    unpack_kwargs: dict[str, Any] = field(default_factory=dict)


LIBRARIES = {
    lib.name: lib
    for lib in (
        Library("fastmsgpack", fastmsgpack.packb, fastmsgpack.unpackb),
        Library("ormsgpack", ormsgpack.packb, ormsgpack.unpackb),
        Library("msgspec", msgspec.msgpack.encode, msgspec.msgpack.decode),
        Library(
            "msgpack",
            msgpack.packb,
            msgpack.unpackb,
            pack_kwargs={"use_bin_type": True},
            unpack_kwargs={"raw": False},
        ),
        Library("orjson", orjson.dumps, orjson.loads),
        Library("pickle", pickle.dumps, pickle.loads, pack_kwargs={"protocol": 5}),
    )
}


@pytest.fixture(scope="module")
def message(_frozen_inputs: None) -> dict[str, Any]:
    obj = small_message()
    freeze_inputs()
    return obj


def _packed_and_checked(benchmark: Any, lib: Library, operation: str, obj: Any) -> bytes:
    packed = lib.pack(obj, **lib.pack_kwargs)
    assert isinstance(packed, bytes)
    assert lib.unpack(packed, **lib.unpack_kwargs) == obj, f"{lib.name}: round trip differs"
    benchmark.group = f"small-{operation}"
    benchmark.extra_info["library"] = lib.name
    benchmark.extra_info["operation"] = operation
    benchmark.extra_info["bytes"] = len(packed)
    return packed


@pytest.mark.parametrize("library", list(LIBRARIES))
def test_small_pack(benchmark: Any, library: str, message: dict[str, Any]) -> None:
    lib = LIBRARIES[library]
    _packed_and_checked(benchmark, lib, "pack", message)
    benchmark(lib.pack, message, **lib.pack_kwargs)


@pytest.mark.parametrize("library", list(LIBRARIES))
def test_small_unpack(benchmark: Any, library: str, message: dict[str, Any]) -> None:
    lib = LIBRARIES[library]
    packed = _packed_and_checked(benchmark, lib, "unpack", message)
    benchmark(lib.unpack, packed, **lib.unpack_kwargs)
