"""fastmsgpack.compat.unpackb and Unpacker against msgpack-python as the oracle: the same values
for every combination of the decoding options, the same exception classes for bad input and
limits, and a hook's own exception passed on."""

from __future__ import annotations

import gc
import io
import itertools
from typing import Any

import msgpack  # type: ignore[import-untyped]
import pytest
from conftest import examples
from hypothesis import given, settings
from hypothesis import strategies as st

from fastmsgpack import compat

scalars = (
    st.none()
    | st.booleans()
    | st.integers(min_value=-(2**63), max_value=2**64 - 1)
    | st.floats(allow_nan=False)
    | st.text(max_size=40)
    | st.binary(max_size=40)
    | st.builds(msgpack.ExtType, st.integers(0, 127), st.binary(max_size=20))
    | st.builds(msgpack.Timestamp, st.integers(-(2**40), 2**40), st.integers(0, 999_999_999))
)
keys = st.text(max_size=10) | st.binary(max_size=10) | st.integers(-5, 5)
values = st.recursive(
    scalars,
    lambda inner: st.lists(inner, max_size=5) | st.dictionaries(keys, inner, max_size=5),
    max_leaves=25,
)


def plain(obj: Any) -> Any:
    """Both libraries' results in comparable form (their Timestamp and ExtType classes differ)."""
    if isinstance(obj, (msgpack.Timestamp, compat.Timestamp)):
        return ("ts", obj.seconds, obj.nanoseconds)
    if isinstance(obj, (msgpack.ExtType, compat.ExtType)):
        return ("ext", obj.code, obj.data)
    if isinstance(obj, dict):
        return {plain(k): (type(v).__name__, plain(v)) for k, v in obj.items()}
    if isinstance(obj, (list, tuple)):
        return (type(obj).__name__, [plain(v) for v in obj])
    return (type(obj).__name__, obj)


def outcome(unpackb: Any, data: bytes, **kwargs: Any) -> Any:
    try:
        return plain(unpackb(data, **kwargs))
    except Exception as exc:  # noqa: BLE001 (the class is what must match)
        return type(exc).__name__


OPTION_SETS = [
    dict(zip(("use_list", "raw", "strict_map_key", "timestamp"), combo))
    for combo in itertools.product((True, False), (True, False), (True, False), (0, 1, 2, 3))
]


@settings(max_examples=examples(60), deadline=None)
@given(values)
def test_every_option_combination_decodes_as_msgpack(value: Any) -> None:
    data = msgpack.packb(value)
    for options in OPTION_SETS:
        assert outcome(compat.unpackb, data, **options) == outcome(
            msgpack.unpackb, data, **options
        ), options


def test_hooks_see_what_msgpack_passes() -> None:
    data = msgpack.packb({"a": [1, {"b": [2]}], "c": {}})
    hooks: list[dict[str, Any]] = [
        {"object_hook": lambda d: ("obj", sorted(d.items()))},
        {"object_pairs_hook": lambda pairs: ("pairs", pairs)},
        {"list_hook": lambda items: ("list", items)},
        {"list_hook": lambda items: ("list", items), "use_list": False},
        {"ext_hook": lambda code, data: (code, data)},
    ]
    for kwargs in hooks:
        assert compat.unpackb(data, **kwargs) == msgpack.unpackb(data, **kwargs)


BAD_INPUTS = [
    b"",
    b"\xc1",
    b"\x92\x01",
    b"\x01\x02",
    b"\x91" * 3000 + b"\x01",
    b"\x81\x01\x02",
    b"\x81\xc0\x01",
    b"\xa1\xff",
    b"\xd5\xff\x00\x00",
    b"\xdb\xff\xff\xff\xff",
    b"\xdd\xff\xff\xff\xff",
    b"\xdf\xff\xff\xff\xff",
]


@pytest.mark.parametrize("data", BAD_INPUTS)
def test_bad_input_raises_the_same_class(data: bytes) -> None:
    assert outcome(compat.unpackb, data) == outcome(msgpack.unpackb, data)


def test_extra_data_carries_object_and_rest() -> None:
    with pytest.raises(compat.ExtraData) as info:
        compat.unpackb(b"\x01\x02\x03")
    assert info.value.unpacked == 1
    assert info.value.extra == b"\x02\x03"
    assert isinstance(info.value, ValueError)


LIMITED = [
    ("max_str_len", b"\xa3abc"),
    ("max_bin_len", b"\xc4\x03abc"),
    ("max_array_len", b"\x93\x01\x02\x03"),
    ("max_map_len", b"\x83\xa1a\x01\xa1b\x02\xa1c\x03"),
    ("max_ext_len", b"\xc7\x03\x05abc"),
    # A declared length far beyond the input: nothing is allocated for it; an incomplete str,
    # as in msgpack-python (which checks a str's length once its bytes are there), an array
    # over its limit.
    ("max_str_len", b"\xdb\xff\xff\xff\xff"),
    ("max_array_len", b"\xdd\xff\xff\xff\xff"),
]


@pytest.mark.parametrize(("limit", "data"), LIMITED)
def test_limits_raise_value_error_as_msgpack(limit: str, data: bytes) -> None:
    limits: tuple[dict[str, Any], ...] = ({limit: 2}, {limit: 3})
    for kwargs in limits:
        assert outcome(compat.unpackb, data, **kwargs) == outcome(msgpack.unpackb, data, **kwargs)
    mine = pytest.raises(ValueError, compat.unpackb, data, **limits[0])
    theirs = pytest.raises(ValueError, msgpack.unpackb, data, **limits[0])
    assert str(mine.value) == str(theirs.value)


class HookError(Exception):
    pass


def raising(*args: Any) -> Any:
    raise HookError(args)


@pytest.mark.parametrize("hook", ["object_hook", "object_pairs_hook", "list_hook", "ext_hook"])
def test_a_raising_hook_propagates_its_own_exception(hook: str) -> None:
    data = msgpack.packb([{"a": msgpack.ExtType(1, b"x")}])
    kwargs: dict[str, Any] = {hook: raising}
    with pytest.raises(HookError):
        compat.unpackb(data, **kwargs)
    gc.collect()
    before = len(gc.get_objects())
    for _ in range(200):
        with pytest.raises(HookError):
            compat.unpackb(data, **kwargs)
    gc.collect()
    assert len(gc.get_objects()) - before < 50


def test_unicode_errors_and_options_checked() -> None:
    assert compat.unpackb(b"\xa1\xff", unicode_errors="replace") == "\ufffd"
    with pytest.raises(ValueError):
        compat.unpackb(b"\x01", timestamp=4)
    with pytest.raises(TypeError):
        compat.unpackb(b"\x01", object_hook=1)  # type: ignore[arg-type]
    with pytest.raises(TypeError):
        compat.unpackb(b"\x80", object_hook=dict, object_pairs_hook=list)


def test_unpacker_feed_iterates_as_msgpack() -> None:
    stream = b"".join(msgpack.packb(v) for v in ({"a": [1, 2]}, "x", [b"y"], 7))
    option_sets: list[dict[str, Any]] = [
        {},
        {"use_list": False},
        {"raw": True},
        {"strict_map_key": False},
    ]
    for options in option_sets:
        ours = compat.Unpacker(**options)
        theirs = msgpack.Unpacker(**options)
        for i in range(0, len(stream), 3):
            ours.feed(stream[i : i + 3])
            theirs.feed(stream[i : i + 3])
            assert [plain(v) for v in ours] == [plain(v) for v in theirs]
        assert ours.tell() == theirs.tell() == len(stream)
    with pytest.raises(compat.OutOfData):
        compat.Unpacker().unpack()
    broken = compat.Unpacker()
    broken.feed(b"\xc1")
    with pytest.raises(compat.FormatError):
        broken.unpack()
    full = compat.Unpacker(max_buffer_size=4)
    with pytest.raises(compat.BufferFull):
        full.feed(b"\x00" * 5)


def test_headers_and_bytes_read_as_msgpack() -> None:
    stream = b"\x01\x93" + msgpack.packb([1, 2, 3])[1:] + b"\xde\x00\x01\xa1k\xc0" + b"raw!"
    ours, theirs = compat.Unpacker(), msgpack.Unpacker()
    results: list[list[Any]] = [[], []]
    for unpacker, out in zip((ours, theirs), results):
        unpacker.feed(stream[:3])
        out.append(unpacker.unpack())
        for read in (unpacker.read_map_header, unpacker.read_array_header):
            try:
                out.append(read())
            except (ValueError, compat.OutOfData, msgpack.OutOfData) as exc:
                out.append(type(exc).__name__)
        unpacker.feed(stream[3:])
        out += [unpacker.unpack(), unpacker.unpack(), unpacker.unpack()]
        out += [unpacker.read_map_header(), unpacker.unpack(), unpacker.unpack()]
        out += [unpacker.read_bytes(2), unpacker.read_bytes(10), unpacker.tell()]
    assert results[0] == results[1]
    with pytest.raises(compat.OutOfData):
        compat.Unpacker().read_array_header()
    partial = compat.Unpacker()
    partial.feed(b"\xdc\x00")
    with pytest.raises(compat.OutOfData):
        partial.read_array_header()
    partial.feed(b"\x02\x01\x02")
    assert partial.read_array_header() == 2
    assert list(partial) == [1, 2]


def test_read_bytes_reads_on_from_the_file() -> None:
    ours = compat.Unpacker(io.BytesIO(b"\x01abcdef"), read_size=2)
    theirs = msgpack.Unpacker(io.BytesIO(b"\x01abcdef"), read_size=2)
    for unpacker in (ours, theirs):
        assert unpacker.unpack() == 1
    assert ours.read_bytes(4) == theirs.read_bytes(4)
    assert ours.tell() == theirs.tell()
    assert ours.read_bytes(10) == theirs.read_bytes(10)
    assert ours.tell() == theirs.tell()


# Streams whose first object breaks a limit (or sits at it), and the limits: msgpack-python's
# Unpacker checks a container as soon as its header has arrived, and a str, bin or ext once its
# bytes have all arrived, inside an object not yet complete too.
STREAM_LIMITED: list[tuple[str, bytes, dict[str, int]]] = [
    ("array32 header", b"\xdd" + (10**9).to_bytes(4, "big"), {"max_array_len": 100}),
    ("map32 header", b"\xdf" + (10**9).to_bytes(4, "big"), {"max_map_len": 100}),
    ("fixarray", b"\x93\x01\x02\x03", {"max_array_len": 2}),
    ("array in a map", b"\x81\xa1a\x93\x01\x02\x03\x04", {"max_array_len": 2}),
    ("map in an array", b"\x92\x01\x83\x01\x02\x03\x04\x05\x06", {"max_map_len": 2}),
    ("bin8", b"\xc4\xc8" + b"x" * 200, {"max_bin_len": 100}),
    ("str8", b"\xd9\xc8" + b"x" * 200, {"max_str_len": 100}),
    ("bin in an open array", b"\x93\x01\xc4\x05abcde", {"max_bin_len": 2}),
    ("str as a map key", b"\x81\xa3abc\x01", {"max_str_len": 2}),
    ("fixext 16", b"\xd8\x05" + b"x" * 16, {"max_ext_len": 10}),
    ("fixext 16 at its limit", b"\xd8\x05" + b"x" * 16, {"max_ext_len": 16}),
    ("timestamp", b"\xd6\xff\x00\x00\x00\x01", {"max_ext_len": 3}),
    ("all at their limits", b"\x92\xa2ab\xc4\x02xy", {"max_str_len": 2, "max_array_len": 2}),
    # Headers whose data has not arrived: msgpack-python waits for a str, bin or ext.
    ("bin32 header", b"\xc6" + (10**9).to_bytes(4, "big"), {"max_bin_len": 100}),
    ("str32 header", b"\xdb" + (10**9).to_bytes(4, "big"), {"max_str_len": 100}),
    ("ext32 header", b"\xc9" + (10**9).to_bytes(4, "big") + b"\x05", {"max_ext_len": 100}),
    # The defaults come from max_buffer_size (half of it for maps).
    ("array16 over max_buffer_size", b"\xdc\x00\x80", {"max_buffer_size": 100}),
    ("map16 over half of it", b"\xde\x00\x40", {"max_buffer_size": 100}),
    ("array16 within it", b"\xdc\x00\x40\x01", {"max_buffer_size": 100}),
]


def first_outcome(module: Any, data: bytes, mode: str, **kwargs: Any) -> Any:
    """What unpack() gives first: fed whole, fed a byte at a time (and after which byte), fed
    the first 5 bytes only (a header), or read from a file."""
    if mode == "file":
        unpacker = module.Unpacker(io.BytesIO(data), **kwargs)
        pieces = [b""]
    else:
        unpacker = module.Unpacker(**kwargs)
        pieces = {
            "whole": [data],
            "bytewise": [data[i : i + 1] for i in range(len(data))],
            "header only": [data[:5]],
        }[mode]
    for i, piece in enumerate(pieces):
        if mode != "file":
            unpacker.feed(piece)
        try:
            return i, plain(unpacker.unpack())
        except Exception as exc:  # noqa: BLE001 (the class is what must match)
            if type(exc).__name__ != "OutOfData":
                return i, type(exc).__name__
    return "OutOfData"


@pytest.mark.parametrize(
    ("data", "kwargs"), [c[1:] for c in STREAM_LIMITED], ids=[c[0] for c in STREAM_LIMITED]
)
@pytest.mark.parametrize("mode", ["whole", "bytewise", "header only", "file"])
def test_unpacker_limits_act_as_msgpack_as_items_arrive(
    data: bytes, kwargs: dict[str, int], mode: str
) -> None:
    ours = first_outcome(compat, data, mode, **kwargs)
    assert ours == first_outcome(msgpack, data, mode, **kwargs)


def test_unpacker_limit_error_goes_on_as_msgpack_and_skip_ignores_limits() -> None:
    def read(module: Any) -> list[Any]:
        unpacker = module.Unpacker(max_array_len=2)
        unpacker.feed(b"\xdd\x00\x00\x00\x03")
        return [outcome(lambda _: unpacker.unpack(), b"") for _ in range(3)]

    # The refused header's last byte is read as the next object, as msgpack-python reads it.
    assert read(compat) == read(msgpack)
    # The limits apply to unpack() and iteration; skip() and read_array_header() pass what
    # they exceed, as in msgpack-python.
    for module in (compat, msgpack):
        skipping = module.Unpacker(max_array_len=2, max_str_len=1)
        skipping.feed(b"\x93\x01\x02\x03\xa3abc\x05\x93")
        skipping.skip()
        skipping.skip()
        assert skipping.unpack() == 5
        assert skipping.read_array_header() == 3
