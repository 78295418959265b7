"""The libraries the benchmarks compare, each with the calls a user of it would make.

Every benchmark module takes its MessagePack libraries from ``MSGPACK_LIBRARIES`` and adds the
other serializers its workload compares against, so a library is called the same way, with the
same options, in every table.
"""

from __future__ import annotations

import pickle
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import msgpack  # type: ignore[import-untyped]
import msgspec
import orjson
import ormsgpack
from baseline import BEFORE
from baseline import NAME as BEFORE_NAME

import fastmsgpack


@dataclass(frozen=True)
class Library:
    name: str
    pack: Callable[..., bytes]
    unpack: Callable[..., Any]
    # Keyword arguments for each call, passed by pytest-benchmark itself so that every library is
    # called directly, with no wrapper in between.
    pack_kwargs: dict[str, Any] = field(default_factory=dict)
    unpack_kwargs: dict[str, Any] = field(default_factory=dict)
    # The dict form to what `pack` takes, and what `unpack` returns back to the dict form.
    prepare: Callable[[Any], Any] = lambda obj: obj
    restore: Callable[[Any], Any] = lambda obj: obj
    # Writes MessagePack, which msgpack-python, the reference implementation, must read back.
    msgpack_format: bool = False

    def packs(self, obj: Any) -> bytes:
        """``pack`` called as the benchmark calls it."""
        return self.pack(obj, **self.pack_kwargs)

    def unpacks(self, data: bytes) -> Any:
        """``unpack`` called as the benchmark calls it."""
        return self.unpack(data, **self.unpack_kwargs)


def reference_unpackb(data: bytes) -> Any:
    """``data`` decoded by msgpack-python, the reference implementation."""
    return msgpack.unpackb(data, raw=False)


def check_msgpack(library: Library, packed: bytes, expected: Any) -> None:
    """If ``library`` writes MessagePack, msgpack-python must read ``packed`` as ``expected``."""
    if library.msgpack_format:
        assert reference_unpackb(packed) == expected, (
            f"{library.name}: msgpack reads it differently"
        )


MSGPACK_LIBRARIES = (
    Library("fastmsgpack", fastmsgpack.packb, fastmsgpack.unpackb, msgpack_format=True),
    # An earlier build, with scripts/bench --baseline REV (see baseline.py).
    *(
        [Library(BEFORE_NAME, BEFORE.packb, BEFORE.unpackb, msgpack_format=True)]
        if BEFORE is not None
        else []
    ),
    Library("ormsgpack", ormsgpack.packb, ormsgpack.unpackb, msgpack_format=True),
    Library("msgspec", msgspec.msgpack.encode, msgspec.msgpack.decode, msgpack_format=True),
    Library(
        "msgpack",
        msgpack.packb,
        msgpack.unpackb,
        pack_kwargs={"use_bin_type": True},
        unpack_kwargs={"raw": False},
        msgpack_format=True,
    ),
)

ORJSON = Library("orjson", orjson.dumps, orjson.loads)


def pickle_library(protocol: int, name: str | None = None) -> Library:
    return Library(
        name or f"pickle-{protocol}", pickle.dumps, pickle.loads, pack_kwargs={"protocol": protocol}
    )
