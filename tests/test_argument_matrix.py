"""Every keyword argument an entry point accepts is honoured or refused, in every mode.

The accepted keywords are read from the entry points themselves (their signatures, or the
compat stubs where the signature is ``**kwargs``), so an argument added later is in the matrix
at once and fails ``test_every_keyword_has_a_probe`` until it has a probe here. A probe is a call
made with the argument and once without it: the two must differ (a value, or an error in one of
them), or the call with it must raise ``TypeError``/``ValueError`` (refused). The modes add what
a mode means to each call: ``typed`` decodes into ``list[Any]`` (the value wrapped in an array),
``exact`` adds ``OPT_EXACT``; the stream and view modes are the entry points ``unpack``,
``Unpacker``, ``AsyncUnpacker``, ``aio.read_frame`` and ``View``.
"""

from __future__ import annotations

import ast
import asyncio
import datetime
import inspect
import io
import pickle
import struct
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

import fastmsgpack
import fastmsgpack.aio
import fastmsgpack.compat
import fastmsgpack.json
from fastmsgpack import Ext, Registry

PACKAGE = Path(fastmsgpack.__file__).resolve().parent


class Box:
    __slots__ = ("inner",)

    def __init__(self, inner: Any) -> None:
        self.inner = inner

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Box) and other.inner == self.inner

    def __repr__(self) -> str:
        return f"Box({self.inner!r})"


REGISTRY = Registry()
REGISTRY.register(Box, 7, lambda b: b.inner, Box)


class Custom:
    def __init__(self, value: Any) -> None:
        self.value = value

    def __repr__(self) -> str:
        return f"Custom({self.value!r})"


def outcome(call: Callable[[], Any]) -> tuple[str, str]:
    """What a call gave: its value's repr, or the type of the error it raised."""
    try:
        value = call()
    except Exception as exc:  # noqa: BLE001 (an error is an outcome)
        return ("raised", type(exc).__name__)
    if isinstance(value, memoryview):
        value = ("memoryview", value.tobytes())
    return ("returned", repr(value))


def refused(call: Callable[[], Any]) -> bool:
    return outcome(call)[0] == "raised" and outcome(call)[1] in ("TypeError", "ValueError")


# -- decoding ------------------------------------------------------------------------------------

#: The decoders, each called as ``decode(data, **keywords)``.
DECODERS: dict[str, Callable[..., Any]] = {}


def _decoder(name: str) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
    def register(fn: Callable[..., Any]) -> Callable[..., Any]:
        DECODERS[name] = fn
        return fn

    return register


@_decoder("unpackb")
def _unpackb(data: bytes, **kw: Any) -> Any:
    return fastmsgpack.unpackb(data, **kw)


@_decoder("unpack")
def _unpack(data: bytes, **kw: Any) -> Any:
    return fastmsgpack.unpack(io.BytesIO(data), **kw)


class Recording(io.BytesIO):
    """A file whose read sizes are part of the outcome (``read_size``)."""

    def __init__(self, data: bytes) -> None:
        super().__init__(data)
        self.sizes: list[int] = []

    def read(self, size: int | None = -1, /) -> bytes:
        self.sizes.append(-1 if size is None else size)
        return super().read(size)


@_decoder("Unpacker")
def _unpacker_file(data: bytes, **kw: Any) -> Any:
    fp = Recording(data)
    values = list(fastmsgpack.Unpacker(fp, **kw))
    return values, fp.sizes


@_decoder("Unpacker.feed")
def _unpacker_feed(data: bytes, **kw: Any) -> Any:
    unpacker = fastmsgpack.Unpacker(**kw)
    unpacker.feed(data)
    return list(unpacker)


class AsyncRecording:
    def __init__(self, data: bytes) -> None:
        self.data = data
        self.sizes: list[int] = []

    async def read(self, n: int) -> bytes:
        self.sizes.append(n)
        piece, self.data = self.data[:n], self.data[n:]
        return piece


@_decoder("AsyncUnpacker")
def _async_unpacker(data: bytes, **kw: Any) -> Any:
    async def run() -> Any:
        reader = AsyncRecording(data)
        values = [obj async for obj in fastmsgpack.AsyncUnpacker(reader, **kw)]
        return values, reader.sizes

    return asyncio.run(run())


@_decoder("aio.read_frame")
def _read_frame(data: bytes, **kw: Any) -> Any:
    async def run() -> Any:
        reader = AsyncRecording(struct.pack(">I", len(data)) + data)
        return await fastmsgpack.aio.read_frame(reader, **kw)

    return asyncio.run(run())


@_decoder("View")
def _view(data: bytes, **kw: Any) -> Any:
    view = fastmsgpack.View(data, **kw)
    if isinstance(view, fastmsgpack.MapView):
        # The first entry read alone (validate=False defers errors to the reads), then whole.
        return outcome(lambda: view[next(iter(view))]), outcome(view.to_python)
    if isinstance(view, fastmsgpack.ArrayView):
        return outcome(lambda: view[0]), outcome(view.to_python)
    return view


@_decoder("Decoder")
def _decoder_class(data: bytes, *, type: Any = Any, **kw: Any) -> Any:
    return fastmsgpack.Decoder(type, **kw).decode(data)


_TIMESTAMP = fastmsgpack.packb(
    datetime.datetime(2024, 1, 2, tzinfo=datetime.timezone.utc),
    option=fastmsgpack.OPT_DATETIME_AS_TIMESTAMP_EXT,
)
_OOB: list[pickle.PickleBuffer] = []
_OOB_PACKED = fastmsgpack.packb(pickle.PickleBuffer(b"x" * 4096), buffer_callback=_OOB.append)
_BAD_UTF8_IN_MAP = b"\x82\xa1a\x01\xa1b\xa2\xff\xfe"


def _ext_hook(code: int, data: bytes) -> Any:
    return ("hooked", code, data)


def _dec_hook(tp: Any, obj: Any) -> Any:
    return tp(obj)


#: For each keyword, the input and the value that shows its effect; the call without the
#: keyword gets the same input and the other keywords. ``None``: the keyword does not apply to
#: the decoder (it has its own probe under another name).
DECODE_PROBES: dict[str, tuple[bytes, dict[str, Any]]] = {
    "ext_hook": (fastmsgpack.packb(Ext(5, b"x")), {"ext_hook": _ext_hook}),
    "option": (_TIMESTAMP, {"option": fastmsgpack.OPT_DATETIME_AS_TIMESTAMP_EXT}),
    "type": (fastmsgpack.packb([1, 2]), {"type": tuple[int, ...]}),
    "dec_hook": (fastmsgpack.packb(["x"]), {"type": list[Custom], "dec_hook": _dec_hook}),
    "buffers": (_OOB_PACKED, {"buffers": [b.raw() for b in _OOB]}),
    "registry": (b"\xd4\x07\x05", {"registry": REGISTRY}),
    "read_size": (fastmsgpack.packb(list(range(40))), {"read_size": 7}),
    "max_buffer_size": (fastmsgpack.packb("x" * 100), {"max_buffer_size": 16}),
    "max_frame_size": (fastmsgpack.packb("x" * 100), {"max_frame_size": 16}),
    "validate": (_BAD_UTF8_IN_MAP, {"validate": False}),
}

#: The keywords a probe above tests with others ("dec_hook" needs a "type"): the call without
#: the keyword keeps those.
PROBE_KEEPS = {"dec_hook": {"type"}}

#: The one pair a mode cannot test (typed mode passes a type of its own), and keywords an
#: entry point takes that do nothing in one way of calling it, by design, with why.
NOT_IN_MODE = {("type", "typed")}
NO_EFFECT_BY_DESIGN = {
    ("Unpacker.feed", "read_size"): "read_size sizes fp.read() calls: fed bytes make none",
}

SIGNATURES: dict[str, Callable[..., Any]] = {
    "unpackb": fastmsgpack.unpackb,
    "unpack": fastmsgpack.unpack,
    "Unpacker": fastmsgpack.Unpacker,
    "Unpacker.feed": fastmsgpack.Unpacker,
    "AsyncUnpacker": fastmsgpack.AsyncUnpacker,
    "aio.read_frame": fastmsgpack.aio.read_frame,
    "View": fastmsgpack.View,
    "Decoder": fastmsgpack.Decoder,
}


def keywords_of(fn: Callable[..., Any]) -> list[str]:
    params = inspect.signature(fn).parameters.values()
    return [p.name for p in params if p.kind in (p.KEYWORD_ONLY, p.POSITIONAL_OR_KEYWORD)]


def keywords_of_stub(module: str, name: str) -> list[str]:
    """The keywords of ``name`` in a stub of the package (for ``**kwargs`` signatures)."""
    tree = ast.parse((PACKAGE / module).read_text())
    for node in ast.walk(tree):
        if isinstance(node, ast.FunctionDef) and node.name == name:
            args = node.args
            return [a.arg for a in [*args.args, *args.kwonlyargs] if a.arg not in ("self", "cls")]
    raise AssertionError(f"{name} is not in {module}")


def _decode_keywords(entry: str) -> list[str]:
    skip = {"file_like", "data", "fp", "reader", "packed"}
    names = [k for k in keywords_of(SIGNATURES[entry]) if k not in skip]
    # Decoder's type is its first argument.
    return names


DECODE_MODES = ("plain", "typed", "exact")

DECODE_CASES = [
    (entry, keyword, mode)
    for entry in DECODERS
    for keyword in _decode_keywords(entry)
    for mode in DECODE_MODES
    if (keyword, mode) not in NOT_IN_MODE
    and (entry, keyword) not in NO_EFFECT_BY_DESIGN
    and not (entry == "Decoder" and mode == "typed")
]


def _in_mode(mode: str, data: bytes, kw: dict[str, Any]) -> tuple[bytes, dict[str, Any]]:
    kw = dict(kw)
    if mode == "typed" and "type" not in kw:
        return b"\x91" + data, {**kw, "type": list[Any]}
    if mode == "exact":
        kw["option"] = kw.get("option", 0) | fastmsgpack.OPT_EXACT
    return data, kw


@pytest.mark.parametrize(("entry", "keyword", "mode"), DECODE_CASES)
def test_decode_keyword_has_an_effect(entry: str, keyword: str, mode: str) -> None:
    data, kw = DECODE_PROBES[keyword]
    without = {k: v for k, v in kw.items() if k == keyword or k in PROBE_KEEPS.get(keyword, ())}
    without = {k: v for k, v in kw.items() if k != keyword}
    data, kw = _in_mode(mode, data, kw)
    _, without = _in_mode(mode, b"", without)
    decode = DECODERS[entry]
    with_it = outcome(lambda: decode(data, **kw))
    assert with_it != outcome(lambda: decode(data, **without)) or refused(
        lambda: decode(data, **kw)
    ), f"{entry}({keyword}=...) in {mode} mode was ignored: {with_it}"


# -- encoding ------------------------------------------------------------------------------------


class Opaque:
    def __repr__(self) -> str:
        return "Opaque()"


ENCODERS: dict[str, Callable[..., Any]] = {
    "packb": lambda obj, **kw: fastmsgpack.packb(obj, **kw),
    "pack": lambda obj, **kw: _pack(obj, **kw),
    "Packer": lambda obj, **kw: fastmsgpack.Packer(**kw).pack(obj),
    "packb_frames": lambda obj, **kw: [bytes(f) for f in fastmsgpack.packb_frames(obj, **kw)],
    "json.dumps": lambda obj, **kw: fastmsgpack.json.dumps(obj, **kw),
    "aio.write": lambda obj, **kw: _aio_write(obj, **kw),
}
ENCODER_SIGNATURES: dict[str, Callable[..., Any]] = {
    "packb": fastmsgpack.packb,
    "pack": fastmsgpack.pack,
    "Packer": fastmsgpack.Packer,
    "packb_frames": fastmsgpack.packb_frames,
    "json.dumps": fastmsgpack.json.dumps,
    "aio.write": fastmsgpack.aio.write,
}


def _pack(obj: Any, **kw: Any) -> bytes:
    out = io.BytesIO()
    fastmsgpack.pack(obj, out, **kw)
    return out.getvalue()


def _aio_write(obj: Any, **kw: Any) -> bytes:
    class Writer:
        def __init__(self) -> None:
            self.out = bytearray()

        def write(self, data: bytes) -> None:
            self.out += data

        async def drain(self) -> None:
            return None

    writer = Writer()
    asyncio.run(fastmsgpack.aio.write(writer, obj, **kw))
    return bytes(writer.out)


_CALLBACK_SEEN: list[int] = []


def _callback(buffer: pickle.PickleBuffer) -> None:
    _CALLBACK_SEEN.append(len(buffer.raw()))


ENCODE_PROBES: dict[str, tuple[Any, dict[str, Any]]] = {
    "default": (Opaque(), {"default": repr}),
    "option": ({"b": 1, "a": 2}, {"option": fastmsgpack.OPT_SORT_KEYS}),
    "buffer_callback": (bytes(4096), {"buffer_callback": _callback}),
    "buffer_threshold": (
        bytes(4096),
        {"buffer_callback": _callback, "buffer_threshold": 1 << 20},
    ),
    "registry": (Box(5), {"registry": REGISTRY}),
}
ENCODE_PROBE_KEEPS = {"buffer_threshold": {"buffer_callback"}}
#: packb_frames sends every large buffer out of band: its threshold shows without a callback.
ENCODE_PROBE_FOR = {
    ("packb_frames", "buffer_threshold"): (bytes(4096), {"buffer_threshold": 1 << 20})
}

ENCODE_CASES = [
    (entry, keyword, mode)
    for entry in ENCODERS
    for keyword in keywords_of(ENCODER_SIGNATURES[entry])
    if keyword not in ("obj", "fp", "writer")
    for mode in ("plain", "exact")
    if not (mode == "exact" and entry == "json.dumps")
]


@pytest.mark.parametrize(("entry", "keyword", "mode"), ENCODE_CASES)
def test_encode_keyword_has_an_effect(entry: str, keyword: str, mode: str) -> None:
    obj, kw = ENCODE_PROBE_FOR.get((entry, keyword), ENCODE_PROBES[keyword])
    keeps = ENCODE_PROBE_KEEPS.get(keyword, set())
    without = {k: v for k, v in kw.items() if k != keyword and (k in keeps or k != keyword)}
    if mode == "exact":
        kw = {**kw, "option": kw.get("option", 0) | fastmsgpack.OPT_EXACT}
        without = {**without, "option": without.get("option", 0) | fastmsgpack.OPT_EXACT}
    encode = ENCODERS[entry]

    def run(keywords: dict[str, Any]) -> tuple[tuple[str, str], list[int]]:
        _CALLBACK_SEEN.clear()
        result = outcome(lambda: encode(obj, **keywords))
        return result, list(_CALLBACK_SEEN)

    with_it = run(kw)
    assert with_it != run(without) or refused(lambda: encode(obj, **kw)), (
        f"{entry}({keyword}=...) in {mode} mode was ignored: {with_it}"
    )


# -- compat --------------------------------------------------------------------------------------

_COMPAT_DATA = fastmsgpack.compat.packb({"k": [1, 2]})
COMPAT_UNPACK_PROBES: dict[str, tuple[bytes, dict[str, Any]]] = {
    "use_list": (_COMPAT_DATA, {"use_list": False}),
    "raw": (_COMPAT_DATA, {"raw": True}),
    "timestamp": (fastmsgpack.compat.packb(fastmsgpack.compat.Timestamp(1, 0)), {"timestamp": 1}),
    "strict_map_key": (b"\x81\x01\x02", {"strict_map_key": False}),
    "object_hook": (_COMPAT_DATA, {"object_hook": lambda d: sorted(d)}),
    "object_pairs_hook": (_COMPAT_DATA, {"object_pairs_hook": list}),
    "list_hook": (_COMPAT_DATA, {"list_hook": tuple}),
    "unicode_errors": (b"\xa2\xff\xfe", {"unicode_errors": "replace"}),
    "ext_hook": (fastmsgpack.packb(Ext(5, b"x")), {"ext_hook": _ext_hook}),
    "max_str_len": (_COMPAT_DATA, {"max_str_len": 0}),
    "max_bin_len": (fastmsgpack.packb(b"xy"), {"max_bin_len": 1}),
    "max_array_len": (_COMPAT_DATA, {"max_array_len": 1}),
    "max_map_len": (b"\x82\xa1a\x01\xa1b\x02", {"max_map_len": 1}),
    "max_ext_len": (fastmsgpack.packb(Ext(5, b"xy")), {"max_ext_len": 1}),
}
COMPAT_PACK_PROBES: dict[str, tuple[Any, dict[str, Any]]] = {
    "default": (Opaque(), {"default": repr}),
    "use_single_float": (1.5, {"use_single_float": True}),
    "autoreset": ([1], {"autoreset": False}),
    "use_bin_type": (b"x", {"use_bin_type": False}),
    "strict_types": ((1, 2), {"strict_types": True}),
    "datetime": (datetime.datetime(2024, 1, 2, tzinfo=datetime.timezone.utc), {"datetime": True}),
    "unicode_errors": ("\ud800", {"unicode_errors": "surrogatepass"}),
}
COMPAT_NO_EFFECT_BY_DESIGN = {
    "buf_size": "msgpack-python's initial buffer size: it changes no output there either",
}


@pytest.mark.parametrize("keyword", keywords_of_stub("compat/__init__.pyi", "unpackb")[1:])
def test_compat_unpackb_keyword_has_an_effect(keyword: str) -> None:
    data, kw = COMPAT_UNPACK_PROBES[keyword]
    with_it = outcome(lambda: fastmsgpack.compat.unpackb(data, **kw))
    assert with_it != outcome(lambda: fastmsgpack.compat.unpackb(data)), keyword
    unpacker = fastmsgpack.compat.Unpacker(**kw)
    unpacker.feed(data)
    plain = fastmsgpack.compat.Unpacker()
    plain.feed(data)
    assert outcome(lambda: list(unpacker)) != outcome(lambda: list(plain)), f"Unpacker {keyword}"


@pytest.mark.parametrize(
    "keyword",
    [
        k
        for k in keywords_of_stub("compat/__init__.pyi", "packb")[1:]
        if k not in COMPAT_NO_EFFECT_BY_DESIGN
    ],
)
def test_compat_packb_keyword_has_an_effect(keyword: str) -> None:
    obj, kw = COMPAT_PACK_PROBES[keyword]
    with_it = outcome(lambda: fastmsgpack.compat.Packer(**kw).pack(obj))
    assert with_it != outcome(lambda: fastmsgpack.compat.Packer().pack(obj)), keyword


# -- the matrix covers every keyword -------------------------------------------------------------


def test_every_keyword_has_a_probe() -> None:
    missing = {
        (entry, keyword)
        for entry in DECODERS
        for keyword in _decode_keywords(entry)
        if keyword not in DECODE_PROBES
    }
    missing |= {
        (entry, keyword)
        for entry in ENCODERS
        for keyword in keywords_of(ENCODER_SIGNATURES[entry])
        if keyword not in ENCODE_PROBES and keyword not in ("obj", "fp", "writer")
    }
    missing |= {
        ("compat.unpackb", k)
        for k in keywords_of_stub("compat/__init__.pyi", "unpackb")[1:]
        if k not in COMPAT_UNPACK_PROBES
    }
    missing |= {
        ("compat.packb", k)
        for k in keywords_of_stub("compat/__init__.pyi", "packb")[1:]
        if k not in COMPAT_PACK_PROBES and k not in COMPAT_NO_EFFECT_BY_DESIGN
    }
    assert not missing, f"keywords without a probe: {sorted(missing)}"
