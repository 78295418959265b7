"""Memory stays flat over many packb/unpackb calls, failing calls included.

Each case runs a warm-up, then ITERATIONS calls, and checks the growth of the process RSS (catches
native leaks, e.g. an output buffer left behind by a failed packb) and of
sys.getallocatedblocks() (catches leaked Python objects, even one per call). Reference counts of
callables and inputs must be unchanged after many calls.
"""

from __future__ import annotations

import collections
import gc
import sys
from collections.abc import Callable
from typing import Any

import psutil  # type: ignore[import-untyped]
import pytest
from conftest import nested_lists

import fastmsgpack
from fastmsgpack import (
    OPT_JSON_COMPAT,
    OPT_NON_STR_KEYS,
    OPT_PASSTHROUGH_TUPLE,
    OPT_SORT_KEYS,
    Ext,
    MsgpackDecodeError,
    MsgpackEncodeError,
)

ITERATIONS = 20_000
WARMUP = 1_000
MAX_RSS_GROWTH = 8 * 2**20
MAX_BLOCK_GROWTH = 1_000  # a leak of one object per call would be ITERATIONS blocks


def _medium_document() -> dict[str, Any]:
    return {
        "ints": [0, 1, -1, 127, 128, -33, 255, 65536, 2**32, 2**63, 2**64 - 1, -(2**63)],
        "floats": [0.5, -0.0, 1e300, float("inf"), float("nan")],
        "text": [
            "ascii",
            "\u00e9t\u00e9",
            "\u3072\u3089\u304c\u306a",
            "\U0001f37a" * 20,
            "x" * 300,
        ],
        "bin": bytes(range(256)) * 4,
        "ext": [Ext(1, b"x"), Ext(-1, bytes(8)), Ext(5, bytes(300))],
        "items": [
            {"id": i, "name": f"item {i}", "tags": ["a", "b"], "score": i * 1.5, "ok": i % 2 == 0}
            for i in range(40)
        ],
        "tuple": (1, (2, None)),
    }


DOC = _medium_document()
PACKED: bytes = fastmsgpack.packb(DOC)
NON_STR_PACKED = fastmsgpack.packb({1: [DOC], (2, b"k"): None, None: 1.5}, option=OPT_NON_STR_KEYS)


def _after_doc(tail: bytes) -> bytes:
    """A 2-element array: the medium document, then ``tail`` (so errors come late)."""
    return b"\x92" + PACKED + tail


class Opaque:
    pass


def _raising_default(obj: Any) -> Any:
    raise ValueError("default failed")


def _converting_default(obj: Any) -> Any:
    return [1, "converted", 2.5]


def _raising_hook(tag: int, data: bytes) -> Any:
    raise ValueError("ext_hook failed")


def _hook(tag: int, data: bytes) -> Any:
    return (tag, data)


def _fails(
    exc_type: type[BaseException], func: Callable[..., Any], *args: Any, **kw: Any
) -> Callable[[], None]:
    def call() -> None:
        try:
            func(*args, **kw)
        except exc_type:
            return
        raise AssertionError("call was expected to fail")

    return call


def _mutating_pack() -> None:
    items: list[Any] = [Opaque(), DOC, 1]
    try:
        fastmsgpack.packb(items, default=lambda obj: items.clear())
    except MsgpackEncodeError:
        return
    raise AssertionError("mutation was not detected")


def _circular() -> list[Any]:
    cycle: list[Any] = ["abc", 1.5, b"bytes" * 10]
    cycle.append(cycle)
    return cycle


CIRCULAR = _circular()
Point = collections.namedtuple("Point", "x y")
POINTS = [Point(i, [DOC["text"][i % 5], float(i)]) for i in range(50)]


def _circular_named_tuple() -> Any:
    items: list[Any] = ["abc"]
    cycle = Point(items, 1.5)
    items.append(cycle)
    return cycle


CIRCULAR_NAMED_TUPLE = _circular_named_tuple()
UNPACK = fastmsgpack.unpackb
PACK = fastmsgpack.packb
DE = MsgpackDecodeError
EE = MsgpackEncodeError

CASES: dict[str, Callable[[], Any]] = {
    # successful calls
    "pack": lambda: PACK(DOC),
    "unpack": lambda: UNPACK(PACKED),
    "unpack-memoryview": lambda: UNPACK(memoryview(PACKED)),
    "pack-default": lambda: PACK([Opaque(), DOC, Opaque()], default=_converting_default),
    "unpack-ext-hook": lambda: UNPACK(PACKED, ext_hook=_hook),
    "non-str-keys": lambda: UNPACK(NON_STR_PACKED, option=OPT_NON_STR_KEYS),
    "sort-keys": lambda: PACK(DOC, option=OPT_SORT_KEYS),
    "pack-memoryviews": lambda: PACK([memoryview(bytearray(b"view" * 50))] * 100),
    "pack-named-tuples": lambda: PACK({"points": POINTS, Point(1, 2): 3}, option=OPT_NON_STR_KEYS),
    # failing unpackb
    "truncated": _fails(DE, UNPACK, PACKED[:-1]),
    "reserved-c1": _fails(DE, UNPACK, _after_doc(b"\xc1")),
    "invalid-utf8": _fails(DE, UNPACK, _after_doc(b"\xa2\xc3\x28")),
    "trailing": _fails(DE, UNPACK, PACKED + b"\x00"),
    "non-str-key": _fails(DE, UNPACK, _after_doc(b"\x81\x01\x01")),
    "unhashable-key": _fails(DE, UNPACK, _after_doc(b"\x81\x80\x01"), option=OPT_NON_STR_KEYS),
    "too-deep": _fails(DE, UNPACK, b"\x91" * 1100 + b"\xc0"),
    "huge-array32": _fails(DE, UNPACK, _after_doc(b"\xdd\xff\xff\xff\xff\x01")),
    "huge-map32": _fails(DE, UNPACK, _after_doc(b"\xdf\xff\xff\xff\xff\xa1k")),
    "huge-str32": _fails(DE, UNPACK, _after_doc(b"\xdb\xff\xff\xff\xffabc")),
    "huge-bin32": _fails(DE, UNPACK, _after_doc(b"\xc6\xff\xff\xff\xffabc")),
    "huge-ext32": _fails(DE, UNPACK, _after_doc(b"\xc9\xff\xff\xff\xff\x01abc")),
    "ext-hook-raises": _fails(DE, UNPACK, PACKED, ext_hook=_raising_hook),
    "unpack-bad-option": _fails(DE, UNPACK, PACKED, option=OPT_SORT_KEYS),
    "unpack-unknown-option": _fails(DE, UNPACK, PACKED, option=1 << 40),
    "unpack-non-int-option": _fails(TypeError, UNPACK, PACKED, option="1"),
    "unpack-str-input": _fails(TypeError, UNPACK, "not bytes"),
    "unpack-strided-input": _fails(TypeError, UNPACK, memoryview(PACKED)[::2]),
    # failing packb
    "default-raises": _fails(EE, PACK, [DOC, Opaque()], default=_raising_default),
    "no-default": _fails(EE, PACK, [DOC, Opaque()]),
    "big-int": _fails(EE, PACK, [DOC, 2**64]),
    "surrogate": _fails(EE, PACK, [DOC, "\ud800"]),
    "non-str-key-pack": _fails(EE, PACK, [DOC, {1: 2}]),
    "sort-non-str": _fails(EE, PACK, [DOC, {1: 2}], option=OPT_SORT_KEYS | OPT_NON_STR_KEYS),
    "circular": _fails(EE, PACK, CIRCULAR),
    "circular-named-tuple": _fails(EE, PACK, CIRCULAR_NAMED_TUPLE),
    "named-tuple-no-default": _fails(EE, PACK, POINTS, option=OPT_PASSTHROUGH_TUPLE),
    "named-tuple-json": _fails(EE, fastmsgpack.json.dumps, POINTS, option=OPT_PASSTHROUGH_TUPLE),
    "too-deep-pack": _fails(EE, PACK, [DOC, nested_lists(300)]),
    "default-limit": _fails(EE, PACK, [DOC, Opaque()], default=lambda obj: obj),
    "pack-bad-option": _fails(EE, PACK, DOC, option=1 << 40),
    "pack-strided-view": _fails(EE, PACK, [DOC, memoryview(b"a-b-c-")[::2]]),
    "view-in-json": _fails(EE, PACK, [DOC, memoryview(b"abc")], option=OPT_JSON_COMPAT),
    "mutation": _mutating_pack,
    "ext-bad-tag": _fails(ValueError, Ext, 300, b"data"),
}


def _measure(call: Callable[[], Any]) -> tuple[int, int]:
    process = psutil.Process()
    for _ in range(WARMUP):
        call()
    gc.collect()
    rss_before = process.memory_info().rss
    blocks_before = sys.getallocatedblocks()
    for _ in range(ITERATIONS):
        call()
    gc.collect()
    return process.memory_info().rss - rss_before, sys.getallocatedblocks() - blocks_before


@pytest.mark.parametrize("name", CASES)
def test_memory_is_flat(name: str) -> None:
    rss_growth, block_growth = _measure(CASES[name])
    assert rss_growth < MAX_RSS_GROWTH, f"RSS grew by {rss_growth} bytes"
    assert block_growth < MAX_BLOCK_GROWTH, f"{block_growth} more allocated blocks"


def test_key_cache_is_bounded() -> None:
    def batch(start: int) -> bytes:
        keys = [f"k{i:07d}".encode() for i in range(start, start + 100)]
        return b"\xde\x00\x64" + b"".join(bytes([0xA0 | len(k)]) + k + b"\xc0" for k in keys)

    for n in range(1000):  # warm-up with 100,000 distinct keys
        UNPACK(batch(n * 100))
    gc.collect()
    blocks_before = sys.getallocatedblocks()
    for n in range(1000, 2000):
        result = UNPACK(batch(n * 100))
        assert f"k{n * 100:07d}" in result
    del result
    gc.collect()
    assert sys.getallocatedblocks() - blocks_before < 5_000


def test_refcounts_unchanged() -> None:
    default = _converting_default
    raising_default = _raising_default
    hook = _hook
    raising_hook = _raising_hook
    data = bytes(PACKED)
    doc = _medium_document()
    leaf_float = doc["floats"][2]
    leaf_int = doc["ints"][-1]
    leaf_str = doc["text"][-1]
    leaf_bin = doc["bin"]
    leaf_ext = doc["ext"][2]
    opaque = Opaque()
    tracked: list[Any] = [
        default,
        raising_default,
        hook,
        raising_hook,
        data,
        doc,
        leaf_float,
        leaf_int,
        leaf_str,
        leaf_bin,
        leaf_ext,
        opaque,
    ]
    before = [sys.getrefcount(obj) for obj in tracked]
    for _ in range(2_000):
        PACK(doc)
        PACK([doc, opaque], default=default)
        UNPACK(data)
        UNPACK(data, ext_hook=hook)
        for failing in (
            _fails(EE, PACK, [doc, opaque], default=raising_default),
            _fails(EE, PACK, [doc, opaque]),
            _fails(DE, UNPACK, data, ext_hook=raising_hook),
            _fails(DE, UNPACK, data + b"\x00", ext_hook=hook),
            _fails(DE, UNPACK, data[:-1], ext_hook=hook),
            _fails(EE, PACK, doc, default=default, option=1 << 40),
        ):
            failing()
    del failing
    gc.collect()
    after = [sys.getrefcount(obj) for obj in tracked]
    assert after == before
