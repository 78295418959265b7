"""Typed decoding: MessagePack back into the application's own types.

- ``records-2000``: 2,000 dataclass records (int, str, float, list[str], aware datetime and a
  NamedTuple), decoded with ``type=list[Record]`` by fastmsgpack and by msgspec, whose
  ``msgspec.msgpack.decode(data, type=...)`` is the other library that decodes into dataclasses;
  each also with its reusable ``Decoder``, which keeps the plan for the type.
- ``pydantic-1000``: a pydantic model holding 1,000 member models (those of test_rich.py),
  decoded with ``unpackb(data, type=Snapshot)`` against what a user does without it,
  ``Snapshot.model_validate(unpackb(data))``.
- ``untyped-records-2000``: the same records without a type, for what typing costs.

The input is what ``fastmsgpack.packb`` writes for the records (datetimes as RFC 3339 text), and
before timing every library's result is checked to equal the records. With ``scripts/bench
--baseline REV``, REV's build makes the same calls as ``fastmsgpack-before`` (and
``fastmsgpack-before-Decoder``).
"""

from __future__ import annotations

import dataclasses
import datetime
import random
from collections.abc import Callable
from typing import Any, NamedTuple

import msgspec
import pydantic
import pytest
from baseline import BEFORE
from baseline import NAME as BEFORE_NAME
from test_rich import MemberModel, make_member_models

import fastmsgpack


class Point(NamedTuple):
    lat: float
    lon: float


@dataclasses.dataclass
class Record:
    id: int
    name: str
    score: float
    tags: list[str]
    at: datetime.datetime
    point: Point


def make_records(n: int, seed: int = 3) -> list[Record]:
    rng = random.Random(seed)
    base = datetime.datetime(2024, 1, 1, tzinfo=datetime.timezone.utc)
    return [
        Record(
            id=i,
            name=f"stop-{rng.randrange(10**6)}",
            score=rng.random() * 100,
            tags=[f"t{rng.randrange(50)}" for _ in range(rng.randrange(1, 5))],
            at=base
            + datetime.timedelta(seconds=rng.randrange(10**7), microseconds=rng.randrange(10**6)),
            point=Point(rng.uniform(-90, 90), rng.uniform(-180, 180)),
        )
        for i in range(n)
    ]


def wire_form(record: Record) -> dict[str, Any]:
    """A record as packb writes it: fields as a map, the NamedTuple as an array."""
    return {**dataclasses.asdict(record), "point": list(record.point)}


class Snapshot(pydantic.BaseModel):
    members: list[MemberModel]


_records_decoder = msgspec.msgpack.Decoder(list[Record])

RECORDS: dict[str, Callable[[bytes], Any]] = {
    "fastmsgpack": lambda data: fastmsgpack.unpackb(data, type=list[Record]),
    "fastmsgpack-Decoder": fastmsgpack.Decoder(list[Record]).decode,
    "msgspec": lambda data: msgspec.msgpack.decode(data, type=list[Record]),
    "msgspec-Decoder": _records_decoder.decode,
}

SNAPSHOT: dict[str, Callable[[bytes], Any]] = {
    "fastmsgpack": lambda data: fastmsgpack.unpackb(data, type=Snapshot),
    "fastmsgpack+model_validate": lambda data: Snapshot.model_validate(fastmsgpack.unpackb(data)),
}

UNTYPED: dict[str, Callable[[bytes], Any]] = {
    "fastmsgpack": fastmsgpack.unpackb,
    "msgspec": msgspec.msgpack.decode,
}

# An earlier build (scripts/bench --baseline REV), for the same calls before and after a change.
if BEFORE is not None:
    RECORDS[BEFORE_NAME] = lambda data: BEFORE.unpackb(data, type=list[Record])
    SNAPSHOT[BEFORE_NAME] = lambda data: BEFORE.unpackb(data, type=Snapshot)
    UNTYPED[BEFORE_NAME] = BEFORE.unpackb
    if hasattr(BEFORE, "Decoder"):
        RECORDS[BEFORE_NAME + "-Decoder"] = BEFORE.Decoder(list[Record]).decode


@pytest.mark.parametrize("library", list(RECORDS))
def test_typed_records(benchmark: Any, library: str) -> None:
    benchmark.group = "typed-records-2000"
    benchmark.extra_info["library"] = library
    records = make_records(2000)
    data = fastmsgpack.packb([wire_form(r) for r in records])
    decode = RECORDS[library]
    assert decode(data) == records, f"{library}: does not decode to the records"
    benchmark(decode, data)


@pytest.mark.parametrize("library", list(SNAPSHOT))
def test_typed_pydantic(benchmark: Any, library: str) -> None:
    benchmark.group = "typed-pydantic-1000"
    benchmark.extra_info["library"] = library
    snapshot = Snapshot(members=make_member_models(1000))
    data = fastmsgpack.packb(snapshot, option=fastmsgpack.OPT_SERIALIZE_PYDANTIC)
    decode = SNAPSHOT[library]
    assert decode(data) == snapshot, f"{library}: does not decode to the snapshot"
    benchmark(decode, data)


@pytest.mark.parametrize("library", list(UNTYPED))
def test_untyped_records(benchmark: Any, library: str) -> None:
    benchmark.group = "untyped-records-2000"
    benchmark.extra_info["library"] = library
    records = make_records(2000)
    data = fastmsgpack.packb([wire_form(r) for r in records])
    decode = UNTYPED[library]
    assert len(decode(data)) == len(records)
    benchmark(decode, data)
