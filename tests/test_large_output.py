"""Outputs past the allocator's large-block size: the bytes are right on every call, on the first
call of a size (when the writer also hands the allocator a block of the buffer's size) and on
later ones."""

from __future__ import annotations

import msgpack  # type: ignore[import-untyped]
import orjson
import pytest

import fastmsgpack
import fastmsgpack.json


@pytest.mark.parametrize("items", [20_000, 70_000, 150_000, 40_000])
def test_large_outputs_repeated(items: int) -> None:
    doc = [f"item-{i}" for i in range(items)] + [{"n": i, "f": i / 7} for i in range(items // 10)]
    want_msgpack = msgpack.packb(doc, use_bin_type=True)
    want_json = orjson.dumps(doc)
    assert len(want_msgpack) > 128 * 1024
    for _ in range(3):
        assert fastmsgpack.packb(doc) == want_msgpack
        assert fastmsgpack.json.dumps(doc) == want_json
