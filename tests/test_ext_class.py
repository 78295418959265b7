"""The Ext class: tag range, data types, equality, hash, repr, immutability, pickling."""

from __future__ import annotations

import copy
import pickle
from typing import Any

import pytest

from fastmsgpack import Ext


@pytest.mark.parametrize("tag", [-128, -1, 0, 1, 127])
def test_ext_tag_range_accepted(tag: int) -> None:
    ext = Ext(tag, b"ab")
    assert ext.tag == tag
    assert type(ext.tag) is int


@pytest.mark.parametrize("tag", [-129, 128, 255, -(2**63), 2**64])
def test_ext_tag_out_of_range(tag: int) -> None:
    with pytest.raises(ValueError):
        Ext(tag, b"")


@pytest.mark.parametrize("tag", ["1", 1.0, None, b"\x01"])
def test_ext_tag_must_be_int(tag: Any) -> None:
    with pytest.raises(TypeError):
        Ext(tag, b"")


@pytest.mark.parametrize(
    "data", [b"xyz", bytearray(b"xyz"), memoryview(b"xyz"), memoryview(b"..xyz..")[2:5]]
)
def test_ext_data_types_stored_as_bytes(data: bytes | bytearray | memoryview) -> None:
    ext = Ext(3, data)
    assert type(ext.data) is bytes
    assert ext.data == b"xyz"
    assert ext == Ext(3, b"xyz")


def test_ext_copies_mutable_data() -> None:
    buf = bytearray(b"abc")
    ext = Ext(1, buf)
    buf[0] = ord("z")
    assert ext.data == b"abc"


@pytest.mark.parametrize("data", ["abc", 3, [1, 2], None, (1,)])
def test_ext_data_must_be_bytes_like(data: Any) -> None:
    with pytest.raises(TypeError):
        Ext(1, data)


def test_ext_keywords() -> None:
    assert Ext(tag=5, data=b"q") == Ext(5, b"q")


def test_ext_attributes_are_read_only() -> None:
    ext = Ext(1, b"a")
    with pytest.raises(AttributeError):
        ext.tag = 2  # type: ignore[misc]
    with pytest.raises(AttributeError):
        ext.data = b"b"  # type: ignore[misc]
    assert ext == Ext(1, b"a")


def test_ext_equality() -> None:
    assert Ext(1, b"a") == Ext(1, b"a")
    assert not (Ext(1, b"a") != Ext(1, b"a"))  # noqa: SIM202 (tests __ne__)
    assert Ext(1, b"a") != Ext(2, b"a")
    assert Ext(1, b"a") != Ext(1, b"b")
    assert Ext(1, b"") != Ext(-1, b"")
    assert Ext(1, b"a") != (1, b"a")
    assert not (Ext(1, b"a") == (1, b"a"))  # noqa: SIM201 (tests __eq__)
    assert Ext(1, b"a") != b"a"
    assert Ext(0, b"") != None


def test_ext_hash_and_dict_key() -> None:
    assert hash(Ext(7, b"xy")) == hash(Ext(7, bytearray(b"xy")))
    table = {Ext(1, b"a"): "one", Ext(2, b"a"): "two", Ext(1, b"b"): "three"}
    assert table[Ext(1, b"a")] == "one"
    assert table[Ext(2, b"a")] == "two"
    assert table[Ext(1, b"b")] == "three"
    assert len({Ext(1, b"a"), Ext(1, b"a"), Ext(1, memoryview(b"a"))}) == 1


@pytest.mark.parametrize(
    ("tag", "data"), [(1, b"ab"), (-1, b""), (-128, b"\x00\xff"), (127, b"it's")]
)
def test_ext_repr(tag: int, data: bytes) -> None:
    assert repr(Ext(tag, data)) == f"Ext(tag={tag}, data={data!r})"


@pytest.mark.parametrize("protocol", range(pickle.HIGHEST_PROTOCOL + 1))
def test_ext_pickle(protocol: int) -> None:
    ext = Ext(-5, b"\x00payload\xff")
    restored = pickle.loads(pickle.dumps(ext, protocol=protocol))
    assert type(restored) is Ext
    assert restored == ext
    assert restored.tag == -5
    assert restored.data == b"\x00payload\xff"


def test_ext_copy_and_module() -> None:
    ext = Ext(9, b"abc")
    assert copy.copy(ext) == ext
    assert copy.deepcopy(ext) == ext
    assert Ext.__module__ == "fastmsgpack"
    assert Ext.__name__ == "Ext"
