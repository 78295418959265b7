"""fastmsgpack.Decoder(type=T): the plan for T made once and kept, the call's options fixed."""

from __future__ import annotations

import dataclasses
import gc
import weakref
from typing import Any

import pytest

import fastmsgpack
from fastmsgpack import Decoder, MsgpackDecodeError, ValidationError, packb, unpackb


@dataclasses.dataclass
class Stop:
    id: int
    name: str


@dataclasses.dataclass
class Route:
    stops: list[Stop]
    note: str | None = None


def test_decodes_as_unpackb_does() -> None:
    decoder = Decoder(Route)
    for value in [Route([]), Route([Stop(1, "a"), Stop(2, "b")], "x")]:
        data = packb(value)
        assert decoder.decode(data) == value == unpackb(data, type=Route)
    assert decoder.decode(bytearray(packb(Route([Stop(3, "c")])))) == Route([Stop(3, "c")])
    assert decoder.decode(memoryview(packb(Route([])))) == Route([])
    assert decoder.type is Route
    assert repr(decoder) == f"fastmsgpack.Decoder(type={Route!r})"


def test_generic_aliases() -> None:
    decoder = Decoder(dict[str, list[int]])
    assert decoder.decode(packb({"a": [1, 2]})) == {"a": [1, 2]}
    with pytest.raises(ValidationError) as info:
        decoder.decode(packb({"a": [1, "x"]}))
    assert info.value.path == "$['a'][1]"


def test_errors_as_unpackb_gives_them() -> None:
    decoder = Decoder(Route)
    data = packb({"stops": [{"id": "x", "name": "a"}]})
    with pytest.raises(ValidationError) as ours:
        decoder.decode(data)
    with pytest.raises(ValidationError) as theirs:
        unpackb(data, type=Route)
    assert str(ours.value) == str(theirs.value)
    assert (ours.value.kind, ours.value.path) == ("mismatch", "$.stops[0].id")
    with pytest.raises(MsgpackDecodeError) as malformed:
        decoder.decode(b"\x81\xa5stops\x91\xc1")
    assert (malformed.value.kind, malformed.value.offset) == ("reserved", 8)
    with pytest.raises(TypeError, match="Decoder.decode"):
        decoder.decode("not bytes")  # type: ignore[arg-type]


def test_options_and_hooks_are_fixed_with_the_decoder() -> None:
    data = packb({"stops": [], "extra": 1})
    assert Decoder(Route).decode(data) == Route([])
    strict = Decoder(Route, option=fastmsgpack.OPT_FORBID_UNKNOWN_FIELDS)
    with pytest.raises(ValidationError) as info:
        strict.decode(data)
    assert info.value.kind == "unknown_field"
    seen: list[tuple[int, bytes]] = []

    def ext_hook(tag: int, payload: bytes) -> Any:
        seen.append((tag, payload))
        return payload.decode()

    hooked = Decoder(list[Any], ext_hook=ext_hook)
    assert hooked.decode(packb([fastmsgpack.Ext(7, b"hi")])) == ["hi"]
    assert seen == [(7, b"hi")]


class Money:
    def __init__(self, cents: int) -> None:
        self.cents = cents


def test_dec_hook_is_required_when_made() -> None:
    with pytest.raises(TypeError, match="dec_hook"):
        Decoder(list[Money])

    def dec_hook(tp: type, obj: Any) -> Any:
        assert tp is Money
        return Money(obj)

    decoder = Decoder(list[Money], dec_hook=dec_hook)
    assert [m.cents for m in decoder.decode(packb([1, 2]))] == [1, 2]


def test_invalid_arguments() -> None:
    with pytest.raises(MsgpackDecodeError, match="OPT_SORT_KEYS not valid for Decoder"):
        Decoder(Route, option=fastmsgpack.OPT_SORT_KEYS)
    with pytest.raises(TypeError, match="ext_hook must be callable"):
        Decoder(Route, ext_hook=3)  # type: ignore[call-overload]
    with pytest.raises(TypeError):
        Decoder(object())


def test_a_cycle_through_the_hook_is_collected() -> None:
    class Holder:
        decoder: Decoder[Any] | None = None

        def __call__(self, tp: type, obj: Any) -> Any:
            return Money(obj)

    holder = Holder()
    holder.decoder = Decoder(list[Money], dec_hook=holder)
    ref = weakref.ref(holder)
    del holder
    gc.collect()
    assert ref() is None
