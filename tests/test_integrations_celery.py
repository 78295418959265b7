"""fastmsgpack as Celery's serializer, through kombu's entry point, with a real worker.

A real redis-server (broker and result backend) and a real Celery worker (prefork pool, two
child processes) started as a subprocess; the tasks and their results travel as fastmsgpack.
"""

from __future__ import annotations

import datetime
import decimal
import hashlib
import os
import re
import time
import uuid
from collections.abc import Callable, Iterator
from typing import Any, NamedTuple
from zoneinfo import ZoneInfo

import kombu.serialization
import psutil  # type: ignore[import-untyped]
import pytest
import redis
from _celery_app import app, describe, echo
from _celery_worker import TIMEOUT, Worker, spawn_worker, stop, wait_ready
from _servers import RedisServer
from kombu.connection import Connection
from kombu.exceptions import DecodeError, EncodeError
from kombu.serialization import registry

import fastmsgpack
from fastmsgpack.integrations import kombu as fm_kombu

# kombu's functions carry no annotations.
kombu_dumps: Callable[[Any, str], tuple[str, str, bytes]] = kombu.serialization.dumps
kombu_loads: Callable[..., Any] = kombu.serialization.loads

DB = 1
# Under pytest-xdist (scripts/test), the module's tests run in one worker, which starts the
# module-scoped celery worker once.
pytestmark = pytest.mark.xdist_group("celery-worker")


@pytest.fixture(scope="module")
def worker(redis_server: RedisServer, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Worker]:
    url = redis_server.url(DB)
    redis.Redis.from_url(url).flushdb()
    app.conf.update(broker_url=url, result_backend=url)
    w = spawn_worker(url, tmp_path_factory.mktemp("celery") / "worker.log")
    try:
        wait_ready(w)
        yield w
    finally:
        stop(w)


def test_registered_through_the_entry_point() -> None:
    # kombu.serialization read the entry point when it was imported: nothing registered it here.
    assert registry.name_to_type["fastmsgpack"] == "application/x-fastmsgpack"
    assert registry.type_to_name["application/x-fastmsgpack"] == "fastmsgpack"
    # kombu's own msgpack serializer keeps its content type and its decoder.
    assert registry.name_to_type["msgpack"] == "application/x-msgpack"
    when = datetime.datetime(2024, 5, 17, 12, 30, 45, 123456, tzinfo=datetime.timezone.utc)
    content_type, encoding, body = kombu_dumps({"at": when}, "fastmsgpack")
    assert (content_type, encoding) == ("application/x-fastmsgpack", "binary")
    assert body == fastmsgpack.packb({"at": when}, option=fastmsgpack.OPT_EXACT)
    assert body[4:7] == b"\xc7\x0d\x85"  # OPT_EXACT's datetime: fields, then 0 for UTC
    back = kombu_loads(body, content_type, encoding, accept={content_type})
    assert back == {"at": when}


class Stop(NamedTuple):
    lat: float
    lon: float


RICH = {
    "uuid": uuid.UUID(int=1),
    "price": decimal.Decimal("9.99"),
    "naive": datetime.datetime(2024, 5, 17, 12, 30),
    "day": datetime.date(2024, 5, 17),
    "tuple": (1, 2),
    "named tuple": Stop(52.37, 4.89),
    "keys": {1: "one", (2, 3): "pair"},
    "paris": datetime.datetime(2024, 5, 17, 14, 30, tzinfo=ZoneInfo("Europe/Paris")),
}


def test_rich_types_travel_as_documented() -> None:
    back = fm_kombu.loads(fm_kombu.dumps(RICH))
    assert back == {**RICH, "named tuple": [52.37, 4.89]}
    assert back["paris"].tzinfo is ZoneInfo("Europe/Paris")
    assert type(back["tuple"]) is tuple and type(back["price"]) is decimal.Decimal

    class Opaque:
        pass

    with pytest.raises(EncodeError):
        kombu_dumps({"no": Opaque()}, "fastmsgpack")
    with pytest.raises(DecodeError):
        kombu_loads(
            b"\xc1", "application/x-fastmsgpack", "binary", accept={"application/x-fastmsgpack"}
        )


def test_messages_of_earlier_versions_read_as_they_did() -> None:
    # Earlier versions packed with these options: aware datetimes as timestamps, the other rich
    # types as strings and arrays. The same bytes read the same now.
    old = fastmsgpack.packb(
        RICH, option=fastmsgpack.OPT_DATETIME_AS_TIMESTAMP_EXT | fastmsgpack.OPT_NON_STR_KEYS
    )
    back = kombu_loads(old, fm_kombu.CONTENT_TYPE, "binary", accept={fm_kombu.CONTENT_TYPE})
    assert back == {
        "uuid": "00000000-0000-0000-0000-000000000001",
        "price": "9.99",
        "naive": "2024-05-17T12:30:00",
        "day": "2024-05-17",
        "tuple": [1, 2],
        "named tuple": [52.37, 4.89],
        "keys": {1: "one", (2, 3): "pair"},
        "paris": datetime.datetime(2024, 5, 17, 12, 30, tzinfo=datetime.timezone.utc),
    }


def _same(a: Any, b: Any) -> bool:
    """Equal and of the same type, all the way down (datetimes: in the same zone)."""
    if type(a) is not type(b):
        return False
    if isinstance(a, dict):
        return a.keys() == b.keys() and all(_same(v, b[k]) for k, v in a.items())
    if isinstance(a, list | tuple):
        return len(a) == len(b) and all(_same(x, y) for x, y in zip(a, b, strict=True))
    if isinstance(a, datetime.datetime | datetime.time):
        return bool(a == b and a.utcoffset() == b.utcoffset() and a.tzname() == b.tzname())
    if isinstance(a, decimal.Decimal):
        return bool(a.as_tuple() == b.as_tuple())
    return bool(a == b)


ORACLE_VALUES: list[Any] = [
    uuid.UUID("12345678-1234-5678-1234-567812345678"),
    decimal.Decimal("9.990"),
    decimal.Decimal("-0.000001"),
    decimal.Decimal("1E+30"),
    datetime.date(2024, 2, 29),
    datetime.time(23, 59, 59, 999999),
    datetime.time(12, 0, tzinfo=datetime.timezone.utc),
    datetime.datetime(2024, 5, 17, 12, 30, 45, 123456),
    datetime.datetime(2024, 5, 17, 12, 30, tzinfo=datetime.timezone.utc),
    datetime.datetime(2024, 5, 17, 12, 30, tzinfo=ZoneInfo("Europe/Paris")),
    datetime.datetime(2024, 5, 17, 12, 30, tzinfo=datetime.timezone(datetime.timedelta(hours=-7))),
    2**70,
    -(2**64),
    b"\x00\xff",
    "é",
    1.5,
    None,
    True,
    [1, "a", [2.5]],
    {"nested": {"at": datetime.date(2024, 1, 1), "id": uuid.UUID(int=7)}},
    (1, 2),
]


def test_brings_back_everything_kombu_json_does_plus_tuples_sets_bytes() -> None:
    json_type = registry.name_to_type["json"]
    brought_back = 0
    for value in ORACLE_VALUES:
        message = {"value": value}
        ctype, enc, body = kombu_dumps(message, "json")
        by_json = kombu_loads(body, ctype, enc, accept={ctype})["value"]
        assert ctype == json_type
        ctype, enc, body = kombu_dumps(message, "fastmsgpack")
        ours = kombu_loads(body, ctype, enc, accept={ctype})["value"]
        if _same(by_json, value):
            brought_back += 1
            assert _same(ours, value), (value, ours)
        assert _same(ours, value), f"{value!r} came back as {ours!r}"
    # The oracle is not vacuous: kombu's json brings most of them back itself.
    assert brought_back >= len(ORACLE_VALUES) // 2
    for extra in [(1, (2, "x")), {1, 2}, frozenset({"a"}), b"raw", bytearray(b"x")]:
        ctype, enc, body = kombu_dumps({"v": extra}, "fastmsgpack")
        assert _same(kombu_loads(body, ctype, enc, accept={ctype})["v"], extra)


def test_register_by_hand_is_idempotent() -> None:
    fm_kombu.register()
    fm_kombu.register()
    assert registry.name_to_type["fastmsgpack"] == fm_kombu.CONTENT_TYPE


def test_worker_runs_tasks_with_datetimes_bytes_and_1mb_payloads(worker: Worker) -> None:
    # Two prefork child processes, as asked for.
    assert len(psutil.Process(worker.proc.pid).children()) == 2
    when = datetime.datetime(2024, 5, 17, 14, 30, 1, 250000, tzinfo=ZoneInfo("Europe/Paris"))
    blob = os.urandom(1 << 20)
    items = [{"id": i, "at": when, "name": f"stop {i}", "score": i / 7} for i in range(20_000)]
    assert len(fastmsgpack.packb(items, option=fm_kombu.OPTIONS)) > 1_000_000
    result = describe.delay(when, blob, items=items)
    got = result.get(timeout=TIMEOUT)
    assert worker.content_type_of(result.id) == "application/x-fastmsgpack"
    assert got["pid"] != os.getpid()
    # In the worker the datetime was a datetime (in its zone), the bytes were bytes.
    assert got["when_type"] == "datetime"
    assert got["when_offset"] == 7200.0
    assert got["blob_type"] == "bytes"
    assert (got["blob_len"], got["blob_sha256"]) == (len(blob), hashlib.sha256(blob).hexdigest())
    assert got["item_types"] == ["dict"]
    assert got["n_items"] == len(items)
    # And the result came back through the result backend with the same types.
    assert got["day_after"] == when + datetime.timedelta(days=1)
    assert got["day_after"].tzinfo is ZoneInfo("Europe/Paris")
    assert got["blob_reversed"] == blob[::-1]
    # A 1 MB echo: the list of 20,000 maps with datetimes goes there and back unchanged.
    back = echo.delay(items).get(timeout=TIMEOUT)
    assert back == items
    assert back[-1]["at"] == when


def test_worker_gives_back_exact_types(worker: Worker) -> None:
    value = {
        "stops": (1, (2, 3)),
        "tags": {"a", "b"},
        "frozen": frozenset({1}),
        "blob": b"\x00\xff",
        "id": uuid.UUID(int=3),
        "price": decimal.Decimal("19.90"),
        "day": datetime.date(2024, 5, 17),
        "time": datetime.time(8, 15),
        "at": datetime.datetime(2024, 5, 17, 9, 30, tzinfo=ZoneInfo("Europe/Paris")),
        "wait": datetime.timedelta(minutes=5),
        (1, 2): "tuple key",
    }
    result = echo.delay(value)
    back = result.get(timeout=TIMEOUT)
    assert worker.content_type_of(result.id) == "application/x-fastmsgpack"
    assert _same(back, value), back
    assert back["at"].tzinfo is ZoneInfo("Europe/Paris")


def test_worker_consumes_kombu_msgpack_messages(worker: Worker) -> None:
    value = {"text": "é", "blob": b"\x00\xff", "n": [1, -2, 3.5, None, True]}
    result = echo.apply_async((value,), serializer="msgpack")
    assert result.get(timeout=TIMEOUT) == value
    assert worker.content_type_of(result.id) == "application/x-msgpack"


def test_corrupted_message_takes_the_decode_error_path(worker: Worker) -> None:
    before = echo.delay("before")
    bad_id = str(uuid.uuid4())
    with Connection(worker.url) as conn:  # type: ignore[no-untyped-call]
        conn.Producer().publish(
            b"\xc1 not MessagePack \xc1",
            exchange="",
            routing_key="celery",
            content_type="application/x-fastmsgpack",
            content_encoding="binary",
            headers={"task": "fastmsgpack_test.echo", "id": bad_id, "lang": "py"},
        )
    after = [echo.delay(i) for i in range(5)]
    assert before.get(timeout=TIMEOUT) == "before"
    assert [r.get(timeout=TIMEOUT) for r in after] == list(range(5))
    log = worker.log_text()
    # Celery's consumer logged the decode error, naming the message, and acknowledged it.
    assert re.search(r"Can't decode message body: DecodeError\(.*MsgpackDecodeError", log), log
    assert bad_id in log
    assert worker.proc.poll() is None
    client = redis.Redis.from_url(worker.url)
    deadline = time.monotonic() + 5
    while client.llen("celery") or client.hlen("unacked"):
        assert time.monotonic() < deadline, "messages left on the queue or unacknowledged"
        time.sleep(0.05)
    # Nothing ran for the bad message.
    assert app.AsyncResult(bad_id).state == "PENDING"
