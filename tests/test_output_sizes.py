"""Outputs of every size around the point where the writer moves from its first, fixed-size
buffer to a growing bytes object (1 KiB), reached by small steps and by one large write, give the
same bytes as the reference libraries."""

from __future__ import annotations

from typing import Any

import msgpack  # type: ignore[import-untyped]
import orjson
import pytest

import fastmsgpack
import fastmsgpack.json


def docs_of_sizes() -> list[Any]:
    docs: list[Any] = []
    for n in range(990, 1070):
        docs.append("x" * n)  # one write that crosses the boundary
        docs.append(b"\x01" * n)
        docs.append([i % 100 for i in range(n)])  # many small writes
        docs.append({f"key{i}": "v" * (i % 7) for i in range(n // 8)})
    for n in (0, 1, 100, 5000, 70_000, 300_000):
        docs.append(["é" * 10, "x" * n, [1.5] * (n // 100)])
    return docs


DOCS = docs_of_sizes()


@pytest.mark.parametrize("index", range(len(DOCS)))
def test_packb_matches_msgpack(index: int) -> None:
    doc = DOCS[index]
    assert fastmsgpack.packb(doc) == msgpack.packb(doc, use_bin_type=True)


@pytest.mark.parametrize("index", range(len(DOCS)))
def test_json_dumps_matches_orjson(index: int) -> None:
    doc = DOCS[index]
    if isinstance(doc, bytes):
        doc = [len(doc)] * (len(doc) // 4)
    assert fastmsgpack.json.dumps(doc) == orjson.dumps(doc)
    ours = fastmsgpack.json.OPT_INDENT_2 | fastmsgpack.json.OPT_APPEND_NEWLINE
    theirs = orjson.OPT_INDENT_2 | orjson.OPT_APPEND_NEWLINE
    assert fastmsgpack.json.dumps(doc, option=ours) == orjson.dumps(doc, option=theirs)


def test_a_failure_after_the_output_moved_and_before() -> None:
    def default(obj: object) -> Any:
        raise ValueError("no")

    for n in (10, 2000, 200_000):
        with pytest.raises(fastmsgpack.MsgpackEncodeError):
            fastmsgpack.packb(["x" * n, object()], default=default)
        with pytest.raises(TypeError):
            fastmsgpack.json.dumps(["x" * n, object()], default=default)
    assert fastmsgpack.packb("x" * 2000) == msgpack.packb("x" * 2000)
