"""Per-call overhead: one small message packed, and unpacked, one call at a time.

The message (generators.make_small_message) is a dict of 10 fields: str, int, float, bool, None
and a list of three short strings, some 150 bytes packed. At this size the time is mostly the
cost of entering the library and building its output, not of the data. Groups are ``small-pack``
and ``small-unpack``; orjson stands for JSON and pickle uses protocol 5. Each library unpacks what
it packed, and every library's round trip is checked before it is timed (MessagePack output
also with msgpack-python).
"""

from __future__ import annotations

from typing import Any

import pytest
from generators import freeze_inputs, small_message
from libraries import MSGPACK_LIBRARIES, ORJSON, Library, check_msgpack, pickle_library

LIBRARIES = {
    lib.name: lib for lib in (*MSGPACK_LIBRARIES, ORJSON, pickle_library(5, name="pickle"))
}


@pytest.fixture(scope="module")
def message(_frozen_inputs: None) -> dict[str, Any]:
    obj = small_message()
    freeze_inputs()
    return obj


def _packed_and_checked(benchmark: Any, lib: Library, operation: str, obj: Any) -> bytes:
    packed = lib.packs(obj)
    assert isinstance(packed, bytes)
    assert lib.unpacks(packed) == obj, f"{lib.name}: round trip differs"
    check_msgpack(lib, packed, obj)
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
