"""fastmsgpack.compat packing against msgpack-python as the oracle (byte-identical output or the
same exception class), its types, and the common idioms of code written for msgpack-python."""

from __future__ import annotations

import codecs
import collections
import datetime
import enum
import itertools
import threading
from typing import Any

import msgpack  # type: ignore[import-untyped]
import pytest
from conftest import examples
from hypothesis import given, settings
from hypothesis import strategies as st

from fastmsgpack import compat

Point = collections.namedtuple("Point", "x y")


class Color(enum.IntEnum):
    RED = 1


class Name(str):
    pass


UTC = datetime.timezone.utc
scalars = (
    st.none()
    | st.booleans()
    | st.integers(min_value=-(2**64), max_value=2**65)
    | st.floats()
    | st.text(max_size=40)
    | st.text(min_size=30, max_size=300)
    | st.binary(max_size=300)
    | st.builds(Point, st.integers(), st.text(max_size=3))
    | st.sampled_from([Color.RED, Name("n"), 1 + 2j])
    | st.datetimes(timezones=st.sampled_from([UTC, None]))
)
keys = st.text(max_size=10) | st.binary(max_size=10) | st.integers(-5, 5) | st.booleans()
values = st.recursive(
    scalars,
    lambda inner: (
        st.lists(inner, max_size=5)
        | st.tuples(inner, inner)
        | st.dictionaries(keys, inner, max_size=5)
    ),
    max_leaves=25,
)
PACK_OPTIONS = [
    dict(zip(("strict_types", "datetime", "autoreset", "use_bin_type", "use_single_float"), combo))
    for combo in itertools.product((False, True), repeat=5)
]


def packed(module: Any, value: Any, **options: Any) -> Any:
    try:
        packer = module.Packer(**options)
        out = packer.pack(value)
        return out if options.get("autoreset", True) else packer.bytes()
    except Exception as exc:  # noqa: BLE001
        return type(exc).__name__


@settings(max_examples=examples(80), deadline=None)
@given(values)
def test_every_option_combination_packs_the_same_bytes(value: Any) -> None:
    for options in PACK_OPTIONS:
        assert packed(compat, value, **options) == packed(msgpack, value, **options), options


@given(values)
def test_packb_is_the_default_packer(value: Any) -> None:
    assert packed(compat, value) == packed(msgpack, value)


def test_default_is_called_and_its_errors_pass_through() -> None:
    class Money:
        pass

    assert compat.packb(Money(), default=lambda o: "money") == msgpack.packb("money")
    with pytest.raises(ZeroDivisionError):
        compat.packb([Money()], default=lambda o: 1 / 0)
    with pytest.raises(TypeError):
        compat.packb(Money())
    with pytest.raises(compat.PackOverflowError):
        compat.packb(2**64)


def test_headers_pairs_ext_and_buffer_match_msgpack() -> None:
    for module in (compat, msgpack):
        assert module.Packer().pack_array_header(70000) == msgpack.Packer().pack_array_header(70000)
    for n in (3, 300, 70000):
        assert compat.Packer().pack_map_header(n) == msgpack.Packer().pack_map_header(n)
        assert compat.Packer().pack_array_header(n) == msgpack.Packer().pack_array_header(n)
    pairs = [("a", 1), (2, [3])]
    assert compat.Packer().pack_map_pairs(pairs) == msgpack.Packer().pack_map_pairs(pairs)
    for size in (1, 2, 3, 8, 16, 17, 300, 70000):
        data = b"x" * size
        assert compat.Packer().pack_ext_type(5, data) == msgpack.Packer().pack_ext_type(5, data)
    ours, theirs = compat.Packer(autoreset=False), msgpack.Packer(autoreset=False)
    for p in (ours, theirs):
        p.pack([1, 2])
        p.pack_map_header(1)
        p.pack("k")
        p.pack(None)
    assert ours.bytes() == theirs.bytes() == bytes(ours.getbuffer())
    ours.reset()
    assert ours.bytes() == b""


def test_timestamp_and_ext_type_round_trip() -> None:
    ts = compat.Timestamp(1_700_000_000, 123_456_789)
    assert compat.packb(ts) == msgpack.packb(msgpack.Timestamp(1_700_000_000, 123_456_789))
    assert compat.unpackb(compat.packb(ts)) == ts
    for seconds in (0, 2**32 - 1, 2**32, 2**34, -1, -(2**40)):
        for nanos in (0, 1, 999_999_999):
            ours, theirs = compat.Timestamp(seconds, nanos), msgpack.Timestamp(seconds, nanos)
            assert ours.to_bytes() == theirs.to_bytes()
            assert compat.Timestamp.from_bytes(theirs.to_bytes()) == ours
            assert ours.to_unix_nano() == theirs.to_unix_nano()
            assert ours.to_unix() == theirs.to_unix()
            if abs(seconds) < 2**35:
                assert ours.to_datetime() == theirs.to_datetime()
    assert compat.Timestamp.from_unix(1.5) == compat.Timestamp(1, 500_000_000)
    assert compat.Timestamp.from_unix_nano(-1) == compat.Timestamp(-1, 999_999_999)
    dt = datetime.datetime(2024, 5, 6, 7, 8, 9, 10, tzinfo=UTC)
    assert (
        compat.Timestamp.from_datetime(dt).to_bytes()
        == msgpack.Timestamp.from_datetime(dt).to_bytes()
    )
    ext = compat.ExtType(3, b"ab")
    assert ext.code == 3 and ext.data == b"ab" and tuple(ext) == (3, b"ab")
    assert compat.unpackb(compat.packb(ext)) == ext
    with pytest.raises(ValueError):
        compat.ExtType(128, b"")
    assert issubclass(compat.FormatError, compat.UnpackException)
    assert issubclass(compat.FormatError, ValueError)
    assert issubclass(compat.ExtraData, ValueError)
    assert compat.PackValueError is ValueError and compat.PackException is Exception


def test_default_errors_pass_through_nested_calls_and_threads() -> None:
    class Inner:
        pass

    class Outer:
        pass

    def nested(obj: Any) -> Any:
        try:
            compat.packb(Inner(), default=lambda o: 1 / 0)
        except ZeroDivisionError:
            return "recovered"
        raise AssertionError("the inner default's error was not passed on")

    assert compat.packb([Outer()], default=nested) == msgpack.packb(["recovered"])

    def check(results: list[bool]) -> None:
        def fails(obj: Any) -> Any:
            raise IndexError(obj)

        for _ in range(200):
            try:
                compat.packb(Outer(), default=fails)
            except IndexError:
                results.append(True)
            assert compat.packb({"a": (1, 2)}) == b"\x81\xa1a\x92\x01\x02"

    results: list[bool] = []
    threads = [threading.Thread(target=check, args=(results,)) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert len(results) == 800


def stars(error: UnicodeError) -> tuple[str, int]:
    assert isinstance(error, UnicodeEncodeError)
    return "*" * (error.end - error.start), error.end


codecs.register_error("fastmsgpack-test-stars", stars)

# Every handler the codecs module has, one registered here, and names msgpack-python takes
# without complaint until a str needs them (unknown, empty, cut at a NUL), or refuses at once.
HANDLERS: list[Any] = [
    None,
    "strict",
    "replace",
    "ignore",
    "surrogateescape",
    "surrogatepass",
    "backslashreplace",
    "xmlcharrefreplace",
    "namereplace",
    "fastmsgpack-test-stars",
    b"surrogatepass",
    "no-such-handler",
    "",
    "ignore\0trailing",
    "ignor\xe9",
    1,
]
SURROGATES = [
    "a\ud800b\udcffc\U0001f600",
    "\udc80\udcff",
    {"k\ud83d": ["\ud800", "fine", {"\udfff": 1}]},
    ["é\ud83d", "plain"],
    "plain",
]


@pytest.mark.parametrize("handler", HANDLERS, ids=repr)
def test_unicode_errors_encode_as_msgpack(handler: Any) -> None:
    for value in SURROGATES:
        for options in (
            {},
            {"use_bin_type": False},
            {"use_single_float": True},
            {"buf_size": 4096},
        ):
            kwargs = {"unicode_errors": handler, **options}
            assert packed(compat, value, **kwargs) == packed(msgpack, value, **kwargs), kwargs


def test_unicode_errors_raise_what_the_handler_raises() -> None:
    with pytest.raises(LookupError):
        compat.packb("\ud800", unicode_errors="no-such-handler")
    with pytest.raises(UnicodeEncodeError):
        compat.packb(["\ud800"], unicode_errors="surrogateescape")
    assert compat.packb("ok", unicode_errors="no-such-handler") == b"\xa2ok"


BUF_SIZES: list[Any] = [0, 1, 1024, 1025, 5000, 2**20, True, 2.5, -1, -(2**63), 2**64, 2**70]
BUF_SIZES += [None, "10"]


@pytest.mark.parametrize("buf_size", BUF_SIZES, ids=repr)
def test_buf_size_is_checked_as_msgpack_and_changes_no_byte(buf_size: Any) -> None:
    for value in ([1.5, "x" * 3000, b"y" * 70000, {"k": list(range(2000))}], "small"):
        for options in ({}, {"use_bin_type": False}, {"autoreset": False}):
            kwargs = {"buf_size": buf_size, **options}
            assert packed(compat, value, **kwargs) == packed(msgpack, value, **kwargs), kwargs
