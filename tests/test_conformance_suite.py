"""Every case of kawanet/msgpack-test-suite (see DATA/msgpack-test-suite/README.md).

Each listed encoding must decode to the case's value, and packb(value) must be one of the listed
encodings. Timestamps (ext type -1) and application ext types decode to fastmsgpack.Ext.
"""

from __future__ import annotations

import json
import struct
from dataclasses import dataclass
from typing import Any

import pytest
from conftest import DATA, assert_same, hex_to_bytes, oracle_packb

import fastmsgpack

SUITE_FILE = DATA / "msgpack-test-suite" / "dist" / "msgpack-test-suite.json"
VALUE_KEYS = ("nil", "bool", "binary", "number", "bignum", "string", "array", "map")
EXT_KEYS = ("timestamp", "ext")


@dataclass(frozen=True)
class Case:
    group: str
    index: int
    raw: dict[str, Any]

    @property
    def id(self) -> str:
        kind = next(key for key in self.raw if key != "msgpack")
        return f"{self.group.removesuffix('.yaml')}#{self.index}-{kind}"

    @property
    def encodings(self) -> list[str]:
        encodings = self.raw["msgpack"]
        assert isinstance(encodings, list)
        return encodings


def load_cases() -> list[Case]:
    with SUITE_FILE.open(encoding="utf-8") as f:
        suite = json.load(f)
    return [
        Case(group, index, raw) for group, cases in suite.items() for index, raw in enumerate(cases)
    ]


CASES = load_cases()
ENCODINGS = [(case, encoding) for case in CASES for encoding in case.encodings]
ENCODING_IDS = [f"{case.id}:{encoding or 'empty'}"[:60] for case, encoding in ENCODINGS]


def timestamp_payload(seconds: int, nanoseconds: int) -> bytes:
    """The payload of the smallest timestamp 32/64/96 format holding the value (msgpack spec)."""
    if seconds >> 34 == 0:
        data64 = (nanoseconds << 34) | seconds
        if data64 >> 32 == 0:
            return struct.pack(">I", data64)
        return struct.pack(">Q", data64)
    return struct.pack(">Iq", nanoseconds, seconds)


def expected_value(case: Case) -> Any:
    raw = case.raw
    if "bignum" in raw:
        return int(raw["bignum"])
    if "timestamp" in raw:
        seconds, nanoseconds = raw["timestamp"]
        return fastmsgpack.Ext(-1, timestamp_payload(seconds, nanoseconds))
    if "ext" in raw:
        tag, payload = raw["ext"]
        return fastmsgpack.Ext(tag, hex_to_bytes(payload))
    if "binary" in raw:
        return hex_to_bytes(raw["binary"])
    for key in VALUE_KEYS:
        if key in raw:
            return raw[key]
    raise AssertionError(f"case without a known value key: {raw}")


def test_suite_counts() -> None:
    groups = {case.group for case in CASES}
    assert len(groups) == 15
    assert len(CASES) == 85
    assert len(ENCODINGS) == 233


def test_every_case_has_exactly_one_value_kind() -> None:
    for case in CASES:
        kinds = set(case.raw) - {"msgpack"}
        if "bignum" in kinds:
            kinds -= {"number"}
            if "number" in case.raw:
                assert int(case.raw["bignum"]) == case.raw["number"]
        assert len(kinds) == 1, case.raw
        assert kinds <= set(VALUE_KEYS + EXT_KEYS), case.raw
        assert case.encodings, case.raw


@pytest.mark.parametrize("case", [c for c in CASES if "timestamp" in c.raw], ids=lambda c: c.id)
def test_timestamp_payload_is_the_encoded_payload(case: Case) -> None:
    (encoding,) = case.encodings
    data = hex_to_bytes(encoding)
    header = 3 if data[0] == 0xC7 else 2  # ext8 (c7 len type) or fixext4/8 (d6/d7 type)
    assert data[header - 1] == 0xFF  # type -1
    assert expected_value(case) == fastmsgpack.Ext(-1, data[header:])


@pytest.mark.parametrize(("case", "encoding"), ENCODINGS, ids=ENCODING_IDS)
def test_decode(case: Case, encoding: str) -> None:
    data = hex_to_bytes(encoding)
    expected = expected_value(case)
    result = fastmsgpack.unpackb(data)
    if data[0] in (0xCA, 0xCB):
        # float32/float64 encodings listed for integer values: decode to float, compare with ==
        assert type(result) is float
        assert result == expected
    else:
        assert_same(result, expected)


@pytest.mark.parametrize(("case", "encoding"), ENCODINGS, ids=ENCODING_IDS)
def test_decode_from_bytearray_and_memoryview(case: Case, encoding: str) -> None:
    data = hex_to_bytes(encoding)
    from_bytes = fastmsgpack.unpackb(data)
    assert_same(fastmsgpack.unpackb(bytearray(data)), from_bytes)
    assert_same(fastmsgpack.unpackb(memoryview(data)), from_bytes)


@pytest.mark.parametrize("case", CASES, ids=lambda c: c.id)
def test_encode_is_a_listed_encoding(case: Case) -> None:
    value = expected_value(case)
    packed = fastmsgpack.packb(value)
    listed = [hex_to_bytes(encoding) for encoding in case.encodings]
    assert packed in listed, f"{packed.hex('-')} not in {case.encodings}"
    if not isinstance(value, fastmsgpack.Ext):
        assert packed == oracle_packb(value)
    assert_same(fastmsgpack.unpackb(packed), value)
