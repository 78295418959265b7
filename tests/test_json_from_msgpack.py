"""fastmsgpack.json.from_msgpack: MessagePack straight to JSON. For any data unpackb accepts whose
value JSON can hold, the result is json.dumps(unpackb(data)) with the same options; malformed
input is MsgpackDecodeError at the same byte offset as unpackb's."""

from __future__ import annotations

import json
import math
import struct
from typing import Any

import msgpack  # type: ignore[import-untyped]
import orjson
import pytest
from conftest import (
    FIXTURE_NAMES,
    JSON_KEYS,
    JSON_PROPERTY,
    error_offset,
    json_values,
    load_fixture,
)
from hypothesis import given
from hypothesis import strategies as st

import fastmsgpack
from fastmsgpack import OPT_NON_STR_KEYS, MsgpackDecodeError, packb, unpackb
from fastmsgpack._fastmsgpack import _json_from_msgpack_at
from fastmsgpack.json import OPT_APPEND_NEWLINE, OPT_INDENT_2, JSONEncodeError, dumps, from_msgpack

LAYOUTS = [0, OPT_INDENT_2, OPT_APPEND_NEWLINE, OPT_INDENT_2 | OPT_APPEND_NEWLINE]


def assert_like_dumps(data: bytes, option: int = 0) -> bytes:
    expected = dumps(unpackb(data, option=option & OPT_NON_STR_KEYS), option=option)
    assert from_msgpack(data, option=option) == expected
    return expected


@pytest.mark.parametrize("option", LAYOUTS)
@pytest.mark.parametrize("name", FIXTURE_NAMES)
def test_fixtures(name: str, option: int) -> None:
    document = load_fixture(name)
    assert assert_like_dumps(packb(document), option) == dumps(document, option=option)


VALUES = json_values(st.floats())
VALUES32 = json_values(st.floats(width=32))


@JSON_PROPERTY
@given(value=VALUES, option=st.sampled_from(LAYOUTS))
def test_generated_values(value: Any, option: int) -> None:
    assert_like_dumps(packb(value), option)


@JSON_PROPERTY
@given(value=VALUES32, option=st.sampled_from(LAYOUTS))
def test_generated_float32_values(value: Any, option: int) -> None:
    # msgpack-python writes float 32 with use_single_float: the widened value is what counts.
    assert_like_dumps(msgpack.packb(value, use_single_float=True), option)


@JSON_PROPERTY
@given(
    pairs=st.lists(
        st.tuples(JSON_KEYS | st.just("k"), JSON_KEYS | st.lists(JSON_KEYS, max_size=3)),
        max_size=40,
    )
)
def test_generated_maps_with_repeated_and_non_str_keys(pairs: list[tuple[Any, Any]]) -> None:
    # A map written entry by entry, so keys can repeat and 1, 1.0 and True can all be there.
    # Maps with non-str keys are transcoded through Python objects, so the peers are the
    # oracle here: msgpack-python to read, orjson to write.
    data = map_header(len(pairs)) + b"".join(packb(k) + packb(v) for k, v in pairs)
    peer = msgpack.unpackb(data, raw=False, strict_map_key=False)
    for layout in (0, OPT_INDENT_2):
        peer_option = orjson.OPT_NON_STR_KEYS | (orjson.OPT_INDENT_2 if layout else 0)
        assert assert_like_dumps(data, OPT_NON_STR_KEYS | layout) == orjson.dumps(
            peer, option=peer_option
        )
    str_pairs = [(k, v) for k, v in pairs if isinstance(k, str)]
    assert_like_dumps(
        map_header(len(str_pairs)) + b"".join(packb(k) + packb(v) for k, v in str_pairs)
    )


def map_header(n: int) -> bytes:
    return bytes([0x80 | n]) if n < 16 else b"\xde" + struct.pack(">H", n)


def test_repeated_keys_keep_the_first_place_and_the_last_value() -> None:
    data = b"\x83\xa1a\x01\xa1b\x02\xd9\x01a\x03"  # "a" again, as str 8
    assert assert_like_dumps(data) == b'{"a":3,"b":2}'
    many = b"\xde\x00\x28" + b"".join(packb(f"k{i % 39}") + packb(i) for i in range(40))
    assert assert_like_dumps(many).startswith(b'{"k0":39,"k1":1,')
    assert (
        assert_like_dumps(b"\x91" + data, OPT_INDENT_2)
        == b'[\n  {\n    "a": 3,\n    "b": 2\n  }\n]'
    )


def test_repeats_are_per_map_in_nested_and_sibling_maps() -> None:
    # Keys that an enclosing, earlier or later map also has are not repeats; a repeat after a
    # nested map is still found.
    inner = b"\x82\xa1a\x01\xa1b\x02"
    assert (
        assert_like_dumps(b"\x83\xa1a" + inner + b"\xa1b" + inner + b"\xa1c\x93" + inner * 3)
        == b'{"a":{"a":1,"b":2},"b":{"a":1,"b":2},"c":[{"a":1,"b":2},{"a":1,"b":2},{"a":1,"b":2}]}'
    )
    repeat_after_nested = b"\x83\xa1a" + inner + b"\xa1b\x03\xa1a\x04"
    assert assert_like_dumps(repeat_after_nested) == b'{"a":4,"b":3}'
    stream = repeat_after_nested + b"\x82\xa1a\x05\xa1b\x06"
    document, end = _json_from_msgpack_at(stream, 0, 0)
    assert (document, end) == (b'{"a":4,"b":3}', len(repeat_after_nested))
    assert _json_from_msgpack_at(stream, end, 0) == (b'{"a":5,"b":6}', len(stream))


def test_repeats_found_among_many_keys_that_differ_only_at_the_end() -> None:
    # 20,000 eight-byte keys that share their first five bytes, then each of the first 100
    # again: every repeat is found (first place kept, last value written).
    keys = [
        "kkkkk" + chr(0x30 + i % 64) + chr(0x30 + i // 64 % 64) + chr(0x30 + i // 4096)
        for i in range(20000)
    ]
    assert len(set(keys)) == len(keys)
    entries = [(k, i) for i, k in enumerate(keys)] + [(k, -i) for i, k in enumerate(keys[:100])]
    data = b"\xdf" + struct.pack(">I", len(entries))
    data += b"".join(packb(k) + packb(v) for k, v in entries)
    expected = {k: i for i, k in enumerate(keys)} | {k: -i for i, k in enumerate(keys[:100])}
    assert json.loads(assert_like_dumps(data)) == expected


@pytest.mark.parametrize(
    ("key", "text"),
    [(None, "null"), (True, "true"), (-1, "-1"), (2**64 - 1, "18446744073709551615"), (1.5, "1.5")],
)
def test_non_str_keys(key: Any, text: str) -> None:
    data = packb({key: 0}, option=OPT_NON_STR_KEYS)
    assert assert_like_dumps(data, OPT_NON_STR_KEYS) == b'{"%s":0}' % text.encode()
    with pytest.raises(MsgpackDecodeError, match="map key must be str") as info:
        from_msgpack(data)
    assert error_offset(info.value) == 1


def test_merged_non_str_keys_and_float32_keys() -> None:
    one_float32 = b"\xca" + struct.pack(">f", 1.0)
    data = b"\x83\x01\xa1a" + one_float32 + b"\xa1b\xc3\xa1c"  # {1: "a", 1.0f: "b", True: "c"}
    assert assert_like_dumps(data, OPT_NON_STR_KEYS) == b'{"1":"c"}'
    data = b"\x81\xca" + struct.pack(">f", 0.1) + b"\x00"
    assert assert_like_dumps(data, OPT_NON_STR_KEYS) == b'{"0.10000000149011612":0}'


def be(fmt: str, *values: Any) -> bytes:
    return struct.pack(">" + fmt, *values)


FAMILIES = {
    "fixint": (b"\x00\x7f\xe0\xff", "[0,127,-32,-1]"),
    "uint": (
        b"\xcc\xff\xcd" + be("H", 65535) + b"\xce" + be("I", 2**32 - 1),
        "[255,65535,4294967295]",
    ),
    "uint64": (b"\xcf" + be("Q", 2**64 - 1) + b"\xcf" + be("Q", 1), "[18446744073709551615,1]"),
    "int": (
        b"\xd0\x80\xd1" + be("h", -(2**15)) + b"\xd2" + be("i", -(2**31)),
        "[-128,-32768,-2147483648]",
    ),
    "int64": (b"\xd3" + be("q", -(2**63)), "[-9223372036854775808]"),
    "nil_bool": (b"\xc0\xc2\xc3", "[null,false,true]"),
    "float32": (
        b"\xca" + be("f", 0.1) + b"\xca" + be("f", math.nan) + b"\xca" + be("f", -0.0),
        "[0.10000000149011612,null,-0.0]",
    ),
    "float64": (b"\xcb" + be("d", 1e16) + b"\xcb" + be("d", -math.inf), "[1e+16,null]"),
    "str": (b"\xa0\xd9\x01a\xda\x00\x01b\xdb\x00\x00\x00\x01c", '["","a","b","c"]'),
    "array": (b"\x90\xdc\x00\x01\x01\xdd\x00\x00\x00\x01\x90", "[[],[1],[[]]]"),
    "map": (b"\x80\xde\x00\x01\xa1a\x01\xdf\x00\x00\x00\x01\xa1b\x80", '[{},{"a":1},{"b":{}}]'),
}


@pytest.mark.parametrize("family", list(FAMILIES))
def test_every_format_family(family: str) -> None:
    items, expected = FAMILIES[family]
    data = b"\xdc" + be("H", count_objects(items)) + items
    assert_like_dumps(data, OPT_INDENT_2)
    text = assert_like_dumps(data)
    assert text == expected.encode()


def count_objects(data: bytes) -> int:
    count = offset = 0
    while offset < len(data):
        offset = _json_from_msgpack_at(data, offset)[1]
        count += 1
    return count


@pytest.mark.parametrize(
    ("data", "what", "at"),
    [
        (b"\xc4\x01x", "bytes", 0),
        (b"\x92\x01\xc5\x00\x00", "bytes", 2),
        (b"\x81\xa1a\xd4\x05x", "Ext", 3),
        (b"\xd6\xff\x00\x00\x00\x00", "timestamp|Ext", 0),
    ],
)
def test_bin_and_ext_are_json_encode_errors(data: bytes, what: str, at: int) -> None:
    with pytest.raises(JSONEncodeError, match=what) as info:
        from_msgpack(data)
    assert error_offset(info.value) == at


MALFORMED_BASE = packb([0, -1, 2**64 - 1, -(2**63), 1.5, None, True, "é" * 20, {"k": [{}]}])


@pytest.mark.parametrize("end", range(len(MALFORMED_BASE)))
def test_every_truncation_is_a_decode_error_at_unpackbs_offset(end: int) -> None:
    data = MALFORMED_BASE[:end]
    with pytest.raises(MsgpackDecodeError) as expected:
        unpackb(data)
    with pytest.raises(MsgpackDecodeError) as info:
        from_msgpack(data)
    assert error_offset(info.value) == error_offset(expected.value)


@pytest.mark.parametrize(
    ("data", "message", "at"),
    [
        (b"\xc1", "reserved", 0),
        (b"\x92\x01\xc1", "reserved", 2),
        (b"\x01\x02\x03", "trailing", 1),
        (b"\xa1\xff", "UTF-8", 0),
        (b"\x81\x81\xa1a\x01\x01", "map key", 1),
        (b"\x91" * 1024 + b"\x90", "nested", 1024),
    ],
)
def test_malformed_input(data: bytes, message: str, at: int) -> None:
    for decode in (unpackb, from_msgpack):
        with pytest.raises(MsgpackDecodeError, match=message) as info:
            decode(data)
        assert error_offset(info.value) == at


def test_input_types_and_options() -> None:
    assert from_msgpack(bytearray(b"\x92\x01\x02")) == b"[1,2]"
    assert from_msgpack(memoryview(b"xx\x91\xa1a")[2:]) == b'["a"]'
    for bad in ("\x01", None, 1):
        with pytest.raises(TypeError, match=r"^from_msgpack\(\) argument must be bytes, bytearray"):
            from_msgpack(bad)  # type: ignore[arg-type]
    with pytest.raises(
        TypeError, match=r"^from_msgpack\(\) argument must be a C-contiguous"
    ) as info:
        from_msgpack(memoryview(b"\x91\x01\x91\x01")[::2])
    assert isinstance(info.value.__cause__, BufferError)
    with pytest.raises(TypeError):
        from_msgpack(b"\x01", option="x")  # type: ignore[arg-type]
    for name in ("OPT_SORT_KEYS", "OPT_JSON_COMPAT", "OPT_DATETIME_AS_TIMESTAMP_EXT"):
        with pytest.raises(MsgpackDecodeError, match=name):
            from_msgpack(b"\x01", option=getattr(fastmsgpack, name))


def test_stream_of_objects() -> None:
    data = packb({"a": 1}) + packb([1, 2]) + packb("x")
    assert _json_from_msgpack_at(data, 0) == (b'{"a":1}', 4)
    assert _json_from_msgpack_at(data, 4, OPT_INDENT_2) == (b"[\n  1,\n  2\n]", 7)
    assert _json_from_msgpack_at(data, 7) == (b'"x"', 9)
    with pytest.raises(MsgpackDecodeError) as info:
        _json_from_msgpack_at(data + b"\x92\x01", 9)
    assert error_offset(info.value) == 9


def test_stream_errors_on_the_object_path_count_from_the_stream_start() -> None:
    # Non-str keys send a map through Python objects; its errors still give offsets in the
    # whole stream, as unpackb would on that object alone plus where it starts.
    first = packb([1, 2])
    map_as_key = b"\x81\x81\x01\x02\x03"  # {{1: 2}: 3}
    with pytest.raises(MsgpackDecodeError) as alone:
        unpackb(map_as_key, option=OPT_NON_STR_KEYS)
    with pytest.raises(MsgpackDecodeError, match="map key") as info:
        _json_from_msgpack_at(first + map_as_key, len(first), OPT_NON_STR_KEYS)
    assert error_offset(info.value) == len(first) + error_offset(alone.value)
    keyed = packb({1: "a"}, option=OPT_NON_STR_KEYS)
    assert _json_from_msgpack_at(first + keyed, len(first), OPT_NON_STR_KEYS) == (
        b'{"1":"a"}',
        len(first) + len(keyed),
    )
