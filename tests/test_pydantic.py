"""pydantic v2 models with OPT_SERIALIZE_PYDANTIC: a map of the fields (from __dict__) and the
`extra` values, nested models packed the same way, like ormsgpack. fastmsgpack never imports
pydantic itself."""

from __future__ import annotations

import collections
import datetime
import enum
import subprocess
import sys
import textwrap
import uuid
from typing import Any, ClassVar

import ormsgpack
import pydantic
import pytest
from conftest import Format, assert_packs_like_ormsgpack, fast_option, oracle_packb

import fastmsgpack
from fastmsgpack import (
    OPT_NON_STR_KEYS,
    OPT_REPLACE_SURROGATES,
    OPT_SERIALIZE_PYDANTIC,
    OPT_SORT_KEYS,
    MsgpackEncodeError,
)

PYD = OPT_SERIALIZE_PYDANTIC


class Kind(enum.Enum):
    A = "a"


class Inner(pydantic.BaseModel):
    b: int = 2
    a: str = "x"


class Outer(pydantic.BaseModel):
    z: int
    inner: Inner
    items: list[Inner] = []
    when: datetime.datetime | None = None
    id: uuid.UUID = uuid.UUID(int=1)
    kind: Kind = Kind.A
    mapping: dict[str, Inner] = {}
    aliased: int = pydantic.Field(default=5, alias="ALIAS")
    _private: int = pydantic.PrivateAttr(default=7)

    @pydantic.computed_field  # type: ignore[prop-decorator]
    @property
    def computed(self) -> int:  # not in __dict__: left out
        return 1


class Extra(pydantic.BaseModel):
    model_config = pydantic.ConfigDict(extra="allow")
    b: int = 1


class Frozen(pydantic.BaseModel, frozen=True):
    value: tuple[int, ...] = (1, 2)


class Derived(Inner):
    c: float = 0.5


class Root(pydantic.RootModel[list[int]]):
    pass


WHEN = datetime.datetime(2024, 1, 2, 3, 4, 5, 6, tzinfo=datetime.timezone.utc)
OUTER = Outer(z=1, inner=Inner(), items=[Inner(b=5)], when=WHEN, mapping={"m": Inner(a="y")})
OUTER_FIELDS = {
    "z": 1,
    "inner": {"b": 2, "a": "x"},
    "items": [{"b": 5, "a": "x"}],
    "when": "2024-01-02T03:04:05.000006+00:00",
    "id": "00000000-0000-0000-0000-000000000001",
    "kind": "a",
    "mapping": {"m": {"b": 2, "a": "y"}},
    "aliased": 5,
}
CONSTRUCTED_FIELDS = {
    "z": 1,
    "items": [],
    "when": None,
    "id": "00000000-0000-0000-0000-000000000001",
    "kind": "a",
    "mapping": {},
    "aliased": 5,
}

MODELS: list[tuple[Any, Any]] = [
    (OUTER, OUTER_FIELDS),
    (Inner(), {"b": 2, "a": "x"}),
    (
        Extra.model_validate({"b": 2, "zz": [3], "aa": {"k": WHEN}}),
        {"b": 2, "zz": [3], "aa": {"k": WHEN.isoformat()}},
    ),
    (Extra(), {"b": 1}),
    (Frozen(), {"value": [1, 2]}),
    (Derived(c=1.5), {"b": 2, "a": "x", "c": 1.5}),
    (Root([1, 2]), {"root": [1, 2]}),
    (Outer.model_construct(z=1), CONSTRUCTED_FIELDS),  # no "inner": it was not given
]
IDS = ["nested", "defaults", "extra", "extra-empty", "frozen", "subclass", "root", "construct"]


@pytest.mark.parametrize(("model", "fields"), MODELS, ids=IDS)
def test_model_like_ormsgpack(model: Any, fields: Any) -> None:
    packed = assert_packs_like_ormsgpack(model, option=PYD)
    assert fastmsgpack.unpackb(packed) == fastmsgpack.unpackb(oracle_packb(fields))
    assert_packs_like_ormsgpack({"list": [model, (model,)]}, option=PYD)


@pytest.mark.parametrize(("model", "fields"), MODELS, ids=IDS)
@pytest.mark.parametrize("names", [("OPT_SORT_KEYS",), ("OPT_UTC_Z", "OPT_OMIT_MICROSECONDS")])
def test_model_with_options_like_ormsgpack(model: Any, fields: Any, names: Any) -> None:
    assert_packs_like_ormsgpack([model], option=PYD | fast_option(*names))


def test_sort_keys_sorts_fields_and_extra_together() -> None:
    model = Extra.model_validate({"b": 1, "zz": 2, "aa": 3, "B": 4})
    packed = assert_packs_like_ormsgpack(model, option=PYD | OPT_SORT_KEYS)
    assert packed == oracle_packb({"B": 4, "aa": 3, "b": 1, "zz": 2})


def test_extra_set_after_validation() -> None:
    model = Extra()
    model.later = [1]  # type: ignore[attr-defined]
    assert assert_packs_like_ormsgpack(model, option=PYD) == oracle_packb({"b": 1, "later": [1]})


def test_extra_key_with_leading_underscore_is_left_out_like_ormsgpack() -> None:
    model = Extra.model_validate({"b": 2, "_under": 3, "ok": 4})
    assert model.__pydantic_extra__ == {"_under": 3, "ok": 4}
    assert assert_packs_like_ormsgpack(model, option=PYD) == oracle_packb({"b": 2, "ok": 4})


# ormsgpack 1.13.1 panics (aborting the process) on an empty key: not compared with it.
def test_empty_string_extra_key() -> None:
    model = Extra.model_validate({"b": 2, "zz": 3, "": 4})
    assert fastmsgpack.packb(model, option=PYD) == oracle_packb({"b": 2, "zz": 3, "": 4})
    assert fastmsgpack.packb(model, option=PYD | OPT_SORT_KEYS) == oracle_packb(
        {"": 4, "b": 2, "zz": 3}
    )


class StrSubclass(str):
    pass


def with_extra(extra: Any) -> Extra:
    """An `extra="allow"` model whose __pydantic_extra__ is `extra`, set as code can set it."""
    model = Extra()
    object.__setattr__(model, "__pydantic_extra__", extra)
    return model


NON_STR_KEYS: list[Any] = [
    1,
    None,
    True,
    1.5,
    b"x",
    (1, 2),
    StrSubclass("s"),
    StrSubclass("_s"),
    datetime.date(2024, 1, 2),
    uuid.UUID(int=1),
    Kind.A,
    object(),
]


def key_id(key: Any) -> str:
    """repr, but the same in every process (pytest-xdist's workers must collect the same ids)."""
    return "object()" if type(key) is object else repr(key)


# pydantic itself refuses such keys (validation, and model_dump raises TypeError); ormsgpack
# raises TypeError. Without OPT_NON_STR_KEYS they are an error, never left out.
@pytest.mark.parametrize("key", NON_STR_KEYS, ids=key_id)
@pytest.mark.parametrize("option", [PYD, PYD | OPT_SORT_KEYS], ids=["", "sorted"])
def test_non_str_extra_key_is_an_error(fmt: Format, key: Any, option: int) -> None:
    model = with_extra({"a": 1, key: 2})
    with pytest.raises(fmt.encode_error, match="must be str"):
        fmt.encode(model, option=option)
    if fmt.name == "msgpack":
        with pytest.raises(TypeError):
            ormsgpack.packb(model, option=ormsgpack.OPT_SERIALIZE_PYDANTIC)
    plain = Inner()
    plain.__dict__[key] = 2
    with pytest.raises(fmt.encode_error, match="must be str"):
        fmt.encode([plain], option=option)


# With OPT_NON_STR_KEYS, keys are packed as in a dict with the same entries (names starting
# with "_", str subclasses included, are still left out); what a dict refuses is refused.
@pytest.mark.parametrize("key", NON_STR_KEYS, ids=key_id)
@pytest.mark.parametrize("sort", [0, OPT_SORT_KEYS], ids=["", "sorted"])
def test_non_str_extra_key_packs_as_in_a_dict(fmt: Format, key: Any, sort: int) -> None:
    model = with_extra({"z": 3, key: 2, "_hidden": 4})
    entries: dict[Any, Any] = {"b": 1, "z": 3}
    if key != "_s":
        entries[key] = 2
    option = PYD | OPT_NON_STR_KEYS | sort
    try:
        expected = fmt.encode(entries, option=option)
    except fmt.encode_error as error:
        with pytest.raises(fmt.encode_error) as info:
            fmt.encode(model, option=option)
        assert str(info.value) == str(error)
        return
    assert fmt.encode(model, option=option) == expected
    plain = Inner()
    plain.__dict__[key] = 2
    expected = fmt.encode({"b": 2, "a": "x", **({} if key == "_s" else {key: 2})}, option=option)
    assert fmt.encode(plain, option=option) == expected


# An extra that is not a dict (only code can set one) is an error, not left out; None (a model
# without extra="allow") and empty dicts give the fields, a dict subclass is read as a dict.
@pytest.mark.parametrize(
    "extra",
    [[1], [], "ab", "", 5, (("a", 1),), type("Namespace", (), {"a": 1}).__dict__],
    ids=repr,
)
@pytest.mark.parametrize("option", [PYD, PYD | OPT_SORT_KEYS], ids=["", "sorted"])
def test_extra_is_none_or_a_dict(fmt: Format, extra: Any, option: int) -> None:
    with pytest.raises(fmt.encode_error, match="__pydantic_extra__"):
        fmt.encode(with_extra(extra), option=option)
    fine: list[Any] = [None, {}, collections.OrderedDict()]
    for empty in fine:
        assert fmt.round_trip(with_extra(empty), option=option) == {"b": 1}
    ordered = collections.OrderedDict(z=1, a=2)
    assert fmt.encode(with_extra(ordered), option=option) == fmt.encode(
        {"b": 1, "z": 1, "a": 2}, option=option
    )


def test_sorted_keys_with_lone_surrogates_sort_as_in_a_dict(fmt: Format) -> None:
    # A key with a lone surrogate sorts by its text with "?" in its place, as a dict key does.
    model = with_extra({"0": 1, "\ud800": 2, "a": 3})
    option = PYD | OPT_SORT_KEYS | OPT_REPLACE_SURROGATES
    expected = fmt.encode({"0": 1, "\ud800": 2, "a": 3, "b": 1}, option=option)
    assert fmt.encode(model, option=option) == expected
    with pytest.raises(fmt.encode_error, match="surrogate"):
        fmt.encode(model, option=PYD | OPT_SORT_KEYS)


def test_without_the_option_a_model_goes_to_default() -> None:
    for model, _ in MODELS:
        with pytest.raises(MsgpackEncodeError, match=type(model).__name__):
            fastmsgpack.packb(model)
    calls: list[Any] = []

    def default(obj: Any) -> Any:
        calls.append(obj)
        return obj.model_dump(mode="json")

    packed = fastmsgpack.packb([OUTER, {"k": Inner()}], default=default)
    assert calls == [OUTER, Inner()]
    assert calls[0] is OUTER
    assert packed == assert_packs_like_ormsgpack([OUTER, {"k": Inner()}], default=default)
    assert fastmsgpack.unpackb(packed)[1] == {"k": {"b": 2, "a": "x"}}


def test_model_class_is_not_a_model() -> None:
    # ormsgpack 1.12.2 aborts on this with the option: not compared with it.
    with pytest.raises(MsgpackEncodeError):
        fastmsgpack.packb(Inner, option=PYD)


def test_pydantic_dataclass_is_a_dataclass() -> None:
    @pydantic.dataclasses.dataclass
    class Point:
        x: int
        _y: int = 0

    packed = assert_packs_like_ormsgpack(Point(1))
    assert packed == oracle_packb({"x": 1})
    assert assert_packs_like_ormsgpack(Point(1), option=PYD) == packed


def test_objects_that_are_not_models_still_go_to_default() -> None:
    class Lookalike:
        model_fields: ClassVar[dict[str, Any]] = {}

        def __init__(self) -> None:
            self.a = 1

    assert assert_packs_like_ormsgpack(Lookalike(), PYD, lambda obj: "default") == oracle_packb(
        "default"
    )


NO_PYDANTIC = textwrap.dedent(
    """
    import dataclasses, datetime, decimal, enum, sys, uuid
    import fastmsgpack

    @dataclasses.dataclass
    class Point:
        x: int

    class Color(enum.Enum):
        RED = 1

    class Other:
        pass

    doc = {
        "dc": Point(1), "dt": datetime.datetime(2024, 1, 1), "d": datetime.date(2024, 1, 1),
        "t": datetime.time(1), "u": uuid.UUID(int=1), "e": Color.RED, "s": {1}, "f": frozenset(),
        "dec": decimal.Decimal("1.5"), "o": Other(), "l": [1, 2.5, "x", b"y", None, True],
    }
    names = [name for name in dir(fastmsgpack) if name.startswith("OPT_")]
    options = [getattr(fastmsgpack, name) for name in names]
    everything = 0
    for option in options:
        everything |= option
    for option in [0, *options, everything]:
        try:
            packed = fastmsgpack.packb(doc, default=repr, option=option)
        except fastmsgpack.MsgpackEncodeError:
            continue  # an option combination packb refuses; no import either way
        fastmsgpack.unpackb(packed)
    for option in (fastmsgpack.OPT_NON_STR_KEYS, fastmsgpack.OPT_DATETIME_AS_TIMESTAMP_EXT):
        fastmsgpack.unpackb(fastmsgpack.packb(doc, default=repr), option=option)
    assert "pydantic" not in sys.modules, "fastmsgpack imported pydantic"
    assert not any(name.startswith("pydantic") for name in sys.modules)
    print("ok", len(options))
    """
)


def test_fastmsgpack_never_imports_pydantic() -> None:
    result = subprocess.run(
        [sys.executable, "-c", NO_PYDANTIC], capture_output=True, text=True, check=False
    )
    assert result.returncode == 0, result.stderr
    n_options = len([name for name in dir(fastmsgpack) if name.startswith("OPT_")])
    assert result.stdout.split() == ["ok", str(n_options)]


# --- how models are found and read ----------------------------------------------------------


class RecordingModelMeta(type(pydantic.BaseModel)):  # type: ignore[misc]
    """pydantic's metaclass with a ``__getattr__`` that records the names it is asked for."""

    asked: ClassVar[list[str]] = []

    def __getattr__(cls, name: str) -> Any:
        RecordingModelMeta.asked.append(name)
        return super().__getattr__(name)


class Watched(pydantic.BaseModel, metaclass=RecordingModelMeta):
    x: int = 1
    inner: Inner = Inner()


def test_finding_a_model_never_asks_its_metaclass_getattr(fmt: Format) -> None:
    # pydantic's metaclass defines __getattr__, which raises AttributeError for every name it
    # does not know: marker attributes are looked up on the class and its bases instead.
    RecordingModelMeta.asked.clear()
    assert fmt.round_trip([Watched(), Watched(x=2)], option=PYD) == [
        {"x": 1, "inner": {"b": 2, "a": "x"}},
        {"x": 2, "inner": {"b": 2, "a": "x"}},
    ]
    assert RecordingModelMeta.asked == []


def test_names_with_underscore_in_dict_are_left_out_like_ormsgpack(fmt: Format) -> None:
    model = Inner(b=3)
    object.__setattr__(model, "_cache", [1])
    assert model.__dict__ == {"b": 3, "a": "x", "_cache": [1]}
    assert fmt.round_trip(model, option=PYD) == {"b": 3, "a": "x"}
    assert fmt.round_trip(model, option=PYD | OPT_SORT_KEYS) == {"a": "x", "b": 3}
    if fmt.name == "msgpack":
        assert_packs_like_ormsgpack([model], option=PYD)


def test_models_in_json_like_their_fields(fmt: Format) -> None:
    for model, fields in MODELS:
        assert fmt.encode(model, option=PYD) == fmt.encode(fields)
        assert fmt.encode([model, {"m": model}], option=PYD) == fmt.encode([fields, {"m": fields}])


def test_a_model_is_one_level_of_nesting(fmt: Format) -> None:
    class Node(pydantic.BaseModel):
        child: Node | None = None

    def chain(levels: int) -> Node:
        node = Node()
        for _ in range(levels - 1):
            node = Node(child=node)
        return node

    def plain(levels: int) -> dict[str, Any]:
        obj: dict[str, Any] = {"child": None}
        for _ in range(levels - 1):
            obj = {"child": obj}
        return obj

    deepest = 254  # the packing nesting limit
    assert fmt.encode(chain(deepest), option=PYD) == fmt.encode(plain(deepest))
    with pytest.raises(fmt.encode_error):
        fmt.encode(chain(deepest + 1), option=PYD)
