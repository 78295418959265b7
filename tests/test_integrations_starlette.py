"""fastmsgpack.integrations.starlette with FastAPI and Starlette, served by a real uvicorn on a
loopback port, asked by an httpx client (tests/_web_app.py is the app)."""

from __future__ import annotations

import datetime
import json
from collections.abc import Iterator
from typing import Any

import httpx
import pytest
from _uvicorn import uvicorn_server
from _web_app import FAMILIES
from starlette.requests import Request

import fastmsgpack
import fastmsgpack.json
from fastmsgpack.integrations.starlette import wants_msgpack

MSGPACK = "application/msgpack"
WHEN = datetime.datetime(2026, 5, 1, 8, 30, tzinfo=datetime.timezone.utc)
TRIP: dict[str, Any] = {
    "id": 7,
    "stops": [
        {"name": "depot", "at": WHEN, "where": [48.85, 2.35]},
        {"name": "market", "at": WHEN + datetime.timedelta(hours=1), "where": [48.86, 2.34]},
    ],
}


pytestmark = pytest.mark.xdist_group("uvicorn-server")


@pytest.fixture(scope="module")
def client(tmp_path_factory: pytest.TempPathFactory) -> Iterator[httpx.Client]:
    log = tmp_path_factory.mktemp("uvicorn") / "uvicorn.log"
    with uvicorn_server("_web_app:app", log) as url, httpx.Client(base_url=url, timeout=10) as c:
        yield c


def post(client: httpx.Client, path: str, content: bytes, **headers: str) -> httpx.Response:
    return client.post(path, content=content, headers={"content-type": MSGPACK, **headers})


def test_msgpack_response(client: httpx.Client) -> None:
    r = client.get("/now")
    assert r.status_code == 200
    assert r.headers["content-type"] == MSGPACK
    # FastAPI hands the response class JSON-able content: the datetime arrives as its text.
    assert fastmsgpack.unpackb(r.content) == {"at": "2026-05-01T12:00:00Z", "n": [1, 2]}


@pytest.mark.parametrize("prefix", ["", "/plain"], ids=["fastapi", "starlette"])
@pytest.mark.parametrize("accept", [MSGPACK, "application/json"], ids=["msgpack", "json"])
@pytest.mark.parametrize("name", sorted(FAMILIES))
def test_respond_applies_the_type_rules_in_both_formats(
    client: httpx.Client, name: str, accept: str, prefix: str
) -> None:
    # Both branches of `respond` follow fastmsgpack's type rules (with OPT_SERIALIZE_PYDANTIC):
    # a value the MessagePack branch sends, the JSON one sends too, as fastmsgpack.json writes it.
    value = FAMILIES[name]
    r = client.get(f"{prefix}/families/{name}", headers={"accept": accept})
    assert r.status_code == 200, r.text
    assert r.headers["content-type"] == accept
    assert r.headers["vary"] == "Accept"
    option = fastmsgpack.OPT_SERIALIZE_PYDANTIC
    if accept == MSGPACK:
        assert r.content == fastmsgpack.packb(value, option=option)
    else:
        assert r.content == fastmsgpack.json.dumps(value, option=option)
        # What a JSON client reads: the MessagePack branch's value, as JSON reads it back.
        assert r.json() == json.loads(fastmsgpack.json.dumps(value, option=option))


def test_typed_body_and_negotiated_answer(client: httpx.Client) -> None:
    data = fastmsgpack.packb(TRIP)
    expected = {
        "id": 7,
        "stops": 2,
        "first": "depot",
        "at": "2026-05-01T08:30:00+00:00",
        "types": ["Trip", "datetime", "datetime"],
    }
    r = post(client, "/trips", data, accept=MSGPACK)
    assert (r.status_code, r.headers["content-type"]) == (200, MSGPACK)
    assert r.headers["vary"] == "Accept"
    assert fastmsgpack.unpackb(r.content) == expected
    r = post(client, "/trips", data, accept="application/json")
    assert r.headers["content-type"] == "application/json"
    assert r.json() == expected
    r = post(client, "/trips", data, accept="application/json;q=0.5, application/msgpack")
    assert fastmsgpack.unpackb(r.content) == expected
    # The same body as JSON is decoded by the same rules.
    as_json = json.dumps(TRIP, default=str)
    r = client.post("/trips", content=as_json, headers={"content-type": "application/json"})
    assert (r.status_code, r.json()) == (200, expected)


def test_pydantic_body(client: httpx.Client) -> None:
    parcel = {"weight": 1.5, "to": "Lyon", "sent": WHEN}
    r = post(client, "/parcels", fastmsgpack.packb(parcel))
    assert r.status_code == 200
    assert fastmsgpack.unpackb(r.content) == {**parcel, "sent": "2026-05-01T08:30:00Z"}
    r = post(client, "/parcels", fastmsgpack.packb({**parcel, "weight": -1}))
    assert r.status_code == 422
    detail = r.json()["detail"]
    assert detail["error"] == "validation"
    # Where pydantic says, joined onto the place of the model (the whole body).
    assert detail["path"] == "$.weight"
    assert [e["loc"] for e in detail["errors"]] == [["weight"]]


def test_validation_error_names_the_path(client: httpx.Client) -> None:
    bad = {**TRIP, "stops": [TRIP["stops"][0], {"name": "x", "at": 17, "where": [1.0, 2.0]}]}
    r = post(client, "/trips", fastmsgpack.packb(bad), accept=MSGPACK)
    assert r.status_code == 422
    assert r.headers["content-type"] == MSGPACK
    detail = fastmsgpack.unpackb(r.content)["detail"]
    assert detail["path"] == "$.stops[1].at"
    assert detail["message"].startswith("expected datetime, found int 17 at $.stops[1].at")
    assert isinstance(detail["offset"], int)


@pytest.mark.parametrize(
    "content",
    [
        b"",
        b"\xc1",
        fastmsgpack.packb(TRIP)[:-5],
        fastmsgpack.packb(TRIP) + b"\x00",
        fastmsgpack.packb({**TRIP, "stops": [{**TRIP["stops"][0], "name": "ZZZ"}]}).replace(
            b"\xa3ZZZ", b"\xa3\xff\xfe\xfd"
        ),
        b"\x91" * 5000,
        b"\xdb\xff\xff\xff\xff",
        b"\xdd\xff\xff\xff\xff",
    ],
    ids=["empty", "reserved", "truncated", "trailing", "utf-8", "deep", "huge str", "huge array"],
)
def test_malformed_body_is_400(client: httpx.Client, content: bytes) -> None:
    for path in ("/echo.msgpack", "/trips", "/plain/trips"):
        r = post(client, path, content, accept="application/json")
        if path == "/echo.msgpack" or r.status_code != 422:  # typed: an array is not a Trip
            assert r.status_code == 400, (path, r.text)
            assert r.json()["detail"]["error"] == "malformed body"


def test_malformed_json_is_400(client: httpx.Client) -> None:
    r = client.post("/trips", content=b"{nope", headers={"content-type": "application/json"})
    assert r.status_code == 400
    r = client.post("/trips", content=b"[" * 100000, headers={"content-type": "application/json"})
    assert r.status_code == 400


def test_wrong_content_type_is_415(client: httpx.Client) -> None:
    r = client.post("/trips", content=b"hello", headers={"content-type": "text/plain"})
    assert r.status_code == 415
    assert "application/msgpack" in r.json()["detail"]["message"]
    # The plain Starlette app takes no JSON; its errors are negotiated too.
    r = client.post(
        "/plain/trips",
        content=b"{}",
        headers={"content-type": "application/json", "accept": MSGPACK},
    )
    assert (r.status_code, r.headers["content-type"]) == (415, MSGPACK)
    assert fastmsgpack.unpackb(r.content)["detail"]["error"] == "unsupported media type"


def test_too_large_is_413(client: httpx.Client) -> None:
    r = post(client, "/small", fastmsgpack.packb("x" * 2000))
    assert r.status_code == 413
    r = post(client, "/small", fastmsgpack.packb("x" * 200))
    assert (r.status_code, fastmsgpack.unpackb(r.content)) == (200, {"len": 200})


def test_plain_starlette(client: httpx.Client) -> None:
    r = post(client, "/plain/trips", fastmsgpack.packb(TRIP))
    assert (r.status_code, r.headers["content-type"]) == (200, MSGPACK)
    assert fastmsgpack.unpackb(r.content) == {"id": 7, "stops": 2}
    r = post(client, "/plain/trips", b"\xc1", accept="application/json")
    assert (r.status_code, r.json()["detail"]["error"]) == (400, "malformed body")


def test_benchmark_endpoints_agree(client: httpx.Client) -> None:
    as_msgpack = fastmsgpack.unpackb(client.get("/doc.msgpack").content)
    assert as_msgpack == client.get("/doc.json").json()
    assert 9000 < len(fastmsgpack.packb(as_msgpack)) < 11000
    echoed = post(client, "/echo.msgpack", fastmsgpack.packb(as_msgpack))
    assert fastmsgpack.unpackb(echoed.content) == as_msgpack
    assert client.post("/echo.json", json=as_msgpack).json() == as_msgpack


def request_with(accept: str | None) -> Request:
    headers = [] if accept is None else [(b"accept", accept.encode())]
    return Request({"type": "http", "method": "GET", "path": "/", "headers": headers})


@pytest.mark.parametrize(
    ("accept", "expected"),
    [
        (None, False),
        ("*/*", False),
        ("application/msgpack", True),
        ("application/x-msgpack", True),
        ("application/json", False),
        ("application/json, application/msgpack;q=0.9", False),
        ("application/json;q=0.8, application/msgpack", True),
        ("application/*, application/msgpack;q=0", False),
        ("application/*;q=0.5, application/msgpack", True),
        ("text/html, */*;q=0.1", False),
        ("application/msgpack;q=bad", False),
    ],
)
def test_accept_negotiation(accept: str | None, expected: bool) -> None:
    assert wants_msgpack(request_with(accept)) is expected
    if accept in (None, "*/*"):
        assert wants_msgpack(request_with(accept), default=True)


def test_response_class_packs_pydantic_and_bytes() -> None:
    import pydantic

    from fastmsgpack.integrations.starlette import MsgpackResponse

    class M(pydantic.BaseModel):
        b: bytes
        n: int

    r = MsgpackResponse({"m": M(b=b"\x00\x01", n=3)}, status_code=201)
    assert r.status_code == 201
    assert r.media_type == MSGPACK
    assert fastmsgpack.unpackb(r.body) == {"m": {"b": b"\x00\x01", "n": 3}}
    any_value: Any = r.headers["content-length"]
    assert int(any_value) == len(r.body)
