"""Arguments are checked at the call, with one rule and one message at every entry point: a hook
that is not callable is a TypeError naming the argument, and an option that only a typed read
takes is refused without type=, as other misplaced options are."""

from __future__ import annotations

import io
from collections.abc import Callable
from typing import Any

import pytest

import fastmsgpack
import fastmsgpack.json
from fastmsgpack import (
    OPT_FORBID_UNKNOWN_FIELDS,
    Decoder,
    MsgpackDecodeError,
    MsgpackEncodeError,
    Packer,
    Unpacker,
)

NOT_CALLABLE = [5, "f", b"x"]


@pytest.mark.parametrize("bad", NOT_CALLABLE, ids=["int", "str", "bytes"])
def test_default_checked_at_the_call_everywhere(bad: Any) -> None:
    name = type(bad).__name__
    message = f"default must be callable or None, not {name}"
    calls: list[Callable[[], object]] = [
        lambda: fastmsgpack.packb(1, default=bad),
        lambda: fastmsgpack.packb(object(), default=bad),
        lambda: fastmsgpack.packb(1, bad),
        lambda: fastmsgpack.pack(1, io.BytesIO(), default=bad),
        lambda: Packer(default=bad),
        lambda: fastmsgpack.json.dumps(1, default=bad),
    ]
    for call in calls:
        with pytest.raises(TypeError) as info:
            call()
        assert str(info.value) == message
        # Not an encode error: the argument, not the value, is wrong.
        assert not isinstance(info.value, MsgpackEncodeError)


@pytest.mark.parametrize("hook", ["ext_hook", "dec_hook"])
def test_read_hooks_checked_at_the_call_everywhere(hook: str) -> None:
    data = fastmsgpack.packb([1])
    message = f"{hook} must be callable or None, not int"
    bad: dict[str, Any] = {hook: 5}
    calls: list[Callable[[], object]] = [
        lambda: fastmsgpack.unpackb(data, **bad),
        lambda: fastmsgpack.unpackb(data, type=list[int], **bad),
        lambda: fastmsgpack.unpack(io.BytesIO(data), **bad),
        lambda: Unpacker(**bad),
        lambda: Decoder(list[int], **bad),
        lambda: fastmsgpack.View(data, **bad),
    ]
    for call in calls:
        with pytest.raises(TypeError) as info:
            call()
        assert str(info.value) == message


def test_buffer_callback_checked_with_the_same_message() -> None:
    five: Any = 5
    calls: list[Callable[[], object]] = [
        lambda: fastmsgpack.packb(1, buffer_callback=five),
        lambda: Packer(buffer_callback=five),
    ]
    for call in calls:
        with pytest.raises(TypeError) as info:
            call()
        assert str(info.value) == "buffer_callback must be callable or None, not int"


def test_none_is_no_hook() -> None:
    assert fastmsgpack.packb(1, default=None) == b"\x01"
    assert fastmsgpack.unpackb(b"\x01", ext_hook=None, dec_hook=None) == 1


def test_typed_only_option_refused_without_type() -> None:
    data = b"\x01"
    calls: dict[str, Callable[[], object]] = {
        "unpackb": lambda: fastmsgpack.unpackb(data, option=OPT_FORBID_UNKNOWN_FIELDS),
        "unpack": lambda: fastmsgpack.unpack(io.BytesIO(data), option=OPT_FORBID_UNKNOWN_FIELDS),
        "Unpacker": lambda: Unpacker(option=OPT_FORBID_UNKNOWN_FIELDS),
        "View": lambda: fastmsgpack.View(data, option=OPT_FORBID_UNKNOWN_FIELDS),
    }
    calls["unpackb(type=None)"] = lambda: fastmsgpack.unpackb(
        data, type=None, option=OPT_FORBID_UNKNOWN_FIELDS
    )
    for label, call in calls.items():
        name = label.split("(")[0]
        with pytest.raises(MsgpackDecodeError) as info:
            call()
        assert str(info.value) == (
            f"invalid option: OPT_FORBID_UNKNOWN_FIELDS not valid for {name} without type="
        )
        assert info.value.kind == "invalid_option"
    # The same error class and kind as any other misplaced option.
    with pytest.raises(MsgpackDecodeError) as other:
        fastmsgpack.unpackb(data, option=fastmsgpack.OPT_SORT_KEYS)
    assert other.value.kind == "invalid_option"
    # With type= it is taken.
    assert fastmsgpack.unpackb(data, type=int, option=OPT_FORBID_UNKNOWN_FIELDS) == 1
    assert fastmsgpack.unpackb(data, type=None, option=0) == 1
