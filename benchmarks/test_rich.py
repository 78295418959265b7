"""packb of application objects: nested dataclasses, the same members as pydantic models, and
records of UUID, aware datetime, date, Enum and float. fastmsgpack, ormsgpack and msgspec pack
dataclasses and the records natively (msgpack-python does not, so it is left out). pydantic models
are packed natively by fastmsgpack and ormsgpack with their ``OPT_SERIALIZE_PYDANTIC``; msgspec
has no pydantic support, so it is given the hook its users write, ``model_dump()``. Then 10,000
named tuples, which fastmsgpack, msgpack-python and msgspec pack as arrays (ormsgpack refuses them
and is left out; a ``fastmsgpack-before`` build older than named tuple support is given
``default=list``). Inputs come from a seeded generator; before timing, every library's output is
decoded and checked against the same plain form of the input.
"""

from __future__ import annotations

import dataclasses
import datetime
import enum
import functools
import random
import uuid
from collections.abc import Callable
from typing import Any, NamedTuple

import msgpack  # type: ignore[import-untyped]
import msgspec
import ormsgpack
import pydantic
import pytest
from baseline import BEFORE
from baseline import NAME as BEFORE_NAME

import fastmsgpack

LIBRARIES: dict[str, Callable[[Any], bytes]] = {
    "fastmsgpack": fastmsgpack.packb,
    "ormsgpack": ormsgpack.packb,
    "msgspec": msgspec.msgpack.encode,
}


def _model_dump(obj: Any) -> Any:
    if isinstance(obj, pydantic.BaseModel):
        return obj.model_dump()
    raise NotImplementedError(type(obj))


PYDANTIC_LIBRARIES: dict[str, Callable[[Any], bytes]] = {
    "fastmsgpack": functools.partial(fastmsgpack.packb, option=fastmsgpack.OPT_SERIALIZE_PYDANTIC),
    "ormsgpack": functools.partial(ormsgpack.packb, option=ormsgpack.OPT_SERIALIZE_PYDANTIC),
    "msgspec": msgspec.msgpack.Encoder(enc_hook=_model_dump).encode,
}

if BEFORE is not None:
    LIBRARIES[BEFORE_NAME] = BEFORE.packb
    PYDANTIC_LIBRARIES[BEFORE_NAME] = functools.partial(
        BEFORE.packb, option=fastmsgpack.OPT_SERIALIZE_PYDANTIC
    )

TZ = datetime.timezone(datetime.timedelta(hours=2))


class Status(enum.Enum):
    ACTIVE = "active"
    BLOCKED = "blocked"
    GONE = "gone"


@dataclasses.dataclass
class Address:
    street: str
    city: str
    zip: int


@dataclasses.dataclass
class Member:
    id: int
    name: str
    score: float
    active: bool
    tags: list[str]
    address: Address
    friends: list[int]


def make_members(n: int, seed: int = 1) -> list[Member]:
    rng = random.Random(seed)
    return [
        Member(
            id=i,
            name=f"member-{rng.randrange(10**6)}",
            score=rng.random() * 100,
            active=rng.random() < 0.5,
            tags=[f"t{rng.randrange(50)}" for _ in range(rng.randrange(5))],
            address=Address(f"{rng.randrange(999)} Main St", "Springfield", rng.randrange(10**5)),
            friends=[rng.randrange(n) for _ in range(rng.randrange(8))],
        )
        for i in range(n)
    ]


class AddressModel(pydantic.BaseModel):
    street: str
    city: str
    zip: int


class MemberModel(pydantic.BaseModel):
    id: int
    name: str
    score: float
    active: bool
    tags: list[str]
    address: AddressModel
    friends: list[int]


def make_member_models(n: int) -> list[MemberModel]:
    """The members of ``make_members(n)``, validated into pydantic models."""
    return [MemberModel.model_validate(dataclasses.asdict(m)) for m in make_members(n)]


def make_records(n: int, seed: int = 2) -> list[dict[str, Any]]:
    rng = random.Random(seed)
    base = datetime.datetime(2024, 1, 1, tzinfo=TZ)
    statuses = list(Status)
    return [
        {
            "id": uuid.UUID(int=rng.getrandbits(128), version=4),
            "at": base
            + datetime.timedelta(seconds=rng.randrange(10**7), microseconds=rng.randrange(10**6)),
            "day": datetime.date(2024, 1, 1) + datetime.timedelta(days=rng.randrange(365)),
            "status": rng.choice(statuses),
            "value": rng.random(),
        }
        for _ in range(n)
    ]


def plain(value: Any) -> Any:
    """The form every library's output should decode to, with datetimes compared as values."""
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return {k: plain(v) for k, v in dataclasses.asdict(value).items()}
    if isinstance(value, pydantic.BaseModel):
        return plain(value.model_dump())
    if isinstance(value, dict):
        return {k: plain(v) for k, v in value.items()}
    if isinstance(value, list):
        return [plain(v) for v in value]
    if isinstance(value, uuid.UUID):
        return str(value)
    if isinstance(value, datetime.datetime):
        return value
    if isinstance(value, datetime.date):
        return value.isoformat()
    if isinstance(value, enum.Enum):
        return value.value
    return value


def parse_datetimes(value: Any, key: str = "") -> Any:
    if isinstance(value, dict):
        return {k: parse_datetimes(v, k) for k, v in value.items()}
    if isinstance(value, list):
        return [parse_datetimes(v) for v in value]
    if isinstance(value, msgpack.Timestamp):  # msgspec writes datetimes as the timestamp ext
        return value.to_datetime()
    if key == "at":
        return datetime.datetime.fromisoformat(value.replace("Z", "+00:00"))
    return value


# Each workload: its input, and the libraries' pack functions for it.
WORKLOADS: dict[str, tuple[Callable[[], Any], dict[str, Callable[[Any], bytes]]]] = {
    "dataclasses-1000": (lambda: make_members(1000), LIBRARIES),
    "pydantic-1000": (lambda: make_member_models(1000), PYDANTIC_LIBRARIES),
    "records-5000": (lambda: make_records(5000), LIBRARIES),
}


@pytest.mark.parametrize("workload", list(WORKLOADS))
@pytest.mark.parametrize("library", list(LIBRARIES))
def test_packb_rich(benchmark: Any, library: str, workload: str) -> None:
    benchmark.group = f"packb-{workload}"
    benchmark.extra_info["library"] = library
    make, libraries = WORKLOADS[workload]
    obj = make()
    pack = libraries[library]
    decoded = parse_datetimes(msgpack.unpackb(pack(obj), raw=False))
    assert decoded == plain(obj), f"{library}: output does not decode to the input's plain form"
    benchmark(pack, obj)


class Trade(NamedTuple):
    id: int
    symbol: str
    price: float
    quantity: int
    buy: bool


def make_trades(n: int, seed: int = 3) -> list[Trade]:
    rng = random.Random(seed)
    symbols = [f"SYM{i}" for i in range(40)]
    return [
        Trade(
            i, rng.choice(symbols), rng.random() * 1000, rng.randrange(1, 10**4), rng.random() < 0.5
        )
        for i in range(n)
    ]


NAMED_TUPLE_LIBRARIES: dict[str, Callable[[Any], bytes]] = {
    "fastmsgpack": fastmsgpack.packb,
    "msgpack": msgpack.packb,
    "msgspec": msgspec.msgpack.encode,
}
if BEFORE is not None:
    try:
        BEFORE.packb(Trade(0, "", 0.0, 0, False))
        NAMED_TUPLE_LIBRARIES[BEFORE_NAME] = BEFORE.packb
    except TypeError:  # a build that sends named tuples to default
        NAMED_TUPLE_LIBRARIES[BEFORE_NAME] = functools.partial(BEFORE.packb, default=list)


@pytest.mark.parametrize("library", list(NAMED_TUPLE_LIBRARIES))
def test_packb_named_tuples(benchmark: Any, library: str) -> None:
    benchmark.group = "packb-namedtuples-10000"
    benchmark.extra_info["library"] = library
    trades = make_trades(10_000)
    pack = NAMED_TUPLE_LIBRARIES[library]
    decoded = msgpack.unpackb(pack(trades), raw=False)
    assert decoded == [list(t) for t in trades], f"{library}: output does not decode to the input"
    benchmark(pack, trades)
