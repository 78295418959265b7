"""fastmsgpack.integrations.langgraph: LangGraph's checkpoint serializer protocol, against
LangGraph's own JsonPlusSerializer, with its in-memory and SQLite checkpointers."""

from __future__ import annotations

import collections
import dataclasses
import datetime
import decimal
import enum
import sqlite3
import uuid
import zoneinfo
from pathlib import Path
from typing import Any, NamedTuple

import pydantic
import pytest
from langchain_core.documents import Document
from langchain_core.messages import AIMessage, HumanMessage, SystemMessage, ToolMessage
from langgraph.checkpoint.base import Checkpoint, empty_checkpoint
from langgraph.checkpoint.memory import InMemorySaver
from langgraph.checkpoint.serde.base import SerializerProtocol
from langgraph.checkpoint.serde.jsonplus import JsonPlusSerializer
from langgraph.checkpoint.sqlite import SqliteSaver

import fastmsgpack
from fastmsgpack.integrations.langgraph import FastmsgpackSerializer


class Mood(enum.Enum):
    CALM = "calm"
    BUSY = "busy"


class Address(pydantic.BaseModel):
    city: str
    since: datetime.datetime
    tags: set[str] = set()


class Customer(pydantic.BaseModel):
    name: str
    address: Address
    balance: decimal.Decimal


@dataclasses.dataclass
class Visit:
    at: datetime.datetime
    where: tuple[float, float]
    customer: Customer | None = None
    mood: Mood = Mood.CALM


class Point(NamedTuple):
    x: int
    y: int


ALLOWED = [Mood, Address, Customer, Visit, Point]
UTC = datetime.timezone.utc
PARIS = zoneinfo.ZoneInfo("Europe/Paris")
CUSTOMER = Customer(
    name="Ada",
    address=Address(city="Lyon", since=datetime.datetime(2020, 1, 1, tzinfo=UTC), tags={"vip"}),
    balance=decimal.Decimal("12.50"),
)

VALUES: dict[str, Any] = {
    "messages": [
        SystemMessage("You are terse."),
        HumanMessage("weather in Lyon?", id="h1"),
        AIMessage(
            "",
            id="a1",
            tool_calls=[{"name": "weather", "args": {"city": "Lyon", "days": 2}, "id": "c1"}],
        ),
        ToolMessage("sunny, 24 C", tool_call_id="c1", id="t1"),
        AIMessage("Sunny.", id="a2", response_metadata={"tokens": 3}),
    ],
    "documents": [
        Document(page_content="A page.", metadata={"source": "a.pdf", "page": 3}),
        Document(page_content="Another.", metadata={}, id="d2"),
    ],
    "model": CUSTOMER,
    "dataclass": Visit(datetime.datetime(2026, 1, 2, 3, 4, 5, tzinfo=PARIS), (1.5, 2.5), CUSTOMER),
    "datetimes": [
        datetime.datetime(2026, 1, 2, 3, 4, 5, 6),
        datetime.datetime(2026, 1, 2, tzinfo=UTC),
        datetime.datetime(2026, 7, 1, 12, tzinfo=PARIS),
        datetime.date(2026, 2, 28),
        datetime.time(23, 59, 1),
        datetime.timedelta(days=1, seconds=2, microseconds=3),
    ],
    "misc": {
        "uuid": uuid.UUID(int=7),
        "decimal": decimal.Decimal("0.1"),
        "set": {1, 2},
        "frozenset": frozenset({"a"}),
        "deque": collections.deque([1, 2]),
        "point": Point(1, 2),
        "tuple": (1, "two"),
        "enum": Mood.BUSY,
        "bytes": b"\x00\xff",
        "int keys": {1: "one", 2: "two"},
        "big": 2**63,
        "surrogate": "\ud800",
    },
    "plain": {"rows": [{"id": i, "name": f"row {i}", "score": i / 3} for i in range(50)]},
    "none": None,
    "raw bytes": b"raw",
}


@pytest.fixture
def ours() -> FastmsgpackSerializer:
    return FastmsgpackSerializer(allowed_msgpack_modules=ALLOWED)


@pytest.fixture
def exact() -> FastmsgpackSerializer:
    return FastmsgpackSerializer(allowed_msgpack_modules=ALLOWED, exact_sets=True)


# The values holding sets, frozensets or Decimals, which fastmsgpack writes as arrays and strings
# unless exact_sets=True.
WITH_SETS = ("model", "dataclass", "misc")


@pytest.fixture
def theirs() -> JsonPlusSerializer:
    return JsonPlusSerializer(allowed_msgpack_modules=ALLOWED)


def test_is_a_serializer(ours: FastmsgpackSerializer) -> None:
    assert isinstance(ours, SerializerProtocol)


@pytest.mark.parametrize("name", list(VALUES))
def test_writes_the_bytes_jsonplus_writes(
    name: str,
    ours: FastmsgpackSerializer,
    exact: FastmsgpackSerializer,
    theirs: JsonPlusSerializer,
) -> None:
    assert exact.dumps_typed(VALUES[name]) == theirs.dumps_typed(VALUES[name])
    if name not in WITH_SETS:
        assert ours.dumps_typed(VALUES[name]) == theirs.dumps_typed(VALUES[name])


def test_sets_and_decimals_without_exact_sets(ours: FastmsgpackSerializer) -> None:
    # pydantic rebuilds them from the arrays and strings when it validates the model...
    assert ours.loads_typed(ours.dumps_typed(CUSTOMER)) == CUSTOMER
    # ... elsewhere they come back as lists and strings.
    value = {"set": {1}, "frozenset": frozenset({2}), "decimal": decimal.Decimal("0.1")}
    assert ours.loads_typed(ours.dumps_typed(value)) == {
        "set": [1],
        "frozenset": [2],
        "decimal": "0.1",
    }


def kinds(value: Any) -> Any:
    """The classes in ``value``, for comparing what two loads gave back."""
    if isinstance(value, dict):
        return {k: kinds(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [type(value), *(kinds(v) for v in value)]
    if isinstance(value, pydantic.BaseModel):
        return [type(value), kinds(dict(value))]
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return [type(value), kinds(vars(value))]
    return type(value)


@pytest.mark.parametrize("name", list(VALUES))
def test_round_trips_as_jsonplus(
    name: str,
    ours: FastmsgpackSerializer,
    exact: FastmsgpackSerializer,
    theirs: JsonPlusSerializer,
) -> None:
    if name == "misc":
        ours = exact
    value = VALUES[name]
    back = ours.loads_typed(ours.dumps_typed(value))
    expected = theirs.loads_typed(theirs.dumps_typed(value))
    assert back == expected
    assert kinds(back) == kinds(expected)
    if name in ("messages", "documents", "model", "datetimes"):
        assert back == value
        assert kinds(back) == kinds(value)
    if name == "dataclass":  # LangGraph gives tuples inside objects back as lists
        assert dataclasses.replace(back, where=tuple(back.where)) == value
    # Each reads what the other wrote.
    assert theirs.loads_typed(ours.dumps_typed(value)) == expected


def test_bad_bytes_raise(ours: FastmsgpackSerializer) -> None:
    with pytest.raises(fastmsgpack.MsgpackDecodeError):
        ours.loads_typed(("msgpack", b"\xc1"))
    data = ours.dumps_typed(VALUES["messages"])[1]
    with pytest.raises(fastmsgpack.MsgpackDecodeError):
        ours.loads_typed(("msgpack", data[:-3]))
    with pytest.raises(NotImplementedError):
        ours.loads_typed(("unknown", b""))


def test_unpackable_value_raises(ours: FastmsgpackSerializer) -> None:
    with pytest.raises((fastmsgpack.MsgpackEncodeError, TypeError)):
        ours.dumps_typed({"lock": object()})


def checkpoint(values: dict[str, Any]) -> Checkpoint:
    cp = empty_checkpoint()
    cp["channel_values"] = dict(values)
    cp["channel_versions"] = dict.fromkeys(values, 1)
    return cp


STATE = {k: v for k, v in VALUES.items() if k not in ("none", "raw bytes")}


def save_and_load(saver: Any, thread: str) -> tuple[Any, Any]:
    config: Any = {"configurable": {"thread_id": thread, "checkpoint_ns": ""}}
    cp = checkpoint(STATE)
    saved = saver.put(config, cp, {"source": "input", "step": 1}, dict.fromkeys(STATE, 1))
    saver.put_writes(saved, [("messages", VALUES["messages"][1])], task_id="task-1")
    loaded = saver.get_tuple(saved)
    assert loaded is not None
    return loaded, cp


def test_in_memory_checkpointer(exact: FastmsgpackSerializer, theirs: JsonPlusSerializer) -> None:
    loaded, cp = save_and_load(InMemorySaver(serde=exact), "t1")
    expected = theirs.loads_typed(theirs.dumps_typed(STATE))
    assert loaded.checkpoint["channel_values"] == expected
    assert kinds(loaded.checkpoint["channel_values"]) == kinds(expected)
    assert loaded.checkpoint["id"] == cp["id"]
    assert [w[1:] for w in loaded.pending_writes] == [("messages", VALUES["messages"][1])]


def test_sqlite_checkpointer(
    tmp_path: Path, exact: FastmsgpackSerializer, theirs: JsonPlusSerializer
) -> None:
    path = tmp_path / "checkpoints.sqlite"
    with sqlite3.connect(path, check_same_thread=False) as conn:
        loaded, cp = save_and_load(SqliteSaver(conn, serde=exact), "t2")
    expected = theirs.loads_typed(theirs.dumps_typed(STATE))
    assert loaded.checkpoint["channel_values"] == expected
    assert kinds(loaded.checkpoint["channel_values"]) == kinds(expected)
    # The database, reopened with LangGraph's own serializer, reads the same.
    with sqlite3.connect(path, check_same_thread=False) as conn:
        saver = SqliteSaver(conn, serde=theirs)
        config: Any = {"configurable": {"thread_id": "t2", "checkpoint_ns": ""}}
        again = saver.get_tuple(config)
        assert again is not None
        assert again.checkpoint["channel_values"] == expected
        assert [c.checkpoint["id"] for c in saver.list(config)] == [cp["id"]]


def test_shared_and_cyclic_containers(
    ours: FastmsgpackSerializer, theirs: JsonPlusSerializer
) -> None:
    shared = [1, 2]
    value = {"a": shared, "b": shared}
    assert ours.dumps_typed(value) == theirs.dumps_typed(value)
    cycle: list[Any] = []
    cycle.append(cycle)
    with pytest.raises((ValueError, TypeError, RecursionError)):
        ours.dumps_typed(cycle)


def test_default_mode_with_the_checkpointers(ours: FastmsgpackSerializer) -> None:
    state = {k: v for k, v in STATE.items() if k not in WITH_SETS}
    config: Any = {"configurable": {"thread_id": "t3", "checkpoint_ns": ""}}
    saver = InMemorySaver(serde=ours)
    saved = saver.put(
        config, checkpoint(state), {"source": "loop", "step": 2}, dict.fromkeys(state, 1)
    )
    loaded = saver.get_tuple(saved)
    assert loaded is not None
    assert loaded.checkpoint["channel_values"] == state
    assert kinds(loaded.checkpoint["channel_values"]) == kinds(state)
