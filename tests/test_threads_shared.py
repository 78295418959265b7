"""Objects shared between threads: a Packer, an Unpacker, and the caches that packb and typed
unpackb fill on first use (dataclass fields, decoding plans, enum tables, map keys).

Threads start together at a barrier, so that on a free-threaded interpreter they race to fill
the same cache entry. A shared Packer or Unpacker used by two threads at once raises
RuntimeError in one of them (doc/threads.md); everything else must give the right result.
"""

from __future__ import annotations

import dataclasses
import enum
import sys
import threading
from collections.abc import Callable, Iterator
from typing import Any, TypeVar

import pytest

import fastmsgpack

THREADS = 8
T = TypeVar("T")


@pytest.fixture(autouse=True)
def frequent_switches() -> Iterator[None]:
    before = sys.getswitchinterval()
    sys.setswitchinterval(1e-6)
    try:
        yield
    finally:
        sys.setswitchinterval(before)


def together(work: Callable[[int], T], threads: int = THREADS) -> list[T]:
    """``work(i)`` in thread ``i`` for each i, started at once; their results in order. An
    exception in any thread fails the test."""
    results: list[Any] = [None] * threads
    errors: list[BaseException] = []
    start = threading.Barrier(threads)

    def run(i: int) -> None:
        try:
            start.wait()
            results[i] = work(i)
        except BaseException as exc:  # noqa: BLE001 - reported below
            errors.append(exc)

    pool = [threading.Thread(target=run, args=(i,)) for i in range(threads)]
    for t in pool:
        t.start()
    for t in pool:
        t.join()
    assert not errors, f"{len(errors)} threads failed, the first with {errors[0]!r}"
    return results


def test_shared_packer_packs_right_or_refuses_concurrent_use() -> None:
    packer = fastmsgpack.Packer()
    docs = [
        {"thread": i, "items": list(range(i * 10, i * 10 + 50)), "name": f"t{i}"}
        for i in range(THREADS)
    ]

    def work(i: int) -> tuple[int, int]:
        packed = refused = 0
        for _ in range(150):
            try:
                data = packer.pack(docs[i])
            except RuntimeError as exc:
                assert "already packing" in str(exc)
                refused += 1
                continue
            assert data == fastmsgpack.packb(docs[i])
            packed += 1
        return packed, refused

    results = together(work)
    assert sum(p for p, _ in results) > 0


def test_shared_unpacker_loses_and_duplicates_nothing() -> None:
    unpacker = fastmsgpack.Unpacker()
    per_thread = 100

    def work(i: int) -> tuple[list[Any], int]:
        got: list[Any] = []
        fed = 0
        for n in range(per_thread):
            try:
                unpacker.feed(fastmsgpack.packb([i, n, "x" * (n % 40)]))
                fed += 1
            except RuntimeError:
                pass  # another thread is using it: this message was not fed
            try:
                got.extend(unpacker)
            except RuntimeError:
                pass  # another thread is reading: it gets the messages
        return got, fed

    results = together(work)
    try:
        rest = list(unpacker)
    except RuntimeError:  # pragma: no cover - every thread has finished
        pytest.fail("the Unpacker stayed busy after every thread finished")
    received = [m for got, _ in results for m in got] + rest
    assert len(received) == sum(fed for _, fed in results)
    for i, n, text in received:
        assert text == "x" * (n % 40)
    assert len({(i, n) for i, n, _ in received}) == len(received), "a message came out twice"


def test_dataclass_field_cache_filled_by_many_threads_at_once() -> None:
    for round_ in range(10):
        # A new class each round: its fields are not cached yet.
        cls = dataclasses.make_dataclass(
            f"Point{round_}", [("x", int), ("y", int), ("label", str), ("_hidden", int)]
        )
        points = [cls(i, -i, f"p{i}", 0) for i in range(THREADS)]

        def pack_one(i: int, points: list[Any] = points) -> bytes:
            return fastmsgpack.packb(points[i])

        results = together(pack_one)
        for i, data in enumerate(results):
            assert fastmsgpack.unpackb(data) == {"x": i, "y": -i, "label": f"p{i}"}


def test_typed_plans_built_by_many_threads_at_once() -> None:
    for round_ in range(10):
        Color = enum.Enum(f"Color{round_}", {"RED": "r", "GREEN": "g", "BLUE": "b"})  # type: ignore[misc]
        inner = dataclasses.make_dataclass(f"Inner{round_}", [("color", Color), ("n", int)])
        fields = [
            ("name", str),
            ("items", list[inner]),  # type: ignore[valid-type]
            ("tags", dict[str, int]),
        ]
        outer = dataclasses.make_dataclass(f"Outer{round_}", fields)
        data = fastmsgpack.packb(
            {
                "name": "o",
                "items": [{"color": c, "n": j} for j, c in enumerate("rgbrgb")],
                "tags": {"a": 1, "b": 2},
            }
        )

        def decode(i: int, data: bytes = data, outer: type = outer) -> Any:
            return fastmsgpack.unpackb(data, type=outer)

        results = together(decode)
        expected = outer(
            "o",
            [inner(Color(c), j) for j, c in enumerate("rgbrgb")],
            {"a": 1, "b": 2},
        )
        assert all(r == expected for r in results)
        assert all(type(r.items[0].color) is Color for r in results)


def test_map_keys_decoded_by_many_threads_share_no_wrong_key() -> None:
    # Each thread decodes documents with keys of its own and keys in common, many times: the key
    # cache must never hand a thread a key string for other bytes.
    def doc(i: int, n: int) -> dict[str, int]:
        return {f"common{k}": k for k in range(20)} | {f"t{i}-k{k}-{n % 7}": n for k in range(20)}

    def work(i: int) -> None:
        for n in range(100):
            expected = doc(i, n)
            assert fastmsgpack.unpackb(fastmsgpack.packb(expected)) == expected

    together(work)


def test_enum_members_packed_by_many_threads_at_once() -> None:
    for round_ in range(10):
        Level = enum.Enum(f"Level{round_}", {"LOW": 1, "MID": [2, 3], "HIGH": "h"})  # type: ignore[misc]
        members = list(Level)

        def pack_members(i: int, members: list[Any] = members) -> bytes:
            return fastmsgpack.packb(members * 50)

        results = together(pack_members)
        assert all(fastmsgpack.unpackb(r) == [1, [2, 3], "h"] * 50 for r in results)
