"""unpack(fp, type=T) and Unpacker(..., type=T): each object of a stream decoded as T."""

from __future__ import annotations

import dataclasses
import datetime
import io
from typing import Any

import pytest

import fastmsgpack
from fastmsgpack import MsgpackDecodeError, OutOfData, Unpacker, ValidationError, packb


@dataclasses.dataclass
class Event:
    seq: int
    at: datetime.datetime
    tags: list[str]


def events(n: int) -> list[Event]:
    base = datetime.datetime(2024, 1, 1, tzinfo=datetime.timezone.utc)
    return [
        Event(i, base + datetime.timedelta(seconds=i), [f"t{i % 3}"] * (i % 4)) for i in range(n)
    ]


def test_unpack_from_a_file(tmp_path: Any) -> None:
    path = tmp_path / "events.msgpack"
    with path.open("wb") as f:
        fastmsgpack.pack(events(50), f)
    with path.open("rb") as f:
        assert fastmsgpack.unpack(f, type=list[Event]) == events(50)


@pytest.mark.parametrize("piece", [1, 7, 64, 100_000])
def test_unpacker_fed_in_pieces(piece: int) -> None:
    stream = b"".join(packb(e) for e in events(40))
    unpacker = Unpacker(type=Event)
    out: list[Event] = []
    for i in range(0, len(stream), piece):
        unpacker.feed(stream[i : i + piece])
        out.extend(unpacker)
    assert out == events(40)
    assert all(type(e) is Event for e in out)
    with pytest.raises(OutOfData):
        unpacker.unpack()


def test_unpacker_reads_a_file() -> None:
    stream = io.BytesIO(b"".join(packb(e) for e in events(30)))
    assert list(Unpacker(stream, type=Event, read_size=16)) == events(30)


def test_a_bad_object_raises_and_the_stream_goes_on() -> None:
    good = [packb(e) for e in events(3)]
    bad = packb({"seq": "x", "at": "2024-01-01T00:00:00", "tags": []})
    unpacker = Unpacker(type=Event)
    unpacker.feed(good[0] + bad + good[1])
    assert unpacker.unpack() == events(3)[0]
    with pytest.raises(ValidationError, match=r"expected int.*\$\.seq") as info:
        unpacker.unpack()
    # The offset counts from the start of the stream.
    offset = int(str(info.value).rsplit("byte offset ", 1)[1].rstrip(")"))
    assert offset > len(good[0])
    assert unpacker.unpack() == events(3)[1]


def test_malformed_bytes_stop_the_stream() -> None:
    unpacker = Unpacker(type=Event)
    unpacker.feed(b"\xc1" + packb(events(1)[0]))
    for _ in range(2):
        with pytest.raises(MsgpackDecodeError, match="reserved"):
            unpacker.unpack()


def test_unsupported_type_fails_when_the_unpacker_is_made() -> None:
    class Opaque:
        pass

    with pytest.raises(TypeError, match="dec_hook"):
        Unpacker(type=Opaque)
    unpacker = Unpacker(type=Opaque, dec_hook=lambda tp, obj: (tp, obj))
    unpacker.feed(packb([1]))
    # dec_hook builds the value: here a tuple, whatever the type says.
    assert unpacker.unpack() == (Opaque, [1])  # type: ignore[comparison-overlap]


def test_dec_hook_runs_once_per_object_whatever_the_pieces() -> None:
    calls: list[Any] = []

    class Cents:
        def __init__(self, v: int) -> None:
            self.v = v

    def hook(tp: type, obj: Any) -> Any:
        calls.append(obj)
        return tp(obj)

    stream = b"".join(packb([i, i + 1]) for i in range(10))
    unpacker = Unpacker(type=list[Cents], dec_hook=hook)
    out: list[list[Cents]] = []
    for i in range(0, len(stream), 3):
        unpacker.feed(stream[i : i + 3])
        out.extend(unpacker)
    assert [[c.v for c in pair] for pair in out] == [[i, i + 1] for i in range(10)]
    assert len(calls) == 20
