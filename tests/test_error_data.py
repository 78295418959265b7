"""Errors are data: kind, reason, offset (and path for ValidationError) as attributes, so that no
code has to parse a message back."""

from __future__ import annotations

import dataclasses

import pydantic
import pytest

import fastmsgpack
from fastmsgpack import MsgpackDecodeError, ValidationError, packb, unpackb
from fastmsgpack import json as fastjson
from fastmsgpack.compat import StackError
from fastmsgpack.compat import Unpacker as CompatUnpacker


def _deep(levels: int) -> bytes:
    return b"\x91" * levels + b"\x01"


@pytest.mark.parametrize(
    ("data", "kind", "offset"),
    [
        (b"", "empty", 0),
        (b"\x92\x01\xc1", "reserved", 2),
        (b"\x92\x01\xa3ab", "truncated", 2),
        (b"\x81\xa1a\xa2\xff\xfe", "invalid_utf8", 3),
        (b"\x01\x02\x03", "trailing", 1),
        (b"\x81\x01\x02", "key_not_str", 1),
        (b"\xd6\xff\xff\xff\xff\xff" + b"\xd7\xff" + b"\xff" * 8, "trailing", 6),
        (b"\xd7\xff\xff\xff\xff\xff\x00\x00\x00\x00", "bad_timestamp", 0),
        (_deep(2000), "too_deep", 1024),
    ],
)
def test_decode_errors_carry_kind_reason_and_offset(data: bytes, kind: str, offset: int) -> None:
    option = fastmsgpack.OPT_DATETIME_AS_TIMESTAMP_EXT if kind == "bad_timestamp" else None
    with pytest.raises(MsgpackDecodeError) as info:
        unpackb(data, option=option)
    err = info.value
    assert (err.kind, err.offset) == (kind, offset)
    assert err.reason is not None
    assert str(err) == f"{err.reason} at byte offset {offset}"


def test_a_callback_error_keeps_its_cause() -> None:
    def hook(tag: int, data: bytes) -> object:
        raise RuntimeError("no")

    with pytest.raises(MsgpackDecodeError) as info:
        unpackb(b"\x92\x01" + packb(fastmsgpack.Ext(5, b"x")), ext_hook=hook)
    assert (info.value.kind, info.value.offset) == ("callback", 2)
    assert isinstance(info.value.__cause__, RuntimeError)


def test_an_invalid_option_has_a_kind_and_no_offset() -> None:
    with pytest.raises(MsgpackDecodeError) as info:
        unpackb(b"\x01", option=fastmsgpack.OPT_SORT_KEYS)
    assert info.value.kind == "invalid_option"
    assert info.value.offset is None
    assert info.value.reason is not None and "OPT_SORT_KEYS" in info.value.reason


def test_errors_raised_without_data_have_none() -> None:
    err = MsgpackDecodeError("made by hand")
    assert (err.kind, err.reason, err.offset) == (None, None, None)
    assert ValidationError("x").path is None


def test_stream_offsets_count_from_the_start_of_the_stream() -> None:
    unpacker = fastmsgpack.Unpacker()
    unpacker.feed(b"\x01\x02\x92\x03\xc1")
    assert [unpacker.unpack(), unpacker.unpack()] == [1, 2]
    with pytest.raises(MsgpackDecodeError) as info:
        unpacker.unpack()
    assert (info.value.kind, info.value.offset) == ("reserved", 4)


def test_stream_states_have_kinds() -> None:
    unpacker = fastmsgpack.Unpacker(max_buffer_size=4)
    with pytest.raises(fastmsgpack.OutOfData) as empty:
        unpacker.unpack()
    assert empty.value.kind == "out_of_data"
    with pytest.raises(fastmsgpack.BufferFull) as full:
        unpacker.feed(b"\x00" * 5)
    assert full.value.kind == "buffer_full"


@dataclasses.dataclass
class Stop:
    id: int
    name: str


@dataclasses.dataclass
class Route:
    stops: list[Stop]


def test_validation_errors_carry_a_path() -> None:
    data = packb({"stops": [{"id": 1, "name": "a"}, {"id": "x", "name": "b"}]})
    with pytest.raises(ValidationError) as info:
        unpackb(data, type=Route)
    err = info.value
    assert (err.kind, err.path) == ("mismatch", "$.stops[1].id")
    assert err.offset == data.index(b"\xa1x")
    assert err.reason == 'expected int, found str "x"'
    assert str(err) == f"{err.reason} at $.stops[1].id (byte offset {err.offset})"


def test_validation_kinds_name_missing_and_unknown_fields() -> None:
    with pytest.raises(ValidationError) as missing:
        unpackb(packb({"stops": [{"id": 1}]}), type=Route)
    assert (missing.value.kind, missing.value.path) == ("missing_field", "$.stops[0]")
    data = packb({"stops": [{"id": 1, "name": "a", "extra": 0}]})
    with pytest.raises(ValidationError) as unknown:
        unpackb(data, type=Route, option=fastmsgpack.OPT_FORBID_UNKNOWN_FIELDS)
    assert (unknown.value.kind, unknown.value.path) == ("unknown_field", "$.stops[0]")


class PStop(pydantic.BaseModel):
    id: int
    tags: dict[str, int] = {}


class PRoute(pydantic.BaseModel):
    stops: list[PStop]


@dataclasses.dataclass
class Trip:
    route: PRoute


def test_pydantic_refusals_are_reported_at_pydantic_path() -> None:
    data = packb({"stops": [{"id": 1}, {"id": "seven"}]})
    with pytest.raises(ValidationError) as info:
        unpackb(data, type=PRoute)
    err = info.value
    cause = err.__cause__
    assert isinstance(cause, pydantic.ValidationError)
    first = cause.errors()[0]
    assert err.path == "$.stops[1].id"
    assert err.reason == first["msg"]
    assert err.kind == "refused"
    assert err.offset == 0
    assert str(err) == f"{first['msg']} at $.stops[1].id (byte offset 0)"


def test_pydantic_path_is_joined_onto_ours() -> None:
    inner = {"stops": [{"id": 1, "tags": {"odd key": "x"}}]}
    data = packb({"route": inner})
    with pytest.raises(ValidationError) as info:
        unpackb(data, type=Trip)
    err = info.value
    assert err.path == "$.route.stops[0].tags['odd key']"
    assert err.offset == data.index(b"\x81\xa5stops")
    assert isinstance(err.__cause__, pydantic.ValidationError)


def test_pydantic_counts_its_other_errors() -> None:
    data = packb({"stops": [{"id": "a"}, {"id": "b"}, {"id": "c"}]})
    with pytest.raises(ValidationError) as info:
        unpackb(data, type=PRoute)
    assert info.value.path == "$.stops[0].id"
    assert info.value.reason is not None
    assert info.value.reason.endswith("(and 2 more errors)")


def test_json_transcoder_errors_carry_data() -> None:
    data = packb([1, b"xy"])
    with pytest.raises(fastjson.JSONEncodeError) as info:
        fastjson.from_msgpack(data)
    assert (info.value.kind, info.value.offset) == ("bytes_not_json", 2)
    assert info.value.reason == "bytes cannot be written as JSON"
    with pytest.raises(fastjson.JSONEncodeError) as ext:
        fastjson.from_msgpack(packb([fastmsgpack.Ext(3, b"z")]))
    assert (ext.value.kind, ext.value.offset) == ("ext_not_json", 1)
    with pytest.raises(fastjson.JSONEncodeError) as dumped:
        fastjson.dumps(b"x")
    # json.dumps's errors are encode errors: a kind and a path, no byte offset.
    assert (dumped.value.kind, dumped.value.path, dumped.value.offset) == (
        "unsupported_type",
        "$",
        None,
    )


def test_compat_stack_error_comes_from_the_kind() -> None:
    unpacker = CompatUnpacker()
    unpacker.feed(_deep(3000))
    with pytest.raises(StackError):
        unpacker.skip()


def test_an_object_too_large_for_the_buffer_says_what_it_declares() -> None:
    unpacker = fastmsgpack.Unpacker(max_buffer_size=64)
    unpacker.feed(b"\x01\xda\x03\xe8abc")
    assert unpacker.unpack() == 1
    with pytest.raises(fastmsgpack.BufferFull) as info:
        unpacker.unpack()
    assert (info.value.kind, info.value.offset, info.value.declared) == ("too_large", 1, 1001)
