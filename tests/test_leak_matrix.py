"""Every public entry point, with every option and argument that changes the path it takes,
leaks nothing.

Each case runs a warm-up, then two windows of CALLS calls each, and checks the growth of
``sys.getallocatedblocks()`` over the second window (a leak of one object per call shows as CALLS
blocks in every window) and the process's RSS over both.

Why the second window: free-threaded CPython allocates objects with mimalloc, and there the
count of allocated blocks climbs during the first several hundred calls of some cases and then
stays put (``unpack`` with ``OPT_BIN_MEMORYVIEW`` on 3.14t: about 700 blocks within the first
1,000 calls, 727 after 200,000; the input's reference count and tracemalloc's traced memory do
not grow). Within the first window that plateau is not told apart from a leak; by the second it has
been reached, while a leak that keeps one block per call grows by CALLS there as in the first. The options are taken from the
module's own list and masks (``_OPTIONS``, ``_OPTION_MASKS``), so a new option is in the matrix
as soon as it exists; the arguments other than ``option`` are listed here, and
``test_every_argument_is_in_the_matrix`` fails when an entry point takes one that is not.
"""

from __future__ import annotations

import asyncio
import dataclasses
import datetime
import decimal
import gc
import inspect
import io
import pickle
import sys
import uuid
from collections.abc import Callable
from functools import partial
from typing import Any

import psutil  # type: ignore[import-untyped]
import pytest

import fastmsgpack
import fastmsgpack.aio
import fastmsgpack.compat
import fastmsgpack.json
from fastmsgpack import Ext, Registry

CALLS = 1_000
WARMUP = 100
#: A leak of one object per call is CALLS blocks a window; caches and the allocator's own
#: bookkeeping have settled by the second window.
MAX_BLOCK_GROWTH = CALLS // 4
MAX_RSS_GROWTH = 8 * 2**20

OPTIONS: dict[str, int] = dict(fastmsgpack._fastmsgpack._OPTIONS)
MASKS: dict[str, int] = dict(fastmsgpack._fastmsgpack._OPTION_MASKS)


class Box:
    """A registered class."""

    __slots__ = ("inner",)

    def __init__(self, inner: Any) -> None:
        self.inner = inner


REGISTRY = Registry()
REGISTRY.register(Box, 7, lambda b: b.inner, Box)


@dataclasses.dataclass
class Row:
    id: int
    name: str
    blob: bytes
    at: datetime.datetime
    tags: list[str]


@dataclasses.dataclass
class Doc:
    rows: list[Row]
    extra: Any


def _rows(n: int) -> list[Row]:
    at = datetime.datetime(2024, 5, 1, 12, 30, tzinfo=datetime.timezone.utc)
    # Bins of 300 bytes: every slice bound past the first is above the small-int cache (256).
    return [Row(i, f"row {i}", bytes([i]) * 300, at, ["a", "b"]) for i in range(10)]


DOC = Doc(_rows(10), {"n": [1, 2.5, None, True], "ext": Ext(5, b"abc")})
PACKED = fastmsgpack.packb(DOC)
PLAIN = fastmsgpack.unpackb(PACKED)
#: What JSON holds (no bins, no extensions), for json.dumps, json.from_msgpack, OPT_JSON_COMPAT.
JSON_DOC = {
    "rows": [
        {"id": i, "name": f"row {i}", "at": r.at, "tags": r.tags} for i, r in enumerate(DOC.rows)
    ],
    "n": [1, 2.5, None, True, "\u00e9t\u00e9"],
}
JSON_PACKED = fastmsgpack.packb(JSON_DOC)
REGISTRY_PACKED = fastmsgpack.packb(
    {"box": Box([1, Box(b"x" * 300)]), "rows": PLAIN}, registry=REGISTRY
)

#: What OPT_EXACT and the registry read back: their extensions, a zone, a tuple key.
EXACT_VALUE = {
    "t": (1, (2, 3)),
    "s": frozenset({1, 2}),
    "when": datetime.datetime(
        2024, 5, 1, 12, 30, tzinfo=datetime.timezone(datetime.timedelta(hours=2))
    ),
    "u": uuid.UUID(int=7),
    "d": decimal.Decimal("1.25"),
    "big": 2**70,
    (1, 2): "tuple key",
    "box": Box([1, Box(2)]),
    "bins": [bytes([i]) * 300 for i in range(10)],
}
EXACT_PACKED = fastmsgpack.packb(EXACT_VALUE, option=fastmsgpack.OPT_EXACT, registry=REGISTRY)
NON_STR_PACKED = fastmsgpack.packb({1: PLAIN, (2, 3): None}, option=fastmsgpack.OPT_NON_STR_KEYS)
TIMESTAMPS_PACKED = fastmsgpack.packb(
    [datetime.datetime(2024, 5, 1, tzinfo=datetime.timezone.utc)] * 5,
    option=fastmsgpack.OPT_DATETIME_AS_TIMESTAMP_EXT,
)

OOB: list[pickle.PickleBuffer] = []
OOB_PACKED = fastmsgpack.packb(
    [pickle.PickleBuffer(bytes(5000)), pickle.PickleBuffer(bytearray(6000))],
    buffer_callback=OOB.append,
)
OOB_BUFFERS = [b.raw() for b in OOB]


def _ext_hook(code: int, data: bytes) -> Any:
    return (code, data)


def _dec_hook(tp: type, obj: Any) -> Any:
    return tp(obj)


class Custom:
    def __init__(self, value: Any) -> None:
        self.value = value


def _default(obj: Any) -> Any:
    if isinstance(obj, Custom):
        return [obj.value]
    raise TypeError


def _passthrough(obj: Any) -> Any:
    """`default` for the passthrough options: a dataclass as its fields, anything else as str."""
    if dataclasses.is_dataclass(obj) and not isinstance(obj, type):
        return {f.name: getattr(obj, f.name) for f in dataclasses.fields(obj)}
    return str(obj)


def _input_for(bit: int) -> bytes:
    """An input that takes the path of the decoding option ``bit``."""
    if bit == fastmsgpack.OPT_NON_STR_KEYS:
        return NON_STR_PACKED
    if bit == fastmsgpack.OPT_DATETIME_AS_TIMESTAMP_EXT:
        return TIMESTAMPS_PACKED
    if bit == fastmsgpack.OPT_EXACT:
        return EXACT_PACKED
    return PACKED


def _options_of(entry: str) -> list[tuple[str, int]]:
    return [(name, bit) for name, bit in OPTIONS.items() if MASKS[entry] & bit]


def _unpack_cases() -> dict[str, Callable[[], Any]]:
    cases: dict[str, Callable[[], Any]] = {}
    for name, bit in [("none", 0), *_options_of("unpackb")]:
        if bit == fastmsgpack.OPT_FORBID_UNKNOWN_FIELDS:
            # Refused without type= (tests/test_arguments_checked.py); the typed cases below
            # run it.
            continue
        data = _input_for(bit)
        reg = REGISTRY if bit == fastmsgpack.OPT_EXACT else None
        cases[f"unpackb-{name}"] = partial(fastmsgpack.unpackb, data, option=bit, registry=reg)
        cases[f"unpack-{name}"] = partial(_unpack, data, option=bit, registry=reg)
        cases[f"Unpacker-{name}"] = partial(_unpacker, data, option=bit, registry=reg)
        if bit != fastmsgpack.OPT_BIN_MEMORYVIEW:  # refused by View: it views the input anyway
            cases[f"View-{name}"] = partial(_view, data, option=bit)
    typed_options = [("none", 0)] + [
        (n, b)
        for n, b in _options_of("unpackb")
        if b
        in (
            fastmsgpack.OPT_BIN_MEMORYVIEW,
            fastmsgpack.OPT_FORBID_UNKNOWN_FIELDS,
            fastmsgpack.OPT_EXACT,
        )
    ]
    for name, bit in typed_options:
        tp: Any = Doc if bit != fastmsgpack.OPT_BIN_MEMORYVIEW else dict[str, Any]
        data = PACKED
        cases[f"typed-{name}"] = partial(fastmsgpack.unpackb, PACKED, type=tp, option=bit)
        cases[f"typed-unpack-{name}"] = partial(_unpack, PACKED, type=tp, option=bit)
        cases[f"typed-Unpacker-{name}"] = partial(_unpacker, PACKED, type=tp, option=bit)
        cases[f"Decoder-{name}"] = partial(fastmsgpack.Decoder(tp, option=bit).decode, PACKED)
        if bit != fastmsgpack.OPT_BIN_MEMORYVIEW:
            cases[f"View-typed-{name}"] = partial(_view, PACKED, type=tp, option=bit)
    memoryview_doc = fastmsgpack.packb([bytes(300)] * 10)
    cases["typed-memoryview-field"] = lambda: fastmsgpack.unpackb(
        memoryview_doc, type=list[memoryview]
    )
    cases["typed-registry"] = lambda: fastmsgpack.unpackb(
        EXACT_PACKED, type=dict[Any, Any], registry=REGISTRY, option=fastmsgpack.OPT_EXACT
    )
    cases["typed-dec_hook"] = lambda: fastmsgpack.unpackb(
        fastmsgpack.packb([1, 2, 3]), type=list[Custom], dec_hook=_dec_hook
    )
    cases["ext_hook"] = lambda: fastmsgpack.unpackb(PACKED, ext_hook=_ext_hook)
    cases["typed-ext_hook"] = lambda: fastmsgpack.unpackb(PACKED, type=Doc, ext_hook=_ext_hook)
    cases["registry"] = lambda: fastmsgpack.unpackb(REGISTRY_PACKED, registry=REGISTRY)
    cases["registry-memoryview"] = lambda: fastmsgpack.unpackb(
        REGISTRY_PACKED, registry=REGISTRY, option=fastmsgpack.OPT_BIN_MEMORYVIEW
    )
    cases["buffers"] = lambda: fastmsgpack.unpackb(OOB_PACKED, buffers=OOB_BUFFERS)
    cases["buffers-memoryview"] = lambda: fastmsgpack.unpackb(
        OOB_PACKED, buffers=OOB_BUFFERS, option=fastmsgpack.OPT_BIN_MEMORYVIEW
    )
    cases["typed-buffers"] = lambda: fastmsgpack.unpackb(
        OOB_PACKED, type=list[bytes], buffers=OOB_BUFFERS
    )
    cases["Unpacker-buffers"] = lambda: _unpacker(OOB_PACKED, buffers=OOB_BUFFERS)
    cases["memoryview-bytearray-input"] = lambda: fastmsgpack.unpackb(
        bytearray(PACKED), option=fastmsgpack.OPT_BIN_MEMORYVIEW
    )
    cases["AsyncUnpacker"] = lambda: LOOP.run_until_complete(_async_unpack(PACKED))
    cases["AsyncUnpacker-memoryview"] = lambda: LOOP.run_until_complete(
        _async_unpack(PACKED, option=fastmsgpack.OPT_BIN_MEMORYVIEW)
    )
    for name, bit in [("none", 0), *_options_of("json.from_msgpack")]:
        cases[f"json.from_msgpack-{name}"] = partial(
            fastmsgpack.json.from_msgpack, JSON_PACKED, option=bit
        )
    compat_packed = fastmsgpack.compat.packb(PLAIN)
    cases["compat.unpackb"] = lambda: fastmsgpack.compat.unpackb(compat_packed)
    cases["compat.unpackb-raw-tuples"] = lambda: fastmsgpack.compat.unpackb(
        compat_packed, raw=True, use_list=False, object_hook=dict, list_hook=tuple
    )
    cases["compat.unpackb-pairs-ext"] = lambda: fastmsgpack.compat.unpackb(
        compat_packed, object_pairs_hook=list, ext_hook=fastmsgpack.compat.ExtType, timestamp=3
    )
    cases["compat.Unpacker"] = lambda: list(fastmsgpack.compat.Unpacker(io.BytesIO(compat_packed)))
    return cases


#: One event loop for the AsyncUnpacker cases (a loop per call took most of their time).
LOOP = asyncio.new_event_loop()


@pytest.fixture(scope="module", autouse=True)
def _close_loop() -> Any:
    yield
    LOOP.close()


def _unpack(data: bytes, **kwargs: Any) -> Any:
    return fastmsgpack.unpack(io.BytesIO(data), **kwargs)


def _pack(value: Any, default: Any, **kwargs: Any) -> None:
    fastmsgpack.pack(value, io.BytesIO(), default, **kwargs)


def _ignore(buffer: pickle.PickleBuffer) -> None:
    del buffer


def _unpacker(data: bytes, **kwargs: Any) -> Any:
    unpacker = fastmsgpack.Unpacker(**kwargs)
    unpacker.feed(data)
    return unpacker.unpack()


def _view(data: bytes, **kwargs: Any) -> Any:
    view = fastmsgpack.View(data, **kwargs)
    return view.to_python() if hasattr(view, "to_python") else view


async def _async_unpack(data: bytes, **kwargs: Any) -> list[Any]:
    reader = asyncio.StreamReader()
    reader.feed_data(data)
    reader.feed_eof()
    return [obj async for obj in fastmsgpack.AsyncUnpacker(reader, **kwargs)]


def _pack_cases() -> dict[str, Callable[[], Any]]:
    cases: dict[str, Callable[[], Any]] = {}
    for name, bit in [("none", 0), *_options_of("packb")]:
        value: Any = EXACT_VALUE if bit == fastmsgpack.OPT_EXACT else DOC
        reg = REGISTRY if bit == fastmsgpack.OPT_EXACT else None
        if bit == fastmsgpack.OPT_NON_STR_KEYS:
            value = {1: DOC, (2, 3): None}
        if bit == fastmsgpack.OPT_JSON_COMPAT:
            value = JSON_DOC
        # The passthrough options hand their types to `default`.
        dflt = _passthrough if name.startswith("OPT_PASSTHROUGH") else None
        cases[f"packb-{name}"] = partial(fastmsgpack.packb, value, dflt, option=bit, registry=reg)
        cases[f"Packer-{name}"] = partial(
            fastmsgpack.Packer(default=dflt, option=bit, registry=reg).pack, value
        )
        cases[f"pack-{name}"] = partial(_pack, value, dflt, option=bit, registry=reg)
    for name, bit in [("none", 0), *_options_of("json.dumps")]:
        value = {1: JSON_DOC} if bit == fastmsgpack.OPT_NON_STR_KEYS else JSON_DOC
        dflt = _passthrough if name.startswith("OPT_PASSTHROUGH") else None
        cases[f"json.dumps-{name}"] = partial(fastmsgpack.json.dumps, value, dflt, option=bit)
    custom = [Custom(i) for i in range(20)]
    cases["packb-default"] = lambda: fastmsgpack.packb(custom, default=_default)
    cases["json.dumps-default"] = lambda: fastmsgpack.json.dumps(custom, default=_default)
    cases["packb-buffer_callback"] = lambda: fastmsgpack.packb(
        [bytes(5000), bytearray(6000)], buffer_callback=_ignore, buffer_threshold=1024
    )
    cases["packb_frames"] = lambda: fastmsgpack.packb_frames(
        [bytes(5000), bytearray(6000)], buffer_threshold=1024
    )
    cases["Packer-frames"] = lambda: fastmsgpack.Packer().pack_frames([bytes(5000)] * 3)
    cases["Packer-pack_into"] = lambda: fastmsgpack.Packer().pack_into(DOC, bytearray(8))
    cases["packb-registry"] = lambda: fastmsgpack.packb(
        [Box(i) for i in range(20)], registry=REGISTRY
    )
    cases["compat.packb"] = lambda: fastmsgpack.compat.packb(PLAIN)
    cases["compat.packb-flags"] = lambda: fastmsgpack.compat.packb(
        PLAIN, use_single_float=True, use_bin_type=False, datetime=True, default=str
    )
    cases["compat.Packer"] = lambda: fastmsgpack.compat.Packer(autoreset=False).pack(PLAIN)
    return cases


CASES: dict[str, Callable[[], Any]] = {**_unpack_cases(), **_pack_cases()}


def _measure(call: Callable[[], Any]) -> tuple[int, int]:
    """The RSS growth over both windows and the growth in allocated blocks over the second."""
    process = psutil.Process()
    for _ in range(WARMUP):
        call()
    gc.collect()
    # What the process held before is left out of the collections below (they go over the new
    # objects only): a full collection of the test process took most of each case's time.
    gc.freeze()
    try:
        rss_before = process.memory_info().rss
        blocks = []
        for _window in range(2):
            for _ in range(CALLS):
                call()
            gc.collect()
            blocks.append(sys.getallocatedblocks())
        return process.memory_info().rss - rss_before, blocks[1] - blocks[0]
    finally:
        gc.unfreeze()


@pytest.mark.parametrize("name", CASES)
def test_flat(name: str) -> None:
    call = CASES[name]
    call()
    rss_growth, block_growth = _measure(call)
    assert block_growth < MAX_BLOCK_GROWTH, (
        f"{block_growth} more allocated blocks over the second {CALLS} calls"
    )
    assert rss_growth < MAX_RSS_GROWTH, f"RSS grew by {rss_growth} bytes"


#: The arguments the cases above exercise, for each entry point (besides `option`, whose every
#: bit is taken from the module's masks).
EXERCISED: dict[str, set[str]] = {
    "unpackb": {"ext_hook", "type", "dec_hook", "buffers", "registry"},
    "unpack": {"ext_hook", "type", "dec_hook", "buffers", "registry"},
    "packb": {"default", "buffer_callback", "buffer_threshold", "registry"},
    "pack": {"default", "registry"},
    "packb_frames": {"default", "buffer_threshold"},
    "json.dumps": {"default"},
    "json.from_msgpack": set(),
}

ENTRY_POINTS: dict[str, Callable[..., Any]] = {
    "unpackb": fastmsgpack.unpackb,
    "unpack": fastmsgpack.unpack,
    "packb": fastmsgpack.packb,
    "pack": fastmsgpack.pack,
    "packb_frames": fastmsgpack.packb_frames,
    "json.dumps": fastmsgpack.json.dumps,
    "json.from_msgpack": fastmsgpack.json.from_msgpack,
}


@pytest.mark.parametrize("entry", ENTRY_POINTS)
def test_every_argument_is_in_the_matrix(entry: str) -> None:
    params = inspect.signature(ENTRY_POINTS[entry]).parameters.values()
    keywords = {p.name for p in params if p.kind is not p.POSITIONAL_ONLY} - {"option"}
    assert keywords <= EXERCISED[entry], f"not in the leak matrix: {keywords - EXERCISED[entry]}"
