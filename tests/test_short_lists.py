"""Lists of up to two items, which the serializer writes by their own paths (the empty list, a
pair of floats such as a point), in both formats: the same output as the reference libraries,
and the same rules as any list (nesting limit, float subclasses, NaN in JSON)."""

from __future__ import annotations

import math
from typing import Any

import msgpack  # type: ignore[import-untyped]
import orjson
import pytest
from conftest import Format

import fastmsgpack


class MyFloat(float):
    pass


SHORT_LISTS: list[Any] = [
    [],
    [1.5],
    [1.5, -2.25],
    [0.0, -0.0],
    [1e300, 5e-324],
    [1, 2.5],
    [2.5, 1],
    ["a", 1.0],
    [1.0, None],
    [True, 1.0],
    [MyFloat(1.5), 2.5],
    [2.5, MyFloat(1.5)],
    [[1.0, 2.0], [3.0, 4.0]],
    [[[1.0, 2.0]], []],
    {"point": [12.5, -7.25], "empty": [], "one": [3.5]},
]


@pytest.mark.parametrize("doc", SHORT_LISTS, ids=repr)
def test_like_msgpack_and_orjson(doc: Any) -> None:
    assert fastmsgpack.packb(doc) == msgpack.packb(doc, use_bin_type=True)
    # orjson refuses float subclasses; `default=float` gives what fastmsgpack writes for them.
    assert fastmsgpack.json.dumps(doc) == orjson.dumps(doc, default=float)
    ours = fastmsgpack.json.OPT_INDENT_2
    theirs = orjson.dumps(doc, default=float, option=orjson.OPT_INDENT_2)
    assert fastmsgpack.json.dumps(doc, option=ours) == theirs


def test_many_points_like_orjson() -> None:
    points = [[i / 7, -i / 3] for i in range(2000)]
    doc = {"type": "LineString", "coordinates": points}
    assert fastmsgpack.packb(doc) == msgpack.packb(doc, use_bin_type=True)
    assert fastmsgpack.json.dumps(doc) == orjson.dumps(doc)
    assert fastmsgpack.unpackb(fastmsgpack.packb(doc)) == doc


def test_pairs_with_nan_and_infinities(fmt: Format) -> None:
    doc = [[math.nan, math.inf], [-math.inf, 1.0]]
    if fmt.name == "json":
        assert fmt.encode(doc) == b"[[null,null],[null,1.0]]"
    else:
        back = fmt.round_trip(doc)
        assert math.isnan(back[0][0]) and back[0][1] == math.inf and back[1] == [-math.inf, 1.0]


@pytest.mark.parametrize("innermost", [[], [1.5, 2.5], [1, 2], [1.5]], ids=repr)
def test_short_lists_count_toward_the_nesting_limit(fmt: Format, innermost: list[Any]) -> None:
    def nested(depth: int) -> Any:
        obj: Any = list(innermost)
        for _ in range(depth - 1):
            obj = [obj]
        return obj

    assert fmt.round_trip(nested(254)) == nested(254)
    with pytest.raises(fmt.encode_error):
        fmt.encode(nested(255))
