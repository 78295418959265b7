"""Out-of-band buffers (buffer_callback / buffers=), memoryview bins and zero-copy numpy views."""

from __future__ import annotations

import dataclasses
import enum
import mmap
import pickle
import socket
import struct
import tempfile
import threading
from typing import Any

import numpy as np
import pytest

import fastmsgpack
from fastmsgpack import (
    BUFFER_EXT_TYPE,
    DEFAULT_BUFFER_THRESHOLD,
    OPT_BIN_MEMORYVIEW,
    OPT_NUMPY_RAW,
    MsgpackDecodeError,
    Packer,
    Unpacker,
)


def pack_out_of_band(obj: Any, **kwargs: Any) -> tuple[bytes, list[pickle.PickleBuffer]]:
    buffers: list[pickle.PickleBuffer] = []
    data = fastmsgpack.packb(obj, buffer_callback=buffers.append, **kwargs)
    return data, buffers


def reference(index: int, length: int) -> bytes:
    return b"\xd8" + bytes([BUFFER_EXT_TYPE & 0xFF]) + struct.pack(">QQ", index, length)


def arrays() -> dict[str, np.ndarray]:
    return {f"a{i}": np.arange(4096, dtype="<f4") * i for i in range(4)}


# --- packing -----------------------------------------------------------------------------------


def test_large_bytes_go_to_the_callback_as_pickle_buffers() -> None:
    blob = b"x" * DEFAULT_BUFFER_THRESHOLD
    data, buffers = pack_out_of_band([blob, b"small"])
    assert data == b"\x92" + reference(0, len(blob)) + b"\xc4\x05small"
    assert len(buffers) == 1 and type(buffers[0]) is pickle.PickleBuffer
    assert buffers[0].raw().obj is blob


def test_every_buffer_type_goes_out_of_band() -> None:
    raw = bytes(range(256)) * 20
    values = [raw, bytearray(raw), memoryview(raw), pickle.PickleBuffer(raw)]
    data, buffers = pack_out_of_band(values)
    assert data == b"\x94" + b"".join(reference(i, len(raw)) for i in range(4))
    assert [bytes(b.raw()) for b in buffers] == [raw] * 4


def test_threshold_is_settable() -> None:
    data, buffers = pack_out_of_band([b"", b"ab"], buffer_threshold=0)
    assert data == b"\x92" + reference(0, 0) + reference(1, 2)
    data, buffers = pack_out_of_band(b"abc", buffer_threshold=4)
    assert data == b"\xc4\x03abc" and buffers == []
    with pytest.raises(ValueError, match="buffer_threshold"):
        fastmsgpack.packb(b"", buffer_callback=print, buffer_threshold=-1)
    with pytest.raises(TypeError, match="buffer_callback must be callable"):
        fastmsgpack.packb(b"", buffer_callback=3)  # type: ignore[arg-type]


def test_a_true_answer_keeps_the_buffer_in_band() -> None:
    # pickle protocol 5: a callback that returns a true value serializes the buffer in band.
    blob = bytes(10_000)
    offered: list[pickle.PickleBuffer] = []

    def keep(buffer: pickle.PickleBuffer) -> bool:
        offered.append(buffer)
        return True

    assert fastmsgpack.packb({"b": blob}, buffer_callback=keep) == fastmsgpack.packb({"b": blob})
    assert len(offered) == 1


def test_callback_errors_propagate() -> None:
    def fail(buffer: pickle.PickleBuffer) -> None:
        raise RuntimeError("no room")

    with pytest.raises(RuntimeError, match="no room"):
        fastmsgpack.packb(bytes(5000), buffer_callback=fail)


def test_pickle_buffer_packs_in_band_without_a_callback() -> None:
    assert fastmsgpack.packb(pickle.PickleBuffer(b"abc")) == b"\xc4\x03abc"


def test_numpy_arrays_go_out_of_band_with_dtype_and_shape_in_band() -> None:
    a = np.arange(2048, dtype=">i4").reshape(2, 1024)
    data, buffers = pack_out_of_band(a, option=OPT_NUMPY_RAW)
    assert data == (
        b"\x85\xc4\x02nd\xc3\xc4\x04type\xa3>i4\xc4\x04kind\xc4\x00"
        b"\xc4\x05shape\x92\x02\xcd\x04\x00\xc4\x04data" + reference(0, a.nbytes)
    )
    assert np.shares_memory(np.asarray(buffers[0]), a)


def test_non_contiguous_arrays_go_out_of_band_as_a_c_ordered_copy() -> None:
    a = np.arange(4096, dtype="<f8").reshape(64, 64).T
    data, buffers = pack_out_of_band(a, option=OPT_NUMPY_RAW)
    back = fastmsgpack.unpackb(data, option=OPT_NUMPY_RAW, buffers=buffers)
    assert np.array_equal(back, a) and back.flags.c_contiguous


def test_datetime_arrays_round_trip_out_of_band() -> None:
    a = np.arange(1000, dtype="<i8").astype("datetime64[ns]")
    data, buffers = pack_out_of_band(a, option=OPT_NUMPY_RAW)
    back = fastmsgpack.unpackb(data, option=OPT_NUMPY_RAW, buffers=buffers)
    assert back.dtype == a.dtype and np.array_equal(back, a)


def test_same_buffer_count_as_pickle_protocol_5() -> None:
    obj = arrays()
    ours: list[pickle.PickleBuffer] = []
    theirs: list[pickle.PickleBuffer] = []
    fastmsgpack.packb(obj, option=OPT_NUMPY_RAW, buffer_callback=ours.append)
    pickle.dumps(obj, protocol=5, buffer_callback=theirs.append)
    assert [bytes(b.raw()) for b in ours] == [bytes(b.raw()) for b in theirs]


# --- unpacking ---------------------------------------------------------------------------------


def test_round_trip_shares_memory_with_the_buffers() -> None:
    obj = arrays()
    data, buffers = pack_out_of_band(obj, option=OPT_NUMPY_RAW)
    assert len(data) < 500
    back = fastmsgpack.unpackb(data, option=OPT_NUMPY_RAW, buffers=buffers)
    for key, a in obj.items():
        assert np.array_equal(back[key], a)
        assert np.shares_memory(back[key], a)
        assert back[key].flags.writeable  # the original arrays are writable


def test_arrays_are_writable_only_over_writable_buffers() -> None:
    obj = arrays()
    data, buffers = pack_out_of_band(obj, option=OPT_NUMPY_RAW)
    received = [bytearray(b.raw()) for b in buffers]
    back = fastmsgpack.unpackb(data, option=OPT_NUMPY_RAW, buffers=received)
    back["a1"][0] = 42
    assert np.frombuffer(received[1], "<f4")[0] == 42
    frozen = [bytes(b.raw()) for b in buffers]
    back = fastmsgpack.unpackb(data, option=OPT_NUMPY_RAW, buffers=frozen)
    assert not back["a2"].flags.writeable
    assert np.shares_memory(back["a2"], np.frombuffer(frozen[2], "u1"))


def test_bins_come_back_as_bytes_or_memoryview() -> None:
    blob = bytes(range(256)) * 40
    data, buffers = pack_out_of_band({"b": blob})
    given = bytes(buffers[0].raw())
    assert fastmsgpack.unpackb(data, buffers=[given])["b"] is given
    received = bytearray(given)
    back = fastmsgpack.unpackb(data, buffers=[received])["b"]
    assert type(back) is bytes and back == blob
    view = fastmsgpack.unpackb(data, buffers=[received], option=OPT_BIN_MEMORYVIEW)["b"]
    assert type(view) is memoryview and view.obj is received and not view.readonly
    view = fastmsgpack.unpackb(data, buffers=[given], option=OPT_BIN_MEMORYVIEW)["b"]
    assert view.obj is given and view.readonly


def test_buffers_may_be_any_iterable_of_buffers() -> None:
    obj = arrays()
    data, buffers = pack_out_of_band(obj, option=OPT_NUMPY_RAW)
    as_arrays = (np.asarray(b).copy() for b in buffers)  # a generator of float32 arrays
    back = fastmsgpack.unpackb(data, option=OPT_NUMPY_RAW, buffers=as_arrays)
    assert all(np.array_equal(back[k], obj[k]) for k in obj)


def test_arrays_view_any_c_contiguous_export_of_the_right_length() -> None:
    # The buffer object itself is viewed (not a memoryview cast of it): whatever its format and
    # shape, a C-contiguous export of the right length gives the array, sharing its memory.
    import array

    a = np.arange(4096, dtype="<f4")
    data, _ = pack_out_of_band({"a": a}, option=OPT_NUMPY_RAW)
    exports: list[Any] = [
        a.copy(),
        a.copy().reshape(64, 64),
        memoryview(a.copy()),
        memoryview(bytearray(a.tobytes())).cast("f", (32, 128)),
        array.array("f", a.tobytes()),
        pickle.PickleBuffer(a.copy()),
    ]
    for given in exports:
        back = fastmsgpack.unpackb(data, option=OPT_NUMPY_RAW, buffers=[given])["a"]
        assert back.dtype == a.dtype and np.array_equal(back, a), type(given)
        assert np.shares_memory(back, np.asarray(memoryview(given).cast("B"))), type(given)
    strided: list[Any] = [np.arange(8192, dtype="<f4")[::2]]
    with pytest.raises(MsgpackDecodeError, match="buffer 0 is not a C-contiguous buffer"):
        fastmsgpack.unpackb(data, option=OPT_NUMPY_RAW, buffers=strided)


def test_unpack_from_a_file_takes_buffers() -> None:
    import io

    data, buffers = pack_out_of_band({"b": bytes(5000)})
    assert fastmsgpack.unpack(io.BytesIO(data), buffers=buffers) == {"b": bytes(5000)}


@pytest.mark.parametrize(
    ("given", "message"),
    [
        (None, "no buffers were given"),
        ([], "reference to buffer 0, but only 0 buffers were given"),
        ([bytes(40)], "reference to buffer 1, but only 1 buffers were given"),
        ([bytes(40), bytes(40), b"x"], "more buffers were given than the 2"),
        ([bytes(40), bytes(39)], "buffer 1 holds 39 bytes, its reference 40"),
        ([bytes(40), bytes(41)], "buffer 1 holds 41 bytes, its reference 40"),
        ([bytes(40), 5], "buffer 1 is not a C-contiguous buffer"),
        ([bytes(40), np.zeros(20, "u4")[::2]], "buffer 1 is not a C-contiguous buffer"),
    ],
)
def test_missing_surplus_and_wrong_buffers_raise(given: list[Any] | None, message: str) -> None:
    sent: list[pickle.PickleBuffer] = []
    data = fastmsgpack.packb(
        [bytes(40), bytes(40)], buffer_callback=sent.append, buffer_threshold=1
    )
    with pytest.raises(MsgpackDecodeError, match=message):
        fastmsgpack.unpackb(data, buffers=given)


def test_a_buffers_iterable_that_raises() -> None:
    def broken() -> Any:
        raise OSError("gone")
        yield b""

    data = b"\x91" + reference(0, 1)
    with pytest.raises(MsgpackDecodeError) as info:
        fastmsgpack.unpackb(data, buffers=broken())
    assert isinstance(info.value.__cause__, OSError)
    with pytest.raises(TypeError, match="buffers must be an iterable"):
        fastmsgpack.unpackb(data, buffers=3)  # type: ignore[call-overload]


@pytest.mark.parametrize(
    ("data", "message"),
    [
        (b"\x92" + reference(1, 4) + reference(0, 4), "reference to buffer 1 where buffer 0"),
        (b"\x92" + reference(0, 4) + reference(0, 4), "reference to buffer 0 where buffer 1"),
        (b"\x91" + reference(2**64 - 1, 4), "reference to buffer 18446744073709551615"),
        (b"\xd7\x8f" + bytes(8), "payload is 8 bytes, not 16"),
        (b"\xc7\x11\x8f" + bytes(17), "payload is 17 bytes, not 16"),
        (b"\x91" + reference(0, 2**64 - 1), "buffer 0 holds 4 bytes"),
    ],
)
def test_bad_references_raise(data: bytes, message: str) -> None:
    with pytest.raises(MsgpackDecodeError, match=message):
        fastmsgpack.unpackb(data, buffers=[bytes(4), bytes(4)])


def raw_map(shape: Any, length: int, dtype: str = "<i4") -> bytes:
    return fastmsgpack.packb(
        {b"nd": True, b"type": dtype, b"kind": b"", b"shape": shape, b"data": b"@"},
        option=fastmsgpack.OPT_NON_STR_KEYS,
    ).replace(b"\xc4\x01@", reference(0, length))


@pytest.mark.parametrize(
    ("shape", "length", "buffer_len", "message"),
    [
        ([5], 20, 16, "buffer 0 holds 16 bytes, its reference 20"),
        ([5], 16, 16, "'data' length does not match dtype and shape"),
        ([-1], 16, 16, "'shape' holds a bad size"),
        ([-4, -1], 16, 16, "'shape' holds a bad size"),
        ([2**62, 2**62], 16, 16, "'shape' is too large"),
        ([2**40, 2**30], 16, 16, "'shape' is too large"),
        ([2**64 - 1], 16, 16, "'data' length does not match"),
        ([3], 12, 12, None),
    ],
)
def test_array_shapes_are_checked_against_the_buffer(
    shape: list[int], length: int, buffer_len: int, message: str | None
) -> None:
    data = raw_map(shape, length)
    buffer = bytearray(range(buffer_len))
    if message is None:
        back = fastmsgpack.unpackb(data, option=OPT_NUMPY_RAW, buffers=[buffer])
        assert np.shares_memory(back, np.frombuffer(buffer, "u1")) and back.shape == (3,)
        return
    with pytest.raises(MsgpackDecodeError, match=message):
        fastmsgpack.unpackb(data, option=OPT_NUMPY_RAW, buffers=[buffer])


def test_array_data_from_a_buffer_is_validated() -> None:
    data = raw_map([4], 4, "|b1")
    with pytest.raises(MsgpackDecodeError, match="bool byte other than 0 or 1"):
        fastmsgpack.unpackb(data, option=OPT_NUMPY_RAW, buffers=[b"\x00\x01\x02\x00"])


def test_references_need_buffers_even_without_numpy() -> None:
    data, buffers = pack_out_of_band(arrays(), option=OPT_NUMPY_RAW)
    plain = fastmsgpack.unpackb(data, buffers=buffers, option=fastmsgpack.OPT_NON_STR_KEYS)
    assert plain["a1"][b"data"] == np.arange(4096, dtype="<f4").tobytes()


# --- Packer, Unpacker and frames -----------------------------------------------------------


def test_packer_and_unpacker_across_messages() -> None:
    sent: list[pickle.PickleBuffer] = []
    packer = Packer(option=OPT_NUMPY_RAW, buffer_callback=sent.append, buffer_threshold=100)
    messages = [packer.pack({"n": i, "a": np.full(50, i, "<i8")}) for i in range(3)]
    assert len(sent) == 3
    unpacker = Unpacker(option=OPT_NUMPY_RAW, buffers=[b.raw() for b in sent])
    for i, piece in enumerate(messages):
        unpacker.feed(piece[:10])
        assert list(unpacker) == []
        unpacker.feed(piece[10:])
        (message,) = list(unpacker)
        assert message["n"] == i and np.shares_memory(message["a"], np.asarray(sent[i]))
    # Each message's references count from 0; the Unpacker takes the buffers in order.
    unpacker = Unpacker(option=OPT_NUMPY_RAW, buffers=iter(sent))
    unpacker.feed(b"".join(messages))
    back = list(unpacker)
    assert [m["n"] for m in back] == [0, 1, 2]
    assert all(np.shares_memory(m["a"], np.asarray(sent[i])) for i, m in enumerate(back))


def test_packb_frames_lists_the_message_and_its_buffers() -> None:
    obj: dict[str, Any] = {"arrays": arrays(), "blob": b"z" * 5000, "small": b"s"}
    frames = fastmsgpack.packb_frames(obj, option=OPT_NUMPY_RAW)
    data, buffers = pack_out_of_band(obj, option=OPT_NUMPY_RAW)
    assert type(frames[0]) is bytes and frames[0] == data
    assert [bytes(f) for f in frames[1:]] == [bytes(b.raw()) for b in buffers]
    assert all(type(f) is memoryview and f.ndim == 1 and f.format == "B" for f in frames[1:])
    assert memoryview(frames[1]).obj is obj["arrays"]["a0"]
    assert Packer(option=OPT_NUMPY_RAW).pack_frames(obj)[0] == data
    assert fastmsgpack.packb_frames(b"ab", buffer_threshold=2)[1:] == [memoryview(b"ab")]


class Colour(enum.Enum):
    RED = 1


@dataclasses.dataclass
class Blob:
    data: bytes


def test_out_of_band_packing_keeps_the_registry() -> None:
    # The registry, default and options reach the out-of-band path as they reach packb's.
    registry = fastmsgpack.Registry()
    registry.register(Colour, 5)
    registry.register(Blob, 6, encode=lambda b: b.data, decode=lambda data: Blob(bytes(data)))
    obj = {"c": Colour.RED, "b": Blob(b"x" * 5000), "raw": b"y" * 5000}
    in_band = fastmsgpack.packb(obj, registry=registry)
    data, buffers = pack_out_of_band(obj, registry=registry, buffer_threshold=100)
    assert len(buffers) == 2 and data != in_band
    back = fastmsgpack.unpackb(data, registry=registry, buffers=[b.raw() for b in buffers])
    assert back == {"c": Colour.RED, "b": Blob(b"x" * 5000), "raw": b"y" * 5000}
    # Colour.RED is the registry's extension 5 with or without out-of-band buffers.
    assert b"\xd4\x05\x01" in data and b"\xd4\x05\x01" in in_band
    packer = Packer(registry=registry, buffer_threshold=100)
    frames = packer.pack_frames(obj)
    assert frames[0] == data
    assert fastmsgpack.unpackb(frames[0], registry=registry, buffers=frames[1:]) == back


def test_frames_over_a_socket_pair_into_preallocated_memory() -> None:
    obj = {f"t{i}": np.random.default_rng(i).random((64, 128), dtype="<f4") for i in range(5)}
    left, right = socket.socketpair()
    arena = np.empty(8 << 20, dtype="u1")  # preallocated receive memory
    got: dict[str, Any] = {}

    def receive() -> None:
        def exactly(view: memoryview) -> None:
            while view:
                n = right.recv_into(view)
                assert n > 0
                view = view[n:]

        head = bytearray(8)
        exactly(memoryview(head))
        count, header_len = struct.unpack("<II", head)
        sizes = bytearray(8 * count)
        exactly(memoryview(sizes))
        header = bytearray(header_len)
        exactly(memoryview(header))
        buffers, offset = [], 0
        for (size,) in struct.iter_unpack("<Q", sizes):
            view = arena.data[offset : offset + size]
            exactly(view)
            buffers.append(view)
            offset += size
        got.update(fastmsgpack.unpackb(header, option=OPT_NUMPY_RAW, buffers=buffers))

    thread = threading.Thread(target=receive)
    thread.start()
    frames = fastmsgpack.packb_frames(obj, option=OPT_NUMPY_RAW)
    sizes = [memoryview(f).nbytes for f in frames[1:]]
    prefix = struct.pack("<II", len(sizes), len(frames[0])) + struct.pack(f"<{len(sizes)}Q", *sizes)
    pending = [memoryview(prefix), *(memoryview(f) for f in frames)]
    while pending:  # sendmsg may send part of the frames
        sent = left.sendmsg(pending)
        while sent:
            if sent >= pending[0].nbytes:
                sent -= pending.pop(0).nbytes
            else:
                pending[0], sent = pending[0][sent:], 0
    thread.join(timeout=30)
    left.close()
    right.close()
    assert set(got) == set(obj)
    for key, a in obj.items():
        assert np.array_equal(got[key], a)
        assert np.shares_memory(got[key], arena) and got[key].flags.writeable


# --- zero-copy reads from the input ------------------------------------------------------------


def test_bins_view_bytes_input() -> None:
    data = fastmsgpack.packb({"a": b"x" * 100, "b": [b"yz"]})
    back = fastmsgpack.unpackb(data, option=OPT_BIN_MEMORYVIEW)
    assert type(back["a"]) is memoryview and back["a"].obj is data and back["a"].readonly
    assert back["a"] == b"x" * 100 and back["b"][0] == b"yz"
    view = memoryview(b"\x00" + data)[1:]
    back = fastmsgpack.unpackb(view, option=OPT_BIN_MEMORYVIEW)
    assert back["a"].obj is view.obj and back["b"][0] == b"yz"


def test_bins_from_changeable_input_are_copies() -> None:
    data = bytearray(fastmsgpack.packb([b"abc"]))
    for source in (data, memoryview(data).toreadonly()):
        back = fastmsgpack.unpackb(source, option=OPT_BIN_MEMORYVIEW)[0]
        assert type(back) is memoryview and back.readonly and back.obj is not data
        data[-1:] = b"Z"
        assert bytes(back) == b"abc"
        data[-1:] = b"c"


def test_bin_memoryview_in_streams_and_typed_any() -> None:
    data = fastmsgpack.packb([b"abc"])
    unpacker = Unpacker(option=OPT_BIN_MEMORYVIEW)
    unpacker.feed(data)
    item = unpacker.unpack()[0]
    assert type(item) is memoryview and bytes(item) == b"abc"
    typed = fastmsgpack.unpackb(data, type=list[Any], option=OPT_BIN_MEMORYVIEW)
    assert type(typed[0]) is memoryview


def test_numpy_views_of_memoryview_of_bytes_and_read_only_mmap() -> None:
    a = np.arange(1000, dtype="<i8")
    data = fastmsgpack.packb({"a": a, "b": b"q" * 64}, option=OPT_NUMPY_RAW)
    view = memoryview(data)
    back = fastmsgpack.unpackb(view, option=OPT_NUMPY_RAW)
    assert not back["a"].flags.writeable and np.shares_memory(back["a"], np.frombuffer(data, "u1"))
    with tempfile.TemporaryFile() as f:
        f.write(data)
        f.flush()
        mapped = mmap.mmap(f.fileno(), 0, access=mmap.ACCESS_READ)
        back = fastmsgpack.unpackb(mapped, option=OPT_NUMPY_RAW | OPT_BIN_MEMORYVIEW)
        assert np.array_equal(back["a"], a) and not back["a"].flags.writeable
        assert back["b"].obj is mapped and back["b"] == b"q" * 64
        with pytest.raises(BufferError):
            mapped.close()  # the views keep the mapping open
        del back
        mapped.close()


def test_writable_mmap_and_bytearray_input_are_copied() -> None:
    a = np.arange(1000, dtype="<i8")
    data = fastmsgpack.packb(a, option=OPT_NUMPY_RAW)
    with tempfile.TemporaryFile() as f:
        f.write(data)
        f.flush()
        mapped = mmap.mmap(f.fileno(), 0)
        back = fastmsgpack.unpackb(mapped, option=OPT_NUMPY_RAW)
        assert back.flags.writeable and np.array_equal(back, a)
        mapped[-8:] = b"\xff" * 8
        assert back[-1] == 999
        del back
        mapped.close()
    back = fastmsgpack.unpackb(bytearray(data), option=OPT_NUMPY_RAW)
    assert back.flags.writeable


# --- typed decoding ----------------------------------------------------------------------------


@dataclasses.dataclass
class Snapshot:
    step: int
    weights: np.ndarray
    blob: Any


def test_typed_ndarray_fields_from_buffers() -> None:
    snap = Snapshot(3, np.arange(5000, dtype="<f4"), b"b" * 5000)
    data, buffers = pack_out_of_band(snap, option=OPT_NUMPY_RAW)
    received = [bytearray(b.raw()) for b in buffers]
    back = fastmsgpack.unpackb(
        data, type=Snapshot, option=OPT_NUMPY_RAW | OPT_BIN_MEMORYVIEW, buffers=received
    )
    assert back.step == 3 and np.array_equal(back.weights, snap.weights)
    assert np.shares_memory(back.weights, np.frombuffer(received[0], "u1"))
    assert type(back.blob) is memoryview and back.blob.obj is received[1]
    with pytest.raises(MsgpackDecodeError, match="more buffers"):
        fastmsgpack.unpackb(data, type=Snapshot, option=OPT_NUMPY_RAW, buffers=[*received, b""])


@dataclasses.dataclass
class Frame:
    pixels: memoryview
    raw: bytes


def test_typed_memoryview_and_bytes_fields() -> None:
    data = fastmsgpack.packb({"pixels": b"p" * 100, "raw": b"r" * 100})
    back = fastmsgpack.unpackb(data, type=Frame)
    assert back.pixels.obj is data and back.pixels.readonly and bytes(back.pixels) == b"p" * 100
    copied = fastmsgpack.unpackb(bytearray(data), type=Frame)
    assert type(copied.pixels) is memoryview and copied.pixels.obj is not data
    sent: list[pickle.PickleBuffer] = []
    data = fastmsgpack.packb(
        {"pixels": b"p" * 5000, "raw": b"r" * 5000}, buffer_callback=sent.append
    )
    received = [bytearray(b.raw()) for b in sent]
    back = fastmsgpack.unpackb(data, type=Frame, buffers=received)
    assert back.pixels.obj is received[0] and not back.pixels.readonly
    assert type(back.raw) is bytes and back.raw == b"r" * 5000
    with pytest.raises(MsgpackDecodeError, match="no buffers were given"):
        fastmsgpack.unpackb(data, type=Frame)
