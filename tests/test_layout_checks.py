"""The CPython object layouts fastmsgpack reads without a call (a str's header and UTF-8 form, a
dict's table, on free-threaded builds the owner of an object's reference count) are checked at
import against CPython's own functions, and each fast path is on only when its check agreed. A
check that fails leaves every object to the always-right call, silently: these tests say when
that happens on the interpreters and platforms where the layouts are known."""

from __future__ import annotations

import platform
import sys
import sysconfig
from typing import Any

import pytest

import fastmsgpack

CHECKS = dict(fastmsgpack._fastmsgpack._LAYOUT_CHECKS)
FREE_THREADED = bool(sysconfig.get_config_var("Py_GIL_DISABLED"))
KNOWN_PLATFORM = sys.platform == "linux" and platform.machine() in ("x86_64", "aarch64")


def expected_checks() -> set[str]:
    """The checks each build runs: none before 3.14 with the GIL (read as declared there)."""
    names: set[str] = set()
    if sys.version_info >= (3, 14):
        names |= {"str", "dict"}
    if FREE_THREADED:
        names.add("refcount")
    return names


def test_the_checks_of_this_build_run() -> None:
    assert set(CHECKS) == expected_checks()


@pytest.mark.skipif(not KNOWN_PLATFORM, reason="the layouts are known on Linux x86-64 and ARM64")
@pytest.mark.parametrize("name", sorted(expected_checks()) or ["none"])
def test_each_check_agrees(name: str) -> None:
    if name == "none":
        assert CHECKS == {}
        return
    assert CHECKS[name], f"the {name} layout check failed: its fast path is off"


def test_dicts_read_from_the_table_pack_as_the_api_walks_them() -> None:
    """A str-keyed table, an int-keyed one with deletions, a large one (two-byte indices) and an
    instance's split dict: each packs to its items in insertion order, as ``PyDict_Next`` gives
    them (``dict.items()`` here)."""

    class Probe:
        def __init__(self) -> None:
            self.a = 1
            self.b = "two"

    holes: dict[Any, Any] = {i: str(i) for i in range(300)}
    for i in range(0, 300, 7):
        del holes[i]
    holes["added"] = None
    dicts: list[dict[Any, Any]] = [
        {"k": 1, "l": [1, 2]},
        holes,
        {f"key{i}": i for i in range(500)},
        vars(Probe()),
    ]
    for d in dicts:
        back = fastmsgpack.unpackb(
            fastmsgpack.packb(d, option=fastmsgpack.OPT_NON_STR_KEYS),
            option=fastmsgpack.OPT_NON_STR_KEYS,
        )
        assert list(back.items()) == list(d.items())
