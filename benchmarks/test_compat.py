"""fastmsgpack.compat against msgpack-python, on the four benchmark documents, called as code
written for msgpack-python calls it.

Groups, one per document: ``compat-packb-<doc>`` (``packb(obj, use_bin_type=True)``),
``compat-unpackb-<doc>`` (``unpackb(b, raw=False, strict_map_key=False)``),
``compat-tuples-<doc>`` (``unpackb(b, use_list=False)``) and ``compat-hook-<doc>``
(``unpackb(b, object_hook=...)``, a hook that returns the dict it is given). In each, the
library named ``fastmsgpack`` is the compat call and ``msgpack`` the same call to msgpack-python;
in the first two, ``fastmsgpack-native`` is the native ``packb``/``unpackb`` doing the same
work, so its ratio shows what the compat layer costs. With ``scripts/bench --baseline REV``,
``fastmsgpack-before`` is the same compat call on REV's core (this checkout's Python layer over
the earlier extension, benchmarks/baseline.py). Every result is checked against msgpack-python's
before it is timed.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import msgpack  # type: ignore[import-untyped]
import pytest
from baseline import BEFORE_COMPAT
from baseline import NAME as BEFORE_NAME

import fastmsgpack
from fastmsgpack import compat


def same_dict(d: dict[Any, Any]) -> dict[Any, Any]:
    return d


# group prefix -> library -> (function, keyword arguments)
CALLS: dict[str, dict[str, tuple[Callable[..., Any], dict[str, Any]]]] = {
    "compat-packb": {
        "fastmsgpack": (compat.packb, {"use_bin_type": True}),
        "fastmsgpack-native": (fastmsgpack.packb, {}),
        "msgpack": (msgpack.packb, {"use_bin_type": True}),
    },
    "compat-unpackb": {
        "fastmsgpack": (compat.unpackb, {"raw": False, "strict_map_key": False}),
        "fastmsgpack-native": (fastmsgpack.unpackb, {}),
        "msgpack": (msgpack.unpackb, {"raw": False, "strict_map_key": False}),
    },
    "compat-tuples": {
        "fastmsgpack": (compat.unpackb, {"use_list": False}),
        "msgpack": (msgpack.unpackb, {"use_list": False}),
    },
    "compat-hook": {
        "fastmsgpack": (compat.unpackb, {"object_hook": same_dict}),
        "msgpack": (msgpack.unpackb, {"object_hook": same_dict}),
    },
}
if BEFORE_COMPAT is not None:
    for _libraries in CALLS.values():
        _function, _kwargs = _libraries["fastmsgpack"]
        _libraries[BEFORE_NAME] = (getattr(BEFORE_COMPAT, _function.__name__), _kwargs)
CASES = [(group, library) for group, libraries in CALLS.items() for library in libraries]


@pytest.mark.parametrize(("group", "library"), CASES, ids=[f"{g}-{lib}" for g, lib in CASES])
def test_compat(
    benchmark: Any, group: str, library: str, fixture_name: str, document: Any, packed: bytes
) -> None:
    func, kwargs = CALLS[group][library]
    reference, reference_kwargs = CALLS[group]["msgpack"]
    arg = document if group == "compat-packb" else packed
    assert func(arg, **kwargs) == reference(arg, **reference_kwargs), f"{library} differs"
    benchmark.group = f"{group}-{fixture_name}"
    benchmark.extra_info["library"] = library
    benchmark.extra_info["operation"] = group
    benchmark.extra_info["fixture"] = fixture_name
    benchmark(func, arg, **kwargs)
