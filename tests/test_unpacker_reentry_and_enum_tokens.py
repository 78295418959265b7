"""The native Unpacker refuses a second call while it is unpacking, with a message that says
so; typed decoding of enums whose values are ints or strs refuses bool and float tokens, as
`type=int`, `Literal` and msgspec do."""

from __future__ import annotations

import enum
from typing import Any, Literal

import msgspec
import pytest

import fastmsgpack


@pytest.mark.parametrize("method", ["feed", "unpack", "skip", "next", "tell"])
def test_second_call_while_unpacking_says_so(method: str) -> None:
    unpacker: Any = None
    seen: list[BaseException] = []

    def hook(tag: int, data: bytes) -> Any:
        try:
            if method == "feed":
                unpacker.feed(b"\x01")
            elif method == "next":
                next(unpacker)
            else:
                getattr(unpacker, method)()
        except RuntimeError as exc:
            seen.append(exc)
            raise
        return data

    unpacker = fastmsgpack.Unpacker(ext_hook=hook)
    unpacker.feed(fastmsgpack.packb([fastmsgpack.Ext(1, b"x")]) + b"\x07")
    with pytest.raises(fastmsgpack.MsgpackDecodeError):
        unpacker.unpack()
    assert len(seen) == 1
    message = str(seen[0])
    assert "Already borrowed" not in message
    assert "while this Unpacker is unpacking" in message
    # The Unpacker is usable again once the call is over.
    assert unpacker.unpack() == 7


class Number(enum.IntEnum):
    ZERO = 0
    ONE = 1


class Word(str, enum.Enum):
    A = "a"


class Plain(enum.Enum):
    ONE = 1
    HALF = 0.5


class Flags(enum.IntFlag):
    R = 1
    W = 2


@pytest.mark.parametrize(
    ("tp", "value"),
    [
        (Number, True),
        (Number, False),
        (Number, 1.0),
        (Number, 0.0),
        (Plain, 1.0),
        (Flags, True),
        (Flags, 3.0),
        (int, True),
        (int, 1.0),
        (Literal[1], True),
    ],
    ids=repr,
)
def test_bool_and_float_tokens_are_refused(tp: Any, value: Any) -> None:
    data = fastmsgpack.packb(value)
    with pytest.raises(fastmsgpack.ValidationError):
        fastmsgpack.unpackb(data, type=tp)
    if tp is not Plain:
        with pytest.raises(msgspec.ValidationError):
            msgspec.msgpack.decode(data, type=tp)


@pytest.mark.parametrize(
    ("tp", "value", "member"),
    [
        (Number, 1, Number.ONE),
        (Plain, 1, Plain.ONE),
        (Plain, 0.5, Plain.HALF),
        (Word, "a", Word.A),
        (Flags, 3, Flags.R | Flags.W),
    ],
    ids=repr,
)
def test_values_of_the_members_type_are_accepted(tp: Any, value: Any, member: Any) -> None:
    assert fastmsgpack.unpackb(fastmsgpack.packb(value), type=tp) is member or (
        fastmsgpack.unpackb(fastmsgpack.packb(value), type=tp) == member
    )
    stream = fastmsgpack.Unpacker(type=tp)
    stream.feed(fastmsgpack.packb(value))
    assert stream.unpack() == member
