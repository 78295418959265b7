"""fastmsgpack.integrations.langgraph with pydantic models: each is dumped as LangGraph dumps it
(its ``model_dump()``, which fastmsgpack asks of the model's serializer directly when the class
keeps pydantic's own ``model_dump``), in the very bytes LangGraph's JsonPlusSerializer writes."""

from __future__ import annotations

import datetime
from typing import Any

import pydantic
import pytest
from langgraph.checkpoint.serde.jsonplus import JsonPlusSerializer

from fastmsgpack.integrations import langgraph
from fastmsgpack.integrations.langgraph import FastmsgpackSerializer


class Aliased(pydantic.BaseModel):
    model_config = pydantic.ConfigDict(serialize_by_alias=True, populate_by_name=True)
    user_name: str = pydantic.Field(alias="userName")


class Shaped(pydantic.BaseModel):
    """A field serializer, a computed field, an excluded field and a private attribute."""

    when: datetime.datetime
    hidden: str = pydantic.Field(default="secret", exclude=True)
    _cache: int = pydantic.PrivateAttr(default=7)

    @pydantic.field_serializer("when")
    def _iso(self, value: datetime.datetime) -> str:
        return value.isoformat()

    @pydantic.computed_field  # type: ignore[prop-decorator]
    @property
    def year(self) -> int:
        return self.when.year


class Extra(pydantic.BaseModel):
    model_config = pydantic.ConfigDict(extra="allow")
    name: str


class Whole(pydantic.BaseModel):
    """A model serializer: the model's map is what it returns."""

    a: int

    @pydantic.model_serializer
    def _whole(self) -> dict[str, Any]:
        return {"a+1": self.a + 1}


class Own(pydantic.BaseModel):
    """A class with a ``model_dump`` of its own, which LangGraph calls and so must fastmsgpack."""

    a: int

    def model_dump(self, **kwargs: Any) -> dict[str, Any]:
        return {"own": self.a, "kwargs": sorted(kwargs)}


class Nested(pydantic.BaseModel):
    inner: Shaped
    items: list[Aliased]
    anything: Any = None


class Numbers(pydantic.RootModel[list[int]]):
    """A root model: its dump is the list, not a dict."""


WHEN = datetime.datetime(2026, 3, 4, 5, 6, 7, tzinfo=datetime.timezone.utc)
MODELS: dict[str, Any] = {
    "aliased": Aliased(userName="ada"),
    "shaped": Shaped(when=WHEN),
    "extra": Extra.model_validate({"name": "n", "more": [1, 2], "when": WHEN}),
    "whole": Whole(a=1),
    "root": Numbers([1, 2]),
    "own": Own(a=2),
    "nested": Nested(inner=Shaped(when=WHEN), items=[Aliased(userName="b")], anything=Whole(a=3)),
    "in a dict": {"models": [Aliased(userName="c"), Own(a=4)], "at": WHEN},
}
ALLOWED = [Aliased, Shaped, Extra, Whole, Own, Nested, Numbers]


@pytest.mark.parametrize("name", list(MODELS))
def test_models_are_written_as_jsonplus_writes_them(name: str) -> None:
    ours = FastmsgpackSerializer(allowed_msgpack_modules=ALLOWED)
    theirs = JsonPlusSerializer(allowed_msgpack_modules=ALLOWED)
    value = MODELS[name]
    written = ours.dumps_typed(value)
    assert written == theirs.dumps_typed(value)
    assert ours.loads_typed(written) == theirs.loads_typed(written)


def test_own_model_dump_is_called() -> None:
    # Own's method runs, with the arguments LangGraph gives it (none).
    data = FastmsgpackSerializer().dumps_typed(Own(a=5))[1]
    assert b"own" in data and b"kwargs" in data
    assert langgraph._handler(Own(a=5)) is langgraph._pydantic
    assert langgraph._handler(Shaped(when=WHEN)) is langgraph._pydantic_serializer


def test_pinned_pydantic_takes_the_direct_route() -> None:
    # pydantic's own model_dump only forwards its arguments, with defaults the direct call gives.
    assert langgraph._MODEL_DUMP is pydantic.BaseModel.model_dump


def _forwarding(self: Any, *, mode: str = "python", by_alias: bool | None = True) -> Any:
    return self.__pydantic_serializer__.to_python(self, mode=mode, by_alias=by_alias)


def _wrapping(self: Any, **kwargs: Any) -> Any:
    return dict(self.__pydantic_serializer__.to_python(self, **kwargs), wrapped=True)


@pytest.mark.parametrize("replacement", [_forwarding, _wrapping])
def test_other_model_dumps_are_called(monkeypatch: pytest.MonkeyPatch, replacement: Any) -> None:
    # A model_dump whose defaults differ from to_python's (by_alias=True) or that does more than
    # forward its arguments is not bypassed.
    assert langgraph._plain_model_dump() is pydantic.BaseModel.model_dump
    monkeypatch.setattr(pydantic.BaseModel, "model_dump", replacement)
    assert langgraph._plain_model_dump() is None
