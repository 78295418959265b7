"""unpackb(data, type=T): every type packb writes comes back as itself, validated.

Round trips are checked as ``unpackb(packb(x), type=T) == x`` with the exact type of every value
checked too (a dict is not a dataclass, an int is not an IntEnum), and the wire forms other
writers use (the timestamp extension, bin UUIDs, keys as text) are read as well.
"""

from __future__ import annotations

import dataclasses
import datetime
import decimal
import enum
import typing
import uuid
from collections.abc import Mapping, Sequence
from typing import Any, Literal, NamedTuple, NewType, Optional, TypedDict, TypeVar, Union

import msgspec
import numpy as np
import pydantic
import pytest
from hypothesis import given
from hypothesis import strategies as st
from typing_extensions import NotRequired, Required

import fastmsgpack
from fastmsgpack import packb, unpackb

UTC = datetime.timezone.utc
PLUS_0530 = datetime.timezone(datetime.timedelta(hours=5, minutes=30))


def round_trip(value: Any, tp: Any, option: int | None = None) -> Any:
    out = unpackb(packb(value, option=option), type=tp)
    assert out == value
    assert type(out) is type(value)
    return out


# --- scalars ------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("value", "tp"),
    [
        (0, int),
        (-(2**63), int),
        (2**64 - 1, int),
        (1.5, float),
        (float("inf"), float),
        ("", str),
        ("héllo ✓", str),
        (True, bool),
        (False, bool),
        (None, None),
        (None, type(None)),
        (b"\x00\xff", bytes),
        (bytearray(b"ab"), bytearray),
        (uuid.UUID(int=0), uuid.UUID),
        (uuid.UUID("12345678-1234-5678-1234-567812345678"), uuid.UUID),
        (datetime.datetime(2024, 2, 29, 13, 5, 9, 123456, tzinfo=UTC), datetime.datetime),
        (datetime.datetime(1, 1, 1, 0, 0, tzinfo=PLUS_0530), datetime.datetime),
        (datetime.datetime(9999, 12, 31, 23, 59, 59, 999999), datetime.datetime),
        (datetime.date(2024, 2, 29), datetime.date),
        (datetime.time(23, 59, 58, 1), datetime.time),
        (decimal.Decimal("-1.250"), decimal.Decimal),
        (decimal.Decimal("NaN").copy_abs(), decimal.Decimal),
    ],
)
def test_scalar_round_trip(value: Any, tp: Any) -> None:
    out = unpackb(packb(value), type=tp)
    if isinstance(value, decimal.Decimal) and value.is_nan():
        assert out.is_nan()
    else:
        assert out == value
    assert type(out) is type(value)
    if isinstance(value, (datetime.datetime, datetime.time)):
        assert out.utcoffset() == value.utcoffset()


def test_float_accepts_int_but_int_refuses_float_and_bool() -> None:
    assert unpackb(packb(3), type=float) == 3.0
    assert type(unpackb(packb(3), type=float)) is float
    with pytest.raises(fastmsgpack.ValidationError):
        unpackb(packb(3.0), type=int)
    with pytest.raises(fastmsgpack.ValidationError):
        unpackb(packb(True), type=int)


def test_datetime_from_timestamp_extension() -> None:
    value = datetime.datetime(2024, 1, 2, 3, 4, 5, 678901, tzinfo=UTC)
    data = packb(value, option=fastmsgpack.OPT_DATETIME_AS_TIMESTAMP_EXT)
    assert data[0] == 0xD7 and data[1] == 0xFF  # the timestamp extension, not text
    assert unpackb(data, type=datetime.datetime) == value
    assert unpackb(msgspec.msgpack.encode(value), type=datetime.datetime) == value


@pytest.mark.parametrize(
    "option",
    [0, fastmsgpack.OPT_UTC_Z, fastmsgpack.OPT_OMIT_MICROSECONDS, fastmsgpack.OPT_NAIVE_UTC],
)
def test_datetime_text_forms_packb_writes(option: int) -> None:
    value = datetime.datetime(2020, 5, 6, 7, 8, 9, 123456, tzinfo=UTC)
    out = unpackb(packb(value, option=option), type=datetime.datetime)
    expected = (
        value.replace(microsecond=0) if option == fastmsgpack.OPT_OMIT_MICROSECONDS else value
    )
    assert out == expected
    naive = datetime.datetime(2020, 5, 6, 7, 8, 9)
    out = unpackb(packb(naive, option=option), type=datetime.datetime)
    if option == fastmsgpack.OPT_NAIVE_UTC:
        assert out == naive.replace(tzinfo=UTC)
    else:
        assert out == naive and out.tzinfo is None


def test_uuid_forms() -> None:
    value = uuid.uuid4()
    assert unpackb(packb(value.bytes), type=uuid.UUID) == value
    assert unpackb(packb(value.hex), type=uuid.UUID) == value
    assert unpackb(packb(str(value).upper()), type=uuid.UUID) == value
    out = unpackb(packb(value), type=uuid.UUID)
    assert out.is_safe is uuid.SafeUUID.unknown
    assert hash(out) == hash(value) and out.version == value.version
    with pytest.raises(TypeError):  # as immutable as any UUID
        out.int = 5  # type: ignore[misc]


def test_time_with_offset_from_text() -> None:
    # packb refuses aware times; other writers send them as isoformat() text.
    value = datetime.time(10, 0, 1, 5, tzinfo=PLUS_0530)
    assert unpackb(packb(value.isoformat()), type=datetime.time) == value


def test_decimal_from_numbers() -> None:
    assert unpackb(packb(5), type=decimal.Decimal) == decimal.Decimal(5)
    assert unpackb(packb(0.1), type=decimal.Decimal) == decimal.Decimal("0.1")


@given(
    st.integers(min_value=-(2**63), max_value=2**64 - 1)
    | st.floats()
    | st.text()
    | st.binary()
    | st.booleans()
    | st.none()
)
def test_any_scalar_is_what_untyped_gives(value: Any) -> None:
    data = packb(value)
    assert repr(unpackb(data, type=Any)) == repr(unpackb(data))


@given(st.datetimes(timezones=st.none() | st.timezones()))
def test_datetimes_round_trip(value: datetime.datetime) -> None:
    # packb writes an offset of whole seconds (a historic local mean time) rounded to minutes,
    # so the text it writes is the oracle, read by the standard library.
    text = unpackb(packb(value))
    expected = datetime.datetime.fromisoformat(text)
    out = unpackb(packb(value), type=datetime.datetime)
    assert out == expected
    assert out.utcoffset() == expected.utcoffset()
    if value.utcoffset() is None or value.utcoffset().seconds % 60 == 0:  # type: ignore[union-attr]
        # (Compared field by field: an aware datetime in a DST gap or fold never equals one in
        # another zone, PEP 495.)
        assert out.replace(tzinfo=None) == value.replace(tzinfo=None)
        assert out.utcoffset() == value.utcoffset()


@given(st.uuids())
def test_uuids_round_trip(value: uuid.UUID) -> None:
    assert unpackb(packb(value), type=uuid.UUID) == value


# --- containers ---------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("value", "tp"),
    [
        ([1, 2, 3], list[int]),
        ([], list[str]),
        ([[1.5], []], list[list[float]]),
        ({1, 2}, set[int]),
        (frozenset({"a"}), frozenset[str]),
        ((1, "a", None), tuple[int, str, None]),
        ((), tuple[()]),
        ((1, 2, 3), tuple[int, ...]),
        ({"a": 1}, dict[str, int]),
        ({"a": [uuid.UUID(int=1)]}, dict[str, list[uuid.UUID]]),
        ([1, "a"], list[Any]),
        # The typing module's spellings are the same types.
        ([1, 2], typing.List[int]),  # noqa: UP006
        ((1, 2), typing.Tuple[int, int]),  # noqa: UP006
        ({"b": 2}, typing.Dict[str, int]),  # noqa: UP006
        ([1, 2], Sequence[int]),
        ({"k": "v"}, Mapping[str, str]),
        ([1], list),
        ({"a": None}, dict),
    ],
)
def test_container_round_trip(value: Any, tp: Any) -> None:
    round_trip(value, tp)


@pytest.mark.parametrize(
    ("value", "tp"),
    [
        ({1: "a", -5: "b"}, dict[int, str]),
        ({1.5: 1}, dict[float, int]),
        ({uuid.UUID(int=7): 1}, dict[uuid.UUID, int]),
        ({datetime.date(2020, 1, 2): 1}, dict[datetime.date, int]),
        ({(1, "a"): 2}, dict[tuple[int, str], int]),
        ({True: 1}, dict[bool, int]),
    ],
)
def test_non_str_keys(value: Any, tp: Any) -> None:
    round_trip(value, tp, option=fastmsgpack.OPT_NON_STR_KEYS)


def test_int_keys_from_text() -> None:
    assert unpackb(packb({"1": "a", "-2": "b"}), type=dict[int, str]) == {1: "a", -2: "b"}
    assert unpackb(packb({"2.5": 1}), type=dict[float, int]) == {2.5: 1}


def test_union_and_optional() -> None:
    assert unpackb(packb(None), type=Optional[int]) is None  # noqa: UP045
    assert unpackb(packb(5), type=Optional[int]) == 5  # noqa: UP045
    assert unpackb(packb("x"), type=Union[int, str]) == "x"  # noqa: UP007
    assert unpackb(packb(5), type=int | str) == 5
    assert unpackb(packb([1]), type=Union[dict[str, int], list[int]]) == [1]  # noqa: UP007
    value = datetime.datetime(2020, 1, 1, tzinfo=UTC)
    assert unpackb(packb(value), type=Union[int, datetime.datetime]) == value  # noqa: UP007
    # Members are tried in order: text that is a datetime is still a str when str comes first.
    assert unpackb(packb(value), type=Union[str, datetime.datetime]) == value.isoformat()  # noqa: UP007


def test_literal() -> None:
    tp = Literal["a", "b", 3, True, None]  # noqa: PYI061
    for value in ("a", "b", 3, True, None):
        out = unpackb(packb(value), type=tp)
        assert out == value and type(out) is type(value)
    with pytest.raises(fastmsgpack.ValidationError, match="Literal"):
        unpackb(packb("c"), type=tp)
    # 1 == True in Python, but the wire says int.
    with pytest.raises(fastmsgpack.ValidationError):
        unpackb(packb(1), type=Literal[True])


def test_newtype_annotated_and_typevar() -> None:
    user_id = NewType("user_id", int)
    assert unpackb(packb(5), type=user_id) == 5
    assert unpackb(packb(5), type=typing.Annotated[int, "meta"]) == 5
    assert unpackb(packb([1, "a"]), type=list[T]) == [1, "a"]  # type: ignore[valid-type]


# --- enums --------------------------------------------------------------------------------------


class Color(enum.Enum):
    RED = "red"
    BLUE = "blue"


class Level(enum.IntEnum):
    LOW = 1
    HIGH = 2


class Perm(enum.Flag):
    R = 4
    W = 2
    X = 1


@pytest.mark.parametrize(
    ("value", "tp"),
    [(Color.BLUE, Color), (Level.HIGH, Level), (Perm.R, Perm), (Perm.R | Perm.W, Perm)],
)
def test_enum_round_trip(value: enum.Enum, tp: Any) -> None:
    assert unpackb(packb(value), type=tp) is value or unpackb(packb(value), type=tp) == value
    assert type(unpackb(packb(value), type=tp)) is tp


class _StrMixinEnum(str, enum.Enum):
    """What enum.StrEnum (new in Python 3.11) is made of."""


_StrEnum: Any = getattr(enum, "StrEnum", _StrMixinEnum)


def test_str_enum() -> None:
    Mode = _StrEnum("Mode", {"FAST": "fast", "SLOW": "slow"})
    assert unpackb(packb(Mode.FAST), type=Mode) is Mode.FAST
    with pytest.raises(fastmsgpack.ValidationError, match="Mode"):
        unpackb(packb("medium"), type=Mode)


def test_enum_missing_hook_is_used() -> None:
    class Lenient(enum.Enum):
        A = "a"

        @classmethod
        def _missing_(cls, value: object) -> Lenient | None:
            return cls.A if isinstance(value, str) and value.lower() == "a" else None

    assert unpackb(packb("A"), type=Lenient) is Lenient.A
    with pytest.raises(fastmsgpack.ValidationError, match="Lenient"):
        unpackb(packb("b"), type=Lenient)


# --- classes ------------------------------------------------------------------------------------


class Point(NamedTuple):
    lat: float
    lon: float
    label: str = ""


@dataclasses.dataclass
class Stop:
    name: str
    at: datetime.datetime
    point: Point
    color: Color = Color.RED
    tags: list[str] = dataclasses.field(default_factory=list)


@dataclasses.dataclass
class Route:
    id: uuid.UUID
    stops: list[Stop]
    meta: dict[str, Any]
    parent: Route | None = None


def make_route() -> Route:
    at = datetime.datetime(2024, 5, 1, 12, 30, tzinfo=UTC)
    return Route(
        id=uuid.UUID(int=42),
        stops=[
            Stop("a", at, Point(1.5, 2.5, "x"), Color.BLUE, ["t"]),
            Stop("b", at + datetime.timedelta(minutes=5), Point(-1.0, 0.0)),
        ],
        meta={"k": [1, 2], "n": None},
        parent=Route(uuid.UUID(int=1), [], {}),
    )


def test_dataclass_tree_round_trip() -> None:
    route = make_route()
    out = unpackb(packb(route), type=Route)
    assert out == route
    assert type(out.stops[0]) is Stop and type(out.stops[0].point) is Point
    assert type(out.parent) is Route and out.parent.parent is None


def test_namedtuple_round_trip() -> None:
    assert round_trip(Point(1.0, 2.0, "p"), Point) == Point(1.0, 2.0, "p")
    # A shorter array takes the defaults.
    assert unpackb(packb([1.0, 2.0]), type=Point) == Point(1.0, 2.0)
    import collections

    Plain = collections.namedtuple("Plain", "a b")
    assert unpackb(packb([1, [2]]), type=Plain) == Plain(1, [2])


def test_namedtuple_with_its_own_new_is_called() -> None:
    class Base(NamedTuple):
        x: int

    class Doubled(Base):
        def __new__(cls, x: int) -> Doubled:  # noqa: PYI034
            return super().__new__(cls, x * 2)

    assert unpackb(packb([2]), type=Doubled) == Doubled(2) == (4,)


@dataclasses.dataclass(frozen=True, slots=True, kw_only=True)
class Frozen:
    a: int
    b: str = "b"


def test_dataclass_options() -> None:
    out = round_trip(Frozen(a=1), Frozen)
    with pytest.raises(dataclasses.FrozenInstanceError):
        out.a = 2
    assert unpackb(packb({"a": 5}), type=Frozen) == Frozen(a=5)


def test_default_factory_gives_a_new_object_each_time() -> None:
    first = unpackb(packb({"name": "a", "at": "2020-01-01T00:00:00", "point": [0, 0]}), type=Stop)
    second = unpackb(packb({"name": "a", "at": "2020-01-01T00:00:00", "point": [0, 0]}), type=Stop)
    assert first.tags == [] and first.tags is not second.tags


def test_post_init_runs_and_init_false_fields() -> None:
    @dataclasses.dataclass
    class Box:
        w: int
        h: int
        area: int = dataclasses.field(init=False)
        seen: list[int] = dataclasses.field(init=False, default_factory=list)

        def __post_init__(self) -> None:
            self.area = self.w * self.h

    out = unpackb(packb(Box(2, 3)), type=Box)
    assert (out.w, out.h, out.area, out.seen) == (2, 3, 6, [])
    # A value for an init=False field in the input is not taken.
    assert unpackb(packb({"w": 1, "h": 1, "area": 99}), type=Box).area == 1


def test_dataclass_with_initvar_or_own_init_goes_through_init() -> None:
    calls: list[Any] = []

    @dataclasses.dataclass
    class WithInitVar:
        a: int
        scale: dataclasses.InitVar[int] = 1

        def __post_init__(self, scale: int) -> None:
            calls.append(scale)
            self.a *= scale

    assert unpackb(packb({"a": 3}), type=WithInitVar).a == 3
    assert calls == [1]

    @dataclasses.dataclass(init=False)
    class OwnInit:
        a: int

        def __init__(self, a: int) -> None:
            calls.append(("init", a))
            self.a = a + 1

    assert unpackb(packb({"a": 1}), type=OwnInit).a == 2
    assert calls[-1] == ("init", 1)


def test_inherited_dataclass_gets_its_own_plan() -> None:
    @dataclasses.dataclass
    class Base:
        a: int

    @dataclasses.dataclass
    class Child(Base):
        b: str

    assert unpackb(packb(Base(1)), type=Base) == Base(1)
    assert unpackb(packb(Child(1, "x")), type=Child) == Child(1, "x")
    assert type(unpackb(packb(Base(1)), type=Base)) is Base


T = TypeVar("T")


def test_generic_dataclass() -> None:
    @dataclasses.dataclass
    class Box(typing.Generic[T]):
        item: T
        items: list[T]

    assert unpackb(packb(Box(1, [2])), type=Box[int]) == Box(1, [2])
    with pytest.raises(fastmsgpack.ValidationError, match=r"\$\.items\[0\]"):
        unpackb(packb(Box(1, ["x"])), type=Box[int])


def test_recursive_dataclass() -> None:
    @dataclasses.dataclass
    class Node:
        value: int
        children: list[Node]

    tree = Node(1, [Node(2, [Node(3, [])]), Node(4, [])])
    globals()["Node"] = Node  # the annotation "list[Node]" is resolved from the module
    try:
        assert unpackb(packb(tree), type=Node) == tree
    finally:
        del globals()["Node"]


class Movie(TypedDict):
    title: str
    year: int


class Show(TypedDict, total=False):
    title: Required[str]
    seasons: int
    rating: NotRequired[float]


def test_typeddict() -> None:
    out = unpackb(packb({"title": "x", "year": 1999, "extra": 1}), type=Movie)
    assert out == {"title": "x", "year": 1999} and type(out) is dict
    with pytest.raises(fastmsgpack.ValidationError, match="year"):
        unpackb(packb({"title": "x"}), type=Movie)


def test_typeddict_required_and_not_required() -> None:
    assert unpackb(packb({"title": "x"}), type=Show) == {"title": "x"}
    assert unpackb(packb({"title": "x", "seasons": 2}), type=Show) == {"title": "x", "seasons": 2}
    with pytest.raises(fastmsgpack.ValidationError, match="title"):
        unpackb(packb({"seasons": 2}), type=Show)


# --- pydantic -----------------------------------------------------------------------------------


class Address(pydantic.BaseModel):
    city: str
    zip: int

    @pydantic.field_validator("city")
    @classmethod
    def city_upper(cls, v: str) -> str:
        return v.upper()


class Member(pydantic.BaseModel):
    id: int
    address: Address
    joined: datetime.datetime


@dataclasses.dataclass
class Team:
    name: str
    members: list[Member]


def test_pydantic_models_are_validated_by_pydantic() -> None:
    member = Member(
        id=1,
        address=Address(city="paris", zip=75),
        joined=datetime.datetime(2020, 1, 1, tzinfo=UTC),
    )
    data = packb(member, option=fastmsgpack.OPT_SERIALIZE_PYDANTIC)
    out = unpackb(data, type=Member)
    assert out == member and out.address.city == "PARIS"
    team = Team("t", [member])
    out_team = unpackb(packb(team, option=fastmsgpack.OPT_SERIALIZE_PYDANTIC), type=Team)
    assert out_team == team and type(out_team.members[0]) is Member
    with pytest.raises(fastmsgpack.ValidationError) as info:
        unpackb(packb({"name": "t", "members": [{"id": "x"}]}), type=Team)
    cause = info.value.__cause__
    assert isinstance(cause, pydantic.ValidationError)
    # Where pydantic says, inside the place of the model: the first of its errors, in its words.
    assert info.value.path == "$.members[0].id"
    assert info.value.reason is not None
    assert info.value.reason.startswith(cause.errors()[0]["msg"])


# --- numpy, dec_hook ----------------------------------------------------------------------------


def test_numpy_raw_arrays() -> None:
    array = np.arange(12, dtype=np.float32).reshape(3, 4)
    data = packb({"a": array}, option=fastmsgpack.OPT_NUMPY_RAW)
    out = unpackb(data, type=dict[str, np.ndarray])
    assert np.array_equal(out["a"], array) and out["a"].dtype == np.float32
    with pytest.raises(fastmsgpack.ValidationError, match="ndarray"):
        unpackb(packb([1, 2]), type=np.ndarray)


class Money:
    def __init__(self, cents: int) -> None:
        self.cents = cents

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Money) and other.cents == self.cents


def _money_hook(tp: type, obj: Any) -> Any:
    if tp is Money:
        if not isinstance(obj, int):
            raise ValueError("cents must be an int")
        return Money(obj)
    raise TypeError(tp)


def test_dec_hook_builds_other_types() -> None:
    assert unpackb(packb({"a": 150}), type=dict[str, Money], dec_hook=_money_hook) == {
        "a": Money(150)
    }
    with pytest.raises(TypeError, match="dec_hook"):
        unpackb(packb(1), type=Money)
    with pytest.raises(fastmsgpack.ValidationError, match=r"Money.*\$\['a'\]") as info:
        unpackb(packb({"a": "x"}), type=dict[str, Money], dec_hook=_money_hook)
    assert isinstance(info.value.__cause__, ValueError)


# --- untyped calls are unchanged ----------------------------------------------------------------


def test_type_none_is_untyped() -> None:
    data = packb({"a": [1, 2]})
    assert unpackb(data, type=None) == unpackb(data) == {"a": [1, 2]}


def test_options_apply_inside_any() -> None:
    data = packb({"a": {1: 2}}, option=fastmsgpack.OPT_NON_STR_KEYS)
    assert unpackb(data, type=dict[str, Any], option=fastmsgpack.OPT_NON_STR_KEYS) == {"a": {1: 2}}
    with pytest.raises(fastmsgpack.MsgpackDecodeError):
        unpackb(data, type=dict[str, Any])
