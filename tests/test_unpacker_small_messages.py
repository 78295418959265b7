"""An Unpacker fed many small messages at once decodes them in runs and hands them out one by one:
what the caller sees (each object, ``tell()``, ``skip()``, ``max_buffer_size``, errors at the
message that has them, hooks called as each message is taken) is what it sees when each message is
decoded as it is asked for, with msgpack-python's Unpacker as the oracle."""

from __future__ import annotations

import dataclasses
import gc
import random
from collections.abc import Callable
from typing import Any

import msgpack  # type: ignore[import-untyped]
import pytest

import fastmsgpack
from fastmsgpack import BufferFull, MsgpackDecodeError, OutOfData, Unpacker


def message(rng: random.Random, i: int) -> Any:
    kind = rng.randrange(6)
    if kind == 0:
        return {"id": i, "name": f"n{i}", "p": [i / 3, -i / 7]}
    if kind == 1:
        return i
    if kind == 2:
        return [i, "x" * rng.randrange(40), None, True]
    if kind == 3:
        return {"k": {"deep": [i] * rng.randrange(5)}, "b": bytes(rng.randrange(3))}
    if kind == 4:
        # Now and then a larger one among the small: 300 to 3,000 bytes.
        return "y" * rng.randrange(300, 3000)
    return []


def stream_of(messages: list[Any]) -> bytes:
    return b"".join(msgpack.packb(m, use_bin_type=True) for m in messages)


def step(unpacker: Any, op: str) -> tuple[Any, ...]:
    """One call on an Unpacker, as what it returned or the name of what it raised."""
    try:
        if op == "next":
            return ("obj", next(unpacker))
        if op == "unpack":
            return ("obj", unpacker.unpack())
        unpacker.skip()
        return ("skipped",)
    except StopIteration:
        return ("end",)
    except (OutOfData, msgpack.OutOfData):
        return ("out of data",)


@pytest.mark.parametrize("seed", range(12))
def test_calls_in_any_order_give_each_message_once_and_tell_its_offset(seed: int) -> None:
    rng = random.Random(seed)
    messages = [message(rng, i) for i in range(400)]
    packed = [fastmsgpack.packb(m) for m in messages]
    ends = [sum(map(len, packed[: k + 1])) for k in range(len(packed))]
    stream = b"".join(packed)
    unpacker = Unpacker()
    fed = 0
    k = 0  # the next message
    while k < len(messages):
        if rng.random() < 0.15 and fed < len(stream):
            piece = stream[fed : fed + rng.choice([1, 7, 64, 500, 4096, 70000])]
            fed += len(piece)
            unpacker.feed(piece)
            continue
        op = rng.choice(["next", "next", "next", "unpack", "skip"])
        got = step(unpacker, op)
        if ends[k] > fed:
            assert got == (("end",) if op == "next" else ("out of data",))
        else:
            assert got == (("skipped",) if op == "skip" else ("obj", messages[k]))
            k += 1
        assert unpacker.tell() == (ends[k - 1] if k else 0)
    assert step(unpacker, "next") == ("end",)


@pytest.mark.parametrize("seed", range(12))
def test_messages_read_as_msgpack_python_reads_them(seed: int) -> None:
    rng = random.Random(50 + seed)
    stream = stream_of([message(rng, i) for i in range(400)])
    ours = Unpacker()
    theirs = msgpack.Unpacker(raw=False)
    at = 0
    while at < len(stream):
        if rng.random() < 0.15:
            piece = stream[at : at + rng.choice([1, 7, 64, 500, 4096, 70000])]
            at += len(piece)
            ours.feed(piece)
            theirs.feed(piece)
            continue
        op = rng.choice(["next", "unpack"])
        got = step(ours, op)
        assert got == step(theirs, op), op
        if got[0] == "obj":
            # msgpack-python's tell() also counts the bytes of an object it has begun to read:
            # the two agree after each whole one.
            assert ours.tell() == theirs.tell()
    assert list(ours) == list(theirs)
    assert ours.tell() == theirs.tell() == len(stream)


@pytest.mark.parametrize("seed", range(6))
def test_max_buffer_size_counts_the_bytes_of_messages_not_yet_taken(seed: int) -> None:
    rng = random.Random(100 + seed)
    messages = [{"id": i, "name": f"n{i}"} for i in range(300)]
    stream = stream_of(messages)
    limit = 200
    ours = Unpacker(max_buffer_size=limit)
    theirs = msgpack.Unpacker(raw=False, max_buffer_size=limit)
    taken: list[Any] = []
    at = 0
    refused = 0

    def take() -> bool:
        got = step(ours, "next")
        assert got == step(theirs, "next")
        whole: bool = got[0] == "obj"
        if whole:
            taken.append(got[1])
        return whole

    while at < len(stream):
        piece = stream[at : at + rng.randrange(1, 120)]
        results = []
        for unpacker, full in ((ours, BufferFull), (theirs, msgpack.BufferFull)):
            try:
                unpacker.feed(piece)
                results.append("fed")
            except full:
                results.append("full")
        assert results[0] == results[1]
        if results[0] == "fed":
            at += len(piece)
        else:
            refused += 1
        took = [take() for _ in range(rng.randrange(4))]
        if results[0] == "full" and not any(took):
            take()  # so that the stream goes on
    taken.extend(ours)
    assert taken == messages
    assert refused > 0


def test_tell_is_the_offset_of_each_next_message() -> None:
    messages = [{"id": i, "p": [i / 3]} for i in range(2000)]
    packed = [fastmsgpack.packb(m) for m in messages]
    unpacker = Unpacker()
    unpacker.feed(b"".join(packed))
    offset = 0
    for m, data in zip(messages, packed):
        assert unpacker.tell() == offset
        assert unpacker.unpack() == m
        offset += len(data)
    assert unpacker.tell() == offset
    with pytest.raises(OutOfData):
        unpacker.unpack()


def test_an_error_is_raised_at_its_message_and_the_stream_goes_on() -> None:
    good = [fastmsgpack.packb({"id": i, "name": f"n{i}"}) for i in range(100)]
    bad = b"\x81\xa2id\xa2\xff\xfe"  # {"id": <invalid UTF-8>}
    stream = b"".join(good[:50]) + bad + b"".join(good[50:])
    unpacker = Unpacker()
    unpacker.feed(stream)
    for i in range(50):
        assert next(unpacker) == {"id": i, "name": f"n{i}"}
    bad_offset = len(b"".join(good[:50]))
    assert unpacker.tell() == bad_offset
    with pytest.raises(MsgpackDecodeError) as raised:
        next(unpacker)
    assert raised.value.offset == bad_offset + 4  # the str's first byte
    assert unpacker.tell() == bad_offset + len(bad)
    assert list(unpacker) == [{"id": i, "name": f"n{i}"} for i in range(50, 100)]


def test_feeding_between_messages_keeps_their_order() -> None:
    messages = [{"id": i, "name": f"n{i}"} for i in range(3000)]
    stream = stream_of(messages)
    unpacker = Unpacker()
    out: list[Any] = []
    # Pieces that cut messages, fed after taking only part of what the last piece completed.
    for i in range(0, len(stream), 997):
        unpacker.feed(stream[i : i + 997])
        for _ in range(7):
            try:
                out.append(unpacker.unpack())
            except OutOfData:
                break
    out.extend(unpacker)
    assert out == messages


def counting_hook(calls: list[int]) -> Callable[[int, bytes], Any]:
    def hook(code: int, data: bytes) -> Any:
        calls.append(code)
        return (code, data)

    return hook


def test_ext_hook_is_called_as_each_message_is_taken() -> None:
    calls: list[int] = []
    unpacker = Unpacker(ext_hook=counting_hook(calls))
    unpacker.feed(b"".join(fastmsgpack.packb([i, fastmsgpack.Ext(5, b"x")]) for i in range(50)))
    for i in range(50):
        assert next(unpacker) == [i, (5, b"x")]
        assert len(calls) == i + 1


@dataclasses.dataclass
class Event:
    id: int

    def __post_init__(self) -> None:
        SEEN.append(self.id)


SEEN: list[int] = []


def test_typed_messages_are_built_as_each_is_taken() -> None:
    SEEN.clear()
    unpacker = Unpacker(type=Event)
    unpacker.feed(b"".join(fastmsgpack.packb({"id": i}) for i in range(40)))
    for i in range(40):
        assert next(unpacker).id == i
        assert SEEN == list(range(i + 1))


def test_messages_decoded_ahead_are_seen_by_the_garbage_collector() -> None:
    unpacker = Unpacker()
    unpacker.feed(b"".join(fastmsgpack.packb([i]) for i in range(10)))
    assert next(unpacker) == [0]
    held = gc.get_referents(unpacker)
    second = next(unpacker)
    assert second == [1]
    assert any(obj is second for obj in held)


def test_no_collection_runs_while_a_stream_of_small_messages_is_read() -> None:
    # As unpackb pauses the collector while it builds one large document, the Unpacker pauses it
    # while it builds each message: a collection over the messages kept so far would find
    # nothing to free in them.
    stream = stream_of([{"id": i, "name": f"n{i}", "p": [i / 3, -i / 7]} for i in range(20000)])
    starts: list[int] = []

    def count(phase: str, info: dict[str, Any]) -> None:
        if phase == "start":
            starts.append(info["generation"])

    pieces = [stream[i : i + 65536] for i in range(0, len(stream), 65536)]
    unpacker = Unpacker()
    out: list[Any] = []
    gc.collect()
    gc.callbacks.append(count)
    try:
        assert gc.isenabled()
        # Most pieces end inside a message, decoded whole once the next piece is fed.
        for piece in pieces:
            unpacker.feed(piece)
            out.extend(unpacker)
    finally:
        gc.callbacks.remove(count)
    assert len(out) == 20000
    assert starts == []
    assert gc.isenabled()
