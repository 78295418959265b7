"""default: when it is called, what happens to its result, errors, limits, passthrough options."""

from __future__ import annotations

import datetime
from typing import Any

import orjson
import ormsgpack
import pytest
from conftest import MyBytearray, MyBytes, MyDict, MyFloat, MyInt, MyList, MyStr, oracle_packb

import fastmsgpack
import fastmsgpack.json
from fastmsgpack import (
    OPT_PASSTHROUGH_BIG_INT,
    OPT_PASSTHROUGH_SUBCLASS,
    OPT_PASSTHROUGH_TUPLE,
    MsgpackEncodeError,
)

DEFAULT_DEPTH_LIMIT = 255


class Point:
    def __init__(self, x: int, y: int) -> None:
        self.x = x
        self.y = y


class Recorder:
    """A default that records its arguments and returns a fixed conversion."""

    def __init__(self, convert: Any = repr) -> None:
        self.calls: list[Any] = []
        self.convert = convert

    def __call__(self, obj: Any) -> Any:
        self.calls.append(obj)
        return self.convert(obj)


def test_default_result_is_packed() -> None:
    point = Point(3, -4)
    recorder = Recorder(lambda p: {"x": p.x, "y": p.y})
    packed = fastmsgpack.packb({"p": point, "list": [point]}, default=recorder)
    expected = {"p": {"x": 3, "y": -4}, "list": [{"x": 3, "y": -4}]}
    assert packed == oracle_packb(expected)
    assert recorder.calls == [point, point]
    assert all(call is point for call in recorder.calls)


class Pair(tuple[Any, ...]):
    """A tuple subclass that is not a named tuple (those are packed as arrays)."""


UNSUPPORTED = [
    object(),
    1 + 2j,
    datetime.timedelta(seconds=1),
    Point,
    len,
    Pair((1, 2)),
    range(3),
    iter([1]),
]


@pytest.mark.parametrize("value", UNSUPPORTED, ids=lambda v: type(v).__name__)
def test_unsupported_types_go_to_default(value: Any) -> None:
    recorder = Recorder(lambda obj: f"converted {type(obj).__name__}")
    packed = fastmsgpack.packb([value], default=recorder)
    assert packed == oracle_packb([f"converted {type(value).__name__}"])
    assert len(recorder.calls) == 1
    assert recorder.calls[0] is value


@pytest.mark.parametrize("value", UNSUPPORTED, ids=lambda v: type(v).__name__)
@pytest.mark.parametrize("default", [None, "omitted"])
def test_unsupported_without_default_is_encode_error(value: Any, default: Any) -> None:
    with pytest.raises(MsgpackEncodeError) as info:
        if default is None:
            fastmsgpack.packb({"v": value}, default=None)
        else:
            fastmsgpack.packb({"v": value})
    assert "Type is not MessagePack serializable" in str(info.value)
    assert type(value).__name__ in str(info.value)


def test_default_not_called_for_native_types() -> None:
    recorder = Recorder()
    doc = [
        None,
        True,
        1,
        1.5,
        "s",
        b"b",
        bytearray(b"ba"),
        (1,),
        {"k": [1]},
        fastmsgpack.Ext(1, b""),
    ]
    fastmsgpack.packb(doc, default=recorder)
    assert recorder.calls == []


def test_default_result_may_need_default_again() -> None:
    class Wrapper:
        def __init__(self, inner: Any) -> None:
            self.inner = inner

    def unwrap(obj: Any) -> Any:
        assert isinstance(obj, Wrapper)
        return obj.inner

    value = Wrapper(Wrapper([Wrapper(1), Wrapper(Wrapper("x"))]))
    assert fastmsgpack.packb(value, default=unwrap) == oracle_packb([1, "x"])


class Box:
    def __init__(self, remaining: int) -> None:
        self.remaining = remaining


def unbox(obj: Any) -> Any:
    assert isinstance(obj, Box)
    return Box(obj.remaining - 1) if obj.remaining > 1 else "leaf"


def test_nested_default_limit() -> None:
    # Box(n) needs n nested default calls.
    assert fastmsgpack.packb(Box(DEFAULT_DEPTH_LIMIT), default=unbox) == oracle_packb("leaf")
    with pytest.raises(MsgpackEncodeError):
        fastmsgpack.packb(Box(DEFAULT_DEPTH_LIMIT + 1), default=unbox)


@pytest.mark.parametrize(
    "calls", [DEFAULT_DEPTH_LIMIT - 1, DEFAULT_DEPTH_LIMIT, DEFAULT_DEPTH_LIMIT + 1]
)
def test_nested_default_limit_is_that_of_orjson_and_ormsgpack(calls: int) -> None:
    def accepts(dumps: Any) -> bool:
        try:
            dumps(Box(calls), default=unbox)
        except TypeError:
            return False
        return True

    expected = calls <= DEFAULT_DEPTH_LIMIT
    assert accepts(orjson.dumps) is expected
    assert accepts(ormsgpack.packb) is expected
    assert accepts(fastmsgpack.packb) is expected
    assert accepts(fastmsgpack.json.dumps) is expected


def test_default_returning_its_argument_hits_the_limit() -> None:
    with pytest.raises(MsgpackEncodeError):
        fastmsgpack.packb(object(), default=lambda obj: obj)


def test_many_sibling_default_calls_are_not_limited() -> None:
    boxes = [Box(DEFAULT_DEPTH_LIMIT // 2) for _ in range(1000)]
    assert fastmsgpack.packb(boxes, default=unbox) == oracle_packb(["leaf"] * 1000)


@pytest.mark.parametrize("error", [ValueError("boom"), TypeError("bad"), KeyError("k")], ids=repr)
def test_exception_in_default_is_chained(error: Exception) -> None:
    def failing(obj: Any) -> Any:
        raise error

    with pytest.raises(MsgpackEncodeError) as info:
        fastmsgpack.packb([1, {"a": Point(1, 2)}], default=failing)
    assert info.value.__cause__ is error


def test_default_not_callable() -> None:
    with pytest.raises(TypeError):
        fastmsgpack.packb(Point(1, 2), default=42)  # type: ignore[arg-type]


# --- passthrough options ----------------------------------------------------------------------


@pytest.mark.parametrize("value", [2**64, -(2**63) - 1, 2**200, -(2**200)], ids=str)
def test_passthrough_big_int(value: int) -> None:
    recorder = Recorder(str)
    packed = fastmsgpack.packb([value], default=recorder, option=OPT_PASSTHROUGH_BIG_INT)
    assert packed == oracle_packb([str(value)])
    assert recorder.calls == [value]
    with pytest.raises(MsgpackEncodeError):
        fastmsgpack.packb(value, option=OPT_PASSTHROUGH_BIG_INT)
    unused = Recorder(str)
    with pytest.raises(MsgpackEncodeError):
        fastmsgpack.packb(value, default=unused)
    assert unused.calls == []


def test_passthrough_big_int_leaves_64_bit_ints_alone() -> None:
    recorder = Recorder(str)
    values = [0, -1, 2**64 - 1, -(2**63)]
    packed = fastmsgpack.packb(values, default=recorder, option=OPT_PASSTHROUGH_BIG_INT)
    assert packed == oracle_packb(values)
    assert recorder.calls == []


def test_passthrough_tuple() -> None:
    recorder = Recorder(lambda t: {"tuple": list(t)})
    doc = {"t": (1, 2), "l": [(3,)], "list": [4]}
    packed = fastmsgpack.packb(doc, default=recorder, option=OPT_PASSTHROUGH_TUPLE)
    assert packed == oracle_packb({"t": {"tuple": [1, 2]}, "l": [{"tuple": [3]}], "list": [4]})
    assert recorder.calls == [(1, 2), (3,)]
    assert fastmsgpack.packb(doc) == oracle_packb(doc)
    with pytest.raises(MsgpackEncodeError):
        fastmsgpack.packb((1,), option=OPT_PASSTHROUGH_TUPLE)


SUBCLASS_VALUES = [
    MyStr("s"),
    MyInt(7),
    MyFloat(1.5),
    MyList([1]),
    MyDict(a=1),
    MyBytes(b"b"),
    MyBytearray(b"ba"),
]


@pytest.mark.parametrize("value", SUBCLASS_VALUES, ids=lambda v: type(v).__name__)
def test_passthrough_subclass(value: Any) -> None:
    recorder = Recorder(lambda obj: type(obj).__name__)
    packed = fastmsgpack.packb([value], default=recorder, option=OPT_PASSTHROUGH_SUBCLASS)
    assert packed == oracle_packb([type(value).__name__])
    assert len(recorder.calls) == 1
    assert recorder.calls[0] is value
    with pytest.raises(MsgpackEncodeError):
        fastmsgpack.packb(value, option=OPT_PASSTHROUGH_SUBCLASS)


def test_passthrough_subclass_leaves_exact_types_alone() -> None:
    recorder = Recorder()
    doc = {"s": "s", "i": 1, "f": 1.5, "l": [1], "d": {"a": 1}, "b": b"b", "t": True}
    packed = fastmsgpack.packb(doc, default=recorder, option=OPT_PASSTHROUGH_SUBCLASS)
    assert packed == oracle_packb(doc)
    assert recorder.calls == []
