"""A compressed save packs in pieces that a compressor thread compresses while the walk goes
on (doc/snapshots.md#saving): the file is byte for byte the one-buffer path's, and a failure
leaves the old file and no temporary file."""

from __future__ import annotations

import random
from pathlib import Path
from typing import Any

import pytest

import fastmsgpack
from fastmsgpack import snapshot
from fastmsgpack._fastmsgpack import _snapshot_save_packing
from fastmsgpack.snapshot import dumps, load, save

# zstd at levels 1 and 3, with and without its worker threads, and lz4.
SETTINGS = [("zstd", 3, 0), ("zstd", 1, 0), ("zstd", 3, 2), ("lz4", None, 0)]


def route(n: int, seed: int = 7) -> dict[str, Any]:
    rng = random.Random(seed)
    return {
        "id": seed,
        "stops": [
            {"id": i, "at": [rng.random(), rng.random()], "n": "s" * (i % 9)} for i in range(n)
        ],
    }


def temps(directory: Path) -> list[str]:
    return sorted(p.name for p in directory.iterdir() if p.name.endswith(".tmp"))


def save_as(path: Path, obj: Any, *, pieces: bool, piece: int = 1 << 20, **kw: Any) -> bool:
    """Saves as `save` does, in pieces from the start or never; returns whether in pieces."""
    codec, level, threads = snapshot._settings(
        kw.pop("compress"), kw.pop("level", None), kw.pop("threads", 0)
    )
    return _snapshot_save_packing(
        str(path),
        obj,
        kw.pop("default", None),
        kw.pop("option", None),
        None,
        codec,
        level,
        threads,
        b"\xc0",
        piece,
        0 if pieces else 1 << 62,
    )


@pytest.fixture(scope="module")
def large() -> dict[str, Any]:
    # About 3.3 MB packed: past zstd's window at level 3 (2 MiB), past which it compresses in
    # pieces.
    return route(90_000)


@pytest.mark.parametrize(
    ("codec", "level", "threads"), SETTINGS, ids=["zstd3", "zstd1", "zstd3-t2", "lz4"]
)
def test_pieces_write_the_bytes_of_the_one_buffer_path(
    tmp_path: Path, large: dict[str, Any], codec: str, level: int | None, threads: int
) -> None:
    assert len(fastmsgpack.packb(large)) > 3 << 20
    whole, cut = tmp_path / "whole.snap", tmp_path / "cut.snap"
    assert not save_as(whole, large, pieces=False, compress=codec, level=level, threads=threads)
    assert save_as(cut, large, pieces=True, compress=codec, level=level, threads=threads)
    assert cut.read_bytes() == whole.read_bytes()
    # And what dumps makes in memory, from the packed bytes whole.
    assert cut.read_bytes() == dumps(large, compress=codec, level=level, threads=threads)
    assert load(cut) == large
    info = snapshot.info(cut)
    assert info["size"] == len(fastmsgpack.packb(large))
    assert temps(tmp_path) == []


def test_save_compresses_a_large_object_in_pieces_by_default(
    tmp_path: Path, large: dict[str, Any]
) -> None:
    # The default threshold is under this object's size: save takes the path the test above
    # checks, and writes what dumps makes.
    assert len(fastmsgpack.packb(large)) > max(snapshot._PIECES_FROM, 2 << 20)
    save(tmp_path / "a.snap", large, compress="zstd")
    assert (tmp_path / "a.snap").read_bytes() == dumps(large, compress="zstd")


@pytest.mark.parametrize("piece", [4096, 65536], ids=["4k", "64k"])
def test_small_pieces_and_extensions_across_them(tmp_path: Path, piece: int) -> None:
    # OPT_EXACT writes tuples and sets as extensions whose header is written once their end is
    # known: an extension open across the end of a piece keeps the buffer until it closes.
    # One extension around everything (a tuple at the top) keeps the whole output in one buffer.
    rng = random.Random(3)
    inner = [(i, rng.random(), frozenset({i, -i}), "t" * (i % 40)) for i in range(20_000)]
    for obj in ({"rows": inner, "tail": (1, 2)}, (inner, {"k": (3,)})):
        path = tmp_path / "x.snap"
        assert save_as(
            path, obj, pieces=True, piece=piece, compress="lz4", option=fastmsgpack.OPT_EXACT
        )
        assert path.read_bytes() == dumps(obj, compress="lz4", option=fastmsgpack.OPT_EXACT)
        assert load(path, option=fastmsgpack.OPT_EXACT) == obj
    assert temps(tmp_path) == []


def test_small_objects_keep_one_buffer(tmp_path: Path) -> None:
    path = tmp_path / "s.snap"
    for obj in ({}, [1, 2, 3], route(10)):
        save(path, obj, compress="zstd")
        assert load(path) == obj
        assert path.read_bytes() == dumps(obj, compress="zstd")
    # An empty output in pieces from the start: one piece, the frame of nothing.
    assert save_as(path, [], pieces=True, compress="lz4")
    assert load(path) == []


@pytest.mark.parametrize("codec", ["zstd", "lz4"])
def test_default_raising_after_pieces_were_sent_leaves_the_old_file(
    tmp_path: Path, large: dict[str, Any], codec: str
) -> None:
    path = tmp_path / "plan.snap"
    save(path, {"v": 1}, compress=codec)

    def refuse(obj: object) -> object:
        raise RuntimeError("no")

    # The refused value comes last, after megabytes of pieces went to the compressor thread.
    obj = {"stops": large["stops"], "last": object()}
    with pytest.raises(fastmsgpack.MsgpackEncodeError) as failed:
        save_as(path, obj, pieces=True, compress=codec, default=refuse)
    assert isinstance(failed.value.__cause__, RuntimeError)
    with pytest.raises(fastmsgpack.MsgpackEncodeError):
        save_as(path, obj, pieces=True, compress=codec)
    assert load(path) == {"v": 1}
    assert temps(tmp_path) == []
