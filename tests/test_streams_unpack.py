"""Unpacker (fed by hand or reading a file-like object) and unpack(fp): objects from streams,
against msgpack-python's Unpacker as the oracle where both read the same stream."""

from __future__ import annotations

import io
import sys
import threading
from pathlib import Path
from typing import Any

import msgpack  # type: ignore[import-untyped]
import pytest
from conftest import DATA
from hypothesis import given
from hypothesis import strategies as st

import fastmsgpack
from fastmsgpack import BufferFull, MsgpackDecodeError, OutOfData, Unpacker

MESSAGES: list[Any] = [
    {"id": 1, "tags": ["a", "b"], "blob": b"\x00\x01"},
    [1.5, None, True, False, -7, 2**63],
    "é" * 40,
    b"x" * 70000,
    {"nested": {"deeper": [[], {}, [[[1]]]]}},
    0,
]
STREAM = b"".join(fastmsgpack.packb(m) for m in MESSAGES)


def fed_in_pieces(stream: bytes, size: int, **kwargs: Any) -> list[Any]:
    unpacker = Unpacker(**kwargs)
    out: list[Any] = []
    for i in range(0, len(stream), size):
        unpacker.feed(stream[i : i + size])
        out.extend(unpacker)
    return out


@pytest.mark.parametrize("size", [1, 2, 3, 7, 64, 65536, len(STREAM)])
def test_every_object_whatever_the_pieces(size: int) -> None:
    assert fed_in_pieces(STREAM, size) == MESSAGES


@pytest.mark.parametrize("kind", [bytes, bytearray, memoryview])
def test_feed_takes_bytes_like(kind: Any) -> None:
    unpacker = Unpacker()
    unpacker.feed(kind(STREAM))
    assert list(unpacker) == MESSAGES


def test_msgpack_c_streams_read_like_msgpack_python() -> None:
    for name in ("cases.mpac", "cases_compact.mpac"):
        data = (DATA / "msgpack-c" / name).read_bytes()
        theirs = list(msgpack.Unpacker(io.BytesIO(data), raw=False, strict_map_key=False))
        assert list(Unpacker(io.BytesIO(data))) == theirs
        assert len(theirs) == 51


@given(
    st.lists(
        st.recursive(
            st.none() | st.integers(-(2**63), 2**64 - 1) | st.text(),
            lambda c: st.lists(c, max_size=4) | st.dictionaries(st.text(max_size=4), c, max_size=4),
            max_leaves=10,
        ),
        max_size=8,
    ),
    st.integers(1, 50),
)
def test_any_stream_like_msgpack_python(values: list[Any], size: int) -> None:
    stream = b"".join(fastmsgpack.packb(v) for v in values)
    theirs = msgpack.Unpacker(raw=False)
    ours = Unpacker()
    got_theirs: list[Any] = []
    got_ours: list[Any] = []
    for i in range(0, len(stream), size):
        theirs.feed(stream[i : i + size])
        ours.feed(stream[i : i + size])
        got_theirs.extend(theirs)
        got_ours.extend(ours)
        assert got_ours == got_theirs
    assert got_ours == values
    assert ours.tell() == theirs.tell() == len(stream)


def test_unpack_raises_out_of_data_until_the_object_is_complete() -> None:
    packed = fastmsgpack.packb({"a": [1, 2, 3]})
    unpacker = Unpacker()
    for byte in packed[:-1]:
        unpacker.feed(bytes([byte]))
        with pytest.raises(OutOfData):
            unpacker.unpack()
        assert list(unpacker) == []
    unpacker.feed(packed[-1:])
    assert unpacker.unpack() == {"a": [1, 2, 3]}
    with pytest.raises(OutOfData):
        unpacker.unpack()
    assert issubclass(OutOfData, MsgpackDecodeError)
    assert issubclass(BufferFull, MsgpackDecodeError)


def test_skip_and_tell() -> None:
    unpacker = Unpacker()
    unpacker.feed(STREAM)
    ends = []
    offset = 0
    for message in MESSAGES:
        offset += len(fastmsgpack.packb(message))
        ends.append(offset)
    unpacker.skip()
    assert unpacker.tell() == ends[0]
    assert unpacker.unpack() == MESSAGES[1]
    assert unpacker.tell() == ends[1]
    for _ in MESSAGES[2:]:
        unpacker.skip()
    assert unpacker.tell() == len(STREAM)
    with pytest.raises(OutOfData):
        unpacker.skip()


def test_a_huge_declared_length_allocates_nothing() -> None:
    import tracemalloc

    for header in (b"\xdb\xff\xff\xff\xff", b"\xdd\xff\xff\xff\xff", b"\xdf\xff\xff\xff\xff"):
        # With room for what the header declares, the Unpacker waits for the bytes.
        unpacker = Unpacker(max_buffer_size=1 << 40)
        tracemalloc.start()
        unpacker.feed(header)
        assert list(unpacker) == []
        with pytest.raises(OutOfData):
            unpacker.unpack()
        _, peak = tracemalloc.get_traced_memory()
        tracemalloc.stop()
        assert peak < 1 << 20
    # The bytes of the 4 GiB string never come: the process did not reserve them either.
    import psutil  # type: ignore[import-untyped]

    assert psutil.Process().memory_info().rss < 4 << 30


def test_a_declared_length_over_max_buffer_size_is_refused_at_its_header() -> None:
    # The object could never be read: BufferFull as soon as its header is whole, not once
    # max_buffer_size bytes of it have come; the stream stops there.
    for header in (b"\xdb\xff\xff\xff\xff", b"\xdd\xff\xff\xff\xff", b"\xdf\xff\xff\xff\xff"):
        unpacker = Unpacker()
        unpacker.feed(header[:-1])
        assert list(unpacker) == []
        unpacker.feed(header[-1:])
        for _ in range(2):
            with pytest.raises(BufferFull, match="declares at least"):
                unpacker.unpack()


def test_buffer_full_keeps_what_was_fed() -> None:
    unpacker = Unpacker(max_buffer_size=10)
    unpacker.feed(b"\x01\x02\x03")
    with pytest.raises(BufferFull, match="max_buffer_size"):
        unpacker.feed(b"\x92" + b"\x04" * 8)
    assert list(unpacker) == [1, 2, 3]
    # Once consumed, the room is there again.
    unpacker.feed(b"\x92\x04\x05" + b"\x06" * 7)
    assert list(unpacker) == [[4, 5]] + [6] * 7


def test_an_object_larger_than_the_buffer_is_buffer_full() -> None:
    unpacker = Unpacker(io.BytesIO(fastmsgpack.packb(b"x" * 1000)), max_buffer_size=100)
    with pytest.raises(BufferFull):
        unpacker.unpack()


def test_malformed_bytes_stop_the_stream_at_their_offset() -> None:
    unpacker = Unpacker()
    unpacker.feed(b"\x01\x02\x92\x03\xc1\x04")
    assert unpacker.unpack() == 1
    assert unpacker.unpack() == 2
    for _ in range(3):
        with pytest.raises(MsgpackDecodeError, match="reserved marker byte 0xc1 at byte offset 4"):
            unpacker.unpack()
    with pytest.raises(MsgpackDecodeError, match="offset 4"):
        unpacker.feed(b"\x05")
        list(unpacker)


def test_an_object_that_cannot_be_built_is_consumed_and_the_next_one_read() -> None:
    unpacker = Unpacker()
    # 1, a str that is not UTF-8, a map with an int key (no OPT_NON_STR_KEYS), 2
    unpacker.feed(b"\x01" + b"\xa2\xff\xfe" + b"\x81\x01\x02" + b"\x02")
    assert unpacker.unpack() == 1
    with pytest.raises(MsgpackDecodeError, match="UTF-8 at byte offset 1"):
        unpacker.unpack()
    with pytest.raises(MsgpackDecodeError, match="map key must be str.* at byte offset 5"):
        unpacker.unpack()
    assert unpacker.unpack() == 2
    assert unpacker.tell() == 8


def test_options_and_ext_hook_apply_to_every_object() -> None:
    stream = fastmsgpack.packb({1: "a"}, option=fastmsgpack.OPT_NON_STR_KEYS) + fastmsgpack.packb(
        fastmsgpack.Ext(3, b"xy")
    )
    unpacker = Unpacker(ext_hook=lambda tag, data: (tag, data), option=fastmsgpack.OPT_NON_STR_KEYS)
    unpacker.feed(stream)
    assert list(unpacker) == [{1: "a"}, (3, b"xy")]

    def fails(tag: int, data: bytes) -> Any:
        raise KeyError(tag)

    unpacker = Unpacker(ext_hook=fails)
    unpacker.feed(fastmsgpack.packb(fastmsgpack.Ext(3, b"")) + b"\x07")
    with pytest.raises(MsgpackDecodeError) as info:
        unpacker.unpack()
    assert isinstance(info.value.__cause__, KeyError)
    assert unpacker.unpack() == 7


def test_bad_arguments() -> None:
    with pytest.raises(TypeError, match="read"):
        Unpacker(object())  # type: ignore[call-overload]
    with pytest.raises(ValueError):
        Unpacker(read_size=0)
    with pytest.raises(MsgpackDecodeError, match="OPT_SORT_KEYS not valid for Unpacker"):
        Unpacker(option=fastmsgpack.OPT_SORT_KEYS)
    with pytest.raises(TypeError, match="feed\\(\\) argument must be bytes"):
        Unpacker().feed("text")  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="cannot be used with file_like"):
        Unpacker(io.BytesIO(b"")).feed(b"\x01")


def test_file_like_is_read_a_piece_at_a_time(tmp_path: Path) -> None:
    path = tmp_path / "stream.msgpack"
    path.write_bytes(STREAM)
    with path.open("rb") as f:
        assert list(Unpacker(f, read_size=100)) == MESSAGES

    class Recorder(io.BytesIO):
        def __init__(self, data: bytes) -> None:
            super().__init__(data)
            self.sizes: list[int] = []

        def read(self, size: int | None = -1, /) -> bytes:
            self.sizes.append(-1 if size is None else size)
            return super().read(size)

    recorder = Recorder(STREAM)
    assert list(Unpacker(recorder, read_size=4096)) == MESSAGES
    assert max(recorder.sizes) <= 4096
    assert len(recorder.sizes) >= len(STREAM) // 4096


def test_a_truncated_file_ends_the_iteration_and_unpack_says_out_of_data() -> None:
    unpacker = Unpacker(io.BytesIO(STREAM[:-1]))
    assert list(unpacker) == MESSAGES[:-1]
    with pytest.raises(OutOfData):
        unpacker.unpack()


def test_a_read_error_propagates() -> None:
    class Broken(io.RawIOBase):
        def read(self, size: int = -1, /) -> bytes:
            raise OSError("disk gone")

    with pytest.raises(OSError, match="disk gone"):
        Unpacker(Broken()).unpack()


def test_reading_a_large_file_holds_about_one_object(tmp_path: Path) -> None:
    # 200 objects of 100 KB: 20 MB, read 64 KiB at a time.
    path = tmp_path / "big.msgpack"
    item = fastmsgpack.packb({"payload": b"p" * 100_000})
    path.write_bytes(item * 200)
    import tracemalloc

    tracemalloc.start()
    count = 0
    with path.open("rb") as f:
        for obj in Unpacker(f):
            count += len(obj["payload"]) == 100_000
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    assert count == 200
    assert peak < 2_000_000, peak


def test_two_threads_get_an_exception_not_corrupted_state() -> None:
    unpacker = Unpacker(option=fastmsgpack.OPT_NON_STR_KEYS)
    stream = b"".join(fastmsgpack.packb(fastmsgpack.Ext(1, b"x")) for _ in range(2)) + b"\x09"
    unpacker.feed(stream)
    errors: list[BaseException] = []

    def hook(tag: int, data: bytes) -> Any:
        # While the Unpacker is inside unpack(), another thread uses it.
        def other() -> None:
            try:
                unpacker.unpack()
            except BaseException as exc:  # noqa: BLE001
                errors.append(exc)

        thread = threading.Thread(target=other)
        thread.start()
        thread.join()
        return data

    unpacker = Unpacker(ext_hook=hook)
    unpacker.feed(stream)
    assert unpacker.unpack() == b"x"
    assert len(errors) == 1 and isinstance(errors[0], RuntimeError)
    # The Unpacker carries on where it was.
    assert unpacker.unpack() == b"x"
    assert unpacker.unpack() == 9


def test_unpack_reads_one_object_from_a_file(tmp_path: Path) -> None:
    path = tmp_path / "one.msgpack"
    path.write_bytes(fastmsgpack.packb(MESSAGES))
    with path.open("rb") as f:
        assert fastmsgpack.unpack(f) == MESSAGES
    with pytest.raises(MsgpackDecodeError, match="trailing"):
        fastmsgpack.unpack(io.BytesIO(STREAM))
    with pytest.raises(TypeError, match="fp.read\\(\\) returns must be bytes"):
        fastmsgpack.unpack(io.StringIO("text"))  # type: ignore[call-overload]
    assert (
        fastmsgpack.unpack(
            io.BytesIO(b"\xd6\xff\x00\x00\x00\x01"),
            option=fastmsgpack.OPT_DATETIME_AS_TIMESTAMP_EXT,
        ).timestamp()
        == 1
    )


def test_unpackb_accepts_an_mmap(tmp_path: Path) -> None:
    import mmap

    path = tmp_path / "map.msgpack"
    path.write_bytes(fastmsgpack.packb(MESSAGES))
    with path.open("rb") as f, mmap.mmap(f.fileno(), 0, access=mmap.ACCESS_READ) as view:
        assert fastmsgpack.unpackb(view) == MESSAGES
        unpacker = Unpacker()
        unpacker.feed(view)
        assert unpacker.unpack() == MESSAGES


def test_reference_counts_unchanged() -> None:
    hook = lambda tag, data: data
    before = sys.getrefcount(hook)
    for _ in range(50):
        unpacker = Unpacker(ext_hook=hook)
        unpacker.feed(STREAM + fastmsgpack.packb(fastmsgpack.Ext(1, b"z")) + b"\xc1")
        for _ in range(len(MESSAGES) + 1):
            unpacker.unpack()
        with pytest.raises(MsgpackDecodeError):
            unpacker.unpack()
        del unpacker
    assert sys.getrefcount(hook) == before


def test_ext_hook_is_called_once_per_value_whatever_the_pieces() -> None:
    calls: list[tuple[int, bytes]] = []

    def hook(tag: int, data: bytes) -> Any:
        calls.append((tag, data))
        return data

    values = [[fastmsgpack.Ext(1, b"a"), fastmsgpack.Ext(2, b"b" * 300)], fastmsgpack.Ext(3, b"")]
    stream = b"".join(fastmsgpack.packb(v) for v in values)
    for size in (1, 5, len(stream)):
        calls.clear()
        assert fed_in_pieces(stream, size, ext_hook=hook) == [[b"a", b"b" * 300], b""]
        assert calls == [(1, b"a"), (2, b"b" * 300), (3, b"")]


def test_cycles_through_the_file_or_the_hook_are_collected() -> None:
    import gc
    import weakref

    class Source(io.BytesIO):
        unpacker: Unpacker[Any]

    source = Source(STREAM)
    source.unpacker = Unpacker(source)
    assert list(source.unpacker) == MESSAGES
    gone = weakref.ref(source)
    del source
    gc.collect()
    assert gone() is None

    raised: list[BaseException] = []

    def hook(tag: int, data: bytes) -> Any:
        error = KeyError(tag)
        raised.append(error)  # the error's traceback holds the frames, and so the Unpacker
        raise error

    def read_one() -> weakref.ref[Unpacker[Any]]:
        unpacker = Unpacker(ext_hook=hook)
        unpacker.feed(fastmsgpack.packb(fastmsgpack.Ext(1, b"")))
        with pytest.raises(MsgpackDecodeError):
            unpacker.unpack()
        return weakref.ref(unpacker)

    refs = [read_one() for _ in range(20)]
    raised.clear()
    gc.collect()
    assert all(ref() is None for ref in refs)


def test_an_empty_container_too_deep_is_refused_like_unpackb() -> None:
    deep = b"\x92" + b"\x91" * 1023 + b"\x90"
    with pytest.raises(MsgpackDecodeError, match="deeper than 1024 levels at byte offset 1024"):
        fastmsgpack.unpackb(deep)
    unpacker = Unpacker()
    unpacker.feed(deep)
    with pytest.raises(MsgpackDecodeError, match="deeper than 1024 levels at byte offset 1024"):
        unpacker.unpack()
    with pytest.raises(MsgpackDecodeError, match="deeper than 1024 levels at byte offset 1024"):
        fastmsgpack.Fragment(deep)


def test_large_objects_then_small_ones_in_pieces_give_every_object() -> None:
    # After a large object, a short piece most likely holds only the start of the next one: the
    # Unpacker waits for it whole. Small objects after it, a malformed one among them, still come
    # out one by one, as unpackb reads them.
    big = [{"id": i, "name": f"n{i}", "tags": ["a", "b"]} for i in range(5000)]
    values: list[Any] = [big, big, 1, "x", {"a": [1, 2]}, big, None]
    data = b"".join(fastmsgpack.packb(v) for v in values)
    for size in (1, 7, 4096, 60000):
        unpacker = Unpacker()
        got: list[Any] = []
        for start in range(0, len(data), size):
            unpacker.feed(data[start : start + size])
            got.extend(unpacker)
        assert got == values
    bad = fastmsgpack.packb(big) + b"\x01\xc1\x02"
    unpacker = Unpacker()
    unpacker.feed(bad[:1000])
    assert list(unpacker) == []
    unpacker.feed(bad[1000:])
    assert next(unpacker) == big
    assert next(unpacker) == 1
    with pytest.raises(MsgpackDecodeError):
        next(unpacker)


@pytest.mark.parametrize("max_buffer_size", [200_000, 1 << 20, 100 << 20])
def test_large_objects_in_pieces_whatever_max_buffer_size(max_buffer_size: int) -> None:
    # The buffer grows as the pieces of a large object arrive (past its first piece, to 1 MiB
    # at least, but never past max_buffer_size): lists of floats, ints and short strs, and bins,
    # below, at and above both sizes, each read whole and nothing else in between.
    values: list[Any] = [
        [i / 7 for i in range(20_000)],
        b"b" * 150_000,
        [i * 3 for i in range(100_000)],
        {f"k{i}": [f"s{i}", i] for i in range(5000)},
        b"c" * 199_000,
        [f"s{i % 97}" for i in range(150_000)],
        b"d" * 1_500_000,
        7,
    ]
    for size in (4096, 65536):
        # The objects that fit with a piece of the next one beside them.
        fitting = [v for v in values if len(fastmsgpack.packb(v)) + size <= max_buffer_size]
        data = b"".join(fastmsgpack.packb(v) for v in fitting)
        assert fed_in_pieces(data, size, max_buffer_size=max_buffer_size) == fitting
        assert len(fitting) >= 2
