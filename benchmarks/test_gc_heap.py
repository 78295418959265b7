"""unpackb of canada while the process holds 3,000,000 live objects that the collector tracks.

The other benchmarks freeze their inputs out of the garbage collector's view (conftest), so a
collection set off by a decoder's allocations only walks what the decoder itself made. A real
application is rarely that tidy: here a list of 3,000,000 one-element lists (about 300 MB) is
built after conftest's ``gc.freeze()`` and kept alive, tracked and not frozen, while canada is
decoded, so that every full collection set off during decoding walks it too. The libraries, their
calls and the check are those of test_fixtures; compare the group
``unpackb-canada-bigheap`` with ``unpackb-canada``.

CPython (3.11 to 3.13) runs a full collection only once the objects that survived into the oldest
generation since the last one exceed a quarter of those already there. With the big heap, full
collections are therefore rare but each walks the whole heap: the cost shows in the mean and the
maximum of a library that lets the collector run during decoding, much more than in its median.

The heap is made once, by a module-scoped fixture, and dropped when this module's benchmarks are
done, so that no other module's ``gc.freeze()`` can move it out of the collector's view.
"""

from __future__ import annotations

import gc
from collections.abc import Iterator
from typing import Any

import pytest
from libraries import MSGPACK_LIBRARIES, Library

HEAP_OBJECTS = 3_000_000


@pytest.fixture
def fixture_name() -> str:
    """Overrides conftest's parametrized fixture: only canada is decoded here."""
    return "canada"


@pytest.fixture(scope="module")
def big_heap(_frozen_inputs: None) -> Iterator[list[list[int]]]:
    frozen_before = gc.get_freeze_count()
    heap = [[i] for i in range(HEAP_OBJECTS)]
    gc.collect()  # settle the heap into the oldest generation, as a long-lived heap would be
    assert gc.get_freeze_count() == frozen_before, "the heap must stay in the collector's view"
    assert gc.is_tracked(heap) and gc.is_tracked(heap[-1])
    yield heap


@pytest.mark.parametrize("library", MSGPACK_LIBRARIES, ids=lambda lib: lib.name)
def test_unpackb_canada_bigheap(
    benchmark: Any, library: Library, document: Any, packed: bytes, big_heap: list[list[int]]
) -> None:
    assert gc.isenabled(), "the collector must be enabled"
    assert len(big_heap) == HEAP_OBJECTS
    benchmark.group = "unpackb-canada-bigheap"
    benchmark.extra_info["library"] = library.name
    benchmark.extra_info["operation"] = "unpackb"
    benchmark.extra_info["fixture"] = "canada"
    benchmark.extra_info["heap_objects"] = HEAP_OBJECTS

    decoded = library.unpacks(packed)
    assert decoded == document, f"{library.name}: decoded object differs from the JSON document"

    benchmark(library.unpack, packed, **library.unpack_kwargs)
