"""`import fastmsgpack.compat as msgpack` in code written for msgpack-python: the calls that
Celery/kombu, Dask, Ray, django-redis, aiocache and similar code make, each giving what
msgpack-python gives."""

from __future__ import annotations

import collections
import datetime
import io
from collections.abc import Callable
from typing import Any

import msgpack as reference  # type: ignore[import-untyped]
import pytest

import fastmsgpack.compat as msgpack
from fastmsgpack.compat.exceptions import ExtraData, OutOfData

UTC = datetime.timezone.utc
MESSAGE: dict[str, Any] = {
    "task": "tasks.add",
    "id": "6b1c",
    "args": [2, 3],
    "kwargs": {},
    "eta": None,
}


class Money:
    def __init__(self, cents: int) -> None:
        self.cents = cents


def money_encoder(ext_type: Any) -> Callable[[Any], Any]:
    def encode(obj: Any) -> Any:
        if isinstance(obj, Money):
            return ext_type(42, obj.cents.to_bytes(8, "big", signed=True))
        raise TypeError(f"cannot serialize {type(obj).__name__}")

    return encode


def decode_money(code: int, data: bytes) -> Any:
    if code == 42:
        return Money(int.from_bytes(data, "big", signed=True))
    return msgpack.ExtType(code, data)


def kombu_dumps() -> None:
    assert msgpack.packb(MESSAGE, use_bin_type=True) == reference.packb(MESSAGE, use_bin_type=True)


def kombu_loads() -> None:
    assert msgpack.unpackb(reference.packb(MESSAGE), raw=False) == MESSAGE


def kombu_legacy_old_spec() -> None:
    old = msgpack.packb({"body": "x" * 40}, use_bin_type=False)
    assert old == reference.packb({"body": "x" * 40}, use_bin_type=False)
    assert msgpack.unpackb(old, raw=True) == {b"body": b"x" * 40}


def dask_dumps_with_default() -> None:
    frames = {"op": "update", "sizes": (1, 2)}
    data = msgpack.dumps(frames, default=str, use_bin_type=True)
    assert data == reference.dumps(frames, default=str, use_bin_type=True)


def dask_loads_tuples_int_keys() -> None:
    data = reference.packb({0: [1, [2]], "x": b"y"})
    got = msgpack.loads(data, use_list=False, raw=False, strict_map_key=False)
    assert got == {0: (1, (2,)), "x": b"y"}


def dask_object_hook() -> None:
    def hook(d: dict[str, Any]) -> Any:
        return ("serialized", d["data"]) if "__Serialized__" in d else d

    data = reference.packb({"a": {"__Serialized__": 1, "data": b"p"}})
    expected = reference.unpackb(data, object_hook=hook)
    assert msgpack.loads(data, object_hook=hook, use_list=False, strict_map_key=False) == expected


def ray_ext_hook_round_trip() -> None:
    data = msgpack.packb([Money(-5)], default=money_encoder(msgpack.ExtType), use_bin_type=True)
    expected = reference.packb(
        [Money(-5)], default=money_encoder(reference.ExtType), use_bin_type=True
    )
    assert data == expected
    [money] = msgpack.unpackb(data, ext_hook=decode_money, raw=False, strict_map_key=False)
    assert money.cents == -5


def django_redis_dumps_loads() -> None:
    value = {"user": 7, "roles": ["admin"], "score": 0.5}
    assert msgpack.loads(msgpack.dumps(value), raw=False) == value


def aiocache_loads_use_list() -> None:
    assert msgpack.loads(msgpack.dumps([1, "a"]), raw=False, use_list=True) == [1, "a"]


def unpacker_fed_from_a_socket() -> None:
    unpacker = msgpack.Unpacker(raw=False, max_buffer_size=2**20)
    stream = msgpack.packb(MESSAGE) + msgpack.packb([1])
    received: list[Any] = []
    for i in range(0, len(stream), 7):
        unpacker.feed(stream[i : i + 7])
        received.extend(unpacker)
    assert received == [MESSAGE, [1]]


def unpacker_over_a_file() -> None:
    fp = io.BytesIO()
    for i in range(3):
        msgpack.pack({"seq": i}, fp)
    fp.seek(0)
    assert [m["seq"] for m in msgpack.Unpacker(fp, raw=False)] == [0, 1, 2]


def dump_and_load_a_file() -> None:
    fp = io.BytesIO()
    msgpack.dump({"k": "v"}, fp)
    fp.seek(0)
    assert msgpack.load(fp) == {"k": "v"}


def datetimes_as_timestamps() -> None:
    when = datetime.datetime(2024, 3, 1, 12, 0, 0, 250, tzinfo=UTC)
    data = msgpack.packb(when, datetime=True)
    assert data == reference.packb(when, datetime=True)
    assert msgpack.unpackb(data, timestamp=3) == when
    assert msgpack.unpackb(data) == msgpack.Timestamp.from_datetime(when)


def timestamp_conversions() -> None:
    ts = msgpack.Timestamp.from_unix(1_700_000_000.25)
    assert (ts.seconds, ts.nanoseconds) == (1_700_000_000, 250_000_000)
    assert ts.to_unix_nano() == 1_700_000_000_250_000_000
    assert msgpack.Timestamp.from_unix_nano(ts.to_unix_nano()) == ts


def ordered_pairs_hook() -> None:
    data = reference.packb({"b": 1, "a": 2})
    got = msgpack.unpackb(data, object_pairs_hook=collections.OrderedDict)
    assert got == collections.OrderedDict([("b", 1), ("a", 2)])


def packer_reused_without_autoreset() -> None:
    packer = msgpack.Packer(autoreset=False)
    packer.pack_map_header(1)
    packer.pack("items")
    packer.pack_array_header(2)
    packer.pack(1)
    packer.pack(2)
    assert msgpack.unpackb(packer.bytes()) == {"items": [1, 2]}
    packer.reset()
    assert packer.bytes() == b""


def errors_caught_by_class() -> None:
    with pytest.raises(ExtraData):
        msgpack.unpackb(msgpack.packb(1) + msgpack.packb(2))
    with pytest.raises(OutOfData):
        msgpack.Unpacker().unpack()
    with pytest.raises(msgpack.exceptions.FormatError):
        msgpack.unpackb(b"\xc1")
    with pytest.raises(ValueError):
        msgpack.unpackb(b"\x92\x01")


IDIOMS: list[Callable[[], None]] = [
    kombu_dumps,
    kombu_loads,
    kombu_legacy_old_spec,
    dask_dumps_with_default,
    dask_loads_tuples_int_keys,
    dask_object_hook,
    ray_ext_hook_round_trip,
    django_redis_dumps_loads,
    aiocache_loads_use_list,
    unpacker_fed_from_a_socket,
    unpacker_over_a_file,
    dump_and_load_a_file,
    datetimes_as_timestamps,
    timestamp_conversions,
    ordered_pairs_hook,
    packer_reused_without_autoreset,
    errors_caught_by_class,
]


@pytest.mark.parametrize("idiom", IDIOMS, ids=lambda f: f.__name__)
def test_idiom(idiom: Callable[[], None]) -> None:
    idiom()


def test_seventeen_idioms() -> None:
    assert len(IDIOMS) == 17
