"""The cache of map-key strings that unpackb keeps across calls: one call at a time uses it, and
calls that find it in use (from ext_hook, or on another thread while the first one runs Python
code) decode without it, with the same results.

A key decoded through the cache is the same `str` object on every call; a key decoded without it
is a new object each time. The tests use that to see whether a call had the cache.

Free-threaded builds keep several caches, and each thread tries its own first: there a call that
finds it in use takes another one (so its keys repeat too), and a call on another thread usually
has a cache of its own.
"""

from __future__ import annotations

import sys
import sysconfig
import threading
import time
from typing import Any

import pytest

import fastmsgpack
from fastmsgpack import Ext, MsgpackDecodeError


def first_key(data: bytes, **kwargs: Any) -> str:
    key: str = next(iter(fastmsgpack.unpackb(data, **kwargs)))
    return key


KEYED = fastmsgpack.packb({"cached-key": 1})
FREE_THREADED = bool(sysconfig.get_config_var("Py_GIL_DISABLED"))


def test_keys_come_from_the_cache() -> None:
    assert first_key(KEYED) is first_key(KEYED)


def test_a_call_from_ext_hook_decodes_without_the_cache_and_frees_nothing_early() -> None:
    inner_keys: list[str] = []

    def hook(tag: int, data: bytes) -> Any:
        inner = fastmsgpack.unpackb(data)
        inner_keys.append(next(iter(inner)))
        return inner

    inner_doc = {"cached-key": [1, 2], "other": "x" * 40}
    packed = fastmsgpack.packb({"cached-key": Ext(1, fastmsgpack.packb(inner_doc)), "after": "y"})
    for _ in range(3):
        assert fastmsgpack.unpackb(packed, ext_hook=hook) == {"cached-key": inner_doc, "after": "y"}
    # The outer call held the cache, so the inner ones made their own strings (with the GIL a
    # new one each time; free-threaded, from another cache, each time the same one).
    cached = first_key(KEYED)
    assert all(key == cached and key is not cached for key in inner_keys)
    distinct = len({id(key) for key in inner_keys})
    assert distinct == (1 if FREE_THREADED else len(inner_keys))
    # And the cache is back for the next call.
    assert first_key(KEYED) is cached


@pytest.mark.parametrize(
    "data",
    [b"\x81\xaacached-key\xc1", b"\x81\xaacached-key\x01\x02", b"\x81\xaacached-key"],
    ids=["reserved-byte", "trailing", "truncated"],
)
def test_the_cache_is_released_when_a_call_fails(data: bytes) -> None:
    cached = first_key(KEYED)
    with pytest.raises(MsgpackDecodeError):
        fastmsgpack.unpackb(data)
    assert first_key(KEYED) is cached


def test_the_cache_is_released_when_ext_hook_raises() -> None:
    def hook(tag: int, data: bytes) -> Any:
        raise KeyError(tag)

    cached = first_key(KEYED)
    with pytest.raises(MsgpackDecodeError):
        fastmsgpack.unpackb(fastmsgpack.packb({"cached-key": Ext(3, b"")}), ext_hook=hook)
    assert first_key(KEYED) is cached


def test_a_call_on_another_thread_while_one_holds_the_cache() -> None:
    cached = first_key(KEYED)
    inside = threading.Event()
    done = threading.Event()

    def hook(tag: int, data: bytes) -> Any:
        inside.set()
        assert done.wait(30)
        return Ext(tag, data)

    results: list[Any] = []
    packed = fastmsgpack.packb({"cached-key": Ext(1, b"x")})
    first = threading.Thread(
        target=lambda: results.append(fastmsgpack.unpackb(packed, ext_hook=hook))
    )
    first.start()
    assert inside.wait(30)
    other = first_key(KEYED)  # while the first call is in its ext_hook, holding a cache
    done.set()
    first.join()
    assert other == cached
    if not FREE_THREADED:
        # Free-threaded, this call took another cache, or its own one if the first call had
        # another: either way a right key, which is all there is to check.
        assert other is not cached
    assert results == [{"cached-key": Ext(1, b"x")}]
    assert first_key(KEYED) is cached


def test_threads_that_switch_during_a_call_all_decode_correctly() -> None:
    # The hook lets other threads run in the middle of a call, so that some calls find the cache
    # claimed by a call on another thread.
    previous = sys.getswitchinterval()
    sys.setswitchinterval(1e-6)
    try:
        docs = [
            {f"key-{t}-{i % 7}": [i, f"v{i}", {"inner": i}], "ext": Ext(t, b"")}
            for t in range(4)
            for i in range(50)
        ]
        packed = [fastmsgpack.packb(doc) for doc in docs]
        failures: list[str] = []

        def hook(tag: int, data: bytes) -> Any:
            time.sleep(0)  # releases the GIL
            return Ext(tag, data)

        def work(offset: int) -> None:
            for round_ in range(20):
                for i in range(offset, len(docs), 4):
                    if fastmsgpack.unpackb(packed[i], ext_hook=hook) != docs[i]:
                        failures.append(f"doc {i}, round {round_}")

        threads = [threading.Thread(target=work, args=(n,)) for n in range(4)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
    finally:
        sys.setswitchinterval(previous)
    assert failures == []
    assert first_key(KEYED) is first_key(KEYED)


def str_header(n: int) -> bytes:
    return bytes([0xA0 | n]) if n < 32 else b"\xd9" + bytes([n])


@pytest.mark.parametrize(
    "key",
    [b"\xff", b"caf\xc3", b"cached-ke\xff", b"\xed\xa0\x80abc", b"k" * 40 + b"\xc3(" + b"k" * 20],
)
def test_a_key_that_is_not_utf8_is_refused_however_many_keys_are_cached(key: bytes) -> None:
    # A key found in the cache is not checked again, so the cache must never hold one that is
    # not UTF-8: a key of the same length and near the same bytes is cached first.
    near = bytes(b if b < 0x80 else 0x61 for b in key).decode()
    valid = {near: 1, "cached-key": 2}
    bad = b"\x82" + str_header(len(key)) + key + b"\x01" + fastmsgpack.packb("cached-key") + b"\x02"
    for _ in range(3):
        assert fastmsgpack.unpackb(fastmsgpack.packb(valid)) == valid
        with pytest.raises(MsgpackDecodeError, match="UTF-8"):
            fastmsgpack.unpackb(bad)
