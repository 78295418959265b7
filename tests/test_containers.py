"""list/tuple/dict: header widths, nesting limits (254 pack, 1024 unpack), cycles, mutation."""

from __future__ import annotations

import itertools
import os
import struct
import subprocess
import sys
import textwrap
from typing import Any

import msgpack  # type: ignore[import-untyped]
import pytest
from conftest import CONTAINER_LENGTHS, assert_same, nested_lists, oracle_packb

import fastmsgpack
from fastmsgpack import MsgpackDecodeError, MsgpackEncodeError

PACK_DEPTH_LIMIT = 254
UNPACK_DEPTH_LIMIT = 1024


@pytest.mark.parametrize("length", CONTAINER_LENGTHS)
def test_list_and_tuple(length: int) -> None:
    items = [i % 300 - 40 for i in range(length)]
    packed = fastmsgpack.packb(items)
    assert packed == oracle_packb(items)
    assert fastmsgpack.packb(tuple(items)) == packed
    result = fastmsgpack.unpackb(packed)
    assert type(result) is list
    assert result == items


@pytest.mark.parametrize("length", CONTAINER_LENGTHS)
def test_dict(length: int) -> None:
    doc = {f"k{i}": i for i in range(length)}
    packed = fastmsgpack.packb(doc)
    assert packed == oracle_packb(doc)
    result = fastmsgpack.unpackb(packed)
    assert type(result) is dict
    assert_same(result, doc)  # includes key order


@pytest.mark.parametrize(
    ("length", "list_header", "map_header"),
    [(0, 0x90, 0x80), (15, 0x9F, 0x8F), (16, 0xDC, 0xDE), (65535, 0xDC, 0xDE), (65536, 0xDD, 0xDF)],
)
def test_headers(length: int, list_header: int, map_header: int) -> None:
    assert fastmsgpack.packb([None] * length)[0] == list_header
    assert fastmsgpack.packb({str(i): None for i in range(length)})[0] == map_header


@pytest.mark.parametrize("length", [0, 1, 15, 16, 300])
def test_decode_every_container_width(length: int) -> None:
    items = b"".join(fastmsgpack.packb(i) for i in range(length))
    pairs = b"".join(fastmsgpack.packb(str(i)) + fastmsgpack.packb(i) for i in range(length))
    arrays = [struct.pack(">BH", 0xDC, length), struct.pack(">BI", 0xDD, length)]
    maps = [struct.pack(">BH", 0xDE, length), struct.pack(">BI", 0xDF, length)]
    if length < 16:
        arrays.append(bytes([0x90 | length]))
        maps.append(bytes([0x80 | length]))
    for header in arrays:
        assert fastmsgpack.unpackb(header + items) == list(range(length))
    for header in maps:
        assert fastmsgpack.unpackb(header + pairs) == {str(i): i for i in range(length)}


def test_insertion_order_preserved() -> None:
    doc = {"z": 1, "a": 2, "m": 3, "\u00e9": 4, "": 5}
    result = fastmsgpack.unpackb(fastmsgpack.packb(doc))
    assert list(result) == ["z", "a", "m", "\u00e9", ""]


def test_mixed_nesting_round_trip() -> None:
    doc: Any = {
        "list": [1, [2, [3, []]], {"x": [None, True, False]}],
        "tuple": (1, (2, 3)),
        "empty": {"l": [], "d": {}},
        "deep": nested_lists(50),
    }
    packed = fastmsgpack.packb(doc)
    assert packed == oracle_packb(doc)
    expected = dict(doc, tuple=[1, [2, 3]])
    assert_same(fastmsgpack.unpackb(packed), expected)


# --- nesting limits ---------------------------------------------------------------------------


def nested_dicts(depth: int) -> dict[str, Any]:
    obj: dict[str, Any] = {}
    for _ in range(depth - 1):
        obj = {"k": obj}
    return obj


def test_pack_nesting_limit_lists() -> None:
    deepest = nested_lists(PACK_DEPTH_LIMIT)
    assert fastmsgpack.packb(deepest) == oracle_packb(deepest)
    with pytest.raises(MsgpackEncodeError):
        fastmsgpack.packb(nested_lists(PACK_DEPTH_LIMIT + 1))
    with pytest.raises(MsgpackEncodeError):
        fastmsgpack.packb(nested_lists(100_000))


def test_pack_nesting_limit_dicts_and_mixed() -> None:
    deepest = nested_dicts(PACK_DEPTH_LIMIT)
    assert fastmsgpack.packb(deepest) == oracle_packb(deepest)
    with pytest.raises(MsgpackEncodeError):
        fastmsgpack.packb(nested_dicts(PACK_DEPTH_LIMIT + 1))
    mixed: Any = []
    for i in range(PACK_DEPTH_LIMIT - 1):
        mixed = {"k": mixed} if i % 2 else (mixed,)
    assert fastmsgpack.packb(mixed) == oracle_packb(mixed)
    with pytest.raises(MsgpackEncodeError):
        fastmsgpack.packb([mixed])


def test_unpack_nesting_limit() -> None:
    at_limit = b"\x91" * (UNPACK_DEPTH_LIMIT - 1) + b"\x90"
    result = fastmsgpack.unpackb(at_limit)
    for _ in range(UNPACK_DEPTH_LIMIT - 1):
        assert len(result) == 1
        result = result[0]
    assert result == []
    with pytest.raises(MsgpackDecodeError):
        fastmsgpack.unpackb(b"\x91" * UNPACK_DEPTH_LIMIT + b"\x90")


def test_unpack_nesting_limit_maps() -> None:
    level = b"\x81\xa1k"
    at_limit = level * (UNPACK_DEPTH_LIMIT - 1) + b"\x80"
    assert fastmsgpack.unpackb(at_limit) is not None
    with pytest.raises(MsgpackDecodeError):
        fastmsgpack.unpackb(level * UNPACK_DEPTH_LIMIT + b"\x80")
    with pytest.raises(MsgpackDecodeError):
        fastmsgpack.unpackb(b"\x91\x81\xa1k" * (UNPACK_DEPTH_LIMIT // 2) + b"\x90")


def test_decoded_deep_document_is_too_deep_to_pack() -> None:
    deep = fastmsgpack.unpackb(b"\x91" * 299 + b"\x90")
    with pytest.raises(MsgpackEncodeError):
        fastmsgpack.packb(deep)


# --- cycles -----------------------------------------------------------------------------------


def test_circular_list() -> None:
    cycle: list[Any] = [1]
    cycle.append(cycle)
    with pytest.raises(MsgpackEncodeError):
        fastmsgpack.packb(cycle)


def test_circular_dict() -> None:
    cycle: dict[str, Any] = {}
    cycle["self"] = cycle
    with pytest.raises(MsgpackEncodeError):
        fastmsgpack.packb(cycle)
    with pytest.raises(MsgpackEncodeError):
        fastmsgpack.packb([{"a": [cycle]}])


def test_circular_through_default() -> None:
    class Node:
        pass

    node = Node()
    with pytest.raises(MsgpackEncodeError):
        fastmsgpack.packb(node, default=lambda obj: [obj])


def test_shared_non_circular_references_are_fine() -> None:
    shared = [1, 2]
    doc = [shared, shared, {"a": shared}]
    assert fastmsgpack.unpackb(fastmsgpack.packb(doc)) == [[1, 2], [1, 2], {"a": [1, 2]}]


# --- mutation during packing ------------------------------------------------------------------


class Trigger:
    """Packing this object through default runs an action on the enclosing container."""


def _pack_with_mutation(container: Any, action: Any, option: int | None = None) -> bytes:
    def default(obj: object) -> Any:
        assert isinstance(obj, Trigger)
        action()
        return "done"

    packed: bytes = fastmsgpack.packb(container, default=default, option=option)
    return packed


@pytest.mark.parametrize("mutation", ["clear", "append", "pop", "extend"])
def test_list_mutated_during_packing(mutation: str) -> None:
    items: list[Any] = [Trigger(), 1, "two", [3], {"four": 4}]
    action = {
        "clear": items.clear,
        "append": lambda: items.append(5),
        "pop": items.pop,
        "extend": lambda: items.extend(range(1000)),
    }[mutation]
    with pytest.raises(MsgpackEncodeError):
        _pack_with_mutation(items, action)
    items[:] = [Trigger(), 1, 2, 3]
    with pytest.raises(MsgpackEncodeError):
        _pack_with_mutation({"outer": [items, 9]}, action)


@pytest.mark.parametrize("mutation", ["clear", "add", "delete", "add-many"])
@pytest.mark.parametrize("option", [None, fastmsgpack.OPT_SORT_KEYS], ids=["plain", "sort_keys"])
def test_dict_mutated_during_packing(mutation: str, option: int | None) -> None:
    # The values after the trigger (in both orders) are referenced only by the dict.
    doc: dict[Any, Any] = {"0": Trigger(), "a": [1] * 3, "b": [[2]], "c": {"d": "x" * 50}}
    action = {
        "clear": doc.clear,
        "add": lambda: doc.__setitem__("new", 1),
        "delete": lambda: doc.__delitem__("a"),
        "add-many": lambda: doc.update({str(i): i for i in range(1000)}),
    }[mutation]
    with pytest.raises(MsgpackEncodeError):
        _pack_with_mutation(doc, action, option)


# A dict key whose writing runs Python code (an enum whose `value` is a property) that empties
# the dict. Run in a child process with CPython's debug allocator, which overwrites freed
# memory: reading the freed value or key tuple crashes there instead of reading stale bytes.
_KEY_EMPTIES_DICT = """
import enum
import fastmsgpack

class Color(enum.Enum):
    RED = 1

    @property
    def value(self):
        doc.clear()
        return "red"

doc = {THE_KEY: [[i] for i in range(50)]}
try:
    fastmsgpack.packb(doc, option=fastmsgpack.OPT_NON_STR_KEYS)
except fastmsgpack.MsgpackEncodeError as exc:
    print(exc)
"""


@pytest.mark.parametrize(
    "key",
    [
        "Color.RED",
        # Fresh objects after the enum, owned by the key tuple alone.
        '(Color.RED, "".join(["x"] * 40), float("1.5"), b"".join([b"y"] * 30))',
    ],
    ids=["enum", "tuple-with-enum"],
)
def test_key_that_empties_its_dict_leaves_entry_alive(key: str) -> None:
    script = textwrap.dedent(_KEY_EMPTIES_DICT).replace("THE_KEY", key)
    result = subprocess.run(
        [sys.executable, "-c", script],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
        env={**os.environ, "PYTHONMALLOC": "debug"},
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "dict changed size while it was being packed"


# The same with `json.dumps` under `OPT_SORT_KEYS`, which writes each rich key to text to sort
# by it before any value is written: the entries must be held from the moment they are read.
_SORTED_KEY_EMPTIES_DICT = """
import enum
import fastmsgpack
import fastmsgpack.json

class Color(enum.Enum):
    RED = 1

    @property
    def value(self):
        doc.clear()
        return "red"

doc = {THE_KEY: [[i] for i in range(50)], "".join(["z"] * 40): [[i] for i in range(50)]}
try:
    fastmsgpack.json.dumps(
        doc, option=fastmsgpack.OPT_NON_STR_KEYS | fastmsgpack.OPT_SORT_KEYS
    )
except fastmsgpack.MsgpackEncodeError as exc:
    print(exc)
"""


def test_sorted_key_that_empties_its_dict_leaves_entries_alive() -> None:
    script = textwrap.dedent(_SORTED_KEY_EMPTIES_DICT).replace("THE_KEY", "Color.RED")
    result = subprocess.run(
        [sys.executable, "-c", script],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
        env={**os.environ, "PYTHONMALLOC": "debug"},
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "dict changed size while it was being packed"


def test_default_that_empties_the_list_and_raises() -> None:
    class Custom:
        pass

    items: list[Any] = [Custom(), 1]

    def default(obj: object) -> Any:
        items.clear()
        raise ZeroDivisionError("nope")

    with pytest.raises(MsgpackEncodeError, match="Custom") as info:
        fastmsgpack.packb(items, default=default)
    assert isinstance(info.value.__cause__, ZeroDivisionError)


def test_mutating_an_unrelated_container_is_fine() -> None:
    other = [1, 2, 3]
    doc = [Trigger(), other]
    packed = _pack_with_mutation(doc, lambda: other.append(4))
    assert fastmsgpack.unpackb(packed) == ["done", [1, 2, 3, 4]]


# nil, true and false inside arrays and maps are read in the container's own loop.

SINGLETONS = [None, True, False]
NEIGHBOURS = [None, True, False, 0, -1, 1.5, "s", b"b", [], {}, [None], {"k": False}]


def test_singletons_in_every_position_of_arrays_and_maps() -> None:
    for a, b, c in itertools.product(NEIGHBOURS, repeat=3):
        items = [a, b, c]
        packed = msgpack.packb(items)
        assert fastmsgpack.unpackb(packed) == msgpack.unpackb(packed)
        doc = {"a": a, "b": b, "c": c}
        packed = msgpack.packb(doc)
        assert fastmsgpack.unpackb(packed) == msgpack.unpackb(packed)
    keyed = msgpack.packb({None: True, True: False, False: None})
    assert fastmsgpack.unpackb(keyed, option=fastmsgpack.OPT_NON_STR_KEYS) == {
        None: True,
        True: False,
        False: None,
    }


@pytest.mark.parametrize(
    ("data", "offset"),
    [
        (b"\x93\xc3\xc2", 0),  # an array of three, with two
        (b"\x92\xc0", 0),
        (b"\x82\xa1a\xc3\xa1b", 6),  # a map whose second value is missing (where it starts)
        (b"\x81\xa1a", 3),
        (b"\x91\x92\xc0", 1),
    ],
)
def test_truncated_after_singletons(data: bytes, offset: int) -> None:
    with pytest.raises(fastmsgpack.MsgpackDecodeError, match=f"at byte offset {offset}$"):
        fastmsgpack.unpackb(data)


def test_decoding_singletons_keeps_their_reference_counts() -> None:
    packed = msgpack.packb([[None, True, False] * 100, {"t": True, "f": False, "n": None}])
    before = [sys.getrefcount(x) for x in SINGLETONS]
    for _ in range(100):
        fastmsgpack.unpackb(packed)
    with pytest.raises(fastmsgpack.MsgpackDecodeError):
        fastmsgpack.unpackb(packed[:-1])
    assert [sys.getrefcount(x) for x in SINGLETONS] == before
