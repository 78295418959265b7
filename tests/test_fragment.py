"""Fragment (MessagePack written verbatim by packb) and json.Fragment (JSON text written verbatim
by json.dumps), against ormsgpack's and orjson's Fragment as oracles."""

from __future__ import annotations

import dataclasses
import gc
import sys
from pathlib import Path
from typing import Any

import orjson
import ormsgpack
import pytest
from conftest import DATA, hex_to_bytes, oracle_packb
from hypothesis import given
from hypothesis import strategies as st

import fastmsgpack
import fastmsgpack.json
from fastmsgpack import Fragment, MsgpackDecodeError, MsgpackEncodeError
from fastmsgpack.json import JSONEncodeError

CRASHERS = sorted((DATA / "shamaton-msgpack-crashers" / "crashers").iterdir())
SUITE = __import__("json").loads(
    (DATA / "msgpack-test-suite" / "dist" / "msgpack-test-suite.json").read_text("utf-8")
)
SUITE_ENCODINGS = sorted(
    {hex_to_bytes(enc) for cases in SUITE.values() for case in cases for enc in case["msgpack"]}
)

# ormsgpack has Fragment from 1.13 on; the version pinned for Python 3.10 (1.12.2) has none, so
# there the oracle's half of these tests has nothing to compare with and fastmsgpack's half runs
# alone.
ORMSGPACK_FRAGMENT: Any = getattr(ormsgpack, "Fragment", None)

DOC = {"id": 7, "name": "route", "stops": [[1.5, 2.5], [3.0, -4.25]], "tags": ["a", "é"]}


@dataclasses.dataclass
class Holder:
    name: str
    body: Any


def test_fragment_stands_wherever_a_value_may() -> None:
    frag = Fragment(fastmsgpack.packb(DOC))
    cases = [
        (frag, DOC),
        ([1, frag, frag], [1, DOC, DOC]),
        ({"a": frag, "b": [frag]}, {"a": DOC, "b": [DOC]}),
        ((frag,), (DOC,)),
        (Holder("x", frag), Holder("x", DOC)),
    ]
    for with_fragment, plain in cases:
        packed = fastmsgpack.packb(with_fragment)
        assert packed == fastmsgpack.packb(plain)
        assert packed == oracle_packb(
            dataclasses.asdict(plain) if isinstance(plain, Holder) else plain
        )


def test_unpackb_gives_back_the_decoded_value() -> None:
    frag = Fragment(fastmsgpack.packb({1: b"\x00"}, option=fastmsgpack.OPT_NON_STR_KEYS))
    packed = fastmsgpack.packb({"cached": frag})
    assert fastmsgpack.unpackb(packed, option=fastmsgpack.OPT_NON_STR_KEYS) == {
        "cached": {1: b"\x00"}
    }


def test_contents_and_repr() -> None:
    frag = Fragment(b"\x92\x01\x02")
    assert frag.contents == b"\x92\x01\x02"
    assert type(frag.contents) is bytes
    assert repr(frag) == "Fragment(b'\\x92\\x01\\x02')"


@pytest.mark.parametrize("kind", [bytearray, memoryview, type("MyBytes", (bytes,), {})])
def test_bytes_like_contents_are_copied_when_made(kind: Any) -> None:
    source = bytearray(b"\x92\x01\x02")
    frag = Fragment(kind(source))
    source[:] = b"\xc1\xc1\xc1"  # what was checked stays what is written
    assert type(frag.contents) is bytes
    assert fastmsgpack.packb([frag]) == b"\x91\x92\x01\x02"


@pytest.mark.parametrize("contents", ["\x01", 1, None, [1], Fragment(b"\x01")])
def test_contents_must_be_bytes(contents: Any) -> None:
    with pytest.raises(TypeError, match="Fragment contents must be bytes"):
        Fragment(contents)


BAD = {
    "empty": (b"", "empty input"),
    "reserved marker": (b"\xc1", "reserved marker"),
    "truncated array": (b"\x92\x01", "truncated"),
    "truncated str": (b"\xa3ab", "truncated"),
    "truncated header": (b"\xcd\x01", "truncated"),
    "huge declared map": (b"\xdf\xff\xff\xff\xff", "truncated"),
    "huge declared bin": (b"\xc6\xff\xff\xff\xff", "truncated"),
    "two objects": (b"\x01\x02", "1 trailing bytes"),
    "invalid utf-8": (b"\xa2\xff\xfe", "not valid UTF-8"),
    "too deep": (b"\x91" * 1025 + b"\x01", "nested deeper than 1024"),
}


@pytest.mark.parametrize("name", list(BAD))
def test_malformed_contents_are_refused_when_made(name: str) -> None:
    contents, message = BAD[name]
    with pytest.raises(MsgpackDecodeError, match=message):
        Fragment(contents)
    # The decoder refuses the same bytes.
    with pytest.raises(MsgpackDecodeError):
        fastmsgpack.unpackb(contents)


def test_nesting_up_to_the_decoders_limit_is_accepted() -> None:
    deep = b"\x91" * 1023 + b"\x01"
    assert Fragment(deep).contents == deep
    assert fastmsgpack.packb(Fragment(deep)) == deep


@pytest.mark.parametrize("path", CRASHERS, ids=lambda p: p.name[:12])
def test_every_crasher_is_refused_like_ormsgpack(path: Path) -> None:
    data = path.read_bytes()
    with pytest.raises(MsgpackDecodeError):
        Fragment(data)
    if ORMSGPACK_FRAGMENT is not None:
        with pytest.raises(ValueError):
            ORMSGPACK_FRAGMENT(data)


@pytest.mark.parametrize("data", SUITE_ENCODINGS, ids=lambda b: b.hex()[:24])
def test_every_valid_encoding_is_accepted_and_written_like_ormsgpack(data: bytes) -> None:
    packed = fastmsgpack.packb({"v": [Fragment(data)]})
    assert packed == b"\x81\xa1v\x91" + data
    if ORMSGPACK_FRAGMENT is not None:
        assert packed == ormsgpack.packb({"v": [ORMSGPACK_FRAGMENT(data)]})


@given(st.binary(max_size=40))
def test_arbitrary_bytes_are_accepted_exactly_when_they_decode(data: bytes) -> None:
    try:
        Fragment(data)
        accepted = True
    except MsgpackDecodeError:
        accepted = False
    try:
        fastmsgpack.unpackb(data, option=fastmsgpack.OPT_NON_STR_KEYS)
    except MsgpackDecodeError as exc:
        if "map key" in str(exc):
            # Refused for what a key is, not for the form: the check does not look at keys,
            # and the decoder stopped before it saw the rest.
            return
        assert not accepted, exc
    else:
        assert accepted


def test_not_a_dict_key_not_json_compat_not_subclassable() -> None:
    frag = Fragment(b"\xa1k")
    with pytest.raises(MsgpackEncodeError, match="dict key"):
        fastmsgpack.packb({frag: 1}, option=fastmsgpack.OPT_NON_STR_KEYS)
    with pytest.raises(MsgpackEncodeError, match="OPT_JSON_COMPAT"):
        fastmsgpack.packb([frag], option=fastmsgpack.OPT_JSON_COMPAT)
    with pytest.raises(JSONEncodeError, match="cannot be written as JSON"):
        fastmsgpack.json.dumps([frag])
    with pytest.raises(TypeError):
        type("Sub", (Fragment,), {})


def test_a_fragment_is_not_given_to_default() -> None:
    calls: list[Any] = []
    frag = Fragment(b"\x01")
    assert fastmsgpack.packb([frag], default=calls.append) == b"\x91\x01"
    assert calls == []


def test_reference_counts_unchanged() -> None:
    contents = fastmsgpack.packb(DOC)
    frag = Fragment(contents)
    before = (sys.getrefcount(contents), sys.getrefcount(frag))
    for _ in range(100):
        fastmsgpack.packb([frag, {"x": frag}])
        with pytest.raises(MsgpackEncodeError):
            fastmsgpack.packb([frag, object()])
        with pytest.raises(MsgpackDecodeError):
            Fragment(b"\x92\x01")
    gc.collect()
    assert (sys.getrefcount(contents), sys.getrefcount(frag)) == before


# json.Fragment: orjson.Fragment's semantics.

JSON_CONTENTS: list[str | bytes] = [
    b'{"x": 1}',
    "[1,2,3]",
    "é",
    b"",
    b"{",  # not checked: written as it is, as orjson writes it
    "  spaced  ",
    b'"\xc3\xa9"',
]


@pytest.mark.parametrize("contents", JSON_CONTENTS)
@pytest.mark.parametrize("layout", ["", "OPT_INDENT_2", "OPT_SORT_KEYS", "OPT_APPEND_NEWLINE"])
def test_json_fragment_like_orjson(contents: str | bytes, layout: str) -> None:
    ours = getattr(fastmsgpack.json, layout) if layout else 0
    theirs = getattr(orjson, layout) if layout else 0
    for wrap in (lambda f: f, lambda f: [1, f], lambda f: {"b": f, "a": [f]}):
        assert fastmsgpack.json.dumps(
            wrap(fastmsgpack.json.Fragment(contents)), option=ours
        ) == orjson.dumps(wrap(orjson.Fragment(contents)), option=theirs)


@pytest.mark.parametrize("contents", [1, None, bytearray(b"1"), memoryview(b"1"), "\ud800"])
def test_json_fragment_contents_refused_when_written_like_orjson(contents: Any) -> None:
    frag = fastmsgpack.json.Fragment(contents)  # made without complaint, as in orjson
    assert frag.contents is contents
    with pytest.raises(JSONEncodeError):
        fastmsgpack.json.dumps([frag])
    with pytest.raises(TypeError):
        orjson.dumps([orjson.Fragment(contents)])


def test_json_fragment_is_not_messagepack_nor_a_key() -> None:
    frag = fastmsgpack.json.Fragment(b"1")
    with pytest.raises(MsgpackEncodeError, match="cannot be written as MessagePack"):
        fastmsgpack.packb([frag])
    with pytest.raises(JSONEncodeError, match="dict key"):
        fastmsgpack.json.dumps({frag: 1}, option=fastmsgpack.json.OPT_NON_STR_KEYS)
    assert repr(frag) == "Fragment(b'1')"
    assert repr(fastmsgpack.json.Fragment(3)) == "Fragment(<int>)"  # type: ignore[arg-type]
