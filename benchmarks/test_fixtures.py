"""packb and unpackb of the four benchmark documents with fastmsgpack and its peers.

Each benchmark group ("packb-twitter", "unpackb-canada", ...) holds one benchmark per library, so
pytest-benchmark and scripts/bench_table.py show them side by side. The library's name is in the
``library`` parameter and in ``extra_info["library"]``.

Before anything is timed, every library's output is checked: what packb produced must decode (with
msgpack-python and with the library's own decoder) to an object equal to the JSON document, and
what unpackb produced must equal the JSON document.
"""

from __future__ import annotations

from typing import Any

import pytest
from libraries import MSGPACK_LIBRARIES, Library, reference_unpackb


def _label(benchmark: Any, library: Library, operation: str, fixture_name: str) -> None:
    benchmark.group = f"{operation}-{fixture_name}"
    benchmark.extra_info["library"] = library.name
    benchmark.extra_info["operation"] = operation
    benchmark.extra_info["fixture"] = fixture_name


@pytest.mark.parametrize("library", MSGPACK_LIBRARIES, ids=lambda lib: lib.name)
def test_packb(benchmark: Any, library: Library, fixture_name: str, document: Any) -> None:
    _label(benchmark, library, "packb", fixture_name)

    packed = library.packs(document)
    assert isinstance(packed, bytes)
    assert reference_unpackb(packed) == document, f"{library.name}: msgpack decodes it differently"
    assert library.unpacks(packed) == document, f"{library.name}: own round trip differs"

    benchmark(library.pack, document, **library.pack_kwargs)


@pytest.mark.parametrize("library", MSGPACK_LIBRARIES, ids=lambda lib: lib.name)
def test_unpackb(
    benchmark: Any, library: Library, fixture_name: str, document: Any, packed: bytes
) -> None:
    _label(benchmark, library, "unpackb", fixture_name)

    decoded = library.unpacks(packed)
    assert decoded == document, f"{library.name}: decoded object differs from the JSON document"

    benchmark(library.unpack, packed, **library.unpack_kwargs)
