"""A cached, already-packed sub-document of about 100 KB inserted into a message, against packing
the object itself.

The sub-document is the first 25 statuses of the twitter fixture (some 100 KB packed), the usual
shape of a cache entry: a service keeps it packed and sends it inside an envelope,
``{"request_id": 1, "cached": <sub-document>}``. Groups:

- ``fragment-insert-100kb``: the cache holds a ``Fragment`` (fastmsgpack, ormsgpack) or a
  ``msgspec.Raw``, made once, and each call packs the envelope around it; the ``-object`` rows pack
  the sub-document's objects again instead.
- ``fragment-wrap-insert-100kb``: the cache holds the bytes (from Redis, a file), and each call
  wraps them in a new ``Fragment`` (checked by fastmsgpack and ormsgpack, not by ``msgspec.Raw``)
  and packs the envelope.
- ``fragment-make-100kb``: making the ``Fragment`` alone.

Every output is checked against msgpack-python before it is timed.
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
from conftest import load_document

import fastmsgpack


def _sub_document() -> Any:
    twitter = load_document("twitter")
    return {"statuses": twitter["statuses"][:25], "search_metadata": twitter["search_metadata"]}


SUB = _sub_document()
CACHED = msgpack.packb(SUB, use_bin_type=True)
ENVELOPE = {"request_id": 1, "cached": SUB}
EXPECTED = msgpack.packb(ENVELOPE, use_bin_type=True)

FAST = fastmsgpack.Fragment(CACHED)
# ormsgpack has Fragment from 1.13 on (the version pinned for Python 3.10 has none).
ORMSGPACK_FRAGMENT: Any = getattr(ormsgpack, "Fragment", None)
ORMS = ORMSGPACK_FRAGMENT(CACHED) if ORMSGPACK_FRAGMENT is not None else None
RAW = msgspec.Raw(CACHED)

INSERT: dict[str, Callable[[], bytes]] = {
    "fastmsgpack": lambda: fastmsgpack.packb({"request_id": 1, "cached": FAST}),
    "fastmsgpack-object": lambda: fastmsgpack.packb(ENVELOPE),
    "ormsgpack": lambda: ormsgpack.packb({"request_id": 1, "cached": ORMS}),
    "ormsgpack-object": lambda: ormsgpack.packb(ENVELOPE),
    "msgspec": lambda: msgspec.msgpack.encode({"request_id": 1, "cached": RAW}),
    "msgspec-object": lambda: msgspec.msgpack.encode(ENVELOPE),
    "msgpack-object": lambda: msgpack.packb(ENVELOPE, use_bin_type=True),
}

WRAP_INSERT: dict[str, Callable[[], bytes]] = {
    "fastmsgpack": lambda: fastmsgpack.packb(
        {"request_id": 1, "cached": fastmsgpack.Fragment(CACHED)}
    ),
    "ormsgpack": lambda: ormsgpack.packb({"request_id": 1, "cached": ORMSGPACK_FRAGMENT(CACHED)}),
    "msgspec": lambda: msgspec.msgpack.encode({"request_id": 1, "cached": msgspec.Raw(CACHED)}),
}

MAKE: dict[str, Callable[[bytes], Any]] = {
    "fastmsgpack": fastmsgpack.Fragment,
    "ormsgpack": ORMSGPACK_FRAGMENT,
    "msgspec": msgspec.Raw,
}

if ORMSGPACK_FRAGMENT is None:
    for table in (INSERT, WRAP_INSERT, MAKE):
        table.pop("ormsgpack")

if BEFORE is not None:
    INSERT[f"{BEFORE_NAME}-object"] = lambda: BEFORE.packb(ENVELOPE)


def test_sub_document_is_about_100_kb() -> None:
    assert 80_000 <= len(CACHED) <= 130_000


@pytest.mark.parametrize("library", list(INSERT))
def test_fragment_insert(benchmark: Any, library: str) -> None:
    benchmark.group = "fragment-insert-100kb"
    benchmark.extra_info["library"] = library
    assert INSERT[library]() == EXPECTED
    benchmark(INSERT[library])


@pytest.mark.parametrize("library", list(WRAP_INSERT))
def test_fragment_wrap_insert(benchmark: Any, library: str) -> None:
    benchmark.group = "fragment-wrap-insert-100kb"
    benchmark.extra_info["library"] = library
    assert WRAP_INSERT[library]() == EXPECTED
    benchmark(WRAP_INSERT[library])


@pytest.mark.parametrize("library", list(MAKE))
def test_fragment_make(benchmark: Any, library: str) -> None:
    benchmark.group = "fragment-make-100kb"
    benchmark.extra_info["library"] = library
    benchmark(MAKE[library], CACHED)
