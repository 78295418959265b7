"""Dump a 50,000-term vocabulary to a gzip file and load it back, with ten serializers.

The vocabulary (generators.make_vocabulary) is a list of dicts of str and int, each with a list of
one to four forms. "dump" serializes it in memory and writes the result through
``gzip.open(path, "wb", compresslevel=1)``; "load" reads and decompresses the whole file and
deserializes it. Compression level 1, gzip's fastest, is used throughout; even so, compressing
takes most of a dump's time (about 46 ms of 61 for a MessagePack file, against 11 ms to
serialize), and deflate runs slower on MessagePack's bytes than on the larger JSON text.

Groups are ``vocab-dump`` and ``vocab-load``; ``extra_info["bytes"]`` is the size of the gzip
file and ``extra_info["raw_bytes"]`` that of the uncompressed serialization. Each library is
called as a user would call it, with default options: the JSON libraries and PyYAML return str,
encoded to UTF-8; PyYAML uses its libyaml ``CDumper`` and ``CLoader``; pickle uses protocol 5.

Before anything is timed, each library's file must load, with the library itself, to an object
equal to the vocabulary, and MessagePack files also with msgpack-python; the files are written to
a temporary directory.
"""

from __future__ import annotations

import functools
import gzip
import json
from pathlib import Path
from typing import Any

import pytest
import simplejson  # type: ignore[import-untyped]
import ujson
import yaml  # type: ignore[import-untyped]
from generators import freeze_inputs, vocabulary
from libraries import MSGPACK_LIBRARIES, ORJSON, Library, check_msgpack, pickle_library

COMPRESSLEVEL = 1


def _encoded(dumps: Any) -> Any:
    """A JSON or YAML library's str-returning dump, encoded to UTF-8 as a user would write it."""
    return lambda obj: dumps(obj).encode()


LIBRARIES = {
    lib.name: lib
    for lib in (
        *MSGPACK_LIBRARIES,
        pickle_library(5, name="pickle"),
        Library("json", _encoded(json.dumps), json.loads),
        Library("simplejson", _encoded(simplejson.dumps), simplejson.loads),
        Library("ujson", _encoded(ujson.dumps), ujson.loads),
        ORJSON,
        Library(
            "pyyaml",
            lambda obj: yaml.dump(obj, Dumper=yaml.CDumper).encode(),
            lambda data: yaml.load(data, Loader=yaml.CLoader),
        ),
    )
}


def dump(library: str, obj: Any, path: Path) -> int:
    """Write ``obj`` to the gzip file ``path``; return the uncompressed size."""
    lib = LIBRARIES[library]
    data = lib.pack(obj, **lib.pack_kwargs)
    with gzip.open(path, "wb", compresslevel=COMPRESSLEVEL) as f:
        f.write(data)
    return len(data)


def read(path: Path) -> bytes:
    with gzip.open(path, "rb") as f:
        return f.read()


def load(library: str, path: Path) -> Any:
    lib = LIBRARIES[library]
    return lib.unpack(read(path), **lib.unpack_kwargs)


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
    check_msgpack(LIBRARIES[library], read(path), vocabulary())
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
