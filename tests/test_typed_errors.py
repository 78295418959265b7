"""unpackb(data, type=T) on values that do not fit, and on hostile input.

A wrong value raises ValidationError (a MsgpackDecodeError) naming the expected type, what was
found and the path; malformed bytes raise MsgpackDecodeError as untyped decoding does; only the
types named in T are ever made, no constructor sees an unchecked value, and nothing leaks.
"""

from __future__ import annotations

import dataclasses
import datetime
import enum
import gc
import sys
import uuid
from typing import Any, Literal, NamedTuple

import pytest

import fastmsgpack
from fastmsgpack import MsgpackDecodeError, ValidationError, packb, unpackb


class Point(NamedTuple):
    lat: float
    lon: float


class Color(enum.Enum):
    RED = "red"
    ONE = 1


@dataclasses.dataclass
class Stop:
    name: str
    at: datetime.datetime
    point: list[float]


@dataclasses.dataclass
class Route:
    stops: list[Stop]
    owner: str | None = None


def route_dict(**changes: Any) -> dict[str, Any]:
    stop = {"name": "a", "at": "2024-01-01T00:00:00+00:00", "point": [1.0, 2.0]}
    stops = [dict(stop) for _ in range(5)]
    for path, value in changes.items():
        index, field = path.split("_", 1)
        stops[int(index)][field] = value
    return {"stops": stops}


def test_validation_error_is_a_decode_error() -> None:
    assert issubclass(ValidationError, MsgpackDecodeError)
    assert issubclass(ValidationError, ValueError)


def test_message_names_expected_found_and_path() -> None:
    data = packb(route_dict(**{"3_at": 12}))
    with pytest.raises(ValidationError) as info:
        unpackb(data, type=Route)
    message = str(info.value)
    assert message.startswith("expected datetime, found int 12 at $.stops[3].at")
    offset = int(message.rsplit("byte offset ", 1)[1].rstrip(")"))
    assert data[offset] == 12  # the offset points at the value


@pytest.mark.parametrize(
    ("value", "tp", "pattern"),
    [
        ("x", int, r"expected int, found str \"x\" at \$ "),
        ([1, "x"], list[int], r"expected int, found str \"x\" at \$\[1\]"),
        ({"a": {"b": 1.5}}, dict[str, dict[str, int]], r"found float at \$\['a'\]\['b'\]"),
        ([1, 2, 3], tuple[int, int], r"tuple\[int, int\] \(an array of 2 items\)"),
        ([1.0], Point, r"Point \(an array of 2 to 2 items\)"),
        ({"name": 1}, Stop, r"expected str, found int 1 at \$\.name"),
        ("2024-13-01T00:00:00", datetime.datetime, r"expected datetime, found str"),
        ("yesterday", datetime.date, r"expected date, found str \"yesterday\""),
        ("not-a-uuid", uuid.UUID, r"expected UUID"),
        (b"short", uuid.UUID, r"expected UUID, found bin"),
        ([1], dict[str, int], r"expected dict\[str, int\], found array of 1 items"),
        ({"a": 1}, list[int], r"expected list\[int\], found map of 1 entries"),
        (1.5, int | str, r"expected int \| str, found float"),
        ([[1], [2, "x"]], list[set[int]], r"\$\[1\]\[1\]"),
    ],
)
def test_mismatches(value: Any, tp: Any, pattern: str) -> None:
    with pytest.raises(ValidationError, match=pattern):
        unpackb(packb(value), type=tp)


def test_month_out_of_range_keeps_the_cause() -> None:
    with pytest.raises(ValidationError) as info:
        unpackb(packb("2024-02-30T00:00:00"), type=datetime.datetime)
    assert isinstance(info.value.__cause__, ValueError)


def test_missing_required_field() -> None:
    with pytest.raises(ValidationError, match=r'required field "at" at \$\.stops\[0\]'):
        unpackb(packb({"stops": [{"name": "a", "point": []}]}), type=Route)


def test_unknown_fields_are_ignored_unless_forbidden() -> None:
    data = packb({"stops": [], "owner": "me", "color": "red", "nested": {"deep": [1, {"x": 2}]}})
    assert unpackb(data, type=Route) == Route([], "me")
    with pytest.raises(ValidationError, match=r'unknown field "color".*OPT_FORBID_UNKNOWN_FIELDS'):
        unpackb(data, type=Route, option=fastmsgpack.OPT_FORBID_UNKNOWN_FIELDS)


def test_skipped_unknown_field_is_still_checked() -> None:
    # An ignored value must still be well-formed MessagePack.
    good = packb({"stops": [], "junk": "x"})
    bad_utf8 = good[:-1] + b"\xff"
    with pytest.raises(MsgpackDecodeError, match="UTF-8"):
        unpackb(bad_utf8, type=Route)
    too_deep = b"\x82\xa5stops\x90\xa4junk" + b"\x91" * 2000 + b"\xc0"
    assert unpackb(too_deep[:-2001] + b"\xc0", type=Route) == Route([])
    with pytest.raises(MsgpackDecodeError, match="nested deeper"):
        unpackb(too_deep, type=Route)


@pytest.mark.parametrize(
    "data",
    [
        b"",
        b"\xc1",
        b"\x92\x01",  # truncated array
        b"\xdd\xff\xff\xff\xff\x01",  # array of 4 billion items
        b"\xdf\xff\xff\xff\xff\xa1k",  # map of 4 billion entries
        b"\xdb\xff\xff\xff\xffabc",  # str of 4 GiB
        b"\x91\x01\x00",  # trailing byte
        b"\x91" * 1100 + b"\x90",
    ],
)
def test_malformed_input_is_a_decode_error_not_a_validation_error(data: bytes) -> None:
    with pytest.raises(MsgpackDecodeError) as info:
        unpackb(data, type=list[Any] | dict[str, Any] | str)
    assert type(info.value) is MsgpackDecodeError


def test_huge_declared_lengths_allocate_nothing() -> None:
    import tracemalloc

    tracemalloc.start()
    try:
        for data in (b"\xdd\xff\xff\xff\xff\x01", b"\xdf\xff\xff\xff\xff\xa1k"):
            for tp in (list[int], set[int], tuple[int, ...], dict[str, int], Route, Point):
                with pytest.raises(MsgpackDecodeError):
                    unpackb(data, type=tp)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert peak < 1 << 20


def test_only_named_types_are_created() -> None:
    made: list[Any] = []

    class Tracked:
        def __init__(self, *args: Any) -> None:
            made.append(args)

    def hook(tag: int, data: bytes) -> Any:
        made.append(tag)
        return Tracked()

    # An ext value where a str, an enum or a Literal is expected is refused, not handed to
    # ext_hook; nor is one inside a container where a scalar is expected.
    ext = packb(fastmsgpack.Ext(5, b"x"))
    for tp, name in ((str, "str"), (Color, "Color"), (Literal["a"], "Literal")):
        with pytest.raises(ValidationError, match=f"expected {name}.*, found ext type 5"):
            unpackb(ext, type=tp, ext_hook=hook)
    with pytest.raises(ValidationError, match="found array"):
        unpackb(packb([fastmsgpack.Ext(5, b"x")]), type=Color, ext_hook=hook)
    assert made == []
    # Inside Any, ext_hook is called as untyped unpackb calls it.
    assert isinstance(unpackb(ext, type=Any, ext_hook=hook), Tracked)
    assert made == [5, ()]


def test_constructor_never_sees_unchecked_values() -> None:
    calls: list[Any] = []

    @dataclasses.dataclass
    class Checked:
        n: int

        def __post_init__(self) -> None:
            calls.append(self.n)

    class Pair(NamedTuple):
        a: int
        b: int

    for bad, tp in (
        ({"n": "1"}, Checked),
        (["1", 2], Pair),
        ([{"n": 1}, {"n": "x"}], list[Checked]),
    ):
        with pytest.raises(ValidationError):
            unpackb(packb(bad), type=tp)
    assert calls == [1]  # only the valid first element of the last case was built


def test_post_init_errors_become_validation_errors() -> None:
    @dataclasses.dataclass
    class Positive:
        n: int

        def __post_init__(self) -> None:
            if self.n < 0:
                raise ValueError("n must be positive")

    with pytest.raises(ValidationError, match=r"Positive.*\$\[0\]") as info:
        unpackb(packb([{"n": -1}]), type=list[Positive])
    assert str(info.value.__cause__) == "n must be positive"

    @dataclasses.dataclass
    class Broken:
        n: int

        def __post_init__(self) -> None:
            raise KeyError("not a validation problem")

    with pytest.raises(KeyError):
        unpackb(packb({"n": 1}), type=Broken)


def test_unsupported_types_fail_before_decoding() -> None:
    for tp in (type[int], "Route", Any | datetime.timedelta):
        with pytest.raises(TypeError):
            unpackb(b"\xc0", type=tp)
    with pytest.raises(TypeError, match="dec_hook must be callable"):
        unpackb(packb(1), type=int, dec_hook=5)  # type: ignore[call-overload]


def test_union_members_tried_in_order_leave_no_partial_state() -> None:
    @dataclasses.dataclass
    class A:
        x: int

    @dataclasses.dataclass
    class B:
        x: str

    assert unpackb(packb({"x": "s"}), type=A | B) == B("s")
    with pytest.raises(ValidationError, match=r"expected A \| B, found map"):
        unpackb(packb({"x": 1.5}), type=A | B)


# --- leaks --------------------------------------------------------------------------------------


def test_reference_counts_unchanged() -> None:
    default_tags: list[str] = []

    @dataclasses.dataclass
    class Rec:
        name: str
        tags: list[str] = dataclasses.field(default_factory=lambda: default_tags)

    good = packb([{"name": "a", "tags": ["x"]}, {"name": "b"}] * 10)
    bad = packb([{"name": "a"}] * 10 + [{"name": 5}])
    truncated = good[:-3]
    tracked = [Rec, default_tags, good, bad, truncated]
    unpackb(good, type=list[Rec])  # the plan, kept in the module's cache, refers to Rec
    gc.collect()
    before = [sys.getrefcount(o) for o in tracked]
    for _ in range(500):
        assert len(unpackb(good, type=list[Rec])) == 20
        for data in (bad, truncated):
            with pytest.raises(MsgpackDecodeError):
                unpackb(data, type=list[Rec])
    del data
    gc.collect()
    assert [sys.getrefcount(o) for o in tracked] == before


def test_memory_is_flat_on_success_and_failure() -> None:
    good = packb(route_dict())
    bad = packb(route_dict(**{"4_point": [1.0, "x"]}))
    for _ in range(200):
        unpackb(good, type=Route)
        with pytest.raises(ValidationError):
            unpackb(bad, type=Route)
    gc.collect()
    blocks = sys.getallocatedblocks()
    for _ in range(3000):
        unpackb(good, type=Route)
        with pytest.raises(ValidationError):
            unpackb(bad, type=Route)
    gc.collect()
    assert sys.getallocatedblocks() - blocks < 500
