"""Typed decoding through each kind of container, for what a failure inside it reports.

A ValidationError names the place of the value that did not fit through every container around
it (list and tuple items by index, NamedTuple, dataclass and TypedDict fields by name, dict values
by key, the member an Optional decides), and a container whose type does not fit is refused from
its header alone, before its declared length is trusted.
"""

from __future__ import annotations

import dataclasses
from typing import Any, NamedTuple, Optional, TypedDict

import pytest

from fastmsgpack import MsgpackDecodeError, ValidationError, packb, unpackb


class Pair(NamedTuple):
    left: int
    right: int


class Row(TypedDict):
    cells: list[int]


@dataclasses.dataclass
class Leaf:
    pairs: list[Pair]
    rows: dict[str, Row]
    fixed: tuple[int, str]
    tags: frozenset[str] = frozenset()


@dataclasses.dataclass
class Tree:
    leaves: list[Optional[Leaf]]  # noqa: UP045 (the spelling under test)
    parent: Tree | None = None


def leaf(**changes: Any) -> dict[str, Any]:
    value: dict[str, Any] = {
        "pairs": [[1, 2], [3, 4]],
        "rows": {"a": {"cells": [1, 2]}, "b": {"cells": [3]}},
        "fixed": [1, "x"],
        "tags": ["t"],
    }
    value.update(changes)
    return value


def path_of(data: Any, tp: Any) -> str:
    with pytest.raises(ValidationError) as info:
        unpackb(packb(data), type=tp)
    path = info.value.path
    assert isinstance(path, str)
    return path


def test_a_tree_decodes() -> None:
    tree = unpackb(packb({"leaves": [None, leaf()], "parent": {"leaves": []}}), type=Tree)
    assert tree.leaves[0] is None
    assert tree.leaves[1] == Leaf(
        pairs=[Pair(1, 2), Pair(3, 4)],
        rows={"a": {"cells": [1, 2]}, "b": {"cells": [3]}},
        fixed=(1, "x"),
        tags=frozenset({"t"}),
    )
    assert tree.parent == Tree(leaves=[])


@pytest.mark.parametrize(
    ("data", "path"),
    [
        ({"leaves": [None, leaf(pairs=[[1, 2], [3, "x"]])]}, "$.leaves[1].pairs[1].right"),
        ({"leaves": [leaf(rows={"a": {"cells": [1, "x"]}})]}, "$.leaves[0].rows['a'].cells[1]"),
        ({"leaves": [leaf(fixed=[1, 2])]}, "$.leaves[0].fixed[1]"),
        ({"leaves": [leaf(tags=["a", 1])]}, "$.leaves[0].tags[1]"),
        (
            {"leaves": [], "parent": {"leaves": [leaf(fixed=["x", "y"])]}},
            "$.parent.leaves[0].fixed[0]",
        ),
        ({"leaves": [1]}, "$.leaves[0]"),
    ],
)
def test_the_path_names_every_container(data: Any, path: str) -> None:
    assert path_of(data, Tree) == path


def test_unknown_keys_are_skipped_whatever_they_hold() -> None:
    data = {"x": [[1, {"y": 2}]], "leaves": [], "z": {"deep": [None]}}
    assert unpackb(packb(data), type=Tree) == Tree(leaves=[])


def test_an_unhashable_set_item_is_named_by_its_index() -> None:
    with pytest.raises(ValidationError) as info:
        unpackb(packb([1, [2]]), type=set[Any])
    assert info.value.path == "$[1]"
    assert "unhashable" in str(info.value)


@pytest.mark.parametrize(
    ("header", "tp", "found"),
    [
        (b"\xdc\xff\xff", int, "array of 65535 items"),
        (b"\xde\xff\xff", list[int], "map of 65535 entries"),
        (b"\xdc\xff\xff", tuple[int, int], "an array of 65535 items"),
        (b"\xdc\xff\xff", Pair, "an array of 65535 items"),
    ],
)
def test_a_container_that_does_not_fit_is_refused_by_its_header(
    header: bytes, tp: Any, found: str
) -> None:
    # The header declares more items than the input holds: the type is refused first.
    with pytest.raises(ValidationError, match=found):
        unpackb(header, type=tp)


def test_a_container_that_fits_but_is_cut_short_is_malformed() -> None:
    with pytest.raises(MsgpackDecodeError) as info:
        unpackb(b"\xdc\xff\xff\x01", type=list[int])
    assert not isinstance(info.value, ValidationError)
