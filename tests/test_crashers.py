"""go-fuzz crashers from shamaton/msgpack (see DATA/shamaton-msgpack-crashers/README.md).

All 104 inputs are truncated hostile documents; each must raise MsgpackDecodeError (not crash,
hang, or raise MemoryError/RecursionError/UnicodeDecodeError/TypeError), with or without
OPT_NON_STR_KEYS (most start with a map whose first key is an int).
"""

from __future__ import annotations

import time
from pathlib import Path

import pytest
from conftest import DATA, error_offset

import fastmsgpack

CRASHERS_DIR = DATA / "shamaton-msgpack-crashers" / "crashers"
CRASHERS = sorted(CRASHERS_DIR.iterdir())
INDEX = DATA / "shamaton-msgpack-crashers" / "index.tsv"


def test_crasher_count() -> None:
    assert len(CRASHERS) == 104


def test_index_lists_every_file_with_its_bytes() -> None:
    rows = INDEX.read_text(encoding="utf-8").splitlines()[1:]
    index = {row.split("\t")[0]: bytes.fromhex(row.split("\t")[2]) for row in rows}
    assert index == {path.name: path.read_bytes() for path in CRASHERS}


@pytest.mark.parametrize("path", CRASHERS, ids=lambda p: p.name[:12])
@pytest.mark.parametrize(
    "option", [None, fastmsgpack.OPT_NON_STR_KEYS], ids=["default", "non_str_keys"]
)
def test_crasher_raises_decode_error(path: Path, option: int | None) -> None:
    data = path.read_bytes()
    start = time.perf_counter()
    with pytest.raises(fastmsgpack.MsgpackDecodeError) as info:
        fastmsgpack.unpackb(data, option=option)
    assert time.perf_counter() - start < 1.0
    assert 0 <= error_offset(info.value) <= len(data)


def test_huge_map32_crasher_is_in_the_set() -> None:
    # The one file whose map32 header declares 3,393,210,638 entries.
    huge = [p for p in CRASHERS if b"\xdf\xca\x40\x49\x0e" in p.read_bytes()]
    assert len(huge) == 1
    with pytest.raises(fastmsgpack.MsgpackDecodeError):
        fastmsgpack.unpackb(huge[0].read_bytes(), option=fastmsgpack.OPT_NON_STR_KEYS)
