"""The type rules and options that packb and json.dumps share, run over both formats by the `fmt`
fixture: what comes back, which options apply, when default is called, the limits and the
errors (MsgpackEncodeError from packb, its subclass JSONEncodeError from json.dumps)."""

from __future__ import annotations

import dataclasses
import datetime as dt
import enum
import uuid
from typing import Any

import pytest
from conftest import Format, nested_lists

import fastmsgpack
from fastmsgpack import (
    OPT_NON_STR_KEYS,
    OPT_PASSTHROUGH_BIG_INT,
    OPT_PASSTHROUGH_DATACLASS,
    OPT_PASSTHROUGH_DATETIME,
    OPT_PASSTHROUGH_ENUM,
    OPT_PASSTHROUGH_SUBCLASS,
    OPT_PASSTHROUGH_TUPLE,
    OPT_PASSTHROUGH_UUID,
    OPT_REPLACE_SURROGATES,
    OPT_SORT_KEYS,
    MsgpackEncodeError,
)
from fastmsgpack.json import JSONEncodeError


class Color(enum.Enum):
    RED = "red"


class Name(str):
    pass


@dataclasses.dataclass
class Point:
    x: int
    y: int


def test_error_classes(fmt: Format) -> None:
    assert issubclass(fmt.encode_error, MsgpackEncodeError)
    assert issubclass(fmt.encode_error, TypeError)
    with pytest.raises(fmt.encode_error, match="complex") as info:
        fmt.encode([1, 2j])
    expected = JSONEncodeError if fmt.name == "json" else MsgpackEncodeError
    assert type(info.value) is expected


def test_sort_keys(fmt: Format) -> None:
    value = {"b": 1, "a": {"z": 2, "é": 3, "B": 4}, "": Point(2, 1)}
    back = fmt.round_trip(value, option=OPT_SORT_KEYS)
    assert list(back) == ["", "a", "b"]
    assert list(back["a"]) == ["B", "z", "é"]
    assert list(back[""]) == ["x", "y"]  # dataclass fields keep their order
    assert list(fmt.round_trip(value)) == ["b", "a", ""]


def test_non_str_keys(fmt: Format) -> None:
    day, key = dt.date(2024, 5, 17), uuid.UUID(int=1)
    value = {1: "a", None: "b", False: "c", 2.5: "d", day: "e", key: "f", Color.RED: "g"}
    back = fmt.round_trip(value, option=OPT_NON_STR_KEYS)
    if fmt.name == "json":
        assert list(back) == ["1", "null", "false", "2.5", "2024-05-17", str(key), "red"]
    else:
        assert list(back) == [1, None, False, 2.5, "2024-05-17", str(key), "red"]
    with pytest.raises(fmt.encode_error, match="dict key"):
        fmt.encode({1: "a"})
    if fmt.name == "json":  # sorted by the text the keys are written as
        sorted_back = fmt.round_trip({"b": 1, 10: 2, 2: 3}, option=OPT_NON_STR_KEYS | OPT_SORT_KEYS)
        assert list(sorted_back) == ["10", "2", "b"]
    else:  # MessagePack keeps the keys' types, and only str keys can be sorted
        with pytest.raises(fmt.encode_error, match="OPT_SORT_KEYS"):
            fmt.encode({"b": 1, 1: 2}, option=OPT_NON_STR_KEYS | OPT_SORT_KEYS)
    with pytest.raises(fmt.encode_error):
        fmt.encode({frozenset(): 1}, option=OPT_NON_STR_KEYS)


def tagged(obj: Any) -> Any:
    """A default that says what it was given."""
    if isinstance(obj, (dt.date, dt.time, uuid.UUID)):
        return ["default", type(obj).__name__, str(obj)]
    if isinstance(obj, (Color, Point, tuple, Name, int)):
        return ["default", type(obj).__name__]
    raise TypeError(f"unexpected {type(obj).__name__}")


PASSTHROUGH = [
    (OPT_PASSTHROUGH_BIG_INT, 2**64, None, ["default", "int"]),
    (OPT_PASSTHROUGH_TUPLE, (1, 2), [1, 2], ["default", "tuple"]),
    (OPT_PASSTHROUGH_SUBCLASS, Name("n"), "n", ["default", "Name"]),
    (
        OPT_PASSTHROUGH_DATETIME,
        dt.date(2024, 1, 2),
        "2024-01-02",
        ["default", "date", "2024-01-02"],
    ),
    (
        OPT_PASSTHROUGH_UUID,
        uuid.UUID(int=0),
        str(uuid.UUID(int=0)),
        ["default", "UUID", str(uuid.UUID(int=0))],
    ),
    (OPT_PASSTHROUGH_ENUM, Color.RED, "red", ["default", "Color"]),
    (OPT_PASSTHROUGH_DATACLASS, Point(1, 2), {"x": 1, "y": 2}, ["default", "Point"]),
]


@pytest.mark.parametrize(("option", "value", "native", "passed"), PASSTHROUGH)
def test_passthrough_options(
    fmt: Format, option: int, value: Any, native: Any, passed: Any
) -> None:
    if native is None:
        with pytest.raises(fmt.encode_error, match="int"):
            fmt.encode(value, default=tagged)
    else:
        assert fmt.round_trip({"v": value}, default=tagged) == {"v": native}
    assert fmt.round_trip({"v": value}, default=tagged, option=option) == {"v": passed}
    with pytest.raises(fmt.encode_error):
        fmt.encode(value, option=option)  # passed through, but no default


def test_default_is_called_for_each_unsupported_object(fmt: Format) -> None:
    seen: list[Any] = []

    def default(obj: Any) -> Any:
        seen.append(obj)
        return {"re": obj.real, "im": obj.imag} if isinstance(obj, complex) else str(obj)

    back = fmt.round_trip([1j, [2j], {"a": dt.timedelta(seconds=1)}, "plain"], default)
    assert back == [{"re": 0.0, "im": 1.0}, [{"re": 0.0, "im": 2.0}], {"a": "0:00:01"}, "plain"]
    assert seen == [1j, 2j, dt.timedelta(seconds=1)]


def test_default_results_go_through_default_again(fmt: Format) -> None:
    def default(obj: Any) -> Any:
        # complex -> timedelta -> int
        return dt.timedelta(days=obj.real) if isinstance(obj, complex) else obj.days

    assert fmt.round_trip([3 + 0j], default) == [3]


def test_default_errors_are_chained(fmt: Format) -> None:
    def default(obj: Any) -> Any:
        raise RuntimeError("no")

    with pytest.raises(fmt.encode_error) as info:
        fmt.encode(object(), default=default)
    assert isinstance(info.value.__cause__, RuntimeError)
    with pytest.raises(fmt.encode_error, match="255"):
        fmt.encode(1j, default=lambda obj: obj)  # returned unchanged: 255 calls, then an error


def countdown(calls: int) -> Any:
    left = calls

    def default(obj: Any) -> Any:
        nonlocal left
        left -= 1
        return object() if left > 0 else "done"

    return default


def test_nesting_limits(fmt: Format) -> None:
    assert fmt.decode(fmt.encode(nested_lists(254))) == nested_lists(254)
    with pytest.raises(fmt.encode_error, match="254"):
        fmt.encode(nested_lists(255))
    cycle: dict[str, Any] = {}
    cycle["self"] = cycle
    with pytest.raises(fmt.encode_error, match="circular"):
        fmt.encode(cycle)
    assert fmt.round_trip(object(), default=countdown(255)) == "done"
    with pytest.raises(fmt.encode_error, match="255"):
        fmt.encode(object(), default=countdown(256))


@pytest.mark.parametrize("value", [object(), 1j, dt.timedelta(1), type, len, {1, 2j}])
def test_unsupported_types(fmt: Format, value: Any) -> None:
    with pytest.raises(fmt.encode_error, match="serializable") as info:
        fmt.encode({"a": [value]})
    assert isinstance(info.value, MsgpackEncodeError)


def test_surrogates(fmt: Format) -> None:
    for value in ("a\ud800b", {"k\udfff": 1}, [{"x": "\udc80"}]):
        with pytest.raises(fmt.encode_error, match="surrogate") as info:
            fmt.encode(value)
        assert isinstance(info.value.__cause__, UnicodeEncodeError)
    option = OPT_REPLACE_SURROGATES
    assert fmt.round_trip(["a\ud800b", "\U0001f600"], option=option) == ["a?b", "\U0001f600"]
    back = fmt.round_trip({"b\ud800": 1, "a": 2}, option=option | OPT_SORT_KEYS)
    assert list(back.items()) == [("a", 2), ("b?", 1)]


def test_invalid_options(fmt: Format) -> None:
    with pytest.raises(fmt.encode_error):
        fmt.encode(1, option="0")  # type: ignore[arg-type]
    with pytest.raises(fmt.encode_error, match="OPT_NUMPY_RAW" if fmt.name == "json" else "bits"):
        fmt.encode(1, option=fastmsgpack.OPT_NUMPY_RAW if fmt.name == "json" else 1 << 40)
