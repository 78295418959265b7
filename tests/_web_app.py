"""The ASGI app the web integration tests (tests/test_integrations_starlette.py) and the FastAPI
benchmark serve with uvicorn: FastAPI routes, and a plain Starlette app mounted at /plain."""

from __future__ import annotations

import dataclasses
import datetime
import decimal
import enum
import uuid
from typing import Annotated, Any, NamedTuple

import pydantic
from fastapi import Depends, FastAPI, Request
from fastapi.responses import Response
from starlette.applications import Starlette
from starlette.routing import Route

from fastmsgpack.integrations.starlette import (
    MsgpackResponse,
    body,
    install,
    read_body,
    respond,
)


@dataclasses.dataclass
class Stop:
    name: str
    at: datetime.datetime
    where: tuple[float, float]


@dataclasses.dataclass
class Trip:
    id: int
    stops: list[Stop]


class Parcel(pydantic.BaseModel):
    weight: pydantic.PositiveFloat
    to: str
    sent: datetime.datetime


app = FastAPI()
install(app)


@app.get("/now", response_class=MsgpackResponse)
async def now() -> Any:
    return {"at": datetime.datetime(2026, 5, 1, 12, 0, tzinfo=datetime.timezone.utc), "n": [1, 2]}


@app.post("/trips")
async def trips(request: Request, trip: Annotated[Trip, Depends(body(Trip))]) -> Response:
    first = trip.stops[0] if trip.stops else None
    return respond(
        request,
        {
            "id": trip.id,
            "stops": len(trip.stops),
            "first": first.name if first else None,
            "at": first.at.isoformat() if first else None,
            "types": [type(trip).__name__] + [type(s.at).__name__ for s in trip.stops],
        },
    )


@app.post("/parcels", response_class=MsgpackResponse)
async def parcels(parcel: Annotated[Parcel, Depends(body(Parcel))]) -> Any:
    return parcel


@app.post("/small", response_class=MsgpackResponse)
async def small(doc: Annotated[Any, Depends(body(Any, max_size=1000))]) -> Any:
    return {"len": len(doc)}


# The benchmark's endpoints: a 10 KB document out, and in then out, as MessagePack and as JSON
# (FastAPI's defaults).
DOCUMENT: list[dict[str, Any]] = [
    {"id": i, "name": f"item {i:04d}", "price": i * 1.25, "tags": ["a", "b"], "ok": i % 2 == 0}
    for i in range(205)
]


# Returned as a response, the content skips FastAPI's jsonable_encoder: packb packs it as it is.
@app.get("/doc.msgpack", response_class=MsgpackResponse)
async def doc_msgpack() -> Any:
    return MsgpackResponse(DOCUMENT)


@app.get("/doc.json")
async def doc_json() -> Any:
    return DOCUMENT


@app.post("/echo.msgpack", response_class=MsgpackResponse)
async def echo_msgpack(doc: Annotated[Any, Depends(body(Any))]) -> Any:
    return MsgpackResponse(doc)


@app.post("/echo.json")
async def echo_json(doc: list[dict[str, Any]]) -> Any:
    return doc


class Color(enum.Enum):
    RED = "red"


class LatLon(NamedTuple):
    lat: float
    lon: float


#: One value per type family that fastmsgpack packs, answered by `respond` in either format
#: (GET /families/{name}, on the FastAPI app and on the plain Starlette one).
FAMILIES: dict[str, Any] = {
    "dataclasses": [Stop("depot", datetime.datetime(2026, 5, 1, 8, 30), (48.85, 2.35))],
    "datetimes": {
        "at": datetime.datetime(2026, 5, 1, 8, 30, tzinfo=datetime.timezone.utc),
        "day": datetime.date(2026, 5, 1),
        "time": datetime.time(8, 30),
    },
    "uuid": uuid.UUID("12345678-1234-5678-1234-567812345678"),
    "decimal": [decimal.Decimal("1.10")],
    "enum": {"color": Color.RED},
    "sets": {"tags": {"a"}, "frozen": frozenset([1])},
    "named_tuples": [LatLon(48.85, 2.35)],
    "tuples": (1, "two", None),
    "pydantic": Parcel(weight=1.5, to="Lyon", sent=datetime.datetime(2026, 5, 1, 8, 30)),
    "builtins": {"int": 1, "float": 0.5, "str": "é", "none": None, "bool": True, "list": []},
}


@app.get("/families/{name}")
async def family(request: Request, name: str) -> Response:
    return respond(request, FAMILIES[name])


async def plain_family(request: Any) -> Response:
    return respond(request, FAMILIES[request.path_params["name"]])


async def plain_trip(request: Any) -> Response:
    trip = await read_body(request, Trip, json_allowed=False)
    return respond(request, {"id": trip.id, "stops": len(trip.stops)}, default=True)


plain = Starlette(
    routes=[
        Route("/trips", plain_trip, methods=["POST"]),
        Route("/families/{name}", plain_family),
    ]
)
install(plain)
app.mount("/plain", plain)
