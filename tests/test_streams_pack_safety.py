"""A ``Packer`` used twice at once, from its own ``default`` or from another thread, raises
``RuntimeError`` and stays usable; reference counts and memory stay flat over many calls of
``Packer`` and ``pack``, failing ones included; a ``Packer`` in a reference cycle is collected.

(The behaviour of single calls is in test_streams_pack.py.)
"""

from __future__ import annotations

import gc
import io
import sys
import threading
import weakref
from collections.abc import Callable
from typing import Any

import psutil  # type: ignore[import-untyped]
import pytest

import fastmsgpack
from fastmsgpack import MsgpackEncodeError, Packer

BUSY = "already packing a message"


class Opaque:
    pass


def _inner_call_fails(call: Callable[[], Any]) -> RuntimeError:
    with pytest.raises(RuntimeError, match=BUSY) as info:
        call()
    return info.value


@pytest.mark.parametrize("method", ["pack", "pack_into"])
def test_reentrant_call_from_default_raises(method: str) -> None:
    seen: list[RuntimeError] = []

    def default(obj: Any) -> Any:
        seen.append(_inner_call_fails(lambda: packer.pack(1)))
        seen.append(_inner_call_fails(lambda: packer.pack_into(1, bytearray())))
        return "replaced"

    packer = Packer(default=default)
    value = [Opaque(), {"k": Opaque()}]
    expected = fastmsgpack.packb(value, default=lambda obj: "replaced")
    buffer = bytearray(b"x")
    if method == "pack":
        assert packer.pack(value) == expected
    else:
        packer.pack_into(value, buffer, 1)
        assert buffer == b"x" + expected
    assert len(seen) == 4
    # Usable afterwards, by itself and from its default.
    assert packer.pack([1]) == b"\x91\x01"
    assert packer.pack(value) == expected


def test_reentrant_error_that_default_lets_through() -> None:
    def default(obj: Any) -> Any:
        return packer.pack(obj)

    packer = Packer(default=default)
    with pytest.raises(MsgpackEncodeError) as info:
        packer.pack([Opaque()])
    assert isinstance(info.value.__cause__, RuntimeError)
    assert BUSY in str(info.value.__cause__)
    assert packer.pack("ok") == b"\xa2ok"


def test_call_from_another_thread_while_default_runs() -> None:
    errors: list[BaseException] = []
    results: list[bytes] = []

    def other_thread() -> None:
        for call in (lambda: packer.pack([2]), lambda: packer.pack_into([2], bytearray())):
            try:
                call()
            except RuntimeError as exc:
                errors.append(exc)

    def default(obj: Any) -> Any:
        # The first call is inside pack() while the other thread runs, start to end.
        thread = threading.Thread(target=other_thread)
        thread.start()
        thread.join()
        return 1

    packer = Packer(default=default)
    results.append(packer.pack([Opaque(), "a"]))
    assert results == [b"\x92\x01\xa1a"]
    assert len(errors) == 2
    assert all(BUSY in str(e) for e in errors)
    worker = threading.Thread(target=lambda: results.append(packer.pack([3])))
    worker.start()
    worker.join()
    assert results[-1] == b"\x91\x03"


def test_threads_sharing_a_packer_get_errors_never_wrong_bytes() -> None:
    # The default runs Python code, where the interpreter switches threads.
    def default(obj: Any) -> Any:
        return [sum(range(50)) for _ in range(3)]

    packer = Packer(default=default)
    values = [[i, Opaque(), "v" * i] for i in range(64)]
    expected = [fastmsgpack.packb(v, default=default) for v in values]
    outcomes = {"ok": 0, "busy": 0}
    wrong: list[int] = []
    lock = threading.Lock()

    def work() -> None:
        buffer = bytearray()
        for round_ in range(150):
            i = round_ % len(values)
            try:
                if round_ % 2:
                    out = packer.pack(values[i])
                else:
                    packer.pack_into(values[i], buffer)
                    out = bytes(buffer)
            except RuntimeError:
                with lock:
                    outcomes["busy"] += 1
                continue
            with lock:
                outcomes["ok"] += 1
                if out != expected[i]:
                    wrong.append(i)

    old = sys.getswitchinterval()
    sys.setswitchinterval(1e-6)
    try:
        threads = [threading.Thread(target=work) for _ in range(4)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
    finally:
        sys.setswitchinterval(old)
    assert wrong == []
    assert outcomes["ok"] + outcomes["busy"] == 600
    assert outcomes["ok"] > 0


def test_a_packer_in_a_reference_cycle_is_collected() -> None:
    class Owner:
        def __init__(self) -> None:
            self.packer = Packer(default=self.convert)

        def convert(self, obj: Any) -> Any:
            return None

    owner = Owner()
    assert owner.packer.pack([Opaque()]) == b"\x91\xc0"
    ref = weakref.ref(owner)
    del owner
    gc.collect()
    assert ref() is None


ITERATIONS = 20_000
WARMUP = 1_000


def _raising(obj: Any) -> Any:
    raise ValueError("no")


DOC = {"items": [{"id": i, "name": f"item {i}", "tags": ["a", "b"]} for i in range(40)]}
MEDIUM = [DOC] * 20  # about 20 KB: outgrows the 1 KiB start
BIG = [DOC] * 2000  # about 1.4 MB: outgrows the 1 MiB a Packer keeps, on every call
PACKER = Packer(default=lambda obj: [1, "converted"])
RAISING = Packer(default=_raising)
BUFFER = bytearray()


def _fails(call: Callable[[], Any]) -> Callable[[], None]:
    def run() -> None:
        try:
            call()
        except (MsgpackEncodeError, ValueError, TypeError):
            return
        raise AssertionError("call was expected to fail")

    return run


class _Failing:
    def write(self, data: bytes) -> None:
        raise ValueError("write failed")


CASES: dict[str, Callable[[], Any]] = {
    "pack": lambda: PACKER.pack([DOC, Opaque()]),
    "pack-medium": lambda: PACKER.pack(MEDIUM),
    "pack_into": lambda: PACKER.pack_into([DOC, Opaque()], BUFFER, 0),
    "pack_into-medium": lambda: PACKER.pack_into(MEDIUM, BUFFER, 0),
    "pack-medium-raises": _fails(lambda: RAISING.pack([MEDIUM, Opaque()])),
    "pack-fp": lambda: fastmsgpack.pack(DOC, io.BytesIO()),
    "pack-raises": _fails(lambda: RAISING.pack([DOC, Opaque()])),
    "pack_into-raises": _fails(lambda: RAISING.pack_into([MEDIUM, Opaque()], BUFFER, 0)),
    "pack_into-offset": _fails(lambda: PACKER.pack_into(DOC, bytearray(), 1)),
    "pack_into-type": _fails(lambda: PACKER.pack_into(DOC, b"")),  # type: ignore[arg-type]
    "pack-write-raises": _fails(lambda: fastmsgpack.pack(DOC, _Failing())),
    "pack-no-write": _fails(lambda: fastmsgpack.pack(DOC, 1)),  # type: ignore[arg-type]
    "construct": lambda: Packer(default=_raising, option=fastmsgpack.OPT_SORT_KEYS),
    "construct-bad": _fails(lambda: Packer(option=1 << 40)),
}
# Few calls, as each writes 1.4 MB: a leaked output would still add 1.4 MB of RSS per call.
BIG_CASES: dict[str, Callable[[], Any]] = {
    "pack-big": lambda: PACKER.pack(BIG),
    "pack_into-big": lambda: PACKER.pack_into(BIG, BUFFER, 0),
    "pack-big-raises": _fails(lambda: RAISING.pack([BIG, Opaque()])),
    "pack_into-big-raises": _fails(lambda: RAISING.pack_into([BIG, Opaque()], BUFFER, 0)),
}


@pytest.mark.parametrize("name", [*CASES, *BIG_CASES])
def test_memory_is_flat(name: str) -> None:
    call = CASES.get(name) or BIG_CASES[name]
    iterations = ITERATIONS if name in CASES else 300
    process = psutil.Process()
    for _ in range(WARMUP if name in CASES else 30):
        call()
    gc.collect()
    rss_before = process.memory_info().rss
    blocks_before = sys.getallocatedblocks()
    for _ in range(iterations):
        call()
    gc.collect()
    rss_growth = process.memory_info().rss - rss_before
    block_growth = sys.getallocatedblocks() - blocks_before
    assert rss_growth < 8 * 2**20, f"RSS grew by {rss_growth} bytes"
    assert block_growth < 1_000, f"{block_growth} more allocated blocks"


def test_refcounts_unchanged() -> None:
    default = _raising
    converting = PACKER
    doc = {"k": [1, 2.5, "x" * 100]}
    opaque = Opaque()
    buffer = bytearray()
    stream = io.BytesIO()
    packer = Packer(default=default)
    tracked: list[Any] = [default, converting, doc, opaque, buffer, stream, packer]
    before = [sys.getrefcount(obj) for obj in tracked]
    for _ in range(2_000):
        converting.pack([doc, opaque])
        converting.pack_into([doc, opaque], buffer)
        fastmsgpack.pack(doc, stream)
        _fails(lambda: packer.pack([doc, opaque]))()
        _fails(lambda: packer.pack_into([doc, opaque], buffer, 0))()
        _fails(lambda: packer.pack_into(doc, buffer, len(buffer) + 1))()
    gc.collect()
    after = [sys.getrefcount(obj) for obj in tracked]
    assert after == before
