"""Map keys: str only by default, OPT_NON_STR_KEYS both ways, OPT_SORT_KEYS, duplicates, caching."""

from __future__ import annotations

from typing import Any

import msgpack  # type: ignore[import-untyped]
import msgspec
import pytest
from conftest import assert_same, oracle_packb

import fastmsgpack
from fastmsgpack import OPT_NON_STR_KEYS, OPT_SORT_KEYS, Ext, MsgpackDecodeError, MsgpackEncodeError


class StrKey(str):
    pass


# --- str keys ---------------------------------------------------------------------------------


def test_str_keys() -> None:
    doc = {"": 0, "a": 1, "\u00e9t\u00e9": 2, "\U0001f37a": 3, "k" * 40: 4, "x" * 300: 5}
    packed = fastmsgpack.packb(doc)
    assert packed == oracle_packb(doc)
    assert_same(fastmsgpack.unpackb(packed), doc)


NON_STR_KEYS: list[Any] = [1, -1, 2**64 - 1, None, True, False, 1.5, b"bin", ("t", 1), StrKey("s")]


@pytest.mark.parametrize("key", NON_STR_KEYS, ids=repr)
def test_non_str_key_rejected_without_option(key: Any) -> None:
    with pytest.raises(MsgpackEncodeError):
        fastmsgpack.packb({key: 1})
    with pytest.raises(MsgpackEncodeError):
        fastmsgpack.packb([{"ok": 1, key: 2}])


@pytest.mark.parametrize("key", NON_STR_KEYS, ids=repr)
def test_non_str_key_packed_natively_with_option(key: Any) -> None:
    doc = {"first": 0, key: "value"}
    assert fastmsgpack.packb(doc, option=OPT_NON_STR_KEYS) == oracle_packb(doc)


def test_nested_tuple_keys() -> None:
    doc = {(1, ("a", (None, b"x", 2.5, True))): 1, (): 2}
    packed = fastmsgpack.packb(doc, option=OPT_NON_STR_KEYS)
    assert packed == oracle_packb(doc)
    assert_same(fastmsgpack.unpackb(packed, option=OPT_NON_STR_KEYS), doc)


# The ids are the same in every process (pytest-xdist's workers must collect the same ids).
@pytest.mark.parametrize(
    "key", [frozenset({1}), (1, frozenset()), object()], ids=["frozenset", "tuple", "object"]
)
def test_unsupported_key_types_rejected_with_option(key: Any) -> None:
    with pytest.raises(MsgpackEncodeError):
        fastmsgpack.packb({key: 1}, option=OPT_NON_STR_KEYS)


def test_non_str_keys_round_trip() -> None:
    doc = {None: 1, True: 2, 3: 3, -4: 4, 5.5: 5, b"six": 6, (7, (8, "9")): 7, "s": 8}
    packed = fastmsgpack.packb(doc, option=OPT_NON_STR_KEYS)
    assert packed == oracle_packb(doc)
    assert_same(fastmsgpack.unpackb(packed, option=OPT_NON_STR_KEYS), doc)


# --- decoding non-str keys --------------------------------------------------------------------


def test_decode_non_str_keys_with_option() -> None:
    expected = {None: "n", True: "t", 2: "i", 1.5: "f", b"b": "b", (1, (2, (3,))): "a"}
    encoded = oracle_packb(expected)  # tuples are packed as arrays
    assert encoded.endswith(bytes([0x92, 0x01, 0x92, 0x02, 0x91, 0x03, 0xA1]) + b"a")
    result = fastmsgpack.unpackb(encoded, option=OPT_NON_STR_KEYS)
    assert_same(result, expected)


def test_decode_ext_key_with_option() -> None:
    key = msgspec.msgpack.encode(msgspec.msgpack.Ext(-3, b"key"))
    encoded = b"\x81" + key + oracle_packb([1, [2]])
    result = fastmsgpack.unpackb(encoded, option=OPT_NON_STR_KEYS)
    assert_same(result, {Ext(-3, b"key"): [1, [2]]})


def test_array_key_values_stay_lists() -> None:
    encoded = oracle_packb({(1, 2): [1, 2]})
    result = fastmsgpack.unpackb(encoded, option=OPT_NON_STR_KEYS)
    assert_same(result, {(1, 2): [1, 2]})


@pytest.mark.parametrize(
    "key", [1, None, True, 1.5, b"b", (1, 2)], ids=["int", "nil", "bool", "float", "bin", "array"]
)
def test_decode_non_str_key_without_option_is_error(key: Any) -> None:
    encoded = oracle_packb({"ok": 0, key: 1})
    with pytest.raises(MsgpackDecodeError):
        fastmsgpack.unpackb(encoded)
    with pytest.raises(MsgpackDecodeError):
        fastmsgpack.unpackb(oracle_packb([{key: 1}]))


def test_decode_ext_key_without_option_is_error() -> None:
    encoded = b"\x81" + msgspec.msgpack.encode(msgspec.msgpack.Ext(1, b"k")) + b"\x01"
    with pytest.raises(MsgpackDecodeError):
        fastmsgpack.unpackb(encoded)


@pytest.mark.parametrize(
    "encoded_key",
    [b"\x80", b"\x81\xa1a\x01", b"\x91\x80", b"\x92\x01\x81\xa1a\x02"],
    ids=["empty-map", "map", "array-of-map", "array-with-map"],
)
@pytest.mark.parametrize("option", [None, OPT_NON_STR_KEYS], ids=["default", "non_str_keys"])
def test_unhashable_key_is_decode_error(encoded_key: bytes, option: int | None) -> None:
    with pytest.raises(MsgpackDecodeError):
        fastmsgpack.unpackb(b"\x81" + encoded_key + b"\x01", option=option)


# --- sort keys --------------------------------------------------------------------------------

SORT_SAMPLE = {
    "b": 1,
    "a": 2,
    "B": 3,
    "": 4,
    "aa": 5,
    "a\x00": 6,
    "\u00e9": 7,
    "\uffff": 8,
    "\U0001f600": 9,
    "\ue000": 10,
    "z": 11,
    "\u0100": 12,
}


def sorted_recursively(obj: Any) -> Any:
    if isinstance(obj, dict):
        return {k: sorted_recursively(obj[k]) for k in sorted(obj)}
    if isinstance(obj, list):
        return [sorted_recursively(v) for v in obj]
    return obj


def test_sort_keys_code_point_order() -> None:
    packed = fastmsgpack.packb(SORT_SAMPLE, option=OPT_SORT_KEYS)
    assert packed == oracle_packb(sorted_recursively(SORT_SAMPLE))
    keys = list(fastmsgpack.unpackb(packed))
    assert keys == sorted(SORT_SAMPLE)
    # code point order, which differs from UTF-16 code unit order for these two:
    assert keys.index("\uffff") < keys.index("\U0001f600")
    assert keys.index("\ue000") < keys.index("\U0001f600")


def test_sort_keys_nested() -> None:
    doc = {"z": [{"y": 1, "x": {"q": 1, "p": 2}}], "a": {"d": 1, "c": 2}}
    packed = fastmsgpack.packb(doc, option=OPT_SORT_KEYS)
    assert packed == oracle_packb(sorted_recursively(doc))
    assert fastmsgpack.packb(doc) == oracle_packb(doc)  # without the option: insertion order


def test_sort_keys_with_non_str_keys_option_but_str_keys() -> None:
    option = OPT_SORT_KEYS | OPT_NON_STR_KEYS
    assert fastmsgpack.packb(SORT_SAMPLE, option=option) == oracle_packb(
        sorted_recursively(SORT_SAMPLE)
    )


@pytest.mark.parametrize("key", [1, None, b"x", (1,)], ids=repr)
def test_sort_keys_with_non_str_keys_is_error(key: Any) -> None:
    with pytest.raises(MsgpackEncodeError):
        fastmsgpack.packb({"a": 1, key: 2}, option=OPT_SORT_KEYS | OPT_NON_STR_KEYS)
    with pytest.raises(MsgpackEncodeError):
        fastmsgpack.packb({key: 2}, option=OPT_SORT_KEYS | OPT_NON_STR_KEYS)  # nothing to sort
    with pytest.raises(MsgpackEncodeError):
        fastmsgpack.packb({key: 2}, option=OPT_SORT_KEYS)


# --- duplicates and key caching ---------------------------------------------------------------


def test_duplicate_keys_last_wins() -> None:
    encoded = b"\x83" + b"".join(
        fastmsgpack.packb(k) + fastmsgpack.packb(v) for k, v in [("a", 1), ("b", 2), ("a", 3)]
    )
    result = fastmsgpack.unpackb(encoded)
    assert result == {"a": 3, "b": 2}
    assert list(result) == ["a", "b"]
    assert result == msgpack.unpackb(encoded)


def test_duplicate_non_str_keys_last_wins() -> None:
    pairs = [(1, "one"), (2, "two"), (1, "uno"), ((1, 2), "t"), ((1, 2), "tt")]
    encoded = b"\x85" + b"".join(oracle_packb(k) + oracle_packb(v) for k, v in pairs)
    result = fastmsgpack.unpackb(encoded, option=OPT_NON_STR_KEYS)
    assert result == {1: "uno", 2: "two", (1, 2): "tt"}


def test_many_distinct_short_keys_decode_correctly() -> None:
    keys = [f"k{i}" for i in range(5000)] + [chr(0x100 + i) for i in range(500)]
    doc = {k: i for i, k in enumerate(keys)}
    packed = fastmsgpack.packb(doc)
    for _ in range(3):
        result = fastmsgpack.unpackb(packed)
        assert_same(result, doc)
    # Same-length keys that differ in one byte, decoded right after each other.
    for i in range(200):
        key = f"{i:04d}"
        assert fastmsgpack.unpackb(fastmsgpack.packb({key: i})) == {key: i}


def test_cached_keys_equal_fresh_strings() -> None:
    first = fastmsgpack.unpackb(fastmsgpack.packb({"status": 1, "id": 2}))
    second = fastmsgpack.unpackb(fastmsgpack.packb({"status": 3, "id": 4}))
    assert list(first) == list(second) == ["status", "id"]
    assert all(type(k) is str for k in [*first, *second])
    assert hash(next(iter(second))) == hash("status")


@pytest.mark.parametrize(
    "keys",
    [
        [f"field{i}" for i in range(10)],
        [f"attribute_{c}" for c in "abcdefghij"],
        [str(138586341 + i) for i in range(10)],
    ],
    ids=["field0-9", "attribute_a-j", "numeric-ids"],
)
def test_repeated_keys_are_reused_across_calls(keys: list[str]) -> None:
    # Keys that differ only near their end, decoded twice: the second call gets the very
    # objects the first made (from the key cache), not a fresh str per key per call.
    packed = fastmsgpack.packb({k: i for i, k in enumerate(keys)})
    first = fastmsgpack.unpackb(packed)
    second = fastmsgpack.unpackb(packed)
    assert list(first) == list(second) == keys
    reused = sum(a is b for a, b in zip(first, second))
    assert reused == len(keys), f"only {reused} of {len(keys)} keys reused"
