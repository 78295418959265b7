"""The offset index of uncompressed snapshots (format version 2, doc/snapshots.md#the-index):
read back by the layout the documentation gives and checked against the payload, used by
``view`` to give the values ``load`` gives, and refused with a ``SnapshotError`` kind when
damaged, by every reader."""

from __future__ import annotations

import random
import struct
from pathlib import Path
from typing import Any

import pytest

import fastmsgpack
from fastmsgpack import MsgpackDecodeError
from fastmsgpack.snapshot import (
    FORMAT_VERSION,
    SnapshotError,
    dumps,
    frame,
    info,
    load,
    loads,
    save,
    view,
)

SPAN_MIN = 64 << 10
STRIDE = 64


def route(n: int, seed: int = 5) -> dict[str, Any]:
    """A route snapshot: top-level fields, a long array of floats, then a long array of maps."""
    rng = random.Random(seed)
    return {
        "id": 7,
        "name": "north loop",
        "values": [rng.random() for _ in range(n)],
        "children": [
            {"id": i, "name": f"stop-{i}", "point": [rng.random(), rng.random()]} for i in range(n)
        ],
    }


def parse_index(data: bytes, head: dict[str, Any]) -> tuple[list[tuple[int, int]], list[Any]]:
    """The index at the end of a snapshot file, read by the documented layout."""
    at = head["header_size"] + head["stored_size"]
    index = data[at:]
    assert len(index) == head["index_size"]
    # Three entries, each a fixed key then a bin 32 or a uint 64: valid MessagePack.
    assert fastmsgpack.unpackb(index).keys() == {"spans", "arrays", "checksum"}
    fields = fastmsgpack.unpackb(index)
    spans_bin, arrays_bin = fields["spans"], fields["arrays"]
    spans = [struct.unpack_from(">QQ", spans_bin, i) for i in range(0, len(spans_bin), 16)]
    arrays = []
    i = 0
    while i < len(arrays_bin):
        start, stride, count = struct.unpack_from(">QQQ", arrays_bin, i)
        items = list(struct.unpack_from(f">{count}Q", arrays_bin, i + 24))
        arrays.append((start, stride, items))
        i += 24 + 8 * count
    return spans, arrays


def test_the_index_is_consistent_with_the_payload(tmp_path: Path) -> None:
    path = tmp_path / "route.snap"
    obj = route(12_000)
    save(path, obj, index=True)
    head = info(path)
    assert head["version"] == 2 == FORMAT_VERSION
    data = path.read_bytes()
    payload = data[head["header_size"] : head["header_size"] + head["size"]]
    assert payload == fastmsgpack.packb(obj)
    spans, arrays = parse_index(data, head)
    # Every container of 64 KiB or more, ordered by start: the route, its values, its children.
    values_at = payload.index(b"\xa6values") + 7
    children_at = payload.index(b"\xa8children") + 9
    assert spans == [
        (0, len(payload)),
        (values_at, children_at - 9),
        (children_at, len(payload)),
    ]
    for start, end in spans:
        assert fastmsgpack.unpackb(payload[start:end]) in (obj, obj["values"], obj["children"])
    # Every 64th item of both long arrays, decoded from where the index says it starts.
    assert [a[0] for a in arrays] == [values_at, children_at]
    for (_start, stride, items), items_of in zip(arrays, (obj["values"], obj["children"])):
        assert stride == STRIDE
        assert len(items) == (len(items_of) - 1) // STRIDE
        for k, offset in enumerate(items, 1):
            unpacker = fastmsgpack.Unpacker()
            unpacker.feed(payload[offset : offset + 64])
            assert next(unpacker) == items_of[k * stride]


def test_view_through_the_index_reads_what_load_reads(tmp_path: Path) -> None:
    path = tmp_path / "route.snap"
    obj = route(20_000)
    save(path, obj)  # 1 MiB or more: indexed by default
    assert info(path)["index_size"] > 0
    snap = view(path)
    assert snap["id"] == 7 and snap["name"] == "north loop"
    rng = random.Random(1)
    picks = [0, 1, 63, 64, 65, 127, 128, 19_999, -1, -64, *rng.sample(range(20_000), 200)]
    for i in picks:
        assert snap["children"][i].to_python() == obj["children"][i], i
        assert snap["values"][i] == obj["values"][i], i
    # Backwards after forwards, slices, iteration and the whole document.
    assert snap["children"][5]["point"][1] == obj["children"][5]["point"][1]
    assert snap["values"][100:300] == obj["values"][100:300]
    assert [c["id"] for c in snap["children"]] == list(range(20_000))
    assert snap.to_python() == obj == load(path)
    assert len(snap["children"]) == 20_000
    assert view(path, verify=True)["children"][12_345]["name"] == "stop-12345"


def test_files_without_an_index_still_load_and_view(tmp_path: Path) -> None:
    path = tmp_path / "route.snap"
    obj = route(20_000)
    save(path, obj, index=False)
    assert info(path)["version"] == 1 and info(path)["index_size"] == 0
    assert view(path)["children"][12_345].to_python() == obj["children"][12_345]
    assert load(path) == obj
    # Small snapshots, compressed ones, and framed bytes are written as version 1.
    save(path, route(10))
    assert info(path)["version"] == 1
    save(path, obj, compress="zstd")
    assert info(path)["version"] == 1
    assert loads(dumps(obj))["children"][3] == obj["children"][3]
    assert dumps(obj)[30] == 1 and frame(fastmsgpack.packb(obj), compress=None)[30] == 1
    with pytest.raises(ValueError, match="uncompressed"):
        save(path, obj, compress="zstd", index=True)


def indexed_small(tmp_path: Path) -> tuple[Path, bytes, int]:
    """A small indexed snapshot (two long arrays, one of them marked) and where its index
    starts."""
    path = tmp_path / "small.snap"
    save(path, route(2_500), index=True)
    head = info(path)
    data = path.read_bytes()
    start = head["header_size"] + head["stored_size"]
    assert 42 < len(data) - start < 2_000
    return path, data, start


def refused_kind(path: Path, how: str) -> str:
    with pytest.raises(SnapshotError) as refused:
        if how == "view":
            view(path)
        elif how == "load":
            load(path)
        else:
            loads(path.read_bytes())
    assert refused.value.path == (None if how == "loads" else str(path))
    assert isinstance(refused.value.offset, int)
    return str(refused.value.kind)


def test_every_flip_and_cut_of_the_index_is_refused(tmp_path: Path) -> None:
    _, data, start = indexed_small(tmp_path)
    bad_path = tmp_path / "bad.snap"
    for at in range(start, len(data)):
        for bit in (0x01, 0x80):
            bad = bytearray(data)
            bad[at] ^= bit
            bad_path.write_bytes(bad)
            for how in ("view", "load", "loads"):
                assert refused_kind(bad_path, how) in ("checksum", "truncated"), (at, bit, how)
    for cut in range(start, len(data)):
        bad_path.write_bytes(data[:cut])
        for how in ("view", "load", "loads"):
            assert refused_kind(bad_path, how) == "truncated", (cut, how)
    bad_path.write_bytes(data + b"\x00")
    for how in ("view", "load", "loads"):
        assert refused_kind(bad_path, how) == "checksum", how
    # The version byte flipped back to 1: the index is then bytes after the payload.
    bad = bytearray(data)
    bad[30] = 1
    bad_path.write_bytes(bad)
    assert refused_kind(bad_path, "load") == "checksum"


def test_an_index_of_another_payload_is_refused(tmp_path: Path) -> None:
    # Two snapshots of one length: the second's index after the first's payload.
    first, second = tmp_path / "a.snap", tmp_path / "b.snap"
    save(first, route(2_500, seed=1), index=True)
    save(second, route(2_500, seed=2), index=True)
    a, b = first.read_bytes(), second.read_bytes()
    assert len(a) == len(b)
    start = info(first)["header_size"] + info(first)["stored_size"]
    mixed = tmp_path / "mixed.snap"
    mixed.write_bytes(a[:start] + b[start:])
    for how in ("view", "load", "loads"):
        assert refused_kind(mixed, how) == "checksum", how


def test_a_damaged_payload_under_an_index_raises_and_never_crashes(tmp_path: Path) -> None:
    path, data, start = indexed_small(tmp_path)
    head = info(path)["header_size"]
    rng = random.Random(4)
    obj = route(2_500)
    for _ in range(80):
        bad = bytearray(data)
        for _ in range(3):
            bad[rng.randrange(head, start)] = rng.randrange(256)
        path.write_bytes(bad)
        with pytest.raises(SnapshotError):
            load(path)
        with pytest.raises(SnapshotError):
            view(path, verify=True)
        try:
            lazy = view(path)
            for i in (0, 64, 1000, 2499):
                lazy["children"][i].to_python()
                lazy["values"][i]
            lazy.to_python()
        except MsgpackDecodeError:
            pass
    path.write_bytes(data)
    assert view(path).to_python() == obj
