"""fastmsgpack.compat as code written for msgpack-python calls it: each behaviour below was met
running real libraries' test suites with `msgpack` replaced by compat. msgpack-python is the
oracle throughout: every case runs both and compares results, exceptions and stream positions.
"""

from __future__ import annotations

import datetime
import decimal
import enum
import gc
import importlib
import weakref
from collections.abc import Callable
from typing import Any

import msgpack  # type: ignore[import-untyped]
import pytest

import fastmsgpack
from fastmsgpack import compat

UTC = datetime.timezone.utc


def outcome(call: Callable[[], Any]) -> tuple[str, Any]:
    """What `call` returns, or the class of what it raises (by name: the libraries' classes
    differ, their names and bases do not)."""
    try:
        return ("value", call())
    except Exception as exc:  # noqa: BLE001 - any exception is an outcome to compare
        return ("raised", type(exc).__name__)


def both(run: Callable[[Any], Any]) -> tuple[tuple[str, Any], tuple[str, Any]]:
    return outcome(lambda: run(compat)), outcome(lambda: run(msgpack))


# 1. Boolean parameters take any object, and use its truth.

BOOL_PACK = ["use_single_float", "autoreset", "use_bin_type", "strict_types", "datetime"]
BOOL_UNPACK = ["use_list", "raw", "strict_map_key"]
SAMPLE = {"a": [1.5, b"x", (2, 3)], "t": datetime.datetime(2020, 1, 2, tzinfo=UTC)}


@pytest.mark.parametrize("name", BOOL_PACK)
@pytest.mark.parametrize("value", [0, 1, 2, "", "yes", None, [], [0]])
def test_packer_booleans_take_any_object(name: str, value: Any) -> None:
    def run(lib: Any) -> Any:
        packer = lib.Packer(**{name: value}, default=str)
        out = packer.pack(SAMPLE)
        return out if out is not None else packer.bytes()

    assert both(run)[0] == both(run)[1]
    assert both(lambda lib: lib.packb(SAMPLE, **{name: value}, default=str)) == both(
        lambda lib: lib.packb(SAMPLE, **{name: bool(value)}, default=str)
    )


@pytest.mark.parametrize("name", BOOL_UNPACK)
@pytest.mark.parametrize("value", [0, 1, 2, "", "x", None, [], [0]])
def test_unpack_booleans_take_any_object(name: str, value: Any) -> None:
    data = msgpack.packb({"a": [1, "s"], 1: b"b"}, use_bin_type=False)

    def run(lib: Any) -> Any:
        return lib.unpackb(data, **{name: value})

    def stream(lib: Any) -> Any:
        unpacker = lib.Unpacker(**{name: value})
        unpacker.feed(data)
        return list(unpacker)

    def again(lib: Any) -> Any:
        unpacker = lib.Unpacker()
        unpacker.__init__(**{name: value})
        unpacker.feed(data)
        return list(unpacker)

    for call in (run, stream, again):
        mine, theirs = both(call)
        assert mine == theirs
    given: dict[str, Any] = {name: value}
    truth: dict[str, Any] = {name: bool(value)}
    assert outcome(lambda: compat.unpackb(data, **given)) == outcome(
        lambda: compat.unpackb(data, **truth)
    )


# 2. Buffers that are not contiguous are copied first.


def test_strided_memoryview_decodes_as_in_msgpack() -> None:
    packed = msgpack.packb({"k": [1, 2.5, "x"]}) + b"\x01\x02"
    spread = bytes(b for byte in packed for b in (byte, 0xC1))
    view = memoryview(spread)[::2]
    with pytest.raises(compat.ExtraData) as mine:
        compat.unpackb(view)
    with pytest.raises(msgpack.ExtraData) as theirs:
        msgpack.unpackb(view)
    assert mine.value.unpacked == theirs.value.unpacked == {"k": [1, 2.5, "x"]}
    extra = mine.value.extra
    assert type(extra) is bytes and extra == theirs.value.extra == b"\x01\x02"
    del view, spread
    gc.collect()
    assert extra == b"\x01\x02"
    whole = memoryview(bytes(b for byte in msgpack.packb([1, "a"]) for b in (byte, 0)))[::2]
    assert compat.unpackb(whole) == msgpack.unpackb(whole) == [1, "a"]
    assert compat.unpackb(whole, use_list=False) == (1, "a")
    unpacker = compat.Unpacker()
    unpacker.feed(whole)
    assert list(unpacker) == [[1, "a"]]


# 3. Packing depth: msgpack-python's limit and error.


def nested(depth: int, inner: Any = None) -> Any:
    value: Any = [] if inner is None else inner
    for _ in range(depth):
        value = [value]
    return value


@pytest.mark.parametrize("depth", [253, 254, 1000, 1023, 1024, 1025, 1100])
def test_packing_depth_is_msgpacks(depth: int) -> None:
    value = nested(depth)
    mine, theirs = both(lambda lib: lib.packb(value))
    assert mine == theirs
    if depth <= 1024:
        assert mine[0] == "value"
    else:
        with pytest.raises(ValueError, match="recursion limit exceeded"):
            compat.packb(value)
    deep_dict: Any = {}
    for _ in range(depth):
        deep_dict = {"k": deep_dict}
    assert both(lambda lib: lib.packb(deep_dict)) == both(lambda lib: lib.packb(deep_dict))
    assert outcome(lambda: compat.packb(deep_dict)) == outcome(lambda: msgpack.packb(deep_dict))


def test_native_packb_keeps_its_depth_limit() -> None:
    with pytest.raises(fastmsgpack.MsgpackEncodeError):
        fastmsgpack.packb(nested(300))
    circular: list[Any] = []
    circular.append(circular)
    assert outcome(lambda: compat.packb(circular)) == outcome(lambda: msgpack.packb(circular))


# 4. Timestamp.from_datetime is exact far from the epoch.

FAR = [
    datetime.datetime(2515, 1, 1, 0, 0, 0, 999999, tzinfo=UTC),
    datetime.datetime(1, 1, 1, tzinfo=UTC),
    datetime.datetime(1, 1, 1, 0, 0, 0, 1, tzinfo=UTC),
    datetime.datetime.max.replace(tzinfo=UTC),
    datetime.datetime(9999, 12, 31, 0, 59, 59, 999999, tzinfo=datetime.timezone.max),
    datetime.datetime(1969, 12, 31, 23, 59, 59, 999999, tzinfo=UTC),
    datetime.datetime(4000, 6, 30, 12, 0, 0, 123457, tzinfo=datetime.timezone.max),
]


@pytest.mark.parametrize("dt", FAR, ids=str)
def test_from_datetime_round_trips(dt: datetime.datetime) -> None:
    ts = compat.Timestamp.from_datetime(dt)
    assert ts.to_datetime() == dt
    theirs = msgpack.Timestamp.from_datetime(dt)
    assert (ts.seconds, ts.nanoseconds) == (theirs.seconds, theirs.nanoseconds)
    assert compat.packb(dt, datetime=True) == msgpack.packb(dt, datetime=True)
    assert compat.unpackb(compat.packb(dt, datetime=True), timestamp=3) == dt


def test_from_datetime_every_year_to_the_end() -> None:
    for year in range(1, 10000, 7):
        dt = datetime.datetime(year, 12, 31, 23, 59, 59, 999999, tzinfo=UTC)
        assert compat.Timestamp.from_datetime(dt).to_datetime() == dt


# 5. datetime=True with a naive datetime: default when there is one, else ValueError.


def test_naive_datetime_goes_to_default() -> None:
    naive = datetime.datetime(2020, 5, 17, 1, 2, 3)
    aware = naive.replace(tzinfo=UTC)

    def run(lib: Any, **kwargs: Any) -> Any:
        return lib.packb([naive, aware], datetime=True, **kwargs)

    assert (
        both(lambda lib: run(lib, default=lambda o: o.isoformat()))
        == (("value", msgpack.packb([naive.isoformat(), aware], datetime=True)),) * 2
    )
    mine, theirs = both(run)
    assert mine == theirs == ("raised", "ValueError")
    assert (
        both(lambda lib: run(lib, default=lambda o: 1 / 0))
        == (("raised", "ZeroDivisionError"),) * 2
    )


# 6. The Unpacker's state after errors and re-initialisation.


def feed_and_read(lib: Any, pieces: list[bytes], **kwargs: Any) -> list[Any]:
    """Feeds each piece and reads all it can, recording each result or error with tell()."""
    unpacker = lib.Unpacker(**kwargs)
    out: list[Any] = []
    for piece in pieces:
        try:
            unpacker.feed(piece)
        except Exception as exc:  # noqa: BLE001
            out.append(("feed raised", type(exc).__name__))
            break
        for _ in range(20):
            try:
                out.append(("value", unpacker.unpack(), unpacker.tell()))
            except lib.OutOfData:
                break
            except Exception as exc:  # noqa: BLE001
                out.append(("raised", type(exc).__name__, unpacker.tell()))
    return out


def object_hook_raises(d: dict[Any, Any]) -> Any:
    if "bad" in d:
        raise KeyError("bad")
    return d


def list_hook_raises(items: list[Any]) -> Any:
    if 13 in items:
        raise ZeroDivisionError
    return items


def ext_hook_raises(code: int, data: bytes) -> Any:
    if code == 13:
        raise LookupError
    return (code, data)


STREAMS: dict[str, tuple[bytes, dict[str, Any]]] = {
    "bad utf-8 mid-array": (b"\x93\x01\xa2\xc3\x28\x02\x05\xa1a", {}),
    "bad utf-8 last byte a fixint": (b"\x93\x01\xa1\xff\x02\x05", {}),
    "int key": (b"\x82\x01\x02\xa1a\x03\x07", {}),
    "int key, container value": (b"\x81\x01\x92\x02\x03\x07", {}),
    "int key allowed": (b"\x82\x01\x02\xa1a\x03\x07", {"strict_map_key": False}),
    "reserved byte": (b"\x92\xc1\x01\x07", {}),
    "str over its limit": (b"\x92\xa3abc\x01\x07", {"max_str_len": 2}),
    "array over its limit": (b"\x92\xdc\x00\x03\x01\x02\x03\x07", {"max_array_len": 2}),
    "fixarray over its limit": (b"\x92\x93\x01\x02\x03\x07", {"max_array_len": 2}),
    "map over its limit": (b"\x91\x82\xa1a\x01\xa1b\x02\x07", {"max_map_len": 1}),
    "bin over its limit": (b"\x92\xc4\x03abc\x07\x08", {"max_bin_len": 1}),
    "ext over its limit": (b"\x92\xd6\x05abcd\x07\x08", {"max_ext_len": 3}),
    "object_hook raises": (b"\x92\x81\xa3bad\x01\x05\x07", {"object_hook": object_hook_raises}),
    "list_hook raises": (b"\x92\x91\x0d\x05\x07", {"list_hook": list_hook_raises}),
    "ext_hook raises": (b"\x92\xd4\x0d\x01\x05\x07", {"ext_hook": ext_hook_raises}),
    "unhashable key": (b"\x92\x81\x91\x01\x02\x05\x07", {"strict_map_key": False}),
    "too deep": (b"\x91" * 1030 + b"\x01\x02", {}),
    "too deep array16": (b"\x91" * 1024 + b"\xdc\x00\x01\x01\x02", {}),
    "bad timestamp": (b"\x92\xd7\xff" + ((10**9) << 34 | 5).to_bytes(8, "big") + b"\x05", {}),
}


@pytest.mark.parametrize("name", list(STREAMS))
@pytest.mark.parametrize("piece", [0, 1, 3])
def test_unpacker_goes_on_where_msgpack_does(name: str, piece: int) -> None:
    data, kwargs = STREAMS[name]
    pieces = [data] if piece == 0 else [data[i : i + piece] for i in range(0, len(data), piece)]
    mine = feed_and_read(compat, pieces, **kwargs)
    theirs = feed_and_read(msgpack, pieces, **kwargs)
    assert mine == theirs


@pytest.mark.parametrize("name", ["bad utf-8 mid-array", "int key", "str over its limit"])
def test_skip_after_an_error_goes_on_where_msgpack_does(name: str) -> None:
    data, kwargs = STREAMS[name]

    def run(lib: Any) -> list[Any]:
        unpacker = lib.Unpacker(**kwargs)
        unpacker.feed(data)
        out = [outcome(unpacker.unpack)]
        out += [outcome(unpacker.skip), unpacker.tell(), outcome(unpacker.unpack)]
        return out

    assert run(compat) == run(msgpack)


def test_errors_inside_an_incomplete_object_come_as_msgpacks() -> None:
    for data in (b"\x93\x01\xa1\xff", b"\x93\x81\x01\x02", b"\x93\x81\x01"):
        assert feed_and_read(compat, [data]) == feed_and_read(msgpack, [data])


def test_init_again_drops_the_partial_object() -> None:
    class Held:
        pass

    made: list[weakref.ref[Held]] = []

    def hook(code: int, data: bytes) -> Held:
        held = Held()
        made.append(weakref.ref(held))
        return held

    for lib in (compat, msgpack):
        made.clear()
        unpacker = lib.Unpacker(ext_hook=hook)
        # An array of 3 whose first item (an ext) is built before the rest arrives.
        unpacker.feed(b"\x93\xd4\x01\x00\x01")
        with pytest.raises(lib.OutOfData):
            unpacker.unpack()
        unpacker.__init__(ext_hook=hook)
        gc.collect()
        assert all(ref() is None for ref in made)
        unpacker.feed(b"\x02")
        assert unpacker.unpack() == 2


@pytest.mark.parametrize("call", ["feed", "unpack", "init", "skip", "next"])
def test_reentry_from_a_hook_raises_runtime_error(call: str) -> None:
    def run(lib: Any) -> Any:
        unpacker: Any = None

        def hook(d: dict[Any, Any]) -> Any:
            if call == "feed":
                unpacker.feed(b"\x01")
            elif call == "init":
                unpacker.__init__()
            elif call == "skip":
                unpacker.skip()
            elif call == "next":
                next(unpacker)
            else:
                unpacker.unpack()
            return d

        unpacker = lib.Unpacker(object_hook=hook)
        unpacker.feed(b"\x81\xa1a\x01\x05")
        first = outcome(unpacker.unpack)
        return first, outcome(unpacker.unpack)

    assert run(compat) == run(msgpack)
    assert run(compat)[0] == ("raised", "RuntimeError")


# 7. The module's surface.


def test_version_names_the_msgpack_release_followed() -> None:
    assert compat.version == msgpack.version == (1, 2, 4)
    assert compat.__version__ == msgpack.__version__ == "1.2.4"


def test_only_msgpacks_public_names() -> None:
    def public(module: Any) -> set[str]:
        return {n for n in dir(module) if not n.startswith("_")} - {"os", "fallback"}

    assert public(compat) == public(msgpack)
    assert set(compat.__all__) <= public(compat)


@pytest.mark.parametrize("name", ["exceptions", "ext", "fallback"])
def test_submodules_import(name: str) -> None:
    mine = importlib.import_module(f"fastmsgpack.compat.{name}")
    theirs = importlib.import_module(f"msgpack.{name}")
    shared = {"Packer", "Unpacker", "unpackb", "ExtType", "Timestamp", "ExtraData", "OutOfData"}
    for attr in shared & {n for n in dir(theirs) if not n.startswith("_")}:
        assert hasattr(mine, attr), attr
    if name == "fallback":
        assert mine.unpackb(mine.Packer().pack([1, "a"])) == [1, "a"]


# 8. What reaches default, or is packed as msgpack-python packs it.


class Colour(str, enum.Enum):
    RED = "red"


class Number(int, enum.Enum):
    ONE = 1


class Ratio(float, enum.Enum):
    HALF = 0.5


class Plain(enum.Enum):
    A = 1


@pytest.mark.parametrize("value", [Colour.RED, Number.ONE, Ratio.HALF, {"k": Colour.RED}])
def test_mixed_in_enums_pack_as_their_value(value: Any) -> None:
    assert compat.packb(value) == msgpack.packb(value)
    assert compat.packb(value, use_bin_type=False) == msgpack.packb(value, use_bin_type=False)
    assert both(lambda lib: lib.packb(value, strict_types=True)) == both(
        lambda lib: lib.packb(value, strict_types=True)
    )
    assert outcome(lambda: compat.packb(value, strict_types=True)) == outcome(
        lambda: msgpack.packb(value, strict_types=True)
    )


@pytest.mark.parametrize(
    "value",
    [{1, 2}, frozenset({"a"}), decimal.Decimal("1.5"), Plain.A, [{3}], {"k": decimal.Decimal(2)}],
    ids=repr,
)
def test_sets_and_decimals_go_to_default(value: Any) -> None:
    def default(o: Any) -> Any:
        if isinstance(o, (set, frozenset)):
            return sorted(o)
        return str(o)

    assert compat.packb(value, default=default) == msgpack.packb(value, default=default)
    mine, theirs = both(lambda lib: lib.packb(value))
    assert mine == theirs == ("raised", "TypeError")


@pytest.mark.parametrize(
    ("code", "data"),
    [
        (5, b"ab"),
        (127, b""),
        (-128, bytearray(b"xyz")),
        (128, b"a"),
        (-129, b"a"),
        (2**63, b"a"),
        (2**70, b"a"),
        (True, b"a"),
        (1.5, b"a"),
        ("a", b"a"),
        (1, None),
        (1, [1]),
        (1, memoryview(b"ab")),
        (1, b"x" * 300),
    ],
    # Stable across processes (pytest-xdist compares the ids): no object addresses.
    ids=lambda v: type(v).__name__ if isinstance(v, memoryview) else repr(v)[:24],
)
def test_pack_ext_type_as_msgpack(code: Any, data: Any) -> None:
    assert outcome(lambda: compat.Packer().pack_ext_type(code, data)) == outcome(
        lambda: msgpack.Packer().pack_ext_type(code, data)
    )


# 9. Streaming within max_buffer_size.


@pytest.mark.parametrize("piece", [50, 333, 500])
def test_an_object_larger_than_the_buffer_streams(piece: int) -> None:
    obj = {"rows": [["x" * 90, i] for i in range(200)]}
    data = msgpack.packb(obj)
    pieces = [data[i : i + piece] for i in range(0, len(data), piece)]
    mine = feed_and_read(compat, pieces, max_buffer_size=1000)
    theirs = feed_and_read(msgpack, pieces, max_buffer_size=1000)
    assert mine == theirs
    assert mine[-1][:2] == ("value", obj)


def test_an_item_larger_than_the_buffer_is_buffer_full() -> None:
    data = msgpack.packb(["y" * 2000])
    pieces = [data[i : i + 100] for i in range(0, len(data), 100)]
    mine = feed_and_read(compat, pieces, max_buffer_size=1000)
    assert mine == feed_and_read(msgpack, pieces, max_buffer_size=1000)
    assert mine[-1] == ("feed raised", "BufferFull")


def test_file_like_streams_an_object_larger_than_the_buffer() -> None:
    import io

    obj = [["z" * 50] * 10 for _ in range(40)]
    data = msgpack.packb(obj) * 2

    def run(lib: Any) -> Any:
        unpacker = lib.Unpacker(io.BytesIO(data), max_buffer_size=600, read_size=100)
        return [outcome(lambda: list(unpacker))]

    assert run(compat) == run(msgpack) == [("value", [obj, obj])]


# 10. Timestamp validation.


@pytest.mark.parametrize("mode", [0, 1, 2, 3])
@pytest.mark.parametrize(
    "data",
    [
        b"\xd7\xff" + ((10**9) << 34 | 5).to_bytes(8, "big"),
        b"\xd7\xff" + ((2**30 - 1) << 34).to_bytes(8, "big"),
        b"\xc7\x0c\xff" + (10**9).to_bytes(4, "big") + (5).to_bytes(8, "big"),
        b"\xd7\xff" + ((10**9 - 1) << 34 | 5).to_bytes(8, "big"),
    ],
)
def test_timestamp_nanoseconds_are_checked(mode: int, data: bytes) -> None:
    mine, theirs = both(lambda lib: lib.unpackb(data, timestamp=mode))
    if mode == 0 and mine[0] == "value":
        ts = mine[1]
        assert (ts.seconds, ts.nanoseconds) == (theirs[1].seconds, theirs[1].nanoseconds)
    else:
        assert mine == theirs
    unpacker = compat.Unpacker(timestamp=mode)
    unpacker.feed(data)
    assert outcome(unpacker.unpack)[0] == mine[0]


def test_an_unpacker_its_hook_refers_to_is_freed() -> None:
    def make() -> weakref.ref[Any]:
        unpacker: Any = None

        def hook(d: dict[Any, Any]) -> Any:
            return (unpacker, d)

        unpacker = compat.Unpacker(object_hook=hook)
        unpacker.feed(b"\x81\xa1a\x01")
        assert unpacker.unpack()[1] == {"a": 1}
        return weakref.ref(unpacker)

    ref = make()
    gc.collect()
    assert ref() is None
