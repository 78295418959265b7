"""JSON from the four fixture documents: ``fastmsgpack.json.dumps`` against ``orjson.dumps``, and
``fastmsgpack.json.from_msgpack`` (MessagePack to JSON without Python objects) against the usual
two steps, ``orjson.dumps(unpackb(data))``. Every output is checked to equal orjson's first.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import orjson
import pytest
from baseline import BEFORE
from baseline import NAME as BEFORE_NAME

import fastmsgpack
import fastmsgpack.json


def _orjson_of_msgpack(data: bytes) -> bytes:
    return orjson.dumps(fastmsgpack.unpackb(data))


DUMPS: dict[str, Callable[[Any], bytes]] = {
    "fastmsgpack": fastmsgpack.json.dumps,
    "orjson": orjson.dumps,
}

TRANSCODE: dict[str, Callable[[bytes], bytes]] = {
    "fastmsgpack": fastmsgpack.json.from_msgpack,
    "orjson": _orjson_of_msgpack,
}

if BEFORE is not None:
    DUMPS[BEFORE_NAME] = BEFORE.json_dumps
    TRANSCODE[BEFORE_NAME] = BEFORE.json_from_msgpack


@pytest.mark.parametrize("library", list(DUMPS))
def test_json_dumps(benchmark: Any, library: str, fixture_name: str, document: Any) -> None:
    benchmark.group = f"json-dumps-{fixture_name}"
    benchmark.extra_info["library"] = library
    assert DUMPS[library](document) == orjson.dumps(document)
    benchmark(DUMPS[library], document)


@pytest.mark.parametrize("library", list(TRANSCODE))
def test_msgpack_to_json(
    benchmark: Any, library: str, fixture_name: str, document: Any, packed: bytes
) -> None:
    benchmark.group = f"msgpack-to-json-{fixture_name}"
    benchmark.extra_info["library"] = library
    assert TRANSCODE[library](packed) == orjson.dumps(document)
    benchmark(TRANSCODE[library], packed)
