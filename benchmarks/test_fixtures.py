"""packb and unpackb of the four benchmark documents with fastmsgpack and its peers.

Each benchmark group ("packb-twitter", "unpackb-canada", ...) holds one benchmark per library, so
pytest-benchmark and scripts/bench_table.py show them side by side. The library's name is in the
``library`` parameter and in ``extra_info["library"]``.

Before anything is timed, every library's output is checked: what packb produced must decode (with
msgpack-python and with the library's own decoder) to an object equal to the JSON document, and
what unpackb produced must equal the JSON document.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import msgpack  # type: ignore[import-untyped]
import msgspec
import ormsgpack
import pytest

import fastmsgpack


@dataclass(frozen=True)
class Library:
    name: str
    packb: Callable[..., bytes]
    unpackb: Callable[..., Any]
    # Keyword arguments for each call, passed by pytest-benchmark itself so that every library is
    # called directly, with no wrapper in between.
    packb_kwargs: dict[str, Any] = field(default_factory=dict)
    unpackb_kwargs: dict[str, Any] = field(default_factory=dict)


LIBRARIES = (
    Library("fastmsgpack", fastmsgpack.packb, fastmsgpack.unpackb),
    Library("ormsgpack", ormsgpack.packb, ormsgpack.unpackb),
    Library("msgspec", msgspec.msgpack.encode, msgspec.msgpack.decode),
    Library(
        "msgpack",
        msgpack.packb,
        msgpack.unpackb,
        packb_kwargs={"use_bin_type": True},
        unpackb_kwargs={"raw": False},
    ),
)


def _reference_unpackb(data: bytes) -> Any:
    return msgpack.unpackb(data, raw=False)


def _label(benchmark: Any, library: Library, operation: str, fixture_name: str) -> None:
    benchmark.group = f"{operation}-{fixture_name}"
    benchmark.extra_info["library"] = library.name
    benchmark.extra_info["operation"] = operation
    benchmark.extra_info["fixture"] = fixture_name


@pytest.mark.parametrize("library", LIBRARIES, ids=lambda lib: lib.name)
def test_packb(benchmark: Any, library: Library, fixture_name: str, document: Any) -> None:
    _label(benchmark, library, "packb", fixture_name)

    packed = library.packb(document, **library.packb_kwargs)
    assert isinstance(packed, bytes)
    assert _reference_unpackb(packed) == document, f"{library.name}: msgpack decodes it differently"
    assert library.unpackb(packed, **library.unpackb_kwargs) == document, (
        f"{library.name}: own round trip differs"
    )

    benchmark(library.packb, document, **library.packb_kwargs)


@pytest.mark.parametrize("library", LIBRARIES, ids=lambda lib: lib.name)
def test_unpackb(
    benchmark: Any, library: Library, fixture_name: str, document: Any, packed: bytes
) -> None:
    _label(benchmark, library, "unpackb", fixture_name)

    decoded = library.unpackb(packed, **library.unpackb_kwargs)
    assert decoded == document, f"{library.name}: decoded object differs from the JSON document"

    benchmark(library.unpackb, packed, **library.unpackb_kwargs)
