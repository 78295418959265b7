"""Packing to streams: ``pack(obj, fp)`` and ``Packer`` (``pack``, ``pack_into``).

Every output must be byte for byte what ``packb`` writes with the same ``default`` and option
(and, inside msgpack-python's data model, what msgpack-python writes), whatever the Packer packed
before. ``pack_into`` leaves the bytearray ending exactly at the end of the message, and unchanged
when packing fails.
"""

from __future__ import annotations

import array
import io
import sys
from pathlib import Path
from typing import Any

import msgpack  # type: ignore[import-untyped]
import pytest
from conftest import JSON_PROPERTY, json_values, oracle_packb
from hypothesis import given
from hypothesis import strategies as st

import fastmsgpack
from fastmsgpack import (
    OPT_INDENT_2,
    OPT_JSON_COMPAT,
    OPT_NON_STR_KEYS,
    OPT_SORT_KEYS,
    MsgpackEncodeError,
    Packer,
)

# Values in msgpack-python's data model, with bytes too (json_values has none).
VALUES = st.one_of(json_values(), st.binary(max_size=300), st.lists(st.binary(max_size=40)))
# One Packer for all the examples: each is packed after whatever the previous ones left.
SHARED = Packer()


class Opaque:
    """A type fastmsgpack does not pack: only ``default`` can."""


def as_list(obj: Any) -> Any:
    if isinstance(obj, Opaque):
        return ["opaque"]
    raise TypeError(type(obj).__name__)


def refuse(obj: Any) -> Any:
    raise ValueError("refused by default")


@JSON_PROPERTY
@given(VALUES)
def test_pack_is_packb(value: Any) -> None:
    expected = fastmsgpack.packb(value)
    assert expected == oracle_packb(value)
    assert SHARED.pack(value) == expected
    stream = io.BytesIO()
    assert fastmsgpack.pack(value, stream) is None  # type: ignore[func-returns-value]
    assert stream.getvalue() == expected


@JSON_PROPERTY
@given(VALUES, st.binary(max_size=64), st.data())
def test_pack_into_keeps_the_prefix_and_ends_with_the_message(
    value: Any, prefix: bytes, data: st.DataObject
) -> None:
    offset = data.draw(st.integers(0, len(prefix)))
    buffer = bytearray(prefix)
    assert SHARED.pack_into(value, buffer, offset) is None  # type: ignore[func-returns-value]
    assert buffer == prefix[:offset] + fastmsgpack.packb(value)


@pytest.mark.parametrize(
    "option",
    [OPT_SORT_KEYS, OPT_NON_STR_KEYS, OPT_JSON_COMPAT, OPT_SORT_KEYS | OPT_JSON_COMPAT],
    ids=["sort", "non-str", "json-compat", "sort|json-compat"],
)
def test_default_and_option_are_those_given_at_construction(option: int) -> None:
    value = {"b": [Opaque(), 1.5], "a": (None, "x")}
    if option & OPT_NON_STR_KEYS:
        value[1] = b"k"  # type: ignore[index]
    packer = Packer(default=as_list, option=option)
    expected = fastmsgpack.packb(value, default=as_list, option=option)
    for _ in range(3):
        assert packer.pack(value) == expected
        buffer = bytearray(b"?")
        packer.pack_into(value, buffer, 1)
        assert buffer == b"?" + expected
        stream = io.BytesIO()
        fastmsgpack.pack(value, stream, as_list, option)
        assert stream.getvalue() == expected


# Outputs from 1 byte to 5 MB, in an order that makes every kept size wrong for the next one,
# around the 1 KiB start and the 1 MiB limit of the kept buffer.
SIZES = [1, 5_000_000, 3, 2**20 - 8, 2**20 + 8, 2_000, 900, 70_000, 1, 5_000_000, 1_100, 2**20]


def _of_size(n: int) -> Any:
    """A value whose packed form is about ``n`` bytes: a list of strings and ints."""
    return [("x" * 90) if i % 2 else i for i in range(max(1, n // 50))]


@pytest.mark.parametrize("method", ["pack", "pack_into"])
def test_big_small_big(method: str) -> None:
    packer = Packer()
    buffer = bytearray()
    for n in SIZES * 2:
        value = _of_size(n)
        expected = fastmsgpack.packb(value)
        if method == "pack":
            assert packer.pack(value) == expected
        else:
            packer.pack_into(value, buffer)
            assert buffer == expected


def test_pack_into_offsets() -> None:
    packer = Packer()
    message = fastmsgpack.packb({"k": [1, 2, 3]})
    cases = [
        (b"", 0),  # empty
        (b"abc", 0),  # too long: everything after the offset goes
        (b"abc", 1),  # middle
        (b"abc", 3),  # end: appends
        (b"x" * 1000, 500),
        (b"x" * 3, 3),  # too short for the message
    ]
    for prefix, offset in cases:
        buffer = bytearray(prefix)
        packer.pack_into({"k": [1, 2, 3]}, buffer, offset)
        assert buffer == prefix[:offset] + message
        assert len(buffer) == offset + len(message)
    buffer = bytearray(b"abc")
    packer.pack_into(1, buffer, offset=3)
    assert buffer == b"abc\x01"


def test_pack_into_appends_messages_one_after_another() -> None:
    packer = Packer()
    buffer = bytearray()
    values = [{"i": i, "s": "v" * i} for i in range(200)]
    for value in values:
        packer.pack_into(value, buffer, len(buffer))
    assert list(msgpack.Unpacker(io.BytesIO(buffer), raw=False)) == values


@pytest.mark.parametrize("offset", [-1, -100, 4, 10**6])
def test_pack_into_refuses_offsets_outside_the_bytearray(offset: int) -> None:
    buffer = bytearray(b"abc")
    with pytest.raises(ValueError, match="offset"):
        Packer().pack_into(1, buffer, offset)
    assert buffer == b"abc"


@pytest.mark.parametrize(
    "target",
    [b"abc", memoryview(bytearray(8)), [], None, "abc", array.array("B", [0])],
    ids=["bytes", "memoryview", "list", "None", "str", "array"],
)
def test_pack_into_needs_a_bytearray(target: Any) -> None:
    with pytest.raises(TypeError, match="buffer must be a bytearray"):
        Packer().pack_into(1, target)


def test_pack_into_a_bytearray_subclass() -> None:
    class Buffer(bytearray):
        pass

    buffer = Buffer(b"ab")
    Packer().pack_into([1], buffer, 1)
    assert type(buffer) is Buffer
    assert buffer == b"a\x91\x01"


def test_pack_into_an_exported_bytearray() -> None:
    buffer = bytearray(b"abcd")
    view = memoryview(buffer)
    with pytest.raises(BufferError):  # it cannot change size while a view is held
        Packer().pack_into([1, 2], buffer, 2)
    assert buffer == b"abcd"
    Packer().pack_into([1, 2], buffer, 1)  # the same size: written in place
    assert view.tobytes() == b"a\x92\x01\x02"
    view.release()


@pytest.mark.parametrize("size", [10, 3_000_000], ids=["in-buffer", "outgrown"])
def test_a_failed_call_changes_nothing_and_the_packer_goes_on(size: int) -> None:
    packer = Packer(default=refuse)
    failing = [_of_size(size), Opaque()]
    for _ in range(3):
        buffer = bytearray(b"keep")
        with pytest.raises(MsgpackEncodeError) as info:
            packer.pack_into(failing, buffer, 2)
        assert isinstance(info.value.__cause__, ValueError)
        assert buffer == b"keep"
        with pytest.raises(MsgpackEncodeError):
            packer.pack(failing)
        assert packer.pack([1, "a"]) == b"\x92\x01\xa1a"
        packer.pack_into([1, "a"], buffer, 2)
        assert buffer == b"ke\x92\x01\xa1a"


def test_pack_into_a_bytearray_that_default_changes() -> None:
    buffer = bytearray(b"0123456789")

    def grow(obj: Any) -> Any:
        buffer.extend(b"-more")
        return "x"

    def shorten(obj: Any) -> Any:
        del buffer[2:]
        return "x"

    Packer(default=grow).pack_into([Opaque()], buffer, 4)
    assert buffer == b"0123\x91\xa1x"
    buffer[:] = b"0123456789"
    with pytest.raises(ValueError, match="past the end"):
        Packer(default=shorten).pack_into([Opaque()], buffer, 4)
    assert buffer == b"01"


def test_pack_into_a_bytearray_that_is_packed() -> None:
    buffer = bytearray(b"abc")
    Packer().pack_into([buffer, 1], buffer, 3)
    assert buffer == b"abc" + fastmsgpack.packb([b"abc", 1])


@pytest.mark.parametrize(
    ("kwargs", "error", "match"),
    [
        ({"option": 1 << 40}, MsgpackEncodeError, "unknown bits 0x10000000000"),
        ({"option": 1 << 30}, MsgpackEncodeError, "unknown option bits 0x40000000"),
        ({"option": OPT_INDENT_2}, MsgpackEncodeError, "OPT_INDENT_2 not valid for Packer"),
        ({"option": "1"}, MsgpackEncodeError, "option must be an int or None, not str"),
        ({"option": True}, MsgpackEncodeError, "option must be an int or None, not bool"),
        ({"default": 5}, TypeError, "default must be callable or None, not int"),
    ],
)
def test_invalid_arguments_raise_at_construction(
    kwargs: dict[str, Any], error: type[Exception], match: str
) -> None:
    with pytest.raises(error, match=match):
        Packer(**kwargs)


def test_signatures() -> None:
    with pytest.raises(TypeError):
        Packer(None)  # type: ignore[call-arg]
    with pytest.raises(TypeError):
        Packer().pack(obj=1)  # type: ignore[call-arg]
    with pytest.raises(TypeError):
        Packer().pack_into(1, buffer=bytearray())  # type: ignore[call-arg]
    with pytest.raises(TypeError):

        class Sub(Packer):  # type: ignore[misc]
            pass


def test_pack_to_a_real_file(tmp_path: Path) -> None:
    values = [{"n": i, "blob": bytes(i % 7) * 1000, "f": i / 3} for i in range(50)]
    path = tmp_path / "messages.msgpack"
    with path.open("wb") as fp:
        for value in values:
            fastmsgpack.pack(value, fp)
    assert path.read_bytes() == b"".join(map(oracle_packb, values))
    with path.open("rb") as fp:
        assert list(msgpack.Unpacker(fp, raw=False)) == values


def test_pack_calls_write_once_with_the_bytes() -> None:
    calls: list[Any] = []

    class Recorder:
        def write(self, data: Any) -> str:
            calls.append(data)
            return "ignored"

    value = _of_size(3_000_000)
    fastmsgpack.pack(value, Recorder())
    assert len(calls) == 1
    assert type(calls[0]) is bytes
    assert calls[0] == fastmsgpack.packb(value)


def test_pack_propagates_what_write_raises() -> None:
    class Full:
        def write(self, data: bytes) -> int:
            raise OSError(28, "No space left on device")

    with pytest.raises(OSError, match="No space left"):
        fastmsgpack.pack([1], Full())
    with pytest.raises(TypeError):  # a text stream refuses bytes
        fastmsgpack.pack([1], io.StringIO())  # type: ignore[arg-type]


def test_pack_checks_fp_and_option_before_packing() -> None:
    packed: list[Any] = []

    def spy(obj: Any) -> Any:
        packed.append(obj)
        return 1

    with pytest.raises(TypeError, match=r"fp must have a write\(\) method.*int has none"):
        fastmsgpack.pack(Opaque(), 5, spy)  # type: ignore[arg-type]
    stream = io.BytesIO()
    with pytest.raises(MsgpackEncodeError, match="not valid for pack"):
        fastmsgpack.pack(Opaque(), stream, spy, OPT_INDENT_2)
    assert packed == []
    assert stream.getvalue() == b""
    with pytest.raises(MsgpackEncodeError):
        fastmsgpack.pack(Opaque(), stream)
    assert stream.getvalue() == b""


def test_pack_writes_large_outputs() -> None:
    value = _of_size(20_000_000)
    stream = io.BytesIO()
    # Compared with the count before rather than a number: what getrefcount counts of its own
    # argument changed in Python 3.14.
    before = sys.getrefcount(stream)
    fastmsgpack.pack(value, stream)
    assert stream.getvalue() == fastmsgpack.packb(value)
    assert sys.getrefcount(stream) == before
