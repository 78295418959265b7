"""Dump a 50,000-term vocabulary to a gzip file and load it back, with ten serializers.

The vocabulary (generators.make_vocabulary) is a list of dicts of str and int, each with a list of
one to four forms. "dump" serializes it in memory and writes the result through
``gzip.open(path, "wb", compresslevel=1)``; "load" reads and decompresses the whole file and
deserializes it. Compression level 1 is used throughout, so that compression costs little next
to serialization; the file sizes are therefore those of a fast gzip.

Groups are ``vocab-dump`` and ``vocab-load``; ``extra_info["bytes"]`` is the size of the gzip
file and ``extra_info["raw_bytes"]`` that of the uncompressed serialization. Each library is
called as a user would call it, with default options: the JSON libraries and PyYAML return str,
encoded to UTF-8; PyYAML uses its libyaml ``CDumper`` and ``CLoader``; pickle uses protocol 5.

Before anything is timed, each library's file must load, with the library itself, to an object
equal to the vocabulary; the files are written to a temporary directory.
"""

from __future__ import annotations

import functools
import gzip
import json
import pickle
from collections.abc import Callable
from pathlib import Path
from typing import Any

import msgpack  # type: ignore[import-untyped]
import msgspec
import orjson
import ormsgpack
import pytest
import simplejson  # type: ignore[import-untyped]
import ujson
import yaml  # type: ignore[import-untyped]
from generators import freeze_inputs, vocabulary

import fastmsgpack

COMPRESSLEVEL = 1

# Each library as (serialize to bytes, deserialize from bytes).
LIBRARIES: dict[str, tuple[Callable[[Any], bytes], Callable[[bytes], Any]]] = {
    "fastmsgpack": (fastmsgpack.packb, fastmsgpack.unpackb),
    "ormsgpack": (ormsgpack.packb, ormsgpack.unpackb),
    "msgspec": (msgspec.msgpack.encode, msgspec.msgpack.decode),
    "msgpack": (
        lambda obj: msgpack.packb(obj, use_bin_type=True),
        lambda data: msgpack.unpackb(data, raw=False),
    ),
    "pickle": (lambda obj: pickle.dumps(obj, protocol=5), pickle.loads),
    "json": (lambda obj: json.dumps(obj).encode(), json.loads),
    "simplejson": (lambda obj: simplejson.dumps(obj).encode(), simplejson.loads),
    "ujson": (lambda obj: ujson.dumps(obj).encode(), ujson.loads),
    "orjson": (orjson.dumps, orjson.loads),
    "pyyaml": (
        lambda obj: yaml.dump(obj, Dumper=yaml.CDumper).encode(),
        lambda data: yaml.load(data, Loader=yaml.CLoader),
    ),
}


def dump(library: str, obj: Any, path: Path) -> int:
    """Write ``obj`` to the gzip file ``path``; return the uncompressed size."""
    data = LIBRARIES[library][0](obj)
    with gzip.open(path, "wb", compresslevel=COMPRESSLEVEL) as f:
        f.write(data)
    return len(data)


def load(library: str, path: Path) -> Any:
    with gzip.open(path, "rb") as f:
        data = f.read()
    return LIBRARIES[library][1](data)


@pytest.fixture(scope="module")
def vocab_dir(tmp_path_factory: pytest.TempPathFactory, _frozen_inputs: None) -> Path:
    """The temporary directory for the files; builds the vocabulary and freezes it first."""
    vocabulary()
    freeze_inputs()
    return tmp_path_factory.mktemp("vocab")


@functools.cache
def _written_and_checked(library: str, vocab_dir: Path) -> tuple[Path, int]:
    """Write the library's file once, and check that it loads back to the vocabulary."""
    path = vocab_dir / f"vocab-{library}.gz"
    raw_bytes = dump(library, vocabulary(), path)
    assert load(library, path) == vocabulary(), f"{library}: the file loads differently"
    return path, raw_bytes


def _prepare(benchmark: Any, library: str, operation: str, vocab_dir: Path) -> Path:
    path, raw_bytes = _written_and_checked(library, vocab_dir)
    benchmark.group = f"vocab-{operation}"
    benchmark.extra_info["library"] = library
    benchmark.extra_info["operation"] = operation
    benchmark.extra_info["bytes"] = path.stat().st_size
    benchmark.extra_info["raw_bytes"] = raw_bytes
    benchmark.extra_info["compresslevel"] = COMPRESSLEVEL
    return path


@pytest.mark.parametrize("library", list(LIBRARIES))
def test_vocab_dump(benchmark: Any, library: str, vocab_dir: Path) -> None:
    path = _prepare(benchmark, library, "dump", vocab_dir)
    benchmark(dump, library, vocabulary(), path)


@pytest.mark.parametrize("library", list(LIBRARIES))
def test_vocab_load(benchmark: Any, library: str, vocab_dir: Path) -> None:
    path = _prepare(benchmark, library, "load", vocab_dir)
    benchmark(load, library, path)
